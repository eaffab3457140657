"""Grounding (issue 14): path ends only, names read out of sentences, the prefer/strict/off policy on RoG, ToG
and ToG-2, rejected replies never in ``output``, and the eval scoring the result's answers."""

from __future__ import annotations

import uuid

import pytest
from langchain_core.embeddings import Embeddings

from kg_agent.cli import build_parser, graph_options
from kg_agent.docs.index import Document, DocumentIndex
from kg_agent.eval.datasets import Question
from kg_agent.eval.runner import evaluate
from kg_agent.graphs import create_rog_graph, create_tog2_graph, create_tog_graph
from kg_agent.graphs.registry import create_graph
from kg_agent.kg import kg_from_triples
from kg_agent.kg.terms import entity_iri
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.steps import decided
from kg_agent.tools.prompts import prompt_node
from kg_agent.tools.rog.answer import LLMAnswerer
from kg_agent.tools.shared.grounding import Evidence, asked_for, ground_names
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.tog.answer import LLMToGAnswerer

FG_Q = "who directed [Forrest Gump]"
HANKS_Q = "who directed the films that [Tom Hanks] starred in"
HANKS_DIRECTORS = {"Ron Howard", "Steven Spielberg", "Nora Ephron", "Penny Marshall", "Robert Zemeckis"}


def names(result: dict) -> list[str]:
    return [a["answer"] for a in result["answers"]]


def rog_model(plan: str, answer: str) -> ScriptedChatModel:
    """A RoG model that plans ``plan`` and answers ``answer`` whatever the paths say."""
    return ScriptedChatModel(responder=lambda p: plan if prompt_node(p) == "plan" else answer)


def rog(kg, plan: str, answer: str, question: str, **options) -> dict:
    return create_rog_graph(kg, model=rog_model(plan, answer), **options).compile().invoke({"question": question})


# ------------------------------------------------------------------------------------------------ the rule
def test_topic_entity_on_the_path_is_not_grounded(kg):
    reply = "Forrest Gump. The answer is: Forrest Gump"
    result = rog(kg, "<PATH> directed_by </PATH>", reply, FG_Q, grounding="off")
    assert result["paths"][0]["text"] == "Forrest Gump -> directed_by -> Robert Zemeckis"
    assert names(result) == ["Forrest Gump"] and result["answers"][0]["grounded"] is False
    assert result["answers"][0]["paths"] == []

    two_plans = "<PATH> directed_by </PATH>\n<PATH> directed_by <SEP> ^directed_by </PATH>"  # paths do not walk back to it
    result = rog(kg, two_plans, reply, FG_Q, grounding="off")
    assert names(result) == ["Forrest Gump"] and result["answers"][0]["grounded"] is False

    result = rog(kg, "<PATH> directed_by </PATH>", reply, FG_Q)  # default: prefer
    assert names(result) == ["Robert Zemeckis"] and result["answers"][0]["grounded"] is True
    assert result["output"] == reply
    assert any("'Forrest Gump'" in w and "grounded vote answers" in w for w in result["warnings"])


def test_a_path_that_returns_to_the_topic_entity_grounds_it():
    chain = {"id": "e:a", "label": "A"}, {"id": "e:b", "label": "B"}
    a, b = chain
    path = {"start": a, "steps": [{"relation": "r", "tail": b}, {"relation": "^r", "tail": a}], "text": "A -> r -> B -> ^r -> A"}
    evidence = Evidence(topic_entities=[a])
    evidence.add_end(a, path)
    record = ground_names(["a"], evidence)[0]
    assert record["grounded"] and record["entity_id"] == "e:a" and record["paths"] == [path]
    assert ground_names(["B"], evidence)[0]["grounded"] is False  # passed through, not an end


