# The loss wing's helpers (its section, its chunks): functions only, the rules are in loss.smk.
from schedbench.hall.config import balanced_chunks, section_defaults
from schedbench.loss.stage.experiments import expand_points

# a config without the section: its rules still read the defaults at parse time
LOSS = config.get("loss") or section_defaults("loss", "workflow/schemas/config.schema.yaml")
LOSS_EXPERIMENTS = sorted(LOSS.get("experiments", {}))


def loss_chunks(experiment):
    points = expand_points(experiment, LOSS["experiments"][experiment])
    return balanced_chunks(points, int(LOSS["points_per_job"]), key=lambda p: (-p["n"], p["k"]))
