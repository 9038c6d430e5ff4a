"""The offline reasoner's order of evidence: confirmed patterns, the shape of the evidence,
doc signatures, retrieval votes, then wording rules; and where the fault sits refines it.

Each test builds the evidence by hand, so one signal at a time decides; a second case with
that signal removed shows the verdict really came from it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent.extract import EventCandidate, Extraction, NodeCandidate
from agent.extract.progress import Timeline
from agent.knowledge import Hit
from agent.library import LibraryMatch
from agent.reasoners import Evidence
from agent.reasoners.offline import OfflineReasoner
from agent.schema import Diagnosis, EventOut, Occurrence

NODES = [f"worker-{i}" for i in range(8)]


def event(text: str, nodes: list[str], template: str | None = None) -> EventOut:
    return EventOut(
        template=template or text,
        score=0.9,
        reasons=["absent from normal jobs"],
        occurrences=[Occurrence(node=n, line=100 + i, text=text) for i, n in enumerate(nodes)],
    )


def candidate(text: str, nodes: list[str], role_kind: str = "candidate") -> EventCandidate:
    return EventCandidate(1, text, 0.9, [], nodes, 0.0, "root", role_kind)


def evidence(
    root: str,
    root_nodes: list[str],
    *,
    scope: str = "node_local",
    suspect: str | None = None,
    named_by_peers: tuple[str, ...] = (),
    silent: tuple[str, ...] = (),
    role_kind: str = "candidate",
    hits: tuple[Hit, ...] = (),
    library: tuple[LibraryMatch, ...] = (),
) -> Evidence:
    diagnosis = Diagnosis(job="job", stage="training", symptom="training_crash", events=[event(root, root_nodes)])
    timeline = Timeline(has_training=True, last_progress_ts=0.0, last_iteration=100, iteration_interval=1,
                        step_seconds=1.0, end_ts=10.0, onset_ts=5.0, silent_nodes=list(silent))
    extraction = Extraction(
        events=[candidate(root, root_nodes, role_kind)],
        nodes=[NodeCandidate(suspect, 0.8, ["suspect"])] if suspect else [],
        stage="training",
        iterations=[],
        symptom="training_crash",
        scope=scope,
        timeline=timeline,
        table=None,  # type: ignore[arg-type]  # the reasoner never reads the table
        named_by_peers=list(named_by_peers),
    )
    return Evidence(diagnosis=diagnosis, extraction=extraction, library=list(library), knowledge=list(hits), nodes=NODES)


def hit(category: str, subcategory: str, doc_id: str = "doc", score: float = 0.9) -> Hit:
    return Hit(doc_id, doc_id, category, subcategory, "any", score)


def match(category: str, subcategory: str, source: str = "doc", **kw: Any) -> LibraryMatch:
    return LibraryMatch(id=kw.get("id", f"{source}-pattern"), source=source, category=category, subcategory=subcategory,
                        title="a pattern", remediation=[], confidence=kw.get("confidence", 0.9), regexes=["x"],
                        nodes=["worker-1"], count=1, samples=[])


def diagnose_one_file(tmp_path: Path, name: str, lines: list[str]) -> Diagnosis:
    """The offline diagnosis of a job of one log file holding ``lines``."""
    from agent.pipeline import Diagnoser

    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / name).write_text("\n".join(lines) + "\n")
    return Diagnoser(reasoner="offline").diagnose(logs, workers=1)


def verdict(ev: Evidence) -> tuple[str, str]:
    d = OfflineReasoner().reason(ev)
    return d.category, d.subcategory


PEER_REPORT = "NCCL WARN NET/IB : Got completion from peer 10.0.0.5<3311> with status=12 opcode=0"


def test_peers_losing_a_quiet_node_is_a_node_fault_even_against_a_network_signature() -> None:
    lost = evidence(PEER_REPORT, ["worker-1", "worker-2"], suspect="worker-5", named_by_peers=("worker-5",),
                    library=(match("hardware", "network"),))
    assert verdict(lost) == ("hardware", "node")
    # The named node printing the error itself is alive: then the message's own meaning holds.
    alive = evidence(PEER_REPORT, ["worker-1", "worker-5"], suspect="worker-5", named_by_peers=("worker-5",),
                     library=(match("hardware", "network"),))
    assert verdict(alive) == ("hardware", "network")


def test_a_silent_node_whose_peers_all_print_the_same_failure_is_a_node_fault() -> None:
    # torch_npu heads each peer's HCCL timeout with one "[ERROR] ... ERR02200 DIST call hccl api
    # failed." line (hiyouga/LlamaFactory#3839): not a wait by its wording, but every other node
    # printing it while the quiet node printed nothing is the peers' side of losing that node.
    header = "[ERROR] 2025-02-22-04:58:59 (PID:183208, Device:2, RankID:2) ERR02200 DIST call hccl api failed."
    timeout = candidate("EI0002: The wait execution of the Notify register times out.", NODES[:7], "wait")

    def quiet_worker_7(printers: list[str], waits: bool) -> Evidence:
        ev = evidence(header, printers, scope="global", suspect="worker-7", silent=("worker-7",),
                      hits=(hit("user", "script_bug"),))
        assert ev.extraction is not None
        ev.extraction.cascades = [timeout] if waits else []
        return ev

    assert verdict(quiet_worker_7(NODES[:7], waits=True)) == ("hardware", "node")
    # Printed by only some of the others, the failure is theirs to explain.
    assert verdict(quiet_worker_7(NODES[:3], waits=True)) != ("hardware", "node")
    # Nobody waited: every rank raised the same error on its own (a KeyError in the script), and
    # the quiet process (MindSpore's scheduler) just had nothing to say (a blind author's job).
    assert verdict(quiet_worker_7(NODES[:7], waits=False)) != ("hardware", "node")


def test_a_silent_node_behind_a_wait_is_a_node_fault() -> None:
    wait = "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=600000)"
    silent = evidence(wait, NODES[:7], scope="global", suspect="worker-7", silent=("worker-7",), role_kind="wait",
                      hits=(hit("hardware", "network"),))
    assert verdict(silent) == ("hardware", "node")
    # Without a silent node, the timeout alone names no broken link: during training the
    # others waited out one rank's work; on the first collectives the set-up is suspect.
    assert verdict(evidence(wait, NODES[:7], scope="global", role_kind="wait", hits=(hit("hardware", "network"),))) == (
        "user", "configuration")
    at_init = evidence(wait, NODES[:7], scope="global", role_kind="wait", hits=(hit("hardware", "network"),))
    at_init.diagnosis.stage = "init"
    assert verdict(at_init) == ("platform", "platform_configuration")
    ib = "NCCL WARN NET/IB : Got completion from peer 10.0.0.5<3311> with status=12 opcode=0"
    assert verdict(evidence(ib, NODES[:7], scope="global", role_kind="wait", hits=(hit("hardware", "network"),))) == (
        "hardware", "network")
    # A network error reported beside the timeout counts too: NCCL's "NET/IB : Got completion from
    # peer" under a peer's "remote process exited or there was a network error" (corpus F, f34).
    remote = "torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:317, remote process exited or there was a network error"
    beside = evidence(remote, NODES[:7], scope="global", role_kind="wait", hits=(hit("hardware", "network"),))
    beside.diagnosis.events.append(event(ib, NODES[:1]))
    assert verdict(beside) == ("hardware", "network")


def test_a_timeout_far_below_the_default_is_the_users_setting() -> None:
    # PyTorch's watchdog prints the timeout it waited (Timeout(ms)=...); 60 s is far below the 600 s default.
    watchdog = "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9, OpType=ALLREDUCE, Timeout(ms)=60000) ran for 60012"
    assert verdict(evidence(watchdog, NODES, scope="global", hits=(hit("hardware", "network"),))) == ("user", "configuration")
    default = watchdog.replace("Timeout(ms)=60000) ran for 60012", "Timeout(ms)=600000) ran for 600012")
    assert verdict(evidence(default, NODES, scope="global", hits=(hit("hardware", "network"),))) == ("hardware", "network")
    # The step names the setting (instructlab/training#520 set it to 1 ms).
    steps = "\n".join(OfflineReasoner().reason(evidence(watchdog, NODES, scope="global")).remediation)
    assert "waited only 60 s (Timeout(ms)=60000)" in steps and "init_process_group" in steps
    assert "waited only" not in "\n".join(OfflineReasoner().reason(evidence(default, NODES, scope="global")).remediation)
    # Real EI0002 lines carry no timeout value, so the doc's reading stands.
    ei0002 = ("EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not received "
              "the Notify record from remote rank [3].")
    assert verdict(evidence(ei0002, NODES, scope="global", library=(match("hardware", "network"),))) == ("hardware", "network")


def test_an_internal_assertion_is_a_framework_bug_but_an_argument_check_is_not() -> None:
    internal = "AssertionError: Shard of optimizer state for param bucket 8 has unexpected size 2015"
    user_docs = (hit("user", "script_bug", "a"), hit("user", "misoperation", "b"))
    assert verdict(evidence(internal, NODES, scope="global", hits=user_docs)) == ("framework", "framework_bug")
    argument = "AssertionError: num_layers (30) must be divisible by pipeline_model_parallel_size (4)"
    assert verdict(evidence(argument, NODES, scope="global", hits=(hit("user", "configuration"),))) == ("user", "configuration")
    # Frameworks assert on hyper-parameters too: an unset value or a checkpoint mismatch is the user's setting.
    for line in ("AssertionError: learning_rate is None",
                 "AssertionError: AnnealingLR: class input value 1e-06 and checkpointvalue 1e-05 for minimum learning rate do not match",
                 # a size held against a configured bound (verl NPU FAQ)
                 "AssertionError: Weight model.embed_tokens.weight(torch.Size([151936, 4096]), torch.float32) is too large to fit in the bucket.",
                 # parallel degrees are settings (PaddlePaddle/PaddleFleetX examples/resnet workerlog.0)
                 "AssertionError: global work size [8], mp_degree [1], sharding_degree [2], pp_degree [1], dp_degree [2]."):
        assert verdict(evidence(line, NODES, scope="global", hits=(hit("user", "configuration"),))) == ("user", "configuration")


def test_an_assertion_the_jobs_own_script_raised_is_not_the_frameworks_invariant() -> None:
    own = evidence("AssertionError", NODES, scope="global", hits=(hit("user", "script_bug"),))
    own.root_before = ['  File "/mnt/fastdata/acq22mc/exp/tdmolflow/train.py", line 580, in main', "    assert len(batch) == 3"]
    assert verdict(own) == ("user", "script_bug")
    # Mattias421/tdmolflow slurm-3734182.out: the run id was left unset, an argument check.
    unset = evidence("AssertionError", NODES, scope="global", hits=(hit("user", "configuration"),))
    unset.root_before = ['  File "/mnt/fastdata/acq22mc/exp/tdmolflow/train.py", line 580, in main',
                         "    assert opts.resume_id is not None"]
    assert verdict(unset) == ("user", "configuration")
    inside = evidence("AssertionError", NODES, scope="global", hits=(hit("user", "script_bug"),))
    inside.root_before = ['  File "/usr/lib/python3/site-packages/megatron/core/dist_checkpointing/mapping.py", line 88, in x',
                          "    assert len(batch) == 3"]
    assert verdict(inside) == ("framework", "framework_bug")


def test_a_bare_assertion_that_checks_for_a_dependency_is_the_environment() -> None:
    # PaddlePaddle/PaddleFleetX examples/resnet workerlog.0: opencv-python missing.
    bare = evidence("AssertionError", NODES, scope="global", hits=(hit("user", "configuration"),))
    bare.root_before = ['  File "/opt/conda/lib/python3.7/site-packages/paddle/dataset/image.py", line 161, in load_image_bytes',
                        "    assert _check_cv2() is True"]
    assert verdict(bare) == ("user", "configuration")


def test_a_confirmed_user_pattern_outranks_every_rule() -> None:
    lost = evidence(PEER_REPORT, ["worker-1", "worker-2"], suspect="worker-5", named_by_peers=("worker-5",),
                    library=(match("hardware", "network", source="user"),))
    assert verdict(lost) == ("hardware", "network")


def test_a_gpu_fault_on_one_node_points_at_the_device() -> None:
    xid = "NVRM: Xid (PCI:0000:38:00): 31, pid=83230, name=python, Ch 00000010, MMU Fault: ENGINE GRAPHICS"
    assert verdict(evidence(xid, ["worker-3"], library=(match("user", "script_bug"),))) == ("hardware", "accelerator")
    everywhere = evidence(xid, NODES, scope="global", library=(match("user", "script_bug"),))
    assert verdict(everywhere) == ("user", "script_bug")


def test_a_path_missing_on_some_nodes_only_is_a_mount_problem() -> None:
    missing = "FileNotFoundError: [Errno 2] No such file or directory: '/data/pile/train_text_document.bin'"
    assert verdict(evidence(missing, ["worker-3"], library=(match("user", "configuration"),))) == (
        "platform", "resource_management")
    assert verdict(evidence(missing, NODES, scope="global", library=(match("user", "configuration"),))) == (
        "user", "configuration")


def test_a_jobs_stdout_and_stderr_files_are_one_machine() -> None:
    # Slurm's job_%j.out and job_%j.err are two streams of one job: an error in the .err file
    # alone is not "missing on some nodes".
    missing = "/var/spool/slurmd/job2844512/slurm_script: line 66: torchrun: command not found"
    ev = evidence(missing, ["train_2844512.err"], library=(match("user", "configuration"),))
    ev.nodes = ["train_2844512", "train_2844512.err"]
    assert verdict(ev) == ("user", "configuration")
    ev.nodes = ["node-1", "node-2"]
    ev.diagnosis.events[0].occurrences[0].node = "node-1"
    ev.extraction.events[0].nodes = ["node-1"]  # type: ignore[union-attr]
    assert verdict(ev) == ("platform", "resource_management")


@pytest.mark.parametrize(("a", "b"), [("train_2844512.out", "train_2844512.err"), ("e3sm_train_3190856.e", "e3sm_train_3190856.o"),
                                      ("e3sm_sfno_train.o5808053", "e3sm_sfno_train.e5808053"),
                                      ("workerlog.0", "workerlog.1"), ("log/workerlog.0", "log/workerlog.3")])
def test_stream_files_and_local_rank_logs_of_one_job_name_one_machine(a: str, b: str) -> None:
    from agent.reasoners.offline import _machine_of

    assert _machine_of(a) == _machine_of(b)
    assert _machine_of("node-1") != _machine_of("node-2")
    assert _machine_of("e3sm_sfno_train.o5808053") != _machine_of("e3sm_sfno_train.o5808054")
    assert _machine_of("node-1/workerlog.0") != _machine_of("node-2/workerlog.0")  # Paddle's local ranks, per machine


def test_a_package_missing_as_a_whole_is_the_environment_not_a_version() -> None:
    whole = "ModuleNotFoundError: No module named 'torch'"
    assert verdict(evidence(whole, NODES, scope="global", library=(match("user", "software_incompatibility"),))) == (
        "user", "configuration")
    piece = "ModuleNotFoundError: No module named 'vllm.lora.lora_model'"
    assert verdict(evidence(piece, NODES, scope="global", library=(match("user", "software_incompatibility"),))) == (
        "user", "software_incompatibility")


def test_offline_verdict_is_deterministic_and_cites_the_rule() -> None:
    ev = evidence(PEER_REPORT, ["worker-1", "worker-2"], suspect="worker-5", named_by_peers=("worker-5",))
    first, second = OfflineReasoner().reason(ev), OfflineReasoner().reason(ev)
    assert first == second
    assert "worker-5" in first.root_cause and "went quiet" in first.root_cause


def test_a_retrieved_doc_speaks_for_the_line_only_when_it_shares_its_words() -> None:
    from agent.knowledge.docs import KnowledgeDoc
    from agent.reasoners.offline import _distinctive_words, _shares_words

    def doc(title: str, example: str) -> KnowledgeDoc:
        return KnowledgeDoc(id="d", title=title, category="hardware", subcategory="node", stack="any",
                            signatures=[{"regex": ".", "example": example}], symptoms=["others"], severity="low",
                            node_local=True, sources=["https://example.org"])

    # Real line (hyang1985/uie-for-fundmanager workerlog.1): it shares only "machine" with an MCE doc.
    line = "E0724 21:47:30.248771  2320 pybind.cc:2330] Invalid CUDAPlace(1), must inside [0, 1), because GPU number on your machine is 1"
    mce = doc('Machine check exception on a node: "mce: [Hardware Error]"', "mce: [Hardware Error]: Machine check events logged")
    place = doc("Paddle: Invalid CUDAPlace, more ranks than GPUs", "Invalid CUDAPlace(1), must inside [0, 1), because GPU number on your machine is 1")
    words = _distinctive_words(line)
    assert not _shares_words(words, mce)
    assert _shares_words(words, place)


def test_a_generic_nccl_error_at_set_up_reads_as_the_set_up(tmp_path) -> None:
    from agent.pipeline import diagnose

    # coreweave/ml-containers#10: one line, before any training.
    line = "NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8"
    (tmp_path / "console.log").write_text(line + "\n")
    d = diagnose(tmp_path, reasoner="offline", workers=1)
    assert (d.category, d.subcategory) == ("platform", "platform_configuration")
    assert "setting up" in d.root_cause
    # A device trace beside it keeps the doc's own (mid-run, hardware) reading.
    (tmp_path / "console.log").write_text(
        "NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, GPU has fallen off the bus.\n" + line + "\n")
    d = diagnose(tmp_path, reasoner="offline", workers=1)
    assert d.category == "hardware"


def test_setup_reading_must_be_in_the_vocabulary() -> None:
    from agent.knowledge.docs import KnowledgeDoc

    base = dict(id="x-doc", title="t", category="hardware", subcategory="network", stack="cuda",
                symptoms=["training_crash"], severity="low", node_local=False, sources=["https://example.org/a"])
    assert KnowledgeDoc(**base, setup_reading="platform/platform_configuration").setup_reading
    with pytest.raises(ValueError):
        KnowledgeDoc(**base, setup_reading="platform/network")


def test_a_hardware_doc_near_in_wording_needs_a_hardware_trace_in_the_log() -> None:
    # rcc-uchicago/pedramh-profiling e3sm_train_3166613.e: the module system's complaint shares
    # "error detected" with Xid 74's NVLink doc; without a device in the log it is no device fault.
    lmod = "Lmod has detected the following error: The following module(s) are unknown:"
    assert verdict(evidence(lmod, ["worker-1"], hits=(hit("hardware", "network", "xid-74"),)))[0] != "hardware"
    xid = "NVRM: Xid (PCI:0000:3b:00): 74, pid=1234, NVLink: fatal error detected on link 3"
    assert verdict(evidence(xid, ["worker-1"], hits=(hit("hardware", "network", "xid-74"),)))[0] == "hardware"


# hicann/hccl fault-diagnosis guide, task_exec_stage.md: two ranks' timeouts in one communicator.
HCCL_TAG = ("[ERROR] HCCL(2111665,all_reduce_test):2025-10-24-11:18:29.499.235 [task_exception_handler.cc:908] "
            "[2111665][TaskExecStage][Timeout][Host]Task run failed, base information is streamID:[2], taskID[21], "
            "tag[{op}_127.10.0.1%enp_60000_0_1761275812718970], AlgType(level 0-1-2):[fullmesh-ring-NHR].")
WATCHDOG = ("[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1520, OpType={op}, "
            "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600011 milliseconds before timing out.")


@pytest.mark.parametrize(
    ("lines", "mismatched"),
    [
        ([HCCL_TAG.format(op="AllReduce"), HCCL_TAG.format(op="AllGather")], True),
        ([HCCL_TAG.format(op="AllReduce"), HCCL_TAG.format(op="AllReduce")], False),  # a late rank: same op
        ([WATCHDOG.format(rank=0, op="ALLREDUCE"), WATCHDOG.format(rank=1, op="_ALLGATHER_BASE")], True),
        ([WATCHDOG.format(rank=0, op="ALLREDUCE"), WATCHDOG.format(rank=1, op="ALLREDUCE")], False),
    ],
)
def test_ranks_stopped_in_different_collectives_ran_different_code(lines: list[str], mismatched: bool) -> None:
    ev = evidence(lines[0], ["worker-0"], role_kind="wait")
    ev.diagnosis.events.append(event(lines[1], ["worker-1"]))
    d = OfflineReasoner().reason(ev)
    assert ((d.category, d.subcategory) == ("user", "script_bug")) == mismatched
    assert any("different collectives" in step for step in d.remediation) == mismatched


def test_a_doc_near_only_in_wording_gets_one_step_not_its_plan() -> None:
    from agent.knowledge import KnowledgeDoc

    doc = KnowledgeDoc(id="ray-host-oom", title="Ray worker died or could not register with the raylet: host low on memory", category="platform",
                       subcategory="resource_management", stack="any", symptoms=["training_crash"], severity="high",
                       node_local=True, remediation=["Cut host memory use.", "Use a larger node.", "Disable the memory monitor."],
                       collect_next=["free -g on the node"], sources=["https://example.org/ray"])
    ev = evidence("Unable to register worker with raylet. Failed to read data from the socket: End of file", ["worker-0"],
                  hits=(hit("platform", "resource_management", "ray-host-oom"),))
    ev.docs = {"ray-host-oom": doc}
    d = OfflineReasoner().reason(ev)
    steps = "\n".join(d.remediation)
    assert "nearest doc by wording" in steps and "Cut host memory use." in steps
    assert "Use a larger node." not in steps and "Disable the memory monitor." not in steps
    assert d.collect_next == ["free -g on the node"]
    # A guess never asks for a stack change: its first step that changes nothing installed is given, or none.
    doc.remediation = ["Upgrade datasets: pip install -U datasets.", "Cut host memory use."]
    steps = "\n".join(OfflineReasoner().reason(ev).remediation)
    assert "Cut host memory use." in steps and "Upgrade" not in steps
    doc.remediation = ["Upgrade datasets: pip install -U datasets.", 'Or pin fsspec: pip install "fsspec<2023.10".']
    assert "nearest doc by wording" not in "\n".join(OfflineReasoner().reason(ev).remediation)


def test_a_delete_that_finds_its_target_gone_lost_a_race_between_ranks() -> None:
    # modelscope/FunASR#2557: checkpoint pruning on every rank; the loser's rmtree finds the directory gone.
    gone = "FileNotFoundError: [Errno 2] No such file or directory: './train_outputs_full2/model.pt.ep0.5000'"
    mount_doc = (match("platform", "resource_management", id="storage-mount-missing-on-node"),)
    raced = evidence(gone, NODES[:1], library=mount_doc)
    raced.root_before = ["  File \"/usr/lib/python3.10/shutil.py\", line 729, in rmtree", "    os.rmdir(path)"]
    d = OfflineReasoner().reason(raced)
    assert (d.category, d.subcategory) == ("framework", "framework_bug")
    assert not any("does not exist where the job ran" in step for step in d.remediation)
    # The same message raised while opening a file is a missing path: the signature's reading holds.
    opened = evidence(gone, NODES[:1], library=mount_doc)
    opened.root_before = ["  File \"train.py\", line 12, in load", "    with open(path) as f:"]
    assert verdict(opened) == ("platform", "resource_management")


def test_a_script_bug_with_no_frame_of_the_users_code_is_the_stacks() -> None:
    # verl-project/verl#4962: every frame is verl's own (a pasted excerpt, no Traceback header).
    device = "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    frames = ['  File "verl/trainer/ppo/ray_trainer.py", line 273, in compute_advantage',
              "    advantages, returns = adv_estimator_fn(**adv_kwargs)",
              '  File "verl/trainer/ppo/core_algos.py", line 353, in compute_grpo_vectorized_outcome_advantage',
              "    scalars = (scores - mean_g[g]) / (std_g[g] + epsilon)",
              "               ~~~~~~~^~~~~~~~~~~"]
    script_doc = (hit("user", "script_bug"),)
    stack_only = evidence(device, NODES[:1], hits=script_doc)
    stack_only.root_before = ["Traceback (most recent call last):", *frames]
    assert verdict(stack_only) == ("framework", "framework_bug")
    # One frame of the job's own script on the stack: the script may well be at fault.
    own = evidence(device, NODES[:1], hits=script_doc)
    own.root_before = ['  File "/home/me/train_grpo.py", line 88, in <module>', "    main()", *frames]
    assert verdict(own) == ("user", "script_bug")
    # Python's own library says nothing about whose code it is; lines above the traceback are not frames.
    stdlib = evidence(device, NODES[:1], hits=script_doc)
    stdlib.root_before = ['  File "/home/me/train.py", line 5, in <module>', "step 10 loss 2.1",
                          '  File "/usr/lib/python3.10/shutil.py", line 729, in rmtree', "    os.rmdir(path)"]
    assert verdict(stdlib) == ("user", "script_bug")


def test_a_device_side_collective_timeout_under_a_wrapper_is_a_wait_not_a_link(tmp_path) -> None:
    # Ascend/pytorch#43: rank 0 preprocessed a large dataset inside main_process_first; the others'
    # barrier timed out. torch_npu's wrapper line leads, CANN's fftsplus timeout says what happened.
    lines = ['worker-1:   File "loader.py", line 163, in get_dataset',
             'worker-1:     with training_args.main_process_first(desc="pre-process dataset"):',
             "worker-1: RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:363 NPU error, error code is 107020",
             "worker-1: [ERROR] 2024-07-03-11:28:40 (PID:639, Device:0, RankID:16) ERR00100 PTA call acl api failed.",
             "worker-1: EI9999: Inner Error!",
             "worker-1: EI9999: 2024-07-03-11:28:40.419.527  The error from device(chipId:0, dieId:0), serial number is 1, "
             "hccl fftsplus task timeout occurred during task execution, stream_id:4, sq_id:4, task_id:5, stuck notify num:7,"]
    d = diagnose_one_file(tmp_path, "console.log", lines)
    assert (d.category, d.subcategory) == ("user", "configuration")


def test_a_device_fault_named_below_the_banner_decides_even_as_the_fourth_event(tmp_path) -> None:
    # The runtime's reason for the failed sync is the fault (torch_npu's "reason=[hbm Multi-bit ECC
    # error]", NPUException.h); MindSpore's sync error, the memory-check note and the E*9999 banner
    # above it only wrap it. Read on the first three events alone, the banner's generic doc decided
    # (a blind author's MindSpore job, read as a framework bug).
    lines = ["[ERROR] DEVICE(88434,ffffdab119fb,python):2024-10-11-15:25:56.483.917 "
             "[mindspore/ccsrc/plugin/device/ascend/hal/hardware/ge_device_res_manager.cc:501] SyncAllStreams] "
             "Sync default stream failed.",
             "[Error]: The device memory checked is abnormal.",
             "EZ9999: Inner Error!",
             "EZ9999: [PID: 88434] 2024-10-11-15:25:56.483.917 The error from device(chipId:6, dieId:0), serial number "
             "is 54, hbm Multi-bit ECC error occurred during task execution, stream_id:3, sq_id:3, task_id:1.",
             "        TraceBack (most recent call last):",
             "        rtDeviceSynchronize execute failed, reason=[hbm Multi-bit ECC error][FUNC:FuncErrorReason]"
             "[FILE:error_message_manage.cc][LINE:53]"]
    d = diagnose_one_file(tmp_path, "worker_22.log", lines)
    assert (d.category, d.subcategory) == ("hardware", "accelerator")


def test_a_node_its_peers_timeouts_name_is_lost_when_the_root_is_a_wait() -> None:
    from agent.extract.spatial import Blame

    # HCCL's "EI0006: ... Getting socket times out. Reason: Remote Rank did not send the data" on
    # two peers names a node that printed nothing (a blind author's job); the root is a peer's
    # RuntimeError around the timeout, not the naming line, so named_by_peers is empty.
    sync = "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error"
    ev = evidence(sync, NODES[:7], scope="global", suspect="worker-7", role_kind="wait", hits=(hit("hardware", "accelerator"),))
    assert ev.extraction is not None
    ev.extraction.cascades = [candidate("EI0006: Getting socket times out.", NODES[:2], "wait")]
    ev.extraction.blame = Blame({n: 0.0 for n in NODES}, {"worker-7": {"worker-0", "worker-1"}}, {"worker-7": {1}})
    assert verdict(ev) == ("hardware", "node")
    # Named by one peer of seven, it is no more than a suspect.
    ev.extraction.blame = Blame({n: 0.0 for n in NODES}, {"worker-7": {"worker-0"}}, {"worker-7": {1}})
    assert verdict(ev) != ("hardware", "node")


def test_a_start_up_warning_a_benign_doc_explains_is_no_root(tmp_path) -> None:
    from agent.pipeline import Diagnoser

    # torch_npu warns "Device do not support double dtype now, dtype cast repalce with float" at
    # every start-up (knowledge/ascend/torch-npu-double-dtype-cast-to-float.md, `benign: true`).
    # Matching its doc once boosted it to the root over the node's own HCCL listen error 26 lines
    # later (a blind author's job with no training progress to date the episode).
    lines = ["2024-06-01 10:00:01 INFO launcher started",
             "[W compiler_depend.ts:133] Warning: Device do not support double dtype now, dtype cast repalce with "
             "float. (function operator())",
             *[f"2024-06-01 10:00:{i:02d} INFO building layer {chr(97 + i)}" for i in range(2, 28)],
             "[ERROR] HCCL(3301,python):2024-06-01-10:00:40.100.100 [hccl_socket_manager.cc:101] [3301][InitSocket] "
             "socket listen failed, port[60000] is already in use"]
    logs = tmp_path / "logs"
    logs.mkdir()
    for node in ("node027", "node028", "node029"):
        (logs / f"{node}.log").write_text("\n".join(lines if node == "node028" else lines[:-1]) + "\n")
    d = Diagnoser(reasoner="offline").diagnose(logs, workers=1)
    assert "socket listen failed" in d.events[0].template
    assert "torch-npu-double-dtype-cast-to-float" not in (d.root_cause or "")


def test_a_dataloader_relay_looks_at_the_workers_own_traceback() -> None:
    # PyTorch relays a worker's exception ("IndexError: Caught IndexError in DataLoader worker
    # process 4.") under the main process's frames, all in the installed stack, and prints the
    # worker's own traceback below it ("Original Traceback (most recent call last):"). A frame of
    # the job's own dataset code there makes it the script's bug, not the framework's.
    relay = "IndexError: Caught IndexError in DataLoader worker process 4."
    above = ["Traceback (most recent call last):",
             '  File "/usr/local/python3.10/lib/python3.10/site-packages/transformers/trainer.py", line 1938, in train',
             "    return inner_training_loop(",
             '  File "/usr/local/python3.10/lib/python3.10/site-packages/torch/utils/data/dataloader.py", line 631, in __next__',
             "    data = self._next_data()"]
    below = ["Original Traceback (most recent call last):",
             '  File "/usr/local/python3.10/lib/python3.10/site-packages/torch/utils/data/_utils/worker.py", line 308, in _worker_loop',
             "    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]",
             '  File "/workspace/data/packed_dataset.py", line 88, in __getitem__',
             "    last = ids[-1] if ids[-1] == self.eos_id else ids[self.seq_len - 1]",
             "IndexError: list index out of range"]
    ev = evidence(relay, NODES[:1], library=(match("user", "script_bug"),))
    ev.root_before, ev.root_after = above, below
    assert verdict(ev) == ("user", "script_bug")
    # With the worker's frames in the installed stack too, the frames lead to the framework.
    ev.root_after = [*below[:3], "IndexError: list index out of range"]
    assert verdict(ev) == ("framework", "framework_bug")


def test_without_a_doc_the_advice_says_where_the_fix_lives_for_the_reading() -> None:
    # A scheduler's stop with no doc to explain it (aws-samples/awsome-distributed-training Kueue README):
    # the advice points at the scheduler's own record, not only "read the evidence".
    d = OfflineReasoner().reason(evidence("Preempted to accommodate a workload due to prioritization in the ClusterQueue",
                                          ["worker-0"]))
    assert (d.category, d.subcategory) == ("platform", "scheduling")
    assert any("sacct" in step and "checkpoint" in step for step in d.remediation)