def test_sentence_reply_gives_the_path_end_names_it_mentions(kg):
    reply = "Tom Hanks starred in films directed by Ron Howard and Robert Zemeckis."
    result = rog(kg, "<PATH> ^starred_actors <SEP> directed_by </PATH>", reply, HANKS_Q)
    assert names(result) == ["Ron Howard", "Robert Zemeckis"]  # in the reply's order; the topic entity left out
    assert all(a["grounded"] and a["paths"] and a["entity_id"] for a in result["answers"])
    assert result["answers"][1]["paths"][0]["text"].endswith("-> directed_by -> Robert Zemeckis")


def test_longest_name_first_on_word_boundaries():
    evidence = Evidence()
    for label in ("Back to the Future", "Back to the Future Part II", "Future", "Art"):
        evidence.add_end({"id": f"e:{label}", "label": label}, {"text": label})
    assert evidence.names_in("He made Back to the Future Part II, then a Partial film.") == ["back to the future part ii"]
    assert evidence.names_in("BACK TO THE FUTURE!") == ["back to the future"]


def test_chunk_span_rule():
    chunk = {"entity_label": "Forrest Gump", "title": "Forrest Gump",
             "text": "Forrest Gump is a 1994 film directed by Robert Zemeckis and starring Tom Hanks."}
    evidence = Evidence(topic_entities=[{"id": "e:hanks", "label": "Tom Hanks"}], chunks=[chunk])
    assert evidence.chunk_stating("Robert Zemeckis") is chunk
    assert evidence.chunk_stating("Forrest Gump") is None  # the chunk's own subject
    assert evidence.chunk_stating("Tom Hanks") is None  # a topic entity
    assert evidence.chunk_stating("Zemeck") is None  # not whole words
    assert evidence.chunk_stating("Forrest Gump is a 1994 film directed by Robert Zemeckis") is None  # a sentence
    records = ground_names(["Robert Zemeckis", "Forrest Gump is a 1994 film directed by Robert Zemeckis"], evidence)
    assert [r["grounded"] for r in records] == [True, False]
    assert records[0]["chunks"] == [chunk] and records[0]["entity_id"] is None


def test_a_grounded_answer_reads_as_what_grounds_it():
    """Found by test_hostile_input's garbage replies: ToG-2 took the model's "<TRUE" as stated by a chunk saying "his
    true love" (the same once normalised) and showed it grounded. A chunk states an answer only as it is written
    (case and spacing aside); a path end's answer is shown as the KG names it."""
    chunk = {"title": "Forrest Gump", "text": "Forrest Gump, while not intelligent, ... but his true love Jenny Curran eludes him."}
    evidence = Evidence(chunks=[chunk])
    evidence.add_end({"id": "e:zemeckis", "label": "Robert Zemeckis"}, {"text": "Forrest Gump -> directed_by -> Robert Zemeckis"})
    assert evidence.chunk_stating("<TRUE") is None and evidence.chunk_stating("jenny   CURRAN") is chunk
    records = ground_names(["<TRUE", "<robert zemeckis"], evidence)
    assert [(r["answer"], r["grounded"]) for r in records] == [("<TRUE", False), ("Robert Zemeckis", True)]


# ------------------------------------------------------------------------------------------------ RoG policies
HALLUCINATION = "['Christopher Nolan']"


def test_rog_prefer_replaces_a_hallucination_with_the_path_votes(kg):
    reply = "Tom Hanks directed the films The Shawshank Redemption and The Green Mile."
    result = rog(kg, "<PATH> ^starred_actors <SEP> directed_by </PATH>", reply, HANKS_Q)
    assert HANKS_DIRECTORS <= set(names(result)) and all(a["grounded"] for a in result["answers"])
    assert result["output"] == reply and result["stop_reason"] == "answered"
    assert any("grounded vote answers" in w and "Shawshank" in w for w in result["warnings"])


def test_rog_prefer_keeps_grounded_model_answers_first(kg):
    result = rog(kg, "<PATH> ^starred_actors <SEP> directed_by </PATH>", "['Christopher Nolan', 'Ron Howard']", HANKS_Q)
    assert names(result) == ["Ron Howard", "Christopher Nolan"]
    assert [a["grounded"] for a in result["answers"]] == [True, False]


