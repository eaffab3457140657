"""Safe by default on the command line (issue 24): offline unless a model is named, honest exit codes, Ctrl-C,
messages in the CLI's own words, long literals shown capped (and once in ``--json``).

The offline tests run the real ``kg-agent`` in a subprocess with ``OPENAI_API_KEY`` set and ``OPENAI_BASE_URL``
pointing at a plain HTTP listener on 127.0.0.1 that records every request: with no ``--model`` and no
``KG_AGENT_MODEL`` it must receive nothing; with ``KG_AGENT_MODEL`` it must (so the listener would catch a leak).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import anyio
import pytest

from kg_agent.cli import main
from tests.llm_responders import explorer
from tests.openai_server import OpenAICompatibleServer

ROOT = Path(__file__).resolve().parent.parent
QUESTION = "who directed [Forrest Gump]"
ONLINE_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "KG_AGENT_MODEL", "KG_AGENT_MCP_TOKEN")
HANG_GUARD_S = 120  # a generous bound, so that a regression fails instead of hanging the test run
RDFS_LABEL = "<http://www.w3.org/2000/01/rdf-schema#label>"


# ------------------------------------------------------------------------------------------------ helpers
class RecordingListener:
    """A bare HTTP server on 127.0.0.1 that records every request it gets and answers each with a 500."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []
        listener = self

        class Handler(BaseHTTPRequestHandler):
            def _record(self) -> None:
                listener.requests.append((self.command, self.path))
                self.rfile.read(int(self.headers.get("Content-Length") or 0))
                body = b'{"error": {"message": "recording listener", "type": "server_error"}}'
                self.send_response(500)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST = _record

            def log_message(self, *args) -> None:  # quiet
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> RecordingListener:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture()
def listener() -> Iterator[RecordingListener]:
    with RecordingListener() as running:
        yield running


def cli_env(**extra: str) -> dict[str, str]:
    """The environment of a ``kg-agent`` subprocess: no model or key from the caller's, loopback never proxied."""
    env = {k: v for k, v in os.environ.items() if k not in ONLINE_VARIABLES}
    env.update({"PYTHONPATH": str(ROOT), "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost", **extra})
    return env


def keyed_env(listener: RecordingListener, **extra: str) -> dict[str, str]:
    """An OpenAI key in the environment, and OpenAI's address pointing at the listener."""
    return cli_env(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=listener.base_url, **extra)


def kg_agent(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kg_agent.cli", *args], env=env, capture_output=True, text=True,
                          timeout=HANG_GUARD_S, cwd=ROOT)


def write_questions(path: Path, questions: list[tuple[str, str]]) -> Path:
    path.write_text("".join(json.dumps({"id": f"q{i}", "question": q, "answers": [a]}) + "\n"
                            for i, (q, a) in enumerate(questions)), encoding="utf-8")
    return path


# ------------------------------------------------------------------------------------------------ offline means offline
def test_an_api_key_alone_keeps_ask_offline(listener):
    done = kg_agent("ask", QUESTION, env=keyed_env(listener))
    assert done.returncode == 0, done.stderr
    assert listener.requests == []
    assert "Robert Zemeckis" in done.stdout and "LLM: none (offline)" in done.stdout


def test_kg_agent_model_names_the_model(listener):
    """The same listener does get the question when KG_AGENT_MODEL names a model (the test above would see a leak)."""
    kg_agent("ask", QUESTION, env=keyed_env(listener, KG_AGENT_MODEL="openai:x"))
    chats = [path for _, path in listener.requests if path.endswith("/chat/completions")]
    # besides the chats, at most the one GET /v1/models that finds what the server constrains (structured_mode "auto")
    assert chats and [r for r in listener.requests if not r[1].endswith("/chat/completions")] in ([], [("GET", "/v1/models")])


def test_model_none_overrides_kg_agent_model(listener):
    done = kg_agent("ask", QUESTION, "--model", "none", env=keyed_env(listener, KG_AGENT_MODEL="openai:x"))
    assert done.returncode == 0 and listener.requests == []


def test_an_api_key_alone_keeps_eval_offline(listener, tmp_path):
    questions = write_questions(tmp_path / "q.jsonl", [(QUESTION, "Robert Zemeckis")])
    out = tmp_path / "results.json"
    done = kg_agent("eval", "jsonl", "--questions", str(questions), "--no-progress", "--out", str(out),
                    env=keyed_env(listener))
    assert done.returncode == 0, done.stderr
    assert listener.requests == []
    assert json.loads(out.read_text())["model"] == "offline"


