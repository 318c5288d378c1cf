"""The package's names cover the three models, each loaded on first use: importing
``schedbench`` imports no wing."""

from __future__ import annotations

import ast
import subprocess
import sys

import pytest

import schedbench


def test_importing_the_package_imports_no_wing():
    code = "import sys, schedbench; print(sorted(m for m in sys.modules if m.startswith('schedbench.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert not [m for m in ast.literal_eval(out) if m.split(".")[1] in ("scheduling", "loss", "bipartite")], out


@pytest.mark.parametrize(
    "name, wing",
    [("simulate_loss", "loss"), ("solve_loss_exact", "loss"), ("simulate_bipartite", "bipartite"), ("run", None)],
)
def test_the_package_names_each_model_as_its_wing_does(name, wing):
    value = getattr(schedbench, name)
    assert name in schedbench.__all__ and name in dir(schedbench)
    if wing is not None:
        assert value is getattr(__import__(f"schedbench.{wing}", fromlist=[name]), name)


def test_the_loss_system_through_the_package_agrees_with_erlang_b():
    """k = n = 1, d = 1: an M/M/1/1 loss queue, blocking λ/(1+λ) exactly."""
    exact = schedbench.solve_loss_exact(1, 1, 1, 0.5)
    assert exact.blocking == pytest.approx(0.5 / 1.5)
