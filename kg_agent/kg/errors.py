"""Errors raised by the knowledge-graph layer. All derive from :class:`KGError`."""


class KGError(Exception):
    """Base class of knowledge-graph errors."""


class KGLoadError(KGError):
    """A KG file could not be read; the message names the file and, when known, the line."""


class KGQueryError(KGError):
    """A query failed (endpoint down, timeout, malformed query)."""


class ReadOnlyViolation(KGError):
    """A query that would write to the KG, or reach another endpoint, was refused."""


class UnknownEntityError(KGError, KeyError):
    """The KG has no such entity."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it readable
        return str(self.args[0]) if self.args else ""


class UnknownRelationError(KGError, KeyError):
    """The KG has no such relation."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
