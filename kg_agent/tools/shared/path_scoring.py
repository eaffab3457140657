"""One relation-path scorer for every offline decider: the path is aligned with the question hop by hop.

Embedding the whole verbalised path against the whole question lets a path with an unasked hop win on
the strength of the others ("where was the director of [X] born": ``starred_actors -> born_in`` 0.896 above
``directed_by -> born_in`` 0.891). :class:`RelationPathScorer` scores a path by how well *each* hop is
evidenced by some phrase of the question, and how much of the question the path explains:

* **hop evidence** — for each relation, the best match over the question's 1-3-word phrases (entity mentions
  masked): the share of the relation's word stems the phrase uses (``directed_by`` and "director" -> 1.0),
  or the MiniLM cosine of the relation's words with the phrase when higher;
* **coverage** — the weakest hop's evidence: a path is as good as its least asked-for relation, and a hop
  below ``evidence_floor`` costs ``unevidenced_penalty`` more;
* **explained** — the mean, over the question's content words, of the best hop's match for the word: a
  path that leaves "released" unexplained in "when were the films directed by [X] released" loses against
  one that walks on to ``release_year``;
* **structure** — "the director of [X]" reads ``X -> directed_by`` and "films directed by [X]" / "[X]
  directed" read ``X -> ^directed_by`` (a relation named ``..._by``/``..._in`` has the agent/place as its
  object); a question that says "same", "share", "also", "together", "other" or "co-" asks for a round trip
  ``r, ^r``; hops whose evidence lies farther from the entity come later;
* **answer type** — given the KG, what the last hop's objects are (times, places, persons, sampled per
  relation: :mod:`~kg_agent.tools.shared.answer_types`) against what the question's wh-word or type noun asks
  for: "where did the CEO of [X] study" is not answered by ``^ceo_of`` (persons) but by ``^ceo_of ->
  educated_at`` (places), and a last hop of the asked type counts as evidenced by the cue when no phrase
  names it; "what kind of film is [X]" is answered by the relation that names its objects "genre"; the type
  noun names the answer, so it evidences the last hop only, and not by the words of a name that say what the
  relation's *subject* is ("original language **of film or TV show**") nor by a word that only modifies the name
  of a relation to persons ("**film** director"): "what films did [X] direct" stops at the films;
* **idioms** (:func:`~kg_agent.tools.shared.question_parts.read_idioms`): a verb of no content that English uses to
  ask for a relation reads as the noun it means: "what does [X] do (for a living)" asks for [X]'s occupation; a
  word opening a clause of time ("after [X] died") names no hop;
* the whole verbalised path's cosine with the question (``path_weight``), and ``hop_penalty`` per extra hop,
  break ties towards short paths.

Used by RoG's :class:`~kg_agent.tools.rog.plan.SimilarityPlanner`, ToG/ToG-I's
:class:`~kg_agent.tools.tog.prune_relations.SimilarityRelationPruner` and
:class:`~kg_agent.tools.tog.verify.ScoreVerifier`, and ToG-2's
:class:`~kg_agent.tools.tog2.prune_relations.SimilarityCombinedRelationPruner`. Relation and phrase vectors come
from the shared vector cache (``self.vectors``), so every text is embedded once per process.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from langchain_core.embeddings import Embeddings

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.nameless import statement_classes
from kg_agent.kg.naming import HIERARCHY_NAMES
from kg_agent.kg.relation_paths import own_name_words, verbalize_relation_path
from kg_agent.kg.terms import UNNAMED
from kg_agent.kg.types import base_relation, inverse, is_inverse
from kg_agent.text import AUXILIARIES, EVENTLESS_VERBS, content_words, same_word, stems, word_match
from kg_agent.text import words as text_words
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.answer_types import (
    OTHER,
    PERSON,
    PLACE,
    TIME,
    TIME_NOUNS,
    ObjectKinds,
    RelationObjectKinds,
    TypeMatch,
    answer_type_match,
    persons_named_by_modifier,
    relation_object_kinds,
    subject_qualifier,
)
from kg_agent.tools.shared.compound_heads import heads_of_named_modifiers
from kg_agent.tools.shared.kind_values import paths_to_kind
from kg_agent.tools.shared.peer_relations import peer_direction, peer_relations, says_a_direction
from kg_agent.tools.shared.question_parts import (
    ENTITY_TOKEN,
    NO_RELATION_WORDS,
    ROUND_TRIP_REACH,
    SAME,
    QuestionParts,
    acronyms_in,
)
from kg_agent.tools.shared.relation_words import meaning_words, relation_words
from kg_agent.tools.shared.scoring import TextVectorsFromEmbeddings

#: A relation whose subjects outnumber its objects this many times over has values many things share (a gender, a
#: nationality, a genre, a year): a round trip through one is asked for only in words ("the same genre as [X]")
SHARED_VALUE_RATIO = 4.0
#: Trailing words of a relation name after which the relation's object is the agent, place or time
#: ("directed_by": the director; "born_in": the place).
OBJECT_PREPOSITIONS = frozenset({"by", "in", "at", "from", "of", "to", "on"})
CHOICE_COSINE_RANGE = (0.45, 0.6)
#: The share of a relation's sampled values that must start with "<ACRONYM>:" for a question's acronym to name it
#: (:meth:`RelationPathScorer._acronym_evidence`): most of them.
ACRONYM_PREFIXED_SHARE = 0.5


def _of_scheme(kinds: ObjectKinds, acronym: str) -> bool:
    """Whether most of a relation's sampled values (``ObjectKinds.values``; more than :data:`ACRONYM_PREFIXED_SHARE`)
    are identifiers of the scheme ``acronym`` names: "SO:0000319" for "so", "CHEBI:15377" for "chebi"."""
    prefix = acronym + ":"
    return bool(kinds.values) and sum(v.lower().startswith(prefix) for v in kinds.values) > ACRONYM_PREFIXED_SHARE * len(kinds.values)


def scheme_acronyms(masked_question: str, kinds: Mapping[str, ObjectKinds]) -> frozenset[str]:
    """The question's acronyms (:func:`~kg_agent.tools.shared.question_parts.acronyms_in`) that name the identifier
    scheme of some relation's values (:func:`_of_scheme`): what the KG says makes "SO" an acronym, not "so"."""
    return frozenset(a for a in acronyms_in(masked_question) if any(_of_scheme(k, a) for k in kinds.values()))


#: A last hop that a phrase evidences at least this much (the scorer's default ``evidence_floor``) is read from the
#: phrase, not from "who" (:meth:`RelationPathScorer._assign`).
WH_CUE_FLOOR = 0.5


#: A MiniLM cosine of a relation's words with a question phrase below ``COSINE_NONE`` is no evidence, above
#: ``COSINE_FULL`` full evidence: "films" is 0.45-0.55 from both "directed by" and "starred actors", "wrote" 0.73
#: from "written by", "genres" 0.76 from "has genre".
COSINE_NONE, COSINE_FULL = 0.45, 0.7


#: Word evidence at or above this counts as full: one of two relation words named ("released" for
#: ``release_year``: 0.875), a 3-letter root ("acted" for ``starred_actors``: 0.7) or a word's MiniLM
#: cosine at ``COSINE_FULL`` ("die" for ``place_of_death``).
LEXICAL_FULL = 0.7


#: The same for one relation word against a phrase, stricter: single words sit closer ("films" is 0.64 from
#: "actors", "die" 0.76 from "death", "born" 0.83 from "birth").
WORD_COSINE_RANGE = (0.68, 0.78)

#: Relative evidence (:meth:`RelationPathScorer.relative_relation_evidence`): a phrase's possessive cosine with a
#: relation must clear the best other relation's by ``RELATIVE_MARGIN`` for full evidence, and lie in
#: ``RELATIVE_COSINE_RANGE`` (none below, full above).
RELATIVE_MARGIN = 0.1
RELATIVE_COSINE_RANGE = (0.5, 0.7)
#: The KG's relation names are the competitors of relative evidence when it has at most this many; beyond, only the
#: relations of the paths being scored.
MAX_COMPETING_RELATIONS = 2000


def saturated(cosines: np.ndarray, none: float = COSINE_NONE, full: float = COSINE_FULL) -> np.ndarray:
    """Cosines mapped linearly to [0, 1] between ``none`` and ``full``."""
    return np.clip((cosines - none) / (full - none), 0.0, 1.0)


@dataclass(frozen=True)
class AskedPaths:
    """Of some relation paths, those ending in a relation the question asks for (:meth:`RelationPathScorer.asked_paths`),
    and, when none does, why (``reason``)."""

    asked: frozenset[tuple[str, ...]]
    reason: str | None = None
    #: False when the paths were kept without being judged (no word, type noun or kind of the question read them)
    judged: bool = True


@dataclass(frozen=True)
class HopMatch:
    """Where in the question one relation is evidenced, and how strongly."""

    evidence: float
    position: float
    #: matched by the answer type's cue (the wh-word or type noun), not by a phrase naming the relation
    by_cue: bool = False


