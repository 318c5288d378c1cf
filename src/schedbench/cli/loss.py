"""``schedbench loss simulate`` and ``schedbench loss exact``: one point of the loss system with
adaptive multiserver jobs (``docs/models/loss-system.md``), simulated by
:func:`schedbench.loss.simulate_loss` or solved exactly by :func:`schedbench.loss.solve_loss_exact`
(the CTMC oracle, small n), printed as one JSON object.

The options are the functions' own arguments (``--n``, ``--k``, ``--d``, ``--lam``, ``--mu``, ...),
so a refusal of theirs names the option; the load is ``--lam λ`` or ``--beta β --alpha α``
(λ = 1 − βn^−α). The functions' limits hold: the simulator's warm-up events and table sizes, the
oracle's ``--max-states`` (at most 2·10^6). The numerical work is imported only when a command
runs (numba, scipy: ``schedbench --help`` should not wait for them)."""

from __future__ import annotations

import argparse
from typing import Any, Callable

from schedbench.cli.common import (
    CommandError,
    add_simulation_options,
    fields,
    library_call,
    point_commands,
    positive,
    positive_int,
    print_row,
    real,
)

_rate = positive("jobs per time unit")


#: plug-ins extend the rejection model only: ``--plugins`` is refused here
PLUGINS = False


def _add_point(p: argparse.ArgumentParser) -> None:
    """The options of one point of the model, shared by ``simulate`` and ``exact``."""
    p.add_argument("--n", type=positive_int, required=True, help="servers")
    p.add_argument("--k", type=positive_int, required=True, help="servers each job samples (1 <= k <= n)")
    p.add_argument("--d", type=positive_int, required=True, help="the most servers a job splits over")
    load = p.add_mutually_exclusive_group(required=True)
    load.add_argument("--lam", type=_rate, default=None, help="arrival rate per server λ (total n·λ)")
    load.add_argument("--beta", type=real(), default=None, help="with --alpha: λ = 1 − β·n^−α")
    p.add_argument("--alpha", type=real(), default=None, help="with --beta: the exponent α")
    p.add_argument("--mu", type=_rate, default=1.0, help="service rate: job sizes Exp(μ) (default 1)")
    p.add_argument(
        "--independent",
        action="store_true",
        help="each sub-job has its own Exp(Jμ) size and frees its server alone (default: linear speed-up, "
        "the J servers released together)",
    )


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``loss simulate`` and ``loss exact``."""
    s, e = point_commands(
        sub,
        "loss",
        "one point of the loss system with adaptive multiserver jobs: simulated, or its exact value "
        "(docs/models/loss-system.md)",
        simulate=(
            _simulate,
            "simulate one point (schedbench.loss.simulate_loss): blocking, E[T], split fractions with 95%% CIs",
        ),
        exact=(
            _exact,
            "the exact value of one point (schedbench.loss.solve_loss_exact, the CTMC oracle): blocking, E[T], "
            "split fractions, for small n",
        ),
    )
    _add_point(s)
    add_simulation_options(s, warmup=10.0, warmup_unit="time units 1/μ")
    s.add_argument(
        "--method",
        choices=("aggregated", "event"),
        default="aggregated",
        help="aggregated (CTMC, O(d) per event; default) or event (server level)",
    )
    s.add_argument(
        "--estimator",
        choices=("conditional", "count"),
        default=None,
        help="conditional (low variance; the aggregated method's default) or count (the event method's)",
    )
    s.add_argument(
        "--service", choices=("exp", "det"), default="exp", help="job sizes: exp (default) or det (event method only)"
    )
    _add_point(e)
    e.add_argument(
        "--max-states",
        type=positive_int,
        default=200_000,
        help="refuse a chain with more states (default 200000, at most 2000000): use simulate",
    )


def _load(args: argparse.Namespace) -> dict:
    """The point's checked n, k, d and λ (from --lam, or --beta and --alpha)."""
    if args.k > args.n:
        raise CommandError(f"--k {args.k}: exceeds --n {args.n} (a job samples k of the n servers)")
    if args.lam is not None:
        if args.alpha is not None:
            raise CommandError("--alpha: goes with --beta (λ = 1 − β·n^−α), not with --lam")
        return {"lam": args.lam}
    if args.alpha is None:
        raise CommandError("--beta: needs --alpha (λ = 1 − β·n^−α)")
    from schedbench.loss import lam_of_n

    return {"lam": library_call(lam_of_n, args.n, args.beta, args.alpha), "beta": args.beta, "alpha": args.alpha}


def _at_point(func: Callable[..., Any], args: argparse.Namespace, load: Any, *more: Any, **options: Any) -> Any:
    """``func`` (simulate_loss or solve_loss_exact) at the point's n, k, d and ``load``, with its
    --mu and --independent, then ``more`` and ``options``: a refusal of the library's names the option."""
    return library_call(func, args.n, args.k, args.d, load, *more, mu=args.mu, independent=args.independent, **options)


def _simulate(args: argparse.Namespace) -> int:
    load = _load(args)
    from schedbench.loss import simulate_loss

    res = _at_point(
        simulate_loss,
        args,
        {"beta": args.beta, "alpha": args.alpha} if "beta" in load else load["lam"],
        args.arrivals,
        **fields(args, "seed", "warmup", "method", "batches", "estimator", "service"),
    )
    print_row({**res.as_row(), "seed": args.seed})
    return 0


def _exact(args: argparse.Namespace) -> int:
    load = _load(args)
    from schedbench.loss import solve_loss_exact

    res = _at_point(solve_loss_exact, args, load["lam"], max_states=args.max_states)
    row = {"n": args.n, "k": args.k, "d": args.d, **load, "mu": args.mu, "independent": args.independent}
    row.update(fields(res, "blocking", "mean_response", "split_fractions", "mean_busy", "mean_jobs", "n_states"))
    print_row(row)
    return 0
