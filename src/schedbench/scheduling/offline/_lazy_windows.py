"""Lazy window constraints for the sized max-flow-time optimum (docs/models/rejection-model.md
§8.2), used by :mod:`schedbench.scheduling.offline.maxflow`.

A probe decides whether deadlines d_j = r_j + L_j(T) can all be met by a non-migratory
preemptive schedule. The exact model: binary y_k per CSR entry k = (job j, machine i),
Σ_{k of j} y_k = 1, and for every machine i and window [a, b]
Σ_{k on i: a ≤ r_j, d_j ≤ b} p_j y_k ≤ b − a (EDF is optimal on one preemptive machine, so
these windows are exactly one machine's feasibility). The full window family is large; here it
is generated lazily:

1. Solve the assignment with the windows known so far (a relaxation of the exact model).
   Infeasible ⇒ T infeasible (a proof: fewer constraints, same variables).
2. Else schedule each machine's assigned jobs by EDF (:func:`._matching.edf_completion`, the
   same kernel that values every schedule). No missed deadline ⇒ T feasible, and the schedule
   is a real one (its value is the new upper bound).
3. Else, on every machine with a missed deadline, for (some of) its missed jobs j*
   (b = d_{j*}) take the most violated window [a, b'] of the assigned jobs (a a release,
   b' ≤ b the largest member deadline; by the EDF busy-period argument a violated window ending
   at d_{j*} exists whenever EDF misses d_{j*}), add it as the FULL constraint over every job
   eligible on i (not just the assigned ones) and go to 1.

Windows are stored as (i, a, j*) with b = d_{j*}(T) and re-evaluated at every probe's T: job set
{j eligible on i: r_j ≥ a, d_j(T) ≤ d_{j*}(T)}, capacity d_{j*}(T) − a. Every such window, with
its set and capacity computed at the current T, is a valid constraint at that T (step 3's
argument holds for any window), so reuse across the bisection is sound in both directions; what
would NOT be sound is keeping an old probe's job set *and* capacity at a larger T. For "flow"
(d_j = r_j + T) the set {a ≤ r_j ≤ r_{j*}} does not depend on T and the capacity is
r_{j*} + T − a: the same overload cluster, tighter as T falls. For a smaller T the absolute
window [a, b] of a larger T would also be implied (deadlines only shrink, its job set only
grows), but the (i, a, j*) form keeps following the cluster, which is what the next probes need.

Two 0–1 solvers decide step 1: OR-Tools CP-SAT (one worker, fixed seed, the previous
assignment as a hint) and HiGHS (branch and cut). See :data:`DEFAULT_SOLVER`. Instead of steps
1–3, ``solver="backlog"`` or ``"transport"`` solves a compact exact model of the whole window
family once (:mod:`._compact`; the tabu repair before it stays).
"""

from __future__ import annotations

import highspy
import numpy as np

from schedbench.hall.jit import compiled
from schedbench.hall.solvers import quiet_highs, run_checked
from schedbench.scheduling.offline import _compact as cm
from schedbench.scheduling.offline import _matching as mk
from schedbench.scheduling.offline.result import solver_seed

__all__ = ["LazyWindows", "SOLVERS", "DEFAULT_SOLVER", "assignment_deadline_misses"]

SOLVERS = ("cpsat", "highs", *cm.COMPACT)
#: The 0–1 solver of a probe (set after measuring both, see the module docstring of maxflow).
DEFAULT_SOLVER = "cpsat"
#: Most windows added per machine per lazy round.
MAX_CUTS_PER_MACHINE = 4
#: Tabu local search: moves before the first solve of a probe, after each solve, tabu tenure.
LS_ITERS = 2000
POLISH_ITERS = 300
LS_TENURE = 10
#: Elementary operations of the local search (entries scanned by its EDF re-runs) per unit of work
#: (``hall/effort.py``: a unit is about a second of the reference machine). Measured on trace windows
#: of 10⁴ jobs on 16 machines: 1.9–2.1·10⁷ operations/s (LLNL-Thunder, max stretch), 4.3–6.0·10⁷
#: (KTH-SP2, max flow). The search stops before a move once the budget the effort gives it
#: (:meth:`Effort.step_budget`) is spent — one move may pass it (at most ~8·10⁶ operations there)
#: — and is charged for what it did.
LS_OPS_PER_UNIT = 2.5e7