class RelationPathScorer(TextVectorsFromEmbeddings):
    """Scores relation paths against a question by aligning each hop with a question phrase (module docstring).

    Keyword options (weights of the terms; the defaults were tuned by hand on 100 MetaQA dev questions per hop,
    the other data sets are measured in docs/benchmarks.md section 7):

    * ``coverage_weight`` — the weakest hop's evidence;
    * ``explained_weight`` — the share of the question's content words some hop explains;
    * ``path_weight`` — the whole verbalised path's cosine with the question;
    * ``evidence_floor`` / ``unevidenced_penalty`` — a hop evidenced less than the floor costs the penalty;
    * ``direction_weight`` — the first hop's direction agreeing (or not) with the question's wording, and against
      each hop that walks a noun-named relation backwards where a relational noun asks for it ("[X] 's son" is
      ``children``, not ``^children``);
    * ``peer_direction_weight`` — a first hop over a relation between two things of one class (a route between two
      airports) walked the way the preposition before the entity says ("from [X]": forwards, "to [X]": backwards;
      :mod:`~kg_agent.tools.shared.peer_relations`), and against it walked the other way: both ways reach things of
      the asked class, and the preposition is the question's only word on which, so it outweighs the cue a relation's
      own name gives (``direction_weight``);
    * ``round_trip_weight`` — a round trip ``r, ^r`` when the question asks for one (and against it when not);
    * ``order_weight`` — later hops matched farther from the entity mention;
    * ``hop_penalty`` — per hop beyond the first;
    * ``type_weight`` — how well the last hop's objects fit the answer type the question asks for
      (:func:`~kg_agent.tools.shared.answer_types.answer_type_match`), when :meth:`score` is given the KG; a last hop of the asked type also
      counts as evidenced by the cue;
    * ``mediator_penalty`` — a path whose last hop ends at unnamed nodes (most of its sampled objects: a Freebase
      marriage or government position, a Wikidata statement), when :meth:`score` is given the KG: such a node is a
      step inside one fact, so the path stops a hop short of its answer (WebQSP's ``people.person.spouse_s``); and
      one whose last hop ends at terms of the RDF, RDFS or OWL vocabularies (``rdf:type owl:Class``: how the
      ontology language models a thing, never what a question asks);
    * ``round_trip_penalty`` — a path that goes out to no neighbour and back (:func:`walks_out_and_back`: ``r, ^r``,
      or ``written_by, ^directed_by``) where the question asks for a round trip in so many
      words (:attr:`~kg_agent.tools.shared.question_parts.QuestionParts.round_trip_cue`: "the same dynasty as [X]";
      "what other books" when a scored round trip ends at books): it answers the shared value (the dynasty), not
      the things that share it;
    * ``description_weight`` — how much a relation's description in the KG (``rdfs:comment``, ``schema:description``:
      "actor in the subject production") evidences it, against its names' 1: below ``evidence_floor``, so prose,
      which also names the things around a relation ("director(s) of film, TV-series ..."), never evidences a hop
      on its own, and tells relations apart only where no name of theirs is evidenced;
    * ``asked_kind_penalty`` — a path whose last hop does not end at persons where the question's type noun names
      persons ("which authors", :attr:`~kg_agent.tools.shared.answer_types.AskedType.asks_persons`) and the KG reaches
      nodes it says are persons along the same walk (when :meth:`score` is given the KG): one hop on from the path's
      end (a candidate one hop longer, or a relation that follows its last one) or by another last hop after the
      same hops. The kind asked decides the last hop: "which authors have books on [X] bookshelf" is ``^bookshelf,
      creator``, not ``^bookshelf`` (the books) nor ``^bookshelf, bookshelf`` (the shelves); a path along another
      walk is not held back ("which members of [X] were [Y]": ``^memberOf``, whatever ``^role`` reaches). Not for
      "who", which a KG may answer with an organisation (a publisher);
    * ``clause_stop_penalty`` — a path whose last hop is taken by a word of a relative clause that heads the object of
      the wh-word's verb (:attr:`~kg_agent.tools.shared.question_parts.QuestionParts.object_clause`: "who asked the
      question that [X] answers"): the clause's hops reach the head noun's thing (the question), and the wh-word asks
      for what the main verb joins to it, one hop on (``answers_to, creator``, not ``answers_to``).
    """

    def __init__(
        self,
        *,
        embeddings: Embeddings | None = None,
        coverage_weight: float = 1.0,
        explained_weight: float = 1.0,
        path_weight: float = 0.3,
        evidence_floor: float = 0.5,
        unevidenced_penalty: float = 0.2,
        direction_weight: float = 0.1,
        round_trip_weight: float = 0.1,
        order_weight: float = 0.05,
        hop_penalty: float = 0.03,
        type_weight: float = 0.15,
        mediator_penalty: float = 1.0,
        round_trip_penalty: float = 1.0,
        unaligned_share: float = 0.5,
        relative_evidence: bool = True,
        description_weight: float = 0.4,
        asked_kind_penalty: float = 1.0,
        peer_direction_weight: float = 0.3,
        clause_stop_penalty: float = 1.0,
    ) -> None:
        self._embeddings = embeddings
        self.coverage_weight = coverage_weight
        self.explained_weight = explained_weight
        self.path_weight = path_weight
        self.evidence_floor = evidence_floor
        self.unevidenced_penalty = unevidenced_penalty
        self.direction_weight = direction_weight
        self.round_trip_weight = round_trip_weight
        self.order_weight = order_weight
        self.hop_penalty = hop_penalty
        self.type_weight = type_weight
        self.mediator_penalty = mediator_penalty
        self.round_trip_penalty = round_trip_penalty
        self.unaligned_share = unaligned_share
        self.relative_evidence = relative_evidence
        self.description_weight = description_weight
        self.asked_kind_penalty = asked_kind_penalty
        self.peer_direction_weight = peer_direction_weight
        self.clause_stop_penalty = clause_stop_penalty

    # ------------------------------------------------------------------------------------------ evidence
    def relation_evidence(self, parts: QuestionParts, relations: Sequence[str],
                          competitors: Sequence[str] = ()) -> np.ndarray:
        """``len(relations) x len(phrases)``: how well each phrase evidences each relation (stem share or cosine),
        0..1."""
        return np.minimum(1.0, self.unclipped_evidence(parts, relations, competitors))

    def unclipped_evidence(self, parts: QuestionParts, relations: Sequence[str],
                           competitors: Sequence[str] = (), aliases: Mapping[str, Sequence[str]] | None = None,
                           descriptions: Mapping[str, str] | None = None,
                           named_both_ways: frozenset[str] = frozenset(),
                           by_word_only: frozenset[str] = frozenset()) -> np.ndarray:
        """:meth:`relation_evidence` before it is capped at 1: above 1 it still tells a phrase that names all of
        a relation's words ("place of death") from one that names one of them ("place"). A relation with
        ``aliases`` (its property's other names in the KG: "actor" for cast member) is evidenced as well as its best
        name is; one with a description, by it at most ``description_weight``. The relations ``by_word_only`` (and
        the names of ``named_both_ways``) are evidenced by their names' stems only, never by a cosine: a relation
        whose values are prose (a definition, a comment) is asked for by its name, and embeddings put every word a
        definition may hold close to it (the "term" of "the parent term of [X]" to ``definition``)."""
        if not relations or not parts.phrases:
            return np.zeros((len(relations), len(parts.phrases)), dtype=np.float32)
        named = [(i, " ".join(meaning_words(relation_words(r))), content_words(meaning_words(own_name_words(r)), NO_RELATION_WORDS))
                 for i, r in enumerate(relations)]
        exact = {i for i, r in enumerate(relations) if base_relation(r) in by_word_only}
        for i, r in enumerate(relations):
            for alias in (aliases or {}).get(r if r in (aliases or {}) else base_relation(r), ()):
                words = text_words(alias)
                if base_relation(r) in named_both_ways or base_relation(r) in by_word_only:
                    exact.add(len(named))
                named.append((i, " ".join(words), content_words(words, NO_RELATION_WORDS)))
        described = len(named)
        if self.description_weight:
            for i, r in enumerate(relations):
                text = (descriptions or {}).get(base_relation(r))
                if text:
                    words = text_words(text)
                    if base_relation(r) in by_word_only:
                        exact.add(len(named))
                    named.append((i, " ".join(words), content_words(words, NO_RELATION_WORDS)))
        found = self._named_evidence(parts, [text for _, text, _ in named], [words for _, _, words in named],
                                     frozenset(exact))
        found = self._type_noun_as_subject(parts, named, found)
        found[described:] *= self.description_weight
        if len(named) > len(relations):
            best = np.zeros((len(relations), len(parts.phrases)), dtype=found.dtype)
            np.maximum.at(best, np.array([i for i, _, _ in named]), found)
            found = best
        if self.relative_evidence:
            relative = self.relative_relation_evidence(parts, relations, competitors)
            # a relation named for each direction is evidenced by those names, not by a paraphrase of its own name,
            # which cannot tell its directions apart ("someone's parent" is as close to either "sub class of")
            relative[[i for i, r in enumerate(relations)
                      if base_relation(r) in named_both_ways or base_relation(r) in by_word_only]] = 0.0
            found = np.maximum(found, relative)
        return found

    def _type_noun_as_subject(self, parts: QuestionParts, named: Sequence[tuple[int, str, Sequence[str]]],
                              found: np.ndarray) -> np.ndarray:
        """``found`` with the phrases that hold the question's type noun re-read against each name without the
        words that say what its *subject* is (:func:`~kg_agent.tools.shared.answer_types.subject_qualifier`).

        The type noun names the answer ("what **films** did [X] direct"); a name "original language of film or TV
        show" (or the alias "type of film") holds it as the kind of its subject, so a hop of it after the films is
        no hop the noun asks for: it walks one too far. Only a name whose qualifier holds the noun is re-read ("what
        killed [X]" still reads ``cause of death`` whole), and other words keep the whole name ("where was [X] born"
        names ``place_of_birth`` by "born")."""
        asked = parts.asked
        if not asked.noun or not len(found):
            return found
        columns = [j for j, (first, last) in enumerate(parts.phrase_spans) if first <= asked.position <= last]
        heads = {}
        for k, (_, text, _) in enumerate(named):
            words = text.split()
            qualifier = subject_qualifier(words)
            if any(same_word(asked.noun, word) for word in qualifier):  # "films" in "... of film or TV show"
                heads[k] = words[:len(words) - len(qualifier)]
        if not columns or not heads:
            return found
        rows = list(heads)
        again = self._named_evidence(parts, [" ".join(heads[k]) for k in rows], [content_words(heads[k], NO_RELATION_WORDS) for k in rows])
        found = found.copy()
        found[np.ix_(rows, columns)] = again[:, columns]
        return found

    def _named_evidence(self, parts: QuestionParts, texts: Sequence[str], words_of: Sequence[Sequence[str]],
                        exact: frozenset[int] = frozenset()) -> np.ndarray:
        """``len(texts) x len(phrases)``: how well each phrase evidences each name of a relation (its text's cosine, or
        its content words' stems and cosines; for the names numbered in ``exact``, their stems only: a hierarchy's
        "child class" must not be read from "parent", which embeddings put close to it)."""
        phrases = self.vectors.matrix(list(parts.phrases))
        cosines = self.vectors.similarity(self.vectors.matrix(list(texts)), phrases)
        vocabulary = sorted({w for words in words_of for w in words})
        row = {w: i for i, w in enumerate(vocabulary)}
        word_cosines = (saturated(self.vectors.similarity(self.vectors.matrix(vocabulary), phrases), *WORD_COSINE_RANGE)
                        if vocabulary else None)
        by_words = np.zeros_like(cosines)
        for i, words in enumerate(words_of):
            if not words:
                continue
            for j, phrase_words in enumerate(parts.phrase_words):
                if phrase_words:
                    matches = [max(0.0 if i in exact else word_cosines[row[w], j],
                                   *(word_match(w, q) for q in phrase_words)) for w in words]
                    by_words[i, j] = 0.75 * max(matches) + 0.25 * sum(matches) / len(matches)
        whole = saturated(cosines)
        whole[sorted(exact)] = 0.0
        return np.maximum(whole, by_words / LEXICAL_FULL)

    def relative_relation_evidence(self, parts: QuestionParts, relations: Sequence[str],
                                   competitors: Sequence[str] = ()) -> np.ndarray:
        """``len(relations) x len(phrases)``: how surely a phrase names each relation *among the KG's relations*.

        A paraphrase sits only moderately close to the relation it means ("sex" and ``gender``, "dad" and
        ``parents``, "job" and ``profession``: MiniLM 0.5-0.65), but closer than to any other relation the KG
        has. Both are read as a possessive noun -- "someone's dad" against "someone's parents" -- and a phrase
        evidences a relation by how far its cosine clears the best other relation's (``competitors``: the KG's
        relation names, plus ``relations``; relations of the same words are one), and how high it is. Only a phrase in the place of a
        relational noun counts -- "the sex of ...", "... 's sex" (:attr:`QuestionParts.relational`): a noun elsewhere
        names a kind of thing ("which movies", "the movie [X]", "films directed by"), and sits as close to the
        relations of such things ("someone's movies" is 0.67 from "someone's starred actors")."""
        out = np.zeros((len(relations), len(parts.phrases)), dtype=np.float32)
        if not relations or not parts.phrases:
            return out
        text = {r: "someone's " + " ".join(content_words(meaning_words(own_name_words(r)), NO_RELATION_WORDS) or relation_words(r)) for r in
                dict.fromkeys([*relations, *competitors])}
        texts = list(dict.fromkeys(text.values()))
        row = {t: i for i, t in enumerate(texts)}
        usable = [j for j, words in enumerate(parts.phrase_words) if words and parts.relational[j]]
        if len(texts) < 2 or not usable:
            return out
        phrases = self.vectors.matrix(["someone's " + parts.phrases[j] for j in usable])
        cosines = self.vectors.similarity(self.vectors.matrix(texts), phrases)  # texts x usable phrases
        top2 = np.sort(cosines, axis=0)[-2:]  # second best, best
        for i, relation in enumerate(relations):
            own = cosines[row[text[relation]]]
            other = np.where(own >= top2[1], top2[0], top2[1])  # the best other text's cosine
            out[i, usable] = (np.clip((own - other) / RELATIVE_MARGIN, 0.0, 1.0)
                              * saturated(own, *RELATIVE_COSINE_RANGE))
        return out

    def score(self, masked_question: str, paths: Sequence[Sequence[str]], *, kg: KnowledgeGraph | None = None) -> list[float]:
        """One score per relation path (higher is better); ``masked_question`` has ``[ENT]`` for the mentions.

        With ``kg``, the paths walk that graph and the answer-type term reads what their last relation's objects
        are (:mod:`~kg_agent.tools.shared.answer_types`, cached per KG and relation)."""
        if not paths:
            return []
        aligned = self._aligned_scores(masked_question, paths, kg)
        if not self.path_weight:
            return aligned
        cosines = self.vectors.cosines(self.vectors.query(masked_question), [verbalize_relation_path(p) for p in paths])
        return [score + self.path_weight * cosine for score, cosine in zip(aligned, cosines)]

    def top(self, masked_question: str, paths: Sequence[Sequence[str]], k: int, *,
            kg: KnowledgeGraph | None = None, batch: int = 8) -> list[tuple[float, tuple[str, ...]]]:
        """The ``k`` best paths with their :meth:`score`, best first, ties by path: the first ``k`` of
        ``sorted(zip(score(...), paths), key=(-score, path))``, the same scores.

        Only the whole verbalised path's cosine needs an embedding per path, and a cosine is at most 1: the paths
        with the best other terms are embedded first, ``batch`` of them, then twice as many each round (at most
        64), until the next path's other terms plus ``path_weight`` fall below the ``k``-th best complete score --
        that path and every later one cannot enter the top ``k``. On the 18 WebQSP subgraphs (up to 2,000
        candidate paths) that embeds 2-37 paths, and about 250 and 540 on two questions whose paths' other terms
        are close together.
        """
        candidates = [tuple(p) for p in paths]
        if not candidates or k <= 0:
            return []
        aligned = dict(zip(candidates, self._aligned_scores(masked_question, candidates, kg)))
        if not self.path_weight:
            return sorted(((aligned[p], p) for p in candidates), key=lambda pair: (-pair[0], pair[1]))[:k]
        order = sorted(candidates, key=lambda path: -aligned[path])
        [complete] = self._complete_best_first(
            self.vectors.query(masked_question), [order], aligned, batch,
            lambda done: sorted(s for s, _ in done)[-k] if len(done) >= k else float("-inf"))
        return sorted(complete, key=lambda pair: (-pair[0], pair[1]))[:k]

    def best(self, masked_question: str, paths: Sequence[Sequence[str]], *, kg: KnowledgeGraph | None = None,
             batch: int = 1) -> tuple[int, float] | None:
        """The index and :meth:`score` of the best path, the first of equal ones (``max`` over ``score(...)``), with
        :meth:`top`'s bound; ``None`` without paths. ToG's offline verifier compares the best explored path with
        the best extension of it, out of hundreds on Freebase-shaped graphs."""
        candidates = [tuple(p) for p in paths]
        if not candidates:
            return None
        aligned = dict(zip(candidates, self._aligned_scores(masked_question, candidates, kg)))
        if self.path_weight:
            order = sorted(dict.fromkeys(candidates), key=lambda path: -aligned[path])
            [complete] = self._complete_best_first(self.vectors.query(masked_question), [order], aligned, batch,
                                                   _best_score)
            scores = dict((path, score) for score, path in complete)
        else:
            scores = aligned
        index = max((i for i, path in enumerate(candidates) if path in scores), key=lambda i: (scores[candidates[i]], -i))
        return index, scores[candidates[index]]

    def best_of(self, masked_question: str, groups: Sequence[Sequence[Sequence[str]]], *,
                kg: KnowledgeGraph | None = None, batch: int = 1, ranked: int | None = None) -> list[float]:
        """Each group's best :meth:`score` (``max(score(masked_question, group))``; groups may share paths), with
        :meth:`top`'s bound: a group's paths are embedded best other terms first, ``batch`` and then twice as many
        at a time (at most 64), until the next one's other terms plus ``path_weight`` cannot beat the group's best;
        the groups' paths of a round are embedded together. ToG's offline pruner scores every relation by its best
        look-ahead completion, hundreds per relation on Freebase-shaped graphs, and needs only each one's maximum.

        With ``ranked=k`` only the ``k`` best groups are needed (ToG keeps the ``width`` best relations): a group
        stops once no path of it can reach the ``k``-th best group's score so far, and scores its best completed
        path (``-inf`` if none), below each of the ``k`` best's exact score: ``sorted`` by score, the first ``k``
        groups and their scores are those of ``ranked=None``."""
        unique = list(dict.fromkeys(tuple(p) for group in groups for p in group))
        aligned = dict(zip(unique, self._aligned_scores(masked_question, unique, kg))) if unique else {}
        if not self.path_weight:
            return [max(aligned[tuple(p)] for p in group) for group in groups]
        orders = [sorted(dict.fromkeys(tuple(p) for p in group), key=lambda path: -aligned[path]) for group in groups]
        completed = self._complete_best_first(self.vectors.query(masked_question), orders, aligned, batch, _best_score,
                                              ranked=ranked)
        return [_best_score(done) for done in completed]

    def _complete_best_first(self, query, orders: Sequence[Sequence[tuple[str, ...]]],
                             aligned: Mapping[tuple[str, ...], float], batch: int,
                             threshold: Callable[[list[tuple[float, tuple[str, ...]]]], float], *,
                             ranked: int | None = None) -> list[list[tuple[float, tuple[str, ...]]]]:
        """Per order (paths, best other terms first): ``(score, path)`` of its paths as far as one can still matter:
        ``batch`` of them, then twice as many each round (at most 64), while the next path's other terms plus
        ``path_weight`` (a cosine is at most 1) reach ``threshold`` of the order's scores completed so far -- and,
        with ``ranked=k``, the ``k``-th best of the orders' best completed scores. Each round embeds the paths every
        open order needs at once, and a path shared by orders once."""
        reach = abs(self.path_weight) * (1.0 + 1e-6)  # |cosine| <= 1, with room for float32 unit vectors
        complete: list[list[tuple[float, tuple[str, ...]]]] = [[] for _ in orders]
        start = [0] * len(orders)
        size = [max(1, batch)] * len(orders)
        cosine: dict[tuple[str, ...], float] = {}
        while True:
            bests = sorted(map(_best_score, complete), reverse=True)
            kth = bests[ranked - 1] if ranked and len(bests) >= ranked else float("-inf")
            chunks = {g: order[start[g]:start[g] + size[g]] for g, order in enumerate(orders)
                      if start[g] < len(order) and aligned[order[start[g]]] + reach >= max(threshold(complete[g]), kth)}
            if not chunks:
                return complete
            todo = list(dict.fromkeys(path for chunk in chunks.values() for path in chunk if path not in cosine))
            if todo:
                cosine.update(zip(todo, self.vectors.cosines(query, [verbalize_relation_path(p) for p in todo])))
            for g, chunk in chunks.items():
                complete[g] += [(aligned[path] + self.path_weight * cosine[path], path) for path in chunk]
                start[g], size[g] = start[g] + size[g], min(2 * size[g], max(batch, 64))

    def _aligned_scores(self, masked_question: str, paths: Sequence[Sequence[str]], kg: KnowledgeGraph | None) -> list[float]:
        """Every term of :meth:`score` but the whole verbalised path's cosine, one per path."""
        competitors = self._competitors(kg)
        names, aliases, both_ways = self._named_relations(
            kg, sorted({base_relation(r) for path in paths for r in path} | set(competitors)),
            {r for path in paths for r in path})
        row = {name: i for i, name in enumerate(names)}
        descriptions = (self._relation_facts(kg.relation_description, names)
                        if kg is not None and self.description_weight else {})
        kinds = relation_object_kinds(kg) if kg is not None and (self.type_weight or self.mediator_penalty) else None
        # every last hop profiled at once (two requests to an endpoint)
        # (and every earlier hop, for the mediators a hop walks through)
        last_kinds = kinds.kinds_of(dict.fromkeys(r for path in paths for r in path)) if kinds is not None else {}
        parts = QuestionParts.of(masked_question, scheme_acronyms(
            masked_question, {path[-1]: last_kinds[path[-1]] for path in paths if path and path[-1] in last_kinds}))
        aliases = role_named(aliases, kinds, last_kinds, masked_question)
        unclipped = self.unclipped_evidence(parts, names, competitors, aliases, descriptions, both_ways,
                                            prose_relations(last_kinds))
        evidence = np.minimum(1.0, unclipped)
        # how strongly each phrase names some relation of the KG: a content word that does is a hop to walk
        slots = evidence.max(axis=0) if len(names) else np.zeros(len(parts.phrases), dtype=np.float32)
        # relation words no relation of the KG clearly names ("heir", "darling"): each still asks for a hop
        unnamed = self._unnamed_relation_words(parts, slots)
        # hops to persons whose names hold a type noun that asks for no person only as a modifier ("film director")
        noun_columns = ([j for j, (first, last) in enumerate(parts.phrase_spans) if first <= parts.asked.position <= last]
                        if parts.asked.noun else [])
        modifying = {r for r in last_kinds if parts.asked.noun and noun_columns and persons_named_by_modifier(
            parts.asked, r, kinds, [" ".join(relation_words(r)), *aliases.get(base_relation(r), ())])}
        # the KG's classes of the hops' objects that the type noun names ("films" and ``instance of`` *film*)
        named_classes = (class_names(kg, self.vectors).named(parts.asked.phrase, {c for k in last_kinds.values() for c in k.classes})
                         if kg is not None and parts.asked.noun else frozenset())
        reaching = self._reaching_named_class(kg, parts, paths, last_kinds, named_classes)
        ending_named, type_columns, type_tokens = self._ending_in_named_class(kg, parts, noun_columns,
                                                                 {r for path in paths for r in path}, last_kinds)
        # "is [X] 's heir a man or a woman": the words of the alternatives evidence a last hop whose values they name
        choice_columns, choice = self._choice_evidence(
            parts, {path[-1]: last_kinds[path[-1]] for path in paths if path and path[-1] in last_kinds})
        # "the SO accession of [X]": the acronym is the scheme of the identifiers a last hop has ("SO:0000319")
        acronym = self._acronym_evidence(
            parts, {path[-1]: last_kinds[path[-1]] for path in paths if path and path[-1] in last_kinds})
        # which relations of the round trips r, ^r (the only hops the rule changes) have values many things share
        shared = shared_value_relations(kg, {a for path in paths for a, b in zip(path, path[1:]) if b == inverse(a)}
                                        ) if kg is not None else frozenset()
        # "which authors have books on [X]": the type noun names persons; a path that stops short of the persons the
        # KG reaches along the same walk, or takes another last hop there, answers another kind (the books, the shelf)
        persons_asked = bool(parts.asked.noun) and parts.asked.asks_persons and kinds is not None and kg is not None
        persons_after = {tuple(path[:-1]) for path in paths if persons_asked and path and path[-1] in last_kinds
                         and last_kinds[path[-1]].person >= 0.5}  # walks whose next hop reaches persons
        persons_next: set[str] = set()  # last hops one hop on from whose objects the KG reaches persons
        if persons_asked and kg is not None and kinds is not None:
            ends = {path[-1] for path in paths if path and path[-1] in last_kinds and last_kinds[path[-1]].person < 0.5}
            following = {r: kg.relations_following(r) for r in ends}
            next_kinds = kinds.kinds_of(dict.fromkeys(f for fs in following.values() for f in fs))
            persons_next = {r for r, fs in following.items() if any(next_kinds[f].person >= 0.5 for f in fs)}
        clauses = _clause_columns(parts)
        trips = [round_trip_at(path) for path in paths]
        # first hops into statement nodes named by the class of what they start from (``^hasUnit`` from a *unit*)
        kind_named = (_named_by_start_class(kg, kinds, {p[0] for p in paths if p and p[0] in last_kinds
                                                        and last_kinds[p[0]].unnamed >= 0.5}, self.vectors)
                      if kg is not None and kinds is not None else frozenset())
        asked_trip, same_columns, same_named = self._asked_round_trip(parts, paths, trips, last_kinds, named_classes, kg)
        # first hops between two things of one class, whose direction "from [X]" / "to [X]" says
        peers = self._peer_first_hops(parts, paths, kinds, last_kinds)
        scores = []
        for path, trip in zip(paths, trips):
            rows = [row[r] if r in row else row[base_relation(r)] for r in path]
            typed = (answer_type_match(parts.asked, path, kinds, named_classes,
                                       _last_hop_if(path, reaching) | ending_named)
                     if kinds is not None else TypeMatch())
            through = frozenset(i for i, r in enumerate(path[:-1]) if r in last_kinds and last_kinds[r].unnamed >= 0.5)
            hop_evidence, hop_unclipped = evidence[rows], unclipped[rows]
            # a hop past a walk to the noun's class, that no other word of the question asks for ("which player
            # plays at [X]": ``^position, plays_for`` goes on to the club that "plays" names): the noun asks for none
            past_named = (any(r in ending_named for r in path[:-1])
                          and np.delete(hop_evidence[-1], type_columns).max(initial=0.0) < 0.5)
            if past_named:
                typed = TypeMatch(typed.fit, 0.0)
            if choice.get(path[-1], 0.0) > 0:  # the question lists the answer's possible values: the last hop's
                hop_evidence[-1, choice_columns] = np.maximum(hop_evidence[-1, choice_columns], choice[path[-1]])
                hop_unclipped[-1, choice_columns] = np.maximum(hop_unclipped[-1, choice_columns], choice[path[-1]])
            if path[-1] in acronym:  # the question's acronym prefixes the last hop's values
                hop_evidence[-1, acronym[path[-1]]] = 1.0
                hop_unclipped[-1, acronym[path[-1]]] = np.maximum(hop_unclipped[-1, acronym[path[-1]]], 1.0)
            # the type noun names the answer, where the path ends: no evidence of an earlier hop ("what films did
            # [X] write" is not ``^director`` by the alias "film director", then ``screenwriter``), nor of a hop to
            # persons that it only modifies
            # (the noun read with the word after it where the two name a class: "grape **variety**" is the noun's)
            earlier = list(range(len(path) - 1)) if noun_columns else []
            modified = [i for i, r in enumerate(path) if r in modifying]
            for rows, columns in ((earlier, type_columns), (modified, noun_columns)):
                if rows and columns:
                    hop_evidence[np.ix_(rows, columns)] = 0.0
                    hop_unclipped[np.ix_(rows, columns)] = 0.0
            # nor the whole noun of any hop of a path past a walk whose ends are already of a class it names ("which
            # lines serve [X]": ``servedBy`` reaches the lines; ``servedBy, line`` walks one hop past them on the noun)
            if past_named:
                hop_evidence[np.ix_(list(range(len(path))), type_columns)] = 0.0
                hop_unclipped[np.ix_(list(range(len(path))), type_columns)] = 0.0
            for head_columns, clause_columns in clauses:
                _restated_by_clause(hop_evidence, hop_unclipped, head_columns, clause_columns, self.evidence_floor)
            # "the same region as [X]": the noun names the value shared, so it evidences both hops of a round trip
            # through values of a class it names (``broader, ^broader`` through a *Region*)
            if trip is not None and same_columns and same_named.intersection(getattr(last_kinds.get(path[trip]), "classes", ())):
                hop_evidence[np.ix_([trip, trip + 1], same_columns)] = 1.0
                hop_unclipped[np.ix_([trip, trip + 1], same_columns)] = np.maximum(
                    hop_unclipped[np.ix_([trip, trip + 1], same_columns)], 1.0)
            total = (self._aligned(parts, path, hop_evidence, typed, slots, hop_unclipped, through, shared, unnamed,
                                   both_ways, type_tokens, bool(path) and path[0] in kind_named, peers)
                     - self.hop_penalty * (len(path) - 1))
            total += self.type_weight * typed.fit
            last = last_kinds.get(path[-1]) if path else None
            if last is not None and (last.unnamed >= 0.5 or last.vocabulary >= 0.5):
                total -= self.mediator_penalty  # a statement node, or how the ontology language models a thing
            if asked_trip and not walks_out_and_back(path):
                total -= self.round_trip_penalty
            if persons_asked and path and (last is None or last.person < 0.5) and (
                    tuple(path) in persons_after or tuple(path[:-1]) in persons_after or path[-1] in persons_next):
                total -= self.asked_kind_penalty
            scores.append(float(total))
        return scores

    @staticmethod
    def _peer_first_hops(parts: QuestionParts, paths: Sequence[Sequence[str]], kinds: RelationObjectKinds | None,
                         last_kinds: dict) -> frozenset[str]:
        """The paths' first hops that join two things of one class (:func:`~kg_agent.tools.shared.peer_relations.
        peer_relations`), read only when a preposition of a start or an end governs an entity mention."""
        if kinds is None or not paths or not says_a_direction(parts):
            return frozenset()
        first = {p[0] for p in paths if p and p[0] in last_kinds and last_kinds[p[0]].classes}
        if not first:
            return frozenset()
        measured = {**last_kinds, **kinds.kinds_of(dict.fromkeys(inverse(r) for r in first if inverse(r) not in last_kinds))}
        return peer_relations(first, measured)

    def _reaching_named_class(self, kg: KnowledgeGraph | None, parts: QuestionParts, paths: Sequence[Sequence[str]],
                              last_kinds: dict, named_classes: frozenset[str]) -> frozenset[tuple[str, ...]]:
        """The walks whose last hop's measured range holds a class the type noun names, though few of its objects are
        of it ("how many **invited talks** were given at [X]": ``^isSubEventOf`` reaches sessions, breaks and talks,
        some of the class *invited talk event*), when the noun names some class of the KG
        (:meth:`~kg_agent.kg.graph.KnowledgeGraph.classes`): the classes of a larger sample of the last hop's objects
        (:meth:`~kg_agent.tools.shared.answer_classes.ClassNames.range_classes`). The answers are then those of the
        class (:func:`~kg_agent.tools.shared.constraints.of_asked_type`).

        A walk's range is read when no hop's usual class is named (``named_classes``), or when every walk through a
        hop whose usual class is named walks first the whole of this walk and only past its end reaches that hop
        (:func:`_walked_before_named`): the things of the class are among this walk's ends, and the longer walk
        reaches them again past them ("featured performances at [X]": ``^isSubEventOf`` holds some, its usual class
        a *catering break*, and ``^isSubEventOf, listedIn, ^listedIn`` usually reaches them back through their
        programme). A walk beside another whose hop usually reaches the class is not read ("units of length":
        ``^hasQuantityKind`` holds some units, but ``^unitForQuantityKind`` is the units).

        When the noun names no class but a kind value of a type-like relation (``work_type -> .../QUEST_WRITTEN``
        for "questions", :mod:`~kg_agent.tools.shared.kind_values`), the walks whose ends can have that relation
        (:func:`~kg_agent.tools.shared.kind_values.paths_to_kind`): the KG names the kind so, as a class would."""
        if kg is None or not parts.asked.noun or not last_kinds or not paths:
            return frozenset()
        names = class_names(kg, self.vectors)
        if not names.named(parts.asked.phrase, kg.classes().ids):
            return paths_to_kind(parts.asked.noun, [tuple(p) for p in paths if p], kg)[0]
        walks = _walked_before_named([tuple(p) for p in paths if p], last_kinds, named_classes)
        if not walks:
            return frozenset()
        ranges = names.range_classes(list(dict.fromkeys(w[-1] for w in walks if w[-1] in last_kinds)))
        named = names.named(parts.asked.phrase, {c for found in ranges.values() for c in found})
        return frozenset(w for w in walks if named.intersection(ranges.get(w[-1], ())))

    def _ending_in_named_class(self, kg: KnowledgeGraph | None, parts: QuestionParts, noun_columns: Sequence[int],
                               relations: set[str], last_kinds: Mapping[str, ObjectKinds]
                               ) -> tuple[frozenset[str], list[int], frozenset[int]]:
        """Those of ``relations`` (hops before a path's last) whose objects are mostly of a class the type noun
        names (their usual classes, ``ObjectKinds.classes``), read with the word after it where the two make one
        phrase ("which **systems of units**", "which **quantity kind**"). A walk along one already ends at things of
        the kind asked, so a further hop is no hop the noun asks for. A range that merely holds some nodes of the
        class is no such end (papers' ``^relatedToEvent`` reaches a few proceedings too, mostly papers), nor is a
        class of statement nodes (:class:`~kg_agent.kg.nameless.StatementClasses`: "which **members** of [X]" and a
        *Membership* node, which is walked through to the member it joins). Also the columns of the question's
        phrases that are the noun's (with the word after it, where that names a class), and the tokens of the noun
        read so ("quantity kind": both words, which a last hop of the class explains)."""
        if kg is None or not noun_columns or not relations:
            return frozenset(), list(noun_columns), frozenset()
        usual = {r: frozenset(last_kinds[r].classes) for r in relations if r in last_kinds and last_kinds[r].classes}
        found = {c for classes in usual.values() for c in classes}
        if not found:
            return frozenset(), list(noun_columns), frozenset()
        names = class_names(kg, self.vectors)
        named: set[str] = set()
        columns = set(noun_columns)
        tokens: set[int] = set()
        for j in noun_columns:
            if parts.phrase_spans[j][0] == parts.asked.position and len(parts.phrase_words[j]) <= 2:
                classes = {c for c in names.named(parts.phrases[j], found) if not statement_classes(kg).holds(c)}
                if classes:  # the phrase's other words are the noun's too ("kind" of "quantity kind")
                    named |= classes
                    if not _names_in_full(parts.phrase_words[j], classes, names):
                        continue  # "player plays": "player" names the class, "plays" is no word of its name
                    first, last = parts.phrase_spans[j]
                    tokens |= {t for t in range(first, last + 1) if parts.tokens[t] not in NO_RELATION_WORDS}
                    # and the phrases of no other content word ("kind is": "is" names no relation)
                    columns |= {k for k, (a, b) in enumerate(parts.phrase_spans) if a <= last and first <= b
                                and all(first <= t <= last or parts.tokens[t] in NO_RELATION_WORDS for t in range(a, b + 1))}
        return (frozenset(r for r, classes in usual.items() if named.intersection(classes)), sorted(columns),
                frozenset(tokens))

    def _named_relations(self, kg: KnowledgeGraph | None, names: list[str], walked: set[str]
                         ) -> tuple[list[str], dict[str, tuple[str, ...]], frozenset[str]]:
        """``names`` with the directions of the hierarchy properties among the ``walked`` relations added (their
        names differ by direction: a walk backwards is scored as a relation of its own, :func:`_hierarchy_names`),
        every name's aliases in the KG (the hierarchy's English names for each direction among them), and the
        hierarchy properties so named."""
        aliases = dict(self._relation_facts(kg.relation_aliases, names)) if kg is not None else {}
        hierarchy = _hierarchy_names(kg, walked) if kg is not None else {}
        own_aliases = dict(aliases)
        for relation, more in hierarchy.items():
            aliases[relation] = (*own_aliases.get(base_relation(relation), ()), *more)
        names = names + sorted(r for r in hierarchy if r not in names)
        return names, aliases, frozenset(base_relation(r) for r in hierarchy)

    def named_hops(self, masked_question: str, relations: Sequence[str], *,
                   kg: KnowledgeGraph | None = None) -> frozenset[str]:
        """Those of ``relations`` that a phrase of the question evidences as a hop (at ``evidence_floor``, as
        :meth:`asked_paths` reads a last hop's words), or its type noun names (:meth:`AskedType.named_by`)."""
        relations = list(dict.fromkeys(relations))
        parts = QuestionParts.of(masked_question)
        content = [j for j, words in enumerate(parts.phrase_words) if words]
        if not relations or not content:
            return frozenset(r for r in relations if parts.asked.named_by(r))
        competitors = self._competitors(kg)
        names, aliases, both_ways = self._named_relations(
            kg, sorted({base_relation(r) for r in relations} | set(competitors)), set(relations))
        row = {name: i for i, name in enumerate(names)}
        evidence = self.unclipped_evidence(parts, names, competitors, aliases, named_both_ways=both_ways)[:, content]
        return frozenset(r for r in relations if parts.asked.named_by(r)
                         or evidence[row.get(r, row.get(base_relation(r), 0))].max() >= self.evidence_floor)

    def asked_paths(self, masked_question: str, paths: Sequence[Sequence[str]], *,
                    kg: KnowledgeGraph | None = None) -> AskedPaths:
        """Which of ``paths`` end in a relation the question asks for, and why none does.

        A path's last hop is asked for when a phrase of the question evidences it (or the hop before it, which may
        enter a statement node whose values the last hop reads: "the membership of [X]", ``hasMembership -> role``)
        as a hop (the scorer's evidence at ``evidence_floor``: its words' stems, a cosine between
        :data:`COSINE_NONE` and :data:`COSINE_FULL`, or a paraphrase closer to it than to any other relation of the
        KG) or its objects are of the kind the wh-word or
        type noun asks for (a time for "when", persons for "who", a place for "where", the class "films" names, the
        values the alternatives of "a man or a woman" name:
        :func:`~kg_agent.tools.shared.answer_types.answer_type_match`). Three ways a question asks for what the
        walks do not reach:

        * a word where English asks for a relation (a relational noun, the verb after "who") names by its stem a
          relation of the KG that no path walks, while no phrase names the paths' last hops in full and the type
          noun names neither them nor their objects' class ("who **illustrated** the first edition of [X]": the
          KG has ``ill``, but not at [X]; ``creator`` fits
          "who" only by its persons, "edition" is only near ``publisher``);
        * it asks for a relation by a relational noun ("the **ISBN** of [X]", "[X] 's **population**":
          :attr:`QuestionParts.relational`) and no path's last hop is asked for: the KG has no relation for it
          (``bookshelf`` is 0.45 from "ISBN", both about books: less than the scorer's floor of a hop);
        * no path is asked for, and its type noun, the head of its phrase ("which **award** did", not "which research
          track papers"), names a kind of thing that is no person (a place noun too: "which **country** does [X]
          represent", when no path reaches a place) while the KG's relations
          that the noun names or evidences at the floor are on none of the paths ("how many **pages** does [X]
          have", answered over a catalogue number: the KG has ``homepage``, not at [X]), or the KG has no such
          relation and none of its classes is named so ("**which award** did [X] win";
          :attr:`KGClasses.every <kg_agent.kg.profile.KGClasses.every>`: a KG without class facts, or with
          too many, is not judged so, as "which films" may name its untyped things).

        A path fitting a time question by its values' kind alone is not asked for when the question's verb names
        another event that no relation of the KG stands for ("on what date did [X] **sink**" over ``launched``:
        :meth:`_of_another_event`); with no other path left, the reason says so.

        Any other question without a relational noun whose paths are not asked for is not judged (every path is kept):
        a verb may name a relation in words no embedding puts near it."""
        paths = list(dict.fromkeys(tuple(p) for p in paths if p))
        kinds = relation_object_kinds(kg) if kg is not None else None
        last_kinds = kinds.kinds_of(dict.fromkeys(p[-1] for p in paths)) if kinds is not None else {}
        parts = QuestionParts.of(masked_question, scheme_acronyms(masked_question, last_kinds))
        content = [j for j, words in enumerate(parts.phrase_words) if words]
        if not paths or not content:
            return AskedPaths(frozenset(paths), judged=False)
        competitors = self._competitors(kg)
        names, aliases, both_ways = self._named_relations(
            kg, sorted({base_relation(r) for p in paths for r in p[-2:]} | set(competitors)),
            {r for p in paths for r in p[-2:]})
        row = {name: i for i, name in enumerate(names)}

        def row_of(relation: str) -> int:
            return row[relation] if relation in row else row[base_relation(relation)]

        if kinds is not None:  # the role labels of the hop into role nodes before the last, and of the last
            aliases = role_named(aliases, kinds, kinds.kinds_of(dict.fromkeys(r for p in paths for r in p[-2:])),
                                 masked_question)
        evidence = np.minimum(1.0, self.unclipped_evidence(parts, names, competitors, aliases, named_both_ways=both_ways,
                                                           by_word_only=prose_relations(last_kinds)))[:, content]
        walked = {row_of(p[-1]) for p in paths}
        # the last hop evidenced, or the one before it (into a statement node: ``hasMembership -> role``)
        by_words = {p for p in paths if max(evidence[row_of(r)].max() for r in p[-2:]) >= self.evidence_floor}
        by_noun: set[tuple[str, ...]] = set()  # the type noun names the relation or its objects' class
        by_kind: set[tuple[str, ...]] = set()  # the wh-word's kind fits its objects (a time, a place, persons)
        if kinds is not None:
            named_classes = (class_names(kg, self.vectors).named(parts.asked.phrase, {c for k in last_kinds.values() for c in k.classes})
                             if parts.asked.noun else frozenset())
            reaching = self._reaching_named_class(kg, parts, paths, last_kinds, named_classes)
            asked_kind = parts.asked.kind in (TIME, PLACE, PERSON)
            # "is [X] 's heir a man or a woman": the alternatives name the last hop's values
            _, choice = self._choice_evidence(parts, {r: last_kinds[r] for r in last_kinds})
            acronym = self._acronym_evidence(parts, {r: last_kinds[r] for r in last_kinds})
            for path in paths:
                typed = answer_type_match(parts.asked, path, kinds, named_classes, _last_hop_if(path, reaching))
                if typed.evidence >= 1.0 or choice.get(path[-1], 0.0) > 0.0 or path[-1] in acronym:
                    by_noun.add(path)
                elif typed.evidence > 0.0 or (asked_kind and typed.fit > 0.0):
                    by_kind.add(path)
        verb, other_event = self._of_another_event(parts, content, evidence, by_kind | by_noun)
        by_kind, by_noun = by_kind - other_event, by_noun - other_event
        named_in_full = any(max(evidence[row_of(r)].max() for r in p[-2:]) >= 1.0 for p in paths)
        if not named_in_full and not by_noun:
            # a word naming by its stem a relation no path walks (not the type noun, which names a kind of thing)
            on_paths = {base_relation(r) for p in paths for r in p}
            for j in parts.content:
                word, at = parts.phrases[j], parts.phrase_spans[j][0]
                # only a word where English asks for a relation: a relational noun ("the illustrator of [X]") or
                # the verb after "who" ("who illustrated [X]"), not a word naming a kind of thing ("which books")
                if not parts.relational[j] and not (at > 0 and parts.tokens[at - 1] in ("who", "whom")):
                    continue
                stem = [r for r in names if base_relation(r) not in on_paths
                        and any(word_match(w, word) == 1.0 for w in content_words(meaning_words(own_name_words(r)), NO_RELATION_WORDS))]
                if stem:
                    return AskedPaths(frozenset(), f"the knowledge graph has {stem[0]!r} for {word!r}, but no walk "
                                      f"from the question's entity reaches it")
        if by_words or by_noun or by_kind:
            return AskedPaths(frozenset(by_words | by_noun | by_kind))
        if other_event:
            return AskedPaths(frozenset(), f"the knowledge graph has no relation for {verb!r}: the times reached date "
                              f"another event ({', '.join(sorted({p[-1] for p in other_event})[:3])})")
        head_noun = parts.asked.position + 1 >= len(parts.tokens) or parts.tokens[parts.asked.position + 1] in NO_RELATION_WORDS
        # a kind of thing that is no person: a type noun without a wh-kind, or a place noun ("which country") none
        # of whose paths reaches a place (by_kind above)
        no_person = parts.asked.excludes_persons or (parts.asked.kind == PLACE and bool(parts.asked.noun))
        if kg is not None and competitors and no_person and head_noun:
            noun = parts.asked.noun
            columns = [k for k, j in enumerate(content) if parts.phrase_spans[j] == (parts.asked.position,) * 2]
            by_relation = [name for i, name in enumerate(names) if parts.asked.named_by(name)
                           or (columns and evidence[i, columns].max() >= self.evidence_floor)]
            if by_relation:
                return AskedPaths(frozenset(), f"the knowledge graph has {by_relation[0]!r} for {noun!r}, but no walk "
                                  f"from the question's entity ends in it")
            every = kg.classes().every
            if every is not None and not class_names(kg, self.vectors).named(noun, every):
                # a kind the KG names by a type-like relation's value (``work_type -> .../QUEST_WRITTEN``)
                of_kind, why = paths_to_kind(noun, paths, kg)
                if of_kind or why:
                    return AskedPaths(of_kind, why or None)
                return AskedPaths(frozenset(), f"the knowledge graph has no relation or class for {noun!r} (no "
                                  f"relation's name is near it, none of its {len(every)} classes is named so)")
        relational = [j for j in parts.content if parts.relational[j]]
        if not relational:
            return AskedPaths(frozenset(paths), judged=False)
        words = " ".join(parts.phrases[j] for j in relational)
        return AskedPaths(frozenset(), f"the knowledge graph has no relation for {words!r} (no word of the question "
                          f"names the relations the walks end in, {', '.join(names[i] for i in sorted(walked)[:3])}, nor "
                          f"are their values of the kind asked for)")

    def _of_another_event(self, parts: QuestionParts, content: Sequence[int], evidence: np.ndarray,
                          paths: Iterable[tuple[str, ...]]) -> tuple[str, set[tuple[str, ...]]]:
        """Of ``paths`` fitting a time question by their values' kind (or its time noun: "on what **date**"), those
        that end in a relation naming an event of its own that the question's verb is not: "on what date did [X]
        **sink**" is not answered over ``launched``, a date too. The verb is the content word right after an auxiliary
        and the entity ("did [X] sink"; not one that names no event of its own, :data:`~kg_agent.text.EVENTLESS_VERBS`: "did [X]
        become emperor"); it evidences no relation of the KG (the floor, as every hop is read), shares no word with
        the relation's name and is less than :data:`COSINE_NONE` from its words but the time ones ("released" is 0.47
        from "published" of "date published", "die" 0.5 from "deathdate", "sink" 0.16 from "launched"), whose words
        name more than a time ("launched", "opening date"; not "date", "year": a
        relation named only so dates whatever the question's verb says happened). ``(verb, those paths)``."""
        tokens = parts.tokens
        at = next((i + 1 for i in range(1, len(tokens) - 1) if tokens[i] == ENTITY_TOKEN
                   and tokens[i - 1] in AUXILIARIES and tokens[i + 1] not in NO_RELATION_WORDS), None)
        if parts.asked.kind != TIME or at is None or (parts.asked.noun and parts.asked.noun not in TIME_NOUNS):
            return "", set()
        verb = tokens[at]
        if verb in EVENTLESS_VERBS:
            return verb, set()
        columns = [k for k, j in enumerate(content) if parts.phrase_spans[j] == (at, at)]
        if not columns or evidence[:, columns].max() >= self.evidence_floor:
            return verb, set()
        found = set()
        for path in paths:
            words = content_words(meaning_words(own_name_words(path[-1])), NO_RELATION_WORDS)
            event = " ".join(w for w in words if w not in TIME_NOUNS)  # "published" of "date published"
            if event and not any(word_match(w, verb) > 0.0 for w in words) \
                    and self.vectors.cosines(self.vectors.query(verb), [event])[0] < COSINE_NONE:
                found.add(path)
        return verb, found

    def _asked_round_trip(self, parts: QuestionParts, paths: Sequence[Sequence[str]], trips: Sequence[int | None],
                          last_kinds: Mapping[str, ObjectKinds], named_classes: frozenset[str],
                          kg: KnowledgeGraph | None) -> tuple[bool, list[int], frozenset[str]]:
        """Whether the question asks in so many words for a round trip (:attr:`QuestionParts.round_trip_cue`) that
        some of ``paths`` walks (``trips``: where each walks one), so that a path walking none answers something
        else ("who else belonged to the same dynasty as [X]" is not answered by the dynasty), whichever paths are
        scored with it (ToG's verifier scores the chain it has apart from its extensions); with "same <noun>", the
        noun's phrase columns and the KG's classes it names among the values the round trips pass through.
        "other <noun>" asks for one only when a round trip ends at things of a class the noun names
        (``named_classes``): "what other books did the author of [X] write" (books, as [X] is), not "what other names
        is [X] known by"."""
        cue = parts.round_trip_cue
        if cue is None:
            return False, [], frozenset()
        if cue.word == OTHER:
            return any(trip is not None and named_classes.intersection(getattr(last_kinds.get(path[-1]), "classes", ()))
                       for path, trip in zip(paths, trips)), [], frozenset()
        if cue.word != SAME or kg is None:
            return True, [], frozenset()
        values = {c for path, trip in zip(paths, trips) if trip is not None
                  for c in getattr(last_kinds.get(path[trip]), "classes", ())}
        try:
            named = class_names(kg, self.vectors).named(cue.noun, values) if values else frozenset()
        except KGError:
            named = frozenset()
        columns = [j for j, span in enumerate(parts.phrase_spans) if span == (cue.position, cue.position)]
        return True, columns, named

    def _choice_evidence(self, parts: QuestionParts,
                         last_kinds: Mapping[str, ObjectKinds]) -> tuple[list[int], dict[str, float]]:
        """For a question that lists its answer's possible values (:meth:`QuestionParts.choices`): the phrases inside
        the alternatives, and ``{relation: how well its values match them}``, the weakest alternative's best MiniLM
        cosine with the labels of the relation's sampled objects (``ObjectKinds.values``, read by the answer-type
        profile), saturated over :data:`CHOICE_COSINE_RANGE` ("a man" 0.63 from *male*, "a woman" 0.67 from *female*:
        ``gender`` 1.0; a person's name 0.34: 0). "man" and "woman" name no relation, so "[X] 's heir" alone explained
        the question before."""
        spans = parts.choices
        if not spans or not last_kinds:
            return [], {}
        columns = [j for j, (first, end) in enumerate(parts.phrase_spans) if any(a <= first and end <= b for a, b in spans)]
        if not columns:
            return [], {}
        alternatives = self.vectors.matrix([" ".join(parts.tokens[a:b + 1]) for a, b in spans])
        found = {}
        for relation, kinds in last_kinds.items():
            labels = [label for label in kinds.values if label != UNNAMED]
            if labels:
                weakest = float(self.vectors.similarity(alternatives, self.vectors.matrix(labels)).max(axis=1).min())
                found[relation] = float(saturated(np.array([weakest]), *CHOICE_COSINE_RANGE)[0])
        return columns, found

    @staticmethod
    def _acronym_evidence(parts: QuestionParts, last_kinds: Mapping[str, ObjectKinds]) -> dict[str, list[int]]:
        """For a question with acronyms naming an identifier scheme (:attr:`QuestionParts.acronyms`: "the **SO**
        accession of [X]"): ``{relation: the acronym's phrases}`` for the relations whose values are identifiers of
        that scheme (:func:`scheme_acronyms`): the acronym names such a relation as fully as a word of its name would."""
        found: dict[str, list[int]] = {}
        for relation, kinds in last_kinds.items():
            columns = [j for j, phrase in enumerate(parts.phrases) if phrase in parts.acronyms and _of_scheme(kinds, phrase)]
            if columns:
                found[relation] = columns
        return found

    @staticmethod
    def _relation_facts(read: Callable[[str], Any], names: Sequence[str]) -> dict:
        """``{name: read(name)}`` for the names it says something of (``kg.relation_aliases``: the KG's other names of
        a relation; ``kg.relation_description``: its property's description)."""
        found = {}
        for name in names:
            try:
                value = read(name)
            except Exception:  # a backend without relation names: the names alone
                return {}
            if value:
                found[name] = value
        return found

    def _competitors(self, kg: KnowledgeGraph | None) -> list[str]:
        """The KG's relation names, the competitors of relative evidence (none when it has too many or no KG)."""
        if kg is None or not self.relative_evidence:
            return []
        try:
            names = kg.relation_names()
        except Exception:  # a backend without a relation list: the scored paths' relations compete
            return []
        return list(names) if len(names) <= MAX_COMPETING_RELATIONS else []

    def _aligned(self, parts: QuestionParts, path: Sequence[str], evidence: np.ndarray, typed: TypeMatch,
                 slots: np.ndarray | None = None, unclipped: np.ndarray | None = None,
                 through: frozenset[int] = frozenset(), shared: frozenset[str] = frozenset(),
                 unnamed: Mapping[int, float] | None = None, named_both_ways: frozenset[str] = frozenset(),
                 type_tokens: frozenset[int] = frozenset(), entity_kind_names_hop: bool = False,
                 peers: frozenset[str] = frozenset()) -> float:
        if not parts.phrases or not len(path):
            return 0.0
        round_trip = self._round_trip(parts, path, evidence)
        # a round trip through values many things share is one phrase only when the question asks for it
        # the type noun read with the word that makes the class's name with it ("quantity kind") is explained by a last
        # hop of the class, as the noun alone is: its words are no phrase a hop needs to take
        explained_by_type = (type_tokens | {parts.asked.position}) if type_tokens and typed.evidence > 0 else frozenset()
        hops, spans = self._assign(parts, path, evidence, typed, evidence if unclipped is None else unclipped, through,
                                   unpaired=frozenset() if round_trip > 0 else shared, typed_tokens=explained_by_type)
        unnamed = unnamed or {}
        explained, gap, unexplained = (self._explained(parts, evidence, typed, spans, slots, unnamed, explained_by_type,
                                                       heads_of_named_modifiers(parts, path, spans))
                                       if parts.content_tokens else (0.0, 0.0, 0))
        # a hop at a relation word the KG names no relation by clearly is asked for by the word's place: evidenced at
        # the floor when its relation is the word's best, in proportion below ("heir": ``children`` 0.11, ``spouse``
        # 0.06 -> 0.5, 0.27)
        levels = [max(h.evidence, self.evidence_floor * h.evidence / unnamed[span[0]])
                  if span and span[0] == span[1] and unnamed.get(span[0], 0.0) > 0 else h.evidence
                  for h, span in zip(hops, spans)]
        # the question's entity is one of a statement's values, the one the hop into the statement node is named for
        # (``entity_kind_names_hop``: ``^hasUnit`` from a *unit*): that hop is the fact the hop out of it names ("the
        # constants given in [kilogram]": ``^hasUnit``, into a value node, then ``^quantityValue``), and naming the
        # entity says its role in the statement
        if entity_kind_names_hop and 0 in through and len(levels) > 1:
            levels[0] = max(levels[0], levels[1])
        # as good as its least evidenced hop, and as the question's least explained relation word
        coverage = min(min(levels), 1.0 - gap)
        total = self.coverage_weight * coverage
        total -= self.unevidenced_penalty * (sum(level < self.evidence_floor for level in levels) + unexplained)
        total += self.explained_weight * explained
        # a relation named for each direction (a hierarchy's "superclass" / "subclass") is read the way its names say;
        # the wording around the entity tells its direction only where the question uses the relation's own name
        own_name = _uses_own_name(parts, path[0], spans[0])
        direction = (0.0 if base_relation(path[0]) in named_both_ways and not own_name
                     else self._direction(parts, path[0], hops[0], own_name))
        total += self.direction_weight * (direction - self._nouns_backwards(parts, path, spans))
        if path[0] in peers and not direction:  # a relation between two things of one class: "from [X]", "to [X]"
            total += self.peer_direction_weight * peer_direction(parts, path[0], hops[0].position)
        total += self.round_trip_weight * round_trip
        total += self.order_weight * self._order(parts, hops)
        clause = parts.object_clause
        if clause is not None and spans[-1] is not None and clause[0] <= spans[-1][0]:
            total -= self.clause_stop_penalty  # the last hop is the clause's: the path stops at its head noun's thing
        return total

    @staticmethod
    def _assign(parts: QuestionParts, path: Sequence[str], evidence: np.ndarray, typed: TypeMatch,
                unclipped: np.ndarray, through: frozenset[int] = frozenset(),
                unpaired: frozenset[str] = frozenset(), typed_tokens: frozenset[int] = frozenset()
                ) -> tuple[list[HopMatch], list[tuple[int, int] | None]]:
        """Each hop's phrase: hops take the best-evidenced phrase not already taken by another hop (the strongest
        hop first), so one phrase cannot evidence two hops -- "[X] 's husband 's sex" is not explained by
        ``spouse`` alone, nor "[X] 's wife 's wife" by one ``spouse`` -- except the two hops of a round trip
        ``r, ^r``, which one phrase asks for ("films that share actors with [X]") unless ``r`` is ``unpaired`` (a
        relation of values many things share, where the question asks for no round trip: "the sex of [X] 's parent
        's heir" is no ``gender, ^gender`` read from "sex"), and a hop into unnamed nodes
        (``through``: a Freebase marriage, a Wikidata statement) with the hop out of them, which are one fact
        ("who was [X] married to": ``spouse_s -> marriage.spouse``). The last hop takes the answer
        type's cue instead when the cue evidences it better than any phrase ("who": when no phrase evidences it at
        :data:`WH_CUE_FLOOR`), and so does a hop into unnamed
        or role nodes before it, which the cue asks for with it ("who gave [X]": ``hasRole -> heldBy``). Returns each hop's match
        and the token span it took (``None`` for the cue of a wh-word). Of phrases that evidence a hop equally, one
        clear of ``typed_tokens`` (the type noun's, which the last hop's type explains) comes first.

        The cue takes the last hop only when no phrase evidences it as well: "what year was [X] released" reads
        ``release_year`` from "released", and the type noun "year" is explained by the last hop's type."""
        size = len(path)
        matches: list[HopMatch | None] = [None] * size
        spans: list[tuple[int, int] | None] = [None] * size
        # small lists, not arrays: a path has 1-3 hops and a question 10-40 phrases, where each numpy call costs more
        # than the loop it replaces; tokens are bits of an int (``parts.phrase_masks``)
        rows, unclipped_rows = evidence.tolist(), unclipped.tolist()
        masks, overlaps = parts.phrase_masks, parts.phrase_overlaps
        taken = [-1] * len(parts.tokens)  # token -> the hop that took it
        typed_mask = sum(1 << t for t in typed_tokens)
        best = evidence.max(axis=1)
        best_at = evidence.argmax(axis=1)
        # "who" asks for persons, whatever relation reaches them: it stands for a last hop no phrase names as a hop,
        # and leaves a phrase that names one ("who is the earliest-born **author** ...": ``creator``) to explain it
        who = parts.asked.kind == PERSON and not parts.asked.noun
        if typed.evidence > best[-1] and not (who and best[-1] >= WH_CUE_FLOOR):
            # a type noun naming the answers themselves has no place in the order of hops (:meth:`_order`); a phrase
            # of time or place ("in which year", "where") modifies the event the verb names, whose hop comes first
            matches[-1] = HopMatch(typed.evidence, parts.asked.position, by_cue=parts.asked.kind not in (TIME, PLACE))
            if parts.asked.noun:
                spans[-1] = (parts.asked.position, parts.asked.position)
                taken[parts.asked.position] = size - 1
            if size - 2 in through and best[-2] < typed.evidence:  # the hop into the statement node: the same fact
                matches[-2], spans[-2] = matches[-1], spans[-1]

        partner: dict[int, int] = {}  # the two hops of a round trip or a mediator, paired from the entity outwards
        for i in range(1, size):
            if i - 1 not in partner and (i - 1 in through or (base_relation(path[i]) not in unpaired
                                                               and base_relation(path[i]) == base_relation(path[i - 1])
                                                               and is_inverse(path[i]) != is_inverse(path[i - 1]))):
                partner[i], partner[i - 1] = i - 1, i

        for i in sorted((i for i in range(size) if matches[i] is None), key=lambda i: -best[i]):
            shared = partner.get(i, -1)
            blocked = held = 0  # tokens taken by another hop (not its partner); by any hop
            for token, hop in enumerate(taken):
                if hop >= 0:
                    held |= 1 << token
                    if hop != i and hop != shared:
                        blocked |= 1 << token
            free = [j for j, mask in enumerate(masks) if not mask & blocked]
            if not free:  # every phrase taken: no evidence of its own
                matches[i] = HopMatch(0.0, parts.phrase_positions[int(best_at[i])])
                continue
            row = rows[i]
            strongest = max(row[j] for j in free)
            tied = [j for j in free if row[j] == strongest]
            chosen = tied[0]
            if len(tied) > 1:
                # the path's other hops still to place: the best evidence one of them has on a phrase sharing a token
                others = [rows[h] for h in range(size) if h != i and matches[h] is None and h != shared]
                anchor = (matches[i - 1].position if i > 0 and matches[i - 1] is not None
                          else min(parts.entity_positions, default=0.0,
                                   key=lambda e: abs(e - parts.phrase_positions[int(best_at[i])])))
                # Best evidence first; then a phrase of its own before the round-trip partner's ("the director of
                # [X] also directed": ``directed_by`` the director, ``^directed_by`` directed); then the phrase that
                # names more of the relation ("place of death", not "place"); then the one the path's other hops
                # need least ("what languages are the films written by [X]": ``original language of film or TV
                # show`` takes "languages", not "films"); then the shortest ("wife", not "sex of wife"; "child", not
                # "child of kid"); then the one nearest the previous hop's phrase (the entity, for the first hop):
                # "the films directed by the director of [X]" reads ``directed_by`` at "director", ``^directed_by``
                # at "directed".
                tied = _least(tied, [bool(masks[j] & (held | typed_mask)) for j in tied])
                tied = _least(tied, [-unclipped_rows[i][j] for j in tied])
                tied = _least(tied, [max(0.0, max((other[k] for other in others for k in overlaps[j]), default=0.0))
                                     for j in tied])
                tied = _least(tied, [len(parts.phrase_words[j]) for j in tied])
                tied = _least(tied, [abs(parts.phrase_positions[j] - anchor) for j in tied])
                chosen = tied[0]  # then the first phrase
            matches[i] = HopMatch(row[chosen], parts.phrase_positions[chosen])
            spans[i] = parts.phrase_spans[chosen]
            first, last = spans[i]
            for token in range(first, last + 1):
                if taken[token] < 0:
                    taken[token] = i
        return [m for m in matches if m is not None], spans

    def _unnamed_relation_words(self, parts: QuestionParts, slots: np.ndarray) -> dict[int, float]:
        """``{token: how strongly it names its best relation}`` for the relation words (:attr:`QuestionParts.asks_relation`)
        that name no relation of the KG as strongly as ``evidence_floor`` ("[X] 's mom 's **heir**", "the wife of [X] 's
        **darling**": MiniLM puts them about as close to ``children`` as to ``spouse``). Such a word still asks for a hop
        of its own; only the noun that ends a run of content words counts ("address", not "present", in "[X] 's son
        present address"), and not the type noun, which names the answer ("what **kind** of film is [X]")."""
        heads = {}
        for token, phrase in parts.content_tokens:
            if not parts.asks_relation[token] or slots[phrase] >= self.evidence_floor:
                continue
            if parts.asked.noun and token == parts.asked.position:
                continue
            after = parts.tokens[token + 1] if token + 1 < len(parts.tokens) else ""
            if after and after not in NO_RELATION_WORDS and after not in ("s", "of", ENTITY_TOKEN):
                continue  # a modifier of the noun after it
            heads[token] = float(slots[phrase])
        return heads

    def _explained(self, parts: QuestionParts, evidence: np.ndarray, typed: TypeMatch,
                   spans: Sequence[tuple[int, int] | None], slots: np.ndarray | None,
                   unnamed: Mapping[int, float] | None = None,
                   typed_tokens: frozenset[int] = frozenset(),
                   modified_heads: Mapping[int, int] | None = None) -> tuple[float, float, int]:
        """The mean, over the question's content-word occurrences, of how well the hop that took the word's place
        evidences it (a word no hop took counts ``unaligned_share`` of its best hop's evidence); and the largest
        shortfall of that against how strongly the word names some relation of the KG (``slots``, per phrase),
        over the words in the place of a relational noun (:meth:`QuestionParts.relational_token`) that name one at
        least ``evidence_floor`` (a noun elsewhere, "which films", "the movie [X]", names a kind of thing): "[X] 's
        husband 's sex" asks for a hop ``spouse`` leaves unexplained ("sex" names ``gender``); and how many of
        those words the path explains less than ``evidence_floor`` (each costs as much as a hop evidenced less). A
        relation word that names no relation so strongly (``unnamed``: "heir") and that no hop takes counts the same:
        a shortfall of ``evidence_floor`` against what is left of it, and one unexplained word; a path one hop short
        of it no longer beats the one that walks it at the floor."""
        values = []
        gap = 0.0
        unexplained = 0
        modified_heads = modified_heads or {}
        for token, phrase in parts.content_tokens:
            column = evidence[:, phrase]
            covered = [float(column[h]) for h, span in enumerate(spans) if span and span[0] <= token <= span[1]]
            if not covered:  # a relation restated close by ("the director that directed [X]") is one mention
                covered = [float(column[h]) for h, span in enumerate(spans)
                           if span and column[h] >= 1.0 and parts.restates(span, token)]
                # the noun heading a relative clause, by the clause's hop ("the unit that [X] is a scaling of")
                covered += [float(evidence[h, parts.phrase_spans.index(span)]) for h, span in enumerate(spans)
                            if span and parts.restated_by_clause(span, token)]
            if not covered and token in modified_heads and spans[modified_heads[token]] in parts.phrase_spans:
                # "the ICAO code": the hop at the modifier, a relation named by it alone, explains the head noun with it
                hop = modified_heads[token]
                covered = [float(evidence[hop, parts.phrase_spans.index(spans[hop])])]
            value = max(covered) if covered else self.unaligned_share * float(column.max())
            if parts.asked.noun and (token == parts.asked.position or token in typed_tokens):  # the type noun, explained
                # by a last hop of its type (with the word that names the class with it: "quantity **kind**")
                value = max(value, typed.evidence)
            values.append(value)
            if slots is not None and slots[phrase] >= self.evidence_floor and parts.asks_relation[token]:
                gap = max(gap, float(slots[phrase]) - value)
                unexplained += value < self.evidence_floor
            elif unnamed and token in unnamed and not covered:
                gap = max(gap, self.evidence_floor - value)
                unexplained += 1
        return sum(values) / len(values), gap, unexplained

    # ------------------------------------------------------------------------------------------ structure
    @staticmethod
    def _direction(parts: QuestionParts, relation: str, hop: HopMatch, own_name: bool = False) -> float:
        """+1 when the question's wording around the entity agrees with the first hop's direction, -1 when it
        disagrees, 0 when it does not show.

        For a relation named ``<words> <preposition>`` (``directed_by``, ``born_in``) the object is the agent or
        place: the entity is that object when the question says "<preposition> [ENT]" ("films directed by
        [X]", "who was born in [X]"), or, for ``..._by``, when the relation's word comes after the entity ("what
        did [X] direct"); it is the subject when the relation's word comes before the entity without the
        preposition ("the director of [X]", "who directed [X]") or, for other prepositions, after it ("where
        was [X] born"). A relation named ``<noun> of`` (``part_of``, ``subClassOf``) names its subject with the
        noun: the noun before the entity (``own_name``: the question uses it) asks for such subjects ("how many
        parts does [X] have", "which subtypes does [X] have"), so the entity is the object there too; other words
        before it keep the rule above ("the company that owns [X]" is ``subsidiary_of``).
        """
        words = relation_words(relation)
        if not parts.entity_positions or not words or words[-1] not in OBJECT_PREPOSITIONS or hop.evidence < 0.5:
            return 0.0
        preposition = words[-1]
        entity = min(parts.entity_positions, key=lambda e: abs(e - hop.position))
        before = parts.tokens[entity - 1] if entity > 0 else ""
        if before == preposition and hop.position < entity:
            entity_is_object = True
        elif hop.position > entity:
            entity_is_object = preposition == "by"
        else:  # the relation's word before the entity: "who directed [X]"; "how many parts does [X] have"
            entity_is_object = preposition == "of" and own_name and _names_its_subject(words)
        return 1.0 if entity_is_object == is_inverse(relation) else -1.0

    @staticmethod
    def _nouns_backwards(parts: QuestionParts, path: Sequence[str], spans: Sequence[tuple[int, int] | None]) -> int:
        """How many hops walk a relation named by a noun backwards (``^children``, ``^spouse``, not ``^directed_by``)
        where a relational noun asks for them ("[X] 's son", "the son of [X]"): English reads "the son of Y" as Y's
        son, ``children`` from Y; the one whose son Y is would be said with another noun ("the parent of Y")."""
        count = 0
        for relation, span in zip(path, spans):
            if span is None or not is_inverse(relation):
                continue
            if not (parts.relational_token(span[0]) and parts.relational_token(span[1])):
                continue
            words = relation_words(relation)
            if words and words[-1] not in OBJECT_PREPOSITIONS and not words[-1].endswith("ed"):  # not "born_in", "directed"
                count += 1
        return count

    @staticmethod
    def _round_trip(parts: QuestionParts, path: Sequence[str], evidence: np.ndarray) -> float:
        """For a path with a round trip ``r, ^r``: +1 when the question asks for it — a word such as "same" or
        "share" near where ``r`` is evidenced, or ``r`` evidenced in two places apart ("films written by the
        screenwriter of [X]"), not counting the type noun, which names the answer ("what year was [X]
        released" asks for ``release_year`` once) — 0 when the question asks for a round trip elsewhere, else -1."""
        verdict = None
        noun = parts.asked.position if parts.asked.noun else None
        for hop, (a, b) in enumerate(zip(path, path[1:])):
            if base_relation(a) != base_relation(b) or is_inverse(a) == is_inverse(b):
                continue
            # the single words that name the relation (a longer phrase around one would stretch it: "[X] 's husband
            # 's place of death" names ``place_of_death`` once, not from "husband 's place" to "death")
            places = sorted({round(parts.phrase_positions[j]) for j in np.flatnonzero(evidence[hop] >= 1.0)
                             if " " not in parts.phrases[j] and (noun is None or parts.phrase_positions[j] != noun)})
            near_cue = any(abs(p - c) <= ROUND_TRIP_REACH for p in places for c in parts.cue_positions)
            if near_cue or (len(places) >= 2 and places[-1] - places[0] >= ROUND_TRIP_REACH - 1):
                return 1.0
            verdict = 0.0 if parts.cue_positions else -1.0
        return verdict or 0.0

    @staticmethod
    def _order(parts: QuestionParts, hops: Sequence[HopMatch]) -> float:
        """-1 when a later hop is matched nearer the entity mention than an earlier one ("who directed the films
        written by [X]" reads ``^written_by`` first), +1 when the hops are matched in distinct places in order. A hop
        the answer type's cue stands for (``HopMatch.by_cue``: a type noun or "who", not a phrase of time or place) has
        no place of its own: English puts the noun that names the answers first whatever the path, so its place says
        nothing of the order of the hops; "in which year did [X] become [Y]" asks for the time of the event "become"
        names, a hop after it."""
        hops = [h for h in hops if not h.by_cue]
        if len(hops) < 2 or not parts.entity_positions:
            return 0.0
        distances = [min(abs(h.position - e) for e in parts.entity_positions) for h in hops]
        steps = [b - a for a, b in zip(distances, distances[1:])]
        if any(step < -0.5 for step in steps):
            return -1.0
        return 1.0 if all(step > 0.5 for step in steps) else 0.0


