"""What a knowledge graph says of its own names, measured from its data: the KG profile.

A user's graph names its things with whatever predicate its publisher chose (``pgterms:name``, ``ex:hasName``,
``rdf:value`` on a structured value's node), often none of the known label predicates
(:data:`~kg_agent.kg.naming.DEFAULT_LABEL_PREDICATES`). :func:`measure_name_predicates` finds them from the triples
whose object is a text literal, by what a name looks like in data:

* **short** — a name, not a sentence (its texts are on average at most :data:`MAX_NAME_CHARACTERS` long);
* **words, not references** — fewer than half its texts compact identifiers or links (``PMID:11081512``: OBO's
  ``hasDbXref`` on axiom nodes names nothing);
* **about one per subject** — at most :data:`MAX_NAMES_PER_SUBJECT` texts a subject and language;
* **naming what nothing else names** — most of its subjects have no label under the known predicates nor under
  a predicate chosen before it (a title beside a label adds nothing; an alias beside a name is an alias);
* **naming many, apart** — at least :data:`MIN_NAMED_SUBJECTS` subjects, with at least as many distinct texts (a
  value every subject shares, ``"None"``, names nothing), and on IRIs distinct texts for at least
  :data:`MIN_DISTINCT_SHARE` of its (subject, text) pairs: a name tells things apart. A predicate that passes every
  other test but whose texts repeat (each launch of a launch register carrying ``:launchvehicle "Atlas-Agena D"``,
  56 texts on 1009 launches) is a **record value predicate** (:attr:`KGProfile.record_value_predicates`): a value
  of records the KG names nothing else, which stay nameless statement nodes (:mod:`kg_agent.kg.record_values`).
  Blank nodes are not counted (one with the same text as another is the same thing written again).

Candidates are taken greedily, the one naming the most subjects first (among equals, the one with the fewest texts
per subject: a name before a list of aliases). The chosen predicates become label
predicates after the known ones (:meth:`KGProfile.naming`), so the known ones still win where both name a node.
A caller's own ``label_predicates`` replace this (the measurement is not run).

**Aliases** are found the same way, after the labels (:data:`~kg_agent.kg.naming.DEFAULT_ALIAS_PREDICATES` are the
known ones): a predicate is an alias predicate (Project Gutenberg's ``pgterms:alias``, OBO's
``oboInOwl:hasExactSynonym``, ``dcterms:alternative``) when its texts are

* **short**, on **many subjects**, as names are (several a subject allowed: a thing has many other names);
* **telling things apart** — on IRIs, distinct texts for at least :data:`MIN_DISTINCT_SHARE` of its (subject, text)
  pairs: another name names one thing, so a value several named things share is a fact about them (a launch site's
  ``country "United States"``, on eight sites labelled "<place>, <country>", shares a word with each label but is no
  other name of one). Blank nodes are not counted (one with the same text as another is the same thing written
  again);
* **on things already named** — at least :data:`MIN_ALIASED_SHARE` of its subjects have a label (known or found);
* **names of the same thing** — at least :data:`MIN_SHARED_WORD_SHARE` of its texts on a labelled subject share a
  word of three letters or more with one of that subject's labels ("Clemens, Samuel Langhorne" beside "Twain, Mark"
  shares none, "Twain, Mark (Samuel Clemens)" does; a synonym "micro RNA" of "miRNA" none, "stop codon" of
  ``stop_codon`` does: most of a real alias predicate's texts do, a publisher, a rights statement or an identifier
  beside a title almost never). A label that is a code (two to five capitals: an airport's ``"VIE"``) shares no word
  with its thing's name; a text it abbreviates (its letters in order, the first starting a word: "Vienna
  International Airport") is read as naming the same thing.

**Codes** are aliases too: a predicate whose texts are each one word holding a letter (no space; not a compact
identifier with a prefix, nor a link), **one per subject and each on one subject only**, on at least
:data:`MIN_NAMED_SUBJECTS` subjects most of which are labelled (a conference's ``swc:hasAcronym "ISWC2004"``
beside its label "The Third International Semantic Web Conference", a festival's ``ex:code "ROCKFEST2019"``): a
text that names exactly one thing identifies it, though it shares no word with its label. A value many subjects
share (a status, a room) or several a subject has (keywords) is no code.

The found aliases are searchable (entity linking finds a thing by them, ranked below a thing whose label the
question names: :data:`~kg_agent.kg.linking.ALIAS_PENALTY`) and stay the facts they were, walked
(:attr:`~kg_agent.kg.naming.Naming.stated_alias_predicates`: "what other names is Mark Twain known by", "how many
exact synonyms does stop_codon have"). A caller's own ``alias_predicates`` replace them.

**Classes**: the classes the KG's class predicates lead to (``rdf:type``, Wikidata's ``instance of``; not those of
a class hierarchy, whose terms are what an ontology's questions are about), per class predicate, at most
:data:`MAX_CLASSES` of them and one more to say that it has more (:class:`KGClasses`, read by
:meth:`KnowledgeGraph.classes <kg_agent.kg.graph.KnowledgeGraph.classes>`). An Oxigraph load reads them from its
pass over the file (the relation index's node signatures: a class is a node reached backwards over a class
predicate), so no question has to scan the KG's typing triples for them (``SELECT DISTINCT`` over the 10M
``instance of`` triples of a 104M-triple KG took 20-57 s of a process's first question).

The profile is measured when a KG file is loaded into memory, and once per Oxigraph store (kept in
``<store>/kg-agent/profile.json``): ``kg-agent load`` measures it from the file's first triples while it reads the file
(:mod:`kg_agent.kg.loading.profile_sample`) and prints it.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path

from kg_agent.kg.naming import DEFAULT_ALIAS_PREDICATES, LABEL_NODE_ALIAS, LABEL_NODE_NAME, Naming
from kg_agent.kg.terms import normalize_label

#: Average length, in characters, above which a predicate's texts are prose, not names.
MAX_NAME_CHARACTERS = 80
#: Texts per subject and language above which a predicate lists things (keywords, synonyms) rather than names one.
MAX_NAMES_PER_SUBJECT = 1.5
#: Fewest subjects a predicate must name, so a handful of notes is not read as the KG's naming scheme.
MIN_NAMED_SUBJECTS = 5
#: Distinct texts an alias predicate has on IRIs, as a share of its (subject, text) pairs there: names tell things
#: apart. Measured on the card's KGs: every name and alias predicate 0.96-1.0 (``pgterms:alias``,
#: ``hasExactSynonym``, ``dcterms:alternative``), a launch site's country 0.4.
MIN_DISTINCT_SHARE = 0.75
#: Share of a candidate's subjects that must be unnamed so far for it to be a naming predicate.
MIN_NEW_SHARE = 0.5
#: Share of an alias predicate's subjects that must have a label already (an alias is another name of a named thing).
MIN_ALIASED_SHARE = 0.5
#: Share of an alias predicate's texts on labelled subjects that must share a word with the subject's label.
MIN_SHARED_WORD_SHARE = 0.5
#: Words shorter than this say nothing of two names being of one thing ("de", "of").
MIN_SHARED_WORD_LETTERS = 3
#: Longest code (a one-word alias that identifies one subject: an acronym, a catalogue code).
MAX_CODE_CHARACTERS = 40
#: Longest text kept per subject to compare labels and aliases (a longer one is no name).
MAX_COMPARED_CHARACTERS = 200

#: Triples read to measure the profile: the first this many a graph, a store or a loaded file gives (a store's and a
#: graph's: every predicate of each subject they reach, so whole subjects are seen). Names are about one per subject,
#: so this sample finds them; reading every triple of a 2M-triple store cost 15 s of a 30 s load.
PROFILE_SAMPLE = 250_000

PROFILE_VERSION = 5

#: Classes kept per class predicate (and one more, to say there are more): a KG with more classes than this under one
#: class predicate (Wikidata's millions) has a sample of them as its class list, which is then not complete
#: (:attr:`KGClasses.complete`). The names of the kept classes are read (labels, embeddings) when a question needs
#: them, so the cap bounds that cost too.
MAX_CLASSES = 2000


@dataclass(frozen=True)
class KGClasses:
    """The KG's class list: ``ids``, the classes its class predicates lead to (IRIs, sorted), every one when
    ``complete``, else :data:`MAX_CLASSES` of those of each class predicate that leads to more."""

    ids: tuple[str, ...] = ()
    complete: bool = True

    @classmethod
    def of(cls, per_predicate: Mapping[str, Sequence[str]]) -> KGClasses:
        """The class list of ``{class predicate IRI: its classes}``, each kept up to ``MAX_CLASSES + 1``."""
        return cls(tuple(sorted({c for found in per_predicate.values() for c in found[:MAX_CLASSES]})),
                   all(len(found) <= MAX_CLASSES for found in per_predicate.values()))

    @property
    def every(self) -> frozenset[str] | None:
        """Every class of the KG; None when it has none, or more than it keeps (then no type noun can be said to
        name none of them)."""
        return frozenset(self.ids) if self.ids and self.complete else None


@dataclass(frozen=True)
class KGProfile:
    """The measured profile: the label predicates found beyond the known ones, with how many subjects each names,
    and the alias predicates found, with how many subjects each gives other names to."""

    label_predicates: tuple[str, ...] = ()
    named_subjects: tuple[int, ...] = ()
    alias_predicates: tuple[str, ...] = ()
    aliased_subjects: tuple[int, ...] = ()
    #: edges read from the KG's OWL class restrictions (:mod:`kg_agent.kg.owl_restrictions`), not stated as triples
    restriction_edges: int = 0
    version: int = PROFILE_VERSION
    #: ``{class predicate IRI: the classes it leads to, up to MAX_CLASSES + 1}`` for the class predicates the KG has
    #: (module docstring); None when not measured (a store loaded before the profile kept them)
    classes: Mapping[str, tuple[str, ...]] | None = None
    #: predicates that look like names (one short text per subject, on subjects nothing else names) but whose texts
    #: repeat across their subjects: values of records, not names (module docstring), with how many subjects each has
    record_value_predicates: tuple[str, ...] = ()
    record_subjects: tuple[int, ...] = ()
    #: names held on label nodes (:mod:`kg_agent.kg.label_nodes`): ``(holding predicate, literal predicate,
    #: preferred, entities)`` each, and the predicates stated only on those label nodes (literal predicates, flags)
    label_node_relations: tuple[tuple[str, str, bool, int], ...] = ()
    label_node_predicates: tuple[str, ...] = ()

    def naming(self, naming: Naming) -> Naming:
        """``naming`` with the found label predicates after its own, and the found alias predicates after its own
        unless the caller chose the alias predicates (anything but the defaults); unchanged when none was found."""
        settings: dict[str, tuple[str, ...]] = {}
        on_label_nodes = set(self.label_node_predicates)  # they name label nodes, which are no things
        labels = tuple(p for p in self.label_predicates if p not in naming.label_predicates and p not in on_label_nodes)
        if labels:
            settings["label_predicates"] = naming.label_predicates + labels
        if naming.alias_predicates == DEFAULT_ALIAS_PREDICATES:
            aliases = tuple(p for p in self.alias_predicates
                            if p not in naming.name_predicates and p not in on_label_nodes)
            if aliases:  # found among the facts, they stay facts
                settings["alias_predicates"] = naming.alias_predicates + aliases
                settings["stated_alias_predicates"] = naming.stated_alias_predicates + aliases
        values = tuple(p for p in self.record_value_predicates
                       if p not in naming.name_predicates and p not in naming.record_value_predicates)
        if values:
            settings["record_value_predicates"] = naming.record_value_predicates + values
        if self.label_node_relations:
            found = {LABEL_NODE_NAME if preferred else LABEL_NODE_ALIAS for _, _, preferred, _ in self.label_node_relations}
            given = settings.get("label_predicates", naming.label_predicates)
            if LABEL_NODE_NAME in found and LABEL_NODE_NAME not in given:
                settings["label_predicates"] = given + (LABEL_NODE_NAME,)
            aliases = settings.get("alias_predicates", naming.alias_predicates)
            if LABEL_NODE_ALIAS in found and LABEL_NODE_ALIAS not in aliases:
                settings["alias_predicates"] = aliases + (LABEL_NODE_ALIAS,)
            held = tuple(dict.fromkeys([holder for holder, _, _, _ in self.label_node_relations]
                                       + list(self.label_node_predicates)))
            settings["label_node_predicates"] = tuple(dict.fromkeys(naming.label_node_predicates + held))
        return replace(naming, **settings) if settings else naming

    def describe(self) -> list[str]:
        """Lines for a person: what was found."""
        on_label_nodes = set(self.label_node_predicates)  # read onto the things the label nodes name
        lines = [f"names: {iri} names {n} things" for iri, n in zip(self.label_predicates, self.named_subjects)
                 if iri not in on_label_nodes]
        lines = lines or ["names: the known label predicates name the KG's things"]
        lines += [f"aliases: {iri} gives {n} things other names"
                  for iri, n in zip(self.alias_predicates, self.aliased_subjects)]
        if self.restriction_edges:
            lines.append(f"OWL restrictions: {self.restriction_edges} relation edges read from class restrictions")
        lines += [f"record values: {iri} is a value of {n} records (its texts repeat: no name)"
                  for iri, n in zip(self.record_value_predicates, self.record_subjects)]
        lines += [f"label nodes: {holder} -> a node -> {literal} gives {n} things their "
                  f"{'names' if preferred else 'other names'}"
                  for holder, literal, preferred, n in self.label_node_relations]
        for predicate, found in sorted((self.classes or {}).items()):
            if not found:
                continue
            more = "more than " if len(found) > MAX_CLASSES else ""
            lines.append(f"classes: {more}{min(len(found), MAX_CLASSES)} under {predicate}")
        return lines

    def save(self, path: str | Path) -> None:
        """Write the profile to ``path`` in one step (a reader meanwhile reads the old file or the new one)."""
        path = Path(path)
        data = asdict(self)
        if self.classes is None:
            del data["classes"]
        else:
            data["classes"] = {predicate: list(found) for predicate, found in sorted(self.classes.items())}
        partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
        try:
            partial.write_text(json.dumps(data, indent=1), encoding="utf-8")
            partial.replace(path)
        finally:
            partial.unlink(missing_ok=True)

    @classmethod
    def load(cls, path: str | Path) -> KGProfile | None:
        """The profile saved at ``path``; None when missing, unreadable or of another version."""
        try:
            return cls.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
        except (OSError, ValueError):
            return None

    @classmethod
    def from_dict(cls, data) -> KGProfile | None:
        """The profile of :func:`dataclasses.asdict`'s form; None when it is of another version or malformed."""
        try:
            if data.get("version") != PROFILE_VERSION:
                return None
            classes = data.get("classes")  # not in a profile kept before it was measured
            if classes is not None:
                classes = {str(predicate): tuple(str(c) for c in found) for predicate, found in classes.items()}
            return cls(tuple(data["label_predicates"]), tuple(int(n) for n in data["named_subjects"]),
                       tuple(data["alias_predicates"]), tuple(int(n) for n in data["aliased_subjects"]),
                       int(data.get("restriction_edges", 0)), classes=classes,
                       record_value_predicates=tuple(data.get("record_value_predicates", ())),
                       record_subjects=tuple(int(n) for n in data.get("record_subjects", ())),
                       label_node_relations=tuple((str(holder), str(literal), bool(preferred), int(n))
                                                  for holder, literal, preferred, n
                                                  in data.get("label_node_relations", ())),
                       label_node_predicates=tuple(str(p) for p in data.get("label_node_predicates", ())))
        except (ValueError, KeyError, TypeError, AttributeError):
            return None


