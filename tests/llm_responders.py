"""A well-behaved model for the bundled sample KG: replies to RoG's and ToG's prompts (used by the fault,
budget and cache tests, behind the local OpenAI-compatible server or a ScriptedChatModel)."""

from __future__ import annotations

import json
import re
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


def _listed(prompt: str, label: str) -> list[str]:
    """The ``;``-separated names on the prompt's last ``label`` line."""
    return [n.strip() for n in prompt.rsplit(label, 1)[1].splitlines()[0].split(";") if n.strip()]


def explorer() -> Callable[[str], str]:
    """Deterministic replies to every decider's prompt that keep ToG exploring to its depth limit (the verifier
    always says No), so each step has several independent calls; used by the concurrency tests and
    ``benchmarks/bench_llm_latency.py``. Every reply depends on the prompt alone."""

    def respond(prompt: str) -> str:
        node, method = prompt_method(prompt) or ("", "")
        if node == "plan":
            return "<PATH> directed_by </PATH>\n<PATH> ^starred_actors </PATH>"
        if node == "prune_relations":
            chosen = _listed(prompt, "Relations:")[:3]
            scores = (0.5, 0.3, 0.2)[: len(chosen)]
            return "\n".join(f"{i}. {{{r} (Score: {s})}}: relevant." for i, (r, s) in enumerate(zip(chosen, scores), 1))
        if node == "prune_entities":
            count = len(_listed(prompt, "Entites:"))
            return "Score: " + ", ".join(f"{1.0 / (i + 1):.2f}" for i in range(count))
        if node == "verify":
            return "{No}. The triplets are not enough."
        if node == "instructions":
            return '{"instructions": ["Find what the question asks about.", "Check it."], "topic_entities": []}'
        if node == "integrate":
            return "Find what the question asks about, then check it."
        if node == "topic_prune":
            names = [line[2:].rsplit(" (", 1)[0] for line in prompt.splitlines() if line.startswith("- ")]
            return json.dumps(names)
        if node == "clue_query":
            names = [line[2:] for line in prompt.splitlines() if line.startswith("- ")]
            return json.dumps({name: f"{name} facts" for name in names})
        if node == "relation_prune":
            blocks = re.findall(r"Topic entity: (.+)\n(?:.*\n)*?Relations: (.+)", prompt)
            return json.dumps({name: {r.strip(): 0.5 for r in relations.split(";")[:2]} for name, relations in blocks})
        if node == "examine":
            if "This is the last round" in prompt:
                found = re.search(r"\[1\] \((.+?)\)", prompt)
                return json.dumps({"sufficient": True, "answer": [found.group(1) if found else "unknown"]})
            return json.dumps({"sufficient": False, "clue": "more facts"})
        if (node, method) == ("answer", "rog"):
            ends = [line.rsplit(" -> ", 1)[-1] for line in prompt.splitlines() if " -> " in line]
            return ends[0] if ends else "unknown"
        triplets = [line.rsplit(", ", 1)[-1] for line in prompt.split("Knowledge Triplets:")[-1].splitlines() if ", " in line]
        return f"So the answer is {{{triplets[0] if triplets else 'unknown'}}}."

    return respond
