"""Table T2 (``docs/models/bipartite.md`` §7): the bipartite simulator against exact values and limits.

Exact checks pass within 3 batch-means standard errors; limits (mean field, fluid) within a
relative tolerance (1 % or 2 %, §7)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import stats

from schedbench.bipartite.simulate import neighbors_csr, simulate_bipartite
from schedbench.bipartite.oracles import (
    jiq_fluid,
    policy_ctmc,
    pod_mean_field,
    random_exact,
    t_star_greedy,
    token_product_form,
    token_single_type,
)
from schedbench.hall.erlang import erlang_b
from schedbench.bipartite.graphs import random_degree
from schedbench.hall.seeds import rng

__all__ = ["run_checks", "BATCHES"]

BATCHES = 20  # simulate_bipartite's default number of batch means


def _row(
    name: str, quantity: str, kind: str, reference: float, r, value: float, ci, tol: float = 0.01
) -> dict[str, Any]:
    se = (ci[1] - ci[0]) / (2 * stats.t.ppf(0.975, BATCHES - 1))
    z = (value - reference) / se if se > 0 else math.nan
    passed = abs(z) <= 3 if kind == "exact" else abs(value / reference - 1) <= tol
    return {
        "check": name,
        "quantity": quantity,
        "kind": kind,
        "reference": reference,
        "simulated": value,
        "ci_lo": ci[0],
        "ci_hi": ci[1],
        "z": z,
        "tolerance": "3 SE" if kind == "exact" else f"{tol:.0%}",
        "passed": bool(passed),
        "arrivals": r.arrivals,
    }


def run_checks(seed: int, arrivals: int) -> list[dict[str, Any]]:
    rows = []
    # token policy, SLACC scenario (bipartite.md §6), ρ = 1
    mu = np.array([1.0] * 5 + [4.0] * 5)
    mu = mu / mu.sum()
    ex = token_single_type(mu, 1.0, [6] * 10)
    r = simulate_bipartite(mu, [1.0], "complete", "token-oldest", arrivals=arrivals, seed=seed, tokens=[6] * 10)
    rows.append(
        _row("token, SLACC 10 servers, 6 tokens, rho=1", "blocking", "exact", ex.blocking, r, r.blocking, r.blocking_ci)
    )
    rows.append(
        _row(
            "token, SLACC 10 servers, 6 tokens, rho=1",
            "E[T]",
            "exact",
            ex.mean_response,
            r,
            r.mean_response,
            r.mean_response_ci,
        )
    )
    # token policy with two types and a sparse graph
    mu2 = np.array([1.0, 2.0, 1.5, 0.5, 3.0])
    nbrs = [[0, 1, 2], [1, 3, 4]]
    ip, ix, _ = neighbors_csr(nbrs, 5, 2, mu2)
    ex = token_product_form(mu2, [2.0, 3.0], ip, ix, [2, 1, 3, 1, 2])
    r = simulate_bipartite(
        mu2, [2.0, 3.0], nbrs, "token-oldest", arrivals=arrivals, seed=seed + 1, tokens=[2, 1, 3, 1, 2]
    )
    rows.append(_row("token, 2 types on 5 servers", "blocking", "exact", ex.blocking, r, r.blocking, r.blocking_ci))
    rows.append(
        _row("token, 2 types on 5 servers", "E[T]", "exact", ex.mean_response, r, r.mean_response, r.mean_response_ci)
    )
    # random dispatch on a sparse random graph: M/M/1 decomposition (bipartite.md §4)
    mu3 = np.r_[np.full(10, 2.0), np.full(10, 1.0)]
    lam3 = np.full(20, 0.4 * mu3.sum() / 20)
    ip, ix = random_degree(20, 20, 4, rng(1, "graph"))
    r = simulate_bipartite(mu3, lam3, (ip, ix), "random", arrivals=arrivals, seed=seed + 2)
    rows.append(
        _row(
            "random, N=M=20, degree 4, rho=0.4",
            "E[T]",
            "exact",
            random_exact(mu3, lam3, ip, ix),
            r,
            r.mean_response,
            r.mean_response_ci,
        )
    )
    # JFSQ with deterministic ties on 2 servers: exact truncated CTMC (bipartite.md §7)
    mu4 = np.array([2.0, 1.0])
    ip, ix, _ = neighbors_csr("complete", 2, 1, mu4)
    exact, _ = policy_ctmc(mu4, [2.1], ip, ix, lambda m, q: min((0, 1), key=lambda n: (q[n], -mu4[n], n)), 40)
    r = simulate_bipartite(mu4, [2.1], "complete", "jfsq", arrivals=arrivals, seed=seed + 3, ties="index")
    rows.append(
        _row("JFSQ, mu=(2,1), index ties, CTMC", "E[T]", "exact", exact, r, r.mean_response, r.mean_response_ci)
    )
    # JIQ without waiting room is Erlang-B
    r = simulate_bipartite(np.ones(8), [6.0], "complete", "jiq", arrivals=arrivals, seed=seed + 4, buffers=1)
    rows.append(
        _row(
            "JIQ, 8 servers, no buffer (Erlang-B)", "blocking", "exact", erlang_b(8, 6.0), r, r.blocking, r.blocking_ci
        )
    )
    # limits: power of two (N = 1000) and the heterogeneous JIQ fluid / T* (N = 1000)
    r = simulate_bipartite(
        np.ones(1000), np.full(1000, 0.9), "complete", "jsq-d", d=2, arrivals=arrivals, seed=seed + 5
    )
    rows.append(
        _row(
            "JSQ(2), N=1000, lambda=0.9",
            "E[T]",
            "limit",
            pod_mean_field(0.9, 2),
            r,
            r.mean_response,
            r.mean_response_ci,
        )
    )
    mu5 = np.r_[np.full(500, 2.0), np.full(500, 1.0)]
    lam5 = np.full(1000, 0.6 * mu5.sum() / 1000)
    r = simulate_bipartite(mu5, lam5, "complete", "jiq", arrivals=arrivals, seed=seed + 6)
    rows.append(
        _row(
            "JIQ, N=1000, mu in {2,1}, rho=0.6",
            "E[T]",
            "limit",
            jiq_fluid(mu5, lam5.sum()),
            r,
            r.mean_response,
            r.mean_response_ci,
        )
    )
    r = simulate_bipartite(mu5, lam5, "complete", "jfiq", arrivals=arrivals, seed=seed + 7)
    rows.append(
        _row(
            "JFIQ, N=1000, mu in {2,1}, rho=0.6",
            "E[T]",
            "limit",
            t_star_greedy(mu5, lam5.sum()),
            r,
            r.mean_response,
            r.mean_response_ci,
            tol=0.02,
        )
    )
    return rows
