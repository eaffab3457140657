"""Loading knowledge graphs: RDF files, MetaQA ``head|relation|tail`` lines, RoG JSONL, 2Wiki triples.

Plain names (MetaQA, RoG, 2Wiki) become IRIs in the project namespace with their ``rdfs:label`` kept;
IRIs given in RDF stay as they are. :func:`open_kg` picks the loader and the backend from its argument.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from importlib import resources
from pathlib import Path

from rdflib import Graph, Literal
from rdflib.namespace import RDFS
from rdflib.util import guess_format

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.label_index import SqliteLabelIndex, build_label_sqlite
from kg_agent.kg.naming import DEFAULT_NAMING, DOMAIN_PREDICATES, RANGE_PREDICATES, WIKIBASE_PROPERTY_LINKS, Naming, make_naming
from kg_agent.kg.profile import KGProfile, graph_texts, measure_name_predicates, oxigraph_texts
from kg_agent.kg.relation_index import RelationIndex, RelationIndexBuilder
from kg_agent.kg.store_folder import (
    COMPLETE_MARKER,
    LABEL_INDEX_FILE,
    LOCK_FILE,
    PROFILE_FILE,
    RELATION_INDEX_FILE,
    SIDECAR_DIR,
    VECTOR_CACHE_FILE,
    StoreBusy,
    busy_message,
    foreign_files,
    foreign_files_text,
    lock_holder,
    remove_own_files,
    write_lock,
    written_files,
)
from kg_agent.kg.stores.base import NameLiterals, name_relations
from kg_agent.kg.stores.memory import MemoryGraphStore, new_graph
from kg_agent.kg.terms import RelationNames, entity_iri, is_generated_id, relation_iri
from kg_agent.text_files import first_non_utf8, jsonl_objects, not_utf8_error, utf8_lines

NamedTriple = tuple[str, str, str]

SAMPLE_KG = "sample_movies.txt"


def sample_kg_path() -> Path:
    """The bundled sample KG (a slice of the MetaQA WikiMovies KB; see kg_agent/data/README.md)."""
    return Path(str(resources.files("kg_agent") / "data" / SAMPLE_KG))


def sample_documents_path() -> Path:
    """Plot summaries of the sample KG's films (JSONL ``{entity, title, text}``)."""
    return Path(str(resources.files("kg_agent") / "data" / "sample_movie_plots.jsonl"))


# ---------------------------------------------------------------- plain-name triple readers
def iter_metaqa_triples(path: str | Path) -> Iterator[NamedTriple]:
    """``head|relation|tail`` lines (MetaQA ``kb.txt``). Blank lines are skipped."""
    path = Path(path)
    for number, line in utf8_lines(path, KGLoadError):
        line = line.rstrip("\n\r")
        if not line.strip():
            continue
        parts = line.split("|")
        if len(parts) != 3 or not all(p.strip() for p in parts):
            raise KGLoadError(f"{path}:{number}: expected 'head|relation|tail', got {line[:120]!r}")
        yield parts[0].strip(), parts[1].strip(), parts[2].strip()


def iter_rog_triples(path: str | Path, *, question_ids: Iterable[str] | None = None) -> Iterator[NamedTriple]:
    """Triples of RoG-format JSONL (``{"id", "graph": [[h, r, t], ...]}``), optionally of some questions only."""
    path = Path(path)
    wanted = set(question_ids) if question_ids is not None else None
    for number, record in jsonl_objects(path, KGLoadError):
        if wanted is not None and record.get("id") not in wanted:
            continue
        graph = record.get("graph")
        if not isinstance(graph, list):
            raise KGLoadError(f"{path}:{number}: no 'graph' list of [head, relation, tail] triples")
        yield from _checked_triples(graph, f"{path}:{number}")


def _checked_triples(rows: Iterable, where: str) -> Iterator[NamedTriple]:
    for row in rows:
        if not (isinstance(row, (list, tuple)) and len(row) == 3 and all(isinstance(x, str) and x for x in row)):
            raise KGLoadError(f"{where}: a triple must be [head, relation, tail] strings, got {str(row)[:120]}")
        yield row[0], row[1], row[2]


def iter_twowiki_triples(path: str | Path) -> Iterator[NamedTriple]:
    """2WikiMultihopQA evidence triples (``{"subject", "relation", "object", ...}`` per line)."""
    path = Path(path)
    for number, record in jsonl_objects(path, KGLoadError):
        try:
            row = (record["subject"], record["relation"], record["object"])
        except KeyError as exc:
            raise KGLoadError(f"{path}:{number}: missing field {exc.args[0]!r}") from None
        yield from _checked_triples([row], f"{path}:{number}")


def add_named_triples(graph: Graph, triples: Iterable[NamedTriple]) -> int:
    """Add plain-name triples to an rdflib graph as project IRIs with ``rdfs:label`` (none for a Freebase machine
    id such as ``m.0nf4wmg``: a mediator node, which names nothing); returns the count."""
    entities: dict[str, object] = {}
    relations: dict[str, object] = {}
    store_add = graph.add
    count = 0

    def node(name: str):
        iri = entities.get(name)
        if iri is None:
            iri = entities[name] = entity_iri(name)
            if not is_generated_id(str(iri)):  # a Freebase mediator (m.0nf4wmg) has no name
                store_add((iri, RDFS.label, Literal(name)))
        return iri

    for head, rel, tail in triples:
        predicate = relations.get(rel)
        if predicate is None:
            predicate = relations[rel] = relation_iri(rel)
            store_add((predicate, RDFS.label, Literal(rel)))
        store_add((node(head), predicate, node(tail)))
        count += 1
    return count


def named_triples_graph(triples: Iterable[NamedTriple]) -> Graph:
    graph = new_graph()
    add_named_triples(graph, triples)
    return graph


def parse_rdf(path: str | Path, *, format: str | None = None, graph: Graph | None = None, lenient: bool = False) -> Graph:
    """Parse an RDF file of any rdflib format; syntax errors name the file and line.

    ``lenient`` reads a published dump with bad lines: in N-Triples and N-Quads each bad line is skipped and a
    warning says how many were skipped and where (the first :data:`LENIENT_REPORTED` of them); in the other formats
    Oxigraph's lenient parser accepts what it can (an IRI with a character IRIs may not hold), and any other error
    still stops the load.

    Turtle, N-Triples, N-Quads, TriG, N3, RDF/XML and JSON-LD are read with Oxigraph's parser, in time linear
    in the length of a line (rdflib's N-Triples parser is quadratic: a 5 MB literal took minutes); only the
    default graph of a quad format is kept, as the Oxigraph store does. Other formats (TriX, HexTuples) go
    through rdflib. A file that is not UTF-8 is refused with its first bad line.
    """
    path = Path(path)
    if not path.exists():
        raise KGLoadError(f"{path}: no such file")
    fmt = format or guess_format(str(path)) or "turtle"
    graph = graph if graph is not None else new_graph()
    if fmt in _OX_FORMATS:
        _parse_with_oxigraph(path, fmt, graph, lenient=lenient)
        return graph
    try:
        graph.parse(str(path), format=fmt)
    except Exception as exc:  # rdflib raises many types: BadSyntax, ParseError, SAXParseException...
        if isinstance(exc, UnicodeDecodeError) or first_non_utf8(path) is not None:
            raise not_utf8_error(path, KGLoadError) from exc
        raise KGLoadError(f"{path}:{_error_line(exc)}: cannot parse as {fmt}: {_short(exc)}") from exc
    return graph


