"""A masked question read into what the relation-path scorer aligns relations with.

:class:`QuestionParts` cuts a question whose entity mentions are masked (``[ENT]``) into tokens and 1-3-word phrases,
finds its content words, its round-trip cues ("same", "share", "also", ...), the alternatives of a question that
lists its answer's values ("a man or a woman") and the answer type its wh-word or type noun asks for;
:func:`read_idioms` reads a verb of no content that names a relation ("what does [X] do") as the noun it means.
Used by :class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer` and by the deciders that read the same
question parts (aggregates, constraints, grounding).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from functools import cached_property

from kg_agent.text import (
    ARTICLES,
    AUXILIARIES,
    DO_WORDS,
    FUNCTION_WORDS,
    RELATIVE_PRONOUNS,
    REQUEST_VERBS,
    WH_WORDS,
    content_words,
)
from kg_agent.tools.shared.answer_types import OTHER, AskedType
from kg_agent.tools.shared.relation_words import ROUND_TRIP_WORDS

ENTITY_TOKEN = "[ent]"
#: The words of a question that name no relation: English function words (wh-words, auxiliaries, articles, pronouns)
#: and the verbs a request opens with ("name", "list", "tell", "give"); not the function words that are round-trip
#: cues ("same", "other", "also"), which this reader reads itself (:class:`RoundTripCue`) and which stay words of the
#: question's phrases ("[X] 's other half" is evidence for a spouse).
NO_RELATION_WORDS = (FUNCTION_WORDS - ROUND_TRIP_WORDS) | REQUEST_VERBS
#: The word by which a question asks, in so many words, for the things that share a value with the one it names,
#: not for the value: "the **same** dynasty as [X]" (:class:`RoundTripCue`; "other" is the other). "Else" is not one:
#: "what else did [X] invent" asks for more of [X]'s inventions, not for other inventors (WebQSP).
SAME = "same"
#: How many tokens from a round-trip word (or apart, for a relation evidenced twice) the relation may be matched.
ROUND_TRIP_REACH = 4
_TOKEN = re.compile(r"\[ent\]|[a-z0-9]+")
_CASED_TOKEN = re.compile(r"\[[^\]]*\]|[A-Za-z0-9]+")

#: How a question that lists its answer's possible values opens ("is [X] a man or a woman"), and the articles an
#: alternative may start with
CHOICE_OPENINGS = AUXILIARIES
#: The cosines of an alternative with a relation's value from none to full

#: The relational noun English means by "what does [X] do": the question for someone's occupation.
DO_MEANS = "occupation"


def acronyms_in(masked_question: str) -> frozenset[str]:
    """The acronyms of a question not written all in capitals, lower-cased: its words of two or more letters written
    all in capitals ("the **SO** accession of [ENT]", "its **GO** id"), which may name the scheme of an identifier the
    KG writes ("SO:0000319"); the scorer reads one as such when the KG's values say so."""
    words = [w for w in _CASED_TOKEN.findall(masked_question) if not w.startswith("[")]
    if all(w.upper() == w for w in words):
        return frozenset()
    return frozenset(w.lower() for w in words if len(w) >= 2 and w.isalpha() and w.isupper())


#: Words that open a clause of time when a subject and its verb follow ("after [X] died"); before a noun phrase
#: they are prepositions, which DBpedia names relations by ("who is before [X]": ``dbp:before``).
TIME_CLAUSE_OPENERS = frozenset({"after", "before", "since", "until", "till", "once", "while"})
#: Subjects of such a clause: the entity or a personal pronoun.
CLAUSE_SUBJECTS = frozenset({ENTITY_TOKEN, "he", "she", "they", "we", "i", "you", "it"})
#: Words after the subject that make it a noun phrase, not a clause ("after [X] 's death", "before [X] and [Y]").
NO_VERB_AFTER = frozenset({"s", "of", "and", "or", "in", "on", "at", "to", "by", "for", "with", "from"})


