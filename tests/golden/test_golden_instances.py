"""Golden vectors (COCO style): the instance generators must keep producing these exact
instances for these seeds, so published numbers stay reproducible. If a generator change is
intended, regenerate with ``python tests/golden/test_golden_instances.py --update`` and say so
in the commit."""

import hashlib
import json
import sys
from pathlib import Path

import numpy as np

from schedbench.scheduling.registry import get_family

GOLDEN = Path(__file__).with_name("instances.json")
CASES = {
    "rr-unit-poisson": (
        "random-restricted",
        0,
        20261129,
        dict(m=64, n=4096, d=2, sizes="unit", arrivals="poisson", rate=64.0),
    ),
    "rr-pow2-zero": ("random-restricted", 3, 20261129, dict(m=16, n=200, d=2, sizes="pow2", max_size_exp=5)),
    "rr-dense": ("random-restricted", 1, 5, dict(m=8, n=100, d=6)),
    "anr-K6": ("anr-tree", 0, 0, dict(K=6)),
}


def digest(family, index, seed, params):
    inst = get_family(family).make(index, seed, **params)
    h = hashlib.sha256()
    for arr in (inst.release, inst.size, inst.indptr, inst.indices, inst.w_flow, inst.w_reject):
        h.update(np.ascontiguousarray(arr).tobytes())
    return {
        "sha256": h.hexdigest(),
        "n": inst.n,
        "m": inst.m,
        "size_sum": int(inst.size.sum()),
        "first_eligible": inst.eligible(0).tolist(),
    }


def test_golden_instances_unchanged():
    golden = json.loads(GOLDEN.read_text())
    assert set(golden) == set(CASES)
    for name, case in CASES.items():
        assert digest(*case) == golden[name], name


if __name__ == "__main__" and "--update" in sys.argv:
    GOLDEN.write_text(json.dumps({k: digest(*v) for k, v in CASES.items()}, indent=2) + "\n")
