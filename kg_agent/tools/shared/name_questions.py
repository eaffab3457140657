"""Questions about a thing's names and descriptions as the KG writes them: "what is the denarius called in Spanish",
"the German name of Jupiter", "by what other name is Messalina known", "in how many languages is Jupiter named", "what
is the comment on gene", "what is the full name of the airport with the code KEF".

Real KGs name things in many languages (Nomisma's ``skos:prefLabel`` in 172 language tags; Wikidata, DBpedia alike)
and give them other names (``skos:altLabel``, ``schema:alternateName`` ...). These names are no facts a walk goes
over (:meth:`~kg_agent.kg.naming.Naming.is_fact`), so no relation path answers such a question; it is answered here
from the literals of the linked thing's label and alias predicates (:class:`~kg_agent.kg.naming.Naming`, with the
label predicates the KG profile found), on every backend (:meth:`~kg_agent.kg.stores.base.GraphStore.name_literals`).

**The question** (:func:`name_question`) is read with English grammar only: a word of naming ("called", "named",
"name", "label", "known", "say", "word" ...) with a language ("in German" ending the question; "the German name
of"), a request for other names ("other / another / alternative name", "alias", "also known as", "nickname"), or
"how many languages" with a word of naming; not the names of a thing reached through another ("the synonyms of the
parent term of X") nor a superlative. The language is any language's English name or its own name, read from
published data (:mod:`~kg_agent.tools.shared.language_names`), and matched to the KG's language tags whatever their
form (``de``, ``de-AT``, ``ger``).

**The answer** (:func:`answer_from_names`): the thing's labels in the asked language (those of its most preferred
label predicate that has one; its aliases in that language when it has no label in it); its aliases (those in the
caller's languages, else all, its display label left out; "how many other names": their number, counted; with
none, the question is left to the relation paths, as the KG may state other names as facts, ``pgterms:alias``); or
the number of distinct language tags on its labels, with the tags counted as evidence (``counted``,
``counted_by``). Each answer carries its evidence: a one-step path from the thing to the literal, the step naming
the ``predicate`` and the ``language`` tag. When the KG has no such name, the method abstains with a plain reason
("the KG has no German name for Jupiter").

**A full name** ("the **full** / **official** name of [X]", :data:`~kg_agent.text.FULL_NAME_WORDS`): the longest of
the thing's names under the label and alias predicates (the KG profile's, so a name a KG writes under its own
predicate counts), leaving out the text the question named it by (a code: "the airport with the code KEF").

**Descriptions** (``rdfs:comment``, ``schema:description`` ...: the naming's description predicates, prose no walk
goes over either) are answered when the noun the question asks for is a description predicate's name
(:func:`description_asked`: "what is the **comment** on [X]", "[X]'s **description**", "describe [X]"), from the
linked thing's literals under it (:func:`answer_from_description`); when it has none, the relation paths are tried.

**With a model**, the names found are its evidence: RoG's and ToG's answerers are asked with them as the reasoning
paths (chains), and their grounding checks the reply against them; a count is computed, not asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rdflib import Literal, URIRef

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.terms import default_label, node_key
from kg_agent.text import FULL_NAME_WORDS, name_words, same_word
from kg_agent.tools.shared.language_names import language_autonym, language_name, language_tag, tag_language

#: What a name question asks (:attr:`NameQuestion.asks`).
IN_LANGUAGE = "in_language"
OTHER_NAMES = "other_names"
OTHER_NAMES_COUNT = "other_names_count"
LANGUAGE_COUNT = "language_count"
DESCRIPTION = "description"
FULL_NAME = "full_name"

_WORD = r"[^\W\d_][\w'-]*"
_NAMING = re.compile(r"\b(?:call(?:ed|s)?|nam(?:e|ed|es)|label(?:l?ed|s)?|known|say|said|spell(?:ed|s)?|spelt|"
                     r"translat(?:e|ed|es|ion|ions)|words?|terms?)\b", re.IGNORECASE)
_OTHER_NAMES = re.compile(r"\b(?:(?:other|another|alternative|alternate|different)\s+(?:names?|labels?)|"
                          r"alias(?:es)?|also\s+(?:known|called|named)|nicknames?|synonyms?)\b", re.IGNORECASE)
_HOW_MANY = re.compile(r"\bhow\s+many\b|\bnumber\s+of\b", re.IGNORECASE)
#: "the full name of ...", "its official title" (:data:`~kg_agent.text.FULL_NAME_WORDS`).
_FULL_NAME = re.compile(rf"\b(?:{'|'.join(sorted(FULL_NAME_WORDS))})\s+(?:names?|titles?)\b", re.IGNORECASE)
_SUPERLATIVE = re.compile(r"\bthe\s+(?:most|fewest|least)\b", re.IGNORECASE)
#: "... of the parent term of miRNA": the names asked are of a thing reached from the one named.
_THROUGH_ANOTHER = re.compile(rf"\s+(?:of|for)\s+(?:the|a|an)\s+{_WORD}(?:\s+{_WORD}){{0,3}}?\s+of\b", re.IGNORECASE)
_HOW_MANY_LANGUAGES = re.compile(r"\bhow\s+many\s+(?:different\s+)?languages\b", re.IGNORECASE)
#: "... in German?" ending the question (up to three words, tried longest first: "in Ancient Greek").
_IN_LANGUAGE = re.compile(rf"\bin\s+({_WORD}(?:\s+{_WORD}){{0,2}})\s*[?.!]*\s*$", re.IGNORECASE)
#: "the German name of ...", "Jupiter's Spanish label".
_LANGUAGE_BEFORE_NAME = re.compile(rf"\b({_WORD}(?:\s+{_WORD})?)\s+(?:names?|labels?|words?|terms?|translations?)\b",
                                   re.IGNORECASE)


@dataclass(frozen=True)
class NameQuestion:
    """What a question about names asks: ``asks`` (:data:`IN_LANGUAGE`, :data:`OTHER_NAMES`,
    :data:`LANGUAGE_COUNT`), the ``language`` subtag asked for (``"de"``; empty when none) and the words that named it
    (``language_words``: "German")."""

    asks: str
    language: str = ""
    language_words: str = ""


def name_question(question: str) -> NameQuestion | None:
    """The question's reading as a question about names (module docstring), or None: also for names of a thing
    the question reaches through another ("the synonyms of the parent term of miRNA": ``of the ... of``) and for
    a superlative ("which terms have the most synonyms"), which the relation paths and aggregates answer."""
    if _SUPERLATIVE.search(question):
        return None
    if _HOW_MANY_LANGUAGES.search(question):
        return NameQuestion(LANGUAGE_COUNT) if _NAMING.search(question) else None
    language, words = _asked_language(question)
    other = _OTHER_NAMES.search(question)
    if other:
        if _THROUGH_ANOTHER.match(question, other.end()):
            return None
        return NameQuestion(OTHER_NAMES_COUNT if _HOW_MANY.search(question) else OTHER_NAMES, language, words)
    full = _FULL_NAME.search(question) if not language else None
    if full:
        return None if _THROUGH_ANOTHER.match(question, full.end()) else NameQuestion(FULL_NAME)
    naming = _NAMING.search(question.replace(words, " ")) if language else None
    if naming and _THROUGH_ANOTHER.search(question, naming.end()):
        return None
    if language and _NAMING.search(question.replace(words, " ")):
        return NameQuestion(IN_LANGUAGE, language, words)
    return None


def _asked_language(question: str) -> tuple[str, str]:
    """``(subtag, words)`` of the language the question names ("in German" at its end, or "the German name"), else
    ``("", "")``."""
    cased = any(c.isupper() for c in question[1:])
    found = _IN_LANGUAGE.search(question)
    if found:
        hit = _longest_language(found.group(1).split(), cased=cased)
        if hit:
            return hit
    for found in _LANGUAGE_BEFORE_NAME.finditer(question):
        hit = _longest_language(found.group(1).split(), cased=cased)
        if hit:
            return hit
    return "", ""


#: English determiners: never part of a language's name in a question ("the name of ..."; "The" is a language of Laos).
_DETERMINERS = frozenset({"the", "a", "an", "this", "that", "these", "those", "its", "his", "her", "their", "my",
                          "your", "our", "what", "which", "whose", "another", "other"})


def _longest_language(words: Sequence[str], *, cased: bool) -> tuple[str, str] | None:
    """The longest tail of ``words`` that names a language; in a ``cased`` question (one with capitals past its first
    letter) written as English writes a language's name, capitalised, or as the language writes its own name."""
    for start in range(len(words)):
        tail = words[start:]
        if any(w.lower() in _DETERMINERS for w in tail):
            continue
        text = " ".join(tail)
        tag = language_tag(text)
        if tag and (not cased or text[:1].isupper() or text == language_autonym(tag)):
            return tag, text
    return None


