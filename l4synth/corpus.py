"""Plan and generate a labeled corpus: settings, cases, normal jobs, and the demo job.

The plan is a pure function of ``(seed, preset, cases)``: it draws the settings, assigns
every case a fault type (cycling through the whole catalogue so every type and
subcategory appears) and a compatible setting, and decides which settings get normal
jobs. Each job is then generated from its own ``random.Random`` seeded with a string
(string seeds hash with SHA-512, so results do not depend on PYTHONHASHSEED), which
makes jobs independent and lets them run in any order, in any process.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, replace
from pathlib import Path

from l4synth import catalogue, layout, restarts, stacks, style
from l4synth.catalogue import FaultType
from l4synth.job import Shape, simulate
from l4synth.restarts import Restarts
from l4synth.stacks import Setting

MANIFEST = "synth.json"
GENERATOR = "l4-synth/1"
PRESETS = ("default", "small")
# stacks.LAYOUTS: node, rank_dirs, rank_flat, console, node_prefixed, excerpt. Pasted excerpts are
# most real reports (benchmarks/real: 142 of 181 cases are under 200 lines), per-node files with
# rank prefixes and restarted jobs the real layouts that broke l4 (issue 10).
LAYOUT_WEIGHTS = (0.3, 0.1, 0.08, 0.12, 0.15, 0.25)
RESTART_SHARE = 0.2  # cases (not excerpts) whose log holds two or three attempts


@dataclass(frozen=True)
class CaseTask:
    kind: str  # case | normal
    dir: str  # relative to the dataset root
    setting: Setting
    fault_id: str | None
    shape: Shape
    seed: str
    restarts: Restarts | None = None

    @property
    def layout_name(self) -> str:
        """The case's layout as the corpus manifest names it (``node+restarts``)."""
        return self.setting.layout + (f"+restarts-{self.restarts.mode}" if self.restarts else "")


# --------------------------------------------------------------------- planning


def _setting(rng: random.Random, stack: str, framework: str, small: bool, layout: str | None) -> Setting:
    model = rng.choice(list(stacks.MODELS))
    cuda = stack == "cuda"
    if layout is None:
        layout = rng.choices(stacks.LAYOUTS, LAYOUT_WEIGHTS)[0]
    host_files = layout in stacks.HOST_FILE_LAYOUTS
    per_host = 8 if host_files or layout == "console" else rng.choice((4, 8))
    if layout == "console":
        per_host = rng.choice((4, 8))
    if small:
        per_host = 4 if layout == "console" else (8 if host_files else 2)
    versions = {
        "python": rng.choice(("3.10.12", "3.10.14", "3.11.9")),
        "torch": rng.choice(("2.1.0", "2.3.1", "2.4.0")) if cuda else rng.choice(("2.1.0", "2.4.0")),
        "cuda": rng.choice(("12.1", "12.4")), "cudnn": "8.9.7", "driver": rng.choice(("535.161.08", "550.54.15"))
        if cuda else rng.choice(("23.0.3", "24.1.rc2")), "driver_num": rng.choice(("12020", "12040")),
        "nccl": rng.choice(("2.18.6", "2.20.5", "2.21.5")), "torch_npu": rng.choice(("2.1.0.post8", "2.4.0")),
        "cann": rng.choice(("8.0.RC2", "8.0.0", "7.0.0")), "firmware": "7.3.0.1.231", "deepspeed": "0.14.4",
    }
    tp = rng.choice((1, 2, 4, 8))
    pp = rng.choice((1, 2, 4))
    name = f"{model}-{framework}-{stack}"
    s = Setting(
        name=name, model=model, framework=framework, stack=stack,
        app_style=rng.choice(style.APP_STYLES), launcher_style=rng.choice(style.LAUNCHER_STYLES),
        kernel_style=rng.choice(style.KERNEL_STYLES), host_scheme=rng.choice(("worker", "node", "gpu", "ip")),
        layout=layout, console_prefix=rng.choice(("default", "rank", "srun")), per_host=per_host,
        log_interval=rng.choice((1, 1, 10, 10, 50)) if not small else rng.choice((1, 10)),
        save_interval=rng.choice((500, 1000, 2000)), eval_interval=rng.choice((1000, 2000, 5000)),
        iter_ms=rng.uniform(1500, 14000), tp=tp, pp=pp, seq_len=rng.choice((2048, 4096, 8192)),
        gbs=rng.choice((256, 512, 1024, 2048)), watchdog_ms=rng.choice((600000, 1800000)) if cuda else 1800000,
        versions=tuple(sorted(versions.items())), iter_print_all=rng.random() < 0.6, pip_noise=rng.random() < 0.5,
        base_time=1714500000 + rng.randrange(0, 200 * 86400),
        # A paste comes as often as not from loggers that print no time: Python's default logging
        # format ("INFO:torch.distributed.elastic...", shun-zheng/Doc2EDAG#24), `dmesg -t`.
        stamps=rng.random() < 0.4 if layout == "excerpt" else True,
    )
    return s if s.stamps else replace(s, app_style="bare", launcher_style="bare")


