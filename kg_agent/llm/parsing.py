"""Lenient parsers for what real language models write.

Models wrap the requested format in prose, code fences, numbering, bullets, markdown bold and
quotes, forget closing tags, and invent scores that do not add up. Every parser here extracts what
it can and **never raises on garbage**: it returns an empty result (``[]``, ``None``...) instead.

Parsers:

* :func:`parse_relation_paths` - RoG relation paths ``<PATH> r1 <SEP> r2 </PATH>``.
* :func:`parse_answer_list` - RoG answer lists (python/JSON lists, lines, "The answer is X.").
* :func:`parse_scored_items` - ToG prune outputs ``{name (Score: 0.5)}: reason`` matched to candidates.
* :func:`parse_yes_no` - ToG verification ``{Yes}. The answer is {Forrest Gump}``.
* :func:`parse_json_object` - the first JSON object in a reply.
"""

from __future__ import annotations

import ast
import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

INVERSE_PREFIX = "^"

_CODE_FENCE = re.compile(r"```[ \t]*[\w+-]*[ \t]*\n?|```|~~~")
_BULLET = re.compile(r"^\s*(?:[-*+•·▪‣◦]|(?:\(?\d{1,3}[.):\]]|\(?[a-zA-Z][.)])(?=\s))\s*")
_QUOTE_CHARS = "\"'`“”‘’«»"
_NUMBER = r"[-+]?(?:\d+(?:\.\d*)?|\.\d+)"

#: Only the first this-many ``{`` / ``[`` positions are tried as the start of a JSON object or
#: list, which keeps parsing linear on adversarial replies (a model's answer comes early).
MAX_BRACKET_STARTS = 64


def _strip_code_fences(text: str) -> str:
    return _CODE_FENCE.sub("\n", text)


def _strip_bullet(line: str) -> str:
    return _BULLET.sub("", line, count=1)


def _strip_markdown(text: str) -> str:
    return re.sub(r"\*\*|__", "", text)


def _dedupe(items: list[str]) -> list[str]:
    seen: set[str] = set()
    unique: list[str] = []
    for item in items:
        key = item.casefold()
        if key not in seen:
            seen.add(key)
            unique.append(item)
    return unique


# ---------------------------------------------------------------------------------------------
# RoG relation paths
# ---------------------------------------------------------------------------------------------

_PATH_OPEN = re.compile(r"<\s*PATH\s*>", re.IGNORECASE)
_PATH_CLOSE = re.compile(r"<\s*/\s*PATH\s*>", re.IGNORECASE)
_SEP_TAG = re.compile(r"<\s*SEP\s*>", re.IGNORECASE)
_ARROW = re.compile(r"\s*(?:->|→|=>|⟶)\s*")
_RELATION_TOKEN = re.compile(r"^\^?[\w.:/#~-]+$")
#: What tells a relation name from a word of prose: an inverse mark, an underscore, a dot between letters, a slash, colon or hash inside.
_IDENTIFIER_MARK = re.compile(r"^\^|_|[A-Za-z]\.[A-Za-z]|\w[/:#]\w")


def _clean_relation(raw: str) -> str:
    relation = _strip_markdown(raw).strip().strip(_QUOTE_CHARS + "[](){}<>,;").strip()
    relation = relation.rstrip(".").strip()
    return re.sub(r"\s+", " ", relation)


def _split_path(body: str) -> list[str]:
    if _SEP_TAG.search(body):
        parts = _SEP_TAG.split(body)
    elif _ARROW.search(body):
        parts = _ARROW.split(body)
    else:
        parts = [body]
    return [relation for relation in (_clean_relation(part) for part in parts) if relation]


