"""Per-run settings (issue 26, Deliver 2): grounding, structured output and budgets chosen for one run through the
graphs' LangGraph context (:class:`kg_agent.settings.RunSettings`), on the sync and the async path; budgets only
tighten; bad settings are refused before the run starts."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import ValidationError

from kg_agent.graphs import create_graph, create_rog_graph, create_tog_graph
from kg_agent.llm.scripted import ScriptedChatModel
from kg_agent.settings import RunSettings, current_run_settings
from kg_agent.tools.prompts import prompt_node
from tests.test_grounding import HALLUCINATION, HANKS_DIRECTORS, HANKS_Q, names, rog_model, tog_model

PLAN = "<PATH> ^starred_actors <SEP> directed_by </PATH>"


def test_settings_are_validated_before_the_run(kg):
    app = create_rog_graph(kg).compile()
    with pytest.raises(ValidationError, match="grounding"):
        app.invoke({"question": HANKS_Q}, context={"grounding": "sometimes"})
    with pytest.raises(ValidationError, match="max_llm_calls"):
        app.invoke({"question": HANKS_Q}, context={"max_llm_calls": -1})
    with pytest.raises(ValidationError, match="grounded"):  # a misspelt setting is not silently ignored
        app.invoke({"question": HANKS_Q}, context={"grounded": "strict"})
    assert app.get_context_jsonschema()["title"] == "RunSettings"


def test_a_run_chooses_its_grounding_on_a_graph_built_with_the_default(kg):
    app = create_rog_graph(kg, model=rog_model(PLAN, HALLUCINATION)).compile()
    prefer = app.invoke({"question": HANKS_Q})
    assert HANKS_DIRECTORS <= set(names(prefer)) and "Christopher Nolan" not in names(prefer)
    off = app.invoke({"question": HANKS_Q}, context={"grounding": "off"})
    assert names(off) == ["Christopher Nolan"] and off["answers"][0]["grounded"] is False
    strict = app.invoke({"question": HANKS_Q}, context=RunSettings(grounding="strict"))
    assert HANKS_DIRECTORS <= set(names(strict)) and "Christopher Nolan" not in strict["output"]
    # the run's setting does not outlive the run
    assert names(app.invoke({"question": HANKS_Q})) == names(prefer)
    assert current_run_settings() == RunSettings()


def test_tog_strict_per_run_on_the_async_path(kg):
    model = tog_model("{No}. Not enough.", "From my knowledge, the answer is {Steven Spielberg}.")
    app = create_tog_graph(kg, model=model).compile()
    strict = asyncio.run(app.ainvoke({"question": "who directed [Forrest Gump]"}, context={"grounding": "strict"}))
    # the model's own answer is never returned: ToG's run without a model answers, grounded
    assert names(strict) == ["Robert Zemeckis"] and strict["answers"][0]["grounded"] is True
    assert any("'Steven Spielberg'" in w and "grounded offline tog answers (grounding='strict'" in w
               for w in strict["warnings"])
    off = asyncio.run(app.ainvoke({"question": "who directed [Forrest Gump]"}, context={"grounding": "off"}))
    assert names(off) == ["Steven Spielberg"] and off["answers"][0]["grounded"] is False


@pytest.mark.parametrize("path", ["sync", "async"])
def test_a_run_tightens_the_call_budget_and_cannot_loosen_it(kg, path):
    def run(app, context=None):
        question = {"question": "who directed the films that [Tom Hanks] starred in"}
        if path == "async":
            return asyncio.run(app.ainvoke(question, context=context))
        return app.invoke(question, context=context)

    model = tog_model("{No}. Not enough.")
    unlimited = create_tog_graph(kg, model=model, max_llm_calls=None, depth=3).compile()
    assert run(unlimited)["usage"]["calls"] > 3
    tight = run(unlimited, {"max_llm_calls": 3})
    assert tight["usage"]["calls"] <= 3 and tight["stop_reason"] == "budget"
    assert any("max_llm_calls=3" in w for w in tight["warnings"])
    capped = create_tog_graph(kg, model=model, max_llm_calls=3, depth=3).compile()
    asked_for_more = run(capped, {"max_llm_calls": 50})
    assert asked_for_more["usage"]["calls"] <= 3 and any("max_llm_calls=3" in w for w in asked_for_more["warnings"])


def test_a_run_sets_a_time_budget_on_a_graph_built_without_one(kg):
    result = create_rog_graph(kg).compile().invoke({"question": HANKS_Q}, context={"max_seconds": 1e-9})
    assert result["started_at"] and any("max_seconds=1e-09" in w and "answered late" in w for w in result["warnings"])


def test_a_run_chooses_the_structured_output_mode(kg):
    def respond(prompt: str) -> str:
        return PLAN if prompt_node(prompt) == "plan" else "['Robert Zemeckis']"

    app = create_graph("rog", kg, model=ScriptedChatModel(responder=respond)).compile()
    default = app.invoke({"question": "who directed [Forrest Gump]"})
    json_mode = app.invoke({"question": "who directed [Forrest Gump]"}, context={"structured_output": "json_mode"})
    modes = {node: counts.get("modes") for node, counts in default["usage"]["by_node"].items() if counts.get("calls")}
    assert modes and all(m == {"text": 1} for m in modes.values())
    asked = {node: counts.get("modes") for node, counts in json_mode["usage"]["by_node"].items() if counts.get("calls")}
    assert asked and all("json_mode" in m for m in asked.values()), asked


def test_both_command_lines_have_one_flag_per_setting_generated_from_it():
    """`kg-agent ask` and `kg-agent eval` take every RunSettings field as a flag with the field's choices (the modes
    listed by hand had drifted: no json_object_schema) and pass what is set to the factories."""
    from kg_agent.cli import build_parser, graph_options

    parser = build_parser()
    args = parser.parse_args(["ask", "q", "--grounding", "strict", "--structured-output", "json_object_schema",
                              "--max-llm-calls", "4", "--max-tokens", "900", "--max-seconds", "2.5"])
    settings = {"grounding": "strict", "structured_output": "json_object_schema", "max_llm_calls": 4,
                "max_tokens": 900, "max_seconds": 2.5}
    assert graph_options(args).items() >= settings.items()
    assert not set(graph_options(parser.parse_args(["ask", "q"]))) & set(settings)  # unset: the factories' defaults
    evaluated = parser.parse_args(["eval", "jsonl", "--questions", "q.jsonl", "--out", "r.json",
                                   "--structured-output", "json_object_schema", "--max-seconds", "0"])
    assert evaluated.structured_output == "json_object_schema" and evaluated.max_seconds == 0
    for bad in (["--max-llm-calls", "-1"], ["--structured-output", "xml"], ["--max-seconds", "nan"]):
        with pytest.raises(SystemExit):
            parser.parse_args(["ask", "q", *bad])


# ---------------------------------------------------------------------------------------------- build settings
def test_every_factory_takes_the_build_settings_declared_once():
    """The options every method shares are GraphSettings' fields: in each factory's signature and docstring (the
    field's description, written once), by keyword or as one object; keywords beside it replace its fields."""
    import inspect

    from kg_agent.graphs.registry import METHODS, graph_factory, method_options
    from kg_agent.settings import GraphSettings

    for method in METHODS:
        assert set(GraphSettings.model_fields) | {"settings"} <= method_options(method)
        doc = " ".join(graph_factory(method).__doc__.split())
        for field in GraphSettings.model_fields.values():
            assert doc.count(" ".join(field.description.split())) == 1, (method, field.description)
        assert inspect.signature(graph_factory(method)).parameters["max_concurrency"].default == 4


def test_settings_object_and_keywords(kg):
    from kg_agent.settings import GraphSettings

    settings = GraphSettings(model=tog_model("{No}. Not enough."), max_llm_calls=0, grounding="strict")
    result = create_graph("tog", kg, settings=settings).compile().invoke({"question": HANKS_Q})
    assert result["stop_reason"] in {"budget", "no_grounded_answer"} and result["usage"].get("calls", 0) == 0
    loosened = create_tog_graph(kg, settings=settings, max_llm_calls=None).compile().invoke({"question": HANKS_Q})
    assert loosened["usage"]["calls"] > 0  # the keyword replaced the object's field


def test_an_invalid_build_setting_is_a_validation_error_naming_it(kg):
    from kg_agent.graphs import create_tog2_graph, create_tog_i_graph

    cases = [(create_rog_graph, {"max_concurrency": 0}, "max_concurrency"),
             (create_tog_graph, {"structured_output": "xml"}, "structured_output"),
             (create_tog_i_graph, {"depth": 0}, "depth"),
             (create_tog2_graph, {"max_llm_calls": -2}, "max_llm_calls"),
             (create_tog_graph, {"max_seconds": float("nan")}, "max_seconds")]
    for factory, options, field in cases:
        with pytest.raises(ValidationError, match=field):
            factory(kg, **options)
    with pytest.raises(TypeError, match="no_such_option"):
        create_rog_graph(kg, no_such_option=1)


def test_a_setting_documented_once_is_a_flag_of_both_command_lines(capsys):
    """`kg-agent ask --help` and `kg-agent eval --help` show each GraphSettings field a command line sets, with the
    field's own description (the CLIs define no such flag by hand)."""
    import re

    from kg_agent.cli import main
    from kg_agent.settings import FLAG_SETTINGS, GraphSettings

    for command in (["ask", "--help"], ["eval", "--help"]):
        with pytest.raises(SystemExit):
            main(command)
        shown = re.sub(r"\s+", " ", capsys.readouterr().out)
        for name in FLAG_SETTINGS:
            assert "--" + name.replace("_", "-") in shown
            assert re.sub(r"\s+", " ", GraphSettings.model_fields[name].description) in shown, (command, name)
