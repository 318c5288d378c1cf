"""Experiments B1–B5 of ``docs/models/bipartite.md`` §9 and the exact-check table.

A *group* is (experiment, N, load, graph): one random graph (seeded by the group), its lower
bounds T*_N (greedy fill) and the graph-constrained bound (computed by max flows, which equal the
HiGHS LP to 1e-9 in the tests and take seconds where the LP takes minutes at N = 2000), and every
policy simulated on it. Seeds derive
from the group and the policy only, so batching does not change results.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import numpy as np

from schedbench.hall.seeds import derived_seed, rng
from schedbench.bipartite.simulate import neighbors_csr, simulate_bipartite
from schedbench.bipartite.oracles import jiq_fluid, random_exact, t_star_graph_flow, t_star_greedy
from schedbench.bipartite.graphs import make_graph

__all__ = ["expand_groups", "run_group", "degree_for", "DEGREE_RULES", "server_rates"]

#: degree rules and the parameters they take
DEGREE_RULES = {"full": set(), "const": {"D"}, "log": {"c"}, "log2": {"c"}, "sqrt": set(), "power_log": {"c"}}


def _listify(v) -> list:
    return v if isinstance(v, list) else [v]


def degree_for(rule: dict[str, Any], N: int, alpha: float) -> int:
    """D_N of a degree rule (bipartite.md §5), clipped to 1..N."""
    kind = rule["rule"]
    ln = math.log(N)
    value = {
        "full": N,
        "const": rule.get("D", 1),
        "log": math.ceil(rule.get("c", 1.0) * ln),
        "log2": math.ceil(rule.get("c", 1.0) * ln * ln),
        "sqrt": math.ceil(math.sqrt(N)),
        "power_log": math.ceil(rule.get("c", 1.0) * N**alpha * ln),
    }[kind]
    return int(min(max(value, 1), N))


def server_rates(N: int, classes: dict[str, list]) -> np.ndarray:
    """μ per server: ⌊fraction·N⌋ servers of each class, the remainder to the last class."""
    mu, frac = classes["mu"], classes["fractions"]
    counts = [int(math.floor(f * N)) for f in frac]
    counts[-1] += N - sum(counts)
    return np.repeat(np.asarray(mu, dtype=float), counts)


def _loads(exp: dict[str, Any]) -> list[dict[str, float]]:
    """ρ values: fixed (``rho``) or ρ_N = 1 − β N^−α (``load: {beta, alpha}`` with α a list)."""
    if "rho" in exp:
        return [{"rho": float(r), "alpha": math.nan, "beta": math.nan} for r in _listify(exp["rho"])]
    spec = exp["load"]
    return [{"rho": math.nan, "alpha": float(a), "beta": float(spec["beta"])} for a in _listify(spec["alpha"])]


def expand_groups(name: str, exp: dict[str, Any]) -> list[dict[str, Any]]:
    """All groups of one experiment, in a stable order (each group runs every policy)."""
    groups = []
    for N, load, rule in itertools.product(exp["N"], _loads(exp), exp["degree"]):
        sweeps = {k: _listify(rule[k]) for k in sorted(DEGREE_RULES[rule["rule"]]) if k in rule}
        for combo in itertools.product(*sweeps.values()):
            params = dict(zip(sweeps, combo))
            rho = load["rho"] if math.isfinite(load["rho"]) else 1.0 - load["beta"] * N ** (-load["alpha"])
            if not 0 < rho < 1:
                raise ValueError(f"load at N={N}: ρ = {rho} is not in (0, 1)")
            alpha = load["alpha"] if math.isfinite(load["alpha"]) else 0.5
            D = degree_for({"rule": rule["rule"], **params}, N, alpha)
            label = rule["rule"] + "".join(f" {k}={v:g}" for k, v in params.items())
            groups.append(
                {
                    "experiment": name,
                    "N": int(N),
                    "M": int(N * exp["types_per_server"]),
                    "rho": float(rho),
                    "alpha": load["alpha"],
                    "beta": load["beta"],
                    "graph": "complete" if rule["rule"] == "full" else exp["graph"],
                    "degree_label": label,
                    "degree": D,
                }
            )
    return groups


def group_arrivals(group: dict[str, Any], settings: dict[str, Any]) -> int:
    """The arrivals each policy of a group simulates (its share of a job's work)."""
    return max(int(settings["min_arrivals"]), int(settings["arrivals_per_server"] * group["N"]))


def run_group(group: dict[str, Any], exp: dict[str, Any], settings: dict[str, Any], seed: int) -> list[dict[str, Any]]:
    """Build the group's graph, its bounds, and simulate every policy on it: one row each."""
    N, M = group["N"], group["M"]
    mu = server_rates(N, exp["classes"])
    lam_tot = group["rho"] * mu.sum()
    lam = np.full(M, lam_tot / M)
    key = (group["experiment"], N, f"{group['rho']:.9g}", group["degree_label"])
    if group["graph"] == "complete":
        neighbors = "complete"
    else:
        neighbors = make_graph(group["graph"], M, N, rng(seed, "graph", *key), degree=group["degree"])
    indptr, indices, complete = neighbors_csr(neighbors, N, M, mu)
    t_star = t_star_greedy(mu, lam_tot)
    try:
        t_graph = t_star if complete else t_star_graph_flow(mu, lam, indptr, indices)
    except ValueError:
        t_graph = math.nan  # the graph cannot carry the load
    fluid = jiq_fluid(mu, lam_tot)
    arrivals = group_arrivals(group, settings)
    rows = []
    for policy in exp["policies"]:
        d_kw = {"d": int(exp["d"])} if policy == "jsq-d" else {}  # only jsq-d reads d
        row = {
            **group,
            "policy": policy,
            "d": d_kw["d"] if d_kw else 0,
            "t_star": t_star,
            "t_star_graph": t_graph,
            "jiq_fluid": fluid,
            "mean_degree": float(np.diff(indptr).mean()),
            "random_exact": math.nan,
        }
        if policy == "random":
            try:
                row["random_exact"] = random_exact(mu, lam, indptr, indices)
            except ValueError:
                rows.append({**row, **_unstable("uniform routing overloads a server")})
                continue
        if not math.isfinite(t_graph):
            rows.append({**row, **_unstable("the graph cannot carry the load (LP infeasible)")})
            continue
        r = simulate_bipartite(
            mu,
            lam,
            (indptr, indices),
            policy,
            arrivals=arrivals,
            seed=derived_seed(seed, "policy", *key, policy),
            warmup=float(settings["warmup"]),
            batches=int(settings["batches"]),
            **d_kw,
        )
        if r.unstable:  # overloaded, or a queue outgrew the simulator's cap (see simulate_bipartite)
            rows.append({**row, **_unstable(r.note)})
            continue
        lo, hi = r.mean_response_ci
        rows.append(
            {
                **row,
                "status": "ok",
                "note": "",
                "mean_response": r.mean_response,
                "mean_response_ci_lo": lo,
                "mean_response_ci_hi": hi,
                "excess_over_t_star": r.mean_response - t_graph,
                "excess_ci_lo": lo - t_graph,
                "excess_ci_hi": hi - t_graph,
                "arrivals": r.arrivals,
                "events": r.events,
                "seconds": r.seconds,
            }
        )
    return rows


def _unstable(note: str) -> dict[str, Any]:
    nan = math.nan
    return {
        "status": "unstable",
        "note": note,
        "mean_response": nan,
        "mean_response_ci_lo": nan,
        "mean_response_ci_hi": nan,
        "excess_over_t_star": nan,
        "excess_ci_lo": nan,
        "excess_ci_hi": nan,
        "arrivals": 0,
        "events": 0,
        "seconds": 0.0,
    }
