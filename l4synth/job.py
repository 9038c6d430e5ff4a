"""Simulate one distributed training job, line by line, with or without an injected fault.

The job runs its stages (environment, launcher, communicator init, model and checkpoint
load, data loading, training with periodic checkpoints and evals, exit) on every
stream, a stream being what ends up in one log file: a whole host or a single rank.
A fault strikes some streams at a point of one stage and the rest of the job reacts the
way real jobs do:

* **crash**: the hit ranks print their error and die; their ring neighbours see the
  connection drop (``remote``), the others block until the collective watchdog fires;
  then the elastic agents tear down. Peer cascades often outnumber the root lines and
  name the faulty peer's rank or IP.
* **hang**: progress stops everywhere; nothing is printed until the watchdog (or the
  platform, after hours) ends the job; the hit node may print only an INFO/WARNING.
* **slowdown**: every rank's step time grows (synchronous training); only the straggler
  prints a hint; the job finishes or is killed.
* **silent**: the node's log just stops; only its peers' lines name it.

Lines are recorded per stream with their job-clock time, so layouts can merge streams
into one console file; event lines are recorded by index, so labels are exact.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable

from l4synth import stacks, style
from l4synth.cascades import Cascades
from l4synth.catalogue import FaultType, Line
from l4synth.stacks import JobInfo, Msg, Setting
from l4synth.streams import Result, Shape, Stream
from l4synth.style import Node


class Job(Cascades):
    def __init__(self, setting: Setting, shape: Shape, rng: random.Random, fault: FaultType | None) -> None:
        self.s = setting
        self.rng = rng
        self.fault = fault
        self.shape = shape
        s = setting
        per_stream = s.per_host if s.host_files else 1
        hosts = 1 if s.layout == "console" else shape.hosts
        world = hosts * s.per_host
        rack = rng.choice("abcdefgh") if s.stack == "cuda" else "n"
        subnet = rng.randint(0, 250)
        ips = [f"10.{subnet}.{(i * 7 + 3) // 250}.{(i * 7 + 3) % 250 + 2}" for i in range(hosts)]
        names = [stacks.host_name(s.host_scheme, i, ips[i], rack) for i in range(hosts)]
        layers, hidden, heads, _ = stacks.MODELS[s.model]
        self.job = JobInfo(
            world=world, hosts=names, ips=ips, master=ips[0], port=rng.choice((29500, 29400, 6000, 23456)),
            jobid=rng.randint(100000, 999999), ckpt_dir=f"/mnt/{rng.choice(('ckpt', 'nfs/ckpt', 'obs/ckpt'))}/{s.model}",
            data_path=f"/data/{rng.choice(('pile', 'redpajama', 'wudao', 'slimpajama'))}/train_text_document",
            tokenizer=f"/models/{s.model}/tokenizer", train_iters=0, resume_iter=rng.choice((0, 0, 2000, 12000)),
            script=rng.choice(("pretrain_gpt.py", "pretrain_llama.py", "train.py")), layers=layers, hidden=hidden,
            heads=heads,
        )
        t0 = float(s.base_time) + shape.seed_offset
        self.t0 = t0
        self.streams: list[Stream] = []
        pid0 = rng.randint(2000, 90000)
        for h in range(hosts):
            boot = t0 - rng.uniform(3600, 86400 * 20)
            skew = rng.uniform(-3.0, 3.0)
            for j in range(0, s.per_host, per_stream):
                ranks = [h * s.per_host + j + k for k in range(per_stream)]
                node = Node(host=names[h], ip=ips[h], host_index=h, ranks=ranks,
                            devs=[r % s.per_host for r in ranks], pids=[pid0 + h * 13 + r % s.per_host for r in ranks],
                            skew=skew, boot=boot)
                self.streams.append(Stream(node))
        self.console: Stream | None = None
        if s.layout == "console":
            first = self.streams[0].node
            self.console = Stream(Node(host=first.host, ip=first.ip, host_index=0, ranks=[0], devs=[0],
                                       pids=[pid0 - 40], skew=first.skew, boot=first.boot))
        site = {"megatron": "training.py:680:training_log", "deepspeed": "logging.py:96:log_dist",
                "mindspeed": "training.py:612:training_log", "torch": "train.py:214:main"}[s.framework]
        self.render: dict[str, Callable[[Node, float, str, str, int], str]] = {
            "app": style.app_line(s.app_style, site),
            "launcher": style.launcher_line(s.launcher_style),
            "kernel": style.kernel_line(s.kernel_style if s.stamps else "dmesg_t"),
            "print": style.print_line,
            "stamp": style.stamped_print if s.stamps else style.print_line,
            "nccl": style.nccl_line,
            "cpp": style.cpp_line,
            "plog": style.plog_line,
            "ecode": style.ecode_line,
            "npuerr": style.npuerr_line,
            "pidstamp": style.pid_stamped_line,
            "imp": style.device_event_line,
        }
        self.log_rank = 0 if s.framework in ("deepspeed", "torch") else world - 1
        self.event_texts: dict[str, str] = {}
        self.vars: dict[str, object] = {}
        self._last: Result | None = None
        self._torn: set[int] = set()  # hosts whose agent already tore down
        self._unprefixed = False  # lines now come from the shell or the agent, not from a rank
        self.banner = True  # the job script prints its environment and starts the launcher
        self.restarts: tuple[int, int] | None = None  # (this restart, max restarts) when the agent restarts after
        self.cancel_after: int | None = None  # logged iterations after which the scheduler cancels the attempt
        self.last_saved: int | None = None  # last iteration whose checkpoint save completed
        self._eids = fault.event_ids() if fault is not None else {}

    # ------------------------------------------------------------------ emission

    def put(self, st: Stream, t: float, msg: Msg, event: str | None = None) -> None:
        kind, level, text, rank = msg
        if kind == "launcher" and self.console is not None:
            st = self.console
        if st.dead or (kind == "kernel" and self.console is not None):
            return
        t = max(t, st.now)
        line = self.render[kind](st.node, t, level, text, rank)
        if event is not None:
            st.events.setdefault(event, []).append(len(st.lines))
            self.event_texts.setdefault(event, line)
        st.lines.append(line)
        st.times.append(t)
        st.origin.append(None if self._unprefixed or kind in ("launcher", "kernel") else rank)

    def burst(self, st: Stream, t: float, msgs: list[Msg], step: tuple[float, float] = (0.0005, 0.02)) -> float:
        lo, hi = step
        for m in msgs:
            t += self.rng.uniform(lo, hi)
            self.put(st, t, m)
        return t

    # ------------------------------------------------------------------- stages

    def run(self, lines_per_stream: int) -> Result:
        s, job, rng, fault = self.s, self.job, self.rng, self.fault
        if fault is not None:
            if not self.vars:  # a restarted attempt keeps the first one's hit node and values
                self.vars = self._vars()
            job.env = {k: v.format(**self.vars) for k, v in fault.env}
        stage = fault.stage if fault else None
        t = self.t0
        # Environment and launcher: once per host (console: once for the whole job).
        self._unprefixed = True
        for st in self._launch_streams() if self.banner else []:
            tt = self.burst(st, t + rng.uniform(0, 4), stacks.env_dump(s, job, st.node.host_index, st.node.ranks[0], rng),
                            (0.001, 0.05))
            self.burst(st, tt + rng.uniform(2, 20), stacks.launcher_start(s, job, st.node.host_index, st.node.ranks[0]))
        self._unprefixed = False
        t = max(self.t0, *(st.now for st in self.streams + ([self.console] if self.console else []))) + rng.uniform(3, 15)
        # Communicator init.
        mark = self._marks()
        for st in self.streams:
            tt = t + rng.uniform(0, 2)
            for r in st.node.ranks:
                tt = self.burst(st, tt, stacks.dist_init(s, job, st.node.host_index, r, st.node.dev_of(r), rng))
        if stage == "init":
            return self._strike_early(mark, t)
        t = max(st.now for st in self.streams) + rng.uniform(2, 10)
        mark = self._marks()
        for st in self.streams:
            tt = t + rng.uniform(0, 1)
            for r in st.node.ranks:
                tt = self.burst(st, tt, stacks.model_build(s, job, r, r == 0, job.resume_iter > 0), (0.001, 0.3))
        if stage == "model_loading":
            return self._strike_early(mark, t)
        t = max(st.now for st in self.streams) + rng.uniform(5, 60)
        mark = self._marks()
        for st in self.streams:
            tt = t + rng.uniform(0, 1)
            for r in st.node.ranks:
                tt = self.burst(st, tt, stacks.data_load(s, job, r, r == 0), (0.01, 0.5))
        if stage == "data_loading":
            return self._strike_early(mark, t)
        t = max(st.now for st in self.streams) + rng.uniform(5, 30)
        return self._train(t, lines_per_stream)

    def _launch_streams(self) -> list[Stream]:
        if self.console is not None:
            return [self.console]
        seen: set[int] = set()
        out = []
        for st in self.streams:
            if st.node.host_index not in seen:
                seen.add(st.node.host_index)
                out.append(st)
        return out

    def _marks(self) -> list[int]:
        return [len(st.lines) for st in self.streams]

    # ----------------------------------------------------------------- training

    def _train(self, t: float, lines_per_stream: int) -> Result:
        s, job, rng, fault = self.s, self.job, self.rng, self.fault
        full_stream = next(i for i, st in enumerate(self.streams) if self.log_rank in st.node.ranks)
        # Size the run so a typical stream reaches the target and the busiest stays under the cap.
        costs = sorted(len(self._iter_msgs(st, 1, 1000.0, 2.0, 1e-4, 1.0, i == full_stream)) + 0.2
                       for i, st in enumerate(self.streams))
        used = max(len(st.lines) for st in self.streams)
        n_logged = int(min((lines_per_stream - used) / costs[len(costs) // 2],
                           (self.shape.max_lines * 0.7 - used) / costs[-1]))  # room for saves, evals, teardown
        n_logged = max(30, n_logged)
        start = job.resume_iter
        job.train_iters = start + n_logged * s.log_interval
        strike_at: int | None = None
        save_every = s.save_interval
        if fault is not None and fault.stage in ("training", "checkpoint"):
            lo = start + int(n_logged * 0.25) * s.log_interval
            hi = start + int(n_logged * 0.9) * s.log_interval
            if fault.stage == "checkpoint":
                saves = list(range(start + save_every, hi + 1, save_every))
                if not saves:  # a run too short to reach a save in this setting: this job saves more often
                    save_every = lo - start
                    saves = [lo]
                strike_at = rng.choice(saves[len(saves) // 3:])
            else:
                strike_at = rng.randrange(lo, hi + 1, s.log_interval) + 1
        slow_factor = rng.uniform(1.8, 2.6) if fault is not None and fault.outcome == "slowdown" else 1.0
        kill_after: int | None = None
        if fault is not None and fault.outcome == "slowdown" and rng.random() < 0.6:
            kill_after = (strike_at or 0) + int(n_logged * 0.08 + 5) * s.log_interval
        rare = self._rare_plan(start, job.train_iters)
        hw_every = rng.choice((300.0, 600.0, 900.0))
        next_hw = [t + rng.uniform(0, hw_every) for _ in self.streams]
        times: dict[int, float] = {}
        ms_base = s.iter_ms
        it = start
        tt = t
        hit = self._hit_streams() if fault else []
        hint_every = max(1, rng.choice((1, 2, 3)))
        logged = 0
        while it < job.train_iters:
            nxt = it + s.log_interval
            if (strike_at is not None and fault is not None and fault.outcome != "slowdown" and nxt >= strike_at
                    and fault.stage == "training"):
                # The fault strikes during iteration strike_at, the one after the last logged.
                return self._strike_training(tt + rng.uniform(0.1, 0.9) * ms_base / 1000, strike_at, hit)
            slow = slow_factor if strike_at is not None and nxt >= strike_at else 1.0
            ms = ms_base * slow * rng.uniform(0.97, 1.04)
            tt += ms * s.log_interval / 1000
            it = nxt
            times[it] = tt
            loss = 1.9 + 8.5 * math.exp(-it / 2500) + rng.uniform(-0.05, 0.05)
            lr = 3e-4 * min(1.0, it / 2000) * (0.55 + 0.45 * math.cos(math.pi * min(1.0, it / max(1, job.train_iters))))
            gnorm = 0.3 + 2.0 * math.exp(-it / 1500) + rng.uniform(0, 0.1)
            for i, st in enumerate(self.streams):
                ts = tt + rng.uniform(0, 0.05)
                for m in self._iter_msgs(st, it, ms, loss, lr, gnorm, i == full_stream):
                    self.put(st, ts, m)
                if ts >= next_hw[i]:
                    next_hw[i] = ts + hw_every
                    for r in st.node.ranks:
                        self.put(st, ts + 0.01, stacks.hw_status(s, r, st.node.dev_of(r), rng))
            for i, block in rare.get(it, []):
                self.burst(self.streams[i], tt + 0.2, block)
            logged += 1
            if slow > 1.0 and fault is not None and logged % hint_every == 0:
                for i in hit:
                    self._fault_lines(self.streams[i], tt + 0.3, fault.lines, it)
            if kill_after is not None and it >= kill_after:
                return self._teardown_killed(tt + rng.uniform(30, 300), strike_at or it)
            if self.cancel_after is not None and logged >= self.cancel_after:
                return self._teardown_cancelled(tt + rng.uniform(5, 120))
            if it % s.eval_interval == 0:
                for i, st in enumerate(self.streams):
                    if i == full_stream:
                        self.burst(st, tt + 1, stacks.evaluation(s, self.log_rank, it, loss + 0.05), (0.5, 3))
                tt += rng.uniform(20, 90)
            if (it - start) % save_every == 0:
                tt = self._checkpoint(tt, it, full_stream, strike_at, hit)
                if self._last is not None:
                    return self._last
        for st in self.streams:
            end = tt + rng.uniform(1, 5)
            for r in st.node.ranks:
                self.burst(st, end, stacks.finish(s, job, r, it, r == self.log_rank))
        for st in self._launch_streams():
            self.burst(st, tt + rng.uniform(10, 40), stacks.launcher_done(st.node.host_index, st.node.ranks[0]))
        iters = [strike_at] if strike_at is not None else []
        return self._result(hit, iters)

    def _iter_msgs(self, st: Stream, it: int, ms: float, loss: float, lr: float, g: float, full: bool) -> list[Msg]:
        out: list[Msg] = []
        for r in st.node.ranks:
            is_full = full and r == self.log_rank
            if is_full or self.s.iter_print_all or (it // self.s.log_interval) % 8 == r % 8:
                out += stacks.iteration(self.s, r, it, ms, loss, lr, g, self.job, is_full)
        return out

    def _checkpoint(self, t: float, it: int, full_stream: int, strike_at: int | None, hit: list[int]) -> float:
        s, rng = self.s, self.rng
        fault = self.fault
        end = t
        striking = fault is not None and fault.stage == "checkpoint" and strike_at == it
        for i, st in enumerate(self.streams):
            tt = t + rng.uniform(0.1, 1)
            afters: list[Msg] = []
            for r in st.node.ranks:
                before, after = stacks.checkpoint_save(s, self.job, r, it, r == self.log_rank or i == full_stream)
                tt = self.burst(st, tt, before, (0.001, 0.05))
                afters += after
            if not striking:
                end = max(end, self.burst(st, tt + rng.uniform(20, 120), afters, (0.01, 0.3)))
                self.last_saved = it
        if striking and fault is not None:
            self._last = self._strike_training(t + rng.uniform(5, 60), it, hit)
        return end + rng.uniform(1, 5)

    def _rare_plan(self, start: int, end: int) -> dict[int, list[tuple[int, list[Msg]]]]:
        """A few one-off benign blocks on random streams at random logged iterations."""
        s, rng = self.s, self.rng
        plan: dict[int, list[tuple[int, list[Msg]]]] = {}
        steps = list(range(start + s.log_interval, end + 1, s.log_interval))
        for _ in range(rng.randint(2, 6)):
            i = rng.randrange(len(self.streams))
            st = self.streams[i]
            r = rng.choice(st.node.ranks)
            it = rng.choice(steps)
            blocks = stacks.rare_benign(s, self.job, r, st.node.dev_of(r), it, rng)
            plan.setdefault(it, []).append((i, rng.choice(blocks)))
        return plan

    # -------------------------------------------------------------- fault: who

    def _hit_streams(self) -> list[int]:
        fault, rng = self.fault, self.rng
        assert fault is not None
        n = len(self.streams)
        if fault.scope == "all":
            return list(range(n))
        if "hit" not in self.vars:
            self.vars["hit"] = rng.randrange(n)
        first = int(self.vars["hit"])  # type: ignore[call-overload]
        if fault.scope == "host" and not self.s.host_files:
            host = self.streams[first].node.host_index
            return [i for i, st in enumerate(self.streams) if st.node.host_index == host]
        return [first]

    def _vars(self) -> dict[str, object]:
        s, job, rng = self.s, self.job, self.rng
        n = len(self.streams)
        hit = rng.randrange(n)
        st = self.streams[hit]
        rank = rng.choice(st.node.ranks)
        peer_rank = (rank + s.per_host) % job.world if job.world > s.per_host else (rank + 1) % job.world
        peer_host = peer_rank // s.per_host
        pp2 = s.pp if s.pp > 1 else 4
        bad_tp = next(x for x in (3, 5, 7, 6, 9, 11) if job.world % (x * s.pp))
        return {
            "hit": hit, "rank": rank, "dev": st.node.dev_of(rank), "pid": st.node.pid_of(rank), "host": st.node.host,
            "ip": st.node.ip, "bus": f"{st.node.dev_of(rank) * 16 + 0x18:02x}", "peer_rank": peer_rank,
            "peer_ip": job.ips[peer_host], "fip": st.node.ip, "frank": rank, "fhost": st.node.host,
            "world": job.world, "tp": s.tp, "pp": s.pp, "pp2": pp2, "bad_tp": bad_tp,
            "bad_layers": job.layers + 1 if (job.layers + 1) % pp2 else job.layers + 2, "layers": job.layers,
            "ckpt": job.ckpt_dir, "data": job.data_path, "tok": job.tokenizer, "script": job.script,
            "n1": rng.randint(1000, 99999), "n2": rng.randint(20, 120), "n3": rng.randint(2, 9),
            "h1": f"{rng.getrandbits(32):08x}", "iter": 0,
            "port": rng.randint(30000, 60999), "jobid": job.jobid, "nccl": s.version("nccl"),
            "peer_dev": peer_rank % s.per_host, "devip": self._device_ip(st.node.host_index, st.node.dev_of(rank)),
            "peer_devip": self._device_ip(peer_host, peer_rank % s.per_host),
            "nfs": rng.choice(("nas01", "10.200.0.12", "fs-ckpt-02")), "driver_old": rng.choice((11040, 10020, 11020)),
            "uid": f"{rng.getrandbits(32):08x}-{rng.getrandbits(16):04x}-4{rng.getrandbits(12):03x}-"
                   f"{rng.getrandbits(16):04x}-{rng.getrandbits(48):012x}",
        }

    @staticmethod
    def _device_ip(host_index: int, dev: int) -> str:
        """An NPU's own RoCE address, as ``stacks.dist_init`` prints it in the rank table."""
        return f"192.168.{dev}.{host_index + 10}"

    def _fault_lines(self, st: Stream, t: float, lines: tuple[Line, ...], it: int, rank: int | None = None,
                     peer: bool = False) -> float:
        v = dict(self.vars)
        v["iter"] = it
        ranks = st.node.ranks
        hit_rank = int(v["rank"]) if int(v["rank"]) in ranks else ranks[0]  # type: ignore[call-overload]
        node = st.node
        v["date"] = self._iso(t)
        v["date_us"] = style.Clock().iso(t).replace("T", " ")[:23] + f"{int(t * 1e6) % 1000:03d}"
        v["ctime"] = time.asctime(time.gmtime(t))
        if peer:
            v |= {"ip": node.ip, "host": node.host}
        own = rank if rank is not None else hit_rank
        # Each process prints its own block (a traceback is written by one process in one go).
        for r in [own] + [r for r in ranks if r != own]:
            v |= {"rank": r, "dev": node.dev_of(r), "pid": node.pid_of(r), "host": node.host, "ip": node.ip,
                  "bus": f"{node.dev_of(r) * 16 + 0x18:02x}"}
            for li, line in enumerate(lines):
                if not line.per_rank and r != own:
                    continue
                for _ in range(self.rng.randint(*line.repeat)):
                    v["n2"] = self.rng.randint(20, 120) if line.repeat != (1, 1) else v["n2"]
                    t += self.rng.uniform(0.0005, 0.05)
                    self.put(st, t, (line.kind, line.level, line.text.format(**v), r), self._eids.get((peer, li)))
        return t


    def _iso(self, t: float) -> str:
        return style.Clock().iso(t)[:19]

    # ------------------------------------------------------------ fault: strike

    def _strike_early(self, marks: list[int], t: float) -> Result:
        """A fault in init/model/data loading: cut the stage short on hit streams, then react."""
        fault, rng = self.fault, self.rng
        assert fault is not None
        hit = self._hit_streams()
        cut = rng.uniform(0.3, 0.8)
        ts = t
        for i in hit:
            st = self.streams[i]
            keep = marks[i] + int((len(st.lines) - marks[i]) * cut)
            del st.lines[keep:], st.times[keep:], st.origin[keep:]
            ts = max(ts, st.now)
        return self._after_strike(ts + rng.uniform(0.5, 3), hit, iteration=None)

    def _strike_training(self, t: float, it: int, hit: list[int]) -> Result:
        return self._after_strike(t, hit, iteration=it)

    def _after_strike(self, t: float, hit: list[int], iteration: int | None) -> Result:
        fault, rng, s = self.fault, self.rng, self.s
        assert fault is not None
        it = iteration or 0
        for i in hit:
            self._fault_lines(self.streams[i], t + rng.uniform(0, 1.5), fault.lines, it)
        others = [i for i in range(len(self.streams)) if i not in hit]
        timeout = s.watchdog_ms / 1000
        neighbours = self._neighbours(hit, others)
        end_t = t
        if fault.outcome == "silent":
            for i in hit:
                self.streams[i].dead = True
            for i in neighbours:
                st = self.streams[i]
                self._fault_lines(st, t + rng.uniform(1, 30), fault.peer_lines, it, rank=st.node.ranks[0], peer=True)
            watchers = others
        elif fault.outcome == "hang":
            watchers = list(range(len(self.streams)))
        else:  # crash
            for i in hit:
                st = self.streams[i]
                if fault.subcategory == "scheduling":  # the scheduler's SIGTERM ends the workers
                    self._teardown_sigterm(st, st.now + rng.uniform(1, 8))
                    continue
                exitcode = -9 if fault.subcategory == "resource_management" and fault.scope == "rank" else 1
                self._teardown_failed(st, st.now + rng.uniform(1, 8), int(self.vars["rank"]), exitcode)  # type: ignore[call-overload]
            if fault.reaction == "remote" and s.stack == "cuda":
                for i in neighbours:
                    self._remote_error(self.streams[i], t + rng.uniform(0.5, 5))
            watchers = [] if fault.reaction == "none" else others
        # A restarting agent must see its workers fail, so no platform kill ends an attempt it restarts.
        platform_kill_early = fault.outcome == "crash" and rng.random() < 0.25 and self.restarts is None
        hang_forever = fault.outcome == "hang" and rng.random() < 0.25 and self.restarts is None
        if platform_kill_early or hang_forever:
            kill_t = t + (rng.uniform(30, 200) if platform_kill_early else rng.uniform(3600, 4 * 3600))
            for i in watchers:
                self._teardown_sigterm(self.streams[i], kill_t + rng.uniform(0, 2))
        else:
            for i in watchers:
                st = self.streams[i]
                wt = t + timeout + rng.uniform(0.05, 1.5)
                wt = self._watchdog(st, wt, it)
                end_t = max(end_t, wt)
                self._teardown_failed(st, wt + rng.uniform(1, 5), st.node.ranks[0], exitcode=-6)
        del end_t
        return self._result(hit, [iteration] if iteration is not None and fault.stage in ("training", "checkpoint")
                            else [])

    def _neighbours(self, hit: list[int], others: list[int]) -> list[int]:
        if not others:
            return []
        n = len(self.streams)
        cand = []
        for i in hit:
            for j in ((i - 1) % n, (i + 1) % n):
                if j in others and j not in cand:
                    cand.append(j)
        return cand or others[:1]

    # ------------------------------------------------------------------ result

    def _result(self, hit: list[int], iterations: list[int]) -> Result:
        fault = self.fault
        faulty = hit if fault is not None and fault.node_local else []
        return Result(self.streams, self.console, hit, faulty, iterations, self.event_texts, self.vars)


def simulate(setting: Setting, shape: Shape, rng: random.Random, fault: FaultType | None) -> Result:
    """Run one job; ``fault=None`` gives a successful job of the setting."""
    return Job(setting, shape, rng, fault).run(shape.lines_per_stream)
