"""One function per figure; each reads only a tidy results table. One module per wing, imported
directly (this face imports none, so a figure job depends only on its own wing's plots):
:mod:`.scheduling` (seed 000), :mod:`.loss` (seed 002), :mod:`.bipartite` (seed 003)."""
