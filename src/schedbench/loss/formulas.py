"""Closed-form oracles for loss systems (``docs/models/loss-system.md`` §5, §2 items 4–6).

Every function checks its arguments first (docs/hostile-input.md): NaN, ±inf, negative or zero where a
positive value is needed, fractional counts, and sizes beyond the documented bounds are a
ValueError naming the argument, never a NaN, a silent truncation or an endless loop.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

from schedbench.hall import arguments as arg

__all__ = [
    "lam_of_n",
    "k_schedule",
    "sampled_birth_death_d1",
    "log_binom_table",
    "min_response",
    "mean_response_given_split",
    "LOOP_MAX_N",
]

#: the largest n of the O(n) Python loops of :func:`sampled_birth_death_d1` and of the split
#: count of :func:`mean_response_given_split` with independent sub-jobs
LOOP_MAX_N = 10**7


def lam_of_n(n: int, beta: float, alpha: float) -> float:
    """Per-server arrival rate λ(n) = 1 − β n^(−α) of the loss model (must be > 0).

    ``n``: an integer >= 1 (a whole float is accepted); ``beta``, ``alpha``: finite."""
    n = arg.integer("lam_of_n", "n", n, low=1, integral_float=True)
    beta = arg.real("lam_of_n", "beta", beta)
    alpha = arg.real("lam_of_n", "alpha", alpha)
    try:
        lam = 1.0 - beta * n ** (-alpha)
    except OverflowError:
        raise ValueError(f"lam_of_n: alpha = {alpha}: n^(−α) overflows for n = {n}") from None
    if not math.isfinite(lam):
        raise ValueError(f"lam_of_n: λ(n) = 1 − {beta}·{n}^(−{alpha}) is not finite (beta, alpha)")
    if lam <= 0:
        # the message starts with λ(n): the config check prefixes it with the experiment's key
        raise ValueError(
            f"λ(n) = 1 − {beta}·{n}^(−{alpha}) = {lam} is not positive (lam_of_n: beta = {beta}, alpha = {alpha})"
        )
    return lam


def _ceil_clipped(x: float, n: int) -> int:
    """⌈x⌉ clipped to 1..n (x may be +inf: then n)."""
    if x >= n:
        return n
    return int(min(max(math.ceil(x), 1), n))


def k_schedule(
    n: int,
    rule: str,
    c: float = 1.0,
    alpha: float = 0.5,
    gamma: float = 0.5,
    k: int | None = None,
    fraction: float = 1.0,
) -> int:
    """Sample size k(n) (loss-system.md §1): ``full`` (k = n), ``log`` (⌈c·n^α·ln n⌉), ``power``
    (⌈n^γ⌉), ``const`` (k), ``fraction`` (⌈fraction·n⌉). The formula rules are clipped to 1..n
    (part of their definition); an explicit ``const`` k larger than n is an error.

    ``n``: an integer >= 1; ``c`` and ``fraction``: finite and > 0; ``alpha``, ``gamma``: finite;
    ``k`` (rule ``const``): an integer >= 1 (whole floats are accepted; others are an error, not
    truncated)."""
    func = "k_schedule"
    n = arg.integer(func, "n", n, low=1, integral_float=True)
    if not isinstance(rule, str):
        raise ValueError(f"{func}: rule must be one of full, log, power, const or fraction, got {rule!r}")
    c = arg.real(func, "c", c, low=0.0, low_open=True)
    alpha = arg.real(func, "alpha", alpha)
    gamma = arg.real(func, "gamma", gamma)
    fraction = arg.real(func, "fraction", fraction, low=0.0, low_open=True)
    try:
        if rule == "full":
            return n
        if rule == "fraction":
            return _ceil_clipped(fraction * n - 1e-9, n)
        if rule == "log":
            return _ceil_clipped(c * n**alpha * math.log(n), n)
        if rule == "power":
            return _ceil_clipped(n**gamma - 1e-9, n)
    except OverflowError:  # n^α or n^γ beyond floats: far above n
        return n
    if rule == "const":
        if k is None:
            raise ValueError("k_schedule rule 'const' needs k")
        k = arg.integer(func, "k", k, low=1, integral_float=True)
        if k > n:  # an explicit k is never clipped silently
            raise ValueError(f"{func}: k = {k} exceeds n = {n} (a job cannot sample more servers than exist)")
        return k
    raise ValueError(f"unknown k rule {rule!r}; use full, log, power, const or fraction")


def log_binom_table(n: int) -> np.ndarray:
    """log(i!) for i = 0..n, so log C(a, b) = T[a] − T[b] − T[a−b]."""
    n = arg.integer("log_binom_table", "n", n, low=0)
    arg.check_sizes("log_binom_table", "n", n + 1.0, f"a table of log-factorials 0..{n}")
    return gammaln(np.arange(n + 1, dtype=np.float64) + 1.0)


def sampled_birth_death_d1(n: int, k: int, lam: float, mu: float = 1.0) -> float:
    """Blocking with d = 1 and a k-sample (§1.3 item 6): the busy count Z is birth–death with
    birth rate nλ(1 − C(Z,k)/C(n,k)) and death rate μZ; P_B = Σ π(Z) C(Z,k)/C(n,k).

    ``n``: an integer 1..:data:`LOOP_MAX_N`; ``k``: 1..n; ``lam``, ``mu``: finite rates > 0."""
    func = "sampled_birth_death_d1"
    n = arg.integer(func, "n", n, low=1, high=LOOP_MAX_N)
    k = arg.integer(func, "k", k, low=1)
    if k > n:
        raise ValueError(f"{func}: k = {k} exceeds n = {n}")
    lam = arg.rate(func, "lam", lam)
    mu = arg.rate(func, "mu", mu)
    arg.rate(func, "lam", n * lam)  # the total arrival rate nλ must be finite too
    lt = log_binom_table(n)
    z = np.arange(n + 1)
    with np.errstate(invalid="ignore"):
        log_all_busy = np.where(z >= k, lt[z] - lt[k] - lt[np.maximum(z - k, 0)], -np.inf) - (lt[n] - lt[k] - lt[n - k])
    all_busy = np.exp(log_all_busy)  # P(sample of k all busy | Z busy)
    log_pi = np.zeros(n + 1)
    for zz in range(1, n + 1):
        birth = n * lam * (1.0 - all_busy[zz - 1])
        log_pi[zz] = log_pi[zz - 1] + (math.log(birth) if birth > 0 else -np.inf) - math.log(mu * zz)
    pi = np.exp(log_pi - log_pi.max())
    pi /= pi.sum()
    out = float(np.dot(pi, all_busy))
    arg.finite_result(func, "the blocking probability", "lam, mu", out)
    return out


def mean_response_given_split(j: np.ndarray | int, mu: float = 1.0, independent: bool = False):
    """E[T | J = j]: 1/(jμ) when the J sub-jobs are released together (linear speed-up);
    H_j/(jμ) (the max of j Exp(jμ)) with independent sub-job sizes.

    ``j``: integers >= 1 (at most :data:`LOOP_MAX_N` with ``independent``); ``mu``: a finite
    rate > 0."""
    func = "mean_response_given_split"
    mu = arg.rate(func, "mu", mu)
    independent = arg.flag(func, "independent", independent)
    if isinstance(j, (bool, np.bool_)):
        raise ValueError(f"{func}: j must be integers >= 1, got {j!r}")
    j = np.asarray(j)
    if (
        j.dtype.kind not in "iuf"
        or (j.dtype.kind == "f" and not np.all(np.isfinite(j) & (j == np.round(j))))
        or np.any(j < 1)
    ):
        raise ValueError(f"{func}: j must be integers >= 1, got {j!r}")
    if independent and np.any(j > LOOP_MAX_N):
        raise ValueError(f"{func}: j must be <= {LOOP_MAX_N} with independent sub-jobs, got {j.max()!r}")
    j = j.astype(np.float64)
    with np.errstate(over="ignore"):  # the overflow is the error raised here, not a warning
        overflows = not np.all(np.isfinite(j * mu))
    if overflows:
        raise ValueError(f"{func}: mu = {mu!r} is too large (j·mu overflows)")
    if not independent:
        return 1.0 / (j * mu)
    harmonic = np.array([np.sum(1.0 / np.arange(1, int(v) + 1)) for v in np.atleast_1d(j)])
    return (harmonic / (np.atleast_1d(j) * mu)).reshape(j.shape)


def min_response(d: int, mu: float = 1.0, independent: bool = False) -> float:
    """The smallest achievable mean response time: every job split d ways (``d`` an integer >= 1)."""
    d = arg.integer("min_response", "d", d, low=1, high=2**62)
    mu = arg.rate("min_response", "mu", mu)
    return float(mean_response_given_split(d, mu, independent))
