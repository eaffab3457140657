"""How RDF terms become kg-agent ids and names: entity and relation IRIs, node keys, readable labels.

Shared by every backend (:mod:`kg_agent.kg.stores`) and by the :class:`~kg_agent.kg.graph.KnowledgeGraph`
front. Entity ids are IRIs (or, for literal nodes, their N3 form); relations are named by their property's label or
their IRI's local name (:class:`RelationNames`); which predicates name things is :mod:`kg_agent.kg.naming`'s.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Collection, Iterable, Iterator, Mapping, Sequence
from urllib.parse import quote, unquote

from rdflib import Literal, URIRef
from rdflib.term import Node
from rdflib.util import from_n3

from kg_agent.kg.naming import relation_name_from_label

KG_NS = "https://kg-agent.dev/"
ENTITY_NS = KG_NS + "entity/"
RELATION_NS = KG_NS + "relation/"

_LOCAL_NAME = re.compile(r"[^/#:]+$")
_NON_WORD = re.compile(r"[^\w]+")
_ABSOLUTE_IRI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")  # RFC 3987: an IRI with a scheme


def entity_iri(name: str) -> URIRef:
    """The project IRI of a plain entity name (percent-encoded, so any text gives a valid IRI)."""
    return URIRef(ENTITY_NS + quote(name, safe=""))


def relation_iri(name: str) -> URIRef:
    """The project IRI of a plain relation name."""
    return URIRef(RELATION_NS + quote(name, safe=""))


def is_absolute_iri(text: str) -> bool:
    """Whether the text starts with a URI scheme (``http:``, ``urn:`` ...)."""
    return _ABSOLUTE_IRI.match(text) is not None


def local_name(iri: str) -> str:
    """An IRI's last path segment or fragment (a trailing ``/`` or ``#`` dropped): ``.../wiki/Joseph_Conrad`` ->
    ``Joseph_Conrad``, ``http://sws.geonames.org/2635167/`` -> ``2635167``, ``.../work-type/QUEST_WRITTEN`` ->
    ``QUEST_WRITTEN``."""
    return re.split(r"[/#]", iri.rstrip("/#"))[-1]


def node_key(term: Node) -> str:
    """The string id of an RDF node: the IRI itself, ``_:id`` for blank nodes, N3 for literals."""
    if isinstance(term, URIRef):
        return str(term)
    return term.n3()


class _ValueUnread(logging.Filter):
    """Drops rdflib's log of a literal it cannot turn into a Python value (a BC date, ``"-0063-09-23"^^xsd:date``,
    which Python's dates cannot hold): the literal stays valid and is kept as written, so the traceback rdflib logs
    for each (at every parse, and every time a node id is read back, :func:`key_term`) says nothing wrong."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to convert Literal lexical form to value")


logging.getLogger("rdflib.term").addFilter(_ValueUnread())


def key_term(key: str) -> Node:
    """Inverse of :func:`node_key`."""
    if key.startswith('"') or key.startswith("_:"):
        return from_n3(key)
    return URIRef(key)


#: What a node without a name of its own is shown as (a blank node, a Freebase mediator, a Wikidata statement).
UNNAMED = "(unnamed)"
#: Generated ids that name nothing: Freebase machine ids (``m.0nf4wmg``, ``g.12tb6gh4f``)
_MACHINE_ID = re.compile(r"[mg]\.[0-9a-z_]+")
#: Namespaces of nodes that stand for a statement rather than a thing (Wikidata statements, values, references).
STATEMENT_NAMESPACES = ("http://www.wikidata.org/entity/statement/", "http://www.wikidata.org/value/",
                        "http://www.wikidata.org/reference/")


def is_generated_id(key: str) -> bool:
    """Whether an id names nothing by itself: a blank node, a Freebase machine id (``m.0nf4wmg``, also as a
    project entity), or a Wikidata statement, value or reference node. Such a node is shown as :data:`UNNAMED`
    when it has no label, and is never found by its id."""
    if key.startswith("_:"):
        return True
    if key.startswith('"'):
        return False
    if key.startswith(STATEMENT_NAMESPACES):
        return True
    local = unquote(key[len(ENTITY_NS):]) if key.startswith(ENTITY_NS) else (_LOCAL_NAME.search(key.rstrip("/#")) or [""])[0]
    return _MACHINE_ID.fullmatch(local) is not None


