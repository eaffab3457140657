"""Metrics under the strict, rog_legacy and tog_em conventions, against hand-computed values."""

from __future__ import annotations

import pytest

from kg_agent.eval.metrics import (
    aggregate,
    exact_match,
    hits_at_1,
    normalize_answer,
    precision_recall_f1,
    rog_eval_acc,
    rog_eval_f1,
    rog_eval_hit,
    rog_extract_topk_prediction,
    rog_match,
    rog_normalize,
    rog_scores,
    score_question,
    strict_scores,
    tog_clean_results,
    tog_exact_match,
    tog_scores,
)

approx = pytest.approx


# ------------------------------------------------------------------------------------------ normalisation


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Beatles", "beatles"),  # case + article
        ("  A   Tale of Two Cities!! ", "tale of two cities"),  # article, punctuation, whitespace
        ("An apple", "apple"),
        ("Anne Theroux", "anne theroux"),  # articles only as whole words
        ("U.S.A.", "usa"),  # punctuation is deleted, not replaced by a space
        ("Martin Luther King, Jr.", "martin luther king jr"),
        ("Jan Gunnar Røise", "jan gunnar røise"),  # non-ASCII letters kept
        ("tab\tand\nnewline", "tab and newline"),
        ("The", ""),
        ("", ""),
    ],
)
def test_normalize_answer(text: str, expected: str) -> None:
    assert normalize_answer(text) == expected


def test_rog_normalize_matches_squad_except_dead_pad_rule() -> None:
    assert rog_normalize("The  U.S. Open!") == "us open"
    # '<pad>' removal runs after '<' '>' are stripped, so it never fires: 'pad' survives
    assert rog_normalize("<pad> Paris") == "pad paris"


# ------------------------------------------------------------------------------------------ strict


def test_strict_first_answer_right_plus_wrong_extra() -> None:
    scores = strict_scores(["the beatles", "Rolling Stones"], ["Beatles"])
    # P = 1/2, R = 1/1, F1 = 2*(1/2)*1 / (3/2) = 2/3
    assert scores == approx({"hits_at_1": 1.0, "precision": 0.5, "recall": 1.0, "f1": 2 / 3, "exact_match": 0.0})


def test_strict_first_answer_wrong() -> None:
    scores = strict_scores(["Rolling Stones", "Beatles"], ["Beatles", "Queen"])
    # P = 1/2, R = 1/2, F1 = 1/2
    assert scores == approx({"hits_at_1": 0.0, "precision": 0.5, "recall": 0.5, "f1": 0.5, "exact_match": 0.0})


def test_strict_duplicates_after_normalisation_count_once() -> None:
    scores = strict_scores(["Beatles", "beatles!", "THE BEATLES"], ["The Beatles"])
    assert scores == approx({"hits_at_1": 1.0, "precision": 1.0, "recall": 1.0, "f1": 1.0, "exact_match": 1.0})


def test_strict_exact_match_is_set_equality() -> None:
    assert exact_match(["Queen", "the Beatles"], ["beatles", "Queen."]) == 1.0
    assert exact_match(["Queen"], ["Beatles", "Queen"]) == 0.0  # subset is not exact
    assert exact_match(["Greek", "Latin"], ["Greek"]) == 0.0  # single answer + extra is not exact


def test_strict_never_matches_substrings() -> None:
    assert strict_scores(["Houston"], ["US"]) == approx(
        {"hits_at_1": 0.0, "precision": 0.0, "recall": 0.0, "f1": 0.0, "exact_match": 0.0}
    )
    assert hits_at_1(["Jamaican English language"], ["Jamaican English"]) == 0.0


def test_strict_empty_prediction_and_empty_gold() -> None:
    assert strict_scores([], ["Paris"]) == approx(
        {"hits_at_1": 0.0, "precision": 0.0, "recall": 0.0, "f1": 0.0, "exact_match": 0.0}
    )
    assert strict_scores(["Paris"], []) == approx(
        {"hits_at_1": 0.0, "precision": 0.0, "recall": 0.0, "f1": 0.0, "exact_match": 0.0}
    )
    # both empty: a correct abstention for the set metrics, but there is nothing to hit
    assert strict_scores([], []) == approx(
        {"hits_at_1": 0.0, "precision": 1.0, "recall": 1.0, "f1": 1.0, "exact_match": 1.0}
    )


