"""The pass over a KG file that :func:`~kg_agent.kg.loading.oxigraph_build.build_oxigraph` runs beside Oxigraph's bulk
loader: every fact fed to the relation index builder, and the label and alias literals and the links that name
relations collected on the way (:func:`index_triples`; N-Triples read by split lines, no parser objects)."""

from __future__ import annotations

import marshal
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from kg_agent.kg.naming import DOMAIN_PREDICATES, RANGE_PREDICATES, SUBCLASS_PREDICATES, WIKIBASE_PROPERTY_LINKS, Naming
from kg_agent.kg.profile import MAX_CLASSES
from kg_agent.kg.relation_index import RelationIndexBuilder
from kg_agent.kg.stores.base import NameLiterals


class SpilledNames:
    """The name literals ``(entity id, name predicate, text, language)`` of a load's index pass, in file order,
    written to an unnamed temporary file in batches (``marshal``) instead of held as Python objects: the
    104M-triple Wikidata-shaped file has 27.3M of them, about 8 GB as tuples (295 bytes each). A triple the file
    repeats is kept twice (the label file's lookups read distinct entities and keys). Iterating reads them back;
    :meth:`close` (or the ``with`` block) deletes the file. :attr:`blank` says whether an entity id is a blank
    node's."""

    BATCH = 100_000

    def __init__(self) -> None:
        self._file = tempfile.TemporaryFile()
        self.pending: list[tuple[str, str, str, str | None]] = []  # appended to by the pass; :meth:`spill` empties it
        self.blank = False

    def spill(self) -> None:
        """Write the pending literals to the file."""
        self._file.seek(0, os.SEEK_END)
        marshal.dump(self.pending, self._file)
        self.pending.clear()

    def __iter__(self) -> Iterator[tuple[str, str, str, str | None]]:
        for batch in self._batches():
            yield from batch

    def pairs(self, names: dict[str, NameLiterals] | None = None) -> Iterator[tuple[str, str]]:
        """``(entity id, text)`` of each literal, in file order; with ``names`` (``{entity id: []}``, the entities
        that name relations), each of those entities' ``(predicate, text, language)`` is appended to its list on
        the way, so the label file and the relation names take one read of the file."""
        if not names:
            for batch in self._batches():
                for key, _, text, _ in batch:
                    yield key, text
            return
        get = names.get
        for batch in self._batches():
            for key, predicate, text, language in batch:
                kept = get(key)
                if kept is not None:
                    kept.append((predicate, text, language))
                yield key, text

    def _batches(self) -> Iterator[list[tuple[str, str, str, str | None]]]:
        end = self._file.seek(0, os.SEEK_END)
        self._file.seek(0)
        while self._file.tell() < end:
            yield marshal.load(self._file)
        yield list(self.pending)

    def close(self) -> None:
        self._file.close()

    def __enter__(self) -> SpilledNames:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def index_triples(builder: RelationIndexBuilder, ox, path: Path, fmt, naming: Naming, *,
                  progress: bool) -> tuple[SpilledNames, list[tuple[str, str, str]], set[str]]:
    """Feed every fact of the file to the relation index builder; return its label and alias literals met on the
    way (:class:`~kg_agent.kg.naming.Naming`) in file order, kept on disk (:class:`SpilledNames`: the caller closes
    it), and what names its relations (:func:`~kg_agent.kg.stores.base.name_relations`): the ``(property entity,
    link, predicate)`` Wikibase links, and the entities whose name literals do (the predicates and those property
    entities: :meth:`SpilledNames.pairs` collects their literals while it reads the names back)."""
    from kg_agent.kg.stores.oxigraph import ox_key

    size = path.stat().st_size
    handle = path.open("rb")
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=size, unit="B", unit_scale=True, desc="indexing", mininterval=1.0)
    add = builder.add
    links: list[tuple[str, str, str]] = []
    literals = SpilledNames()  # (entity id, name predicate, text, language)
    try:
        if fmt == ox.RdfFormat.N_TRIPLES:
            link_lines = _index_ntriples_lines(builder, ox, handle, naming, bar, literals)
            links = [link for t in ox.parse(b"".join(link_lines), format=fmt)
                     if (link := _property_link(ox, t)) is not None]
        else:
            facts: dict[str, bool] = {}
            reported = 0
            for count, triple in enumerate(ox.parse(handle, format=fmt), start=1):
                predicate = triple.predicate.value
                fact = facts.get(predicate)
                if fact is None:
                    fact = facts[predicate] = naming.is_fact(predicate)
                if fact and naming.is_label(predicate) and isinstance(triple.object, ox.Literal):  # an alias
                    literals.blank |= isinstance(triple.subject, ox.BlankNode)
                    literals.pending.append((ox_key(triple.subject), predicate, triple.object.value,
                                             triple.object.language))
                    if len(literals.pending) >= SpilledNames.BATCH:
                        literals.spill()
                if not fact:
                    builder.triples += 1  # counted, but a name is not an edge
                    obj = triple.object
                    if naming.is_label(predicate) and isinstance(obj, ox.Literal):
                        literals.blank |= isinstance(triple.subject, ox.BlankNode)
                        literals.pending.append((ox_key(triple.subject), predicate, obj.value, obj.language))
                        if len(literals.pending) >= SpilledNames.BATCH:
                            literals.spill()
                    elif (link := _property_link(ox, triple)) is not None:
                        links.append(link)
                    continue
                obj = triple.object
                if isinstance(obj, ox.Literal):
                    if obj.value:  # a literal is an end
                        add(_ox_node(triple.subject, ox), predicate, "", object_walks_on=False)
                    else:
                        builder.triples += 1  # an empty literal is no value
                    continue
                add(_ox_node(triple.subject, ox), predicate, _ox_node(obj, ox))
                if bar is not None and not count % 50_000:
                    position = handle.tell()
                    bar.update(position - reported)
                    reported = position
            if bar is not None:
                bar.update(size - reported)
        return literals, links, set(builder.predicates()) | {prop for prop, _, _ in links}
    except BaseException:
        literals.close()
        raise
    finally:
        handle.close()
        if bar is not None:
            bar.close()


