"""The runs table of two runs compared per group (``schedbench diff``, docs/comparing-runs.md).

A group is an (experiment, algorithm and parameters, ε). Per group in both runs: each metric's
mean with its percentile-bootstrap 95 % interval, "changed" when the two intervals do not overlap
(a group of one run is compared exactly, up to 1e-9 relative), and the paired differences on the
shared instances (:func:`paired_stats`); groups only in one run appeared or disappeared; a lone
setting of an (experiment, algorithm, ε) replaced by another is paired a → b as a "setting";
``--match`` (:data:`MATCH_KEYS` and the parameters' names) matches groups on some keys only.

The rows are those of ``RunDiff.changes`` (:data:`CHANGE_COLUMNS`, :func:`change_row`) and
``RunDiff.paired`` (:data:`PAIRED_COLUMNS`); :mod:`.run_diff` puts them together.
"""

from __future__ import annotations

import difflib
import math
from typing import Any

import numpy as np
import pandas as pd

from schedbench.hall.archive_checks import ArchiveError
from schedbench.hall.stats import bootstrap_ci
from schedbench.hall.table_specs import METRICS, REL_TOL, RUNS, cell_label, cell_labels

__all__ = [
    "CHANGE_COLUMNS",
    "GROUP_KEYS",
    "MATCH_KEYS",
    "PAIRED_COLUMNS",
    "change_row",
    "diff_groups",
    "groups_of",
    "overlap",
    "paired_stats",
]

#: a group's key in the runs table (its columns of ``RunDiff.changes`` and ``RunDiff.paired``)
GROUP_KEYS = ["experiment", "algorithm", "params", "eps"]
#: the columns of ``RunDiff.changes`` (:func:`change_row`)
CHANGE_COLUMNS = [
    "table",
    "kind",
    "level",
    *GROUP_KEYS,
    "key",
    "metric",
    "a",
    "a_lo",
    "a_hi",
    "b",
    "b_lo",
    "b_hi",
    "n_a",
    "n_b",
]

_NAN3 = (math.nan,) * 3


def change_row(
    table: str,
    kind: str,
    level: str,
    experiment: str = "",
    algorithm: str = "",
    params: str = "",
    eps: str = "",
    key: str = "",
    metric: str = "",
    av: tuple = _NAN3,
    bv: tuple = _NAN3,
    na: int = 0,
    nb: int = 0,
) -> dict[str, Any]:
    """One row of the changes (:data:`CHANGE_COLUMNS`): ``av``, ``bv`` are (estimate, lo, hi) of a and b."""
    return dict(
        zip(CHANGE_COLUMNS, (table, kind, level, experiment, algorithm, params, eps, key, metric, *av, *bv, na, nb))
    )


#: the keys ``diff --match`` takes besides the parameters' names (``c``, ``adversary.m``)
MATCH_KEYS = ("experiment", "algorithm", "eps")
#: the paired statistics of a group on its shared instances (columns of ``RunDiff.paired``)
PAIRED_COLUMNS = [
    "table",
    "level",
    *GROUP_KEYS,
    "n_pairs",
    "objective_ratio",
    "objective_ratio_lo",
    "objective_ratio_hi",
    "rejected_diff",
    "rejected_diff_lo",
    "rejected_diff_hi",
    "verdict",
]


def groups_of(df: pd.DataFrame) -> pd.DataFrame:
    """The runs table with its group key: experiment, algorithm, parameters (``p_*`` as
    ``name=value``, the adversary's ``g_*`` as ``adversary.name=value``) and ε."""
    pcols = sorted(c for c in df.columns if c.startswith(("p_", "g_")))
    out = pd.DataFrame(index=df.index)
    out["experiment"] = df["experiment"].astype(str)
    out["algorithm"] = df["algorithm"].astype(str)
    if pcols:
        labels = cell_labels(df[pcols])
        out["params"] = [
            ", ".join(f"{'adversary.' if c[0] == 'g' else ''}{c[2:]}={v}" for c, v in zip(pcols, row) if v is not None)
            for row in labels.itertuples(index=False)
        ]
    else:
        out["params"] = ""
    out["eps"] = [cell_label(v) or "" for v in df["eps"]]
    return out


def _ci(values: np.ndarray, n_boot: int) -> tuple[float, float, float]:
    return bootstrap_ci(values, n_boot=n_boot, seed=0)


