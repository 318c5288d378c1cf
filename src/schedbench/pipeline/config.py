"""Checks of an experiment config that a JSON schema cannot express.

The Snakefile validates ``config`` against ``workflow/schemas/config.schema.yaml`` (unknown keys,
types) and then calls :func:`check_config` before any job runs: families and algorithms must be
registered, their parameters must exist and be in range, unit-size-only algorithms may not run
on sized families. Every error names the offending key path.
"""

from __future__ import annotations

import hashlib
import os
import math
import json

import yaml

from schedbench.params import ParameterError
from schedbench.pipeline.grids import algorithm_grid, balanced_chunks, batches  # noqa: F401 (re-exported)
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.registry import UnknownNameError, get_adversary, get_algorithm, get_family

__all__ = ["ConfigError", "check_config", "algorithm_grid", "config_hash", "batches", "balanced_chunks",
           "experiment_problem", "load_config_strict", "check_schema"]


class ConfigError(ValueError):
    """The config is wrong; the message names the key."""


class _StrictLoader(yaml.SafeLoader):
    """YAML with duplicate keys refused (PyYAML silently keeps the last one)."""


def _mapping_without_duplicates(loader, node, deep=False):
    seen = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise ConfigError(f"line {key_node.start_mark.line + 1}: key {key!r} given twice "
                              f"(first on line {seen[key]})")
        seen[key] = key_node.start_mark.line + 1
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def load_config_strict(path: str) -> dict:
    """Read a config file as the pipeline will, but strictly: a YAML syntax error or a
    duplicate key is a :class:`ConfigError` naming the file and the line."""
    try:
        with open(path) as handle:
            data = yaml.load(handle, Loader=_StrictLoader)  # noqa: S506 (a SafeLoader subclass)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read the config ({exc.strerror})") from None
    except ConfigError as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        raise ConfigError(f"{path}: {where}not valid YAML ({getattr(exc, 'problem', None) or exc})") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the config must be a mapping of keys, got {type(data).__name__}")
    return data


def deep_merge(base: dict, over: dict) -> dict:
    """``over`` on top of ``base``: mappings merge key by key, any other value (a list, a number,
    null) replaces the base's."""
    out = dict(base)
    for key, value in over.items():
        out[key] = deep_merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def _resolved(path: str, seen: tuple[str, ...] = ()) -> tuple[dict, dict | None]:
    """The config file ``path`` (without its ``base`` key) and the config it builds on (its
    ``base:`` file over that file's own base, and so on; None without a base). Each file is read
    once."""
    data = load_config_strict(path)
    if "base" not in data:
        return data, None
    base = data.pop("base")
    if not isinstance(base, str) or not base:
        raise ConfigError(f"{path}: base: must be the path of another config file, got {base!r}")
    here = seen + (os.path.normpath(path),)
    base_path = os.path.normpath(os.path.join(os.path.dirname(path), base))
    if base_path in here:
        raise ConfigError(f"{path}: base: {base} makes a cycle of base configs")
    if not os.path.isfile(base_path):
        raise ConfigError(f"{path}: base: {base_path} is not a file (a base path is relative to the config file)")
    own, grand = _resolved(base_path, here)
    return data, own if grand is None else deep_merge(grand, own)


def apply_base(config: dict, paths: list[str]) -> dict:
    """The config a run uses: ``config`` (the given files as Snakemake read them, ``--config``
    overrides included) merged over the ``base:`` config one of the files names, if any (so
    ``config/large.yaml`` is the paper config with only its scale changed)."""
    chains = [(p, chain) for p in paths if (chain := _resolved(p)[1]) is not None]
    if len(chains) > 1:
        raise ConfigError(f"base: declared by {' and '.join(p for p, _ in chains)}; at most one config file may")
    own = {k: v for k, v in config.items() if k != "base"}
    return deep_merge(chains[0][1], own) if chains else own


def load_config_file(path: str) -> dict:
    """One config file as the pipeline uses it: read strictly, over its ``base:`` if any."""
    return apply_base(load_config_strict(path), [path])


def check_schema(config: dict, schema_path: str) -> None:
    """The config against its JSON schema, with one line per error: the failing key path and
    the reason (the full schema and config stay out of the message)."""
    import jsonschema

    schema = yaml.safe_load(open(schema_path))
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        err = jsonschema.exceptions.best_match(errors)
        where = ".".join(str(p) for p in err.absolute_path) or "(top level)"
        raise ConfigError(f"{where}: {err.message}")


