"""A pipeline job whose script reads the registered wings (``hall.wing.wings`` and the other
``READERS``) loads their ``WING`` modules by name at run time, where no import statement shows
them: its declared sources must include them, or an edited caption, table spec or claim would
not rerun the job. A job that does not read the registry must not depend on them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from schedbench.hall.sources import script_sources

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "workflow" / "scripts"

#: what reading every wing loads: each one's WING module and its paper text
WING_FILES = (
    "scheduling/stage/wing.py",
    "scheduling/stage/tables.py",
    "loss/stage/wing.py",
    "loss/stage/tables.py",
    "bipartite/stage/wing.py",
    "bipartite/stage/tables.py",
)

_PROBE = """
import json, sys
import schedbench
from schedbench.hall.wing import wings
for w in wings():  # what the scripts do: read every wing's description and its callables' modules
    w.paper_macros, w.figure_caption, w.claims, w.report_views
print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items()
                        if n.startswith("schedbench") and getattr(m, "__file__", None))))
"""


@pytest.mark.parametrize("script", ["paper_generated.py", "claims_table.py", "report_tables.py"])
def test_a_script_that_reads_the_wings_declares_their_modules(script):
    declared = set(script_sources(SCRIPTS / script))
    for name in WING_FILES:
        assert any(f.endswith(name) for f in declared), (script, name)
    loaded = json.loads(
        subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    )
    assert not [f for f in loaded if f not in declared]


@pytest.mark.parametrize("script", ["loss_points.py", "bipartite_groups.py", "run_online.py"])
def test_a_job_of_one_wing_does_not_depend_on_the_registry(script):
    declared = "\n".join(script_sources(SCRIPTS / script))
    assert not [name for name in WING_FILES if name in declared]
    assert "schedbench/hall/wing.py" not in declared  # the package lists the wings without importing the registry