def test_rog_strict_and_off(kg):
    plan = "<PATH> ^starred_actors <SEP> directed_by </PATH>"
    strict = rog(kg, plan, HALLUCINATION, HANKS_Q, grounding="strict")
    assert HANKS_DIRECTORS <= set(names(strict)) and all(a["grounded"] for a in strict["answers"])
    assert "Christopher Nolan" not in strict["output"]
    off = rog(kg, plan, HALLUCINATION, HANKS_Q, grounding="off")
    assert names(off) == ["Christopher Nolan"] and off["answers"][0]["grounded"] is False
    assert any("not supported by any retrieved path" in w and "Christopher Nolan" in w for w in off["warnings"])


def test_rog_answer_step_with_no_grounded_answer_at_all():
    """No path (an unlinked question, say): the model's answer is kept flagged, or withheld under "strict"."""
    model = ScriptedChatModel([HALLUCINATION] * 2)
    prefer = decided(LLMAnswerer(model).answer, "who directed Qwzx", [], [])
    assert [(a["answer"], a["grounded"]) for a in prefer.answers] == [("Christopher Nolan", False)]
    assert any("no grounded answer was found" in w for w in prefer.warnings) and prefer.output == HALLUCINATION
    strict = decided(LLMAnswerer(model, grounding="strict").answer, "who directed Qwzx", [], [])
    assert strict.answers == [] and strict.stop_reason == "no_grounded_answer" and strict.output == ""
    assert any("withheld (grounding='strict')" in w for w in strict.warnings)


def test_unknown_policy_is_a_clear_error(kg):
    for factory in (create_rog_graph, create_tog_graph):
        with pytest.raises(ValueError, match="unknown grounding policy 'maybe'"):
            factory(kg, grounding="maybe")
    with pytest.raises(ValueError, match="prefer, strict, off"):
        create_graph("tog2", kg, grounding="maybe")


def test_cli_flag_reaches_the_factories():
    args = build_parser().parse_args(["ask", "who directed [Forrest Gump]", "--grounding", "strict"])
    assert graph_options(args)["grounding"] == "strict"
    assert "grounding" not in graph_options(build_parser().parse_args(["ask", "q"]))  # the factory's default
    with pytest.raises(SystemExit):
        build_parser().parse_args(["ask", "q", "--grounding", "sometimes"])


# ------------------------------------------------------------------------------------------------ ToG
def tog_model(verify_reply: str, answer_reply: str = "{unknown}", relation: str = "directed_by") -> ScriptedChatModel:
    """Follows ``relation`` from the topic entity, then says ``verify_reply``."""

    def respond(prompt: str) -> str:
        node = prompt_node(prompt)
        if node == "prune_relations":
            return f"1. {{{relation} (Score: 1.0)}}: the one."
        if node == "prune_entities":
            return "1.0"
        if node == "verify":
            return verify_reply
        return answer_reply

    return ScriptedChatModel(responder=respond)


def tog(kg, verify_reply: str, *, answer_reply: str = "{unknown}", question: str = FG_Q, **options) -> dict:
    app = create_tog_graph(kg, model=tog_model(verify_reply, answer_reply), **options).compile()
    return app.invoke({"question": question})


@pytest.mark.parametrize("said", ["Forrest Gump", "Christopher Nolan"])
def test_tog_verified_answer_no_chain_ends_in(kg, said):
    reply = f"{{Yes}}. Based on the given knowledge triplets, the answer is {{{said}}}."
    for policy in ("prefer", "strict"):
        result = tog(kg, reply, grounding=policy)
        assert result["stop_reason"] == "verified"
        assert names(result) == ["Robert Zemeckis"] and result["answers"][0]["grounded"] is True
        assert any(f"'{said}'" in w and "grounded offline tog answers" in w for w in result["warnings"])
    assert tog(kg, reply)["output"] == reply  # prefer: the accepted reply stays
    off = tog(kg, reply, grounding="off")
    assert names(off) == [said] and off["answers"][0]["grounded"] is False


