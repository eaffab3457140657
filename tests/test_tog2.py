"""Think-on-Graph 2.0: combined relation prune, document-based entity ranking, clue queries, stopping, fallbacks."""

from __future__ import annotations

import json
import math
import re
import uuid

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.messages import HumanMessage

from kg_agent.docs.index import Document, DocumentIndex
from kg_agent.graphs.tog2 import create_tog2_graph
from kg_agent.kg import entity_iri, kg_from_triples, open_kg, sample_documents_path
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.steps import decided
from kg_agent.tools.prompts import prompt_node
from kg_agent.tools.tog2.examine import ExtractiveExaminer, comparison_options, find_dates
from kg_agent.tools.tog2.prune_entities import ChunkScorer, prune_entities_node, rank_entities_by_chunks
from kg_agent.tools.tog2.topic_prune import SimilarityTopicPruner

KEYWORDS = ("alpha", "beta", "gamma")


class KeywordEmbeddings(Embeddings):
    """Deterministic: one axis per keyword, the count of that word in the text (so cosines are hand-computable)."""

    def _vector(self, text: str) -> list[float]:
        words = re.findall(r"[a-z]+", text.lower())
        return [float(words.count(k)) for k in KEYWORDS] + [0.0]

    def embed_documents(self, texts):
        return [self._vector(t) for t in texts]

    def embed_query(self, text):
        return self._vector(text)


TRIPLES = [
    ("Start One", "r_a", "Hub"), ("Start One", "r_b", "Other One"), ("Start One", "r_c", "Other Two"),
    ("Start Two", "s_a", "Hub Two"), ("Start Two", "s_b", "Other Three"), ("Start Two", "s_c", "Other Four"),
    ("Hub", "r_x", "Cand A"), ("Hub", "r_x", "Cand B"), ("Hub", "r_x", "Cand C"), ("Hub", "r_y", "Other Five"),
    ("Hub", "r_z", "Other Six"), ("Hub Two", "s_x", "Other Seven"),
]
DOCS = [("Hub", "alpha beta gamma"), ("Cand A", "alpha"), ("Cand A", "gamma"), ("Cand B", "alpha beta"),
        ("Cand C", "beta gamma gamma")]


def E(name: str) -> str:
    return str(entity_iri(name))


@pytest.fixture(scope="module")
def tiny():
    kg = kg_from_triples(TRIPLES, name="tiny")
    index = DocumentIndex.in_memory(collection=f"tog2_{uuid.uuid4().hex[:8]}", embeddings=KeywordEmbeddings())
    index.ingest([Document(title=name, text=text, entity=E(name)) for name, text in DOCS])
    return kg, index


# ---------------------------------------------------------------------------------------------- ranking
def test_rank_entities_by_chunks_hand_computed():
    scored = [[({"id": "a1"}, 0.9), ({"id": "a2"}, 0.5)], [({"id": "b1"}, 0.8)], [({"id": "c1"}, 0.7), ({"id": "c2"}, 0.1)], []]
    scores, top = rank_entities_by_chunks(scored, top_k=3, alpha=0.8)
    assert [r.chunk["id"] for r in top] == ["a1", "b1", "c1"] and [r.rank for r in top] == [1, 2, 3]
    assert scores[0] == pytest.approx(0.9 * math.exp(-0.8))
    assert scores[1] == pytest.approx(0.8 * math.exp(-1.6))
    assert scores[2] == pytest.approx(0.7 * math.exp(-2.4))  # c2 is outside the top-3: no weight
    assert scores[3] == 0.0  # an entity without documents


def _depth1_state(clue: str) -> dict:
    hub = {"id": E("Hub"), "label": "Hub"}
    start = {"id": E("Start One"), "label": "Start One"}
    triple = {"head": start, "relation": "r_a", "tail": hub}
    item = {"entity": hub, "start": start, "steps": [triple], "clue": clue, "score": 0.0, "relation_score": 1.0, "depth": 1}
    return {"question": "alpha question?", "frontier": [item], "depth": 1, "chains": [item], "documents": [],
            "topic_entities": [start], "warnings": [],
            "relations": [{"item": 0, "entity": hub, "relation": "r_x", "score": 0.6},
                          {"item": 0, "entity": hub, "relation": "r_y", "score": 0.4}]}


