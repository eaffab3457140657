"""The time a question's grammar puts its answers in: a period named by a date ("in 1965", "in April 1961", "on 12
April 1961", "between 1960 and 1965", "before 44 BC", "after 1958") and a time superlative said as an adverb after a
verb or participle ("which craft was launched **last**", "who died **earliest**", "was released **most recently**").

**A period** is a year ("1965", "44 BC", "AD 79"), a month ("April 1961", "Sept. 1965", "1961-04"), a day ("12 April
1961", "April 12, 1961", "1961-04-12") or a decade ("the 1960s"), read as the interval ``[start, end)`` on the time
line :func:`~kg_agent.tools.shared.aggregates.literal_value` puts dates on (a year with its fraction: a month is a
twelfth, a day a 372nd), so a date the KG gives (``"1965-03-23"^^xsd:date``) is inside "1965" and "March 1965", and a
year it gives (``"1965"^^xsd:gYear``) is inside "1965". BC years count back (the numbers the KG writes, ``"-0044"``).

**A condition** is an English preposition of time before a period: "in", "during", "within", "throughout" and "on"
(a day) keep the values inside it; "between A and B" and "from A to/until B" those from A's start to B's end;
"before" / "prior to" / "earlier than" those before its start; "after" / "later than" those from its end on; "since"
those from its start on; "until" / "till" / "up to" those before its end. A number is a period only where English
puts a date: a year has three or four digits unless an era marker says so ("in 44 BC"), and the date ends its phrase
(the question ends, a punctuation mark or a function word follows): "in 3 parts", "in 1000 pieces" or "in 1965 kg"
name quantities. A date inside a name is no condition: the preposition written with a capital in mid-question
("Murder In 1965"), or (``names``) the date is part of the name of a thing the question mentions ("who acted in
1900", a film called "1900").

**An adverb superlative** ("was launched last", "was founded first", "died earliest", "has been released most
recently") is "first", "earliest", "soonest", "least recently" (the earliest) or "last", "latest", "most recently"
(the latest) right after a past participle or past verb (a word after a form of "to be" or "to have", or a word in
-ed) and ending its phrase; "the first album", "his last name" are no adverbs (a noun follows), "was the first" has no
verb. The verb is kept (``verb``): it names the relation whose dates are compared ("launched": a ``launch``).

Only English grammar is read here: prepositions, month names and era markers (:data:`~kg_agent.text.MONTHS`,
:data:`~kg_agent.text.ERAS_BEFORE`), the auxiliaries; nothing of a data set.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace

from kg_agent.text import BE_NONFINITE, BE_WORDS, ERAS_AFTER, ERAS_BEFORE, FUNCTION_WORDS, HAVE_WORDS, MONTHS

#: Days per year and per month on the time line of ``literal_value`` (a month is 31 of them).
DAYS_A_YEAR = 372
DAYS_A_MONTH = 31

_MONTH = r"(?:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_ERA_BEFORE = "|".join(sorted(ERAS_BEFORE | ERAS_AFTER))
_YEAR = r"(?:(?:AD|CE)\s+)?-?\d{1,4}(?:\s*(?:" + _ERA_BEFORE + r")\b)?"
_DAY = r"\d{1,2}(?:st|nd|rd|th)?"
#: A date, most precise reading first: an ISO day or month, a day and month with a year (either order), a month with
#: a year, a decade, a year.
_DATE = (r"(?P<date>-?\d{4}-\d\d(?:-\d\d)?(?![\d-])"
         rf"|{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}"
         rf"|{_MONTH}\s+{_DAY},?\s+{_YEAR}"
         rf"|{_MONTH},?\s+(?:of\s+)?{_YEAR}"
         r"|(?:the\s+)?\d{3}0'?s\b"
         rf"|{_YEAR})")
#: What may follow a date that ends its phrase: the end, a punctuation mark, or a function word.
_PHRASE_END = r"(?=\s*(?:$|[?.!,;:)\"']|(?P<next>[A-Za-z]+)\b))"
_INSIDE = r"in|during|within|throughout|on"
_BOUNDS = r"before|prior\s+to|earlier\s+than|after|later\s+than|since|until|till|up\s+to"
_CONDITION = re.compile(rf"\b(?P<prep>{_INSIDE}|{_BOUNDS})\s+{_DATE}{_PHRASE_END}", re.IGNORECASE)
_RANGE = re.compile(rf"\b(?P<prep>between|from)\s+{_DATE.replace('?P<date>', '?P<first>')}\s+(?P<joint>and|to|until|till|"
                    rf"through)\s+{_DATE.replace('?P<date>', '?P<second>')}{_PHRASE_END}", re.IGNORECASE)

_EARLIEST, _LATEST = "earliest", "latest"
#: Time adverbs after a verb and the superlative each means.
_ADVERBS = {"first": "first", "earliest": _EARLIEST, "soonest": _EARLIEST, "least recently": _EARLIEST,
            "last": "last", "latest": _LATEST, "most recently": _LATEST, "most lately": _LATEST}
_ADVERB = re.compile(r"\b(?P<verb>[A-Za-z]{3,})\s+(?:the\s+)?(?P<adverb>first|earliest|soonest|last|latest|"
                     r"(?:most|least)\s+recently|most\s+lately)" + _PHRASE_END, re.IGNORECASE)
_AUXILIARY_BEFORE = re.compile(r"\b([A-Za-z]+)\s+(?:[A-Za-z]+ly\s+)?$")


@dataclass(frozen=True)
class Period:
    """An interval of the time line, ``[start, end)``, and the words that named it."""

    start: float
    end: float
    text: str


@dataclass(frozen=True)
class TimeCondition:
    """A condition of time: the values kept are from ``low`` (or any, None) to before ``high`` (or any, None);
    ``phrase`` is the question's words for it ("in 1965"), ``verb`` the word before the preposition ("launched")."""

    low: float | None
    high: float | None
    phrase: str
    verb: str = ""
    #: the preposition read: "before", "after", "in" ...
    preposition: str = ""

    def keeps(self, value: float) -> bool:
        return (self.low is None or value >= self.low) and (self.high is None or value < self.high)


