"""The whole experiment config checked beyond its schema: each wing checks its own section
(:mod:`schedbench.scheduling.stage.config`, :mod:`schedbench.loss.stage.config`,
:mod:`schedbench.bipartite.stage.config`); loading, schema and hash are the hall's
(:mod:`schedbench.hall.config`)."""

from __future__ import annotations

from schedbench.bipartite.stage.config import check_bipartite
from schedbench.loss.stage.config import check_loss
from schedbench.scheduling.stage.config import check_experiment, check_search_section


def check_config(config: dict) -> None:
    """Raise :class:`ConfigError` naming the first bad key; return None if the config is usable."""
    check_loss(config.get("loss"))
    check_bipartite(config.get("bipartite"))
    check_search_section(config.get("search"))
    for exp_name, exp in config["experiments"].items():
        check_experiment(f"experiments.{exp_name}", exp, config["eps"])
