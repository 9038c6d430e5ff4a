"""How one log line looks: timestamp styles, level spellings and line prefixes.

Real training logs mix many writers in one file (the framework's logger, bare prints,
NCCL's ``host:pid:tid [dev]`` lines, PyTorch's C++ glog lines, CANN plog lines, kernel
messages captured from dmesg or syslog, the launcher). Each writer has its own clock
format and its own way of spelling a level, and the method under test must cope with
all of them, so every writer here is a small renderer keyed by a style name that a
setting picks once. Formatting a timestamp is the hot path, so each clock format is
cached per whole second.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

APP_STYLES = ("pylog", "iso", "glog", "short", "bare")
LAUNCHER_STYLES = ("pylog", "glog", "bare")
KERNEL_STYLES = ("dmesg", "syslog")

_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")

# Level spellings per style; keys are the canonical levels used by the generator.
_LEVELS: dict[str, dict[str, str]] = {
    "pylog": {"DEBUG": "DEBUG", "INFO": "INFO", "WARNING": "WARNING", "ERROR": "ERROR"},
    "iso": {"DEBUG": "DEBUG", "INFO": "INFO ", "WARNING": "WARN ", "ERROR": "ERROR"},
    "glog": {"DEBUG": "D", "INFO": "I", "WARNING": "W", "ERROR": "E"},
    "short": {"DEBUG": "D", "INFO": "I", "WARNING": "W", "ERROR": "E"},
    "bare": {"DEBUG": "DEBUG", "INFO": "INFO", "WARNING": "WARNING", "ERROR": "ERROR"},
    "nccl": {"DEBUG": "TRACE", "INFO": "INFO", "WARNING": "WARN", "ERROR": "WARN"},
    "plog": {"DEBUG": "DEBUG", "INFO": "INFO", "WARNING": "WARNING", "ERROR": "ERROR"},
}


class Clock:
    """Formats POSIX seconds in every style used, caching the per-second part."""

    def __init__(self) -> None:
        self._sec = -1
        self._parts: tuple[str, ...] = ()

    def _split(self, t: float) -> tuple[tuple[str, ...], float]:
        sec = int(t)
        if sec != self._sec:
            g = time.gmtime(sec)
            self._sec = sec
            self._parts = (
                f"{g.tm_year:04d}-{g.tm_mon:02d}-{g.tm_mday:02d}",  # 0 date
                f"{g.tm_hour:02d}:{g.tm_min:02d}:{g.tm_sec:02d}",  # 1 time
                f"{g.tm_mon:02d}{g.tm_mday:02d}",  # 2 glog month-day
                f"{_MONTHS[g.tm_mon - 1]} {g.tm_mday:2d}",  # 3 syslog month day
            )
        return self._parts, t - sec

    def pylog(self, t: float) -> str:
        p, frac = self._split(t)
        return f"{p[0]} {p[1]},{int(frac * 1000):03d}"

    def iso(self, t: float) -> str:
        p, frac = self._split(t)
        return f"{p[0]}T{p[1]}.{int(frac * 1000):03d}Z"

    def glog(self, t: float) -> str:
        p, frac = self._split(t)
        return f"{p[2]} {p[1]}.{int(frac * 1e6):06d}"

    def short(self, t: float) -> str:
        p, _ = self._split(t)
        return f"{p[0]} {p[1]}"

    def plog(self, t: float) -> str:
        p, frac = self._split(t)
        us = int(frac * 1e6)
        return f"{p[0]}-{p[1]}.{us // 1000:03d}.{us % 1000:03d}"

    def plog_sec(self, t: float) -> str:
        p, _ = self._split(t)
        return f"{p[0]}-{p[1]}"

    def syslog(self, t: float) -> str:
        p, _ = self._split(t)
        return f"{p[3]} {p[1]}"

    def elastic(self, t: float) -> str:
        p, _ = self._split(t)
        return f"{p[0]}_{p[1]}"


@dataclass
class Node:
    """One log file's writer context: a host (all its local ranks) or a single rank."""

    host: str
    ip: str
    host_index: int
    ranks: list[int]
    devs: list[int]
    pids: list[int]
    skew: float  # seconds this node's clock is ahead of the job clock
    boot: float  # kernel boot time (job clock) for dmesg uptime stamps
    clock: Clock = field(default_factory=Clock)

    def pid_of(self, rank: int) -> int:
        return self.pids[self.ranks.index(rank)]

    def dev_of(self, rank: int) -> int:
        return self.devs[self.ranks.index(rank)]


Renderer = Callable[[Node, float, str, str, int], str]


def app_line(style: str, site: str) -> Renderer:
    """A framework/application logger line in one of APP_STYLES."""
    lv = _LEVELS[style]

    if style == "pylog":
        return lambda n, t, level, msg, rank: f"[{n.clock.pylog(t + n.skew)}] [{lv[level]}] [{site}] {msg}"
    if style == "iso":
        return lambda n, t, level, msg, rank: f"{n.clock.iso(t + n.skew)} {lv[level]} [rank{rank}] {msg}"
    if style == "glog":
        return lambda n, t, level, msg, rank: (
            f"{lv[level]}{n.clock.glog(t + n.skew)} {n.pid_of(rank) if rank in n.ranks else n.pids[0]:>7} {site}] {msg}"
        )
    if style == "short":
        return lambda n, t, level, msg, rank: f"[{n.clock.short(t + n.skew)}][{lv[level]}] {msg}"
    return lambda n, t, level, msg, rank: f"{lv[level]}:{site}:{msg}"


