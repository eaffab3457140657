"""The offline deciders' scoring kit, one copy for RoG, ToG, ToG-I and ToG-2.

* :func:`mask_mentions`: the question with its entity mentions replaced by ``[ENT]``, so relation similarity
  ignores names ("[Tom Hanks]" and "[Meg Ryan]" read the same);
* :func:`lexical_overlap` / :func:`relation_overlap`: the lexical bonus, the share of a relation's content-word stems
  (:func:`kg_agent.text.stems`: ``directed``/``director`` -> ``dire``) the question has, added to MiniLM cosines,
  which on their own barely tell "starred actors" from "directed by" for "who directed X";
* :func:`top_normalised`: the best ``width`` scores rescaled to sum to 1; :func:`softmax_weights`: scores of any
  sign as positive weights for it;
* :data:`DEFAULT_IGNORED_RELATIONS` / :func:`is_ignored_relation` / :func:`filter_relations`: bookkeeping
  relations never explored;
* :class:`TextVectorsFromEmbeddings`: the deciders' text vectors, one cache per embeddings object for
  the whole process.
"""

from __future__ import annotations

import fnmatch
import functools
import re
from collections.abc import Iterable, Sequence

import numpy as np
from langchain_core.embeddings import Embeddings

from kg_agent.kg.errors import KGError
from kg_agent.kg.relation_paths import verbalize_relation
from kg_agent.kg.terms import initials_spans, is_acronym
from kg_agent.kg.types import Entity, base_relation
from kg_agent.text import ARTICLES, FUNCTION_WORDS, NAME_PARTICLES, content_stems, stems
from kg_agent.tools.shared.similarity import TextVectors, shared_text_vectors

#: Bookkeeping relations never offered to a pruner (``fnmatch`` patterns over the relation name without
#: ``^``). ToG drops ``type.object.type``, ``type.object.name``, ``common.*``, ``freebase.*`` and
#: ``sameAs``; ``kg.object_profile.*`` and RDF typing/labels are added here. ``has_imdb_votes`` is *not*
#: listed: MetaQA asks about it. Pass ``ignored_relations=`` to the graph factories to change the list.
DEFAULT_IGNORED_RELATIONS: tuple[str, ...] = (
    "type.object.*",
    "type.type.*",
    "common.*",
    "freebase.*",
    "kg.object_profile.*",
    "*sameAs*",
    "type",
    "rdf:type",
    "*22-rdf-syntax-ns#type",
    "rdfs:label",
    "*rdf-schema#label",
)


def is_ignored_relation(relation: str, ignored: Sequence[str] = DEFAULT_IGNORED_RELATIONS) -> bool:
    """Whether ``relation`` (``^`` ignored) matches one of the ``ignored`` patterns."""
    return _is_ignored_name(base_relation(relation), tuple(ignored))


@functools.lru_cache(maxsize=65_536)
def _is_ignored_name(name: str, ignored: tuple[str, ...]) -> bool:  # asked for every relation of every walk
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in ignored)


def filter_relations(relations: Iterable[str], ignored: Sequence[str] = DEFAULT_IGNORED_RELATIONS) -> tuple[list[str], list[str]]:
    """``(kept, dropped)``: relations whose name (without ``^``) matches an ignored pattern are dropped."""
    kept: list[str] = []
    dropped: list[str] = []
    for relation in relations:
        (dropped if is_ignored_relation(relation, ignored) else kept).append(relation)
    return kept, dropped


_BRACKETED = re.compile(r"\[[^\[\]]+\]")


def mask_mentions(question: str, entities: Sequence[Entity] = (), *, approximate: bool = True) -> str:
    """The question with its entity mentions replaced by ``[ENT]``: bracketed names, and the entities' labels --
    as the KG writes them, or else as the question shortens or inflects them (:func:`approximate_mention`).

    ``approximate=False`` masks a label only where the question writes it: for entities the question is not known to
    name (a node a walk reached), whose label's words ("American Film Institute") may be the question's relation
    words ("the American film director")."""
    text = _BRACKETED.sub("[ENT]", question)
    for entity in entities:
        label = entity.label.strip()
        if label and len(label) > 1:
            # (?<!\w)...(?!\w), not \b: a label may end in punctuation ("Robert Downey Jr.")
            masked = re.sub(r"(?i)(?<!\w)" + re.escape(label) + r"(?!\w)", "[ENT]", text)
            if approximate and masked == text and (span := approximate_mention(text, label)) is not None:
                masked = text[:span[0]] + "[ENT]" + text[span[1]:]
            text = masked
    return text