def test_entity_prune_exponential_weights_and_clue(tiny):
    kg, index = tiny
    scorer = ChunkScorer(index)
    # query [q, clue, triple] = "alpha question? beta (Hub, r_x, Cand .)" -> unit (1, 1, 0)
    out = prune_entities_node(_depth1_state("beta"), kg=kg, scorer=scorer, width=2, top_k=3, alpha=0.8)
    by_label = {c["entity"]["label"]: c for c in out["candidates"]}
    s = 1 / math.sqrt(2)
    assert by_label["Cand B"]["score"] == pytest.approx(1.0 * math.exp(-0.8), abs=1e-5)  # "alpha beta": cos 1, rank 1
    assert by_label["Cand A"]["score"] == pytest.approx(s * math.exp(-1.6), abs=1e-5)  # "alpha": cos .707, rank 2
    assert by_label["Cand C"]["score"] == pytest.approx((1 / math.sqrt(10)) * math.exp(-2.4), abs=1e-5)
    assert by_label["Other Five"]["score"] == 0.0 and by_label["Other Five"]["documents"] == 0  # reachable, no documents
    assert [i["entity"]["label"] for i in out["frontier"]] == ["Cand B", "Cand A"]
    assert out["frontier"][0]["steps"][-1]["relation"] == "r_x" and len(out["frontier"][0]["steps"]) == 2

    # a supplementary clue "gamma" changes the query to unit (1, 0, 1): Cand A's two chunks now lead
    out = prune_entities_node(_depth1_state("gamma"), kg=kg, scorer=scorer, width=2, top_k=3, alpha=0.8)
    by_label = {c["entity"]["label"]: c for c in out["candidates"]}
    assert by_label["Cand A"]["score"] == pytest.approx(s * (math.exp(-0.8) + math.exp(-1.6)), abs=1e-5)
    assert by_label["Cand C"]["score"] == pytest.approx((2 / math.sqrt(10)) * math.exp(-2.4), abs=1e-5)
    assert by_label["Cand B"]["score"] == 0.0  # its chunk (cos .5) fell out of the top-3
    assert [i["entity"]["label"] for i in out["frontier"]] == ["Cand A", "Cand C"]


# ---------------------------------------------------------------------------------------------- LLM graph
def responder(state: dict):
    """Answers like a chat model would: JSON with some prose, and badly formatted when told to."""

    def reply(prompt: str) -> str:
        if prompt_node(prompt) == "topic_prune":
            return 'Both are specific.\n```json\n["Start One", "Start Two"]\n```'
        if prompt_node(prompt) == "clue_query":
            return '{"Start One": "beta", "Start Two": "beta"}'
        if prompt_node(prompt) == "relation_prune":
            state["rp"] += 1
            if state.get("garbage_rp"):
                return "I am not sure which relations matter here."
            if "Topic entity: Hub\n" in prompt:
                return 'Sure! {"Hub": {"r_x": 0.8, "r_y": 0.2}, "Other One": ["r_b"]}'
            return '**Start One**: r_a (Score: 0.7); r_b (Score: 0.3)\n**Start Two**: s_a; s_b'
        if prompt_node(prompt) == "examine":
            state["ex"] += 1
            if state.get("garbage_ex"):
                return "Hmm."
            if "Cand A" in prompt:
                return 'The references say it. {"sufficient": true, "answer": ["Cand A"]}'
            return '{"sufficient": false, "clue": "gamma"}'
        raise AssertionError(f"unexpected prompt: {prompt[:80]}")

    return reply