def parse_relation_paths(text: str | None) -> list[list[str]]:
    """Relation paths in RoG's ``<PATH> r1 <SEP> r2 </PATH>`` format, in order, deduplicated.

    Tolerated: several paths, a missing ``</PATH>`` (the path ends at the next ``<PATH>`` or the
    end of the line), spaces and case in tags (``< path >``), numbering/bullets before the tag,
    quotes around relations, code fences, and ``->`` separators instead of ``<SEP>``. Without any
    ``<PATH>`` tag, lines made only of relation names joined by ``<SEP>`` or ``->`` are accepted, and so is a
    line holding one relation name alone (what small models write: one relation per line), as a one-hop
    path. A lone name counts only when it is spelled like an identifier (``directed_by``, ``^starred_actors``,
    ``film.film.genre``, ``P57/P31``): a lone plain word (``Sure``, ``genre``) is taken for prose and skipped.
    Inverse relations keep their ``^`` prefix.

    >>> parse_relation_paths("<PATH> film.film.directed_by <SEP> people.person.nationality </PATH>")
    [['film.film.directed_by', 'people.person.nationality']]
    >>> parse_relation_paths("1. <PATH>starred_actors</PATH>\\n2. <PATH> ^directed_by <SEP> release_year")
    [['starred_actors'], ['^directed_by', 'release_year']]
    >>> parse_relation_paths("directed_by -> release_year")
    [['directed_by', 'release_year']]
    >>> parse_relation_paths("Relations:\\n1. ^directed_by\\n2. has_genre\\nThat is all.")
    [['^directed_by'], ['has_genre']]
    >>> parse_relation_paths("I am not sure.")
    []
    """
    if not text or not isinstance(text, str):
        return []
    text = _strip_code_fences(text)
    paths: list[list[str]] = []
    openings = list(_PATH_OPEN.finditer(text))
    if openings:
        for index, opening in enumerate(openings):
            end = openings[index + 1].start() if index + 1 < len(openings) else len(text)
            segment = text[opening.end():end]
            closing = _PATH_CLOSE.search(segment)
            if closing:
                segment = segment[: closing.start()]
            else:
                segment = segment.strip().split("\n", 1)[0]
            path = _split_path(segment)
            if path:
                paths.append(path)
    else:
        for line in text.splitlines():
            line = _PATH_CLOSE.sub("", _strip_bullet(_strip_markdown(line))).strip()
            if _SEP_TAG.search(line) or _ARROW.search(line):
                path = _split_path(line)
            else:  # one relation alone on its line: a one-hop path when it is spelled like an identifier
                relation = _clean_relation(line)
                path = [relation] if _IDENTIFIER_MARK.search(relation) else []
            if path and all(_RELATION_TOKEN.match(relation) for relation in path):
                paths.append(path)
    unique: list[list[str]] = []
    for path in paths:
        if path not in unique:
            unique.append(path)
    return unique


# ---------------------------------------------------------------------------------------------
# RoG answer lists
# ---------------------------------------------------------------------------------------------

_NO_ANSWER = re.compile(
    r"^(?:none|null|nil|n/?a|unknown|no answers?(?: found)?|nothing|not (?:sure|known|available|found)|"
    r"i (?:do not|don't|dont) know|i am not sure|i'm not sure|cannot (?:be )?determine[d]?|empty|\[\s*\])$",
    re.IGNORECASE,
)
_DONT_KNOW = re.compile(
    r"\b(?:i (?:do not|don't|dont) know|i am not sure|i'm not sure|i cannot (?:determine|answer|find)|"
    r"i can't (?:determine|answer|find)|(?:there is|there's) no (?:answer|information)|"
    r"not enough information|no answer (?:can be|is) (?:found|given|determined))\b",
    re.IGNORECASE,
)
_ANSWER_MARKER = re.compile(
    r"(?:\bthe[ \t]+)?(?:\bfinal[ \t]+|\bpossible[ \t]+|\bcorrect[ \t]+)?\banswers?\b[ \t]*"
    r"(?:to[ \t]+(?:the|this|your)[ \t]+question[ \t]+)?(?:\(s\)[ \t]*)?"
    r"(?:(?:is|are|would[ \t]+be|could[ \t]+be|might[ \t]+be|include|includes)\b[ \t]*[:=]?|[:=])[ \t]*",
    re.IGNORECASE,
)
_ABBREVIATION_END = re.compile(r"(?:\b[A-Za-z]\.){2,}$|\b(?:Jr|Sr|Inc|Ltd|Co|St|Dr|Mr|Mrs|Ms|Corp|etc)\.$")


