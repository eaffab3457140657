"""A SPARQL endpoint that is down or silent: a clear error naming the endpoint within the timeout, and the
evaluation runner records the failure for that question and goes on with the others."""

from __future__ import annotations

import json
import socket
import threading

import pytest

from kg_agent.eval import Question
from kg_agent.eval.runner import evaluate, load_results
from kg_agent.kg import KGQueryError, open_kg, open_sparql

try:
    from sparql_server import SparqlServer, store_from_graph
except ImportError:  # tests/ imported as a package
    from tests.sparql_server import SparqlServer, store_from_graph

QUESTIONS = [
    ("who directed [Forrest Gump]", "Forrest Gump", ["Robert Zemeckis"]),
    ("who directed [Big]", "Big", ["Penny Marshall"]),
    ("who directed [Cast Away]", "Cast Away", ["Robert Zemeckis"]),
]


@pytest.fixture(scope="module")
def questions() -> list[Question]:
    return [Question(id=f"q{i}", question=text, answers=gold, topic_entities=[topic])
            for i, (text, topic, gold) in enumerate(QUESTIONS)]


def dead_url() -> str:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/sparql"


class SilentServer:
    """Accepts TCP connections and reads requests, but never answers (a hung endpoint)."""

    def __init__(self) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self._socket.listen(16)
        self._socket.settimeout(0.1)
        self.url = f"http://127.0.0.1:{self._socket.getsockname()[1]}/sparql"
        self._stop = threading.Event()
        self._held: list[socket.socket] = []
        self.connections = 0
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._socket.accept()
            except OSError:
                continue
            self.connections += 1
            self._held.append(conn)

    def __enter__(self) -> SilentServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        for conn in self._held:
            conn.close()
        self._socket.close()


def assert_every_question_failed(result: dict, url: str, words: tuple[str, ...]) -> None:
    assert result["n"] == 3 and result["errors"] == 3
    for record in result["per_question"]:
        assert record["error"].startswith("KGQueryError: ") and url in record["error"], record["error"]
        assert any(word in record["error"] for word in words), record["error"]
        assert record["predicted"] == [] and record["scores"]["strict"]["hits_at_1"] == 0


def test_dead_endpoint_fails_fast_with_its_url():
    url = dead_url()
    kg = open_sparql(url, timeout=2.0)
    with pytest.raises(KGQueryError, match=f"{url}: could not read .*(Connection refused|Errno)"):
        kg.neighbors("https://kg-agent.dev/entity/Big", "directed_by")


def test_silent_endpoint_times_out_with_its_url():
    with SilentServer() as silent:
        kg = open_sparql(silent.url, timeout=0.5)
        with pytest.raises(KGQueryError, match=f"{silent.url}: could not read .*timed out"):
            kg.find_entities("Big")
        assert silent.connections >= 1


def test_eval_records_a_dead_endpoint_per_question(questions, tmp_path):
    url = dead_url()
    result = evaluate(questions, method="rog", kg=open_sparql(url, timeout=2.0), progress=False,
                      out=tmp_path / "dead.json")
    assert_every_question_failed(result, url, ("Connection refused", "Errno"))
    assert load_results(tmp_path / "dead.json")["errors"] == 3


@pytest.mark.parametrize("method", ["rog", "tog"])
def test_eval_records_a_silent_endpoint_per_question(questions, method):
    with SilentServer() as silent:
        result = evaluate(questions, method=method, kg=open_sparql(silent.url, timeout=0.5), progress=False)
    assert_every_question_failed(result, silent.url, ("timed out",))


def test_eval_goes_on_after_a_question_whose_endpoint_is_down(questions):
    live_kg = open_kg()
    in_memory = {r["id"]: r["predicted"] for r in evaluate(questions, method="rog", kg=live_kg, progress=False)["per_question"]}
    with SparqlServer(store_from_graph(live_kg.graph)) as server:
        live = open_sparql(server.url, timeout=5.0)
        dead = open_sparql(dead_url(), timeout=2.0)
        result = evaluate(questions, method="rog", kg_for_question=lambda q: dead if q.id == "q1" else live,
                          progress=False)
    by_id = {r["id"]: r for r in result["per_question"]}
    assert result["n"] == 3 and result["errors"] == 1
    assert by_id["q1"]["error"].startswith("KGQueryError") and dead.name in by_id["q1"]["error"]
    for qid in ("q0", "q2"):
        assert by_id[qid]["error"] is None and by_id[qid]["predicted"] == in_memory[qid] and in_memory[qid]


def test_cli_eval_with_a_silent_endpoint(questions, tmp_path):
    from kg_agent.cli import main

    file = tmp_path / "questions.jsonl"
    file.write_text("".join(json.dumps({"id": q.id, "question": q.question, "answers": q.answers,
                                        "topic_entities": q.topic_entities}) + "\n" for q in questions))
    out = tmp_path / "results.json"
    with SilentServer() as silent:
        code = main(["eval", "jsonl", "--questions", str(file), "--kg", silent.url, "--kg-timeout", "0.5",
                     "--method", "rog", "--model", "none", "--no-progress", "--out", str(out)])
    assert code == 1  # the run ended, but no question was answered
    result = load_results(out)
    assert_every_question_failed(result, silent.url, ("timed out",))


def test_cli_ask_names_a_dead_or_silent_endpoint_and_exits_2(capsys):
    """``kg-agent ask --kg URL``: an endpoint that refuses the connection, or accepts it and never answers within
    ``--kg-timeout``, is one line naming it, exit status 2 (``--help`` says so)."""
    from kg_agent.cli import main

    url = dead_url()
    assert main(["ask", "who directed [Big]", "--kg", url, "--kg-timeout", "5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kg-agent: error: {url}: could not read") and "Connection refused" in err
    with SilentServer() as silent:
        assert main(["ask", "who directed [Big]", "--kg", silent.url, "--kg-timeout", "0.5"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kg-agent: error: {silent.url}: could not read") and "timed out" in err
    assert len(err.strip().splitlines()) == 1
    with pytest.raises(SystemExit):
        main(["ask", "--help"])
    assert "a SPARQL endpoint that cannot be reached or does not answer within --kg-timeout" in " ".join(
        capsys.readouterr().out.split())


def test_mcp_and_the_langgraph_server_take_the_endpoint_timeout(monkeypatch):
    from kg_agent import server
    from kg_agent.cli import build_parser

    assert build_parser().parse_args(["mcp", "--kg-timeout", "0.5"]).kg_timeout == 0.5
    monkeypatch.setenv("KG_AGENT_KG_TIMEOUT", "soon")
    with pytest.raises(ValueError, match="KG_AGENT_KG_TIMEOUT must be a number, not 'soon'"):
        server.build_graph("rog")
    with SilentServer() as silent:
        monkeypatch.setenv("KG_AGENT_KG", silent.url)
        monkeypatch.setenv("KG_AGENT_KG_TIMEOUT", "0.5")
        outcome: list = []

        def run() -> None:
            try:
                server.build_graph("rog").invoke({"question": "who directed [Big]"})
            except KGQueryError as exc:
                outcome.append(exc)

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        thread.join(20)  # a hang guard: at the default 30 s per request the first request alone outlasts it
        assert outcome and "timed out" in str(outcome[0]) and silent.url in str(outcome[0])
