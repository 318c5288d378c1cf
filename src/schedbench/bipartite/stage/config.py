"""The bipartite wing's config checks: one load key, class fractions, degree-rule parameters."""

from __future__ import annotations

import math

from schedbench.hall.config import ConfigError


def check_bipartite(section: dict | None) -> None:
    """The bipartite section: one load key, class fractions, degree-rule parameters."""
    if not section:
        return
    from schedbench.bipartite.stage.experiments import DEGREE_RULES, expand_groups

    for name, exp in section["experiments"].items():
        where = f"bipartite.experiments.{name}"
        if ("rho" in exp) == ("load" in exp):
            raise ConfigError(f"{where}: give exactly one of 'rho' (fixed) and 'load' (ρ_N = 1 − βN^−α)")
        mu, frac = exp["classes"]["mu"], exp["classes"]["fractions"]
        if len(mu) != len(frac) or abs(sum(frac) - 1.0) > 1e-9:
            raise ConfigError(f"{where}.classes: 'mu' and 'fractions' need the same length and fractions summing to 1")
        for i, rule in enumerate(exp["degree"]):
            extra = sorted(set(rule) - {"rule"} - DEGREE_RULES[rule["rule"]])
            if extra:
                raise ConfigError(f"{where}.degree[{i}]: rule {rule['rule']!r} takes no '{extra[0]}'")
            for key in ("c", "D"):
                values = rule.get(key, [])
                for v in values if isinstance(values, list) else [values]:
                    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
                        raise ConfigError(f"{where}.degree[{i}].{key}: a finite number, got {v!r}")
        try:
            expand_groups(name, exp)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