#: Bad lines a lenient parse names in its warning (the count covers them all).
LENIENT_REPORTED = 5


class SkippedLinesWarning(UserWarning):
    """A lenient parse skipped bad lines of a KG file (the message says how many and where)."""


def _parse_with_oxigraph(path: Path, fmt: str, graph: Graph, *, lenient: bool = False) -> None:
    """Add the default-graph triples of an RDF file to an rdflib graph, parsed by Oxigraph (``lenient``: see
    :func:`parse_rdf`)."""
    import pyoxigraph as ox
    from rdflib import BNode, URIRef
    from rdflib.namespace import XSD

    xsd_string = str(XSD.string)
    iris: dict[str, URIRef] = {}  # predicates and classes repeat: one URIRef each

    def term(node):
        if isinstance(node, ox.NamedNode):
            value = node.value
            iri = iris.get(value)
            if iri is None:
                iri = iris[value] = URIRef(value)
            return iri
        if isinstance(node, ox.BlankNode):
            return BNode(node.value)
        if isinstance(node, ox.Literal):
            if node.language:
                return Literal(node.value, lang=node.language)
            datatype = node.datatype.value
            return Literal(node.value) if datatype == xsd_string else Literal(node.value, datatype=term(node.datatype))
        raise KGLoadError(f"{path}: {node} is an RDF 1.2 triple term or an N3 formula, which a KG cannot hold")

    rdf_format = getattr(ox.RdfFormat, _OX_FORMATS[fmt])
    add = graph.add

    def add_quads(quads) -> None:
        for quad in quads:
            if isinstance(quad.graph_name, ox.DefaultGraph):
                add((term(quad.subject), term(quad.predicate), term(quad.object)))

    if lenient and rdf_format in (ox.RdfFormat.N_TRIPLES, ox.RdfFormat.N_QUADS):
        _add_skipping_bad_lines(path, fmt, rdf_format, add_quads)
        return
    quads = ox.parse(path=str(path), format=rdf_format, base_iri=path.absolute().as_uri(), rename_blank_nodes=True,
                     lenient=lenient)
    try:
        add_quads(quads)
    except SyntaxError as exc:
        raise rdf_syntax_error(path, fmt, exc.lineno, exc.msg) from None
    except OSError as exc:
        raise KGLoadError(f"{path}: cannot read it: {exc}") from exc
    except MemoryError as exc:
        if "buffer maximal size" not in str(exc):
            raise
        raise too_long_term_error(path, str(exc)) from None


def too_long_term_error(path: Path, message: str) -> KGLoadError:
    """The error for a term longer than Oxigraph's parser reads at once (``message``: its "Reached the buffer
    maximal size of N"), naming the first line that long."""
    found = re.search(r"(\d+)\s*$", message)
    limit = int(found.group(1)) if found else 16 * 1024 * 1024
    line = "?"
    with path.open("rb") as handle:
        for number, text in enumerate(handle, start=1):
            if len(text) > limit:
                line = str(number)
                break
    return KGLoadError(f"{path}:{line}: a term is longer than {limit:,} bytes, more than the RDF parser reads at once; "
                       "shorten that literal or leave the triple out")


def _add_skipping_bad_lines(path: Path, fmt: str, rdf_format, add_quads: Callable) -> None:
    """Parse a line-based file (N-Triples, N-Quads), skipping each line the parser refuses; warn with how many and
    where. Blank node labels are kept as the file writes them, so a node on both sides of a bad line stays one."""
    import pyoxigraph as ox

    try:
        lines = path.read_bytes().splitlines(keepends=True)
    except OSError as exc:
        raise KGLoadError(f"{path}: cannot read it: {exc}") from exc
    skipped: list[str] = []
    start = 0
    while start < len(lines):
        try:
            add_quads(ox.parse(b"".join(lines[start:]), format=rdf_format))
            break
        except SyntaxError as exc:
            if not exc.lineno:
                raise rdf_syntax_error(path, fmt, None, exc.msg) from None
            bad = start + exc.lineno  # 1-based line number in the file
            message = _PARSER_POSITION.sub("", " ".join(str(exc.msg).split()))  # its line is the slice's, not the file's
            skipped.append(f"line {bad}: {message[:160]}")
            start = bad
    if skipped:
        shown = "; ".join(skipped[:LENIENT_REPORTED]) + (" ..." if len(skipped) > LENIENT_REPORTED else "")
        warnings.warn(f"{path}: skipped {len(skipped)} bad line{'s' if len(skipped) > 1 else ''} (lenient): {shown}",
                      SkippedLinesWarning, stacklevel=4)


#: Oxigraph's position prefix (the line is given apart): "at line L column C", "at line L between columns C and
#: C2", "between line L column C and line L2 column C2".
_PARSER_POSITION = re.compile(r"^Parser error (?:at line \d+ column (\d+)|at line \d+ between columns (\d+) and \d+"
                              r"|between line \d+ column (\d+) and line \d+ column \d+): ")


def rdf_syntax_error(path: Path, fmt: str, line: int | None, message: str) -> KGLoadError:
    """The error for an RDF syntax error Oxigraph reported at ``line``: file and line first, then what is wrong.
    A file that is not UTF-8 gets :func:`~kg_agent.text_files.not_utf8_error`."""
    message = " ".join(str(message).split())
    if "Invalid UTF-8" in message:
        return not_utf8_error(path, KGLoadError)
    if "LoadDocumentCallback" in message:
        message = "it names a remote JSON-LD @context, which kg-agent does not fetch (it works offline); put the context in the file"
    if "variables are not allowed" in message:
        message += " (N3 rules and formulas are not facts a KG holds: keep the facts in a Turtle file)"
    message = _PARSER_POSITION.sub(lambda match: f"column {next(filter(None, match.groups()))}: ", message)
    return KGLoadError(f"{path}:{line if line else '?'}: cannot parse as {fmt}: {message[:300]}")


def _error_line(exc: Exception) -> str:
    lines = getattr(exc, "lines", None)
    if isinstance(lines, int):
        return str(lines + 1)  # rdflib's BadSyntax counts from 0
    for attr in ("getLineNumber", "lineno"):
        value = getattr(exc, attr, None)
        if callable(value):
            value = value()
        if isinstance(value, int):
            return str(value)
    match = re.search(r"line[: ]+(\d+)", str(exc), re.IGNORECASE)
    return match.group(1) if match else "?"


def _short(exc: Exception) -> str:
    text = " ".join(str(exc).split())
    return text[:300]


