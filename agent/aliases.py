"""The names a log calls a node by: host names and ranks printed inside the lines.

Why: real consoles often hold a whole job in one file, so the file's name (``console``,
``slurm-1234``) says nothing about which machine failed. The lines do: NCCL prefixes every
message with ``host:pid:tid``, srun names the host a task died on, torchelastic prints the
failing rank's host, syslog carries the host after the time, torchrun prefixes ``[rankN]``.
An SRE drains a host, so the verdict must carry these names (CONTRACTS: ``aliases``).

Each pattern below carries a real line it was written from and where that line is from;
``tests/test_aliases.py`` runs every pattern on its example.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

MAX_ALIASES = 3  # a node has a host and perhaps a rank; more would be guessing

_HOST = r"[A-Za-z][\w.-]*[A-Za-z0-9]"
_SLURM_HOST = r"(?=[\w.-]*[A-Za-z])[A-Za-z0-9][\w.-]*[A-Za-z0-9]"  # Slurm node names may start with a digit


@dataclass(frozen=True)
class NamePattern:
    """A way logs name a node: the regex (group ``name``), a real example and its source."""

    kind: str  # "host" or "rank"
    regex: re.Pattern[str]
    example: str
    source: str
    expected: str  # what the example names


NAME_PATTERNS: tuple[NamePattern, ...] = (
    NamePattern(
        "host",
        # Newer NCCL names the function after the source position: "transport/nvls.cc:379 (nvlsAllocateMem)
        # NCCL WARN" (NVIDIA/DCGM#304, "[2026-06-23 15:45:07] gpu-stress-dgc86-xfpt6:420:437 [5] ...").
        re.compile(rf"(?:^|[\s\]>:])(?P<name>{_HOST}):\d+:\d+ \[\d+\] (?:\S+:\d+ (?:\(\w+\) )?)?NCCL (?:WARN|INFO|ERROR)"),
        "[1,6]<stdout>:smc-gpu-03:29884:30403 [0] init.cc:497 NCCL WARN Duplicate GPU detected : rank 6 and rank 0 "
        "both on CUDA device 1000",
        "horovod/horovod#3929",
        "smc-gpu-03",
    ),
    NamePattern(
        "host",
        re.compile(rf"\bsrun: error: (?P<name>{_SLURM_HOST}): tasks? [\d,-]+: "),
        "srun: error: gpu20-15: task 0: Out Of Memory",
        "ZwwWayne/K-Net#30 (a Slurm job's cgroup OOM)",
        "gpu20-15",
    ),
    NamePattern(
        "host",
        re.compile(rf"\bsrun: error: Node failure on (?P<name>{_HOST})"),
        "srun: error: Node failure on r6i4n5",
        "SchedMD/slurm (srun's node-failure handler: error(\"Node failure on %s\", msg->nodelist))",
        "r6i4n5",
    ),
    NamePattern(
        "host",
        re.compile(rf"^\s*host\s*:\s*(?P<name>{_HOST}|\d{{1,3}}(?:-\d{{1,3}}){{3}})\s*$"),
        "  host      : yq02-inf-sci-k8s-a800-hbxgn6-0035.yq02.baidu.com",
        "ZhangDY-6483/Megatron-LM nohup.out (torchelastic root-cause block)",
        "yq02-inf-sci-k8s-a800-hbxgn6-0035.yq02.baidu.com",
    ),
    NamePattern(
        "host",
        # DLRover's job master reports a failed worker by its pod name and restart count.
        re.compile(rf"\b(?P<name>{_HOST}) restart \d+ fails\b"),
        "任务 torch-train 训练进程失败 torch-train-edljob worker-116 restart 0 fails: {",
        "intelligent-machine-learning/dlrover docs/blogs/stabilize_llm_training_cn.md",
        "worker-116",
    ),
    NamePattern(
        "host",
        re.compile(rf"\binitialized host (?P<name>{_HOST}) as rank \d+"),
        "2022-06-06 09:17:48 | INFO | fairseq.distributed.utils | initialized host IR-86A4D2-FCC3 as rank 0",
        "Fsoft-AIC/RoPADet train.out (fairseq's distributed start-up line)",
        "IR-86A4D2-FCC3",
    ),
    NamePattern(
        "host",
        re.compile(rf"\b[A-Z][a-z]{{2}} +\d{{1,2}} \d\d:\d\d:\d\d (?P<name>{_HOST}) kernel: "),
        "Jun  3 11:02:44 gpu-a12 kernel: NVRM: Xid (PCI:0000:ca:00): 31, pid=90112, name=pt_main_thread, "
        "Ch 00000023, intr 00000000. MMU Fault: ENGINE CE3 HUBCLIENT_CE1 faulted @ 0x7f10_a0000000.",
        "knowledge/cuda/xid-31-gpu-memory-page-fault.md (syslog form of an NVIDIA Xid report)",
        "gpu-a12",
    ),
    NamePattern(
        "host",
        # Any daemon's syslog line names the host after the time: Slurm's, pyxis's, the driver's.
        re.compile(rf"\b[A-Z][a-z]{{2}} +\d{{1,2}} \d\d:\d\d:\d\d (?P<name>{_HOST}) [\w.-]+\[\d+\]: "),
        "Feb 16 19:30:06 ip-10-1-101-117 slurmd[53634]: spank-epilog: error: pyxis: couldn't execute enroot command",
        "awslabs/awsome-distributed-ai#141 (a compute node's slurmd journal)",
        "ip-10-1-101-117",
    ),
    NamePattern(
        "host",
        re.compile(r"^\s*\((?:[\w.:-]+,? )?(?:pid=\d+, )?ip=(?P<name>\d{1,3}(?:\.\d{1,3}){3})\) "),
        "(raylet, ip=10.22.72.139) [2026-04-17 15:06:03,782 E 622 622] (raylet) node_manager.cc:3250:",
        "THUDM/slime#1845 (Ray prefixes a remote node's lines with its process and IP)",
        "10.22.72.139",
    ),
    NamePattern(
        "host",
        re.compile(r"\bMemory on the node \(IP: (?P<name>\d{1,3}(?:\.\d{1,3}){3}), ID: "),
        "Memory on the node (IP: 10.20.49.141, ID: 4748aa6d1bc114b8bf58822d0b162796a1d36a79dee5c167c9bf91f5) where the "
        "task (actor ID: 9e43ace6a1234e13df7b456b01000000, name=8szhVkWorkerDict_0:3:WorkerDict.__init__, pid=4100606, "
        "memory used=56.57GB) was running was 246.41GB / 251.54GB (0.979583)",
        "verl-project/verl#2950 (Ray's memory monitor names the node it killed a task on)",
        "10.20.49.141",
    ),
    NamePattern(
        "host",
        re.compile(r"\bCQE\(EI0013\): .{0,80}?Local information: server (?P<name>\d{1,3}(?:\.\d{1,3}){3})\b"),
        "[PID: 3448331] 2025-12-04-21:59:08.232.310 Execution Error ROCE CQE(EI0013): An error CQE occurred during "
        "operator execution. Local information: server 10.0.1.7, device ID 0, device IP 192.168.100.10. Peer "
        "information: server 10.0.1.9, device ID 1, device IP 192.168.100.22.",
        "hicann/hccl docs/en/user_guide/fault_diagnosis/task_exec_stage.md (knowledge/ascend/hccl-ei0013-error-cqe.md)",
        "10.0.1.7",
    ),
    NamePattern(  # NCCL before 2.3 left out its own name: "host:pid:tid [dev] file:line WARN ..."
        "host",
        re.compile(rf"(?:^|[\s\]>:])(?P<name>{_HOST}):\d+:\d+ \[\d+\] \S+:\d+ (?:WARN|INFO) "),
        "node1:54573:54696 [1] include/socket.h:194 WARN Call to recv failed : Connection reset by peer",
        "horovod/horovod#147",
        "node1",
    ),
    NamePattern(  # HCCL failing to listen names the address of its own host
        "host",
        re.compile(r"\blisten on ip\[(?P<name>\d{1,3}(?:\.\d{1,3}){3})(?:%[\w.-]+)?\] and specific port\[\d+\] fail"),
        "[ERROR] HCCL(1009464,all_reduce_test):2025-03-15-00:41:48.470.172 [hccl_socket.cc:110] [1009464][InitGroupStage]"
        "[RanktableDetect] socket type[0], listen on ip[192.168.2.199] and specific port[16666] fail. Please check the "
        "port status and whether the port is being used by other process.",
        "hicann/hccl docs/zh/user_guide/fault_diagnosis/param_link_stage.md (EI0019)",
        "192.168.2.199",
    ),
    NamePattern(  # NCCL names the address its bootstrap binds: the node's own IP
        "host",
        re.compile(r"\bNCCL INFO Bootstrap : Using (?:\[\d+\])?[\w.-]+:(?P<name>(?!127\.)\d{1,3}(?:\.\d{1,3}){3})<\d+>"),
        "x3006c0s13b1n0:508126:508126 [0] NCCL INFO Bootstrap : Using hsn1:10.201.1.251<0>",
        "argonne-lcf/alcf-nccl-tests pytests/VAE/results/2025-01-15-10-27-37/with_aws.log",
        "10.201.1.251",
    ),
    NamePattern(
        "rank",
        re.compile(r"\[rank(?P<name>\d+)\]:"),
        "[rank12]:[E817 17:40:34.227531918 ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank 12] Process group "
        "watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered",
        "pytorch/pytorch#113128",
        "12",
    ),
)

# A lost peer named in a line: the peer, not the reporter, is where to look. Only used when
# one stream holds the whole job (then no other node can carry the peer's name).
# A loopback address names no machine (a host that resolved its own name to 127.0.1.1 told
# its peers to dial themselves, pytorch/pytorch#15592): it is a clue, not a node to drain.
PEER_PATTERNS: tuple[NamePattern, ...] = (
    NamePattern(
        "peer",
        re.compile(r"\bConnect to (?P<name>(?!127\.)\d{1,3}(?:\.\d{1,3}){3})<\d+> failed"),
        "r11i6n2:486514:486651 [1] include/socket.h:403 NCCL WARN Connect to 10.148.3.247<56821> failed : "
        "Connection refused",
        "bigscience-workshop/bigscience jz/slurm/README.md ('Broken Network')",
        "10.148.3.247",
    ),
    NamePattern(
        "peer",
        re.compile(r"\bGot completion from peer (?P<name>\d{1,3}(?:\.\d{1,3}){3})<\d+> with (?:status|error)"),
        "kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
        "10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
        "fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f",
        "knowledge/cuda/nccl-ib-completion-error-12-retry-exceeded.md (a public NCCL issue's log line)",
        "10.216.210.236",
    ),
    NamePattern(
        "peer",
        re.compile(r"\bCluster Exception Location\[IP/ID\]:\[(?P<name>\d{1,3}(?:\.\d{1,3}){3})/\d+\]"),
        "[ERROR]HCCL(835695,python):2025-10-23-17:28:06.049.385[task_exception_handler.cc:610][835695][TaskExecStage]"
        "[HeartbeatAbnormal]Cluster Exception Location[IP/ID]:[10.0.3.14/1], Arrival Time:[Thu Oct 23 17:25:58 2025], "
        "Discoverer:[10.0.3.15/2], ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited",
        "hicann/hccl docs/en/user_guide/fault_diagnosis/task_exec_stage.md (knowledge/ascend/hccl-heartbeat-lost-occurred.md)",
        "10.0.3.14",
    ),
    NamePattern(  # a host the job's hosts file does not resolve is where to look
        "peer",
        re.compile(rf"\bgethostbyname failed, (?P<name>{_HOST}) \(errno"),
        "MPID_nem_tcp_init(379)..................: gethostbyname failed, HW-AI-LC-1-1 (errno 2)",
        "hicann/oam-tools docs/zh/hccl_test/faqs.md (MPICH error stack)",
        "HW-AI-LC-1-1",
    ),
)


# Slurm's "srun: error: HOST: task N: ..." ties global rank N to HOST.
SRUN_TASK = re.compile(rf"\bsrun: error: (?P<host>{_SLURM_HOST}): tasks? (?P<tasks>[\d,-]+): ")

# Names that match the host shape but are never a machine.
_NOT_HOSTS = frozenset({"localhost", "error", "warning", "info", "debug", "none", "unknown", "nan"})


def names_in(text: str) -> list[tuple[str, str]]:
    """``(kind, name)`` for every node name the line carries, in pattern order; ranks as ``rank12``."""
    found: list[tuple[str, str]] = []
    for pattern in NAME_PATTERNS:
        m = pattern.regex.search(text)
        if m is None:
            continue
        name = m.group("name")
        if pattern.kind == "rank":
            name = f"rank{int(name)}"
        elif name.lower() in _NOT_HOSTS:
            continue
        found.append((pattern.kind, name))
    return found


def aliases_from(texts: Iterable[str], node: str) -> list[str]:
    """The names these lines (of one node, most telling first) call it by: hosts before ranks,
    each in first-seen order, without the node's own name, at most ``MAX_ALIASES``."""
    hosts: list[str] = []
    ranks: list[str] = []
    for text in texts:
        for kind, name in names_in(text):
            bucket = hosts if kind == "host" else ranks
            if name != node and name not in bucket:
                bucket.append(name)
        if len(hosts) >= MAX_ALIASES:
            break
    return (hosts + ranks)[:MAX_ALIASES]


