"""Relation paths around entities: which relation sequences can actually be walked from a start.

Used by the zero-shot planner (rank the walkable paths by similarity to the question), by the LLM
planner (tell the model which relations exist), and by the exemplar planner's distillation (score each
walkable path by the answers it reaches).
"""

from __future__ import annotations

from typing import Iterable

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import base_relation, is_inverse

#: How many frontier nodes are inspected to find the relations of the next step (deterministic sample).
FRONTIER_SAMPLE = 200


def walkable_relation_paths(
    kg: KnowledgeGraph,
    starts: Iterable[str],
    *,
    max_hops: int = 3,
    max_paths: int = 2000,
    frontier_sample: int = FRONTIER_SAMPLE,
) -> list[tuple[str, ...]]:
    """Every relation sequence of length 1..``max_hops`` that can be walked from ``starts``.

    A step is added only if some entity reached so far has that relation (its first
    ``frontier_sample`` entities in id order are inspected, which keeps hub entities cheap) and it
    reaches an entity other than the start (as in :func:`kg_agent.kg.paths.retrieve_paths`: ``r`` then
    ``^r`` counts only when it reaches e.g. co-actors). Returned by length, then in relation order.
    """
    starts = list(dict.fromkeys(starts))
    found: list[tuple[str, ...]] = []
    layer: list[tuple[tuple[str, ...], list[tuple[str, ...]]]] = [((), [(s,) for s in starts])]
    for _hop in range(max_hops):
        next_layer = []
        for relations, partials in layer:
            options: dict[str, list[tuple[str, ...]]] = {}
            for partial in partials[:frontier_sample]:
                for rel, targets in kg.edges(partial[-1]).items():
                    fresh = [partial + (t,) for t in targets if t != partial[0]]
                    if fresh:
                        options.setdefault(rel, []).extend(fresh[:frontier_sample])
            for rel in sorted(options):
                sequence = relations + (rel,)
                found.append(sequence)
                next_layer.append((sequence, sorted(options[rel])[: frontier_sample * 4]))
                if len(found) >= max_paths:
                    return found
        layer = next_layer
    return found


def verbalize_relation(relation: str) -> str:
    """``^film.film.directed_by`` -> ``directed by (reverse)``: the words a relation name carries."""
    name = base_relation(relation)
    words = name.rsplit(".", 2)[-1] if "." in name else name
    words = words.replace("_", " ").replace("-", " ").strip()
    if "." in name:
        domain = name.split(".")[-2].replace("_", " ")
        words = f"{domain} {words}"
    return f"{words} (reverse)" if is_inverse(relation) else words


def verbalize_relation_path(relations: Iterable[str], *, subject: str = "[ENT]") -> str:
    """A question-like phrase for a relation path, read from the topic entity outwards.

    ``("^starred_actors", "directed_by")`` -> ``the directed by of what has starred actors [ENT]``:
    a forward step asks for "the <relation> of" what came before, a backward step for "what has
    <relation>" it. On MetaQA dev questions this phrasing picks the gold relation path about 1.7x as
    often as listing the relation names (zero-shot, MiniLM; see docs/benchmarks.md).
    """
    phrase = subject
    for relation in relations:
        words = verbalize_relation(base_relation(relation))
        phrase = f"what has {words} {phrase}" if is_inverse(relation) else f"the {words} of {phrase}"
    return phrase
