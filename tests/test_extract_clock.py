"""One clock for the job (``agent.extract.clock``): imputed times come back as new arrays
(the mined job is never changed) and each node's skew is its median offset."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from minedjobs import mine

from agent.extract import Weights, extract
from agent.extract.clock import estimate_skew, impute_times, synchronous_groups, with_times
from agent.extract.progress import progress_templates
from agent.mining import MinedJob


def hms(seconds: float) -> str:
    s = int(seconds)
    return f"2024-10-02 10:{s // 60 % 60:02d}:{s % 60:02d}"


UNSTAMPED = [f"INFO:train.py:214:main:step {s} | loss 2.0 | lr 3.0e-05" for s in range(1, 21)]


def unstamped_job(tmp_path: Path) -> MinedJob:
    """Python's default format: no stamps but a launcher's at the start and a kernel line on n1."""
    return mine(tmp_path, {
        "n0": [f"{hms(0)} launcher started", *UNSTAMPED],
        "n1": [f"{hms(0)} launcher started", *UNSTAMPED[:10], f"{hms(50)} kernel: NVRM: Xid 79", *UNSTAMPED[10:]],
    })


def test_impute_times_returns_new_arrays_and_leaves_the_job_alone(tmp_path: Path) -> None:
    mined = unstamped_job(tmp_path)
    before = {n: log.ts.copy() for n, log in mined.nodes.items()}
    times = impute_times(mined)
    assert sorted(times) == ["n0", "n1"]
    for name, log in mined.nodes.items():
        assert np.array_equal(log.ts, before[name], equal_nan=True)  # untouched
        assert times[name] is not log.ts
    timed = with_times(mined, times)
    assert timed is not mined and timed.nodes["n0"] is not mined.nodes["n0"]
    assert timed.nodes["n0"].template is mined.nodes["n0"].template  # everything else is shared
    steps = progress_templates(timed)
    first = next(iter(steps))
    step_ts = [timed.nodes[n].ts[timed.nodes[n].template == first] for n in ("n0", "n1")]
    assert np.allclose(step_ts[0], step_ts[1])  # iteration k is one moment on every node
    assert np.all(np.diff(step_ts[0]) > 0)


def test_a_stamped_job_needs_no_imputation(tmp_path: Path) -> None:
    mined = mine(tmp_path, {"n0": [f"{hms(s)} INFO step {s} loss 1.0" for s in range(1, 6)]})
    assert impute_times(mined) == {}
    assert with_times(mined, {}) is mined


def test_the_stamped_share_is_a_weight(tmp_path: Path) -> None:
    mined = unstamped_job(tmp_path)
    assert impute_times(mined, Weights(stamped_share=0.0)) == {}


def test_extract_does_not_change_the_callers_job(tmp_path: Path) -> None:
    mined = unstamped_job(tmp_path)
    before = {n: log.ts.copy() for n, log in mined.nodes.items()}
    ex = extract(mined)
    for name, log in mined.nodes.items():
        assert np.array_equal(log.ts, before[name], equal_nan=True)
    assert ex.mined is not None and ex.mined is not mined
    assert not np.array_equal(ex.mined.nodes["n0"].ts, before["n0"], equal_nan=True)


def lockstep(offsets: dict[str, float], steps: int = 10) -> dict[str, list[str]]:
    return {
        node: [f"{hms(10 * s + off)} INFO iteration {s} | loss 1.0 | lr 1e-4" for s in range(1, steps + 1)]
        for node, off in offsets.items()
    }


@pytest.mark.parametrize(
    ("offsets", "expected"),
    [
        ({"n0": 0, "n1": 0, "n2": 0, "n3": 0}, {"n0": 0.0, "n1": 0.0, "n2": 0.0, "n3": 0.0}),
        ({"n0": 0, "n1": 5, "n2": 0, "n3": 0}, {"n0": 0.0, "n1": 5.0, "n2": 0.0, "n3": 0.0}),
        ({"n0": 0, "n1": 4, "n2": 4, "n3": 4}, {"n0": -4.0, "n1": 0.0, "n2": 0.0, "n3": 0.0}),
        ({"n0": 0}, {}),  # one node has no skew to speak of
    ],
)
def test_estimate_skew(tmp_path: Path, offsets: dict[str, float], expected: dict[str, float]) -> None:
    mined = mine(tmp_path, lockstep(offsets))
    assert estimate_skew(mined, progress_templates(mined)) == expected


def test_without_progress_skew_pairs_other_synchronous_messages(tmp_path: Path) -> None:
    lines = {
        node: [f"{hms(off + 1)} INFO init_process_group world_size 3", f"{hms(off + 5)} INFO building model"]
        for node, off in (("n0", 0), ("n1", 0), ("n2", 3))
    }
    mined = mine(tmp_path, lines)
    assert len(synchronous_groups(mined)) == 2
    assert estimate_skew(mined, set()) == {"n0": 0.0, "n1": 0.0, "n2": 3.0}


def test_teardown_is_not_paired_across_nodes(tmp_path: Path) -> None:
    """The faulty node's launcher tears down first and its peers' half an hour later, when their
    collective times out: torchrun's SIGTERM lines, printed as often on every node, are not
    synchronous and must not shift the faulty node's clock by the timeout."""
    def node(off: int, end: int) -> list[str]:
        return [f"{hms(off + 1)} INFO init_process_group world_size 3", f"{hms(off + 5)} INFO building model",
                *(f"{hms(end + k)} W torch/distributed/elastic/multiprocessing/api.py:858] Sending process {k} "
                  "closing signal SIGTERM" for k in range(3))]
    mined = mine(tmp_path, {"n0": node(0, 100), "n1": node(0, 1900), "n2": node(0, 1900)})
    assert estimate_skew(mined, set()) == {"n0": 0.0, "n1": 0.0, "n2": 0.0}


