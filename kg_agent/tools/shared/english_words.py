"""Closed-class English words the question readers share, one copy each: forms of "be", "have" and "do", the
articles, and the superlatives of time order. Generic English grammar, nothing of a data set; a reader that needs a
set of them builds it from these (``AUXILIARIES | ARTICLES``) rather than spelling the words again.

Read by :class:`~kg_agent.tools.shared.answer_types.AskedType`, :mod:`~kg_agent.tools.shared.question_parts`,
:mod:`~kg_agent.tools.shared.aggregates` and :mod:`~kg_agent.tools.shared.whole_graph`.
"""

from __future__ import annotations

#: Forms of "to be" ("what **was** the first ...").
BE_WORDS = frozenset({"is", "are", "was", "were"})
#: Forms of "to have" ("which term **has** the most ...").
HAVE_WORDS = frozenset({"has", "have", "had"})
#: Forms of "to do" ("what **does** [X] do").
DO_WORDS = frozenset({"do", "does", "did"})
#: The auxiliaries a question opens a clause with ("what **is** the most common ...", "**does** [X] ...").
AUXILIARIES = BE_WORDS | HAVE_WORDS | DO_WORDS
ARTICLES = frozenset({"a", "an", "the"})
#: Superlatives of time order asking for the earliest thing, and for the latest: "what was the **first** invited
#: talk at [X]" asks for a thing of the noun's kind, the one first in time.
EARLIEST_WORDS = frozenset({"first", "earliest"})
LATEST_WORDS = frozenset({"last", "latest"})
TIME_SUPERLATIVES = EARLIEST_WORDS | LATEST_WORDS