def test_strict_hits_at_1_only_looks_at_first_prediction() -> None:
    assert hits_at_1(["", "Paris"], ["Paris"]) == 0.0
    assert hits_at_1(["  PARIS. "], ["paris"]) == 1.0


def test_precision_recall_f1_three_of_four() -> None:
    # P = 3/5, R = 3/4, F1 = 2*(3/5)*(3/4) / (3/5 + 3/4) = (9/10) / (27/20) = 2/3
    p, r, f1 = precision_recall_f1(["a1", "a2", "a3", "x", "y"], ["a1", "a2", "a3", "a4"])
    assert (p, r, f1) == approx((0.6, 0.75, 2 / 3))


# ------------------------------------------------------------------------------------------ rog_legacy


def test_rog_match_is_substring_without_word_boundaries() -> None:
    assert rog_match("Houston", "US")  # gold 'us' counts as found in 'houston'
    assert rog_match("born in 19675", "1967")
    assert rog_match("The answer: U.S.", "us")
    assert not rog_match("US", "Houston")  # direction: gold inside prediction only


def test_rog_gold_normalising_to_empty_matches_everything() -> None:
    # gold 'A' (or 'The') normalises to '' and '' is a substring of every string
    assert rog_match("Lyon", "A")
    assert rog_eval_hit("Lyon", ["The"]) == 1.0
    assert rog_scores("", ["The"]) == approx({"hit": 1.0, "acc": 1.0, "f1": 1.0, "precision": 1.0, "recall": 1.0})


def test_rog_eval_hit_and_acc_on_whole_output() -> None:
    output = "Claire Holt and Marshall Allman"
    gold = ["Claire Holt", "Marshall Allman", "Tania Raymonde"]
    assert rog_eval_hit(output, gold) == 1.0
    assert rog_eval_acc(output, gold) == approx(2 / 3)
    assert rog_eval_hit("Houston, Texas", ["US"]) == 1.0
    assert rog_eval_hit("Lyon", ["Paris"]) == 0.0


def test_rog_scores_with_trailing_newline() -> None:
    gold = ["Jamaican English", "Jamaican Creole English Language"]
    # lines = ["Jamaican English", "Spanish", ""] -> 3 lines; 1 of 2 gold found
    # P = 1/3, R = 1/2, F1 = 2*(1/3)*(1/2) / (5/6) = 2/5
    assert rog_scores("Jamaican English\nSpanish\n", gold) == approx(
        {"hit": 1.0, "acc": 0.5, "f1": 0.4, "precision": 1 / 3, "recall": 0.5}
    )


def test_rog_published_precision_can_exceed_one() -> None:
    gold = ["Jamaican English", "Jamaican Creole English Language"]
    # one line containing both gold answers: P = 2/1, R = 2/2, F1 = 2*2*1/3 = 4/3
    scores = rog_scores("Jamaican English, Jamaican Creole English Language", gold)
    assert scores == approx({"hit": 1.0, "acc": 1.0, "f1": 4 / 3, "precision": 2.0, "recall": 1.0})
    # the later per-line variant stays in [0, 1]
    assert rog_eval_f1(["Jamaican English, Jamaican Creole English Language"], gold, precision_mode="per_line") == approx(
        (1.0, 1.0, 1.0)
    )


def test_rog_precision_published_vs_per_line() -> None:
    lines = ["Paris", "Lyon", "Paris"]
    # published: 1 gold found / 3 lines -> P = 1/3, R = 1, F1 = (2/3)/(4/3) = 1/2
    assert rog_eval_f1(lines, ["Paris"]) == approx((0.5, 1 / 3, 1.0))
    # per line: 2 of 3 lines contain a gold answer -> P = 2/3, F1 = (4/3)/(5/3) = 4/5
    assert rog_eval_f1(lines, ["Paris"], precision_mode="per_line") == approx((0.8, 2 / 3, 1.0))
    with pytest.raises(ValueError):
        rog_eval_f1(lines, ["Paris"], precision_mode="bogus")  # type: ignore[arg-type]