def _clean_answer(raw: str) -> str:
    item = _strip_markdown(raw).strip()
    item = _strip_bullet(item).strip()
    item = re.sub(r"^(?:the\s+)?(?:final\s+)?answers?\s*(?:is|are|:)\s*", "", item, flags=re.IGNORECASE)
    for _ in range(3):
        item = item.strip().strip(_QUOTE_CHARS).strip()
        if item.startswith("{") and item.endswith("}"):
            item = item[1:-1]
        if item.startswith("[") and item.endswith("]"):
            item = item[1:-1]
    item = item.rstrip(",;:!? ").strip()
    if item.endswith(".") and not _ABBREVIATION_END.search(item):
        item = item[:-1].rstrip()
    item = item.strip(_QUOTE_CHARS).strip()
    return re.sub(r"\s+", " ", item)


def _split_commas(text: str) -> list[str]:
    return [part for part in re.split(r",\s*(?:and\s+)?|;\s*|\|", text) if part.strip()]


def _unbracket(text: str) -> str:
    """``"[Tom Hanks, Meg Ryan]"`` (an unquoted list) -> ``"Tom Hanks, Meg Ryan"``."""
    stripped = text.strip().rstrip(".")
    if stripped.startswith("[") and stripped.endswith("]"):
        return stripped[1:-1]
    return text


def _literal_list(text: str) -> list[Any] | None:
    """A python/JSON list literal found in ``text`` (first bracketed span that parses)."""
    for match in itertools.islice(re.finditer(r"\[", text), MAX_BRACKET_STARTS):
        depth = 0
        for end in range(match.start(), len(text)):
            char = text[end]
            if char == "[":
                depth += 1
            elif char == "]":
                depth -= 1
                if depth == 0:
                    candidate = text[match.start(): end + 1]
                    for loader in (json.loads, ast.literal_eval):
                        try:
                            value = loader(candidate)
                        except Exception:
                            continue
                        if isinstance(value, list):
                            return value
                    break
    return None


