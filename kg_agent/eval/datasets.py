"""Question loaders for the KGQA benchmarks used by kg-agent, plus deterministic sampling/splitting.

Every loader returns a list of :class:`Question`. Supported formats:

* **MetaQA** (``{1,2,3}-hop/qa_dev.txt``): ``question with [Topic Entity]<TAB>ans1|ans2`` a line, with an
  optional ``qa_dev_qtype.txt`` beside it (one question type a line, aligned by line number) and optional
  ``.idx`` files of 0-based line numbers to keep (e.g. ``2hop_dev_all_gold_reachable.idx``)
  — :func:`load_metaqa`.
* **RoG JSONL** (WebQSP / CWQ as published by Reasoning on Graphs): ``{"id", "question", "answer": [...],
  "q_entity": [...], "a_entity": [...], "graph": [[h, r, t], ...]}`` — :func:`load_rog_jsonl`.
* **2WikiMultihopQA** (``questions_dev.jsonl``): ``{"_id", "type", "question", "answer",
  "evidences": [[s, r, o], ...], ...}`` — :func:`load_twowiki`.
* **Generic JSONL**: ``{"question", "answers" (list or str), "topic_entities"?, "id"?}`` — :func:`load_jsonl`.

:func:`load_dataset` dispatches on a format name. Malformed input raises :class:`DatasetFormatError`
(a :class:`ValueError`) naming the file and the line; line numbers in messages are 1-based (as in
editors) and also given as the 0-based index used by :attr:`Question.line` and ``.idx`` files.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "DATASET_KINDS",
    "DatasetFormatError",
    "Question",
    "load_dataset",
    "load_jsonl",
    "load_metaqa",
    "load_rog_jsonl",
    "load_twowiki",
    "read_line_indices",
    "sample_questions",
    "split_lines",
]

PathLike = str | Path
Triple = tuple[str, str, str]

_TOPIC_RE = re.compile(r"\[([^\[\]]+)\]")
_HOP_RE = re.compile(r"(\d+)[-_ ]?hop", re.IGNORECASE)
_METAQA_SPLIT_RE = re.compile(r"^qa_([A-Za-z0-9]+)(?:_[A-Za-z0-9_]*)?\.txt$")


class DatasetFormatError(ValueError):
    """A dataset file (or one of its lines) does not have the expected format."""

    def __init__(self, path: PathLike, message: str, line: int | None = None) -> None:
        where = f"{path}" if line is None else f"{path}, line {line + 1} (0-based index {line})"
        super().__init__(f"{where}: {message}")
        self.path = Path(path)
        self.line = line


@dataclass
class Question:
    """One benchmark question.

    Attributes:
        id: Stable identifier, e.g. ``"metaqa-2hop-dev-123"``, ``"WebQTest-0"`` or 2Wiki's ``_id``.
        question: Question text (for MetaQA the ``[ ]`` around the topic entity are removed).
        answers: Gold answers (labels/names, not ids); aliases of one answer are separate entries.
        topic_entities: Labels/names of the question's topic (seed) entities.
        qtype: Question type when the dataset has one (MetaQA qtype file, 2Wiki ``type``).
        hop: Number of hops when known (MetaQA folder ``2-hop``); ``None`` otherwise.
        line: 0-based line number of the question in its source file.
        extra: Format-specific data (MetaQA ``raw`` text, RoG ``graph`` triples and ``a_entity``,
            2Wiki ``evidences`` ...).
    """

    id: str
    question: str
    answers: list[str]
    topic_entities: list[str] = field(default_factory=list)
    qtype: str | None = None
    hop: int | None = None
    line: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict of all fields (tuples inside ``extra`` become lists when dumped)."""
        return asdict(self)


# --------------------------------------------------------------------------------------------- helpers


def _read_lines(path: Path) -> list[str]:
    if not path.is_file():
        raise FileNotFoundError(f"dataset file not found: {path}")
    with path.open("r", encoding="utf-8") as handle:
        return [line.rstrip("\r\n") for line in handle]


