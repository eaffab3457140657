"""Questions that ask for a thing by a word the KG's vocabulary has nowhere: abstain, saying which word.

A question names what it asks for. "What **key** is [X] written in?" asks for a key; "Who **designed** the **cover**
of [X]?" for the designer of a cover. When a walk reaches things anyway (``writer`` for "written", ``artist`` for
"who"), what they are is told by the relation that reached them and by their classes, and a KG that can answer
names the asked-for word somewhere in its own vocabulary: a relation's name, label, alias or description
(``hasKey``, "tonality: the key of a piece"), or a class's name ("Musical key"). When the word is named by none of
the KG's relations and none of its classes, the KG holds no such thing: the things reached are something else (the
song's writer, the album's artist), and the method abstains: "the knowledge graph has no relation for 'key'".

Two shapes of English are read, both where the word is the asked-for thing beyond doubt:

* **"What / which <noun>"** whose noun heads its phrase (a function word, a mention or the end follows: "what
  **key** is [X] ...", not "which research track papers"), with no wh-kind of its own (a time, a place) and not one
  of English's words for a kind ("what **kind** of music": :data:`~kg_agent.tools.shared.answer_types.NOUN_FAMILIES`,
  whose noun is the one after "of"); a noun followed by a regular past-tense verb and its object heads its phrase
  too ("which **committee** discussed the question [X]": a word in "-ed" then an article or the entity).
* **"Who <verb> the <noun> of [X]"** ("who **designed** the **cover** of [X]", "who **directed** the music **video**
  for [X]"): a relational noun (or a two-word compound, read by its head) after "who" and a verb, joined to the
  entity by "of" or "for"; the verb may name the relation (``writer`` for "who wrote the lyrics of [X]"), so both
  must be unnamed.

A word names a relation when it is one of the relation's name, alias or description words (up to an ending,
:func:`~kg_agent.text.same_word`), names its objects (:meth:`~kg_agent.tools.shared.answer_types.AskedType.named_by`),
or the relation-path scorer evidences the relation by it at the floor of a hop (stems, MiniLM cosine, paraphrase:
:meth:`~kg_agent.tools.shared.path_scoring.RelationPathScorer.named_hops`); it names a class as the type constraints
read it (:class:`~kg_agent.tools.shared.answer_classes.ClassNames`). A KG whose classes are not all known, or with
more relations than the scorer compares, is not judged. Only answers that are things are judged here (literals:
:mod:`~kg_agent.tools.shared.unsupported_asks`). English grammar and the KG's own names are read; no word list of a
domain.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from kg_agent.kg.errors import KGError
from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import own_name_words
from kg_agent.kg.terms import local_name
from kg_agent.kg.types import base_relation
from kg_agent.text import ARTICLES, FUNCTION_WORDS, content_words, name_words, same_word
from kg_agent.text import words as text_words
from kg_agent.tools.shared.aggregates import literal_text
from kg_agent.tools.shared.answer_types import NOUN_FAMILIES, PERSON, AskedType, literal_answer_kind
from kg_agent.tools.shared.constraints import MAX_KIND_WORDS
from kg_agent.tools.shared.named_by_kg import kind_named
from kg_agent.tools.shared.path_scoring import MAX_COMPETING_RELATIONS, RelationPathScorer
from kg_agent.tools.shared.question_parts import ENTITY_TOKEN, NO_RELATION_WORDS, QuestionParts

#: Relations shown in a reason.
SHOWN = 3
#: Answers, and values of each, read for what the KG says of them (:func:`_said_of_the_answers`).
MAX_ANSWERS_READ = 20
MAX_VALUES_READ = 20
#: Words of the noun in "who <verb> the <noun> of [X]" (a compound: "the music video"); its head is the last.
MAX_COMPOUND = 2
#: The prepositions joining that noun to the entity it belongs to: "the cover **of** [X]", "the video **for** [X]".
OBJECT_PREPOSITIONS = ("of", "for")
#: Longest ending told apart from a compound ("industries" / "industry": 2; "key" / "keyboard": 5).
MAX_ENDING = 3
#: The ending of English's regular past tense and past participle ("discussed", "signed"): read as a verb after the
#: asked noun when an article or the entity follows (:func:`_verb_follows`).
PAST_ENDING = "ed"


def asked_words(masked_question: str) -> tuple[str, ...]:
    """The words by which the question names the thing it asks for (module docstring): ``("key",)`` for "what key is
    [ENT] written in", ``("designed", "cover")`` for "who designed the cover of [ENT]"; () for any other question."""
    parts = QuestionParts.of(masked_question)
    asked, tokens = parts.asked, parts.tokens
    at = asked.position
    if asked.noun and not asked.kind and not asked.modifiers:
        after = tokens[at + 1] if at + 1 < len(tokens) else ""
        heads = not after or after == ENTITY_TOKEN or after in FUNCTION_WORDS or _verb_follows(tokens, at)
        kind_word = any(asked.noun in family or asked.noun.removesuffix("s") in family for family in NOUN_FAMILIES)
        opened = tokens[max(0, at - 2):at] != ("how", "many")  # "how many <noun>" counts: no thing asked for
        return (asked.noun,) if heads and opened and not kind_word and asked.noun.isalpha() else ()
    if asked.kind == PERSON and tokens[at:at + 1] == ("who",) and at + 4 < len(tokens):
        verb, article = tokens[at + 1:at + 3]
        # the noun, or a compound's head ("the music **video** for [X]"), then "of" / "for" and the entity
        for length in range(1, MAX_COMPOUND + 1):
            nouns, of = tokens[at + 3:at + 3 + length], tokens[at + 3 + length:at + 5 + length]
            if len(of) == 2 and of[0] in OBJECT_PREPOSITIONS and of[1] == ENTITY_TOKEN:
                break
        else:
            return ()
        if (article in ARTICLES and verb.isalpha() and all(n.isalpha() and n not in NO_RELATION_WORDS for n in nouns)
                and verb not in NO_RELATION_WORDS):
            return verb, nouns[-1]
    return ()


