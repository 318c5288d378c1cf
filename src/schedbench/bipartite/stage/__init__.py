"""The bipartite wing's pipeline stage: groups and exact checks (:mod:`.experiments`,
:mod:`.checks`), rate fits, config checks, LaTeX tables, report views and figures."""