def _iter_json_objects(path: PathLike) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(0-based line, object)`` for each non-blank line of a JSONL file."""
    p = Path(path)
    for index, text in enumerate(_read_lines(p)):
        if not text.strip():
            continue
        try:
            obj = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DatasetFormatError(p, f"invalid JSON ({exc.msg} at column {exc.colno})", index) from None
        if not isinstance(obj, dict):
            raise DatasetFormatError(p, f"expected a JSON object, got {type(obj).__name__}", index)
        yield index, obj


def _require(obj: dict[str, Any], key: str, path: Path, line: int) -> Any:
    if key not in obj:
        raise DatasetFormatError(path, f"missing required key {key!r}", line)
    return obj[key]


def _as_str(value: Any, what: str, path: Path, line: int) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    raise DatasetFormatError(path, f"{what} must be a string, got {type(value).__name__}", line)


def _as_str_list(value: Any, what: str, path: Path, line: int) -> list[str]:
    """A list of strings from a list (numbers are stringified) or a single string."""
    if value is None:
        return []
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return [str(value)]
    if isinstance(value, list):
        return [_as_str(v, f"{what} item", path, line) for v in value]
    raise DatasetFormatError(path, f"{what} must be a list of strings, got {type(value).__name__}", line)


def _as_triples(value: Any, what: str, path: Path, line: int) -> list[Triple]:
    if not isinstance(value, list):
        raise DatasetFormatError(path, f"{what} must be a list of [h, r, t] triples", line)
    triples: list[Triple] = []
    for k, item in enumerate(value):
        if not isinstance(item, (list, tuple)) or len(item) != 3:
            raise DatasetFormatError(path, f"{what}[{k}] is not a [h, r, t] triple: {item!r}", line)
        h, r, t = (_as_str(x, f"{what}[{k}] element", path, line) for x in item)
        triples.append((h, r, t))
    return triples


def _unique(items: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(items))


def read_line_indices(path: PathLike) -> list[int]:
    """Read an ``.idx`` file: one 0-based line number a line (blank lines ignored), in file order."""
    p = Path(path)
    indices: list[int] = []
    for index, text in enumerate(_read_lines(p)):
        text = text.strip()
        if not text:
            continue
        try:
            value = int(text)
        except ValueError:
            raise DatasetFormatError(p, f"expected a line number, got {text!r}", index) from None
        if value < 0:
            raise DatasetFormatError(p, f"line numbers are 0-based and non-negative, got {value}", index)
        indices.append(value)
    return indices


def _resolve_only_lines(only_lines: PathLike | Iterable[int] | None) -> set[int] | None:
    if only_lines is None:
        return None
    if isinstance(only_lines, (str, Path)):
        return set(read_line_indices(only_lines))
    result: set[int] = set()
    for value in only_lines:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"only_lines must hold non-negative ints, got {value!r}")
        result.add(value)
    return result


# --------------------------------------------------------------------------------------------- MetaQA


def _infer_hop(path: Path) -> int | None:
    for part in (path.parent.name, path.stem):
        match = _HOP_RE.search(part)
        if match:
            return int(match.group(1))
    return None


def _infer_split(path: Path) -> str:
    match = _METAQA_SPLIT_RE.match(path.name)
    return match.group(1) if match else path.stem


def load_metaqa(
    qa_file: PathLike,
    *,
    qtype_file: PathLike | None = None,
    only_lines: PathLike | Iterable[int] | None = None,
    hop: int | None = None,
) -> list[Question]:
    """Load MetaQA questions (``question with [Topic Entity]<TAB>ans1|ans2`` a line).

    Args:
        qa_file: e.g. ``.../metaqa/2-hop/qa_dev.txt``.
        qtype_file: Question-type file aligned line by line with ``qa_file``. When ``None``,
            ``qa_<split>_qtype.txt`` beside ``qa_file`` is used if it exists (``qa_dev_qtype.txt`` for
            ``qa_dev.txt``). Its line count must equal the question file's.
        only_lines: Keep only these 0-based line numbers: a path to an ``.idx`` file (one number a line)
            or an iterable of ints. Numbers beyond the end of the file are an error.
        hop: Number of hops; inferred from a folder named like ``2-hop`` (or a file name like ``2hop``)
            when ``None``.

    Returns:
        Questions in file order. ``question`` is the text with the ``[`` ``]`` around the topic entity
        removed; ``extra["raw"]`` keeps the original text; ``topic_entities`` holds the bracketed names;
        ``answers`` the ``|``-separated answers (order kept, duplicates and empties dropped); ``id`` is
        ``metaqa-<hop>hop-<split>-<line>`` (``metaqa-<split>-<line>`` when the hop is unknown).
    """
    path = Path(qa_file)
    lines = _read_lines(path)
    if hop is None:
        hop = _infer_hop(path)
    split = _infer_split(path)

    qtypes: list[str] | None = None
    qtype_path = Path(qtype_file) if qtype_file is not None else path.with_name(f"qa_{split}_qtype.txt")
    if qtype_file is not None or qtype_path.is_file():
        qtypes = _read_lines(qtype_path)
        # tolerate a trailing blank line in either file
        while qtypes and not qtypes[-1].strip():
            qtypes.pop()
        n_questions = len(lines)
        while n_questions and not lines[n_questions - 1].strip():
            n_questions -= 1
        if len(qtypes) != n_questions:
            raise DatasetFormatError(
                qtype_path, f"has {len(qtypes)} question types but {path} has {n_questions} questions"
            )

    keep = _resolve_only_lines(only_lines)
    if keep:
        beyond = max(keep)
        if beyond >= len(lines):
            raise ValueError(f"only_lines asks for line {beyond} but {path} has {len(lines)} lines")

    prefix = f"metaqa-{hop}hop-{split}" if hop is not None else f"metaqa-{split}"
    questions: list[Question] = []
    for index, text in enumerate(lines):
        if keep is not None and index not in keep:
            continue
        if not text.strip():
            if keep is not None:
                raise DatasetFormatError(path, "line selected by only_lines is blank", index)
            continue
        parts = text.split("\t")
        if len(parts) != 2:
            raise DatasetFormatError(
                path, f"expected 'question<TAB>answer1|answer2', found {len(parts) - 1} tabs", index
            )
        raw, answer_field = parts[0].strip(), parts[1].strip()
        topics = _TOPIC_RE.findall(raw)
        if not topics:
            raise DatasetFormatError(path, f"no [topic entity] in question {raw!r}", index)
        answers = _unique(a.strip() for a in answer_field.split("|") if a.strip())
        if not answers:
            raise DatasetFormatError(path, "no answers after the tab", index)
        questions.append(
            Question(
                id=f"{prefix}-{index}",
                question=_TOPIC_RE.sub(r"\1", raw),
                answers=answers,
                topic_entities=_unique(t.strip() for t in topics),
                qtype=qtypes[index].strip() if qtypes is not None else None,
                hop=hop,
                line=index,
                extra={"raw": raw, "dataset": "metaqa", "split": split},
            )
        )
    return questions


# --------------------------------------------------------------------------------------------- JSONL formats


def load_rog_jsonl(path: PathLike) -> list[Question]:
    """Load WebQSP/CWQ in Reasoning-on-Graphs' JSONL format.

    Each line: ``{"id", "question", "answer": [...], "q_entity": [...], "a_entity": [...],
    "graph": [[h, r, t], ...]}``. ``answers`` = ``answer``, ``topic_entities`` = ``q_entity``;
    ``extra["graph"]`` is the question-specific subgraph as a list of ``(h, r, t)`` tuples (empty when
    absent), ``extra["a_entity"]`` the answer entities found in that subgraph (may be empty, e.g.
    WebQTest-3), and any other keys of the record are copied into ``extra`` unchanged.
    ``id`` defaults to ``<file stem>-<line>`` when missing.
    """
    p = Path(path)
    questions: list[Question] = []
    for index, obj in _iter_json_objects(p):
        question = _as_str(_require(obj, "question", p, index), "question", p, index)
        answers = _as_str_list(_require(obj, "answer", p, index), "answer", p, index)
        extra: dict[str, Any] = {
            k: v for k, v in obj.items() if k not in {"id", "question", "answer", "q_entity", "a_entity", "graph"}
        }
        extra["dataset"] = extra.get("dataset", "rog")
        extra["a_entity"] = _as_str_list(obj.get("a_entity"), "a_entity", p, index)
        extra["graph"] = _as_triples(obj.get("graph", []), "graph", p, index)
        questions.append(
            Question(
                id=_as_str(obj.get("id", f"{p.stem}-{index}"), "id", p, index),
                question=question,
                answers=answers,
                topic_entities=_as_str_list(obj.get("q_entity"), "q_entity", p, index),
                line=index,
                extra=extra,
            )
        )
    return questions


def _seed_subjects(evidences: Sequence[Triple]) -> list[str]:
    """Subjects of evidence triples that are never an object of another one (the chain starts); the
    first triple's subject when every subject is also an object (a cycle such as A father B, B father A)."""
    objects = {o for _, _, o in evidences}
    seeds = _unique(s for s, _, _ in evidences if s not in objects)
    if not seeds and evidences:
        seeds = [evidences[0][0]]
    return seeds


