"""How RDF terms become kg-agent ids and names: entity and relation IRIs, node keys, readable labels.

Shared by every backend (:mod:`kg_agent.kg.stores`) and by the :class:`~kg_agent.kg.graph.KnowledgeGraph`
front. Entity ids are IRIs (or, for literal nodes, their N3 form); relations are named by the predicate
IRI's local name (:class:`RelationNames` keeps the two-way map and falls back to the IRI on collisions).
"""

from __future__ import annotations

import re
from urllib.parse import quote, unquote

from rdflib import Literal, URIRef
from rdflib.namespace import RDFS, SKOS
from rdflib.term import Node
from rdflib.util import from_n3

KG_NS = "https://kg-agent.dev/"
ENTITY_NS = KG_NS + "entity/"
RELATION_NS = KG_NS + "relation/"

#: Predicates that carry names rather than facts; they are not traversed.
LABEL_PREDICATES: frozenset[URIRef] = frozenset({RDFS.label, SKOS.prefLabel, SKOS.altLabel})

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


def node_key(term: Node) -> str:
    """The string id of an RDF node: the IRI itself, ``_:id`` for blank nodes, N3 for literals."""
    if isinstance(term, URIRef):
        return str(term)
    return term.n3()


def key_term(key: str) -> Node:
    """Inverse of :func:`node_key`."""
    if key.startswith('"') or key.startswith("_:"):
        return from_n3(key)
    return URIRef(key)


def default_label(term: Node) -> str:
    """A readable label for a node that has no ``rdfs:label``."""
    if isinstance(term, Literal):
        return str(term)
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


def has_word_character(text: str) -> bool:
    """Whether ``text`` has a letter or a digit: a mention without one names no entity."""
    return any(ch.isalnum() for ch in text)


class RelationNames:
    """The two-way map between predicate IRIs and the short relation names used in plans and paths.

    A relation is named by its IRI's local name (project IRIs: the quoted name). When two IRIs share a
    local name, or a name would start with the inverse prefix ``^``, the later one is named by its full IRI.
    """

    def __init__(self) -> None:
        self.by_iri: dict[str, str] = {}
        self.by_name: dict[str, str] = {}

    def name(self, predicate: str) -> str:
        iri = str(predicate)
        name = self.by_iri.get(iri)
        if name is not None:
            return name
        if iri.startswith(RELATION_NS):
            name = unquote(iri[len(RELATION_NS):])
        else:
            name = default_label(URIRef(iri))
        if name in self.by_name and self.by_name[name] != iri or name.startswith("^"):
            name = iri  # local names collide: fall back to the full IRI, which is unique
        self.by_iri[iri] = name
        self.by_name[name] = iri
        return name

    def iri(self, name: str) -> str | None:
        return self.by_name.get(name)

    def signed_iri(self, relation: str) -> str | None:
        """``^name`` -> ``^IRI``, ``name`` -> ``IRI`` (None for an unknown relation)."""
        if relation.startswith("^"):
            iri = self.by_name.get(relation[1:])
            return None if iri is None else "^" + iri
        return self.by_name.get(relation)

    def signed_name(self, signed_iri: str) -> str:
        """``^IRI`` -> ``^name``, ``IRI`` -> ``name``."""
        if signed_iri.startswith("^"):
            return "^" + self.name(signed_iri[1:])
        return self.name(signed_iri)

    def names(self) -> list[str]:
        """Every named relation except the label predicates, sorted."""
        return sorted(n for iri, n in self.by_iri.items() if URIRef(iri) not in LABEL_PREDICATES)
