"""The loss wing's pipeline stage: points (:mod:`.experiments`), slope fits, config checks,
LaTeX tables, report views and figures."""