def test_an_api_key_alone_keeps_the_langgraph_server_offline(listener, monkeypatch):
    from kg_agent import server as langgraph_server

    for variable in ONLINE_VARIABLES:
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("OPENAI_BASE_URL", listener.base_url)
    result = langgraph_server.build_graph("tog").invoke({"question": QUESTION})
    assert [a["answer"] for a in result["answers"]] == ["Robert Zemeckis"]
    assert listener.requests == [] and not (result.get("usage") or {}).get("calls")


def test_an_api_key_alone_keeps_the_mcp_server_offline(listener):
    pytest.importorskip("mcp", reason="the MCP SDK is not installed")
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "kg_agent.cli", "mcp"], env=keyed_env(listener),
                                   cwd=str(ROOT))

    async def ask() -> str:
        with anyio.fail_after(HANG_GUARD_S):
            async with Client(params) as session:
                result = await session.call_tool("ask", {"question": QUESTION})
                return "".join(getattr(block, "text", "") for block in result.content)

    text = anyio.run(ask)
    assert "Robert Zemeckis" in text
    assert listener.requests == []


# ------------------------------------------------------------------------------------------------ exit codes
@pytest.fixture()
def small_kgs(tmp_path: Path) -> dict[str, Path]:
    empty = tmp_path / "empty.nt"
    empty.write_text("", encoding="utf-8")
    no_path = tmp_path / "no_path.nt"  # Gamma has a label and nothing else
    no_path.write_text(f'<http://e/A> {RDFS_LABEL} "Alpha" .\n<http://e/A> <http://r/knows> <http://e/B> .\n'
                       f'<http://e/B> {RDFS_LABEL} "Beta" .\n<http://e/C> {RDFS_LABEL} "Gamma" .\n', encoding="utf-8")
    return {"empty": empty, "no_path": no_path}


def test_ask_exits_0_when_it_answered(capsys):
    assert main(["ask", QUESTION]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("question", "why"), [
    ("who directed [Forest Gum]", "no entity of the knowledge graph found in the question; closest labels: Forrest Gump"),
    ("who directed [Qqqq Zzzz]", "no entity of the knowledge graph found in the question; no label of the knowledge graph "
                                 "is close to it"),
])
def test_ask_exits_1_when_no_entity_is_found_and_names_the_closest_labels(capsys, question, why):
    assert main(["ask", question]) == 1
    assert capsys.readouterr().err == f"kg-agent ask: no answer: {why}\n"


@pytest.mark.parametrize("method", ["rog", "tog", "tog-i", "tog2"])
def test_ask_exits_1_when_no_path_leads_to_an_answer(capsys, small_kgs, method):
    assert main(["ask", "who directed [Gamma]", "--kg", str(small_kgs["no_path"]), "--method", method]) == 1
    assert capsys.readouterr().err == "kg-agent ask: no answer: no path in the knowledge graph led from Gamma to an answer\n"


def test_ask_exits_1_over_an_empty_kg(capsys, small_kgs):
    assert main(["ask", "who directed [Big]", "--kg", str(small_kgs["empty"])]) == 1
    assert capsys.readouterr().err == f"kg-agent ask: no answer: the knowledge graph {small_kgs['empty']} is empty (no triples)\n"


@pytest.mark.parametrize("question", ["", "   "])
def test_an_empty_question_exits_2(question):
    done = kg_agent("ask", question, env=cli_env())
    assert done.returncode == 2
    assert done.stderr == "kg-agent: error: the question is empty\n" and done.stdout == ""


def test_bad_usage_exits_2_in_the_clis_words():
    done = kg_agent("ask", QUESTION, "--timeout", "0", env=cli_env())
    assert done.returncode == 2
    assert "argument --timeout: must be more than 0 seconds, not 0" in done.stderr
    assert "max_tokens" not in done.stderr and "Traceback" not in done.stderr


def test_help_documents_the_exit_codes():
    for command in ([], ["ask"], ["eval"]):
        done = kg_agent(*command, "--help", env=cli_env())
        assert done.returncode == 0
        assert "exit status:" in done.stdout and "130  interrupted" in done.stdout
        assert "KG_AGENT_MODEL" in done.stdout and "unless OPENAI_API_KEY" not in done.stdout