# ---------------------------------------------------------------- format detection
def detect_format(path: str | Path) -> str:
    """``metaqa``, ``rog-jsonl``, ``twowiki`` or an rdflib format name."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix in {".jsonl", ".json"}:
        first = next((line for _, line in utf8_lines(path, KGLoadError) if line.strip()), "")
        try:
            record = json.loads(first) if first else {}
        except json.JSONDecodeError as exc:
            raise KGLoadError(f"{path}:1: not valid JSON: {exc.msg}") from exc
        if "graph" in record:
            return "rog-jsonl"
        if {"subject", "relation", "object"} <= set(record):
            return "twowiki"
        raise KGLoadError(f"{path}: JSONL with neither a 'graph' list (RoG) nor subject/relation/object fields")
    if suffix in {".txt", ".tsv", ".psv"}:
        return "metaqa"
    fmt = guess_format(str(path))
    if fmt is None:
        raise KGLoadError(f"{path}: unknown KG format (use .ttl/.nt/.rdf/.jsonld, MetaQA .txt, or RoG/2Wiki .jsonl)")
    return fmt


def iter_named_triples(path: str | Path, fmt: str, *, question_ids: Iterable[str] | None = None) -> Iterator[NamedTriple]:
    if fmt == "metaqa":
        return iter_metaqa_triples(path)
    if fmt == "rog-jsonl":
        return iter_rog_triples(path, question_ids=question_ids)
    if fmt == "twowiki":
        return iter_twowiki_triples(path)
    raise ValueError(f"{fmt!r} is not a plain-name triple format")


PLAIN_FORMATS = {"metaqa", "rog-jsonl", "twowiki"}


# ---------------------------------------------------------------- constructors
def load_kg(path: str | Path, *, format: str | None = None, question_ids: Iterable[str] | None = None,
            naming: Naming = DEFAULT_NAMING, discover_names: bool = True, lenient: bool = False) -> KnowledgeGraph:
    """Load a KG file into memory (format from the extension and content unless given); ``naming`` says which
    predicates name things and which languages are shown (:class:`~kg_agent.kg.naming.Naming`). With
    ``discover_names`` the predicates the data names its things with are found too (:mod:`kg_agent.kg.profile`)
    and read as labels after the naming's own. ``lenient``: skip bad lines (:func:`parse_rdf`)."""
    path = Path(path)
    if not path.exists():
        raise KGLoadError(f"{path}: no such file")
    fmt = format or detect_format(path)
    if fmt in PLAIN_FORMATS:
        graph = named_triples_graph(iter_named_triples(path, fmt, question_ids=question_ids))
    else:
        graph = parse_rdf(path, format=fmt, lenient=lenient)
    if discover_names:
        naming = measure_name_predicates(graph_texts(graph), naming).naming(naming)
    return memory_kg(graph, name=str(path), naming=naming)


def kg_from_triples(triples: Iterable[NamedTriple], *, name: str = "knowledge graph") -> KnowledgeGraph:
    """An in-memory KG from plain ``(head, relation, tail)`` names."""
    return memory_kg(named_triples_graph(triples), name=name)


def memory_kg(graph: Graph, *, name: str, naming: Naming = DEFAULT_NAMING) -> KnowledgeGraph:
    """A KG over an in-memory rdflib graph (every edge indexed now)."""
    return KnowledgeGraph(MemoryGraphStore(graph, names=RelationNames(), name=name, naming=naming))


def _oxigraph_graph(store) -> Graph:
    from oxrdflib import OxigraphStore
    from rdflib.graph import DATASET_DEFAULT_GRAPH_ID

    return Graph(store=OxigraphStore(store=store), identifier=DATASET_DEFAULT_GRAPH_ID)


_OX_FORMATS = {
    "turtle": "TURTLE", "nt": "N_TRIPLES", "nt11": "N_TRIPLES", "xml": "RDF_XML", "n3": "N3",
    "trig": "TRIG", "nquads": "N_QUADS", "json-ld": "JSON_LD",
}


def is_kg_agent_store(path: str | Path) -> bool:
    """Whether ``path`` is a folder :func:`build_oxigraph` built to the end (it holds the completion marker)."""
    return (Path(path) / SIDECAR_DIR / COMPLETE_MARKER).is_file()


def check_store_target(source: Path, store_path: Path, *, overwrite: bool) -> None:
    """Refuse a store folder that loading ``source`` must not write to or replace; nothing is created.

    Accepted: a new path, an empty folder (or one holding only the lock file a killed load left) and, with
    ``overwrite``, a store kg-agent built (it holds the completion marker) holding only kg-agent's files
    (:mod:`kg_agent.kg.store_folder`). Refused: the input file, any other file, a folder holding the input file,
    the current folder or one of its parents, a folder kg-agent did not build that holds anything, and a store
    holding files kg-agent did not write (they are named): kg-agent never deletes what it did not create.
    """
    choose = "choose an empty or new folder for the store"
    target, input_file = store_path.resolve(), source.resolve()
    if input_file == target:
        raise KGLoadError(f"{store_path} is the input file itself; {choose}")
    if Path.cwd().resolve().is_relative_to(target):
        raise KGLoadError(f"{store_path} is the current folder or one of its parents; {choose}")
    if input_file.is_relative_to(target):
        raise KGLoadError(f"{store_path} holds the input file {source}; {choose}")
    if target.exists() and not target.is_dir():
        raise KGLoadError(f"{store_path} is a file, not a folder; {choose}")
    if target.is_dir() and not _holds_only_a_lock(target):
        if not is_kg_agent_store(target):
            only_ours = "; --overwrite only replaces a folder kg-agent created" if overwrite else ""
            raise KGLoadError(f"{store_path} is not a kg-agent store (it holds other files); {choose}{only_ours}")
        if not overwrite:
            raise KGLoadError(f"{store_path}: a kg-agent store already exists there; pass --overwrite to rebuild it")
        foreign = foreign_files(target)
        if foreign:
            raise KGLoadError(f"{foreign_files_text(store_path, foreign)}; --overwrite replaces only a store's own "
                              "files: move those out of it first, or choose an empty or new folder for the store")
    partial = _partial_folder(target)
    if partial.exists() and not _is_own_partial(partial):
        raise KGLoadError(f"{partial} is in the way and was not made by kg-agent; move it, or {choose}")


def _holds_only_a_lock(folder: Path) -> bool:
    """Whether ``folder`` is empty or holds only kg-agent's sidecar folder with, at most, its lock file (a load of
    a new store holds it, or left it when killed)."""
    entries = list(folder.iterdir())
    if not entries:
        return True
    sidecar = entries[0]
    if len(entries) > 1 or sidecar.name != SIDECAR_DIR or sidecar.is_symlink() or not sidecar.is_dir():
        return False
    return all(entry.name == LOCK_FILE and entry.is_file() for entry in sidecar.iterdir())


def _partial_folder(target: Path) -> Path:
    """Where :func:`build_oxigraph` builds the store for ``target`` (resolved) before renaming it."""
    return target.with_name(target.name + ".partial")


def _is_own_partial(partial: Path) -> bool:
    """A folder :func:`build_oxigraph` left when its process was killed: empty, or holding kg-agent's sidecar."""
    return partial.is_dir() and not partial.is_symlink() and (not any(partial.iterdir()) or (partial / SIDECAR_DIR).is_dir())