def is_value(term: Node) -> bool:
    """Whether a fact's object is something to reach: any node but the empty literal (``""``, ``""@en``), which
    says nothing and is never an answer."""
    return not (isinstance(term, Literal) and str(term) == "")


def default_label(term: Node) -> str:
    """A readable label for a node that has no name: a literal's text, :data:`UNNAMED` for a generated id
    (:func:`is_generated_id`), else the IRI's last segment."""
    if isinstance(term, Literal):
        return str(term)
    if is_generated_id(node_key(term)):
        return UNNAMED
    text = str(term)
    if text.startswith(ENTITY_NS):
        return unquote(text[len(ENTITY_NS):])
    match = _LOCAL_NAME.search(text.rstrip("/#"))
    return unquote(match.group(0)) if match else text


def normalize_label(text: str) -> str:
    """The form labels are matched in: lower case, punctuation to spaces, single spaces."""
    return " ".join(_NON_WORD.sub(" ", text.lower()).split())


def label_key(text: str) -> str:
    """The key a label is indexed and looked up by: its :func:`normalize_label` form, or for a label made only of
    punctuation or symbols (the film ``$``), which normalises to nothing, its raw text with single spaces. So
    ``"!!!"`` or ``"🎬"`` never finds ``$``."""
    return normalize_label(text) or " ".join(text.split())


#: A name written surname first, as library catalogues and bibliographies write people ("Twain, Mark",
#: "Shelley, Mary Wollstonecraft"): two groups of one to four words around one comma, neither holding a digit.
_INVERTED_NAME = re.compile(r"^\s*([^\W\d_][\w.'’-]*(?:\s+[\w.'’-]+){0,3}),\s*([^\W\d_][\w.'’-]*(?:\s+[\w.'’-]+){0,3})\s*$")


#: A name followed by a qualifier in parentheses, as Wikipedia, DBpedia, catalogues and gazetteers tell apart things
#: of one name ("Chicago (band)", "Madonna (entertainer)", "Acre (Israel)"): the name holds a letter or digit, and so
#: does the qualifier, which holds no parenthesis of its own (the last one of a label is its qualifier).
_QUALIFIED = re.compile(r"^(.*?\w.*?)\s*\(([^()]*\w[^()]*)\)\s*$", re.DOTALL)


def split_qualifier(text: str) -> tuple[str, str] | None:
    """``(name, qualifier)`` of a label ending in a qualifier in parentheses ("Chicago (band)": ``("Chicago",
    "band")``), None for any other text."""
    if not text.endswith(")"):  # most labels: no need to try the pattern
        text = text.rstrip()
        if not text.endswith(")"):
            return None
    found = _QUALIFIED.match(text)
    return None if found is None else (found.group(1), found.group(2))


def qualified_only(key: str, label: str) -> bool:
    """Whether the key names the label only less its qualifier ("chicago" for "Chicago (band)"), not whole."""
    split = split_qualifier(label)
    return split is not None and key not in whole_label_keys(label) and key in whole_label_keys(split[0])


def label_keys(text: str) -> list[str]:
    """The keys a label is indexed by: its :func:`whole_label_keys`, then for a label ending in a qualifier in
    parentheses ("Chicago (band)") those of its name without it ("chicago"), which a question writes without the
    qualifier; linking ranks a match by them below a match of a whole label (:mod:`kg_agent.kg.qualified_names`)."""
    keys = whole_label_keys(text)
    qualified = split_qualifier(text)
    if qualified is None:
        return keys
    return list(dict.fromkeys(keys + whole_label_keys(qualified[0])))


def whole_label_keys(text: str) -> list[str]:
    """The keys of a whole label: its :func:`label_key`, for a name written surname first ("Twain, Mark")
    the key of the name in reading order too ("mark twain"), so a question's "Mark Twain" finds it, and each of
    these in its :func:`joined_key` form ("ISWC 2005" is also indexed as "iswc2005")."""
    key = label_key(text)
    written = reading_order(text)
    if written is None:  # most labels: one key, and its joined form where that differs
        joined = joined_key(key)
        return [key] if joined == key else [key, joined]
    keys = [key]
    if reading := label_key(written):
        keys.append(reading)
    return list(dict.fromkeys(keys + [joined_key(k) for k in keys]))