def _flatten_scalars(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [item for element in value for item in _flatten_scalars(element)]
    if value is None or isinstance(value, dict):
        return []
    return [str(value)]


_STRUCTURED_START = re.compile(r"^[\[{]\s*[\"']")


def _unterminated_structure(text: str) -> bool:
    """A reply that starts a JSON object or list (``{"answers": ["Rob``) and never closes it: cut off."""
    if not _STRUCTURED_START.match(text):
        return False
    return ("}" if text[0] == "{" else "]") not in text


def _finish_answers(raw_items: list[str]) -> list[str]:
    cleaned = [_clean_answer(item) for item in raw_items]
    return _dedupe([item for item in cleaned if item and not _NO_ANSWER.match(item)])


def _answer_after_marker(text: str) -> str | None:
    match = _ANSWER_MARKER.search(text)
    if not match:
        return None
    rest = text[match.end():]
    line = rest.split("\n", 1)[0].strip()
    if not line:
        return None
    # "The answer is Tom Hanks. He starred in ..." -> "Tom Hanks" (keep "Washington, D.C.")
    sentence_end = re.search(r"(?<!\b[A-Z])\.\s+(?=[A-Z(])", line)
    if sentence_end:
        line = line[: sentence_end.start()]
    return line


def parse_answer_list(text: str | None) -> list[str]:
    """The answers in a model's reply, cleaned and deduplicated (case-insensitively, order kept).

    Understood, in this order of preference: a JSON object with an ``answers``/``answer`` key; a
    python or JSON list (``["a", "b"]``, ``['a']``); a "The answer is X." / "Answers: a, b" sentence;
    bullet or numbered lines; one answer per line; a single comma-separated line. Quotes, braces,
    markdown bold and trailing periods are stripped (abbreviations like ``D.C.`` keep theirs).
    "I don't know", "None", "N/A" and empty replies give ``[]``, and so does a reply cut off inside the
    JSON object or list it started (``{"answers": ["Robert Zem``): it is unusable, not an answer.

    Commas split answers only in a one-line reply or after an answer marker, so
    ``"Washington, D.C."`` on a line of its own stays whole; a bare `` and `` never splits
    (``"Pride and Prejudice"``).

    >>> parse_answer_list('["Jamaican English", "Jamaican Creole English Language"]')
    ['Jamaican English', 'Jamaican Creole English Language']
    >>> parse_answer_list("Based on the paths, the answer is Tom Hanks.")
    ['Tom Hanks']
    >>> parse_answer_list("Answers: Meg Ryan, Tom Hanks")
    ['Meg Ryan', 'Tom Hanks']
    >>> parse_answer_list("- Forrest Gump\\n- Cast Away\\n- forrest gump")
    ['Forrest Gump', 'Cast Away']
    >>> parse_answer_list("I don't know.")
    []
    """
    if not text or not isinstance(text, str):
        return []
    text = _strip_code_fences(text).strip()
    if not text or _NO_ANSWER.match(_clean_answer(text)) or _unterminated_structure(text):
        return []

    obj = parse_json_object(text)
    if obj is not None:
        for key in ("answers", "answer", "Answers", "Answer", "final_answer", "result"):
            if key in obj:
                return _finish_answers(_flatten_scalars(obj[key]))

    after_marker = _answer_after_marker(text)
    scope = after_marker if after_marker is not None else text
    listed = _literal_list(scope)
    if listed is None and after_marker is not None:
        listed = _literal_list(text)
    if listed is not None:
        return _finish_answers(_flatten_scalars(listed))

    if after_marker is not None:
        braced = re.findall(r"\{([^{}]+)\}", after_marker)
        if braced:
            return _finish_answers(braced)
        return _finish_answers(_split_commas(_unbracket(after_marker)))

    lines = [line for line in (raw.strip() for raw in text.splitlines()) if line]
    bullet_lines = [line for line in lines if _BULLET.match(line)]
    if bullet_lines:
        return _finish_answers([_strip_bullet(line) for line in bullet_lines])
    if _DONT_KNOW.search(text):
        return []
    braced = re.findall(r"\{([^{}]+)\}", text)
    if braced:
        return _finish_answers(braced)
    if len(lines) == 1:
        return _finish_answers(_split_commas(_unbracket(lines[0])))
    # one answer per line; drop preamble lines such as "Here are the answers:"
    answer_lines = [line for line in lines if not line.rstrip().endswith(":")]
    return _finish_answers(answer_lines)


# ---------------------------------------------------------------------------------------------
# ToG scored prune outputs
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ScoredParse:
    """What :func:`parse_scored_items` found.

    Iterating yields ``(candidate, score)`` pairs, so ``dict(parse_scored_items(...))`` works.

    Attributes:
        items: ``(candidate, score)`` in the order the model listed them; names are the
            *candidates'* spelling; scores are >= 0 and sum to 1 (unless no item was found).
        unknown: names the model scored that match no candidate (hallucinated or misspelled).
        renormalized: scores were rescaled because they did not sum to 1 (or were all zero).
        scores_missing: at least one item had no score and received an equal share.
    """

    items: list[tuple[str, float]] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    renormalized: bool = False
    scores_missing: bool = False

    @property
    def normalized(self) -> bool:
        """Alias of :attr:`renormalized`."""
        return self.renormalized

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.items]

    def as_dict(self) -> dict[str, float]:
        return dict(self.items)

    def __iter__(self) -> Iterator[tuple[str, float]]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


def normalize_name(name: str) -> str:
    """Comparison key for relation/entity names: case-folded, quotes and markup dropped,
    runs of spaces/underscores/hyphens collapsed to ``_``.

    >>> normalize_name(" Film.Film.Directed By ") == normalize_name("film.film.directed_by")
    True
    """
    key = _strip_markdown(name)
    for _ in range(3):
        key = key.strip().strip(_QUOTE_CHARS + "{}[]()<>").strip().rstrip(".,;:")
    key = key.casefold()
    key = re.sub(r"[\s_\-]+", "_", key)
    return key.strip("_")


