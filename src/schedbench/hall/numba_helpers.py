"""Numba helpers shared by the queueing kernels."""

from __future__ import annotations

from schedbench.hall.jit import compiled


@compiled(inline="always")
def next_batch(batch, in_batch, clock, warmup_time, batch_arrivals):
    """After an arrival: leave the warm-up (batch -1) once ``clock`` reaches ``warmup_time``, then
    start a new batch every ``batch_arrivals`` arrivals. Returns (batch, arrivals in batch)."""
    if batch < 0:
        return (0, 0) if clock >= warmup_time else (batch, in_batch)
    if in_batch == batch_arrivals:
        return batch + 1, 0
    return batch, in_batch


@compiled(inline="always")
def draw_index(cumulative, u):
    """The first index i with cumulative[i] >= u (binary search; cumulative ends at 1)."""
    a, b = 0, cumulative.shape[0] - 1
    while a < b:
        mid = (a + b) // 2
        if cumulative[mid] < u:
            a = mid + 1
        else:
            b = mid
    return a
