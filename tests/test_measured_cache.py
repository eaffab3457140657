"""What the offline deciders measure on a store's KG at first use (relations' answer kinds, role classes) is kept in
``<store>/kg-agent/measured.sqlite`` for later processes, per load and per kg-agent code (issue 48: a new process's
first question on a small store spent 0.4 of its 0.6 CPU-s measuring them again; seconds at 100M triples).

Fixture: ``tests/fixtures/roles/operating_list.ttl`` (a hospital's operating list, whose role nodes are measured)."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import build_oxigraph, open_oxigraph
from kg_agent.kg.measured_cache import code_digest, open_measured_cache
from kg_agent.kg.role_nodes import ROLE_CLASSES_KIND
from kg_agent.kg.store_folder import MEASURED_FILE, SIDECAR_DIR
from kg_agent.tools.shared.answer_types import OBJECT_KINDS_CACHE

OPERATING_LIST = Path(__file__).resolve().parent / "fixtures" / "roles" / "operating_list.ttl"
QUESTION = 'Who performed the operation "Hernia Repair of June 5"?'


@pytest.fixture
def store(tmp_path):
    return build_oxigraph(OPERATING_LIST, tmp_path / "store")


def _answers(kg) -> list[str]:
    return [a["answer"] for a in create_rog_graph(kg).compile().invoke({"question": QUESTION})["answers"]]


def _counted_samples(kg, monkeypatch) -> list[list]:
    """The calls to the store's sample of relations' ends (a spy on the real store: it still answers)."""
    calls: list[list] = []
    sample = kg.store.sample_ends

    def counted(predicates, **kwargs):
        calls.append(list(predicates))
        return sample(predicates, **kwargs)
    monkeypatch.setattr(kg.store, "sample_ends", counted)
    return calls


def test_a_second_process_reads_what_the_first_measured(store, monkeypatch):
    first = open_oxigraph(store)
    assert _answers(first) == ["Rosa Mendes"]
    cache = first.result_cache
    assert cache is not None and cache.path == store / SIDECAR_DIR / MEASURED_FILE
    kept = cache.get_many(OBJECT_KINDS_CACHE, first.relation_names())
    assert kept and all("sampled" in kinds for kinds in kept.values())
    assert cache.get_many(ROLE_CLASSES_KIND, [c for c in first.classes().ids])  # role classes measured, kept

    again = open_oxigraph(store)  # as a new process opens it: nothing measured in memory
    sampled = _counted_samples(again, monkeypatch)
    assert _answers(again) == ["Rosa Mendes"]
    assert sampled == []  # the relations' kinds and the role classes were read from the file, not measured again


def test_what_another_load_or_other_code_measured_is_not_read(tmp_path):
    path = tmp_path / MEASURED_FILE
    old = open_measured_cache(path, "build-1")
    old.put(OBJECT_KINDS_CACHE, "treats", {"sampled": 3})
    old.close()
    new = open_measured_cache(path, "build-2")
    assert new.scope == f"build-2:{code_digest()}"
    assert new.get(OBJECT_KINDS_CACHE, "treats") is None
    new.close()
    assert len(open_measured_cache(path, "build-1")) == 0  # the other load's entries were deleted


def test_a_folder_kg_agent_cannot_write_keeps_nothing_and_answers(store, tmp_path, caplog):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    kg = open_oxigraph(store)
    kg.measured_path = blocked / MEASURED_FILE  # its folder cannot be made
    with caplog.at_level(logging.WARNING, logger="kg_agent.kg.measured_cache"):
        assert _answers(kg) == ["Rosa Mendes"]
    assert kg.result_cache is None
    assert "measured once per process" in caplog.text