def test_borrowed_times_are_not_paired_across_nodes(tmp_path: Path) -> None:
    """NCCL's INFO lines carry no stamp. On a rank whose file starts with them and then waits
    half an hour in a collective, they borrow the watchdog's later stamp; pairing them with the failing node's own NCCL lines
    would shift that node's clock by the timeout and hide its early connect failure."""
    init = ["gpu:1:2 [0] NCCL INFO comm rank 0 nranks 3 - Init START", "gpu:1:2 [0] NCCL INFO Connected all rings"]
    lines = {
        "n0": [f"{hms(0)} INFO starting worker group", *init,
               "gpu:1:2 [0] NCCL WARN socketStartConnect: Connect to 10.68.0.12<73> failed : Connection timed out",
               f"{hms(30)} ERROR failed (exitcode: 1)"],
        # the other ranks' files begin with NCCL's lines: the first stamp they can borrow is the watchdog's
        **{node: [*init, f"{hms(1800)} [rank1]:[E1002 10:30:00.5 ProcessGroupNCCL.cpp:616] Watchdog caught collective "
                  "operation timeout"] for node in ("n1", "n2")},
    }
    mined = mine(tmp_path, lines)
    mined = with_times(mined, impute_times(mined))
    assert all(abs(offset) < 1.0 for offset in estimate_skew(mined, set()).values())


def test_a_consoles_ranks_are_dated_in_file_order(tmp_path: Path) -> None:
    """One console is one stream: rank 0's unstamped steps happened before torchrun's stamped
    SIGTERM below them, and a rank's unstamped OOM between the two happened after the steps.
    Dated by the peers' watchdog stamped ten minutes later instead, the OOM fell outside the
    failure episode and the watchdog took the root (a blind author's HF Trainer console)."""
    from agent.pipeline import Diagnoser

    steps = []
    for i in range(1, 23):
        steps += ["[rank0]:{'loss': 9.3, 'grad_norm': 0.5, 'learning_rate': 2e-05, 'epoch': 0.0}",
                  f"[rank0]:  0%|          | {i}/250000 [0:01:{i:02d}<293:40:04, 4.37s/it]"]
    lines = [
        "W0101 18:01:40.000000 49130 torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable",
        *steps,
        "[rank9]:Traceback (most recent call last):",
        '[rank9]:  File "/workspace/src/train.py", line 151, in main',
        "[rank9]:torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 1 has a total capacity "
        "of 79.11 GiB of which 0.17 GiB is free.",
        "W0101 18:03:15.779913 49130 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 49170 "
        "closing signal SIGTERM",
        *[f"[rank{r}]:[E101 18:13:14.188920924 ProcessGroupNCCL.cpp:607] [Rank {r}] Watchdog caught collective "
          "operation timeout: WorkNCCL(SeqNum=69849, OpType=_ALLGATHER_BASE, NumelIn=1, NumelOut=1, "
          "Timeout(ms)=600000) ran for 600062 milliseconds before timing out." for r in range(8)],
    ]
    logs = tmp_path / "job"
    logs.mkdir()
    (logs / "train_console.log").write_text("\n".join(lines) + "\n")
    d = Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1)
    assert "OutOfMemoryError" in d.events[0].occurrences[0].text
    assert d.faulty_nodes[0].node == "rank9"



