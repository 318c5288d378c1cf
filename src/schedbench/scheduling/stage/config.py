"""The scheduling wing's config checks: each experiment (family or adversary, ε grid, algorithms,
problem) and the worst-case search tasks. Every error names the key path."""

from __future__ import annotations

from schedbench.hall.config import ConfigError
from schedbench.hall.grids import GridError, algorithm_grid, check_unique
from schedbench.hall.params import ParameterError
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.problems import problem_names
from schedbench.scheduling.registry import (
    UnknownNameError,
    adversary_names,
    algorithm_names,
    get_adversary,
    get_algorithm,
    get_family,
)

#: Replications of an adversary experiment that gives no ``seeds``. Not a schema default: the
#: schema would fill it into every experiment, family ones included (where ``seeds`` is an
#: error), and change the config's hash.
DEFAULT_SEEDS = 1


def check_figures_section(section: dict | None) -> None:
    """``figures.rounds_parameter`` names adversary parameters and ``figures.sweep_parameters``
    algorithm parameters: a name no registered adversary (algorithm) declares would draw an
    empty figure without a word, so it is an error naming the key and the known names."""
    section = section or {}
    rounds = section["rounds_parameter"]
    rounds = [rounds] if isinstance(rounds, str) else list(rounds)
    known_adv = sorted({p for n in adversary_names() for p in get_adversary(n).parameters})
    for name in rounds:
        if name not in known_adv:
            raise ConfigError(
                f"figures.rounds_parameter: {name!r} is not a parameter of any adversary (known: {', '.join(known_adv)})"
            )
    known_alg = sorted({p for n in algorithm_names() for p in get_algorithm(n).parameters})
    for name in section["sweep_parameters"]:
        if name not in known_alg:
            raise ConfigError(
                f"figures.sweep_parameters: {name!r} is not a parameter of any algorithm (known: {', '.join(known_alg)})"
            )


def check_search_section(section: dict | None) -> None:
    """The worst-case search tasks (:mod:`schedbench.scheduling.stage.search`) and the ε sweep
    (:mod:`schedbench.scheduling.stage.eps_sweep`)."""
    from schedbench.scheduling.stage.eps_sweep import EpsSweepConfigError, check_eps_sweep
    from schedbench.scheduling.stage.search import SearchConfigError, check_search

    try:
        check_search(section)
        if isinstance(section, dict):
            check_eps_sweep(section.get("eps_sweep"))
    except (SearchConfigError, EpsSweepConfigError) as exc:
        raise ConfigError(str(exc)) from None


def check_practice_section(section: dict | None) -> None:
    """The practice comparison (:mod:`schedbench.scheduling.stage.practice`)."""
    from schedbench.scheduling.stage.practice import PracticeConfigError, check_practice

    try:
        check_practice(section)
    except PracticeConfigError as exc:
        raise ConfigError(str(exc)) from None


def check_experiment(where: str, exp: dict, default_eps: list) -> None:
    """One seed-000 experiment: its family or adversary, its ε grid, its algorithms. A grid with
    a value twice (ε, an adversary's or an algorithm's swept parameter) is refused by name."""
    try:
        _no_repeats(where, exp)
    except GridError as exc:
        raise ConfigError(f"{where}.{exc}") from None
    _check_experiment(where, exp, default_eps)


def _no_repeats(where: str, exp: dict) -> None:
    """Every list of the experiment (its ε, its adversary's and its algorithms' swept parameters)
    without a repeated value; a :class:`GridError` names the list."""
    lists = [("eps", exp.get("eps"))]
    lists += [(f"params.{k}", v) for k, v in (exp.get("params") or {}).items()]
    for name, values in (exp.get("algorithms") or {}).items():
        lists += [(f"algorithms.{name}.{k}", v) for k, v in (values if isinstance(values, dict) else {}).items()]
    for key, values in lists:
        if isinstance(values, list):
            check_unique(values, key)


