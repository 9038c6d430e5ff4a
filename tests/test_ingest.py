"""Ingestion edge cases: each bad input has a clear outcome, never a traceback."""

from __future__ import annotations

import calendar
import gzip
from pathlib import Path

import pytest

from agent.errors import InputError
from agent.ingest import node_name_for, open_job, parse_level
from agent.scan import Masker
from agent.timestamps import Clock, parse_timestamp


def _lines(job_path: Path) -> tuple[list, list[str]]:
    job = open_job(job_path)
    lines = [line for source in job.sources for line in job.lines(source)]
    return lines, job.warnings


@pytest.mark.parametrize(
    ("name", "node"),
    [("worker-3.log.gz", "worker-3"), ("rank_12.log", "rank_12"), ("node.out", "node"), ("plain.txt", "plain")],
)
def test_node_name_strips_log_extensions(name: str, node: str) -> None:
    assert node_name_for(Path(name)) == node


def test_plain_gz_and_line_numbers(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text("one\ntwo\nthree\n")
    with gzip.open(tmp_path / "b.log.gz", "wt") as fh:
        fh.write("x\ny\n")
    lines, warnings = _lines(tmp_path)
    assert [(line.node, line.lineno, line.text) for line in lines] == [
        ("a", 1, "one"), ("a", 2, "two"), ("a", 3, "three"), ("b", 1, "x"), ("b", 2, "y"),
    ]  # fmt: skip
    assert warnings == []


def test_truncated_gz_keeps_readable_part_and_warns(tmp_path: Path) -> None:
    payload = "".join(f"line {i} of a long log with some text to compress\n" for i in range(20000)).encode()
    data = gzip.compress(payload)
    (tmp_path / "t.log.gz").write_bytes(data[: len(data) // 2])
    lines, warnings = _lines(tmp_path)
    assert 0 < len(lines) < 20000
    assert lines[0].text == "line 0 of a long log with some text to compress"
    assert any("ends early" in w for w in warnings)


def test_non_utf8_bytes_are_replaced(tmp_path: Path) -> None:
    (tmp_path / "n.log").write_bytes(b"ok line\nbad \xff\xfe bytes\n\xe4\xb8\xad\xe6\x96\x87 fine\n")
    lines, warnings = _lines(tmp_path)
    assert [line.text for line in lines] == ["ok line", "bad \ufffd\ufffd bytes", "中文 fine"]
    assert len(warnings) == 1 and "1 line(s) hold bytes that are not UTF-8" in warnings[0]  # probe I08a: said, not silent


def test_empty_and_binary_files_are_skipped_with_warnings(tmp_path: Path) -> None:
    (tmp_path / "empty.log").write_bytes(b"")
    (tmp_path / "core.log").write_bytes(bytes(range(256)) * 64)
    (tmp_path / "good.log").write_text("hello\n")
    lines, warnings = _lines(tmp_path)
    assert [line.node for line in lines] == ["good"]
    assert any("empty.log: empty file" in w for w in warnings)
    assert any("core.log: binary content" in w for w in warnings)


def test_only_unreadable_files_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "empty.log").write_bytes(b"")
    with pytest.raises(InputError, match="no readable log lines"):
        open_job(tmp_path)


def test_missing_path_and_empty_dir(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="does not exist"):
        open_job(tmp_path / "nope")
    with pytest.raises(InputError, match="no log files"):
        open_job(tmp_path)


def test_ten_megabyte_line_is_clipped_not_fatal(tmp_path: Path) -> None:
    big = "x" * (10 * 1024 * 1024)
    (tmp_path / "big.log").write_text(f"before\n{big}\nafter\n")
    lines, warnings = _lines(tmp_path)
    assert [line.lineno for line in lines] == [1, 2, 3]
    assert lines[2].text == "after"
    assert len(lines[1].text) < 20_000
    assert any("clipped" in w for w in warnings)


@pytest.mark.parametrize(
    ("prefix", "expected_nodes"),
    [
        ("[default{r}]:", {"rank0", "rank1", "rank2"}),
        ("[rank{r}]:", {"rank0", "rank1", "rank2"}),
        ("{r}: ", {"rank0", "rank1", "rank2"}),
        ("[1,{r}]<stdout>:", {"rank0", "rank1", "rank2"}),
        # pdsh names hosts (huggingface/accelerate#1317: "104.171.201.172: [2023-04-16 ...] [INFO] ...").
        ("104.171.201.17{r}: ", {"104.171.201.170", "104.171.201.171", "104.171.201.172"}),
        ("algo-{r}: ", {"algo-0", "algo-1", "algo-2"}),
    ],
)
def test_console_log_is_split_into_rank_nodes(tmp_path: Path, prefix: str, expected_nodes: set[str]) -> None:
    rows = ["launcher banner without prefix"]
    for i in range(30):
        r = i % 3
        rows.append(prefix.format(r=r) + f"[2024-05-12 10:31:{i:02d},000] INFO iteration {i}")
    (tmp_path / "console.log").write_text("\n".join(rows) + "\n")
    lines, _ = _lines(tmp_path)
    assert {line.node for line in lines} == expected_nodes | {"console"}
    second = sorted(expected_nodes)[1]
    first_rank1 = next(line for line in lines if line.node == second)
    assert first_rank1.lineno == 3  # physical line in the console file
    assert first_rank1.text.startswith("[2024-05-12")
    assert first_rank1.ts is not None


def test_duplicate_file_names_get_parent_folder(tmp_path: Path) -> None:
    for host in ("host1", "host2"):
        (tmp_path / host).mkdir()
        (tmp_path / host / "rank0.log").write_text("x\n")
    (tmp_path / "host2" / "solo.log").write_text("y\n")
    job = open_job(tmp_path)
    assert sorted(s.node for s in job.sources) == ["host1/rank0", "host2/rank0", "solo"]


def test_lines_without_timestamp_inherit_previous(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_text(
        "[2024-05-12 10:31:02,500] ERROR boom\nTraceback (most recent call last):\n  File \"x.py\"\n"
    )
    lines, _ = _lines(tmp_path)
    assert lines[0].ts == lines[1].ts == lines[2].ts
    assert lines[0].level == "ERROR" and lines[1].level is None


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-12T10:31:02.250Z worker ok", 1715509862.25),
        ("[2024-05-12 10:31:02,250] [INFO] x", 1715509862.25),
        ("[ERROR] HCCL(1,python):2024-05-12-10:31:02.250.123 [a.cc:1] x", 1715509862.25),
        ("2024-05-12T12:31:02+02:00 shifted zone", 1715509862.0),
        ("05/12/2024 10:31:02 - INFO - llmtuner.model.adapter - Fine-tuning method: LoRA", 1715509862.0),
        ("no timestamp here", None),
        ("see 12/05 for the plan", None),
        ("13/40 10:31:02 - mmengine - INFO - month 13 is no date", None),
    ],
)
def test_timestamp_formats(text: str, expected: float | None) -> None:
    got = parse_timestamp(text)
    assert got == pytest.approx(expected) if expected is not None else got is None


def test_syslog_and_glog_timestamps_parse() -> None:
    assert parse_timestamp("May 12 10:31:02 node-3 kernel: NVRM: Xid") is not None
    assert parse_timestamp("W0512 10:31:02.123456 12345 file.cc:12] warn") is not None


def test_pytorch_cpp_log_lines_have_a_time_and_a_level() -> None:
    """PyTorch's C++ log prefixes the rank and leaves the month unpadded (hiyouga/LlamaFactory#7396);
    older releases print the level before the source file alone (pytorch/pytorch#118369)."""
    clock = Clock()
    clock.parse("2024-03-20 23:00:00 launcher")
    line = "[rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective operation timeout"
    assert clock.parse(line) == pytest.approx(calendar.timegm((2024, 3, 21, 2, 7, 8)) + 0.408271)
    assert clock.parse("[rank4]:[W1206 18:44:12.755262105 ProcessGroupNCCL.cpp:1664] x") == pytest.approx(
        calendar.timegm((2024, 12, 6, 18, 44, 12)) + 0.755262
    )
    assert parse_level(line) == "ERROR"
    assert parse_level("[E ProcessGroupNCCL.cpp:458] [Rank 0] Watchdog caught collective operation timeout") == "ERROR"
    assert parse_level("[W socket.cpp:601] [c10d] The client socket has failed to connect") == "WARNING"
    # torch_npu's binaries name a CMake stand-in source file
    assert parse_level("[W compiler_depend.ts:133] Warning: Device do not support double dtype now") == "WARNING"
    masker = Masker()
    # The stamp is masked, the rank prefix stays a rank: one template whatever the day.
    assert masker.mask(line) == masker.mask(line.replace("E321 02:07:08", "E1206 18:44:12"))
    assert masker.mask(line).startswith("[rank<RANK>]:[<TS> ProcessGroupNCCL.cpp:<NUM>]")


def test_mmengine_month_day_borrows_the_year() -> None:
    clock = Clock()
    assert clock.parse("2024-05-12 09:00:00 launcher") is not None
    got = clock.parse("05/12 10:31:02 - mmengine - INFO - Iter(train) [ 10/720]  lr: 9.0001e-05")
    assert got == pytest.approx(1715509862.0)


@pytest.mark.parametrize(
    ("text", "level"),
    [
        ("[2024-05-12 10:31:02,123] [INFO] [logging.py:96:log_dist] step=1", "INFO"),
        ("2024-05-12 10:31:02 WARNING torch.distributed something", "WARNING"),
        ("[W] something odd", "WARNING"),
        ("[ERROR] HCCL(1,python):2024-05-12-10:31:02.250.123 x", "ERROR"),
        ("E0512 10:31:02.123456 1 f.cc:1] failed", "ERROR"),
        ("host:1:2 [0] NCCL INFO Channel 00/32", "INFO"),
        ("an error-free line with errors_total=0", None),
    ],
)
def test_levels(text: str, level: str | None) -> None:
    assert parse_level(text) == level


def test_nul_padding_utf16_symlinks_and_deep_trees_are_read(tmp_path: Path) -> None:
    """Probe I10/I11e/I14d: logrotate NULs, a UTF-16 log, a linked node folder and a deep tree."""
    import os as _os

    from agent.ingest import open_job

    job = tmp_path / "job"
    job.mkdir()
    (job / "a.log").write_bytes(b"\x00" * 100 + b"2024-05-12 10:00:00 ERROR RuntimeError: boom\n")
    (job / "b.log").write_bytes("2024-05-12 10:00:01 INFO hello\n".encode("utf-16"))
    elsewhere = tmp_path / "shared" / "node-9"
    elsewhere.mkdir(parents=True)
    (elsewhere / "c.log").write_text("2024-05-12 10:00:02 INFO linked\n")
    _os.symlink(elsewhere, job / "node-9")
    deep = job
    for i in range(300):
        deep = deep / f"d{i}"
    deep.mkdir(parents=True)
    (deep / "d.log").write_text("2024-05-12 10:00:03 INFO deep\n")
    opened = open_job(job)
    texts = {line.text.split(" ", 2)[-1] for s in opened.sources for line in opened.lines(s)}
    assert {"ERROR RuntimeError: boom", "INFO hello", "INFO linked", "INFO deep"} <= texts
    assert any("NUL bytes removed" in w for w in opened.warnings)


def test_a_console_mixing_prefix_styles_is_split_on_each(tmp_path: Path) -> None:
    """Probe I17: srun -l's "N: " around torchrun's "[defaultN]:" and the program's "[rankN]:"."""
    from agent.ingest import open_job

    lines = []
    for i in range(30):
        for r in range(4):
            lines.append([f"[rank{r}]: ", f"[default{r}]: ", f"{r}: "][i % 3] + f"2024-05-12 11:00:{i:02d} INFO iteration {i}")
    lines.append("3: 2024-05-12 11:02:00 ERROR RuntimeError: CUDA error: an illegal memory access was encountered")
    (tmp_path / "console.log").write_text("\n".join(lines) + "\n")
    job = open_job(tmp_path)
    nodes = {line.node for s in job.sources for line in job.lines(s)}
    assert nodes == {"rank0", "rank1", "rank2", "rank3"}


def test_words_followed_by_a_colon_are_not_pdsh_hosts(tmp_path: Path) -> None:
    rows = [f"{word}: step {i} done" for i in range(12) for word in ("INFO", "WARNING", "Epoch")]
    (tmp_path / "console.log").write_text("\n".join(rows) + "\n")
    lines, _ = _lines(tmp_path)
    assert {line.node for line in lines} == {"console"}


def test_rank_prefixes_only_in_the_crash_report_still_split_the_console(tmp_path: Path) -> None:
    # PyTorch 2 prefixes only its crash reports (Chevolier/LLaMA-Factory train.out): thousands
    # of plain lines, then every rank's traceback.
    rows = [f"{{'loss': 1.{i:02d}, 'epoch': 0.{i:02d}}}" for i in range(2500)]
    rows += [f"[rank{r}]: TypeError: iteration over a 0-d tensor" for r in range(4)]
    (tmp_path / "train.out").write_text("\n".join(rows) + "\n")
    lines, _ = _lines(tmp_path)
    assert {line.node for line in lines} == {"train", "rank0", "rank1", "rank2", "rank3"}
    assert next(line for line in lines if line.node == "rank2").lineno == 2503


def test_srun_with_one_task_is_still_a_console(tmp_path: Path) -> None:
    # A one-node Slurm job's output.err under srun -l (kerimoglutolga/open_clip-mixtera): "0: " on nearly every line.
    rows = ["slurmstepd: error: couldn't chdir to `/users/x': No such file or directory: going to /tmp instead"]
    rows += [f"0: step {i} loss 2.5" for i in range(40)]
    rows += ["0: AssertionError: SharedMemory objects are None."]
    (tmp_path / "output.err.log").write_text("\n".join(rows) + "\n")
    lines, _ = _lines(tmp_path)
    assert {line.node for line in lines} == {"output.err", "rank0"}
    assert lines[-1].text == "AssertionError: SharedMemory objects are None."
    # A few numbered lines in ordinary text are not a console.
    (tmp_path / "output.err.log").write_text("\n".join(["intro"] * 40 + [f"0: item {i}" for i in range(5)]) + "\n")
    assert {line.node for line in _lines(tmp_path)[0]} == {"output.err"}


def test_srun_console_behind_a_long_batch_preamble_is_still_split(tmp_path: Path) -> None:
    # A batch script that prints nvidia-smi on each node before its job step (the table of
    # rcc-uchicago/pedramh-profiling e3sm_train_3166345.o) and then srun -l's output (the step
    # lines of sparticlesteve/pytorch-nccl-hang slurm-8384637.out): the preamble is most of the
    # file's head, but srun prefixes only what its tasks print.
    smi = [
        "+-----------------------------------------------------------------------------------------+",
        "| NVIDIA-SMI 590.48.01              Driver Version: 590.48.01      CUDA Version: 13.1     |",
        "|   0  NVIDIA H100                    On  |   00000000:4C:00.0 Off |                    0 |",
        "| N/A   19C    P0             66W /  700W |       0MiB /  95830MiB |      0%      Default |",
    ] * 60
    steps = [f"{r:2d}: RANK {r}: running step {i}/10" for i in range(1, 6) for r in range(16)]
    (tmp_path / "slurm-8384637.out").write_text("\n".join(smi + steps) + "\n")
    lines, _ = _lines(tmp_path)
    assert {line.node for line in lines} == {"slurm-8384637"} | {f"rank{r}" for r in range(16)}
    # Numbered lines that do not recur per rank are still ordinary text after a preamble.
    (tmp_path / "slurm-8384637.out").write_text("\n".join(smi + [f"{i}: item {i}" for i in range(60)]) + "\n")
    assert {line.node for line in _lines(tmp_path)[0]} == {"slurm-8384637"}


def _node_files(tmp_path: Path, start_minutes: tuple[int, int], ranks: tuple[range, range]) -> None:
    """Two files whose worker lines carry torchrun's [defaultN]: prefixes, each written over ten minutes."""
    for name, start, rs in zip(("gpu-node-1", "gpu-node-2"), start_minutes, ranks, strict=True):
        rows = [f"[default{r}]:2024-05-12 11:{start + i:02d}:00 INFO iteration {i}" for i in range(10) for r in rs]
        (tmp_path / f"{name}.log").write_text("\n".join(rows) + "\n")


def test_per_node_files_with_rank_prefixes_stay_one_node_each(tmp_path: Path) -> None:
    # CONTRACTS: a node's file written by torchrun --tee with [default0]:...[default7]: for its
    # local processes is that node. Both files run at the same time: they are nodes, not restarts.
    _node_files(tmp_path, (0, 1), (range(4), range(4)))
    lines, _ = _lines(tmp_path)
    assert {line.node for line in lines} == {"gpu-node-1", "gpu-node-2"}
    assert lines[0].text == "2024-05-12 11:00:00 INFO iteration 0"  # the prefix is still stripped


def test_restart_consoles_holding_the_same_ranks_are_still_split(tmp_path: Path) -> None:
    # slurm-101.out then slurm-117.out: the second starts after the first ended.
    _node_files(tmp_path, (0, 30), (range(4), range(4)))
    assert {line.node for line in _lines(tmp_path)[0]} == {f"rank{r}" for r in range(4)}  # mining adds the file


def test_untimed_per_node_files_holding_disjoint_global_ranks_are_nodes(tmp_path: Path) -> None:
    for name, rs in (("node-a1", range(4)), ("node-a2", range(4, 8))):
        rows = [f"[rank{r}]: step {i} loss 2.5" for i in range(10) for r in rs]
        (tmp_path / f"{name}.log").write_text("\n".join(rows) + "\n")
    assert {line.node for line in _lines(tmp_path)[0]} == {"node-a1", "node-a2"}


def test_the_one_node_file_with_a_ranks_traceback_is_still_that_node(tmp_path: Path) -> None:
    # PyTorch prefixes only a failing rank's traceback ("[rank26]: Traceback (most recent call
    # last):"), so among per-node files written at the same time the faulty node's file alone
    # carries rank prefixes. It is that node's file like its siblings, not a console to split.
    for n in range(3):
        rows = [f"2024-03-14 15:{m:02d}:00 INFO iteration {m}" for m in range(20)]
        if n == 2:
            rows += ["[rank18]: Traceback (most recent call last):",
                     '[rank18]:   File "/usr/local/python3.10/lib/python3.10/site-packages/torch/utils/data/dataloader.py", '
                     "line 1285, in _get_data",
                     "[rank18]: RuntimeError: DataLoader worker (pid 76800) is killed by signal: Killed.",
                     *(f"[rank{r}]: RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 "
                       "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048" for r in (16, 17))]
        (tmp_path / f"modelarts-job-725a0d44-worker-{n}.log").write_text("\n".join(rows) + "\n")
    assert {line.node for line in _lines(tmp_path)[0]} == {f"modelarts-job-725a0d44-worker-{n}" for n in range(3)}


def test_files_are_nodes_decides_from_overlap_first() -> None:
    from agent.consoles import files_are_nodes

    assert files_are_nodes([(0, 100), (5, 90), (3, 120)], [{"0"}, {"0"}, {"0"}])
    assert not files_are_nodes([(0, 100), (200, 300)], [{"0"}, {"1"}])  # sequential wins over disjoint ranks
    assert not files_are_nodes([None, None], [{"0", "1"}, {"0", "1"}])  # unknown: split as restarts


@pytest.mark.parametrize(
    ("line", "read"),
    [
        # rcc-uchicago/pedramh-profiling e3sm_train_3180828.e: Slurm's stop lands on tqdm's last bar.
        (" 12%|###7      | 1/8 [01:34<11:01, 94.51s/it]slurmstepd: error: *** JOB 3180828 ON c562-009 CANCELLED AT "
         "2026-06-04T13:30:59 DUE TO TIME LIMIT ***",
         (" 12%|###7      | 1/8 [01:34<11:01, 94.51s/it]",
          "slurmstepd: error: *** JOB 3180828 ON c562-009 CANCELLED AT 2026-06-04T13:30:59 DUE TO TIME LIMIT ***")),
        ("100%|##########| 8/8 [00:01<00:00,  5.00it/s, loss=0.5]", None),  # a bar alone stays as it is
        ("Epoch 1: 100%|##| 8/8 [00:01<00:00,  5.00it/s] ok", None),  # too little after it to be a message
    ],
)
def test_a_message_glued_after_a_progress_bar_is_read_alone(line: str, read: tuple[str, str] | None) -> None:
    from agent.ingest import split_progress_bar

    assert split_progress_bar(line) == read


def test_a_bar_drawn_after_a_rank_prefix_keeps_its_rank_and_its_message(tmp_path: Path) -> None:
    # tqdm's bar lands after the launcher's prefix, and the next message is glued onto it
    # (the bar and stop line of rcc-uchicago/pedramh-profiling e3sm_train_3180828.e, under a rank prefix).
    rows = [f"[rank{r}]: step {i} loss 2.5" for i in range(20) for r in range(2)]
    rows += ["[rank1]:  12%|###7      | 1/8 [01:34<11:01, 94.51s/it]RuntimeError: CUDA error: an illegal memory access",
             "[rank0]:  12%|###7      | 1/8 [01:34<11:01, 94.51s/it][rank0]: ValueError: bad batch at index 7"]
    (tmp_path / "console.log").write_text("\n".join(rows) + "\n")
    lines, _ = _lines(tmp_path)
    assert [(line.node, line.text.strip(), line.lineno) for line in lines[-4:]] == [
        ("rank1", "12%|###7      | 1/8 [01:34<11:01, 94.51s/it]", 41),  # the bar: the job's work up to the message
        ("rank1", "RuntimeError: CUDA error: an illegal memory access", 41),
        ("rank0", "12%|###7      | 1/8 [01:34<11:01, 94.51s/it]", 42),
        ("rank0", "ValueError: bad batch at index 7", 42),
    ]


def test_terminal_colour_codes_are_removed_before_a_line_is_read(tmp_path: Path) -> None:
    # Ray colours its worker prefix ("\x1b[36m(RayTrainWorker pid=176642, ip=172.16.9.30)\x1b[0m",
    # NovaSky-AI/SkyRL#1960) and pod logs keep a program's coloured lines: the codes hid the
    # "[rank1]:" prefix and made every coloured line a template of its own.
    rows = [f"[rank{r}]: step {i} loss 2.5" for i in range(5) for r in range(2)]
    rows += ["\x1b[1;31m[rank1]: RuntimeError: NPU function error: error code is 507035\x1b[0m"]
    (tmp_path / "console.log").write_text("\n".join(rows) + "\n")
    lines, _ = _lines(tmp_path)
    assert {line.node for line in lines} == {"rank0", "rank1"}
    assert lines[-1].text == "RuntimeError: NPU function error: error code is 507035"
    # A node's own file takes the line-by-line path and is cleaned the same way.
    from agent.fastscan import scan_source

    (tmp_path / "console.log").unlink()
    (tmp_path / "worker-1.log").write_text("2024-10-02 10:00:00 INFO start\n\x1b[31mERROR boom\x1b[0m\n")
    scans, _ = scan_source(open_job(tmp_path).sources[0])
    assert all("\x1b" not in key for scan in scans for key in scan.keys)