@dataclass(frozen=True)
class TimeAdverb:
    """A time superlative said as an adverb: ``superlative`` "first"/"earliest" (the earliest) or "last"/"latest",
    ``verb`` the participle or verb before it ("launched"), ``phrase`` the words read."""

    superlative: str
    verb: str
    phrase: str


def _year(text: str) -> int | None:
    """A year from its words: "1965", "44 BC" (-44), "AD 79", "-0044"."""
    words = text.replace(".", " ").replace(",", " ").split()
    number = next((w for w in reversed(words) if w.lstrip("-").isdigit()), None)
    if number is None:
        return None
    year = int(number)
    return -year if any(w.lower() in ERAS_BEFORE for w in words) else year


def _point(year: int, month: int = 1, day: int = 1) -> float:
    """A day on the time line, computed as ``literal_value`` computes a date's (the same float for the same day)."""
    return year + (month - 1) / 12 + (day - 1) / DAYS_A_YEAR


def _month(year: int, month: int) -> Period:
    after = _point(year, month + 1) if month < 12 else _point(year + 1)
    return Period(_point(year, month), after, "")


def _day(year: int, month: int, day: int) -> Period:
    after = _point(year, month, day + 1) if day < DAYS_A_MONTH else _month(year, month).end
    return Period(_point(year, month, day), after, "")


def read_period(text: str) -> Period | None:
    """The period a date names ("1965", "April 1961", "12 April 1961", "April 12, 1961", "1961-04-12", "the 1960s",
    "44 BC"), or None."""
    words = text.strip()
    iso = re.fullmatch(r"(-?\d{4})-(\d\d)(?:-(\d\d))?", words)
    if iso:
        year, month = int(iso.group(1)), int(iso.group(2))
        if not 1 <= month <= 12:
            return None
        if iso.group(3) is None:
            return replace(_month(year, month), text=words)
        day = int(iso.group(3))
        return replace(_day(year, month, day), text=words) if 1 <= day <= DAYS_A_MONTH else None
    decade = re.fullmatch(r"(?:the\s+)?(\d{3}0)'?s", words, re.IGNORECASE)
    if decade:
        return Period(float(decade.group(1)), float(decade.group(1)) + 10, words)
    tokens = re.findall(r"[A-Za-z]+|-?\d+", words)
    month = next((MONTHS[t.lower()] for t in tokens if t.lower() in MONTHS), None)
    numbers = [t for t in tokens if t.lstrip("-").isdigit()]
    year = _year(words)
    if year is None:
        return None
    if month is None:
        return Period(float(year), float(year + 1), words)
    days = [int(n) for n in numbers if len(n) <= 2 and n != numbers[-1]] if len(numbers) > 1 else []
    if not days:
        return replace(_month(year, month), text=words)
    day = days[0]
    return replace(_day(year, month, day), text=words) if 1 <= day <= DAYS_A_MONTH else None


