"""Kinds a KG names only by the unlabelled IRIs of a type-like relation: "questions" is ``work_type -> .../QUEST_WRITTEN``.

Some KGs say what kind of thing a thing is not (only) by a class but by a relation of their own whose objects are a
few IRIs shared by many subjects, the way ``rdf:type``'s are (``case_type -> .../APPL_CIVIL``,
``work_type -> .../ANSWER_TO_EP_QUESTION``), often with no label and an abbreviated local name. Such a relation is
read from the data, never from its name: its objects are IRIs, at most :data:`MAX_KIND_VALUES` distinct ones, each
shared on average by at least :data:`MIN_SUBJECTS_PER_VALUE` subjects (the KG's relation index or one query). Its
unlabelled objects are its **kind values**; a labelled one is a thing the KG names by its label, read where labels
are (and a class predicate's objects are classes, read by :mod:`~kg_agent.tools.shared.answer_classes`).

A noun names a kind value when it is one of the words its local name opens with, up to the first function word
(English puts a compound's head first before a preposition: ``ANSWER_TO_EP_QUESTION`` is an answer, not a
question), up to an ending (:func:`~kg_agent.text.same_word`), or a word of the local name of at least
:data:`MIN_ABBREVIATION` letters is a prefix of the noun (``QUEST`` abbreviates "question"). Read from the KG's own
IRIs; no word list of a domain.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph, class_list_query
from kg_agent.kg.per_kg import PerKG
from kg_agent.kg.terms import local_name, node_key
from kg_agent.kg.types import base_relation
from kg_agent.text import FUNCTION_WORDS, name_words, same_word

#: Fewest subjects per distinct object, on average, of a type-like relation (``rdf:type``-like: a kind is shared).
MIN_SUBJECTS_PER_VALUE = 20
#: Most distinct objects of a type-like relation (a kind list, not an open set of things).
MAX_KIND_VALUES = 50
#: Most relations a KG may have for its type-like ones to be read (a Freebase-sized schema is not).
MAX_RELATIONS_READ = 500
#: Fewest letters of a local-name word read as an abbreviation of the asked noun ("quest" of "question").
MIN_ABBREVIATION = 4
#: Most answers read for their kind values.
MAX_ENDS_READ = 500


@dataclass(frozen=True)
class KindValue:
    """One kind value: the type-like ``relation`` (its name) and the unlabelled ``value`` IRI it leads to."""

    relation: str
    value: str

    @property
    def local_name(self) -> str:
        """The value IRI's local name (``QUEST_WRITTEN``)."""
        return local_name(self.value)

    @property
    def local_words(self) -> tuple[str, ...]:
        """The words of the value's local name (``QUEST_WRITTEN``: ``("quest", "written")``)."""
        return tuple(name_words(self.local_name))

    @property
    def head_words(self) -> tuple[str, ...]:
        """The local name's words up to its first function word (``ANSWER_TO_EP_QUESTION``: ``("answer",)``)."""
        found: list[str] = []
        for word in self.local_words:
            if word in FUNCTION_WORDS:
                break
            found.append(word)
        return tuple(found)

    def named_by(self, noun: str) -> bool:
        """Whether ``noun`` (one word) names this kind (module docstring)."""
        noun = noun.lower()
        return any(same_word(noun, w) or (len(w) >= MIN_ABBREVIATION and w.isalpha() and noun.startswith(w))
                   for w in self.head_words)


class KindValues:
    """The kind values of one KG (module docstring), read once."""

    def __init__(self, kg: KnowledgeGraph) -> None:
        self._kg = kg
        self._values: tuple[KindValue, ...] | None = None

    def every(self) -> tuple[KindValue, ...]:
        """Every kind value of the KG (none when it cannot be read)."""
        if self._values is None:
            try:
                self._values = tuple(self._read())
            except (KGError, ValueError):
                self._values = ()
        return self._values

    def _read(self) -> list[KindValue]:
        kg = self._kg
        relations = [r for r in kg.relation_names() if not r.startswith("^")]
        if not relations or len(relations) > MAX_RELATIONS_READ:
            return []
        classing = {base_relation(r) for r in kg.class_fan_outs()}
        shares = kg.subjects_per_object([r for r in relations if r not in classing])
        shared = [r for r, share in sorted(shares.items()) if share >= MIN_SUBJECTS_PER_VALUE]
        if not shared:
            return []
        iris = [kg.relation_iri(r) for r in shared]
        found: dict[int, list[str]] = {}
        for number, node in kg.query(class_list_query(iris)):
            found.setdefault(int(number), []).append(node_key(node))
        values: list[KindValue] = []
        for number, ends in sorted(found.items()):
            if len(ends) > MAX_KIND_VALUES:
                continue
            values += [KindValue(shared[number], end) for end in ends
                       if not end.startswith("_:") and kg.label(end, default=None) is None]
        return values

    def named(self, noun: str) -> tuple[KindValue, ...]:
        """The kind values ``noun`` names (its last word, the phrase's head)."""
        words = noun.split()
        return tuple(v for v in self.every() if words and v.named_by(words[-1])) if words else ()

    def of_kind(self, ends: Sequence[str], noun: str) -> tuple[dict[str, KindValue], set[str]]:
        """``({end: the kind value the noun names that it has}, ends with some kind value of those relations)``."""
        named = self.named(noun)
        if not named:
            return {}, set()
        relations = {v.relation for v in named}
        wanted = {v.value: v for v in named}
        keys = [e for e in dict.fromkeys(ends) if not e.startswith(('"', "_:"))][:MAX_ENDS_READ]
        of: dict[str, KindValue] = {}
        valued: set[str] = set()
        for relation in sorted(relations):
            for key, targets in self._kg.walk(keys, relation).items():
                if targets:
                    valued.add(key)
                hit = next((wanted[t] for t in targets if t in wanted), None)
                if hit is not None:
                    of.setdefault(key, hit)
        return of, valued


def paths_to_kind(noun: str, paths: Iterable[tuple[str, ...]], kg: KnowledgeGraph) -> tuple[frozenset[tuple[str, ...]], str]:
    """Of relation paths, those whose values may be of a kind the noun names by a kind value (the kind's relation can
    follow their last relation: works reached over ``^creator`` have a ``work_type``; the classes reached over
    ``type`` have none), and a reason when none is; ``(frozenset(), "")`` when the noun names no kind value."""
    kinds = kind_values(kg).named(noun)
    if not kinds:
        return frozenset(), ""
    relations = {v.relation for v in kinds}
    try:
        reaching = frozenset(p for p in paths if p and relations.intersection(kg.relations_following(p[-1])))
    except KGError:
        return frozenset(), ""
    said = ", ".join(f"{v.relation} {v.local_name}" for v in kinds[:3])
    return reaching, ("" if reaching else f"the knowledge graph names {noun!r} by {said}, but no walk from the "
                                          "question's entity reaches a thing of that kind")


_BY_KG: PerKG[KindValues] = PerKG(KindValues)


def kind_values(kg: KnowledgeGraph) -> KindValues:
    """The process-wide :class:`KindValues` of a KG (kept as long as the KG is)."""
    return _BY_KG.get(kg)


def names_a_kind_value(noun: str, kg: KnowledgeGraph) -> bool:
    """Whether ``noun`` names a kind value of the KG (module docstring)."""
    return bool(kind_values(kg).named(noun))


def things_of_kind(ends: Iterable[str], noun: str, kg: KnowledgeGraph) -> dict[str, KindValue]:
    """Those of ``ends`` that have a kind value ``noun`` names, with it."""
    return kind_values(kg).of_kind(list(ends), noun)[0]
