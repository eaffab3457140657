"""Relation paths around entities: which relation sequences can actually be walked from a start.

Used by the zero-shot planner (rank the walkable paths by similarity to the question), by the LLM
planner (tell the model which relations exist), and by the exemplar planner's distillation (score each
walkable path by the answers it reaches).
"""

from __future__ import annotations

from collections.abc import Iterable

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.terms import KNOWN_PREFIXES
from kg_agent.kg.types import base_relation, is_inverse
from kg_agent.text import name_words, separate_words

#: The prefixes that qualify colliding relation names (``dbp.language``): not words of the relation
_QUALIFIERS = frozenset(KNOWN_PREFIXES.values())


def walkable_relation_paths(
    kg: KnowledgeGraph,
    starts: Iterable[str],
    *,
    max_hops: int = 3,
    max_paths: int = 2000,
) -> list[tuple[str, ...]]:
    """Every relation sequence of length 1..``max_hops`` that can be walked from ``starts``.

    A sequence counts when it can be walked as :func:`kg_agent.kg.paths.retrieve_paths` walks it (``r`` then ``^r``
    counts only when it reaches e.g. co-actors, not only back where ``r`` began).
    Returned by length, then in relation order.

    Grown a layer at a time (:meth:`KnowledgeGraph.walkable_extensions`): the first step is the relations at
    the starts, each next step a relation that can follow the last one (:mod:`kg_agent.kg.relation_index`,
    built at load for the memory and Oxigraph backends), every candidate checked against the graph from the
    starts (:meth:`KnowledgeGraph.walkable`, one ``ASK`` on Oxigraph), so the cost does not grow with the
    degree of the hubs on the way. A SPARQL endpoint answers a whole layer in one query (the relations at the
    nodes each prefix reaches from the starts). Every backend gives the same paths.
    """
    starts = list(dict.fromkeys(starts))
    found: list[tuple[str, ...]] = []
    layer: list[tuple[str, ...]] = [()]
    for _hop in range(max_hops):
        extensions = kg.walkable_extensions(starts, layer)
        next_layer: list[tuple[str, ...]] = []
        for prefix in layer:
            for rel in extensions.get(prefix, ()):
                sequence = prefix + (rel,)
                found.append(sequence)
                next_layer.append(sequence)
                if len(found) >= max_paths:
                    return found
        layer = next_layer
        if not layer:
            break
    return found


def verbalize_relation(relation: str) -> str:
    """``^film.film.directed_by`` -> ``film directed by (reverse)``, ``birthPlace`` -> ``birth Place``,
    ``dbp.language`` -> ``language``: the words a relation name carries."""
    name = base_relation(relation)
    qualifier, dot, rest = name.partition(".")
    if dot and qualifier in _QUALIFIERS and "." not in rest:  # dbp.language: the name qualified by its namespace
        name = rest
    words = name.rsplit(".", 2)[-1] if "." in name else name
    words = separate_words(words).strip()
    if "." in name:
        domain = name.split(".")[-2].replace("_", " ")
        words = f"{domain} {words}"
    return f"{words} (reverse)" if is_inverse(relation) else words


def own_name_words(relation: str) -> list[str]:
    """The words of a relation's own name, without its domain and inverse marker: ``people.person.place_of_death`` ->
    ``["place", "of", "death"]``, ``^dbo.birthPlace`` -> ``["birth", "place"]`` (a question saying "film" does not
    evidence every ``film.*`` relation); also a class's name or label (its part after a last ".")."""
    return name_words(base_relation(relation).rsplit(".", 1)[-1])


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
