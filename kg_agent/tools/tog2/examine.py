"""Think-on-Graph 2.0's *examine and reasoning* (ER, ToG-2 §3.2): answer now, or ask a better question.

The examiner gets the question, the clue queries, the triple paths of the new topic entities and the
top-``L`` chunks gathered so far (``L <= K``; default 10, the authors' ``num_sents_for_reasoning``). It
either answers (the iteration ends) or writes a **supplementary clue query** that replaces the topic
entities' clue queries, and so changes how the next round scores document chunks.

* :class:`LLMExaminer` — one call; reply ``{"sufficient": true, "answer": [...], "clue": "..."}`` (JSON) or
  ToG style ``{Yes}. The answer is {X}`` / ``No. Supplementary query: ...``; an unusable reply is retried
  once, then the offline examiner decides. Answers are grounded (:mod:`kg_agent.tools.shared.grounding`):
  an answer that is the end of a triple path cites that path; one a cited chunk states as a short span
  (whole words, at most 8, not a topic entity nor the chunk's own subject) cites the chunk
  (``chunks=[...]``). Under the default ``grounding="prefer"`` an answer that is neither is replaced by
  the offline examiner's decision (its grounded answers, or another round), with a warning; ``"off"``
  keeps it with ``grounded: False``. In the last round the model is told to give its best answer.
* :class:`ExtractiveExaminer` — offline, a fixed extractive rule:

  1. *Comparison* ("Which film came out earlier, A or B?"; a comparative word and two options after the
     last comma): each option is matched to a topic entity; its date is the first date-valued tail on a
     path from it, else a date in a top chunk about an entity on those paths (for "died"/"death" questions
     the last date of a ``(born – died)`` parenthesis). With both dates, the earlier (earlier, first,
     older...) or later (later, more recently, younger...) option is the answer; otherwise the clue query
     becomes ``"<option> date"``.
  2. *Chain end*: the frontier path whose verbalised relations (``the father of [ENT]``) are most similar
     to the question (cosine plus the lexical bonus of the relation pruner) is compared with its best
     one-relation extension over the KG's relation vocabulary.
     If no extension fits the question better (by ``margin``), the path ends (of the same relation
     sequence) are the answers, cited by their paths. Otherwise the best extension ``r*`` is the missing
     hop: if the KG has ``r*`` at the path end, the clue becomes ``"<end> <r* words>"`` and exploration
     goes on; if it does not, the answer is extracted from the top chunks about the path end — the first
     date (date-valued ``r*``) or the first mention of an entity the KG has as a value of ``r*`` (its
     range) — and cites that chunk.
  3. In the last round, the best path's end is the answer when nothing better was found (``note``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.relation_paths import verbalize_relation, verbalize_relation_path
from kg_agent.kg.terms import normalize_label
from kg_agent.kg.types import Entity, inverse, is_inverse
from kg_agent.kg.walks import Walk
from kg_agent.llm.parsing import parse_answer_list, parse_json_object, parse_yes_no
from kg_agent.llm.usage import merge_usage
from kg_agent.settings import DEFAULT_GROUNDING, Grounding, StructuredMode
from kg_agent.steps import Decided, decide, decided
from kg_agent.tools.shared.decider import Decider, LLMDecider, Outcome, fall_back
from kg_agent.tools.shared.decision_schemas import Examination
from kg_agent.tools.shared.grounding import NO_GROUNDED_ANSWER, Evidence, RunGrounding, ground_names, settle
from kg_agent.tools.shared.scoring import TextVectorsFromEmbeddings, mask_mentions, relation_overlap
from kg_agent.tools.shared.updates import answer_record
from kg_agent.tools.tog2.frontier import (
    LEXICAL_WEIGHT,
    match_label,
    triple_text,
)

if TYPE_CHECKING:  # a chat model is imported with the model, not with an offline method (start-up)
    from langchain_core.language_models import BaseChatModel

DEFAULT_TOP_L = 10  # L (authors' code: num_sents_for_reasoning = 10)


@dataclass
class ExamineOutcome(Outcome):
    sufficient: bool
    answers: list[dict] = field(default_factory=list)
    clues: dict[str, str] = field(default_factory=dict)  # entity id -> supplementary clue query
    clue: str = ""  # one supplementary clue query for every topic entity
    output: str = ""


@runtime_checkable
class Examiner(Decider, Protocol):
    def examine(self, question: str, frontier: Sequence[dict], chains: Sequence[dict], references: Sequence[dict],
                *, last_round: bool) -> Decided[ExamineOutcome]: ...


# ---------------------------------------------------------------------------------------------- dates
_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july", "august",
                                         "september", "october", "november", "december"], start=1)}
_MONTH = r"(January|February|March|April|May|June|July|August|September|October|November|December)"
_DATE_PATTERNS = [
    (re.compile(r"\b(\d{1,2})\s+" + _MONTH + r",?\s+(\d{3,4})\b", re.IGNORECASE), ("d", "m", "y")),
    (re.compile(r"\b" + _MONTH + r"\s+(\d{1,2}),?\s+(\d{3,4})\b", re.IGNORECASE), ("m", "d", "y")),
    (re.compile(r"\b" + _MONTH + r"\s+(\d{3,4})\b", re.IGNORECASE), ("m", "y")),
    (re.compile(r"(?<![\d.,])(1\d{3}|20\d{2})(?![\d,])"), ("y",)),
]


def find_dates(text: str) -> list[tuple[int, int, tuple[int, int, int]]]:
    """Non-overlapping dates in ``text`` as ``(start, end, (year, month, day))``, in text order."""
    found: list[tuple[int, int, tuple[int, int, int]]] = []
    taken: list[tuple[int, int]] = []
    for pattern, fields in _DATE_PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < end and start < match.end() for start, end in taken):
                continue
            parts = dict(zip(fields, match.groups()))
            month = _MONTHS[parts["m"].lower()] if "m" in parts else 0
            found.append((match.start(), match.end(), (int(parts["y"]), month, int(parts.get("d", 0)))))
            taken.append((match.start(), match.end()))
    return sorted(found)


def parse_date(text: str) -> tuple[int, int, int] | None:
    """The date a short label is (``"24 October 1872"``, ``"1953"``), else ``None``."""
    dates = find_dates(text)
    if len(dates) == 1 and len(text.strip()) <= dates[0][1] - dates[0][0] + 3:
        return dates[0][2]
    return None


def date_in_text(text: str, *, death: bool = False) -> tuple[tuple[int, int, int], str] | None:
    """The date a chunk gives: the first one, or for death questions the end of a ``(born – died)`` range."""
    if death:
        paren = re.search(r"\(([^()]*)\)", text)
        if paren:
            inside = find_dates(paren.group(1))
            if len(inside) >= 2:
                s, e, value = inside[-1]
                return value, paren.group(1)[s:e]
        after = re.search(r"\b(died|death)\b", text, re.IGNORECASE)
        if after:
            dates = find_dates(text[after.end():])
            if dates:
                s, e, value = dates[0]
                return value, text[after.end() + s: after.end() + e]
        return None
    dates = find_dates(text)
    return (dates[0][2], text[dates[0][0]:dates[0][1]]) if dates else None


_EARLIER = re.compile(r"\b(earlier|earliest|first|older|oldest|before)\b", re.IGNORECASE)
_LATER = re.compile(r"\b(later|latest|last|more recently|most recently|more recent|younger|youngest|after|newer)\b", re.IGNORECASE)
_DEATH = re.compile(r"\b(died|die|dies|death|dead)\b", re.IGNORECASE)


def comparison_options(question: str) -> tuple[list[str], str] | None:
    """``(["A", "B"], "min"|"max")`` for "Which film came out earlier, A or B?", else ``None``."""
    match = re.search(r"[,:]\s*([^,:]+?)\s+or\s+([^?]+?)\s*\??\s*$", question)
    if not match:
        return None
    head = question[: match.start()]
    if _LATER.search(head):
        return [match.group(1).strip(), match.group(2).strip()], "max"
    if _EARLIER.search(head):
        return [match.group(1).strip(), match.group(2).strip()], "min"
    return None


# ---------------------------------------------------------------------------------------------- offline
class ExtractiveExaminer(TextVectorsFromEmbeddings):
    """Offline examine & reason by the extractive rule of the module docstring."""

    name = "extractive"

    def __init__(self, kg: KnowledgeGraph, *, embeddings: Embeddings | None = None, margin: float = 0.02,
                 max_vocabulary: int = 300) -> None:
        self.kg = kg
        self.margin = margin
        self.max_vocabulary = max_vocabulary
        self._embeddings = embeddings
        self._vocabulary: list[str] | None = None
        self._ranges: dict[str, dict[str, str]] = {}


    def vocabulary(self, tail_id: str) -> list[str]:
        """Relations an extension may use: the KG's relation names both ways (or the tail's relations)."""
        if self._vocabulary is None:
            try:
                names = self.kg.relation_names()
            except Exception:
                names = []
            self._vocabulary = sorted({*names, *(inverse(n) for n in names)}) if 0 < len(names) * 2 <= self.max_vocabulary else []
        return self._vocabulary or self.kg.relations(tail_id)

    def relation_range(self, relation: str) -> dict[str, str]:
        """``{normalised label: entity id}`` of the values ``relation`` takes in the KG."""
        if relation not in self._ranges:
            values: dict[str, str] = {}
            try:
                iri = self.kg.relation_iri(relation)
                column = "?s" if is_inverse(relation) else "?o"
                rows = self.kg.query(f"SELECT DISTINCT {column} WHERE {{ ?s <{iri}> ?o }} LIMIT 20000")
                from kg_agent.kg.terms import node_key

                for (term,) in rows:
                    key = node_key(term)
                    label = normalize_label(self.kg.label(key) or "")
                    if label:
                        values.setdefault(label, key)
            except Exception:
                pass
            self._ranges[relation] = values
        return self._ranges[relation]

    # -- rules ----------------------------------------------------------------------------------
    def examine(self, question, frontier, chains, references, *, last_round) -> ExamineOutcome:
        comparison = comparison_options(question)
        if comparison is not None:
            outcome = self._compare(question, comparison, chains, references)
            if outcome is not None:
                return outcome
            if not last_round:
                options, _ = comparison
                return ExamineOutcome(False, clue="", clues=self._option_clues(options, chains, frontier), source=self.name)
        return self._chain_end(question, frontier, references, last_round=last_round)

    def _option_clues(self, options, chains, frontier) -> dict[str, str]:
        clues = {}
        for item in frontier:
            index = match_label(item["start"]["label"], options, contained=True)
            if index is not None:
                clues[item["entity"]["id"]] = f"{options[index]} date"
        return clues

    def _compare(self, question, comparison, chains, references) -> ExamineOutcome | None:
        options, direction = comparison
        death = bool(_DEATH.search(question))
        values = []
        for option in options:
            found = None
            own = [c for c in chains if match_label(c["start"]["label"], [option], contained=True) is not None]
            for item in own:
                date = parse_date(item["entity"]["label"])
                if date:
                    found = (date, answer_record(item["start"]["label"], entity_id=item["start"]["id"], paths=[item]))
                    break
            if found is None:
                on_paths = {c["entity"]["id"] for c in own} | {c["start"]["id"] for c in own}
                start_ids = [c["start"]["id"] for c in own]
                start = own[0]["start"] if own else None
                for chunk in references:
                    about = (chunk.get("entity") in on_paths
                             or match_label(chunk.get("entity_label", ""), [option], contained=True) is not None)
                    if not about:
                        continue
                    got = date_in_text(chunk["text"], death=death)
                    if got:
                        label = start["label"] if start else option
                        found = (got[0], answer_record(label, entity_id=start_ids[0] if start_ids else None, chunks=[chunk],
                                                       note=f"date {got[1]!r} read from a document"))
                        break
            values.append(found)
        if any(v is None for v in values):
            return None
        pick = min if direction == "min" else max
        best = pick(range(len(values)), key=lambda i: values[i][0])
        if values[0][0] == values[1][0]:
            return None
        record = values[best][1]
        return ExamineOutcome(True, [record], output=record["answer"], source=self.name)

    def _chain_end(self, question, frontier, references, *, last_round) -> ExamineOutcome:
        if not frontier:
            return ExamineOutcome(False, source=self.name)
        starts = [Entity.from_dict(i["start"]) for i in frontier]
        query = mask_mentions(question, starts, approximate=False)  # as in prune_relations
        fits = self.vectors.rank(query, [verbalize_relation_path(Walk.from_dict(i).relations) for i in frontier])
        fits = [f + LEXICAL_WEIGHT * relation_overlap(question, Walk.from_dict(i).relations) for f, i in zip(fits, frontier)]
        best = max(range(len(frontier)), key=lambda i: (fits[i], frontier[i].get("score", 0.0), -i))
        item = frontier[best]
        tail = Entity.from_dict(item["entity"])
        prefix = Walk.from_dict(item).relations
        vocabulary = self.vocabulary(tail.id)
        ext = self.vectors.rank(query, [verbalize_relation_path((*prefix, r)) for r in vocabulary]) if vocabulary else []
        ext = [e + LEXICAL_WEIGHT * relation_overlap(question, (*prefix, r)) for e, r in zip(ext, vocabulary)]
        top = max(range(len(ext)), key=lambda i: ext[i]) if ext else None
        if top is None or fits[best] + self.margin >= ext[top]:
            same = [i for i in frontier if Walk.from_dict(i).relations == prefix and i["start"]["id"] == item["start"]["id"]]
            answers = [answer_record(i["entity"]["label"], entity_id=i["entity"]["id"], score=i.get("score", 0.0),
                                     paths=[i]) for i in same]
            return ExamineOutcome(True, answers, output="\n".join(a["answer"] for a in answers), source=self.name)
        missing = vocabulary[top]
        clue = f"{tail.label} {verbalize_relation(missing)}"
        if missing not in self.kg.edges(tail.id):
            extracted = self._extract(question, tail, missing, references)
            if extracted is not None:
                return ExamineOutcome(True, [extracted], output=extracted["answer"], source=self.name)
        if last_round:
            record = answer_record(tail.label, entity_id=tail.id, score=item.get("score", 0.0), paths=[item],
                                   note=f"depth limit: the question may ask for {verbalize_relation(missing)!r} of it")
            return ExamineOutcome(True, [record], output=tail.label, source=self.name)
        return ExamineOutcome(False, clues={tail.id: clue}, source=self.name)

    def _extract(self, question: str, tail: Entity, relation: str, references: Sequence[dict]) -> dict | None:
        about = [c for c in references if c.get("entity") == tail.id]
        if not about:
            return None
        values = self.relation_range(relation)
        dated = values and sum(1 for label in list(values)[:200] if parse_date(label)) >= 0.5 * min(len(values), 200)
        for chunk in about:
            if dated:
                got = date_in_text(chunk["text"], death=bool(_DEATH.search(verbalize_relation(relation))))
                if got:
                    note = f"{verbalize_relation(relation)} of {tail.label}, read from a document"
                    return answer_record(got[1], chunks=[chunk], note=note)
                continue
            tokens = normalize_label(chunk["text"]).split()
            own = normalize_label(tail.label)
            for start in range(len(tokens)):
                for size in range(min(8, len(tokens) - start), 0, -1):
                    span = " ".join(tokens[start:start + size])
                    if span in values and span != own:
                        entity_id = values[span]
                        label = self.kg.label(entity_id) or span
                        return answer_record(label, entity_id=entity_id, chunks=[chunk],
                                             note=f"{verbalize_relation(relation)} of {tail.label}, read from a document")
        return None


# ---------------------------------------------------------------------------------------------- LLM
EXAMINE_PROMPT = """Answer the question from the knowledge triplets and the retrieved references below. First examine whether the triplets and references are logically coherent and complete enough to answer.
If they are, reply with {{"sufficient": true, "answer": ["..."]}} (as short as possible).
If not, reply with {{"sufficient": false, "clue": "..."}} where "clue" is a new supplementary search query saying what information is still missing.{last}

