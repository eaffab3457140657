"""Run a method over benchmark questions and score it: the evaluation harness behind ``kg-agent eval``.

    from kg_agent.eval import load_dataset
    from kg_agent.eval.runner import evaluate
    from kg_agent.kg import open_kg

    questions = load_dataset("metaqa", "../shared/data/metaqa/2-hop/qa_dev.txt")[:100]
    results = evaluate(questions, method="rog", kg=open_kg("../shared/data/metaqa/kb.txt"), out="results.json")
    results["metrics"]["strict"]["hits@1"]

* The method's graph is built and compiled **once per KG** and reused for every question (graphs are
  thread-safe and the KG is read-only, so ``workers > 1`` runs questions in a thread pool). Datasets whose
  questions carry their own subgraph (RoG's WebQSP/CWQ JSONL: ``q.extra["graph"]``) get a small KG built per
  question (``kg_for_question``; nothing is cached across questions).
* Each question is recorded with its gold and predicted answers, the raw output, scores under the three
  conventions of :mod:`kg_agent.eval.metrics`, plans, time, LLM usage, warnings, and the error message when
  it failed (a failed question scores 0 and the run goes on). Every convention scores the result's
  ``answers`` (for the text-based ones, one per line), never the ``output`` text: a model's reply may hold a
  rejected or ungrounded answer, or braces around "Yes" before the answer.
* Resumable: when ``out`` exists its finished questions are kept and skipped; results are written atomically
  (temporary file + ``os.replace``) every ``save_every`` questions and at the end; Ctrl-C stops submitting
  questions, writes what is done and re-raises ``KeyboardInterrupt``.
* ``method="ceiling"`` (MetaQA only) is not a method but an upper bound: it follows each question's *gold*
  relation path, read from its question type, from the topic entity (see :func:`metaqa_gold_relation_path`).
  It measures what the KG and the metric allow, not reasoning.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path
from typing import Any

from kg_agent.eval.datasets import Question
from kg_agent.eval.metrics import aggregate, score_question

__all__ = [
    "CONVENTIONS",
    "METAQA_RELATIONS",
    "METHODS",
    "MethodUnavailable",
    "ceiling_answer",
    "evaluate",
    "kg_for_rog_question",
    "load_results",
    "metaqa_gold_relation_path",
    "summarize",
    "write_json_atomic",
]

from kg_agent.graphs.registry import METHODS as GRAPH_METHODS

#: The methods evaluate() runs: the registered graphs plus the MetaQA gold-path ceiling.
METHODS = (*GRAPH_METHODS, "ceiling")

#: One line per scoring convention, copied into every results file.
CONVENTIONS: dict[str, str] = {
    "strict": "answers normalised SQuAD-style and compared as whole strings; hits@1 = first predicted answer is a "
    "gold answer; precision/recall/f1 over the sets of predicted and gold answers; exact_match = the sets are equal",
    "selective": "strict hits@1, except that a question with no gold answer is right only when nothing is answered; "
    "coverage = share of questions answered; answered_hits_at_1 = hits@1 of the answered ones (precision); abstained "
    "= share of questions with no gold answer left unanswered",
    "rog_legacy": "Reasoning on Graphs' published evaluation on the answers, one per line: hit = any gold answer is a "
    "substring of them (RoG's 'Hits@1'); f1 with precision = gold answers found / answers (may exceed 100)",
    "tog_em": "Think-on-Graph's exact match on the answers, one per line: lower-cased without spaces, they contain or "
    "are contained in a gold alias",
}

#: MetaQA question-type words -> WikiMovies relations (``X_to_movie`` walks the relation backwards).
METAQA_RELATIONS: dict[str, str] = {
    "actor": "starred_actors",
    "director": "directed_by",
    "writer": "written_by",
    "year": "release_year",
    "language": "in_language",
    "tags": "has_tags",
    "tag": "has_tags",
    "genre": "has_genre",
    "imdbvotes": "has_imdb_votes",
    "imdbrating": "has_imdb_rating",
}

DEFAULT_SAVE_EVERY = 25
_UMASK = os.umask(0o022)
os.umask(_UMASK)


class MethodUnavailable(RuntimeError):
    """The method's module is not available (e.g. not installed or not written yet)."""


