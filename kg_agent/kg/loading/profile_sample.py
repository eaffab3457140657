"""The KG profile's sample, read by the load's index pass from the file itself (:func:`index_triples
<kg_agent.kg.loading.oxigraph_index_pass.index_triples>`): the text literals of the file's first
:data:`~kg_agent.kg.profile.PROFILE_SAMPLE` triples, measured (:func:`~kg_agent.kg.profile.measure_name_predicates`)
as soon as the pass has read them.

Why from the file, during the pass: the profile decides which predicates name things, and the label file holds their
literals. Measured from the finished store (as before), it came after the bulk loader, alone on the load's critical
path (reading 250k quads back through Oxigraph's term decoding: 1.6 CPU-s of a 2M-triple load), and when it found a
name predicate the load's naming did not know (``pgterms:name``, ``dcterms:alternative``) the label file was built a
second time, from the store. Measured here, the rest of the pass already knows the found names: their literals go to
the one label file with the others, in file order.

The sample is the file's first triples (a repeated triple counted once, as a store keeps it once), the same for any
file up to :data:`~kg_agent.kg.profile.PROFILE_SAMPLE` triples as the store's whole default graph; for a larger file
it is the file's head, as the memory backend's is the first triples of its graph, where the store's was the first in
its index order. A text literal is one with a language tag or of type ``xsd:string`` (a plain one), as
:func:`~kg_agent.kg.profile.oxigraph_texts` reads a store's.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from kg_agent.kg.naming import Naming
from kg_agent.kg.profile import KGProfile, measure_name_predicates

_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
_XSD_STRING_SUFFIX = b"^^<" + _XSD_STRING.encode() + b">"

#: A held N-Triples line of the sample: ``(line, subject, predicate, rest)`` as the pass split it
HeldLine = tuple[bytes, bytes, bytes, bytes]


def measure_sample(texts: Iterable[tuple[str, str, str, str]], naming: Naming) -> KGProfile:
    """The profile of the sample's text literals, each distinct one once (a store holds a repeated triple once)."""
    return measure_name_predicates(dict.fromkeys(texts), naming)


def ntriples_texts(ox, held: Iterable[HeldLine], iris: Mapping[bytes, str]) -> Iterator[tuple[str, str, str, str]]:
    """``(subject id, predicate IRI, text, language or "")`` of the text literals among the held literal lines of an
    N-Triples file (``iris``: each predicate's IRI by its bytes in the file). A line without escapes is read from
    its bytes (its last quote closes the literal); one with an escape or a ``#`` by Oxigraph's parser."""
    kinds: dict[bytes, tuple[bool, str]] = {}  # what follows a literal's closing quote -> (a text?, its language)
    for line, subject, predicate, rest in held:
        if b"\\" in line or b"#" in rest:
            triple = next(iter(ox.parse(line, format=ox.RdfFormat.N_TRIPLES)))
            text = _ox_text(ox, triple)
            if text is not None:
                yield text
            continue
        close = rest.rindex(b'"')
        after = rest[close + 1:]
        kind = kinds.get(after)
        if kind is None:
            kind = _literal_kind(after)
            if len(kinds) < 10_000:
                kinds[after] = kind
        if kind[0]:
            key = subject[1:-1].decode("utf-8") if subject[:1] == b"<" else subject.decode("utf-8")
            yield key, iris[predicate], rest[1:close].decode("utf-8"), kind[1]


def parsed_texts(ox, held: Iterable) -> Iterator[tuple[str, str, str, str]]:
    """The text literals among held pyoxigraph triples, as :func:`ntriples_texts` gives them."""
    for triple in held:
        text = _ox_text(ox, triple)
        if text is not None:
            yield text


def _ox_text(ox, triple) -> tuple[str, str, str, str] | None:
    """A parsed triple's text literal as the profile reads it (:func:`~kg_agent.kg.profile.oxigraph_texts`); None for
    another literal."""
    obj = triple.object
    if not isinstance(obj, ox.Literal) or not (obj.language or obj.datatype.value in (_XSD_STRING, _RDF_LANG_STRING)):
        return None
    subject = triple.subject
    key = f"_:{subject.value}" if isinstance(subject, ox.BlankNode) else subject.value
    return key, triple.predicate.value, obj.value, obj.language or ""


def _literal_kind(after: bytes) -> tuple[bool, str]:
    """``(whether the literal is a text, its language tag or "")`` from what follows its closing quote: ``@en .``
    (a text in English), `` .`` (plain: ``xsd:string``), ``^^<...#string> .``, or another datatype (no text)."""
    if after[:1] == b"@":
        return True, after[1:].split()[0].rstrip(b".").decode("ascii").lower()
    if not after.strip(b" \t\r\n."):
        return True, ""
    return after.startswith(_XSD_STRING_SUFFIX), ""
