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


def test_every_python_block_of_the_readme_runs(tmp_path, monkeypatch):
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 3  # the LoadBalancing API, the loss system, the bipartite model
    monkeypatch.chdir(tmp_path)
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, "README.md", "exec"), namespace)
    r = namespace["r"]  # the bipartite example: JFIQ near T* on 1000 servers at ρ = 0.8
    assert abs(r.mean_response - 0.5833) < 0.03


def test_readme_flow_example_prints_what_it_says():
    text = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "opt_max_flow" in b)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    opt, rej, fast = namespace["opt"], namespace["rej"], namespace["fast"]
    assert (opt.value, opt.status, opt.solver) == (3.0, "optimal", "hopcroft-karp")
    assert round(rej.ratio, 2) == 1.67 and rej.rejected_frac == 0 and rej.valid
    assert round(fast.ratio, 2) == 1.07 and fast.valid and namespace["mig"].valid


def test_readme_worst_case_example():
    text = (ROOT / "README.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "worst_case(" in b)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)
    wc = namespace["wc"]
    assert (wc.ratio, wc.proved, wc.replayed) == (3.0, True, True)