# ----------------------------------------------------------------------------- kernels
@compiled
def _most_violated(jobs, release, size, deadline, b):
    """Over windows [a, b'] of the listed jobs (one machine's assignment, sorted by release):
    a a release, b' ≤ b; the window maximising load − (b' − a) where load is the size of the
    jobs with r ≥ a and d ≤ b'. Returns (violation, a, member with the largest deadline)."""
    best_v = np.int64(-(2**62))
    best_a = np.int64(0)
    best_j = np.int64(-1)
    load = np.int64(0)
    top = np.int64(-1)  # member with the largest deadline so far
    q = jobs.shape[0] - 1
    while q >= 0:
        a = release[jobs[q]]
        while q >= 0 and release[jobs[q]] == a:
            k = jobs[q]
            if deadline[k] <= b:
                load += size[k]
                if top < 0 or deadline[k] > deadline[top]:
                    top = k
            q -= 1
        if top >= 0:
            v = load - (deadline[top] - a)
            if v > best_v:
                best_v, best_a, best_j = v, a, top
    return best_v, best_a, best_j


@compiled
def _violations(ptr, jobs, release, size, deadline, completion, max_cuts, out):
    """For each machine (jobs[ptr[i]:ptr[i+1]] sorted by release) whose EDF completions miss a
    deadline: up to ``max_cuts`` most violated windows, one per missed deadline value, the
    earliest missed deadlines first (distinct (a, j*)). Writes rows (i, a, j*) to ``out`` and
    returns their count."""
    cnt = 0
    m = ptr.shape[0] - 1
    for i in range(m):
        s, e = ptr[i], ptr[i + 1]
        seg = jobs[s:e]
        # missed deadlines of this machine, ascending
        nmiss = 0
        for q in range(s, e):
            if completion[jobs[q]] > deadline[jobs[q]]:
                nmiss += 1
        if nmiss == 0:
            continue
        miss = np.empty(nmiss, dtype=np.int64)
        c = 0
        for q in range(s, e):
            if completion[jobs[q]] > deadline[jobs[q]]:
                miss[c] = deadline[jobs[q]]
                c += 1
        miss.sort()
        got = 0
        last_b = np.int64(-1)
        first = cnt
        for u in range(nmiss):
            b = miss[u]
            if u > 0 and b == last_b:
                continue
            last_b = b
            v, a, jstar = _most_violated(seg, release, size, deadline, b)
            if v <= 0 or jstar < 0:
                continue
            dup = False
            for w in range(first, cnt):
                if out[w, 1] == a and out[w, 2] == jstar:
                    dup = True
                    break
            if dup:
                continue
            out[cnt, 0] = i
            out[cnt, 1] = a
            out[cnt, 2] = jstar
            cnt += 1
            got += 1
            if got >= max_cuts:
                break
    return cnt


@compiled
def _window_rows(mptr, ment, rel_e, dl_e, size_e, wi, wa, wb, count_only, rows_ptr, cols, coef, rhs):
    """CSR rows of the windows (wi, wa, wb): machine ``wi``'s entries (ment[mptr[i]:mptr[i+1]],
    sorted by release; rel_e/dl_e/size_e per entry) with r ≥ a and d ≤ b, capacity b − a.
    Windows whose whole set fits are dropped (always satisfied). Returns (rows, nonzeros)."""
    nrows = 0
    nnz = 0
    for w in range(wi.shape[0]):
        i, a, b = wi[w], wa[w], wb[w]
        s, e = mptr[i], mptr[i + 1]
        lo, hi = s, e  # first entry with release >= a
        while lo < hi:
            mid = (lo + hi) // 2
            if rel_e[ment[mid]] < a:
                lo = mid + 1
            else:
                hi = mid
        load = 0
        cnt = 0
        for q in range(lo, e):
            k = ment[q]
            if rel_e[k] > b:
                break
            if dl_e[k] <= b:
                load += size_e[k]
                cnt += 1
        if load <= b - a:
            continue
        if not count_only:  # a second pass writes the kept row
            rows_ptr[nrows] = nnz
            rhs[nrows] = b - a
            c = 0
            for q in range(lo, e):
                k = ment[q]
                if rel_e[k] > b:
                    break
                if dl_e[k] <= b:
                    cols[nnz + c] = k
                    coef[nnz + c] = size_e[k]
                    c += 1
        nrows += 1
        nnz += cnt
    if not count_only:
        rows_ptr[nrows] = nnz
    return nrows, nnz