def test_one_relation_prune_call_per_iteration_and_clue_used_next_round(tiny):
    kg, index = tiny
    counters = {"rp": 0, "ex": 0}
    model = ScriptedChatModel(responder=responder(counters))
    app = create_tog2_graph(kg, model=model, documents=index, width=2, depth=3, top_k_chunks=3, top_l=3).compile()
    updates = list(app.stream({"question": "alpha question?", "topic_entities": ["Start One", "Start Two"]}, stream_mode="updates"))
    result = app.invoke({"question": "alpha question?", "topic_entities": ["Start One", "Start Two"]})
    assert result["stop_reason"] == "answered" and result["depth"] == 2
    # one relation-prune call per iteration, whatever the number of topic entities
    assert result["usage"]["by_node"]["relation_prune"]["calls"] == 2
    rp_prompts = [p for p in model.prompts if "For EACH topic entity" in p]
    assert "Topic entity: Start One" in rp_prompts[0] and "Topic entity: Start Two" in rp_prompts[0]
    # the supplementary clue of round 1 is what round 2 scored chunks with
    assert {"depth": 1, "entity": "Hub", "clue": "gamma", "source": "llm"} in result["clue_queries"]
    prunes = [u["entity_prune"] for u in updates if "entity_prune" in u]
    second = {c["entity"]["label"]: c["score"] for c in prunes[1]["candidates"]}
    assert second["Cand A"] == pytest.approx((1 / math.sqrt(2)) * (math.exp(-0.8) + math.exp(-1.6)), abs=1e-5)
    assert second["Cand B"] == 0.0
    answer = result["answers"][0]
    assert answer["answer"] == "Cand A" and answer["grounded"]
    assert answer["paths"][0]["text"] == "Start One -> r_a -> Hub -> r_x -> Cand A"
    assert not [w for w in result["warnings"] if "fell back" in w]


def test_malformed_replies_fall_back_offline_with_reasons(tiny):
    kg, index = tiny
    counters = {"rp": 0, "ex": 0, "garbage_rp": True, "garbage_ex": True}
    model = ScriptedChatModel(responder=responder(counters))
    app = create_tog2_graph(kg, model=model, documents=index, width=2, depth=2, top_k_chunks=3, top_l=3,
                            embeddings=KeywordEmbeddings()).compile()
    result = app.invoke({"question": "alpha question?", "topic_entities": ["Start One", "Start Two"]})
    warnings = "\n".join(result["warnings"])
    assert "relation_prune: fell back to the similarity relation pruner" in warnings
    assert "examine: fell back to the extractive examiner" in warnings
    assert "attempt 2 gave no usable reply" in warnings
    assert result["usage"]["by_node"]["relation_prune"]["calls"] == 2 * result["depth"]  # one retry per iteration
    assert result["stop_reason"] in {"answered", "max_depth"}


def test_llm_answer_found_only_in_a_document_cites_the_chunk(tiny):
    kg, index = tiny

    def reply(prompt: str) -> str:
        if prompt_node(prompt) == "relation_prune":
            return '{"Start One": ["r_a", "r_b"]}'
        if prompt_node(prompt) == "examine":
            return "{Yes}. The answer is {Gamma}."
        return "{}"

    app = create_tog2_graph(kg, model=ScriptedChatModel(responder=reply), documents=index, width=2, depth=1,
                            top_k_chunks=3, top_l=3).compile()
    result = app.invoke({"question": "alpha question?", "topic_entities": ["Start One"]})
    answer = result["answers"][0]
    assert answer["answer"] == "Gamma" and answer["grounded"] and not answer["paths"]
    assert answer["chunks"][0]["entity"] == E("Hub") and "gamma" in answer["chunks"][0]["text"]


