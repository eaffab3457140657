"""Dataset loaders on small fixtures (tests/fixtures/eval, see its README) and on the full benchmark data."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from kg_agent.eval.datasets import (
    DATASET_KINDS,
    DatasetFormatError,
    Question,
    load_dataset,
    load_jsonl,
    load_metaqa,
    load_rog_jsonl,
    load_twowiki,
    read_line_indices,
    sample_questions,
    split_lines,
)


@pytest.fixture(scope="module")
def eval_fixtures() -> Path:
    return Path(__file__).resolve().parent / "fixtures" / "eval"


@pytest.fixture(scope="module")
def metaqa_2hop(eval_fixtures: Path) -> Path:
    return eval_fixtures / "metaqa" / "2-hop" / "qa_dev.txt"


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------ MetaQA


def test_load_metaqa_fixture(metaqa_2hop: Path) -> None:
    questions = load_metaqa(metaqa_2hop)
    assert len(questions) == 24
    first = questions[0]
    assert first == Question(
        id="metaqa-2hop-dev-0",
        question="what are the languages spoken in the films directed by Joel Zwick",
        answers=["Greek"],
        topic_entities=["Joel Zwick"],
        qtype="director_to_movie_to_language",
        hop=2,
        line=0,
        extra={
            "raw": "what are the languages spoken in the films directed by [Joel Zwick]",
            "dataset": "metaqa",
            "split": "dev",
        },
    )
    assert questions[1].answers == ["1967", "1968"]
    assert questions[9].answers == ["Trond Espen Seim", "Jan Gunnar Røise"]
    assert [q.line for q in questions] == list(range(24))


def test_load_metaqa_qtype_alignment(metaqa_2hop: Path) -> None:
    questions = load_metaqa(metaqa_2hop)
    qtypes = metaqa_2hop.with_name("qa_dev_qtype.txt").read_text(encoding="utf-8").splitlines()
    assert [q.qtype for q in questions] == qtypes
    assert questions[10].qtype == "movie_to_writer_to_movie"
    assert questions[10].topic_entities == ["Taxidermia"]
    assert questions[21].qtype == "movie_to_actor_to_movie"
    assert questions[21].topic_entities == ["The Amityville Curse"]


def test_load_metaqa_only_lines_idx_file(metaqa_2hop: Path) -> None:
    idx = metaqa_2hop.with_name("2hop_dev_all_gold_reachable.idx")
    questions = load_metaqa(metaqa_2hop, only_lines=idx)
    assert len(questions) == 21
    assert {q.line for q in questions} == set(range(24)) - {16, 21, 22}
    assert questions[16].id == "metaqa-2hop-dev-17"  # line 16 skipped, ids keep the file line
    some = load_metaqa(metaqa_2hop, only_lines=str(metaqa_2hop.with_name("2hop_dev_some_gold_reachable.idx")))
    assert {q.line for q in some} == set(range(24)) - {16, 22}


def test_load_metaqa_only_lines_ints(metaqa_2hop: Path) -> None:
    questions = load_metaqa(metaqa_2hop, only_lines=[3, 1, 3])
    assert [q.line for q in questions] == [1, 3]  # file order, duplicates ignored
    assert questions[1].topic_entities == ["Clark Gregg"]
    assert load_metaqa(metaqa_2hop, only_lines=[]) == []
    with pytest.raises(ValueError, match="line 24"):
        load_metaqa(metaqa_2hop, only_lines=[24])
    with pytest.raises(ValueError):
        load_metaqa(metaqa_2hop, only_lines=[-1])


def test_load_metaqa_without_qtype_or_hop_folder(metaqa_2hop: Path, tmp_path: Path) -> None:
    qa = tmp_path / "qa_dev.txt"
    shutil.copy(metaqa_2hop, qa)
    questions = load_metaqa(qa)
    assert questions[0].qtype is None and questions[0].hop is None
    assert questions[0].id == "metaqa-dev-0"
    assert load_metaqa(qa, hop=3)[0].id == "metaqa-3hop-dev-0"
    explicit = load_metaqa(qa, qtype_file=metaqa_2hop.with_name("qa_dev_qtype.txt"))
    assert explicit[0].qtype == "director_to_movie_to_language"


def test_load_metaqa_qtype_count_mismatch(tmp_path: Path) -> None:
    folder = tmp_path / "1-hop"
    folder.mkdir()
    qa = _write(folder / "qa_dev.txt", "who directed [Heat]\tMichael Mann\nwho wrote [Heat]\tMichael Mann\n")
    _write(folder / "qa_dev_qtype.txt", "movie_to_director\n")
    with pytest.raises(DatasetFormatError, match="qa_dev_qtype.txt"):
        load_metaqa(qa)


def test_load_metaqa_blank_lines_and_hop_inference(tmp_path: Path) -> None:
    folder = tmp_path / "1-hop"
    folder.mkdir()
    qa = _write(folder / "qa_test.txt", "who directed [Heat]\tMichael Mann\n\nwho starred in [Heat]\tAl Pacino|Robert De Niro|\n")
    questions = load_metaqa(qa)
    assert [q.id for q in questions] == ["metaqa-1hop-test-0", "metaqa-1hop-test-2"]
    assert questions[1].answers == ["Al Pacino", "Robert De Niro"]
    assert questions[1].hop == 1


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("who directed [Heat]\tMichael Mann\nwho directed Heat and nothing else\n", "line 2 \\(0-based index 1\\).*TAB"),
        ("who directed [Heat]\tMichael Mann\nwho directed Heat\tMichael Mann\n", "line 2.*topic entity"),
        ("who directed [Heat]\t|\n", "line 1.*no answers"),
        ("who directed [Heat]\tMichael Mann\textra\n", "line 1.*2 tabs"),
    ],
)
def test_load_metaqa_malformed(tmp_path: Path, content: str, message: str) -> None:
    qa = _write(tmp_path / "qa_dev.txt", content)
    with pytest.raises(DatasetFormatError, match=message) as info:
        load_metaqa(qa)
    assert str(qa) in str(info.value)


def test_read_line_indices(tmp_path: Path) -> None:
    assert read_line_indices(_write(tmp_path / "a.idx", "3\n1\n\n7\n")) == [3, 1, 7]
    with pytest.raises(DatasetFormatError, match="b.idx, line 2"):
        read_line_indices(_write(tmp_path / "b.idx", "3\nx\n"))


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        load_metaqa(tmp_path / "nope.txt")


# ------------------------------------------------------------------------------------------ RoG JSONL


def test_load_rog_jsonl_fixture(eval_fixtures: Path) -> None:
    questions = load_rog_jsonl(eval_fixtures / "webqsp" / "rog_webqsp_2q.jsonl")
    assert [q.id for q in questions] == ["WebQTest-0", "WebQTest-3"]
    jamaica = questions[0]
    assert jamaica.question == "what does jamaican people speak"
    assert jamaica.answers == ["Jamaican English", "Jamaican Creole English Language"]
    assert jamaica.topic_entities == ["Jamaica"]
    assert jamaica.extra["a_entity"] == ["Jamaican English", "Jamaican Creole English Language"]
    graph = jamaica.extra["graph"]
    assert len(graph) == 10
    assert all(isinstance(t, tuple) and len(t) == 3 for t in graph)
    assert graph[0] == ("Jamaica", "meteorology.cyclone_affected_area.cyclones", "Tropical Storm Keith")
    assert jamaica.line == 0 and jamaica.qtype is None and jamaica.hop is None
    assert questions[1].extra["a_entity"] == []  # no answer inside the subgraph
    assert questions[1].line == 1


def test_load_rog_jsonl_defaults_and_errors(tmp_path: Path) -> None:
    path = _write(tmp_path / "mini.jsonl", json.dumps({"question": "q?", "answer": ["x"], "choices": []}) + "\n\n")
    (question,) = load_rog_jsonl(path)
    assert question.id == "mini-0" and question.topic_entities == [] and question.extra["graph"] == []
    assert question.extra["choices"] == []

    bad_json = _write(tmp_path / "bad.jsonl", '{"question": "q", "answer": []}\n{"question": \n')
    with pytest.raises(DatasetFormatError, match="bad.jsonl, line 2.*invalid JSON"):
        load_rog_jsonl(bad_json)
    bad_triple = _write(tmp_path / "triple.jsonl", json.dumps({"question": "q", "answer": [], "graph": [["a", "b"]]}))
    with pytest.raises(DatasetFormatError, match="line 1.*graph\\[0\\]"):
        load_rog_jsonl(bad_triple)
    missing = _write(tmp_path / "missing.jsonl", json.dumps({"question": "q"}))
    with pytest.raises(DatasetFormatError, match="'answer'"):
        load_rog_jsonl(missing)
    not_object = _write(tmp_path / "list.jsonl", "[1, 2]\n")
    with pytest.raises(DatasetFormatError, match="JSON object"):
        load_rog_jsonl(not_object)


# ------------------------------------------------------------------------------------------ 2Wiki


def test_load_twowiki_fixture(eval_fixtures: Path) -> None:
    questions = load_twowiki(eval_fixtures / "twowiki" / "questions_dev.jsonl")
    assert [q.qtype for q in questions] == ["compositional", "bridge_comparison", "comparison", "inference"]
    first = questions[0]
    assert first.id == "100c512a0bde11eba7f7acde48001122"
    assert first.question == "Where was the place of burial of Charles Mathew's father?"
    assert first.answers == ["Cork"]
    assert first.extra["evidences"] == [
        ("Charles James Mathew", "father", "Sir James Charles Mathew"),
        ("Sir James Charles Mathew", "place of burial", "Cork"),
    ]
    assert first.topic_entities == ["Charles James Mathew"]
    assert first.extra["supporting_facts"] == [["Charles Mathew", 2], ["James Charles Mathew", 1]]
    assert first.extra["answer_id"] == "Q36647"
    # comparison questions start from two entities
    assert questions[1].topic_entities == ["The More the Merrier", "Sleep, My Love"]
    assert questions[1].answers == ["Sleep, My Love"]
    assert questions[2].topic_entities == ["Brudebuketten", "Clownery"]


def test_load_twowiki_errors(tmp_path: Path) -> None:
    path = _write(tmp_path / "tw.jsonl", json.dumps({"_id": "x", "question": "q", "answer": ["not", "a str"]}) + "\n")
    with pytest.raises(DatasetFormatError, match="tw.jsonl, line 1.*answer must be a string"):
        load_twowiki(path)


# ------------------------------------------------------------------------------------------ generic JSONL


def test_load_jsonl_generic(tmp_path: Path) -> None:
    rows = [
        {"id": "a", "question": "q1", "answers": ["x", "y"], "topic_entities": ["T"], "qtype": "t", "hop": 2, "src": 1},
        {"question": "q2", "answers": "z"},
        {"question": "q3", "answer": 1990},
    ]
    path = _write(tmp_path / "gen.jsonl", "\n".join(json.dumps(r) for r in rows) + "\n")
    q1, q2, q3 = load_jsonl(path)
    assert q1 == Question(
        id="a", question="q1", answers=["x", "y"], topic_entities=["T"], qtype="t", hop=2, line=0, extra={"src": 1}
    )
    assert (q2.id, q2.answers, q2.topic_entities) == ("gen-1", ["z"], [])
    assert q3.answers == ["1990"]
    bad = _write(tmp_path / "bad.jsonl", json.dumps({"question": "q"}) + "\n")
    with pytest.raises(DatasetFormatError, match="bad.jsonl, line 1.*'answers'"):
        load_jsonl(bad)


def test_load_dataset_dispatch(eval_fixtures: Path, metaqa_2hop: Path) -> None:
    assert DATASET_KINDS == ("metaqa", "rog-jsonl", "twowiki", "jsonl")
    assert len(load_dataset("metaqa", metaqa_2hop, only_lines=[0, 1])) == 2
    webqsp = eval_fixtures / "webqsp" / "rog_webqsp_2q.jsonl"
    assert load_dataset("rog-jsonl", webqsp) == load_dataset("webqsp", webqsp) == load_rog_jsonl(webqsp)
    assert len(load_dataset("twowiki", eval_fixtures / "twowiki" / "questions_dev.jsonl")) == 4
    assert len(load_dataset("jsonl", webqsp)) == 2  # 'answer' fallback
    with pytest.raises(ValueError, match="unknown dataset kind"):
        load_dataset("freebase", webqsp)


# ------------------------------------------------------------------------------------------ sampling


def _synthetic(n: int) -> list[Question]:
    return [Question(id=f"q-{i}", question=f"question {i}", answers=[str(i)], line=i) for i in range(n)]


def test_sample_questions_deterministic_and_ordered() -> None:
    questions = _synthetic(100)
    a = sample_questions(questions, 10, seed=1)
    assert a == sample_questions(questions, 10, seed=1)
    assert len(a) == 10 and len({q.id for q in a}) == 10
    assert [q.line for q in a] == sorted(q.line for q in a)  # input order
    assert a != sample_questions(questions, 10, seed=2)
    assert sample_questions(questions, 500) == questions
    assert sample_questions(questions, 0) == []
    with pytest.raises(ValueError):
        sample_questions(questions, -1)


def test_split_lines_disjoint_deterministic_and_subset_stable() -> None:
    questions = _synthetic(1000)
    train, test = split_lines(questions, fraction=0.5, seed=0)
    assert {q.id for q in train}.isdisjoint({q.id for q in test})
    assert len(train) + len(test) == 1000
    assert 430 <= len(train) <= 570
    assert (train, test) == split_lines(questions, fraction=0.5, seed=0)
    assert split_lines(questions, 0.5, seed=1) != (train, test)
    # a subset (e.g. filtered by an .idx file) splits consistently with the whole
    subset = questions[::3]
    sub_train, sub_test = split_lines(subset, 0.5, seed=0)
    assert {q.id for q in sub_train} == {q.id for q in train} & {q.id for q in subset}
    assert {q.id for q in sub_test} == {q.id for q in test} & {q.id for q in subset}
    few_train, _ = split_lines(questions, 0.2, seed=0)
    assert {q.id for q in few_train} <= {q.id for q in train}  # larger fraction = superset
    assert split_lines(questions, 0.0) == ([], questions)
    assert split_lines(questions, 1.0) == (questions, [])
    with pytest.raises(ValueError):
        split_lines(questions, 1.5)


# ------------------------------------------------------------------------------------------ full data

METAQA_COUNTS = {1: 9_992, 2: 14_872, 3: 14_274}
METAQA_ALL_REACHABLE = {1: 9_991, 2: 12_474, 3: 9_830}
METAQA_SOME_REACHABLE = {1: 9_992, 2: 14_395, 3: 13_919}


@pytest.mark.full_data
@pytest.mark.parametrize("hop", [1, 2, 3])
def test_full_metaqa_dev(data_dir: Path, hop: int) -> None:
    folder = data_dir / "metaqa" / f"{hop}-hop"
    questions = load_metaqa(folder / "qa_dev.txt")
    assert len(questions) == METAQA_COUNTS[hop]
    assert all(q.hop == hop and len(q.topic_entities) == 1 and q.answers for q in questions)
    assert len({q.id for q in questions}) == len(questions)
    # qtype alignment: every question has a type with `hop` relation steps ...
    assert all(q.qtype is not None and q.qtype.count("_to_") == hop for q in questions)
    # ... and questions about films "directed by [X]" start from a director
    directed = [q for q in questions if f"directed by [{q.topic_entities[0]}]" in q.extra["raw"]]
    if hop < 3:
        assert directed
        assert all(q.qtype is not None and q.qtype.startswith("director_to_") for q in directed)
    last = (folder / "qa_dev_qtype.txt").read_text(encoding="utf-8").splitlines()[-1]
    assert questions[-1].qtype == last

    all_idx = folder / f"{hop}hop_dev_all_gold_reachable.idx"
    some_idx = folder / f"{hop}hop_dev_some_gold_reachable.idx"
    assert len(load_metaqa(folder / "qa_dev.txt", only_lines=all_idx)) == METAQA_ALL_REACHABLE[hop]
    some = load_metaqa(folder / "qa_dev.txt", only_lines=some_idx)
    assert len(some) == METAQA_SOME_REACHABLE[hop]
    assert [q.line for q in some] == sorted(read_line_indices(some_idx))


@pytest.mark.full_data
def test_full_metaqa_fixture_is_a_verbatim_slice(data_dir: Path, metaqa_2hop: Path) -> None:
    full = load_metaqa(data_dir / "metaqa" / "2-hop" / "qa_dev.txt", only_lines=range(24))
    assert [(q.question, q.answers, q.qtype) for q in full] == [
        (q.question, q.answers, q.qtype) for q in load_metaqa(metaqa_2hop)
    ]


@pytest.mark.full_data
def test_full_webqsp(data_dir: Path) -> None:
    questions = load_rog_jsonl(data_dir / "webqsp" / "rog_webqsp_18q.jsonl")
    assert len(questions) == 18
    assert all(q.id.startswith("WebQTest-") and q.answers and q.topic_entities for q in questions)
    sizes = [len(q.extra["graph"]) for q in questions]
    assert min(sizes) == 348 and max(sizes) == 7_499  # the data README says 344; the file holds 348
    no_answer = {q.id for q in questions if not q.extra["a_entity"]}
    assert no_answer == {"WebQTest-3", "WebQTest-31"}


@pytest.mark.full_data
def test_full_twowiki(data_dir: Path) -> None:
    questions = load_twowiki(data_dir / "twowiki" / "questions_dev.jsonl")
    assert len(questions) == 194
    assert Counter(q.qtype for q in questions) == {
        "compositional": 87,
        "bridge_comparison": 52,
        "comparison": 34,
        "inference": 21,
    }
    assert all(len(q.answers) == 1 and q.extra["evidences"] and q.topic_entities for q in questions)
    assert len({q.id for q in questions}) == 194
    # the evidences of this question form a cycle (A father B, B father A): fall back to the first subject
    (cyclic,) = [q for q in questions if q.question.startswith("Who is the paternal grandfather of Anton Fredrik")]
    assert cyclic.topic_entities == ["Anton Fredrik Klaveness"]