@dataclass
class NamesAnswer:
    """What :func:`answer_from_names` found: the ``answers`` (none: abstained) and ``what`` was done or why nothing
    was answered, in plain words."""

    answers: list[dict]
    what: str
    asks: str = IN_LANGUAGE

    @property
    def evidence(self) -> list[dict]:
        """The names found, as one-step paths from the thing to each literal (a model's reasoning paths)."""
        return [a["paths"][0] for a in self.answers if a.get("paths")]

    @property
    def for_a_model(self) -> bool:
        """Whether a model answers from the names found (some were found, and no count: a count is computed)."""
        return bool(self.answers) and self.asks not in (LANGUAGE_COUNT, OTHER_NAMES_COUNT)


#: "what is the comment on ...", "give me the definition of ...", "[X]'s description": the word at ``(?P<word>)`` is
#: the thing asked for, with one or two modifiers before it ("the official definition of").
_ASKED_NOUN = re.compile(rf"^\s*(?:(?:what|which)(?:'s|\s+is|\s+are|\s+was|\s+were)|(?:give|show|tell|read)\s+me)\s+"
                         rf"(?:the|its|his|her|their|a|an)\s+(?:{_WORD}\s+){{0,2}}?(?P<word>{_WORD})\s+"
                         rf"(?:of|on|for|about|in)\b|'s\s+(?P<own>{_WORD})\s*[?.!]*\s*$", re.IGNORECASE)
