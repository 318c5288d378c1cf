"""Public API of the loss system with adaptive multiserver jobs (Ghanbarian,
Mukhopadhyay, Guillemin, Mazumdar, arXiv 2309.00060; model of ``docs/models/loss-system.md`` §1).

n servers, no waiting room; Poisson arrivals at total rate n·λ; each job samples k of the n
servers without replacement and splits into J = min(d, idle servers in the sample) sub-jobs
(blocked if none). Job sizes are Exp(μ). Default: linear speed-up, the J servers are released
together after S/J [R, loss-system.md §8]; option ``independent=True``: each sub-job has its own
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

from schedbench.hall.seeds import derived_seed
from schedbench.hall import arguments as arg
from schedbench.hall.stats import batch_ci
from schedbench.loss.formulas import lam_of_n, log_binom_table, mean_response_given_split
from schedbench.loss.kernels import (
    A_ARRIVALS,
    A_BLOCKED,
    A_BUSY,
    A_DONE,
    A_JOBS,
    A_P0,
    A_RESP,
    A_TIME,
    N_FIXED,
    aggregated_kernel,
    event_kernel,
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
    if isinstance(load, (int, float, np.integer, np.floating)) and not isinstance(load, (bool, np.bool_)):
        lam = float(load)
    elif isinstance(load, dict):
        if set(load) != {"beta", "alpha"}:
            raise ValueError(f"simulate_loss: load must be λ (a number) or {{'beta': β, 'alpha': α}}, got {load!r}")
        for key in ("beta", "alpha"):
            arg.real("simulate_loss", f"load[{key!r}]", load[key])
        try:
            lam = lam_of_n(n, float(load["beta"]), float(load["alpha"]))
        except ValueError as exc:
            raise ValueError(f"simulate_loss: load: {exc}") from None
    else:
        raise ValueError(f"simulate_loss: load must be λ (a number) or {{'beta': β, 'alpha': α}}, got {load!r}")
    if not (lam > 0 and math.isfinite(lam) and math.isfinite(1.0 / (n * lam))):
        raise ValueError(
            f"simulate_loss: load: λ must be > 0 and finite (with n·λ finite and not vanishing), got {lam}"
        )
    return lam


def simulate_loss(
    n: int,
    k: int,
    d: int,
    load,
    arrivals: int,
    seed: int = 0,
    warmup: float = 10.0,
    method: str = "aggregated",
    batches: int = 20,
    estimator: str | None = None,
    independent: bool = False,
    mu: float = 1.0,
    service: str = "exp",
) -> LossResult:
    """Simulate the loss system; ``load`` is λ or ``{'beta': β, 'alpha': α}`` (λ = 1 − βn^−α).

    ``arrivals`` post-warm-up arrivals are split into ``batches`` batches; ``warmup`` is in time
    units (1/μ = mean job size). ``method``: ``aggregated`` (CTMC, O(d) per event) or ``event``
    (server level, O(k) per arrival; ``service="det"`` gives deterministic job sizes there).

    Arguments are checked before any kernel runs, each error naming the argument: ``n``, ``k``,
    ``d`` integers >= 1 with k <= n; ``load`` a finite λ > 0 (or finite β, α giving one);
    ``mu`` a finite rate > 0; ``warmup`` finite and >= 0; ``arrivals >= batches`` (every batch
    needs an arrival); ``seed`` an integer >= 0. Bounds against endless runs and huge
    allocations: the warm-up's expected events ``warmup·(nλ + nμ·(d if independent else 1))``
    at most :data:`~schedbench.hall.arguments.MAX_WARMUP_EVENTS`, and tables of at most
    :data:`~schedbench.hall.arguments.MAX_CELLS` entries (n + 1 log-factorials; the event
    method's n × (d + 10) job table; batches × (8 + 2d) accumulators). A loss system has no
    queue, so every load is stable: λ > 1 is simulated (most arrivals are then blocked).
    """
    func = "simulate_loss"
    n = arg.integer(func, "n", n, low=1)
    k = arg.integer(func, "k", k, low=1)
    d = arg.integer(func, "d", d, low=1)
    arrivals, batches = arg.arrivals_batches(func, arrivals, batches)
    if k > n:
        raise ValueError(f"{func}: k = {k} exceeds n = {n}")
    if not isinstance(method, str) or method not in ("aggregated", "event"):
        raise ValueError(f"{func}: method must be 'aggregated' or 'event', got {method!r}")
    if estimator is None:
        estimator = "conditional" if method == "aggregated" else "count"
    if not isinstance(estimator, str) or estimator not in ("conditional", "count"):
        raise ValueError(f"{func}: estimator must be 'conditional' or 'count', got {estimator!r}")
    if not isinstance(service, str) or service not in ("exp", "det"):
        raise ValueError(f"{func}: service must be 'exp' or 'det', got {service!r}")
    # event_kernel records no P(I_s = 0 | state) columns; aggregated_kernel is never given `service`
    if method == "event" and estimator == "conditional":
        raise ValueError(
            "simulate_loss: parameter 'estimator' = 'conditional' does not apply to method "
            "'event' (it only counts: use estimator='count')"
        )
    if method == "aggregated" and service == "det":
        raise ValueError(
            "simulate_loss: parameter 'service' = 'det' does not apply to method "
            "'aggregated' (its CTMC needs exponential job sizes: use method='event')"
        )
    mu = arg.rate(func, "mu", mu)
    warmup = arg.real(func, "warmup", warmup, low=0.0)
    independent = arg.flag(func, "independent", independent)
    seed = arg.seed(func, seed)
    arg.check_sizes(
        func, "batches x d", float(batches) * (N_FIXED + 2 * d), f"{batches} batches x {N_FIXED + 2 * d} accumulators"
    )
    if method == "aggregated":
        arg.check_sizes(func, "n", n + 1.0, f"a table of log-factorials 0..{n}")
    else:
        arg.check_sizes(func, "n x d", float(n) * (d + 10), "the event method's n x (d + 10) server and job tables")
    lam = _resolve_load(n, load)
    event_rate = n * lam + n * mu * (d if independent else 1)  # arrivals + the largest departure rate
    if not math.isfinite(event_rate):
        raise ValueError(
            f"{func}: the event rate nλ + nμ·{d if independent else 1} overflows "
            f"(load λ = {lam!r}, mu = {mu!r}): rescale the rates"
        )
    arg.warmup_events(func, warmup, event_rate, "load, mu")
    per_batch = max(1, int(arrivals) // int(batches))
    kernel_seed = derived_seed(seed, "loss", method, n, k, d) % (2**32 - 1)
    t0 = time.perf_counter()
    if method == "aggregated":
        c0 = np.zeros(d, dtype=np.int64)
        c0[d - 1] = d * (int(min(n, n * lam / mu)) // d)  # start at the fluid point
        acc, events = aggregated_kernel(
            n,
            k,
            d,
            n * lam,
            mu,
            independent,
            c0,
            float(warmup),
            int(batches),
            per_batch,
            log_binom_table(n),
            kernel_seed,
        )
    else:
        acc, events = event_kernel(
            n, k, d, n * lam, mu, independent, service == "det", float(warmup), int(batches), per_batch, kernel_seed
        )
    seconds = time.perf_counter() - t0
    return _estimate(acc, n, k, d, lam, mu, independent, method, estimator, int(events), seconds)


def _estimate(acc, n, k, d, lam, mu, independent, method, estimator, events, seconds) -> LossResult:
    t_j = mean_response_given_split(np.arange(1, d + 1), mu, independent)
    arrivals = acc[:, A_ARRIVALS]
    blocked_count = acc[:, A_BLOCKED] / arrivals
    accepted_j = acc[:, N_FIXED : N_FIXED + d]
    if estimator == "conditional":
        blocking_b = acc[:, A_P0] / acc[:, A_TIME]
        cond = acc[:, N_FIXED + d : N_FIXED + 2 * d]
        with np.errstate(invalid="ignore", divide="ignore"):  # a batch with no weight is refused below
            frac_b = cond / cond.sum(axis=1, keepdims=True)
    else:
        blocking_b = blocked_count
        frac_b = accepted_j / np.maximum(accepted_j.sum(axis=1, keepdims=True), 1.0)
    weight = (cond if estimator == "conditional" else accepted_j).sum(axis=1)
    if not np.all(weight > 0):  # E[T] of accepted jobs is undefined (count: would read as 0)
        raise ValueError(
            f"simulate_loss: no job could be accepted in {int(np.sum(~(weight > 0)))} of "
            f"{weight.size} batches (blocking ≈ 1 at load λ/μ = {lam / mu:.3g} per server): "
            f"E[T] is undefined; lower the load, raise mu, or give more arrivals per batch"
        )
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
        n=n,
        k=k,
        d=d,
        lam=lam,
        mu=mu,
        independent=independent,
        method=method,
        estimator=estimator,
        blocking=blocking,
        blocking_ci=blocking_ci,
        mean_response=resp,
        mean_response_ci=resp_ci,
        excess_response=excess,
        excess_response_ci=excess_ci,
        split_fractions=frac_b.mean(axis=0),
        mean_busy=busy,
        mean_busy_ci=busy_ci,
        mean_jobs=jobs,
        blocking_count=float(acc[:, A_BLOCKED].sum() / arrivals.sum()),
        mean_response_realized=realized,
        mean_response_realized_ci=realized_ci,
        arrivals=int(arrivals.sum()),
        events=events,
        seconds=seconds,
        batches=acc.shape[0],
    )
