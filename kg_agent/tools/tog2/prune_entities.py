"""Think-on-Graph 2.0's *entity prune* (EP, ToG-2 §3.2): candidate entities ranked by their documents.

For every chosen ``(topic entity e_j, relation r_jk)`` the KG gives candidate entities ``e_jkl``; the
chunks ``t_jklm`` of their documents (a :class:`~kg_agent.docs.index.DocumentIndex` filtered by entity)
are scored against ``[q, q_j^i, p_jkl]`` — the question, the topic entity's current clue query and the
triple that led to the candidate — as the cosine similarity of the embedded query text and the chunk's
stored embedding (the index's own embedding function embeds the query, so any embeddings work).

All candidates' chunks are pooled and ranked; a candidate's score is the sum over *its* chunks among the
global top-``K`` of ``score x exp(-alpha x rank)`` (rank 1 = best; :func:`rank_entities_by_chunks`). The
top-``W`` candidates become the next topic entities, carrying their triple paths and clue queries.

A candidate without documents (a date, a person without a page) is still reachable: its chunk score is
0, and ties — among them all candidates without a chunk in the top-``K`` — go round-robin over the
(entity, relation) pairs that reached them: the first candidate of every relation, best relation-prune
score first, then the second of every relation, and so on. Candidates already on the
path of the entity they are reached from are skipped; a relation reaching more than
``max_candidates`` entities is cut to the first ones (id order) with a warning.

Defaults ``K = 10`` and ``alpha = 0.8`` are those of the authors' released code (``para_rank_topk``:
``k=10``, ``alpha=0.8``, ranks counted from 1); the paper names ``K`` and ``alpha`` but gives no values.
"""

from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity, Triple
from kg_agent.kg.walks import Walk
from kg_agent.tools.shared.cosine_scale import unit_vectors
from kg_agent.tools.shared.updates import emit
from kg_agent.tools.tog2.frontier import triple_text

DEFAULT_TOP_K_CHUNKS = 10  # K (authors' code: para_rank_topk k=10)
DEFAULT_ALPHA = 0.8  # alpha (authors' code: alpha = 0.8)
DEFAULT_MAX_CANDIDATES = 50
MAX_KEPT_DOCUMENTS = 50


class ChunkScorer:
    """Chunks of entities from a :class:`DocumentIndex` with their stored embeddings, scored against queries.

    Chunks are fetched per entity once and kept (``max_cached_entities``); query texts are embedded with
    the collection's embedding function (the one its chunks were embedded with).
    """

    def __init__(self, index: Any, *, max_cached_entities: int = 50_000) -> None:
        self.index = index
        self.max_cached_entities = max_cached_entities
        self._cache: OrderedDict[str, list[tuple[dict, np.ndarray]]] = OrderedDict()
        self._lock = threading.Lock()
        self._function = None
        if index is not None:
            # the live function the collection embeds with (Chroma keeps it on the collection object); the
            # persisted configuration only rebuilds registered functions, not arbitrary LangChain embeddings
            collection = index.collection
            self._function = getattr(collection, "_embedding_function", None) or collection.configuration.get("embedding_function")

    def chunks(self, entity_ids: Iterable[str]) -> dict[str, list[tuple[dict, np.ndarray]]]:
        """``{entity id: [(chunk dict, unit vector), ...]}`` in document order; [] for entities without documents."""
        wanted = list(dict.fromkeys(entity_ids))
        if self.index is None:
            return {e: [] for e in wanted}
        with self._lock:
            missing = [e for e in wanted if e not in self._cache]
        fetched = self.index.chunk_vectors_for_entities(missing) if missing else {}
        with self._lock:
            for entity, rows in fetched.items():  # in document order
                vectors = unit_vectors([vector for _, vector in rows]) if rows else []
                self._cache[entity] = [({"id": c.id, "entity": entity, "title": c.title, "text": c.text,
                                         "chunk_index": c.chunk_index}, vector) for (c, _), vector in zip(rows, vectors)]
                if len(self._cache) > self.max_cached_entities:
                    self._cache.popitem(last=False)
            return {e: list(self._cache.get(e, [])) for e in wanted}

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 1), np.float32)
        function = self._function
        vectors = function.embed_query(list(texts)) if hasattr(function, "embed_query") else function(list(texts))
        return unit_vectors(np.asarray(vectors, dtype=np.float32))

    def score(self, queries: Sequence[str], entity_ids: Sequence[str]) -> list[list[tuple[dict, float]]]:
        """For each ``(query, entity)`` pair, the entity's chunks with their cosine similarity to the query."""
        by_entity = self.chunks(entity_ids)
        needed = [i for i, e in enumerate(entity_ids) if by_entity.get(e)]
        out: list[list[tuple[dict, float]]] = [[] for _ in entity_ids]
        if not needed:
            return out
        query_vectors = self.embed_queries([queries[i] for i in needed])
        for row, i in enumerate(needed):
            rows = by_entity[entity_ids[i]]
            matrix = np.stack([vector for _, vector in rows])
            sims = matrix @ query_vectors[row]
            out[i] = [(chunk, float(s)) for (chunk, _), s in zip(rows, sims)]
        return out


