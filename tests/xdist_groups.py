"""The xdist scheduler of `make test` (``pytest -n 2 --dist loadgroup``): named groups of test
modules run in one worker each, every other test is scheduled on its own — and a worker that
crashes neither hangs the session nor runs its test again.

pytest-xdist 3.8's ``LoadScopeScheduling`` deadlocks after a crashed worker is replaced (known
upstream, reported in its tracker for loadscope and loadgroup alike; seen here in CI: "replacing
crashed worker gw0", then no progress until the 90-minute limit):

* ``remove_node`` puts the crashed worker's *whole* workload back on the queue, completed work
  units included; handed out later they send a worker no test, so the scheduler never hears from
  it again, and the last tests of the other worker wait for a next item that never comes;
* a replacement worker is given one unit; a worker runs a test only when it holds the next one
  too (or is told to shut down), so a one-test unit waits forever.

:class:`GroupScheduling` requeues only the units with tests still to run (the test the worker
crashed on is reported failed by xdist and not run again), keeps handing units to a worker until
it holds at least two tests, and tells a worker to shut down as soon as the queue is empty. A
unit sent to a worker that has just died (its last reports still being read) stays assigned to it
and is requeued with the rest when its crash is handled.
"""

from __future__ import annotations

from xdist.scheduler import LoadScopeScheduling


class GroupScheduling(LoadScopeScheduling):
    """Scopes: the group ``groups`` names for a test's module, or the test itself."""

    groups: dict[str, str] = {}

    def _split_scope(self, nodeid: str) -> str:
        return self.groups.get(nodeid.split("::", 1)[0], nodeid)

    def remove_node(self, node):
        workload = self.assigned_work.pop(node)
        pending = [(nodeid, unit) for unit in workload.values() for nodeid, done in unit.items() if not done]
        if not pending:
            return None
        crashed, unit = pending[0]  # a worker runs its tests in order: the first pending one
        unit[crashed] = True  # xdist reports it as crashed; running it again would crash again
        self.workqueue.update({scope: unit for scope, unit in workload.items() if not all(unit.values())})
        for other in self.assigned_work:
            self._reschedule(other)
        return crashed

    def _reschedule(self, node) -> None:
        if node.shutting_down:
            return
        while self.workqueue and self._pending_of(self.assigned_work[node]) <= 2:
            try:
                self._assign_work_unit(node)
            except OSError:  # the worker died meanwhile: remove_node requeues the unit it now holds
                return
        if not self.workqueue:
            node.shutdown()


def make_scheduler(config, log, groups: dict[str, str]):
    """The scheduler for ``--dist loadgroup`` (None for any other mode: xdist's own)."""
    if config.getoption("dist") != "loadgroup":
        return None
    return type("ModuleGroups", (GroupScheduling,), {"groups": dict(groups)})(config, log)
