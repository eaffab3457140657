"""Entity linking: which entities of the knowledge graph does a question talk about?

1. MetaQA-style brackets (``what films did [Tom Hanks] star in``): the bracketed text is looked up.
2. Otherwise every word n-gram of the question (longest first, non-overlapping) is matched against the
   entities' labels, exactly (case and punctuation ignored), then fuzzily for mentions that miss.
3. A mention without a letter or a digit (``[!!!]``, ``[🎬]``) names no entity and links to nothing.
4. Nothing found: the result says so (``no entity of the knowledge graph found in the question``) and
   lists the closest labels, so a user can rephrase.

:func:`search_entities` is the label search tools offer (exact, then labels containing the text, then fuzzy).

The work is bounded whatever the input: at most :data:`MAX_BRACKETS` bracketed mentions are looked up,
the fuzzy passes read only the first :data:`MAX_FUZZY_TOKENS` words of the question, and a fuzzy
lookup uses the first :data:`MAX_FUZZY_WORDS` words of a mention of at most :data:`MAX_FUZZY_CHARS`
characters (a longer text cannot be a typo of a label), so a 100 kB question links in about a second.
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass, field

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.terms import has_word_character, label_key, normalize_label
from kg_agent.kg.types import Entity

NO_ENTITY_MESSAGE = "no entity of the knowledge graph found in the question"

STOPWORDS = frozenset(
    """a an the of in on at to for from by with and or but is are was were be been being do does did
    what which who whom whose when where why how that this these those it its as into about than then
    there their they them he she his her him i me my we our you your can could would should will shall
    may might must has have had not no yes also same other films film movies movie act acted appear
    appears star starred starring direct directed write wrote written release released type types
    genre genres language languages year years kind often tags tag describe described""".split()
)

MAX_NGRAM = 12
#: Bracketed mentions looked up per question (MetaQA questions have one).
MAX_BRACKETS = 20
#: Words of the question the fuzzy passes (typos, the closest-labels hint) read.
MAX_FUZZY_TOKENS = 64
#: Words of a mention used to find fuzzy candidates, and the longest mention matched fuzzily.
MAX_FUZZY_WORDS = 8
MAX_FUZZY_CHARS = 300
_BRACKETS = re.compile(r"\[([^\[\]]+)\]")


@dataclass
class LinkedEntity:
    """An entity found in the question, with the text that matched and how well."""

    entity: Entity
    mention: str
    score: float
    how: str  # "bracket", "exact" or "fuzzy"

    def to_dict(self) -> dict:
        return {**self.entity.to_dict(), "mention": self.mention, "score": round(self.score, 4), "how": self.how}


@dataclass
class LinkResult:
    """Topic entities of a question, best first; when none was found, ``message`` and ``closest`` say why."""

    linked: list[LinkedEntity] = field(default_factory=list)
    closest: list[str] = field(default_factory=list)
    message: str | None = None

    @property
    def entities(self) -> list[Entity]:
        return [item.entity for item in self.linked]

    @property
    def found(self) -> bool:
        return bool(self.linked)


def link_entities(kg: KnowledgeGraph, question: str, *, max_entities: int = 5, fuzzy_cutoff: float = 0.8) -> LinkResult:
    """Find the topic entities of ``question`` in ``kg`` (see the module docstring for the rules)."""
    linked: list[LinkedEntity] = []
    bracketed = _BRACKETS.findall(question)[:MAX_BRACKETS]
    if bracketed:
        for mention in bracketed:
            linked.extend(_link_mention(kg, mention, fuzzy_cutoff, how="bracket"))
    else:
        linked = _link_ngrams(kg, question, fuzzy_cutoff)
    unique: dict[str, LinkedEntity] = {}
    for item in linked:
        if item.entity.id not in unique or unique[item.entity.id].score < item.score:
            unique[item.entity.id] = item
    ranked = sorted(unique.values(), key=lambda item: -item.score)[:max_entities]
    if ranked:
        return LinkResult(ranked)
    closest = _closest_to_question(kg, bracketed or [question])
    hint = f"; closest labels: {', '.join(closest)}" if closest else ""
    return LinkResult([], closest, NO_ENTITY_MESSAGE + hint)


def _link_mention(kg: KnowledgeGraph, mention: str, cutoff: float, *, how: str) -> list[LinkedEntity]:
    if not has_word_character(mention):  # "[!!!]", "[🎬]": no name to look up, even if a label is made of symbols
        return []
    exact = kg.find_entities(mention)
    if exact:
        return [LinkedEntity(e, mention, 1.0 + len(mention.split()), how) for e in exact]
    wanted = normalize_label(mention)
    out: list[LinkedEntity] = []
    for label in closest_labels(kg, mention, limit=3, cutoff=cutoff):
        ratio = difflib.SequenceMatcher(None, wanted, normalize_label(label)).ratio()
        out.extend(LinkedEntity(e, mention, ratio * len(mention.split()), "fuzzy") for e in kg.find_entities(label))
    return out


def _link_ngrams(kg: KnowledgeGraph, question: str, cutoff: float) -> list[LinkedEntity]:
    tokens = normalize_label(question).split()
    index = kg.label_index()
    claimed = [False] * len(tokens)
    linked: list[LinkedEntity] = []
    for size in range(min(MAX_NGRAM, len(tokens)), 0, -1):
        for begin in range(0, len(tokens) - size + 1):
            span = range(begin, begin + size)
            if any(claimed[i] for i in span):
                continue
            words = tokens[begin : begin + size]
            if all(w in STOPWORDS or len(w) < 2 for w in words):
                continue
            text = " ".join(words)
            if text not in index:
                continue
            matches = sorted(kg.find_entities(text), key=lambda e: (e.label not in question, -len(kg.edges(e.id))))
            if not matches:  # the name of a relation, a class or a literal: the words stay free
                continue
            for i in span:
                claimed[i] = True
            for rank, entity in enumerate(matches):
                # ties between equal labels keep find_entities' order (most connected first)
                linked.append(LinkedEntity(entity, text, float(size) - rank * 1e-3, "exact"))
    if not linked:
        # Fuzzy pass on the longer unclaimed spans (typos such as "Tom Hanx"), at the start of the question.
        tokens = tokens[:MAX_FUZZY_TOKENS]
        for size in range(min(4, len(tokens)), 1, -1):
            for begin in range(0, len(tokens) - size + 1):
                words = tokens[begin : begin + size]
                if words[0] in STOPWORDS or words[-1] in STOPWORDS:
                    continue
                linked.extend(_link_mention(kg, " ".join(words), cutoff, how="fuzzy"))
            if linked:
                break
    return linked


def _closest_to_question(kg: KnowledgeGraph, texts: list[str], limit: int = 5) -> list[str]:
    """The labels closest to any short word span of the texts, for the no-match message."""
    scored: dict[str, float] = {}
    for text in texts:
        tokens = normalize_label(text).split()[:MAX_FUZZY_TOKENS]
        for size in (3, 2, 1):
            for begin in range(0, len(tokens) - size + 1):
                words = tokens[begin : begin + size]
                if words[0] in STOPWORDS or words[-1] in STOPWORDS:
                    continue
                span = " ".join(words)
                for label in closest_labels(kg, span, limit=3, cutoff=0.5):
                    ratio = difflib.SequenceMatcher(None, span, normalize_label(label)).ratio()
                    scored[label] = max(scored.get(label, 0.0), ratio)
    return [label for label, _ in sorted(scored.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]]


def closest_labels(kg: KnowledgeGraph, text: str, *, limit: int = 5, cutoff: float = 0.6) -> list[str]:
    """Labels most similar to ``text`` (difflib ratio over labels that share a word or a 4-letter prefix)."""
    wanted = normalize_label(text)
    if not wanted or len(wanted) > MAX_FUZZY_CHARS:
        return []
    index = kg.label_index()
    candidates: set[str] = set()
    words = ([w for w in wanted.split() if w not in STOPWORDS] or wanted.split())[:MAX_FUZZY_WORDS]
    for word in words:
        candidates.update(index.labels_with_word(word, limit=2000))
        if len(word) >= 4:
            for token in index.words_with_prefix(word[:4]):
                if abs(len(token) - len(word)) <= 3:
                    candidates.update(index.labels_with_word(token, limit=200))
    scored = []
    for label in candidates:
        ratio = difflib.SequenceMatcher(None, wanted, label).ratio()
        if ratio >= cutoff:
            scored.append((ratio, label))
    scored.sort(key=lambda pair: (-pair[0], pair[1]))
    return [kg.label(min(index[label])) or label for _, label in scored[:limit]]


def search_entities(kg: KnowledgeGraph, text: str, *, limit: int = 10) -> list[Entity]:
    """Entities whose label matches ``text``: exact first, then labels containing it, then fuzzy."""
    wanted = normalize_label(text)
    index = kg.label_index()
    written = text.strip()
    if not wanted:  # a label made of symbols only (the film "$") is found by its own text, exactly
        return [Entity(k, kg.label(k) or k) for k in kg.entities_among(index.get(label_key(text), []))][:limit]

    def group(ids) -> list[str]:
        # entities spelt alike: the one whose label contains the text as written first, then by id
        return sorted(ids, key=lambda k: (written not in (kg.label(k) or ""), k))

    found: list[str] = group(index.get(wanted, []))
    if len(found) < limit:
        # labels holding the text as whole words: among those with its first word, shortest first
        pattern = re.compile(r"\b" + re.escape(wanted) + r"\b")
        contained = (lab for lab in index.iter_labels_with_word(wanted.split()[0]) if lab != wanted and pattern.search(lab))
        for lab in itertools.islice(contained, limit * 2):
            found.extend(group(index[lab]))
    if len(found) < limit:
        for lab in closest_labels(kg, wanted, limit=limit):
            found.extend(group(index.get(normalize_label(lab), [])))
    found = list(kg.entities_among(found))[:limit]
    return [Entity(k, kg.label(k) or k) for k in found]