def test_eval_exits_1_when_no_question_was_answered_and_0_when_one_was(tmp_path, capsys):
    unanswerable = write_questions(tmp_path / "none.jsonl", [("who directed [Qqqq Zzzz]", "Big"), ("who directed [Gamma]", "x")])
    assert main(["eval", "jsonl", "--questions", str(unanswerable), "--no-progress", "--out", str(tmp_path / "a.json")]) == 1
    assert ("kg-agent eval: no question was answered (2 questions: 2 with no entity of the knowledge graph found)"
            in capsys.readouterr().err)
    mixed = write_questions(tmp_path / "mixed.jsonl", [("who directed [Qqqq Zzzz]", "Big"), (QUESTION, "Robert Zemeckis")])
    assert main(["eval", "jsonl", "--questions", str(mixed), "--no-progress", "--out", str(tmp_path / "b.json")]) == 0


# ------------------------------------------------------------------------------------------------ messages
def test_a_training_file_that_is_not_utf8_names_the_file_line_and_fix(tmp_path):
    train = tmp_path / "train.txt"
    train.write_bytes("what films did [Tom Hanks] act in\tBig\nwhat did [Caf\u00e9 Society] do\tBig\n".encode("latin-1"))
    for command in (["ask", QUESTION, "--train", str(train)],
                    ["eval", "metaqa", "--questions", str(train), "--out", str(tmp_path / "r.json")]):
        done = kg_agent(*command, env=cli_env())
        assert done.returncode == 2, done.stderr
        assert f"{train}:2: byte 0xE9" in done.stderr and "not UTF-8 text" in done.stderr
        assert "codec" not in done.stderr and "Traceback" not in done.stderr


def test_a_folder_or_a_file_in_the_way_is_refused_in_the_clis_words(tmp_path):
    questions = write_questions(tmp_path / "q.jsonl", [(QUESTION, "Robert Zemeckis")])
    blocker = tmp_path / "file.txt"
    blocker.write_text("mine", encoding="utf-8")
    cases = [
        (["ask", QUESTION, "--train", str(tmp_path)], f"kg-agent: error: --train {tmp_path} is a folder, not a question file"),
        (["eval", "jsonl", "--questions", str(questions), "--out", str(tmp_path)], f"kg-agent: error: --out {tmp_path} is a folder"),
        (["eval", "jsonl", "--questions", str(questions), "--out", str(blocker / "results.json")],
         f"kg-agent: error: {blocker} is a file, not a folder"),
    ]
    for command, message in cases:
        done = kg_agent(*command, "--no-progress" if command[0] == "eval" else "--json", env=cli_env())
        assert done.returncode == 2, done.stderr
        assert message in done.stderr
        assert "Traceback" not in done.stderr and "Error:" not in done.stderr
    assert blocker.read_text(encoding="utf-8") == "mine"


def test_training_answers_raise_no_library_warnings(tmp_path):
    """Training questions name their topic entities by label ("Tom Hanks"); looking them up must not make rdflib
    print "... does not look like a valid URI" once per training question."""
    train = tmp_path / "train.txt"
    train.write_text("what films did [Tom Hanks] act in\tBig|Forrest Gump\nwho directed [Big]\tPenny Marshall\n",
                     encoding="utf-8")
    done = kg_agent("ask", QUESTION, "--train", str(train), env=cli_env())
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""


def test_a_tog_dead_end_reads_as_a_note(capsys):
    assert main(["ask", "what did the director of [Forrest Gump] write", "--method", "tog"]) == 0
    notes = [line for line in capsys.readouterr().out.splitlines() if line.startswith("Note: ")]
    assert notes == ["Note: prune_relations: no relation leads on from Winston Groom, so this path ends there"]


# ------------------------------------------------------------------------------------------------ long literals
LITERAL_CHARS = 1_000_000


