"""The synthetic KG generator: determinism, size, hubs, labels, and gold answers checked against the KG itself."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from pathlib import Path

import pytest

from kg_agent.eval.datasets import load_dataset
from kg_agent.eval.synthetic import DOMAINS, SyntheticKG, generate, main
from kg_agent.kg import load_kg, retrieve_paths

SIZE = 30_000
RDFS_LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"
_LINE = re.compile(r'^<([^>]+)> <([^>]+)> (?:<([^>]+)>|"((?:[^"\\]|\\.)*)") \.$')


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _parse(path: Path) -> tuple[dict[str, str], list[tuple[str, str, str]]]:
    labels: dict[str, str] = {}
    facts: list[tuple[str, str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _LINE.match(line)
        assert match, f"not an N-Triples line: {line!r}"
        s, p, o, literal = match.groups()
        if o is None:
            assert p == RDFS_LABEL[1:-1]
            labels[s] = literal
        else:
            facts.append((s, p, o))
    return labels, facts


@pytest.fixture(scope="module", params=sorted(DOMAINS))
def generated(request, tmp_path_factory) -> tuple[str, Path]:
    out = tmp_path_factory.mktemp(f"synthetic-{request.param}")
    generate(request.param, out, triples=SIZE, seed=3, questions_per_hop=40, three_hop=10)
    return request.param, out


def test_same_seed_same_files_other_seed_other_graph(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    generate("movie", a, triples=5_000, seed=1, questions_per_hop=10)
    generate("movie", b, triples=5_000, seed=1, questions_per_hop=10)
    generate("movie", c, triples=5_000, seed=2, questions_per_hop=10)
    for name in ("kg.nt", "questions.jsonl", "meta.json"):
        assert _digest(a / name) == _digest(b / name)
    assert _digest(a / "kg.nt") != _digest(c / "kg.nt")
    assert not list(a.glob("*.partial"))


def test_size_follows_the_target_and_the_file(generated):
    _domain, out = generated
    meta = json.loads((out / "meta.json").read_text())
    lines = sum(1 for _ in (out / "kg.nt").open())
    assert meta["triples"] == lines
    assert abs(lines - SIZE) / SIZE < 0.05


def test_every_entity_has_a_label_and_some_labels_are_shared(generated):
    _domain, out = generated
    labels, facts = _parse(out / "kg.nt")
    entities = {s for s, _, _ in facts} | {o for _, _, o in facts}
    unlabelled = [e for e in entities if e not in labels]
    assert not unlabelled
    assert all(label.strip() and "[" not in label and "]" not in label for label in labels.values())
    shared = [label for label, n in Counter(labels.values()).items() if n > 1]
    assert shared, "no two entities share a label (namesakes are expected)"
    relation_names = {p.rsplit("/", 1)[1] for _, p, _ in facts}
    assert relation_names == {r.name for r in DOMAINS[_domain].relations}


def test_hubs_and_popular_people(generated):
    domain, out = generated
    _labels, facts = _parse(out / "kg.nt")
    in_degree = Counter((p.rsplit("/", 1)[1], o) for _, p, o in facts)
    units = sum(1 for _ in SyntheticKG(domain, triples=SIZE, seed=3).nodes(DOMAINS[domain].unit))
    hub_relation = "has_genre" if domain == "movie" else "in_industry"
    top_hub = max(n for (rel, _), n in in_degree.items() if rel == hub_relation)
    assert top_hub > 0.15 * units  # one genre/industry is on a sixth of all films/companies
    people_relation = "starred_actors" if domain == "movie" else "founded_by"
    degrees = sorted((n for (rel, _), n in in_degree.items() if rel == people_relation), reverse=True)
    assert degrees[0] >= 20 * degrees[len(degrees) // 2]  # Zipf: the most popular person far above the median
    meta = json.loads((out / "meta.json").read_text())
    assert meta["hubs"][0]["in_edges"] == top_hub


def test_gold_answers_are_what_the_kg_gives_for_the_gold_path(generated):
    domain, out = generated
    questions = load_dataset("jsonl", out / "questions.jsonl")
    hops = Counter(q.hop for q in questions)
    assert hops[1] == 40 and hops[2] == 40 and hops[3] == 10
    assert {tuple(q.extra["relations"]) for q in questions} == {t.relations for t in DOMAINS[domain].templates}
    kg = load_kg(out / "kg.nt")
    for q in questions:
        [topic] = q.topic_entities
        assert f"[{topic}]" in q.extra["raw"] and q.question == q.extra["raw"].replace("[", "").replace("]", "")
        found = kg.find_entities(topic)
        assert [e.id for e in found] == q.extra["topic_ids"], f"{q.id}: topic label {topic!r} is ambiguous"
        result = retrieve_paths(kg, q.extra["topic_ids"], q.extra["relations"], max_paths=1_000_000)
        assert not result.truncated
        assert sorted({e.label for e in result.answers}) == q.answers, q.id
        assert sorted(e.id for e in result.answers) == q.extra["answer_ids"], q.id
        assert q.hop == len(q.extra["relations"])


def test_cli_writes_the_three_files_and_refuses_a_tiny_size(tmp_path, capsys):
    assert main(["--domain", "company", "--triples", "4000", "--questions", "5", "--out", str(tmp_path / "kg")]) == 0
    assert {p.name for p in (tmp_path / "kg").iterdir()} == {"kg.nt", "questions.jsonl", "meta.json"}
    assert main(["--triples", "10", "--out", str(tmp_path / "tiny")]) == 2
    assert "at least 1000" in capsys.readouterr().err