def build_oxigraph(source: str | Path, store_path: str | Path, *, format: str | None = None, overwrite: bool = False,
                   progress: bool = False, naming: Naming = DEFAULT_NAMING, lenient: bool = False,
                   beside_load: Callable[[RelationIndex, Path, RelationNames], object] | None = None) -> Path:
    """Load a KG file once into an Oxigraph store on disk; reopen it with :func:`open_oxigraph`.

    RDF files go through Oxigraph's bulk loader (Rust, no Python per triple), in a child process so that
    Ctrl-C (``KeyboardInterrupt``) stops the load at once; plain-name formats (MetaQA, RoG, 2Wiki) are
    converted to N-Triples first. The same run reads the file once more with Oxigraph's parser to build the
    relation index (:mod:`kg_agent.kg.relation_index`), kept in ``<store>/kg-agent/``.

    ``store_path`` must be a new path or an empty folder; with ``overwrite=True`` it may also be a store
    kg-agent built (:func:`is_kg_agent_store`), which is replaced. Anything else is refused with
    :class:`KGLoadError` before anything is created (:func:`check_store_target`): kg-agent never deletes what
    it did not create.

    The store is built in ``<store>.partial`` and renamed at the end, after a completion marker is
    written, so an interrupted or failed load never leaves a folder that :func:`open_oxigraph` accepts,
    and keeps the old store, if any, as it was. A syntax error raises :class:`KGLoadError` naming the file
    and line. ``progress`` shows a progress bar (tqdm, on stderr) over the bytes of the file read by the
    index pass.

    ``naming`` says which predicates name things (their literals go to the label file, not to the relation
    index); a store opened with other name predicates rebuilds its label file.

    ``lenient`` skips the file's bad lines (:func:`parse_rdf`; the file is then parsed in Python and loaded from a
    clean copy).

    ``beside_load(index, sidecar_folder, names)`` is called with the relation index as soon as it is built, while
    the bulk loader may still be writing the store, for what a caller derives from the index and keeps in
    ``<sidecar_folder>``; ``names`` names the relations as the finished store will (by their
    properties' labels where the file gives them, :meth:`GraphStore.relation_naming
    <kg_agent.kg.stores.base.GraphStore.relation_naming>`), read from the file by the same pass. Its error fails
    the load like any other.

    One load writes a store at a time: the load holds ``<store>/kg-agent/write.lock``
    (:func:`~kg_agent.kg.store_folder.write_lock`) until it ends, however it ends; another load of the same store
    meanwhile raises :class:`~kg_agent.kg.store_folder.StoreBusy` at once. An old store is replaced only if it
    holds nothing but kg-agent's own files (:func:`~kg_agent.kg.store_folder.foreign_files`), checked again just
    before the swap.
    """
    source, store_path = Path(source), Path(store_path)
    if not source.is_file():
        raise KGLoadError(f"{source}: no such file" if not source.exists() else f"{source} is a folder, not a KG file")
    check_store_target(source, store_path, overwrite=overwrite)
    fmt = format or detect_format(source)
    target = store_path.resolve()
    holder = lock_holder(target)
    if holder is not None:  # said before anything is made
        raise StoreBusy(busy_message(store_path, holder))
    with write_lock(target) as lock:
        check_store_target(source, store_path, overwrite=overwrite)  # again, now that no other load can change it
        _build_locked(source, store_path, target, fmt, lock, progress=progress, naming=naming, lenient=lenient,
                      beside_load=beside_load)
    return store_path


def _build_locked(source: Path, store_path: Path, target: Path, fmt: str, lock: int, *, progress: bool,
                  naming: Naming, lenient: bool, beside_load) -> None:
    """:func:`build_oxigraph`'s work, done holding the store's write lock (``lock``, its file descriptor, which
    the bulk loader's process inherits)."""
    import time
    import uuid

    import pyoxigraph as ox

    partial = _partial_folder(target)
    if partial.exists():  # left by a load whose process was killed (check_store_target made sure it is ours)
        shutil.rmtree(partial)
    sidecar = partial / SIDECAR_DIR
    sidecar.mkdir(parents=True)
    started = time.perf_counter()
    builder = RelationIndexBuilder()
    build = uuid.uuid4().hex
    try:
        if fmt in _OX_FORMATS and not lenient:
            load_path, format_name = source, _OX_FORMATS[fmt]
        else:
            graph = (named_triples_graph(iter_named_triples(source, fmt)) if fmt in PLAIN_FORMATS
                     else parse_rdf(source, format=fmt, lenient=lenient))
            load_path, format_name = sidecar / "converted.nt", "N_TRIPLES"
            graph.serialize(load_path, format="nt", encoding="utf-8")
            del graph
        load_format = getattr(ox.RdfFormat, format_name)

        blank_labels: list[bool] = []
        built: list[RelationIndex] = []

        def index_and_labels() -> None:
            labels, links, names_of = _index_triples(builder, ox, load_path, load_format, naming, progress=progress)
            if any(key.startswith("_:") for key, _ in labels):  # the store renames blank nodes: ask it
                blank_labels.append(True)
            else:
                build_label_sqlite(sidecar / LABEL_INDEX_FILE, labels, build=_label_build(build, naming))
            built.append(builder.build())
            built[0].save(sidecar / RELATION_INDEX_FILE)
            if beside_load is not None:
                iris = [iri for iri in built[0].predicates() if naming.is_fact(iri)]
                names = RelationNames()
                names.bind(lambda: name_relations(naming, iris, links, lambda _nodes, _predicates: names_of))
                beside_load(built[0], sidecar, names)

        # the relation index and the label file are built from the file here, beside the bulk loader's process
        _bulk_load_beside(partial, load_path, format_name, index_and_labels, source=source, fmt=fmt, lock=lock)
        if load_path.parent == sidecar:
            load_path.unlink()
        if blank_labels:
            from kg_agent.kg.stores.oxigraph import store_names

            store = ox.Store(str(partial))
            build_label_sqlite(sidecar / LABEL_INDEX_FILE, store_names(store, naming), build=_label_build(build, naming))
            del store
        store = ox.Store.read_only(str(partial))
        profile = measure_name_predicates(oxigraph_texts(store), naming)
        profile.save(sidecar / PROFILE_FILE)
        profiled = profile.naming(naming)
        if profiled != naming:  # the label file a reader opening the store with the found names will ask for
            from kg_agent.kg.stores.oxigraph import store_names

            build_label_sqlite(sidecar / LABEL_INDEX_FILE, store_names(store, profiled),
                               build=_label_build(build, profiled))
        del store
        files = written_files(partial) + [f"{SIDECAR_DIR}/{COMPLETE_MARKER}"]  # the manifest: what this load wrote
        (sidecar / COMPLETE_MARKER).write_text(json.dumps({
            "build": build, "source": str(source), "format": fmt, "triples": built[0].triples,
            "seconds": round(time.perf_counter() - started, 2), "files": sorted(set(files))}), encoding="utf-8")
        _replace_folder(target, partial, build, store_path)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise


def _replace_folder(target: Path, partial: Path, build: str, store_path: Path) -> None:
    """Put the finished ``partial`` folder at ``target``. An old store (or an empty folder, or the one the lock was
    made in) there is swapped with it in one step where the system can (``renameat2`` ``RENAME_EXCHANGE``: a reader
    opens the old store or the new one, never nothing), else moved aside first and put back if the rename fails;
    then its files, all kg-agent's (checked just before), are deleted."""
    if not os.path.lexists(target):
        partial.rename(target)
        return
    foreign = foreign_files(target)
    if foreign:  # the user put files there while the load ran
        raise KGLoadError(f"{foreign_files_text(store_path, foreign)}; --overwrite replaces only a store's own "
                          "files: move those out of it first (the old store is kept)")
    replaced = target.with_name(f"{target.name}.replaced-{build}")
    if _exchange(partial, target):
        partial.rename(replaced)
    else:
        target.rename(replaced)
        try:
            partial.rename(target)
        except BaseException:
            replaced.rename(target)
            raise
    left = remove_own_files(replaced)
    if left:
        warnings.warn(f"{foreign_files_text(replaced, left)} (put there during the load); kept them there", stacklevel=4)


def _exchange(first: Path, second: Path) -> bool:
    """Swap two paths atomically (Linux ``renameat2(..., RENAME_EXCHANGE)``); False where the system cannot."""
    import ctypes

    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, rename_exchange = -100, 2
    done = renameat2(at_fdcwd, os.fsencode(first), at_fdcwd, os.fsencode(second), rename_exchange) == 0
    return done


#: The bulk load, run by ``python -c`` (pyoxigraph alone: starts in a tenth of a second). Oxigraph's bulk loader
#: runs in native code and never returns to Python before it is done; its own process can be killed at once.
_BULK_LOAD_SCRIPT = """
import json, os, sys, threading, time
import pyoxigraph as ox

store_path, source, rdf_format, parent = sys.argv[1:]
try:  # Linux: the kernel kills this process the moment the loading process dies
    import ctypes, signal
    ctypes.CDLL(None).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
except Exception:
    pass


def stop_when_orphaned():  # the loading process was killed: write no more (where prctl is missing)
    while os.getppid() == int(parent):
        time.sleep(0.1)
    os._exit(1)


threading.Thread(target=stop_when_orphaned, daemon=True).start()
try:
    store = ox.Store(store_path)
    store.bulk_load(path=source, format=getattr(ox.RdfFormat, rdf_format))
    store.flush()
    del store
except SyntaxError as exc:
    print(json.dumps({"line": exc.lineno, "syntax": exc.msg}))
    sys.exit(1)
except Exception as exc:
    print(json.dumps({"error": str(exc) or type(exc).__name__}))
    sys.exit(1)
"""


def _bulk_load_beside(store: Path, path: Path, format_name: str, foreground: Callable[[], None], *, source: Path,
                      fmt: str, lock: int) -> None:
    """Oxigraph's bulk load of ``path`` (``pyoxigraph.RdfFormat.<format_name>``) into a new store at ``store``, in
    a child process, while ``foreground`` runs here; then wait for it. The bulk loader's error is raised first
    (its syntax error names the line of ``source``; the index pass over a broken file may fail anywhere).
    An interrupt (Ctrl-C) or any other exit kills the bulk loader at once; so does the kernel when this process
    is killed outright. The child inherits the store's write lock (``lock``): the store is not free before it is
    gone."""
    loader = subprocess.Popen([sys.executable, "-c", _BULK_LOAD_SCRIPT, str(store), str(path), format_name,
                               str(os.getpid())],
                              stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, pass_fds=(lock,))
    try:
        try:
            foreground()
        except Exception:
            failure = _bulk_load_failure(loader, source, fmt)
            if failure is not None:
                raise failure from None
            raise
        failure = _bulk_load_failure(loader, source, fmt)
        if failure is not None:
            raise failure
    finally:
        if loader.poll() is None:
            loader.kill()
            loader.wait()


def _bulk_load_failure(loader: subprocess.Popen, source: Path, fmt: str) -> KGLoadError | None:
    """Wait for the bulk loader's process; its error, if it failed."""
    out, err = loader.communicate()
    if loader.returncode == 0:
        return None
    lines = out.decode("utf-8", errors="replace").strip().splitlines()
    try:
        report = json.loads(lines[-1])
    except (IndexError, ValueError):
        report = {"error": " ".join(err.decode("utf-8", errors="replace").split())[-300:] or f"exit status {loader.returncode}"}
    if "syntax" in report:
        return rdf_syntax_error(source, fmt, report.get("line"), report["syntax"])
    if "buffer maximal size" in report["error"] and fmt in _OX_FORMATS:
        return too_long_term_error(source, report["error"])
    return KGLoadError(f"{source}: the Oxigraph bulk load failed: {report['error']}")


def _label_build(build: str, naming: Naming) -> str:
    """What a label file is built for: one load of the store, with one set of name predicates."""
    return f"{build} {naming.names_key}"


def _index_triples(builder: RelationIndexBuilder, ox, path: Path, fmt, naming: Naming, *,
                   progress: bool) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]], dict[str, NameLiterals]]:
    """Feed every fact of the file to the relation index builder; return the ``(entity id, name)`` pairs of its
    label and alias literals met on the way (:class:`~kg_agent.kg.naming.Naming`), in file order, each once, and
    what names its relations (:func:`~kg_agent.kg.stores.base.name_relations`): the ``(property entity, link,
    predicate)`` Wikibase links and the name literals of the predicates and of those property entities."""
    from kg_agent.kg.stores.oxigraph import ox_key

    size = path.stat().st_size
    handle = path.open("rb")
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=size, unit="B", unit_scale=True, desc="indexing", mininterval=1.0)
    add = builder.add
    links: list[tuple[str, str, str]] = []
    literals: list[tuple[str, str, str, str | None]] = []  # (entity id, name predicate, text, language)
    try:
        if fmt == ox.RdfFormat.N_TRIPLES:
            literals, link_lines = _index_ntriples_lines(builder, ox, handle, naming, bar)
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
                if not fact:
                    builder.triples += 1  # counted, but a name is not an edge
                    obj = triple.object
                    if naming.is_label(predicate) and isinstance(obj, ox.Literal):
                        literals.append((ox_key(triple.subject), predicate, obj.value, obj.language))
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
        wanted = set(builder.predicates()) | {prop for prop, _, _ in links}
        names: dict[str, NameLiterals] = {}
        for key, predicate, text, language in literals:
            if key in wanted:
                names.setdefault(key, []).append((predicate, text, language))
        return _distinct([(key, text) for key, _, text, _ in literals]), links, names
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