#: A space between a letter and a digit, either way round ("iswc 2005", "2005 b").
_LETTER_DIGIT_SPACE = re.compile(r"(?<=[^\W\d_]) (?=\d)|(?<=\d) (?=[^\W\d_])")


def joined_key(key: str) -> str:
    """A normalized key with no space between a letter and a digit: the form under which names written with or
    without that space, or with a hyphen or other punctuation there, meet ("ISWC 2005", "ISWC2005", "iswc-2005": all
    ``iswc2005``; "ROCKFEST 2019" and "Rockfest2019"). Indexed beside each label's key (:func:`label_keys`) and
    looked up when a mention's own key finds nothing (:func:`lookup_keys`). A key without a digit (most) is its own
    joined form: the pattern, which needs a digit beside the space, is not tried (it costs ~1 µs a key, a fifth of
    a label's keys at load)."""
    if _DIGIT.search(key) is None:
        return key
    return _LETTER_DIGIT_SPACE.sub("", key)


#: Any digit, as ``\d`` reads one in :data:`_LETTER_DIGIT_SPACE` (Unicode decimal digits).
_DIGIT = re.compile(r"\d")


#: An English possessive ending a mention: "'s" or "’s" after a letter or digit ("Nirvana's", "Endurance’s").
_POSSESSIVE_END = re.compile(r"(?<=\w)['’]s$")


def without_possessive(text: str) -> str | None:
    """The mention without the possessive ending it ("Nirvana's" -> "Nirvana"), None when it ends in none. (A
    plural's possessive, "the Beatles'", is its plural once the apostrophe, punctuation, is read as a space.)"""
    stripped = text.strip()
    return _POSSESSIVE_END.sub("", stripped) if _POSSESSIVE_END.search(stripped) else None


def lookup_keys(text: str) -> list[str]:
    """The keys a mention is looked up by, in order: its :func:`label_key`, then its :func:`joined_key` form when
    that differs, then for a mention ending in a possessive ("Nirvana's") the keys of the name without it (a name
    that itself ends so, "McDonald's", is found first by its own key)."""
    key = label_key(text)
    joined = joined_key(key)
    keys = [key, joined] if joined != key else [key]
    owner = without_possessive(text)
    if owner is not None and has_word_character(owner):
        keys += [k for k in lookup_keys(owner) if k not in keys]
    return keys


def reading_order(text: str) -> str | None:
    """A name written surname first, as catalogues write people ("Stevenson, Robert Louis"), in reading order
    ("Robert Louis Stevenson"); None for any other text."""
    if "," not in text:  # most texts: no need to try the pattern
        return None
    inverted = _INVERTED_NAME.match(text)
    return None if inverted is None else f"{inverted.group(2)} {inverted.group(1)}"


#: Letters of a name written as an acronym ("LCC", "LCSH", "UNESCO"), as :func:`initials_spans` spells them: three
#: at least, as any two words' initials spell some two-letter code ("holds most": a class code *HM*).
ACRONYM_LETTERS = (3, 6)


def is_acronym(label: str) -> bool:
    """Whether a label is written as an acronym: one word of :data:`ACRONYM_LETTERS` capital letters."""
    return ACRONYM_LETTERS[0] <= len(label) <= ACRONYM_LETTERS[1] and label.isalpha() and label.isupper()


def initials(words: Sequence[str], function_words: Collection[str]) -> str:
    """The initials of the words that are not function words ("library of congress classification": "lcc")."""
    return "".join(word[0] for word in words if word not in function_words and word)


def initials_spans(words: Sequence[str], function_words: Collection[str]) -> Iterator[tuple[int, int, str]]:
    """``(begin, end, initials)`` of every run of ``words`` (normalised tokens) that begins and ends with a content
    word and spells :data:`ACRONYM_LETTERS` letters (one a content word): the runs that may name a thing by the
    initials an acronym takes ("Library of Congress classification" for *LCC*)."""
    longest = ACRONYM_LETTERS[1]
    for begin, first in enumerate(words):
        if first in function_words:
            continue
        letters = 1
        for end in range(begin + 1, len(words)):
            if words[end] in function_words:
                continue
            letters += 1
            if letters > longest:
                break
            if letters >= ACRONYM_LETTERS[0]:
                yield begin, end + 1, initials(words[begin:end + 1], function_words)


def has_word_character(text: str) -> bool:
    """Whether ``text`` has a letter or a digit: a mention without one names no entity."""
    return any(ch.isalnum() for ch in text)


