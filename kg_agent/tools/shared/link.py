"""The *link* step every method starts with: the question and its topic entities.

The question is the state's ``question`` or, in a chat, the last human message. Topic entities given
by the caller (ids or labels) are used as they are; otherwise they are linked from the question. In a
follow-up turn with no entity of its own ("and who directed it?"), the previous turn's answers (or,
without answers, its topic entities) become the topic entities, and a warning says so; the question
is then written with them in brackets (:func:`resolved_follow_up`), so every decider knows what "it" is.

The previous turn is found in the chat itself when it can be: every reply a method graph makes
(:func:`reply_message`) carries its answer and topic entities in ``response_metadata["kg_agent"]``, so a
method graph used as a node of a chatbot whose state keeps only ``messages`` still links follow-ups. Without
such a reply, the state's own ``answers`` / ``topic_entities`` (kept by a checkpointer) are used; without
those either (a chat whose replies came from elsewhere), the user's own earlier messages are linked.
"""

from __future__ import annotations

from dataclasses import replace

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langgraph.types import Overwrite

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.kg.linking import LinkResult, link_entities
from kg_agent.kg.types import Entity
from kg_agent.kg.walks import Walk
from kg_agent.tools.shared.dated_members import dated_question, only_names_its_class
from kg_agent.tools.shared.literal_filter import filter_mentions
from kg_agent.tools.shared.scoring import mask_mentions
from kg_agent.tools.shared.updates import apply_update
from kg_agent.tools.shared.whole_graph import only_names_its_nouns, whole_graph_question

MAX_CARRIED_ENTITIES = 5
#: Earlier user messages linked, latest first, when no reply of the chat carries entities.
MAX_EARLIER_MESSAGES = 3


def question_from_state(state: dict) -> str:
    """The current question: the last human message of a chat, else the ``question`` field."""
    for message in reversed(state.get("messages") or []):
        if isinstance(message, HumanMessage) or (isinstance(message, BaseMessage) and message.type == "human"):
            content = message.content
            if isinstance(content, list):  # multimodal content blocks
                content = " ".join(part.get("text", "") if isinstance(part, dict) else str(part) for part in content)
            return str(content).strip()
        if isinstance(message, dict) and message.get("role") in {"user", "human"}:
            return str(message.get("content", "")).strip()
    return str(state.get("question") or "").strip()


def resolve_given_entities(kg: KnowledgeGraph, given: list) -> tuple[list[Entity], list[str]]:
    """Entities given by the caller as ids, labels or entity dicts; unknown ones are reported."""
    entities: list[Entity] = []
    warnings: list[str] = []
    kg.prefetch(given)  # a remote endpoint: every given id's edges and label in one request
    for item in given:
        if kg.has_entity(item):
            entities.append(kg.entity(item))
            continue
        found = kg.find_entities(item)
        if found:
            entities.append(found[0])
        else:
            warnings.append(f"link: topic entity {item!r} is not in the knowledge graph")
    return list(dict.fromkeys(entities)), warnings


