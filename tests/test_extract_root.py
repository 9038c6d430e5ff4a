"""Where the root is chosen (``agent.extract.root``), as a table of tiny jobs.

Each case is four nodes training in lock-step for 20 iterations, plus the lines of one
failure. The expected root is the earliest strong event that is not a consequence; the
last tests show how one ``Weights`` field moves the choice, which is how to tune it.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from agent.extract import Weights, extract
from agent.extract.events import EventCandidate
from agent.extract.root import episode, scope_of, select
from agent.extract.table import EventStats, EventTable, NodeEventStats
from agent.mining import MinedJob, mine_job

NODES = [f"node-{n}" for n in range(4)]
PROGRESS = [f"2024-10-02 10:00:{s:02d} INFO iteration {s}/ 100 | loss 2.5 | lr 1e-4" for s in range(1, 21)]
WATCHDOG = "2024-10-02 10:05:00 ERROR Watchdog caught collective operation timeout on rank 1"


def mine(tmp_path: Path, extra: dict[str, list[str]], everywhere: tuple[str, ...] = ()) -> MinedJob:
    logs = tmp_path / "logs"
    logs.mkdir()
    for node in NODES:
        lines = [*PROGRESS, *extra.get(node, []), *everywhere]
        (logs / f"{node}.log").write_text("\n".join(lines) + "\n")
    return mine_job(logs, workers=1)


SURFACING = {
    "node-2": [
        "2024-10-02 10:00:25 WARNING device 3 HBM page retire failed, count 12",  # too weak to be eligible
        "RuntimeError: ACL stream synchronize failed, error code is 507011",  # unstamped: printed the same second
    ]
}

CASES = [
    pytest.param(
        {"node-2": ["2024-10-02 10:00:30 ERROR CUDA error: an illegal memory access was encountered"]},
        (WATCHDOG,),
        "illegal memory access",
        ["node-2"],
        id="a node's error before every rank's watchdog timeout",
    ),
    pytest.param(
        {"node-3": ["2024-10-02 10:00:21 slurmstepd: error: *** STEP 12.0 CANCELLED DUE TO PREEMPTION ***"],
         "node-0": ["2024-10-02 10:00:52 ERROR RuntimeError: NCCL communicator was aborted on rank 0"]},
        ("2024-10-02 10:00:50 ERROR Watchdog caught collective operation timeout on rank 1",),
        "CANCELLED DUE TO PREEMPTION",
        ["node-3"],
        id="a scheduler stopping one node first is the cause, not teardown",
    ),
    pytest.param(
        {},
        ("2024-10-02 10:00:30 ERROR worker process failed (exitcode: -9) ChildFailedError",),
        "ChildFailedError",
        ["node-0", "node-1", "node-2", "node-3"],
        id="only teardown left: it is the evidence",
    ),
    pytest.param(
        SURFACING,
        (),
        "HBM page retire",
        ["node-2"],
        id="an exception surfaces the weaker line printed just before it",
    ),
    pytest.param(
        # pytorch/pytorch#146118: NCCL narrates a missing network plugin at INFO on healthy starts.
        {"node-2": ["2024-10-02 10:00:25 NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open "
                    "shared object file: No such file or directory : when loading libnccl-net.so",
                    "RuntimeError: The NVIDIA driver on your system is too old (found version 11040)."]},
        (),
        "driver on your system is too old",
        ["node-2"],
        id="an exception does not surface a line the library logged at INFO",
    ),
]


@pytest.mark.parametrize(("extra", "everywhere", "root_text", "root_nodes"), CASES)
def test_the_root_is_the_earliest_strong_non_consequence(
    tmp_path: Path, extra: dict[str, list[str]], everywhere: tuple[str, ...], root_text: str, root_nodes: list[str]
) -> None:
    ex = extract(mine(tmp_path, extra, everywhere))
    root = ex.events[0]
    assert root.role == "root"
    assert root_text in root.template
    assert root.nodes == root_nodes
    assert root.reasons[0] == "earliest novel event of the failure episode"


def test_a_job_without_novel_events_has_no_root(tmp_path: Path) -> None:
    ex = extract(mine(tmp_path, {}))
    assert ex.events == []
    assert ex.scope == "unknown"


# ---- one weight at a time: how to change where the root lands

WARNING_THEN_ERROR = {
    "node-2": [
        "2024-10-02 10:00:22 WARNING NCCL link flapping detected on port mlx5_1",  # scores 0.48 (says nothing failed)
        "2024-10-02 10:00:26 ERROR CUDA error: an illegal memory access was encountered",  # scores 1.2
    ]
}


@pytest.mark.parametrize(
    ("weights", "root_text"),
    [
        (Weights(), "illegal memory access"),  # 0.48 < root_min_score 0.7: the warning cannot be the root
        # now it can, and it came first (when it is also within root_best_share of the strongest)
        (dataclasses.replace(Weights(), root_min_score=0.45, root_best_share=0.4), "link flapping"),
        # 0.48 is less than half of the error's 1.2: still not the first sign
        (dataclasses.replace(Weights(), root_min_score=0.45), "illegal memory access"),
    ],
)
def test_root_min_score_decides_whether_an_earlier_warning_is_the_root(
    tmp_path: Path, weights: Weights, root_text: str
) -> None:
    ex = extract(mine(tmp_path, WARNING_THEN_ERROR, (WATCHDOG,)), weights=weights)
    assert root_text in ex.events[0].template


TIMEOUT_THEN_ERROR = {
    "node-1": ["2024-10-02 10:00:22 ERROR connect to peer 10.0.0.3 timed out after 30 seconds"],
    "node-2": ["2024-10-02 10:02:02 ERROR CUDA error: an illegal memory access was encountered"],  # 100 s later
}


@pytest.mark.parametrize(
    ("wait_lead", "root_text", "first_node"),
    [(120.0, "illegal memory access", "node-2"), (60.0, "timed out", "node-1")],
)
def test_a_timeout_long_enough_before_the_error_is_the_first_sign(
    tmp_path: Path, wait_lead: float, root_text: str, first_node: str
) -> None:
    ex = extract(mine(tmp_path, TIMEOUT_THEN_ERROR), weights=Weights(wait_lead_seconds=wait_lead))
    assert root_text in ex.events[0].template
    assert ex.nodes[0].node == first_node


def test_surfacing_seconds_bounds_how_far_back_an_exception_looks(tmp_path: Path) -> None:
    # Only the exception is strong enough to be a root; the warning above it is what it surfaces.
    only_exception = Weights(root_min_score=1.0)
    assert "HBM page retire" in extract(mine(tmp_path, SURFACING), weights=only_exception).events[0].template
    (tmp_path / "again").mkdir()
    ex = extract(mine(tmp_path / "again", SURFACING), weights=dataclasses.replace(only_exception, surfacing_seconds=-1.0))
    assert ex.events[0].template.startswith("RuntimeError")


def test_a_task_that_exited_before_the_time_limit_is_the_cause_not_the_limit(tmp_path: Path) -> None:
    # Real shape (mlcommons/training_results_v4.0, SMC BERT log): rank 0 fails its CPU
    # binding and exits; the other ranks wait until Slurm's time limit cancels the step.
    logs = tmp_path / "logs"
    logs.mkdir()
    lines = [f"{r}: num_gpus=8 num_sockets = 2 num_nodes=2 cores_per_socket=32" for r in range(4)]
    lines += ["0: libnuma: Warning: cpu argument 64-71 is out of range", "0: numactl could not bind the process: invalid cpu list",
              "srun: error: 292KF14: task 0: Exited with exit code 1"]
    lines += [f"{r}: :::MLLOG init_start" for r in range(1, 4)]
    lines += ["0: slurmstepd: error: *** STEP 2545.7 ON 292KF14 CANCELLED AT 2024-04-19T14:08:52 DUE TO TIME LIMIT ***",
              "srun: error: 292KF14: tasks 1-3: Terminated"]
    (logs / "slurm-2545.out").write_text("\n".join(lines) + "\n")
    ex = extract(mine_job(logs, workers=1))
    assert "could not bind" in ex.events[0].template
    assert "a task exited with an error before the scheduler stopped the job" in ex.events[0].reasons
    # Without the early exit the limit is the root, as before.
    (logs / "slurm-2545.out").write_text("\n".join(line for line in lines if "Exited" not in line) + "\n")
    assert "TIME LIMIT" in extract(mine_job(logs, workers=1)).events[0].template


def test_without_times_a_warning_far_above_the_crash_is_startup_noise(tmp_path: Path) -> None:
    # Real shape (gtseligas/lcn-llama train.err): a start-up warning, a long run of output,
    # then the traceback of a CUDA OOM; no line carries a time.
    logs = tmp_path / "logs"
    logs.mkdir()
    rows = ["WARNING:accelerate.utils.other:Detected kernel version 4.18.0, which is below the recommended minimum of 5.5.0; "
            "this can cause the process to hang. It is recommended to upgrade the kernel to the minimum version or higher."]
    rows += [f"  {i}%|          | {i}/1000 [00:{i:02d}<?, ?it/s]" for i in range(80)]
    rows += ["Traceback (most recent call last):", '  File "train.py", line 12, in <module>',
             "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 512.00 MiB. GPU 0 has a total capacity of 63.42 GiB"]
    (logs / "train.err.log").write_text("\n".join(rows) + "\n")
    assert extract(mine_job(logs, workers=1)).events[0].template.startswith("torch.OutOfMemoryError")
    # Close above the crash, the warning stays the first sign.
    (logs / "train.err.log").write_text("\n".join([rows[0], *rows[-3:]]) + "\n")
    assert extract(mine_job(logs, workers=1)).events[0].template.startswith("WARNING")


def test_an_error_the_program_carried_on_after_is_not_what_ended_the_job(tmp_path: Path) -> None:
    # Real shape (vyjur/master-project output.err of Slurm job 21171137): a wandb sweep trial
    # dies of a CUDA OOM, the agent relays its traceback, starts the next trial and prints its
    # config; then Slurm kills the job for host memory.
    logs = tmp_path / "logs"
    logs.mkdir()
    oom = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 768.00 MiB. GPU 0 has a total capacity of "
           "31.73 GiB of which 618.19 MiB is free.")
    trial = ["Traceback (most recent call last):", '  File "/home/u/proj/src/model/bert.py", line 220, in train', oom,
             "Run unxsy0hh errored:", "wandb: ERROR Traceback (most recent call last):",
             'wandb: ERROR   File "/home/u/proj/src/model/bert.py", line 220, in train', f"wandb: ERROR {oom}"]
    config = ["wandb: Agent Starting Run: em3qtl1s with config:",
              *(f"wandb: \t{k}: {v}" for k, v in [("batch_size", 128), ("embedding_dim", 64), ("epochs", 100),
                                                  ("learning_rate", 0.001), ("max_length", 64), ("optimizer", "adam"),
                                                  ("stride", 60), ("weight_decay", 0.001), ("valid_batch_size", 16)]),
              "wandb: Tracking run with wandb version 0.19.1", "wandb: Syncing run deep-sweep-6"]
    killed = ["/var/slurm_spool/job21171137/slurm_script: line 22: 1687899 Killed    poetry run python ./main.py",
              "slurmstepd: error: Detected 1 oom_kill event in StepId=21171137.batch. Some of the step tasks have been OOM Killed."]
    (logs / "output.err.log").write_text("\n".join([*trial, *config, *killed]) + "\n")
    assert "Killed" in extract(mine_job(logs, workers=1)).events[0].template
    # The same error again after the next trial started is the failure repeating: it stays the root.
    (logs / "output.err.log").write_text("\n".join([*trial, *config, *trial, "wandb: ERROR Detected 5 failed runs in a row "
                                                    "at start, killing sweep."]) + "\n")
    assert extract(mine_job(logs, workers=1)).events[0].template.startswith("torch.OutOfMemoryError")


def test_an_exception_does_not_surface_a_note_that_reports_no_failure(tmp_path: Path) -> None:
    # hutuxian/RSPNet log/workerlog.0: Paddle's device note, then the data error's traceback.
    logs = tmp_path / "logs"
    logs.mkdir()
    rows = ["W0304 13:21:27.447440 38931 device_context.cc:362] Please NOTE: device: 0, GPU Compute Capability: 7.0, "
            "Driver API Version: 11.0, Runtime API Version: 10.1",
            "Traceback (most recent call last):", '  File "train.py", line 92, in <module>',
            "Exception: No video found in data/kinetics100/train_video"]
    (logs / "workerlog.0.log").write_text("\n".join(rows) + "\n")
    assert extract(mine_job(logs, workers=1)).events[0].template.startswith("Exception: No video found")


# ninamiolane/vaetree run.err (LSF job 488574): Ray Tune logs a header above the trial's traceback,
# after 40 quiet minutes of trials that print nothing.
RAY_TUNE = [
    "2019-10-31 13:53:53,561\tINFO resource_spec.py:205 -- Starting Ray with 153.27 GiB memory available for workers",
    "2019-10-31 13:53:55,200\tWARNING logger.py:343 -- Could not instantiate tf2_compat_logger: No module named 'tensorflow'.",
    "2019-10-31 14:34:49,149\tERROR trial_runner.py:569 -- Error processing event.",
    "Traceback (most recent call last):",
    '  File "/usr/local/lib/python3.5/dist-packages/ray/worker.py", line 2121, in get',
    "    raise value.as_instanceof_cause()",
    "ray.exceptions.RayTaskError(RuntimeError): \x1b[36mray_Train:train()\x1b[39m (pid=8861, host=cryoem-gpu50)",
    '  File "ray_pipeline.py", line 330, in _test',
    "    recon_batch, mu, logvar = self.modules['encoder'](batch_data)",
    "RuntimeError: Expected 4-dimensional input for 4-dimensional weight [64, 1, 4, 4], but got 3-dimensional input of "
    "size [8, 128, 128] instead",
    "Traceback (most recent call last):",
    '  File "ray_pipeline.py", line 685, in <module>',
    '    raise TuneError("Trials did not complete", errored_trials)',
    "ray.tune.error.TuneError: ('Trials did not complete', [Train_0])",
]


def test_a_logged_header_gives_way_to_the_exception_its_traceback_ends_in(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "run.err.log").write_text("\n".join(RAY_TUNE) + "\n")
    extraction = extract(mine_job(logs, workers=1))
    # Not the warning before the quiet trials (a silence ended by a crash is no hang), not the
    # header, not the driver's summary: the trial's own exception.
    assert extraction.events[0].template.startswith("RuntimeError: Expected <NUM>-dimensional input")
    assert not extraction.timeline.hang


def test_a_bare_assertion_error_brings_its_assert_statement(tmp_path: Path) -> None:
    # aws-samples/awsome-distributed-training (Megatron GPT-3 README): eval-iters 0 trips a sample-count assert.
    logs = tmp_path / "logs"
    logs.mkdir()
    rows = ["Traceback (most recent call last):",
            '  File "/workspace/Megatron-LM/megatron/data/gpt_dataset.py", line 182, in _build_index_mappings',
            "    assert num_samples > 0", "AssertionError"]
    (logs / "console.log").write_text("\n".join(rows) + "\n")
    events = extract(mine_job(logs, workers=1)).events
    assert events[0].template == "AssertionError"
    assert any(e.template.strip().startswith("assert num_samples") for e in events[1:])


# ---- purity: selection returns new candidates and a new timeline


def _stats(tid: int, node: str, ts: float, pos: int) -> EventStats:
    stats = EventStats(tid, f"event number {tid} failed badly", max_level=4)
    stats.per_node[node] = NodeEventStats(1, pos, pos, ts, ts)
    return stats


def test_select_leaves_its_candidates_unchanged() -> None:
    table = EventTable(
        {1: _stats(1, "n0", 10.0, 5), 2: _stats(2, "n0", 11.0, 6)}, ["n0", "n1"], {}, {"n0": 0.0, "n1": 0.0},
        {"n0": 20.0, "n1": 20.0},
    )
    scored = [
        EventCandidate(1, table.events[1].template, 1.2, ["novel"], ["n0"], 10.0, "candidate", "candidate"),
        EventCandidate(2, table.events[2].template, 1.2, ["novel"], ["n0"], 11.0, "candidate", "candidate"),
    ]
    before = [dataclasses.replace(e, reasons=list(e.reasons)) for e in scored]
    # select reads a job's raw samples (to tell Python exceptions apart), line numbers (line order in a
    # file) and what the lines after the root say (whether the program carried on)
    mined = SimpleNamespace(nodes={"n0": SimpleNamespace(samples={1: ["event one"], 2: ["event two"]},
                                                         source=Path("n0.log"), lineno=np.arange(1, 8),
                                                         template=np.array([0, 0, 0, 0, 0, 1, 2]),
                                                         stamped=np.ones(7, dtype=bool), level=np.zeros(7, dtype=np.int8))},
                            miner=SimpleNamespace(template=lambda tid: "step <NUM>" if tid == 0 else table.events[tid].template),
                            derived={})
    chosen = select(scored, mined, table)  # type: ignore[arg-type]
    assert [(e.tid, e.role) for e in chosen.events] == [(1, "root"), (2, "companion")]
    assert scored == before  # roles and reasons of the inputs did not change
    assert [e.role for e in chosen.scored] == ["root", "companion"]


def test_episode_returns_a_new_timeline_with_the_onset(tmp_path: Path) -> None:
    ex = extract(mine(tmp_path, {"node-2": ["2024-10-02 10:00:30 ERROR CUDA error: an illegal memory access"]}))
    stale = dataclasses.replace(ex.timeline, onset_ts=0.0)
    fresh = episode(ex.mined, ex.table, stale, set(), [])  # type: ignore[arg-type]
    assert stale.onset_ts == 0.0
    assert fresh.onset_ts == stale.last_progress_ts  # in training, the failure begins when progress stops


@pytest.mark.parametrize(("printers", "scope"), [(["n0"], "node_local"), (["n0", "n1", "n2"], "global"), ([], "unknown")])
def test_scope_is_how_far_the_root_spread(printers: list[str], scope: str) -> None:
    stats = EventStats(7, "x")
    for i, node in enumerate(printers):
        stats.per_node[node] = NodeEventStats(1, i, i, 1.0, 1.0)
    assert scope_of(stats if printers else None, 4) == scope


def test_a_header_every_peer_prints_half_an_hour_later_does_not_take_the_faulty_nodes_root(tmp_path: Path) -> None:
    """torch_npu heads each rank's failure with one "[ERROR] ... ERRnnnnn <module> call <api> api
    failed" line and the RuntimeError under it. The faulty node's "ERR00100 PTA call acl api failed" and its peers' "ERR02200
    DIST call hccl api failed." 30 minutes later are one template; moving the root a line up to
    it handed the root to the peers' cascade, and the HBM ECC error under it was lost (a blind
    author's MindSpeed job; the header's format: hiyouga/LlamaFactory#3839)."""
    own = [
        "[ERROR] 2024-10-02-10:00:21 (PID:143185, Device:3, RankID:19) ERR00100 PTA call acl api failed",
        "[rank19]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU "
        "function error: AclrtSynchronizeDeviceWithTimeout, error code is 507054",
        "EZ9999: Inner Error!",
        "EZ9999: [PID: 143185] 2024-10-02-10:00:21.384.744 The error from device(chipId:3, dieId:0), serial number "
        "is 9, hbm Multi-bit ECC error occurred during task execution, stream_id:44, sq_id:33, task_id:16026",
        "        rtStreamSynchronizeWithTimeout execute failed, reason=[hbm Multi-bit ECC error]",
    ]
    peers = [
        "[ERROR] 2024-10-02-10:30:21 (PID:17499, Device:2, RankID:18) ERR02200 DIST call hccl api failed.",
        "[rank18]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU "
        "function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048",
        "EI0002: [PID: 17499] 2024-10-02-10:30:21.882.501 The wait execution of the Notify register times out. "
        "Reason: The Notify register has not received the Notify record from remote rank: [19].",
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    for n in range(8):  # enough peers that the header's job-wide time is theirs, not the faulty node's
        (logs / f"node-{n}.log").write_text("\n".join([*PROGRESS, *(own if n == 2 else peers)]) + "\n")
    extraction = extract(mine_job(logs, workers=1), weights=Weights(root_best_share=0.0))
    assert "Multi-bit ECC" in extraction.events[0].template
    assert extraction.nodes[0].node == "node-2"


def test_a_silence_ended_by_a_timeout_is_a_hang_even_with_exceptions_around_it(tmp_path: Path) -> None:
    """Before training, one rank runs out of memory and its peers wait 20 minutes, then print
    the HCCL timeout and the RuntimeError that wraps it together. The silence was a hang, and
    the error before it is the root (read as a crash after quiet work, the episode began at the
    timeouts and the out-of-memory error fell before it; a blind author's MindSpore job)."""
    logs = tmp_path / "logs"
    logs.mkdir()
    start = [f"2024-03-30 09:53:{s:02d},596 - mindformers - INFO - config option {chr(97 + s)} applied" for s in range(20)]
    for n in range(4):
        lines = [*start]
        if n == 0:
            lines.append("[ERROR] ME(121547:281473001580111,MainProcess):2024-03-30-10:06:06.720.011 "
                         "[mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1297] Device(id:0) memory isn't "
                         "enough and alloc failed, kernel name: Default/network-MFPipelineWithLossScaleCell/network")
        else:
            lines += [f"EI0002: [PID: 19170{n}] 2024-03-30-10:26:08.323.751 The wait execution of the Notify register "
                      "times out. Reason: The Notify register has not received the Notify record from remote rank: [0].",
                      "RuntimeError: Sync stream failed:Ascend_0"]
        (logs / f"node-{n}.log").write_text("\n".join(lines) + "\n")
    extraction = extract(mine_job(logs, workers=1))
    assert extraction.timeline.hang
    assert "memory isn't enough" in extraction.events[0].template


def test_a_launcher_warning_that_carries_on_gives_way_to_the_error_below_it(tmp_path: Path) -> None:
    """DeepSpeed's launcher warns on every single-node run that it "will proceed with training with
    local resources only"; nine lines later the interpreter cannot open the training script. The
    warning said itself that the program carried on, so the error after it is the root, even
    without a level or an exception class (matsuolab/nedo_project_code, a 13-line log)."""
    lines = [
        "[2024-03-31 10:17:04,929] [INFO] [real_accelerator.py:161:get_accelerator] Setting ds_accelerator to cuda (auto detect)",
        "[2024-03-31 10:17:11,813] [WARNING] [runner.py:203:fetch_hostfile] Unable to find hostfile, will proceed with "
        "training with local resources only.",
        "Detected CUDA_VISIBLE_DEVICES=0: setting --include=localhost:0",
        "[2024-03-31 10:17:16,369] [INFO] [launch.py:151:main] nnodes=1, num_local_procs=1, node_rank=0",
        "[2024-03-31 10:17:16,370] [INFO] [launch.py:163:main] dist_world_size=1",
        "/home/me/miniconda3/envs/.venv/bin/python: can't open file '/home/me/Megatron-DeepSpeed-MoE/pretrain_gpt.py': "
        "[Errno 2] No such file or directory",
        "[2024-03-31 10:17:17,379] [INFO] [launch.py:315:sigkill_handler] Killing subprocess 12650",
    ]
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "console.log").write_text("\n".join(lines) + "\n")
    extraction = extract(mine_job(logs, workers=1))
    assert "can't open file" in extraction.events[0].template


