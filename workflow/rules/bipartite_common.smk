# The bipartite wing's helpers (its section, its chunks): functions only, the rules are in bipartite.smk.
from schedbench.bipartite.stage.experiments import expand_groups
from schedbench.hall.config import balanced_chunks, section_defaults

# a config without the section: its rules still read the defaults at parse time
BIP = config.get("bipartite") or section_defaults("bipartite", "workflow/schemas/config.schema.yaml")
BIP_EXPERIMENTS = sorted(BIP.get("experiments", {}))


def bip_chunks(experiment):
    groups = expand_groups(experiment, BIP["experiments"][experiment])
    return balanced_chunks(groups, int(BIP["groups_per_job"]), key=lambda g: (-g["N"], g["degree_label"], g["rho"]))


def bip_figures():
    return sorted((exp, fig) for exp in BIP_EXPERIMENTS for fig in BIP["experiments"][exp]["figures"])
