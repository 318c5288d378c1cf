"""What every figure module shares: the atomic save."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def save_figure(fig, path: str | os.PathLike) -> None:
    """Write ``fig`` to ``path`` through a temporary file and a rename (never half-written), close it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.stem}.tmp{path.suffix}")
    fig.savefig(tmp, bbox_inches="tight")
    os.replace(tmp, path)
    plt.close(fig)