def load_twowiki(path: PathLike) -> list[Question]:
    """Load 2WikiMultihopQA questions (``questions_dev.jsonl``).

    Each line: ``{"_id", "type", "question", "answer", "evidences": [[s, r, o], ...], ...}``.
    ``answers`` = ``[answer]``, ``qtype`` = ``type`` (compositional, inference, comparison,
    bridge_comparison), ``extra["evidences"]`` the evidence triples as ``(s, r, o)`` tuples; every other
    key (``supporting_facts``, ``context``, ``evidences_id``, ``answer_id`` ...) is copied into ``extra``.
    The dataset has no topic-entity field: ``topic_entities`` are the subjects of the evidence triples
    that are not the object of another evidence triple (KG names, which may differ from the mention in
    the question, e.g. "Charles James Mathew" for "Charles Mathew"); when the evidences form a cycle
    (one dev question's do) the first evidence's subject is used. ``hop`` stays ``None``.
    """
    p = Path(path)
    questions: list[Question] = []
    for index, obj in _iter_json_objects(p):
        answer = _as_str(_require(obj, "answer", p, index), "answer", p, index)
        evidences = _as_triples(obj.get("evidences", []), "evidences", p, index)
        extra: dict[str, Any] = {
            k: v for k, v in obj.items() if k not in {"_id", "id", "type", "question", "answer", "evidences"}
        }
        extra["dataset"] = "twowiki"
        extra["evidences"] = evidences
        qtype = obj.get("type")
        questions.append(
            Question(
                id=_as_str(obj.get("_id", obj.get("id", f"{p.stem}-{index}")), "_id", p, index),
                question=_as_str(_require(obj, "question", p, index), "question", p, index),
                answers=[answer],
                topic_entities=_seed_subjects(evidences),
                qtype=_as_str(qtype, "type", p, index) if qtype is not None else None,
                line=index,
                extra=extra,
            )
        )
    return questions