def config_hash(config: dict) -> str:
    """SHA-256 (first 16 hex digits) of the config in canonical JSON."""
    return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` naming the first bad key; return None if the config is usable."""
    _check_loss(config.get("loss"))
    _check_bipartite(config.get("bipartite"))
    _check_search(config.get("search"))
    for exp_name, exp in config["experiments"].items():
        _check_experiment(f"experiments.{exp_name}", exp, config["eps"])


def _check_search(section: dict | None) -> None:
    """The worst-case search tasks (:mod:`schedbench.pipeline.search`)."""
    from schedbench.pipeline.search import SearchConfigError, check_search

    try:
        check_search(section)
    except SearchConfigError as exc:
        raise ConfigError(str(exc)) from None


def _check_experiment(where: str, exp: dict, default_eps: list) -> None:
    """One seed-000 experiment: its family or adversary, its ε grid, its algorithms."""
    if ("family" in exp) == ("adversary" in exp):
        raise ConfigError(f"{where}: give exactly one of 'family' (with 'instances') and 'adversary'")
    if "family" in exp:
        if "instances" not in exp:
            raise ConfigError(f"{where}.instances: a family experiment needs the number of instances")
        try:
            family = get_family(exp["family"])
            family.resolve(exp.get("params", {}))
        except UnknownNameError as exc:
            raise ConfigError(f"{where}.family: {exc}") from None
        except FamilyParameterError as exc:
            raise ConfigError(f"{where}.params: {exc}") from None
        unit, source_problem = family.unit_sizes(exp.get("params", {})), None
    else:
        for key in ("instances",):
            if key in exp:
                raise ConfigError(f"{where}.{key}: does not apply to an adversary experiment (use 'seeds')")
        try:
            adv = get_adversary(exp["adversary"])
            combos = [adv.resolve_params(combo) for combo in algorithm_grid(exp.get("params"))]  # lists are swept
        except UnknownNameError as exc:
            raise ConfigError(f"{where}.adversary: {exc}") from None
        except ParameterError as exc:
            raise ConfigError(f"{where}.params: {exc}") from None
        built = sorted({adv.problem_for(c) for c in combos})
        if len(built) > 1:
            raise ConfigError(f"{where}.params: the swept values build instances of several problems "
                              f"({', '.join(built)}); one experiment, one problem")
        unit, source_problem = all(adv.unit_sizes_for(c) for c in combos), built[0]
    if "seeds" in exp and "family" in exp:
        raise ConfigError(f"{where}.seeds: applies to adversary experiments only")
    for eps in exp.get("eps", default_eps):
        if not 0 < eps < 1:
            raise ConfigError(f"{where}.eps: every eps must be in (0, 1), got {eps}")
    if "problem" in exp:
        if exp["problem"] not in problem_names():
            raise ConfigError(f"{where}.problem: unknown problem {exp['problem']!r}; known: {', '.join(problem_names())}")
        if source_problem is not None and exp["problem"] != source_problem:
            raise ConfigError(f"{where}.problem: adversary {exp['adversary']!r} builds {source_problem!r} instances, "
                              f"not {exp['problem']!r}")
    run_problem = exp.get("problem", source_problem)
    defaults = set()
    for alg_name, values in (exp.get("algorithms") or {}).items():
        at = f"{where}.algorithms.{alg_name}"
        try:
            cls = get_algorithm(alg_name)
        except UnknownNameError as exc:
            raise ConfigError(f"{at}: {exc}") from None
        if cls.unit_sizes_only and not unit:
            source = f"family {exp['family']!r} with these params" if "family" in exp else \
                f"adversary {exp['adversary']!r}"
            raise ConfigError(f"{at}: {alg_name!r} is defined for unit sizes only, but {source} produces sizes > 1")
        if "adversary" in exp and cls.migratory:
            raise ConfigError(f"{at}: {alg_name!r} is migratory (it schedules a whole instance at once, outside "
                              "the model) and cannot play an adaptive adversary; run it on a family")
        if "adversary" in exp:  # the adversary as each run builds it (some derive parameters from ε)
            for combo in algorithm_grid(exp.get("params")):
                for eps in cls.eps_values(exp.get("eps", default_eps)):
                    try:
                        get_adversary(exp["adversary"])(eps=eps, seed=0, **combo)
                    except ParameterError as exc:
                        raise ConfigError(f"{where}.params: with algorithm {alg_name!r} (eps = {eps}): {exc}") from None
        if run_problem is not None and run_problem not in cls.solved_problems():
            what = f"adversary {exp['adversary']!r} builds" if "problem" not in exp else "the experiment's problem is"
            raise ConfigError(f"{at}: solves {', '.join(map(repr, cls.solved_problems()))}, but {what} "
                              f"{run_problem!r}")
        defaults.add(cls.problem)
        for params in algorithm_grid(values):
            try:
                cls.resolve_params(params)
            except ParameterError as exc:
                raise ConfigError(f"{at}: {exc}") from None
    if run_problem is None and len(defaults) > 1:
        raise ConfigError(f"{where}.algorithms: one experiment, one problem (OPT is per problem); the algorithms' "
                          f"default problems are {', '.join(sorted(defaults))}: give 'problem'")


def experiment_problem(exp: dict) -> str:
    """The problem of a (checked) experiment: its ``problem`` key, else its adversary's, else
    its algorithms' (common) default."""
    if "problem" in exp:
        return exp["problem"]
    if "adversary" in exp:
        adv = get_adversary(exp["adversary"])
        return adv.problem_for(adv.resolve_params(algorithm_grid(exp.get("params"))[0]))
    return get_algorithm(sorted(exp["algorithms"])[0]).problem


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
            for key in ("c", "D"):
                values = rule.get(key, [])
                for v in values if isinstance(values, list) else [values]:
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                        raise ConfigError(f"{where}.degree[{i}].{key}: a finite number, got {v!r}")
        try:
            expand_groups(name, exp)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
