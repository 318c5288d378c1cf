"""The Erlang-B formula B(c, a), the blocking probability of c servers at offered load a: shared
by the queueing wings' oracles and checks."""

from __future__ import annotations

from schedbench.hall import arguments as arg

#: the largest c of :func:`erlang_b` (an O(c) recursion in Python: about 10 s at the bound)
ERLANG_B_MAX_C = 10**8


def erlang_b(c: int, a: float) -> float:
    """Erlang-B blocking of M/M/c/c with offered load a = λ/μ (stable recursion, §5.1).

    ``c``: an integer 0..:data:`ERLANG_B_MAX_C` (a whole float is accepted); ``a``: finite, >= 0."""
    c = arg.integer("erlang_b", "c", c, low=0, high=ERLANG_B_MAX_C, integral_float=True)
    a = arg.real("erlang_b", "a", a, low=0.0)
    b = 1.0
    for j in range(1, c + 1):
        b = a * b / (j + a * b)
        if b == 0.0:  # stays 0 for every later j: the same value, without the remaining loop
            break
    return b
