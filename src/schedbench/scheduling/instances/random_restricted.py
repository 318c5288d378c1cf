"""Random restricted assignment (docs/models/rejection-model.md §1.1): each job may run on a random subset of d of the m
machines — uniform, or (with ``hot_fraction`` > 0) concentrated on a small "hot" set.

Eligibility ``d`` is an int ≥ 1 or a rule: ``"log"`` (max(1, ⌈log2 m⌉)), ``"half"``
(max(1, ⌊m/2⌋)) or ``"all"`` (m). Sizes are ``unit``, ``pow2`` (2^k with k uniform on
0..max_size_exp: log-uniform, so a few large jobs dominate) or ``pareto`` (bounded Pareto on
[1, max_size], rounded up; see ``pareto_sizes``) or ``uniform`` (uniform on 1..max_size: the
"small integer sizes" of the flow-time experiments). Releases are ``zero`` (all at time 0, the
pure LoadBalancing case) or ``poisson`` batches (at t = 0, 1, 2, ... a Poisson(rate) number of
jobs). Instead of ``rate`` a flow-time experiment may give the target ``load`` ρ: then
rate = ρ·m / E[size] (E[size] exact for each size law, :func:`mean_size`), so the machines'
total work arrives at ρ times their capacity. Within a time, jobs arrive in array order.

Weights (the weighted problems; a stretch run needs none: its flow weight 1/p_j comes from the
problem table): ``weights`` = ``none`` (all 1), ``classes`` (w_flow uniform on the powers of 4
up to ``weight_max``: 1, 4, 16 by default) or ``loguniform`` (w_flow = weight_max^U, U uniform
on [0, 1)); ``reject_weights`` = ``one`` (w_reject = 1), ``flow`` (= w_flow) or ``independent``
(a second draw of the same law) — GenWtd's w^r.

Uniform eligibility with small sizes makes OPT trivial (it equals ⌈Σp/m⌉ almost always, see
rejection-model.md §11); heavy-tailed sizes and hot subsets are the two ways this family moves OPT away from
that bound. Hot subsets: machines 0..h-1 with h = ⌈hot_machines·m⌉ are hot; each job
independently, with probability ``hot_fraction``, takes its d machines uniformly from the hot
set — or, if d > h, the whole hot set plus d − h machines drawn uniformly from the others, so
every job keeps exactly d machines — and otherwise d machines uniformly from all m.

Size (``Family.shape``), exact: n jobs, m machines, n·d eligibility entries (d resolved); more
than 10^8 entries are refused.

Random stream order: [hot coin per job, only if hot_fraction > 0], eligible sets, sizes,
releases, [flow weights, reject weights: only if drawn]. With the default (hot_fraction = 0, int d, unit/pow2 sizes) this is exactly the stream
of earlier versions, so existing parameter sets give byte-identical instances (tests/golden).
"""

from __future__ import annotations

import math

import numpy as np

from schedbench.scheduling.model import Instance
from schedbench.scheduling.registry import register_family
from schedbench.hall.params import Param
from schedbench.scheduling.instances.base import Family, FamilyParameterError, csr_from_fixed_degree

NAME = "random-restricted"
D_RULES = ("log", "half", "all")
_DENSE_CHUNK = 1 << 22  # random numbers per block of the dense path (32 MiB of float64)
_MAX_EXPECTED_ROWS = 1e9  # the rejection path is used only while it is expected to draw fewer rows


