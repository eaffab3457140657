"""Counts, conjunctions and comparisons through role nodes and statement nodes (issue 46 items 2 and 4), on
``tests/fixtures/theatre/company.ttl`` (invented; its README): a theatre company's productions, their cast roles
(named role nodes joining a production, a part and a person) and their performances (nameless records joining a
production, a venue and a date), the shapes of the NASA spaceflight KG's mission roles and launches."""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.kg import open_kg

COMPANY = Path(__file__).resolve().parent / "fixtures" / "theatre" / "company.ttl"
METHODS = ["rog", "tog", "tog-i"]
BOTH = {"Ada Quill", "Bram Hollis", "Cora Finch"}


@pytest.fixture(scope="module")
def company():
    return open_kg(COMPANY)


@pytest.fixture(scope="module")
def company_store(tmp_path_factory):
    return open_kg(COMPANY, backend="oxigraph", store_path=tmp_path_factory.mktemp("theatre") / "company.oxigraph")


def ask(method: str, kg, question: str, **options) -> dict:
    from kg_agent.graphs.registry import create_graph

    return create_graph(method, kg, **options).compile().invoke({"question": question})


def answers(result: dict) -> list[str]:
    return [a["answer"] for a in result["answers"]]


@pytest.mark.parametrize("method", METHODS)
def test_a_count_stops_where_the_class_its_noun_names_is_reached(company, method):
    # played -> ^castRole -> castRole walks on from Ada's 4 cast roles to every cast role of her 3 productions (11);
    # "cast roles" names the class of the first step's ends, and no word past the noun names the steps after it
    result = ask(method, company, "How many cast roles did Ada Quill play?")
    assert answers(result) == ["4"]
    assert sorted(result["answers"][0]["counted"]) == ["Hamlet 1998 Lead", "Hamlet 1998 Stage Manager",
                                                       "Macbeth 2001 Understudy", "The Tempest 2004 Chorus"]


def test_a_walk_is_not_cut_for_a_question_naming_no_class(company):
    from kg_agent.tools.shared.class_reached import stopped_at_the_named_class

    ada = {"id": "http://example.org/theatre/adaquill", "label": "Ada Quill"}
    role = {"id": "http://example.org/theatre/hamlet1998-lead", "label": "Hamlet 1998 Lead"}
    hamlet = {"id": "http://example.org/theatre/hamlet1998", "label": "Hamlet 1998"}
    walk = {"start": ada, "text": "", "plan": 0, "steps": [{"head": ada, "relation": "played", "tail": role},
                                                            {"head": role, "relation": "^castRole", "tail": hamlet}]}
    assert stopped_at_the_named_class("In which productions did Ada Quill play?", [walk], company)[0] == [walk]
    cut, warnings = stopped_at_the_named_class("Which cast roles did Ada Quill play?", [walk], company)
    assert [step["tail"]["label"] for step in cut[0]["steps"]] == ["Hamlet 1998 Lead"] and warnings


@pytest.mark.parametrize("method", METHODS)
def test_statement_nodes_of_the_class_the_noun_names_are_counted_never_shown(company, method):
    # the performances are nameless records: no answer names one, but "how many performances" counts them
    result = ask(method, company, "How many performances were given at Lantern Hall?")
    assert answers(result) == ["6"]
    assert result["answers"][0]["grounded"]


@pytest.mark.parametrize("method", METHODS)
def test_both_a_and_b_meet_on_the_persons_behind_the_role_nodes(company, method):
    # each production's walks end at its own cast roles, which meet nowhere: "who" asks for the persons behind them
    result = ask(method, company, "Who had cast roles in both Hamlet 1998 and Macbeth 2001?")
    assert set(answers(result)) == BOTH


@pytest.mark.parametrize("method", ["tog", "tog-i"])
def test_counted_statements_and_persons_behind_role_nodes_on_an_oxigraph_store(company_store, method):
    assert answers(ask(method, company_store, "How many performances were given at Lantern Hall?")) == ["6"]
    assert set(answers(ask(method, company_store, "Who had cast roles in both Hamlet 1998 and Macbeth 2001?"))) == BOTH


