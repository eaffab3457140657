"""The public API as type checkers read it (issue 49, "a typed public API").

Every factory's options are declared for type checkers by a ``TypedDict`` (``**options: Unpack[GraphOptions]``; ToG
and ToG-I: ``ToGGraphOptions``) beside the pydantic models that document and validate them; these tests keep the two
equal, and type-check the README's first examples with mypy (the project's ``[tool.mypy]`` settings): they pass,
and a misspelt option or a wrong value in the same code is reported. ``.ci/run`` runs mypy on the public modules and
the cookbook.
"""

from __future__ import annotations

import re
from typing import Any, get_type_hints

import pytest
from langchain_core.embeddings import Embeddings
from langchain_core.language_models import BaseChatModel
from pydantic import ValidationError

from kg_agent.graphs import create_rog_graph, create_tog_graph
from kg_agent.kg import open_kg
from kg_agent.settings import GraphOptions, GraphSettings
from kg_agent.tools.tog.deciders import ToGGraphOptions, ToGOptions
from tests.conftest import PROJECT_ROOT

#: GraphSettings holds these as Any (checked by its validator without importing LangChain); the options type them.
LANGCHAIN_TYPED = {"model": BaseChatModel | str | None, "embeddings": Embeddings | None}


def fields_of(model) -> dict:
    return {name: LANGCHAIN_TYPED[name] if field.annotation is Any else field.annotation
            for name, field in model.model_fields.items()}


def hints(options) -> dict:
    return get_type_hints(options, localns={"BaseChatModel": BaseChatModel, "Embeddings": Embeddings})


def test_graph_options_are_graph_settings_fields():
    assert hints(GraphOptions) == fields_of(GraphSettings)
    assert [name for name, field in GraphSettings.model_fields.items() if field.annotation is Any] == list(LANGCHAIN_TYPED)
    assert GraphOptions.__total__ is False  # every option may be left out


def test_tog_graph_options_are_graph_settings_and_tog_options_fields():
    assert hints(ToGGraphOptions) == {**fields_of(GraphSettings), **fields_of(ToGOptions)}


def test_the_package_says_it_is_typed():
    assert (PROJECT_ROOT / "kg_agent" / "py.typed").is_file()
    assert "py.typed" in (PROJECT_ROOT / "pyproject.toml").read_text(encoding="utf-8")  # shipped in the wheel


def test_options_are_still_validated_and_unknown_ones_refused():
    kg = open_kg()
    with pytest.raises(ValidationError, match="grounding"):
        create_rog_graph(kg, grounding="loose")  # type: ignore[typeddict-item]
    with pytest.raises(TypeError, match="unexpected keyword argument 'modle'"):
        create_rog_graph(kg, modle="openai:gpt-4o-mini")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'k'"):
        create_tog_graph(kg, k=3)  # type: ignore[call-arg]
    graph = create_tog_graph(kg, settings=GraphSettings(grounding="strict"), depth=2, max_llm_calls=5)
    assert graph.compile().invoke({"question": "who directed [Forrest Gump]"})["answers"][0]["answer"] == "Robert Zemeckis"


# ---------------------------------------------------------------------------------------------- mypy
def readme_first_examples() -> str:
    """The Python blocks of the README's "Use it" section up to the custom deciders, as one module."""
    readme = (PROJECT_ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Use it"):readme.index("Your own decider")]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert len(blocks) >= 4 and 'create_rog_graph(kg, model="openai:gpt-4o-mini")' in "".join(blocks)
    return "\n".join(blocks)


def mypy_report(source: str, folder) -> tuple[str, int]:
    api = pytest.importorskip("mypy.api", reason="mypy is not installed (dev extra)")
    module = folder / "readme_examples.py"
    module.write_text(source, encoding="utf-8")
    out, err, status = api.run(["--config-file", str(PROJECT_ROOT / "pyproject.toml"), "--cache-dir",
                                str(PROJECT_ROOT / ".mypy_cache"), "--no-error-summary", str(module)])
    return out + err, status


def test_the_readmes_first_examples_type_check(tmp_path):
    report, status = mypy_report(readme_first_examples(), tmp_path)
    assert status == 0, report


def test_a_misspelt_or_wrong_option_does_not(tmp_path):
    source = readme_first_examples() + (
        '\ncreate_rog_graph(kg, modle="openai:gpt-4o-mini")'
        '\ncreate_rog_graph(kg, grounding="loose")'
        '\ncreate_tog_graph(kg, depth="deep")\n')
    report, status = mypy_report(source, tmp_path)
    assert status == 1
    assert 'Unexpected keyword argument "modle"' in report, report
    assert 'Argument "grounding" to "create_rog_graph" has incompatible type "Literal[\'loose\']"' in report, report
    assert 'Argument "depth" to "create_tog_graph" has incompatible type "str"; expected "int"' in report, report


@pytest.mark.parametrize("package", ["kg_agent", "kg_agent.graphs", "kg_agent.kg", "kg_agent.llm"])
def test_a_lazy_packages_names_are_what_type_checkers_read(package):
    """A package whose names are imported on first use imports each under ``if TYPE_CHECKING:`` from the module it
    is exported from at run time, so a type checker sees ``open_kg`` and ``create_rog_graph`` for what they are."""
    import ast
    import importlib

    module = importlib.import_module(package)
    exports = getattr(module, "_EXPORTS", None) or module._LAZY
    tree = ast.parse(open(module.__file__, encoding="utf-8").read())
    guarded = [node for node in tree.body if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING"]
    typed = {alias.name: node.module for block in guarded for node in block.body if isinstance(node, ast.ImportFrom)
             for alias in node.names}
    assert typed == dict(exports)
