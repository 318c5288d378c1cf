# schedbench: every table and figure of the paper, from scratch.  Wiring only: the work is in
# workflow/scripts (thin) and the schedbench package.  Run: snakemake --cores all
from snakemake.utils import min_version, validate

min_version("9.14.8")


# The default config, unless config files are given: `--configfile config/smoke.yaml` replaces
# it instead of being merged into it, so a smaller config never inherits the paper's experiments
# (`--config key=value` still overrides single keys of whichever config is used).
if not workflow.overwrite_configfiles:

    configfile: "config/config.yaml"


validate(config, "workflow/schemas/config.schema.yaml")


include: "workflow/rules/common.smk"
include: "workflow/rules/instances.smk"
include: "workflow/rules/offline.smk"
include: "workflow/rules/online.smk"
include: "workflow/rules/aggregate.smk"
include: "workflow/rules/paper.smk"
include: "workflow/rules/loss.smk"
include: "workflow/rules/bipartite.smk"


rule all:
    input:
        "results/runs.parquet",
        "paper/figures/ratio_vs_eps.pdf",
        "paper/figures/rejection_vs_eps.pdf",
        "paper/figures/adversary_rounds.pdf",
        "paper/tables/adversaries.tex",
        "paper/tables/ratios.tex",
        "paper/macros.tex",
        loss_targets(),
        bip_targets(),
    default_target: True
