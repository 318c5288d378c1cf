# Targets from the config, wildcard constraints and the package sources each stage depends on.
import hashlib
import os
import shlex
import sys
import time
from pathlib import Path

from snakemake.exceptions import WorkflowError

from schedbench.hall.config import ConfigError, batches, config_hash
from schedbench.checks import check_config, plan_config
from schedbench.hall.plan import check_cost
from schedbench.hall.pipeline_record import COMMAND_ENV, STARTED_ENV
from schedbench.scheduling.stage.config import experiment_problem
from schedbench.scheduling.stage.eps_sweep import sweep_directories, sweep_jobs, sweep_pairs, sweep_series
from schedbench.scheduling.stage.practice import (
    family_entries,
    family_section,
    practice_families,
    practice_seed,
    practice_setting,
)
from schedbench.scheduling.stage.practice_report import family_titles
from schedbench.hall.runlock import RunLockError, hold_run_lock
from schedbench.hall.stop import stop_on_sigterm
from schedbench.hall.sources import script_sources
from schedbench.scheduling.registry import (
    adversary_names,
    algorithm_names,
    get_adversary,
    get_algorithm,
    get_family,
    plugin_files,
)

try:
    check_config(config)
except ConfigError as exc:
    raise WorkflowError(f"config: {exc}")
# the run planner: a config estimated past its limits is refused before any job (docs/run-planner.md)
if workflow.is_main_process:
    COST_PROBLEM = check_cost(plan_config(config), bool(config["accept_cost"]))
    if COST_PROBLEM:
        raise WorkflowError(f"config: {COST_PROBLEM}")

# One run per directory (the profile turns Snakemake's lock off: it survives a SIGKILL).
if workflow.is_main_process and not workflow.output_settings.dryrun:
    try:
        RUN_LOCK = hold_run_lock()
    except RunLockError as exc:
        raise WorkflowError(str(exc))

# The pipeline record's start and command (hall.pipeline_record, workflow/rules/site.smk): environment variables
# the jobs inherit; as params they would rerun the record and the site at every run.
if workflow.is_main_process:
    os.environ[STARTED_ENV] = repr(time.time())
    os.environ[COMMAND_ENV] = shlex.join(sys.argv)


# A SIGTERM ends the run within hall.stop.STOP_SECONDS (Snakemake's own answer waits for every
# running job, cluster jobs included): its jobs are stopped, the same command resumes.
onstart:
    stop_on_sigterm()


EXPERIMENTS = sorted(config["experiments"])
FAMILY_EXPERIMENTS = [e for e in EXPERIMENTS if "family" in config["experiments"][e]]
ADVERSARY_EXPERIMENTS = [e for e in EXPERIMENTS if "adversary" in config["experiments"][e]]
BATCH_SIZE = int(config["batch_size"])
CONFIG_HASH = config_hash(config)
# the problems the scheduling experiments solve: one ratio and one rejection figure each (a config
# without scheduling experiments still gets the LoadBalancing ones, as placeholders)
SCHED_PROBLEMS = sorted({experiment_problem(config["experiments"][e]) for e in EXPERIMENTS}) or ["load"]
# the worst-case search tasks (workflow/rules/search.smk)
SEARCH = config.get("search") or {}
SEARCH_TASKS = sorted(SEARCH.get("tasks") or {})
# the worst-case search swept over eps (and m): one job per (series, problem, algorithm)
# (workflow/rules/search.smk)
EPS_SWEEP = SEARCH.get("eps_sweep") or {}
EPS_SWEEP_JOBS = sweep_jobs(EPS_SWEEP)
EPS_SWEEP_PAIRS = sweep_pairs(EPS_SWEEP)
EPS_SWEEP_PROBLEMS = sorted({p for p, _ in EPS_SWEEP_PAIRS})
# the practice comparison: one job per family (workflow/rules/practice.smk)
PRACTICE = config.get("practice") or {}
PRACTICE_FAMILIES = practice_families(PRACTICE)
# every algorithm's module: the method table lists the whole registry
ALGORITHM_MODULES = sorted({get_algorithm(name).__module__ for name in algorithm_names()})


wildcard_constraints:
    experiment=r"[A-Za-z0-9_]+",
    algorithm=r"[A-Za-z0-9-]+",
    batch=r"\d+",
    part=r"batch-\d+|realised-[A-Za-z0-9-]+",
    problem=r"[a-z]+",


# source manifest name -> the source files it stands for (filled while the DAG is built)
SOURCE_SETS = {}


# the hall's workflow scripts by absolute path: what the rules file of a wing outside the workflow
# (the config's `wings:`) names in a `script:` of its own, e.g. f"{HALL_SCRIPTS}/report_tables.py"
HALL_SCRIPTS = str(Path(workflow.main_snakefile).parent / "workflow" / "scripts")