def _is_date(text: str, preposition: str) -> bool:
    """Whether the words after a preposition are where English puts a date: a month, a day, an era, a decade or an
    ISO date; a year of three or four digits; a bare number of one or two digits only after a preposition of order
    ("before", "after": the comparisons read "born before 20 BC" and "before 800" alike)."""
    if re.search(r"[A-Za-z]|\d-\d", text):  # a month name, an era, a decade's "s", an ISO date
        return True
    return len(text.strip().lstrip("-")) >= 3 or preposition not in _INSIDE.split("|")


def _verb_before(text: str) -> str:
    """The participle or verb the words before a condition end with: the last word after a form of "to be" or "to
    have" or in -ed ("were **launched** by the agency in 1965"), else the last word when it is a lower-case content
    word ("did [X] **launch** in 1970"); "" for none."""
    tokens = re.findall(r"[A-Za-z]+", text)
    for at in range(len(tokens) - 1, -1, -1):
        word = tokens[at].lower()
        if word in FUNCTION_WORDS or not tokens[at].islower():
            continue
        if word.endswith("ed") or at > 0 and tokens[at - 1].lower() in BE_WORDS | BE_NONFINITE | HAVE_WORDS:
            return word
    last = tokens[-1] if tokens else ""
    return last.lower() if last.islower() and last.lower() not in FUNCTION_WORDS else ""


def asked_time(question: str, names: tuple[str, ...] = ()) -> TimeCondition | None:
    """The condition of time the question states (module docstring), or None. ``names``: the names of the things the
    question mentions (a date inside one is no condition)."""
    lowered_names = [n.lower() for n in names if n]
    found = [(m, m.group("date"), None) for m in _CONDITION.finditer(question)]
    found += [(m, m.group("first"), m.group("second")) for m in _RANGE.finditer(question)]
    for match, first, second in sorted(found, key=lambda f: f[0].start()):
        preposition = " ".join(match.group("prep").lower().split())
        if match.group("prep")[0].isupper() and match.start() > 0:  # "Murder In 1965": part of a name
            continue
        follower = match.group("next")
        if follower is not None and follower.lower() not in FUNCTION_WORDS | ERAS_BEFORE | ERAS_AFTER:
            continue  # "in 3 parts", "in 1965 kg": a quantity
        if preposition == "from" and match.group("joint").lower() == "and" \
                or preposition == "between" and match.group("joint").lower() != "and":
            continue
        if not _is_date(first, preposition) or second is not None and not _is_date(second, "in"):
            continue
        period = read_period(first)
        until = read_period(second) if second is not None else None
        if period is None or second is not None and until is None:
            continue
        if preposition == "on" and period.end - period.start > 1 / 12 + 1e-9:
            continue  # "a book on 1984": a subject, not a day
        phrase = " ".join(match.group(0).split())
        if any(first.lower() in name or phrase.lower() in name for name in lowered_names):
            continue  # the date names a thing: "who acted in 1900" (a film)
        low, high = _bounds(preposition, period, until)
        return TimeCondition(low, high, phrase, _verb_before(question[:match.start()]), preposition)
    return None


def _bounds(preposition: str, period: Period, until: Period | None) -> tuple[float | None, float | None]:
    if until is not None:
        return period.start, until.end
    if preposition in ("before", "prior to", "earlier than"):
        return None, period.start
    if preposition in ("after", "later than"):
        return period.end, None
    if preposition == "since":
        return period.start, None
    if preposition in ("until", "till", "up to"):
        return None, period.end
    return period.start, period.end


def asked_time_adverb(question: str) -> TimeAdverb | None:
    """The time superlative the question says as an adverb after a verb (module docstring), or None."""
    for match in _ADVERB.finditer(question):
        verb = match.group("verb").lower()
        if verb in FUNCTION_WORDS or match.group("adverb")[0].isupper():
            continue
        before = _AUXILIARY_BEFORE.search(question[:match.start("verb")])
        after_auxiliary = before is not None and before.group(1).lower() in BE_WORDS | BE_NONFINITE | HAVE_WORDS
        if not (after_auxiliary or verb.endswith("ed")):
            continue
        adverb = " ".join(match.group("adverb").lower().split())
        return TimeAdverb(_ADVERBS[adverb], verb, match.group(0).strip())
    return None


def time_text(value: float) -> str:
    """A point of the time line as a date (``1965.1855`` -> ``"1965-03-23"``), or a year when it is a whole one."""
    year = math.floor(value + 1e-9)
    days = round((value - year) * DAYS_A_YEAR * 86400) / 86400
    if days < 1e-6:
        return f"-{-year:04d}" if year < 0 else str(year)
    month, day = int(days // DAYS_A_MONTH), int(days % DAYS_A_MONTH + 1e-6)
    return f"{'-' if year < 0 else ''}{abs(year):04d}-{month + 1:02d}-{day + 1:02d}"
