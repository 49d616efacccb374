"""A fraction of a CPU for a benchmark's server, as Cloud Run gives a service below 1 vCPU (``deploy.sh CPU=0.5``).

Cloud Run holds such an instance to its share of a CPU by the host's cgroup; here the server's process joins a cgroup
whose CFS quota is that share of a 100 ms period (cgroup v1 ``cpu.cfs_quota_us``, or v2 ``cpu.max``), on top of
``taskset`` to one CPU. Needs a writable ``cpu`` controller (root on this sandbox); ``QuotaUnavailable`` says why
not, so that a figure priced at a fraction is never measured at a whole CPU.
"""

from __future__ import annotations

from pathlib import Path

PERIOD_US = 100_000
CGROUP_ROOT = Path("/sys/fs/cgroup")


class QuotaUnavailable(RuntimeError):
    pass


def cgroup(share: float, root: Path = CGROUP_ROOT) -> Path:
    """The ``cgroup.procs`` file of a cgroup held to ``share`` of a CPU (0 < share < 1), made if need be."""
    if not 0 < share < 1:
        raise ValueError(f"a CPU share is between 0 and 1, not {share}")
    quota = str(int(round(share * PERIOD_US)))
    name = f"bench-cpu-{quota}"
    try:
        v1 = root / "cpu"
        if (v1 / "cpu.cfs_quota_us").exists():
            folder = v1 / name
            folder.mkdir(exist_ok=True)
            (folder / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (folder / "cpu.cfs_quota_us").write_text(quota)
        elif (root / "cgroup.controllers").exists():
            folder = root / name
            folder.mkdir(exist_ok=True)
            (folder / "cpu.max").write_text(f"{quota} {PERIOD_US}")
        else:
            raise QuotaUnavailable(f"no cgroup cpu controller under {root}")
    except OSError as e:
        raise QuotaUnavailable(f"cannot hold a process to {share:g} of a CPU ({e}): run as root on a host whose "
                               f"cgroup cpu controller is writable, or measure at a whole CPU") from e
    return folder / "cgroup.procs"


def held(command: list[str], procs: Path) -> list[str]:
    """``command`` started inside the cgroup whose ``cgroup.procs`` is ``procs``: the shell moves itself in, then
    becomes the command, so everything it starts is held too."""
    return ["sh", "-c", f'echo $$ > "{procs}" && exec "$@"', "sh", *command]
