"""The text of ``schedbench diff``: :func:`format_diff` writes a :class:`~schedbench.hall.run_diff.RunDiff`
as a summary line, what produced each run (code, plug-ins, config keys, packages, platform),
then per table what changed — a group's values with their intervals, then its paired differences
on the shared instances — at most :data:`NOISE_LINES` values within the noise unless ``full``.
"""

from __future__ import annotations

import json
import math
from typing import Any

from schedbench.hall.pipeline_record import record_lines
from schedbench.hall.table_specs import RUNS

#: what the functions below format: a :class:`~schedbench.hall.run_diff.RunDiff` (not imported:
#: run_diff calls this module, and the text needs only its attributes)
RunDiff = Any

__all__ = ["format_diff", "NOISE_LINES"]

#: at most this many lines of values that moved within the noise in the text (``--json``: all)
NOISE_LINES = 20


def _num(x: float) -> str:
    return "nan" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.6g}"


def _value(x: float, lo: float, hi: float) -> str:
    if any(isinstance(v, float) and math.isnan(v) for v in (lo, hi)) or (lo == hi == x):
        return _num(x)
    return f"{_num(x)} [{_num(lo)}, {_num(hi)}]"


def _short(v: Any, limit: int = 60) -> str:
    text = json.dumps(v, default=str) if not isinstance(v, str) else v
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _what(experiment: str, algorithm: str, params: str, eps: str, key: str = "") -> str:
    """A group as the text names it: ``ru lb-unit-reject (alpha_rule: paper → safe) ε=0.5``."""
    return " ".join(x for x in (experiment, algorithm, f"({params})" if params else "", key) if x) + (
        f" ε={eps}" if eps else ""
    )


_VERDICT = {"changed": "beyond the noise", "noise": "within the noise", "same": "no change"}


def _paired_text(p: Any) -> str:
    """A group's paired differences: ``paired on 4 shared instances: objective b/a 0.571
    [0.52, 0.61], rejected_frac b−a +0.13 [0.1, 0.15] (beyond the noise)``."""
    if not p.n_pairs:
        return "paired: no shared instances"

    def signed(x: float) -> str:
        return f"+{_num(x)}" if x > 0 else _num(x)

    ratio = _value(p.objective_ratio, p.objective_ratio_lo, p.objective_ratio_hi)
    rejected = f"{signed(p.rejected_diff)}"
    if not (math.isnan(p.rejected_diff_lo) or p.rejected_diff_lo == p.rejected_diff_hi == p.rejected_diff):
        rejected += f" [{signed(p.rejected_diff_lo)}, {signed(p.rejected_diff_hi)}]"
    return (
        f"paired on {p.n_pairs} shared instance{'' if p.n_pairs == 1 else 's'}: objective b/a {ratio}, "
        f"rejected_frac b−a {rejected} ({_VERDICT.get(p.verdict, p.verdict)})"
    )


def _overall(d: RunDiff) -> str:
    """The one-line verdict: how many values changed beyond the noise, settings, appeared, disappeared."""
    if d.unchanged:
        return "no changes beyond the noise"
    ch = d.changes
    changed_groups = {
        (r.experiment, r.algorithm, r.params, r.eps)
        for r in ch[(ch["kind"] == "changed") & (ch["level"] == "group")].itertuples()
    }
    by_pairs = sum(
        (p.experiment, p.algorithm, p.params, p.eps) not in changed_groups
        for p in d.paired[(d.paired["verdict"] == "changed") & (d.paired["level"] == "group")].itertuples()
    )
    n_changed = int((ch["kind"] == "changed").sum()) + by_pairs
    n_settings = int((ch["kind"] == "setting").sum())
    return (
        f"{n_changed} change{'' if n_changed == 1 else 's'} beyond the noise, "
        + (f"{n_settings} setting{'' if n_settings == 1 else 's'} changed, " if n_settings else "")
        + f"{int((ch['kind'] == 'appeared').sum())} appeared, {int((ch['kind'] == 'disappeared').sum())} disappeared"
    )


