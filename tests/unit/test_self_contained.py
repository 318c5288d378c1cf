"""A clone is self-contained: no tracked file cites material outside the repository (the
developers' shared folder next to it, its design notes and specs) or an issue number; rules
are cited by the source paper's section and by docs/models/ (docs/models/README.md)."""

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Built from pieces so that this file does not match itself.
SHARED = "sha" + "red"
FORBIDDEN = [
    ("a path into the shared folder beside the repository", re.compile(r"\.\./" + SHARED + r"\b")),
    ("the shared specs", re.compile(SHARED + r"/specs")),
    ("the shared design notes", re.compile(r"\bDESIGN" + r"\.md\b")),
    ("an issue number", re.compile(r"\bissues?\s+#?\d+\b", re.I)),
    ("an issue number", re.compile(r"(?:^|[\s(\[,;])#\d{1,4}\b(?![0-9A-Fa-f])")),
]


def _tracked_text_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout")
    files = []
    for name in out.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file():
            files.append(path)
    return files


def _text(path: Path) -> str | None:
    data = path.read_bytes()
    if b"\0" in data[:8192]:
        return None  # binary
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def test_no_tracked_file_cites_outside_material_or_issue_numbers():
    hits = []
    for path in _tracked_text_files():
        text = _text(path)
        if text is None:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            for what, pattern in FORBIDDEN:
                if pattern.search(line):
                    hits.append(f"{path.relative_to(ROOT)}:{n}: {what}: {line.strip()[:120]}")
    assert not hits, "cite the paper's section and docs/models/ instead:\n" + "\n".join(hits)


ISSUE, HASH = "iss" + "ue", "#"


@pytest.mark.parametrize(
    "line",
    [
        "see ../" + SHARED + "/x",
        SHARED + "/specs/a.md",
        "DESIGN" + ".md conventions",
        f"({ISSUE} 14)",
        f"{ISSUE.title()} 3 targets",
        f"fixed in {HASH}12",
        f"({HASH}7)",
    ],
)
def test_the_patterns_catch_what_they_are_for(line):
    assert any(p.search(line) for _, p in FORBIDDEN)


@pytest.mark.parametrize(
    "line",
    [
        r"\newcommand{\x}[1]{#1}",
        'r"#1"',
        "color: #1f77b4",
        "shared by both wings",
        "a shared/ folder",
        "# 1 comment",
        "tissue 3",
    ],
)
def test_the_patterns_leave_ordinary_text_alone(line):
    assert not any(p.search(line) for _, p in FORBIDDEN)


def test_docs_cited_by_the_code_exist():
    """Every docs/models page a source file cites is in the repository, with the cited section."""
    cited = set()
    for path in (ROOT / "src").rglob("*.py"):
        cited |= set(re.findall(r"docs/models/([a-z-]+\.md)", path.read_text(encoding="utf-8")))
    assert cited
    for page in cited:
        assert (ROOT / "docs" / "models" / page).is_file(), page
    headings = (ROOT / "docs" / "models" / "rejection-model.md").read_text(encoding="utf-8")
    numbers = set(re.findall(r"^#+ (\d+(?:\.\d+)?)\.? ", headings, re.M))
    for path in (ROOT / "src").rglob("*.py"):
        for sec in re.findall(r"rejection-model\.md`{0,2} §(\d+(?:\.\d+)?)", path.read_text(encoding="utf-8")):
            top = sec.split(".")[0]
            assert sec in numbers or top in numbers, f"{path.relative_to(ROOT)} cites rejection-model.md §{sec}"
