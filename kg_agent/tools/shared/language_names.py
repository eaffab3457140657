"""Human languages by name, and the language tags a KG writes on its literals (BCP 47), read from published data.

A question names a language as people do ("in German", "the Spanish name of ...", "auf Deutsch"); a KG tags its
literals ``"Jupiter"@de``. :func:`language_tag` turns a written name into the tag's language subtag with
``langcodes`` and its ``language_data`` (CLDR's and the IANA registry's names of every language, in English and in
the languages themselves), accepting a name only when it *is* the language's English name or its own name (its
autonym): ``German`` and ``Deutsch`` give ``de``, ``Ancient Greek`` ``grc``; ``Roman`` (a name of Romany in some
language) and ``the`` (a language's name elsewhere) give nothing. :func:`tag_language` reads a KG's tag the same
way (``de-AT``, ``ger`` and ``deu`` are all German), so a question matches whatever form the KG uses.

``langcodes`` is imported at the first call, not with this module: its tables cost ~30 CPU-ms (a large regular
expression among them), and a question naming no language never calls here (``kg-agent ask``'s start-up, issue 48).
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from types import ModuleType


def _langcodes() -> ModuleType:
    import langcodes

    return langcodes


@lru_cache(maxsize=4096)
def language_tag(name: str) -> str | None:
    """The language subtag of the language called ``name`` (its English name or its own, any case: ``"german"``,
    ``"Deutsch"`` -> ``"de"``), or None when ``name`` is no language's name."""
    text = " ".join(name.split())
    if not text or not any(c.isalpha() for c in text):
        return None
    try:
        found = _langcodes().find(text)
    except (LookupError, ValueError):
        return None
    wanted = text.casefold()
    names = {found.display_name("en").casefold(), found.autonym().casefold()}
    names |= {n.split(" (", 1)[0] for n in names}
    if wanted not in names or not found.language:
        return None
    return found.language


@lru_cache(maxsize=4096)
def tag_language(tag: str | None) -> str:
    """The language subtag of a literal's language tag, standardised (``"de-AT"``, ``"ger"`` -> ``"de"``); ``""``
    for an untagged literal; a tag ``langcodes`` cannot read is kept, lower-cased, up to its first ``-``."""
    tag = (tag or "").strip()
    if not tag:
        return ""
    try:
        langcodes = _langcodes()
        return (langcodes.Language.get(langcodes.standardize_tag(tag)).language or "").lower() or tag.lower()
    except (LookupError, ValueError):
        return tag.lower().split("-", 1)[0]


def language_name(subtag: str) -> str:
    """The English name of the language of a subtag (``"de"`` -> ``"German"``); the subtag itself when unknown."""
    try:
        return _langcodes().Language.get(subtag).display_name("en")
    except (LookupError, ValueError):
        return subtag


def language_autonym(subtag: str) -> str:
    """The language's own name for itself (``"de"`` -> ``"Deutsch"``, ``"es"`` -> ``"español"``); ``""`` when unknown."""
    try:
        return _langcodes().Language.get(subtag).autonym()
    except (LookupError, ValueError):
        return ""