def format_diff(d: RunDiff, full: bool = False) -> str:
    """The comparison as text: a summary line, what produced each run, then per table what
    changed (a group's values with their intervals, then its paired differences on the shared
    instances). ``full``: every value within the noise and every group in both runs, identical
    ones too (else at most :data:`NOISE_LINES` noise lines)."""
    lines = [f"schedbench diff: a = {d.a}, b = {d.b}", f"summary:   {_overall(d)}"]
    ca, cb = d.code["a"], d.code["b"]

    def commit(c):
        return f"{c['commit'][:12]}{' (dirty)' if c['dirty'] else ''}"

    sources = d.code.get("sources_same")
    differ = f"package sources differ: sha256 {ca.get('sources')} → {cb.get('sources')}"
    if all(ca[k] == cb[k] for k in ("git_commit", "schedbench_version")):
        if sources is False:
            note = f" — {differ}"
        elif ca["dirty"]:
            note = (
                " — uncommitted changes, the same package sources"
                if sources
                else " — uncommitted changes: the code may differ"
            )
        else:
            note = ""
        lines.append(f"code:      same commit {commit(ca)}, schedbench {ca['schedbench_version']}{note}")
    else:
        lines.append(
            f"code:      differs: {commit(ca)} → {commit(cb)}"
            + (
                f"; schedbench {ca['schedbench_version']} → {cb['schedbench_version']}"
                if ca["schedbench_version"] != cb["schedbench_version"]
                else ""
            )
            + (f"; {differ}" if sources is False else "")
        )
    for f in d.plugins["files"]:
        what = f"sha256 {f['a']} → {f['b']}" if f["change"] == "changed" else f"sha256 {f['a'] or f['b']}"
        lines.append(f"plug-in {f['file']}: {f['change']} ({what})")
    if d.plugins["same"] and d.plugins.get("a"):
        lines.append(f"plug-ins:  same ({', '.join(sorted(d.plugins['a']))})")
    cfg = d.config
    if cfg["same"]:
        lines.append(f"config:    same (hash {cfg['a']})")
    else:
        lines.append(f"config:    differs: hash {cfg['a']} → {cfg['b']}")
        if cfg["keys"] is not None:
            for k in cfg["keys"][:30]:
                lines.append(f"             {k['key']}: {_short(k['a'])} → {_short(k['b'])}")
            if len(cfg["keys"]) > 30:
                lines.append(f"             … and {len(cfg['keys']) - 30} more keys")
        else:
            lines.append(f"             (keys not compared: {cfg.get('note') or 'a config is not available'})")
    if d.packages["same"]:
        lines.append("packages:  same")
    else:
        lines.append(
            "packages:  differ: " + ", ".join(f"{n} {va} → {vb}" for n, (va, vb) in d.packages["differ"].items())
        )
    lines.append("platform:  same" if d.platform["same"] else f"platform:  {d.platform['a']} → {d.platform['b']}")
    ch = d.changes
    for row in ch[ch["level"] == "table"].itertuples():
        lines.append(f"{row.table}: {row.kind} (only in {'a' if row.kind == 'disappeared' else 'b'})")
    pairs = {(p.level, p.experiment, p.algorithm, p.params, p.eps): p for p in d.paired.itertuples()}
    for table, counts in d.summary.items():
        rows = ch[ch["table"] == table]
        unit = "groups" if table == RUNS else "points"
        compared = (
            f"{counts['groups']} {unit} in both: {counts['same']} identical, {counts['noise']} within the noise, "
            f"{counts['changed']} changed"
        )
        quiet = [p for k, p in pairs.items() if p.table == table and p.verdict == "changed"]
        if rows.empty and not quiet and not full:
            lines.append(f"{table}: no changes beyond the noise ({compared})")
            continue
        settings = f", {counts['settings']} settings changed" if counts.get("settings") else ""
        lines.append(
            f"{table}: {compared}; {counts['appeared']} appeared, {counts['disappeared']} disappeared{settings}"
        )
        noise_lines = hidden = 0
        shown: set[tuple] = set()

        def close(group: tuple | None) -> None:
            """After a group's lines: its paired differences (once)."""
            if group in pairs and group in shown and (full or pairs[group].verdict != "same"):
                lines.append(f"               {_paired_text(pairs[group])}")

        current = None
        for r in rows.itertuples():
            group = (r.level, r.experiment, r.algorithm, r.params, r.eps)
            if group != current:
                close(current)
                current = group
            what = _what(r.experiment, r.algorithm, r.params, r.eps, r.key)
            value = f"{r.metric} {_value(r.a, r.a_lo, r.a_hi)} → {_value(r.b, r.b_lo, r.b_hi)}"
            pair_changed = group in pairs and pairs[group].verdict == "changed"
            if r.kind == "setting":
                same = ": every value the same" if r.metric == "same values" else ""
                lines.append(f"  setting      {what} ({r.n_a} → {r.n_b} runs){same}")
            elif r.kind == "changed" and r.metric.count("→"):
                lines.append(f"  changed      {what}: {r.metric}")
            elif r.kind == "changed":
                indent = "               " if r.level == "setting" else f"  changed      {what}: "
                lines.append(f"{indent}{value}" + ("  (beyond the noise)" if r.level == "setting" else ""))
            elif r.kind == "noise" and r.level == "setting":
                lines.append(f"               {value}  (within the noise)")
            elif r.kind == "noise":
                noise_lines += 1
                if noise_lines <= NOISE_LINES or full or pair_changed:
                    lines.append(f"  {'changed' if pair_changed else 'noise':<12} {what}: {value}")
                else:
                    hidden += 1
                    continue
            else:
                n = f" ({r.n_a or r.n_b} rows)" if (r.n_a or r.n_b) else ""
                side = (r.a, r.a_lo, r.a_hi) if r.kind == "disappeared" else (r.b, r.b_lo, r.b_hi)
                seen = f": {r.metric} {_value(*side)}" if r.metric and not math.isnan(side[0]) else ""
                lines.append(f"  {r.kind:<12} {r.level} {what}{n}{seen}")
            shown.add(group)
        close(current)
        for group, p in pairs.items():  # groups without a line of their own
            if p.table == table and group not in shown and (p.verdict == "changed" or full):
                kind = "changed" if p.verdict == "changed" else p.verdict
                lines.append(f"  {kind:<12} {_what(*group[1:])}: {_paired_text(p)}")
        if hidden:
            lines.append(f"  … and {hidden} more values within the noise (--full or --json lists them all)")
    lines += record_lines(d.records) if d.records else []
    return "\n".join(lines)