def test_tog_strict_withholds_answers_from_the_models_own_knowledge(kg):
    kwargs = {"verify_reply": "{No}. Not enough.", "answer_reply": "From my knowledge, the answer is {Steven Spielberg}."}
    prefer = tog(kg, **kwargs)
    # prefer: the model never said Yes and its own answer ends no explored chain, so ToG without a model answers
    assert prefer["stop_reason"] == "max_depth" and names(prefer) == ["Robert Zemeckis"]
    assert prefer["answers"][0]["grounded"] is True
    assert any("'Steven Spielberg'" in w and "the answers are the grounded answers of offline tog" in w
               for w in prefer["warnings"])
    assert "Steven Spielberg" in prefer["output"]  # the model's reply is kept
    # "off" keeps the model's own answer, flagged
    off = tog(kg, **kwargs, grounding="off")
    assert names(off) == ["Steven Spielberg"] and off["answers"][0]["grounded"] is False
    assert "without verification" in off["answers"][0]["note"]
    strict = tog(kg, **kwargs, grounding="strict")  # the model's own answer is never returned: ToG without a model's
    assert names(strict) == ["Robert Zemeckis"] and strict["answers"][0]["grounded"] is True
    assert "Steven Spielberg" not in strict["output"]
    assert any("'Steven Spielberg'" in w and "the grounded offline tog answers (grounding='strict'" in w
               for w in strict["warnings"])
    # without a grounded answer anywhere, strict withholds it
    nothing = tog(kg, **kwargs, grounding="strict", question="who directed [Nowhere Film]")
    assert nothing["answers"] == [] and nothing["stop_reason"] in {"no_grounded_answer", "no_topic_entity"}


def test_tog_answers_as_offline_tog_when_the_models_beam_never_reaches_the_asked_chain(kg):
    """A small model prunes to relations the question does not ask for and verifies at once with an answer that ends
    no chain it asks for: the answers are offline ToG's, from its own exploration (the two-hop chain the model's beam
    never walked), not the ends of the model's shorter chains (the director himself)."""
    question = "the director of [Forrest Gump] also directed which movies"

    def respond(prompt: str) -> str:
        node = prompt_node(prompt)
        if node == "prune_relations":
            return "1. {release_year (Score: 1.0)}: the year." if "release_year" in prompt else "1. {has_tags (Score: 1.0)}: x."
        if node == "prune_entities":
            return "1.0"
        return "{Yes}. The answer is {1994}." if node == "verify" else "{unknown}"

    offline = create_tog_graph(kg).compile().invoke({"question": question})
    films = {kg.label(f) for f in kg.neighbors(kg.find_entities("Robert Zemeckis")[0].id, "^directed_by")}
    assert names(offline) and set(names(offline)) <= films
    for policy in ("prefer", "strict"):
        model = ScriptedChatModel(responder=respond)
        result = create_tog_graph(kg, model=model, grounding=policy).compile().invoke({"question": question})
        assert not any(len(c["steps"]) == 2 for c in result["chains"])  # the model's beam never walked two hops
        assert names(result) == names(offline) and all(a["grounded"] for a in result["answers"])
        assert any("'1994'" in w and "the grounded offline tog answers" in w for w in result["warnings"])
        assert result["output"] == ("{Yes}. The answer is {1994}." if policy == "prefer" else "\n".join(names(offline)))
    off = create_tog_graph(kg, model=ScriptedChatModel(responder=respond), grounding="off").compile().invoke(
        {"question": question})
    assert names(off) == ["1994"]

    def stops_at_the_director(prompt: str) -> str:  # walks directed_by and says Yes with the director, an end of
        node = prompt_node(prompt)                   # the explored chain that offline ToG's two-hop chain extends
        if node == "prune_relations":
            return "1. {directed_by (Score: 1.0)}: the director." if "directed_by" in prompt else respond(prompt)
        return "{Yes}. The answer is {Robert Zemeckis}." if node == "verify" else respond(prompt)

    for policy in ("prefer", "strict"):
        junction = create_tog_graph(kg, model=ScriptedChatModel(responder=stops_at_the_director), grounding=policy).compile(
            ).invoke({"question": question})
        assert [len(c["steps"]) for c in junction["chains"]] == [1] and junction["stop_reason"] == "verified"
        assert names(junction) == names(offline) and all(a["grounded"] for a in junction["answers"])
        assert any("does not ask for the relation path(s) <PATH> directed_by </PATH>" in w for w in junction["warnings"])
    alone = create_tog_graph(kg, model=ScriptedChatModel(responder=stops_at_the_director), grounding="off").compile(
        ).invoke({"question": question})
    assert names(alone) == ["Robert Zemeckis"]  # "off": judged among the model's own chains only

    def never_verifies(prompt: str) -> str:  # explores the same way, never says Yes, answers the director it passed
        node = prompt_node(prompt)
        if node == "verify":
            return "{No}. Not enough."
        return "The answer is {Robert Zemeckis}." if node == "answer" else respond(prompt)

    unverified = create_tog_graph(kg, model=ScriptedChatModel(responder=never_verifies)).compile().invoke(
        {"question": question})
    assert unverified["stop_reason"] == "max_depth" and "Robert Zemeckis" in unverified["output"]
    assert names(unverified) == names(offline) and all(a["grounded"] for a in unverified["answers"])
    assert any("'Robert Zemeckis'" in w and "the grounded answers of offline tog" in w for w in unverified["warnings"])


