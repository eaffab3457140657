"""Names held on label nodes: ``entity -p-> node -q-> "literal"``, measured from the data (part of the KG profile).

Some graphs name a thing not by a literal of its own but through a node that stands for the name: SKOS-XL (W3C SKOS
Reference, appendix B) gives a concept ``skosxl:prefLabel`` -> a label node -> ``skosxl:literalForm "Medical
Research Council"@en``, its other names ``skosxl:altLabel`` nodes, so that a name can carry facts of its own (a
usage flag: "this one is the abbreviation"). Other vocabularies do the same under their own names. Read as plain
triples, such a thing has no name (every answer would be an IRI), and the literal naming it is two hops away.

:func:`measure_label_nodes` finds the shape from the triples, whatever its namespace:

* **a short literal per node** — a predicate ``q`` whose subjects each carry about one short text (at most
  :data:`~kg_agent.kg.profile.MAX_NAMES_PER_SUBJECT` a node, on average at most
  :data:`~kg_agent.kg.profile.MAX_NAME_CHARACTERS` long), on at least
  :data:`~kg_agent.kg.profile.MIN_NAMED_SUBJECTS` nodes, texts that mostly tell nodes apart;
* **held by one subject each** — a predicate ``p`` whose objects are (at least :data:`MIN_LABEL_NODE_SHARE` of them)
  such nodes, each held by about one subject (at most :data:`MAX_HOLDERS_PER_NODE` on average): a name node belongs
  to the thing it names, where a value shared by many things (a country, a type) is a thing of its own;
* **little else** — the nodes carry, besides ``q`` and their class, at most :data:`MAX_OTHER_TRIPLES_PER_NODE`
  triples each on average (flags such as an abbreviation's usage flag): a node with facts of its own is an entity;
* **no link to a named thing** — a flag is an unnamed value (SKOS-XL's usage flag ``abbrevName`` has no name of its
  own). A node whose triples lead to a thing the KG names (directly or through that thing's own name node) is a
  statement qualified by it: an identifier in a scheme (``country -isIdentifiedBy-> node -representationValue->
  "GM"``, ``node -inScheme-> scheme`` named "FIPS 10-4 Country Code"), which a walk must pass through ("the FIPS
  code of Germany"). When more than :data:`MIN_LABEL_NODE_SHARE` of ``q``'s texts are not on label nodes so, ``q``
  is read as no label-node text at all (its texts keep naming the nodes that carry them).

Of the holding predicates, one held about once per entity (at most :data:`MAX_PREFERRED_PER_ENTITY` nodes an entity)
is **preferred**: its node's literal is the entity's label; the others give **aliases** (a thing has many other
names). SKOS-XL, when present, is read by its own definitions (prefLabel preferred, altLabel and hiddenLabel
alternative), as the known label predicates are.

What the loaders do with it (:func:`name_triples`): each entity gets its label node's literal as a literal of its
own under kg-agent's predicates :data:`LABEL_NODE_NAME` (preferred) and :data:`LABEL_NODE_ALIAS` (the others), which
the profile's naming reads as a label and an alias predicate; the holding predicates, ``q`` and the predicates
stated only on label nodes are no facts (:attr:`~kg_agent.kg.naming.Naming.label_node_predicates`), so a label node
is never walked to, never an answer and never a question's entity, and a walk from an entity starts at the entity.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import islice

from kg_agent.kg.naming import LABEL_NAMES_GRAPH, LABEL_NODE_ALIAS, LABEL_NODE_NAME, Naming
from kg_agent.kg.profile import (
    MAX_NAME_CHARACTERS,
    MAX_NAMES_PER_SUBJECT,
    MIN_DISTINCT_SHARE,
    MIN_NAMED_SUBJECTS,
    PROFILE_SAMPLE,
    KGProfile,
)

SKOSXL = "http://www.w3.org/2008/05/skos-xl#"
#: SKOS-XL's holding predicates, each with whether it gives the preferred name (SKOS Reference, appendix B).
SKOSXL_HOLDERS: dict[str, bool] = {SKOSXL + "prefLabel": True, SKOSXL + "altLabel": False,
                                   SKOSXL + "hiddenLabel": False}

#: Share of a holding predicate's objects that must be label nodes.
MIN_LABEL_NODE_SHARE = 0.9
#: Subjects holding a label node, on average: a name node belongs to one thing.
MAX_HOLDERS_PER_NODE = 1.2
#: Label nodes an entity holds by its preferred predicate, on average: a thing has one preferred name (a language's
#: own one aside).
MAX_PREFERRED_PER_ENTITY = 1.2
#: Triples a label node carries besides its literal and its class, on average (flags).
MAX_OTHER_TRIPLES_PER_NODE = 1.5
#: Share of a predicate's subjects that must be label nodes for it to be stated on label nodes (so no fact).
MIN_ON_LABEL_NODES_SHARE = 0.9

#: One sampled triple: ``(subject id, predicate IRI, object id or text, whether the object is a text literal)``;
#: a non-text literal (a number, a date) is given with False and its text, and is never a node.
SampledTriple = tuple[str, str, str, bool]


@dataclass(frozen=True)
class LabelNodeRelation:
    """One holding predicate: ``holder`` (p) leads to label nodes whose ``literal`` predicate (q) names them;
    ``preferred`` when it gives the entity's label; ``entities``: how many subjects hold such nodes."""

    holder: str
    literal: str
    preferred: bool
    entities: int


