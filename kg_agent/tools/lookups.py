"""Read-only lookups over a knowledge graph, for any tool protocol (LangChain tools, the MCP server).

Each function takes a :class:`KnowledgeGraph` and plain arguments and returns a short JSON-serialisable
dict: lists are capped and a ``note`` says what was left out. Bad input (an empty name, an unknown entity
or relation, a path the KG does not have) raises :class:`KGToolError` with a message an agent can act on:
it names the closest labels or the relations that do exist. Nothing here writes to the KG.

A relation walked backwards is written ``^relation`` in arguments and results alike.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from langchain_core.tools import ToolException

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import closest_labels
from kg_agent.kg.linking import search_entities as search_labels
from kg_agent.kg.paths import DEFAULT_MAX_PATHS, node_path_to_path, retrieve_paths
from kg_agent.kg.terms import normalize_label
from kg_agent.kg.types import Entity, base_relation, relation_path_text
from kg_agent.llm.parsing import parse_relation_paths
from kg_agent.tools.shared.link import link_node
from kg_agent.tools.shared.updates import apply_update

INVERSE_NOTE = ("A relation starting with ^ is walked backwards: ^r leads from an entity to the things that have r "
                "pointing at it.")
PATH_NOTE = "A reasoning path is written 'entity -> relation -> entity -> ...', '^' marking a relation walked backwards."
#: The longest list any lookup returns, whatever limit is asked for.
MAX_LIMIT = 200


class KGToolError(ToolException):
    """Bad tool input; the message says what to do instead. LangChain tools return it to the agent as text."""


def capped(items: Sequence, limit: int, what: str) -> tuple[list, str | None]:
    """``items[:limit]`` and a note saying how many were left out (``None`` when none was)."""
    if len(items) <= limit:
        return list(items), None
    return list(items[:limit]), f"showing the first {limit} of {len(items)} {what}"


def with_notes(result: dict, notes: Iterable[str | None]) -> dict:
    """``result`` with the non-empty notes joined under ``note``."""
    kept = [n for n in notes if n]
    if kept:
        result["note"] = "; ".join(kept)
    return result


def clamp_limit(limit: int | None, default: int) -> int:
    """A list length between 1 and :data:`MAX_LIMIT`."""
    return max(1, min(int(limit or default), MAX_LIMIT))


def entity_ids_for(kg: KnowledgeGraph, text: str) -> list[str]:
    """Ids of the entities a text names: an id itself, else the entities labelled so (best first)."""
    found = [e.id for e in kg.find_entities(text)]
    if found:
        return found
    try:
        return [text] if kg.has_entity(text) else []
    except Exception:  # not a valid id for this backend
        return []


def unknown_entity_message(kg: KnowledgeGraph, text: str) -> str:
    """The message for a name the KG does not have, naming the closest labels."""
    closest: list[str] = []
    index = kg.label_index()
    for label in closest_labels(kg, text, limit=5, cutoff=0.5):  # every spelling of each close label
        closest.extend(kg.label(i) or label for i in index.get(normalize_label(label), [])[:3])
    closest = list(dict.fromkeys(closest))[:6]
    hint = ("closest labels: " + ", ".join(repr(c) for c in closest)) if closest else "no similar label either"
    return (f"{text!r} is not an entity of the knowledge graph ({hint}). "
            "Use an exact label or id, e.g. one returned by search_entities.")


def resolve_entity(kg: KnowledgeGraph, text: str) -> Entity:
    """The entity named by a label or id; :class:`KGToolError` naming the closest labels when there is none."""
    text = (text or "").strip()
    if not text:
        raise KGToolError("no entity given: pass an entity label or id (search_entities finds them)")
    ids = entity_ids_for(kg, text)
    if not ids:
        raise KGToolError(unknown_entity_message(kg, text))
    return Entity(ids[0], kg.label(ids[0]) or ids[0])


def check_relation(kg: KnowledgeGraph, entity: Entity, relation: str, limit: int = 40) -> str:
    """The relation if the entity has it; otherwise a :class:`KGToolError` listing the ones it has."""
    relation = (relation or "").strip().strip("'\"`")
    available = kg.relations(entity.id)
    if relation in available:
        return relation
    shown, note = capped(available, limit, "relations")
    listed = ", ".join(shown) + (f" ({note})" if note else "")
    raise KGToolError(
        f"{entity.label} has no relation {relation!r}. Its relations: {listed or 'none'}. {INVERSE_NOTE}"
    )


def relation_list(value: str | Sequence[str]) -> list[str]:
    """A relation path given as a list, ``<PATH> r1 <SEP> r2 </PATH>``, ``r1 -> r2`` or ``r1, r2``."""
    if isinstance(value, str):
        if "<" in value or "->" in value:
            parsed = parse_relation_paths(value)
            return parsed[0] if parsed else []
        return [r for r in (part.strip().strip("'\"`") for part in value.replace(",", " ").split()) if r]
    out: list[str] = []
    for item in value:
        out.extend(relation_list(item) if ("<" in item or "->" in item or "," in item) else [item.strip().strip("'\"`")])
    return [r for r in out if r]


def paths_from_texts(kg: KnowledgeGraph, texts: Iterable[str], *, max_candidates: int = 50) -> tuple[list[dict], list[str]]:
    """Reasoning-path dicts (as the nodes use them) for path texts, each checked against the KG.

    ``"Tom Hanks -> ^starred_actors -> Big"`` is walked edge by edge: a path whose entities or relations
    the KG does not have is skipped and a warning says where it breaks.
    """
    paths: list[dict] = []
    warnings: list[str] = []
    for text in texts:
        text = str(text).strip()
        parts = [p.strip() for p in text.split("->")]
        if not text or any(not p for p in parts) or len(parts) % 2 == 0:
            warnings.append(f"skipped {text!r}: not a reasoning path ('entity -> relation -> entity ...')")
            continue
        labels, relations = parts[0::2], parts[1::2]
        frontier = [(i,) for i in entity_ids_for(kg, labels[0])]
        if not frontier:
            warnings.append(f"skipped {text!r}: {unknown_entity_message(kg, labels[0])}")
            continue
        broken = None
        for relation, label in zip(relations, labels[1:]):
            wanted = normalize_label(label)
            extended = [
                nodes + (n,)
                for nodes in frontier
                for n in kg.neighbors(nodes[-1], relation)
                if n == label or normalize_label(kg.label(n) or n) == wanted
            ]
            if not extended:
                broken = f"{kg.label(frontier[0][-1])} -> {relation} -> {label} is not in the knowledge graph"
                break
            frontier = extended[:max_candidates]
        if broken:
            warnings.append(f"skipped {text!r}: {broken}")
            continue
        paths.append(node_path_to_path(kg, frontier[0], relations).to_dict())
    return paths, warnings


def entity_json(entity: Entity | dict) -> dict:
    """``{"id", "label"}`` of an entity or an entity dict."""
    return entity.to_dict() if isinstance(entity, Entity) else {"id": entity["id"], "label": entity["label"]}


def linked_state(kg: KnowledgeGraph, question: str, topic_entities: Sequence[str] | None = None) -> dict:
    """RoG's link step for a tool call; :class:`KGToolError` (with the closest labels) when no entity is found."""
    question = (question or "").strip()
    if not question:
        raise KGToolError("no question given")
    state: dict = {"question": question}
    if topic_entities:
        state["topic_entities"] = [str(t) for t in topic_entities]
    state = apply_update(state, link_node(state, kg=kg))
    if not state["topic_entities"]:
        reasons = [w.removeprefix("link: ") for w in state.get("warnings") or []]
        if topic_entities:
            reasons = [unknown_entity_message(kg, str(t)) for t in topic_entities]
        raise KGToolError("; ".join(reasons) or "no entity of the knowledge graph found in the question")
    return state


