"""RoG as a LangGraph graph: offline planners and answers, scripted chat models, the openai path."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from kg_agent.graphs import create_rog_graph, with_rog_context
from kg_agent.kg import kg_from_triples
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.tools.prompts import prompt_node
from kg_agent.tools.rog.answer import VoteAnswerer
from kg_agent.tools.rog.exemplar import Exemplar
from kg_agent.tools.rog.plan import ExemplarPlanner, Plan, PlanOutcome, SimilarityPlanner
from kg_agent.tools.rog.retrieve import retrieve_node

QUESTION = "who directed the films that [Tom Hanks] starred in"
HANKS_DIRECTORS = {"Ron Howard", "Steven Spielberg", "Nora Ephron", "Penny Marshall", "Robert Zemeckis"}


def answer_names(result: dict) -> list[str]:
    return [a["answer"] for a in result["answers"]]


def plan_prompt_reply(*paths: str):
    """A responder that plans with the given <PATH> lines and answers from the paths it is shown."""

    def respond(prompt: str) -> str:
        if prompt_node(prompt) == "plan":
            return "\n".join(paths)
        return "['Penny Marshall', 'Ron Howard']"

    return respond


# ------------------------------------------------------------------------------------------------ offline
def test_offline_rog_answers_two_hop_question_with_paths(kg):
    result = create_rog_graph(kg).compile().invoke({"question": QUESTION})
    assert result["plans"][0]["relations"] == ["^starred_actors", "directed_by"]
    assert result["plans"][0]["text"] == "<PATH> ^starred_actors <SEP> directed_by </PATH>"
    names = answer_names(result)
    assert HANKS_DIRECTORS <= set(names[:8])
    first = result["answers"][0]
    assert first["grounded"] is True
    assert first["paths"][0]["text"].startswith("Tom Hanks -> ^starred_actors -> ")
    assert first["paths"][0]["text"].endswith(f"-> directed_by -> {first['answer']}")
    assert result["usage"].get("calls", 0) == 0
    assert result["stop_reason"] == "answered"


def test_state_after_each_node_in_stream(kg):
    app = create_rog_graph(kg).compile()
    updates = list(app.stream({"question": QUESTION}, stream_mode="updates"))
    assert [next(iter(u)) for u in updates] == ["link", "plan", "retrieve", "answer"]
    link, plan, retrieve, answer = (next(iter(u.values())) for u in updates)
    assert link["topic_entities"][0]["label"] == "Tom Hanks"
    assert len(plan["plans"]) == 3 and all(p["source"] == "similarity" for p in plan["plans"])
    assert retrieve["paths"] and all(p["plan"] in (0, 1, 2) for p in retrieve["paths"])
    assert answer["answers"] and answer["output"].splitlines()[0] == answer["answers"][0]["answer"]


def test_unknown_entity_gives_clear_no_answer(kg):
    result = create_rog_graph(kg).compile().invoke({"question": "who directed [Qwzx Blorptastic]"})
    assert result["answers"] == []
    assert result["stop_reason"] == "no_topic_entity"
    assert any("no entity of the knowledge graph found in the question" in w for w in result["warnings"])


def test_given_topic_entities_are_used(kg):
    result = create_rog_graph(kg).compile().invoke({"question": "who directed the films he starred in", "topic_entities": ["Tom Hanks"]})
    assert result["topic_entities"][0]["label"] == "Tom Hanks"
    assert HANKS_DIRECTORS <= set(answer_names(result))


def test_ainvoke_matches_invoke(kg):
    app = create_rog_graph(kg).compile()
    sync = app.invoke({"question": QUESTION})
    asynchronous = asyncio.run(app.ainvoke({"question": QUESTION}))
    assert answer_names(sync) == answer_names(asynchronous)


def test_exemplar_planner_learns_relation_paths_from_training_questions(kg):
    meg = kg.find_entities("Meg Ryan")[0].id
    keanu = kg.find_entities("Keanu Reeves")[0].id
    meg_films = [kg.label(f) for f in kg.neighbors(meg, "^starred_actors")]
    keanu_directors = {kg.label(d) for f in kg.neighbors(keanu, "^starred_actors") for d in kg.neighbors(f, "directed_by")}
    planner = ExemplarPlanner(kg).fit(
        [
            Exemplar("what films did [Meg Ryan] act in", meg_films, ["Meg Ryan"]),
            Exemplar("who directed the movies [Keanu Reeves] acted in", sorted(keanu_directors), ["Keanu Reeves"]),
        ]
    )
    hanks = kg.find_entities("Tom Hanks")[:1]
    outcome = planner.plan("what films did [Tom Hanks] act in", hanks)
    assert outcome.plans[0].relations == ("^starred_actors",)
    outcome = planner.plan("who directed the movies [Tom Hanks] acted in", hanks)
    assert outcome.plans[0].relations == ("^starred_actors", "directed_by")


class KeywordPlanner:
    """Any object with ``name`` and ``plan`` is a planner: this one plans from keywords."""

    name = "keywords"

    def plan(self, question, topic_entities, *, k=3):
        from kg_agent.tools.rog.plan import PlanOutcome

        relations = ("^directed_by",) if "direct" in question else ("starred_actors",)
        return PlanOutcome([Plan(relations, 1.0, self.name)])


def test_chatbot_follow_up_uses_previous_answers(kg):
    app = create_rog_graph(kg, planner=KeywordPlanner()).compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t1"}}
    first = app.invoke({"messages": [HumanMessage("what films did [Penny Marshall] direct")]}, config)
    assert first["messages"][-1].type == "ai"
    second = app.invoke({"messages": [HumanMessage("and who starred in it?")]}, config)
    assert any("previous turn" in w for w in second["warnings"])
    assert "Tom Hanks" in answer_names(second)
    assert len(second["messages"]) == 4


# ------------------------------------------------------------------------------------------------ LLM
def test_llm_planner_and_answerer_with_scripted_model(kg):
    model = ScriptedChatModel(responder=plan_prompt_reply("<PATH> ^starred_actors <SEP> directed_by </PATH>"))
    result = create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
    assert result["plans"][0] == {
        "relations": ["^starred_actors", "directed_by"],
        "text": "<PATH> ^starred_actors <SEP> directed_by </PATH>",
        "score": result["plans"][0]["score"],
        "source": "llm",
    }
    assert answer_names(result) == ["Penny Marshall", "Ron Howard"]
    assert all(a["grounded"] for a in result["answers"])
    assert result["answers"][0]["paths"][0]["text"].endswith("directed_by -> Penny Marshall")
    # the planning prompt lists the relations walkable from the topic entity, the answer prompt the paths
    assert "^starred_actors" in model.prompts[0] and "directed_by" in model.prompts[0]
    assert "Tom Hanks -> ^starred_actors -> Big -> directed_by -> Penny Marshall" in model.prompts[1]
    usage = result["usage"]
    assert usage["calls"] == 2
    assert usage["by_node"]["plan"]["calls"] == 1 and usage["by_node"]["answer"]["calls"] == 1
    assert usage["prompt_tokens"] == sum(len(p) // 4 for p in model.prompts)


def test_few_shot_planning_prompt_shows_examples_then_this_questions_relations(kg):
    from kg_agent.tools.rog.plan import FEW_SHOT_PLANNING_PROMPT, LLMPlanner, SimilarityPlanner

    model = ScriptedChatModel(responder=plan_prompt_reply("<PATH> ^starred_actors <SEP> directed_by </PATH>"))
    planner = LLMPlanner(kg, model, fallback=SimilarityPlanner(kg), prompt=FEW_SHOT_PLANNING_PROMPT)
    result = create_rog_graph(kg, model=model, planner=planner).compile().invoke({"question": QUESTION})

    assert result["plans"][0]["relations"] == ["^starred_actors", "directed_by"]
    assert result["plans"][0]["source"] == "llm"
    prompt = model.prompts[0]
    # the worked examples come first, then the question with the relations walkable from its topic entity
    assert prompt.index("what does jamaican people speak?") < prompt.index(f"Question: {QUESTION}")
    asked = prompt[prompt.index(f"Question: {QUESTION}"):]
    assert "^starred_actors" in asked and "directed_by" in asked and asked.endswith("Relation paths:\n")
    assert "Write 3 different relation paths" in prompt


def film_exemplars(kg) -> list[Exemplar]:
    """Training questions about other actors and directors: acted in, directed, directors of the films acted in."""
    def films(name: str, relation: str) -> list[str]:
        return [kg.label(f) for f in kg.neighbors(kg.find_entities(name)[0].id, relation)]

    keanu = kg.find_entities("Keanu Reeves")[0].id
    keanu_directors = sorted({kg.label(d) for f in kg.neighbors(keanu, "^starred_actors") for d in kg.neighbors(f, "directed_by")})
    return [Exemplar("what films did [Meg Ryan] act in", films("Meg Ryan", "^starred_actors"), ["Meg Ryan"]),
            Exemplar("which movies did [Keanu Reeves] appear in", films("Keanu Reeves", "^starred_actors"), ["Keanu Reeves"]),
            Exemplar("what films did [Penny Marshall] direct", films("Penny Marshall", "^directed_by"), ["Penny Marshall"]),
            Exemplar("who directed the movies [Keanu Reeves] acted in", keanu_directors, ["Keanu Reeves"])]


def test_with_training_questions_the_planning_prompt_shows_the_nearest_with_their_relation_paths(kg):
    model = ScriptedChatModel(responder=plan_prompt_reply("<PATH> ^starred_actors <SEP> directed_by </PATH>"))
    graph = create_rog_graph(kg, model=model, exemplars=film_exemplars(kg), grounding="off").compile()
    result = graph.invoke({"question": QUESTION})
    assert result["plans"][0]["relations"] == ["^starred_actors", "directed_by"]
    prompt = model.prompts[0]
    shown = prompt[prompt.index("Relation paths of similar training questions:"):prompt.index("Write 3 different")]
    # three examples (the prompt stays short), the nearest first: the same template about another actor
    assert shown.count("Question: ") == 3
    assert shown.index("Question: who directed the movies [Keanu Reeves] acted in\n"
                       "<PATH> ^starred_actors <SEP> directed_by </PATH>") < shown.index("Question: what films did")
    assert "<PATH> ^starred_actors </PATH>" in shown
    assert prompt.index("^starred_actors\n") < prompt.index("Relation paths of similar training questions:")


def test_without_training_questions_the_planning_prompt_is_the_papers(kg):
    from kg_agent.kg.relation_paths import walkable_relation_paths
    from kg_agent.tools.rog.plan import PLANNING_PROMPT

    model = ScriptedChatModel(responder=plan_prompt_reply("<PATH> ^starred_actors <SEP> directed_by </PATH>"))
    create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
    hanks = kg.find_entities("Tom Hanks")[0].id
    relations = sorted({r for path in walkable_relation_paths(kg, [hanks], max_hops=3) for r in path})
    assert model.prompts[0] == PLANNING_PROMPT.format(question=QUESTION, relations="\n".join(relations), k=3, examples="")
    assert "training questions" not in model.prompts[0]


def test_a_planning_prompt_without_a_place_for_examples_is_refused_with_training_questions(kg):
    from kg_agent.tools.rog.plan import LLMPlanner

    planner = ExemplarPlanner(kg).fit(film_exemplars(kg)[:1])
    with pytest.raises(ValueError, match="no {examples} field"):
        LLMPlanner(kg, ScriptedChatModel(["x"]), prompt="Plan for {question} from {relations} ({k} paths)", examples=planner)


def test_malformed_plan_is_retried_then_falls_back_offline(kg):
    model = ScriptedChatModel(["I think you should look at the movies.", "Sorry, I cannot help.", "Ron Howard"])
    result = create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
    assert model.calls == 3  # two planning attempts, one answer
    assert result["plans"] and all(p["source"] == "similarity" for p in result["plans"])
    assert any("fell back to the similarity planner" in w for w in result["warnings"])
    assert answer_names(result) == ["Ron Howard"]


def test_lenient_plan_parsing_of_prose_and_numbering(kg):
    reply = "Sure! Here are the paths:\n1. <PATH>^starred_actors<SEP>directed_by</PATH>\n2. <PATH> ^starred_actors </PATH>"
    model = ScriptedChatModel([reply, "Ron Howard"])
    result = create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
    assert [p["relations"] for p in result["plans"]] == [["^starred_actors", "directed_by"], ["^starred_actors"]]


def test_hallucinated_relations_are_mapped_or_dropped(kg):
    reply = (
        "<PATH> ^starred_actors <SEP> film.film.directed_by </PATH>\n"
        "<PATH> ^starred_actors <SEP> spouse_of </PATH>\n"
        "<PATH> starred_actors <SEP> directed_by </PATH>"
    )
    model = ScriptedChatModel([reply, "Ron Howard"])
    result = create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
    relations = [p["relations"] for p in result["plans"]]
    assert relations[0] == ["^starred_actors", "directed_by"]  # film.film.directed_by mapped
    assert ["^starred_actors", "spouse_of"] not in relations
    warnings = "\n".join(result["warnings"])
    assert "mapped relation 'film.film.directed_by' to 'directed_by'" in warnings
    assert "'spouse_of' is not in the knowledge graph" in warnings
    # the third path named the relation without its inverse marker: it is grounded to ^starred_actors
    assert "mapped relation 'starred_actors' to '^starred_actors'" in warnings


def test_empty_answer_falls_back_to_votes(kg):
    model = ScriptedChatModel(["<PATH> ^starred_actors <SEP> directed_by </PATH>", "", "I don't know."])
    result = create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
    assert HANKS_DIRECTORS <= set(answer_names(result))
    assert any("fell back to vote answers" in w for w in result["warnings"])


def test_answer_not_on_any_path_is_flagged_ungrounded(kg):
    model = ScriptedChatModel(["<PATH> ^starred_actors <SEP> directed_by </PATH>", "['Ron Howard', 'Christopher Nolan']"])
    result = create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
    flags = {a["answer"]: a["grounded"] for a in result["answers"]}
    assert flags == {"Ron Howard": True, "Christopher Nolan": False}
    assert any("not supported by any retrieved path" in w and "Christopher Nolan" in w for w in result["warnings"])


def test_prefer_keeps_the_offline_top_plan_so_its_votes_replace_an_ungrounded_answer(kg):
    # A small model's plan parses but is the wrong one (directors, for a question about films), and its answer
    # names no path end. Under "prefer" the replacing votes must be the offline planner's (films), not the
    # wrong model plan's; "off" keeps the model's plans only.
    meg = kg.find_entities("Meg Ryan")[0].id
    exemplars = [Exemplar("what films did [Meg Ryan] act in", [kg.label(f) for f in kg.neighbors(meg, "^starred_actors")], ["Meg Ryan"])]
    hanks = kg.find_entities("Tom Hanks")[0].id
    hanks_films = {kg.label(f) for f in kg.neighbors(hanks, "^starred_actors")}
    replies = ["<PATH> ^starred_actors <SEP> directed_by </PATH>", "Tom Hanks acted in many films."]
    question = "what films did [Tom Hanks] act in"

    result = create_rog_graph(kg, model=ScriptedChatModel(replies), exemplars=exemplars).compile().invoke({"question": question})
    assert [(p["relations"], p["source"], p["score"]) for p in result["plans"]] == [
        (["^starred_actors"], "exemplar", 1.0), (["^starred_actors", "directed_by"], "llm", 0.666667)]
    assert set(answer_names(result)) == hanks_films and all(a["grounded"] for a in result["answers"])
    assert "kept the exemplar planner's top plan <PATH> ^starred_actors </PATH> alongside the model's" in " ".join(result["warnings"])
    assert result["output"] == "Tom Hanks acted in many films."

    off = create_rog_graph(kg, model=ScriptedChatModel(replies), exemplars=exemplars, grounding="off").compile()
    off = off.invoke({"question": question})
    assert [p["source"] for p in off["plans"]] == ["llm"]


def test_too_many_paths_are_truncated_best_plans_first(kg):
    reply = "<PATH> ^starred_actors <SEP> directed_by </PATH>\n<PATH> ^starred_actors <SEP> has_genre </PATH>"
    model = ScriptedChatModel([reply, "Ron Howard"])
    result = create_rog_graph(kg, model=model, max_prompt_paths=5).compile().invoke({"question": QUESTION})
    answer_prompt = model.prompts[1]
    listed = [line for line in answer_prompt.splitlines() if " -> " in line]
    assert len(listed) == 5 and all("directed_by" in line for line in listed)
    assert any("the prompt keeps the first 5" in w for w in result["warnings"])


def test_explanation_prompt(kg):
    model = ScriptedChatModel(["<PATH> ^starred_actors <SEP> directed_by </PATH>", "Ron Howard\nBecause Apollo 13 ..."])
    result = create_rog_graph(kg, model=model, explain=True).compile().invoke({"question": QUESTION})
    assert "explain why" in model.prompts[1]
    assert answer_names(result) == ["Ron Howard"]


def test_with_rog_context_puts_paths_in_front_of_any_chat_model(kg):
    model = ScriptedChatModel(["Penny Marshall directed Big."])
    chain = with_rog_context(model, kg, planner=SimilarityPlanner(kg))
    reply = chain.invoke([HumanMessage(QUESTION)])
    assert reply.content == "Penny Marshall directed Big."
    prompt = model.prompts[0]
    assert "Reasoning paths retrieved from the knowledge graph" in prompt
    assert "Tom Hanks -> ^starred_actors -> Big -> directed_by -> Penny Marshall" in prompt
    assert prompt.rstrip().endswith(QUESTION)  # the user's question stays last
    assert model.calls == 1


def test_with_rog_context_keeps_one_system_message_first(kg, monkeypatch):
    from kg_agent.llm.models import resolve_chat_model
    from tests.openai_server import OpenAICompatibleServer

    history = [("system", "You are a film expert. Be brief."), ("human", "hello"), ("ai", "Hi! Ask me about films."),
               ("human", QUESTION)]
    with OpenAICompatibleServer(responder=lambda prompt: "Penny Marshall and Ron Howard.") as server:
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        model = resolve_chat_model("openai:test-model", base_url=server.base_url)
        with_rog_context(model, kg, planner=SimilarityPlanner(kg)).invoke(history)
        without_system = with_rog_context(model, kg, planner=SimilarityPlanner(kg))
        without_system.invoke(history[1:])
    merged, added = (request.body["messages"] for request in server.chat_requests)
    # one system message, first: the app's instruction, then the reasoning paths
    assert [m["role"] for m in merged] == ["system", "user", "assistant", "user"]
    assert merged[0]["content"].startswith("You are a film expert. Be brief.\n\nReasoning paths retrieved")
    assert "Tom Hanks -> ^starred_actors -> Big -> directed_by -> Penny Marshall" in merged[0]["content"]
    assert [m["role"] for m in added] == ["system", "user", "assistant", "user"]
    assert added[0]["content"].startswith("Reasoning paths retrieved")
    assert merged[1:] == added[1:] and merged[-1]["content"] == QUESTION


def test_plan_value_object_round_trip():
    plan = Plan(("^starred_actors", "directed_by"), 0.5, "llm")
    assert Plan.from_dict(plan.to_dict()) == plan


# ------------------------------------------------------------------------------------------------ openai
def test_rog_through_a_real_openai_compatible_server(kg, monkeypatch):
    from kg_agent.llm.models import resolve_chat_model
    from tests.openai_server import OpenAICompatibleServer

    with OpenAICompatibleServer(responder=plan_prompt_reply("<PATH> ^starred_actors <SEP> directed_by </PATH>")) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("OPENAI_API_KEY", "test-key")
        model = resolve_chat_model("openai:test-model")
        result = create_rog_graph(kg, model=model).compile().invoke({"question": QUESTION})
        assert len(server.chat_requests) == 2
    assert answer_names(result) == ["Penny Marshall", "Ron Howard"]
    assert result["usage"]["calls"] == 2
    # token counts come from the server's usage (it counts words), not from an estimate
    assert result["usage"]["by_node"]["plan"]["prompt_tokens"] == len(server.chat_requests[0].prompt_text.split())


def test_retrieve_node_keeps_the_paths_the_question_names_when_a_plan_is_cut():
    # an actor in 12 films, each with its own genre; only the last film (in breadth-first order) is a comedy
    films = [f"Film {i:02d}" for i in range(12)]
    triples = [(film, "starred_actors", "Ann Actor") for film in films]
    triples += [(film, "has_genre", "Comedy" if film == films[-1] else f"Genre {i}") for i, film in enumerate(films)]
    small = kg_from_triples(triples)
    state = {"question": "which [Ann Actor] films are a comedy",
             "topic_entities": [e.to_dict() for e in small.find_entities("Ann Actor")],
             "plans": [{"relations": ["^starred_actors", "has_genre"], "text": "^starred_actors -> has_genre"}]}
    update = retrieve_node(state, kg=small, max_paths=3)
    ends = [p["text"].rsplit(" -> ", 1)[-1] for p in update["paths"]]
    assert len(ends) == 3 and ends[0] == "Comedy"
    [warning] = update["warnings"]
    assert "kept the 3 whose entities best match the question's words and dropped 9 " in warning


def test_a_path_end_of_a_plan_the_question_does_not_ask_for_is_not_grounded(kg):
    # SmolLM2's pattern (docs/benchmarks.md section 9): it lists relations one per line, so its "plans" are
    # directed_by, release_year and has_tags, and it answers with the end of the wrong one. "1994" ends a
    # retrieved release_year path, but "which person directed" asks for no year: the answer is not grounded, and
    # under "prefer" the path votes (offline top plan first) replace it.
    replies = ["release_year\ndirected_by\nhas_tags", "1994"]
    question = "which person directed [Forrest Gump]"
    result = create_rog_graph(kg, model=ScriptedChatModel(replies)).compile().invoke({"question": question})
    assert {p["text"] for p in result["paths"]} >= {"Forrest Gump -> release_year -> 1994",
                                                    "Forrest Gump -> directed_by -> Robert Zemeckis"}
    assert answer_names(result)[0] == "Robert Zemeckis" and result["answers"][0]["grounded"]
    assert "1994" not in answer_names(result)
    warnings = " ".join(result["warnings"])
    assert "does not ask for the plan(s)" in warnings and "release_year" in warnings
    assert "the model's answers ('1994') are not supported" in warnings
    assert result["output"] == "1994"

    # A question that asks for the year grounds the same reply.
    asked = create_rog_graph(kg, model=ScriptedChatModel(replies)).compile().invoke(
        {"question": "in which year was [Forrest Gump] released"})
    assert answer_names(asked) == ["1994"] and asked["answers"][0]["grounded"]


# ------------------------------------------------------------------------------------------------ what retrieval keeps
HUB_FILMS = 400  # films of the genre hub


def hub_kg():
    """Ann Actor starred in three dramas; Drama is a hub of 400 films (the genre hub of MetaQA's questions)."""
    films = [f"Ann Film {i}" for i in range(3)] + [f"Drama {i:03d}" for i in range(HUB_FILMS - 3)]
    triples = [(film, "starred_actors", "Ann Actor") for film in films[:3]]
    triples += [(film, "has_genre", "Drama") for film in films]
    triples += [("Ann Film 0", "release_year", "1990"), ("Ann Film 1", "release_year", "1991")]
    return kg_from_triples(triples)


class FixedPlanner:
    """The given relation paths as plans, with the given scores (best first)."""

    name = "fixed"

    def __init__(self, *plans: tuple[tuple[str, ...], float]) -> None:
        self.plans = [Plan(relations, score, self.name) for relations, score in plans]

    def plan(self, question, topic_entities, *, k=3) -> PlanOutcome:
        return PlanOutcome(list(self.plans))


class EveryPathVotes:
    """An answerer of its own kind (not one whose reads RoG knows), so the state keeps every path: the reference."""

    name = "vote"

    def __init__(self, **options) -> None:
        self.votes = VoteAnswerer(**options)

    def answer(self, question, paths, plans):
        return self.votes.answer(question, paths, plans)


GENRE_QUESTION = "what genres are the films acted by [Ann Actor] in"
GENRE_PLAN, HUB_PLAN = ("^starred_actors", "has_genre"), ("^starred_actors", "has_genre", "^has_genre")
#: the hub plan's paths: from each of Ann's three films to every Drama film but itself (no step walks the one before
#: it backwards to where that began)
HUB_PATHS = 3 * (HUB_FILMS - 1)


def paths_of(result: dict, plan: int) -> list[str]:
    return [p["text"] for p in result["paths"] if p["plan"] == plan]


def test_a_plan_whose_answers_are_not_kept_gets_only_the_paths_a_prompt_shows():
    """The hub plan scores below 0.9 x the best plan's, so no answer of it is kept: it gets max_prompt_paths paths
    (the most relevant of a bounded search), not the 1,200 it has, and the result says why."""
    planner = FixedPlanner((GENRE_PLAN, 2.0), (HUB_PLAN, 1.0))
    result = create_rog_graph(hub_kg(), planner=planner, max_prompt_paths=10).compile().invoke({"question": GENRE_QUESTION})
    assert answer_names(result) == ["Drama"]
    assert len(paths_of(result, 0)) == 3 and len(paths_of(result, 1)) == 10
    [warning] = [w for w in result["warnings"] if w.startswith("retrieve:")]
    assert "plan <PATH> ^starred_actors <SEP> has_genre <SEP> ^has_genre </PATH> has more than 10 paths" in warning
    assert "it keeps at most max_prompt_paths=10" in warning
    reference = create_rog_graph(hub_kg(), planner=planner, answerer=EveryPathVotes()).compile().invoke(
        {"question": GENRE_QUESTION})
    assert len(paths_of(reference, 1)) == HUB_PATHS
    assert answer_names(reference) == answer_names(result)


def test_when_the_best_plan_finds_nothing_the_plans_answering_instead_are_retrieved_in_full():
    """Plan 0 has no path, so the hub plan's films are the answers: it is retrieved again under max_paths and its
    answers (ranked by votes over all its paths) are those of a retrieval that cut nothing."""
    planner = FixedPlanner((("^directed_by",), 2.0), (HUB_PLAN, 1.0))
    question = "which films share a genre with the films of [Ann Actor]"
    result = create_rog_graph(hub_kg(), planner=planner, max_prompt_paths=10).compile().invoke({"question": question})
    reference = create_rog_graph(hub_kg(), planner=planner, answerer=EveryPathVotes()).compile().invoke(
        {"question": question})
    assert result["answers"] == reference["answers"] and len(result["answers"]) == 100
    # another film is reached from each of Ann's three films, hers from the other two (no step goes straight back)
    assert not any(a["answer"].startswith("Ann Film") for a in result["answers"])  # the first 100 of 400
    assert not any("max_prompt_paths" in w for w in result["warnings"])
    assert len(result["paths"]) < len(reference["paths"]) == HUB_PATHS  # the state: what the answer step reads


def test_the_state_keeps_the_paths_the_answer_step_reads_and_says_how_many_it_found():
    """Thousands of paths in the state are megabytes copied and stored after every step by a LangGraph server: the
    state keeps what the answer step reads (the prompt's first paths, each plan's paths to its most supported
    answers, each plan's first path), so the offline answers, their votes and supporting paths are unchanged."""
    planner = FixedPlanner((HUB_PLAN, 1.0),)
    question = "which films share a genre with the films of [Ann Actor]"
    options = {"min_relative_score": 0.9, "max_answers": 5}
    result = create_rog_graph(hub_kg(), planner=planner, answerer=VoteAnswerer(**options),
                              max_prompt_paths=4).compile().invoke({"question": question})
    reference = create_rog_graph(hub_kg(), planner=planner, answerer=EveryPathVotes(**options)).compile().invoke(
        {"question": question})
    found = len(reference["paths"])
    assert found == HUB_PATHS
    assert result["answers"] == reference["answers"] and len(result["answers"]) == 5
    assert [w for w in result["warnings"] if "reasoning paths" in w] == [
        f"retrieve: {found} reasoning paths to {HUB_FILMS} entities found; the state keeps the {len(result['paths'])} "
        "the answer step reads (the first 4 distinct paths, best plans first; each plan's paths to its 5 ends reached by "
        "most paths; each plan's first path from each topic entity)"]
    assert len(result["paths"]) <= 4 + 5 * 3  # the prompt's paths and the answers' (each film reached from three)
    assert [p["text"] for p in result["paths"][:4]] == [p["text"] for p in reference["paths"][:4]]
    assert "answer: more answers than max_answers=5; kept the first 5" in " ".join(reference["warnings"])


def test_rog_over_an_endpoint_reads_no_more_rows_than_its_caps_allow():
    """A hub plan (1,200 paths) whose answers are not kept, over a SPARQL endpoint: no query brings back more rows
    than a search under its cap of 10 reads. Before, all 1,200 paths were sent with their 400 films' labels; with
    more paths than max_paths, its first 5,001 were sent and dropped, a search under max_paths followed, and a walk
    whose limit fell inside the hub read the hub whole."""
    from kg_agent.kg import open_sparql
    from tests.sparql_server import SparqlServer, store_from_graph

    memory = hub_kg()
    planner = FixedPlanner((GENRE_PLAN, 2.0), (HUB_PLAN, 1.0))
    with SparqlServer(store_from_graph(memory.graph)) as server:
        remote = open_sparql(server.url)
        app = create_rog_graph(remote, planner=planner, max_prompt_paths=10).compile()
        app.invoke({"question": "what genres are the films acted by [Ann Film 0] in"})  # the label index, once
        before = len(server.queries)
        result = app.invoke({"question": GENRE_QUESTION})
        rows = [len(list(server.store.query(query))) for query in server.queries[before:]]
    want = create_rog_graph(memory, planner=planner, max_prompt_paths=10).compile().invoke({"question": GENRE_QUESTION})
    assert result["paths"] == want["paths"] and result["answers"] == want["answers"]
    assert len(paths_of(result, 1)) == 10
    assert max(rows) <= 4 * 10 + 3 + 2  # a step of the capped search: 4 x its cap, one per partial path, one more; a count