def peers_in(texts: Iterable[str]) -> list[str]:
    """Lost peers the lines name (IPs of peers that refused or failed), in first-seen order."""
    found: list[str] = []
    for text in texts:
        for pattern in PEER_PATTERNS:
            m = pattern.regex.search(text)
            if m and m.group("name") not in found:
                found.append(m.group("name"))
    return found


def sole_host(texts: Iterable[str]) -> str | None:
    """The one machine these lines name, or None when they name none or several. A console
    whose lines only ever name one host ran its ranks there, as far as the log shows:
    "liangxianchen-funasr-15wh-train-lxc0-w-0:15325:16199 [2] NCCL INFO [Service thread]
    Connection closed by localRank 2" below "[rank2]: torch.cuda.OutOfMemoryError"
    (modelscope/FunASR#2006)."""
    hosts: set[str] = set()
    for text in texts:
        hosts.update(name for kind, name in names_in(text) if kind == "host")
        if len(hosts) > 1:
            return None
    return next(iter(hosts), None)


def task_hosts(texts: Iterable[str]) -> dict[int, str]:
    """Global rank -> host, from srun's per-task error lines (``task 3``, ``tasks 0-7``)."""
    hosts: dict[int, str] = {}
    for text in texts:
        m = SRUN_TASK.search(text)
        if m is None or m.group("host").lower() in _NOT_HOSTS:
            continue
        for part in m.group("tasks").split(","):
            lo, _, hi = part.partition("-")
            if lo.isdigit() and (not hi or hi.isdigit()) and int(hi or lo) - int(lo) < 4096:
                for rank in range(int(lo), int(hi or lo) + 1):
                    hosts.setdefault(rank, m.group("host"))
    return hosts


