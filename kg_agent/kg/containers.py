"""RDF's lists of members: a container (``rdf:Seq``, ``rdf:Bag``, ``rdf:Alt``: its members by ``rdf:_1``,
``rdf:_2`` ...) and a collection (``rdf:List``: ``rdf:first`` of each cell, the next cell by ``rdf:rest``). Such a node
stands for its members ("the paper's author list"): a walk that reaches it reaches them, in order, and the node itself
is never an answer nor counted (:func:`walks_into_lists`). Read from RDF's own vocabulary only, whatever KG: a node
is a list when it has a membership property (``rdf:_n``) or ``rdf:first`` of its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.types import Entity, Triple
from kg_agent.kg.walks import Walk

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_MEMBER = re.compile(re.escape(RDF) + r"_([1-9]\d*)$")
#: Most members read from one list, and most cells followed along an ``rdf:rest`` chain.
MAX_MEMBERS = 1000

#: How a member is reached from its list: the ``(relation, node)`` steps, the member last.
Steps = tuple[tuple[str, str], ...]


def _rdf_names(kg: KnowledgeGraph, relations: Iterable[str]) -> dict[str, str]:
    """``{relation name: its local name in RDF's namespace}`` ("_3", "first", "rest") for the relations given that are
    RDF's own."""
    found = {}
    for name in relations:
        if name.startswith("^"):
            continue
        try:
            iri = kg.relation_iri(name)
        except (KGError, KeyError, ValueError):
            continue
        if iri.startswith(RDF):
            found[name] = iri[len(RDF):]
    return found


def list_members(kg: KnowledgeGraph, node: str) -> list[Steps] | None:
    """The members of ``node`` in order, each as the steps reaching it from ``node``; None when it is no list (an
    empty list: ``[]``). Literal members are members too."""
    if node.startswith('"'):
        return None
    edges = kg.edges(node)
    rdf = _rdf_names(kg, edges)
    numbered = sorted((int(m.group(1)), name) for name, local in rdf.items()
                      if (m := _MEMBER.match(RDF + local)) is not None)
    if numbered:
        return [((name, member),) for _, name in numbered[:MAX_MEMBERS] for member in edges[name][:1]]
    first = next((name for name, local in rdf.items() if local == "first"), None)
    if first is None:
        return None
    members: list[Steps] = []
    way: list[tuple[str, str]] = []
    cell, seen = node, {node}
    while len(members) < MAX_MEMBERS:
        cell_edges = kg.edges(cell)
        cell_rdf = {local: name for name, local in _rdf_names(kg, cell_edges).items()}
        if "first" in cell_rdf:
            members.extend((*way, (cell_rdf["first"], m)) for m in cell_edges[cell_rdf["first"]][:1])
        following = cell_edges.get(cell_rdf["rest"], ()) if "rest" in cell_rdf else ()
        following = [n for n in following if n not in seen and not n.endswith("#nil") and not n.startswith('"')]
        if not following:
            break
        cell = following[0]
        seen.add(cell)
        way.append((cell_rdf["rest"], cell))
    return members


def membership_relations(kg: KnowledgeGraph, relations: Iterable[str]) -> set[str]:
    """The relations given that step from a list to a member or the next cell (``rdf:_n``, ``rdf:first``,
    ``rdf:rest``): steps inside one list, which name nothing the question asks for."""
    return {name for name, local in _rdf_names(kg, relations).items()
            if local in ("first", "rest") or _MEMBER.match(RDF + local)}


def without_list_steps(relations: Sequence[str], inside: set[str]) -> tuple[str, ...]:
    """A relation path with its steps inside lists (``inside``: :func:`membership_relations`) left out: the walks to
    each member of one list (``authorList -> rdf:_1``, ``authorList -> rdf:_2``) are one relation path."""
    return tuple(r for r in relations if r not in inside)


def _to_the_list(walk: dict, inside: set[str]) -> dict:
    """The walk cut back to the list its last steps walk inside (``authorList -> rdf:_2``: to the author list), or
    as it is."""
    steps = walk.get("steps") or []
    cut = len(steps)
    while cut > 1 and steps[cut - 1]["relation"] in inside:
        cut -= 1
    if cut == len(steps):
        return walk
    data = Walk.from_dict(walk)
    scores = None if data.scores is None else data.scores[:cut]
    return Walk(data.start, data.steps[:cut], score=data.score, scores=scores, depth=data.depth, round=data.round,
                details=data.details).to_dict()


def walks_into_lists(walks: Sequence[dict], kg: KnowledgeGraph | None) -> list[dict]:
    """The walks, each ending at a list (module docstring) replaced by one walk to each of its members, stepping
    through it (``authorList -> rdf:_1``); a list with no member ends no walk. Nothing is read when the KG has no
    membership property (``rdf:_n``, ``rdf:first``) at all. A walk that steps inside a list to one
    member (a beam keeps a few of ``rdf:_1``, ``rdf:_2`` ...) stands for the list: it reaches all of them. A walk up
    from a member to its list (``^rdf:_2``) is not stepped on (the list is then a step inside a fact, as a statement
    node is). Other walks as they are; no walk twice."""
    if kg is None:
        return list(walks)
    try:
        # a KG with no membership property anywhere has no list: nothing is read of the walks' ends
        if not membership_relations(kg, kg.relation_names()):
            return list(walks)
        inside = membership_relations(kg, {s["relation"].lstrip("^") for w in walks for s in w.get("steps") or ()})
    except KGError:
        return list(walks)
    walks = [_to_the_list(w, inside) for w in walks] if inside else list(walks)
    # a walk up from a member to its list (^rdf:_2: "the author list [X] is on") is inside the list: its members are
    # the member's fellows, not what the walk reached
    def up_into(walk: dict) -> bool:
        relation = walk["steps"][-1]["relation"]
        return relation.startswith("^") and relation[1:] in inside

    ends = sorted({Walk.end_of(w)["id"] for w in walks if w.get("steps") and not up_into(w)} - {""})
    try:
        # the ends with a step inside a list of their own, read in one batch: a list is read only where one is
        at = kg.relations_at_each(end for end in ends if not end.startswith('"'))
        steps_in = membership_relations(kg, {r for found in at.values() for r in found})
        lists = [end for end, found in at.items() if steps_in.intersection(found)]
        members = {end: found for end in lists if (found := list_members(kg, end)) is not None}
        labels = kg.labels_by_id({node for found in members.values() for steps in found for _, node in steps})
    except KGError:
        return list(walks)
    if not members:
        return list(walks)
    out: list[dict] = []
    expanded: set[str] = set()
    for data in walks:
        end = Walk.end_of(data)["id"] if data.get("steps") else None
        if end not in members or up_into(data):
            out.append(data)
            continue
        walk = Walk.from_dict(data)
        if walk.text() in expanded:  # the same list reached again (cut back from another of its members)
            continue
        expanded.add(walk.text())
        for steps in members[end]:
            longer, head = walk, walk.end
            for relation, node in steps:
                tail = Entity(node, labels.get(node) or node)
                scores = None if longer.scores is None else (*longer.scores, longer.scores[-1] if longer.scores else 0.0)
                longer = longer.extended(Triple(head, relation, tail), scores=scores)
                head = tail
            out.append(longer.to_dict())
    return out