### Question: {question}
### Clue queries:
{clues}
### Knowledge Triplets:
{triples}
### Retrieved References:
{references}
### Answer (JSON):"""  # noqa: E501 (prompt text kept verbatim)
LAST_ROUND = "\nThis is the last round: if the information is not enough, still give your best answer with \"sufficient\": true."

_CLUE_LINE = re.compile(r"(?:supplementary (?:query|clue)|clue(?: query)?|new query)\s*[:=-]\s*(.+)", re.IGNORECASE)


def _parse_examine(reply: str):
    obj = parse_json_object(reply)
    if obj is not None:
        decision = obj.get("sufficient", obj.get("answerable", obj.get("answered")))
        if isinstance(decision, str):
            decision = {"true": True, "yes": True, "false": False, "no": False}.get(decision.strip().lower())
        answers = obj.get("answer", obj.get("answers"))
        if isinstance(answers, str):
            answers = parse_answer_list(answers)
        answers = [str(a) for a in answers or [] if str(a).strip()]
        clue = str(obj.get("clue") or obj.get("supplementary_query") or obj.get("query") or "").strip()
        if decision is None and answers:
            decision = True
        if decision is True and answers:
            return True, answers, clue
        if decision is False:
            return False, answers, clue
    decision, braced = parse_yes_no(reply)
    clue_match = _CLUE_LINE.search(reply)
    clue = clue_match.group(1).strip().strip("\"'{}") if clue_match else ""
    if decision is True:
        names = [braced] if braced else []
        if not names:
            marker = re.search(r"answer is[:\s]+(.+)", reply, re.IGNORECASE)
            names = parse_answer_list(marker.group(1)) if marker else []
        return (True, names, clue) if names else None
    if decision is False:
        return False, [], clue
    return None


