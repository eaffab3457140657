"""The English text kit: the words of questions and of a KG's names, one copy for every reader (entity linking in
``kg/``, the question readers and scorers in ``tools/``).

* tokenising: :func:`words` (ASCII letters and digits, lower case: English questions, relation and class names),
  :func:`label_words` (letters and digits of any script: the labels of things, which are in every language);
* splitting names: :func:`separate_words` / :func:`name_words` / :func:`name_phrase` cut a camelCase, snake_case or
  kebab-case name, or an IRI's local name, into its words (``birthPlace`` -> "birth place");
* stemming: :func:`stem` / :func:`stems` (the first :data:`STEM_LETTERS` letters: ``directed``/``director`` ->
  ``dire``), :func:`word_match` (how surely two words share a root) and :func:`same_word` (one word up to an ending);
* function words: :data:`FUNCTION_WORDS`, English closed-class words, the union of the groups below (each a class of
  English grammar), and :func:`content_words`; :data:`REQUEST_VERBS` and :data:`NAME_PARTICLES` are the only other
  lists, each for the one reader that needs it.

Generic English only: no word of a data set's relations or phrasing. It imports nothing of kg_agent, so every layer
can use it (it sits beside ``settings.py`` below ``kg/``, ``tools/`` and ``graphs/``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# --- closed-class English words, by class -------------------------------------------------------------------------

ARTICLES = frozenset({"a", "an", "the"})
#: Finite forms of "to be" ("what **was** the first ...").
BE_WORDS = frozenset({"is", "are", "was", "were"})
#: Its infinitive and participles ("has **been**").
BE_NONFINITE = frozenset({"be", "been", "being"})
#: Forms of "to have" ("which term **has** the most ...").
HAVE_WORDS = frozenset({"has", "have", "had"})
#: Forms of "to do" ("what **does** [X] do").
DO_WORDS = frozenset({"do", "does", "did"})
#: The finite auxiliaries a question opens a clause with ("what **is** the most common ...", "**does** [X] ...").
AUXILIARIES = BE_WORDS | HAVE_WORDS | DO_WORDS
MODALS = frozenset({"can", "could", "would", "should", "will", "shall", "may", "might", "must"})
#: The interrogative words a question asks by.
WH_WORDS = frozenset({"what", "which", "who", "whom", "whose", "when", "where", "why", "how"})
#: The object form of "who" ("to **whom** was [X] addressed"): asks for the party a verb or preposition names, which
#: English does not restrict to persons (``tools/shared/class_split``).
OBJECT_WH = "whom"
DEMONSTRATIVES = frozenset({"this", "that", "these", "those"})
#: Personal and possessive pronouns, and existential "there".
PRONOUNS = frozenset({"i", "me", "my", "we", "our", "you", "your", "he", "him", "his", "she", "her", "it", "its",
                      "they", "them", "their", "there"})
#: The possessive determiners of English ("**their** first album"): a noun phrase's determiner as "the" is.
POSSESSIVE_DETERMINERS = frozenset({"my", "our", "your", "his", "her", "its", "their"})
PREPOSITIONS = frozenset({"of", "in", "on", "at", "to", "for", "from", "by", "with", "into", "about", "as", "than"})
CONJUNCTIONS = frozenset({"and", "or", "but", "then"})
#: Determiners that quantify or compare ("**any** film", "the **same** genre", "**other** books").
QUANTIFIERS = frozenset({"any", "some", "all", "no", "other", "same"})
#: Negation, assent and "also".
PARTICLES = frozenset({"not", "yes", "also"})

#: English function words: the closed classes above. Never a mention on their own, not the words of a relation's
#: name, not a question's content words.
FUNCTION_WORDS = (ARTICLES | AUXILIARIES | BE_NONFINITE | MODALS | WH_WORDS | DEMONSTRATIVES | PRONOUNS
                  | PREPOSITIONS | CONJUNCTIONS | QUANTIFIERS | PARTICLES)

#: The prepositions that mark where a movement or a link starts ("flights **from** [X]") and where it ends ("ferries
#: **to** [X]", "**into** [X]"): read where a relation joins two things of one class and its name says no direction
#: (``tools/shared/peer_relations``).
SOURCE_PREPOSITIONS = frozenset({"from"})
TARGET_PREPOSITIONS = frozenset({"to", "into", "towards"})
#: The conjunctions that join two things of one kind ("both the imperial **and** the US customary system"): read
#: where a question names things side by side (``linking._coordinated_alike``).
COORDINATORS = frozenset({"and", "or", "nor"})
#: The pronouns that open a relative clause ("the unit **that** [X] is a scaling of"): read where a noun heads one
#: (``question_parts.QuestionParts.clause_heads``).
RELATIVE_PRONOUNS = frozenset({"that", "which", "who", "whom"})
#: Verbs that say only that something happened or came to be, the event named by their complement or subject ("when
#: did [X] **become** emperor", "when did [X] **take** place"), in their plain and past forms: read where a time
#: question's verb must name an event of its own (``path_scoring``).
EVENTLESS_VERBS = frozenset({"become", "became", "happen", "happened", "occur", "occurred", "take", "took", "get", "got",
                             "come", "came"})

#: The imperatives a request opens with ("**name** the films ...", "**list** ...", "**tell** me", "**give** me"):
#: open-class verbs, so not function words, but a question's words that ask rather than name what is asked. Only the
#: relation-path scorer's question reader adds them (``question_parts.QUESTION_WORDS``): entity linking must still
#: find a thing or a relation named "list" or "name".
REQUEST_VERBS = frozenset({"name", "list", "tell", "give"})

#: English nouns for a body of data itself ("how many countries are there in the air routes **data**", "in the
#: **graph**", "in this **dataset**"): a question placing what it counts in one of them asks about the whole KG, not
#: about a thing the KG names. Read by ``tools/shared/whole_graph``.
DATA_WORDS = frozenset({"data", "dataset", "datasets", "database", "databases", "graph", "kg", "kb"})

#: English adjectives asking for a thing's whole name rather than a short one ("the **full** name of KEF", "its
#: **official** title"): read by ``tools/shared/name_questions`` (the longest name the KG gives, not the code asked by).
FULL_NAME_WORDS = frozenset({"full", "official", "complete", "formal", "long", "longer", "whole", "entire"})

#: Words a personal name holds that are not names of their own: nobiliary particles ("Ludwig **van** Beethoven",
#: "Simone **de** Beauvoir") and generational suffixes ("Martin Luther King **Jr**"). Read only where a question's
#: words are matched against a label's (``scoring.approximate_mention``).
NAME_PARTICLES = frozenset({"de", "la", "le", "von", "van", "jr", "sr"})

#: The months of the Gregorian calendar by their English names and usual abbreviations, with their numbers ("on 12
#: **April** 1961", "in **Sept.** 1965"): a closed class of English, read where a question names a date
#: (``tools/shared/time_phrases``).
MONTHS = {name: number for number, names in enumerate(
    (("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
     ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
     ("december", "dec")), start=1) for name in names}
#: The English markers of a year's era, before or after the number ("44 **BC**", "**AD** 79"): the ones counting back.
ERAS_BEFORE = frozenset({"bc", "bce"})
#: ... and the ones counting forward.
ERAS_AFTER = frozenset({"ad", "ce"})

#: English number words up to twelve ("more than **one** runway", "at least **two** moons"): a closed class, read
#: where a question bounds a count or a measure (``tools/shared/aggregates``).
NUMBER_WORDS = {name: number for number, name in enumerate(
    ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"))}

#: English adjectives of a dimension (positive forms; comparatives and superlatives read by :func:`dimension_of`)
#: and the English nouns naming that dimension ("**higher** than 1500 feet" is said of a height, an elevation or an
#: altitude; "the **longest**" of a length): a closed class of English, by which a comparison finds the relation
#: whose name says it holds that dimension.
DIMENSION_NOUNS = {
    **dict.fromkeys(("high", "low"), ("height", "elevation", "altitude")),
    "tall": ("height",),
    **dict.fromkeys(("long", "short"), ("length",)),
    **dict.fromkeys(("wide", "narrow"), ("width", "breadth")),
    **dict.fromkeys(("deep", "shallow"), ("depth",)),
    **dict.fromkeys(("heavy", "light"), ("weight", "mass")),
    **dict.fromkeys(("far", "near"), ("distance",)),
}
#: English adjectives of a measure that follow its unit ("two metres **long**", "five years **old**", "ten miles
#: **away**"): after "how many <unit>" they ask for the measure of one thing ("how many pages long is [X]"), a number
#: the KG states, not for a count of things. A closed class of English.
UNIT_MEASURE_ADJECTIVES = frozenset({"long", "tall", "high", "wide", "deep", "thick", "old", "heavy", "away"})
#: English units of length and of mass, singular and plural, with their usual abbreviations ("1500 **feet**",
#: "20 **kg**"), and the dimension nouns a number said in one may measure: a closed class of English.
_LENGTH = ("length", "height", "elevation", "altitude", "width", "breadth", "depth", "distance")
UNIT_DIMENSIONS = {
    **dict.fromkeys(("foot", "feet", "ft", "metre", "metres", "meter", "meters", "m", "kilometre", "kilometres",
                     "kilometer", "kilometers", "km", "mile", "miles", "yard", "yards", "inch", "inches", "cm",
                     "centimetres", "centimeters"), _LENGTH),
    **dict.fromkeys(("kilogram", "kilograms", "kg", "gram", "grams", "g", "pound", "pounds", "lb", "lbs", "tonne",
                     "tonnes", "ton", "tons"), ("weight", "mass")),
}
#: English units of time and their usual abbreviations, each in seconds ("shorter than a **minute**", "longer than 2
#: **hours**"; a closed class of English and the SI's definitions). One-letter abbreviations ("s", "h") are left out:
#: too many other words are written so. A relation whose name or description says its unit ("the length of a song
#: expressed in seconds") is compared with a bound said in another unit once the bound is converted.
DURATION_SECONDS = {
    **dict.fromkeys(("millisecond", "milliseconds", "ms"), 0.001),
    **dict.fromkeys(("second", "seconds", "sec", "secs"), 1.0),
    **dict.fromkeys(("minute", "minutes", "min", "mins"), 60.0),
    **dict.fromkeys(("hour", "hours", "hr", "hrs"), 3600.0),
    **dict.fromkeys(("day", "days"), 86400.0),
}
#: The dimension nouns a number said in a unit of time may measure ("shorter than a minute": a length of time).
_DURATION = ("duration", "length", "runtime", "time")
UNIT_DIMENSIONS.update(dict.fromkeys(DURATION_SECONDS, _DURATION))
#: The indefinite articles, read as the number one before a unit ("shorter than **a** minute", "higher than **a**
#: mile"): English grammar.
INDEFINITE_ARTICLES = frozenset({"a", "an"})


def dimension_of(adjective: str) -> tuple[str, ...]:
    """The dimension nouns of an English dimension adjective in any degree (:data:`DIMENSION_NOUNS`): ``higher`` ->
    ``("height", "elevation", "altitude")``, ``heaviest`` -> ``("weight", "mass")``, ``wider``; () for any other
    word."""
    word = adjective.lower()
    for base in (word, word.removesuffix("er"), word.removesuffix("est"), word.removesuffix("r"),
                 word.removesuffix("st"), word.removesuffix("ier") + "y", word.removesuffix("iest") + "y"):
        if base in DIMENSION_NOUNS:
            return DIMENSION_NOUNS[base]
    return ()


#: English quantifying determiners of amount ("how **many** airports", "the **most** books"): the grammar of a count or
#: a superlative, never the first word of a name an acronym abbreviates (``kg/linking``'s initials).
AMOUNT_DETERMINERS = frozenset({"many", "much", "more", "most", "few", "fewer", "fewest", "less", "least", "several"})

#: The WH words that stand before a noun as its determiner ("**which** album", "**what** album"): the noun is then
#: the type a question asks for (``kg/qualified_names``).
WH_DETERMINERS = frozenset({"which", "what"})
#: English's ordinals of order in a series ("the **first** album", "the **last** book"): a word that picks one of
#: a kind by its place, never a noun in apposition to a name (``kg/qualified_names``).
ORDER_WORDS = frozenset({"first", "second", "third", "fourth", "fifth", "last", "latest", "earliest", "next",
                         "previous", "final", "only"})

#: A content word has at least this many letters ("of", "in", "to" never are).
MIN_CONTENT_LETTERS = 3


def content_words(words: Iterable[str], function_words: frozenset[str] = FUNCTION_WORDS) -> list[str]:
    """The words that are not ``function_words`` and have :data:`MIN_CONTENT_LETTERS` letters or more, in order."""
    return [w for w in words if w not in function_words and len(w) >= MIN_CONTENT_LETTERS]


# --- tokenising -----------------------------------------------------------------------------------------------------

_ASCII_WORD = re.compile(r"[a-z0-9]+")
_ASCII_LETTERS = re.compile(r"[a-z]+")
_ANY_WORD = re.compile(r"[^\W_]+")


def words(text: str) -> list[str]:
    """``text``'s runs of ASCII letters and digits, in lower case: ``"Who directed Film_2?"`` -> ``["who",
    "directed", "film", "2"]`` (an English question, a relation's or a class's name)."""
    return _ASCII_WORD.findall(text.lower())


def label_words(text: str) -> list[str]:
    """``text``'s runs of letters and digits of any script, in lower case (``"Gdańsk, 1997"`` -> ``["gdańsk",
    "1997"]``): the words of labels, which a KG writes in every language."""
    return _ANY_WORD.findall(text.lower())


# --- splitting names ------------------------------------------------------------------------------------------------

#: Where a camelCase name (DBpedia's ``birthPlace``) changes word: a capital after a small letter or a digit. A run
#: of capitals is one word (``ISBN``), and so is a run of capitals followed by a word (``URLPath`` -> "urlpath").
_CAMEL_HUMP = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


def separate_words(name: str) -> str:
    """A camelCase, snake_case or kebab-case name (an IRI's local name) with its words separated by spaces, its case
    kept: ``birthPlace`` -> "birth Place", ``place_of_birth`` -> "place of birth", ``part-of`` -> "part of"."""
    return _CAMEL_HUMP.sub(" ", name).replace("_", " ").replace("-", " ")


def name_words(name: str) -> list[str]:
    """A name's words in lower case, split at camelCase humps and at anything not a letter or a digit:
    ``birthPlace`` -> ``["birth", "place"]``, ``has_ISBN10`` -> ``["has", "isbn10"]``."""
    return words(_CAMEL_HUMP.sub(" ", name))


def name_phrase(name: str) -> str:
    """A name as lower-case words joined by spaces: ``AggregateRating`` -> "aggregate rating", ``film_genre`` ->
    "film genre"."""
    return " ".join(separate_words(name).lower().split())


# --- stemming -------------------------------------------------------------------------------------------------------

#: Words sharing this many first letters share a stem ("directed"/"director", "writer"/"written_by").
STEM_LETTERS = 4


def stem(word: str) -> str:
    """A word's stem: its first :data:`STEM_LETTERS` letters."""
    return word[:STEM_LETTERS]


def content_stems(text: str) -> list[str]:
    """The stems of ``text``'s content words (runs of ASCII letters), in order: ``"film directed by"`` -> ``["film",
    "dire"]``."""
    return [stem(w) for w in content_words(_ASCII_LETTERS.findall(text.lower()))]


def stems(text: str) -> set[str]:
    """The stems of ``text``'s content words (:func:`content_stems`): ``"who directed it"`` -> ``{"dire"}``."""
    return set(content_stems(text))


#: English prefixes of three letters: two words that share only one of them share no root ("subtypes"/"subset",
#: "prequel"/"premiere", "disease"/"discount").
PREFIXES = frozenset({"sub", "pre", "pro", "con", "com", "dis", "mis", "non", "out", "per", "syn", "sym", "uni", "tri"})

#: English inflectional and derivational endings: a word of 3 letters and one of these is those 3 letters' root
#: ("act|ed", "act|or", "bur|y"); with any other rest it is a word of its own ("par|t", "mat|ch").
ENDINGS = frozenset({"", "e", "s", "es", "ed", "er", "ers", "or", "ors", "ing", "ings", "y", "ies", "ied", "ion",
                     "ions", "ive", "ives", "al", "ly", "ment", "ments", "ress", "ist", "ists", "ism"})

#: More letters than this after the part two words share make them a compound, not one word's endings
#: ("book|shelf"; "industr|ies" are endings; after a whole word, only an inflection: :func:`same_word`).
COMPOUND_REST = 4


def _common_prefix(a: str, b: str) -> int:
    common = 0
    for x, y in zip(a, b):
        if x != y:
            break
        common += 1
    return common


def word_match(a: str, b: str) -> float:
    """How surely two words share a root: 1.0 from a common prefix of :data:`STEM_LETTERS` letters (or one word
    whole: "directed"/"director", "released"/"release"), 0.8 from 3 letters that are no English prefix
    (:data:`PREFIXES`: "acted"/"actors", not "subtypes"/"subset") when the shorter word is those 3 letters and an
    English ending (:data:`ENDINGS`: "acted"/"actors", "bury"/"burial"; not "part"/"parent", "match"/"material"), or
    for the root of ``a`` inside a longer ``b`` ("written"/"screenwriter")."""
    if a == b:
        return 1.0
    common = _common_prefix(a, b)
    if common >= min(STEM_LETTERS, len(a), len(b)):
        return 1.0
    shorter = a if len(a) <= len(b) else b
    if (common == 3 and a[:3] not in PREFIXES and shorter[3:] in ENDINGS) \
            or (len(a) >= STEM_LETTERS and len(b) > len(a) + 2 and a[:STEM_LETTERS] in b):
        return 0.8  # "acted"/"actors"; a relation word's root inside a longer word ("written" in "screenwriter")
    return 0.0


#: English's inflectional endings: what follows a whole word in another form of the same word ("genre|s",
#: "box|es", "release|d", "direct|ed", "direct|ing"). Derivational endings make another word ("commission|er" is a
#: person, not a commission; "art|ist", "member|ship"), and so does any other rest ("key|word": a compound).
INFLECTIONS = frozenset({"s", "es", "d", "ed", "ing", "ings"})
#: Inflections after a doubled last consonant ("stop|ped", "run|ning").
DOUBLING_INFLECTIONS = frozenset({"ed", "ing", "ings"})


def _inflected(word: str, longer: str) -> bool:
    """Whether ``longer`` is ``word`` and an inflectional ending (:data:`INFLECTIONS`, or a doubled consonant and
    one of :data:`DOUBLING_INFLECTIONS`)."""
    rest = longer[len(word):]
    return rest in INFLECTIONS or (len(rest) > 1 and rest[0] == word[-1] and rest[1:] in DOUBLING_INFLECTIONS)


def same_word(a: str, b: str) -> bool:
    """Whether two words are one up to an ending ("industries"/"industry", "genres"/"genre"), not one word inside a
    compound ("books"/"bookshelf": past the plural's "s", more than an ending follows the common part). When one word
    is the other's opening whole, the rest must be an inflection (:data:`INFLECTIONS`): a derivational ending or a
    word after it names another thing ("commission"/"commissioner", "art"/"artist", "key"/"keyword")."""
    if a == b:
        return True
    shorter, longer = sorted((a, b), key=len)
    if shorter and longer.startswith(shorter):
        return _inflected(shorter, longer)
    bare_a, bare_b = a.removesuffix("s"), b.removesuffix("s")
    if max(len(bare_a), len(bare_b)) - _common_prefix(bare_a, bare_b) > COMPOUND_REST:
        return False
    common = _common_prefix(a, b)
    return common >= min(len(a), len(b)) or common >= 5 or (common >= 4 and min(len(a), len(b)) <= 5)
