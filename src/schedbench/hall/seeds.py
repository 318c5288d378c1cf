"""Deterministic random streams, keyed by what they are for (docs/architecture.md, Conventions).

Every generator is derived from ``numpy.random.SeedSequence([base_seed, key_1, key_2, ...])``
where string keys (family, algorithm, ...) are mapped to integers by SHA-256, so a stream depends
only on its keys, never on how work is batched or on the process that runs it.
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["seed_sequence", "rng", "derived_seed"]


def _key(k: int | str) -> int:
    if isinstance(k, (int, np.integer)):
        if k < 0:
            raise ValueError(f"seed keys must be >= 0, got {k}")
        return int(k)
    return int.from_bytes(hashlib.sha256(str(k).encode()).digest()[:8], "little")


def seed_sequence(base_seed: int, *keys: int | str) -> np.random.SeedSequence:
    return np.random.SeedSequence([_key(base_seed), *(_key(k) for k in keys)])


def rng(base_seed: int, *keys: int | str) -> np.random.Generator:
    """The generator for ``keys`` under ``base_seed``."""
    return np.random.Generator(np.random.PCG64(seed_sequence(base_seed, *keys)))


def derived_seed(base_seed: int, *keys: int | str) -> int:
    """A 32-bit integer seed for code that wants an int (solvers, algorithms)."""
    return int(seed_sequence(base_seed, *keys).generate_state(1)[0])
