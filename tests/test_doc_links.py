"""Every relative link in the README and docs/ resolves: the file exists, and a ``#anchor`` names a heading of its
target the way GitHub renders heading ids (lower case, punctuation dropped, spaces as hyphens, ``-1``, ``-2`` for
repeats). External links (``http:``, ``mailto:``) are not fetched."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = sorted([ROOT / "README.md", ROOT / "cookbook" / "README.md", *(ROOT / "docs").glob("*.md")])

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HTML_ANCHOR = re.compile(r"<a\s+(?:name|id)=\"([^\"]+)\"", re.IGNORECASE)


def prose_lines(text: str) -> list[tuple[int, str]]:
    """The lines outside fenced code blocks, with their line numbers."""
    lines, fenced = [], False
    for number, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """GitHub's id for a heading's text: markup gone, lower case, only letters, digits, ``-``, ``_`` and spaces kept,
    each space a hyphen."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text stays, its target goes
    text = re.sub(r"<[^>]+>", "", text)
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(page.read_text(encoding="utf-8")):
        found.update(HTML_ANCHOR.findall(line))
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def links(page: Path) -> list[tuple[int, str]]:
    found = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for target in LINK.findall(INLINE_CODE.sub("", line)):
            if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                found.append((number, target))
    return found


def broken_links(page: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for number, target in links(page):
        path_part, _, anchor = target.partition("#")
        destination = (page.parent / unquote(path_part)).resolve() if path_part else page
        where = f"{page.relative_to(root)}:{number}: {target}"
        if not destination.exists():
            broken.append(f"{where} (no such file)")
        elif anchor and destination.suffix == ".md" and unquote(anchor) not in anchors(destination):
            broken.append(f"{where} (no heading with this anchor in {destination.relative_to(root)})")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: str(page.relative_to(ROOT)))
def test_every_relative_link_and_anchor_resolves(page: Path) -> None:
    assert broken_links(page) == []


def test_anchors_are_made_as_github_makes_them(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "# Benchmarks\n"
        "## Serving: MCP and LangGraph\n"
        "### 13j. Speed: offline ToG and `RoG` per question\n"
        "## Notes\n## Notes\n"
        "```\n# not a heading\n```\n"
        "See [x](#serving-mcp-and-langgraph), [y](#13j-speed-offline-tog-and-rog-per-question), [z](#notes-1),\n"
        "[bad](#not-a-heading), [gone](other.md), [code `[a](#nowhere)`] and `[b](#nowhere)`.\n",
        encoding="utf-8",
    )
    assert anchors(page) == {"benchmarks", "serving-mcp-and-langgraph", "13j-speed-offline-tog-and-rog-per-question",
                             "notes", "notes-1"}
    assert broken_links(page, root=tmp_path) == [
        "page.md:10: #not-a-heading (no heading with this anchor in page.md)",
        "page.md:10: other.md (no such file)",
    ]