def link_node(state: dict, *, kg: KnowledgeGraph, max_entities: int = 5, ask_when_ambiguous: bool = False) -> dict:
    """Graph node: set ``question`` and ``topic_entities``; start this turn's warnings, usage and outputs (``warnings``
    and ``usage`` as ``Overwrite`` s: they replace the last turn's instead of being added to them; a direct caller
    applies the update with :func:`~kg_agent.tools.shared.updates.apply_update`).

    An entity linked from the question carries the text that matched it (``mention``), how (``how``: ``bracket``,
    ``exact``, ``partial``, ``fuzzy``) and the match's ``score``; given ones and a follow-up's carried ones do not.
    With ``ask_when_ambiguous``, a mention that several entities fit equally well interrupts the run to ask the user
    which one is meant (:mod:`kg_agent.tools.shared.ambiguity`); only that one is kept."""
    question = question_from_state(state)
    warnings: list[str] = []
    fresh = {"question": question, "plans": [], "paths": [], "chains": [], "documents": [], "answers": [],
             "output": "", "stop_reason": "", "usage": Overwrite({})}
    if not question:
        return {**fresh, "topic_entities": [], "warnings": Overwrite(["link: no question given"]), "stop_reason": "no_question"}
    # Entities given with this input are ids or labels (strings); dicts are the previous turn's, kept by a checkpointer.
    given = [g for g in state.get("topic_entities") or [] if isinstance(g, str)]
    linked: dict[str, dict] = {}  # entity id -> the mention of the question it was linked from, with its score
    if given:
        entities, warnings = resolve_given_entities(kg, given)
    else:
        result = links_of_the_kind_named(kg, question, link_entities(kg, question, max_entities=max_entities))
        anchored = topics_of_a_literal_anchor(kg, question, result, max_entities=max_entities)
        if anchored is not None:
            return {**fresh, "topic_entities": anchored[0], "warnings": Overwrite([f"link: {anchored[1]}"]),
                    "stop_reason": ""}
        if ask_when_ambiguous:
            result = chosen_links(kg, question, result)
        entities = result.entities
        warnings.extend(f"link: {note}" for note in result.notes)
        linked = {item.entity.id: item.to_dict() for item in result.linked}
        places = filter_mentions(kg, question, list(linked.values()))
        if places:  # "which airports in London ...": things named after a place the KG writes as their value
            warnings.append("link: " + ", ".join(sorted(places)) + " is a value the linked things hold, read as a "
                            "filter on the answers, not a thing the question is about")
            linked = {key: item for key, item in linked.items() if str(item.get("mention")).casefold() not in places}
            entities = [e for e in entities if e.id in linked]
        # "which bookshelf holds the most books": a question about the whole KG takes no entity from an earlier turn,
        # nor one linked from the noun it counts or asks for
        mentions = [item.get("mention") or "" for item in linked.values()]
        whole_graph = (whole_graph_question(question) is not None or dated_question(question) is not None
                       if not entities else only_names_its_nouns(question, mentions, kg)
                       or only_names_its_class(question, mentions))
        dropped = whole_graph and bool(entities)
        if dropped:
            warnings.append("link: " + ", ".join(sorted({str(item.get("mention")) for item in linked.values()}))
                            + " names what the question counts or asks for, not a thing it is about: a question about"
                              " the whole knowledge graph")
            entities, linked = [], {}
        previous, source = (_previous_turn_entities(state, kg, max_entities=max_entities) if not entities
                            and not whole_graph else ([], ""))
        if previous:
            entities = previous
            warnings.append(f"link: no entity in this question; using {source}: " + ", ".join(e.label for e in entities))
            fresh["question"] = resolved_follow_up(question, entities)
        elif whole_graph and not dropped:
            warnings.append("link: no entity named: a question about the whole knowledge graph")
        elif not entities and not dropped:
            warnings.append(f"link: {result.message}")
    stop = "" if entities else "no_topic_entity"
    topic_entities = [linked.get(e.id) or e.to_dict() for e in entities]
    return {**fresh, "topic_entities": topic_entities, "warnings": Overwrite(warnings), "stop_reason": stop}


def topics_of_a_literal_anchor(kg: KnowledgeGraph, question: str, result: LinkResult, *,
                               max_entities: int) -> tuple[list[dict], str] | None:
    """The topic entities, and a note saying why, when the question names a value the KG writes as a literal of the
    relation named beside it and asks for the things holding it ("how many spacecraft does the agency Japan have":
    :mod:`~kg_agent.tools.shared.literal_anchor`); they replace the entities linked from the value's words (a launch
    site named "Japan" is no agency). None when there is no such value, or an entity was linked from other words of
    the question than the value and the noun asked for (a question about that entity too is not answered so)."""
    from kg_agent.tools.shared.literal_anchor import anchor_for_question, anchored_topics
    from kg_agent.tools.shared.question_parts import QuestionParts

    anchor = anchor_for_question(kg, question)
    if anchor is None:
        return None
    asked = QuestionParts.of(question).asked
    nouns = set(asked.noun_phrase) if asked is not None else set()
    value = anchor.mention.lower()
    for item in result.linked:
        mention = item.mention.lower()
        if mention not in value and value not in mention and not set(mention.split()) <= nouns:
            return None
    more = "+" if anchor.cut else ""
    return anchored_topics(kg, anchor, max_entities), (
        f"{anchor.mention!r} is a value the knowledge graph writes of {len(anchor.subjects)}{more} things "
        f"({anchor.text}), not a thing of its own: those things are the question's topic")