def test_rejected_verifier_reply_is_never_the_output(kg):
    rejected = "Hmm, the triplets mention Robert Zemeckis and Tom Hanks; I cannot tell."
    result = tog(kg, rejected)
    assert any("verify: fell back to the score verifier" in w for w in result["warnings"])
    assert result["verification"]["source"] == "score" and result["verification"]["reply"] == ""
    assert names(result) == ["Robert Zemeckis"] and result["answers"][0]["grounded"]
    assert result["output"] == "Robert Zemeckis" and "cannot tell" not in result["output"]


# ------------------------------------------------------------------------------------------------ ToG-2
class KeywordEmbeddings(Embeddings):
    """Deterministic: one axis per keyword."""

    def _vector(self, text: str) -> list[float]:
        words = text.lower().split()
        return [float(sum(w.startswith(k) for w in words)) for k in ("alpha", "beta", "gamma")] + [0.0]

    def embed_documents(self, texts):
        return [self._vector(t) for t in texts]

    def embed_query(self, text):
        return self._vector(text)


@pytest.fixture(scope="module")
def tiny():
    kg = kg_from_triples([("Start One", "r_a", "Hub"), ("Start One", "r_b", "Other One"), ("Hub", "r_x", "Cand A")],
                         name="tiny-grounding")
    index = DocumentIndex.in_memory(collection=f"ground_{uuid.uuid4().hex[:8]}", embeddings=KeywordEmbeddings())
    index.ingest([Document(title="Hub", text="alpha beta gamma", entity=str(entity_iri("Hub"))),
                  Document(title="Cand A", text="alpha gamma", entity=str(entity_iri("Cand A")))])
    return kg, index


def tog2(tiny, answer: list[str], **options) -> dict:
    kg, index = tiny

    def reply(prompt: str) -> str:
        if prompt_node(prompt) == "relation_prune":
            return '{"Start One": ["r_a", "r_b"], "Hub": ["r_x"]}'
        if prompt_node(prompt) == "examine":
            return '{"sufficient": true, "answer": %s}' % str(answer).replace("'", '"')
        return "{}"

    app = create_tog2_graph(kg, model=ScriptedChatModel(responder=reply), documents=index, width=2, depth=2,
                            top_k_chunks=2, top_l=2, embeddings=KeywordEmbeddings(), **options).compile()
    return app.invoke({"question": "alpha question?", "topic_entities": ["Start One"]})