def test_a_peers_undated_wait_does_not_precede_an_error_it_may_have_come_after(tmp_path: Path) -> None:
    # A peer's HCCL watchdog has no stamp of its own: "ran for 600 s" dates it ten minutes after
    # its file's start-up stamp, but it may be as late as the peer's next stamp, and the faulty
    # node's stale NFS handle came in between (independent corpus F, f13).
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "peer.log").write_text(
        "2024-04-27 10:00:00 INFO HcclCommunicator::Init success\n"
        "[rank13]:[E compiler_depend.ts:1730] [PG 0 Rank 13] Watchdog caught collective operation timeout: "
        "WorkHCCL(SeqNum=8192, OpType=ALLREDUCE, Timeout(ms)=600000) ran for 600562 milliseconds before timing out.\n"
        "2024-04-27 10:50:00 INFO torchrun: Sending process 4242 closing signal SIGTERM\n"
    )
    (logs / "faulty.log").write_text(
        "2024-04-27 10:00:00 INFO HcclCommunicator::Init success\n"
        "2024-04-27 10:20:00 INFO saving checkpoint at iteration 500 to /cache/ckpt\n"
        "OSError: [Errno 116] Stale file handle: '/cache/ckpt/iter_0000500/__0_0.distcp'\n"
    )
    ex = extract(mine_job(logs, workers=1))
    assert "Stale file handle" in ex.events[0].template