class RelationNames:
    """The two-way map between predicate IRIs and the short relation names used in plans and paths.

    A relation is named by its property's own label where the KG gives one (``wd:P57 rdfs:label "director"@en``
    with ``wd:P57 wikibase:directClaim wdt:P57`` names ``wdt:P57`` ``director``; see :mod:`kg_agent.kg.naming`),
    else by its IRI's local name (project IRIs: the quoted name). The names of every predicate are assigned at
    once, from the store's list of predicates (:meth:`bind`), so they do not depend on the order anything is
    read in: when several IRIs would get one name, each is qualified by its namespace's prefix
    (``dbo.language``, ``dbp.language``), and by its full IRI if that still collides. The local name of a
    relation named by its label (``P57``) finds it too (:meth:`iri`) unless another relation has that name.
    """

    def __init__(self) -> None:
        self.by_iri: dict[str, str] = {}
        self.by_name: dict[str, str] = {}
        self._alternates: dict[str, str] = {}
        #: the nodes that stand for a property (Wikidata's ``wd:P57`` for ``wdt:P57``) or name the class of its values
        #: (``rdfs:range``): not entities
        self.schema_nodes: set[str] = set()
        #: other names of a predicate or of the property standing for it, and of its values' class, in the caller's
        #: languages ("actor")
        self.alias_texts: dict[str, tuple[str, ...]] = {}
        #: the description of a predicate or of the property standing for it, in the caller's languages
        self.descriptions: dict[str, str] = {}
        self._resolve = None
        self._resolving = False
        self._lock = threading.RLock()

    def bind(self, resolve) -> None:
        """Name every predicate the first time a name is needed: ``resolve()`` gives the store's
        :class:`~kg_agent.kg.stores.base.RelationNaming` (the facts' predicates only)."""
        self._resolve = resolve

    def resolve(self) -> None:
        """Name every predicate of the store now (see :meth:`bind`); nothing when done already. Other threads wait
        for it; a failure (a dead endpoint) leaves it to be tried again."""
        if self._resolve is None:
            return
        with self._lock:
            if self._resolve is None or self._resolving:  # done, or asked again from within (same thread)
                return
            self._resolving = True
            try:
                iris, labels, schema_nodes, aliases, descriptions = self._resolve()
                self.schema_nodes.update(schema_nodes)
                self.alias_texts.update({iri: tuple(texts) for iri, texts in aliases.items()})
                self.descriptions.update(descriptions)
                self._assign(sorted(set(iris) - set(self.by_iri)), labels)
                self._resolve = None
            finally:
                self._resolving = False

    def _assign(self, iris: list[str], labels: dict[str, str]) -> None:
        wanted: dict[str, list[str]] = {}
        for iri in iris:
            wanted.setdefault(_base_name(iri, labels.get(iri)), []).append(iri)
        for base, group in wanted.items():
            if len(group) == 1 and base not in self.by_name and not base.startswith("^"):
                self._set(group[0], base)
                continue
            for iri in group:
                name = f"{_namespace_prefix(iri)}.{base}"
                self._set(iri, iri if name in self.by_name or name in wanted else name)
        for iri in iris:
            local = _base_name(iri, None)
            if local != self.by_iri[iri] and local not in self.by_name:
                self._alternates[local] = None if local in self._alternates else iri  # type: ignore[assignment]

    def _set(self, iri: str, name: str) -> None:
        self.by_iri[iri] = name
        self.by_name[name] = iri

    def name(self, predicate: str) -> str:
        iri = str(predicate)
        name = self.by_iri.get(iri)
        if name is not None:
            return name
        self.resolve()
        with self._lock:
            name = self.by_iri.get(iri)
            if name is not None:
                return name
            name = _base_name(iri, None)
            if name in self.by_name and self.by_name[name] != iri or name.startswith("^"):
                name = iri  # a predicate added after the names were assigned, whose name is taken: its full IRI
            self._set(iri, name)
            return name

    def iri(self, name: str) -> str | None:
        found = self.by_name.get(name)
        if found is None and self._resolve is not None:
            self.resolve()
            found = self.by_name.get(name)
        return found if found is not None else self._alternates.get(name)

    def signed_iri(self, relation: str) -> str | None:
        """``^name`` -> ``^IRI``, ``name`` -> ``IRI`` (None for an unknown relation)."""
        if relation.startswith("^"):
            iri = self.iri(relation[1:])
            return None if iri is None else "^" + iri
        return self.iri(relation)

    def signed_name(self, signed_iri: str) -> str:
        """``^IRI`` -> ``^name``, ``IRI`` -> ``name``."""
        if signed_iri.startswith("^"):
            return "^" + self.name(signed_iri[1:])
        return self.name(signed_iri)

    def aliases(self, name: str) -> tuple[str, ...]:
        """The other names of relation ``name`` (its property's aliases, its values' class's names), none for an
        unknown one."""
        iri = self.iri(name)
        return self.alias_texts.get(iri, ()) if iri is not None else ()

    def description(self, name: str) -> str | None:
        """The description of relation ``name``'s property; None for an unknown one or one without."""
        iri = self.iri(name)
        return self.descriptions.get(iri) if iri is not None else None

    def names(self) -> list[str]:
        """Every named relation, sorted."""
        self.resolve()
        return sorted(self.by_name)


