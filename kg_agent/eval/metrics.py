"""Answer-scoring metrics under three conventions.

Per-question functions return fractions in ``[0, 1]`` (booleans as ``0.0``/``1.0``), like the original
evaluation scripts; :func:`aggregate` averages them over questions and reports **percent**
(``0``–``100``), as papers do.

1. ``strict`` — the headline convention of this project (:func:`strict_scores`). Answers are normalised
   SQuAD-style (:func:`normalize_answer`) and compared as whole strings, never as substrings:

   * ``hits_at_1``: the first predicted answer equals one gold answer;
   * ``precision`` / ``recall`` / ``f1``: over the *sets* of normalised predicted and gold answers;
   * ``exact_match``: the normalised predicted set equals the normalised gold set (for a single-answer
     question: exactly one distinct prediction, and it is the answer).

2. ``rog_legacy`` — a faithful re-implementation of Reasoning on Graphs' published evaluation
   (``src/qa_prediction/evaluate_results.py`` in rmanluo/reasoning-on-graphs), quirks included
   (:func:`rog_scores`): substring matching on the model's *whole output*, a precision that divides
   the number of *gold answers* found by the number of output *lines* (so it can exceed 1), etc.

3. ``tog_em`` — Think-on-Graph's "exact match" (``eval/eval.py`` + ``eval/utils.py`` in
   IDEA-FinAI/ToG) (:func:`tog_scores`): the text inside the first ``{...}`` of the output (the whole
   output when there is none), lower-cased with spaces removed, is a hit when it contains, or is
   contained in, any gold alias.
   Only deviation: an empty response (or alias) is not a hit here, while ToG counts it as one
   (``allow_empty=True`` restores that).

:func:`score_question` computes all three for one question.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

__all__ = [
    "aggregate",
    "exact_match",
    "hits_at_1",
    "normalize_answer",
    "precision_recall_f1",
    "rog_eval_acc",
    "rog_eval_f1",
    "rog_eval_hit",
    "rog_extract_topk_prediction",
    "rog_match",
    "rog_normalize",
    "rog_scores",
    "score_question",
    "strict_scores",
    "tog_clean_results",
    "tog_exact_match",
    "tog_scores",
]

# --------------------------------------------------------------------------------------------- strict

_PUNCTUATION = frozenset(string.punctuation)
_ARTICLES_RE = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD-style normalisation: lower-case, drop ASCII punctuation, drop the articles a/an/the,
    collapse whitespace.

    >>> normalize_answer("  The  U.S. Open ")
    'us open'
    """
    text = text.lower()
    text = "".join(ch for ch in text if ch not in _PUNCTUATION)
    text = _ARTICLES_RE.sub(" ", text)
    return " ".join(text.split())


def _normalized_set(answers: Iterable[str]) -> set[str]:
    """Normalised answers, with answers that normalise to the empty string dropped."""
    return {n for n in (normalize_answer(a) for a in answers) if n}


def hits_at_1(pred: Sequence[str], gold: Sequence[str]) -> float:
    """1.0 when the first predicted answer, normalised, equals a normalised gold answer, else 0.0.

    Only ``pred[0]`` counts (no fallback to later predictions); an empty prediction list, or a first
    prediction that normalises to ``""``, scores 0.0; so does an empty gold list.
    """
    if not pred:
        return 0.0
    first = normalize_answer(pred[0])
    return 1.0 if first and first in _normalized_set(gold) else 0.0


def precision_recall_f1(pred: Sequence[str], gold: Sequence[str]) -> tuple[float, float, float]:
    """Set precision, recall and F1 between normalised predicted and gold answers.

    Duplicates (after normalisation) count once; answers normalising to ``""`` are ignored. When both
    sets are empty the prediction is a correct abstention and scores ``(1, 1, 1)``; when only one is
    empty it scores ``(0, 0, 0)``.
    """
    p_set, g_set = _normalized_set(pred), _normalized_set(gold)
    if not p_set and not g_set:
        return 1.0, 1.0, 1.0
    if not p_set or not g_set:
        return 0.0, 0.0, 0.0
    common = len(p_set & g_set)
    precision, recall = common / len(p_set), common / len(g_set)
    f1 = 0.0 if common == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