class _CandidateIndex:
    """Matches model-written names to candidates, from strict to loose."""

    def __init__(self, candidates: list[str]) -> None:
        self.candidates = list(dict.fromkeys(candidates))
        self.exact = {c: c for c in self.candidates}
        self.casefolded = self._unique_map(lambda c: c.strip().casefold())
        self.normalized = self._unique_map(normalize_name)
        self.base = self._unique_map(lambda c: normalize_name(c.lstrip(INVERSE_PREFIX)))
        self.last_segment = self._unique_map(lambda c: normalize_name(c.lstrip(INVERSE_PREFIX)).rsplit(".", 1)[-1])

    def _unique_map(self, key_fn: Any) -> dict[str, str]:
        mapping: dict[str, str] = {}
        ambiguous: set[str] = set()
        for candidate in self.candidates:
            key = key_fn(candidate)
            if key in mapping and mapping[key] != candidate:
                ambiguous.add(key)
            mapping.setdefault(key, candidate)
        return {key: value for key, value in mapping.items() if key not in ambiguous}

    def match(self, name: str) -> str | None:
        if not name:
            return None
        if name in self.exact:
            return name
        folded = name.strip().casefold()
        if folded in self.casefolded:
            return self.casefolded[folded]
        key = normalize_name(name)
        if not key:
            return None
        inverse_words = re.match(r"^(?:inverse|reverse)(?:_of)?_(.+)$|^(.+?)_\((?:inverse|reverse)\)$|^(.+?)_(?:inverse|reverse)$", key)
        if key in self.normalized:
            return self.normalized[key]
        if inverse_words:
            base = next(group for group in inverse_words.groups() if group)
            inverse_key = normalize_name(INVERSE_PREFIX + base)
            if inverse_key in self.normalized:
                return self.normalized[inverse_key]
            key = normalize_name(base)
        base_key = key.lstrip(INVERSE_PREFIX)
        if base_key in self.base:
            return self.base[base_key]
        if "." not in base_key and base_key in self.last_segment:
            return self.last_segment[base_key]
        return None


_SCORE_VALUE = rf"(?P<score>{_NUMBER})\s*(?P<percent>%)?(?:\s*/\s*(?P<denominator>{_NUMBER}))?"
_BRACED_SCORE = re.compile(
    rf"\{{\s*(?P<name>[^{{}}]{{1,300}}?)\s*\(\s*(?:score|confidence|probability|prob)?\s*[:=]?\s*{_SCORE_VALUE}\s*\)\s*\}}",
    re.IGNORECASE,
)
_PAREN_SCORE = re.compile(
    rf"(?P<name>[^(){{}}\n:,;]{{1,300}}?)\s*\(\s*(?:score|confidence|probability|prob)\s*[:=]?\s*{_SCORE_VALUE}\s*\)",
    re.IGNORECASE,
)
_SEPARATED_SCORE = re.compile(
    rf"^(?P<name>.{{1,300}}?)\s*(?:[:=]|\s[-–—]\s|\s+score\s*[:=]?|\s+with\s+(?:a\s+)?score(?:\s+of)?)\s*"
    rf"(?:score\s*[:=]?\s*)?{_SCORE_VALUE}(?=$|[\s,;).\]])",
    re.IGNORECASE,
)


def _score_from(match: re.Match[str]) -> float | None:
    try:
        value = float(match.group("score"))
        if match.group("percent"):
            value /= 100.0
        denominator = match.group("denominator")
        if denominator:
            bottom = float(denominator)
            value = value / bottom if bottom else value
    except (TypeError, ValueError):
        return None
    return max(0.0, value)


def _clean_scored_name(raw: str) -> str:
    name = _strip_markdown(raw).strip()
    name = _strip_bullet(name)
    name = re.sub(r"^(?:relation|entity|candidate|name)\s*[:=]\s*", "", name, flags=re.IGNORECASE)
    return name.strip().strip(_QUOTE_CHARS + "{}[]").strip()


def _raw_scored_pairs(text: str) -> list[tuple[str, float | None]]:
    """``(name, score-or-None)`` in reading order, before matching to candidates."""
    braced = [(m.group("name"), _score_from(m)) for m in _BRACED_SCORE.finditer(text)]
    if braced:
        return braced
    obj = parse_json_object(text)
    if obj is not None:
        pairs = _json_scored_pairs(obj)
        if pairs:
            return pairs
    pairs: list[tuple[str, float | None]] = []
    for raw_line in text.splitlines():
        line = _strip_markdown(_strip_bullet(raw_line)).strip()
        if not line:
            continue
        in_parens = [(m.group("name"), _score_from(m)) for m in _PAREN_SCORE.finditer(line)]
        if in_parens:
            pairs.extend(in_parens)
            continue
        chunks = _split_commas(line) if len(re.findall(rf"[:=]\s*{_NUMBER}", line)) > 1 else [line]
        matched_any = False
        for chunk in chunks:
            separated = _SEPARATED_SCORE.match(chunk.strip())
            if separated:
                pairs.append((separated.group("name"), _score_from(separated)))
                matched_any = True
        if not matched_any:
            braced_name = re.match(r"^\{([^{}]+)\}", line)
            head = braced_name.group(1) if braced_name else re.split(r":|\s[-–—]\s|\(", line, maxsplit=1)[0]
            pairs.append((head, None))
    return pairs