def test_the_episode_reaches_back_to_when_the_timed_out_collective_began(tmp_path: Path) -> None:
    """PyTorch's watchdog says how long the collective ran ("ran for 600062 milliseconds"): the
    fault that stalled it (a rank's DataLoader bus error ten minutes before its peers' timeouts)
    lies in the episode, not before it."""
    from agent.extract import root
    from agent.extract.table import build_table

    watchdog = ("[E507 17:33:20.011702071 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation "
                "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for "
                "600062 milliseconds before timing out.")
    mined = mine(tmp_path, {"n0": [f"{hms(0)} INFO building train dataset", watchdog],
                            "n1": [f"{hms(0)} INFO building train dataset", "ERROR: Unexpected bus error encountered in worker."]})
    table = build_table(mined, {})
    kept = [(stats, None) for stats in table.events.values()]
    stamp = next(s.first_ts for s in table.events.values() if "Watchdog" in s.template)
    assert root._collective_began(mined, kept, stamp) == pytest.approx(stamp - 600.062)
    assert root._collective_began(mined, kept, stamp + 1) == stamp + 1  # a timeout before the episode says nothing


WATCHDOG = ("[E ProcessGroupNCCL.cpp:475] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=710, "
            "OpType=ALLREDUCE, NumelIn=68124672, NumelOut=68124672, Timeout(ms)=1800000) ran for 1800698 milliseconds "
            "before timing out.")


def xid_job(tmp_path: Path) -> MinedJob:
    """Two nodes stamp their GPU health; n1's GPU falls off the bus three minutes after the last
    one, and n0's old-format (unstamped) watchdog gives up on the allreduce half an hour later."""
    health = [f"2025-05-10T22:{m:02d}:13Z gpu-health step={m * 10} xid=none" for m in range(40, 48)]
    return mine(tmp_path, {
        "n0": [*health, WATCHDOG.format(r=0),
               "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out.",
               "[E ProcessGroupNCCL.cpp:916] [Rank 0] NCCL watchdog thread terminated with exception: "
               + WATCHDOG.format(r=0)],
        "n1": [*health, "[Sat May 10 22:50:17 2025] NVRM: Xid (PCI:0000:ab:00): 79, pid=149150, name=python, "
               "GPU has fallen off the bus."],
    })


def test_an_unstamped_watchdog_timeout_is_dated_after_its_collective_ran(tmp_path: Path) -> None:
    """An unstamped watchdog line under a rank's last stamp was printed no sooner than the
    collective's stated run time after it (it ran 1800 s), and the lines under it that tell
    the same timeout again wait from the same start, not twice."""
    from agent.extract.clock import file_order_times

    mined = xid_job(tmp_path)
    n0 = mined.nodes["n0"]
    last_stamp = float(n0.ts[7])
    ts = file_order_times(mined)["n0"]
    assert ts[8] == pytest.approx(last_stamp + 1800.698)  # the watchdog itself
    assert ts[9] == pytest.approx(last_stamp + 1800.698)  # the line under it: no earlier
    assert ts[10] == pytest.approx(last_stamp + 1800.698)  # the same timeout told again: not + 2 x 1800 s
    assert float(mined.nodes["n1"].ts[-1]) < ts[8]  # the Xid came first


def test_an_unstamped_watchdog_does_not_outrun_the_xid_that_stalled_it(tmp_path: Path) -> None:
    """Dated at its rank's last stamp, the watchdog looked three minutes older than the Xid 79
    and took the root whenever the cold-start share rule did not hide it (a blind author's
    Megatron job, with its setting's normal runs)."""
    mined = xid_job(tmp_path)
    extraction = extract(mined, weights=Weights(root_best_share=0.0))
    assert "Xid" in extraction.events[0].template


def test_a_stamped_watchdog_dates_the_last_step_by_when_its_wait_began(tmp_path: Path) -> None:
    """Unstamped steps take their time from the stamped lines after them. After the last step
    the next stamp is the watchdog that ended a 20-minute wait, so the step and the rank's
    unstamped IndexError under it were dated 20 minutes late, after every peer's error (a blind
    author's HF Trainer job). The watchdog says when its wait began: that dates the step."""
    lines = [f"{hms(0)} launcher started"]
    for s in range(1, 22):
        lines.append(UNSTAMPED[0].replace("step 1 ", f"step {s} "))
        if s % 5 == 0:
            lines.append(f"{hms(3 * s)} gpu-health step={s} xid=none")
    lines += ["IndexError: list index out of range",
              f"[rank5]:[E1002 {hms(63 + 1200)[11:]}.343475325 ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog caught "
              "collective operation timeout: WorkNCCL(SeqNum=3304, OpType=ALLREDUCE, NumelIn=262144000, "
              "NumelOut=262144000, Timeout(ms)=1200000) ran for 1200081 milliseconds before timing out."]
    mined = mine(tmp_path, {"n0": lines})
    ts = impute_times(mined)["n0"]
    start = float(mined.nodes["n0"].ts[0])
    error_at = ts[len(lines) - 2] - start
    assert error_at < 120  # near step 21 (63 s), not at the watchdog's 1263 s
