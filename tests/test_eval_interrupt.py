"""Ctrl-C during ``kg-agent eval --model openai:...`` while model calls are in flight (a subprocess, SIGINT).

The model is the local OpenAI-compatible server; once the first question is finished (and saved: ``--save-every
1``), every entity-scoring call of the second question hangs until the test ends, so the eval is interrupted
with several calls in flight in the decider's thread pool (and a model timeout far longer than the test waits). The first Ctrl-C must stop the run, keep the finished
question in ``--out`` and exit (130) without waiting for those calls; a second one exits at once.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tests.llm_responders import explorer
from tests.openai_server import OpenAICompatibleServer

ROOT = Path(__file__).resolve().parent.parent
FIRST, SECOND = "who directed [Forrest Gump]", "what movies did [Tom Hanks] act in"
MODEL_TIMEOUT_S = 900  # the hanging calls would end (time out) only after this
HANG_GUARD_S = 120  # so that a regression fails instead of hanging the test run


@pytest.fixture()
def hanging_server():
    """The explorer, except that the second question's entity-scoring calls never return (until teardown)."""
    release = threading.Event()
    respond = explorer()

    def responder(prompt: str) -> str:
        if "Tom Hanks" in prompt and "Entites:" in prompt:
            release.wait()
        return respond(prompt)

    with OpenAICompatibleServer(responder=responder) as server:
        yield server
        release.set()


def start_eval(server: OpenAICompatibleServer, tmp_path: Path) -> tuple[subprocess.Popen, Path]:
    questions = tmp_path / "questions.txt"
    questions.write_text(f"{FIRST}\tRobert Zemeckis\n{SECOND}\tForrest Gump\n")
    out = tmp_path / "results.json"
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "sk-test", "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-m", "kg_agent.cli", "eval", "metaqa", "--questions", str(questions), "--method", "tog",
         "--model", "openai:test-model", "--timeout", str(MODEL_TIMEOUT_S), "--workers", "1", "--save-every", "1", "--no-progress", "--out", str(out)],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return process, out


def wait_for_calls_in_flight(server: OpenAICompatibleServer, process: subprocess.Popen, out: Path) -> None:
    """Until the first question is saved and several of the second's calls hang on the server."""
    deadline = time.monotonic() + HANG_GUARD_S
    while not (out.exists() and server.in_flight >= 2):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the eval never got to the second question's calls:\n{process.communicate()[0]}")
        time.sleep(0.05)


def saved_questions(out: Path) -> list[str]:
    return [record["question"] for record in json.loads(out.read_text())["per_question"]]  # brackets dropped


def interrupt(process: subprocess.Popen, times: int) -> str:
    """Send Ctrl-C ``times`` and wait for the process to end; its output."""
    for _ in range(times):
        process.send_signal(signal.SIGINT)
    try:
        return process.communicate(timeout=HANG_GUARD_S)[0]
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail(f"{times} Ctrl-C did not stop the eval while model calls were in flight")


def test_ctrl_c_saves_the_finished_questions_and_exits_with_calls_in_flight(hanging_server, tmp_path):
    process, out = start_eval(hanging_server, tmp_path)
    wait_for_calls_in_flight(hanging_server, process, out)
    output = interrupt(process, 1)
    assert process.returncode == 130, output
    assert "interrupted; 1 of 2 questions written" in output
    assert saved_questions(out) == ["who directed Forrest Gump"]
    assert hanging_server.in_flight >= 2  # the hanging calls were abandoned, not waited for


def test_a_second_ctrl_c_exits_at_once(hanging_server, tmp_path):
    process, out = start_eval(hanging_server, tmp_path)
    wait_for_calls_in_flight(hanging_server, process, out)
    output = interrupt(process, 2)
    assert process.returncode == 130, output
    assert saved_questions(out) == ["who directed Forrest Gump"]  # saved before the interrupts (--save-every 1), never lost