def sources_of(script, *plugins):
    """The source manifest of a job: ``results/sources/<script>-<hash>.sha256``, made by rule
    ``source_manifest`` from every src/schedbench file the workflow script imports, transitively
    (derived from the imports, never listed by hand), plus the named plug-in modules and theirs.
    ``script``: a file of workflow/scripts, or the absolute path of a script of a wing outside the
    workflow (its rules file's own); a wing loaded from a file is among the sources of a script
    that reads the wings (hall.sources).

    One input per job instead of its 40-70 source files: Snakemake stats every input of every
    waiting job at each scheduler pass (when a job ends, and on the profile's rate-limit timer),
    which with the files listed cost its own process about half a core on the default config
    (docs/architecture.md, "Pipeline"). An edited source reruns its manifests (their inputs), and
    so every job that declares one of them; jobs whose closure lacks it are untouched."""
    root = Path(workflow.main_snakefile).parent
    path = Path(script) if Path(script).is_absolute() else root / "workflow" / "scripts" / script
    files = script_sources(str(path), *plugins)
    # named by the set of files, relative to the checkout where they are in it (a moved checkout
    # keeps its results)
    names = [str(Path(f).relative_to(root)) if Path(f).is_relative_to(root) else f for f in files]
    digest = hashlib.sha256("\n".join(names).encode()).hexdigest()[:12]
    name = f"{Path(script).stem}-{digest}"
    SOURCE_SETS[name] = files
    return f"results/sources/{name}.sha256"


def source_set(wildcards):
    """The source files of one manifest (rule ``source_manifest``)."""
    try:
        return SOURCE_SETS[wildcards.name]
    except KeyError:
        raise WorkflowError(
            f"results/sources/{wildcards.name}.sha256: no job declares this source manifest "
            "(it is made only as the input of a job, never asked for alone)"
        ) from None


def exp_cfg(experiment):
    return config["experiments"][experiment]


def instance_cfg(experiment):
    """What a family experiment's instances depend on (its family and parameters): the instance
    rule's params, so that changing an algorithm neither regenerates the instances nor re-solves
    their optima."""
    return {k: v for k, v in exp_cfg(experiment).items() if k in ("family", "params")}


def exp_batches(experiment):
    return batches(int(exp_cfg(experiment)["instances"]), BATCH_SIZE)


def batch_indices(wildcards):
    return exp_batches(wildcards.experiment)[int(wildcards.batch)]


def exp_eps(experiment):
    return exp_cfg(experiment).get("eps", config["eps"])


def exp_opt_limit(key):
    """The offline solve's ``key`` (work_limit, time_limit) for an experiment: its own ``opt``
    replaces the top-level ``opt`` key by key."""
    return lambda wildcards: exp_cfg(wildcards.experiment).get("opt", {}).get(key, config["opt"][key])


def family_module(wildcards):
    return get_family(exp_cfg(wildcards.experiment)["family"]).generator.__module__


def family_data(wildcards):
    """Data files the family reads (a trace), so that replacing one reruns its instances."""
    exp = exp_cfg(wildcards.experiment)
    return get_family(exp["family"]).inputs(exp.get("params", {}))


def adversary_module(wildcards):
    return get_adversary(exp_cfg(wildcards.experiment)["adversary"]).__module__


def algorithm_module(wildcards):
    return get_algorithm(wildcards.algorithm).__module__


def exp_algorithms(experiment):
    return sorted(exp_cfg(experiment)["algorithms"])


def experiment_algorithm_modules(wildcards):
    """The modules of every algorithm an experiment runs (a batch job runs them all)."""
    return sorted({get_algorithm(alg).__module__ for alg in exp_algorithms(wildcards.experiment)})


def online_parts(wildcards=None):
    """Every run table: per (family experiment, batch) and per (adversary experiment, algorithm)."""
    return [
        f"results/{exp}/online/batch-{b}.parquet" for exp in FAMILY_EXPERIMENTS for b in range(len(exp_batches(exp)))
    ] + [
        f"results/{exp}/online/{alg}/adversary.parquet" for exp in ADVERSARY_EXPERIMENTS for alg in exp_algorithms(exp)
    ]


def opt_parts(wildcards=None):
    """Every OPT table: per family batch and per (adversary experiment, algorithm) realised set."""
    return [
        f"results/{exp}/opt/batch-{b}.parquet" for exp in FAMILY_EXPERIMENTS for b in range(len(exp_batches(exp)))
    ] + [f"results/{exp}/opt/realised-{alg}.parquet" for exp in ADVERSARY_EXPERIMENTS for alg in exp_algorithms(exp)]


def offline_input(wildcards):
    """The instance set an OPT table is for: a family batch or the instances an adversary realised."""
    part = wildcards.part
    if part.startswith("batch-"):
        return f"results/{wildcards.experiment}/instances/{part}"
    return f"results/{wildcards.experiment}/realised/{part[len('realised-'):]}"


def exp_problem(wildcards):
    from schedbench.scheduling.stage.config import experiment_problem

    return experiment_problem(exp_cfg(wildcards.experiment))


# the practice comparison (workflow/rules/practice.smk)
def practice_cfg(name):
    return PRACTICE["families"][name]


def practice_modules(wildcards):
    """The family's generator and every algorithm it runs (plug-ins too): editing one reruns it."""
    fam = practice_cfg(wildcards.practice_family)
    algorithms = {e["algorithm"] for role in ("policies", "baselines") for e in family_entries(fam, role)}
    return [get_family(fam["family"]).generator.__module__] + sorted(get_algorithm(a).__module__ for a in algorithms)


def practice_data(wildcards):
    """Data files the family reads (a trace)."""
    fam = practice_cfg(wildcards.practice_family)
    return get_family(fam["family"]).inputs(fam.get("params", {}))