#: The most names of one entity :func:`mask_every_name` reads (a KG may give an entity a name in every language).
MAX_NAMES = 50


def mask_every_name(question: str, entities: Sequence[Entity], kg=None) -> str:
    """:func:`mask_mentions`, then every other name ``kg`` gives the entities where the question writes it: an
    airport labelled by its code "LGW" and named "London Gatwick" in a description the linker read leaves
    "London" in the text otherwise, and "London" is no word of the question's relations (its first letters name
    ``lon``). The other names are masked only where written (``approximate=False``), longest first."""
    masked = mask_mentions(question, entities)
    if kg is None or not entities:
        return masked
    try:
        names = {name for entity in entities if not entity.id.startswith('"') for name in kg.labels(entity.id)[:MAX_NAMES]}
    except KGError:
        return masked
    labels = {entity.label for entity in entities}
    others = sorted((name for name in names if name not in labels), key=len, reverse=True)
    return mask_mentions(masked, [Entity(name, name) for name in others], approximate=False) if others else masked


def mask_topic_mentions(question: str, topic_entities: Sequence[dict]) -> str:
    """:func:`mask_mentions` of a state's topic entities (``{"id", "label"}`` dicts; a label may be missing). An entity
    linked from a mention the question writes (its ``mention``) whose label it does not write is masked there, not
    where its label's words come closest: "imperial" for *Imperial System of Units* in "which units of volume are
    defined in both the imperial and ...", not "units"."""
    text = _BRACKETED.sub("[ENT]", question)  # a bracketed mention is masked whole
    rest = []
    for entity in topic_entities:
        label, mention = (entity.get("label") or "").strip(), str(entity.get("mention") or "").strip()
        usable = len(mention) > 1 and mention.casefold() != "ent"  # never a word of the mask itself
        written = re.compile(r"(?i)(?<!\w)" + re.escape(mention) + r"(?!\w)") if usable else None
        if written is not None and not re.search(r"(?i)(?<!\w)" + re.escape(label) + r"(?!\w)", text) \
                and written.search(text):
            text = written.sub("[ENT]", text)
        else:
            rest.append(Entity(entity["id"], label))
    return mask_mentions(text, rest)


#: Words a name may hold that never make a mention on their own: the function words that join a name's parts ("of" in
#: "Augustine of Hippo", "and", the articles) and its particles ("van", "jr"). Not every function word: the question's
#: words are matched against the label's, so a pronoun or a wh-word the label holds is a word of the name ("Her",
#: "The Who").
_NAME_FUNCTION_WORDS = ARTICLES | {"of", "and"} | NAME_PARTICLES
_QUESTION_WORD = re.compile(r"\[ENT\]|\w+")
_QUALIFIER = re.compile(r"\([^()]*\)")
#: Words of a label matched against the question (a run is at most this long: the work stays linear in the question).
MAX_NAME_WORDS = 12


def _name_word_match(word: str, name_word: str) -> bool:
    """Whether a question word writes a word of a name: the same word, its start ("ben" for Benjamin, 3 letters or
    more), or the word inflected (at least 4 letters and up to 3 more: "jamaican" for Jamaica)."""
    if word == name_word:
        return True
    if len(word) >= 3 and name_word.startswith(word):
        return True
    return len(name_word) >= 4 and word.startswith(name_word) and len(word) - len(name_word) <= 3


