"""The README's Python example runs and prints what it says (documented examples are tests)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_readme_python_example(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    block = re.search(r"## Python API\n\n```python\n(.*?)```", text, re.S).group(1)
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    res = namespace["res"]
    # the comment in the README: 2.0, 1.0, 'optimal'
    assert (res.objective, res.ratio, res.opt.status) == (2.0, 1.0, "optimal")
    assert res.valid and (tmp_path / "inst.npz").exists()
