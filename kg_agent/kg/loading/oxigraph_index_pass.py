"""The pass over a KG file that :func:`~kg_agent.kg.loading.oxigraph_build.build_oxigraph` runs beside Oxigraph's bulk
loader: every fact fed to the relation index builder, and the label and alias literals and the links that name
relations collected on the way (:func:`index_triples`; N-Triples read by split lines, no parser objects)."""

from __future__ import annotations

import marshal
import os
import tempfile
from collections.abc import Collection, Iterator
from pathlib import Path

from kg_agent.kg.loading.profile_sample import HeldLine, measure_sample, ntriples_texts, parsed_texts
from kg_agent.kg.naming import DOMAIN_PREDICATES, RANGE_PREDICATES, SUBCLASS_PREDICATES, WIKIBASE_PROPERTY_LINKS, Naming
from kg_agent.kg.profile import MAX_CLASSES, PROFILE_SAMPLE, KGProfile
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

    def pairs(self, names: dict[str, NameLiterals] | None = None,
              predicates: Collection[str] | None = None) -> Iterator[tuple[str, str]]:
        """``(entity id, text)`` of each literal, in file order; with ``names`` (``{entity id: []}``, the entities
        that name relations), each of those entities' ``(predicate, text, language)`` (of a name predicate among
        ``predicates``, when given) is appended to its list on the way, so the label file and the relation names take
        one read of the file."""
        if not names:
            for batch in self._batches():
                for key, _, text, _ in batch:
                    yield key, text
            return
        get = names.get
        for batch in self._batches():
            for key, predicate, text, language in batch:
                kept = get(key)
                if kept is not None and (predicates is None or predicate in predicates):
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


def index_triples(builder: RelationIndexBuilder, ox, path: Path, fmt, naming: Naming, *, progress: bool,
                  sample: int = PROFILE_SAMPLE) -> tuple[SpilledNames, list[tuple[str, str, str]], set[str], KGProfile]:
    """Feed every fact of the file to the relation index builder; return its label and alias literals met on the
    way in file order, kept on disk (:class:`SpilledNames`: the caller closes it), what names its relations
    (:func:`~kg_agent.kg.stores.base.name_relations`): the ``(property entity, link, predicate)`` Wikibase links,
    and the entities whose name literals do (the predicates and those property entities: :meth:`SpilledNames.pairs`
    collects their literals while it reads the names back), and the KG profile measured from the text literals of
    the file's first ``sample`` triples (:mod:`kg_agent.kg.loading.profile_sample`; its ``restriction_edges`` and
    ``classes`` are the caller's to fill in).

    The label and alias literals kept are those of ``profile.naming(naming)``: ``naming``'s name predicates and those
    the profile found. Until the sample is read, the literal lines are held, then their names kept in file order;
    the relation index is built with ``naming`` alone (a found name predicate's triples stay facts there)."""
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
    profile: KGProfile | None = None
    try:
        if fmt == ox.RdfFormat.N_TRIPLES:
            link_lines, profile = _index_ntriples_lines(builder, ox, handle, naming, bar, literals, sample)
            links = [link for t in ox.parse(b"".join(link_lines), format=fmt)
                     if (link := _property_link(ox, t)) is not None]
        else:
            facts: dict[str, bool] = {}
            reported = 0
            names = naming  # whose name literals are kept: the profiled naming once the sample is read
            held: list = []  # the sample's literal triples, until it is read

            def keep_name(triple) -> None:
                literals.blank |= isinstance(triple.subject, ox.BlankNode)
                literals.pending.append((ox_key(triple.subject), triple.predicate.value, triple.object.value,
                                         triple.object.language))
                if len(literals.pending) >= SpilledNames.BATCH:
                    literals.spill()

            def read_sample() -> KGProfile:
                nonlocal names
                measured = measure_sample(parsed_texts(ox, held), naming)
                names = measured.naming(naming)
                for kept in held:
                    if names.is_label(kept.predicate.value):
                        keep_name(kept)
                held.clear()
                return measured

            for count, triple in enumerate(ox.parse(handle, format=fmt), start=1):
                if profile is None and count > sample:
                    profile = read_sample()
                predicate = triple.predicate.value
                fact = facts.get(predicate)
                if fact is None:
                    fact = facts[predicate] = naming.is_fact(predicate)
                obj = triple.object
                if isinstance(obj, ox.Literal):
                    if profile is None:
                        held.append(triple)
                    elif names.is_label(predicate):
                        keep_name(triple)
                if not fact:
                    builder.triples += 1  # counted, but a name is not an edge
                    if (link := _property_link(ox, triple)) is not None:
                        links.append(link)
                    continue
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
            if profile is None:  # the file is no longer than the sample
                profile = read_sample()
            if bar is not None:
                bar.update(size - reported)
        assert profile is not None
        return literals, links, set(builder.predicates()) | {prop for prop, _, _ in links}, profile
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


