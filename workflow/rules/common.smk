# Targets from the config, wildcard constraints and the package sources each stage depends on.
import inspect
from pathlib import Path

from snakemake.exceptions import WorkflowError

import schedbench.scheduling.engine
import schedbench.pipeline.experiment
import schedbench.pipeline.io
import schedbench.pipeline.metrics
import schedbench.scheduling.model
import schedbench.scheduling.offline
import schedbench.plots
import schedbench.queueing
import schedbench.queueing.bipartite.checks
import schedbench.queueing.bipartite.experiments
import schedbench.queueing.fits
import schedbench.queueing.kernel_common
import schedbench.queueing.loss.slopes
import schedbench.pipeline.results
import schedbench.seeds
import schedbench.solvers
import schedbench.stats
import schedbench.pipeline.tables
import schedbench.scheduling.validate
from schedbench.pipeline.config import ConfigError, balanced_chunks, batches, check_config, config_hash
from schedbench.queueing.bipartite.experiments import expand_groups
from schedbench.queueing.loss.experiments import expand_points
from schedbench.scheduling.registry import get_algorithm, get_family

try:
    check_config(config)
except ConfigError as exc:
    raise WorkflowError(f"config: {exc}")

EXPERIMENTS = sorted(config["experiments"])
BATCH_SIZE = int(config.get("batch_size", 10))
CONFIG_HASH = config_hash(config)


wildcard_constraints:
    experiment=r"[A-Za-z0-9_]+",
    algorithm=r"[a-z0-9-]+",
    batch=r"\d+",


def _source(obj):
    return str(Path(inspect.getsourcefile(obj)).resolve())


def _package_dir(module):
    return sorted(str(p) for p in Path(_source(module)).parent.glob("*.py"))


# Sources whose edits must rerun a stage (Snakemake tracks only a rule's own code).
CORE_SOURCES = sorted(
    {_source(m) for m in (schedbench.scheduling.model, schedbench.scheduling.validate, schedbench.pipeline.experiment)}
    | set(_package_dir(schedbench.scheduling.engine))
)
OFFLINE_SOURCES = _package_dir(schedbench.scheduling.offline) + [_source(schedbench.solvers)]
FIGURE_SOURCES = _package_dir(schedbench.plots) + [_source(schedbench.pipeline.metrics)]
TABLE_SOURCES = [_source(m) for m in (schedbench.pipeline.tables, schedbench.stats, schedbench.pipeline.metrics)]


def exp_cfg(experiment):
    return config["experiments"][experiment]


def exp_batches(experiment):
    return batches(int(exp_cfg(experiment)["instances"]), BATCH_SIZE)


def batch_indices(wildcards):
    return exp_batches(wildcards.experiment)[int(wildcards.batch)]


def exp_eps(experiment):
    return exp_cfg(experiment).get("eps", config["eps"])


def family_source(wildcards):
    return _source(inspect.getmodule(get_family(exp_cfg(wildcards.experiment)["family"]).generator))


def algorithm_sources(wildcards):
    cls = get_algorithm(wildcards.algorithm)
    return sorted({_source(c) for c in inspect.getmro(cls) if c.__module__.startswith("schedbench")})


def online_parts(wildcards=None):
    return [
        f"results/{exp}/online/{alg}/batch-{b}.parquet"
        for exp in EXPERIMENTS
        for alg in sorted(exp_cfg(exp)["algorithms"])
        for b in range(len(exp_batches(exp)))
    ]


# ---- loss system with adaptive multiserver jobs (seed 002) ----

LOSS = config.get("loss") or {}
LOSS_EXPERIMENTS = sorted(LOSS.get("experiments", {}))
# the simulation's sources (slope fitting lives apart and reruns only the collection step)
LOSS_SOURCES = sorted(
    _source(m)
    for m in (
        schedbench.queueing.formulas,
        schedbench.queueing.estimators,
        schedbench.queueing.loss.simulate,
        schedbench.queueing.loss.kernels,
        schedbench.queueing.kernel_common,
        schedbench.queueing.loss.exact,
        schedbench.queueing.loss.experiments,
        schedbench.seeds,
    )
)
LOSS_FIT_SOURCES = [_source(schedbench.queueing.loss.slopes), _source(schedbench.queueing.fits)]


def loss_chunks(experiment):
    points = expand_points(experiment, LOSS["experiments"][experiment])
    return balanced_chunks(points, int(LOSS.get("points_per_job", 12)), key=lambda p: (-p["n"], p["k"]))


def loss_targets():
    if not LOSS_EXPERIMENTS:
        return []
    return (
        ["results/loss.parquet", "paper/tables/loss_slopes.tex", "paper/macros_loss.tex"]
        + [f"paper/figures/loss_{e}.pdf" for e in LOSS_EXPERIMENTS]
    )


# ---- bipartite load balancing with heterogeneous servers (seed 003) ----

BIP = config.get("bipartite") or {}
BIP_EXPERIMENTS = sorted(BIP.get("experiments", {}))
BIP_SOURCES = sorted(
    _source(m)
    for m in (
        schedbench.queueing.bipartite.simulate,
        schedbench.queueing.bipartite.kernels,
        schedbench.queueing.kernel_common,
        schedbench.queueing.bipartite.oracles,
        schedbench.queueing.bipartite.experiments,
        schedbench.queueing.bipartite.graphs,
        schedbench.queueing.estimators,
        schedbench.queueing.formulas,
        schedbench.seeds,
        schedbench.solvers,
    )
)


def bip_chunks(experiment):
    groups = expand_groups(experiment, BIP["experiments"][experiment])
    return balanced_chunks(groups, int(BIP.get("groups_per_job", 8)),
                           key=lambda g: (-g["N"], g["degree_label"], g["rho"]))


def bip_figures():
    return sorted(
        (exp, fig) for exp in BIP_EXPERIMENTS for fig in BIP["experiments"][exp]["figures"]
    )


def bip_targets():
    if not BIP_EXPERIMENTS:
        return []
    return [
        "results/bipartite.parquet",
        "paper/tables/bipartite_checks.tex",
        "paper/tables/bipartite_rates.tex",
    ] + [f"paper/figures/bipartite_{exp}_{fig}.pdf" for exp, fig in bip_figures()]
