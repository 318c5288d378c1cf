"""The whole experiment config checked beyond its schema: each wing checks its own section
(:mod:`schedbench.scheduling.stage.config`, :mod:`schedbench.loss.stage.config`,
:mod:`schedbench.bipartite.stage.config`); loading, schema and hash are the hall's
(:mod:`schedbench.hall.config`)."""

from __future__ import annotations

from schedbench.bipartite.stage.config import check_bipartite
from schedbench.hall.config import ConfigError
from schedbench.loss.stage.config import check_loss
from schedbench.scheduling.stage.config import (
    check_experiment,
    check_figures_section,
    check_practice_section,
    check_search_section,
)


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` naming the first bad key; return None if the config is usable.
    The config's ``plugins`` are loaded first (their algorithms, adversaries and families are
    names the experiments may use); one that does not load is an error naming its file and line."""
    from schedbench.hall.grids import repeated
    from schedbench.scheduling.registry import PluginError, plugin_files, use_plugins

    try:
        use_plugins(config.get("plugins") or [], source="plugins")
        plugin_files()  # loads the registry now: a broken plug-in fails here, before any job
    except PluginError as exc:
        raise ConfigError(f"plugins: {exc}") from None
    check_loss(config.get("loss"))
    check_bipartite(config.get("bipartite"))
    check_search_section(config.get("search"))
    check_figures_section(config.get("figures"))
    check_practice_section(config.get("practice"))
    if isinstance(config.get("eps"), list):
        dup = repeated(config["eps"])
        if dup is not None:
            raise ConfigError(f"eps: {dup!r} is listed twice (each value of a grid once)")
    for exp_name, exp in config["experiments"].items():
        check_experiment(f"experiments.{exp_name}", exp, config["eps"])


def plan_config(config: dict):
    """The run planner's estimate of a checked config (:mod:`schedbench.hall.plan`): each wing
    estimates its own stages."""
    from schedbench.bipartite.stage.plan import plan_bipartite
    from schedbench.hall.plan import Plan, calibration, machine_memory_bytes
    from schedbench.loss.stage.plan import plan_loss
    from schedbench.scheduling.stage.plan import plan_scheduling

    stages = plan_scheduling(config) + plan_loss(config.get("loss")) + plan_bipartite(config.get("bipartite"))
    return Plan(stages, calibration(), machine_memory_bytes())
