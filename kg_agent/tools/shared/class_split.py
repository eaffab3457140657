"""One relation holding two roles, told apart by its objects' classes (issue 45).

A KG may put things of different kinds behind one relation: a written question's ``dcterms:creator`` holds its
authors (``foaf:Person``) *and* the institution it is addressed to (``org:Organization``); a grant's ``contributor``
its researchers and their institute. A question that asks for persons ("**who** wrote [X]", "the **authors** of
[X]", "how many **authors** does [X] have") asks for one of those roles: of the answers reached over the same last
relation, when some are of a class the KG names a person (a class one of whose names ends in a person noun:
``foaf:Person``, "human", :func:`~kg_agent.tools.shared.answer_types.names_persons`) and others have classes none of
which is such a class, the others are the relation's other role and leave the answers (a count counts only the
persons). Nothing is removed when no answer of the relation is of a person class (a KG without classes, or one whose
persons have another class name: the relation is then read as it is), nor is an answer without any class fact, nor a
literal. "**Whom**" ("to whom was [X] addressed", "for whom") asks for the party a verb's object or preposition
names, which English does not restrict to persons (a letter is addressed to an institution): nothing is split for it.
Nothing here names a data set's relations or classes: the classes and their names are the KG's, the person
nouns general English.
"""

from __future__ import annotations

from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.text import OBJECT_WH, words
from kg_agent.tools.shared.answer_classes import class_names
from kg_agent.tools.shared.answer_types import PERSON, names_persons
from kg_agent.tools.shared.question_parts import QuestionParts
from kg_agent.tools.shared.similarity import shared_text_vectors


def person_classes(kg: KnowledgeGraph, class_ids: set[str]) -> frozenset[str]:
    """The classes among ``class_ids`` that one of their names (labels, else the IRI's last segment) calls persons:
    its last word a person noun ("Person", "human")."""
    names = class_names(kg, shared_text_vectors(None))
    return frozenset(c for c in class_ids if any(name.split() and names_persons(name.split()[-1])
                                                 for name in names.names(c)))


def _last_relation(answer: dict) -> str | None:
    for path in answer.get("paths") or ():
        if path.get("steps"):
            return str(path["steps"][-1]["relation"])
    return None


def persons_apart(question: str, answers: Sequence[dict], kg: KnowledgeGraph) -> tuple[list[dict], str] | None:
    """For a question asking for persons ("who", "which authors", "how many authors"): the answers without those
    of another class reached over a relation that also reached persons (module docstring), and why; None when the
    question asks for no persons or no answer is of another role."""
    asked = QuestionParts.of(question).asked
    if not asked.asks_persons or len(answers) < 2 or (asked.kind == PERSON and OBJECT_WH in words(question)):
        return None
    by_relation: dict[str, list[str]] = {}
    for answer in answers:
        key, relation = answer.get("entity_id"), _last_relation(answer)
        if key and relation and not str(key).startswith('"') and answer.get("grounded", True):
            by_relation.setdefault(relation, []).append(str(key))
    if not any(len(ids) > 1 for ids in by_relation.values()):
        return None
    try:
        classes = kg.classes_of([k for ids in by_relation.values() for k in ids])
        persons = person_classes(kg, {c for found in classes.values() for c in found})
    except KGError:
        return None
    if not persons:
        return None
    other: dict[str, str] = {}  # answer id -> the relation it shares with persons
    for relation, ids in by_relation.items():
        if not any(persons.intersection(classes.get(k, ())) for k in ids):
            continue
        other.update({k: relation for k in ids if classes.get(k) and not persons.intersection(classes[k])})
    if not other:
        return None
    kept = [a for a in answers if a.get("entity_id") not in other]
    shown = ", ".join(repr(str(a.get("answer")))[:60] for a in answers if a.get("entity_id") in other)
    relations = ", ".join(sorted(set(other.values())))
    return kept, (f"the question asks for persons; {relations} also reaches things of another class ({shown}), "
                  "the relation's other role, left out")