def _compatible(fault: FaultType, s: Setting) -> bool:
    if s.stack not in fault.stacks or (fault.frameworks and s.framework not in fault.frameworks):
        return False
    if s.layout == "console":  # one host: no kernel log, no whole-host or silent faults
        return not fault.kernel_only_evidence and fault.scope != "host" and fault.outcome != "silent"
    return True


def _shape(rng: random.Random, s: Setting, small: bool) -> Shape:
    offset = rng.uniform(3600, 40 * 86400)
    if small:
        hosts = 4 if s.host_files else 2
        return Shape(hosts=hosts, lines_per_stream=rng.randint(700, 1300), seed_offset=offset, max_lines=1900)
    files = rng.choices((rng.randint(4, 7), rng.randint(8, 16), rng.choice((24, 32)), rng.choice((48, 64))),
                        (0.22, 0.62, 0.09, 0.07))[0]
    per_file = 1 if s.host_files else s.per_host
    hosts = max(2, files // per_file) if s.layout != "console" else 1
    lines = int(min(45000, max(1200, rng.lognormvariate(8.45, 0.65))))
    if s.layout == "console":  # one file holds every rank
        lines = min(lines, 8000)
    if s.layout == "excerpt":  # only a few dozen lines of one node are kept
        hosts, lines = min(hosts, 8), min(lines, 2500)
    if hosts * (s.per_host if s.host_files else 1) >= 32 or (not s.host_files and hosts * per_file >= 32):
        lines = min(lines, 6000)
    return Shape(hosts=hosts, lines_per_stream=lines, seed_offset=offset)


def _restarts(rng: random.Random, fault: FaultType, s: Setting, small: bool) -> Restarts | None:
    """Whether a case's log holds several attempts (a restarting agent or a requeued script)."""
    if s.layout == "excerpt" or rng.random() >= (0.35 if small else RESTART_SHARE):
        return None
    mode = "requeue" if fault.subcategory == "scheduling" else rng.choice(restarts.MODES)
    if not restarts.compatible(fault, mode):
        return None
    recur = mode == "agent" or rng.random() < 0.5
    return Restarts(attempts=rng.choice((2, 2, 3)), mode=mode, recur=recur)


def _apportion(n: int, rng: random.Random) -> list[str]:
    """``n`` setting layouts in the proportions of LAYOUT_WEIGHTS (largest remainders), shuffled:
    every layout appears in a corpus of a few dozen settings, whatever the seed."""
    quotas = [w * n / sum(LAYOUT_WEIGHTS) for w in LAYOUT_WEIGHTS]
    counts = [int(q) for q in quotas]
    for i in sorted(range(len(quotas)), key=lambda i: counts[i] - quotas[i])[: n - sum(counts)]:
        counts[i] += 1
    out = [lay for lay, k in zip(stacks.LAYOUTS, counts, strict=True) for _ in range(k)]
    rng.shuffle(out)
    return out


def plan(cases: int, seed: int, preset: str) -> list[CaseTask]:
    """Every job of the corpus, in a stable order."""
    if preset not in PRESETS:
        raise ValueError(f"unknown preset {preset!r}; expected one of {', '.join(PRESETS)}")
    small = preset == "small"
    rng = random.Random(f"l4-synth:{seed}:{preset}:{cases}:plan")
    settings: list[Setting] = []
    layouts_small = ("node", "console", "excerpt", "rank_dirs", "node_prefixed", "rank_flat")
    combos = [(st, fw) for st in ("cuda", "ascend") for fw in stacks.FRAMEWORKS[st]]
    n_settings = max(len(combos), cases // 4) if not small else len(combos)
    drawn = _apportion(n_settings, rng)
    for i in range(n_settings):
        stack, fw = combos[i] if i < len(combos) else rng.choice(combos)
        lay = layouts_small[i % len(layouts_small)] if small else drawn[i]
        s = _setting(rng, stack, fw, small, lay)
        taken = {x.name for x in settings}
        k = 2
        while s.name in taken:
            s = replace(s, name=f"{s.model}-{fw}-{stack}-{k}")
            k += 1
        settings.append(s)
    faults = list(catalogue.FAULTS)
    rng.shuffle(faults)
    if small:  # round-robin over subcategories so a few cases still cover the taxonomy
        groups: dict[str, list[FaultType]] = {}
        for f in faults:
            groups.setdefault(f.subcategory, []).append(f)
        faults = [g[k] for k in range(max(map(len, groups.values()))) for g in groups.values() if k < len(g)]
    used = {s.name: 0 for s in settings}
    tasks: list[CaseTask] = []
    case_settings: list[Setting] = []
    for i in range(cases):
        fault = faults[i % len(faults)]
        options = [s for s in settings if _compatible(fault, s)]
        if not options:
            fault = next(f for f in faults if any(_compatible(f, s) for s in settings))
            options = [s for s in settings if _compatible(fault, s)]
        least = min(used[s.name] for s in options)
        s = rng.choice([s for s in options if used[s.name] == least])
        used[s.name] += 1
        case_settings.append(s)
        shape = _shape(rng, s, small)
        tasks.append(CaseTask("case", f"cases/c{i + 1:04d}", s, fault.id, shape, f"{seed}:{preset}:case:{i}",
                              _restarts(rng, fault, s, small)))
    # About 15% of cases belong to settings that have no successful jobs to compare with.
    order = [s for s in settings if used[s.name]]
    rng.shuffle(order)
    without: set[str] = set()
    budget = round(0.15 * cases)
    for s in order:
        if 0 < used[s.name] <= budget - sum(used[n] for n in without) and len(without) < len(order) - 1:
            without.add(s.name)
    for s in settings:
        if not used[s.name] or s.name in without:
            continue
        for j in range(rng.choice((2, 2, 3))):
            tasks.append(CaseTask("normal", f"normal/{s.name}/n{j + 1:02d}", s, None, _shape(rng, s, small),
                                  f"{seed}:{preset}:normal:{s.name}:{j}"))
    return tasks


# ------------------------------------------------------------------- generation


def run_task(root: str, task: CaseTask) -> tuple[str, int]:
    """Generate one job (case or normal) under ``root``; returns its dir and line count."""
    rng = random.Random(task.seed)
    fault = catalogue.BY_ID[task.fault_id] if task.fault_id else None
    if task.restarts is not None and fault is not None:
        result = restarts.simulate(task.setting, task.shape, rng, fault, task.restarts)
    else:
        result = simulate(task.setting, task.shape, rng, fault)
    job_dir = Path(root) / task.dir
    written = layout.write_job(job_dir / "logs", task.setting, result, random.Random(task.seed + ":layout"))
    if fault is not None:
        missing = [eid for eid in fault.event_ids().values() if eid not in written.events]
        if missing and (task.setting.layout != "excerpt" or len(missing) == len(fault.event_ids())):
            raise RuntimeError(f"{task.dir}: fault {fault.id} produced no lines for {missing}")
        layout.write_label(job_dir, layout.build_label(task.setting, fault, result, written))
    lines = sum(len(st.lines) for st in result.streams) + (len(result.console.lines) if result.console else 0)
    return task.dir, lines


def generate(out_dir: Path, cases: int, seed: int, preset: str, workers: int | None,
             progress: Callable[[int, int], None] | None) -> None:
    out_dir = Path(out_dir)
    if out_dir.exists() and any(out_dir.iterdir()):
        raise ValueError(f"{out_dir} exists and is not empty; choose a new directory or remove it first")
    if cases < 1:
        raise ValueError("cases must be at least 1")
    tasks = plan(cases, seed, preset)
    out_dir.mkdir(parents=True, exist_ok=True)
    # Largest jobs first so the pool's tail is short.
    order = sorted(tasks, key=lambda t: -t.shape.hosts * t.shape.lines_per_stream)
    n_workers = workers or os.cpu_count() or 1
    done = 0
    if n_workers <= 1 or len(tasks) <= 2:
        for task in order:
            run_task(str(out_dir), task)
            done += 1
            if progress:
                progress(done, len(tasks))
    else:
        with ProcessPoolExecutor(max_workers=n_workers) as pool:
            futures = [pool.submit(run_task, str(out_dir), t) for t in order]
            for fut in as_completed(futures):
                fut.result()
                done += 1
                if progress:
                    progress(done, len(tasks))
    manifest = {"generator": GENERATOR, "seed": seed, "preset": preset, "cases": cases,
                "layouts": {t.dir.removeprefix("cases/"): t.layout_name for t in tasks if t.kind == "case"}}
    (out_dir / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")


def regenerate_into(dataset: Path, job_rel: str, dest: Path) -> bool:
    """Re-create one job of a corpus from its manifest into ``dest``; False if there is no manifest."""
    path = Path(dataset) / MANIFEST
    if not path.is_file():
        return False
    m = json.loads(path.read_text(encoding="utf-8"))
    task = next(t for t in plan(int(m["cases"]), int(m["seed"]), str(m["preset"])) if t.dir == job_rel)
    run_task(str(dest), task)
    return True


# ------------------------------------------------------------------------- demo


def demo(dest: Path, seed: int) -> tuple[Path, list[Path], str]:
    rng = random.Random(f"l4-synth-demo:{seed}")
    s = _setting(rng, "cuda", "megatron", small=False, layout="node")
    s = replace(s, name=f"{s.model}-megatron-cuda", log_interval=10, iter_print_all=False)
    fault = catalogue.BY_ID[rng.choice(("xid79-fallen-off-bus", "nccl-ib-completion-error", "xid48-double-bit-ecc"))]
    dest = Path(dest)
    case = CaseTask("case", "cases/c0001", s, fault.id, Shape(8, 3000, rng.uniform(3600, 86400 * 3)), f"demo:{seed}:case")
    normals = [CaseTask("normal", f"normal/{s.name}/n{j + 1:02d}", s, None,
                        Shape(rng.choice((6, 8, 10)), rng.randint(2200, 3200), rng.uniform(3600, 86400 * 9)),
                        f"demo:{seed}:normal:{j}") for j in range(2)]
    for task in (case, *normals):
        run_task(str(dest), task)
    return dest / case.dir / "logs", [dest / t.dir / "logs" for t in normals], s.name


def sized(dest: Path, hosts: int, lines: int, fault_id: str, seed: int) -> Path:
    """One failed job of the demo's setting with ``hosts`` node files of about ``lines`` lines
    each (for size and speed measurements at scale); returns its logs folder."""
    rng = random.Random(f"l4-synth-sized:{seed}")
    s = _setting(rng, "cuda", "megatron", small=False, layout="node")
    s = replace(s, name=f"{s.model}-megatron-cuda", log_interval=10)
    task = CaseTask("case", "cases/c0001", s, catalogue.BY_ID[fault_id].id, Shape(hosts, lines, rng.uniform(3600, 86400)),
                    f"sized:{seed}:{hosts}:{lines}")
    run_task(str(dest), task)
    return Path(dest) / task.dir / "logs"