def resolve_d(d: int | str, m: int) -> int:
    """The number of eligible machines per job for ``d`` (an int or one of ``D_RULES``)."""
    if d == "log":
        return max(1, math.ceil(math.log2(m)))
    if d == "half":
        return max(1, m // 2)
    if d == "all":
        return m
    return int(d)


def hot_set_size(hot_machines: float, m: int) -> int:
    """h = ⌈hot_machines·m⌉, clamped to 1..m (1e-9 slack so that e.g. 0.1·30 gives 3, not 4)."""
    return min(m, max(1, math.ceil(hot_machines * m - 1e-9)))


def random_subsets(rng: np.random.Generator, n: int, m: int, d: int) -> np.ndarray:
    """``n`` rows of ``d`` distinct machines from 0..m-1, each row uniform and sorted.

    Dense (4d > m): the first d entries of an independent uniform random permutation per row
    (argsort of i.i.d. uniforms; ties have probability ~0), so d = m gives every machine. Sparse:
    d i.i.d. uniform machines per row, rows with a repeat redrawn; conditioned on being distinct
    every ordered d-tuple is equally likely, so the sorted row is a uniform d-subset. A row is
    accepted with probability p = Π_{k<d} (1 − k/m) (≈ exp(−d²/2m)); when the expected number
    of drawn rows n/p exceeds 1e9 (e.g. m = 1024, d = 256: p ≈ 1e-14, which never finished) the
    dense path is used instead. Both paths keep their random stream (the dense path draws its
    uniforms in row blocks, which yields the same numbers as one n×m draw).
    """
    if d > m:
        raise ValueError(f"d = {d} > m = {m}")
    accept = math.exp(sum(math.log1p(-k / m) for k in range(d))) if 4 * d <= m else 0.0
    if 4 * d > m or n / max(accept, 1e-300) > _MAX_EXPECTED_ROWS:
        out = np.empty((n, d), dtype=np.int64)
        step = max(1, _DENSE_CHUNK // m)
        for lo in range(0, n, step):
            hi = min(n, lo + step)
            out[lo:hi] = np.sort(np.argsort(rng.random((hi - lo, m)), axis=1)[:, :d], axis=1)
        return out
    rows = np.sort(rng.integers(0, m, size=(n, d)), axis=1)
    while True:  # redraw rows with a repeated machine (rare when d << m); uniform by rejection
        bad = np.flatnonzero((np.diff(rows, axis=1) == 0).any(axis=1))
        if bad.size == 0:
            return rows
        rows[bad] = np.sort(rng.integers(0, m, size=(bad.size, d)), axis=1)


def hot_subsets(rng: np.random.Generator, n: int, m: int, d: int, h: int) -> np.ndarray:
    """``n`` sorted rows of d machines concentrated on the hot set 0..h-1: a uniform d-subset of
    it if d ≤ h, else all of it plus a uniform (d − h)-subset of the other m − h machines."""
    if d <= h:
        return random_subsets(rng, n, h, d)
    cold = h + random_subsets(rng, n, m - h, d - h)
    return np.concatenate([np.broadcast_to(np.arange(h, dtype=np.int64), (n, h)), cold], axis=1)


def pareto_sizes(rng: np.random.Generator, n: int, shape: float, max_size: int) -> np.ndarray:
    """Bounded Pareto on [1, H] (H = max_size, shape a), rounded up to an integer.

    X has CDF F(x) = (1 − x^(−a)) / (1 − H^(−a)) on [1, H]; inverse-CDF sampling with
    U ~ Uniform[0, 1): X = (1 − U·(1 − H^(−a)))^(−1/a). The size is ⌈X⌉ (clipped to [1, H]
    against rounding), so P(size ≤ k) = F(k) for k = 1..H. Note F(1) = 0: for H ≥ 2 the size is
    in 2..H almost surely (1 only when H = 1).
    """
    u = rng.random(n)
    x = (1.0 - u * (1.0 - float(max_size) ** -shape)) ** (-1.0 / shape)
    return np.clip(np.ceil(x), 1, max_size).astype(np.int64)


def mean_size(sizes: str, max_size_exp: int, pareto_shape: float, max_size: int) -> float:
    """E[size] of a size law of this family (exact: the laws are on a finite set of integers)."""
    if sizes == "unit":
        return 1.0
    if sizes == "pow2":
        return float(np.mean(2.0 ** np.arange(max_size_exp + 1)))
    if sizes == "uniform":
        return (1.0 + max_size) / 2.0
    k = np.arange(1, max_size + 1, dtype=np.float64)
    cdf = (1.0 - k**-pareto_shape) / (1.0 - float(max_size) ** -pareto_shape) if max_size > 1 else np.ones(1)
    return float(np.sum(k * np.diff(np.r_[0.0, cdf])))


#: The largest array (entries) the generator allocates: eligibility entries n·d and release slots.
MAX_CELLS = 10**8


def _size(p: dict) -> tuple[int, int, int]:
    """Exact: n jobs, m machines, n·d eligibility entries (d resolved: :func:`resolve_d`)."""
    return p["n"], p["m"], p["n"] * resolve_d(p["d"], p["m"])


def _check_size(p: dict) -> None:
    """Sizes before any allocation: n·d eligibility entries (:func:`_size`) and, for Poisson
    arrivals, about n/rate release slots (rate = 1e-9, the parameter's minimum, asked for 1.46 TiB)."""
    n, m, entries = _size(p)
    if entries > MAX_CELLS:
        raise _error(
            f"parameters 'n' = {n} and 'd' = {p['d']} give {entries} eligibility entries, more than {MAX_CELLS}"
        )
    sizes, max_size, load = p["sizes"], p["max_size"], p["load"]
    if sizes == "pareto" and max_size > MAX_CELLS:  # its size law is tabulated over 1..max_size
        raise _error(f"parameter 'max_size' = {max_size} is more than {MAX_CELLS} for pareto sizes")
    if p["arrivals"] != "zero":
        mean = mean_size(sizes, p["max_size_exp"], p["pareto_shape"], max_size)
        per_slot = load * m / mean if load is not None else p["rate"]
        if n / per_slot > MAX_CELLS:
            what = f"'load' = {load}" if load is not None else f"'rate' = {p['rate']}"
            raise _error(
                f"parameter {what} releases about {per_slot:.3g} jobs per slot: {n} jobs span about "
                f"{n / per_slot:.3g} slots, more than {MAX_CELLS} (raise it or lower 'n')"
            )


def _generate(
    rng: np.random.Generator,
    m: int,
    n: int,
    d: int | str,
    sizes: str,
    max_size_exp: int,
    pareto_shape: float,
    max_size: int,
    arrivals: str,
    rate: float,
    load: float | None,
    hot_fraction: float,
    hot_machines: float,
    weights: str,
    weight_max: float,
    reject_weights: str,
) -> Instance:
    k = resolve_d(d, m)
    _check_size(
        dict(
            n=n,
            m=m,
            d=d,
            arrivals=arrivals,
            rate=rate,
            load=load,
            sizes=sizes,
            max_size_exp=max_size_exp,
            pareto_shape=pareto_shape,
            max_size=max_size,
        )
    )
    if hot_fraction > 0:
        hot = rng.random(n) < hot_fraction
        eligible = np.empty((n, k), dtype=np.int64)
        eligible[~hot] = random_subsets(rng, int((~hot).sum()), m, k)
        eligible[hot] = hot_subsets(rng, int(hot.sum()), m, k, hot_set_size(hot_machines, m))
    else:
        eligible = random_subsets(rng, n, m, k)
    if sizes == "unit":
        size = np.ones(n, dtype=np.int64)
    elif sizes == "pow2":
        size = 2 ** rng.integers(0, max_size_exp + 1, size=n)
    elif sizes == "uniform":
        size = rng.integers(1, max_size + 1, size=n)
    else:
        size = pareto_sizes(rng, n, pareto_shape, max_size)
    if arrivals == "zero":
        release = np.zeros(n, dtype=np.int64)
    else:
        if load is not None:
            rate = load * m / mean_size(sizes, max_size_exp, pareto_shape, max_size)
        expected = int(np.ceil(n / rate)) + 1
        counts = rng.poisson(rate, size=expected)
        while counts.sum() < n:
            counts = np.concatenate([counts, rng.poisson(rate, size=expected)])
        release = np.repeat(np.arange(counts.size, dtype=np.int64), counts)[:n]
    indptr, indices = csr_from_fixed_degree(eligible)
    w_flow = None if weights == "none" else draw_weights(rng, n, weights, weight_max)
    if w_flow is None or reject_weights == "one":
        w_reject = None
    elif reject_weights == "flow":
        w_reject = w_flow.copy()
    else:
        w_reject = draw_weights(rng, n, weights, weight_max)
    return Instance(m, release, size, indptr, indices, w_flow, w_reject)


def draw_weights(rng: np.random.Generator, n: int, law: str, weight_max: float) -> np.ndarray:
    """``classes``: uniform on {4^k ≤ weight_max}; ``loguniform``: weight_max^U, U ~ U[0, 1)."""
    if law == "classes":
        classes = 4.0 ** np.arange(int(math.floor(math.log(weight_max, 4) + 1e-9)) + 1)
        return classes[rng.integers(0, classes.size, size=n)]
    return weight_max ** rng.random(n)


# parameter -> (the setting it needs, predicate on the resolved params)
_APPLIES = {
    "max_size_exp": ("sizes='pow2'", lambda p: p["sizes"] == "pow2"),
    "pareto_shape": ("sizes='pareto'", lambda p: p["sizes"] == "pareto"),
    "max_size": ("sizes='pareto' or 'uniform'", lambda p: p["sizes"] in ("pareto", "uniform")),
    "rate": ("arrivals='poisson'", lambda p: p["arrivals"] == "poisson"),
    "load": ("arrivals='poisson'", lambda p: p["arrivals"] == "poisson"),
    "hot_machines": ("hot_fraction > 0", lambda p: p["hot_fraction"] > 0),
    "weight_max": ("weights='classes' or 'loguniform'", lambda p: p["weights"] != "none"),
    "reject_weights": ("weights='classes' or 'loguniform'", lambda p: p["weights"] != "none"),
}
_WHY_NOT = {
    "max_size_exp": "sizes",
    "pareto_shape": "sizes",
    "max_size": "sizes",
    "rate": "arrivals",
    "load": "arrivals",
    "weight_max": "weights",
    "reject_weights": "weights",
}


def _error(text: str) -> FamilyParameterError:
    return FamilyParameterError(f"family '{NAME}': {text}")


def _check(p: dict) -> None:
    d, m = p["d"], p["m"]
    if isinstance(d, str):
        if d not in D_RULES:
            raise _error(f"parameter 'd' must be an int >= 1 or one of {list(D_RULES)}, got {d!r}")
    elif d < 1:
        raise _error(f"parameter 'd' must be >= 1, got {d!r}")
    elif d > m:
        raise _error(f"parameter 'd' = {d} exceeds 'm' = {m}")
    if not p["hot_fraction"] < 1:
        raise _error(f"parameter 'hot_fraction' must be in [0, 1), got {p['hot_fraction']!r}")
    if p["load"] is not None:
        if p["rate"] != FAMILY_PARAMETERS["rate"].default:
            raise _error("parameters 'rate' and 'load' both given: give one (load sets rate = ρ·m/E[size])")
    for key, (needs, applies) in _APPLIES.items():
        if p[key] != FAMILY_PARAMETERS[key].default and not applies(p):
            setting = (
                f"{_WHY_NOT[key]}={p[_WHY_NOT[key]]!r}" if key in _WHY_NOT else f"hot_fraction={p['hot_fraction']!r}"
            )
            raise _error(f"parameter '{key}' = {p[key]!r} does not apply to {setting} (only to {needs})")
    _check_size(p)


FAMILY_PARAMETERS = {
    "m": Param(type=int, min=1, required=True, doc="machines"),
    "n": Param(type=int, min=1, required=True, doc="jobs"),
    # no `min`: d may be a string; _check enforces d >= 1 and d <= m
    "d": Param(
        type=(int, str),
        default=2,
        doc="eligible machines per job: int in 1..m, or 'log' (⌈log2 m⌉), 'half' (⌊m/2⌋), 'all' (m)",
    ),
    "sizes": Param(
        type=str,
        default="unit",
        choices=("unit", "pow2", "pareto", "uniform"),
        doc="size law: unit (1), pow2 (2^k, k uniform on 0..max_size_exp), pareto (bounded, "
        "on [1, max_size]) or uniform (on 1..max_size)",
    ),
    # ≤ 40: sizes stay far inside int64 with their sums (2000 used to wrap to size 0)
    "max_size_exp": Param(type=int, default=4, min=0, max=40, doc="pow2: largest size 2^max_size_exp"),
    "pareto_shape": Param(
        type=float, default=1.1, min=0, min_open=True, doc="pareto: shape a > 0 (smaller = heavier tail)"
    ),
    "max_size": Param(type=int, default=1024, min=1, doc="pareto, uniform: largest size H"),
    "arrivals": Param(
        type=str,
        default="zero",
        choices=("zero", "poisson"),
        doc="releases: zero (all at time 0) or poisson (a Poisson(rate) batch at each t = 0, 1, ...)",
    ),
    "rate": Param(type=float, default=1.0, min=1e-9, doc="poisson: mean jobs per time unit"),
    "load": Param(
        type=float,
        default=None,
        nullable=True,
        min=0,
        min_open=True,
        max=2,
        doc="poisson: target load ρ in (0, 2]; sets rate = ρ·m/E[size] (instead of rate)",
    ),
    "hot_fraction": Param(
        type=float,
        default=0.0,
        min=0.0,
        doc="probability in [0, 1) that a job's machines come from the hot set (0 = off)",
    ),
    "hot_machines": Param(
        type=float, default=0.1, min=0, min_open=True, max=1, doc="hot set = machines 0..⌈hot_machines·m⌉-1; in (0, 1]"
    ),
    "weights": Param(
        type=str,
        default="none",
        choices=("none", "classes", "loguniform"),
        doc="flow weights w_flow: none (1), classes (powers of 4 up to weight_max), loguniform",
    ),
    "weight_max": Param(type=float, default=16.0, min=1, doc="largest weight (>= 1)"),
    "reject_weights": Param(
        type=str,
        default="one",
        choices=("one", "flow", "independent"),
        doc="w_reject: one, = w_flow, or an independent draw of the same law",
    ),
}

FAMILY = register_family(
    Family(
        name=NAME,
        parameters=FAMILY_PARAMETERS,
        generator=_generate,
        sized=lambda p: p["sizes"] != "unit",
        check=_check,
        size=_size,
        doc=__doc__.split("\n\n")[0],
    )
)
