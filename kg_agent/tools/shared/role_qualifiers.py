"""A role's label read as the question's qualifier: "who was the **general chair** of [X]".

A KG that models a role as a node of its own (:mod:`~kg_agent.kg.role_nodes`: ``[X] -hasRole-> "General Chair"
-heldBy-> person``, a club's "Captain" position, an ``org:Post`` "Treasurer") answers "who was the general chair of
[X]" with the holder of the role node whose label the question names, not with every holder of every role of [X].
So when some walks pass through role nodes and the question names the label of some of those nodes (every
content word's stem of the label among the question's, :func:`~kg_agent.text.stems`; the walks'
start entities' names masked, so a title's words name no role), only the walks through the role nodes named most
fully are kept ("General Chair" over "Chair" for "the general chair"), and of the walks from the same entity over
the same relations to there, only those through a node so named (a constraint on the middle node: a role node of a
class too small to measure, "Participant", is no "Gold Sponsor" either), before the answer step reads them (RoG's
reasoning paths, ToG's chains); walks that pass no role node, and questions naming no role label ("who organised
[X]"), are left as they are.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.kg.types import Entity
from kg_agent.text import stems
from kg_agent.tools.shared.scoring import mask_mentions


def _inner_tails(walk: dict) -> list[dict]:
    """The nodes a walk passes through (every step's tail but the last)."""
    return [step["tail"] for step in (walk.get("steps") or [])[:-1]]


def qualified_walks(question: str, walks: Sequence[dict], kg: KnowledgeGraph | None) -> list[dict]:
    """The walks (dicts of :meth:`~kg_agent.kg.walks.Walk.to_dict`) without those through role nodes the question does
    not name, when it names the label of a role node some walk passes (module docstring); all of them otherwise,
    and when none would be left."""
    inner = {node["id"]: node.get("label") or "" for walk in walks for node in _inner_tails(walk)}
    starts = [Entity(walk["start"]["id"], walk["start"].get("label") or "") for walk in walks if walk.get("start")]
    roles, chosen = named_roles(question, inner, starts, kg)
    if not chosen:
        return list(walks)
    # the middle node's constraint: where a walk passes a named role node, every walk from the same start over the
    # same relations to there passes one too (a role of a class too small to be measured, "Participant", is no
    # "Gold Sponsor")
    at = {(walk["start"]["id"], _relations(walk)[:i + 1]) for walk in walks
          for i, node in enumerate(_inner_tails(walk)) if node["id"] in chosen}

    def fits(walk: dict) -> bool:
        relations = _relations(walk)
        return not any(node["id"] not in chosen and (node["id"] in roles or (walk["start"]["id"], relations[:i + 1]) in at)
                       for i, node in enumerate(_inner_tails(walk)))

    return [walk for walk in walks if fits(walk)] or list(walks)


def named_roles(question: str, nodes: Mapping[str, str], mentioned: Sequence[Entity],
                kg: KnowledgeGraph | None) -> tuple[set[str], set[str]]:
    """``(role nodes, those named)``: the role nodes among ``nodes`` (``{id: label}``), and those whose label the
    question names most fully (every stem of the label among the question's, the ``mentioned`` entities' names
    masked); none named when the question names no role label."""
    roles = role_nodes(kg).among(nodes) if nodes and kg is not None else set()
    if not roles:
        return roles, set()
    asked = stems(mask_mentions(question, [e for e in dict.fromkeys(mentioned) if e.label], approximate=False))
    named = {key: len(words) for key in roles if (words := stems(nodes[key])) and words <= asked}
    most = max(named.values(), default=0)
    return roles, {key for key, n in named.items() if n == most}


def named_role_candidates(question: str, candidates: Sequence[Entity], mentioned: Sequence[Entity],
                          kg: KnowledgeGraph | None) -> list[Entity]:
    """Of the next nodes a walk may step to (ToG's candidate entities), only the role nodes the question names when
    it names some (the middle node's constraint as :func:`qualified_walks` reads it); all of them otherwise."""
    if len(candidates) < 2:
        return list(candidates)
    _, chosen = named_roles(question, {c.id: c.label for c in candidates}, mentioned, kg)
    return [c for c in candidates if c.id in chosen] if chosen else list(candidates)


def _relations(walk: dict) -> tuple[str, ...]:
    return tuple(step["relation"] for step in walk.get("steps") or ())
