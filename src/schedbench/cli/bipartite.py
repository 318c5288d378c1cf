"""``schedbench bipartite simulate`` and ``schedbench bipartite exact``: one point of load balancing
on a bipartite graph (``docs/models/bipartite.md``: JSQ/JFSQ, JIQ/JFIQ, random, JSQ(d), the token
policy), simulated by :func:`schedbench.bipartite.simulate_bipartite` or given its exact value by
:mod:`schedbench.bipartite.oracles`, printed as one JSON object.

The options are the functions' own arguments (``--mu``, ``--lam``, ``--policy``, ``--d``,
``--buffers``, ``--tokens``, ...), so a refusal of theirs names the option. ``--neighbors`` is
``complete`` or the server lists of the types, ``;`` between types and ``,`` between servers
(``0,1;1,2``). The exact values: ``random``/``random-mu`` by the M/M/1 decomposition (any N), the
token policy by its product form, and the deterministic rules ``jsq``, ``jfsq`` and ``jfiq`` (with
``--jfiq-fallback jfsq``), ties to the lowest index (the simulator's ``--ties index``), by the
truncated CTMC of :func:`~schedbench.bipartite.oracles.policy_ctmc` (N <= 4 servers); the
oracles' limits hold (states, servers, stability)."""

from __future__ import annotations

import argparse

from schedbench.cli.common import (
    CommandError,
    add_simulation_options,
    fields,
    library_call,
    numbers,
    parsed,
    point_commands,
    positive_int,
    print_row,
)

POLICIES = ("random", "random-mu", "jsq", "jfsq", "jiq", "jfiq", "jsq-d", "token-oldest")


#: plug-ins extend the rejection model only: ``--plugins`` is refused here
PLUGINS = False


def _ints(text: str) -> list[int]:
    """argparse type of ``--buffers``/``--tokens``: comma-separated integers >= 1."""
    out = parsed(lambda t: [int(v) for v in t.split(",")], text, "comma-separated integers >= 1")
    if min(out) < 1:
        raise argparse.ArgumentTypeError(f"every value must be an integer >= 1, got {text!r}")
    return out


def _neighbors(text: str) -> str | list[list[int]]:
    """argparse type of ``--neighbors``: ``complete``, or server lists ``0,1;1,2`` (one per type)."""
    if text == "complete":
        return text
    return parsed(
        lambda t: [[int(s) for s in part.split(",")] for part in t.split(";")],
        text,
        "'complete' or server numbers, ',' between servers and ';' between types",
    )


def _add_point(p: argparse.ArgumentParser, policies: tuple[str, ...]) -> None:
    p.add_argument("--policy", choices=policies, required=True, help="the dispatch policy (bipartite.md §3)")
    p.add_argument(
        "--mu",
        type=numbers("service rates"),
        required=True,
        metavar="MU1,MU2,...",
        help="service rates of the N servers, e.g. 2,1",
    )
    p.add_argument(
        "--lam",
        type=numbers("arrival rates", allow_zero=True),
        required=True,
        metavar="LAM1,...",
        help="arrival rates of the M job types",
    )
    p.add_argument(
        "--neighbors",
        type=_neighbors,
        default="complete",
        metavar="complete|S,S;S,...",
        help="the compatibility graph: complete (default) or each type's servers, e.g. '0,1;1,2'",
    )
    p.add_argument(
        "--tokens", type=_ints, default=None, metavar="T1,...", help="token-oldest: tokens per server (default 1 each)"
    )


def add_commands(sub: argparse._SubParsersAction) -> None:
    """Register ``bipartite simulate`` and ``bipartite exact``."""
    s, e = point_commands(
        sub,
        "bipartite",
        "one point of load balancing on a bipartite graph (JFSQ, JFIQ, ...): simulated, or its exact "
        "value (docs/models/bipartite.md)",
        simulate=(
            _simulate,
            "simulate one point (schedbench.bipartite.simulate_bipartite): E[T] and blocking with 95%% CIs",
        ),
        exact=(
            _exact,
            "the exact E[T] (and blocking) of one point: random, random-mu (any N), token-oldest (product form), "
            "jsq, jfsq, jfiq with --jfiq-fallback jfsq (index ties, N <= 4: a truncated CTMC)",
        ),
    )
    _add_point(s, POLICIES)
    add_simulation_options(s, warmup=20.0, warmup_unit="time units")
    s.add_argument("--d", type=positive_int, default=None, help="jsq-d: servers sampled per arrival")
    s.add_argument(
        "--buffers",
        type=_ints,
        default=None,
        metavar="B[,B...]",
        help="queue policies: jobs per server, one or one each",
    )
    s.add_argument(
        "--ties", choices=("random", "index"), default="random", help="remaining ties: random (default) or lowest index"
    )
    s.add_argument(
        "--jfiq-fallback", choices=("random", "jfsq"), default="random", help="jfiq with no idle server: random or jfsq"
    )
    _add_point(e, ("random", "random-mu", "jsq", "jfsq", "jfiq", "token-oldest"))
    e.add_argument(
        "--jfiq-fallback",
        choices=("jfsq",),
        default=None,
        help="jfiq: with no idle server, JFSQ (needed: a random fallback has no exact value here)",
    )
    e.add_argument(
        "--truncation", type=positive_int, default=30, help="jsq, jfsq, jfiq: queue lengths cut at this (default 30)"
    )