def _check_experiment(where: str, exp: dict, default_eps: list) -> None:
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
            raise ConfigError(
                f"{where}.params: the swept values build instances of several problems "
                f"({', '.join(built)}); one experiment, one problem"
            )
        unit, source_problem = all(adv.unit_sizes_for(c) for c in combos), built[0]
    if "seeds" in exp and "family" in exp:
        raise ConfigError(f"{where}.seeds: applies to adversary experiments only")
    for eps in exp.get("eps", default_eps):
        if not 0 < eps < 1:
            raise ConfigError(f"{where}.eps: every eps must be in (0, 1), got {eps}")
    if "problem" in exp:
        if exp["problem"] not in problem_names():
            raise ConfigError(
                f"{where}.problem: unknown problem {exp['problem']!r}; known: {', '.join(problem_names())}"
            )
        if source_problem is not None and exp["problem"] != source_problem:
            raise ConfigError(
                f"{where}.problem: adversary {exp['adversary']!r} builds {source_problem!r} instances, "
                f"not {exp['problem']!r}"
            )
    run_problem = exp.get("problem", source_problem)
    defaults = set()
    for alg_name, values in (exp.get("algorithms") or {}).items():
        at = f"{where}.algorithms.{alg_name}"
        try:
            cls = get_algorithm(alg_name)
        except UnknownNameError as exc:
            raise ConfigError(f"{at}: {exc}") from None
        if cls.unit_sizes_only and not unit:
            source = (
                f"family {exp['family']!r} with these params" if "family" in exp else f"adversary {exp['adversary']!r}"
            )
            raise ConfigError(f"{at}: {alg_name!r} is defined for unit sizes only, but {source} produces sizes > 1")
        if "adversary" in exp and cls.migratory:
            raise ConfigError(
                f"{at}: {alg_name!r} is migratory (it schedules a whole instance at once, outside "
                "the model) and cannot play an adaptive adversary; run it on a family"
            )
        if "adversary" in exp:  # the adversary as each run builds it (some derive parameters from ε)
            for combo in algorithm_grid(exp.get("params")):
                for eps in cls.eps_values(exp.get("eps", default_eps)):
                    try:
                        get_adversary(exp["adversary"])(eps=eps, seed=0, **combo)
                    except ParameterError as exc:
                        raise ConfigError(f"{where}.params: with algorithm {alg_name!r} (eps = {eps}): {exc}") from None
        if run_problem is not None and run_problem not in cls.solved_problems():
            what = f"adversary {exp['adversary']!r} builds" if "problem" not in exp else "the experiment's problem is"
            raise ConfigError(f"{at}: solves {', '.join(map(repr, cls.solved_problems()))}, but {what} {run_problem!r}")
        defaults.add(cls.problem)
        for params in algorithm_grid(values):
            try:
                cls.resolve_params(params)
            except ParameterError as exc:
                raise ConfigError(f"{at}: {exc}") from None
    if run_problem is None and len(defaults) > 1:
        raise ConfigError(
            f"{where}.algorithms: one experiment, one problem (OPT is per problem); the algorithms' "
            f"default problems are {', '.join(sorted(defaults))}: give 'problem'"
        )


def experiment_problem(exp: dict) -> str:
    """The problem of a (checked) experiment: its ``problem`` key, else its adversary's, else
    its algorithms' (common) default."""
    if "problem" in exp:
        return exp["problem"]
    if "adversary" in exp:
        adv = get_adversary(exp["adversary"])
        return adv.problem_for(adv.resolve_params(algorithm_grid(exp.get("params"))[0]))
    return get_algorithm(sorted(exp["algorithms"])[0]).problem


def check_scheduling(config: dict) -> None:
    """The scheduling part of a whole config: its ``plugins`` loaded first (their algorithms,
    adversaries and families are names the experiments may use; one that does not load is an
    error naming its file and line), then the search, figures and practice sections, the ε grid
    and every experiment."""
    from schedbench.hall.grids import repeated
    from schedbench.scheduling.registry import PluginError, plugin_files, use_plugins

    try:
        use_plugins(config.get("plugins") or [], source="plugins")
        plugin_files()  # loads the registry now: a broken plug-in fails here, before any job
    except PluginError as exc:
        raise ConfigError(f"plugins: {exc}") from None
    check_search_section(config.get("search"))
    check_figures_section(config.get("figures"))
    check_practice_section(config.get("practice"))
    if isinstance(config.get("eps"), list):
        dup = repeated(config["eps"])
        if dup is not None:
            raise ConfigError(f"eps: {dup!r} is listed twice (each value of a grid once)")
    for exp_name, exp in config["experiments"].items():
        check_experiment(f"experiments.{exp_name}", exp, config["eps"])