@dataclass
class RankedChunk:
    """One chunk of the global top-``K``: its 1-based rank, owner candidate, score and weight exp(-alpha·rank)."""

    rank: int
    candidate: int
    chunk: dict
    score: float
    weight: float


def rank_entities_by_chunks(
    scored: Sequence[Sequence[tuple[dict, float]]], *, top_k: int = DEFAULT_TOP_K_CHUNKS, alpha: float = DEFAULT_ALPHA
) -> tuple[list[float], list[RankedChunk]]:
    """ToG-2's entity ranking: ``score(e) = sum over e's chunks in the global top-K of s x exp(-alpha x rank)``.

    ``scored[c]`` holds candidate ``c``'s ``(chunk, score)`` pairs. Chunks are ranked by score (ties by
    chunk id); ranks start at 1. Returns the per-candidate scores and the top-``K`` chunks.
    """
    pool = [(score, chunk.get("id", ""), c, chunk) for c, pairs in enumerate(scored) for chunk, score in pairs]
    pool.sort(key=lambda t: (-t[0], t[1], t[2]))
    entity_scores = [0.0] * len(scored)
    top: list[RankedChunk] = []
    for rank, (score, _, candidate, chunk) in enumerate(pool[:top_k], start=1):
        weight = math.exp(-alpha * rank)
        entity_scores[candidate] += score * weight
        top.append(RankedChunk(rank, candidate, chunk, score, weight))
    return entity_scores, top


def chunk_query(question: str, clue: str, triple: dict | None) -> str:
    """The text a candidate's chunks are scored against: ``[q, q_j^i, p_jkl]`` joined."""
    parts = [question.strip(), (clue or "").strip(), triple_text(triple) if triple else ""]
    return " ".join(p for p in parts if p)


def _chunk_record(chunk: dict, score: float, rank: int, depth: int, label: str) -> dict:
    return {**chunk, "entity_label": label, "score": round(float(score), 6), "rank": rank, "depth": depth}


def merge_documents(previous: Sequence[dict], new: Sequence[dict], limit: int = MAX_KEPT_DOCUMENTS) -> list[dict]:
    """Chunks gathered so far: deduplicated by id (best score kept), best first."""
    best: dict[str, dict] = {}
    for chunk in [*previous, *new]:
        if chunk["id"] not in best or chunk["score"] > best[chunk["id"]]["score"]:
            best[chunk["id"]] = chunk
    return sorted(best.values(), key=lambda c: (-c["score"], c["id"]))[:limit]


def topic_documents_node(state: dict, *, scorer: ChunkScorer, top_k: int = DEFAULT_TOP_K_CHUNKS) -> dict:
    """Graph node (initialisation): the topic entities' own chunks scored against ``[q, q_j^0]``.

    As in the authors' code, the topic entities' best passages start the pool of references the
    examine step reads."""
    frontier = state.get("frontier") or []
    if not frontier:
        return {}
    queries = [chunk_query(state["question"], item.get("clue", ""), None) for item in frontier]
    scored = scorer.score(queries, [item["entity"]["id"] for item in frontier])
    _, top = rank_entities_by_chunks(scored, top_k=top_k, alpha=0.0)
    new = [_chunk_record(r.chunk, r.score, r.rank, 0, frontier[r.candidate]["entity"]["label"]) for r in top]
    return {"documents": merge_documents(state.get("documents") or [], new)}