def links_of_the_kind_named(kg: KnowledgeGraph, question: str, result: LinkResult) -> LinkResult:
    """``result`` with each mention that several entities were linked from narrowed to those of the kind the words
    right before the mention name ("the **invited talk** [X]", a talk and a paper both called [X]: the talk, whose
    class *InvitedTalkEvent* those words name; :func:`~kg_agent.tools.shared.answer_classes.of_the_kind_named`);
    a mention whose words name the classes of all or none of its entities keeps them all."""
    from kg_agent.tools.shared.answer_classes import of_the_kind_named
    from kg_agent.tools.shared.question_parts import kind_before_mention
    from kg_agent.tools.shared.similarity import shared_text_vectors

    by_mention: dict[str, list[Entity]] = {}
    for item in result.linked:
        by_mention.setdefault(item.mention, []).append(item.entity)
    dropped: set[str] = set()
    for candidates in by_mention.values():
        if len(candidates) < 2:
            continue
        words = kind_before_mention(mask_mentions(question, candidates))
        ids = [entity.id for entity in candidates]
        named = of_the_kind_named(kg, shared_text_vectors(None), words, ids) if words else frozenset()
        if named and len(named) < len(ids):
            dropped |= set(ids) - named
    if not dropped:
        return result
    return replace(result, linked=[item for item in result.linked if item.entity.id not in dropped])


def chosen_links(kg: KnowledgeGraph, question: str, result: LinkResult) -> LinkResult:
    """``result`` with each mention that several entities fit equally well narrowed to the one the user chooses
    (:func:`~kg_agent.tools.shared.ambiguity.ask_which`: a LangGraph interrupt), mention by mention."""
    from kg_agent.tools.shared.ambiguity import ambiguous_mentions, ask_which

    dropped: set[str] = set()
    for mention, candidates in ambiguous_mentions(result.linked).items():
        chosen = ask_which(kg, question, mention, candidates)
        dropped |= {item.entity.id for item in candidates if item.entity.id != chosen}
    if not dropped:
        return result
    return replace(result, linked=[item for item in result.linked if item.entity.id not in dropped])


def resolved_follow_up(question: str, entities: list[Entity]) -> str:
    """A follow-up with the entities it refers to, bracketed as in MetaQA: "and who directed it? [Forrest Gump]".

    Every decider (offline or LLM) then sees what "it" is, as it would in a self-contained question."""
    return question + " " + " ".join(f"[{e.label}]" for e in entities)


def _previous_turn_entities(state: dict, kg: KnowledgeGraph, *, max_entities: int) -> tuple[list[Entity], str]:
    """The last turn's answer entities, else its topic entities (empty outside a chat), and where they came from.

    A chat whose earlier replies were not made by a method graph (another node, a plain chat model) carries
    no entities; then the user's own earlier messages are linked, latest first ("tell me about Big" ->
    "who directed it?"). The replies' text is not: a free-text reply names years, genres and side remarks.
    """
    messages = state.get("messages") or []
    carried = _entities_from_last_reply(messages)
    if carried is not None:
        return carried, "the previous turn's entities"
    answers = [a for a in state.get("answers") or [] if a.get("entity_id")]
    if answers:
        return [Entity(a["entity_id"], a["answer"]) for a in answers[:MAX_CARRIED_ENTITIES]], "the previous turn's entities"
    topics = [Entity.from_dict(e) for e in (state.get("topic_entities") or [])[:MAX_CARRIED_ENTITIES]]
    if topics:
        return topics, "the previous turn's entities"
    humans = [m for m in messages if _is_human(m)][:-1]  # the last one is the current question
    for message in reversed(humans[-MAX_EARLIER_MESSAGES:]):
        text = question_from_state({"messages": [message]})
        found = link_entities(kg, text, max_entities=max_entities).entities if text else []
        if found:
            return found, f"the entities of your earlier message {text[:80]!r}"
    return [], ""


