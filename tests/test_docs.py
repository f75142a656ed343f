"""The project's prose: README.md is a manual (at most 300 lines, the two set-up commands in its
first 40), every relative link of README.md and docs/ reaches a file, and no tracked text file
speaks of how the work went ("the last stop", "this session") instead of what the project is:
measurements carry a date and a revision (bench/README.md), never a story."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

README_LINES = 300
"""README.md's length at most (design.md: the README is a manual)."""

SETUP_COMMANDS = ("make all", "make test")
"""What a newcomer runs first; both must appear in README.md's first ``SETUP_WITHIN`` lines."""
SETUP_WITHIN = 40

DEVELOPMENT_LOG = {
    r"\b[Ss]essions?\b": "who measured when: say the date and revision instead",
    r"\b(?:[Tt]he|[Tt]his|[Ll]ast|[Nn]ext|[Pp]revious|[Tt]hat) stop\b": "as in 'the last stop'",
    r"(?i)\bthis time\b": "a moment of the work, not of the project",
    r"(?i)\byesterday\b": "a moment of the work",
    r"(?i)\bTODO later\b": "an open task belongs in an issue",
    r"(?i)\bfor now\b": "a provisional state belongs in an issue",
    r"(?i)\bnot yet moved\b": "a migration's leftover",
}
"""Development-log words and why each is one. A bare "stop" is an ordinary word (a slice's end,
stopping a daemon, early stopping), so only its log phrases are matched."""

ALLOWED = {
    r"""scope=["']session["']""": "pytest's fixture scope",
    r"\bgpu_session\.sh\b": "the GPU script's file name",
}
"""Legitimate uses of a development-log word, removed from a line before it is searched."""

SCANNED = (
    "README.md", "docs/", "bench/", "ledgers/", "src/", "tests/", "workflow/", "config/",
    "profiles/", "envs/", ".ci/", "Snakefile", "Makefile", "pyproject.toml", "CITATION.cff",
)  # fmt: skip
"""Text under these paths is checked: what git tracks or would track (``git ls-files``)."""

NOT_SCANNED = ("bench/results/",)
"""Recorded outputs, not prose: pytest's own logs there say "test session starts"."""

TEXT = {".md", ".py", ".smk", ".yaml", ".yml", ".rst", ".sh", ".cfg", ".toml", ".txt", ""}


def _tracked() -> list[Path]:
    """The tracked text files under ``SCANNED`` (the working tree's files where git is absent)."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *SCANNED],
            cwd=ROOT,
            capture_output=True,
            check=True,
            text=True,
        ).stdout.split("\0")
    except (OSError, subprocess.CalledProcessError):
        listed = [
            str(p.relative_to(ROOT))
            for s in SCANNED
            for p in ([ROOT / s] if (ROOT / s).is_file() else (ROOT / s).rglob("*"))
            if p.is_file()
        ]
    files = [
        ROOT / name
        for name in listed
        if name and not name.startswith(NOT_SCANNED) and Path(name).suffix in TEXT
    ]
    return [f for f in files if f.is_file()]


def development_log_hits(text: str) -> list[str]:
    """``line: word`` for every development-log word in ``text`` outside ``ALLOWED`` uses."""
    hits = []
    for number, line in enumerate(text.splitlines(), 1):
        for allowed in ALLOWED:
            line = re.sub(allowed, "", line)
        for pattern in DEVELOPMENT_LOG:
            hits += [f"{number}: {m.group(0)!r}" for m in re.finditer(pattern, line)]
    return hits


def test_the_word_list_finds_log_phrases_and_spares_ordinary_words():
    """The check itself: log phrases are found, their legitimate neighbours are not."""
    found = "Session 35\nthe last stop's code\nas measured this time\nkept for now\nTODO later\n"
    assert len(development_log_hits(found)) == 5
    spared = (
        '@pytest.fixture(scope="session")\nbench/gpu_session.sh\nstart <= stop <= depth\n'
        "pixels stop early\none_node.sh stop DIR\nat or after this timestamp\n"
    )
    assert development_log_hits(spared) == []


def test_no_development_log_words_in_the_project():
    files = _tracked()
    assert any(f.name == "README.md" for f in files) and len(files) > 100
    hits = {
        str(f.relative_to(ROOT)): found
        for f in files
        if f != Path(__file__).resolve()  # this file names the words it looks for
        if (found := development_log_hits(f.read_text(encoding="utf-8", errors="replace")))
    }
    assert hits == {}, (
        "development-log words (say what the project is; measurements take a date and a "
        f"revision in bench/README.md): {hits}"
    )


def test_readme_is_a_manual():
    """At most 300 lines, and the two set-up commands within its first 40."""
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_LINES, f"README.md has {len(lines)} lines (at most {README_LINES})"
    head = "\n".join(lines[:SETUP_WITHIN])
    for command in SETUP_COMMANDS:
        assert command in head, f"`{command}` is not in README.md's first {SETUP_WITHIN} lines"


LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
"""A Markdown link's target."""


def _headings(path: Path) -> set[str]:
    """GitHub's anchors of ``path``'s headings: lower case, punctuation dropped, spaces -> '-'."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    titles = re.findall(r"^#+\s+(.*)$", text, flags=re.M)
    return {re.sub(r"[^\w\- ]", "", t.strip().lower()).replace(" ", "-") for t in titles}


DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), ROOT / "bench" / "README.md"])


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_reaches_a_file_and_heading(page):
    """Every relative link of README.md, docs/*.md and bench/README.md names an existing file,
    and its #anchor, if any, one of that file's headings."""
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        name, _, anchor = target.partition("#")
        linked = (page.parent / name).resolve() if name else page
        if not linked.exists():
            broken.append(f"{target}: no file {linked}")
        elif anchor and linked.suffix == ".md" and anchor not in _headings(linked):
            broken.append(f"{target}: no heading #{anchor} in {linked.name}")
    assert broken == []