# --------------------------------------------------------------------------------------------- ceiling


def metaqa_gold_relation_path(qtype: str) -> tuple[str, ...]:
    """The relation path a MetaQA question type asks for.

    ``movie_to_director_to_movie_to_language`` -> ``("directed_by", "^directed_by", "in_language")``:
    a ``movie_to_X`` step follows X's relation forwards, an ``X_to_movie`` step backwards (``^rel``).
    """
    words = [w.strip().lower() for w in qtype.split("_to_")]
    if len(words) < 2:
        raise ValueError(f"not a MetaQA question type: {qtype!r}")
    relations: list[str] = []
    for a, b in zip(words, words[1:]):
        if a == "movie" and b in METAQA_RELATIONS:
            relations.append(METAQA_RELATIONS[b])
        elif b == "movie" and a in METAQA_RELATIONS:
            relations.append("^" + METAQA_RELATIONS[a])
        else:
            raise ValueError(f"cannot map the step {a}_to_{b} of MetaQA question type {qtype!r} to a relation")
    return tuple(relations)


def ceiling_answer(kg, question: Question, *, max_paths: int = 20000) -> dict[str, Any]:
    """The "ceiling" pseudo-method: follow the question's gold relation path (from its MetaQA ``qtype``).

    The topic entity is resolved by id or with ``kg.find_entities`` (first match); answers are the path
    ends ranked by the number of paths reaching them (then by label). Returns a result state shaped like a
    method graph's (``answers``, ``output``, ``plans``, ``usage``, ``warnings``, ``stop_reason``).
    """
    from kg_agent.kg import retrieve_paths
    from kg_agent.kg.types import relation_path_text

    if not question.qtype:
        raise ValueError("the ceiling method needs a MetaQA question type (qa_dev_qtype.txt beside the questions)")
    relations = metaqa_gold_relation_path(question.qtype)
    plan = {"relations": list(relations), "text": relation_path_text(relations), "score": 1.0, "source": "gold"}
    warnings: list[str] = []
    starts: list[str] = []
    for name in question.topic_entities:
        if kg.has_entity(name):
            starts.append(name)
            continue
        found = kg.find_entities(name)
        if found:
            starts.append(found[0].id)
        else:
            warnings.append(f"link: topic entity {name!r} is not in the knowledge graph")
    state: dict[str, Any] = {"answers": [], "output": "", "plans": [plan], "usage": {}, "warnings": warnings}
    if not starts:
        return {**state, "stop_reason": "no_topic_entity"}
    result = retrieve_paths(kg, starts, relations, max_paths=max_paths)
    if result.truncated:
        warnings.append(f"retrieve: more than {max_paths} paths; kept the first {max_paths}")
    votes: dict[str, int] = {}
    labels: dict[str, str] = {}
    for path in result.paths:
        end = path.end
        votes[end.id] = votes.get(end.id, 0) + 1
        labels[end.id] = end.label
    ranked = sorted(votes, key=lambda k: (-votes[k], labels[k], k))
    answers = [
        {"answer": labels[k], "entity_id": k, "score": float(votes[k]), "grounded": True, "paths": []} for k in ranked
    ]
    return {
        **state,
        "answers": answers,
        "output": "\n".join(labels[k] for k in ranked),
        "stop_reason": "answered" if answers else "no_answer",
    }


# --------------------------------------------------------------------------------------------- helpers


def kg_for_rog_question(question: Question):
    """A small in-memory KG from the question's own subgraph (RoG's JSONL ``graph``)."""
    from kg_agent.kg import kg_from_triples

    graph = question.extra.get("graph")
    if not graph:
        raise ValueError(f"question {question.id} has no subgraph (extra['graph']); pass a KG instead")
    return kg_from_triples(graph, name=question.id)


