"""The loss wing's config checks: k-rule parameters and a positive λ(n) at every point."""

from __future__ import annotations

from schedbench.hall.config import ConfigError


def check_loss(loss: dict | None) -> None:
    """The loss-system section: k-rule parameters and a positive λ(n) at every point."""
    if not loss:
        return
    from schedbench.loss.stage.experiments import K_RULE_KEYS, expand_points

    for name, exp in loss["experiments"].items():
        where = f"loss.experiments.{name}"
        for i, rule in enumerate(exp["k"]):
            extra = sorted(set(rule) - {"rule"} - K_RULE_KEYS[rule["rule"]])
            if extra:
                raise ConfigError(
                    f"{where}.k[{i}]: rule {rule['rule']!r} takes no '{extra[0]}' "
                    f"(it takes: {', '.join(sorted(K_RULE_KEYS[rule['rule']])) or 'nothing'})"
                )
            missing = sorted(K_RULE_KEYS[rule["rule"]] - set(rule))
            if missing and rule["rule"] in ("const", "fraction"):
                raise ConfigError(f"{where}.k[{i}]: rule {rule['rule']!r} needs '{missing[0]}'")
        try:
            expand_points(name, exp)
        except ValueError as exc:
            raise ConfigError(f"{where}: {exc}") from None