def _distinct(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``pairs`` without repeats (a store holds a triple once), first-seen order."""
    return list(dict.fromkeys(pairs))


def store_profile(store, sidecar: Path, naming: Naming) -> KGProfile:
    """The Oxigraph store's profile: the one its load kept in its sidecar folder, else (a store loaded before
    profiles were kept) measured now and kept there when the folder is writable."""
    path = sidecar / PROFILE_FILE
    profile = KGProfile.load(path)
    if profile is None:
        profile = measure_name_predicates(oxigraph_texts(store), naming)
        try:
            profile.save(path)
        except OSError:
            pass
    return profile


def _open_label_index(store_path: Path, store, build: str, naming: Naming) -> SqliteLabelIndex:
    """The store's label file; a missing or stale one (another load, other name predicates) is rebuilt from the
    store, or refused if it cannot be."""
    from kg_agent.kg.stores.oxigraph import store_names

    build = _label_build(build, naming)
    path = store_path / SIDECAR_DIR / LABEL_INDEX_FILE
    try:
        return SqliteLabelIndex(path, build=build)
    except KGLoadError as exc:
        problem = str(exc) if path.exists() else f"{path}: missing"
    warnings.warn(f"{problem}; rebuilding it from the store", stacklevel=3)
    try:
        build_label_sqlite(path, store_names(store, naming), build=build)
    except OSError as exc:
        raise KGLoadError(f"{problem}, and it cannot be rebuilt here ({exc}); rebuild the store with "
                          "`kg-agent load --overwrite`") from exc
    return SqliteLabelIndex(path, build=build)


def _index_ntriples_lines(builder: RelationIndexBuilder, ox, handle, naming: Naming,
                          bar) -> tuple[list[tuple[str, str, str, str | None]], list[bytes]]:
    """The index pass over N-Triples: split lines, no parser objects. Returns the label and alias literals as
    ``(entity id, name predicate, text, language)`` in file order, and the lines of Wikibase's property links and of
    the ranges of properties (they name relations); other triples that are not facts (descriptions, schema) are
    counted only.

    Subject and predicate hold no whitespace, so ``split(None, 2)`` finds them; a node is keyed by its
    N-Triples text (the index needs distinct nodes only). A name line is read by :func:`_name_literal`; a line
    with an escape (``\\``) or a ``#`` (perhaps a comment) is parsed by Oxigraph's parser instead. The bulk loader checks the syntax of
    the same file in the meantime.
    """
    from kg_agent.kg.stores.oxigraph import ox_key

    signatures = builder.signatures
    get = signatures.get
    literals: list[tuple[str, str, str, str | None]] = []
    name = literals.append
    link_lines: list[bytes] = []
    bits: dict[bytes, tuple] = {}
    reported = 0
    edges = 0
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
            elif naming.is_label(iri):
                pair = (_NAME, iri)
            else:
                pair = _LINK if iri in WIKIBASE_PROPERTY_LINKS or iri in _CLASS_LINKS else _NOT_A_FACT
            bits[predicate] = pair
        if pair[0] < 0:  # a name, a Wikibase link, or neither a name nor a fact
            builder.triples += 1
            if pair[0] == _NAME:
                if rest[:1] == b'"':  # a name is a literal
                    if b"\\" in line or b"#" in rest:  # an escape, or a comment after the triple
                        triple = next(iter(ox.parse(line, format=ox.RdfFormat.N_TRIPLES)))
                        name((ox_key(triple.subject), pair[1], triple.object.value, triple.object.language))
                    else:
                        name(_name_literal(subject, pair[1], rest))
            elif pair is _LINK:
                link_lines.append(line if line.endswith(b"\n") else line + b"\n")
            continue
        out_bit, in_bit = pair
        obj = rest.rstrip(b" \t\r\n.")  # a node never ends with '.': IRIs end with '>', literals with '"', a tag or '>'
        edges += 1
        if obj[:1] == b'"':  # a literal is an end (no in-bit); an empty one is no value at all
            if obj[:2] != b'""' or obj[2:3] == b'"':
                signatures[subject] = get(subject, 0) | out_bit
            continue
        signatures[subject] = get(subject, 0) | out_bit
        signatures[obj] = get(obj, 0) | in_bit
        if bar is not None and not number % 50_000:
            position = handle.tell()
            bar.update(position - reported)
            reported = position
    builder.triples += edges
    if bar is not None:
        bar.update(handle.tell() - reported)
    return literals, link_lines


def _name_literal(subject: bytes, predicate: str, rest: bytes) -> tuple[str, str, str, str | None]:
    """``(entity id, predicate, text, language)`` of an N-Triples name line without escapes: ``subject`` is
    ``<iri>`` or ``_:label``; ``rest`` the literal and the final dot (``"text"``, ``"text"@en``,
    ``"text"^^<datatype>``). Without escapes the literal's last quote closes it (no tag or IRI holds one)."""
    close = rest.rindex(b'"')
    after = rest[close + 1:]
    language = after[1:].split()[0].rstrip(b".").decode("ascii").lower() if after[:1] == b"@" else None
    key = subject[1:-1].decode("utf-8") if subject[:1] == b"<" else subject.decode("utf-8")
    return key, predicate, rest[1:close].decode("utf-8"), language


#: What :func:`_index_ntriples_lines` keeps for a predicate that is a name (with its IRI), a Wikibase property
#: link, or neither a name nor a fact
_NAME = -1
_LINK, _NOT_A_FACT = (-3, -3), (-2, -2)
_CLASS_LINKS = frozenset(DOMAIN_PREDICATES + RANGE_PREDICATES)


def _ox_node(term, ox) -> str:
    if isinstance(term, ox.NamedNode):
        return term.value
    return str(term)  # the index needs distinct nodes, not kg-agent ids: N-Triples text is enough