#: A compact identifier or a link, no name: ``PMID:11081512``, ``GO:0005634``, ``https://...`` (a prefix, a colon,
#: no space). A predicate whose texts are mostly such cross-references (OBO's ``oboInOwl:hasDbXref``) names nothing.
_IDENTIFIER = re.compile(r"^[A-Za-z][\w.+-]*:\S+$")


def measure_name_predicates(texts: Iterable[tuple[str, str, str, str]], naming: Naming) -> KGProfile:
    """The profile of the text literals ``(subject, predicate, text, language)`` of a KG (see the module docstring).

    Predicates the naming already reads (labels, aliases, descriptions) are not candidates; subjects they label are
    named already."""
    named: set[str] = set()
    # predicate -> [subjects, (subject, language) pairs, texts, characters, distinct texts, identifiers,
    #               distinct texts on IRI subjects, distinct (IRI subject, text) pairs]
    stats: dict[str, list] = {}
    # predicate -> subject -> its short texts: to compare an alias candidate's texts with its subjects' labels
    short: dict[str, dict[str, list[str]]] = {}
    known = set(naming.names_and_descriptions)
    label_predicates = set(naming.label_predicates) | set(naming.alias_predicates)
    codes: dict[str, dict[str, str] | None] = {}  # predicate -> {subject: its one code}; None once it is no code
    for subject, predicate, text, language in texts:
        if predicate not in known and not subject.startswith('"'):
            _note_code(codes, predicate, subject, text)
        if predicate in label_predicates:
            named.add(subject)
        if len(text) <= MAX_COMPARED_CHARACTERS and (predicate in label_predicates or predicate not in known):
            short.setdefault(predicate, {}).setdefault(subject, []).append(text)
        if predicate in label_predicates or predicate in known or subject.startswith('"'):
            continue
        entry = stats.get(predicate)
        if entry is None:
            entry = stats[predicate] = [set(), set(), 0, 0, set(), 0, set(), set()]
        entry[0].add(subject)
        entry[1].add((subject, language))
        entry[2] += 1
        entry[3] += len(text)
        if len(entry[4]) < MIN_NAMED_SUBJECTS:
            entry[4].add(text)
        entry[5] += _IDENTIFIER.match(text) is not None
        if not subject.startswith("_:"):
            entry[6].add(text)
            entry[7].add((subject, text))
    names_like = [(predicate, subjects, count / len(pairs))
                  for predicate, (subjects, pairs, count, characters, texts, identifiers, _, _) in stats.items()
                  if len(subjects) >= MIN_NAMED_SUBJECTS and len(texts) >= MIN_NAMED_SUBJECTS
                  and characters / count <= MAX_NAME_CHARACTERS and 2 * identifiers < count]
    apart = {predicate for predicate, entry in stats.items() if len(entry[6]) >= MIN_DISTINCT_SHARE * len(entry[7])}
    chosen: list[tuple[str, int]] = []
    repeated: list[tuple[str, int]] = []  # would name their subjects, but their texts repeat: record values
    for predicate, subjects, per_subject in sorted(names_like, key=lambda c: (-len(c[1]), c[2], c[0])):
        if per_subject > MAX_NAMES_PER_SUBJECT:
            continue
        new = len(subjects - named)
        if new >= MIN_NAMED_SUBJECTS and new >= MIN_NEW_SHARE * len(subjects):
            if predicate not in apart:
                repeated.append((predicate, new))
                continue
            chosen.append((predicate, new))
            named |= subjects
    labels: dict[str, list[str]] = {}  # every labelled subject's labels, known and found
    for predicate in label_predicates | {p for p, _ in chosen}:
        for subject, found in short.get(predicate, {}).items():
            labels.setdefault(subject, []).extend(found)
    taken = {p for p, _ in chosen}
    aliases = [(predicate, len(subjects)) for predicate, subjects, _ in sorted(names_like, key=lambda c: (-len(c[1]), c[0]))
               if predicate not in taken and predicate in apart
               and _names_the_labelled(short.get(predicate, {}), subjects, labels)]
    found = taken | {p for p, _ in aliases}
    aliases += [(predicate, len(coded)) for predicate, coded in sorted(codes.items())
                if coded is not None and predicate not in found and _is_code(coded, labels)]
    names = {p for p, _ in chosen} | {p for p, _ in aliases}
    return KGProfile(tuple(p for p, _ in chosen), tuple(n for _, n in chosen),
                     tuple(p for p, _ in aliases), tuple(n for _, n in aliases),
                     record_value_predicates=tuple(p for p, _ in repeated if p not in names),
                     record_subjects=tuple(n for p, n in repeated if p not in names))