def _names_in_full(words: Sequence[str], classes: Iterable[str], names: Any) -> bool:
    """Whether each of a phrase's ``words`` is another word of a name of one of ``classes`` ("quantity kinds" of
    *quantity kind*; not "player plays" of *football player*, whose one word "player" both words share a root with)."""
    def matched(name_words: list[str]) -> bool:
        free = list(name_words)
        for w in words:
            hit = next((n for n in free if same_word(w, n)), None)
            if hit is None:
                return False
            free.remove(hit)
        return True
    return any(matched(text_words(name)) for c in classes for name in names.names(c))


def _named_by_start_class(kg: KnowledgeGraph, kinds: RelationObjectKinds, relations: Iterable[str],
                          vectors: Any) -> frozenset[str]:
    """Those of ``relations`` whose own name shares a word with a name of the usual class of the nodes they are walked
    from (the objects of their inverse, :class:`ObjectKinds`): ``^hasUnit`` walked from units (*unit*), ``onScale``
    backwards from a *scoring scale*; not ``hasRole`` from a conference, nor ``^isRoleAt``."""
    relations = list(dict.fromkeys(relations))
    if not relations:
        return frozenset()
    starts = kinds.kinds_of(dict.fromkeys(inverse(r) for r in relations))
    names = class_names(kg, vectors)
    found = set()
    for relation in relations:
        own = content_words(meaning_words(own_name_words(base_relation(relation))), NO_RELATION_WORDS)
        start = starts.get(inverse(relation))
        classes = start.classes if start is not None else ()
        if any(word_match(w, c) >= 1.0 for cls in classes for name in names.names(cls) for c in text_words(name) for w in own):
            found.add(relation)
    return frozenset(found)