def _json_scored_pairs(obj: dict[str, Any]) -> list[tuple[str, float | None]]:
    pairs: list[tuple[str, float | None]] = []
    if obj and all(isinstance(value, int | float) and not isinstance(value, bool) for value in obj.values()):
        return [(str(name), max(0.0, float(score))) for name, score in obj.items()]
    for value in obj.values():
        if isinstance(value, list) and value and all(isinstance(entry, dict) for entry in value):
            for entry in value:
                name = next((entry[k] for k in ("relation", "entity", "name", "candidate", "item") if k in entry), None)
                score = next((entry[k] for k in ("score", "confidence", "probability") if k in entry), None)
                if name is None:
                    continue
                try:
                    numeric = max(0.0, float(score)) if score is not None else None
                except (TypeError, ValueError):
                    numeric = None
                pairs.append((str(name), numeric))
            if pairs:
                return pairs
    return pairs


def parse_scored_items(text: str | None, candidates: list[str]) -> ScoredParse:
    """Scores a model gave to ``candidates`` (ToG relation/entity pruning), as a :class:`ScoredParse`.

    Understood formats (one item per line unless braced)::

        1. {film.film.directed_by (Score: 0.5)}: This relation is highly relevant ...
        {Tom Hanks (Score: 0.4)}, {Meg Ryan (Score: 0.6)}
        - starred_actors: 0.3         starred_actors - 0.3         starred_actors (score 30%)
        {"directed_by": 0.7, "written_by": 0.3}
        - directed_by                 (no score: equal share)

    Names are matched to candidates exactly, then case-insensitively, then by normalized form
    (spaces/underscores/hyphens alike, see :func:`normalize_name`), then ignoring the inverse
    prefix ``^`` (``starred_actors`` matches ``^starred_actors`` when only that exists; "inverse of
    X" matches ``^X``), then by the last dotted segment (``directed_by`` matches
    ``film.film.directed_by`` when unique). Scored names that match no candidate go to
    ``unknown``; unscored prose lines are ignored. A candidate listed twice keeps its first score.
    Items without a score share what the scored ones left (equally); scores are then rescaled to
    sum to 1 when they do not (``renormalized=True``).

    >>> result = parse_scored_items("1. {directed_by (Score: 0.6)}: ...\\n2. {Starred Actors (Score: 0.2)}",
    ...                             ["directed_by", "starred_actors", "release_year"])
    >>> result.items
    [('directed_by', 0.75), ('starred_actors', 0.25)]
    >>> result.renormalized
    True
    """
    if not text or not isinstance(text, str) or not candidates:
        return ScoredParse()
    index = _CandidateIndex([c for c in candidates if isinstance(c, str)])
    text = _strip_code_fences(text)
    scored: dict[str, float | None] = {}
    unknown: list[str] = []
    for raw_name, score in _raw_scored_pairs(text):
        name = _clean_scored_name(raw_name)
        candidate = index.match(name)
        if candidate is None:
            if score is not None and name and name not in unknown:
                unknown.append(name)
            continue
        if candidate not in scored:
            scored[candidate] = score
    if not scored:
        return ScoredParse(unknown=unknown)

    missing = [name for name, score in scored.items() if score is None]
    given_total = sum(score for score in scored.values() if score is not None)
    if missing:
        given_count = len(scored) - len(missing)
        leftover = 1.0 - given_total
        if given_count == 0:
            share = 1.0 / len(scored)
        elif leftover > 1e-9:
            share = leftover / len(missing)
        else:  # the scored items already use the whole mass: treat the others as average ones
            share = given_total / given_count
        for name in missing:
            scored[name] = share
    values: dict[str, float] = {name: float(score or 0.0) for name, score in scored.items()}
    total = sum(values.values())
    renormalized = False
    if total <= 1e-12:
        values = {name: 1.0 / len(values) for name in values}
        renormalized = True
    elif abs(total - 1.0) > 1e-6:
        values = {name: score / total for name, score in values.items()}
        renormalized = True
    return ScoredParse(
        items=[(name, round(score, 10)) for name, score in values.items()], unknown=unknown, renormalized=renormalized,
        scores_missing=bool(missing),
    )


