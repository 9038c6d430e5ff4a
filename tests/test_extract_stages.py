"""Stages (``agent.extract.stages``): which markers a message is, and which stage a
failure happened in, read from the whole job."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent.extract import extract
from agent.extract.stages import stage_at, stage_of_template
from agent.mining import mine_job
from agent.records import NodeLog


@pytest.mark.parametrize(
    ("template", "stage"),
    [
        ("successfully saved checkpoint to /ckpt/iter_100", "checkpoint_done"),
        ("saving checkpoint at iteration <NUM> to <PATH>", "checkpoint"),
        ("writing model states shard <NUM>", "checkpoint"),
        ("building train, validation, and test datasets", "data_loading"),
        ("loading tokenizer from /models/llama", "data_loading"),  # data before model
        ("loading checkpoint from <PATH>", "model_loading"),
        ("building GPT model ...", "model_loading"),
        ("init_process_group backend=nccl world_size <NUM>", "init"),
        ("CUDA error: an illegal memory access was encountered", None),
        # tqdm's bar over training steps reports the loss (pedramh-profiling e3sm_train_3166345.e)
        ("Epoch [<NUM>/<NUM>], Year <NUM>, Loss: <NUM>: <NUM>%| | <ITER>/<NUM> [<NUM>:<NUM><<NUM>:<NUM>:<NUM>, <NUM>s/it]",
         "training"),
        ("Loading checkpoint shards: <NUM>%| | <NUM>/<NUM> [<NUM>:<NUM><<NUM>:<NUM>, <NUM>s/it]", "model_loading"),
        # a bar named after training counts steps with no loss shown (volcengine/verl#5771, LeeChangmin0310/RARE-3D)
        ("Training Progress: <NUM>%|██████▎ | <NUM>/<NUM> [<NUM>:<NUM><<NUM>:<NUM>, <NUM>s/it]", "training"),
        ("dqn train: <NUM>%| | <NUM>/<NUM> [<NUM>:<NUM><?, ?it/s]", "training"),
        ("Map (num_proc=<NUM>): <NUM>%| | <NUM>/<NUM> [<NUM>:<NUM><<NUM>:<NUM>, <NUM> examples/s]", None),
    ],
)
def test_stage_of_template(template: str, stage: str | None) -> None:
    assert stage_of_template(template) == stage


def node_log(tids: list[int]) -> NodeLog:
    n = len(tids)
    return NodeLog(
        "n0", Path("n0.log"), np.array(tids, dtype=np.int64), np.arange(1, n + 1, dtype=np.int32),
        np.arange(n, dtype=float), np.ones(n, dtype=bool), np.zeros(n, dtype=np.int8), np.full(n, -1, dtype=np.int32),
        {}, {},
    )


MARKS = {1: "init", 2: "data_loading", 3: "model_loading", 4: "training", 5: "checkpoint", 6: "checkpoint_done"}


@pytest.mark.parametrize(
    ("tids", "stage"),
    [
        ([9, 9], "init"),
        ([1, 2], "data_loading"),
        ([1, 3, 2], "data_loading"),  # the latest loading marker wins
        ([2, 1], "data_loading"),  # lazy NCCL set-up never sends the stage back to init
        ([2, 4], "training"),
        ([4, 5], "checkpoint"),
        ([4, 5, 6], "training"),
        ([5], "init"),  # a save before training is not the checkpoint stage
        ([4, 3], "training"),  # once training began, only saves change it
    ],
)
def test_stage_at(tids: list[int], stage: str) -> None:
    assert stage_at(node_log(tids), len(tids) - 1, MARKS) == stage


def test_stage_at_reads_only_up_to_the_position() -> None:
    assert stage_at(node_log([2, 4, 5]), 1, MARKS) == "training"


PROGRESS = [f"2024-10-02 10:00:{s:02d} INFO iteration {s}/ 100 | loss 2.5 | lr 1e-4" for s in range(1, 21)]
INIT = ["2024-10-02 09:59:00 INFO init_process_group world_size 2"]
DATA = ["2024-10-02 09:59:10 INFO building train dataset from /data/x"]
SAVE = ["2024-10-02 10:00:21 INFO saving checkpoint at iteration 20 to /ckpt"]
SAVED = ["2024-10-02 10:00:23 INFO successfully saved checkpoint at iteration 20"]


@pytest.mark.parametrize(
    ("n0", "n1", "stage"),
    [
        (INIT, INIT, "init"),
        (INIT + DATA, INIT, "data_loading"),  # only rank 0 announces datasets; the error is on n1
        (INIT + DATA + PROGRESS, INIT + DATA + PROGRESS, "training"),
        (INIT + PROGRESS + SAVE, INIT + PROGRESS, "checkpoint"),  # n0 announces the save n1 fails in
        (INIT + PROGRESS + SAVE + SAVED, INIT + PROGRESS, "training"),
    ],
)
def test_the_failure_stage_reads_the_whole_job(tmp_path: Path, n0: list[str], n1: list[str], stage: str) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "n0.log").write_text("\n".join(n0) + "\n")
    (logs / "n1.log").write_text("\n".join([*n1, "2024-10-02 10:00:25 ERROR OSError: No space left on device"]) + "\n")
    ex = extract(mine_job(logs, workers=1))
    assert "No space left" in ex.events[0].template
    assert ex.stage == stage


@pytest.mark.parametrize(
    ("lines", "root_index", "stage"),
    [
        # Real lines: hiyouga/LlamaFactory#5491 (NPU OOM while loading shards) and the
        # bigscience tr1-13B chronicles (ECC error during the pipeline's backward pass).
        (['  File "/usr/local/python3.10.13/lib/python3.10/site-packages/transformers/modeling_utils.py", '
          'line 4415, in _load_pretrained_model',
          "RuntimeError: NPU out of memory. Tried to allocate 386.00 MiB (NPU 2; 60.97 GiB total capacity)"],
         1, "model_loading"),
        (['  File "/gpfsssd/worksf/projects/rech/six/commun/code/tr1-13B/DeepSpeed-big-science/deepspeed/runtime/pipe/'
          'engine.py", line 291, in train_batch',
          '  File "/gpfswork/rech/six/commun/conda/tr1-13B/lib/python3.8/site-packages/torch/autograd/__init__.py", '
          'line 145, in backward',
          "RuntimeError: transform: failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered"],
         2, "training"),
        # databrickslabs/dolly#139: the disk filled up inside torch.save.
        (['2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160]   File '
          '"/opt/conda/lib/python3.7/site-packages/torch/serialization.py", line 604, in _save',
          "2023-04-29 06:01:12.977 [177/train/578 (pid 28936)] [09c561ee-a44c-4795-967c-7183a83b3160] OSError: "
          "[Errno 28] No space left on device"], 1, "checkpoint"),
        # rwth-i6/returnn#1467: DDP's training forward context; a module's forward runs in a step.
        (['  File "/home/user/returnn/returnn/torch/engine.py", line 414, in ddp_train_forward_ctx',
          "AttributeError: 'DistributedDataParallel' object has no attribute 'num_iterations'"], 1, "training"),
        (['  File "/opt/venv/lib/python3.10/site-packages/torch/nn/modules/module.py", line 1527, in forward',
          "TypeError: forward() takes 2 positional arguments but 3 were given"], 1, "training"),
        # VirenLoka/GlueFormer torchrun logs: the innermost frame's statement makes the failing call.
        (['[rank0]:   File "/home/jovyan/GlueFormer/train.py", line 583, in train',
          "[rank0]:     save_checkpoint(",
          "[rank0]:     ~~~~~~~~~~~~~~~^",
          "[rank0]: TypeError: save_checkpoint() got an unexpected keyword argument 'is_best'"], 3, "checkpoint"),
        # PrimeIntellect-ai/prime-rl#721: an outer statement was still evaluating its argument in a deeper frame.
        (['  File "/p/src/prime_rl/trainer/sft/train.py", line 274, in main',
          "    train(parse_argv(SFTTrainerConfig))",
          '  File "/p/src/prime_rl/utils/pydantic_config.py", line 269, in parse_argv',
          "    config = config_cls(_cli_parse_args=to_kebab_case(cli_args))",
          "pydantic_core._pydantic_core.ValidationError: 1 validation error for SFTTrainerConfig"], 4, None),
        # Lottotpk/graphRAG_multimodal LaViC README: Lightning wraps the model in FSDP before any step.
        (['[rank0]:   File "/env/lib/python3.12/site-packages/lightning/pytorch/strategies/fsdp.py", line 265, in _setup_model',
          '[rank0]:   File "/env/lib/python3.12/site-packages/torch/distributed/fsdp/_flat_param.py", line 785, in '
          '_validate_tensors_to_flatten',
          "[rank0]: ValueError: Must flatten tensors with uniform dtype but got torch.float16 and torch.float32"], 2,
         "model_loading"),
        (["RuntimeError: something failed"], 0, None),
    ],
)
def test_a_traceback_names_the_stage(lines: list[str], root_index: int, stage: str | None) -> None:
    from agent.extract.stages import frame_stage

    assert frame_stage(lines, root_index) == stage


@pytest.mark.parametrize(
    ("text", "stage"),
    [
        # pytorch/pytorch docs/source/distributed.md (TORCH_DISTRIBUTED_DEBUG example)
        ("RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one.", "training"),
        # Ascend/pytorch troubleshooting cases
        ("RuntimeError: one of the variables needed for gradient computation has been modified by an inplace "
         "operation: [torch.FloatTensor [5]], which is output 0 of AddBackward0", "training"),
        ("OSError: [Errno 28] No space left on device", None),
        # A watchdog thousands of collectives into its communicator's sequence (modelscope/FunASR#2006)
        # timed out in a training step; the second collective of a job (hiyouga/LlamaFactory#2424) did not,
        # and hundreds can still be set-up (a DeepSpeed engine broadcasts every parameter on start).
        ("[rank5]:[E ProcessGroupNCCL.cpp:563] [Rank 5] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=15734, "
         "OpType=ALLREDUCE, NumelIn=220084533, NumelOut=220084533, Timeout(ms)=600000) ran for 600037 milliseconds before "
         "timing out.", "training"),
        ("[Rank 2] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, NumelIn=1, "
         "NumelOut=1, Timeout(ms)=1800000) ran for 1800328 milliseconds before timing out.", None),
        # HCCL's task-execution stage is a collective running; its init stages are set-up (hicann/hccl guide).
        ("[ERROR] HCCL(2111665,all_reduce_test):2025-10-24-11:18:29.499.235 [task_exception_handler.cc:908] "
         "[2111665][TaskExecStage][Timeout][Host]Task run failed, base information is", "training"),
        ("[ERROR] HCCL(1104629,test_one_side):2025-10-28-17:45:13.679.684 [param_check.cc:66] "
         "[1104629][InitGroupStage][RanktableConfig]errNo[0x0000000005010001] path is not real", None),
        # Autograd's anomaly mode checks the backward pass (NVIDIA/TransformerEngine#1101).
        ("[rank5]: RuntimeError: Function 'FusedAttnFuncBackward' returned nan values in its 2th output.", "training"),
    ],
)
def test_some_errors_can_only_come_from_a_training_step(text: str, stage: str | None) -> None:
    from agent.extract.stages import message_stage

    assert message_stage(text) == stage


def test_mlperf_records_name_their_phase() -> None:
    from agent.extract.stages import stage_of_template

    # mlcommons/training_results_v4.0, Oracle resnet result log
    run = (':::MLLOG {"namespace": "", "time_ms": 1714536267079, "event_type": "INTERVAL_START", "key": "run_start", '
           '"value": null, "metadata": {"file": "/workspace/image_classification/common/fit.py", "lineno": 1338}}')
    assert stage_of_template(run) == "training"
    assert stage_of_template(run.replace("run_start", "init_start")) != "training"
    assert stage_of_template(run.replace("run_start", "weights_initialization")) == "model_loading"


def test_an_excerpt_with_no_stage_marker_takes_the_stage_its_message_most_likely_came_from(tmp_path: Path) -> None:
    from agent.pipeline import Diagnoser

    def stage_of(name: str, lines: list[str]) -> str:
        logs = tmp_path / name
        logs.mkdir()
        (logs / "console.log").write_text("\n".join(lines) + "\n")
        return Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1).stage

    # MischaDy/electricity-uq job.err: device memory peaks in the forward and backward passes.
    assert stage_of("oom", ["torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 36.79 GiB"]) == "training"
    # kevinrankine/cs287-final: a time limit ends a job in its longest phase.
    assert stage_of("limit", ["slurmstepd: error: *** JOB 61407695 ON holygpu8a11 CANCELLED AT 2023-04-30T01:05:15 "
                              "DUE TO TIME LIMIT ***"]) == "training"
    # A loading marker before it still decides: the model did not fit while loading.
    assert stage_of("loading", ["Loading checkpoint shards from /models/qwen-72b",
                                "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.02 GiB"]) == "model_loading"
    assert stage_of("other", ["RuntimeError: NCCL error: unhandled system error"]) == "init"
    # A kernel's own fault needs a step to run; a host's memory runs out in the longest phase.
    assert stage_of("illegal", ["torch.AcceleratorError: CUDA error: an illegal memory access was encountered"]) == "training"
    assert stage_of("devices", ["RuntimeError: Expected all tensors to be on the same device, but found at least two "
                                "devices, cuda:0 and cpu!"]) == "training"
    assert stage_of("cgroup", ["slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0. Some of "
                               "your processes may have been killed by the cgroup out-of-memory handler."]) == "training"
    assert stage_of("import", ["ModuleNotFoundError: No module named 'apex'"]) == "init"
    # Only loading a checkpoint into the model reads its keys and its pickle (NVIDIA/NeMo-Aligner known errors,
    # THUDM/slime#686).
    assert stage_of("keys", ["RuntimeError: Missing key in checkpoint state_dict: "
                             "model.decoder.layers.self_attention.core_attention._extra_state/shard_0_24."]) == "model_loading"
    assert stage_of("pickle", ["_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, "
                               "to do so you have two options"]) == "model_loading"
    # Only a data loader's worker or reader reports its own death (pangeo-data/pangeo-docker-images#258,
    # facebookresearch/detectron2#384, PaddlePaddle/PaddleClas FAQ).
    assert stage_of("shm", ["ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
                            "shared memory (shm)."]) == "data_loading"
    assert stage_of("worker", ["RuntimeError: DataLoader worker (pid(s) 25) exited unexpectedly"]) == "data_loading"
    assert stage_of("reader", ["SystemError: (Fatal) Blocking queue is killed because the data reader raises an "
                               "exception."]) == "data_loading"


def test_a_data_loader_worker_dying_mid_training_is_data_loading(tmp_path: Path) -> None:
    # Steps were running, then a DataLoader worker died of a bus error (the worker's report and the
    # main process's RuntimeError, pangeo-data/pangeo-docker-images#258): the step only waited on a
    # batch; the data pipeline is what failed. The iteration stays the step it died in.
    from agent.pipeline import Diagnoser

    lines = [f"2024-09-15 05:1{i // 10}:{i % 10}0,000 INFO iteration {i}/1000 | lm loss: 2.{i:02d}" for i in range(1, 41)]
    lines += ["2024-09-15 05:19:37,102 ERROR: Unexpected bus error encountered in worker. This might be caused by "
              "insufficient shared memory (shm).",
              "2024-09-15 05:19:39,147 RuntimeError: DataLoader worker (pid 239) is killed by signal: Bus error."]
    logs = tmp_path / "job"
    logs.mkdir()
    (logs / "worker-0.log").write_text("\n".join(lines) + "\n")
    diagnosis = Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1)
    assert diagnosis.stage == "data_loading"
    assert diagnosis.symptom == "training_crash"
    assert diagnosis.iterations[:1] == [41]  # the step after the last one logged
    # A step's own failure after the same steps stays training.
    (logs / "worker-0.log").write_text("\n".join([*lines[:40], "2024-09-15 05:19:37,102 torch.OutOfMemoryError: "
                                                                "CUDA out of memory. Tried to allocate 2.00 GiB"]) + "\n")
    assert Diagnoser(reasoner="offline", library=None, kb=None).diagnose(logs, workers=1).stage == "training"


def test_megatrons_training_start_stamp_marks_training() -> None:
    # bigscience-workshop/bigscience meg_gpt2 Slurm logs
    assert stage_of_template("[before the start of training step] datetime: <TS>") == "training"


def test_an_undated_root_after_its_files_last_line_takes_the_stage_the_job_failed_in(tmp_path: Path) -> None:
    # An Xid with no time under the faulty node's last NCCL set-up line, while its peers train
    # until the job stops (independent corpus F, f01: "NVRM: Xid (PCI:0000:ab:00): 48, ...").
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "n0.log").write_text("\n".join([*INIT, "2024-10-02 09:59:30 INFO NCCL INFO comm 0x1 rank 8 nranks 16 - Init COMPLETE",
                                            "NVRM: Xid (PCI:0000:ab:00): 48, pid=42269, name=python3, An uncorrectable double "
                                            "bit error (DBE) has been detected on GPU in the framebuffer"]) + "\n")
    (logs / "n1.log").write_text("\n".join([*INIT, *DATA, *PROGRESS,
                                            "2024-10-02 10:10:30 ERROR [Rank 0] Watchdog caught collective operation timeout"]) + "\n")
    ex = extract(mine_job(logs, workers=1))
    assert "Xid" in ex.events[0].template
    assert ex.stage == "training"


def test_a_file_with_no_time_beside_stamped_ones_is_dated_by_the_failure(tmp_path: Path) -> None:
    # Independent corpus I, c10: the pods log with kubectl's timestamps and train; the events dump
    # ("12m  Warning  OOMKilling ...") has no time of its own and names the kill that ended training.
    logs = tmp_path / "logs"
    (logs / "pods").mkdir(parents=True)
    steps = [f"2025-03-17T07:{10 + i // 60:02d}:{i % 60:02d}.000000Z {{'loss': 1.9, 'learning_rate': 1e-05, 'epoch': 0.{i}}}"
             for i in range(0, 240, 5)]
    steps += [f"2025-03-17T07:{10 + i // 60:02d}:{i % 60:02d}.500000Z   2%|▏         | {i // 5}/1000 [01:00<07:20,  2.00it/s]"
              for i in range(0, 240, 5)]
    steps.sort()
    (logs / "pods" / "worker-0.log").write_text("\n".join(steps) + "\n")
    (logs / "pods" / "master-0.log").write_text("\n".join([
        *(s.replace("{'loss'", "{'eval_loss'") for s in steps[::4]),
        "2025-03-17T07:24:01.000000Z [rank0]:[E0317 07:24:01.000 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=4201, OpType=ALLREDUCE, NumelIn=32, NumelOut=32, Timeout(ms)=600000) ran for "
        "600000 milliseconds before timing out."]) + "\n")
    (logs / "kubectl_events.txt").write_text(
        "LAST SEEN   TYPE      REASON       OBJECT                               MESSAGE\n"
        "12m         Warning  OOMKilling  node/gpu-node-55  Memory cgroup out of memory: Killed process 155197 (python) "
        "total-vm:312345678kB, anon-rss:251234567kB, file-rss:81234kB, shmem-rss:4096kB, UID:0 pgtables:512340kB oom_score_adj:999\n")
    from agent.pipeline import fault_library
    extraction = extract(mine_job(logs, workers=1), None, fault_library())
    assert "OOMKilling" in extraction.events[0].template
    assert extraction.stage == "training"
