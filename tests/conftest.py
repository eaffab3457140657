"""Shared fixtures. Tests that need the full benchmark data read its folder from KG_AGENT_DATA
(default ``../shared/data`` beside the project) and skip with a reason when it is absent."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

PROJECT_ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def data_root() -> Path:
    return Path(os.environ.get("KG_AGENT_DATA", PROJECT_ROOT.parent / "shared" / "data")).resolve()


@pytest.fixture(scope="session", autouse=True)
def no_user_vector_file():
    """Tests (and the processes they start) do not read or write the user's shared vector file (``~/.cache/kg-agent``):
    each test embeds what it scores, as a first run does. Tests of that file name their own folder."""
    before = os.environ.get("KG_AGENT_CACHE_DIR")
    os.environ["KG_AGENT_CACHE_DIR"] = ""
    yield
    if before is None:
        os.environ.pop("KG_AGENT_CACHE_DIR", None)
    else:
        os.environ["KG_AGENT_CACHE_DIR"] = before


@pytest.fixture(scope="session")
def data_dir() -> Path:
    root = data_root()
    if not (root / "metaqa" / "kb.txt").exists():
        pytest.skip(f"benchmark data not found at {root} (set KG_AGENT_DATA to the shared data folder)")
    return root


@pytest.fixture(scope="session")
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def kg():
    """The bundled sample movie KG, opened once per session (read only: no tool writes to a KG).

    Modules that need another KG define their own ``kg`` fixture, which takes precedence."""
    from kg_agent.kg import open_kg

    return open_kg()


@pytest.fixture(scope="session")
def full_kg(data_dir: Path):
    """The full MetaQA KB (``metaqa/kb.txt``, ~6 s to load), once per session; skipped without the data."""
    from kg_agent.kg import open_kg

    return open_kg(str(data_dir / "metaqa" / "kb.txt"))


@pytest.fixture(scope="session")
def local_server():
    """SmolLM2-135M-Instruct behind llama.cpp's OpenAI-compatible server (tests/local_llm.py), one per session;
    skipped with the reason when the local model is not installed."""
    try:
        from local_llm import LocalLlamaServer, missing_reason
    except ImportError:  # tests/ imported as a package
        from tests.local_llm import LocalLlamaServer, missing_reason

    reason = missing_reason()
    if reason:
        pytest.skip(reason)
    with LocalLlamaServer() as server:
        yield server
