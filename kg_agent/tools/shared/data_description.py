"""Questions about the data itself: "when was the air routes **data** generated?", "who created the **graph**?".

No entity is linked from such a question (it names the KG, not a thing in it), so no method has a topic entity. Many
KGs describe themselves on a node of their own: a VoID, DCAT or schema.org *Dataset*, an OWL ontology header, or a
node of a class the KG has one member of (a "version" node) whose own values say it is the data ("Air Routes Data -
Version: 0.86 Generated ..."). The question is answered from that node's literal values, over the relation the
question asks for, as a walk from it would be:

* **The question** names a body of data (:data:`~kg_agent.text.DATA_WORDS`: "data", "graph", "dataset", ...) after
  an article or a demonstrative, with the words between them as the data's name ("the **air routes** data"); no count
  or comparison (those are :mod:`~kg_agent.tools.shared.whole_graph`'s).
* **The node** is a member of a known dataset class (:data:`DATASET_CLASSES`: the vocabularies' own classes for a
  description of a dataset), or the sole member of a class whose literal values hold a data word and every word of the
  data's name. None found: nothing is answered here (the question goes on unanswered, as before).
* **The relation** is the node's literal relation the project's relation scorer rates best for the question with the
  data's phrase masked ("when was [ENT] generated": a time; "who created [ENT]": ``author``); the answers are its
  values, each grounded by its edge from the node.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.sparql import sparql_iri
from kg_agent.text import ARTICLES, DATA_WORDS, DEMONSTRATIVES, FUNCTION_WORDS
from kg_agent.text import words as text_words
from kg_agent.tools.shared.aggregates import asked_comparison, literal_text
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.whole_graph import whole_graph_question

#: The classes known vocabularies give a node describing a dataset (VoID, DCAT, schema.org) or a vocabulary (OWL's
#: ontology header).
DATASET_CLASSES = (
    "http://rdfs.org/ns/void#Dataset",
    "http://www.w3.org/ns/dcat#Dataset",
    "http://schema.org/Dataset",
    "https://schema.org/Dataset",
    "http://www.w3.org/2002/07/owl#Ontology",
)
#: Most words of the data's name read before the data word ("the air routes data").
MAX_NAME_WORDS = 4
#: Most describing nodes read.
MAX_NODES = 5
#: Most literals of a candidate node read.
MAX_LITERALS = 200


def data_phrase(question: str) -> tuple[str, tuple[str, ...]] | None:
    """``(the phrase naming the data as written, its name's words)`` for "the [name words] <data word>" ("the air
    routes data" -> ``("the air routes data", ("air", "routes"))``); None when the question names no body of data."""
    for match in re.finditer(r"(?i)\b(" + "|".join(sorted(ARTICLES | DEMONSTRATIVES)) + r")\s+((?:[\w'-]+\s+){0,%d}?)(%s)\b"
                             % (MAX_NAME_WORDS, "|".join(sorted(DATA_WORDS))), question):
        name = tuple(w for w in text_words(match.group(2)) if w not in FUNCTION_WORDS)
        return match.group(0), name
    return None


def describing_nodes(kg: KnowledgeGraph, name: Sequence[str]) -> list[str]:
    """The nodes describing the data (module docstring), at most :data:`MAX_NODES`."""
    known = " ".join(sparql_iri(c) for c in DATASET_CLASSES)
    try:
        found = [str(row[0]) for row in kg.query(
            f"SELECT DISTINCT ?s WHERE {{ VALUES ?c {{ {known} }} ?s a ?c . FILTER(isIRI(?s)) }} LIMIT {MAX_NODES}")]
        sole = [str(row[0]) for row in kg.query(
            "SELECT ?s WHERE { { SELECT ?c WHERE { ?x a ?c } GROUP BY ?c HAVING (COUNT(DISTINCT ?x) = 1) } "
            f"?s a ?c . FILTER(isIRI(?s)) }} LIMIT {MAX_NODES * 20}")]
    except KGError:
        return []
    for node in sole:
        if node not in found and len(found) < MAX_NODES and _says_it_is_the_data(kg, node, name):
            found.append(node)
    return found


def _says_it_is_the_data(kg: KnowledgeGraph, node: str, name: Sequence[str]) -> bool:
    """Whether one of the node's literals (its names and descriptions among them) holds a data word and every word of
    the data's name."""
    try:
        rows = kg.query(f"SELECT ?o WHERE {{ {sparql_iri(node)} ?p ?o . FILTER(isLiteral(?o)) }} LIMIT {MAX_LITERALS}")
    except (KGError, ValueError):
        return False
    for row in rows:
        said = set(text_words(str(row[0])))
        if said & DATA_WORDS and set(name) <= said:
            return True
    return False


def answer_about_the_data(kg: KnowledgeGraph, question: str,
                          scorer: RelationPathScorer | None = None) -> tuple[list[dict], str] | None:
    """The answers to a question about the data from the node describing it, and how they were found; None when the
    question is not one or the KG describes no such node."""
    phrase = data_phrase(question)
    if phrase is None or whole_graph_question(question) is not None or asked_comparison(question) is not None:
        return None
    nodes = describing_nodes(kg, phrase[1])
    if not nodes:
        return None
    edges = {node: {r: [v for v in values if v.startswith('"')] for r, values in kg.edges(node).items()}
             for node in nodes}
    candidates = sorted({(r,) for found in edges.values() for r, values in found.items() if values and not r.startswith("^")})
    if not candidates:
        return None
    masked = question.replace(phrase[0], "[ENT]")
    scorer = scorer or RelationPathScorer()
    scores = scorer.score(masked, candidates, kg=kg)
    best = max(range(len(candidates)), key=lambda i: (scores[i], candidates[i]))
    relation = candidates[best][0]
    labels = kg.labels_by_id(nodes)
    answers = []
    for node in nodes:
        head = {"id": node, "label": labels.get(node) or node}
        for value in edges[node].get(relation, ()):
            text = literal_text(value)
            tail = {"id": value, "label": text}
            answers.append({"answer": text, "entity_id": value, "score": 1.0, "grounded": True, "chunks": [],
                            "paths": [{"text": f"{head['label']} -> {relation} -> {text}", "start": head,
                                       "steps": [{"head": head, "relation": relation, "tail": tail}]}]})
    if not answers:
        return None
    return answers, f"a question about the data itself: the {relation} of {labels.get(nodes[0]) or nodes[0]}, the node describing it"