def read_idioms(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """The question's tokens with an idiom that names a relation by a verb of no content read as the noun it means:
    "what does [X] do (for a living)" and "what did [X] do before ..." ask for [X]'s occupation, so that "do" reads
    as "occupation" (the main verb "do" after "what" + an auxiliary + the subject; not "what to do in [X]", which
    has no subject, nor the auxiliary itself). A word that opens a clause of time ("who was vice president **after**
    [X] died", :data:`TIME_CLAUSE_OPENERS`) reads as "when": it constrains the answer and names no hop (not Freebase's
    ``named_after``); before a noun phrase ("who is after [X] 's reign", "before the successor of [X]") it stays."""
    tokens = tuple("when" if token in TIME_CLAUSE_OPENERS and at + 2 < len(tokens) and tokens[at + 1] in CLAUSE_SUBJECTS
                   and tokens[at + 2] not in NO_VERB_AFTER else token
                   for at, token in enumerate(tokens))
    for start, token in enumerate(tokens[:-2]):
        if token != "what" or tokens[start + 1] not in DO_WORDS:
            continue
        for at in range(start + 3, len(tokens)):
            if tokens[at] == "do":
                return tokens[:at] + (DO_MEANS,) + tokens[at + 1:]
        return tokens
    return tokens


@dataclass(frozen=True)
class RoundTripCue:
    """Where a question asks, in so many words, for the things that share a value with the one it names: "the
    **same** dynasty as [X]" (``word`` "same", ``noun`` "dynasty": what the shared value is), "what **other** books"
    (the type noun: what the answers are, which a round trip answers only when it ends at things of a class the noun
    names, as [X] is; "what other names is [X] known by" asks for none)."""

    word: str
    noun: str = ""
    position: int = 0


@dataclass(frozen=True)
class QuestionParts:
    """A masked question cut into what the scorer aligns relations with."""

    tokens: tuple[str, ...]
    phrases: tuple[str, ...]  # 1-3-word spans of content words' neighbourhoods, no entity token
    phrase_positions: tuple[float, ...]  # each phrase's centre (token index)
    phrase_words: tuple[tuple[str, ...], ...]  # each phrase's content words
    content: tuple[int, ...]  # indices into phrases of the single content words (the "explained" term)
    entity_positions: tuple[int, ...]
    cue_positions: tuple[int, ...]  # where the question says "same", "share", "also", ...
    asked: AskedType = AskedType()  # what the question's wh-word or type noun asks for
    phrase_spans: tuple[tuple[int, int], ...] = ()  # each phrase's first and last token
    #: every occurrence of a content word, in order: ``(token index, index into phrases of the word)``; a word the
    #: question says twice ("[X] 's wife 's wife") is two occurrences, each to be explained by a hop of its own
    content_tokens: tuple[tuple[int, int], ...] = ()
    #: per phrase: whether it stands where English puts a relational noun, before "of" or after a possessive
    #: "'s" ("the sex of [X]", "[X] 's husband 's sex")
    relational: tuple[bool, ...] = ()
    #: the question's acronyms (:func:`acronyms_in`) read as words naming a relation, lower-cased: content words,
    #: whatever English word they spell ("SO" is no "so")
    acronyms: frozenset[str] = frozenset()

    @cached_property
    def phrase_masks(self) -> tuple[int, ...]:
        """Each phrase's tokens as the bits of an int."""
        return tuple(((1 << (last + 1)) - 1) ^ ((1 << first) - 1) for first, last in self.phrase_spans)

    @cached_property
    def phrase_overlaps(self) -> tuple[tuple[int, ...], ...]:
        """Per phrase: the phrases sharing a token with it (itself among them)."""
        masks = self.phrase_masks
        return tuple(tuple(k for k, other in enumerate(masks) if other & mask) for mask in masks)

    @cached_property
    def asks_relation(self) -> tuple[bool, ...]:
        """Per token: whether it stands where a relation is asked for (:meth:`relational_token`,
        :meth:`agent_participle`)."""
        return tuple(self.relational_token(at) or self.agent_participle(at) for at in range(len(self.tokens)))

    def restates(self, span: tuple[int, int], at: int) -> bool:
        """Whether the token at ``at`` may restate what the phrase at ``span`` says: within
        ``ROUND_TRIP_REACH - 1`` tokens of it, and no entity, "of", "by" or possessive "'s" between them ("the
        director that directed [X]", not "the child of kid of [X]" or "the films directed by the director of
        [X]", whose words are two hops). A function word at the phrase's edge away from the token does not stand
        between them: "who wrote the screenplay of [X]" says ``screenwriter`` once, by "wrote" and "screenplay of"."""
        first, last = span
        while first < last and self.tokens[first] in NO_RELATION_WORDS:
            first += 1
        while last > first and self.tokens[last] in NO_RELATION_WORDS:
            last -= 1
        span = (first, last)
        distance = at - span[1] if at > span[1] else span[0] - at
        joined = self.tokens[min(span[0], at):max(span[1], at) + 1]  # the phrase, the token and what lies between
        return 0 < distance <= ROUND_TRIP_REACH - 1 and not any(t in ("of", "by", "s", ENTITY_TOKEN) for t in joined)

    @cached_property
    def clause_heads(self) -> dict[int, tuple[int, int]]:
        """``{head token: the clause's first and last token}`` of each relative clause whose head noun completes a
        relational noun: "the symbol of **the unit that [X] is a scaling of**" (head "unit", clause "[X] is a
        scaling of"; not the type noun, which names the answer). The clause names the hop that reaches the head's
        thing and the noun restates what that thing is (a class, as "the director that directed [X]" restates
        ``directed_by``): one hop, not a hop of its own. The clause runs to the question's end."""
        tokens = self.tokens
        found = {}
        for at in range(1, len(tokens) - 2):
            token = tokens[at]
            if tokens[at + 1] not in RELATIVE_PRONOUNS or token in NO_RELATION_WORDS or token == ENTITY_TOKEN:
                continue
            before = at - 1 if tokens[at - 1] not in ARTICLES else at - 2
            if before < 0 or tokens[before] != "of" or (self.asked.noun and self.asked.position == at):
                continue
            found[at] = (at + 2, len(tokens) - 1)
        return found

    @cached_property
    def object_clause(self) -> tuple[int, int] | None:
        """The first and last token of a relative clause that holds the entity and heads the object of the verb the
        wh-word is the subject of: "who asked **the question that [X] answers**" (verb "asked", head "question",
        clause "[X] answers"); "which films starred the actor that [X] married". The clause names the hops that reach
        the head's thing (the question); the wh-word asks for what the main verb joins to that thing (who asked it),
        one hop on, so a path whose last hop the clause names stops at the head and answers another thing than the
        one asked. None when there is no such clause: the verb before the head is a form of "to be" or another
        function word ("what was the film that [X] directed" asks for the head itself), something other than the
        wh-word (and its type noun) comes before the verb, the head is the type noun, or the clause holds no
        entity."""
        tokens = self.tokens
        if not tokens or tokens[0] not in WH_WORDS:
            return None
        for at in range(2, len(tokens) - 2):
            if tokens[at + 1] not in RELATIVE_PRONOUNS or tokens[at] in NO_RELATION_WORDS or tokens[at] == ENTITY_TOKEN:
                continue
            verb = at - 1 if tokens[at - 1] not in ARTICLES else at - 2
            if verb < 1 or tokens[verb] in NO_RELATION_WORDS or tokens[verb] in (ENTITY_TOKEN, "s"):
                continue
            if self.asked.noun and self.asked.position in (at, verb):
                continue
            noun = self.asked.position if self.asked.noun else -1
            if any(t not in NO_RELATION_WORDS and i != noun for i, t in enumerate(tokens[1:verb], 1)):
                continue
            if ENTITY_TOKEN in tokens[at + 2:]:
                return at + 2, len(tokens) - 1
            return None
        return None

    def restated_by_clause(self, span: tuple[int, int], at: int) -> bool:
        """Whether the token at ``at`` heads a relative clause (:attr:`clause_heads`) that holds ``span``: the clause's
        hop explains the noun that heads it."""
        clause = self.clause_heads.get(at)
        return clause is not None and clause[0] <= span[0] and span[1] <= clause[1]

    @cached_property
    def choices(self) -> tuple[tuple[int, int], ...]:
        """The alternatives of a question that lists its answer's possible values ("is [X] 's heir **a man** or **a
        woman**"): in a question that opens with an auxiliary, the words before and after "or" (an article and a
        word each); none elsewhere."""
        tokens = self.tokens
        if not tokens or tokens[0] not in CHOICE_OPENINGS or "or" not in tokens:
            return ()
        at = tokens.index("or")
        if at < 1 or at + 1 >= len(tokens) or tokens[at - 1] in ("s", ENTITY_TOKEN) or tokens[at + 1] == ENTITY_TOKEN:
            return ()
        left = at - 2 if at >= 2 and tokens[at - 2] in ARTICLES else at - 1
        right = at + 2 if tokens[at + 1] in ARTICLES and at + 2 < len(tokens) else at + 1
        return (left, at - 1), (at + 1, right)

    def relational_token(self, at: int) -> bool:
        """Whether the token stands where English puts a relational noun: in the words after a possessive "'s"
        ("[X] 's husband 's sex", "[X] 's husband present address"), or right before "of" ("the sex of [X]"; not
        "movie" in "movie co-writers of [X]", which says what kind of co-writers)."""
        return self._noun_run_end(at, -1) == "s" or (at + 1 < len(self.tokens) and self.tokens[at + 1] == "of")

    def agent_participle(self, at: int) -> bool:
        """Whether the token is a participle with its agent after it ("the films **written** by [X]"): a word ending
        like a past participle ("-ed", "-en") right before "by". Its relation is asked for as a relational noun's
        is: a path that leaves it unexplained walks another relation ("films" also names ``film director``)."""
        token = self.tokens[at]
        return (at + 1 < len(self.tokens) and self.tokens[at + 1] == "by" and token not in NO_RELATION_WORDS
                and token.endswith(("ed", "en")))

    def _noun_run_end(self, at: int, step: int) -> str:
        """The first token from ``at`` in direction ``step`` that is not a content word ("present address" in
        "[X] 's husband present address" runs back to "'s")."""
        at += step
        while 0 <= at < len(self.tokens) and self.tokens[at] not in (ENTITY_TOKEN, "s") and self.tokens[at] not in NO_RELATION_WORDS:
            at += step
        return self.tokens[at] if 0 <= at < len(self.tokens) else ""

    @cached_property
    def round_trip_cue(self) -> RoundTripCue | None:
        """How the question asks in so many words for the things that share a value with the one it names
        (:class:`RoundTripCue`): "same" before a content word, "other" before the type noun; "same" first (it names
        the shared value). None when it does not (a round trip it asks for by the same
        relation said twice, "the films written by the screenwriter of [X]", is read by the scorer's evidence)."""
        tokens = self.tokens
        found: list[RoundTripCue] = []
        for at, token in enumerate(tokens):
            after = tokens[at + 1] if at + 1 < len(tokens) else ""
            if token == SAME and after and after != ENTITY_TOKEN and after not in NO_RELATION_WORDS and len(after) >= 3:
                found.append(RoundTripCue(SAME, after, at + 1))
            elif token == OTHER and self.asked.noun and self.asked.position == at + 1:
                found.append(RoundTripCue(OTHER, self.asked.noun, at + 1))
        return min(found, key=lambda cue: cue.word != SAME) if found else None

    @property
    def content_words(self) -> tuple[str, ...]:
        return tuple(self.phrases[i] for i in self.content)

    @classmethod
    def of(cls, masked_question: str, acronyms: frozenset[str] = frozenset()) -> QuestionParts:
        """The question's parts; ``acronyms`` (lower-cased) are content words, not the function words they spell."""
        tokens = read_idioms(tuple(_TOKEN.findall(masked_question.lower())))
        function_words = NO_RELATION_WORDS - acronyms
        phrases: list[str] = []
        positions: list[float] = []
        phrase_words: list[tuple[str, ...]] = []
        content: list[int] = []
        spans: list[tuple[int, int]] = []
        seen: dict[str, int] = {}
        single_at: dict[int, int] = {}  # token -> the one-word phrase at it
        for size in (1, 2, 3):
            for start in range(len(tokens) - size + 1):
                span = tokens[start:start + size]
                if ENTITY_TOKEN in span or all(w in function_words for w in span):
                    continue
                if span[0] in function_words and size > 1:  # "the director" adds nothing to "director"
                    continue
                text = " ".join(span)
                if text in seen and size > 1:
                    continue
                # a word said twice is two phrases, one at each place: "[X] 's parents 's parents" is two hops
                if size == 1:
                    single_at[start] = len(phrases)
                    if text not in seen and (len(span[0]) >= 3 or span[0] in acronyms) and span[0] not in ROUND_TRIP_WORDS:
                        content.append(len(phrases))
                seen.setdefault(text, len(phrases))
                phrases.append(text)
                positions.append(start + (size - 1) / 2)
                spans.append((start, start + size - 1))
                phrase_words.append(tuple(w for w in span if w in acronyms or content_words((w,), function_words)))
        content_set = {phrases[i] for i in content}
        occurrences = tuple((at, single_at[at]) for at, t in enumerate(tokens) if t in content_set)
        parts = cls(tokens, tuple(phrases), tuple(positions), tuple(phrase_words), tuple(content),
                   tuple(i for i, t in enumerate(tokens) if t == ENTITY_TOKEN),
                   tuple(i for i, t in enumerate(tokens) if t in ROUND_TRIP_WORDS), AskedType.of(tokens, NO_RELATION_WORDS),
                   tuple(spans), occurrences,
                   (), acronyms)
        return replace(parts, relational=tuple(parts.relational_token(first) or parts.relational_token(last)
                                               for first, last in spans))


def kind_before_mention(masked_question: str) -> list[str]:
    """The words right before the first masked mention that are no function word: the noun phrase naming the kind
    of the thing mentioned ("When did the **invited talk** [ENT] start?"), or []."""
    tokens = QuestionParts.of(masked_question).tokens
    if ENTITY_TOKEN not in tokens:
        return []
    words: list[str] = []
    for token in reversed(tokens[:tokens.index(ENTITY_TOKEN)]):
        if token in NO_RELATION_WORDS or not token.isalpha():
            break
        words.insert(0, token)
    return words