@pytest.fixture()
def long_literal_kg(tmp_path: Path) -> tuple[Path, str]:
    """A KG whose answer to "what is the plot of [Big]" is a 1 MB literal (N-Triples)."""
    literal = "PLOT-START " + "a long plot " * ((LITERAL_CHARS - 20) // 12) + " PLOT-END"
    path = tmp_path / "long.nt"
    path.write_text(f'<http://e/Big> {RDFS_LABEL} "Big" .\n<http://e/Big> <http://r/plot> "{literal}" .\n'
                    f'<http://e/Big> <http://r/directed_by> <http://e/PM> .\n<http://e/PM> {RDFS_LABEL} "Penny Marshall" .\n',
                    encoding="utf-8")
    return path, literal


@pytest.mark.parametrize("method", ["rog", "tog"])
def test_a_long_literal_answer_is_capped_in_text_output(capsys, long_literal_kg, method):
    path, literal = long_literal_kg
    assert main(["ask", "what is the plot of [Big]", "--kg", str(path), "--method", method]) == 0
    out = capsys.readouterr().out
    assert len(out) < 5_000
    assert "  - PLOT-START a long plot a long plot " in out
    assert f"… ({len(literal):,} characters; full text in --json)" in out
    assert "PLOT-END" not in out


@pytest.mark.parametrize("method", ["rog", "tog", "tog2"])
def test_a_long_literal_answer_is_in_the_json_in_full_once(capsys, long_literal_kg, method):
    path, literal = long_literal_kg
    assert main(["ask", "what is the plot of [Big]", "--kg", str(path), "--method", method, "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("PLOT-END") == 1 and len(out) < len(literal) + 50_000
    result = json.loads(out)
    [answer] = result["answers"]
    assert answer["answer"] == literal
    # every repeat (the path's text, the literal's id, the offline output ...) refers to the full copy
    reference = "characters; full text at answers[0].answer)"
    assert answer["paths"][0]["text"].startswith("Big -> plot -> PLOT-START") and answer["paths"][0]["text"].endswith(reference)
    assert answer["entity_id"].endswith(reference) and result["output"].endswith(reference)


# ------------------------------------------------------------------------------------------------ Ctrl-C
@pytest.fixture()
def hanging_model() -> Iterator[OpenAICompatibleServer]:
    """The explorer, except that every entity-scoring call hangs until the test ends (several at once, in the
    decider's thread pool)."""
    release = threading.Event()
    respond = explorer()

    def responder(prompt: str) -> str:
        if "Entites:" in prompt:
            release.wait()
        return respond(prompt)

    with OpenAICompatibleServer(responder=responder) as server:
        yield server
        release.set()


def test_ctrl_c_stops_ask_with_model_calls_in_flight(hanging_model):
    env = cli_env(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=hanging_model.base_url)
    process = subprocess.Popen(
        [sys.executable, "-m", "kg_agent.cli", "ask", "what movies did [Tom Hanks] act in", "--method", "tog",
         "--model", "openai:test-model", "--timeout", "900"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    deadline = time.monotonic() + HANG_GUARD_S
    while hanging_model.in_flight < 2:
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"ask never got to its entity-scoring calls:\n{process.communicate()}")
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    try:
        out, err = process.communicate(timeout=HANG_GUARD_S)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("Ctrl-C did not stop ask while model calls were in flight")
    assert process.returncode == 130, err
    assert "kg-agent ask: interrupted; no answer was given" in err
    assert "Traceback" not in err and hanging_model.in_flight >= 2  # the hanging calls were abandoned, not awaited


def test_ctrl_c_stops_an_offline_eval_and_keeps_the_finished_questions(kg, tmp_path):
    """An offline eval over many questions of the bundled sample KG, interrupted once the first are saved."""
    films = sorted({kg.label(entity) for entity in kg.entity_ids() if "directed_by" in kg.relations(entity)})[:400]
    questions = write_questions(tmp_path / "q.jsonl", [(f"who directed [{film}]", "x") for film in films])
    out = tmp_path / "results.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "kg_agent.cli", "eval", "jsonl", "--questions", str(questions), "--method", "tog",
         "--save-every", "1", "--no-progress", "--out", str(out)],
        env=cli_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    deadline = time.monotonic() + HANG_GUARD_S
    while not out.exists():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the eval saved nothing:\n{process.communicate()[0]}")
        time.sleep(0.05)
    process.send_signal(signal.SIGINT)
    try:
        output = process.communicate(timeout=HANG_GUARD_S)[0]
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("Ctrl-C did not stop the eval")
    assert process.returncode == 130, output
    saved = len(json.loads(out.read_text())["per_question"])
    assert 0 < saved < len(films)
    assert f"interrupted; {saved} of {len(films)} questions written to {out}" in output