@pytest.mark.parametrize("said", ["Start One", "Zorro the Great"])
def test_tog2_prefer_and_strict_never_answer_an_ungrounded_name(tiny, said):
    for policy in ("prefer", "strict"):
        result = tog2(tiny, [said], grounding=policy)
        assert said not in names(result)
        assert all(a["grounded"] for a in result["answers"])
        assert any(f"'{said}'" in w for w in result["warnings"])
        assert result["answers"] or result["stop_reason"] == "no_grounded_answer"


def test_tog2_off_keeps_the_models_answer_flagged(tiny):
    result = tog2(tiny, ["Zorro the Great"], grounding="off")
    assert names(result) == ["Zorro the Great"] and result["answers"][0]["grounded"] is False
    assert result["stop_reason"] == "answered"


def test_tog2_a_path_end_the_model_names_is_grounded_by_its_path(tiny):
    result = tog2(tiny, ["Hub"])
    assert names(result) == ["Hub"] and result["answers"][0]["paths"][0]["text"] == "Start One -> r_a -> Hub"
    assert not [w for w in result["warnings"] if "not supported" in w]


# ------------------------------------------------------------------------------------------------ eval
def test_eval_scores_the_answers_not_the_reply_text(kg):
    """ToG's verifier reply ``{Yes}. ... is {1994}`` has "Yes" in its first braces; the answer is 1994."""
    model = tog_model("{Yes}. Based on the given knowledge triplets, the answer is {1994}.", relation="release_year")
    question = Question(id="q1", question="when was [Forrest Gump] released", answers=["1994"],
                        topic_entities=["Forrest Gump"])
    result = evaluate([question], method="tog", kg=kg, model=model, progress=False)
    record = result["per_question"][0]
    assert record["predicted"] == ["1994"] and record["output"].startswith("{Yes}")
    assert record["scores"]["tog_em"]["em"] == 1.0
    assert record["scores"]["rog_legacy"]["hit"] == 1.0 and record["scores"]["strict"]["hits_at_1"] == 1.0


def test_eval_does_not_score_an_ungrounded_reply_that_prefer_replaced(kg):
    question = Question(id="q2", question=HANKS_Q, answers=["Christopher Nolan"], topic_entities=["Tom Hanks"])
    model = rog_model("<PATH> ^starred_actors <SEP> directed_by </PATH>", HALLUCINATION)
    result = evaluate([question], method="rog", kg=kg, model=model, progress=False)
    record = result["per_question"][0]
    assert "Christopher Nolan" in record["output"] and "Christopher Nolan" not in record["predicted"]
    assert record["scores"]["rog_legacy"]["hit"] == 0.0 and record["scores"]["tog_em"]["em"] == 0.0


# ------------------------------------------------------------------------------- paths the question asks for
def test_asked_for_rejects_unasked_plans_and_hops_past_the_answer():
    scorer = RelationPathScorer()
    film = [{"id": "x", "label": "Working Girl"}]
    assert asked_for("which person directed [Working Girl]", film, [("directed_by",), ("has_genre",), ("has_tags",)],
                     scorer=scorer) == [True, False, False]
    cast = [("starred_actors",), ("starred_actors", "^starred_actors"), ("starred_actors", "^starred_actors", "starred_actors")]
    assert asked_for("who starred in [Forrest Gump]", film, cast, scorer=scorer) == [True, False, False]
    # a second hop the question asks for is kept
    assert asked_for("who directed the films that [Tom Hanks] starred in", film,
                     [("^starred_actors",), ("^starred_actors", "directed_by")], scorer=scorer) == [False, True]
    # a path whose extension rates higher ends at that extension's junctions: the actor is not the films asked for
    # (SmolLM2 answered the actor on MetaQA 2-hop through its own one-hop plan, docs/benchmarks.md section 9)
    shared = [("starred_actors",), ("starred_actors", "^starred_actors")]
    assert asked_for("the actor in [Healing] also appears in which films", film, shared, scorer=scorer) == [False, True]
    assert asked_for("who starred in [Healing]", film, shared, scorer=scorer) == [True, False]


