"""Ray as the reading engine: each file's scan runs as a Ray task, only its tables come back.

The scan of one file (``fastscan.scan_source``: read, mask, de-duplicate into a ``NodeScan``)
is a pure function of the file, so it is the unit of work; Drain, extraction and reasoning
stay on the driver and see exactly what the local engine gives them (same tables, same
order), hence the same diagnosis. What crosses the network per node is a few arrays of
small integers plus the sample texts, not the log.

Placement: a task goes to the Ray node that holds its file. ``path_map`` entries
``PREFIX=HOST[:HOSTPATH]`` say that files under PREFIX (as the driver sees them, e.g. a
mount of each host's disk) are local on HOST, at HOSTPATH there; without a map, a file
whose node name or folder is a Ray node's host name goes to that node. Affinity is soft
for names guessed from files and hard for the map (the file may exist only there).

Ray is an optional extra (``pip install 'l4-agent[ray]'``); nothing here imports it until
an engine is used.
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from .errors import InputError
from .fastscan import scan_source
from .ingest import Job, SourceFile
from .scan import NodeScan

Progress = Callable[[str, int, int], None]
logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class PathMapping:
    prefix: Path  # as the driver sees it
    host: str
    host_path: Path  # the same folder on ``host``

    @classmethod
    def parse(cls, text: str) -> PathMapping:
        """``/mnt/node-07=node-07:/var/log/train`` or ``/var/log/train=node-07``."""
        prefix, sep, target = text.partition("=")
        host, _, host_path = target.partition(":")
        if not sep or not prefix or not host:
            raise InputError(f"bad --path-map {text!r}", "write PREFIX=HOST or PREFIX=HOST:PATH_ON_HOST")
        return cls(Path(prefix), host, Path(host_path or prefix))

    def place(self, path: Path) -> Path | None:
        """The file's path on ``host`` when it lies under ``prefix``."""
        try:
            return self.host_path / path.relative_to(self.prefix)
        except ValueError:
            return None


def _check_reachable(address: str | None, timeout: float = 5.0) -> None:
    """Fail fast on a head that does not answer (ray.init would retry for minutes)."""
    if not address or address in ("auto", "local"):
        return
    host, _, port = address.split("://")[-1].rpartition(":")
    if not host or not port.isdigit():
        raise InputError(f"bad --ray-address {address!r}", "write HOST:PORT, ray://HOST:PORT or auto")
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise InputError(f"the Ray cluster at {address} does not answer ({exc.strerror or exc})",
                         "check --ray-address, or run `ray status` on the head") from exc


def _scan_task(source: SourceFile) -> tuple[list[NodeScan], list[str]]:
    return scan_source(source)


@dataclass
class RayEngine:
    """Scans a job's files on a Ray cluster (``address`` None: a private local Ray)."""

    address: str | None = None
    path_map: list[PathMapping] = field(default_factory=list)
    num_cpus: int | None = None  # for a private local Ray only
    _started: bool = False

    def _connect(self) -> Any:
        try:
            import ray
        except ImportError as exc:
            raise InputError("--engine ray needs Ray", "pip install 'l4-agent[ray]' (or choose --engine local)") from exc
        if not ray.is_initialized():
            _check_reachable(self.address)
            try:
                ray.init(address=self.address or "local", num_cpus=None if self.address else self.num_cpus,
                         include_dashboard=False, log_to_driver=False, configure_logging=False)
            except (ConnectionError, ValueError, RuntimeError) as exc:
                raise InputError(f"cannot reach the Ray cluster at {self.address}: {exc}",
                                 "check --ray-address (e.g. ray://head:10001 or head:6379), or run `ray status` there") from exc
            self._started = True
        return ray

    def close(self) -> None:
        if self._started:
            import ray

            ray.shutdown()
            self._started = False

    @staticmethod
    def _hosts(ray: Any) -> dict[str, str]:
        """Live Ray nodes by host name and by address."""
        alive = [n for n in ray.nodes() if n.get("Alive")]
        return {**{n["NodeManagerAddress"]: n["NodeID"] for n in alive}, **{n["NodeManagerHostname"]: n["NodeID"] for n in alive}}

    def _placement(self, source: SourceFile, hosts: dict[str, str]) -> tuple[SourceFile, Any]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        for mapping in self.path_map:
            there = mapping.place(source.path)
            if there is not None:
                if mapping.host not in hosts:
                    raise InputError(f"--path-map names {mapping.host}, which is not a live node of the Ray cluster",
                                     f"known nodes: {', '.join(sorted(hosts)) or 'none'}")
                return replace(source, path=there), NodeAffinitySchedulingStrategy(hosts[mapping.host], soft=False)
        for name in (source.node.split("/")[0], *reversed(source.path.parent.parts[-2:])):
            if name in hosts:
                return source, NodeAffinitySchedulingStrategy(hosts[name], soft=True)
        return source, "DEFAULT"

    def scan(self, job: Job, progress: Progress | None = None) -> list[tuple[SourceFile, NodeScan]]:
        """Every file's tables, in the job's file order (what the local engine returns)."""
        ray = self._connect()
        task = ray.remote(num_cpus=1, max_retries=2)(_scan_task)
        refs = []
        hosts = self._hosts(ray)
        for source in job.sources:
            placed, strategy = self._placement(source, hosts)
            refs.append(task.options(scheduling_strategy=strategy).remote(placed))
        index = {ref: i for i, ref in enumerate(refs)}
        done: dict[int, tuple[list[NodeScan], list[str]]] = {}
        pending = list(refs)
        while pending:
            ready, pending = ray.wait(pending, num_returns=min(len(pending), 8), timeout=1.0)
            for ref in ready:
                try:
                    done[index[ref]] = ray.get(ref)
                except ray.exceptions.RayError as exc:
                    source = job.sources[index[ref]]
                    raise InputError(f"reading {source.path} on the Ray cluster failed: {str(exc).splitlines()[0]}",
                                     "check that l4-agent is installed on every node and the file is where "
                                     "--path-map says") from exc
            if progress and ready:
                progress("read", len(done), len(refs))
                progress("lines", sum(len(scan) for scans, _ in done.values() for scan in scans), 0)
        logger.info("%d file(s) scanned as Ray tasks on %d node(s)", len(refs), len(set(hosts.values())))
        results: list[tuple[SourceFile, NodeScan]] = []
        for i, source in enumerate(job.sources):
            scans, warnings = done[i]
            job.warnings.extend(warnings)
            results.extend((source, scan) for scan in scans)
        return results