def exact_match(pred: Sequence[str], gold: Sequence[str]) -> float:
    """1.0 when the set of normalised predictions equals the set of normalised gold answers.

    This is set equality for every dataset — for a single-answer question it means exactly one distinct
    (normalised) prediction, equal to the answer; predicting the answer plus something else is not an
    exact match (use :func:`hits_at_1` for "first answer right"). Two empty sets match.
    """
    return 1.0 if _normalized_set(pred) == _normalized_set(gold) else 0.0


def strict_scores(pred: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    """``{"hits_at_1", "precision", "recall", "f1", "exact_match"}`` for one question (fractions)."""
    precision, recall, f1 = precision_recall_f1(pred, gold)
    return {
        "hits_at_1": hits_at_1(pred, gold),
        "precision": precision,
        "recall": recall,
        "f1": f1,
        "exact_match": exact_match(pred, gold),
    }


def selective_scores(pred: Sequence[str], gold: Sequence[str]) -> dict[str, float]:
    """The selective convention for one question (fractions; :func:`aggregate` averages each key over the questions
    that have it): ``hits_at_1`` as :func:`hits_at_1`, except that a question with no gold answer (unanswerable) is
    right only when nothing is answered; ``coverage``: 1 when something is answered; ``answered_hits_at_1`` (only
    for answered questions): their precision; ``abstained`` (only for unanswerable questions): 1 when nothing is
    answered."""
    answered = bool(_normalized_set(pred))
    scores = {"hits_at_1": hits_at_1(pred, gold) if gold else float(not answered), "coverage": float(answered)}
    if answered:
        scores["answered_hits_at_1"] = scores["hits_at_1"]
    if not gold:
        scores["abstained"] = float(not answered)
    return scores


# --------------------------------------------------------------------------------------------- rog_legacy

_ROG_PAD_RE = re.compile(r"\b(<pad>)\b")


def rog_normalize(s: str) -> str:
    """RoG's ``normalize``: lower-case, drop ASCII punctuation, replace a/an/the by a space, remove
    ``<pad>``, collapse whitespace.

    Quirk kept: the ``<pad>`` removal runs *after* punctuation removal, when ``<`` and ``>`` are already
    gone, so it never matches and the word ``pad`` survives (``"<pad>"`` normalises to ``"pad"``).
    Non-ASCII punctuation (``–``, ``’``) is kept, as in the original. Apart from the dead ``<pad>`` step
    this is the same as :func:`normalize_answer`.
    """
    s = s.lower()
    s = "".join(ch for ch in s if ch not in _PUNCTUATION)
    s = _ARTICLES_RE.sub(" ", s)
    s = _ROG_PAD_RE.sub(" ", s)
    return " ".join(s.split())


def rog_match(s1: str, s2: str) -> bool:
    """RoG's ``match``: ``normalize(s2) in normalize(s1)`` — a plain *substring* test.

    Quirks: no word boundaries, so gold ``"us"`` is found in ``"houston"`` and gold ``"1967"`` in
    ``"19675"``; a gold answer that normalises to ``""`` (e.g. ``"The"``) is found in every string.
    """
    return rog_normalize(s2) in rog_normalize(s1)


def rog_eval_acc(prediction: str, answer: Sequence[str]) -> float:
    """RoG's ``eval_acc``: the fraction of gold answers found (by :func:`rog_match`) in ``prediction``.

    The original divides by ``len(answer)`` and crashes on an empty gold list; here that returns 0.0.
    """
    if not answer:
        return 0.0
    return sum(1 for a in answer if rog_match(prediction, a)) / len(answer)


def rog_eval_hit(prediction: str, answer: Sequence[str]) -> float:
    """RoG's ``eval_hit`` (the "Hits@1" of the RoG paper): 1.0 when *any* gold answer is a substring
    of the normalised *whole output* — not the first answer, and not a whole-string match."""
    return 1.0 if any(rog_match(prediction, a) for a in answer) else 0.0


def rog_eval_f1(
    prediction: Sequence[str],
    answer: Sequence[str],
    *,
    precision_mode: Literal["published", "per_line"] = "published",
) -> tuple[float, float, float]:
    """RoG's ``eval_f1`` on the list of output lines; returns ``(f1, precision, recall)``.

    ``recall`` = (number of gold answers found in ``" ".join(prediction)``) / ``len(answer)``.

    ``precision`` with ``precision_mode="published"`` (the code behind RoG's published numbers) is the
    *same count of gold answers found* divided by the number of *prediction lines*. Quirks:

    * it can exceed 1 — one line ``"Jamaican English, Jamaican Creole English Language"`` holding two
      gold answers gives precision 2/1 = 2.0 (and F1 = 2·2·1/3 ≈ 1.33);
    * blank lines count in the denominator (a trailing ``"\\n"`` adds an empty line);
    * a wrong line is only penalised through the denominator.

    ``precision_mode="per_line"`` is the later variant used in follow-up code: the number of prediction
    lines that contain some gold answer, divided by the number of lines (always in [0, 1]).

    An empty ``prediction`` list scores ``(0, 0, 0)`` (as in RoG). An empty gold list crashes the
    original (division by zero); here it scores ``(0, 0, 0)``.
    """
    if len(prediction) == 0 or len(answer) == 0:
        return 0.0, 0.0, 0.0
    prediction_str = " ".join(prediction)
    matched = sum(1 for a in answer if rog_match(prediction_str, a))
    recall = matched / len(answer)
    if precision_mode == "published":
        precision = matched / len(prediction)
    elif precision_mode == "per_line":
        precision = sum(1 for p in prediction if any(rog_match(p, a) for a in answer)) / len(prediction)
    else:
        raise ValueError(f"precision_mode must be 'published' or 'per_line', got {precision_mode!r}")
    if precision + recall == 0:
        return 0.0, precision, recall
    return 2 * precision * recall / (precision + recall), precision, recall


def rog_extract_topk_prediction(prediction: Sequence[str], k: int = -1) -> list[str]:
    """RoG's ``extract_topk_prediction``: distinct predictions sorted by frequency (ties keep first-seen
    order), the top ``k`` (all when ``k < 0`` or ``k`` exceeds the number of distinct predictions)."""
    counts: dict[str, int] = {}
    for p in prediction:
        counts[p] = counts.get(p, 0) + 1
    if k > len(counts) or k < 0:
        k = len(counts)
    ranked = sorted(counts.items(), key=lambda item: item[1], reverse=True)
    return [p for p, _ in ranked[:k]]


def rog_scores(
    prediction: str | Sequence[str],
    gold: Sequence[str],
    *,
    topk: int = -1,
    precision_mode: Literal["published", "per_line"] = "published",
) -> dict[str, float]:
    """RoG's ``eval_result`` (with ``cal_f1=True``) for one question:
    ``{"hit", "acc", "f1", "precision", "recall"}`` (fractions; ``precision``/``f1`` may exceed 1).

    ``prediction`` is the model's whole output string, split on ``"\\n"`` into lines (an empty string
    is one empty line, which scores 0 everywhere); a list (several sampled outputs in RoG) is reduced
    with :func:`rog_extract_topk_prediction` instead. F1/precision/recall come from
    :func:`rog_eval_f1` on the lines; ``hit`` and ``acc`` from :func:`rog_eval_hit` /
    :func:`rog_eval_acc` on the lines joined by a space — so an answer may also match across a line
    break (``"New\\nYork"`` contains ``"new york"``).
    """
    if isinstance(prediction, str):
        lines = prediction.split("\n")
    else:
        lines = rog_extract_topk_prediction(prediction, topk)
    f1, precision, recall = rog_eval_f1(lines, gold, precision_mode=precision_mode)
    prediction_str = " ".join(lines)
    return {
        "hit": rog_eval_hit(prediction_str, gold),
        "acc": rog_eval_acc(prediction_str, gold),
        "f1": f1,
        "precision": precision,
        "recall": recall,
    }


# --------------------------------------------------------------------------------------------- tog_em


def tog_clean_results(output: str) -> str:
    """The answer ToG scores: ``output[output.find("{") + 1 : output.find("}")]`` when ``output``
    contains ``{``, else the whole ``output``.

    Quirks kept from ToG's ``clean_results``: the slice ends at the *first* ``}`` of the whole string,
    so with no ``}`` (``find`` returns -1) the last character is dropped (``"{Paris"`` → ``"Pari"``) and
    with a ``}`` before the first ``{`` the result is empty; nested braces are not balanced.
    """
    if "{" in output:
        return output[output.find("{") + 1 : output.find("}")]
    return output


def _tog_clean(s: str) -> str:
    return s.strip().replace(" ", "").lower()


def tog_exact_match(response: str, answers: Sequence[str], *, allow_empty: bool = False) -> bool:
    """ToG's ``exact_match``: with ``clean(x) = x.strip().replace(" ", "").lower()``, True when for some
    gold alias ``clean(response) == clean(alias)``, or one contains the other.

    Quirks kept: only the space character is removed (tabs/newlines inside stay), punctuation and
    articles are kept (``"U.S."`` does not match ``"US"``), and containment works both ways and ignores
    word boundaries: the response ``"Jamaica"`` is a hit for gold ``"Jamaican English"``, and a long
    response that mentions an answer anywhere is a hit.

    One deliberate deviation: in ToG an empty (cleaned) response is contained in every alias and counts
    as correct, and an empty alias matches every response. Here both are ignored unless
    ``allow_empty=True`` (which reproduces ToG exactly).
    """
    clean_result = _tog_clean(response)
    if not clean_result and not allow_empty:
        return False
    for answer in answers:
        clean_answer = _tog_clean(answer)
        if not clean_answer and not allow_empty:
            continue
        if clean_result == clean_answer or clean_result in clean_answer or clean_answer in clean_result:
            return True
    return False


def tog_scores(output: str, gold: Sequence[str], *, allow_empty: bool = False) -> dict[str, float]:
    """``{"em": 0.0 | 1.0}``: :func:`tog_exact_match` of :func:`tog_clean_results` ``(output)``.

    ToG's ``eval.py`` reports ``num_right / len(outputs)`` as "Exact Match", which is the mean of this
    value over questions.
    """
    return {"em": 1.0 if tog_exact_match(tog_clean_results(output), gold, allow_empty=allow_empty) else 0.0}


# --------------------------------------------------------------------------------------------- combined


def score_question(
    prediction_answers: Sequence[str], raw_output: str | None, gold: Sequence[str]
) -> dict[str, dict[str, float]]:
    """All three conventions for one question.

    Args:
        prediction_answers: The method's ranked answer list (used by ``strict``).
        raw_output: The full text the method produced (used by ``rog_legacy`` and ``tog_em``); for an
            offline method with no text output, pass the answers joined by ``"\\n"`` — which is what
            ``None`` does.
        gold: Gold answers (aliases as separate entries).

    Returns:
        ``{"strict": strict_scores(...), "selective": selective_scores(...), "rog_legacy": rog_scores(...),
        "tog_em": tog_scores(...)}``.
    """
    text = "\n".join(prediction_answers) if raw_output is None else raw_output
    return {
        "strict": strict_scores(prediction_answers, gold),
        "selective": selective_scores(prediction_answers, gold),
        "rog_legacy": rog_scores(text, gold),
        "tog_em": tog_scores(text, gold),
    }


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float))  # bool is an int: True/False average as 1/0


def aggregate(per_question: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Average per-question scores and report them in percent.

    Accepts flat dicts (``{"f1": 0.5, ...}``) or nested ones such as :func:`score_question` results
    (``{"strict": {...}, "rog_legacy": {...}, ...}``) and returns the same shape, each numeric leaf
    replaced by ``100 * mean`` over the questions that have it (non-numeric leaves are ignored), plus
    ``"n"``: the number of questions. An empty input gives ``{"n": 0}``.
    """
    sums: dict[tuple[str, ...], float] = {}
    counts: dict[tuple[str, ...], int] = {}

    def visit(node: Mapping[str, Any], prefix: tuple[str, ...]) -> None:
        for key, value in node.items():
            path = (*prefix, str(key))
            if isinstance(value, Mapping):
                visit(value, path)
            elif _is_number(value):
                sums[path] = sums.get(path, 0.0) + float(value)
                counts[path] = counts.get(path, 0) + 1

    for scores in per_question:
        visit(scores, ())

    result: dict[str, Any] = {}
    for path, total in sums.items():
        target = result
        for key in path[:-1]:
            target = target.setdefault(key, {})
        target[path[-1]] = 100.0 * total / counts[path]
    result["n"] = len(per_question)
    return result