def _property_link(ox, triple) -> tuple[str, str, str] | None:
    """The ``(node, link, predicate)`` a triple gives :func:`~kg_agent.kg.stores.base.name_relations`: a Wikibase
    property entity standing for a predicate, or the class of a predicate's values or subjects (``rdfs:range``,
    ``rdfs:domain``); None for any other triple."""
    from kg_agent.kg.stores.oxigraph import ox_key

    link = triple.predicate.value
    if link in WIKIBASE_PROPERTY_LINKS and isinstance(triple.object, ox.NamedNode):
        return ox_key(triple.subject), link, triple.object.value
    if link in _CLASS_LINKS and isinstance(triple.subject, ox.NamedNode) and not isinstance(triple.object, ox.Literal):
        return ox_key(triple.object), link, triple.subject.value
    return None


def _index_ntriples_lines(builder: RelationIndexBuilder, ox, handle, naming: Naming, bar,
                          literals: SpilledNames) -> list[bytes]:
    """The index pass over N-Triples: split lines, no parser objects. Puts the label and alias literals in
    ``literals`` as ``(entity id, name predicate, text, language)`` in file order; returns the lines of Wikibase's
    property links and of the ranges of properties (they name relations); other triples that are not facts
    (descriptions, schema) are counted only.

    Subject and predicate hold no whitespace, so ``split(None, 2)`` finds them; a node is keyed by its
    N-Triples text (the index needs distinct nodes only). A name line without escapes is read from its bytes; a line
    with an escape (``\\``) or a ``#`` (perhaps a comment) is parsed by Oxigraph's parser instead. The bulk loader checks the syntax of
    the same file in the meantime.
    """
    from kg_agent.kg.stores.oxigraph import ox_key

    signatures = builder.signatures
    get = signatures.get
    pending = literals.pending
    name = pending.append

    languages: dict[bytes, str | None] = {}  # what follows a name's closing quote -> its language tag

    def read_name(line: bytes, subject: bytes, predicate: str, rest: bytes) -> None:
        """Keep one name literal (spilled to disk in batches)."""
        if b"\\" in line or b"#" in rest:  # an escape, or a comment after the triple: parsed in full
            triple = next(iter(ox.parse(line, format=ox.RdfFormat.N_TRIPLES)))
            name((ox_key(triple.subject), predicate, triple.object.value, triple.object.language))
        else:  # without escapes the literal's last quote closes it (no tag or IRI holds one)
            close = rest.rindex(b'"')
            after = rest[close + 1:]  # "@en .", "^^<datatype> .": few distinct ones
            language = languages.get(after, _UNREAD)
            if language is _UNREAD:
                language = _language(after)
                if len(languages) < 10_000:
                    languages[after] = language
            name((subject[1:-1].decode("utf-8") if subject[0] == 60 else subject.decode("utf-8"), predicate,
                  rest[1:close].decode("utf-8"), language))
        if subject[0] == 95:  # "_:": a blank node
            literals.blank = True
        if len(pending) >= SpilledNames.BATCH:
            literals.spill()

    link_lines: list[bytes] = []
    bits: dict[bytes, tuple] = {}
    reported = 0
    edges = others = 0  # the triples that are facts, and the others (counted, not edges)
    literal_bits = 0  # the predicates met with a literal object
    repeated = 0  # the signed predicates met at a node that had them already
    for number, line in enumerate(handle, start=1):
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[0][0] == 35:  # 35: '#', a comment
            continue
        subject, predicate, rest = parts
        pair = bits.get(predicate)
        if pair is None:
            if b"\\" in predicate:
                iri = next(iter(ox.parse(line, format=ox.RdfFormat.N_TRIPLES))).predicate.value
            else:
                iri = predicate[1:-1].decode("utf-8")
            if naming.is_fact(iri):
                pair = builder.predicate_bits(iri)
                if naming.is_label(iri):  # an alias: a fact, and a name too
                    pair = (*pair, iri)
            elif naming.is_label(iri):
                pair = (_NAME, iri)
            else:
                pair = _LINK if iri in WIKIBASE_PROPERTY_LINKS or iri in _CLASS_LINKS else _NOT_A_FACT
            bits[predicate] = pair
        if pair[0] < 0:  # a name, a Wikibase link, or neither a name nor a fact
            others += 1
            if pair[0] == _NAME:
                if rest[0] == 34:  # '"': a name is a literal
                    read_name(line, subject, pair[1], rest)
            elif pair is _LINK:
                link_lines.append(line if line.endswith(b"\n") else line + b"\n")
            continue
        out_bit, in_bit = pair[0], pair[1]
        literal = rest[0] == 34  # '"'
        if literal and len(pair) == 3:  # an alias's literal: a name too
            read_name(line, subject, pair[2], rest)
        obj = rest.rstrip(b" \t\r\n.")  # a node never ends with '.': IRIs end with '>', literals with '"', a tag or '>'
        edges += 1
        if b"\\" in subject or (not literal and b"\\" in obj):  # an escaped IRI: the node may be keyed another way
            repeated |= out_bit | in_bit
        if literal:  # a literal is an end (no in-bit); an empty one is no value at all
            if obj[:2] != b'""' or obj[2:3] == b'"':
                had = get(subject, 0)
                signatures[subject] = had | out_bit
                repeated |= had & out_bit
                literal_bits |= out_bit
            continue
        had = get(subject, 0)
        signatures[subject] = had | out_bit
        repeated |= had & out_bit
        had = get(obj, 0)
        signatures[obj] = had | in_bit
        repeated |= had & in_bit
        if bar is not None and not number % 50_000:
            position = handle.tell()
            bar.update(position - reported)
            reported = position
    builder.triples += edges + others
    if builder.literal_bits is not None:
        builder.literal_bits |= literal_bits
    if builder.repeated_bits is not None:
        builder.repeated_bits |= repeated
    if bar is not None:
        bar.update(handle.tell() - reported)
    return link_lines