_DESCRIBE = re.compile(r"^\s*(?:please\s+)?(?P<word>describe)\b", re.IGNORECASE)
#: "... on the parent of gene": the description asked is of a thing reached from the one named.
_DESCRIBED_THROUGH = re.compile(rf"\s+(?:of|on|for|about|in)\s+(?:the|a|an)\s+{_WORD}(?:\s+{_WORD}){{0,3}}?\s+of\b",
                                re.IGNORECASE)


def description_asked(kg: KnowledgeGraph, question: str) -> str | None:
    """The description predicate (:attr:`~kg_agent.kg.naming.Naming.description_predicates`) whose name the question
    asks for ("what is the **comment** on [X]" and ``rdfs:comment``; "**describe** [X]" and a ``description``), by
    its name's stem (:func:`~kg_agent.text.same_word`), the word being the noun asked for, not
    one further on ("which references support the definition of [X]" asks for references); None for any other
    question, and for a description of a thing reached through another ("the comment on the parent of [X]")."""
    found = _ASKED_NOUN.search(question) or _DESCRIBE.search(question)
    if found is None:
        return None
    word = (found.group("word") or found.group("own") or "").casefold()
    if found.group("word") and _DESCRIBED_THROUGH.match(question, found.end("word")):
        return None
    for predicate in kg.naming.description_predicates:
        names = {default_label(URIRef(predicate)), kg.label(predicate) or ""}
        if any(same_word(word, w) for name in names for w in name_words(name)
               if len(w) > 3):
            return predicate
    return None


