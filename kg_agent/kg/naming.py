"""Names as RDF publishes them: which predicates carry names, which one is shown, and which nodes are not entities.

Real graphs name things in many ways: ``rdfs:label`` (DBpedia, Wikidata), ``skos:prefLabel`` and ``skos:altLabel``
(thesauri), ``schema:name`` (schema.org, over ``http`` and ``https``), ``foaf:name``, ``dcterms:title``, Freebase's
``type.object.name``; usually in several languages. A :class:`Naming` says, for one knowledge graph:

* which predicates give **labels** (a node's names, the displayed one chosen among them) and **aliases** (also
  searchable, shown only when a node has no label), and which give **descriptions** (prose about a node or property);
  none of them is a fact the reasoning walks over, but for the alias predicates the KG profile found among its
  facts (:attr:`Naming.stated_alias_predicates`: Project Gutenberg's ``pgterms:alias``, OBO's
  ``oboInOwl:hasExactSynonym``), which stay facts as well ("how many exact synonyms does stop_codon have");
* which **languages** the caller reads: the display label is the first label in those languages (a regional tag such
  as ``en-GB`` counts as ``en``), then an untagged one, then the rest by language tag; among equals, the predicate
  listed first, then the text in code-point order. So the same data gives the same label in every process and on
  every backend, whatever order a store returns the triples in;
* which predicates say that a node is a **class** (``rdf:type``, Wikidata's ``instance of`` and ``subclass of``): a
  class is something a question asks *for* ("which film"), never the entity it is *about*;
* which namespaces hold **schema** statements rather than facts (Wikibase's ``wikibase:directClaim`` and friends);
  statements about properties (``rdfs:domain``, ``rdfs:range``, ``owl:inverseOf`` ...: :data:`SCHEMA_PREDICATES`) are
  schema too.

Properties are named by their own labels too: :func:`relation_name_from_label` makes a relation name out of a
property's display label (``wd:P57 rdfs:label "director"@en`` names ``wdt:P57`` ``director``). Their aliases, the
names of the class their values belong to (``dbo:starring rdfs:range dbo:Actor``: "actor") and their descriptions
(``rdfs:comment``, ``schema:description``) say more of what a relation means
(:meth:`~kg_agent.kg.graph.KnowledgeGraph.relation_aliases`, :meth:`~kg_agent.kg.graph.KnowledgeGraph.relation_description`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
RDFS = "http://www.w3.org/2000/01/rdf-schema#"
SKOS = "http://www.w3.org/2004/02/skos/core#"
FOAF = "http://xmlns.com/foaf/0.1/"
DCTERMS = "http://purl.org/dc/terms/"
DC = "http://purl.org/dc/elements/1.1/"
SCHEMA_HTTP, SCHEMA_HTTPS = "http://schema.org/", "https://schema.org/"
FREEBASE = "http://rdf.freebase.com/ns/"
WIKIBASE = "http://wikiba.se/ontology#"
OWL = "http://www.w3.org/2002/07/owl#"
WDT = "http://www.wikidata.org/prop/direct/"

#: Predicates whose literals are a node's labels, in order of preference among labels of one language.
DEFAULT_LABEL_PREDICATES: tuple[str, ...] = (
    RDFS + "label", SKOS + "prefLabel", SCHEMA_HTTP + "name", SCHEMA_HTTPS + "name", FOAF + "name",
    DCTERMS + "title", DC + "title", FREEBASE + "type.object.name",
)
#: Predicates whose literals are other names of a node: searchable, displayed only where no label is.
DEFAULT_ALIAS_PREDICATES: tuple[str, ...] = (
    SKOS + "altLabel", SCHEMA_HTTP + "alternateName", SCHEMA_HTTPS + "alternateName", FREEBASE + "common.topic.alias",
    SKOS + "hiddenLabel",
)
#: Predicates whose literals describe a node or a property in prose (not walked; used to read what a property means).
DEFAULT_DESCRIPTION_PREDICATES: tuple[str, ...] = (
    RDFS + "comment", SCHEMA_HTTP + "description", SCHEMA_HTTPS + "description", DCTERMS + "description",
    SKOS + "definition", "http://dbpedia.org/ontology/abstract",
)
#: Predicates whose objects are classes (``?x rdf:type ?class``; Wikidata's P31 "instance of", P279 "subclass of";
#: Freebase's ``type.object.type``, whose classes are named by ``type.object.name``).
DEFAULT_CLASS_PREDICATES: tuple[str, ...] = (RDF + "type", RDFS + "subClassOf", WDT + "P31", WDT + "P279",
                                             FREEBASE + "type.object.type")
#: Among the class predicates, those linking a class to a wider class rather than a member to its class. A class
#: known only by its place in such a hierarchy (no member in the graph) is what an ontology's questions are about
#: (the Sequence Ontology's ``gene``): it stays an entity, and walks may go on to its subclasses.
SUBCLASS_PREDICATES: tuple[str, ...] = (RDFS + "subClassOf", WDT + "P279")
#: How English names each direction of the W3C vocabularies' hierarchy properties, which the KG itself rarely names
#: (``{property IRI: (names of the object seen from the subject, names of the subject seen from the object)}``):
#: "C1 rdfs:subClassOf C2 states that ... C1 is a subclass of C2" (RDF Schema 1.1, section 3.4), so C2 is C1's
#: superclass; "broader concepts are typically rendered as parents in a concept hierarchy" (SKOS Reference,
#: section 8.1); Wikidata's P279 is "subclass of". Read by the relation-path scorer as other names of each direction.
HIERARCHY_NAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    RDFS + "subClassOf": (("superclass", "parent class", "broader class"), ("subclass", "subtype", "child class")),
    WDT + "P279": (("superclass", "parent class", "broader class"), ("subclass", "subtype", "child class")),
    SKOS + "broader": (("broader concept", "parent concept"), ("narrower concept", "child concept")),
    SKOS + "narrower": (("narrower concept", "child concept"), ("broader concept", "parent concept")),
}
#: Namespaces of schema statements, never walked (``wd:P57 wikibase:directClaim wdt:P57``).
DEFAULT_SCHEMA_NAMESPACES: tuple[str, ...] = (WIKIBASE,)
#: Predicates giving the class of a property's values (``dbo:starring rdfs:range dbo:Actor``): the class's labels and
#: aliases name what the relation leads to ("actor"), as the property's own aliases do.
RANGE_PREDICATES: tuple[str, ...] = (RDFS + "range", SCHEMA_HTTP + "rangeIncludes", SCHEMA_HTTPS + "rangeIncludes")
#: kg-agent's own predicates for a label node's literal (:mod:`kg_agent.kg.label_nodes`) stated on the entity it names
#: (never in the user's file; in an Oxigraph store, triples kg-agent added at load).
LABEL_NODE_NAME = "urn:kg-agent:derived:label-node-name"
LABEL_NODE_ALIAS = "urn:kg-agent:derived:label-node-alias"
#: The named graph of an Oxigraph store that holds those triples (kg-agent's own, beside the file's triples in the
#: default graph, which a user's SPARQL over the store reads as the file has it).
LABEL_NAMES_GRAPH = "urn:kg-agent:derived:label-node-names"
#: Predicates giving the class of a property's subjects (``dbo:starring rdfs:domain dbo:Work``).
DOMAIN_PREDICATES: tuple[str, ...] = (RDFS + "domain", SCHEMA_HTTP + "domainIncludes", SCHEMA_HTTPS + "domainIncludes")
#: Schema statements about properties (their domain and range, sub-properties, inverses), never walked; the classes
#: a domain or range names are classes, never entities.
SCHEMA_PREDICATES: tuple[str, ...] = (
    *DOMAIN_PREDICATES, *RANGE_PREDICATES, RDFS + "subPropertyOf", OWL + "inverseOf", OWL + "equivalentProperty",
)
#: Wikibase's links from a property entity (``wd:P57``) to the predicates that stand for it, each with what a
#: relation name made from the property's label adds (the truthy claim ``wdt:P57`` is the property itself).
WIKIBASE_PROPERTY_LINKS: dict[str, str] = {
    WIKIBASE + "directClaim": "",
    WIKIBASE + "statementProperty": "",
    WIKIBASE + "claim": " statement",
    WIKIBASE + "qualifier": " qualifier",
}

#: Wikidata's namespaces of the predicates standing for a property ``P57``, each with what a relation name made from
#: the label of the property entity ``wd:P57`` adds: Wikidata's own convention, so a dump that gives ``wd:P57`` its
#: label without ``wikibase:directClaim`` (and friends) names ``wdt:P57`` "director" all the same.
WIKIDATA_ENTITY = "http://www.wikidata.org/entity/"
WIKIDATA_PROPERTY_NAMESPACES: dict[str, str] = {
    WDT: "",
    "http://www.wikidata.org/prop/statement/": "",
    "http://www.wikidata.org/prop/qualifier/": " qualifier",
    "http://www.wikidata.org/prop/": " statement",
}


def wikidata_property_entity(iri: str) -> tuple[str, str] | None:
    """``(wd:P57, suffix)`` for a predicate in one of Wikidata's property namespaces (``wdt:P57``, ``p:P57`` ...),
    else None (:data:`WIKIDATA_PROPERTY_NAMESPACES`)."""
    for namespace, suffix in WIKIDATA_PROPERTY_NAMESPACES.items():
        if iri.startswith(namespace):
            local = iri[len(namespace):]
            if local[:1] == "P" and local[1:].isdigit():
                return WIKIDATA_ENTITY + local, suffix
    return None


@dataclass(frozen=True)
class Naming:
    """How one knowledge graph names its nodes and properties (see the module docstring). Every field has a default
    that covers RDFS, SKOS, schema.org, FOAF, Dublin Core, Wikidata and Freebase with no configuration.

    Args:
        languages: the caller's languages, most preferred first (BCP 47 tags, compared case-insensitively).
        label_predicates: IRIs of the predicates giving labels, most preferred first.
        alias_predicates: IRIs of the predicates giving aliases.
        description_predicates: IRIs of the predicates giving descriptions.
        class_predicates: IRIs of the predicates whose objects are classes.
        schema_namespaces: namespaces whose predicates are schema statements, not facts.
        stated_alias_predicates: alias predicates whose triples are facts too, walked as well as searched (those
            the KG profile finds in the data, :mod:`kg_agent.kg.profile`; the known ones are names only).
        record_value_predicates: predicates that would name their subjects (one short text each, nothing else names
            them) but whose texts repeat across them: a value, not a name (:mod:`kg_agent.kg.record_values`). Facts,
            walked; their subjects are record (statement) nodes.
        label_node_predicates: predicates that hold or are stated on label nodes (``skosxl:prefLabel``,
            ``skosxl:literalForm`` and a label node's flags: :mod:`kg_agent.kg.label_nodes`): no facts, since the
            names they give are read onto the entities they name.
    """

    languages: tuple[str, ...] = ("en",)
    label_predicates: tuple[str, ...] = DEFAULT_LABEL_PREDICATES
    alias_predicates: tuple[str, ...] = DEFAULT_ALIAS_PREDICATES
    description_predicates: tuple[str, ...] = DEFAULT_DESCRIPTION_PREDICATES
    class_predicates: tuple[str, ...] = DEFAULT_CLASS_PREDICATES
    schema_namespaces: tuple[str, ...] = DEFAULT_SCHEMA_NAMESPACES
    stated_alias_predicates: tuple[str, ...] = ()
    record_value_predicates: tuple[str, ...] = ()
    label_node_predicates: tuple[str, ...] = ()
    _predicate_rank: dict[str, int] = field(init=False, repr=False, compare=False)
    _not_facts: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        for name in ("languages", "label_predicates", "alias_predicates", "description_predicates",
                     "class_predicates", "schema_namespaces", "stated_alias_predicates", "record_value_predicates",
                     "label_node_predicates"):
            value = getattr(self, name)
            if isinstance(value, str) or not all(isinstance(v, str) and v.strip() for v in value):
                raise ValueError(f"{name} must be a sequence of non-empty strings, not {value!r}")
            object.__setattr__(self, name, tuple(v.strip() for v in value))
        object.__setattr__(self, "languages", tuple(language.lower() for language in self.languages))
        rank = {iri: at for at, iri in enumerate(self.label_predicates)}
        for at, iri in enumerate(self.alias_predicates, start=len(rank)):
            rank.setdefault(iri, at)
        object.__setattr__(self, "_predicate_rank", rank)
        object.__setattr__(self, "_not_facts", frozenset(self.not_fact_predicates))

    @property
    def key(self) -> str:
        """A short stable digest of the settings (what a cache of display labels depends on)."""
        text = repr((self.languages, self.label_predicates, self.alias_predicates, self.description_predicates,
                     self.class_predicates, self.schema_namespaces, self.stated_alias_predicates)
                    + ((self.record_value_predicates,) if self.record_value_predicates else ())
                    + ((self.label_node_predicates,) if self.label_node_predicates else ()))
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    @property
    def names_key(self) -> str:
        """A short stable digest of the name predicates (what a label index depends on)."""
        return hashlib.sha256(repr(self.name_predicates).encode()).hexdigest()[:12]

    # ---------------------------------------------------------------- which predicates are what
    @property
    def name_predicates(self) -> tuple[str, ...]:
        """Label and alias predicates: every literal of theirs is searchable."""
        return tuple(dict.fromkeys(self.label_predicates + self.alias_predicates))

    @property
    def names_and_descriptions(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.name_predicates + self.description_predicates))

    @property
    def not_fact_predicates(self) -> tuple[str, ...]:
        """Names, descriptions and statements about properties (:data:`SCHEMA_PREDICATES`): never walked, but for
        the :attr:`stated_alias_predicates`."""
        return tuple(p for p in dict.fromkeys(self.names_and_descriptions + SCHEMA_PREDICATES
                                              + self.label_node_predicates)
                     if p not in self.stated_alias_predicates or p in self.label_predicates)

    def is_fact(self, predicate: str) -> bool:
        """Whether triples of the predicate are facts to walk over (not names, descriptions or schema)."""
        return predicate not in self._not_facts and not predicate.startswith(self.schema_namespaces)

    def is_label(self, predicate: str) -> bool:
        return predicate in self._predicate_rank

    # ---------------------------------------------------------------- the displayed label
    def rank(self, predicate: str, text: str, language: str | None) -> tuple | None:
        """The sort key of one name literal for display (smallest shown first); None for a literal that is no
        label or alias, or is empty."""
        at = self._predicate_rank.get(predicate)
        if at is None or not text.strip():
            return None
        alias = at >= len(self.label_predicates)
        return alias, self.language_rank(language), at, text

    def language_rank(self, language: str | None) -> tuple[int, str]:
        tag = (language or "").lower()
        if not tag:
            return len(self.languages), ""
        for at, wanted in enumerate(self.languages):
            if tag == wanted or tag.startswith(wanted + "-"):
                return at, ""
        return len(self.languages) + 1, tag

    def in_languages(self, language: str | None) -> bool:
        """Whether a literal of ``language`` is in the caller's languages (an untagged one is)."""
        return self.language_rank(language)[0] <= len(self.languages)

    def display(self, names: Iterable[tuple[str, str, str | None]]) -> str | None:
        """The label to show among ``(predicate, text, language)`` name literals; None when none qualifies."""
        best = None
        for predicate, text, language in names:
            key = self.rank(predicate, text, language)
            if key is not None and (best is None or key < best):
                best = key
        return None if best is None else best[3]


DEFAULT_NAMING = Naming()

_SPACES = re.compile(r"\s+")


def relation_name_from_label(label: str) -> str | None:
    """A relation name made of a property's label: its words joined by ``_`` (``"cast member"`` ->
    ``cast_member``); a label without spaces (``film.film.directed_by``) is kept as it is. None when nothing is
    left (an empty label, or only ``^``, which marks inverse relations)."""
    name = _SPACES.sub("_", label.strip()).lstrip("^")
    return name or None


def make_naming(*, languages: str | Sequence[str] | None = None, label_predicates: Sequence[str] | None = None,
                alias_predicates: Sequence[str] | None = None) -> Naming:
    """A :class:`Naming` with the given settings, the defaults elsewhere (:data:`DEFAULT_NAMING` when none is given).

    ``languages`` may be a comma-separated string (``"de,en"``); predicates are full IRIs. ValueError for an empty
    language list or a predicate that is not an absolute IRI."""
    if languages is None and label_predicates is None and alias_predicates is None:
        return DEFAULT_NAMING
    settings: dict[str, tuple[str, ...]] = {}
    if languages is not None:
        items = languages.split(",") if isinstance(languages, str) else list(languages)
        settings["languages"] = tuple(item.strip() for item in items if str(item).strip())
        if not settings["languages"]:
            raise ValueError(f"no language in {languages!r}")
    for name, predicates in (("label_predicates", label_predicates), ("alias_predicates", alias_predicates)):
        if predicates is not None:
            if isinstance(predicates, str):
                predicates = [predicates]
            bad = [p for p in predicates if not re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:\S+$", str(p))]
            if bad:
                raise ValueError(f"{name} must be full IRIs (such as http://www.w3.org/2000/01/rdf-schema#label), not {bad}")
            settings[name] = tuple(str(p) for p in predicates)
    return Naming(**settings)


def add_naming_args(parser) -> None:
    """The command-line options of a :class:`Naming` (``kg-agent ask``, ``eval``, ``load``, ``mcp``)."""
    parser.add_argument("--language", dest="languages", default=None, metavar="LANGS",
                        help="languages to show labels in, most preferred first, comma-separated (default: en); every "
                        "label of every language is searched whatever this says")
    parser.add_argument("--label-predicate", dest="label_predicates", action="append", default=None, metavar="IRI",
                        help="a predicate whose literals are labels (repeatable; replaces the defaults: rdfs:label, "
                        "skos:prefLabel, schema:name, foaf:name, dcterms:title, Freebase type.object.name)")
    parser.add_argument("--alias-predicate", dest="alias_predicates", action="append", default=None, metavar="IRI",
                        help="a predicate whose literals are aliases (repeatable; replaces the defaults: skos:altLabel, "
                        "schema:alternateName, Freebase common.topic.alias)")


def naming_options(args) -> dict:
    """The :func:`make_naming` keywords (also ``open_kg``'s) from options added by :func:`add_naming_args`."""
    return {name: getattr(args, name, None) for name in ("languages", "label_predicates", "alias_predicates")}


def add_file_args(parser) -> None:
    """How a KG file is read (``kg-agent ask``, ``eval``, ``load``, ``mcp``): ``--lenient``."""
    parser.add_argument("--lenient", action="store_true",
                        help="a KG file with bad lines (a published dump): skip them and say how many and where "
                        "(N-Triples, N-Quads; other formats accept what the parser can); default: the first bad line "
                        "stops the load, named")


def file_options(args) -> dict:
    """``open_kg``'s keywords from options added by :func:`add_file_args`."""
    return {"lenient": bool(getattr(args, "lenient", False))}


#: Seconds a SPARQL endpoint request may take by default (``open_kg``'s ``timeout``).
DEFAULT_KG_TIMEOUT = 30.0


def add_endpoint_args(parser) -> None:
    """How long a SPARQL endpoint may take (``kg-agent ask``, ``eval``, ``mcp``): ``--kg-timeout``."""
    from kg_agent.llm.models import positive_seconds

    parser.add_argument("--kg-timeout", type=positive_seconds, default=DEFAULT_KG_TIMEOUT, metavar="SECONDS",
                        help="SPARQL endpoint: seconds each request may take, connecting and reading; an endpoint that "
                        f"cannot be reached or does not answer in time is an error naming it (default {DEFAULT_KG_TIMEOUT:g})")


def endpoint_options(args) -> dict:
    """``open_kg``'s keywords from options added by :func:`add_endpoint_args`."""
    return {"timeout": getattr(args, "kg_timeout", DEFAULT_KG_TIMEOUT)}
