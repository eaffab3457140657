"""A role's label read as the question's qualifier: "who was the **general chair** of [X]".

A KG that models a role as a node of its own (:mod:`~kg_agent.kg.role_nodes`: ``[X] -hasRole-> "General Chair"
-heldBy-> person``, a club's "Captain" position, an ``org:Post`` "Treasurer") answers "who was the general chair of
[X]" with the holder of the role node whose label the question names, not with every holder of every role of [X].
So when some walks pass through role nodes and the question names the label of some of those nodes (every
content word's stem of the label among the question's, :func:`~kg_agent.tools.shared.scoring.stems`; the walks'
start entities' names masked, so a title's words name no role), only the walks through the role nodes named most
fully are kept ("General Chair" over "Chair" for "the general chair"), before the answer step reads them (RoG's
reasoning paths, ToG's chains); walks that pass no role node, and questions naming no role label ("who organised
[X]"), are left as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.kg.types import Entity
from kg_agent.tools.shared.scoring import mask_mentions, stems


def _inner_tails(walk: dict) -> list[dict]:
    """The nodes a walk passes through (every step's tail but the last)."""
    return [step["tail"] for step in (walk.get("steps") or [])[:-1]]


def qualified_walks(question: str, walks: Sequence[dict], kg: KnowledgeGraph | None) -> list[dict]:
    """The walks (dicts of :meth:`~kg_agent.kg.walks.Walk.to_dict`) without those through role nodes the question does
    not name, when it names the label of a role node some walk passes (module docstring); all of them otherwise,
    and when none would be left."""
    inner = {node["id"]: node.get("label") or "" for walk in walks for node in _inner_tails(walk)}
    roles = role_nodes(kg).among(inner) if inner and kg is not None else set()
    if not roles:
        return list(walks)
    starts = {walk["start"]["id"]: walk["start"].get("label") or "" for walk in walks if walk.get("start")}
    asked = stems(mask_mentions(question, [Entity(key, label) for key, label in starts.items() if label],
                                approximate=False))
    named = {key: len(words) for key in roles if (words := stems(inner[key])) and words <= asked}
    if not named:
        return list(walks)
    most = max(named.values())
    chosen = {key for key, n in named.items() if n == most}
    kept = [walk for walk in walks if not any(node["id"] in roles and node["id"] not in chosen
                                              for node in _inner_tails(walk))]
    return kept or list(walks)
