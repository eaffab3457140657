"""Asking an MCP client's user which entity an ambiguous mention of an ``ask`` question means, by MCP form
elicitation (:func:`answer_choosing`).

A client that declared the ``elicitation`` capability (form mode) has ``ask`` run with ``ask_when_ambiguous``
(:mod:`kg_agent.tools.shared.ambiguity`): when several entities fit a mention equally well, the user is shown the
mention and each candidate (its id, label, classes and a fact telling it from the others) and picks one by id; the
answer follows that entity. How the question reaches the client follows the protocol revision of the call:

* 2026-07-28 (stateless): the call returns an ``InputRequiredResult`` carrying the elicitation and, in its
  ``requestState`` (sealed by the SDK, so the client cannot alter it), the choices made so far; the client asks
  its user and calls ``ask`` again with the answer, and the graph is run afresh with the choices replayed
  (:meth:`~kg_agent.mcp.service.KGService.ask_choosing`), one round per ambiguous mention;
* 2025-11-25 and older (a session): the server sends ``elicitation/create`` mid-call (``Context.elicit``).

Each run of the graph has the tool's deadline; the time the user takes to answer is not counted (on 2026-07-28 each
round is a call of its own). A decline, a cancel or an answer naming no candidate gives today's answer (every candidate kept) with a warning
saying so. A client without the capability gets today's answer, with a warning naming each mention that several
entities fit equally well (:func:`warn_ambiguous`).
"""

import json
from collections.abc import Awaitable, Callable
from typing import Any

from mcp.server.elicitation import AcceptedElicitation, render_elicitation_schema
from mcp.server.mcpserver import Context
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitResult, InputRequiredResult
from mcp_types.version import is_version_at_least
from pydantic import ValidationError

from kg_agent.mcp.results import AskResult
from kg_agent.tools.shared.ambiguity import SCORE_TOLERANCE, choice_schema

#: The first protocol revision that carries elicitation in an ``InputRequiredResult`` instead of a request to
#: the client (which it has no channel for).
INPUT_REQUIRED_REVISION = "2026-07-28"

#: The key of the entity choice among an ``InputRequiredResult``'s input requests.
CHOICE_KEY = "entity_choice"

#: Runs the asking graph with the choices made so far (mention -> entity id): the answer, or the next question.
Choose = Callable[[dict[str, str]], Awaitable[AskResult | dict]]

#: Runs the method as without elicitation (every candidate of an ambiguous mention kept).
AnswerAll = Callable[[], Awaitable[AskResult]]


def can_elicit(ctx: Context | None) -> bool:
    """Whether the calling client declared form elicitation (a bare ``elicitation: {}`` counts, URL-only not)."""
    try:
        elicitation = getattr(ctx and ctx.client_capabilities, "elicitation", None)
    except ValueError:  # a Context outside a request
        elicitation = None
    return elicitation is not None and (elicitation.form is not None or elicitation.url is None)


def choice_message(asked: dict) -> str:
    """What the user reads: the mention, the question and each candidate by id, label, classes and fact."""
    lines = [f"{asked['message']} (in the question {asked['question']!r})"]
    for card in asked["candidates"]:
        about = "; ".join(part for part in (", ".join(card["classes"]), card["fact"]) if part)
        lines.append(f"- {card['id']}: {card['label']}" + (f" ({about})" if about else ""))
    return "\n".join(lines)


def chosen_id(asked: dict, content: Any) -> str | None:
    """The candidate id an accepted answer names (``{"id": ...}``), ``None`` when it names none."""
    try:
        return choice_schema([card["id"] for card in asked["candidates"]]).model_validate(content).id
    except ValidationError:
        return None


async def answer_choosing(ctx: Context, choose: Choose, answer_all: AnswerAll) -> AskResult | InputRequiredResult:
    """``ask`` for a client that can elicit (module docstring): the answer with each ambiguous mention narrowed to
    the user's choice, an ``InputRequiredResult`` asking the next one (revision 2026-07-28), or on a refusal the
    answer with every candidate kept and a warning."""
    stateless = ctx.protocol_version is not None and is_version_at_least(ctx.protocol_version, INPUT_REQUIRED_REVISION)
    choices: dict[str, str] = {}
    if stateless and ctx.request_state:  # a retry: the choices so far and the question the client was asked
        state = json.loads(ctx.request_state)
        choices, asked = dict(state["choices"]), state["asked"]
        response = (ctx.input_responses or {}).get(CHOICE_KEY)
        if not isinstance(response, ElicitResult) or response.action != "accept":
            action = response.action if isinstance(response, ElicitResult) else "gave no answer"
            return await all_kept(answer_all, asked, f"the client's answer was {action!r}")
        chosen = chosen_id(asked, response.content)
        if chosen is None:
            return await all_kept(answer_all, asked, "the client's answer named none of them")
        choices[asked["mention"]] = chosen
    while True:
        outcome = await choose(choices)
        if isinstance(outcome, AskResult):
            return outcome
        asked = outcome
        schema = choice_schema([card["id"] for card in asked["candidates"]])
        if stateless:
            request = ElicitRequest(params=ElicitRequestFormParams(
                message=choice_message(asked), requested_schema=render_elicitation_schema(schema)))
            return InputRequiredResult(input_requests={CHOICE_KEY: request},
                                       request_state=json.dumps({"choices": choices, "asked": asked}))
        try:
            reply = await ctx.elicit(choice_message(asked), schema)
        except ValueError:  # accepted with content that fits no candidate
            return await all_kept(answer_all, asked, "the client's answer named none of them")
        if not isinstance(reply, AcceptedElicitation):
            return await all_kept(answer_all, asked, f"the client's answer was {reply.action!r}")
        choices[asked["mention"]] = reply.data.id


async def all_kept(answer_all: AnswerAll, asked: dict, why: str) -> AskResult:
    """The answer with every candidate of an ambiguous mention kept, warning that the user was not asked or chose none."""
    result = await answer_all()
    result.warnings.append(f"link: {asked['mention']!r} fits {len(asked['candidates'])} entities equally well and "
                           f"all were kept: {why}")
    return result


def warn_ambiguous(result: AskResult) -> AskResult:
    """``result`` (all candidates kept) with a warning for each mention its topic entities share a best score on."""
    by_mention: dict[str, list[float]] = {}
    for entity in result.topic_entities:
        if entity.mention is not None and entity.score is not None:
            by_mention.setdefault(entity.mention, []).append(entity.score)
    for mention, scores in by_mention.items():
        tied = [score for score in scores if max(scores) - score <= SCORE_TOLERANCE]
        if len(tied) > 1:
            result.warnings.append(f"link: {mention!r} fits {len(tied)} entities equally well and all were kept: the "
                                   "client declared no elicitation capability, so its user could not be asked which")
    return result
