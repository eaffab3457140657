"""English names that published vocabularies give their properties, for KGs that use a vocabulary's IRIs without
stating its names.

A library catalogue says who translated a book with ``marcrel:trl`` (``http://id.loc.gov/vocabulary/relators/trl``) and
who illustrated it with ``marcrel:ill``, but rarely ships the Library of Congress's labels for these codes: its
relations are named ``trl`` and ``ill``, which no question says. The MARC Code List for Relators
(``kg_agent/data/marc_relators.tsv``, the Library of Congress's published list, public domain) names each code
("Translator", "Illustrator"). :func:`published_names` gives those names, read as other names (aliases) of the
relation in English, beside whatever the KG itself says. A vocabulary is listed here only when its names are
published with it as data, not guessed from its codes.
"""

from __future__ import annotations

from functools import lru_cache
from importlib import resources

#: The namespace of the MARC relator properties.
MARC_RELATORS = "http://id.loc.gov/vocabulary/relators/"


@lru_cache(maxsize=1)
def _relator_terms() -> dict[str, str]:
    text = resources.files("kg_agent").joinpath("data", "marc_relators.tsv").read_text(encoding="utf-8")
    rows = (line.split("\t", 1) for line in text.splitlines() if line and not line.startswith("#"))
    return {code: term for code, term in rows}


def published_names(iri: str) -> tuple[str, ...]:
    """The English names a published vocabulary gives the property ``iri`` (``marcrel:trl``: "translator"); none for
    a property of no vocabulary listed here."""
    if iri.startswith(MARC_RELATORS):
        term = _relator_terms().get(iri[len(MARC_RELATORS):].removesuffix(".html"))
        return (term.lower(),) if term else ()
    return ()