def prune_entities_node(
    state: dict,
    *,
    kg: KnowledgeGraph,
    scorer: ChunkScorer,
    width: int,
    top_k: int = DEFAULT_TOP_K_CHUNKS,
    alpha: float = DEFAULT_ALPHA,
    max_candidates: int = DEFAULT_MAX_CANDIDATES,
) -> dict:
    """Graph node: candidates of the chosen relations, ranked by their chunks; keep the top ``width``."""
    frontier = state.get("frontier") or []
    depth = int(state.get("depth") or 0) + 1
    warnings: list[str] = []
    explored = ({item["entity"]["id"] for item in state.get("chains") or []} | {i["entity"]["id"] for i in frontier}
                | {e["id"] for e in state.get("topic_entities") or []})
    candidates: list[dict] = []
    seen: dict[str, int] = {}
    for choice in sorted(state.get("relations") or [], key=lambda c: -c["score"]):
        item = frontier[choice["item"]]
        head = Walk.from_dict(item).end
        visited = Walk.from_dict(item).entity_ids | explored
        neighbours = sorted(t for t in kg.neighbors(head.id, choice["relation"]) if t not in visited)
        if len(neighbours) > max_candidates:
            warnings.append(f"entity_prune: {head.label} -> {choice['relation']} reaches {len(neighbours)} entities; "
                            f"the first {max_candidates} are scored")
            neighbours = neighbours[:max_candidates]
        for entity_id in neighbours:
            if entity_id in seen:
                continue
            tail = Entity(entity_id, kg.label(entity_id) or entity_id)
            triple = Triple(head, choice["relation"], tail).to_dict()
            seen[entity_id] = len(candidates)
            candidates.append({"item": choice["item"], "entity": tail.to_dict(), "triple": triple,
                               "relation_score": float(choice["score"])})
    if not candidates:
        return {"depth": depth, "stop_reason": "no_candidates", "candidates": [],
                "warnings": [*warnings, "entity_prune: the chosen relations reach no new entity"]}
    queries = [chunk_query(state["question"], frontier[c["item"]].get("clue", ""), c["triple"]) for c in candidates]
    scored = scorer.score(queries, [c["entity"]["id"] for c in candidates])
    scores, top = rank_entities_by_chunks(scored, top_k=top_k, alpha=alpha)
    # ties (e.g. candidates without documents) go round-robin over the relations, best relation first
    within: dict[tuple[int, str], int] = {}
    turn = []
    for c in candidates:
        key = (c["item"], c["triple"]["relation"])
        turn.append(within.get(key, 0))
        within[key] = turn[-1] + 1
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], turn[i], -candidates[i]["relation_score"], i))
    kept = order[:width]
    in_top: dict[int, list[str]] = {}
    for ranked in top:
        in_top.setdefault(ranked.candidate, []).append(ranked.chunk["id"])
    new_frontier = []
    for i in kept:
        c = candidates[i]
        item = frontier[c["item"]]
        details = {"entity": c["entity"], "clue": item.get("clue", ""), "relation_score": c["relation_score"]}
        new_frontier.append(Walk.from_dict(item).extended(Triple.from_dict(c["triple"]), score=round(scores[i], 6),
                                                          depth=depth, details=details).to_dict())
    report = [{"entity": c["entity"], "relation": c["triple"]["relation"], "from": c["triple"]["head"]["label"],
               "score": round(scores[i], 6), "relation_score": c["relation_score"], "documents": len(scored[i]),
               "top_chunks": in_top.get(i, []), "kept": i in kept} for i, c in enumerate(candidates)]
    new_docs = [_chunk_record(r.chunk, r.score, r.rank, depth, candidates[r.candidate]["entity"]["label"]) for r in top]
    emit("prune_entities", depth=depth, kept=[{"entity": f["entity"]["label"], "score": f["score"]} for f in new_frontier],
         chunks=[{"id": d["id"], "entity": d["entity_label"], "score": d["score"], "rank": d["rank"]} for d in new_docs])
    return {
        "depth": depth,
        "frontier": new_frontier,
        "candidates": report,
        "chains": [*(state.get("chains") or []), *new_frontier],
        "documents": merge_documents(state.get("documents") or [], new_docs),
        "warnings": warnings,
    }