def _note_code(codes: dict[str, dict[str, str] | None], predicate: str, subject: str, text: str) -> None:
    """Count one text literal towards its predicate being a code (module docstring): one word with a letter, not a
    prefixed identifier, one per subject."""
    coded = codes.get(predicate, {})
    if coded is None:
        return
    word = text.strip()
    if (not word or len(word) > MAX_CODE_CHARACTERS or any(ch.isspace() for ch in word)
            or not any(ch.isalpha() for ch in word) or _IDENTIFIER.match(word) or coded.get(subject, word) != word):
        codes[predicate] = None
        return
    coded[subject] = word
    codes[predicate] = coded


def _is_code(coded: dict[str, str], labels: dict[str, list[str]]) -> bool:
    """Whether a predicate's one word per subject (``{subject: text}``) identifies its subjects: enough of them,
    most labelled, no text on two subjects (case and punctuation aside)."""
    if len(coded) < MIN_NAMED_SUBJECTS:
        return False
    if sum(subject in labels for subject in coded) < MIN_ALIASED_SHARE * len(coded):
        return False
    return len({normalize_label(text) for text in coded.values()}) == len(coded)


def _words(text: str) -> set[str]:
    return {word for word in normalize_label(text).replace("_", " ").split() if len(word) >= MIN_SHARED_WORD_LETTERS}


