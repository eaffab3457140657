"""The KG's own classes as the type a question asks for: "what **films** did [X] act in", "which **city** ...".

A question's type noun (:class:`~kg_agent.tools.shared.answer_types.AskedType`) names a class of the KG when one of
the class's names (its labels and aliases in every language the KG gives, else its IRI's last segment, camelCase
split: ``schema:Movie`` -> "movie", ``wd:Q11424`` -> "film", "movie") ends in the noun ("films" -> "feature film",
"books" -> "ebook"),
or is as close to it as :data:`CLASS_NAME_SIMILARITY` (MiniLM cosine: "films" and "Movie" 0.73) without holding the
noun only as a modifier ("film genre" is a genre, not a film). A noun with modifiers ("how many **invited talks**")
names a class whose name holds each of its words (``swc:InvitedTalkEvent``, "invited talk event"; not
``swc:TalkEvent``); a name starting with a function word ("in proceedings", ``swrc:InProceedings``: a paper) is not
named by its last word. The classes of an entity are the objects of the
naming's class predicates (``rdf:type``, ``rdfs:subClassOf``, Wikidata's ``P31`` / ``P279``, Freebase's ``type.object.type``;
:meth:`~kg_agent.kg.graph.KnowledgeGraph.classes_of`). Nothing here is a word list: the names are the KG's.

Two readers: the relation-path scorer (a last hop whose sampled objects are of a class the noun names answers the
noun, :func:`~kg_agent.tools.shared.answer_types.answer_type_match`) and the answer constraints
(:mod:`kg_agent.tools.shared.constraints`: answers of another class are left out when some answer is of the class).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.per_kg import PerKG
from kg_agent.text import FUNCTION_WORDS, name_phrase, same_word
from kg_agent.tools.shared.answer_types import noun_only_modifies
from kg_agent.tools.shared.similarity import TextVectors

#: How close (MiniLM cosine) a type noun must be to a class's name to name the class: "films" / "Movie" 0.73,
#: "films" / "film" 0.91, "languages" / "Language" 0.93; "films" / "human" 0.27, "city" / "Place" 0.55, "people" /
#: "Person" 0.62 (a person is asked for by "who", which the answer types read from the relations).
CLASS_NAME_SIMILARITY = 0.7
#: English plurals not made by an ending: generic English, no KG's vocabulary. Read where a count names what it counts
#: (:func:`~kg_agent.tools.shared.answer_checks.through_statements`: "how many people" counts Persons), not by
#: :meth:`ClassNames.named` itself, which the planner's and the constraints' type cues also read.
IRREGULAR_PLURALS = {"people": "person", "men": "man", "women": "woman", "children": "child", "persons": "person",
                     "mice": "mouse", "geese": "goose", "teeth": "tooth", "feet": "foot", "oxen": "ox"}

#: Objects of a relation sampled to read the classes its range holds (:meth:`ClassNames.range_classes`), and how many
#: relations one request samples: a class a few of its objects have (an invited talk among a conference's sub-events)
#: is seen where the eight objects read for a relation's usual kinds miss it.
RANGE_SAMPLE = 40
RANGE_RELATIONS_PER_QUERY = 1

#: Most words of a question's noun phrase read as naming a class (:meth:`ClassNames.named_by_opening`).
MAX_PHRASE_WORDS = 3


class ClassNames:
    """The names of one KG's classes, and which of them a type noun names (both kept per KG and noun)."""

    def __init__(self, kg: KnowledgeGraph, vectors: TextVectors) -> None:
        self.kg = kg
        self.vectors = vectors
        self._names: dict[str, tuple[str, ...]] = {}
        self._named: dict[tuple[str, str], bool] = {}
        self._ranges: dict[str, frozenset[str]] = {}
        self._lock = threading.Lock()

    def names(self, class_id: str) -> tuple[str, ...]:
        """The class's names as words (labels and aliases; the IRI's last segment when it has none)."""
        with self._lock:
            found = self._names.get(class_id)
        if found is None:
            found = tuple(dict.fromkeys(text for name in self.kg.labels(class_id) if (text := name_phrase(name))))
            with self._lock:
                self._names[class_id] = found
        return found

    def named(self, noun: str, class_ids: Iterable[str]) -> frozenset[str]:
        """The classes among ``class_ids`` that the type noun names (module docstring); a noun with modifiers
        ("invited talks") names a class whose name holds each of its words ("invited talk event")."""
        noun = noun.lower()
        wanted = list(dict.fromkeys(class_ids))
        with self._lock:
            todo = [c for c in wanted if (noun, c) not in self._named]
        if todo and noun:
            names = {c: self.names(c) for c in todo}
            texts = list(dict.fromkeys(n for c in todo for n in names[c]))
            cosine = dict(zip(texts, self.vectors.rank(noun, texts))) if texts else {}
            decided = {c: any(self._names_it(noun, name, cosine[name]) for name in names[c]) for c in todo}
            with self._lock:
                self._named.update({(noun, c): yes for c, yes in decided.items()})
        with self._lock:
            return frozenset(c for c in wanted if self._named.get((noun, c)))

    def named_by_opening(self, words: Sequence[str], class_ids: Iterable[str]) -> tuple[str, frozenset[str]]:
        """``(the opening, the classes it names)`` for the longest opening of a question's noun phrase (at most
        :data:`MAX_PHRASE_WORDS` words, function words left out) that names some of ``class_ids`` ("physical
        constants have": "physical constants" names *physical constant*, where its first word alone names none);
        ``("", frozenset())`` when none does."""
        wanted = list(dict.fromkeys(class_ids))
        content = [w for w in words[:MAX_PHRASE_WORDS] if w not in FUNCTION_WORDS]
        for end in range(len(content), 0, -1):
            opening = " ".join(content[:end])
            found = self.named(opening, wanted)
            if found:
                return opening, found
        return "", frozenset()

    def range_classes(self, relations: list[str]) -> dict[str, frozenset[str]]:
        """``{relation: the classes of up to RANGE_SAMPLE of its objects}`` (``^r``: its subjects'), sampled once per
        relation (:meth:`~kg_agent.kg.graph.KnowledgeGraph.sample_ends`, then the classes of all sampled nodes);
        a relation the KG cannot sample gets none."""
        with self._lock:
            todo = [r for r in dict.fromkeys(relations) if r not in self._ranges]
        if todo:
            try:
                ends = self.kg.sample_ends(todo, RANGE_SAMPLE, per_query=RANGE_RELATIONS_PER_QUERY)
                nodes = [n for found in ends.values() for n in found if not n.startswith('"')]
                classes = self.kg.classes_of(nodes)
            except KGError:
                ends, classes = {}, {}
            measured = {r: frozenset(c for n in ends.get(r, ()) for c in classes.get(n, ())) for r in todo}
            with self._lock:
                self._ranges.update(measured)
        with self._lock:
            return {r: self._ranges[r] for r in relations if r in self._ranges}

    @staticmethod
    def _names_it(noun: str, name: str, cosine: float) -> bool:
        words = name.split()
        phrase = noun.split()
        if len(phrase) > 1:  # "invited talks": every word of the phrase is a word of the name ("invited talk event")
            return all(any(same_word(word, other) for other in words) for word in phrase)
        if words and words[0] in FUNCTION_WORDS:  # "in proceedings" (``swrc:InProceedings``) is a paper, in them
            return cosine >= CLASS_NAME_SIMILARITY and not same_word(noun, words[-1])
        if words and same_word(noun, words[-1]):
            return True
        head = noun.removesuffix("s")  # a compound is a kind of its last part: an "ebook" is a book, a "bookshelf" no
        if words and len(head) >= 4 and words[-1].endswith(head):
            return True
        return cosine >= CLASS_NAME_SIMILARITY and not noun_only_modifies(noun, [name])


_BY_KG: PerKG[ClassNames] = PerKG(ClassNames)


def class_names(kg: KnowledgeGraph, vectors: TextVectors) -> ClassNames:
    """The process-wide :class:`ClassNames` of a KG (kept as long as the KG is)."""
    return _BY_KG.get(kg, vectors)


def of_the_kind_named(kg: KnowledgeGraph, vectors: TextVectors, words: Sequence[str], ids: Iterable[str]) -> frozenset[str]:
    """Those of ``ids`` of a class that ``words`` name, all together or by their last one ("invited talk":
    *InvitedTalkEvent*; :meth:`ClassNames.named`); none without words."""
    ids = list(dict.fromkeys(ids))
    if not words or not ids:
        return frozenset()
    classes = kg.classes_of(ids)
    every = {c for found in classes.values() for c in found}
    names = class_names(kg, vectors)
    named = names.named(" ".join(words), every) | names.named(words[-1], every)
    return frozenset(key for key in ids if named.intersection(classes.get(key, ())))