def item_evidence(chains: Sequence[dict], references: Sequence[dict]) -> Evidence:
    """The triple paths' ends (paths of at least one hop) and the cited chunks; the paths' starts are the topic entities."""
    evidence = Evidence(topic_entities=[c["start"] for c in chains], chunks=references)
    for item in chains:
        if item.get("steps"):
            evidence.add_end(item["entity"], item)
    return evidence


class LLMExaminer(LLMDecider, RunGrounding):
    """Examine & reason by a chat model (see the module docstring).

    ``grounding`` (:mod:`kg_agent.tools.shared.grounding`) decides what an answer no triple path ends in and no
    cited chunk states becomes: under ``"prefer"`` (default) and ``"strict"`` the offline examiner decides
    instead (its grounded answers, or a clue query and another round), and ``output`` keeps the reply.
    """

    def __init__(self, model: BaseChatModel, *, fallback: Examiner, structured_output: StructuredMode = "auto",
                 grounding: Grounding = DEFAULT_GROUNDING) -> None:
        # its reply is free text in a JSON shape, which a small model writes usably only under a grammar (SmolLM2:
        # 0 of 2 on the first attempt in text, 2 of 2 under llama.cpp's grammar; docs/real_llm.md)
        super().__init__(model, "examine", fallback=fallback, structured_output=structured_output, schema=Examination,
                         reply_format='{"sufficient": true, "answer": ["..."]}   or   {"sufficient": false, "clue": "..."}',
                         grammar_under_auto="always")
        self.grounding = grounding

    def examine(self, question, frontier, chains, references, *, last_round):
        """The decision as steps (its model calls asked by :mod:`kg_agent.steps`)."""
        clues = "\n".join(dict.fromkeys(f"- {i['entity']['label']}: {i.get('clue') or '-'}" for i in frontier)) or "-"
        triples = "\n".join(dict.fromkeys("; ".join(triple_text(t) for t in i["steps"]) for i in frontier if i["steps"])) or "(none)"
        refs = "\n".join(f"[{n}] ({c.get('entity_label') or c.get('title')}) {c['text']}" for n, c in enumerate(references, 1)) or "(none)"
        prompt = EXAMINE_PROMPT.format(question=question, clues=clues, triples=triples, references=refs,
                                       last=LAST_ROUND if last_round else "")
        asked = yield self.decision.request(prompt, lambda reply: (_parse_examine(reply), []))
        if not asked.decided:
            outcome = decided(self.fallback.examine, question, frontier, chains, references, last_round=last_round)
            return fall_back(asked, outcome, node="examine", to=f"the {self.fallback.name} examiner")
        warnings = list(asked.warnings)
        sufficient, names, clue = asked.value
        if sufficient or (last_round and names):
            answers = ground_names(names, item_evidence(chains, references), read_sentences=self.grounding != "off")
            offline: list[ExamineOutcome] = []

            def offline_answers() -> list[dict]:
                offline.append(decided(self.fallback.examine, question, frontier, chains, references, last_round=last_round))
                return offline[0].answers if offline[0].sufficient else []

            settled = settle(answers, policy=self.grounding, node="examine", offline=offline_answers,
                             offline_name=f"{self.fallback.name} examiner")
            warnings.extend(settled.warnings)
            if offline and not offline[0].sufficient and not last_round:
                warnings.append(f"examine: the model's answers are not supported by any triple path or chunk; the "
                                f"{self.fallback.name} examiner explores on (grounding={self.grounding!r})")
                return replace(offline[0], warnings=warnings + offline[0].warnings, output=asked.reply,
                               usage=merge_usage(asked.usage, offline[0].usage))
            output = "\n".join(a["answer"] for a in settled.answers) if self.grounding == "strict" else asked.reply
            return ExamineOutcome(True, settled.answers, output=output, warnings=warnings, usage=asked.usage,
                                  source=self.name)
        if not clue:
            clue = question
            warnings.append("examine: the model wrote no supplementary query; the question is used")
        return ExamineOutcome(False, clue=clue, output=asked.reply, warnings=warnings, usage=asked.usage, source=self.name)


