"""The knowledge graph service: one read-only front over a backend (:mod:`kg_agent.kg.stores`).

The backend is chosen by how the graph is opened (:mod:`kg_agent.kg.loading`): an in-memory rdflib graph
(every edge indexed), an Oxigraph store on disk (read with pyoxigraph's API, neighbourhoods cached per
entity) or a SPARQL endpoint (templated, batched, paged queries). The front is the same for all three.

Entity ids are IRIs (or, for literal nodes, their N3 form). Names are read as RDF publishes them
(:mod:`kg_agent.kg.naming`: labels and aliases of many vocabularies, every language searchable, one display label
chosen by the caller's languages); relations are named by their property's label where the KG gives one, else by
the IRI's local name; ``^name`` is the relation walked backwards (see :mod:`kg_agent.kg.types`). Fuzzy label search
lives in :mod:`kg_agent.kg.linking`; this module answers exact label lookups only.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from rdflib import Graph
from rdflib.term import Node

from kg_agent.kg.errors import KGError, UnknownEntityError, UnknownRelationError
from kg_agent.kg.label_index import DictLabelIndex, SqliteLabelIndex
from kg_agent.kg.measured_cache import open_measured_cache
from kg_agent.kg.naming import SUBCLASS_PREDICATES, Naming
from kg_agent.kg.profile import MAX_CLASSES, KGClasses, KGProfile
from kg_agent.kg.relation_index import RelationIndex
from kg_agent.kg.sparql import sparql_iri
from kg_agent.kg.sparql_cache import SparqlCache
from kg_agent.kg.stores.base import BoundedEdges, GraphStore
from kg_agent.kg.terms import default_label, key_term, lookup_keys, node_key, qualified_only
from kg_agent.kg.types import Entity, base_relation, is_inverse


def class_list_query(iris: Sequence[str]) -> str:
    """``SELECT ?r ?c``: the distinct IRIs ``?c`` each class predicate of ``iris`` leads to (its number ``?r``), up to
    ``MAX_CLASSES + 1`` each, in one ``UNION`` (ValueError: an IRI that could break out of ``<...>``)."""
    return "SELECT ?r ?c WHERE { %s }" % " UNION ".join(
        "{ { SELECT DISTINCT ?c WHERE { ?s %s ?c FILTER(isIRI(?c)) } LIMIT %d } BIND(%d AS ?r) }"
        % (sparql_iri(iri), MAX_CLASSES + 1, number) for number, iri in enumerate(iris))


#: Relations one :meth:`KnowledgeGraph.sample_ends` query samples (a ``UNION`` branch each), so a Freebase-sized
#: schema is asked in chunks rather than in one giant query.
SAMPLE_RELATIONS_PER_QUERY = 200


class KnowledgeGraph:
    """Read-only queries over one knowledge graph, whatever its backend.

    Build one with a loader (:mod:`kg_agent.kg.loading`) or :func:`kg_agent.kg.open_kg`::

        from kg_agent.kg import open_kg
        kg = open_kg("../shared/data/metaqa/kb.txt")
        [hanks] = kg.find_entities("Tom Hanks")
        kg.neighbors(hanks.id, "^starred_actors")   # the films that star Tom Hanks

    Args:
        store: the backend (:class:`~kg_agent.kg.stores.base.GraphStore`).
        vector_cache_path: the SQLite file where the offline deciders keep the text embeddings they compute
            for this KG (relation names and paths), so later processes reuse them
            (:mod:`kg_agent.tools.shared.similarity`). :func:`~kg_agent.kg.open_oxigraph` sets
            ``<store>/kg-agent/vectors.sqlite``; memory and SPARQL KGs have none unless one is set here or
            assigned later.
        profile_path: the KG profile kept with the store (:mod:`kg_agent.kg.profile`), where :meth:`classes` reads
            the KG's class list (and keeps it, when the profile has none yet). :func:`~kg_agent.kg.open_oxigraph`
            sets ``<store>/kg-agent/profile.json``; memory and SPARQL KGs have none.
        measured_path: the SQLite file where what the offline deciders measure on the KG at first use is kept for
            later processes (:mod:`kg_agent.kg.measured_cache`), with ``build``, the id of the load it was measured
            on. :func:`~kg_agent.kg.open_oxigraph` sets ``<store>/kg-agent/measured.sqlite``; memory KGs have none,
            a SPARQL endpoint opened with a cache file keeps them there (:attr:`result_cache`).
    """

    def __init__(self, store: GraphStore, *, vector_cache_path: str | Path | None = None,
                 profile_path: str | Path | None = None, measured_path: str | Path | None = None,
                 build: str = "") -> None:
        self.store = store
        self.vector_cache_path = Path(vector_cache_path) if vector_cache_path is not None else None
        self.profile_path = Path(profile_path) if profile_path is not None else None
        self.measured_path = Path(measured_path) if measured_path is not None else None
        self._build = build
        self._measured: SparqlCache | None = None
        self._measured_opened = False
        self._lock = threading.RLock()
        self._label_index: DictLabelIndex | None = None
        self._classes: KGClasses | None = None
        if hasattr(store, "on_label_change"):
            store.on_label_change = self._drop_label_index

    def _drop_label_index(self) -> None:
        self._label_index = None

    # ------------------------------------------------------------------ what the graph is
    @property
    def backend(self) -> str:
        """``"memory"``, ``"oxigraph"`` or ``"sparql"``."""
        return self.store.kind

    @property
    def naming(self) -> Naming:
        """How the graph names things: label, alias and class predicates, the languages shown
        (:class:`~kg_agent.kg.naming.Naming`)."""
        return self.store.naming

    @property
    def graph(self) -> Graph:
        """The rdflib graph over the same triples."""
        return self.store.graph

    @property
    def name(self) -> str:
        return self.store.name

    @property
    def result_cache(self) -> SparqlCache | None:
        """Where per-KG facts other layers derive are kept across processes (a
        :class:`~kg_agent.kg.sparql_cache.SparqlCache`): a SPARQL endpoint's result cache (opened with
        ``cache_path``), else the store's measured facts (:attr:`measured_path`, opened at first use); else ``None``."""
        store_cache = getattr(self.store, "store_cache", None)
        if store_cache is not None or self.measured_path is None:
            return store_cache
        with self._lock:
            if not self._measured_opened:
                self._measured = open_measured_cache(self.measured_path, self._build)
                self._measured_opened = True
        return self._measured

    @property
    def batched(self) -> bool:
        """Whether a search frontier should be :meth:`prefetch`-ed before it is walked (remote endpoints)."""
        return self.store.batched

    def __len__(self) -> int:
        """Number of triples in the graph (over an endpoint: a ``COUNT`` query)."""
        return self.store.triple_count()

    def __bool__(self) -> bool:
        """A KG is always true, empty or not: ``if kg`` never counts its triples (a query to an endpoint)."""
        return True

    def __contains__(self, entity_id: str) -> bool:
        return self.has_entity(entity_id)

    # ------------------------------------------------------------------ caches of lazy backends
    def prefetch(self, entity_ids: Iterable[str]) -> int:
        """Fetch the edges of every given entity not cached yet, in batches where the backend batches.

        Returns how many were fetched (0 for the memory backend, which holds everything). Call it with a
        search frontier before walking it: ``neighbors``/``relations``/``edges`` then hit the cache.
        """
        return self.store.prefetch(entity_ids)

    def prefetch_labels(self, entity_ids: Iterable[str]) -> int:
        """Fetch the display label of every given entity not cached yet (lazy backends)."""
        return self.store.prefetch_labels(entity_ids)

    def cache_info(self) -> dict[str, int]:
        """Cache use of a lazy backend: entities and labels held, hits and misses, requests made for them."""
        return self.store.cache_info()

    def request_count(self) -> int:
        """HTTP requests sent to a remote endpoint so far (0 for local backends)."""
        return self.store.request_count()

    def reindex(self) -> None:
        """Rebuild every cache from the graph (needed only after bulk changes made outside rdflib's API)."""
        with self._lock:
            self.store.clear()
            self._label_index = None

    # ------------------------------------------------------------------ entities and edges
    def has_entity(self, entity_id: str) -> bool:
        """Whether the id names a node with at least one edge or label."""
        if not self.store.queryable(entity_id):  # e.g. a plain label such as "Tom Hanks" given as an id
            return False
        return self.store.has_node(entity_id)

    def label(self, entity_id: str, *, default: str | None = "") -> str | None:
        """The entity's display label: the first of its labels in the caller's languages, then an untagged one,
        then any (:class:`~kg_agent.kg.naming.Naming`); an alias where it has no label; its local name where it
        has neither."""
        found = self.store.label(entity_id)
        if found is not None:
            return found
        if default == "":
            return default_label(key_term(entity_id))
        return default

    def labels_by_id(self, entity_ids: Iterable[str]) -> dict[str, str]:
        """The label of each entity, as :meth:`label` gives it, for many at once (fetched in batches by lazy
        backends, whatever the size of their label cache)."""
        return {key: found if found is not None else default_label(key_term(key))
                for key, found in self.store.labels_of(entity_ids).items()}

    def labels(self, entity_id: str) -> list[str]:
        """Every label and alias of the entity, in every language, the display label first."""
        naming = self.naming
        literals = self.store.name_literals([entity_id], naming.name_predicates).get(entity_id, [])
        ranked = sorted((key, text) for predicate, text, language in literals
                        if (key := naming.rank(predicate, text, language)) is not None)
        return list(dict.fromkeys(text for _, text in ranked)) or [self.label(entity_id) or entity_id]

    def is_entity(self, entity_id: str) -> bool:
        """Whether a node is something a question can be about: not a literal, not a property (a predicate of the
        graph or a property entity that stands for one, Wikidata's ``wd:P57``), not a class (the object of
        ``rdf:type``, ``instance of`` ..., or the range of a property)."""
        return bool(self.entities_among([entity_id]))

    def entities_among(self, keys: Iterable[str]) -> dict[str, list[str]]:
        """``{key: its relations}`` for the keys that are entities (:meth:`is_entity`), in the given order; the
        relations are read in one batch (one request per 1,000 keys on an endpoint)."""
        names = self.store.names
        names.resolve()
        keys = [key for key in dict.fromkeys(keys) if not key.startswith('"') and key not in names.by_iri
                and key not in names.schema_nodes and self.store.queryable(key)]
        if not keys:
            return {}
        relations = self.store.relations_at_each(keys)
        classes = self.class_fan_outs()
        return {key: relations.get(key, []) for key in keys if not classes.intersection(relations.get(key, ()))}

    def entity(self, entity_id: str) -> Entity:
        """The entity with its label; :class:`UnknownEntityError` when the graph does not have it."""
        if not self.has_entity(entity_id):
            raise UnknownEntityError(f"{self.name} has no entity {entity_id!r}")
        return Entity(entity_id, self.label(entity_id) or entity_id)

    def relations(self, entity_id: str, *, direction: str = "both") -> list[str]:
        """The relations at an entity: outgoing names, incoming as ``^name``, or both (sorted)."""
        rels = self.store.edges(entity_id)
        if direction == "out":
            names = [r for r in rels if not is_inverse(r)]
        elif direction == "in":
            names = [r for r in rels if is_inverse(r)]
        elif direction == "both":
            names = list(rels)
        else:
            raise ValueError(f"direction must be 'out', 'in' or 'both', not {direction!r}")
        return sorted(names)

    def neighbors(self, entity_id: str, relation: str) -> list[str]:
        """Entities reached from ``entity_id`` over ``relation`` (``^relation`` walks it backwards; a relation
        named by its label may be given by its IRI's local name too: ``P22`` for ``father``)."""
        edges = self.store.edges(entity_id)
        found = edges.get(relation)
        if found is None:
            signed = self.store.names.signed_iri(relation)
            found = edges.get(self.store.names.signed_name(signed), ()) if signed is not None else ()
        return list(found)

    def bounded_edges(self, entity_id: str, bound: int) -> BoundedEdges:
        """An entity's edges over each relation with at most ``bound`` targets (``targets``: ``{relation: [neighbour,
        ...]}``, read-only) and the number of targets of each relation with more (``wide``), whose targets a disk store
        does not read: a hub (a genre's films, a country's citizens) costs a count in the engine, not its edges."""
        return self.store.bounded_edges(entity_id, bound)

    def bounded_edges_each(self, entity_ids: Iterable[str], bound: int) -> dict[str, BoundedEdges]:
        """:meth:`bounded_edges` of many entities, ``{id: its bounded edges}``: over an endpoint, their edges in batches
        (one request for many nodes, not one each)."""
        return self.store.bounded_edges_each(list(entity_ids), bound)

    def edges(self, entity_id: str) -> Mapping[str, Sequence[str]]:
        """All of an entity's edges as ``{relation: [neighbour, ...]}`` (read-only view; do not mutate)."""
        return self.store.edges(entity_id)

    def entity_ids(self) -> Iterator[str]:
        """Every node id that has an edge."""
        return self.store.node_ids()

    # ------------------------------------------------------------------ walks in the engine
    def relation_index(self) -> RelationIndex | None:
        """Which relation can follow which (:mod:`kg_agent.kg.relation_index`); None when the backend has none."""
        return self.store.relation_index()

    def subjects_per_object(self, relations: Iterable[str]) -> dict[str, float]:
        """``{relation: how many subjects its objects have on average}`` (inverse prefix ignored; keyed by the name
        given): 288 for PathQuestion's ``gender`` (576 persons, 2 values), 2.3 for MetaQA's ``directed_by``; from the
        relation index, or asked of an endpoint (one query for all, cached). A relation the graph does not have, or
        a backend that cannot tell, is left out."""
        iris = {name: iri for name in dict.fromkeys(relations) if (iri := self.store.names.iri(base_relation(name)))}
        shares = self.store.subjects_per_object(list(dict.fromkeys(iris.values()))) if iris else {}
        return {name: shares[iri] for name, iri in iris.items() if iri in shares}

    def relations_following(self, relation: str) -> list[str]:
        """Relations that some node reached over ``relation`` has (sorted): the relation index's row, or on an
        endpoint the same rule asked of the endpoint (once per relation, cached)."""
        return self.store.relations_following(relation)

    def relations_at(self, entity_id: str) -> list[str]:
        """The relation names at an entity, both directions, without reading its whole neighbourhood."""
        return sorted(self.store.relations_at(entity_id))

    def relations_at_each(self, entity_ids: Iterable[str]) -> dict[str, list[str]]:
        """:meth:`relations_at` of many entities at once: on a SPARQL endpoint one request per 1,000 entities,
        which reads only their distinct relations (a hub's edges are not transferred) and their labels."""
        found = self.store.relations_at_each(list(dict.fromkeys(entity_ids)))
        return {key: sorted(relations) for key, relations in found.items()}

    def walk(self, entity_ids: Sequence[str], relation: str, *, limit: int | None = None) -> dict[str, Sequence[str]]:
        """``{entity: neighbours over relation}`` for many entities in as few store calls as the backend allows.

        ``limit`` bounds the rows read (inside the query where the backend has one); entities without a
        neighbour over ``relation`` are left out.
        """
        return self.store.walk(list(entity_ids), relation, limit=limit)

    def sample_targets(self, entity_id: str, relation: str, count: int) -> list[str]:
        """Up to ``count`` neighbours of one entity over ``relation``, sorted: a sample, the first the backend reads
        (``LIMIT`` inside the engine, its index order), not the first ``count`` by id as :meth:`walk` cuts them, so
        a class with millions of members is sampled without reading (or counting) them all; the same on every
        backend when the entity has at most ``count``."""
        return self.store.sample_targets(entity_id, relation, count)

    def walkable(self, starts: Sequence[str], relations: Sequence[str]) -> bool:
        """Whether the relation path can be walked from some start (as :func:`~kg_agent.kg.paths.retrieve_paths`
        walks: no step walks the one before it backwards to where that began)."""
        return bool(relations) and self.store.walkable(list(starts), list(relations))

    def walkable_extensions(self, starts: Sequence[str],
                            prefixes: Sequence[tuple[str, ...]]) -> dict[tuple[str, ...], list[str]]:
        """``{prefix: relations (sorted)}``: for each relation path of a layer, the relations that extend it to a
        path walkable from ``starts`` (the empty prefix: the walkable relations at the starts). One query per
        layer on a SPARQL endpoint; relation index plus :meth:`walkable` elsewhere.

        A path never goes on from a class to its members (``^instance_of`` after a first hop, :meth:`class_fan_outs`):
        those are other things of the same kind, no fact about the topic, and Wikidata's ``human`` has millions,
        whose every extension the engine would have to try before it could say that none is walkable."""
        found = self.store.walkable_extensions(list(dict.fromkeys(starts)), [tuple(p) for p in prefixes])
        fan_outs = self.class_fan_outs()
        if fan_outs:
            found = {prefix: [rel for rel in rels if not (prefix and rel in fan_outs)] for prefix, rels in found.items()}
        return found

    def class_fan_outs(self) -> frozenset[str]:
        """The relation names that step from a class to its members: the inverses of the naming's class predicates
        that the graph has (``^type``, ``^instance_of``), but for those of a class hierarchy
        (:data:`~kg_agent.kg.naming.SUBCLASS_PREDICATES`: a class with subclasses and no member is an ontology's
        term, what its questions are about)."""
        names = self.store.names
        names.resolve()
        return frozenset("^" + names.by_iri[iri] for iri in self.naming.class_predicates
                         if iri in names.by_iri and iri not in SUBCLASS_PREDICATES)

    def classes_of(self, entity_ids: Iterable[str]) -> dict[str, list[str]]:
        """``{entity: its classes}``: the objects of the naming's class predicates (``rdf:type``, Wikidata's ``instance
        of`` ...) at each entity that has any (sorted; entities without a class fact are left out). One walk per class
        predicate the graph has, so memory, Oxigraph and endpoint graphs answer alike."""
        keys = [key for key in dict.fromkeys(entity_ids) if not key.startswith('"')]
        names = self.store.names
        names.resolve()
        found: dict[str, set[str]] = {}
        for iri in self.naming.class_predicates:
            if iri in names.by_iri and keys:
                for key, classes in self.store.walk(keys, names.by_iri[iri]).items():
                    found.setdefault(key, set()).update(c for c in classes if not c.startswith('"'))
        return {key: sorted(found[key]) for key in keys if found.get(key)}

    def classes(self) -> KGClasses:
        """The KG's class list (:class:`~kg_agent.kg.profile.KGClasses`): the classes (IRIs) its class predicates lead
        to (:meth:`class_fan_outs`: ``rdf:type``, ``instance of``; not a class hierarchy's), up to
        :data:`~kg_agent.kg.profile.MAX_CLASSES` per predicate; read once per graph.

        A store's profile (:attr:`profile_path`) gives them where its load kept them (read from the load's pass over the
        file, :mod:`kg_agent.kg.profile`). Otherwise (a memory KG, a SPARQL endpoint, a store loaded before the profile
        kept them) one query asks for each class predicate's distinct objects (:func:`class_list_query`), and a store's
        profile keeps the answer (``kg-agent/`` is kg-agent's metadata folder, never the KG; a profile that cannot be
        written is left as it was), so a store pays that query once, not once per process. Empty when the graph cannot
        answer (kept too: not asked again per question)."""
        with self._lock:
            if self._classes is not None:
                return self._classes
        profile = KGProfile.load(self.profile_path) if self.profile_path is not None else None
        kept = dict(profile.classes) if profile is not None and profile.classes is not None else {}
        try:
            iris = sorted(self.relation_iri(fan_out) for fan_out in self.class_fan_outs())
            found = {iri: kept[iri] for iri in iris if iri in kept}
            missing = [iri for iri in iris if iri not in kept]
            if missing:
                rows = self.query(class_list_query(missing))
                asked: dict[str, list[str]] = {iri: [] for iri in missing}
                for number, node in rows:
                    asked[missing[int(number)]].append(node_key(node))
                found.update((iri, tuple(dict.fromkeys(ends))) for iri, ends in asked.items())
                if profile is not None:
                    try:
                        replace(profile, classes={**kept, **found}).save(self.profile_path)
                    except OSError:
                        pass
            classes = KGClasses.of(found)
        except (KGError, ValueError):
            classes = KGClasses(complete=False)
        with self._lock:
            self._classes = classes
        return classes

    def complete_paths(self, starts: Sequence[str], relation_paths: Sequence[Sequence[str]], *, max_paths: int,
                       max_partial: int) -> tuple[dict[tuple[str, ...], list[tuple[str, ...]]], dict[str, str]]:
        """``(node paths, labels)``: the node paths of many relation paths at once where the backend answers
        that in one query (Oxigraph, a SPARQL endpoint; see :meth:`GraphStore.complete_paths`), and the labels,
        as :meth:`label` gives them, of path nodes the same query read. Relation paths left out are walked
        step by step."""
        found = self.store.complete_paths(list(dict.fromkeys(starts)), [tuple(r) for r in relation_paths],
                                          max_paths=max_paths, max_partial=max_partial)
        return found.paths, {key: label if label is not None else default_label(key_term(key))
                             for key, label in found.labels.items()}

    # ------------------------------------------------------------------ relations
    def relation_names(self) -> list[str]:
        """Every relation name of the graph (without inverses), sorted: from the property's label where it has
        one (``director`` for ``wdt:P57``), else from its IRI (:class:`~kg_agent.kg.terms.RelationNames`)."""
        return self.store.names.names()

    def relation_aliases(self, name: str) -> tuple[str, ...]:
        """Other names of a relation in the caller's languages (inverse prefix ignored): the aliases of its property
        (``skos:altLabel`` ...; "actor" and "starring" for Wikidata's cast member) and the names of the class of its
        values (``dbo:starring rdfs:range dbo:Actor``: "actor"), none when the KG gives none."""
        return self.store.names.aliases(base_relation(name))

    def relation_description(self, name: str) -> str | None:
        """What the KG says a relation means (inverse prefix ignored): its property's description in the caller's
        languages (``rdfs:comment``, ``schema:description`` ...; on Wikidata that of the property entity), None when
        it gives none."""
        return self.store.names.description(base_relation(name))

    def relation_iri(self, name: str) -> str:
        """The predicate IRI of a relation name (inverse prefix ignored); the IRI's local name finds a relation
        named by its label too (``P57``)."""
        name = base_relation(name)
        found = self.store.names.iri(name)
        if found is None:
            raise UnknownRelationError(f"{self.name} has no relation {name!r}")
        return found

    def sample_ends(self, relations: Iterable[str], limit: int, *,
                    per_query: int = SAMPLE_RELATIONS_PER_QUERY) -> dict[str, list[str]]:
        """``{relation: ids}``: up to ``limit`` distinct ids each relation leads to from some node (``^r``: its
        subjects), as ``SELECT DISTINCT ?o WHERE { ?s <r> ?o } LIMIT n`` returns them, for many relations in one
        request: a ``UNION`` of such sub-selects per ``per_query`` relations (the memory backend reads the same
        rows without parsing SPARQL). A relation the graph does not have, or whose IRI cannot be written safely in
        a query, gets ``[]``; :class:`~kg_agent.kg.errors.KGError` when the graph cannot answer (a dead endpoint)."""
        found: dict[str, list[str]] = {}
        asked: dict[str, tuple[str, bool]] = {}
        for relation in dict.fromkeys(relations):
            found[relation] = []
            try:
                iri = self.relation_iri(relation)
                sparql_iri(iri)  # an IRI that could break out of <...> raises ValueError
            except (UnknownRelationError, ValueError):
                continue
            asked[relation] = (iri, is_inverse(relation))
        names = list(asked)
        for start in range(0, len(names), per_query):
            chunk = names[start:start + per_query]
            found.update(zip(chunk, self.store.sample_ends([asked[name] for name in chunk], limit=limit)))
        return found

    def has_relation(self, name: str) -> bool:
        try:
            self.relation_iri(name)
            return True
        except UnknownRelationError:
            return False

    # ------------------------------------------------------------------ exact label lookup
    def label_index(self) -> DictLabelIndex | SqliteLabelIndex:
        """``{normalized label: [entity ids]}`` lookups (:mod:`kg_agent.kg.label_index`), kept up to date.

        An Oxigraph store answers from the SQLite label file built at load; other backends build a dict
        on first use.
        """
        stored = self.store.label_index()
        if stored is not None:
            return stored
        with self._lock:
            if self._label_index is None:
                self._label_index = DictLabelIndex(self.store.labelled_nodes())
            return self._label_index

    def find_entities(self, text: str) -> list[Entity]:
        """Entities whose label equals ``text`` (case, punctuation and spacing ignored; a space between a letter and a
        digit too, :func:`~kg_agent.kg.terms.joined_key`; a possessive ending it too, "Nirvana's"), else, when no label
        is the text whole, whose label is the text and a qualifier in parentheses ("Chicago (band)" for "Chicago").

        Only entities count (:meth:`is_entity`: no literal, property or class). Ranked: labels equal to ``text``
        as written first, then by number of relations (a film before a
        tag spelt the same way), then by id.
        """
        index = self.label_index()
        entities: dict[str, list[str]] = {}
        for key in lookup_keys(text):  # "ISWC 2005" finds "ISWC2005" when no label is written with the space
            entities = self.entities_among(index.get(key, []))
            if entities:
                break
        found = [Entity(k, self.label(k) or k) for k in entities]
        # "Chicago" finds "Chicago (band)" only when no label is "Chicago" whole
        whole = [e for e in found if not qualified_only(key, e.label)]
        found = whole or found
        if len(found) > 1:
            stripped = text.strip()
            found.sort(key=lambda e: (e.label != stripped, -len(entities[e.id]), e.id))
        return found

    # ------------------------------------------------------------------ SPARQL (read-only)
    def query(self, sparql: str, *, bindings: Mapping[str, Node] | None = None, timeout: float | None = None):
        """Run a read-only SPARQL query (SELECT/ASK/CONSTRUCT/DESCRIBE) with terms bound, never pasted.

        Updates and ``SERVICE`` clauses are rejected before anything reaches the store. ``timeout``
        (seconds) overrides the endpoint's request timeout for this query (``sparql`` backend).
        An answer the endpoint cut at its row cap raises :class:`KGQueryError` rather than come back short.
        """
        return self.store.query(sparql, bindings=bindings, timeout=timeout)

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Close the backend (disk and remote stores, the SPARQL result cache)."""
        self.store.close()

    def __enter__(self) -> KnowledgeGraph:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"KnowledgeGraph(name={self.name!r}, backend={self.backend!r})"


__all__ = [
    "KnowledgeGraph",
]
