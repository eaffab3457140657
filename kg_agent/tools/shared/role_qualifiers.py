"""A role's label read as the question's qualifier: "who was the **general chair** of [X]".

A KG that models a role as a node of its own (:mod:`~kg_agent.kg.role_nodes`: ``[X] -hasRole-> "General Chair"
-heldBy-> person``, a club's "Captain" position, an ``org:Post`` "Treasurer") answers "who was the general chair of
[X]" with the holder of the role node whose label the question names, not with every holder of every role of [X].
So when some answers' walks pass through role nodes and the question names the label of some of those nodes (every
content word's stem of the label among the question's, :func:`~kg_agent.tools.shared.scoring.stems`; the walks'
start entities' names masked, so a title's words name no role), only the walks through the role nodes named most
fully are kept ("General Chair" over "Chair" for "the general chair"); an answer reached only through other role
nodes is left out. Answers whose walks pass no role node, and questions naming no role label ("who organised
[X]"), are left as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.kg.types import Entity
from kg_agent.tools.shared.scoring import mask_mentions, stems


def _inner_tails(path: dict) -> list[dict]:
    """The nodes a walk passes through (every step's tail but the last)."""
    return [step["tail"] for step in (path.get("steps") or [])[:-1]]


def qualified_by_role(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """The answers kept when the question names a role node's label (module docstring), with why the others went;
    None when no walk passes a role node whose label the question names."""
    inner = {node["id"]: node.get("label") or "" for a in answers for path in a.get("paths") or ()
             for node in _inner_tails(path)}
    roles = role_nodes(kg).among(inner) if inner else set()
    if not roles:
        return None
    starts = {path["start"]["id"]: path["start"].get("label") or "" for a in answers for path in a.get("paths") or ()
              if path.get("start")}
    asked = stems(mask_mentions(question, [Entity(key, label) for key, label in starts.items() if label],
                                approximate=False))
    named = {key: len(words) for key in roles if (words := stems(inner[key])) and words <= asked}
    if not named:
        return None
    most = max(named.values())
    chosen = {key for key, n in named.items() if n == most}
    kept = []
    for answer in answers:
        paths = answer.get("paths") or []
        through = [path for path in paths if any(node["id"] in roles for node in _inner_tails(path))]
        fitting = [path for path in through if any(node["id"] in chosen for node in _inner_tails(path))]
        if not through:
            kept.append(answer)
        elif fitting:
            kept.append({**answer, "paths": fitting + [path for path in paths if path not in through]})
    labels = sorted({inner[key] for key in chosen})
    return kept, (f"the question names the role {', '.join(repr(label) for label in labels)}: answers reached "
                  f"through other role nodes were left out")
