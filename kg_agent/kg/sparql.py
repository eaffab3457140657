"""SPARQL safety: terms are rendered by escaping functions, and only read queries may run.

Every query kg-agent writes is a template whose variable parts go through :func:`sparql_iri` or
:func:`sparql_literal` (or are bound with ``initBindings``); text is never pasted into a query.
"""

from __future__ import annotations

import re
import threading

from kg_agent.kg.errors import ReadOnlyViolation

#: rdflib's SPARQL grammar (pyparsing, with its packrat cache) is not thread-safe: two threads parsing at once
#: made one fail at random ("<lambda>() missing 1 required positional argument"), a sound query then refused as
#: not read-only, and a question answered without what the query was for (the answer-type profile of RoG's scorer).
_PARSER_LOCK = threading.Lock()

# Characters that may not appear inside <...> in SPARQL (IRIREF production), plus whitespace.
_IRI_FORBIDDEN = re.compile(r'[\x00-\x20<>"{}|^`\\]')
# Not when part of a variable (?insert, $add) or a prefixed name (ex:with, load:x).
_UPDATE_KEYWORDS = re.compile(
    r"(?<![?$:])\b(INSERT|DELETE|LOAD|CLEAR|CREATE|DROP|COPY|MOVE|ADD|WITH)\b(?!:)", re.IGNORECASE
)
_SERVICE = re.compile(r"\bSERVICE\b", re.IGNORECASE)
_STRING_OR_IRI_OR_COMMENT = re.compile(
    r'"""(?:[^"\\]|\\.|"(?!""))*"""' r"|'''(?:[^'\\]|\\.|'(?!''))*'''"
    r'|"(?:[^"\\\n]|\\.)*"' r"|'(?:[^'\\\n]|\\.)*'" r"|<[^<>\s]*>" r"|#[^\n]*",
    re.DOTALL,
)


def sparql_iri(iri: str) -> str:
    """``<iri>`` for a query; raises ValueError when the IRI holds characters that could end the term."""
    text = str(iri)
    if not text or _IRI_FORBIDDEN.search(text):
        raise ValueError(f"not a valid IRI for a SPARQL query: {text[:200]!r}")
    return f"<{text}>"


_LITERAL_ESCAPES = {
    "\\": "\\\\",
    '"': '\\"',
    "\n": "\\n",
    "\r": "\\r",
    "\t": "\\t",
    "\b": "\\b",
    "\f": "\\f",
}


# A backslash followed by u/U and hex digits: SPARQL parsers expand \uXXXX everywhere *before* parsing,
# so an escaped backslash (\\) followed by "u0041" would still be read as a code point escape.
_UCHAR_LIKE = re.compile(r"\\([uU])([0-9A-Fa-f]*)")


def _hide_uchar(match: re.Match) -> str:
    # "\\" then every following character as its own \u00XX escape: after the parser's pre-pass the
    # text is the original backslash, u and digits again (each escape is followed by another escape or by
    # a non-hex character, so none is read as an 8-digit escape).
    return "\\\\" + "".join(f"\\u{ord(ch):04X}" for ch in match.group(1) + match.group(2))


def sparql_literal(text: str, *, lang: str | None = None) -> str:
    """A double-quoted SPARQL string literal with every special character escaped."""
    text = str(text)
    parts = []
    at = 0
    for match in _UCHAR_LIKE.finditer(text):
        parts.append("".join(_LITERAL_ESCAPES.get(ch, ch) for ch in text[at : match.start()]))
        parts.append(_hide_uchar(match))
        at = match.end()
    parts.append("".join(_LITERAL_ESCAPES.get(ch, ch) for ch in text[at:]))
    escaped = "".join(parts)
    if lang is not None:
        if not re.fullmatch(r"[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*", lang):
            raise ValueError(f"not a language tag: {lang!r}")
        return f'"{escaped}"@{lang}'
    return f'"{escaped}"'


