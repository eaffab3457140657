"""The MCP ``ask`` tool asks the client's user which entity an ambiguous mention means (MCP form elicitation,
kg_agent.mcp.elicitation), served as users run it (``python -m kg_agent.mcp --transport http``) over
tests/fixtures/kg/ambiguous.ttl, where two cities are labelled "Paris" (one in France, one in the United States) and
two "Springfield" (one in the United States, one in Australia).

The official SDK 2 client with an elicitation callback picks one: on revision 2026-07-28 the server answers with an
``InputRequiredResult`` and the client retries with the choice; on 2025-11-25 the server sends ``elicitation/create``
mid-call. Either way the answer follows the chosen Paris, and a question naming Paris and Springfield asks about
each in turn (on 2026-07-28 the first choice rides the sealed requestState into the second round). A decline or an
answer naming no candidate keeps both with a warning, and a client that declared no elicitation capability gets
today's answer (both kept) with a warning.
"""

from __future__ import annotations

import anyio
import pytest

pytest.importorskip("mcp.server.mcpserver", reason="the MCP SDK 2 is not installed (pip install 'mcp>=2.3,<3')")

from mcp import Client, types

from tests.test_mcp_server import HANDSHAKE, MODERN, MODES, PROJECT_ROOT, serve_http

pytestmark = pytest.mark.server

FRANCE, TEXAS = "https://example.org/geo/paris_fr", "https://example.org/geo/paris_tx"
ILLINOIS, AUSTRALIA = "https://example.org/geo/springfield_il", "https://example.org/geo/springfield_au"
QUESTION = "which country is [Paris] in"


@pytest.fixture(scope="module")
def paris_server(tmp_path_factory):
    kg = str(PROJECT_ROOT / "tests" / "fixtures" / "kg" / "ambiguous.ttl")
    with serve_http(tmp_path_factory.mktemp("mcp_elicit") / "server.log", "--kg", kg) as running:
        yield running


def picking(entity_id: str | None, asked: list[types.ElicitRequestParams]):
    """An elicitation callback that records what it is asked and picks ``entity_id`` (``None``: declines)."""
    async def callback(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params)
        if entity_id is None:
            return types.ElicitResult(action="decline")
        return types.ElicitResult(action="accept", content={"id": entity_id})
    return callback


async def ask(url: str, revision: str, callback=None, question: str = QUESTION) -> dict:
    async with Client(url, mode=MODES[revision], elicitation_callback=callback) as client:
        assert client.protocol_version == revision
        result = await client.call_tool("ask", {"question": question})
    assert not result.is_error, result.content
    return result.structured_content


def answers(result: dict) -> list[str]:
    return [a["answer"] for a in result["answers"]]


@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
@pytest.mark.parametrize("chosen, country", [(TEXAS, "United States"), (FRANCE, "France")])
def test_the_user_picks_a_paris_and_the_answer_follows_it(paris_server, revision, chosen, country):
    asked: list[types.ElicitRequestParams] = []
    result = anyio.run(ask, paris_server.url, revision, picking(chosen, asked))
    (question,) = asked  # one ambiguous mention: asked once
    assert question.requested_schema["properties"]["id"]["enum"] == [FRANCE, TEXAS]
    assert "'Paris'" in question.message and QUESTION in question.message
    assert f"{FRANCE}: Paris (city; country -> France)" in question.message
    assert f"{TEXAS}: Paris (city; country -> United States)" in question.message
    assert [e["id"] for e in result["topic_entities"]] == [chosen]
    assert answers(result) == [country]


@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_two_ambiguous_mentions_are_asked_in_turn_and_both_choices_kept(paris_server, revision):
    asked: list[str] = []

    async def callback(context, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"id": TEXAS if "'Paris'" in params.message else AUSTRALIA})

    result = anyio.run(ask, paris_server.url, revision, callback, "which country are [Paris] and [Springfield] in")
    assert [message.split(" fits ")[0] for message in asked] == ["'Paris'", "'Springfield'"]
    assert f"{ILLINOIS}: Springfield (city; country -> United States)" in asked[1]
    assert [e["id"] for e in result["topic_entities"]] == [TEXAS, AUSTRALIA]
    assert set(answers(result)) == {"United States", "Australia"}


@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_a_declined_question_keeps_both_with_a_warning(paris_server, revision):
    asked: list[types.ElicitRequestParams] = []
    result = anyio.run(ask, paris_server.url, revision, picking(None, asked))
    assert len(asked) == 1
    assert {e["id"] for e in result["topic_entities"]} == {FRANCE, TEXAS}
    assert set(answers(result)) == {"France", "United States"}
    assert any("'Paris' fits 2 entities equally well and all were kept" in w and "decline" in w
               for w in result["warnings"])


@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_an_answer_naming_no_candidate_keeps_both_with_a_warning(paris_server, revision):
    result = anyio.run(ask, paris_server.url, revision, picking("https://example.org/geo/lyon", []))
    assert {e["id"] for e in result["topic_entities"]} == {FRANCE, TEXAS}
    assert any("'Paris' fits 2 entities equally well and all were kept: the client's answer named none of them" in w
               for w in result["warnings"])


@pytest.mark.parametrize("revision", [MODERN, HANDSHAKE])
def test_a_client_without_elicitation_gets_both_with_a_warning(paris_server, revision):
    result = anyio.run(ask, paris_server.url, revision)
    assert {e["id"] for e in result["topic_entities"]} == {FRANCE, TEXAS}
    assert set(answers(result)) == {"France", "United States"}
    assert any("'Paris' fits 2 entities equally well" in w and "no elicitation capability" in w
               for w in result["warnings"])


def test_an_unambiguous_question_asks_nothing(paris_server):
    asked: list[types.ElicitRequestParams] = []

    async def lyon() -> dict:
        async with Client(paris_server.url, elicitation_callback=picking(FRANCE, asked)) as client:
            result = await client.call_tool("ask", {"question": "which country is [Lyon] in"})
        return result.structured_content

    result = anyio.run(lyon)
    assert asked == [] and answers(result) == ["France"] and not any("equally well" in w for w in result["warnings"])