# ---------------------------------------------------------------------------------------------- offline
def test_offline_extracts_missing_last_hop_from_a_document():
    kg = kg_from_triples([
        ("Charles James Mathew", "father", "Sir James Charles Mathew"),
        ("Sir James Charles Mathew", "place of birth", "Dublin"),
        ("Someone Else", "place of burial", "Cork"),
        ("Another Person", "place of burial", "Glasnevin Cemetery"),
    ], name="mini-2wiki")
    index = DocumentIndex.in_memory(collection=f"tog2_{uuid.uuid4().hex[:8]}")
    index.ingest([Document("Sir James Charles Mathew", "Sir James Charles Mathew was an Irish judge born in Dublin. "
                           "He died in London in 1908 and was buried in Cork.", E("Sir James Charles Mathew"))])
    app = create_tog2_graph(kg, documents=index).compile()
    result = app.invoke({"question": "Where was the place of burial of Charles Mathew's father?",
                         "topic_entities": ["Charles James Mathew"]})
    answer = result["answers"][0]
    assert answer["answer"] == "Cork" and answer["grounded"] and answer["chunks"][0]["title"] == "Sir James Charles Mathew"
    assert result["stop_reason"] == "answered"


def test_comparison_rule_and_dates():
    assert comparison_options("Which film came out earlier, This Night Is Still Ours or Huma Gun Anmogaldi?") == (
        ["This Night Is Still Ours", "Huma Gun Anmogaldi"], "min")
    assert comparison_options("Which film has the director who died later, A or B?")[1] == "max"
    assert comparison_options("Who directed Titanic?") is None
    assert [d[2] for d in find_dates("(1904 – March 8, 1975) and 24 October 1872")] == [(1904, 0, 0), (1975, 3, 8), (1872, 10, 24)]
    kg = kg_from_triples([("Brudebuketten", "publication date", "1953"), ("Clownery", "publication date", "1989")])
    examiner = ExtractiveExaminer(kg)
    chains = [{"entity": {"id": E(y), "label": y}, "start": {"id": E(f), "label": f},
               "steps": [{"head": {"id": E(f), "label": f}, "relation": "publication date", "tail": {"id": E(y), "label": y}}]}
              for f, y in (("Brudebuketten", "1953"), ("Clownery", "1989"))]
    outcome = examiner.examine("Which film was released more recently, Brudebuketten or Clownery?", chains, chains, [], last_round=False)
    assert outcome.sufficient and outcome.answers[0]["answer"] == "Clownery"


@pytest.fixture(scope="module")
def sample_app():
    kg = open_kg()
    return kg, create_tog2_graph(kg).compile()  # documents=None: the bundled plot summaries


def test_offline_end_to_end_on_sample_kg_and_plots(sample_app):
    kg, app = sample_app
    result = app.invoke({"question": "who directed [Catch Me If You Can]"})
    assert [a["answer"] for a in result["answers"]] == ["Steven Spielberg"]
    assert result["answers"][0]["paths"][0]["text"] == "Catch Me If You Can -> directed_by -> Steven Spielberg"
    assert result["stop_reason"] == "answered" and result["usage"] == {} or not result["usage"].get("calls")
    assert result["documents"] and result["documents"][0]["entity"] == E("Catch Me If You Can")  # the topic entity's plot
    json.dumps(result["answers"]), json.dumps(result["documents"])  # JSON-only state

    films = {kg.label(f) for f in kg.neighbors(E("Tom Hanks"), "^starred_actors")}
    result = app.invoke({"messages": [HumanMessage("what films did [Tom Hanks] star in")]})
    assert result["answers"] and {a["answer"] for a in result["answers"]} <= films
    assert result["messages"][-1].type == "ai" and result["answers"][0]["answer"] in result["messages"][-1].content
    with open(sample_documents_path(), encoding="utf-8") as stream:
        plot_entities = {json.loads(line)["entity"] for line in stream}
    assert {a["answer"] for a in result["answers"]} <= plot_entities  # films ranked by their plots


def test_offline_topic_prune_drops_general_entities(sample_app):
    kg, _ = sample_app
    pruner = SimilarityTopicPruner(kg)
    tom, english = kg.find_entities("Tom Hanks")[0], kg.find_entities("English")[0]
    outcome = pruner.prune("which English films did Tom Hanks star in", [tom, english])
    assert outcome.kept == [tom] and outcome.dropped == [english]