# ---------------------------------------------------------------------------------------------- node
def examine_steps(state: dict, *, examiner: Examiner, depth: int, top_l: int = DEFAULT_TOP_L):
    """Graph node (as steps): answer, or set the supplementary clue queries the next round scores chunks with."""
    frontier = state.get("frontier") or []
    current = int(state.get("depth") or 0)
    last_round = current >= depth
    references = (state.get("documents") or [])[:top_l]
    outcome = yield decide(examiner.examine, state["question"], frontier, state.get("chains") or [], references,
                           last_round=last_round)
    update: dict = {"warnings": outcome.warnings, "usage": outcome.usage,
                    "references": references, "paths": list(frontier)}
    if outcome.sufficient:
        limited = any(str(a.get("note", "")).startswith("depth limit") for a in outcome.answers)
        stop = "max_depth" if limited else "answered" if outcome.answers else NO_GROUNDED_ANSWER
        update.update(answers=outcome.answers, output=outcome.output, stop_reason=stop)
        return update
    if last_round:
        update.update(answers=[], output=outcome.output, stop_reason="max_depth",
                      warnings=[*outcome.warnings, "examine: no answer within the depth limit"])
        return update
    new_frontier, log = [], list(state.get("clue_queries") or [])
    for item in frontier:
        clue = outcome.clues.get(item["entity"]["id"]) or outcome.clue or item.get("clue", "")
        if clue != item.get("clue", ""):
            log.append({"depth": current, "entity": item["entity"]["label"], "clue": clue, "source": outcome.source})
        new_frontier.append({**item, "clue": clue})
    update.update(frontier=new_frontier, clue_queries=log, output=outcome.output)
    return update