def measure_label_nodes(triples: Iterable[SampledTriple], class_predicates: Iterable[str]
                        ) -> tuple[tuple[LabelNodeRelation, ...], tuple[str, ...]]:
    """The label-node relations of the sampled triples (module docstring) and the predicates stated only on their
    label nodes (their literal predicates and flags): ``(relations, node predicates)``."""
    classes = set(class_predicates)
    texts: dict[str, dict[str, list[str]]] = {}  # q -> node -> its texts
    links: dict[str, list[tuple[str, str]]] = {}  # p -> (subject, object node)
    out: dict[str, dict[str, int]] = {}  # subject -> predicate -> triples (not class predicates)
    for subject, predicate, obj, is_text in triples:
        if predicate in classes:
            continue
        counts = out.setdefault(subject, {})
        counts[predicate] = counts.get(predicate, 0) + 1
        if is_text:
            texts.setdefault(predicate, {}).setdefault(subject, []).append(obj)
        elif not obj.startswith('"'):
            links.setdefault(predicate, []).append((subject, obj))
    naming_texts = {q for q, nodes in texts.items() if _names_nodes(nodes)}
    texted = {node for q in naming_texts for node in texts[q]}
    # things the KG names: by a name-like text, or through a node carrying one (a scheme's own name node)
    named = texted | {subject for pairs in links.values() for subject, obj in pairs if obj in texted}
    linked_to_named = {subject for pairs in links.values() for subject, obj in pairs if obj in named}
    nodes_of: dict[str, set[str]] = {q: set(texts[q]) - linked_to_named for q in naming_texts}
    relations: list[LabelNodeRelation] = []
    on_nodes: set[str] = set()
    for q, nodes in sorted(nodes_of.items()):
        if len(nodes) < MIN_LABEL_NODE_SHARE * len(texts[q]):
            continue  # q's texts sit on statements qualified by named things too: no name text alone
        held = {p: pairs for p, pairs in links.items()
                if len(pairs) >= MIN_NAMED_SUBJECTS and p not in texts
                and sum(o in nodes for _, o in pairs) >= MIN_LABEL_NODE_SHARE * len(pairs)}
        if not held:
            continue
        holders: dict[str, set[str]] = {}
        for pairs in held.values():
            for subject, node in pairs:
                holders.setdefault(node, set()).add(subject)
        if sum(len(s) for s in holders.values()) > MAX_HOLDERS_PER_NODE * len(holders):
            continue
        if any(subject in nodes for pairs in held.values() for subject, _ in pairs):
            continue  # a label node holding label nodes is no name
        other = sum(n for node in holders for p, n in out.get(node, {}).items() if p != q)
        if other > MAX_OTHER_TRIPLES_PER_NODE * len(holders):
            continue
        entities = {p: {subject for subject, _ in pairs} for p, pairs in held.items()}
        preferred = _preferred(held, entities)
        relations += [LabelNodeRelation(p, q, p == preferred, len(entities[p])) for p in sorted(held)]
        on_nodes.add(q)
        for predicate in {p for node in holders for p in out.get(node, {})}:
            subjects = [s for s, counts in out.items() if predicate in counts]
            if sum(s in holders for s in subjects) >= MIN_ON_LABEL_NODES_SHARE * len(subjects):
                on_nodes.add(predicate)
    relations.sort(key=lambda r: (not r.preferred, -r.entities, r.holder))
    return tuple(relations), tuple(sorted(on_nodes))


def _preferred(held: dict[str, list[tuple[str, str]]], entities: dict[str, set[str]]) -> str | None:
    """The holding predicate of one literal predicate that gives names, not other names: SKOS-XL's ``prefLabel``
    when it is there, else the one held about once per entity (at most :data:`MAX_PREFERRED_PER_ENTITY` nodes an
    entity) naming the most entities (among equals, the fewest nodes an entity, then by IRI); None when no holding
    predicate is held about once per entity (all give other names)."""
    known = [p for p in held if SKOSXL_HOLDERS.get(p)]
    if known:
        return known[0]
    once = [p for p in held if p not in SKOSXL_HOLDERS
            and len(held[p]) <= MAX_PREFERRED_PER_ENTITY * len(entities[p])]
    return min(once, key=lambda p: (-len(entities[p]), len(held[p]) / len(entities[p]), p), default=None)


def _names_nodes(nodes: dict[str, list[str]]) -> bool:
    """Whether a literal predicate's texts (``{node: texts}``) name its nodes: enough nodes, about one short text
    each, texts that mostly tell the nodes apart."""
    if len(nodes) < MIN_NAMED_SUBJECTS:
        return False
    count = sum(len(found) for found in nodes.values())
    if count > MAX_NAMES_PER_SUBJECT * len(nodes):
        return False
    if sum(len(text) for found in nodes.values() for text in found) > MAX_NAME_CHARACTERS * count:
        return False
    return len({text for found in nodes.values() for text in found}) >= MIN_DISTINCT_SHARE * count