def test_tog_explored_past_the_answer_is_not_grounded(kg):
    # A small model says No at depth 1, then Yes at depth 2 naming a film of the cast: that film ends an explored
    # chain, but "who starred in" does not ask for the cast's films. The chains the question asks for answer.
    verified: list[str] = []

    def respond(prompt: str) -> str:
        node = prompt_node(prompt)
        if node == "prune_relations":
            relation = "^starred_actors" if "^starred_actors" in prompt else "starred_actors"
            return f"1. {{{relation} (Score: 1.0)}}: the one."
        if node == "prune_entities":
            return "1.0"
        if node == "verify":
            verified.append(prompt)
            if len(verified) == 1:
                return "{No}. Not enough."
            film = [line for line in prompt.splitlines() if ", starred_actors, Tom Hanks" in line][-1].split(", ")[0]
            return f"{{Yes}}. The answer is {{{film}}}."
        return "{unknown}"

    result = create_tog_graph(kg, model=ScriptedChatModel(responder=respond)).compile().invoke(
        {"question": "who starred in [Forrest Gump]"})
    cast = {kg.label(a) for a in kg.neighbors(kg.find_entities("Forrest Gump")[0].id, "starred_actors")}
    assert result["stop_reason"] == "verified" and any(c["depth"] == 2 for c in result["chains"])
    assert names(result) and set(names(result)) <= cast and all(a["grounded"] for a in result["answers"])
    warnings = " ".join(result["warnings"])
    assert "does not ask for the relation path(s) <PATH> starred_actors <SEP> ^starred_actors </PATH>" in warnings
    assert "the grounded offline tog answers" in warnings


def test_asked_for_reads_answer_types_from_the_kg(fixtures_dir):
    # "what kind of film" names no relation; the KG's objects of has_genre (genres) tell it is the one asked for.
    from kg_agent.kg import open_kg

    metaqa = open_kg(fixtures_dir / "kg" / "metaqa_slice.txt")
    film = metaqa.find_entities("Combat Shock")[0]
    topic = [{"id": film.id, "label": film.label}]
    paths = [("has_genre",), ("directed_by",), ("written_by",)]
    question = "what kind of film is Combat Shock"
    assert asked_for(question, topic, paths, scorer=RelationPathScorer(), kg=metaqa) == [True, False, False]
    assert asked_for(question, topic, paths, scorer=RelationPathScorer()) != [True, False, False]  # words alone do not tell


def test_tog_prefer_puts_unverified_answers_that_end_an_explored_chain_first(kg):
    reply = "Maybe {Steven Spielberg}, or {Robert Zemeckis}."
    result = tog(kg, "{No}. Not enough.", answer_reply=reply)  # the graph's answerer: offline ToG's grounded answers
    assert result["stop_reason"] == "max_depth" and names(result) == ["Robert Zemeckis"]
    assert result["answers"][0]["grounded"] is True and result["output"] == reply
    # an answerer without the offline run (a caller's own): the model's answers that end an explored chain first
    answerer = LLMToGAnswerer(tog_model("{No}. Not enough.", reply), kg=kg)
    result = tog(kg, "{No}. Not enough.", answer_reply=reply, answerer=answerer)
    assert result["stop_reason"] == "max_depth" and names(result) == ["Robert Zemeckis", "Steven Spielberg"]
    assert not any(a["grounded"] for a in result["answers"])  # never verified: not grounded
    assert any("end an explored chain the question asks for come before" in w for w in result["warnings"])
    off = tog(kg, "{No}. Not enough.", answer_reply="Maybe {Steven Spielberg}, or {Robert Zemeckis}.", grounding="off")
    assert names(off) == ["Steven Spielberg", "Robert Zemeckis"]