def _simulate(args: argparse.Namespace) -> int:
    from schedbench.bipartite import simulate_bipartite

    buffers = args.buffers[0] if args.buffers is not None and len(args.buffers) == 1 else args.buffers
    res = library_call(
        simulate_bipartite,
        args.mu,
        args.lam,
        args.neighbors,
        args.policy,
        args.arrivals,
        buffers=buffers,
        **fields(args, "seed", "warmup", "d", "batches", "ties", "jfiq_fallback", "tokens"),
    )
    row = fields(res, "policy", "N", "M", "load", "mean_response", "mean_response_ci")
    row.update(fields(res, "blocking", "blocking_ci", "mean_jobs", "busy_fraction", "server_jobs"))
    row.update(fields(res, "arrivals", "events", "seconds", "unstable", "note"))
    print_row({**row, "seed": args.seed, "ties": args.ties})
    return 0


def _rule(policy: str, mu: list[float]):
    """The simulator's choice under ``ties="index"`` (neighbours in order of decreasing μ, then
    index), as ``choose(m, Q)`` of policy_ctmc over the neighbours of type m."""
    if policy == "jsq":
        return lambda q, nb: min(nb, key=lambda n: (q[n], n))
    if policy == "jfsq":
        return lambda q, nb: min(nb, key=lambda n: (q[n], -mu[n], n))

    def jfiq(q, nb):  # the fastest idle server, else JFSQ (--jfiq-fallback jfsq)
        idle = [n for n in nb if q[n] == 0]
        return min(idle, key=lambda n: (-mu[n], n)) if idle else min(nb, key=lambda n: (q[n], -mu[n], n))

    return jfiq


def _exact(args: argparse.Namespace) -> int:
    from schedbench.bipartite import neighbors_csr
    from schedbench.bipartite import oracles

    if args.tokens is not None and args.policy != "token-oldest":
        raise CommandError(f"--tokens: only for --policy token-oldest, not {args.policy}")
    if args.policy == "jfiq" and args.jfiq_fallback is None:
        raise CommandError("--policy jfiq: give --jfiq-fallback jfsq (a random fallback has no exact value here)")
    if args.policy != "jfiq" and args.jfiq_fallback is not None:
        raise CommandError(f"--jfiq-fallback: only for --policy jfiq, not {args.policy}")
    N, M = len(args.mu), len(args.lam)
    indptr, indices, _ = library_call(neighbors_csr, args.neighbors, N, M, args.mu, func="bipartite exact")
    row = {"policy": args.policy, "N": N, "M": M, "load": sum(args.lam) / sum(args.mu)}
    if args.policy in ("random", "random-mu"):
        weights = "uniform" if args.policy == "random" else "mu"
        value = library_call(oracles.random_exact, args.mu, args.lam, indptr, indices, weights=weights)
        row.update(method="random_exact", mean_response=value)
    elif args.policy == "token-oldest":
        tokens = args.tokens if args.tokens is not None else [1] * N
        ex = library_call(oracles.token_product_form, args.mu, args.lam, indptr, indices, tokens)
        row.update(method="token_product_form", mean_response=ex.mean_response, blocking=ex.blocking)
        row.update(blocking_by_type=ex.blocking_by_type, server_jobs=ex.mean_jobs, tokens=tokens)
    else:
        if N > 4:
            raise CommandError(f"--mu: {N} servers; the exact value of {args.policy} is for N <= 4 (use simulate)")
        rule, nbrs = _rule(args.policy, args.mu), [indices[indptr[m] : indptr[m + 1]].tolist() for m in range(M)]
        value, mass = library_call(
            oracles.policy_ctmc, args.mu, args.lam, indptr, indices, lambda m, q: rule(q, nbrs[m]), args.truncation
        )
        row.update(method="policy_ctmc", mean_response=value, truncated_mass=mass, ties="index")
        row.update(truncation=args.truncation)
    print_row(row)
    return 0
