"""The whole experiment config checked beyond its schema: each wing checks its own section
(:mod:`schedbench.scheduling.stage.config`, :mod:`schedbench.loss.stage.config`,
:mod:`schedbench.bipartite.stage.config`); loading, schema and hash are the hall's
(:mod:`schedbench.hall.config`)."""

from __future__ import annotations

from schedbench.bipartite.stage.config import check_bipartite
from schedbench.hall.config import ConfigError
from schedbench.loss.stage.config import check_loss
from schedbench.scheduling.stage.config import check_experiment, check_figures_section, check_search_section


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` naming the first bad key; return None if the config is usable.
    The config's ``plugins`` are loaded first (their algorithms, adversaries and families are
    names the experiments may use); one that does not load is an error naming its file and line."""
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
    for exp_name, exp in config["experiments"].items():
        check_experiment(f"experiments.{exp_name}", exp, config["eps"])


def plan_config(config: dict):
    """The run planner's estimate of a checked config (:mod:`schedbench.hall.plan`): the
    scheduling wing's stages, estimated (:mod:`schedbench.scheduling.stage.plan`); the loss and
    bipartite sections as job counts (their cost is not modelled yet, said in the note)."""
    from schedbench.bipartite.stage.experiments import expand_groups
    from schedbench.hall.config import balanced_chunks
    from schedbench.hall.plan import BASE_BYTES, JOB_STARTUP_SECONDS, Plan, StageEstimate
    from schedbench.hall.plan import calibration, machine_memory_bytes
    from schedbench.loss.stage.experiments import expand_points
    from schedbench.scheduling.stage.plan import plan_scheduling

    stages = plan_scheduling(config)
    for section, expand, per_job_key, default in (
        ("loss", expand_points, "points_per_job", 12),
        ("bipartite", expand_groups, "groups_per_job", 8),
    ):
        sec = config.get(section) or {}
        for name in sorted(sec.get("experiments") or {}):
            items = expand(name, sec["experiments"][name])
            jobs = len(balanced_chunks(items, int(sec.get(per_job_key, default)), key=lambda _: 0))
            stages.append(
                StageEstimate(
                    f"{section}.experiments.{name}",
                    "simulate",
                    jobs,
                    len(items),
                    0.0,
                    jobs * JOB_STARTUP_SECONDS,
                    BASE_BYTES,
                    "simulation cost not modelled (start-up only)",
                )
            )
    return Plan(stages, calibration(), machine_memory_bytes())
