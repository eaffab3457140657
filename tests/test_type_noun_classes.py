"""A type noun that names the class of a relation's objects keeps them answers (issue 45: "which band is [X] a
member of" on ToG): the objects of ``^member`` are guilds, and what the KG says of a guild reads like what it says of
a person (it is the "owner" of a brewery, the "producer" of a beer), so by those words alone they are persons and
"which guild" (no person noun) would leave them out and answer with a beer. The KG's own classes decide first: the
objects share the class *Guild*, which the noun names (:class:`~kg_agent.tools.shared.answer_classes.ClassNames`).

Fixture: ``tests/fixtures/breweries/breweries.ttl`` (invented, see its README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs.tog import create_tog_graph
from kg_agent.kg import open_kg
from kg_agent.tools.shared.grounding import UnaskedAnswers

BREWERIES = Path(__file__).resolve().parent / "fixtures" / "breweries" / "breweries.ttl"
ADA = {"id": "http://example.org/breweries/ada", "label": "Ada Marsh"}


@pytest.fixture(scope="module")
def breweries():
    return open_kg(BREWERIES)


@pytest.fixture(scope="module")
def breweries_on_oxigraph(tmp_path_factory):
    return open_kg(BREWERIES, backend="oxigraph", store_path=tmp_path_factory.mktemp("breweries") / "store")


@pytest.mark.parametrize("kg_name", ["breweries", "breweries_on_oxigraph"])
def test_objects_of_the_class_the_noun_names_are_of_the_kind_asked(kg_name, request):
    kg = request.getfixturevalue(kg_name)
    unasked = UnaskedAnswers("Which guild is Ada Marsh a member of?", [ADA], kg=kg)
    assert unasked.kinds is not None and unasked.kinds.kinds("^member").person >= 0.5  # by the relations' words
    assert not unasked.wrong_kind(["^member"])  # but of the class Guild, which "guild" names


def test_persons_of_a_class_the_noun_does_not_name_stay_of_another_kind(breweries):
    """A guild's members are brewers (class *Brewer*), persons: "which guild" does not ask for them."""
    unasked = UnaskedAnswers("Which guild is Ada Marsh a member of?", [ADA], kg=breweries)
    assert unasked.wrong_kind(["^member", "member"])


@pytest.mark.parametrize("kg_name", ["breweries", "breweries_on_oxigraph"])
def test_tog_answers_the_group_of_the_class_asked(kg_name, request):
    out = create_tog_graph(request.getfixturevalue(kg_name)).compile().invoke(
        {"question": "Which guild is Ada Marsh a member of?"})
    assert [a["answer"] for a in out["answers"]] == ["Vale Brewers Guild"]