def overlap(a: tuple[float, float, float], b: tuple[float, float, float]) -> bool:
    """Whether two (estimate, lo, hi) intervals overlap (with a 1e-9 relative slack, so that a
    point interval — one run, or identical values — is an exact comparison up to rounding)."""
    am, alo, ahi = a
    bm, blo, bhi = b
    if math.isnan(am) or math.isnan(bm):
        return math.isnan(am) and math.isnan(bm)
    if any(math.isnan(x) for x in (alo, ahi, blo, bhi)):  # no CI given: the estimates themselves
        alo = ahi = am
        blo = bhi = bm
    tol = REL_TOL * max(1.0, abs(am), abs(bm))
    return alo <= bhi + tol and blo <= ahi + tol


def _params_of(label: str) -> dict[str, str]:
    """A parameter label (``"c=2, ties=index"``) as a dict."""
    return dict(item.split("=", 1) for item in label.split(", ") if "=" in item)


def _match_keys(match: str | list[str] | None, keys: list[tuple]) -> list[str] | None:
    """The ``--match`` keys, each one of :data:`MATCH_KEYS` or a parameter of the runs (else an
    ArchiveError naming it and the keys there are)."""
    if match is None:
        return None
    given = match.split(",") if isinstance(match, str) else list(match)
    names = [str(k).strip() for k in given]
    params = sorted({p for k in keys for p in _params_of(k[2])})
    known = [*MATCH_KEYS, *params]
    for name in names:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ArchiveError(
                f"match: unknown key {name!r}; {hint}keys: {', '.join(MATCH_KEYS)} and the runs' parameters "
                f"({', '.join(params) or 'none'})"
            )
    return list(dict.fromkeys(names))


def _match_value(key: tuple, names: list[str]) -> tuple:
    """A group key (experiment, algorithm, params, ε) reduced to the ``--match`` keys."""
    params = _params_of(key[2])
    fixed = {"experiment": key[0], "algorithm": key[1], "eps": key[3]}
    return tuple(fixed[n] if n in fixed else params.get(n, "-") for n in names)


def _arrow(x: str, y: str) -> str:
    return x if x == y else f"{x or '-'} → {y or '-'}"


def paired_stats(ra: pd.DataFrame, rb: pd.DataFrame, n_boot: int) -> dict[str, Any]:
    """The paired differences of two groups on their shared instances (same ``instance`` and
    ``seed`` in a and b): the geometric mean of objective_b/objective_a (the exponential of the
    mean per-instance log-ratio) and the mean of rejected_frac_b − rejected_frac_a, each with
    its percentile-bootstrap 95 % interval; the verdict is "changed" when an interval excludes
    no change (ratio 1, difference 0; a single pair: any difference), "same" when every pair
    is equal, "noise" otherwise."""
    key = [c for c in ("instance", "seed") if c in ra.columns and c in rb.columns]
    out: dict[str, Any] = {"n_pairs": 0, "verdict": "no shared instances"}
    if "instance" not in key:
        return out
    cols = [c for c in ("objective", "rejected_frac") if c in ra.columns and c in rb.columns]
    shared = ra[key + cols].merge(rb[key + cols], on=key, suffixes=("_a", "_b"))
    if shared.empty:
        return out
    logs = np.full(len(shared), np.nan)
    if "objective" in cols:
        oa, ob = shared["objective_a"].to_numpy(float), shared["objective_b"].to_numpy(float)
        ok = np.isfinite(oa) & np.isfinite(ob) & (oa > 0) & (ob > 0)
        logs[ok] = np.log(ob[ok] / oa[ok])
    diffs = np.full(len(shared), np.nan)
    if "rejected_frac" in cols:
        diffs = shared["rejected_frac_b"].to_numpy(float) - shared["rejected_frac_a"].to_numpy(float)
    g, glo, ghi = _ci(logs, n_boot)
    d, dlo, dhi = _ci(diffs, n_boot)
    out.update(
        n_pairs=int(len(shared)),
        objective_ratio=math.exp(g) if math.isfinite(g) else math.nan,
        objective_ratio_lo=math.exp(glo) if math.isfinite(glo) else math.nan,
        objective_ratio_hi=math.exp(ghi) if math.isfinite(ghi) else math.nan,
        rejected_diff=d,
        rejected_diff_lo=dlo,
        rejected_diff_hi=dhi,
    )
    excludes = [lo > REL_TOL or hi < -REL_TOL for lo, hi in ((glo, ghi), (dlo, dhi)) if math.isfinite(lo)]
    moved = [np.abs(x[np.isfinite(x)]).max(initial=0.0) > REL_TOL for x in (logs, diffs)]
    out["verdict"] = "changed" if any(excludes) else ("noise" if any(moved) else "same")
    return out


