"""The MCP tools' checks of their arguments (length caps, valid Unicode, relation paths) and of what they send back
(:func:`sendable`): bad input is a :class:`~kg_agent.tools.lookups.KGToolError` whose message says what to do."""

from typing import Any

import pydantic_core

from kg_agent.tools import lookups
from kg_agent.tools.lookups import KGToolError

#: Longest entity name, relation or search text accepted (characters).
MAX_NAME_CHARS = 300


#: Longest question accepted by ``ask`` (characters).
MAX_QUESTION_CHARS = 2000


#: Most relations in one relation path.
MAX_PATH_RELATIONS = 6


def checked_text(value: str | None, what: str, *, max_chars: int = MAX_NAME_CHARS) -> str:
    """``value`` stripped; :class:`KGToolError` when it is empty, longer than ``max_chars`` or not valid Unicode
    (a lone UTF-16 surrogate, which JSON's ``\\ud800`` escape can carry and no reply could send back)."""
    text = (value or "").strip()
    if not text:
        raise KGToolError(f"no {what} given")
    if len(text) > max_chars:
        raise KGToolError(f"the {what} is {len(text)} characters long; at most {max_chars} are accepted")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise KGToolError(f"the {what} holds an invalid character (a lone UTF-16 surrogate, character {exc.start + 1}); "
                          "send valid Unicode") from None
    return text


def checked_relations(relations: list[str] | str) -> list[str]:
    """A relation path's relations, each checked for length; at most :data:`MAX_PATH_RELATIONS`."""
    items = [relations] if isinstance(relations, str) else list(relations)
    if len(items) > MAX_PATH_RELATIONS:
        raise KGToolError(f"{len(items)} relations given; a relation path has at most {MAX_PATH_RELATIONS}")
    rels = lookups.relation_list([checked_text(r, "relation") for r in items])
    if len(rels) > MAX_PATH_RELATIONS:
        raise KGToolError(f"{len(rels)} relations given; a relation path has at most {MAX_PATH_RELATIONS}")
    return rels


def sendable(result: Any) -> Any:
    """``result`` when it can be sent as JSON; :class:`KGToolError` when text from the KG holds a lone UTF-16
    surrogate (e.g. a SPARQL endpoint's ``\\ud800`` escape), instead of the SDK's serializer error."""
    try:
        pydantic_core.to_json(result)
    except pydantic_core.PydanticSerializationError as exc:
        if "surrogates not allowed" not in str(exc):
            raise
        raise KGToolError("the knowledge graph's text for this result holds an invalid character (a lone UTF-16 "
                          "surrogate), so it cannot be sent; fix that text in the KG or ask about other entities") from None
    return result
