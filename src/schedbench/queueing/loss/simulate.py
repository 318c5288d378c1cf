"""Public API of the loss system with adaptive multiserver jobs (seed 002: Ghanbarian,
Mukhopadhyay, Guillemin, Mazumdar, arXiv 2309.00060; model of spec ``queueing-models.md`` §1.3).

n servers, no waiting room; Poisson arrivals at total rate n·λ; each job samples k of the n
servers without replacement and splits into J = min(d, idle servers in the sample) sub-jobs
(blocked if none). Job sizes are Exp(μ). Default: linear speed-up, the J servers are released
together after S/J [R, spec §8.1 default]; option ``independent=True``: each sub-job has its own
Exp(Jμ) size and frees its server alone.

Estimators (batch means over ``batches`` consecutive batches of arrivals after a warm-up):

* ``estimator="conditional"`` (aggregated simulator, default): the time average of
  P(I_s = 0 | state) for blocking and of P(J = j | state) for the split fractions — low
  variance, usable for blocking far below 1e-4;
* ``estimator="count"``: blocked/arrivals and accepted-by-split counts.

E[T] = Σ_j f_j·E[T | J = j] with E[T | J=j] = 1/(jμ) (together) or H_j/(jμ) (independent).
"""

from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from schedbench.seeds import derived_seed
from schedbench.queueing.estimators import batch_ci
from schedbench.queueing.formulas import lam_of_n, log_binom_table, mean_response_given_split
from schedbench.queueing.loss.kernels import (
    A_ARRIVALS, A_BLOCKED, A_BUSY, A_DONE, A_JOBS, A_P0, A_RESP, A_TIME, N_FIXED,
    aggregated_kernel, event_kernel,
)

__all__ = ["LossResult", "simulate_loss"]


@dataclass
class LossResult:
    n: int
    k: int
    d: int
    lam: float
    mu: float
    independent: bool
    method: str
    estimator: str
    blocking: float
    blocking_ci: tuple[float, float]
    mean_response: float
    mean_response_ci: tuple[float, float]
    excess_response: float  # E[T] − E[T | J = d], the distance to the minimum
    excess_response_ci: tuple[float, float]
    split_fractions: np.ndarray = field(repr=False)
    mean_busy: float = math.nan
    mean_busy_ci: tuple[float, float] = (math.nan, math.nan)
    mean_jobs: float = math.nan
    blocking_count: float = math.nan
    mean_response_realized: float = math.nan
    mean_response_realized_ci: tuple[float, float] = (math.nan, math.nan)
    arrivals: int = 0
    events: int = 0
    seconds: float = 0.0
    batches: int = 0

    def as_row(self) -> dict:
        row = asdict(self)
        fr = row.pop("split_fractions")
        for name in [k for k, v in row.items() if isinstance(v, tuple)]:
            lo, hi = row.pop(name)
            row[f"{name}_lo"], row[f"{name}_hi"] = lo, hi
        for j, f in enumerate(fr, start=1):
            row[f"f_{j}"] = float(f)
        return row


def _resolve_load(n: int, load) -> float:
    if isinstance(load, (int, float)) and not isinstance(load, bool):
        lam = float(load)
    elif isinstance(load, dict):
        lam = lam_of_n(n, float(load["beta"]), float(load["alpha"]))
    else:
        raise ValueError(f"load must be λ (a number) or {{'beta': β, 'alpha': α}}, got {load!r}")
    if not lam > 0:
        raise ValueError(f"load: λ must be > 0, got {lam}")
    return lam