#: Prefixes of namespaces that qualify relation names which would otherwise collide.
KNOWN_PREFIXES = {
    "http://dbpedia.org/ontology/": "dbo", "http://dbpedia.org/property/": "dbp",
    "http://www.wikidata.org/prop/direct/": "wdt", "http://www.wikidata.org/prop/statement/": "ps",
    "http://www.wikidata.org/prop/qualifier/": "pq", "http://www.wikidata.org/prop/": "p",
    "http://schema.org/": "schema", "https://schema.org/": "schema", "http://xmlns.com/foaf/0.1/": "foaf",
    "http://purl.org/dc/terms/": "dcterms", "http://purl.org/dc/elements/1.1/": "dc",
    "http://www.w3.org/2004/02/skos/core#": "skos", "http://www.w3.org/2000/01/rdf-schema#": "rdfs",
    "http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf", "http://www.w3.org/2002/07/owl#": "owl",
    "http://rdf.freebase.com/ns/": "fb", RELATION_NS: "kg",
}


def sibling_copied_labels(labels: Mapping[str, str], predicates: Iterable[str]) -> set[str]:
    """The predicates of ``labels`` (``{IRI: label}``) whose label is a copy of a sibling's name: the label, as a
    relation name, is the local name of *another* predicate of the same namespace (one of ``predicates``: the facts'
    and the name/alias/description predicates), and not the predicate's own local name. A vocabulary does not give
    two of its properties one name; a schema that labels ``:member`` "name" beside its ``:name`` property has copied a
    label block and left it unedited (a published tutorial's schema does), and naming the relation by it would make
    "members" unreachable and put a person where a name is asked. Such a predicate is named by its own local name
    instead. Labels that merely collide across namespaces (``dbo:language``, ``dbp:language``) are not copies; they
    are qualified by prefix as before."""
    by_namespace: dict[str, set[str]] = {}
    for iri in dict.fromkeys([*predicates, *labels]):
        local = _LOCAL_NAME.search(iri.rstrip("/#"))
        if local is not None:
            by_namespace.setdefault(iri[:local.start()], set()).add(unquote(local.group(0)).casefold())
    copied: set[str] = set()
    for iri, label in labels.items():
        local = _LOCAL_NAME.search(iri.rstrip("/#"))
        name = relation_name_from_label(label) if label else None
        if local is None or not name:
            continue
        own = unquote(local.group(0)).casefold()
        if name.casefold() != own and name.casefold() in by_namespace.get(iri[:local.start()], ()):
            copied.add(iri)
    return copied


def _base_name(iri: str, label: str | None) -> str:
    if iri.startswith(RELATION_NS):
        return unquote(iri[len(RELATION_NS):])
    if label:
        name = relation_name_from_label(label)
        if name:
            return name
    return default_label(URIRef(iri))


def _namespace_prefix(iri: str) -> str:
    """The prefix of an IRI's namespace: a well-known one (``dbo``), else the namespace's last word."""
    local = _LOCAL_NAME.search(iri.rstrip("/#"))
    namespace = iri[:local.start()] if local else iri
    if namespace in KNOWN_PREFIXES:
        return KNOWN_PREFIXES[namespace]
    words = re.findall(r"[A-Za-z0-9]+", namespace.split("//", 1)[-1])
    return words[-1].lower() if words else "ns"