def _walked_before_named(walks: Sequence[tuple[str, ...]], kinds: Mapping[str, ObjectKinds],
                         named_classes: frozenset[str]) -> list[tuple[str, ...]]:
    """Those of ``walks`` that every walk through a hop whose usual class (``kinds``) is one of ``named_classes``
    walks whole before that hop (each of them, when no hop's class is named)."""
    named = [(w, min(i for i, r in enumerate(w) if r in kinds and named_classes.intersection(kinds[r].classes)))
             for w in walks if any(r in kinds and named_classes.intersection(kinds[r].classes) for r in w)]
    if not named:
        return list(walks)
    first = min(at for _, at in named)  # the walks before it are the common beginnings of the named walks
    common = [k for k in range(1, first + 1) if all(w[:k] == named[0][0][:k] for w, _ in named)]
    before = {named[0][0][:k] for k in common}
    return [w for w in walks if w in before]


def _last_hop_if(path: Sequence[str], walks: frozenset[tuple[str, ...]]) -> frozenset[str]:
    """The last hop of ``path`` when it is one of ``walks``, for :func:`answer_type_match`'s ``reaching``."""
    return frozenset(path[-1:]) if tuple(path) in walks else frozenset()


def _clause_columns(parts: QuestionParts) -> list[tuple[list[int], list[int]]]:
    """Per relative clause (:attr:`QuestionParts.clause_heads`): the phrases that name its head noun alone ("unit",
    "unit that"), and the phrases inside the clause."""
    found = []
    for head, (first, last) in parts.clause_heads.items():
        heads = [j for j, (a, b) in enumerate(parts.phrase_spans) if a <= head <= b
                 and all(t in NO_RELATION_WORDS for at, t in enumerate(parts.tokens[a:b + 1], a) if at != head)]
        inside = [j for j, (a, b) in enumerate(parts.phrase_spans) if first <= a and b <= last]
        if heads and inside:
            found.append((heads, inside))
    return found


