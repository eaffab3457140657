"""Parsing an RDF file into an rdflib graph (:func:`parse_rdf`): Oxigraph's parser where it reads the format, rdflib's
otherwise; a lenient parse that skips bad lines with a warning; syntax errors that name the file and line."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from pathlib import Path

from rdflib import Graph, Literal
from rdflib.util import guess_format

from kg_agent.kg.errors import KGLoadError
from kg_agent.kg.stores.memory import new_graph
from kg_agent.text_files import first_non_utf8, not_utf8_error


def parse_rdf(path: str | Path, *, format: str | None = None, graph: Graph | None = None, lenient: bool = False) -> Graph:
    """Parse an RDF file of any rdflib format; syntax errors name the file and line.

    ``lenient`` reads a published dump with bad lines: in N-Triples and N-Quads each bad line is skipped and a
    warning says how many were skipped and where (the first :data:`LENIENT_REPORTED` of them); in the other formats
    Oxigraph's lenient parser accepts what it can (an IRI with a character IRIs may not hold), and any other error
    still stops the load.

    Turtle, N-Triples, N-Quads, TriG, N3, RDF/XML and JSON-LD are read with Oxigraph's parser, in time linear
    in the length of a line (rdflib's N-Triples parser is quadratic: a 5 MB literal took minutes). A quad format's
    KG is the union of its graphs, the default graph and every named one, each triple once: a dump published as
    TriG or N-Quads often keeps every fact in a named graph (per source or per entity), and a user handing it over
    means its facts; the graph names are not kept (:data:`QUAD_FORMATS`). Other formats (TriX, HexTuples) go
    through rdflib. A file that is not UTF-8 is refused with its first bad line.
    """
    path = Path(path)
    if not path.exists():
        raise KGLoadError(f"{path}: no such file")
    fmt = format or guess_format(str(path)) or "turtle"
    graph = graph if graph is not None else new_graph()
    if fmt in OXIGRAPH_FORMATS:
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
    """Add the triples of an RDF file, of every graph of a quad format, to an rdflib graph, parsed by Oxigraph
    (``lenient``: see :func:`parse_rdf`)."""
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

    rdf_format = getattr(ox.RdfFormat, OXIGRAPH_FORMATS[fmt])
    add = graph.add

    def add_quads(quads) -> None:
        for quad in quads:  # every graph's: the union (rdflib keeps a triple once)
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


def write_union_ntriples(path: Path, fmt: str, target: Path) -> None:
    """Write the union of a quad file's graphs (:data:`QUAD_FORMATS`) to ``target`` as N-Triples, streamed by
    Oxigraph (no graph in memory), for the store's bulk loader, which would keep each quad in its named graph. Blank
    node labels stay as the file writes them: in TriG and N-Quads a label names one node in every graph. A triple in
    two graphs is written twice; the store keeps it once."""
    import pyoxigraph as ox

    rdf_format = getattr(ox.RdfFormat, OXIGRAPH_FORMATS[fmt])
    quads = ox.parse(path=str(path), format=rdf_format, base_iri=path.absolute().as_uri())
    try:
        ox.serialize((ox.Triple(quad.subject, quad.predicate, quad.object) for quad in quads), output=str(target),
                     format=ox.RdfFormat.N_TRIPLES)
    except SyntaxError as exc:
        raise rdf_syntax_error(path, fmt, exc.lineno, exc.msg) from None
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


OXIGRAPH_FORMATS = {
    "turtle": "TURTLE", "nt": "N_TRIPLES", "nt11": "N_TRIPLES", "xml": "RDF_XML", "n3": "N3",
    "trig": "TRIG", "nquads": "N_QUADS", "json-ld": "JSON_LD",
}

#: The formats whose statements are quads, in named graphs or the default one: their KG is the graphs' union.
QUAD_FORMATS = frozenset({"trig", "nquads"})