def test_rog_answer_split_across_lines_still_counts() -> None:
    # hit/acc/recall use the lines joined by a space: "New York"
    scores = rog_scores("New\nYork", ["New York"])
    # published P = 1 gold / 2 lines = 1/2, R = 1, F1 = 2/3
    assert scores == approx({"hit": 1.0, "acc": 1.0, "f1": 2 / 3, "precision": 0.5, "recall": 1.0})
    # per line, neither line contains 'new york': P = 0, F1 = 0
    assert rog_eval_f1(["New", "York"], ["New York"], precision_mode="per_line") == approx((0.0, 0.0, 1.0))


def test_rog_empty_prediction() -> None:
    # "" splits into one empty line: nothing found, P = R = F1 = 0
    assert rog_scores("", ["Paris"]) == approx({"hit": 0.0, "acc": 0.0, "f1": 0.0, "precision": 0.0, "recall": 0.0})
    assert rog_eval_f1([], ["Paris"]) == (0.0, 0.0, 0.0)


def test_rog_empty_gold_scores_zero_instead_of_crashing() -> None:
    assert rog_scores("Paris", []) == approx({"hit": 0.0, "acc": 0.0, "f1": 0.0, "precision": 0.0, "recall": 0.0})
    assert rog_eval_acc("Paris", []) == 0.0


def test_rog_list_prediction_uses_topk_by_frequency() -> None:
    assert rog_extract_topk_prediction(["Lyon", "Paris", "Lyon"]) == ["Lyon", "Paris"]
    assert rog_extract_topk_prediction(["Lyon", "Paris", "Lyon"], 1) == ["Lyon"]
    assert rog_extract_topk_prediction(["b", "a"], 5) == ["b", "a"]  # ties keep first-seen order
    # ["Lyon", "Paris"]: 1 gold found / 2 -> P = 1/2, R = 1, F1 = 2/3
    assert rog_scores(["Lyon", "Paris", "Lyon"], ["Paris"]) == approx(
        {"hit": 1.0, "acc": 1.0, "f1": 2 / 3, "precision": 0.5, "recall": 1.0}
    )
    assert rog_scores(["Lyon", "Paris", "Lyon"], ["Paris"], topk=1)["hit"] == 0.0


# ------------------------------------------------------------------------------------------ tog_em


@pytest.mark.parametrize(
    ("output", "extracted"),
    [
        ("The answer is {Paris} and {Lyon}.", "Paris"),  # first braces only
        ("no braces here", "no braces here"),  # whole output
        ("{Paris", "Pari"),  # no '}': find() = -1 drops the last character
        ("} then {Paris}", ""),  # '}' before '{': empty slice
        ("{}", ""),
    ],
)
def test_tog_clean_results(output: str, extracted: str) -> None:
    assert tog_clean_results(output) == extracted


def test_tog_exact_match_containment_both_ways() -> None:
    assert tog_exact_match("Jamaica", ["Jamaican English"])  # response inside gold
    assert tog_exact_match("Jamaican English language", ["jamaican english"])  # gold inside response
    assert tog_exact_match("New  York", ["newyork"])  # only spaces are removed
    assert tog_exact_match("Paris.", ["Paris"])  # trailing punctuation still contains gold
    # punctuation is not normalised away
    assert not tog_exact_match("U.S.", ["US"])
    assert not tog_exact_match("Martin Luther King Jr", ["Martin Luther King, Jr."])
    assert not tog_exact_match("Lyon", ["Paris", "Marseille"])


def test_tog_exact_match_empty_response_and_alias() -> None:
    # ToG itself counts an empty response ('' is in every string) as correct; we do not by default
    assert not tog_exact_match("", ["Paris"])
    assert not tog_exact_match("   ", ["Paris"])
    assert tog_exact_match("", ["Paris"], allow_empty=True)
    assert not tog_exact_match("Lyon", ["", "Paris"])
    assert tog_exact_match("Lyon", ["", "Paris"], allow_empty=True)
    assert not tog_exact_match("Lyon", [])


