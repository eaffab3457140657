"""Grounding: which answers the retrieved evidence supports, and what a method answers when the model's do not.

One rule for every method (DESIGN.md, "Grounded means grounded"):

* **Path end.** An answer is grounded when its normalised text is the label of the *end* of a retrieved
  reasoning path (RoG), explored chain (ToG, ToG-I) or triple path (ToG-2) of at least one hop; it cites
  those paths. Entities a path only passes through do not count, and neither does the question's topic
  entity (a path's start) -- unless a path returns to it as its end. The path must also answer the
  question: the ends of a path whose relation path the question does not ask for ground nothing
  (:func:`asked_for`; RoG judges its plans, ToG and ToG-I their chains).
* **Chunk span** (ToG-2's documents). An answer that is no path end is grounded by a cited chunk when the
  chunk's text contains it as whole words (normalised) and as written (case and spacing aside: "<TRUE" is not
  "true"), it is a span of at most :data:`MAX_SPAN_WORDS`
  words (a name, not a copied sentence), and it is neither a topic entity nor the entity the chunk is about
  (a chunk about *Forrest Gump* does not make "Forrest Gump" the answer to a question about Forrest Gump).
* **Names inside a sentence.** A model answer that is neither is read for the path-end names it mentions
  (longest match first, on word boundaries, topic entities left out): "Robert Zemeckis directed it" gives
  *Robert Zemeckis*. When it mentions none, it stays as written, ``grounded: False``.

The *grounding policy* then decides what the result answers (:func:`settle`):

* ``"prefer"`` (default): grounded model answers first; when none of the model's answers is grounded, the
  grounded answers of the method's offline twin (RoG's path votes; ToG and ToG-I run without a model, from the same
  topic entities; ToG-2's extractive examiner) replace them,
  with a warning, and the model's reply stays in ``output``. With no grounded answer at all, the model's
  answers are kept, flagged ``grounded: False``, with a warning.
* ``"strict"``: as ``"prefer"``, but an ungrounded answer is never returned: with no grounded answer the
  answers are empty, a warning says why and ``stop_reason`` is ``"no_grounded_answer"``.
* ``"off"``: the model's answers as it gave them (no names read out of sentences, nothing replaced), each
  flagged by the check above.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.terms import normalize_label
from kg_agent.kg.walks import Walk
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, check_policy, current_run_settings
from kg_agent.tools.shared.answer_types import contradicts_asked_type, relation_object_kinds
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.scoring import mask_topic_mentions
from kg_agent.tools.shared.updates import answer_record

NO_GROUNDED_ANSWER = "no_grounded_answer"  # the stop reason when "strict" withholds every answer
MAX_SPAN_WORDS = 8  # the longest chunk span taken as an answer (a name or a short value, not a sentence)
MAX_SUPPORTING_PATHS = 3
#: A relation path answers the question when the relation-path scorer rates it at least this share of the best one.
MIN_RELATIVE_EVIDENCE = 0.9


class RunGrounding:
    """The grounding policy of a decider: the run's (:class:`~kg_agent.settings.RunSettings`) when it gives one,
    else the one the decider was built with (``self.grounding = policy`` sets that, checked)."""

    built_grounding: Grounding = DEFAULT_GROUNDING

    @property
    def grounding(self) -> Grounding:
        return current_run_settings().grounding or self.built_grounding

    @grounding.setter
    def grounding(self, policy: Grounding) -> None:
        self.built_grounding = check_policy(policy)


def asked_for(question: str, topic_entities: Iterable[dict], relation_paths: Sequence[Sequence[str]], *,
              scorer: RelationPathScorer, kg: KnowledgeGraph | None = None,
              min_relative: float = MIN_RELATIVE_EVIDENCE) -> list[bool]:
    """Which relation paths the question asks for, judged by the relation-path scorer
    (:class:`~kg_agent.tools.shared.path_scoring.RelationPathScorer`: hop by hop, entity mentions masked; with
    ``kg``, also by what the last relation's objects are, so "what kind of film is [X]" asks for ``has_genre``).

    A path is asked for when it rates at least ``min_relative`` x the best of them (the best always does), no
    shorter prefix of it rates higher (:func:`no_prefix_rates_higher`) and none of the given paths that extends it
    rates higher (its ends are then that path's junctions: for "the actor in [Healing] also appears in which films",
    ``starred_actors`` reaches the actor, whom ``starred_actors -> ^starred_actors`` only passes). For "which person
    directed [Working Girl]", ``has_genre`` is not asked for beside ``directed_by``.
    """
    if not relation_paths:
        return []
    paths = [tuple(p) for p in relation_paths]
    scored = rate_with_prefixes(question, topic_entities, paths, scorer=scorer, kg=kg)
    best = max(scored[p] for p in paths)

    def asked(path: tuple[str, ...]) -> bool:
        close = scored[path] == best or (best > 0 and scored[path] >= min_relative * best)
        extended_better = any(len(other) > len(path) and other[:len(path)] == path and scored[other] > scored[path]
                              for other in paths)
        return close and no_prefix_rates_higher(path, scored) and not extended_better

    return [asked(p) for p in paths]


def rate_with_prefixes(question: str, topic_entities: Iterable[dict], relation_paths: Sequence[Sequence[str]], *,
                       scorer: RelationPathScorer, kg: KnowledgeGraph | None = None) -> dict[tuple[str, ...], float]:
    """The scorer's rating of each relation path and of every shorter prefix of it, for
    :func:`no_prefix_rates_higher` (entity mentions masked)."""
    masked = mask_topic_mentions(question, topic_entities)
    paths = list(dict.fromkeys(tuple(p) for p in relation_paths))
    prefixes = sorted({p[:n] for p in paths for n in range(1, len(p))} - set(paths))
    return dict(zip([*paths, *prefixes], scorer.score(masked, [*paths, *prefixes], kg=kg)))


def no_prefix_rates_higher(path: Sequence[str], rating: dict[tuple[str, ...], float]) -> bool:
    """Whether no shorter prefix of ``path`` rates higher than it (``rating`` from :func:`rate_with_prefixes`):
    otherwise the hops after that prefix explain nothing more of the question. For "who starred in [Forrest
    Gump]", ``starred_actors -> ^starred_actors`` (the cast's other films) does not pass, since ``starred_actors``
    alone rates higher."""
    path = tuple(path)
    return all(rating[path[:n]] <= rating[path] for n in range(1, len(path)))


def topic_names(topic_entities: Iterable[dict]) -> set[str]:
    """The question's topic entities as answers are compared with them: their normalised labels and the mentions
    they were linked from."""
    return {normalize_label(str(text)) for e in topic_entities for text in (e.get("label"), e.get("mention")) if text} - {""}


def asks_for_topic_kind(masked_question: str, relation_path: Sequence[str]) -> bool:
    """Whether the question asks for what ``relation_path``'s last hop reaches by name: its type noun names the
    relation ("which words describe [Hotel]" asks for ``has_tags``, which may well answer the tag "hotel")."""
    if not relation_path:
        return False
    return QuestionParts.of(masked_question).asked.named_by(relation_path[-1])


def names_a_topic(end: dict, topic_ids: Iterable[str], names: set[str]) -> bool:
    """Whether an answer candidate (an ``{"id", "label"}`` dict) is a topic entity of the question or is named as
    one (:func:`topic_names`): the actor *Tom Hanks*, reached from the tag *tom hanks* that "which films did tom
    hanks act in" was linked to, is the question's own subject, not its answer."""
    return end.get("id") in set(topic_ids) or normalize_label(str(end.get("label") or "")) in names


