"""The MCP tools' structured results (pydantic models: their output schemas), and how a method run
(:func:`ask_result`) and the KG (:func:`kg_summary`) become one, capped with a note on what was cut."""

from typing import Any

from pydantic import BaseModel, Field

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.tools import lookups

#: ``ask``: answers, paths per answer and chunks per answer returned; characters of a chunk's text.
MAX_ANSWERS, MAX_ANSWER_PATHS, MAX_ANSWER_CHUNKS, MAX_CHUNK_CHARS = 20, 3, 3, 600


#: Relations listed by the KG summary.
MAX_SUMMARY_RELATIONS = 200


class EntityRef(BaseModel):
    id: str = Field(description="the entity's id (an IRI) in the knowledge graph")
    label: str = Field(description="its label")


class TopicEntity(EntityRef):
    mention: str | None = Field(default=None, description="the words of the question it was linked from (none when "
                                "given by id or carried over from the previous turn)")
    how: str | None = Field(default=None, description="how the mention matched: bracket, exact, partial or fuzzy")
    score: float | None = Field(default=None, description="how well it matched (higher is better)")


class EntityHit(EntityRef):
    relations: list[str] = Field(description="up to 10 of its relations (^relation: walked backwards)")


class SearchResult(BaseModel):
    query: str
    entities: list[EntityHit] = Field(description="best first: the label as written, then labels containing it, then similar spellings")
    note: str | None = Field(None, description="what was cut, or why nothing was found")


class RelationsResult(BaseModel):
    entity: EntityRef
    outgoing: dict[str, int] = Field(description="relation -> number of entities it leads to")
    incoming: dict[str, int] = Field(description="^relation -> number of entities it comes from")
    note: str | None = None


class NeighboursResult(BaseModel):
    entity: EntityRef
    relation: str
    count: int = Field(description="how many entities the relation leads to (all of them, before the cap)")
    neighbours: list[EntityRef]
    note: str | None = None


class PathsResult(BaseModel):
    start: list[str] = Field(description="the start entities")
    relation_path: str = Field(description="the relation path followed, <PATH> r1 <SEP> r2 </PATH>")
    count: int = Field(description="how many distinct reasoning paths were found")
    paths: list[str] = Field(description="reasoning paths 'entity -> relation -> entity -> ...'")
    answers: list[str] = Field(description="the distinct entities the paths end in")
    note: str | None = None


class Chunk(BaseModel):
    title: str | None = None
    entity: str | None = Field(None, description="the KG entity the document is about")
    text: str = Field(description=f"the chunk's text (at most {MAX_CHUNK_CHARS} characters)")


class Answer(BaseModel):
    answer: str
    grounded: bool = Field(description="False when no retrieved path or chunk supports the answer")
    paths: list[str] = Field(description="reasoning paths that support it")
    chunks: list[Chunk] = Field(default_factory=list, description="document chunks that support it (ToG-2)")
    note: str | None = None


class Plan(BaseModel):
    text: str = Field(description="a relation path, <PATH> r1 <SEP> r2 </PATH>")
    score: float
    source: str = Field(description="who made it: llm, exemplar, similarity ...")


class AskResult(BaseModel):
    question: str = Field(description="the question as the method read it")
    method: str
    topic_entities: list[TopicEntity]
    answers: list[Answer] = Field(description="best first")
    plans: list[Plan] = Field(default_factory=list, description="RoG's relation-path plans")
    stop_reason: str = ""
    warnings: list[str] = Field(default_factory=list)
    usage: dict[str, Any] = Field(default_factory=dict, description="LLM calls and tokens (empty when offline)")
    note: str | None = None


def ask_result(state: dict, *, method: str) -> AskResult:
    """The structured result of a method run: answers with their evidence, capped, with a note on what was cut."""
    notes: list[str | None] = []
    answers, note = lookups.capped(state.get("answers") or [], MAX_ANSWERS, "answers")
    notes.append(note)
    shown = []
    for record in answers:
        paths = [p["text"] for p in record.get("paths") or []]
        chunks = record.get("chunks") or []
        if len(paths) > MAX_ANSWER_PATHS or len(chunks) > MAX_ANSWER_CHUNKS:
            notes.append(f"at most {MAX_ANSWER_PATHS} paths and {MAX_ANSWER_CHUNKS} chunks shown per answer")
        shown.append(Answer(
            answer=record["answer"], grounded=bool(record.get("grounded", True)), paths=paths[:MAX_ANSWER_PATHS],
            chunks=[Chunk(title=c.get("title"), entity=c.get("entity_label") or c.get("entity"),
                          text=str(c.get("text", ""))[:MAX_CHUNK_CHARS]) for c in chunks[:MAX_ANSWER_CHUNKS]],
            note=record.get("note"),
        ))
    plans = [Plan(text=p["text"], score=float(p.get("score", 0.0)), source=str(p.get("source", "")))
             for p in state.get("plans") or []]
    return AskResult(
        question=state.get("question", ""), method=method,
        topic_entities=[TopicEntity(id=e["id"], label=e["label"], mention=e.get("mention"), how=e.get("how"),
                                    score=e.get("score")) for e in state.get("topic_entities") or []],
        answers=shown, plans=plans, stop_reason=state.get("stop_reason") or "",
        warnings=list(state.get("warnings") or []), usage=dict(state.get("usage") or {}),
        note="; ".join(dict.fromkeys(n for n in notes if n)) or None,
    )


def kg_summary(kg: KnowledgeGraph) -> dict:
    """``{"name", "triples", "relation_count", "relations": {name: triples}}``, relations most frequent first."""
    names = {kg.relation_iri(name): name for name in kg.relation_names()}
    counts: dict[str, int] = dict.fromkeys(names.values(), 0)
    note = None
    try:
        for predicate, count in kg.query("SELECT ?p (COUNT(*) AS ?n) WHERE { ?s ?p ?o } GROUP BY ?p"):
            if str(predicate) in names:
                counts[names[str(predicate)]] = int(count)
    except (KGError, ValueError) as exc:  # an endpoint that refuses aggregates: names without counts
        note = f"triple counts unavailable: {exc}"
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    shown, cut = lookups.capped(ranked, MAX_SUMMARY_RELATIONS, "relations")
    summary = {"name": kg.name, "triples": len(kg), "relation_count": len(ranked), "relations": dict(shown),
               "inverse_relations": lookups.INVERSE_NOTE}
    return lookups.with_notes(summary, [cut, note])
