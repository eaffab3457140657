"""A value answered from one named thing is not dropped because a second named thing meets it nowhere: "when was
[Cape Light] first lit by [the Board]" (invented lighthouse register) answers the lighthouse's date; the Board
qualifies it. ToG's beam may explore more from the lighthouse than the date (a record node and its format), and
those ends meet the Board's nowhere either: the answer given is a value, so it stays, with a warning, and is not
turned into an abstention (kg_agent/tools/tog/answer.py, answers_of_every_mention)."""

from __future__ import annotations

from kg_agent.tools.rog.answer import AnswerOutcome
from kg_agent.tools.tog.answer import answers_of_every_mention

LIGHT, BOARD = "http://example.org/lights/cape", "http://example.org/lights/board"
LIT = '"1833-09-01"^^<http://www.w3.org/2001/XMLSchema#date>'
TOPICS = [{"id": LIGHT, "label": "Cape Light", "mention": "cape light"},
          {"id": BOARD, "label": "the Board", "mention": "the board"}]


def _chain(start: dict, *steps: tuple[str, str, str]) -> dict:
    head, out = start, []
    for relation, tail_id, tail_label in steps:
        tail = {"id": tail_id, "label": tail_label}
        out.append({"head": head, "relation": relation, "tail": tail})
        head = tail
    return {"start": start, "steps": out, "score": 1.0, "text": ""}


CHAINS = [_chain(TOPICS[0], ("firstLit", LIT, "1833-09-01")),
          _chain(TOPICS[0], ("record", "http://example.org/lights/record/7", "7"),
                 ("format", "http://example.org/lights/formats/ledger", "ledger")),
          _chain(TOPICS[1], ("^operator", "http://example.org/lights/bell-rock", "Bell Rock"))]


def test_a_value_answer_stays_when_the_other_mention_meets_it_nowhere():
    outcome = AnswerOutcome([{"answer": "1833-09-01", "entity_id": LIT, "grounded": True}], "1833-09-01")
    kept = answers_of_every_mention(TOPICS, CHAINS, outcome, verified=True, kg=None, abstain=True)
    assert [a["answer"] for a in kept.answers] == ["1833-09-01"]
    assert kept.stop_reason != "abstained"
    assert any("no answer is reached from both" in w for w in kept.warnings)


def test_a_thing_answer_still_abstains_when_the_mentions_meet_nowhere():
    ledger = {"answer": "ledger", "entity_id": "http://example.org/lights/formats/ledger", "grounded": True}
    kept = answers_of_every_mention(TOPICS, CHAINS, AnswerOutcome([ledger], "ledger"), verified=True, kg=None,
                                    abstain=True)
    assert kept.answers == [] and kept.stop_reason == "abstained"