def load_jsonl(path: PathLike) -> list[Question]:
    """Load a generic JSONL file: ``{"question", "answers" (list or str), "topic_entities"?, "id"?}``.

    ``answer`` is accepted when ``answers`` is missing; ``qtype`` and ``hop`` are read when present;
    other keys go into ``extra``. ``id`` defaults to ``<file stem>-<line>``.
    """
    p = Path(path)
    questions: list[Question] = []
    known = {"id", "question", "answers", "answer", "topic_entities", "qtype", "hop"}
    for index, obj in _iter_json_objects(p):
        if "answers" in obj:
            answers = _as_str_list(obj["answers"], "answers", p, index)
        elif "answer" in obj:
            answers = _as_str_list(obj["answer"], "answer", p, index)
        else:
            raise DatasetFormatError(p, "missing required key 'answers'", index)
        hop = obj.get("hop")
        if hop is not None and (isinstance(hop, bool) or not isinstance(hop, int)):
            raise DatasetFormatError(p, f"hop must be an int, got {hop!r}", index)
        qtype = obj.get("qtype")
        questions.append(
            Question(
                id=_as_str(obj.get("id", f"{p.stem}-{index}"), "id", p, index),
                question=_as_str(_require(obj, "question", p, index), "question", p, index),
                answers=answers,
                topic_entities=_as_str_list(obj.get("topic_entities"), "topic_entities", p, index),
                qtype=_as_str(qtype, "qtype", p, index) if qtype is not None else None,
                hop=hop,
                line=index,
                extra={k: v for k, v in obj.items() if k not in known},
            )
        )
    return questions