def test_a_stop_signal_one_node_received_before_its_peers_undated_errors_is_the_root(tmp_path: Path) -> None:
    # A preempted pod's torchrun agent receives SIGTERM (the line NVIDIA NeMo's preemption docs
    # show); its peers' unstamped NCCL errors follow their last stamped step, and their own
    # agents are stopped in the teardown after it (independent corpus F, f14).
    logs = tmp_path / "logs"
    logs.mkdir()
    step = "[rank{r}]:2024-03-17 03:09:{s:02d},244 - root - INFO - step:  {i}  loss:  1.9441"
    stop = "W0317 03:09:{s:02d}.300057 58487 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM " \
           "death signal, shutting down workers"
    (logs / "master-0.log").write_text("\n".join([*(step.format(r=0, s=s, i=1940 + s) for s in range(9)), stop.format(s=13)]) + "\n")
    for n, name in enumerate(("worker-0", "worker-1")):
        (logs / f"{name}.log").write_text("\n".join([
            *(step.format(r=8 * (n + 1), s=s, i=1940 + s) for s in range(9)),
            f"[rank{8 * (n + 1)}]: torch.distributed.DistBackendError: NCCL error in: "
            "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, remote process exited or there was a network error, "
            "NCCL version 2.21.5",
            stop.format(s=48),
        ]) + "\n")
    ex = extract(mine_job(logs, workers=1))
    assert "death signal" in ex.events[0].template
    assert ex.scope == "node_local" and ex.nodes[0].node == "master-0"  # the teardown stopped the workers later