def answer_from_description(kg: KnowledgeGraph, question: str, topics: Sequence[dict], predicate: str) -> NamesAnswer | None:
    """The linked thing's literals under the description ``predicate`` the question asks for (in the caller's
    languages when it has any there), each with its one-step path; None when it has none (the relation paths are
    tried: the KG may state it as a fact)."""
    candidates = [t["id"] for t in topics]
    literals = kg.store.name_literals(candidates, [predicate])
    key = next((k for k in candidates if literals.get(k)), None)
    if key is None:
        return None
    texts = [(p, text, tag or "") for p, text, tag in literals[key] if text.strip()]
    shown = [n for n in texts if kg.naming.in_languages(n[2] or None)] or texts
    label = kg.label(key) or key
    start = {"id": key, "label": label}
    relation = default_label(URIRef(predicate))
    answers = []
    for p, text, tag in shown:
        end = node_key(Literal(text, lang=tag or None))
        step = {"head": start, "relation": relation, "predicate": p, "language": tag, "tail": {"id": end, "label": text}}
        path = {"text": f"{label} -> {relation} -> {text}", "start": start, "steps": [step]}
        answers.append({"answer": text, "entity_id": end, "score": 1.0, "grounded": True, "paths": [path]})
    return NamesAnswer(_distinct(answers), f"{label}'s {relation}, read from its descriptions", DESCRIPTION)


def answer_from_names(kg: KnowledgeGraph, question: str, topic_entities: Sequence[dict]) -> NamesAnswer | None:
    """The answer to a question about a linked thing's names or its description (module docstring) from the KG's
    name and description literals; None when the question is no such question or no thing was linked (beyond the
    language's own name)."""
    asked = name_question(question)
    if asked is None:
        described = description_asked(kg, question)
        topics = [t for t in topic_entities if t.get("id") and not t["id"].startswith('"')]
        return answer_from_description(kg, question, topics, described) if described and topics else None
    words = asked.language_words.casefold()
    topics = [t for t in topic_entities if t.get("id") and not t["id"].startswith('"')
              and not (words and str(t.get("mention") or "").casefold() in words)]
    if not topics:
        return None
    naming = kg.naming
    key, literals = _named_thing(kg, topics)
    if not literals:  # the thing's names are under predicates the naming does not read: nothing to say of them
        return None
    if asked.asks in (OTHER_NAMES, OTHER_NAMES_COUNT) and _names_a_fact(kg, key, question):
        return None  # "the alternate names of [X]" where [X] has an ``alternateName`` fact: walked as any relation
    label = kg.label(key) or key
    start = {"id": key, "label": label}
    label_rank = {iri: at for at, iri in enumerate(naming.label_predicates)}
    labels = sorted((label_rank[p], p, text, tag or "") for p, text, tag in literals if p in label_rank and text.strip())
    aliases = sorted((at, p, text, tag or "") for at, p in enumerate(naming.alias_predicates)
                     for q, text, tag in literals if q == p and p not in label_rank and text.strip())

    def record(predicate: str, text: str, tag: str) -> dict:
        relation, end = default_label(URIRef(predicate)), node_key(Literal(text, lang=tag or None))
        step = {"head": start, "relation": relation, "predicate": predicate, "language": tag,
                "tail": {"id": end, "label": text}}
        path = {"text": f"{label} -> {relation}{'@' + tag if tag else ''} -> {text}", "start": start, "steps": [step]}
        return {"answer": text, "entity_id": end, "score": 1.0, "grounded": True, "paths": [path]}

    if asked.asks == LANGUAGE_COUNT:
        tagged: dict[str, tuple] = {}
        for _, predicate, text, tag in labels:
            if tag:
                tagged.setdefault(tag.lower(), (predicate, text, tag))
        if not tagged:
            return NamesAnswer([], f"the KG gives {label} no label in a tagged language", LANGUAGE_COUNT)
        paths = [record(*found)["paths"][0] for found in tagged.values()]
        by = sorted({default_label(URIRef(p)) for p, _, _ in tagged.values()})
        return NamesAnswer([{"answer": str(len(tagged)), "entity_id": None, "score": 1.0, "grounded": True,
                             "paths": paths, "counted": sorted(tagged), "counted_by": f"the language tags of "
                             f"{label}'s labels ({', '.join(by)})"}],
                           f"{label} is named in {len(tagged)} languages (distinct language tags of its labels)",
                           LANGUAGE_COUNT)
    if asked.asks == FULL_NAME:
        # the whole name: the longest of the thing's names in the caller's languages, not the one the question named
        # it by ("the full name of the airport with the code KEF": its code is no answer)
        mentions = {str(t.get("mention") or "").strip().casefold() for t in topics}
        names = [n for n in labels + aliases if n[2].strip().casefold() not in mentions]
        names = [n for n in names if naming.in_languages(n[3] or None)] or names
        if not names:
            return None
        longest = max(len(n[2].strip()) for n in names)
        return NamesAnswer(_distinct(record(p, text, tag) for _, p, text, tag in names if len(text.strip()) == longest),
                           f"{label}'s full name: the longest of its names, read from its labels and aliases", FULL_NAME)
    wanted = asked.language
    in_language = [n for n in (labels if asked.asks == IN_LANGUAGE else aliases)
                   if not wanted or tag_language(n[3]) == wanted]
    language = language_name(wanted) if wanted else ""
    if asked.asks == IN_LANGUAGE:
        found = [n for n in in_language if n[1] == in_language[0][1]] if in_language else []
        if not found:
            found = [n for n in aliases if tag_language(n[3]) == wanted]
            found = [n for n in found if n[1] == found[0][1]]
        if not found:
            return NamesAnswer([], f"the KG has no {language} name for {label}")
        answers = _distinct(record(p, text, tag) for _, p, text, tag in found)
        return NamesAnswer(answers, f"{label}'s {language} name, read from its labels")
    others = [n for n in in_language if n[2].strip().casefold() != (label or "").casefold()]
    if asked.asks == OTHER_NAMES_COUNT:
        if not others:
            return None
        names = _distinct(record(p, text, tag) for _, p, text, tag in others)
        by = sorted({default_label(URIRef(n[1])) for n in others})
        return NamesAnswer([{"answer": str(len(names)), "entity_id": None, "score": 1.0, "grounded": True,
                             "paths": [a["paths"][0] for a in names], "counted": [a["answer"] for a in names],
                             "counted_by": f"{label}'s aliases ({', '.join(by)})"}],
                           f"{label} has {len(names)} other names (distinct texts of its aliases)", OTHER_NAMES_COUNT)
    shown = [n for n in others if naming.in_languages(n[3] or None)] or others
    if not shown:  # no alias literal: the KG may state other names as facts (``pgterms:alias``), walked as any
        return None
    return NamesAnswer(_distinct(record(p, text, tag) for _, p, text, tag in shown),
                       f"{label}'s other names, read from its aliases", OTHER_NAMES)