def write_json_atomic(path: str | Path, data: Any) -> None:
    """Write JSON to ``path`` through a temporary file in the same folder and ``os.replace``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes the file private (0600); a results file is not
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(data, handle, ensure_ascii=False, indent=1)
            handle.write("\n")
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def load_results(path: str | Path) -> dict[str, Any]:
    """Read a results file written by :func:`evaluate`."""
    with Path(path).open("r", encoding="utf-8") as handle:
        data = json.load(handle)
    if not isinstance(data, dict) or "per_question" not in data:
        raise ValueError(f"{path}: not a kg-agent results file (no per_question)")
    return data


def _model_name(model: Any) -> str:
    if model is None:
        return "offline"
    if isinstance(model, str):
        return model
    for attr in ("model_name", "model", "model_id"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return type(model).__name__


def _strict_keys(metrics: Mapping[str, Any]) -> dict[str, Any]:
    """Aggregated metrics with the strict ``hits_at_1`` key spelt ``hits@1`` (as reported)."""
    out = {k: (dict(v) if isinstance(v, Mapping) else v) for k, v in metrics.items()}
    strict = out.get("strict")
    if isinstance(strict, dict) and "hits_at_1" in strict:
        strict = {("hits@1" if k == "hits_at_1" else k): v for k, v in strict.items()}
        out["strict"] = {k: strict[k] for k in ("hits@1", "precision", "recall", "f1", "exact_match") if k in strict}
    return out


def _metrics(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    if not records:
        return {"strict": {}, "rog_legacy": {}, "tog_em": {}, "n": 0}
    return _strict_keys(aggregate([r["scores"] for r in records]))


def _usage_total(records: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Calls and tokens of every question; failed calls (``errors``) and cache hits (``cached_calls``) when any."""
    total = {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    extra = {"errors": 0, "cached_calls": 0}
    by_node: dict[str, dict[str, int]] = {}
    for record in records:
        usage = record.get("usage") or {}
        for key in total:
            total[key] += int(usage.get(key) or 0)
        for key in extra:
            extra[key] += int(usage.get(key) or 0)
        for node, counts in (usage.get("by_node") or {}).items():
            slot = by_node.setdefault(node, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
            for key in slot:
                slot[key] += int((counts or {}).get(key) or 0)
    total.update({key: value for key, value in extra.items() if value})
    if by_node:
        total["by_node"] = by_node
    return total


def summarize(
    records: Sequence[Mapping[str, Any]],
    *,
    dataset: str,
    method: str,
    model: str,
    seconds: float,
    config: Mapping[str, Any],
) -> dict[str, Any]:
    """The results document for finished per-question records."""
    result: dict[str, Any] = {
        "dataset": dataset,
        "method": method,
        "model": model,
        "n": len(records),
        "errors": sum(1 for r in records if r.get("error")),
        "metrics": {k: v for k, v in _metrics(records).items() if k != "n"},
        "conventions": dict(CONVENTIONS),
        "llm": _usage_total(records),
        "seconds": round(seconds, 3),
        "seconds_per_question": round(sum(r.get("seconds", 0.0) for r in records) / len(records), 4) if records else 0.0,
    }
    hops = sorted({r["hop"] for r in records if r.get("hop") is not None})
    if hops:
        result["by_hop"] = {}
        for hop in hops:
            subset = [r for r in records if r.get("hop") == hop]
            result["by_hop"][str(hop)] = {"n": len(subset), **{k: v for k, v in _metrics(subset).items() if k != "n"}}
    result["config"] = dict(config)
    result["per_question"] = list(records)
    return result


# --------------------------------------------------------------------------------------------- running

Runner = Callable[[Question], dict]


GraphFactory = Callable[[Any], Any]  # kg -> uncompiled StateGraph (or a compiled graph)


def registry_graph_factory(method: str, *, model: Any = None, exemplars: Any = None,
                           options: Mapping[str, Any] | None = None) -> GraphFactory:
    """``kg -> graph`` through :func:`kg_agent.graphs.create_graph`, with the ``options`` the method takes."""
    from kg_agent.graphs.registry import create_graph, options_for

    options = dict(options or {})

    def factory(kg):
        chosen = dict(options)
        if method == "rog" and exemplars and model is None and chosen.get("planner", "auto") in {"auto", "exemplar"}:
            # A private Chroma collection: ExemplarPlanner's default collection name is shared by every
            # planner in the process, so a second run would also see the first run's training questions.
            chosen["planner"] = _private_exemplar_planner(kg, exemplars)
        return create_graph(method, kg, model=model, **options_for(method, {**chosen, "exemplars": exemplars}))

    return factory


def _method_factory(method: str, graph_factory: GraphFactory | None, *, model: Any, exemplars: Any,
                    options: Mapping[str, Any]) -> Callable[[Any], Runner]:
    """``factory(kg) -> run(question) -> result state`` for a method (the graph compiled once per KG)."""
    if method == "ceiling":
        return lambda kg: (lambda q: ceiling_answer(kg, q))
    if method not in METHODS and graph_factory is None:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    build = graph_factory or registry_graph_factory(method, model=model, exemplars=exemplars, options=options)

    def factory(kg) -> Runner:
        try:
            graph = build(kg)
        except ImportError as exc:
            raise MethodUnavailable(
                f"method {method!r} is not available in this installation ({exc}); "
                f"available now: rog, ceiling"
            ) from exc
        app = graph.compile() if hasattr(graph, "compile") else graph

        def run(q: Question) -> dict:
            state: dict[str, Any] = {"question": q.question}
            if q.topic_entities:
                state["topic_entities"] = list(q.topic_entities)
            return app.invoke(state)

        return run

    return factory


def _private_exemplar_planner(kg, exemplars):
    """An :class:`~kg_agent.tools.rog.plan.ExemplarPlanner` fitted in its own, uniquely named Chroma collection.

    The collection is dropped when the planner is garbage-collected.
    """
    import uuid
    import weakref

    import chromadb

    from kg_agent.docs.index import chroma_settings
    from kg_agent.tools.rog.plan import ExemplarPlanner

    client = chromadb.EphemeralClient(settings=chroma_settings())
    name = f"kg_agent_eval_{uuid.uuid4().hex}"
    planner = ExemplarPlanner(kg, client=client, collection=name).fit(exemplars)

    def drop(client=client, name=name) -> None:
        try:
            client.delete_collection(name)
        except Exception:  # noqa: BLE001 - best effort at garbage collection / exit
            pass

    weakref.finalize(planner, drop)
    return planner


def _plan_texts(plans: Any) -> list[str]:
    texts = []
    for plan in plans or []:
        if isinstance(plan, Mapping):
            texts.append(str(plan.get("text") or " -> ".join(plan.get("relations") or [])))
        else:
            texts.append(str(plan))
    return texts


def _record(q: Question, state: Mapping[str, Any] | None, seconds: float, error: str | None) -> dict[str, Any]:
    state = state or {}
    answers = [a for a in state.get("answers") or [] if isinstance(a, Mapping)]
    predicted = [str(a.get("answer", "")) for a in answers]
    output = state.get("output")
    if not isinstance(output, str) or (not output and predicted):
        output = "\n".join(predicted)
    record: dict[str, Any] = {
        "id": q.id,
        "question": q.question,
        "topic_entities": list(q.topic_entities),
        "gold": list(q.answers),
        "predicted": predicted,
        "output": output,
        "grounded": [bool(a.get("grounded", True)) for a in answers],
        "scores": score_question(predicted, None, q.answers),  # the result's answers, never the reply text
        "plans": _plan_texts(state.get("plans")),
        "seconds": round(seconds, 4),
        "usage": dict(state.get("usage") or {}),
        "warnings": [str(w) for w in state.get("warnings") or []],
        "stop_reason": str(state.get("stop_reason") or ""),
        "error": error,
    }
    if q.hop is not None:
        record["hop"] = q.hop
    if q.qtype is not None:
        record["qtype"] = q.qtype
    if q.line is not None:
        record["line"] = q.line
    return record


def _run_question(q: Question, get_runner: Callable[[Question], Runner]) -> dict[str, Any]:
    start = time.perf_counter()
    try:
        run = get_runner(q)
        state = run(q)
        return _record(q, state, time.perf_counter() - start, None)
    except MethodUnavailable:
        raise
    except Exception as exc:  # record and go on: one bad question must not abort a long run
        return _record(q, None, time.perf_counter() - start, f"{type(exc).__name__}: {exc}")


def evaluate(
    questions: Sequence[Question],
    *,
    method: str,
    graph_factory: GraphFactory | None = None,
    kg=None,
    kg_for_question: Callable[[Question], Any] | None = None,
    model=None,
    exemplars=None,
    workers: int = 1,
    out: str | Path | None = None,
    progress: bool = True,
    options: Mapping[str, Any] | None = None,
    dataset: str | None = None,
    config: Mapping[str, Any] | None = None,
    save_every: int = DEFAULT_SAVE_EVERY,
    retry_errors: bool = True,
) -> dict[str, Any]:
    """Run ``method`` on ``questions`` and return (and write to ``out``) the results document.

    Args:
        questions: Benchmark questions (:func:`kg_agent.eval.load_dataset`); ids must be unique.
        method: ``"rog" | "tog" | "tog-i" | "tog2" | "ceiling"`` (the name recorded in the results).
        graph_factory: ``kg -> graph`` to evaluate (e.g. ``lambda kg: create_tog_graph(kg, width=2)``); default:
            :func:`kg_agent.graphs.create_graph` for ``method`` with ``options``.
        kg: The KG every question is asked over; its graph is compiled once.
        kg_for_question: Builds a KG for one question instead (e.g. :func:`kg_for_rog_question` for RoG's
            JSONL with per-question subgraphs); the graph is then built per question, nothing cached.
            When neither is given and the questions carry ``extra["graph"]``, that is used.
        model: A chat model (or ``"openai:..."``) for LLM methods; ``None`` runs offline.
        exemplars: Training questions for RoG's exemplar planner (:class:`kg_agent.tools.rog.exemplar.Exemplar`).
        workers: Questions run in parallel in a thread pool when > 1.
        out: ``results.json`` path: resumed from when it exists, rewritten atomically every
            ``save_every`` questions and at the end.
        progress: Show a tqdm progress bar with the running strict Hits@1.
        options: The graph factory's options (``planner``, ``k``, ``width``, ``depth``, ``documents``,
            ``explain``, budgets); those the method takes are passed; all are recorded in ``config``.
        dataset: Name recorded in the results (default: from the questions' ``extra["dataset"]``).
        config: Extra settings to record (question file, sample seed, ...).
        save_every: Write ``out`` after this many newly finished questions.
        retry_errors: On resume, run again the questions that failed with an error.

    Returns:
        ``{"dataset", "method", "model", "n", "errors", "metrics": {"strict": {"hits@1", "precision",
        "recall", "f1", "exact_match"}, "rog_legacy": {"hit", "acc", "f1", "precision", "recall"},
        "tog_em": {"em"}}, "conventions", "llm": {"calls", "prompt_tokens", "completion_tokens"},
        "seconds", "seconds_per_question", "by_hop" (when hops are known), "config", "per_question"}``;
        all metrics in percent. A failed question is recorded with its ``error`` and scores 0.

    Raises:
        KeyboardInterrupt: after writing the finished questions to ``out`` (run again to resume).
        MethodUnavailable: the method's module cannot be imported.
    """
    if workers < 1:
        raise ValueError(f"workers must be >= 1, got {workers}")
    options = dict(options or {})
    if exemplars is not None and not isinstance(exemplars, list):
        exemplars = list(exemplars)  # a generator would be used up by the first KG's planner
    model_name = _model_name(model)
    if dataset is None:
        names = {str(q.extra.get("dataset")) for q in questions if q.extra.get("dataset")}
        dataset = names.pop() if len(names) == 1 else ("mixed" if names else "unknown")

    # unique ids, first one kept
    seen: set[str] = set()
    unique: list[Question] = []
    for q in questions:
        if q.id not in seen:
            seen.add(q.id)
            unique.append(q)
    if len(unique) < len(questions):
        print(f"kg-agent eval: {len(questions) - len(unique)} questions with a repeated id were skipped")
    questions = unique

    run_config: dict[str, Any] = {
        "method": method,
        "model": model_name,
        "workers": workers,
        "exemplars": None if exemplars is None else len(exemplars),
        "per_question_kg": kg is None,
        **{k: v for k, v in options.items() if _is_jsonable(v)},
        **dict(config or {}),
    }

    done: dict[str, dict[str, Any]] = {}
    previous_seconds = 0.0
    if out is not None and Path(out).exists():
        previous = load_results(out)
        if previous.get("method") != method or previous.get("model") != model_name:
            raise ValueError(
                f"{out} holds results of method {previous.get('method')!r} with model {previous.get('model')!r}, "
                f"not {method!r} with {model_name!r}: pass another output file or delete it"
            )
        wanted = {q.id for q in questions}
        for record in previous.get("per_question") or []:
            if record.get("id") in wanted and not (retry_errors and record.get("error")):
                done[record["id"]] = record
        previous_seconds = float(previous.get("seconds") or 0.0)
        if progress:
            print(f"kg-agent eval: resuming {out}: {len(done)} of {len(questions)} questions already done")

    todo = [q for q in questions if q.id not in done]

    # how a question gets its runner
    factory = _method_factory(method, graph_factory, model=model, exemplars=exemplars, options=options)
    if kg is not None:
        shared_runner = factory(kg) if todo else None

        def get_runner(q: Question) -> Runner:
            return shared_runner
    else:
        builder = kg_for_question or kg_for_rog_question

        def get_runner(q: Question) -> Runner:
            return factory(builder(q))

    start = time.perf_counter()
    lock = threading.Lock()
    finished_since_save = 0

    def snapshot() -> dict[str, Any]:
        records = [done[q.id] for q in questions if q.id in done]
        return summarize(records, dataset=dataset, method=method, model=model_name,
                         seconds=previous_seconds + time.perf_counter() - start, config=run_config)

    def save() -> None:
        if out is not None:
            write_json_atomic(out, snapshot())

    bar = None
    if progress and todo:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(questions), initial=len(done), desc=f"{method} {dataset}", unit="q", dynamic_ncols=True)

    hits = [sum(r["scores"]["strict"]["hits_at_1"] for r in done.values())]

    def finish(record: dict[str, Any]) -> None:
        nonlocal finished_since_save
        with lock:
            done[record["id"]] = record
            hits[0] += record["scores"]["strict"]["hits_at_1"]
            finished_since_save += 1
            if bar is not None:
                bar.update(1)
                bar.set_postfix_str(f"hits@1 {100 * hits[0] / len(done):.1f}%", refresh=False)
            if finished_since_save >= save_every:
                save()
                finished_since_save = 0

    try:
        if workers == 1:
            for q in todo:
                finish(_run_question(q, get_runner))
        else:
            pending: set[Future] = set()
            queue = iter(todo)
            with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="kg-agent-eval") as pool:
                try:
                    exhausted = False
                    while True:
                        while not exhausted and len(pending) < 2 * workers:
                            q = next(queue, None)
                            if q is None:
                                exhausted = True
                                break
                            pending.add(pool.submit(_run_question, q, get_runner))
                        if not pending:
                            break
                        finished, pending = wait(pending, timeout=0.5, return_when=FIRST_COMPLETED)
                        for future in finished:
                            finish(future.result())
                except BaseException:
                    for future in pending:
                        future.cancel()
                    pool.shutdown(wait=False, cancel_futures=True)
                    raise
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
            bar = None
        save()
        if out is not None:
            print(f"\nkg-agent eval: interrupted; {len(done)} of {len(questions)} questions written to {out} "
                  f"(run the same command again to resume)")
        raise
    finally:
        if bar is not None:
            bar.close()

    result = snapshot()
    if out is not None:
        write_json_atomic(out, result)
    return result


def _is_jsonable(value: Any) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False