class UnaskedAnswers:
    """What no offline answerer takes for an answer: the question's own topic entity or an entity named as it
    (:func:`names_a_topic`), unless the question asks for what the path reaches by name
    (:func:`asks_for_topic_kind`); and, given the KG, the end of a path whose answers are of a kind the question
    does not ask for (:func:`~kg_agent.tools.shared.answer_types.contradicts_asked_type`: persons for "which films").

    Built from the question and its topic entities (``{"id", "label"}`` dicts, with the ``mention`` they were
    linked from when known); :meth:`excluded` judges a path's end, :meth:`wrong_kind` a relation path alone."""

    def __init__(self, question: str, topic_entities: Iterable[dict], *, kg: KnowledgeGraph | None = None) -> None:
        topics = [e for e in topic_entities if e.get("id")]
        self.ids = {e["id"] for e in topics}
        self.names = topic_names(topics)
        self.masked = mask_topic_mentions(question, topics)
        self.asked = QuestionParts.of(self.masked).asked
        self.kinds = relation_object_kinds(kg) if kg is not None and self.asked.excludes_persons else None
        self.kg = kg
        self._wrong: dict[tuple[str, ...], bool] = {}

    def wrong_kind(self, relation_path: Sequence[str]) -> bool:
        """Whether the path's answers are of a kind the question does not ask for (needs the KG)."""
        if self.kinds is None or not relation_path:
            return False
        key = tuple(relation_path)
        if key not in self._wrong:
            self._wrong[key] = (contradicts_asked_type(self.asked, key, self.kinds)
                                and not self._of_the_class_named(key[-1]))
        return self._wrong[key]

    def _of_the_class_named(self, relation: str) -> bool:
        """Whether the relation's sampled objects share a class of the KG the question's type noun names ("which
        **band**" and objects of the class *Band*): the KG's own classes say they are what is asked for, whatever
        the words of the relations at them suggest (a band is a "producer" and an "artist", as persons are)."""
        from kg_agent.tools.shared.answer_classes import class_names
        from kg_agent.tools.shared.similarity import shared_text_vectors

        held = self.kinds.kinds(relation).classes if self.kinds is not None else ()
        if self.kg is None or not held or not self.asked.noun:
            return False
        return bool(class_names(self.kg, shared_text_vectors(None)).named(self.asked.noun, held))

    def excluded(self, end: dict, relation_path: Sequence[str]) -> bool:
        """Whether ``end``, reached by ``relation_path``, is no answer to the question (class docstring)."""
        if self.wrong_kind(relation_path):
            return True
        return names_a_topic(end, self.ids, self.names) and not (
            relation_path and self.asked.named_by(relation_path[-1]))

    def excluded_walk(self, walk: dict) -> bool:
        """:meth:`excluded` for a walk's end, reached by its relations (a ``Walk.to_dict()``: a path or a chain)."""
        found = Walk.from_dict(walk)
        return self.excluded(found.end.to_dict(), found.relations)