def simulate_loss(n: int, k: int, d: int, load, arrivals: int, seed: int = 0,
                  warmup: float = 10.0, method: str = "aggregated", batches: int = 20,
                  estimator: str | None = None, independent: bool = False, mu: float = 1.0,
                  service: str = "exp") -> LossResult:
    """Simulate the loss system; ``load`` is λ or ``{'beta': β, 'alpha': α}`` (λ = 1 − βn^−α).

    ``arrivals`` post-warm-up arrivals are split into ``batches`` batches; ``warmup`` is in time
    units (1/μ = mean job size). ``method``: ``aggregated`` (CTMC, O(d) per event) or ``event``
    (server level, O(k) per arrival; ``service="det"`` gives deterministic job sizes there).
    """
    for name, value, low in (("n", n, 1), ("k", k, 1), ("d", d, 1), ("arrivals", arrivals, 1),
                             ("batches", batches, 2)):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    if k > n:
        raise ValueError(f"k = {k} exceeds n = {n}")
    if method not in ("aggregated", "event"):
        raise ValueError(f"method must be 'aggregated' or 'event', got {method!r}")
    if estimator is None:
        estimator = "conditional" if method == "aggregated" else "count"
    if estimator not in ("conditional", "count"):
        raise ValueError(f"estimator must be 'conditional' or 'count', got {estimator!r}")
    if service not in ("exp", "det"):
        raise ValueError(f"service must be 'exp' or 'det', got {service!r}")
    # event_kernel records no P(I_s = 0 | state) columns; aggregated_kernel is never given `service`
    if method == "event" and estimator == "conditional":
        raise ValueError("simulate_loss: parameter 'estimator' = 'conditional' does not apply to method "
                         "'event' (it only counts: use estimator='count')")
    if method == "aggregated" and service == "det":
        raise ValueError("simulate_loss: parameter 'service' = 'det' does not apply to method "
                         "'aggregated' (its CTMC needs exponential job sizes: use method='event')")
    if not (mu > 0 and warmup >= 0):
        raise ValueError(f"need mu > 0 and warmup >= 0, got mu={mu}, warmup={warmup}")
    lam = _resolve_load(n, load)
    per_batch = max(1, int(arrivals) // int(batches))
    kernel_seed = derived_seed(seed, "loss", method, n, k, d) % (2**32 - 1)
    t0 = time.perf_counter()
    if method == "aggregated":
        c0 = np.zeros(d, dtype=np.int64)
        c0[d - 1] = d * (int(min(n, n * lam / mu)) // d)  # start at the fluid point
        acc, events = aggregated_kernel(n, k, d, n * lam, mu, independent, c0, float(warmup),
                                        int(batches), per_batch, log_binom_table(n), kernel_seed)
    else:
        acc, events = event_kernel(n, k, d, n * lam, mu, independent, service == "det",
                                   float(warmup), int(batches), per_batch, kernel_seed)
    seconds = time.perf_counter() - t0
    return _estimate(acc, n, k, d, lam, mu, independent, method, estimator, int(events), seconds)


def _estimate(acc, n, k, d, lam, mu, independent, method, estimator, events, seconds) -> LossResult:
    t_j = mean_response_given_split(np.arange(1, d + 1), mu, independent)
    arrivals = acc[:, A_ARRIVALS]
    blocked_count = acc[:, A_BLOCKED] / arrivals
    accepted_j = acc[:, N_FIXED:N_FIXED + d]
    if estimator == "conditional":
        blocking_b = acc[:, A_P0] / acc[:, A_TIME]
        cond = acc[:, N_FIXED + d:N_FIXED + 2 * d]
        frac_b = cond / cond.sum(axis=1, keepdims=True)
    else:
        blocking_b = blocked_count
        frac_b = accepted_j / np.maximum(accepted_j.sum(axis=1, keepdims=True), 1.0)
    resp_b = frac_b @ t_j
    excess_b = frac_b @ (t_j - t_j[-1])
    busy_b = acc[:, A_BUSY] / acc[:, A_TIME]
    blocking, blocking_ci = batch_ci(blocking_b)
    resp, resp_ci = batch_ci(resp_b)
    excess, excess_ci = batch_ci(excess_b)
    busy, busy_ci = batch_ci(busy_b)
    realized, realized_ci = math.nan, (math.nan, math.nan)
    if method == "event":
        realized, realized_ci = batch_ci(acc[:, A_RESP] / np.maximum(acc[:, A_DONE], 1.0))
    jobs = math.nan if independent else float((acc[:, A_JOBS].sum()) / acc[:, A_TIME].sum())
    return LossResult(
        n=n, k=k, d=d, lam=lam, mu=mu, independent=independent, method=method, estimator=estimator,
        blocking=blocking, blocking_ci=blocking_ci, mean_response=resp, mean_response_ci=resp_ci,
        excess_response=excess, excess_response_ci=excess_ci, split_fractions=frac_b.mean(axis=0),
        mean_busy=busy, mean_busy_ci=busy_ci, mean_jobs=jobs,
        blocking_count=float(acc[:, A_BLOCKED].sum() / arrivals.sum()),
        mean_response_realized=realized, mean_response_realized_ci=realized_ci,
        arrivals=int(arrivals.sum()), events=events, seconds=seconds, batches=acc.shape[0],
    )
