"""Closed-form oracles for loss systems (spec ``queueing-models.md`` §5.1, §1.3 items 4–6)."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import gammaln

__all__ = ["erlang_b", "lam_of_n", "k_schedule", "sampled_birth_death_d1", "log_binom_table",
           "min_response", "mean_response_given_split"]


def erlang_b(c: int, a: float) -> float:
    """Erlang-B blocking of M/M/c/c with offered load a = λ/μ (stable recursion, §5.1)."""
    if c < 0 or a < 0:
        raise ValueError(f"erlang_b needs c >= 0 and a >= 0, got c={c}, a={a}")
    b = 1.0
    for j in range(1, int(c) + 1):
        b = a * b / (j + a * b)
    return b


def lam_of_n(n: int, beta: float, alpha: float) -> float:
    """Per-server arrival rate λ(n) = 1 − β n^(−α) of seed 002 (must be > 0)."""
    lam = 1.0 - beta * n ** (-alpha)
    if lam <= 0:
        raise ValueError(f"λ(n) = 1 − {beta}·{n}^(−{alpha}) = {lam} is not positive")
    return lam


def k_schedule(n: int, rule: str, c: float = 1.0, alpha: float = 0.5, gamma: float = 0.5,
               k: int | None = None, fraction: float = 1.0) -> int:
    """Sample size k(n) (issue 3): ``full`` (k = n), ``log`` (⌈c·n^α·ln n⌉), ``power``
    (⌈n^γ⌉), ``const`` (k), ``fraction`` (⌈fraction·n⌉). Always clipped to 1..n."""
    if rule == "full":
        value = n
    elif rule == "fraction":
        value = math.ceil(fraction * n - 1e-9)
    elif rule == "log":
        value = math.ceil(c * n**alpha * math.log(n))
    elif rule == "power":
        value = math.ceil(n**gamma - 1e-9)
    elif rule == "const":
        if k is None:
            raise ValueError("k_schedule rule 'const' needs k")
        value = int(k)
    else:
        raise ValueError(f"unknown k rule {rule!r}; use full, log, power, const or fraction")
    return int(min(max(value, 1), n))


def log_binom_table(n: int) -> np.ndarray:
    """log(i!) for i = 0..n, so log C(a, b) = T[a] − T[b] − T[a−b]."""
    return gammaln(np.arange(n + 1, dtype=np.float64) + 1.0)


def sampled_birth_death_d1(n: int, k: int, lam: float, mu: float = 1.0) -> float:
    """Blocking with d = 1 and a k-sample (§1.3 item 6): the busy count Z is birth–death with
    birth rate nλ(1 − C(Z,k)/C(n,k)) and death rate μZ; P_B = Σ π(Z) C(Z,k)/C(n,k)."""
    lt = log_binom_table(n)
    z = np.arange(n + 1)
    with np.errstate(invalid="ignore"):
        log_all_busy = np.where(z >= k, lt[z] - lt[k] - lt[np.maximum(z - k, 0)], -np.inf) \
            - (lt[n] - lt[k] - lt[n - k])
    all_busy = np.exp(log_all_busy)  # P(sample of k all busy | Z busy)
    log_pi = np.zeros(n + 1)
    for zz in range(1, n + 1):
        birth = n * lam * (1.0 - all_busy[zz - 1])
        log_pi[zz] = log_pi[zz - 1] + (math.log(birth) if birth > 0 else -np.inf) - math.log(mu * zz)
    pi = np.exp(log_pi - log_pi.max())
    pi /= pi.sum()
    return float(np.dot(pi, all_busy))


def mean_response_given_split(j: np.ndarray | int, mu: float = 1.0, independent: bool = False):
    """E[T | J = j]: 1/(jμ) when the J sub-jobs are released together (linear speed-up);
    H_j/(jμ) (the max of j Exp(jμ)) with independent sub-job sizes."""
    j = np.asarray(j, dtype=np.float64)
    if not independent:
        return 1.0 / (j * mu)
    harmonic = np.array([np.sum(1.0 / np.arange(1, int(v) + 1)) for v in np.atleast_1d(j)])
    return (harmonic / (np.atleast_1d(j) * mu)).reshape(j.shape)


def min_response(d: int, mu: float = 1.0, independent: bool = False) -> float:
    """The smallest achievable mean response time: every job split d ways."""
    return float(mean_response_given_split(d, mu, independent))