def test_an_undated_stop_signal_does_not_precede_a_dated_error_it_may_have_followed(tmp_path: Path) -> None:
    # A peer's unstamped "Received Signals.SIGTERM death signal" borrows the stamp of the step
    # above it; the faulty node's stamped Xid came before the teardown that stopped the peer
    # (l4 synth's rank files with a kernel line in the faulty rank's log).
    logs = tmp_path / "logs"
    logs.mkdir()
    step = "2024-07-28 13:{m:02d}:00 INFO iteration {i}/ 90000 | lm loss: 2.1"
    (logs / "rank_1.log").write_text("\n".join([
        *(step.format(m=m, i=63000 + m) for m in range(40, 45)),
        "Jul 28 13:45:32 gpu-d11 kernel: NVRM: Xid (PCI:0000:28:00): 95, pid=34828, Uncontained: FBHUB. RST: Yes, D-RST: No",
    ]) + "\n")
    for r in (8, 9, 10):
        (logs / f"rank_{r}.log").write_text("\n".join([
            *(step.format(m=m, i=63000 + m) for m in range(40, 45)),
            *(["WARNING:torch.distributed.elastic.multiprocessing.api:Received Signals.SIGTERM death signal, "
               "shutting down workers"] if r == 8 else []),
            "2024-07-28 13:47:00 INFO exiting",
        ]) + "\n")
    ex = extract(mine_job(logs, workers=1))
    assert "Xid" in ex.events[0].template