def _index_ntriples_lines(builder: RelationIndexBuilder, ox, handle, naming: Naming, bar, literals: SpilledNames,
                          sample: int) -> tuple[list[bytes], KGProfile]:
    """The index pass over N-Triples: split lines, no parser objects. Puts the label and alias literals in
    ``literals`` as ``(entity id, name predicate, text, language)`` in file order; returns the lines of Wikibase's
    property links and of the ranges of properties (they name relations), and the profile of the first ``sample``
    triples' text literals (:func:`index_triples`: their literal lines are held until then); other triples that
    are not facts (descriptions, schema) are counted only.

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
    iris: dict[bytes, str] = {}  # each predicate's IRI by its bytes in the file
    names = naming  # whose name literals are kept: the profiled naming once the sample is read
    held: list[HeldLine] = []  # the sample's literal lines
    sampling, left = True, sample

    def read_sample() -> KGProfile:
        """Measure the sample; from now on keep the found names' literals too, and keep the held lines' names."""
        nonlocal names
        profile = measure_sample(ntriples_texts(ox, held, iris), naming)
        names = profile.naming(naming)
        for predicate, iri in iris.items():
            if names.is_label(iri) and not naming.is_label(iri):
                bits[predicate] = _found_name(bits[predicate], iri)
        for line, subject, predicate, rest in held:
            name_of = _name_of(bits[predicate])
            if name_of is not None:
                read_name(line, subject, name_of, rest)
        held.clear()
        return profile

    profile = None
    reported = 0
    edges = others = 0  # the triples that are facts, and the others (counted, not edges)
    literal_bits = 0  # the predicates met with a literal object
    repeated = 0  # the signed predicates met at a node that had them already
    for number, line in enumerate(handle, start=1):
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[0][0] == 35:  # 35: '#', a comment
            continue
        subject, predicate, rest = parts
        if sampling:
            if not left:
                sampling = False
                profile = read_sample()
            else:
                left -= 1
                if rest[0] == 34:  # '"': a literal, perhaps a text the profile reads or a name
                    held.append((line, subject, predicate, rest))
        pair = bits.get(predicate)
        if pair is None:
            if b"\\" in predicate:
                iri = next(iter(ox.parse(line, format=ox.RdfFormat.N_TRIPLES))).predicate.value
            else:
                iri = predicate[1:-1].decode("utf-8")
            iris[predicate] = iri
            if naming.is_fact(iri):
                pair = builder.predicate_bits(iri)
                if names.is_label(iri):  # an alias (or a name the profile found): a fact, and a name too
                    pair = (*pair, iri)
            elif names.is_label(iri):
                pair = (_NAME, iri)
            else:
                pair = _LINK if iri in WIKIBASE_PROPERTY_LINKS or iri in _CLASS_LINKS else _NOT_A_FACT
                if names.is_label(iri):
                    pair = _found_name(pair, iri)
            bits[predicate] = pair
        if pair[0] < 0:  # a name, a Wikibase link, or neither a name nor a fact
            others += 1
            if pair[0] == _NAME:
                if rest[0] == 34 and not sampling:  # '"': a name is a literal (held while sampling)
                    read_name(line, subject, pair[1], rest)
            elif pair[0] == _LINK[0]:
                link_lines.append(line if line.endswith(b"\n") else line + b"\n")
                if pair[1] != _LINK[1] and rest[0] == 34 and not sampling:  # a link predicate the profile found names
                    read_name(line, subject, pair[1], rest)
            continue
        out_bit, in_bit = pair[0], pair[1]
        literal = rest[0] == 34  # '"'
        if literal and len(pair) == 3 and not sampling:  # an alias's literal: a name too
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
    if sampling:  # the file is no longer than the sample
        profile = read_sample()
    builder.triples += edges + others
    if builder.literal_bits is not None:
        builder.literal_bits |= literal_bits
    if builder.repeated_bits is not None:
        builder.repeated_bits |= repeated
    if bar is not None:
        bar.update(handle.tell() - reported)
    assert profile is not None
    return link_lines, profile


def _found_name(pair: tuple, iri: str) -> tuple:
    """What the pass keeps for a predicate the profile found to name things: a fact's bits with its IRI (a name too,
    as an alias is), a link's code with its IRI, or a name's."""
    if pair[0] >= 0:
        return (pair[0], pair[1], iri)
    if pair[0] == _LINK[0]:
        return (_LINK[0], iri)
    return (_NAME, iri)


def _name_of(pair: tuple) -> str | None:
    """The name predicate's IRI whose literals the pass keeps for a predicate's ``pair``; None for no name."""
    if pair[0] >= 0:
        return pair[2] if len(pair) == 3 else None
    return pair[1] if isinstance(pair[1], str) else None


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
