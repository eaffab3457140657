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

A question may also ask for a role by meaning, in words that spell no role label: "who **gave** the talk [X]" asks for
the holder of the role node labelled "Speaker" (of the class *Presenter*), not of "Session Chair" (*Chair*). When no
label is named, each role's label with its classes' names ("Speaker (Presenter)") is read against the question
(mentions left out) by the shared MiniLM vectors, and the roles of the best text are chosen when its cosine is at least
:data:`ROLE_MEANING_FLOOR` and clears every other role text's by :data:`ROLE_MEANING_MARGIN`; roles that read about
alike are all kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.role_nodes import role_nodes
from kg_agent.kg.types import Entity
from kg_agent.text import stems
from kg_agent.tools.shared.scoring import mask_mentions
from kg_agent.tools.shared.similarity import shared_text_vectors

#: Least cosine of a role's text ("Speaker (Presenter)") with the question for it to be chosen by meaning.
ROLE_MEANING_FLOOR = 0.3
#: How far the chosen role text's cosine must clear every other role text's ("who gave the talk": "Speaker
#: (Presenter)" 0.48, "Session Chair (Chair)" 0.22).
ROLE_MEANING_MARGIN = 0.1


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
    masked = mask_mentions(question, [e for e in dict.fromkeys(mentioned) if e.label], approximate=False)
    asked = stems(masked)
    named = {key: len(words) for key in roles if (words := stems(nodes[key])) and words <= asked}
    if not named:
        return roles, meant_roles(masked, {key: nodes[key] for key in roles}, kg) if kg is not None else set()
    most = max(named.values(), default=0)
    return roles, {key for key, n in named.items() if n == most}


def meant_roles(masked_question: str, roles: Mapping[str, str], kg: KnowledgeGraph) -> set[str]:
    """The role nodes among ``roles`` (``{id: label}``) that the question (mentions masked) asks for by meaning: those
    whose text, the label with its classes' names ("Speaker (Presenter)"), is nearest the question by at least
    :data:`ROLE_MEANING_MARGIN` and :data:`ROLE_MEANING_FLOOR`; none when fewer than two texts differ or none is so
    near (module docstring)."""
    try:
        classes = kg.classes_of(list(roles))
        names = kg.labels_by_id(sorted({c for found in classes.values() for c in found}))
    except KGError:
        classes, names = {}, {}
    texts: dict[str, str] = {}
    for key, label in roles.items():
        kinds = [names[c] for c in classes.get(key, ()) if names.get(c) and stems(names[c]) != stems(label)]
        texts[key] = f"{label} ({', '.join(sorted(kinds))})" if kinds else label
    distinct = sorted(set(texts.values()))
    question = " ".join(masked_question.replace("[ENT]", " ").replace('"', " ").split())
    if len(distinct) < 2 or not question:
        return set()
    vectors = shared_text_vectors(None)
    cosines = vectors.similarity(vectors.matrix([question]), vectors.matrix(distinct))[0]
    order = sorted(range(len(distinct)), key=lambda i: -float(cosines[i]))
    best, runner_up = float(cosines[order[0]]), float(cosines[order[1]])
    if best < ROLE_MEANING_FLOOR or best - runner_up < ROLE_MEANING_MARGIN:
        return set()
    return {key for key, text in texts.items() if text == distinct[order[0]]}


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
