"""A real single-node SLURM cluster for the tests: munged, slurmctld and slurmd from Debian's
packages, started in a private directory with their own key, socket, ports, state and PID files,
and stopped again by those PID files (never by name: another SLURM on the machine is left alone).

No accounting daemon: the Snakemake SLURM plugin is told to ask ``squeue`` for job states
(``slurm-status-command: squeue``), which it accepts only when ``MinJobAge`` is at least three
times its first status-check delay — the conf below keeps finished jobs for 300 s. No cgroups:
``proctrack/linuxproc`` and ``task/none``; the node line is what ``slurmd -C`` reports.

One footprint outside the private directory: inside a job, the plugin's ``srun`` of the job step
runs with every ``SLURM_*`` variable but the job's identity removed (``SLURM_CONF`` included), so
it reads the default ``/etc/slurm/slurm.conf``. The conf is copied there while the cluster runs
and removed at stop; a machine that already has one (a configured SLURM) is not touched: the
cluster refuses to start and the test skips, saying so. Only a conf this module wrote (its first
line says so) whose daemons are all gone — a test run killed before its tear-down — is removed.

Usage::

    with SlurmCluster(tmp_dir) as cluster:
        subprocess.run([...], env=cluster.env)   # SLURM_CONF points at the private conf
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

DEBS = ["slurmctld", "slurmd", "munge", "slurm-client"]
TOOLS = ["slurmctld", "slurmd", "munged", "sbatch", "squeue", "sinfo"]
DEFAULT_CONF = Path("/etc/slurm/slurm.conf")
MARK = "# schedbench test cluster in "  # first line of every conf this module writes


def _stale_default_conf() -> bool:
    """The default-path conf is one this module wrote for a cluster that is gone (a test run
    killed before its tear-down): none of that cluster's daemons is alive."""
    try:
        first = DEFAULT_CONF.read_text().splitlines()[0]
    except (OSError, IndexError):
        return False
    if not first.startswith(MARK):
        return False
    root = Path(first[len(MARK) :].strip())
    for name in ("slurmctld", "slurmd", "munged"):
        try:
            pid = int((root / f"{name}.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
        if _alive(pid, name):
            return False
    return True


def clear_stale_default_conf() -> None:
    """Remove a default-path conf left by a killed test run (never one this module did not write)."""
    if DEFAULT_CONF.exists() and _stale_default_conf():
        DEFAULT_CONF.unlink()


class SlurmError(RuntimeError):
    """The private cluster did not come up (the message quotes the daemons' logs)."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _alive(pid: int, comm: str) -> bool:
    """``pid`` is running ``comm`` and is not a zombie (PID 1 reaps slowly here: ``kill -0``
    alone would report a dead daemon as alive, and a recycled PID as ours)."""
    try:
        if Path(f"/proc/{pid}/comm").read_text().strip() != comm[:15]:
            return False
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


class SlurmCluster:
    """munged + slurmctld + slurmd in ``root`` (keep the path short: a unix socket lives there)."""

    DAEMONS = ("slurmd", "slurmctld", "munged")  # stop order

    def __init__(self, root: Path, partition: str = "debug"):
        self.root = Path(root)
        self.partition = partition
        self.conf = self.root / "slurm.conf"
        self.pid_files = {d: self.root / f"{d}.pid" for d in self.DAEMONS}
        self.logs = {d: self.root / f"{d}.log" for d in self.DAEMONS}
        self.env = dict(os.environ, SLURM_CONF=str(self.conf))
        self.started: dict[str, int] = {}
        self.default_conf_written = False
        self.created_slurm_dir = False

    # ------------------------------------------------------------------ set-up
    def _write_conf(self) -> None:
        node = subprocess.run(["slurmd", "-C"], capture_output=True, text=True, check=True).stdout.splitlines()[0]
        host = node.split()[0].split("=", 1)[1]
        munge_socket = self.root / "munge" / "munge.socket"
        for sub in ("state", "spool"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        self.conf.write_text(
            "\n".join(
                [
                    f"{MARK}{self.root}",
                    "ClusterName=schedbench-test",
                    f"SlurmctldHost={host}",
                    "SlurmUser=root",
                    "SlurmdUser=root",
                    f"SlurmctldPort={_free_port()}",
                    f"SlurmdPort={_free_port()}",
                    "AuthType=auth/munge",
                    "CredType=cred/munge",
                    f"AuthInfo=socket={munge_socket}",
                    f"StateSaveLocation={self.root / 'state'}",
                    f"SlurmdSpoolDir={self.root / 'spool'}",
                    f"SlurmctldPidFile={self.pid_files['slurmctld']}",
                    f"SlurmdPidFile={self.pid_files['slurmd']}",
                    f"SlurmctldLogFile={self.logs['slurmctld']}",
                    f"SlurmdLogFile={self.logs['slurmd']}",
                    "ProctrackType=proctrack/linuxproc",
                    "TaskPlugin=task/none",
                    "SelectType=select/cons_tres",
                    "SelectTypeParameters=CR_Core",
                    "SchedulerType=sched/backfill",
                    "MpiDefault=none",
                    "ReturnToService=2",
                    "MinJobAge=300",
                    "AccountingStorageType=accounting_storage/none",
                    "JobAcctGatherType=jobacct_gather/none",
                    "JobCompType=jobcomp/none",
                    "SlurmctldTimeout=30",
                    "SlurmdTimeout=30",
                    node,
                    f"PartitionName={self.partition} Nodes=ALL Default=YES MaxTime=INFINITE State=UP",
                    "",
                ]
            )
        )

    def _start_munge(self) -> None:
        d = self.root / "munge"
        d.mkdir(mode=0o700, parents=True, exist_ok=True)
        key = d / "munge.key"
        key.write_bytes(os.urandom(1024))
        key.chmod(0o400)
        self._run_daemon(
            "munged",
            [
                "munged",
                "--force",
                f"--socket={d / 'munge.socket'}",
                f"--key-file={key}",
                f"--pid-file={self.pid_files['munged']}",
                f"--log-file={self.logs['munged']}",
                f"--seed-file={d / 'munge.seed'}",
            ],
        )

    def _run_daemon(self, name: str, cmd: list[str]) -> None:
        proc = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise SlurmError(
                f"{name} did not start: {proc.stderr.strip() or proc.stdout.strip()}{self._log_tail(name)}"
            )
        pid = self._wait_for_pid(name)
        self.started[name] = pid

    def _wait_for_pid(self, name: str, timeout: float = 20) -> int:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                pid = int(self.pid_files[name].read_text().split()[0])
            except (FileNotFoundError, ValueError, IndexError):
                pid = None
            if pid and _alive(pid, name):
                return pid
            time.sleep(0.1)
        raise SlurmError(f"{name} wrote no live PID to {self.pid_files[name]} within {timeout} s{self._log_tail(name)}")

    def _log_tail(self, name: str) -> str:
        log = self.logs[name]
        return f"\n--- {log}:\n" + "\n".join(log.read_text(errors="replace").splitlines()[-15:]) if log.exists() else ""

    def _wait_idle(self, timeout: float = 60) -> None:
        end = time.monotonic() + timeout
        out = ""
        while time.monotonic() < end:
            proc = subprocess.run(["sinfo", "-h", "-o", "%T"], env=self.env, capture_output=True, text=True)
            out = (proc.stdout + proc.stderr).strip()
            if proc.returncode == 0 and out.split() and all(s == "idle" for s in out.split()):
                return
            time.sleep(0.3)
        raise SlurmError(
            f"the node is not idle after {timeout} s (sinfo: {out}){self._log_tail('slurmctld')}"
            f"{self._log_tail('slurmd')}"
        )

    def start(self) -> "SlurmCluster":
        self.root.mkdir(parents=True, exist_ok=True)
        try:
            self._write_conf()
            clear_stale_default_conf()
            if DEFAULT_CONF.exists():
                raise SlurmError(f"{DEFAULT_CONF} exists: this machine has a SLURM configured, left alone")
            self.created_slurm_dir = not DEFAULT_CONF.parent.exists()
            DEFAULT_CONF.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(self.conf, DEFAULT_CONF)
            self.default_conf_written = True
            self._start_munge()
            # -c: start clean, so jobs of an earlier (killed) cluster in this directory hold nothing
            self._run_daemon("slurmctld", ["slurmctld", "-c", "-f", str(self.conf)])
            self._run_daemon("slurmd", ["slurmd", "-f", str(self.conf)])
            self._wait_idle()
        except BaseException:
            self.stop()
            raise
        return self

    # ------------------------------------------------------------------ tear-down
    def stop(self, timeout: float = 20) -> list[str]:
        """Stop exactly the daemons this cluster started (by the PIDs their PID files gave at
        start); return the names of any that did not end (after SIGKILL)."""
        stubborn = []
        # a daemon that forked but was not seen alive in time at start: its PID file may name it
        for name in self.DAEMONS:
            if name not in self.started:
                try:
                    pid = int(self.pid_files[name].read_text().split()[0])
                except (OSError, ValueError, IndexError):
                    continue
                if _alive(pid, name):
                    self.started[name] = pid
        if "slurmctld" in self.started and _alive(self.started["slurmctld"], "slurmctld"):
            self._cancel_all_jobs()
        for name in self.DAEMONS:
            pid = self.started.pop(name, None)
            if pid is None or not _alive(pid, name):
                continue
            os.kill(pid, signal.SIGTERM)
            end = time.monotonic() + timeout
            while _alive(pid, name) and time.monotonic() < end:
                time.sleep(0.1)
            if _alive(pid, name):
                os.kill(pid, signal.SIGKILL)
                time.sleep(0.5)
                if _alive(pid, name):
                    stubborn.append(name)
        if self.default_conf_written:
            if DEFAULT_CONF.exists() and DEFAULT_CONF.read_bytes() == self.conf.read_bytes():
                DEFAULT_CONF.unlink()
            if self.created_slurm_dir and not any(DEFAULT_CONF.parent.iterdir()):
                DEFAULT_CONF.parent.rmdir()
            self.default_conf_written = False
        return stubborn

    def _cancel_all_jobs(self, timeout: float = 30) -> None:
        """Cancel every job of this cluster (only it: the private conf names it) and wait until its
        queue is empty, so that no job step outlives the daemons."""
        subprocess.run(
            ["scancel", "--full", "--quiet", "--user", str(os.geteuid())], env=self.env, capture_output=True, timeout=30
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            proc = subprocess.run(
                ["squeue", "-h", "-o", "%i"], env=self.env, capture_output=True, text=True, timeout=30
            )
            if proc.returncode != 0 or not proc.stdout.strip():
                return
            time.sleep(0.3)

    def __enter__(self) -> "SlurmCluster":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # ------------------------------------------------------------------ helpers
    def sbatch_wait(self, script: str, timeout: float = 60) -> str:
        """Submit a one-line batch script, wait for it, return its output (a smoke check)."""
        out = self.root / "probe.out"
        proc = subprocess.run(
            ["sbatch", "--wait", "-o", str(out), "--wrap", script],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if proc.returncode != 0:
            raise SlurmError(f"sbatch failed: {proc.stderr.strip()}{self._log_tail('slurmctld')}")
        return out.read_text()


def missing_reason() -> str | None:
    """Why a real SLURM cannot run here (None: it can)."""
    if os.geteuid() != 0:
        return "the SLURM test starts slurmctld/slurmd as root (not root here)"
    missing = [t for t in TOOLS if not shutil.which(t)]
    if missing:
        return f"SLURM daemons not installed and not installable here: {', '.join(missing)}"
    clear_stale_default_conf()
    if DEFAULT_CONF.exists():
        return f"{DEFAULT_CONF} exists: a SLURM is configured on this machine and the test leaves it alone"
    return None
