"""The user's cache folder, shared by every KG and process: ``$KG_AGENT_CACHE_DIR``, by default
``$XDG_CACHE_HOME/kg-agent`` (``~/.cache/kg-agent``). ``KG_AGENT_CACHE_DIR`` set empty turns it off.

It holds what is computed once and reused by later processes whatever the KG:

* ``vectors.sqlite``: the offline deciders' text vectors, per embedding model
  (:func:`kg_agent.tools.shared.similarity.user_vector_file_path`);
* ``documents/``: the Chroma index of each document file ToG-2 was given, per content and embedding model
  (:func:`kg_agent.tools.tog2.documents.open_document_index`);
* ``onnx/``: MiniLM as onnxruntime optimised it, per onnxruntime version and machine
  (:func:`kg_agent.embeddings.optimised_model_folder`).
* ``taught/``: the questions an in-memory KG or an endpoint taught the ``taught`` planner, per KG fingerprint
  (:mod:`kg_agent.tools.rog.taught_store`).
"""

from __future__ import annotations

import os
from pathlib import Path

#: The environment variable naming the cache folder; set empty, nothing is cached there.
CACHE_DIR_VARIABLE = "KG_AGENT_CACHE_DIR"


def user_cache_dir() -> Path | None:
    """The user's cache folder (not created here); ``None`` when ``KG_AGENT_CACHE_DIR`` is set empty."""
    configured = os.environ.get(CACHE_DIR_VARIABLE)
    if configured is not None:
        return Path(configured).expanduser() if configured.strip() else None
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "kg-agent"