@dataclass
class _End:
    entity_id: str
    label: str
    paths: list[dict] = field(default_factory=list)


class Evidence:
    """What answers can be grounded in: the ends of retrieved paths, the topic entities, cited chunks.

    Build it from ``(end entity, path)`` pairs -- ``end`` a ``{"id", "label"}`` dict, ``path`` the path dict
    to cite -- with :meth:`add_end`, or use :func:`path_evidence` for RoG-style path dicts.
    """

    def __init__(self, *, topic_entities: Iterable[dict] = (), chunks: Sequence[dict] = ()) -> None:
        self.ends: dict[str, _End] = {}
        self.topic_keys = {normalize_label(e["label"]) for e in topic_entities if e.get("label")}
        self.chunks = list(chunks)
        self._longest = 0

    def add_end(self, end: dict, path: dict) -> None:
        """Record that a retrieved path of at least one hop ends in ``end``."""
        key = normalize_label(end.get("label") or "")
        if not key:
            return
        entry = self.ends.setdefault(key, _End(end["id"], end["label"]))
        entry.paths.append(path)
        self._longest = max(self._longest, len(key.split()))

    def names_in(self, text: str) -> list[str]:
        """The path-end names ``text`` mentions, in order: longest match first, whole words, topic entities left out."""
        tokens = normalize_label(text).split()
        found: list[str] = []
        start = 0
        while start < len(tokens):
            for size in range(min(self._longest, len(tokens) - start), 0, -1):
                key = " ".join(tokens[start:start + size])
                if key in self.ends and key not in self.topic_keys:
                    found.append(key)
                    start += size
                    break
            else:
                start += 1
        return list(dict.fromkeys(found))

    def chunk_stating(self, name: str) -> dict | None:
        """The first chunk that states ``name`` as a span (see the module docstring), else ``None``."""
        key = normalize_label(name)
        if not key or len(key.split()) > MAX_SPAN_WORDS or key in self.topic_keys:
            return None
        padded, written = f" {key} ", " ".join(name.casefold().split())
        for chunk in self.chunks:
            subject = normalize_label(str(chunk.get("entity_label") or chunk.get("title") or ""))
            text = chunk.get("text") or ""
            # as whole words, and as written: "<TRUE" is not stated by "his true love"
            if key != subject and padded in f" {normalize_label(text)} " and written in " ".join(text.casefold().split()):
                return chunk
        return None


