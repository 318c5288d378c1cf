"""What every figure module shares: the one style (:mod:`._style`) and the atomic save."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from schedbench.plots._style import apply_style  # noqa: E402, F401  (re-exported for the figure modules)


def save_figure(fig, path: str | os.PathLike) -> None:
    """Write ``fig`` to ``path`` through a temporary file and a rename (never half-written), close it.

    A ``.pdf`` (the paper's) gets a ``.png`` twin beside it, written the same way: the HTML
    report shows the PNG (a browser draws it inline)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    targets = [path] + ([path.with_suffix(".png")] if path.suffix == ".pdf" else [])
    for target in targets:
        tmp = target.with_name(f".{target.stem}.tmp{target.suffix}")
        fig.savefig(tmp, bbox_inches="tight", metadata={"Creator": "schedbench"} if target.suffix == ".pdf" else None)
        os.replace(tmp, target)
    plt.close(fig)