def test_tog_scores() -> None:
    assert tog_scores("So the answer is {Sleep, My Love}.", ["Sleep, My Love"]) == {"em": 1.0}
    # only the braces count, even when the gold answer appears elsewhere in the output
    assert tog_scores("I think {Lyon}. Not Paris.", ["Paris"]) == {"em": 0.0}
    assert tog_scores("Paris", ["Paris, Texas"]) == {"em": 1.0}
    assert tog_scores("{}", ["Paris"]) == {"em": 0.0}
    assert tog_scores("{}", ["Paris"], allow_empty=True) == {"em": 1.0}


# ------------------------------------------------------------------------------------------ combined


def test_score_question_offline_answers() -> None:
    scores = score_question(["Paris", "Lyon"], None, ["Paris"])
    assert scores["strict"] == approx(
        {"hits_at_1": 1.0, "precision": 0.5, "recall": 1.0, "f1": 2 / 3, "exact_match": 0.0}
    )
    # raw output "Paris\nLyon": 1 gold / 2 lines
    assert scores["rog_legacy"] == approx({"hit": 1.0, "acc": 1.0, "f1": 2 / 3, "precision": 0.5, "recall": 1.0})
    assert scores["tog_em"] == {"em": 1.0}  # 'parislyon' contains 'paris'


def test_score_question_uses_raw_output_for_legacy_conventions() -> None:
    scores = score_question(["Lyon"], "Paris is the capital. Answer: {Lyon}", ["Paris"])
    assert scores["strict"]["hits_at_1"] == 0.0
    assert scores["rog_legacy"]["hit"] == 1.0  # 'paris' occurs somewhere in the output
    assert scores["tog_em"]["em"] == 0.0  # the braces hold 'Lyon'


def test_aggregate_nested_percent() -> None:
    per_question = [
        score_question(["Paris", "Lyon"], None, ["Paris"]),
        score_question([], None, ["Paris"]),
    ]
    result = aggregate(per_question)
    assert result["n"] == 2
    # strict: hits (1 + 0)/2, f1 (2/3 + 0)/2 = 1/3
    assert result["strict"]["hits_at_1"] == approx(50.0)
    assert result["strict"]["f1"] == approx(100 / 3)
    assert result["strict"]["exact_match"] == approx(0.0)
    # rog: hit (1 + 0)/2; empty output "" -> one empty line, no hit
    assert result["rog_legacy"]["hit"] == approx(50.0)
    assert result["rog_legacy"]["precision"] == approx(25.0)
    # tog: (1 + 0)/2 — the empty output is not a hit (see tog_exact_match)
    assert result["tog_em"]["em"] == approx(50.0)


def test_aggregate_flat_missing_keys_bools_and_values_above_one() -> None:
    result = aggregate([{"a": 1.0, "p": 2.0, "ok": True}, {"a": 0.0, "b": 1.0, "p": 0.0, "ok": False, "note": "x"}])
    assert result == approx({"a": 50.0, "b": 100.0, "p": 100.0, "ok": 50.0, "n": 2})
    assert aggregate([]) == {"n": 0}


def test_selective_scores_reward_abstaining_on_unanswerable_questions_only():
    from kg_agent.eval.metrics import aggregate, selective_scores

    right = selective_scores(["Paris"], ["Paris"])
    wrong = selective_scores(["Lyon"], ["Paris"])
    abstained = selective_scores([], [])
    answered_unanswerable = selective_scores(["Lyon"], [])
    missed = selective_scores([], ["Paris"])
    assert abstained == {"hits_at_1": 1.0, "coverage": 0.0, "abstained": 1.0}
    assert answered_unanswerable["hits_at_1"] == 0.0 and answered_unanswerable["abstained"] == 0.0
    total = aggregate([right, wrong, abstained, answered_unanswerable, missed])
    assert total["hits_at_1"] == 40.0 and total["coverage"] == 60.0
    assert round(total["answered_hits_at_1"], 1) == 33.3 and total["abstained"] == 50.0
