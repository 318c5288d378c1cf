"""Brute-force oracles shared by the offline-optimum tests: plain enumeration, independent of
the solvers they check."""


def unit_jobs_fit(inst, slots) -> bool:
    """Whether the unit jobs of ``inst`` take distinct (machine, slot) pairs, job j on one of its
    eligible machines in one of ``slots(j)``: plain backtracking (jobs in release order)."""
    n = inst.n
    order = sorted(range(n), key=lambda j: int(inst.release[j]))
    allowed = {j: list(slots(j)) for j in range(n)}
    used = set()

    def place(q):
        if q == n:
            return True
        j = order[q]
        for i in inst.eligible(j).tolist():
            for t in allowed[j]:
                if (i, t) not in used:
                    used.add((i, t))
                    if place(q + 1):
                        return True
                    used.remove((i, t))
        return False

    return place(0)