def _language(after: bytes) -> str | None:
    """The language tag of an N-Triples literal from what follows its closing quote (``@en-GB .``: ``en-gb``;
    ``^^<datatype> .``: None)."""
    return after[1:].split()[0].rstrip(b".").decode("ascii").lower() if after[:1] == b"@" else None


#: Not yet in the cache of language tags
_UNREAD = object()


#: What :func:`_index_ntriples_lines` keeps for a predicate that is a name (with its IRI), a Wikibase property
#: link, or neither a name nor a fact
_NAME = -1


_LINK, _NOT_A_FACT = (-3, -3), (-2, -2)


_CLASS_LINKS = frozenset(DOMAIN_PREDICATES + RANGE_PREDICATES)


def _ox_node(term, ox) -> str:
    if isinstance(term, ox.NamedNode):
        return term.value
    return str(term)  # the index needs distinct nodes, not kg-agent ids: N-Triples text is enough


def index_derived_edges(builder: RelationIndexBuilder, ox, edges, *, ntriples: bool) -> None:
    """Feed edges kg-agent derived from the file (pyoxigraph ``(subject, predicate, object)`` terms, their subjects
    named: :mod:`kg_agent.kg.owl_restrictions`) to the relation index builder, each node keyed as the pass over the
    file keyed it (``ntriples``: by its N-Triples text), so a derived edge's ends are the nodes the file's facts
    reached; they are not triples of the file (:attr:`~RelationIndexBuilder.triples` is left as it was)."""
    triples = builder.triples
    for subject, predicate, obj in edges:
        builder.mark_repeated(predicate.value)  # keyed by its IRI, which the file may have written another way
        key = f"<{subject.value}>".encode() if ntriples else subject.value
        if isinstance(obj, ox.Literal):
            builder.add(key, predicate.value, "", object_walks_on=False)
        else:
            builder.add(key, predicate.value, f"<{obj.value}>".encode() if ntriples else obj.value)
    builder.triples = triples