def root_events(tmp_path: Path, name: str, lines: list[str]) -> list[EventCandidate]:
    """The root and companions l4 extracts from a one-file job of ``lines`` (rewritten each call)."""
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    (logs / name).write_text("\n".join(lines) + "\n")
    return extract(mine_job(logs, workers=1)).events


def test_a_warning_the_job_trained_past_is_neither_root_nor_companion(tmp_path: Path) -> None:
    # Real shape (HappynessI/verl-for-AgentGym textcraft SFT log): verl warns "Token mismatch detected!"
    # on every batch from start-up on; three steps into the first epoch a DataLoader worker raises,
    # PyTorch re-raises it under "Caught ValueError in DataLoader worker process 3.", and the worker's
    # own message under "Original Traceback" says what failed.
    warn = ("[2025-12-17 08:54:{:02d},675][root][WARNING] - Token mismatch detected! Full tokenization length: 1310, "
            "Concatenated tokens length: 1323. Using concatenated version.")
    lines = [warn.format(s) for s in (46, 46, 47)]
    lines += ["Epoch 1/20:   0%|          | 0/10 [00:00<?, ?it/s]", warn.format(51),
              "Epoch 1/20:  10%|█         | 1/10 [00:09<01:25,  9.50s/it]", warn.format(55),
              "Epoch 1/20:  30%|███       | 3/10 [00:28<01:07,  9.61s/it]",
              "Traceback (most recent call last):",
              '  File "/Data/wyh/verl/verl/trainer/fsdp_sft_trainer.py", line 752, in fit',
              "    for step_in_epoch, data in enumerate(",
              '  File "/home/wyh/miniconda3/envs/verl/lib/python3.12/site-packages/torch/_utils.py", line 769, in reraise',
              "    raise exception",
              "ValueError: Caught ValueError in DataLoader worker process 3.",
              "Original Traceback (most recent call last):",
              '  File "/home/wyh/miniconda3/envs/verl/lib/python3.12/site-packages/torch/utils/data/_utils/fetch.py", '
              "line 52, in fetch",
              "    data = [self.dataset[idx] for idx in possibly_batched_index]",
              '  File "/Data/wyh/verl/verl/utils/dataset/multiturn_sft_dataset.py", line 362, in __getitem__',
              '    raise ValueError(f"{sequence_length=} is larger than {self.max_length=}")',
              "ValueError: sequence_length=5284 is larger than self.max_length=4096"]
    events = root_events(tmp_path, "train.log", lines)
    assert events[0].template.startswith("ValueError: sequence_length=")
    assert not any("Token mismatch" in e.template for e in events)
    # Before any training step, close above the exception, the warning is still the first sign.
    assert "Token mismatch" in root_events(tmp_path, "train.log", [warn.format(46), *lines[-12:]])[0].template