def assignment_deadline_misses(inst, machine, deadline, rank):
    """EDF on each machine of a fixed assignment with integer deadlines: (ptr, jobs, completion)
    with jobs grouped by machine and sorted by release (ties by arrival rank)."""
    jobs = np.lexsort((rank, inst.release, machine)).astype(np.int64)
    ptr = np.searchsorted(machine[jobs], np.arange(inst.m + 1)).astype(np.int64)
    completion = mk.edf_completion(ptr, jobs, inst.release, inst.size, deadline.astype(np.float64), rank)
    return ptr, jobs, completion


# ----------------------------------------------------------------------------- 0–1 solvers
class _CpSat(cm._Model):
    """The lazy model in CP-SAT: the assignment and solve of :class:`._compact._Model`, the window
    rows added round by round (each round re-solved with the newest hint)."""

    what = "max-flow-time lazy probe"

    def add_rows(self, rows_ptr, cols, coef, rhs):
        y = self.y
        wsum = self.cp.LinearExpr.weighted_sum
        cols_l, coef_l, rhs_l = cols.tolist(), coef.tolist(), rhs.tolist()
        ptr = rows_ptr.tolist()
        for r in range(len(rhs_l)):
            s, e = ptr[r], ptr[r + 1]
            self.model.add(wsum([y[k] for k in cols_l[s:e]], coef_l[s:e]) <= rhs_l[r])


def assignment_highs(inst, seed):
    """A HiGHS model of the assignment alone: a binary per CSR entry (job j on machine i) and
    Σ_i y_ij = 1 per job; the window rows are added by the caller (the full MIP and the lazy probe)."""
    h = quiet_highs()
    h.setOptionValue("random_seed", solver_seed(seed))
    nnz, n = inst.indices.size, inst.n
    h.addVars(nnz, np.zeros(nnz), np.ones(nnz))
    h.changeColsIntegrality(nnz, np.arange(nnz, dtype=np.int32), np.full(nnz, highspy.HighsVarType.kInteger))
    h.addRows(
        n, np.ones(n), np.ones(n), nnz, inst.indptr[:-1].astype(np.int32), np.arange(nnz, dtype=np.int32), np.ones(nnz)
    )
    return h


def highs_probe(h, effort, what: str, on_retry=None):
    """Solve the 0–1 feasibility model ``h`` within ``effort``: (True, the columns at 1), (False,
    None) when infeasible (a proof), (None, None) when a limit ran out.

    HiGHS 1.x can end a small feasibility MIP with "Solve error" in its presolve (e.g. 8 jobs,
    3 machines, tests/unit/test_offline_flow.py); the same model without presolve solves: one
    retry (``on_retry()`` called first, if given: the caller's log line), and a second failure is
    raised."""
    effort.limit_highs(h)
    try:
        status = run_checked(h, what)
    except RuntimeError:
        if on_retry is not None:
            on_retry()
        h.clearSolver()
        h.setOptionValue("presolve", "off")
        effort.limit_highs(h)
        status = run_checked(h, f"{what} (no presolve)")
    effort.charge_highs(h, status)
    if status == highspy.HighsModelStatus.kInfeasible:
        return False, None
    if status == highspy.HighsModelStatus.kOptimal:
        x = np.asarray(h.getSolution().col_value)
        return True, np.flatnonzero(x > 0.5)
    if status in (highspy.HighsModelStatus.kTimeLimit, highspy.HighsModelStatus.kSolutionLimit):
        return None, None
    raise RuntimeError(f"{what}: unexpected HiGHS status {h.modelStatusToString(status)}")