def test_rog_counts_statements_and_stops_at_the_class_on_an_oxigraph_store(company_store):
    assert answers(ask("rog", company_store, "How many performances were given at Lantern Hall?")) == ["6"]
    assert answers(ask("rog", company_store, "How many cast roles did Ada Quill play?")) == ["4"]


def test_things_behind_the_ends_are_stepped_to_only_for_a_kind_asked(company):
    from kg_agent.tools.shared.constraints import mention_groups
    from kg_agent.tools.shared.met_behind import met_behind_the_ends

    hamlet = {"id": "http://example.org/theatre/hamlet1998", "label": "Hamlet 1998", "mention": "hamlet 1998"}
    macbeth = {"id": "http://example.org/theatre/macbeth2001", "label": "Macbeth 2001", "mention": "macbeth 2001"}
    walks = []
    for production, part in ((hamlet, "lead"), (macbeth, "understudy")):
        role = {"id": f"{production['id']}-{part}", "label": part}
        walks.append({"start": production, "text": "", "steps": [{"head": production, "relation": "castRole", "tail": role}]})
    groups = mention_groups([hamlet, macbeth])
    stepped, behind = met_behind_the_ends("Who had cast roles in both Hamlet 1998 and Macbeth 2001?", [hamlet, macbeth],
                                          groups, walks, company)
    assert behind == {"hamlet 1998": {"http://example.org/theatre/adaquill"},
                      "macbeth 2001": {"http://example.org/theatre/adaquill"}}
    assert {s["steps"][-1]["tail"]["label"] for s in stepped} == {"Ada Quill"}
    # "what" names no kind: any two things meet somewhere one step behind (the part "Lead", a venue), so none is stepped to
    assert met_behind_the_ends("What had cast roles in both Hamlet 1998 and Macbeth 2001?", [hamlet, macbeth],
                               groups, walks, company) == ([], {})


@pytest.mark.parametrize("backend", ["memory", "oxigraph"])
def test_a_superlative_compares_every_answer_not_the_first_max_answers(company, company_store, backend):
    # five productions are staged at Lantern Hall; RoG shows at most max_answers=2, but compares all five
    kg = company if backend == "memory" else company_store
    result = ask("rog", kg, "Which production staged at Lantern Hall has the longest running time?", max_answers=2)
    assert answers(result) == ["Othello 2012"]
    assert len(result["answers"][0]["compared"]) == 5


def test_the_answer_paths_of_a_comparison_keep_every_end():
    from kg_agent.tools.rog.answer import PathUse
    from kg_agent.tools.rog.retrieve import paths_the_answer_uses

    start = {"id": "v", "label": "Venue"}
    paths = [{"start": start, "text": f"Venue -> ^stagedAt -> P{i}", "plan": 0,
              "steps": [{"head": start, "relation": "^stagedAt", "tail": {"id": f"p{i}", "label": f"P{i}"}}]}
             for i in range(10)]
    use = PathUse(min_relative_score=0.9, max_answers=3, max_prompt_paths=2)
    assert len(paths_the_answer_uses(paths, use)) == 3
    assert len(paths_the_answer_uses(paths, use, compares=True)) == 10


def test_the_answers_shown_are_cut_to_max_answers_after_the_check(company):
    from kg_agent.tools.rog.answer import AnswerOutcome
    from kg_agent.tools.shared.updates import answer_record, answer_update

    records = [answer_record(f"P{i}", entity_id=f"http://example.org/theatre/p{i}") for i in range(5)]
    update = answer_update(AnswerOutcome(records, ""), question="Which productions are there?", kg=None, max_answers=2)
    assert [a["answer"] for a in update["answers"]] == ["P0", "P1"]
    assert any("max_answers=2" in w for w in update["warnings"])
