"""A well-behaved model for the bundled sample KG: replies to RoG's and ToG's prompts (used by the fault,
budget and cache tests, behind the local OpenAI-compatible server or a ScriptedChatModel)."""

from __future__ import annotations

from collections.abc import Callable

from kg_agent.tools.prompts import prompt_method, prompt_node


def well_behaved(answer: str = "Robert Zemeckis", relation: str = "directed_by") -> Callable[[str], str]:
    """Replies that follow ``relation`` and name ``answer`` (e.g. for "who directed [Forrest Gump]")."""

    def respond(prompt: str) -> str:
        if prompt_node(prompt) == "plan":  # RoG planning
            return f"<PATH> {relation} </PATH>"
        if prompt_method(prompt) == ("answer", "rog"):  # RoG answer
            return f'["{answer}"]'
        if prompt_node(prompt) == "prune_relations":  # ToG relation pruning
            listed = [r.strip() for r in prompt.rsplit("Relations:", 1)[1].splitlines()[0].split(";")]
            chosen = relation if relation in listed else listed[0]
            return f"1. {{{chosen} (Score: 1.0)}}: relevant."
        if prompt_node(prompt) == "prune_entities":
            entities = [e.strip() for e in prompt.rsplit("Entites:", 1)[1].splitlines()[0].split(";")]
            return ", ".join("1.0" if e == answer else "0.1" for e in entities)
        if prompt_node(prompt) == "verify":
            return f"{{Yes}}. The answer is {{{answer}}}." if answer in prompt else "{No}."
        return f"{{{answer}}}"

    return respond