def open_oxigraph(store_path: str | Path, *, cache_size: int = 50_000, naming: Naming = DEFAULT_NAMING,
                  discover_names: bool = True) -> KnowledgeGraph:
    """Reopen an Oxigraph store built by :func:`build_oxigraph` (milliseconds: nothing is re-parsed).

    With ``discover_names`` the store's profile (``kg-agent/profile.json``, measured on the first open and kept:
    :mod:`kg_agent.kg.profile`) adds the predicates the data names its things with to the naming's labels.

    A folder that is not a store, or a store whose load never finished (no completion marker), is
    refused with :class:`KGLoadError`.
    """
    import pyoxigraph as ox

    from kg_agent.kg.stores.oxigraph import OxigraphGraphStore

    store_path = Path(store_path)
    if not store_path.is_dir():
        raise KGLoadError(f"{store_path}: no Oxigraph store here (build one with `kg-agent load FILE --store DIR`)")
    sidecar = store_path / SIDECAR_DIR
    if not (sidecar / COMPLETE_MARKER).exists() and (writer := lock_holder(store_path)) is not None:
        raise KGLoadError(f"{store_path}: kg-agent load ({'process ' + str(writer) if writer > 0 else 'another process'}) "
                          "is still building this store; open it when the load has finished")
    if not (store_path / "CURRENT").exists():
        raise KGLoadError(f"{store_path}: not an Oxigraph store (build one with `kg-agent load FILE --store DIR`)")
    if not (sidecar / COMPLETE_MARKER).exists():
        raise KGLoadError(f"{store_path}: this Oxigraph store was not completely loaded by kg-agent (no "
                          f"{SIDECAR_DIR}/{COMPLETE_MARKER}); rebuild it with `kg-agent load SOURCE --store "
                          f"{store_path} --overwrite`")
    index = RelationIndex.load(sidecar / RELATION_INDEX_FILE)
    try:
        marker = json.loads((sidecar / COMPLETE_MARKER).read_text(encoding="utf-8"))
        build = str(marker["build"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise KGLoadError(f"{sidecar / COMPLETE_MARKER}: unreadable ({exc}); rebuild the store with "
                          "`kg-agent load --overwrite`") from exc
    try:  # read-only: a reader writes nothing in the store folder (a read-write open rewrites RocksDB's files)
        store = ox.Store.read_only(str(store_path))
    except OSError as exc:
        raise KGLoadError(f"{store_path}: cannot open the Oxigraph store: {exc}; rebuild it with "
                          "`kg-agent load SOURCE --store DIR --overwrite`") from exc
    if discover_names:
        naming = store_profile(store, sidecar, naming).naming(naming)
    labels = _open_label_index(store_path, store, build, naming)
    return KnowledgeGraph(OxigraphGraphStore(store, _oxigraph_graph(store), names=RelationNames(),
                                             name=str(store_path), cache_size=cache_size, relation_index=index,
                                             label_index=labels, naming=naming),
                          vector_cache_path=sidecar / VECTOR_CACHE_FILE)


#: Queries whose form-encoded text is longer than this are POSTed (SPARQL 1.1 Protocol) rather than put in the URL.
MAX_GET_QUERY_CHARS = 2000


class SPARQLEndpointError(RuntimeError):
    """The endpoint answered with an HTTP error; the message carries the status and the start of its body."""


#: Content types of SPARQL JSON results (the W3C type, and what some servers send instead).
JSON_RESULT_TYPES = frozenset({"application/sparql-results+json", "application/json"})


def json_result_rows(document: dict) -> list[tuple]:
    """The rows of a SPARQL JSON results document: tuples of rdflib terms in the order of ``head.vars`` (``None``
    for an unbound variable), each term made by rdflib's own JSON term parser (``parseJsonTerm``)."""
    from rdflib import URIRef
    from rdflib.plugins.sparql.results.jsonresults import parseJsonTerm

    variables = list(document.get("head", {}).get("vars") or [])
    iris: dict[str, URIRef] = {}  # a node met again in the same answer (a path's start, a hub) is made once

    def term(cell: dict):
        if cell["type"] != "uri":
            return parseJsonTerm(cell)
        found = iris.get(cell["value"])
        if found is None:
            found = iris[cell["value"]] = URIRef(cell["value"])
        return found

    return [tuple(term(row[name]) if name in row else None for name in variables)
            for row in document["results"].get("bindings") or []]


def _timeout_sparql_store(endpoint: str, timeout: float):
    """rdflib's ``SPARQLStore`` with every request bounded by ``timeout`` seconds.

    rdflib's ``SPARQLConnector`` calls ``urlopen`` without a timeout (its ``timeout`` keyword is stored and
    never used), so an endpoint that accepts the connection and never answers would block forever.
    Long queries (batched ``VALUES``) are POSTed; HTTP errors carry the endpoint's explanation; a result
    the server cut at its row limit is marked (``result.max_rows``, from Virtuoso's ``X-SPARQL-MaxRows``);
    a result cut short by the server's time limit (Virtuoso "anytime" queries: HTTP 206 or ``X-SQL-State:
    S1TAT``) is an error, never an answer.
    """
    import threading
    from contextlib import contextmanager
    from io import BytesIO
    from urllib.error import HTTPError
    from urllib.parse import urlencode
    from urllib.request import Request, urlopen

    from rdflib.plugins.stores.sparqlstore import SPARQLStore
    from rdflib.query import Result
    from rdflib.term import BNode

    class TimeoutSPARQLStore(SPARQLStore):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self.timeout = timeout
            self._local = threading.local()

        @contextmanager
        def request_timeout(self, seconds: float | None):
            """Requests made by this thread inside the block time out after ``seconds`` instead."""
            previous = getattr(self._local, "timeout", None)
            self._local.timeout = seconds
            try:
                yield
            finally:
                self._local.timeout = previous

        def query(self, query, initNs=None, initBindings=None, queryGraph=None, DEBUG=False):  # noqa: N803
            if initBindings:  # bound inside the WHERE group, not appended (Virtuoso rejects unprojected ones)
                from kg_agent.kg.sparql import bind_values

                query, initBindings = bind_values(query, initBindings), None
            return super().query(query, initNs=initNs, initBindings=initBindings, queryGraph=queryGraph, DEBUG=DEBUG)

        def _fetch(self, query: str, default_graph=None, named_graph=None) -> tuple[str, bytes, int | None]:
            """The endpoint's answer to ``query``: its content type, body and row cap (``X-SPARQL-MaxRows``)."""
            self._queries += 1
            params = {"query": query}
            if default_graph is not None and not isinstance(default_graph, BNode):
                params["default-graph-uri"] = default_graph
            if named_graph is not None:
                params["named-graph-uri"] = named_graph
            headers = {**self.kwargs.get("headers", {}), "Accept": self.response_mime_types()}
            encoded = urlencode(params)
            if len(encoded) > MAX_GET_QUERY_CHARS:
                headers["Content-Type"] = "application/x-www-form-urlencoded"
                request = Request(self.query_endpoint, data=encoded.encode("ascii"), headers=headers, method="POST")
            else:
                separator = "&" if "?" in self.query_endpoint else "?"
                request = Request(self.query_endpoint + separator + encoded, headers=headers)
            seconds = getattr(self._local, "timeout", None) or self.timeout
            try:
                with urlopen(request, timeout=seconds) as response:
                    content_type = (response.headers.get("Content-Type") or "").split(";")[0]
                    body = response.read()
                    cut = response.headers.get("X-SPARQL-MaxRows")
                    # Virtuoso's "anytime" queries: a result interrupted by the server's timeout comes back
                    # short with X-SQL-State S1TAT (HTTP 206 or 200, depending on HTTPAnytimeStatus)
                    partial = response.status == 206 or (response.headers.get("X-SQL-State") or "").strip() == "S1TAT"
                    partial_reason = response.headers.get("X-SQL-Message") or f"HTTP {response.status}"
            except HTTPError as exc:
                detail = " ".join(exc.read(600).decode("utf-8", errors="replace").split())
                raise SPARQLEndpointError(f"HTTP {exc.code} {exc.reason}: {detail[:500]}") from exc
            if partial:
                raise SPARQLEndpointError(f"the endpoint returned incomplete results: {' '.join(partial_reason.split())[:300]}")
            return content_type, body, int(cut) if cut and cut.strip().isdigit() else None

        def _query(self, query: str, default_graph=None, named_graph=None) -> Result:
            content_type, body, max_rows = self._fetch(query, default_graph, named_graph)
            result = Result.parse(BytesIO(body), content_type=content_type)
            result.max_rows = max_rows
            return result

        def select_rows(self, query: str, queryGraph=None) -> tuple[list[tuple], int | None]:  # noqa: N803
            """The rows of a SELECT (tuples in the projection's order, ``None`` for an unbound variable) and the
            endpoint's row cap. SPARQL JSON results are read straight into terms, as rdflib's parser reads them
            but without a ``Variable`` and a ``ResultRow`` per row (a page of paths is 0.7 MB: rdflib took ~5x as
            long, holding the interpreter lock); any other format goes through rdflib."""
            graph = queryGraph if self._is_contextual(queryGraph) else None
            content_type, body, max_rows = self._fetch(query, default_graph=graph)
            if content_type in JSON_RESULT_TYPES:
                document = json.loads(body)
                if isinstance(document, dict) and isinstance(document.get("results"), dict):
                    return json_result_rows(document), max_rows
            result = Result.parse(BytesIO(body), content_type=content_type)
            return [tuple(row) for row in result], max_rows

    return TimeoutSPARQLStore(endpoint, returnFormat="json")


def open_sparql(
    endpoint: str,
    *,
    timeout: float = 30.0,
    cache_size: int = 50_000,
    default_graph: str | None = None,
    batch_size: int = 100,
    page_size: int = 5_000,
    cache_path: str | Path | None = None,
    naming: Naming = DEFAULT_NAMING,
) -> KnowledgeGraph:
    """A read-only view of a remote SPARQL endpoint (rdflib ``SPARQLStore``).

    Args:
        endpoint: the endpoint URL; a ``default-graph-uri`` parameter in it (``.../sparql?default-graph-uri=G``)
            is the same as ``default_graph=G``.
        timeout: seconds every request may take (connect and read) before it fails with ``KGQueryError``.
        cache_size: entities whose relations and neighbours (and labels) are kept in the LRU cache.
        default_graph: the graph queries run against (SPARQL protocol ``default-graph-uri``); without it the
            endpoint's own default applies (Virtuoso: every graph in the store, its system graphs too).
        batch_size: entities per batched request (``VALUES``) when a frontier's neighbours or many labels
            are fetched at once (:meth:`KnowledgeGraph.prefetch`).
        page_size: rows per request for large answers (``ORDER BY ... LIMIT ... OFFSET``); keep it below the
            server's cap (Virtuoso ``ResultSetMaxRows``, 10000 by default) — a smaller cap is detected and used.
        cache_path: a SQLite file keeping fetched neighbourhoods, labels, the label index and the relation
            list across runs (:mod:`kg_agent.kg.sparql_cache`), keyed by endpoint and default graph.
        naming: which predicates name things, which languages are shown (:class:`~kg_agent.kg.naming.Naming`).
    """
    from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

    from rdflib import URIRef

    if batch_size < 1 or page_size < 1:
        raise ValueError(f"batch_size and page_size must be >= 1, got {batch_size} and {page_size}")

    parts = urlsplit(endpoint)
    params = parse_qsl(parts.query, keep_blank_values=True)
    graphs = [value for key, value in params if key == "default-graph-uri"]
    if len(graphs) > 1 or (graphs and default_graph is not None and graphs[0] != default_graph):
        raise ValueError(f"give one default graph, not {graphs + ([default_graph] if default_graph else [])}")
    default_graph = default_graph or (graphs[0] if graphs else None)
    rest = urlencode([(key, value) for key, value in params if key != "default-graph-uri"])
    url = urlunsplit(parts._replace(query=rest))
    store = _timeout_sparql_store(url, timeout)
    graph = Graph(store=store, identifier=URIRef(default_graph)) if default_graph else Graph(store=store)
    store_cache = None
    if cache_path is not None:
        from kg_agent.kg.sparql_cache import SparqlCache

        store_cache = SparqlCache(cache_path, f"{url} {default_graph or ''}")
    from kg_agent.kg.stores.endpoint import EndpointGraphStore

    return KnowledgeGraph(EndpointGraphStore(graph, names=RelationNames(), name=endpoint, cache_size=cache_size,
                                             batch_size=batch_size, page_size=page_size, store_cache=store_cache,
                                             naming=naming))


def open_kg(
    source: str | Path | None = None,
    *,
    backend: str | None = None,
    format: str | None = None,
    store_path: str | Path | None = None,
    timeout: float = 30.0,
    cache_path: str | Path | None = None,
    languages: str | Sequence[str] | None = None,
    label_predicates: Sequence[str] | None = None,
    alias_predicates: Sequence[str] | None = None,
    lenient: bool = False,
) -> KnowledgeGraph:
    """Open a knowledge graph from whatever the user has.

    * ``None``: the bundled sample movie KG.
    * ``http(s)://...``: a SPARQL endpoint (read-only).
    * a directory: an Oxigraph store on disk.
    * a file: loaded into memory, or with ``backend="oxigraph"`` bulk-loaded once into ``store_path``
      (default: ``<file>.oxigraph`` beside it) and reopened from there on later runs.

    ``cache_path`` (endpoints only) keeps SPARQL results in a SQLite file across runs (see :func:`open_sparql`).

    Names (:class:`~kg_agent.kg.naming.Naming`): every label and alias of every language is searchable; the one
    shown is in ``languages`` first (default English; ``"de,en"`` or ``["de", "en"]``), then untagged, then any.
    ``label_predicates`` / ``alias_predicates`` (IRIs) replace the defaults, which cover ``rdfs:label``,
    ``skos:prefLabel`` / ``altLabel``, ``schema:name`` / ``alternateName``, ``foaf:name``, ``dcterms:title`` and
    Freebase's ``type.object.name`` / ``common.topic.alias``. Without ``label_predicates`` the predicates the data
    names its things with are found too and read as labels after those (:mod:`kg_agent.kg.profile`).

    ``lenient`` (a file): skip the file's bad lines, with a warning saying how many and where (:func:`parse_rdf`);
    by default the first bad line stops the load, named.
    """
    naming = make_naming(languages=languages, label_predicates=label_predicates, alias_predicates=alias_predicates)
    discover = label_predicates is None
    if source is None:
        source = sample_kg_path()
    text = str(source)
    if re.match(r"^https?://", text):
        return open_sparql(text, timeout=timeout, cache_path=cache_path, naming=naming)
    if cache_path is not None:
        raise ValueError(f"a KG cache (cache_path, --kg-cache) is for SPARQL endpoints; {text} is not an http(s) URL")
    path = Path(text)
    if path.is_dir():
        return open_oxigraph(path, naming=naming, discover_names=discover)
    if backend in (None, "memory"):
        return load_kg(path, format=format, naming=naming, discover_names=discover, lenient=lenient)
    if backend == "oxigraph":
        target = Path(store_path) if store_path else path.with_name(path.name + ".oxigraph")
        if not target.exists():
            build_oxigraph(path, target, format=format, naming=naming, lenient=lenient)
        return open_oxigraph(target, naming=naming, discover_names=discover)
    raise ValueError(f"backend must be 'memory' or 'oxigraph' for a file, not {backend!r}")