def test_start_up_warnings_the_program_logged_routine_work_after_are_no_companions(tmp_path: Path) -> None:
    # Real shape (QIU023/torchtitan_attention_residual run.log): start-up warnings, the optimizer and
    # trainer INFO lines, then the first step's CUDA OOM nine seconds later.
    lines = ["[titan] 2026-09-28 07:19:50,011 - torchtitan.tools.utils - WARNING - Error running lspci: [Errno 2] No such "
             "file or directory: 'lspci'",
             "[titan] 2026-09-28 07:19:50,131 - torchtitan.components.optimizer.optimizer - INFO - Optimizer DistMuon "
             "(model_part=0): 228 params",
             "[titan] 2026-09-28 07:19:50,135 - torchtitan.trainer - INFO - Peak FLOPS used for computing MFU: 9.890e+14",
             "[titan] 2026-09-28 07:19:50,135 - torchtitan.trainer - INFO - CUDA memory usage for model: 0.07GiB(0.09%)",
             "[titan] 2026-09-28 07:19:50,135 - torchtitan.trainer - INFO - Training starts at step 1",
             "[rank0]: Traceback (most recent call last):",
             '[rank0]:   File "/root/w/main/torchtitan/trainer.py", line 378, in train_step',
             "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 640.00 MiB. GPU 0 has a total "
             "capacity of 79.18 GiB of which 114.62 MiB is free."]
    events = root_events(tmp_path, "run.log", lines)
    assert "OutOfMemoryError" in events[0].template
    assert not any("lspci" in e.template for e in events)