# --------------------------------------------------------------------------------------------- dispatch

_LOADERS: dict[str, Callable[..., list[Question]]] = {
    "metaqa": load_metaqa,
    "rog-jsonl": load_rog_jsonl,
    "twowiki": load_twowiki,
    "jsonl": load_jsonl,
}
_ALIASES = {
    "rog": "rog-jsonl",
    "webqsp": "rog-jsonl",
    "cwq": "rog-jsonl",
    "2wiki": "twowiki",
    "2wikimultihopqa": "twowiki",
}

DATASET_KINDS: tuple[str, ...] = tuple(_LOADERS)
"""Format names accepted by :func:`load_dataset` (aliases: rog/webqsp/cwq -> rog-jsonl, 2wiki -> twowiki)."""


def load_dataset(kind: str, path: PathLike, **kwargs: Any) -> list[Question]:
    """Load ``path`` with the loader for ``kind`` (``"metaqa" | "rog-jsonl" | "twowiki" | "jsonl"``).

    Keyword arguments go to the loader (only :func:`load_metaqa` takes any).
    """
    key = kind.strip().lower().replace("_", "-")
    key = _ALIASES.get(key, key)
    if key not in _LOADERS:
        raise ValueError(f"unknown dataset kind {kind!r}; expected one of {', '.join(DATASET_KINDS)}")
    return _LOADERS[key](path, **kwargs)


# --------------------------------------------------------------------------------------------- sampling


def sample_questions(questions: Sequence[Question], n: int, seed: int = 0) -> list[Question]:
    """A deterministic random sample of ``n`` questions (all of them when ``n >= len``), in input order.

    The same ``questions``, ``n`` and ``seed`` always give the same sample.
    """
    if n < 0:
        raise ValueError(f"n must be non-negative, got {n}")
    if n >= len(questions):
        return list(questions)
    chosen = sorted(random.Random(seed).sample(range(len(questions)), n))
    return [questions[i] for i in chosen]


def _bucket(seed: int, key: str) -> float:
    digest = hashlib.sha256(f"{seed}\x00{key}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def split_lines(
    questions: Sequence[Question], fraction: float = 0.5, seed: int = 0
) -> tuple[list[Question], list[Question]]:
    """Split questions into disjoint ``(train, test)`` lists, deterministically.

    Each question goes to ``train`` when a hash of ``(seed, question.id)`` falls below ``fraction``, so
    membership depends only on the id and the seed — not on which other questions are in the list. A
    question therefore lands on the same side whether you split the whole file or a subset of it (e.g.
    lines filtered by an ``.idx`` file), which keeps exemplars built from ``train`` disjoint from any
    ``test`` subset. ``fraction`` is the expected share of ``train`` (the realised share varies
    slightly). Both lists keep input order.
    """
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"fraction must be in [0, 1], got {fraction}")
    train: list[Question] = []
    test: list[Question] = []
    for question in questions:
        (train if _bucket(seed, question.id) < fraction else test).append(question)
    return train, test


def read_question_file(load: Callable[..., list], kind: str, file: str, *, option: str, **options) -> list:
    """``load(kind, file, **options)`` (a question file reader), with a folder or a file that is not UTF-8 text
    refused in the CLI's words (the option, the file, the first bad line and how to convert it)."""
    from kg_agent.kg.errors import KGLoadError
    from kg_agent.text_files import not_utf8_error

    if Path(file).is_dir():
        raise ValueError(f"{option} {file} is a folder, not a question file")
    try:
        return load(kind, file, **options)
    except UnicodeDecodeError as exc:
        raise not_utf8_error(Path(file), KGLoadError) from exc
