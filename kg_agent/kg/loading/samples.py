"""The sample KG and documents bundled with kg-agent (a slice of the MetaQA WikiMovies KB and its films' plots)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

SAMPLE_KG = "sample_movies.txt"


def sample_kg_path() -> Path:
    """The bundled sample KG (a slice of the MetaQA WikiMovies KB; see kg_agent/data/README.md)."""
    return Path(str(resources.files("kg_agent") / "data" / SAMPLE_KG))


def sample_documents_path() -> Path:
    """Plot summaries of the sample KG's films (JSONL ``{entity, title, text}``)."""
    return Path(str(resources.files("kg_agent") / "data" / "sample_movie_plots.jsonl"))