def launcher_line(style: str) -> Renderer:
    """torchrun / elastic agent lines; the spelling changed across torch releases."""
    lv = _LEVELS["pylog"]
    if style == "pylog":
        return lambda n, t, level, msg, rank: (
            f"[{n.clock.pylog(t + n.skew)}] torch.distributed.elastic.multiprocessing.api: [{lv[level]}] {msg}"
        )
    if style == "glog":
        g = _LEVELS["glog"]
        return lambda n, t, level, msg, rank: (
            f"{g[level]}{n.clock.glog(t + n.skew)} {n.pids[0] - 40:>7} "
            f"torch/distributed/elastic/multiprocessing/api.py:897] {msg}"
        )
    return lambda n, t, level, msg, rank: f"{lv[level]}:torch.distributed.elastic.multiprocessing.api:{msg}"


def kernel_line(style: str) -> Renderer:
    if style == "dmesg":
        return lambda n, t, level, msg, rank: f"[{t - n.boot:12.6f}] {msg}"
    if style == "dmesg_t":  # ``dmesg -t``: what people paste into an issue, without uptime stamps
        return lambda n, t, level, msg, rank: msg
    return lambda n, t, level, msg, rank: f"{n.clock.syslog(t + n.skew)} {n.host} kernel: {msg}"


def nccl_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """``NCCL_DEBUG=INFO`` output: ``host:pid:tid [cudaDev] NCCL INFO msg``.

    A WARN names its source before the level, so a message that carries its own ``NCCL WARN``
    or ``NCCL INFO`` is printed as is: ``kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL
    WARN NET/IB : Got completion from peer ...`` (NVIDIA/nccl#1405).
    """
    pid = n.pid_of(rank) if rank in n.ranks else n.pids[0]
    head = f"{n.host}:{pid}:{pid + 211 + (rank % 7)} [{n.dev_of(rank) if rank in n.ranks else 0}]"
    if msg.startswith("NCCL ") or " NCCL WARN " in msg or " NCCL INFO " in msg:
        return f"{head} {msg}"
    return f"{head} NCCL {_LEVELS['nccl'][level]} {msg}"


def cpp_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """PyTorch C++ (glog) lines as printed by torch >= 2.2: ``[rank3]:[E512 10:31:02.123456789 file:line] msg``."""
    lv = _LEVELS["glog"][level]
    stamp = n.clock.glog(t + n.skew)
    return f"[rank{rank}]:[{lv}{stamp}{int(t * 1e9) % 1000:03d} {msg}"


# How each CANN module prints its thread id after the source site (hicann/hccl
# docs/en/user_guide/fault_diagnosis/task_exec_stage.md): HCCL "[heartbeat.cc:1229] [2040666][...",
# RUNTIME "[task_info.cc:1170]57288 PrintSdma...", HCCP "[ra_hdc_lite.c:794]tid:2040458,ra_hdc...",
# ROCE none "[hns_roce_lite.c:630]hns_roce_lite_handle_error_cqe(630) : ...".
_PLOG_TID = {"HCCL": " [{tid}]", "RUNTIME": "{tid} ", "HCCP": "tid:{tid},"}


def plog_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """CANN plog: ``[ERROR] HCCL(12345,python):2024-05-12-10:45:12.123.456 [file.cc:123] [tid] msg``.

    ``msg`` carries ``MODULE|file.cc:line|text``.
    """
    module, site, text = msg.split("|", 2)
    pid = n.pid_of(rank) if rank in n.ranks else n.pids[0]
    tid = _PLOG_TID.get(module, "").format(tid=pid + 97)
    return f"[{_LEVELS['plog'][level]}] {module}({pid},python):{n.clock.plog(t + n.skew)} [{site}]{tid}{text}"


def device_event_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """An NPU's device-side event log (msnpureport): ``[EVENT] IMP(-2,IMP): 2024-12-04-08:21:54.994.714 msg``."""
    return f"[EVENT] IMP(-2,IMP): {n.clock.plog(t + n.skew)} {msg}"


def pid_stamped_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """CANN's named error codes on the console: ``[PID: 3448331] 2025-12-04-21:59:08.232.310
    Execution Error ROCE CQE(EI0013): ...`` (hicann/hccl task_exec_stage.md)."""
    pid = n.pid_of(rank) if rank in n.ranks else n.pids[0]
    return f"[PID: {pid}] {n.clock.plog(t + n.skew)} {msg}"


def ecode_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """CANN error-code lines surfaced by torch_npu: ``EI0002: [PID: 123] 2024-..-..-..:..:...... text``."""
    code, text = msg.split("|", 1)
    pid = n.pid_of(rank) if rank in n.ranks else n.pids[0]
    return f"{code}: [PID: {pid}] {n.clock.plog(t + n.skew)} {text}"


def npuerr_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """torch_npu's own error banner: ``[ERROR] 2024-05-21-11:57:54 (PID:9, Device:3, RankID:3) ERR02200 ...``."""
    pid = n.pid_of(rank) if rank in n.ranks else n.pids[0]
    dev = n.dev_of(rank) if rank in n.ranks else 0
    return f"[ERROR] {n.clock.plog_sec(t + n.skew)} (PID:{pid}, Device:{dev}, RankID:{rank}) {msg}"


def print_line(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    return msg


def stamped_print(n: Node, t: float, level: str, msg: str, rank: int) -> str:
    """Megatron-style prints that carry their own ``[YYYY-mm-dd HH:MM:SS]`` stamp."""
    return f" [{n.clock.short(t + n.skew)}] {msg}"
