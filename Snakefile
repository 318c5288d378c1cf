# schedbench: every table and figure of the paper, from scratch.  Wiring only: the work is in
# workflow/scripts (thin) and the schedbench package.  Run: snakemake --cores all
from snakemake.utils import min_version

min_version("9.14.8")


# The default config, unless config files are given: `--configfile config/smoke.yaml` replaces
# it instead of being merged into it, so a smaller config never inherits the paper's experiments
# (`--config key=value` still overrides single keys of whichever config is used).
from snakemake.exceptions import WorkflowError
from schedbench.hall.config import ConfigError, apply_base, load_config_strict, resolve_config
from schedbench.hall.wing import WingError, rule_files, section_schemas, use_wings

# Config files read strictly first (YAML errors and duplicate keys name the file and line), then
# checked against the schema with a one-line message naming the key, the schema's defaults
# filled in (hall.config.resolve_config, the one loader: no rule or script restates a default).
try:
    for _path in workflow.overwrite_configfiles or ["config/config.yaml"]:
        load_config_strict(str(_path))
except ConfigError as exc:
    raise WorkflowError(f"config: {exc}")

if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


# A config may build on another (`base: config.yaml`, as config/large.yaml does): merged here.
# The wings the config adds from a researcher's folder (`wings:`, module files relative to the
# working directory) are registered first: their sections are checked by their own schemas, and
# every job of the run registers them too (hall.wing.use_wings, docs/architecture.md).
try:
    _resolved = apply_base(config, [str(p) for p in workflow.overwrite_configfiles or ["config/config.yaml"]])
    config.clear()
    config.update(_resolved)
    use_wings(config.get("wings"), source="wings")
    resolve_config(config, "workflow/schemas/config.schema.yaml", section_schemas())
except (ConfigError, WingError) as exc:
    raise WorkflowError(f"config: {exc}")


include: "workflow/rules/common.smk"
include: "workflow/rules/sources.smk"
include: "workflow/rules/instances.smk"
include: "workflow/rules/offline.smk"
include: "workflow/rules/online.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/paper.smk"


# Each registered wing's own rules (Wing.rules: schedbench.WINGS, the config's `wings:`), in the
# registry's order; the scheduling wing's are the core files above and below. A wing from a
# researcher's folder gives its rules file there (its `script:` paths relative to that file).
for _rules in rule_files():

    include: _rules


include: "workflow/rules/search.smk"
include: "workflow/rules/practice.smk"
include: "workflow/rules/site.smk"


# On a cluster (workflow/profiles/slurm) the rules marked `localrule: True` run on the submitting
# machine: they only read the results tables and draw, typeset or collect (seconds each); the
# simulations, solver calls and searches go to the cluster. A local run ignores this.


rule all:
    default_target: True
    input:
        "paper/tables/worst_cases.tex",
        paper_targets(),  # the results, figures, tables and macros (workflow/rules/paper_common.smk)
        "paper/main.pdf",
        "results/site",  # the results explorer, with the pipeline record (workflow/rules/site.smk)
    localrule: True
