"""Where the questions a KG taught (:mod:`~kg_agent.tools.rog.taught_exemplars`) are kept, so that a later process
reuses them instead of teaching again (on an endpoint teaching is a few hundred requests):

* an Oxigraph store keeps them in its sidecar folder (``<store>/kg-agent/taught.json``), made at the first use of the
  ``taught`` planner (not at ``kg-agent load``, which stays as fast as it was); they are for the store's load (its
  ``complete.json`` build): a store loaded again (``--overwrite``) teaches again;
* an in-memory KG or a SPARQL endpoint keeps them in the user's cache folder
  (``<user cache>/taught/<fingerprint>.json``, :func:`kg_agent.user_cache.user_cache_dir`), named by the KG's
  fingerprint (:func:`kg_fingerprint`): a KG that changed gets another name, so it teaches again.

Teaching an in-memory KG is cheap (~0.5 s for 65k triples); what a second process saves is mostly its embeddings.

Their embeddings are kept as every offline decider's text vectors are, per embedding model, in the KG's vector file
and the user's (:mod:`kg_agent.tools.shared.similarity`; the exemplar planner reads them there). A file that cannot
be read or written is not used: the KG teaches in this process, as without one.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.store_folder import COMPLETE_MARKER, SIDECAR_DIR, TAUGHT_FILE
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.taught_exemplars import (
    DEFAULT_MAX_QUESTIONS,
    DEFAULT_PER_RELATION,
    TEACHING_VERSION,
    teach_exemplars,
)
from kg_agent.user_cache import user_cache_dir

logger = logging.getLogger(__name__)

#: Triples digested of an in-memory KG read from a file (with the file's size and time and the KG's triple count).
_FILE_SAMPLE = 1000


def kg_fingerprint(kg: KnowledgeGraph) -> str:
    """What names a KG's taught questions: an Oxigraph store's load (the build its ``complete.json`` records); an
    in-memory KG's file or triples (below); a SPARQL endpoint's
    address, name predicates and relation names (its data is not read whole: an endpoint whose triples change under
    the same relations keeps its taught questions until the user's cache is cleared). An in-memory KG loaded from a
    file is named by the file (path, size, modification time), its triple count and a digest of its first triples (a
    load may keep part of a file); one built otherwise by an order-free digest of every triple (~1 s per 100k
    triples: about what teaching it costs)."""
    if kg.backend == "oxigraph":
        marker = json.loads((Path(kg.name) / SIDECAR_DIR / COMPLETE_MARKER).read_text(encoding="utf-8"))
        return f"oxigraph {marker['build']}"
    if kg.backend == "sparql":
        digest = hashlib.sha256(f"{kg.name}\n{kg.naming.names_key}\n".encode())
        for relation in sorted(kg.relation_names()):
            digest.update(f"{relation}\n".encode())
        return f"sparql {digest.hexdigest()[:32]}"
    import xxhash

    source = Path(kg.name)
    from_file = source.is_file()
    # from a file: the file as it is now (path, size, modification time) and the KG read from it (its triple count
    # and its first triples: a load may keep part of a file, e.g. one question's subgraph); else every triple
    total, count = 0, 0
    for triple in kg.graph:
        if from_file and count == _FILE_SAMPLE:
            break
        total = (total + xxhash.xxh3_64_intdigest(" ".join(term.n3() for term in triple).encode())) % (1 << 64)
        count += 1
    if from_file:
        stat = source.stat()
        return f"file {source.resolve()} {stat.st_size} {stat.st_mtime_ns} {len(kg)} {total:016x} {kg.naming.names_key}"
    return f"memory {count} {total:016x} {kg.naming.names_key}"


def taught_file(kg: KnowledgeGraph, fingerprint: str) -> Path | None:
    """The file holding ``kg``'s taught questions (see the module docstring); None when the user's cache is off."""
    if kg.backend == "oxigraph":
        return Path(kg.name) / SIDECAR_DIR / TAUGHT_FILE
    folder = user_cache_dir()
    if folder is None:
        return None
    return folder / "taught" / f"{hashlib.sha256(fingerprint.encode()).hexdigest()[:24]}.json"


def kept_exemplars(kg: KnowledgeGraph, *, per_relation: int = DEFAULT_PER_RELATION,
                   max_questions: int = DEFAULT_MAX_QUESTIONS, seed: int = 0, max_hops: int = 2) -> list[Exemplar]:
    """The questions ``kg`` taught (:func:`~kg_agent.tools.rog.taught_exemplars.teach_exemplars` with these
    arguments): read from where they are kept when they were taught for this KG with these arguments, else taught
    now and kept there."""
    try:
        fingerprint = kg_fingerprint(kg)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logger.warning("%s: its taught questions are not kept (no fingerprint: %s)", kg.name, exc)
        return teach_exemplars(kg, per_relation=per_relation, max_questions=max_questions, seed=seed, max_hops=max_hops)
    key = {"version": TEACHING_VERSION, "kg": fingerprint, "per_relation": per_relation,
           "max_questions": max_questions, "seed": seed, "max_hops": max_hops}
    path = taught_file(kg, fingerprint)
    if path is not None:
        kept = _read(path, key)
        if kept is not None:
            return kept
    taught = teach_exemplars(kg, per_relation=per_relation, max_questions=max_questions, seed=seed, max_hops=max_hops)
    if path is not None:
        _write(path, key, taught)
    return taught


def _read(path: Path, key: dict) -> list[Exemplar] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        logger.warning("%s: unreadable (%s); the KG teaches again", path, exc)
        return None
    if not isinstance(data, dict) or data.get("key") != key:
        return None
    try:
        return [Exemplar(e["question"], list(e["answers"]), tuple(e["topic_entities"]),
                         tuple(tuple(p) for p in e["relation_paths"])) for e in data["exemplars"]]
    except (KeyError, TypeError) as exc:
        logger.warning("%s: not taught questions (%s); the KG teaches again", path, exc)
        return None


def _write(path: Path, key: dict, taught: list[Exemplar]) -> None:
    data = {"key": key, "exemplars": [{"question": e.question, "answers": list(e.answers),
                                       "topic_entities": list(e.topic_entities),
                                       "relation_paths": [list(p) for p in e.relation_paths]} for e in taught]}
    partial = path.with_name(f"{path.name}.{os.getpid()}.partial")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        partial.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(partial, path)  # whole or not at all: a reader never sees half a file
    except OSError as exc:
        logger.warning("%s: the taught questions are not kept (%s)", path, exc)
        partial.unlink(missing_ok=True)