def sparql_term(term) -> str:
    """An rdflib IRI or literal rendered for a query (escaped like :func:`sparql_iri` / :func:`sparql_literal`).

    Blank nodes have no meaning outside the store that made them and raise ValueError.
    """
    from rdflib import Literal, URIRef

    if isinstance(term, URIRef):
        return sparql_iri(term)
    if isinstance(term, Literal):
        if term.language:
            return sparql_literal(str(term), lang=term.language)
        text = sparql_literal(str(term))
        return f"{text}^^{sparql_iri(term.datatype)}" if term.datatype is not None else text
    raise ValueError(f"cannot put a {type(term).__name__} into a SPARQL query: {str(term)[:200]!r}")


_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_QUERY_FORM = re.compile(r"(?<![?$:\w])(SELECT|ASK|CONSTRUCT|DESCRIBE)\b(?!:)", re.IGNORECASE)


def sparql_bool(flag) -> bool:
    """An ``xsd:boolean`` result value as a Python bool."""
    return bool(getattr(flag, "value", flag))


def values_block(bindings) -> str:
    """``VALUES (?a ?b) { (term term) }`` for ``{name: rdflib term}``, every term escaped."""
    names = list(bindings)
    for name in names:
        if not _VARIABLE_NAME.fullmatch(str(name)):
            raise ValueError(f"not a SPARQL variable name: {str(name)[:100]!r}")
    return "VALUES (%s) { (%s) }" % (" ".join(f"?{n}" for n in names), " ".join(sparql_term(bindings[n]) for n in names))


def bind_values(query: str, bindings) -> str:
    """The query with ``bindings`` as a ``VALUES`` block at the start of its WHERE group.

    rdflib's ``SPARQLStore`` appends the block after the query instead; SPARQL allows that, but some
    servers (Virtuoso 7) then accept only projected variables. Inside the group it binds any variable,
    as ``initBindings`` does on a local graph.
    """
    if not bindings:
        return query
    masked = _STRING_OR_IRI_OR_COMMENT.sub(lambda m: " " * len(m.group(0)), query)
    form = _QUERY_FORM.search(masked)
    brace = masked.find("{", form.end() if form else 0)
    if form is not None and form.group(1).upper() == "CONSTRUCT" and brace >= 0 \
            and not re.search(r"\bWHERE\b", masked[form.end():brace], re.IGNORECASE):
        depth, at = 0, brace  # skip the CONSTRUCT template to its WHERE group
        for at in range(brace, len(masked)):
            depth += {"{": 1, "}": -1}.get(masked[at], 0)
            if depth == 0:
                break
        brace = masked.find("{", at + 1)
    if brace < 0:
        raise ValueError("cannot bind variables: the query has no WHERE group")
    return f"{query[:brace + 1]} {values_block(bindings)} {query[brace + 1:]}"


def _strip_strings(query: str) -> str:
    return _STRING_OR_IRI_OR_COMMENT.sub(" ", query)


def check_read_only(query: str) -> None:
    """Refuse anything but a single read query (SELECT, ASK, CONSTRUCT, DESCRIBE) without SERVICE.

    The query is parsed with rdflib's SPARQL *query* grammar, which has no update forms; keywords of
    updates and ``SERVICE`` are also looked for outside strings, IRIs and comments.
    """
    # rdflib's SPARQL grammar takes ~0.1 s to import: only a query someone runs needs it, not opening a KG
    from rdflib.plugins.sparql.parser import expandUnicodeEscapes, parseQuery

    # rdflib (like the SPARQL spec) expands \uXXXX escapes before parsing: SERVIC\u0045 is SERVICE.
    try:
        code = _strip_strings(expandUnicodeEscapes(query))
    except ValueError as exc:  # an escape naming no code point
        raise ReadOnlyViolation(f"not a valid read-only SPARQL query: {exc}") from exc
    if _SERVICE.search(code):
        raise ReadOnlyViolation("SERVICE clauses are not allowed: the agent queries only its own knowledge graph")
    match = _UPDATE_KEYWORDS.search(code)
    if match:
        raise ReadOnlyViolation(f"only read queries may run on the knowledge graph (found {match.group(1).upper()})")
    try:
        with _PARSER_LOCK:
            parseQuery(query)
    except Exception as exc:
        raise ReadOnlyViolation(f"not a valid read-only SPARQL query: {exc}") from exc
