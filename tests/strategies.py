"""Hypothesis strategies for small instances."""

from __future__ import annotations

from hypothesis import strategies as st

from schedbench.scheduling.model import Instance


@st.composite
def instances(draw, max_m: int = 4, max_n: int = 7, unit: bool | None = None, max_size: int = 8):
    m = draw(st.integers(1, max_m))
    n = draw(st.integers(1, max_n))
    release = sorted(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    if unit is None:
        unit = draw(st.booleans())
    size = [1] * n if unit else draw(st.lists(st.integers(1, max_size), min_size=n, max_size=n))
    eligible = [sorted(draw(st.sets(st.integers(0, m - 1), min_size=1, max_size=m))) for _ in range(n)]
    return Instance.from_lists(m, release, size, eligible)