def _restated_by_clause(evidence: np.ndarray, unclipped: np.ndarray, head_columns: Sequence[int],
                        clause_columns: Sequence[int], floor: float) -> None:
    """In place, for one path's hops (rows): the noun heading a relative clause ("the symbol of the **unit** that [X]
    is a scaling of") evidences no hop but the one its clause evidences best, when the clause evidences one at
    ``floor`` (and is explained by it: :meth:`RelationPathScorer._explained`): it says what that hop reaches (a
    unit), so no hop of its own (``unitForQuantityKind`` after ``scalingOf``) is read from it. A clause that names no
    hop ("the country that [X] is in") leaves the noun to name it."""
    clause = evidence[:, clause_columns].max(axis=1)
    hop = int(clause.argmax())
    if clause[hop] < floor:
        return
    others = [i for i in range(len(evidence)) if i != hop]
    evidence[np.ix_(others, head_columns)] = 0.0
    unclipped[np.ix_(others, head_columns)] = 0.0


def prose_relations(kinds: Mapping[str, ObjectKinds]) -> frozenset[str]:
    """The relations among ``kinds`` (walked forward) whose sampled values are mostly prose
    (:attr:`~kg_agent.tools.shared.answer_types.ObjectKinds.prose`): evidenced by their names' words only."""
    return frozenset(r for r, k in kinds.items() if not is_inverse(r) and k.prose >= 0.5)


