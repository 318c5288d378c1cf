"""The scheduling wing's pipeline stage: instances, online runs, adversary games and optima
(:mod:`.experiment`), the worst-case search (:mod:`.search`), config checks, the tidy results
table, LaTeX tables, the method table, report views and figures."""