# ---------------------------------------------------------------------------------------------
# ToG yes/no verification
# ---------------------------------------------------------------------------------------------

_YES_WORDS = {"yes", "true", "sufficient", "enough", "y"}
_NO_WORDS = {"no", "false", "insufficient", "not enough", "n"}


def _decision_word(word: str) -> bool | None:
    word = word.strip().strip(_QUOTE_CHARS + ".!,:;").strip().casefold()
    if word in _YES_WORDS:
        return True
    if word in _NO_WORDS:
        return False
    return None


def parse_yes_no(text: str | None) -> tuple[bool | None, str | None]:
    """ToG's verification reply as ``(decision, answer_in_braces)``; ``(None, None)`` when undecidable.

    The decision is taken from ``{Yes}``/``{No}`` when present, else from a leading "Yes"/"No"
    (also "Answer: yes", "**No**"), else from the only one of the words yes/no used in the text.
    The answer is the first braced text that is not Yes/No.

    >>> parse_yes_no("{Yes}. The answer is {Forrest Gump}.")
    (True, 'Forrest Gump')
    >>> parse_yes_no("No. The triplets do not mention the director.")
    (False, None)
    >>> parse_yes_no("It is hard to say yes or no.")
    (None, None)
    """
    if not text or not isinstance(text, str):
        return None, None
    text = _strip_markdown(_strip_code_fences(text)).strip()
    decision: bool | None = None
    answer: str | None = None
    for braced in re.findall(r"\{([^{}]*)\}", text):
        verdict = _decision_word(braced)
        if verdict is not None and decision is None:
            decision = verdict
        elif verdict is None and answer is None:
            cleaned = _clean_answer(braced)
            if cleaned:
                answer = cleaned
    if decision is None:
        leading = re.match(
            r"^\W{0,20}(?:(?:final\s+)?(?:answer|decision|verdict)\s*[:=-]\s*\W{0,20})?(yes|no|true|false)\b",
            text,
            re.IGNORECASE,
        )
        if leading:
            decision = _decision_word(leading.group(1))
    if decision is None:
        words = {word.casefold() for word in re.findall(r"\b(yes|no)\b", text, re.IGNORECASE)}
        if len(words) == 1:
            decision = words.pop() == "yes"
    return decision, answer


# ---------------------------------------------------------------------------------------------
# JSON objects
# ---------------------------------------------------------------------------------------------


def _loads_lenient(candidate: str) -> Any:
    try:
        return json.loads(candidate)
    except (ValueError, RecursionError):
        pass
    repaired = re.sub(r",\s*([}\]])", r"\1", candidate)  # trailing commas
    try:
        return json.loads(repaired)
    except (ValueError, RecursionError):
        pass
    try:  # python dict literal: single quotes, True/False/None
        return ast.literal_eval(repaired)
    except Exception:
        return None


def parse_json_object(text: str | None) -> dict[str, Any] | None:
    """The first JSON object (``dict``) in ``text``, or ``None``.

    Handles code fences, prose around the object, trailing commas and python-style dicts
    (single quotes, ``True``/``None``).

    >>> parse_json_object('Sure! ```json\\n{"answers": ["Tom Hanks"], "done": true}\\n```')
    {'answers': ['Tom Hanks'], 'done': True}
    >>> parse_json_object("no json here") is None
    True
    """
    if not text or not isinstance(text, str):
        return None
    text = _strip_code_fences(text)
    whole = text.strip()
    if whole.startswith("{"):
        value = _loads_lenient(whole)
        if isinstance(value, dict):
            return value
    decoder = json.JSONDecoder()
    for match in itertools.islice(re.finditer(r"\{", text), MAX_BRACKET_STARTS):
        start = match.start()
        try:
            value, _ = decoder.raw_decode(text, start)
        except (ValueError, RecursionError):
            value = None
        if isinstance(value, dict):
            return value
        # balanced-brace span for the lenient loader
        depth, in_string, quote, escaped = 0, False, "", False
        for end in range(start, len(text)):
            char = text[end]
            if in_string:
                if escaped:
                    escaped = False
                elif char == "\\":
                    escaped = True
                elif char == quote:
                    in_string = False
                continue
            if char in "\"'":
                in_string, quote = True, char
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    value = _loads_lenient(text[start: end + 1])
                    if isinstance(value, dict):
                        return value
                    break
    return None