def test_an_exception_the_interpreter_ignored_at_shutdown_is_not_the_later_failure(tmp_path: Path) -> None:
    # Real shape (HappynessI/verl-for-AgentGym textcraft GRPO log): Ray kills workers for host memory,
    # training goes on, then Python reports a finalizer's exception it ignored while shutting down.
    lines = ["(raylet) [2025-12-14 21:55:46,394 E 549447 549447] (raylet) node_manager.cc:3277: 3 Workers (tasks / "
             "actors) killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node"]
    lines += [f"[2025-12-14 21:56:{i:02d},000] INFO step:{i} - actor/loss:0.{i:02d}" for i in range(40)]
    lines += ["Exception ignored in: <function ResourceTracker.__del__ at 0x7fb7cf1f4fe0>",
              "Traceback (most recent call last):",
              '  File "/home/wyh/miniconda3/envs/verl/lib/python3.12/site-packages/multiprocess/resource_tracker.py", '
              "line 80, in __del__",
              "AttributeError: '_thread.RLock' object has no attribute '_recursion_count'"]
    events = root_events(tmp_path, "train.log", lines)
    assert "killed due to memory pressure" in events[0].template


def test_a_report_that_ends_by_saying_the_launch_goes_on_was_survived(tmp_path: Path) -> None:
    # Real lines (sajal-vt/Megatron-DeepSpeed-Summit gpt3-megatron.3314739.e): jsrun's complaint about
    # a missing set-up script spans five lines and only its last says the launch goes on; every
    # rank then fails to import transformers.
    jsrun = ["Error: SMPI environment generator script not found at:",
             "Path : /gpfs/alpine2/stf218/world-shared/sajal/moe-env/bin/alias.pl",
             "Error: No such file or directory",
             "Warning. Failed to setup the Spectrum MPI environment.",
             "Continuing to launch. Beware, the Spectrum MPI environment may not be completely setup."]
    rank = ["Traceback (most recent call last):",
            '  File "/gpfs/alpine2/stf218/world-shared/sajal/Megatron-DeepSpeed/pretrain_gpt.py", line 8, in <module>',
            "    from megatron.training import pretrain",
            "ModuleNotFoundError: No module named 'transformers'"]
    events = root_events(tmp_path, "gpt3-megatron.3314739.e.log", ["", *jsrun, *rank * 6])
    assert events[0].template == "ModuleNotFoundError: No module named 'transformers'"
    assert not any("SMPI" in e.template or "Spectrum" in e.template for e in events)
    # The same complaint without the last line is a report nothing says was survived.
    events = root_events(tmp_path, "gpt3-megatron.3314739.e.log", ["", *jsrun[:4], *rank * 6])
    assert events[0].template.startswith("Error: SMPI environment")