class _Highs:
    def __init__(self, inst, owner, seed):
        self.inst, self.seed = inst, seed
        self.h = assignment_highs(inst, seed)
        self.nnz = inst.indices.size

    def add_rows(self, rows_ptr, cols, coef, rhs):
        if rhs.size:
            self.h.addRows(
                rhs.size,
                np.full(rhs.size, -highspy.kHighsInf),
                rhs.astype(np.float64),
                cols.size,
                rows_ptr[:-1].astype(np.int32),
                cols.astype(np.int32),
                coef.astype(np.float64),
            )

    def solve(self, hint_entries, effort):
        return highs_probe(self.h, effort, "max-flow-time lazy probe")


# ----------------------------------------------------------------------------- the probe
class LazyWindows:
    """Feasibility of T by lazy windows (module docstring). ``hint``: a machine per job (a
    schedule known to the caller) — its violated windows seed the first probe and it is the
    first CP-SAT hint. ``check_edf=False`` is a planted fault for the tests only (it trusts the
    relaxed model's assignment without the EDF re-check)."""

    def __init__(
        self,
        inst,
        dl,
        seed,
        solver=DEFAULT_SOLVER,
        hint=None,
        check_edf=True,
        ls_iters=LS_ITERS,
        polish_iters=POLISH_ITERS,
        max_rows=None,
        max_nnz=None,
    ):
        if solver not in SOLVERS:
            raise ValueError(f"argument 'solver' must be one of {SOLVERS}, got {solver!r}")
        self.inst, self.dl, self.seed, self.solver, self.check_edf = inst, dl, seed, solver, check_edf
        n = inst.n
        self.owner = np.repeat(np.arange(n, dtype=np.int64), np.diff(inst.indptr))
        self.rel_e = inst.release[self.owner].astype(np.int64)
        self.size_e = inst.size[self.owner].astype(np.int64)
        ment = np.lexsort((self.owner, self.rel_e, inst.indices)).astype(np.int64)
        self.ment = ment
        self.mptr = np.searchsorted(inst.indices[ment], np.arange(inst.m + 1)).astype(np.int64)
        self.rank = np.empty(n, dtype=np.int64)
        self.rank[inst.arrival_order()] = np.arange(n)
        self.win = np.zeros((0, 3), dtype=np.int64)  # (i, a, j*)
        self._seen: set = set()
        self.hint = None if hint is None else np.asarray(hint, dtype=np.int64)
        self.indptr = inst.indptr.astype(np.int64)
        self.indices = inst.indices.astype(np.int64)
        self.ls_iters, self.polish_iters = ls_iters, polish_iters
        self.ls_calls = 0
        self.note = ""
        self.too_large = ""
        self.max_rows, self.max_nnz = max_rows, max_nnz
        self.rounds = 0  # lazy rounds over all probes
        self.solves = 0
        self.last_rounds = 0

    def entries_of(self, machine):
        """The CSR entry of each job's machine."""
        return np.flatnonzero(self.inst.indices == machine[self.owner])

    def _add_windows(self, rows) -> int:
        new = [t for t in map(tuple, rows.tolist()) if t not in self._seen]
        if new:
            self._seen.update(new)
            self.win = np.concatenate([self.win, np.asarray(new, dtype=np.int64)])
        return len(new)

    def _cuts(self, machine, deadline):
        """EDF per machine: (True, None) if every deadline is met, else (False, new windows)."""
        inst = self.inst
        ptr, jobs, completion = assignment_deadline_misses(inst, machine, deadline, self.rank)
        if not np.any(completion > deadline):
            return True, None
        out = np.empty((inst.m * MAX_CUTS_PER_MACHINE, 3), dtype=np.int64)
        c = _violations(ptr, jobs, inst.release, inst.size, deadline, completion, MAX_CUTS_PER_MACHINE, out)
        return False, out[:c]

    def _rows(self, win, deadline):
        dl_e = deadline[self.owner]
        wi, wa = win[:, 0].copy(), win[:, 1].copy()
        wb = deadline[win[:, 2]].astype(np.int64)
        args = (self.mptr, self.ment, self.rel_e, dl_e, self.size_e, wi, wa, wb)
        z = np.zeros(1, dtype=np.int64)
        nrows, nnz = _window_rows(*args, True, z, z, z, z)
        rows_ptr = np.zeros(nrows + 1, dtype=np.int64)
        cols = np.zeros(max(nnz, 1), dtype=np.int64)
        coef = np.zeros(max(nnz, 1), dtype=np.int64)
        rhs = np.zeros(max(nrows, 1), dtype=np.int64)
        _window_rows(*args, False, rows_ptr, cols, coef, rhs)
        return rows_ptr, cols[:nnz], coef[:nnz], rhs[:nrows]

    def _search(self, machine, deadline, iters, effort):
        """Tabu local search from ``machine`` at these deadlines: the best assignment found
        (within the operations ``effort`` allows, charged to it)."""
        inst = self.inst
        chosen = self.entries_of(machine).astype(np.int64)
        self.ls_calls += 1
        budget = effort.step_budget(LS_OPS_PER_UNIT)
        _, ops = _local_search(
            self.indptr,
            self.indices,
            self.owner,
            self.mptr,
            self.ment,
            self.rel_e,
            deadline[self.owner],
            self.size_e,
            chosen,
            int(iters),
            LS_TENURE,
            int(self.seed) + self.ls_calls,
            budget,
        )
        effort.charge_steps(ops, LS_OPS_PER_UNIT, budget)
        return inst.indices[chosen].astype(np.int64)

    def repair(self, T, effort, iters=None):
        """The local search alone at T from the current hint: the assignment if EDF then meets
        every deadline (it becomes the hint), else None (the hint is kept)."""
        if self.hint is None:
            return None
        deadline = self.dl.deadline(T).astype(np.int64)
        better = self._search(self.hint, deadline, self.ls_iters if iters is None else iters, effort)
        ok, _ = self._cuts(better, deadline)
        if ok:
            self.hint = better
            return better.copy()
        return None

    def probe(self, T, effort):
        """(True, machine) | (False, None) | (None, None) when a limit of ``effort``
        (:class:`schedbench.hall.solvers.Effort`) ran out."""
        inst = self.inst
        deadline = self.dl.deadline(T).astype(np.int64)
        if self.hint is not None:  # the hint, then its local-search repair, before any solve
            ok, rows = self._cuts(self.hint, deadline)
            if ok:
                return True, self.hint.copy()
            self._add_windows(rows)
            if self.ls_iters:
                better = self._search(self.hint, deadline, self.ls_iters, effort)
                ok, rows = self._cuts(better, deadline)
                self.hint = better
                if ok:
                    return True, better.copy()
                self._add_windows(rows)
        if self.solver in cm.COMPACT:
            return self._compact_probe(T, deadline, effort)
        model = (_CpSat if self.solver == "cpsat" else _Highs)(inst, self.owner, self.seed)
        size = [0, 0]  # the model's window rows and nonzeros

        def add(rows):
            size[0] += rows[3].size
            size[1] += rows[1].size
            if (self.max_rows is not None and size[0] > self.max_rows) or (
                self.max_nnz is not None and size[1] > self.max_nnz
            ):
                self.too_large = (
                    f"lazy model too large at T = {T}: more than {self.max_rows} window rows or {self.max_nnz} nonzeros"
                )
                return False
            model.add_rows(*rows)
            return True

        if not add(self._rows(self.win, deadline)):
            return None, None
        hint_e = None if self.hint is None else self.entries_of(self.hint)
        self.last_rounds = 0
        while True:
            if effort.exhausted():
                return None, None
            ok, chosen = model.solve(hint_e, effort)
            self.solves += 1
            self.rounds += 1
            self.last_rounds += 1
            if ok is not True:
                return ok, None
            machine = np.empty(inst.n, dtype=np.int64)
            machine[self.owner[chosen]] = inst.indices[chosen]
            if not self.check_edf:  # planted fault (tests): trust the relaxation
                self.hint = machine
                return True, machine
            ok, rows = self._cuts(machine, deadline)
            self.hint = machine
            if ok:
                return True, machine
            before = self.win.shape[0]
            self._add_windows(rows)
            if self.polish_iters and not effort.exhausted():
                better = self._search(machine, deadline, self.polish_iters, effort)
                ok, rows = self._cuts(better, deadline)
                if ok:
                    self.hint = better
                    return True, better
                self._add_windows(rows)
                self.hint = better
            if self.win.shape[0] == before:
                # a violated window is never in the model (its rows are those of this T): only a
                # solver tolerance could get here; give the probe up rather than loop
                self.note = f"solver answer at T = {T} violates a window of its own model"
                return None, None
            hint_e = self.entries_of(self.hint)
            if not add(self._rows(self.win[before:], deadline)):
                return None, None

    def _compact_probe(self, T, deadline, effort):
        """One solve of the compact exact model (:mod:`._compact`) at these deadlines, the hint
        as CP-SAT's hint; its assignment is re-checked by EDF like every other."""
        if effort.exhausted():
            return None, None
        L = cm.common_window(self.inst, deadline)
        if self.solver == "backlog" and L is not None:
            model = cm.Backlog(self.inst, self.owner, self.seed, L)
        else:  # the backlog chain needs one window for all jobs; transport takes any deadlines
            model = cm.Transport(self.inst, self.owner, self.seed, deadline)
        hint_e = None if self.hint is None else self.entries_of(self.hint)
        ok, chosen = model.solve(hint_e, effort)
        self.solves += 1
        self.rounds += 1
        self.last_rounds = 1
        if ok is not True:
            return ok, None
        machine = np.empty(self.inst.n, dtype=np.int64)
        machine[self.owner[chosen]] = self.inst.indices[chosen]
        self.hint = machine
        if self.check_edf and not self._cuts(machine, deadline)[0]:  # exact models: only a solver fault
            self.note = f"compact model's answer at T = {T} misses a deadline under EDF"
            return None, None
        return True, machine