def approximate_mention(question: str, label: str) -> tuple[int, int] | None:
    """Where the question names an entity whose label it does not write verbatim: ``(start, end)`` of the longest
    run of consecutive question words that each write a different word of the label ("james k polk" for *James K.
    Polk*, "fukushima daiichi nuclear plant" for *Fukushima Daiichi Nuclear Power Plant*, "kennedy" for *John F.
    Kennedy*, "ben franklin" for *Benjamin Franklin*, "jamaican" for *Jamaica*), or ``None``.

    A run needs one word of four letters or more that is not a function word of names ("of", "jr"), and does not
    begin or end with one; a parenthesised qualifier of the label ("Henry King (director)") is not matched. Natural
    questions shorten names, punctuate them differently and inflect them; left unmasked, the name's words read as
    relation words ("nuclear plant" is evidence for ``nuclear_power_station.reactors``)."""
    if is_acronym(label.strip()):
        return _initials_mention(question, label.strip())
    # a parenthesised qualifier is no part of the name: nobody writes "Henry King (director)", and its words are the
    # question's relation words ("the director of ...")
    name = [w.casefold() for w in re.findall(r"\w+", _QUALIFIER.sub(" ", label))][:MAX_NAME_WORDS]
    if not name:
        return None
    words = [(m.start(), m.end(), m.group().casefold()) for m in _QUESTION_WORD.finditer(question)]
    best: tuple[int, int, int] | None = None  # (strong words, first index, last index + 1)
    for first in range(len(words)):
        used: set[int] = set()
        last = first
        while last < len(words):
            word = words[last][2]
            match = next((k for k, n in enumerate(name) if k not in used and _name_word_match(word, n)), None)
            if match is None:
                break
            used.add(match)
            last += 1
        while last > first and words[last - 1][2] in _NAME_FUNCTION_WORDS:
            last -= 1
        if last == first or words[first][2] in _NAME_FUNCTION_WORDS:
            continue
        run = [w for _, _, w in words[first:last]]
        strong = sum(w not in _NAME_FUNCTION_WORDS for w in run)
        if any(len(w) >= 4 and w not in _NAME_FUNCTION_WORDS for w in run) and (best is None or strong > best[0]):
            best = (strong, first, last)
    if best is None:
        return None
    return words[best[1]][0], words[best[2] - 1][1]


def _initials_mention(question: str, acronym: str) -> tuple[int, int] | None:
    """Where the question names an acronym-labelled entity by the words it stands for ("Library of Congress
    classification" for *LCC*, as entity linking found it: :func:`~kg_agent.kg.terms.initials_spans`), the longest
    such run; ``None`` when none spells it."""
    words = [(m.start(), m.end(), m.group().casefold()) for m in _QUESTION_WORD.finditer(question)]
    wanted = acronym.casefold()
    runs = [(begin, end) for begin, end, letters in initials_spans([w for _, _, w in words], FUNCTION_WORDS)
            if letters == wanted]
    if not runs:
        return None
    begin, end = max(runs, key=lambda run: run[1] - run[0])
    return words[begin][0], words[end - 1][1]


def lexical_overlap(relation_text: str, question_stems: set[str]) -> float:
    """Share of the (verbalised) relation path's content words whose stem occurs in the question."""
    words = content_stems(relation_text)
    return sum(w in question_stems for w in words) / len(words) if words else 0.0


def relation_overlap(question: str, relations: Sequence[str]) -> float:
    """:func:`lexical_overlap` of the words the relations' names carry with the question: ``directed_by`` and
    "who directed" -> 1.0."""
    return lexical_overlap(" ".join(verbalize_relation(base_relation(r)) for r in relations), stems(question)) \
        if relations else 0.0


def top_normalised(items: Iterable[tuple[str, float]], width: int) -> list[tuple[str, float]]:
    """The ``width`` best items (stable on ties), scores clipped at 0 and rescaled to sum to 1."""
    ranked = sorted(((name, max(0.0, float(score))) for name, score in items), key=lambda pair: -pair[1])[:width]
    total = sum(score for _, score in ranked)
    if not ranked:
        return []
    if total <= 1e-12:
        return [(name, round(1.0 / len(ranked), 6)) for name, _ in ranked]
    return [(name, round(score / total, 6)) for name, score in ranked]


def softmax_weights(scores: Sequence[float], temperature: float) -> list[float]:
    """``exp((score - best) / temperature)``: positive weights for :func:`top_normalised` that keep a scorer's
    margins (its scores may be negative: :class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`)."""
    if not scores:
        return []
    best = max(scores)
    return [float(np.exp((s - best) / temperature)) for s in scores]


class TextVectorsFromEmbeddings:
    """Mixin for the offline deciders: ``self.vectors`` is the process-wide cache of ``self._embeddings``
    (:func:`shared_text_vectors`), looked up on first use."""

    _embeddings: Embeddings | None = None
    _vectors: TextVectors | None = None

    @property
    def vectors(self) -> TextVectors:
        if self._vectors is None:
            self._vectors = shared_text_vectors(self._embeddings)
        return self._vectors