def path_evidence(paths: Iterable[dict], *, chunks: Sequence[dict] = ()) -> Evidence:
    """Evidence from path dicts (``start``, ``steps`` of ``{"relation", "tail"}``); the starts are the topic entities."""
    paths = list(paths)
    evidence = Evidence(topic_entities=[p["start"] for p in paths], chunks=chunks)
    for path in paths:
        if path.get("steps"):
            evidence.add_end(path["steps"][-1]["tail"], path)
    return evidence


def ground_names(names: Sequence[str], evidence: Evidence, *, read_sentences: bool = True,
                 max_supporting_paths: int = MAX_SUPPORTING_PATHS) -> list[dict]:
    """Answer records for a model's answers, in its order, each checked against ``evidence``.

    A path end cites its paths (``entity_id`` set); a chunk span cites its chunk; with ``read_sentences``, an
    answer that is neither is replaced by the path-end names it mentions; anything else is ``grounded: False``.
    """
    resolved: list[tuple[str, str | None]] = []  # (answer text, path-end key or None)
    for name in names:
        key = normalize_label(name)
        if key in evidence.ends:  # shown as the KG names it ("<robert zemeckis" is Robert Zemeckis)
            resolved.append((evidence.ends[key].label, key))
            continue
        mentioned = evidence.names_in(name) if read_sentences and not evidence.chunk_stating(name) else []
        if mentioned:
            resolved.extend((evidence.ends[k].label, k) for k in mentioned)
        else:
            resolved.append((name, None))
    records: list[dict] = []
    seen: set[str] = set()
    for text, key in resolved:
        dedup = key or normalize_label(text)
        if dedup in seen:
            continue
        seen.add(dedup)
        score = 1.0 - len(records) / (len(resolved) + 1)
        if key is not None:
            end = evidence.ends[key]
            records.append(answer_record(text, entity_id=end.entity_id, score=score,
                                         paths=end.paths[:max_supporting_paths]))
            continue
        chunk = evidence.chunk_stating(text)
        records.append(answer_record(text, score=score, grounded=chunk is not None, chunks=[chunk] if chunk else []))
    return records


@dataclass
class Settled:
    """The answers a policy lets through, the warnings saying what it did, and how they were chosen."""

    answers: list[dict]
    warnings: list[str] = field(default_factory=list)
    replaced: bool = False  # the offline answers replaced the model's
    withheld: bool = False  # "strict" left no answer

    @property
    def stop_reason(self) -> str:
        return NO_GROUNDED_ANSWER if self.withheld else ""


def _names(answers: Sequence[dict]) -> str:
    return ", ".join(repr(a["answer"]) for a in answers[:5]) + (" ..." if len(answers) > 5 else "")


def settle(answers: list[dict], *, policy: Grounding, node: str,
           offline: Callable[[], Sequence[dict]] | None = None, offline_name: str = "offline") -> Settled:
    """Apply the grounding policy to the model's checked ``answers`` (see the module docstring).

    ``offline`` gives the offline twin's answers; it is called only when none of the model's answers is grounded.
    """
    ungrounded = [a for a in answers if not a["grounded"]]
    grounded = [a for a in answers if a["grounded"]]
    if policy == "off" or grounded:
        if not ungrounded:
            return Settled(answers)
        if policy == "off":
            return Settled(answers, [f"{node}: not supported by any retrieved path or chunk: {_names(ungrounded)}"])
        if policy == "strict":
            return Settled(grounded, [f"{node}: left out, not supported by any retrieved path or chunk "
                                      f"(grounding='strict'): {_names(ungrounded)}"])
        return Settled(grounded + ungrounded, [f"{node}: not supported by any retrieved path or chunk, ranked after "
                                               f"the grounded answers: {_names(ungrounded)}"])
    replacement = [a for a in (offline() if offline is not None else []) if a.get("grounded")]
    said = _names(answers) if answers else "none"
    if replacement:
        return Settled(replacement, [f"{node}: the model's answers ({said}) are not supported by any retrieved path "
                                     f"or chunk; the answers are the grounded {offline_name} answers "
                                     f"(grounding={policy!r}; the model's reply is kept in 'output')"], replaced=True)
    if policy == "strict":
        return Settled([], [f"{node}: no answer is supported by a retrieved path or chunk; the model's answers "
                            f"({said}) are withheld (grounding='strict')"], withheld=True)
    return Settled(answers, [f"{node}: not supported by any retrieved path or chunk, and no grounded answer was "
                             f"found: {said} (kept, grounded: False)"])
