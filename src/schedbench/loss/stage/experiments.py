"""Experiments A1–A5 of ``docs/models/loss-system.md`` §7: expand a config section
into points, simulate each point and attach the exact value where one exists (slope fits are in
:mod:`.loss_slopes`, so editing them does not rerun the simulations).

A point is (n, d, α, β, k-rule). Its seed is derived from the point itself, so results do not
depend on how points are batched into Snakemake jobs.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from schedbench.loss.formulas import k_schedule, lam_of_n
from schedbench.hall.erlang import erlang_b
from schedbench.loss.simulate import simulate_loss
from schedbench.loss.exact import solve_full_access
from schedbench.hall.seeds import derived_seed

__all__ = ["expand_points", "point_seed", "run_point", "K_RULE_KEYS"]

#: the parameters each k rule accepts (lists are swept)
K_RULE_KEYS = {"full": set(), "log": {"c"}, "power": {"gamma_offset"}, "const": {"k"}, "fraction": {"fraction"}}

#: largest n for which the exact full-access chain is solved (about 2 s at n = 10^6)
EXACT_MAX_N = 2_000_000


def _listify(v) -> list:
    return v if isinstance(v, list) else [v]


def _adjust_n(n: int, d: int, residue: int | None) -> int:
    """The smallest n' >= n with n' ≡ residue (mod d); n itself if residue is None."""
    if residue is None:
        return int(n)
    return int(n + ((residue - n) % d))


def expand_points(name: str, exp: dict[str, Any]) -> list[dict[str, Any]]:
    """All points of one experiment, in a stable order."""
    points = []
    for n0, d, alpha, rule in itertools.product(exp["n"], _listify(exp["d"]), _listify(exp["alpha"]), exp["k"]):
        kind = rule["rule"]
        sweeps = {key: _listify(rule[key]) for key in sorted(K_RULE_KEYS[kind]) if key in rule}
        for combo in itertools.product(*sweeps.values()):
            params = dict(zip(sweeps, combo))
            n = _adjust_n(n0, d, exp.get("n_residue"))
            lam_of_n(n, float(exp["beta"]), float(alpha))  # raises if λ(n) <= 0
            gamma = alpha + params.get("gamma_offset", 0.0)
            k = k_schedule(
                n,
                kind,
                c=params.get("c", 1.0),
                alpha=alpha,
                gamma=gamma,
                k=params.get("k"),
                fraction=params.get("fraction", 1.0),
            )
            label = kind + "".join(f" {key}={val:g}" for key, val in params.items())
            points.append(
                {
                    "experiment": name,
                    "n": n,
                    "d": int(d),
                    "alpha": float(alpha),
                    "beta": float(exp["beta"]),
                    "k_rule": kind,
                    "k_label": label,
                    "k_param": float(next(iter(params.values()), math.nan)),
                    "k": k,
                }
            )
    return points


def point_seed(base_seed: int, point: dict[str, Any]) -> int:
    """The point's own seed: a function of its parameters only (not of batching)."""
    return derived_seed(
        base_seed,
        "loss",
        point["experiment"],
        point["n"],
        point["d"],
        f"{point['alpha']:.6g}",
        f"{point['beta']:.6g}",
        point["k_label"],
    )


def point_arrivals(point: dict[str, Any], settings: dict[str, Any]) -> int:
    """The post-warm-up arrivals simulated at one point (its share of a job's work)."""
    return max(int(settings["min_arrivals"]), int(settings["arrivals_per_server"] * point["n"]))


def run_point(point: dict[str, Any], settings: dict[str, Any], seed: int) -> dict[str, Any]:
    """Simulate one point (aggregated simulator) and attach the exact value where known."""
    n, d = point["n"], point["d"]
    lam = lam_of_n(n, point["beta"], point["alpha"])
    arrivals = point_arrivals(point, settings)
    res = simulate_loss(
        n,
        point["k"],
        d,
        lam,
        arrivals=arrivals,
        seed=seed,
        warmup=float(settings["warmup"]),
        batches=int(settings["batches"]),
        independent=bool(settings["independent"]),
    )
    row = {**point, "lam": lam, **{k: v for k, v in res.as_row().items() if k not in ("n", "k", "d", "lam")}}
    row["exact_blocking"] = math.nan
    row["exact_excess"] = math.nan
    if point["k"] == n and not settings["independent"]:
        if n % d == 0:
            row["exact_blocking"] = erlang_b(n // d, n * lam / d)
            row["exact_excess"] = 0.0
        elif n <= EXACT_MAX_N:
            fa = solve_full_access(n, d, lam)
            row["exact_blocking"], row["exact_excess"] = fa.blocking, fa.excess_response
    return row