def _names_the_labelled(texts: dict[str, list[str]], subjects: set[str], labels: dict[str, list[str]]) -> bool:
    """Whether a predicate's texts (``{subject: texts}``) are other names of labelled things: most of its subjects
    have a label, and most of its texts on them share a word with one of their labels (module docstring)."""
    labelled = [subject for subject in subjects if subject in labels]
    if len(labelled) < MIN_NAMED_SUBJECTS or len(labelled) < MIN_ALIASED_SHARE * len(subjects):
        return False
    compared = shared = 0
    for subject in labelled:
        words = set().union(*(_words(label) for label in labels[subject]))
        for text in texts.get(subject, ()):
            compared += 1
            shared += bool(words & _words(text)) or any(_abbreviates(label, text) for label in labels[subject])
    return compared > 0 and shared >= MIN_SHARED_WORD_SHARE * compared


#: A label that is a code: one word of two to five capital letters or digits ("VIE", "AT").
_CODE_LABEL = re.compile(r"^[A-Z][A-Z0-9]{1,4}$")
_WORD_START = re.compile(r"\b\w")


def _abbreviates(label: str, text: str) -> bool:
    """Whether a code label (:data:`_CODE_LABEL`) abbreviates a text: its letters in the text in order, the first
    one starting a word ("VIE" of "Vienna International Airport", "AT" of "Austria"). A KG that labels its things by
    codes gives their names elsewhere, which share no word with the code."""
    if not _CODE_LABEL.match(label):
        return False
    code, lowered = label.lower(), text.lower()
    for start in (m.start() for m in _WORD_START.finditer(lowered) if m.group(0) == code[0]):
        at = start + 1
        for letter in code[1:]:
            at = lowered.find(letter, at) + 1
            if not at:
                break
        else:
            return True
    return False


_XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
_RDF_LANG_STRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"


def graph_texts(graph, sample: int = PROFILE_SAMPLE) -> Iterable[tuple[str, str, str, str]]:
    """The text literals among the first ``sample`` triples of an rdflib graph, as :func:`measure_name_predicates`
    reads them."""
    from itertools import islice

    from rdflib import Literal

    from kg_agent.kg.terms import node_key

    for subject, predicate, obj in islice(graph, sample):
        if isinstance(obj, Literal) and (obj.language or obj.datatype is None or str(obj.datatype) == _XSD_STRING):
            yield node_key(subject), str(predicate), str(obj), obj.language or ""


#: Literal triples a SPARQL endpoint is asked for when it is opened (one request; below Virtuoso's default cap of
#: 10,000 rows per result, ``ResultSetMaxRows``).
ENDPOINT_PROFILE_SAMPLE = 10_000


def endpoint_texts_query(sample: int = ENDPOINT_PROFILE_SAMPLE) -> str:
    """The one SELECT that samples an endpoint's text literals for :func:`measure_name_predicates`."""
    return ("SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(isLiteral(?o) && (lang(?o) != \"\" || datatype(?o) = <%s>)) } "
            "LIMIT %d" % (_XSD_STRING, sample))


def endpoint_texts(rows: Iterable[tuple]) -> Iterable[tuple[str, str, str, str]]:
    """The rows of :func:`endpoint_texts_query` (rdflib terms) as :func:`measure_name_predicates` reads them."""
    from rdflib import Literal

    from kg_agent.kg.terms import node_key

    for row in rows:  # a server may answer another shape: such rows are no sample
        if len(row) == 3 and row[0] is not None and row[1] is not None and isinstance(row[2], Literal):
            yield node_key(row[0]), str(row[1]), str(row[2]), row[2].language or ""


def oxigraph_texts(store, sample: int = PROFILE_SAMPLE) -> Iterable[tuple[str, str, str, str]]:
    """The text literals among the first ``sample`` triples of a pyoxigraph store's default graph, as
    :func:`measure_name_predicates` reads them."""
    from itertools import islice

    import pyoxigraph as ox

    for quad in islice(store.quads_for_pattern(None, None, None, ox.DefaultGraph()), sample):
        obj = quad.object
        if isinstance(obj, ox.Literal) and (obj.language or obj.datatype.value in (_XSD_STRING, _RDF_LANG_STRING)):
            subject = quad.subject
            key = f"_:{subject.value}" if isinstance(subject, ox.BlankNode) else subject.value
            yield key, quad.predicate.value, obj.value, obj.language or ""
