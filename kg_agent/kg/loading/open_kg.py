"""One way to open any KG (:func:`open_kg`): the bundled sample, a SPARQL endpoint, an Oxigraph store, or a file
loaded into memory or into a store once."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.loading.in_memory import load_kg
from kg_agent.kg.loading.oxigraph_build import build_oxigraph
from kg_agent.kg.loading.oxigraph_open import open_oxigraph
from kg_agent.kg.loading.samples import sample_kg_path
from kg_agent.kg.loading.sparql_endpoint import open_sparql
from kg_agent.kg.naming import make_naming


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
        return open_sparql(text, timeout=timeout, cache_path=cache_path, naming=naming, discover_names=discover)
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