# ---------------------------------------------------------------------------------------------- lookups
def search_entities(kg: KnowledgeGraph, text: str, *, limit: int = 10) -> dict:
    """Entities by name: the label as written first, then labels containing the text, then similar spellings."""
    text = (text or "").strip()
    if not text:
        raise KGToolError("no text given: pass (part of) a name to search for")
    limit = clamp_limit(limit, 10)
    exact = kg.find_entities(text)  # ranked: the label as written first
    found = list(dict.fromkeys([*exact, *search_labels(kg, text, limit=limit + 1)]))
    entities = [{**e.to_dict(), "relations": kg.relations(e.id)[:10]} for e in found[:limit]]
    result: dict = {"query": text, "entities": entities}
    notes = [f"more than {limit} entities match; pass a larger limit or a more specific text" if len(found) > limit else None]
    if not entities:
        notes.append(unknown_entity_message(kg, text))
    return with_notes(result, notes)


def entity_relations(kg: KnowledgeGraph, entity: str, *, limit: int = 50) -> dict:
    """An entity's relations, ``outgoing`` and ``incoming`` (``^relation``), each with how many entities it reaches."""
    found = resolve_entity(kg, entity)
    edges = kg.edges(found.id)
    shown, note = capped(kg.relations(found.id), clamp_limit(limit, 50), "relations")
    outgoing = {r: len(edges[r]) for r in shown if not r.startswith("^")}
    incoming = {r: len(edges[r]) for r in shown if r.startswith("^")}
    return with_notes({"entity": found.to_dict(), "outgoing": outgoing, "incoming": incoming}, [note])