# ----------------------------------------------------------------------------- local search
@compiled
def _edf_tardiness(mptr, ment, rel_e, dl_e, size_e, on, i, heap, rem, extra, skip):
    """Total tardiness Σ max(0, C − d) of preemptive EDF on machine i over the entries with
    ``on`` set, plus entry ``extra`` (≥ 0) and minus entry ``skip`` (≥ 0); ``ment`` lists each
    machine's entries sorted by release. ``heap``/``rem`` are scratch arrays."""
    s, e = mptr[i], mptr[i + 1]
    total = np.int64(0)
    hs = 0
    p = s
    t = np.int64(0)
    while True:
        # next listed entry that counts
        while p < e:
            k = ment[p]
            if (on[k] and k != skip) or k == extra:
                break
            p += 1
        if hs == 0:
            if p >= e:
                break
            if rel_e[ment[p]] > t:
                t = rel_e[ment[p]]
        while p < e:
            k = ment[p]
            if not ((on[k] and k != skip) or k == extra):
                p += 1
                continue
            if rel_e[k] > t:
                break
            rem[k] = size_e[k]
            c = hs
            heap[hs] = k
            hs += 1
            while c > 0:
                par = (c - 1) // 2
                if dl_e[heap[c]] < dl_e[heap[par]] or (dl_e[heap[c]] == dl_e[heap[par]] and heap[c] < heap[par]):
                    heap[c], heap[par] = heap[par], heap[c]
                    c = par
                else:
                    break
            p += 1
        # next arrival time among counted entries
        nxt = np.int64(-1)
        q = p
        while q < e:
            k = ment[q]
            if (on[k] and k != skip) or k == extra:
                nxt = rel_e[k]
                break
            q += 1
        j = heap[0]
        run = rem[j]
        if nxt >= 0 and nxt - t < run:
            run = nxt - t
        t += run
        rem[j] -= run
        if rem[j] == 0:
            if t > dl_e[j]:
                total += t - dl_e[j]
            hs -= 1
            heap[0] = heap[hs]
            c = 0
            while True:
                lft = 2 * c + 1
                if lft >= hs:
                    break
                b = lft
                if lft + 1 < hs and (
                    dl_e[heap[lft + 1]] < dl_e[heap[lft]]
                    or (dl_e[heap[lft + 1]] == dl_e[heap[lft]] and heap[lft + 1] < heap[lft])
                ):
                    b = lft + 1
                if dl_e[heap[b]] < dl_e[heap[c]] or (dl_e[heap[b]] == dl_e[heap[c]] and heap[b] < heap[c]):
                    heap[c], heap[b] = heap[b], heap[c]
                    c = b
                else:
                    break
    return total