def _hierarchy_names(kg: KnowledgeGraph, relations: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """``{relation: names}`` for both directions of the hierarchy properties among ``relations``
    (:data:`~kg_agent.kg.naming.HIERARCHY_NAMES`: ``subClassOf`` "superclass", ``^subClassOf`` "subclass")."""
    found: dict[str, tuple[str, ...]] = {}
    for name in {base_relation(r) for r in relations}:
        try:
            names = HIERARCHY_NAMES.get(kg.relation_iri(name))
        except Exception:  # a backend without relation IRIs, or a name it does not know
            continue
        if names is not None:
            found[name], found[inverse(name)] = names
    return found


def _uses_own_name(parts: QuestionParts, relation: str, span: tuple[int, int] | None) -> bool:
    """Whether the question's words the hop took share a root with a word of the relation's own name."""
    if span is None:
        return False
    own = content_words(own_name_words(relation), NO_RELATION_WORDS)
    return any(word_match(w, t) >= 1.0 for w in own for t in parts.tokens[span[0]:span[1] + 1])


def _names_its_subject(words: Sequence[str]) -> bool:
    """Whether a relation named ``... <noun> of`` (``part_of``, ``sub class of``, ``member of``) names its subject by
    the noun: the word before "of" is no participle ("made of", "composed of") nor a verb in "-s" ("consists of")."""
    return len(words) >= 2 and words[-1] == "of" and not words[-2].endswith(("ed", "en", "ts", "es"))


def round_trip_at(path: Sequence[str]) -> int | None:
    """Where a relation path first walks a round trip ``r, ^r`` (the index of ``r``), None when it walks none."""
    for hop, (a, b) in enumerate(zip(path, path[1:])):
        if base_relation(a) == base_relation(b) and is_inverse(a) != is_inverse(b):
            return hop
    return None


def walks_out_and_back(path: Sequence[str]) -> bool:
    """Whether a relation path goes out to a neighbour and back in from it, to what shares it: two hops in turn of
    opposite directions (``memberOf, ^memberOf``; ``written_by, ^directed_by``, where a KG reaches a film's director
    by either)."""
    return any(is_inverse(a) != is_inverse(b) for a, b in zip(path, path[1:]))


def shared_value_relations(kg: KnowledgeGraph, relations: Iterable[str]) -> frozenset[str]:
    """Those of ``relations`` (names) whose subjects outnumber their objects :data:`SHARED_VALUE_RATIO` times over
    (:meth:`~kg_agent.kg.graph.KnowledgeGraph.subjects_per_object`; PathQuestion: ``gender``, ``nationality``,
    ``religion``; MetaQA: ``has_genre``, ``release_year``, ``in_language``; not ``directed_by``)."""
    names = list(dict.fromkeys(base_relation(r) for r in relations))
    if not names:
        return frozenset()
    try:
        shares = kg.subjects_per_object(names)
    except KGError:  # a backend that cannot tell: no relation is taken to be one
        return frozenset()
    return frozenset(name for name, share in shares.items() if share >= SHARED_VALUE_RATIO)


def _best_score(done: Sequence[tuple[float, tuple[str, ...]]]) -> float:
    """The best of completed ``(score, path)`` pairs (``-inf`` for none)."""
    return max((score for score, _ in done), default=float("-inf"))


def _least(items: list[int], keys: list) -> list[int]:
    """The items whose key is the least, in order (``items`` as they are when one is left)."""
    if len(items) < 2:
        return items
    least = min(keys)
    return [item for item, key in zip(items, keys) if key == least]


def role_named(aliases: Mapping[str, tuple[str, ...]], kinds: RelationObjectKinds | None,
               walked: Mapping[str, ObjectKinds], question: str) -> Mapping[str, tuple[str, ...]]:
    """``aliases`` with the role labels the question names (every stem of the label among the question's, as
    :mod:`~kg_agent.tools.shared.role_qualifiers` reads them: a label the question does not name is no evidence, so
    "research track papers" is not read near "Tutorial Track") of the ``walked`` relations (their
    :class:`ObjectKinds`) and of the hops out of role nodes among them (:func:`with_role_labels`); unchanged, at no
    cost, when no walked relation leads to role nodes."""
    asked = stems(question)
    if kinds is None or not any((words := stems(label)) and words <= asked
                                for k in walked.values() for label in k.role_labels):
        return aliases
    return with_role_labels(aliases, {**walked, **kinds.kinds_of(dict.fromkeys(inverse(r) for r in walked))}, asked)


def with_role_labels(aliases: Mapping[str, tuple[str, ...]], kinds: Mapping[str, ObjectKinds],
                     asked: set[str]) -> dict[str, tuple[str, ...]]:
    """``aliases`` with, for each relation leading to or from role nodes (:mod:`~kg_agent.kg.role_nodes`; ``kinds``
    of ``^r`` say what ``r``'s subjects are), their labels that the question names (all their stems among
    ``asked``) as names of the relation: "the **general chair** of [X]"
    names ``hasRole`` by the label of the role node it reaches, as "the director of [X]" names ``director``, and the
    hop out of the role node to its holder (``heldBy``) by the same label, as a hop into a statement node and the
    hop out of it are one fact that one phrase names."""
    found = dict(aliases)
    for relation, of_relation in kinds.items():
        named = [label for label in of_relation.role_labels if (words := stems(label)) and words <= asked]
        if named:
            name = base_relation(relation)
            found[name] = tuple(dict.fromkeys((*found.get(name, ()), *named)))
    return found