def diff_groups(
    a: pd.DataFrame, b: pd.DataFrame, n_boot: int, match: str | list[str] | None = None
) -> tuple[list[dict], dict[str, int], list[dict]]:
    """The runs tables compared per group: rows of changes, counts, and the paired statistics of
    every group in both runs (and of every paired setting). Groups are matched on their whole
    identity (experiment, algorithm, parameters, ε; a lone setting of an (experiment, algorithm,
    ε) replaced by another is paired as a "setting"), or with ``match`` on those keys only."""
    ga, gb = groups_of(a), groups_of(b)
    rows: list[dict] = []
    paired: list[dict] = []
    counts = {"groups": 0, "same": 0, "noise": 0, "changed": 0, "appeared": 0, "disappeared": 0, "settings": 0}

    def row(*what, **values) -> None:
        rows.append(change_row(RUNS, *what, **values))

    def pair(level: str, what: tuple, ra: pd.DataFrame, rb: pd.DataFrame) -> str:
        stats = paired_stats(ra, rb, n_boot)
        paired.append(dict(zip(("table", "level", *GROUP_KEYS), (RUNS, level, *what)), **stats))
        return stats["verdict"]

    def shared_group(k: tuple, ra: pd.DataFrame, rb: pd.DataFrame) -> None:
        counts["groups"] += 1
        verdict = "same"
        if len(ra) != len(rb):
            row("changed", "group", *k, metric="runs", av=(len(ra),) * 3, bv=(len(rb),) * 3, na=len(ra), nb=len(rb))
            verdict = "changed"
        fa, fb = int((ra["status"] != "ok").sum()), int((rb["status"] != "ok").sum())
        if fa != fb:
            row("changed", "group", *k, metric="not ok", av=(fa,) * 3, bv=(fb,) * 3, na=len(ra), nb=len(rb))
            verdict = "changed"
        for metric in METRICS:
            got = _metric_change(ra, rb, metric, n_boot)
            if got is None:  # not in both, or the same values: nothing to test
                continue
            kind, ca, cb, na, nb = got
            row(kind, "group", *k, metric=metric, av=ca, bv=cb, na=na, nb=nb)
            verdict = "changed" if kind == "changed" else ("noise" if verdict == "same" else verdict)
        if pair("group", k, ra, rb) == "changed":
            verdict = "changed"
        counts[verdict] += 1

    def setting(ka: tuple, kb: tuple, ra: pd.DataFrame, rb: pd.DataFrame) -> None:
        counts["settings"] += 1
        what = (_arrow(ka[0], kb[0]), _arrow(ka[1], kb[1]), _setting_change(ka[2], kb[2]), _arrow(ka[3], kb[3]))
        row("setting", "setting", *what, na=len(ra), nb=len(rb))
        before = len(rows)
        for metric in METRICS:
            got = _metric_change(ra, rb, metric, n_boot)
            if got is not None:
                kind, ca, cb, na, nb = got
                row(kind, "setting", *what, metric=metric, av=ca, bv=cb, na=na, nb=nb)
        if len(rows) == before:
            rows[-1]["metric"] = "same values"
        pair("setting", what, ra, rb)

    by_a = {k: idx for k, idx in ga.groupby(GROUP_KEYS, sort=True).groups.items()}
    by_b = {k: idx for k, idx in gb.groupby(GROUP_KEYS, sort=True).groups.items()}
    names = _match_keys(match, [*by_a, *by_b])
    if names is not None:  # --match: groups meet on these keys only
        ma: dict[tuple, list[tuple]] = {}
        mb: dict[tuple, list[tuple]] = {}
        for k in by_a:
            ma.setdefault(_match_value(k, names), []).append(k)
        for k in by_b:
            mb.setdefault(_match_value(k, names), []).append(k)
        for mk in sorted(set(ma) | set(mb)):
            fa, fb = ma.get(mk, []), mb.get(mk, [])
            for side, found in (("a", fa), ("b", fb)):
                if len(found) > 1:
                    where = ", ".join(f"{n}={v}" for n, v in zip(names, mk))
                    shown = "; ".join(
                        " ".join(x for x in (k[0], k[1], k[2], f"ε={k[3]}" if k[3] else "") if x) for k in found[:3]
                    )
                    raise ArchiveError(
                        f"match: {where} matches {len(found)} groups of {side} ({shown}); add the keys that tell them apart"
                    )
            if not fb:
                _one_side(row, "disappeared", fa[0], a.loc[by_a[fa[0]]], n_boot)
            elif not fa:
                _one_side(row, "appeared", fb[0], b.loc[by_b[fb[0]]], n_boot)
            elif fa[0] == fb[0]:
                shared_group(fa[0], a.loc[by_a[fa[0]]], b.loc[by_b[fb[0]]])
            else:
                setting(fa[0], fb[0], a.loc[by_a[fa[0]]], b.loc[by_b[fb[0]]])
    else:
        exps_a, exps_b = set(ga["experiment"]), set(gb["experiment"])
        for e in sorted(exps_a - exps_b):
            row("disappeared", "experiment", e, na=int((ga["experiment"] == e).sum()))
        for e in sorted(exps_b - exps_a):
            row("appeared", "experiment", e, nb=int((gb["experiment"] == e).sum()))
        algs_a = set(map(tuple, ga[["experiment", "algorithm"]].drop_duplicates().to_numpy()))
        algs_b = set(map(tuple, gb[["experiment", "algorithm"]].drop_duplicates().to_numpy()))
        common_exps = exps_a & exps_b
        for e, alg in sorted(algs_a - algs_b):
            if e in common_exps:
                row("disappeared", "algorithm", e, alg)
        for e, alg in sorted(algs_b - algs_a):
            if e in common_exps:
                row("appeared", "algorithm", e, alg)
        common_algs = algs_a & algs_b
        gone = [k for k in sorted(set(by_a) - set(by_b)) if k[:2] in common_algs]
        new = [k for k in sorted(set(by_b) - set(by_a)) if k[:2] in common_algs]
        for ka, kb in _paired_settings(gone, new):  # one setting of (experiment, algorithm, ε) replaced by another
            setting(ka, kb, a.loc[by_a[ka]], b.loc[by_b[kb]])
            gone.remove(ka)
            new.remove(kb)
        for k in gone:
            _one_side(row, "disappeared", k, a.loc[by_a[k]], n_boot)
        for k in new:
            _one_side(row, "appeared", k, b.loc[by_b[k]], n_boot)
        for k in sorted(set(by_a) & set(by_b)):
            shared_group(k, a.loc[by_a[k]], b.loc[by_b[k]])
    counts["appeared"] = sum(r["kind"] == "appeared" for r in rows)
    counts["disappeared"] = sum(r["kind"] == "disappeared" for r in rows)
    return rows, counts, paired


