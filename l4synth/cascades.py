"""How the rest of a job reacts to a fault: collective watchdogs, peers losing their
connection, the elastic agents tearing down, a slow job killed by its owner.

Generic to every fault type (the catalogue holds only the hit nodes' own lines). A mixin
of ``job.Job``, kept apart because it is the one part of the simulation that is about
other nodes; the attributes and methods it uses from ``Job`` are declared below.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING

from l4synth import stacks, style
from l4synth.stacks import JobInfo, Msg, Setting
from l4synth.streams import Result, Stream
from l4synth.style import Node

if TYPE_CHECKING:
    from l4synth.catalogue import FaultType


class Cascades:
    s: Setting
    rng: random.Random
    fault: FaultType | None
    job: JobInfo
    streams: list[Stream]
    console: Stream | None
    event_texts: dict[str, str]
    vars: dict[str, object]
    restarts: tuple[int, int] | None
    _torn: set[int]
    _unprefixed: bool

    if TYPE_CHECKING:

        def burst(self, st: Stream, t: float, msgs: list[Msg], step: tuple[float, float] = ...) -> float: ...

        def _launch_streams(self) -> list[Stream]: ...

        def _hit_streams(self) -> list[int]: ...

        def _result(self, hit: list[int], iterations: list[int]) -> Result: ...

    def _watchdog(self, st: Stream, t: float, it: int) -> float:
        """Collective-timeout cascade on a blocked stream, once per local rank."""
        s, rng = self.s, self.rng
        seq = it * 7 + 311
        frank = self.vars.get("frank", 0)
        for r in st.node.ranks:
            ran = s.watchdog_ms + rng.randint(5, 999)
            if s.stack == "cuda":
                numel = rng.choice((1, 16, 466119168, 9801523))
                head = (f"[Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
                        f"OpType=ALLREDUCE, NumelIn={numel}, NumelOut={numel}, Timeout(ms)={s.watchdog_ms}) ran for "
                        f"{ran} milliseconds before timing out.")
                msgs: list[Msg] = [
                    ("cpp", "ERROR", f"ProcessGroupNCCL.cpp:616] {head}", r),
                    ("cpp", "ERROR", f"ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Exception "
                     f"(either an error or timeout) detected by watchdog at work: {seq}, last enqueued NCCL work: "
                     f"{seq + 2}, last completed NCCL work: {seq - 1}.", r),
                    ("cpp", "ERROR", f"ProcessGroupNCCL.cpp:630] [Rank {r}] Some NCCL operations have failed or timed "
                     "out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
                     "corrupted/incomplete data.", r),
                    ("cpp", "ERROR", f"ProcessGroupNCCL.cpp:636] [Rank {r}] To avoid data inconsistency, we are "
                     "taking the entire process down.", r),
                    ("print", "ERROR", "terminate called after throwing an instance of 'c10::DistBackendError'", r),
                    ("print", "ERROR", f"  what():  [PG ID 0 PG GUID 0(default_pg) Rank {r}] Process group watchdog "
                     f"thread terminated with exception: {head}", r),
                    ("print", "ERROR", "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/"
                     "ProcessGroupNCCL.cpp:618 (most recent call first):", r),
                ]
                libs = ("libc10.so", "libtorch_cuda.so", "libtorch_cuda.so", "libstdc++.so.6", "libc.so.6")
                msgs += [("print", "ERROR", f"frame #{k}: <unknown function> + 0x{rng.getrandbits(20):x} "
                          f"(0x7f{rng.getrandbits(36):09x} in /usr/local/lib/python3.10/dist-packages/torch/lib/{lib})", r)
                         for k, lib in enumerate(libs)]
            else:
                msgs = [
                    ("plog", "ERROR", "HCCL|task_exception_handler.cc:734|[TaskExceptionHandler][Callback]Task from "
                     "HCCL run failed.", r),
                    ("plog", "ERROR", f"HCCL|task_exception_handler.cc:748|[TaskExceptionHandler][Callback]Task run "
                     f"failed, base information is streamID:[{rng.randint(2, 60)}], taskID[{rng.randint(100, 60000)}], "
                     f"taskType[Notify Wait], tag[AllReduce_{st.node.ip}%enp_60000_0_{seq}], remote rank[{frank}].", r),
                    ("plog", "ERROR", f"HCCL|task_exception_handler.cc:769|[TaskExceptionHandler][Callback]notify wait "
                     f"from rank_{frank} timeout, timeout[{s.watchdog_ms // 1000}s]", r),
                    ("cpp", "ERROR", f"compiler_depend.ts:574] [Rank {r}] Watchdog caught collective operation timeout: "
                     f"WorkHCCL(SeqNum={seq}, OpType=ALLREDUCE, Timeout(ms)={s.watchdog_ms}) ran for {ran} "
                     "milliseconds before timing out.", r),
                    ("cpp", "ERROR", "compiler_depend.ts:628] Some HCCL operations have failed or timed out. Due to "
                     "the asynchronous nature of ASCEND kernels, subsequent NPU operations might run on "
                     "corrupted/incomplete data.", r),
                    ("print", "ERROR", "terminate called after throwing an instance of 'std::runtime_error'", r),
                ]
            t = self.burst(st, t, msgs, (0.0001, 0.01))
        return t

    def _remote_error(self, st: Stream, t: float) -> None:
        fip, port = self.vars.get("fip", "0.0.0.0"), self.rng.randint(30000, 60000)
        for r in st.node.ranks[:2]:
            t = self.burst(st, t, [
                ("nccl", "WARNING", f"misc/socket.cc:538 NCCL WARN socketProgressOpt: Call to recv from {fip}<{port}> "
                 "failed : Connection reset by peer", r),
                ("nccl", "INFO", "NCCL INFO misc/socket.cc:555 -> 6", r),
                ("cpp", "ERROR", f"ProcessGroupNCCL.cpp:1537] [PG ID 0 PG GUID 0(default_pg) Rank {r}] Process group "
                 "watchdog thread terminated with exception: NCCL error: remote process exited or there was a "
                 f"network error, NCCL version {self.s.version('nccl')}", r),
                ("print", "ERROR", "ncclRemoteError: A call failed possibly due to a network error or a remote process "
                 "exiting prematurely.", r),
                ("print", "ERROR", "Last error:", r),
                ("print", "ERROR", f"socketProgressOpt: Call to recv from {fip}<{port}> failed : Connection reset by peer", r),
            ])

    def _teardown_failed(self, st: Stream, t: float, rank: int, exitcode: int) -> None:
        """The elastic agent on this host reports a failed worker (ChildFailedError with its root cause)."""
        node = st.node
        if rank not in node.ranks:
            rank = node.ranks[0]
        pid = node.pid_of(rank)
        lr = rank % self.s.per_host
        sig = {-6: "Signal 6 (SIGABRT) received by PID", -9: "Signal 9 (SIGKILL) received by PID"}.get(exitcode)
        msgs: list[Msg] = [("launcher", "WARNING", f"Sending process {p} closing signal SIGTERM", rank)
                           for p in self._host_pids(node) if p != pid]
        msgs.append(("launcher", "ERROR", f"failed (exitcode: {exitcode}) local_rank: {lr} (pid: {pid}) of binary: "
                     "/usr/bin/python3", rank))
        if self.restarts is not None:  # attempts left: the agent restarts its workers instead of raising
            restart, most = self.restarts
            self._agent_burst(st, t, msgs + stacks.launcher_restart(self.job, node.host_index, rank, restart, most))
            return
        msgs += self._agent_traceback(rank, "raise ChildFailedError(")
        msgs += [(k, "ERROR", text, rank) for k, text in (
            ("print", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: "),
            ("print", "============================================================"),
            ("print", f"{self.job.script} FAILED"),
            ("print", "------------------------------------------------------------"),
            ("print", "Failures:"),
            ("print", "  <NO_OTHER_FAILURES>"),
            ("print", "------------------------------------------------------------"),
            ("print", "Root Cause (first observed failure):"),
            ("print", "[0]:"),
            ("print", f"  time      : {style.Clock().elastic(t + node.skew)}"),
            ("print", f"  host      : {node.host}"),
            ("print", f"  rank      : {rank} (local_rank: {lr})"),
            ("print", f"  exitcode  : {exitcode} (pid: {pid})"),
            ("print", "  error_file: <N/A>"),
            ("print", f"  traceback : {sig} {pid}" if sig else
             "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
            ("print", "============================================================"),
        )]
        self._agent_burst(st, t, msgs)

    def _teardown_sigterm(self, st: Stream, t: float) -> None:
        node = st.node
        msgs: list[Msg] = [("launcher", "WARNING", "Received Signals.SIGTERM death signal, shutting down workers",
                            node.ranks[0])]
        msgs += [("launcher", "WARNING", f"Sending process {p} closing signal SIGTERM", node.ranks[0])
                 for p in self._host_pids(node)]
        msgs += self._agent_traceback(node.ranks[0], "raise SignalException(f\"Process {os.getpid()} got signal: {sigval}\", sigval=sigval)")
        msgs.append(("print", "ERROR", f"torch.distributed.elastic.multiprocessing.api.SignalException: Process "
                     f"{node.pids[0] - 40} got signal: 15", node.ranks[0]))
        self._agent_burst(st, t, msgs)

    def _teardown_killed(self, t: float, strike_at: int) -> Result:
        """A slow job killed by its owner: SIGTERM on every host."""
        for st in self._launch_streams():
            self._teardown_sigterm(st, t + self.rng.uniform(0, 2))
        return self._result(self._hit_streams(), [strike_at])

    def _teardown_cancelled(self, t: float) -> Result:
        """The scheduler cancels a healthy attempt (a requeue): SIGTERM on every host, no fault."""
        for st in self._launch_streams():
            self._teardown_sigterm(st, t + self.rng.uniform(0, 2))
        return Result(self.streams, self.console, [], [], [], self.event_texts, self.vars)

    def _agent_burst(self, st: Stream, t: float, msgs: list[Msg]) -> None:
        """The elastic agent prints once per host, into the host's first file (or the console)."""
        host = st.node.host_index
        if host in self._torn:
            return
        self._torn.add(host)
        target = self.console or next(x for x in self.streams if x.node.host_index == host)
        self._unprefixed = True  # the agent's own output carries no worker's rank prefix
        self.burst(target, t, msgs, (0.0001, 0.01))
        self._unprefixed = False

    def _host_pids(self, node: Node) -> list[int]:
        base = node.pids[0] - node.devs[0]
        return [base + d for d in range(self.s.per_host)]

    def _agent_traceback(self, rank: int, last: str) -> list[Msg]:
        site = "/usr/local/lib/python3.10/dist-packages/torch/distributed"
        frames = (
            ("/usr/local/bin/torchrun", 8, "<module>", "sys.exit(main())"),
            (f"{site}/elastic/multiprocessing/errors/__init__.py", 347, "wrapper", "return f(*args, **kwargs)"),
            (f"{site}/run.py", 812, "main", "run(args)"),
            (f"{site}/run.py", 803, "run", "elastic_launch("),
            (f"{site}/launcher/api.py", 135, "__call__", "return launch_agent(self._config, self._entrypoint, list(args))"),
            (f"{site}/launcher/api.py", 268, "launch_agent", last),
        )
        out: list[Msg] = [("print", "ERROR", "Traceback (most recent call last):", rank)]
        for path, ln, fn, code in frames:
            out.append(("print", "ERROR", f'  File "{path}", line {ln}, in {fn}', rank))
            out.append(("print", "ERROR", f"    {code}", rank))
        return out
