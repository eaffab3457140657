"""A well-behaved model for the bundled sample KG: replies to RoG's and ToG's prompts (used by the fault,
budget and cache tests, behind the local OpenAI-compatible server or a ScriptedChatModel)."""

from __future__ import annotations

from collections.abc import Callable


def well_behaved(answer: str = "Robert Zemeckis", relation: str = "directed_by") -> Callable[[str], str]:
    """Replies that follow ``relation`` and name ``answer`` (e.g. for "who directed [Forrest Gump]")."""

    def respond(prompt: str) -> str:
        if "relation path" in prompt.lower() and "<PATH>" in prompt:  # RoG planning
            return f"<PATH> {relation} </PATH>"
        if prompt.startswith("Based on the reasoning paths"):  # RoG answer
            return f'["{answer}"]'
        if prompt.startswith("Please retrieve"):  # ToG relation pruning
            listed = [r.strip() for r in prompt.rsplit("Relations:", 1)[1].splitlines()[0].split(";")]
            chosen = relation if relation in listed else listed[0]
            return f"1. {{{chosen} (Score: 1.0)}}: relevant."
        if prompt.startswith("Please score the entities"):
            entities = [e.strip() for e in prompt.rsplit("Entites:", 1)[1].splitlines()[0].split(";")]
            return ", ".join("1.0" if e == answer else "0.1" for e in entities)
        if "whether it's sufficient" in prompt:
            return f"{{Yes}}. The answer is {{{answer}}}." if answer in prompt else "{No}."
        return f"{{{answer}}}"

    return respond
