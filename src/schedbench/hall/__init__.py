"""The hall: what the three wings share and the pipeline's wing-agnostic plumbing — config
loading, schema and hash (:mod:`.config`), results I/O (:mod:`.io`), logs, job sources, the run
lock, status, LaTeX and the paper's generated source, statistics (:mod:`.stats`), parameters
(:mod:`.params`), seeds, progress lines, solver helpers and the figure style. It imports no wing."""