def test_kg_only_without_documents_warns():
    kg = kg_from_triples([("A film", "director", "Some Person")], name="tiny-no-docs")
    result = create_tog2_graph(kg).compile().invoke({"question": "Who is the director of A film?", "topic_entities": ["A film"]})
    assert any("no documents given" in w for w in result["warnings"])
    assert [a["answer"] for a in result["answers"]] == ["Some Person"]


def test_ingest_cli_links_and_reuses_the_index(tmp_path, capsys):
    from kg_agent.cli import main

    docs = tmp_path / "docs.jsonl"
    docs.write_text("\n".join(json.dumps(d) for d in [
        {"title": "Catch Me If You Can", "text": "a con man is chased by the fbi"},
        {"entity": "1941", "title": "1941", "text": "californians prepare for an invasion"},
        {"title": "Not A Film In The KG", "text": "nothing to link"},
    ]) + "\n", encoding="utf-8")
    args = ["ingest", "--docs", str(docs), "--index", str(tmp_path / "index")]
    assert main(args) == 0
    first = capsys.readouterr().out
    assert "3 documents read" in first and "2 linked" in first and "1 unlinked" in first and "3 ingested" in first
    assert main(args) == 0
    assert "3 already in the index, 0 ingested" in capsys.readouterr().out
    assert main(["ask", "who directed [Catch Me If You Can]", "--method", "tog2", "--docs", str(tmp_path / "index"),
                 "--model", "none"]) == 0
    assert "Steven Spielberg" in capsys.readouterr().out


def test_ingest_cli_names_the_line_of_a_documents_file_that_is_not_utf8(tmp_path, capsys):
    """A documents file saved as Latin-1 gets what a KG file gets: the line, the byte and how to convert it."""
    from kg_agent.cli import main

    docs = tmp_path / "docs.jsonl"
    docs.write_bytes(b'{"title": "1941", "text": "an invasion"}\n{"title": "Caf\xe9", "text": "a film"}\n')
    assert main(["ingest", "--docs", str(docs), "--index", str(tmp_path / "index")]) == 2
    err = capsys.readouterr().err
    assert f"{docs}:2: byte 0xE9 at column 15" in err and "not UTF-8 text" in err and "iconv -f latin1 -t utf-8" in err


def test_a_malformed_topic_prune_reply_naming_a_made_up_entity_is_rejected_with_a_warning():
    """The reply SmolLM2 gave (issue 14): placeholder keys, unquoted names, a name that is no linked entity.
    Substring matching read it as "keep Tom Hanks"; it is rejected, the names are reported, the retry says why
    and the offline pruner decides."""
    from kg_agent.kg import open_kg
    from kg_agent.kg.types import Entity
    from kg_agent.llm.scripted import ScriptedChatModel
    from kg_agent.tools.tog2.topic_prune import LLMTopicPruner

    kg = open_kg()
    entities = [e for name in ("Tom Hanks", "Forrest Gump") for e in kg.find_entities(name)[:1]]
    reply = '{"Name 1":[Tom Hanks, Tom Hanks], "Name 2":[Hagrid Rockleweak]}'
    model = ScriptedChatModel([reply, reply])
    outcome = decided(LLMTopicPruner(kg, model).prune, "which films did [Tom Hanks] star in with [Forrest Gump]", entities)
    warnings = "\n".join(outcome.warnings)
    assert "'Hagrid Rockleweak'" in warnings and "'Name 1'" in warnings and "rejected the reply" in warnings
    assert "topic_prune: fell back to the similarity topic pruner" in warnings
    assert outcome.source == "similarity" and model.calls == 2
    assert "Hagrid Rockleweak" in model.prompts[1] and "Your previous reply could not be used" in model.prompts[1]
    assert all(isinstance(e, Entity) for e in outcome.kept)
