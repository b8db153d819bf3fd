"""Every relative link in README.md and docs/*.md leads to a file that exists, and an
anchor (``#...``) to a heading of that file, as GitHub names headings.

Links to the web are not followed (the tests run offline); links inside code blocks and
inline code are not links. The documents must also stand alone: none points outside the
repository.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def prose_lines(text: str) -> list[str]:
    """The lines of a Markdown text outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.

    >>> slug("The journal's guarantees")
    'the-journals-guarantees'
    >>> slug("The engine (`bench/engine.py`)")
    'the-engine-benchenginepy'
    """
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)   # a link in a heading: its text
    text = text.lower().replace("`", "")
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every heading anchor of ``path``, duplicates numbered as GitHub numbers them."""
    seen: Counter[str] = Counter()
    found = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        match = HEADING.match(line)
        if not match:
            continue
        base = slug(match.group(2))
        found.add(base if not seen[base] else f"{base}-{seen[base]}")
        seen[base] += 1
    return found


def links(path: Path) -> list[tuple[int, str]]:
    """``(line number, target)`` of every Markdown link in ``path``'s prose."""
    found = []
    text = path.read_text(encoding="utf-8")
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if fenced:
            continue
        for match in LINK.finditer(INLINE_CODE.sub("", line)):
            found.append((number, match.group(1)))
    return found


def broken(path: Path) -> list[str]:
    """What is wrong with ``path``'s relative links, one sentence each."""
    problems = []
    for number, target in links(path):
        where = f"{path.relative_to(ROOT)}:{number}: {target}"
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):   # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        linked = (path.parent / file_part).resolve() if file_part else path
        if "../shared" in target or not linked.is_relative_to(ROOT):
            problems.append(f"{where}: points outside the repository")
            continue
        if not linked.exists():
            problems.append(f"{where}: no such file")
            continue
        if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
            problems.append(f"{where}: {linked.relative_to(ROOT)} has no heading #{anchor}")
    return problems


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file_and_heading(path: Path) -> None:
    assert broken(path) == []


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_document_points_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert "../shared" not in text
    assert not re.search(r"(?<![\w/])(DESIGN|RULES)\.md", text), \
        "the design and the rules are docs/design.md and docs/rules.md"


def test_the_checker_finds_a_broken_file_and_a_broken_anchor(tmp_path: Path, monkeypatch) -> None:
    # A checker that passes everything would pass the documents too: prove it can fail.
    monkeypatch.setattr(__import__(__name__), "ROOT", tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Its part\n", encoding="utf-8")
    readme = tmp_path / "README.md"
    readme.write_text("[ok](docs/a.md#its-part) [gone](docs/b.md) [bad](docs/a.md#nope)\n"
                      "```\n[in code](docs/c.md)\n```\n`[inline](docs/d.md)`\n"
                      "[web](https://example.org/x)\n", encoding="utf-8")
    assert broken(readme) == ["README.md:1: docs/b.md: no such file",
                              "README.md:1: docs/a.md#nope: docs/a.md has no heading #nope"]