def _names_a_fact(kg: KnowledgeGraph, key: str, question: str) -> bool:
    """Whether the words asking for other names ("the **alternate names** of [X]") name in full a relation of the
    thing that is a fact, no label or alias predicate of the naming (an ``alternateName`` whose texts the KG profile
    did not take for aliases, while a one-word code beside them was): the question asks for that relation's values,
    not for the aliases found."""
    found = _OTHER_NAMES.search(question)
    words = name_words(found.group()) if found else []
    naming = kg.naming
    names = {*naming.label_predicates, *naming.alias_predicates}
    for relation in kg.relations(key, direction="out"):
        own = name_words(relation)
        if own and all(any(same_word(w, asked) for asked in words) for w in own) and kg.relation_iri(relation) not in names:
            return True
    return False


def _named_thing(kg: KnowledgeGraph, topics: Sequence[dict]) -> tuple[str, list]:
    """The thing asked about and its name literals: the first linked thing the KG gives a name literal, looked for
    among the linked things and then the things the KG names with the same words (a nameless IRI whose local name
    matched, ``.../currency/denarius``, is not what a question about names is about); the first linked thing when
    none has a name."""
    candidates = [t["id"] for t in topics]
    for topic in topics:
        mention = str(topic.get("mention") or "").strip()
        if mention:
            candidates.extend(e.id for e in kg.find_entities(mention))
    candidates = list(dict.fromkeys(candidates))
    literals = kg.store.name_literals(candidates, kg.naming.name_predicates)
    for key in candidates:
        if literals.get(key):
            return key, literals[key]
    return candidates[0], []


def _distinct(answers) -> list[dict]:
    kept: dict[str, dict] = {}
    for answer in answers:
        kept.setdefault(answer["answer"], answer)
    return list(kept.values())