def pass_classes(builder: RelationIndexBuilder, ox, naming: Naming) -> dict[str, tuple[str, ...]]:
    """``{class predicate IRI: the classes it leads to}`` among the facts the pass fed the builder (the nodes reached
    backwards over a class predicate of ``naming``, but those of a class hierarchy; IRIs, up to ``MAX_CLASSES + 1``
    each, the first met first) for the KG profile (:class:`~kg_agent.kg.profile.KGClasses`): read from the nodes'
    signatures, not from the file again. A class predicate the file has no fact of has none."""
    wanted = ["^" + iri for iri in naming.class_predicates if iri not in SUBCLASS_PREDICATES]
    found = builder.nodes_with(wanted, MAX_CLASSES + 1, keep=_is_iri_key)
    return {signed[1:]: tuple(_iri_of_key(ox, node) for node in found.get(signed, ())) for signed in wanted}


def _is_iri_key(node) -> bool:
    """Whether a node of the pass is an IRI: keyed by its N-Triples text (``<...>``, ``_:b``) or, for other formats,
    by its IRI (:func:`_ox_node`; a blank node's ``_:b``)."""
    if isinstance(node, bytes):
        return node[:1] == b"<"
    return isinstance(node, str) and not node.startswith(("_:", "\x00"))


def _iri_of_key(ox, node) -> str:
    """The IRI of a node :func:`_is_iri_key` keeps (an escaped N-Triples IRI, ``<...\\u00e9>``, read by Oxigraph's
    parser)."""
    if isinstance(node, str):
        return node
    if b"\\" in node:
        return next(iter(ox.parse(b"<x:s> <x:p> " + node + b" .\n", format=ox.RdfFormat.N_TRIPLES))).object.value
    return node[1:-1].decode("utf-8")