METADATA_KEY = "kg_agent"


def reply_message(content: str, state: dict, *, name: str) -> AIMessage:
    """A method graph's chat reply, carrying this turn's answer and topic entities for the next turn's link step."""
    answers = [{"id": a["entity_id"], "label": a["answer"]} for a in state.get("answers") or [] if a.get("entity_id")]
    topics = [{"id": e["id"], "label": e["label"]} for e in state.get("topic_entities") or []]
    metadata = {"method": name, "answers": answers[:MAX_CARRIED_ENTITIES], "topic_entities": topics[:MAX_CARRIED_ENTITIES]}
    return AIMessage(content=content, name=name, response_metadata={METADATA_KEY: metadata})


#: Warnings that say why a turn has no answer (the last one is quoted in the reply).
NO_ANSWER_REASONS = ("link:", "answer:", "examine:", "tog2:")
REPLY_ANSWERS = 10  # answers named in a chat reply


def chat_reply_text(state: dict) -> str:
    """Every method's short chat reply: the answers and what supports the first one (its first walk, else the
    document chunk it came from), flagged when no explored walk supports it; without an answer, why."""
    answers = state.get("answers") or []
    if not answers:
        reasons = [w for w in state.get("warnings") or [] if w.startswith(NO_ANSWER_REASONS)]
        return "I could not find an answer in the knowledge graph." + (f" ({reasons[-1]})" if reasons else "")
    names = ", ".join(a["answer"] for a in answers[:REPLY_ANSWERS]) + (" ..." if len(answers) > REPLY_ANSWERS else "")
    first = answers[0]
    because = ""
    if first.get("paths"):
        because = f"\nBecause: {Walk.from_dict(first['paths'][0]).text()}"
    elif first.get("chunks"):
        chunk = first["chunks"][0]
        because = f"\nSource: {chunk.get('title')}: {chunk['text'][:200]}"
    flag = "" if first.get("grounded", True) else "\n(not confirmed by the knowledge graph)"
    return names + because + flag


def with_chat_reply(state: dict, update: dict, *, name: str) -> dict:
    """An answer step's ``update`` plus its chat reply (:func:`chat_reply_text`) when the question came as messages."""
    if not state.get("messages"):
        return update
    answered = apply_update(state, update)
    return {**update, "messages": [reply_message(chat_reply_text(answered), answered, name=name)]}


def _entities_from_last_reply(messages: list) -> list[Entity] | None:
    """Entities of the latest method-graph reply before the current question; ``None`` when the chat has none."""
    past = list(messages)
    while past and _is_human(past[-1]):  # the current question (and any unanswered ones before it)
        past.pop()
    for message in reversed(past):
        metadata = _metadata(message).get(METADATA_KEY)
        if isinstance(metadata, dict):
            carried = metadata.get("answers") or metadata.get("topic_entities") or []
            return [Entity(e["id"], e.get("label") or e["id"]) for e in carried if isinstance(e, dict) and e.get("id")]
    return None


def _is_human(message) -> bool:
    if isinstance(message, dict):
        return message.get("role") in {"user", "human"} or message.get("type") == "human"
    return getattr(message, "type", None) == "human"


def _metadata(message) -> dict:
    value = message.get("response_metadata") if isinstance(message, dict) else getattr(message, "response_metadata", None)
    return value if isinstance(value, dict) else {}