def _paired_settings(gone: list[tuple], new: list[tuple]) -> list[tuple[tuple, tuple]]:
    """Group keys (experiment, algorithm, params, ε) only in a and only in b that are one
    setting replaced by another: the only one of its (experiment, algorithm, ε) on each side."""
    by_a: dict[tuple, list] = {}
    by_b: dict[tuple, list] = {}
    for k in gone:
        by_a.setdefault((k[0], k[1], k[3]), []).append(k)
    for k in new:
        by_b.setdefault((k[0], k[1], k[3]), []).append(k)
    return [(ka[0], by_b[key][0]) for key, ka in by_a.items() if len(ka) == 1 and len(by_b.get(key, [])) == 1]


def _setting_change(pa: str, pb: str) -> str:
    """What differs between two parameter labels ("c=2, ties=index" → "c: 2 → 0.5")."""
    da, db = _params_of(pa), _params_of(pb)
    keys = sorted(set(da) | set(db))
    return ", ".join(f"{k}: {da.get(k, '-')} → {db.get(k, '-')}" for k in keys if da.get(k) != db.get(k))


def _metric_change(ra: pd.DataFrame, rb: pd.DataFrame, metric: str, n_boot: int) -> tuple | None:
    """A metric of two groups: ("changed", …) when their 95 % intervals do not overlap, ("noise",
    …) when they do, with both (mean, lo, hi) and numbers of finite values; None when a group
    lacks the metric or the values are the same."""
    if metric not in ra.columns or metric not in rb.columns:
        return None
    va, vb = ra[metric].to_numpy(dtype=float), rb[metric].to_numpy(dtype=float)
    sa, sb = np.sort(va[np.isfinite(va)]), np.sort(vb[np.isfinite(vb)])
    if sa.size == sb.size and np.allclose(sa, sb, rtol=REL_TOL, atol=REL_TOL):
        return None
    ca, cb = _ci(va, n_boot), _ci(vb, n_boot)
    return ("noise" if overlap(ca, cb) else "changed"), ca, cb, sa.size, sb.size


def _one_side(row, kind: str, k: tuple, runs: pd.DataFrame, n_boot: int) -> None:
    """A group only in a ("disappeared") or only in b ("appeared"), with its mean ratio (or
    objective) and interval on its side, so that a reader sees what left or came."""
    metric = next((m for m in METRICS if m in runs.columns and np.isfinite(runs[m].to_numpy(float)).any()), "")
    ci = _ci(runs[metric].to_numpy(dtype=float), n_boot) if metric else (math.nan,) * 3
    side = {"av": ci, "na": len(runs)} if kind == "disappeared" else {"bv": ci, "nb": len(runs)}
    row(kind, "group", *k, metric=metric, **side)
