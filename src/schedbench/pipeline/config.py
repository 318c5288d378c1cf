"""Checks of an experiment config that a JSON schema cannot express.

The Snakefile validates ``config`` against ``workflow/schemas/config.schema.yaml`` (unknown keys,
types) and then calls :func:`check_config` before any job runs: families and algorithms must be
registered, their parameters must exist and be in range, unit-size-only algorithms may not run
on sized families. Every error names the offending key path.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from typing import Any

from schedbench.scheduling.algorithms.base import ParameterError
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.registry import UnknownNameError, get_algorithm, get_family

__all__ = ["ConfigError", "check_config", "algorithm_grid", "config_hash", "batches", "balanced_chunks"]


class ConfigError(ValueError):
    """The config is wrong; the message names the key."""


def algorithm_grid(values: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The cartesian product of a ``{param: value or [values]}`` mapping, in a stable order."""
    values = values or {}
    keys = sorted(values)
    lists = [v if isinstance(v, list) else [v] for v in (values[k] for k in keys)]
    return [dict(zip(keys, combo)) for combo in itertools.product(*lists)]


def batches(n_instances: int, batch_size: int) -> list[list[int]]:
    """Instance indices split into consecutive batches (one Snakemake job each)."""
    return [list(range(a, min(a + batch_size, n_instances))) for a in range(0, n_instances, batch_size)]


def balanced_chunks(items: list, per_job: int, key) -> list[list]:
    """Split ``items`` into about len/per_job jobs of similar cost: sort by ``key`` (costliest
    first) and deal them round-robin. Results never depend on this split (seeds are per item)."""
    ordered = sorted(items, key=key)
    n_jobs = max(1, -(-len(items) // per_job))
    return [ordered[i::n_jobs] for i in range(n_jobs)]


def config_hash(config: dict) -> str:
    """SHA-256 (first 16 hex digits) of the config in canonical JSON."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` naming the first bad key; return None if the config is usable."""
    _check_loss(config.get("loss"))
    _check_bipartite(config.get("bipartite"))
    for exp_name, exp in config["experiments"].items():
        where = f"experiments.{exp_name}"
        try:
            family = get_family(exp["family"])
        except UnknownNameError as exc:
            raise ConfigError(f"{where}.family: {exc}") from None
        try:
            family.resolve(exp.get("params", {}))
        except FamilyParameterError as exc:
            raise ConfigError(f"{where}.params: {exc}") from None
        unit = family.unit_sizes(exp.get("params", {}))
        for eps in exp.get("eps", config["eps"]):
            if not 0 < eps < 1:
                raise ConfigError(f"{where}.eps: every eps must be in (0, 1), got {eps}")
        for alg_name, values in (exp.get("algorithms") or {}).items():
            at = f"{where}.algorithms.{alg_name}"
            try:
                cls = get_algorithm(alg_name)
            except UnknownNameError as exc:
                raise ConfigError(f"{at}: {exc}") from None
            if cls.unit_sizes_only and not unit:
                raise ConfigError(
                    f"{at}: {alg_name!r} is defined for unit sizes only, but family "
                    f"{exp['family']!r} with these params produces sizes > 1"
                )
            for params in algorithm_grid(values):
                try:
                    cls.resolve_params(params)
                except ParameterError as exc:
                    raise ConfigError(f"{at}: {exc}") from None


def _check_loss(loss: dict | None) -> None:
    """The loss-system section (seed 002): k-rule parameters and a positive λ(n) at every point."""
    if not loss:
        return
    from schedbench.queueing.loss.experiments import K_RULE_KEYS, expand_points

    for name, exp in loss["experiments"].items():
        where = f"loss.experiments.{name}"
        for i, rule in enumerate(exp["k"]):
            extra = sorted(set(rule) - {"rule"} - K_RULE_KEYS[rule["rule"]])
            if extra:
                raise ConfigError(f"{where}.k[{i}]: rule {rule['rule']!r} takes no '{extra[0]}' "
                                  f"(it takes: {', '.join(sorted(K_RULE_KEYS[rule['rule']])) or 'nothing'})")
            missing = sorted(K_RULE_KEYS[rule["rule"]] - set(rule))
            if missing and rule["rule"] in ("const", "fraction"):
                raise ConfigError(f"{where}.k[{i}]: rule {rule['rule']!r} needs '{missing[0]}'")
        try:
            expand_points(name, exp)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None


def _check_bipartite(section: dict | None) -> None:
    """The bipartite section (seed 003): one load key, class fractions, degree-rule parameters."""
    if not section:
        return
    from schedbench.queueing.bipartite.experiments import DEGREE_RULES, expand_groups

    for name, exp in section["experiments"].items():
        where = f"bipartite.experiments.{name}"
        if ("rho" in exp) == ("load" in exp):
            raise ConfigError(f"{where}: give exactly one of 'rho' (fixed) and 'load' (ρ_N = 1 − βN^−α)")
        mu, frac = exp["classes"]["mu"], exp["classes"]["fractions"]
        if len(mu) != len(frac) or abs(sum(frac) - 1.0) > 1e-9:
            raise ConfigError(f"{where}.classes: 'mu' and 'fractions' need the same length and fractions summing to 1")
        for i, rule in enumerate(exp["degree"]):
            extra = sorted(set(rule) - {"rule"} - DEGREE_RULES[rule["rule"]])
            if extra:
                raise ConfigError(f"{where}.degree[{i}]: rule {rule['rule']!r} takes no '{extra[0]}'")
        try:
            expand_groups(name, exp)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