def derived_predicate(relation: LabelNodeRelation) -> str:
    """kg-agent's predicate for the names a relation gives: a label when preferred, else an alias."""
    return LABEL_NODE_NAME if relation.preferred else LABEL_NODE_ALIAS


def name_triples(relations: Iterable[LabelNodeRelation], holding, naming_literals) -> Iterator[tuple]:
    """``(entity, kg-agent's predicate, literal)`` for every label node of the relations: ``holding(p)`` gives the
    ``(entity, node)`` pairs of a holding predicate, ``naming_literals(node, q)`` a node's literals of ``q`` (in the
    backend's own terms, which are passed through)."""
    for relation in relations:
        predicate = derived_predicate(relation)
        for entity, node in holding(relation.holder):
            for literal in naming_literals(node, relation.literal):
                yield entity, predicate, literal


def with_label_nodes(profile: KGProfile, triples: Iterable[SampledTriple], naming: Naming) -> KGProfile:
    """``profile`` with the label-node relations measured from the sampled ``triples``."""
    relations, on_nodes = measure_label_nodes(triples, naming.class_predicates)
    if not relations:
        return profile
    return replace(profile, label_node_relations=tuple((r.holder, r.literal, r.preferred, r.entities)
                                                       for r in relations),
                   label_node_predicates=on_nodes)


def _relations(profile: KGProfile) -> list[LabelNodeRelation]:
    return [LabelNodeRelation(*found) for found in profile.label_node_relations]


_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


# ---------------------------------------------------------------- in memory (rdflib)
def graph_triples(graph, sample: int = PROFILE_SAMPLE) -> Iterator[SampledTriple]:
    """The first ``sample`` triples of an rdflib graph, as :func:`measure_label_nodes` reads them."""
    from rdflib import Literal

    from kg_agent.kg.terms import node_key

    for subject, predicate, obj in islice(graph, sample):
        if isinstance(obj, Literal):
            text = obj.language is not None or obj.datatype is None or str(obj.datatype) == _XSD_STRING
            yield node_key(subject), str(predicate), str(obj) if text else '"', text
        else:
            yield node_key(subject), str(predicate), node_key(obj), False


def add_graph_names(graph, profile: KGProfile) -> int:
    """State each label node's literal on the entity it names in an rdflib graph (kg-agent's own parse of the file:
    the file is not changed); the number of triples added."""
    from rdflib import Literal, URIRef

    found = list(name_triples(
        _relations(profile),
        lambda holder: ((s, o) for s, o in graph.subject_objects(URIRef(holder)) if not isinstance(o, Literal)),
        lambda node, literal: (o for o in graph.objects(node, URIRef(literal)) if isinstance(o, Literal))))
    for entity, predicate, literal in found:
        graph.add((entity, URIRef(predicate), literal))
    return len(found)


# ---------------------------------------------------------------- in an Oxigraph store
def oxigraph_triples(store, sample: int = PROFILE_SAMPLE) -> Iterator[SampledTriple]:
    """The first ``sample`` triples of a pyoxigraph store's default graph, as :func:`measure_label_nodes` reads
    them."""
    import pyoxigraph as ox

    for quad in islice(store.quads_for_pattern(None, None, None, ox.DefaultGraph()), sample):
        subject, obj = quad.subject, quad.object
        key = f"_:{subject.value}" if isinstance(subject, ox.BlankNode) else subject.value
        if isinstance(obj, ox.Literal):
            text = bool(obj.language) or obj.datatype.value in (_XSD_STRING, _RDF_LANG_STRING)
            yield key, quad.predicate.value, obj.value if text else '"', text
        else:
            yield key, quad.predicate.value, f"_:{obj.value}" if isinstance(obj, ox.BlankNode) else obj.value, False


def add_store_names(store, profile: KGProfile) -> int:
    """State each label node's literal on the entity it names in the store's named graph :data:`LABEL_NAMES_GRAPH`
    (the store kg-agent's load builds; the file's triples in the default graph stay as they were); the number of
    triples added."""
    import pyoxigraph as ox

    default, names = ox.DefaultGraph(), ox.NamedNode(LABEL_NAMES_GRAPH)
    found = [ox.Quad(entity, ox.NamedNode(predicate), literal, names) for entity, predicate, literal in name_triples(
        _relations(profile),
        lambda holder: ((q.subject, q.object) for q in store.quads_for_pattern(None, ox.NamedNode(holder), None, default)
                        if not isinstance(q.object, ox.Literal)),
        lambda node, literal: (q.object for q in store.quads_for_pattern(node, ox.NamedNode(literal), None, default)
                               if isinstance(q.object, ox.Literal)))]
    if found:
        store.extend(found)
        store.flush()
    return len(found)