def same_name(a: str, b: str) -> bool:
    """``rank 12`` is ``rank12`` is ``Rank12``: compare names without case and spaces."""
    return a.replace(" ", "").lower() == b.replace(" ", "").lower()


def host_folder(sources: Iterable[Path], source: Path) -> str | None:
    """The folder ``source`` sits in, when the job's files are grouped into several folders of
    several files each: one folder per host, one file per rank (``ms-train-33/worker_11.log``,
    ``node-3/rank_2.log``; MindSpore's msrun and many launch scripts write logs this way)."""
    per_folder = Counter(path.parent for path in set(sources))
    if sum(1 for count in per_folder.values() if count >= 2) < 2 or per_folder[source.parent] < 2:
        return None
    folder = source.parent
    # A folder named for logs says what it holds, not who wrote it: msrun's "msrun_log" under
    # each host's folder ("node-03/msrun_log/worker_5.log", a blind author's MindSpore job).
    while _LOG_FOLDER.search(folder.name) and folder.parent.name and len({f.parent for f in per_folder}) > 1:
        folder = folder.parent
    return None if _LOG_FOLDER.search(folder.name) else folder.name or None


_LOG_FOLDER = re.compile(r"(?i)^(?:\w+[_-])?(?:logs?|outputs?|stdout|stderr)$")