@compiled
def _local_search(indptr, indices, owner, mptr, ment, rel_e, dl_e, size_e, chosen, max_iter, tenure, seed, max_ops):
    """Tabu search on the assignment (``chosen[j]``: the CSR entry of job j, updated in place)
    minimising the total EDF tardiness over the machines; moves: one job to another eligible
    machine, among the jobs of a machine with tardiness. Stops at zero, after ``max_iter`` moves
    or before a move once ``max_ops`` operations (machine entries scanned by EDF) are spent.
    Returns (the best cost, the operations spent); ``chosen`` = the best assignment."""
    np.random.seed(seed)
    n = indptr.shape[0] - 1
    nnz = indices.shape[0]
    m = mptr.shape[0] - 1
    on = np.zeros(nnz, dtype=np.bool_)
    for j in range(n):
        on[chosen[j]] = True
    heap = np.empty(nnz + 1, dtype=np.int64)
    rem = np.zeros(nnz, dtype=np.int64)
    cost = np.empty(m, dtype=np.int64)
    for i in range(m):
        cost[i] = _edf_tardiness(mptr, ment, rel_e, dl_e, size_e, on, i, heap, rem, -1, -1)
    ops = np.int64(nnz)
    total = cost.sum()
    best = total
    best_chosen = chosen.copy()
    tabu = np.zeros(n, dtype=np.int64)
    late = np.empty(m, dtype=np.int64)
    for it in range(max_iter):
        if total == 0 or ops >= max_ops:
            break
        nl = 0
        for i in range(m):
            if cost[i] > 0:
                late[nl] = i
                nl += 1
        i = late[np.random.randint(nl)]
        bd = np.int64(2**62)
        bk = -1
        bk2 = -1
        bci = np.int64(0)
        bci2 = np.int64(0)
        ties = 0
        for q in range(mptr[i], mptr[i + 1]):
            k = ment[q]
            if not on[k]:
                continue
            j = owner[k]
            ci = _edf_tardiness(mptr, ment, rel_e, dl_e, size_e, on, i, heap, rem, -1, k)
            ops += mptr[i + 1] - mptr[i]
            for k2 in range(indptr[j], indptr[j + 1]):
                if k2 == k:
                    continue
                i2 = indices[k2]
                ci2 = _edf_tardiness(mptr, ment, rel_e, dl_e, size_e, on, i2, heap, rem, k2, -1)
                ops += mptr[i2 + 1] - mptr[i2]
                d = ci + ci2 - cost[i] - cost[i2]
                if tabu[j] > it and total + d >= best:
                    continue
                if d < bd:
                    bd, bk, bk2, bci, bci2, ties = d, k, k2, ci, ci2, 1
                elif d == bd:
                    ties += 1
                    if np.random.randint(ties) == 0:
                        bk, bk2, bci, bci2 = k, k2, ci, ci2
        if bk < 0:
            continue
        j = owner[bk]
        on[bk] = False
        on[bk2] = True
        chosen[j] = bk2
        cost[i] = bci
        cost[indices[bk2]] = bci2
        total += bd
        tabu[j] = it + tenure + np.random.randint(tenure + 1)
        if total < best:
            best = total
            best_chosen[:] = chosen
    chosen[:] = best_chosen
    return best, ops


@compiled
def least_work(order, release, size, indptr, indices, m):
    """Each job, in arrival order, to the eligible machine with the least unfinished work at its
    release (any work-conserving order leaves the same work; ties: lowest index)."""
    n = release.shape[0]
    backlog = np.zeros(m, dtype=np.int64)
    last = np.zeros(m, dtype=np.int64)
    machine = np.empty(n, dtype=np.int64)
    for j in order:
        r = release[j]
        best = -1
        best_w = np.int64(0)
        for k in range(indptr[j], indptr[j + 1]):
            i = indices[k]
            w = backlog[i] - (r - last[i])
            if w < 0:
                w = 0
            if best < 0 or w < best_w or (w == best_w and i < best):
                best, best_w = i, w
        for k in range(indptr[j], indptr[j + 1]):
            i = indices[k]
            w = backlog[i] - (r - last[i])
            backlog[i] = w if w > 0 else 0
            last[i] = r
        machine[j] = best
        backlog[best] += size[j]
    return machine