def neighbours(kg: KnowledgeGraph, entity: str, relation: str, *, limit: int = 20) -> dict:
    """The entities one relation leads to from an entity, with their total count."""
    found = resolve_entity(kg, entity)
    relation = check_relation(kg, found, relation)
    ids = kg.neighbors(found.id, relation)
    shown, note = capped(ids, clamp_limit(limit, 20), "entities")
    return with_notes({
        "entity": found.to_dict(),
        "relation": relation,
        "count": len(ids),
        "neighbours": [{"id": i, "label": kg.label(i) or i} for i in shown],
    }, [note])


def retrieve(
    kg: KnowledgeGraph,
    relations: str | Sequence[str],
    *,
    entity: str | None = None,
    question: str | None = None,
    limit: int = 20,
    max_paths: int = DEFAULT_MAX_PATHS,
) -> dict:
    """RoG's constrained search (Algorithm 1): the reasoning paths a relation path yields from a start entity
    (or a question's entities) and the distinct entities reached (``answers``)."""
    rels = relation_list(relations)
    if not rels:
        raise KGToolError("no relation given: pass the relation path to follow, e.g. ['^starred_actors', 'directed_by']")
    unknown = [r for r in rels if not kg.has_relation(base_relation(r))]
    if unknown:
        known, note = capped(kg.relation_names(), 40, "relations")
        raise KGToolError(
            f"unknown relation(s) {', '.join(map(repr, unknown))}; the knowledge graph has: {', '.join(known)}"
            + (f" ({note})" if note else "") + f". {INVERSE_NOTE}"
        )
    if entity:
        starts = [resolve_entity(kg, entity)]
    elif question:
        starts = [Entity.from_dict(e) for e in linked_state(kg, question)["topic_entities"]]
    else:
        raise KGToolError("give the start: `entity` (a label or id) or `question`")
    found = retrieve_paths(kg, [e.id for e in starts], rels, max_paths=max_paths)
    limit = clamp_limit(limit, 20)
    texts = list(dict.fromkeys(p.text() for p in found.paths))
    answers = [e.label for e in found.answers]
    shown_paths, paths_note = capped(texts, limit, "paths")
    shown_answers, answers_note = capped(answers, limit, "answers")
    notes = [paths_note, answers_note]
    if found.truncated:
        notes.append(f"the search stopped at {max_paths} paths")
    if not found.paths:
        notes.append(_dead_end(kg, starts, rels, max_paths=max_paths))
    return with_notes({
        "start": [e.label for e in starts],
        "relation_path": relation_path_text(rels),
        "count": len(texts),
        "paths": shown_paths,
        "answers": shown_answers,
    }, notes)


def _dead_end(kg: KnowledgeGraph, starts: list[Entity], relations: list[str], *, max_paths: int) -> str:
    """Where the relation path stops leading anywhere."""
    ids = [e.id for e in starts]
    where = ", ".join(e.label for e in starts)
    for step in range(1, len(relations) + 1):
        reached = retrieve_paths(kg, ids, relations[:step], max_paths=max_paths)
        if not reached.paths:
            return f"no path: {relations[step - 1]!r} leads to no new entity from {where} (see entity_relations)"
        where = f"the {len(reached.answers)} entities reached by {relation_path_text(relations[:step])}"
    return "no path"