def _verb_follows(tokens: Sequence[str], at: int) -> bool:
    """Whether the noun at ``at`` is followed by a regular past-tense verb and its object ("which **committee**
    discussed the question [X]", "which committee reviewed [X]"): the noun then heads its phrase, as a verb ends a
    noun phrase; a word in "-ed" followed by an article or the entity is a verb in English, not a noun of a compound
    ("which research track papers" is not read)."""
    verb, then = tokens[at + 1:at + 2], tokens[at + 2:at + 3]
    return (bool(verb) and bool(then) and verb[0].isalpha() and verb[0].endswith(PAST_ENDING)
            and len(verb[0]) > len(PAST_ENDING) + 1 and verb[0] not in NO_RELATION_WORDS
            and (then[0] in ARTICLES or then[0] == ENTITY_TOKEN))


def unnamed_thing(masked_question: str, answers: Sequence[dict], kg: KnowledgeGraph, scorer: RelationPathScorer,
                  class_named: Callable[[str], bool]) -> tuple[list[dict], str] | None:
    """No answer and why, when the answers are things and the words the question asks for them by
    (:func:`asked_words`) name no relation and no class of the KG (module docstring); None otherwise.
    ``class_named(word)``: whether the word names a class of the KG (True when the KG's classes are not all known)."""
    if not answers or any(literal_answer_kind(a) for a in answers):
        return None
    words = asked_words(masked_question)
    if not words:
        return None
    try:
        relations = kg.relation_names()
        if not relations or len(relations) > MAX_COMPETING_RELATIONS:
            return None
        if any(kind_named(w, kg, class_named) for w in words):
            return None
        if any(_names_a_relation(w, relations, kg) for w in words):
            return None
        if scorer.named_hops(" ".join(words), relations, kg=kg):
            return None
        if any(_said_of_the_answers(w, answers, kg) for w in words):
            return None
    except KGError:
        return None
    ends = sorted({step["relation"] for a in answers for p in a.get("paths") or () for step in (p.get("steps") or ())[-1:]})
    said = " ".join(words) if len(words) == 1 else f"{words[0]} the {words[1]}"
    over = f"; the walks end in {', '.join(ends[:SHOWN])}, which answer something else" if ends else ""
    return [], (f"the knowledge graph has no relation for {said!r} (no relation or class of the knowledge graph is "
                f"named so{over})")


def _said_of_the_answers(word: str, answers: Sequence[dict], kg: KnowledgeGraph) -> bool:
    """Whether the KG says ``word`` of some answer: in its name or its IRI's local name, in a short value of its own (a category "Research
    Track Paper", at most :data:`~kg_agent.tools.shared.constraints.MAX_KIND_WORDS` words: a longer one is prose) or
    in the name of a thing it points to (a film's scheme "Film thesaurus", a genre "film romantique"): what the KG
    calls its things, beside its classes."""
    keys = [str(a["entity_id"]) for a in answers[:MAX_ANSWERS_READ] if a.get("entity_id")
            and not str(a["entity_id"]).startswith(('"', "_:"))]
    # its name, and the local name of its IRI (".../proceedings/paper-36": the KG calls it a paper)
    said = [str(a.get("answer") or "") for a in answers[:MAX_ANSWERS_READ]] + [" ".join(name_words(local_name(k))) for k in keys]
    kg.prefetch(keys)
    pointed: list[str] = []
    for key in keys:
        for relation, targets in kg.edges(key).items():
            if relation.startswith("^"):
                continue
            for target in targets[:MAX_VALUES_READ]:
                if target.startswith('"'):
                    said.append(literal_text(target))
                elif not target.startswith("_:"):
                    pointed.append(target)
    said += kg.labels_by_id(list(dict.fromkeys(pointed))[:MAX_ANSWERS_READ * MAX_VALUES_READ]).values()
    return any(_one_word(word, w) for text in said if len(found := text_words(text)) <= MAX_KIND_WORDS for w in found)


def _one_word(a: str, b: str) -> bool:
    """:func:`~kg_agent.text.same_word`, but not a word and a compound that starts with it ("key", "keyboards")."""
    return abs(len(a) - len(b)) <= MAX_ENDING and same_word(a, b)


def _names_a_relation(word: str, relations: Sequence[str], kg: KnowledgeGraph) -> bool:
    """Whether ``word`` is a word of some relation's name, its IRI's local name (a label may say another thing:
    ``:member`` labelled "name"), aliases or description, or names its objects."""
    asked = AskedType(noun=word)
    for relation in relations:
        if asked.named_by(relation):
            return True
        vocabulary = [*own_name_words(relation), *name_words(local_name(kg.relation_iri(relation)))]
        for alias in kg.relation_aliases(relation):
            vocabulary += text_words(alias)
        vocabulary += text_words(kg.relation_description(base_relation(relation)) or "")
        if any(same_word(word, w) for w in content_words(vocabulary, FUNCTION_WORDS)):
            return True
    return False
