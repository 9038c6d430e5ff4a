"""Stages: which part of the job (init, data or model loading, training, checkpoint) a
moment belongs to.

Stages come from rules over message templates that hold across Megatron, DeepSpeed,
torch_npu/MindSpeed and generic logs (the markers below). A node's own markers are not
enough: often only rank 0 announces "building datasets" or a checkpoint save, so the
stage at a moment reads the whole job.
"""

from __future__ import annotations

import math
import re

import numpy as np

from ..mining import MinedJob
from ..records import NodeLog
from .progress import PROGRESS_BAR, Timeline
from .table import EventStats, EventTable
from .weights import DEFAULT_WEIGHTS, Weights

_CKPT_SAVE_DONE = re.compile(
    r"(?i)(successfully\s+saved|saved\s+(the\s+)?checkpoint|checkpoint\s+(is\s+)?saved|save[d]?\b.*\b(done|complete|finished))"
)
_CKPT_SAVE = re.compile(
    r"(?i)(\bsav(e|ing)\b.{0,40}(checkpoint|ckpt|state)|(checkpoint|ckpt).{0,40}\bsav(e|ing)\b|save_checkpoint|"
    r"\bwrit(e|ing)\b.{0,30}(checkpoint|ckpt|shard|model.?states|optim))"
)
_MODEL_LOADING = re.compile(
    r"(?i)(load(ing|ed)?\b.{0,40}(checkpoint|ckpt|model|weights|state.?dict|shard)|build(ing)?\s+(the\s+)?(gpt\s+)?model"
    r"|number of parameters|model (config|architecture|parallel)|parameters? on (\(tensor|rank)|initiali[sz]\w* (the )?model"
    r"|load_checkpoint|from_pretrained)"
)
_DATA_LOADING = re.compile(
    r"(?i)(dataset|dataloader|data loader|tokeni[sz]|\bsamples?\b.{0,20}(index|mapping|shuffle)|index (file|map)|"
    r"data.?(path|prefix|split|cache)|building (train|valid|test)|\bshuffle)"
)
_INIT = re.compile(
    r"(?i)(init_process_group|rendezvous|\bnccl\b|\bhccl\b|world.?size|master_addr|master_port|environment|"
    r"\bversion\b|\bpip\b|install|launch|torchrun|elastic|process.?group|visible.?devices|device count|"
    r"initiali[sz](e|ing|ed)\b|local.?rank|\bpid\b)"
)

# MLPerf's logging library names the phase in each record's key: the timed run (training,
# with its blocks, epochs and evaluations) begins at "run_start"; weights are initialised
# before it. Real line (mlcommons/training_results_v4.0, Oracle resnet result log):
#   :::MLLOG {"namespace": "", "time_ms": 1714536267079, "event_type": "INTERVAL_START", "key": "run_start", ...
_MLLOG_TRAINING = re.compile(r'"key": "(?:run_start|block_start|epoch_start|eval_start)"')
_MLLOG_MODEL = re.compile(r'"key": "weights_initialization"')

# A progress bar (``progress.PROGRESS_BAR``) that reports a loss counts training steps; loading
# bars count shards or files and print no loss. Real line (tqdm, pedramh-profiling e3sm_train_3166345.e):
#   "Epoch [1/100], Year 2015, Loss: 0.1432:   0%|          | 19/9125 [25:54<181:35:17, 71.79s/it]"
_LOSS = re.compile(r"(?i)\bloss\b")
# So does a bar whose description names training or an epoch (loading bars name shards,
# files or the dataset). Real lines: "Training Progress:  62%|██████▎   | 10/16 [04:00<02:34,
# 25.75s/it]" (volcengine/verl#5771), "dqn train:   0%|          | 0/2000 [00:00<?, ?it/s]"
# (LeeChangmin0310/RARE-3D logs/train_dqn_seed0.log).
_TRAINING_BAR = re.compile(r"(?i)\b(?:train(?:ing)?|epoch)\b[^|%]{0,60}%\|")

# Megatron stamps the moment its training loop begins: "[before the start of training step]
# datetime: 2021-05-24 09:40:38" (bigscience-workshop/bigscience, meg_gpt2 Slurm logs).
_TRAINING_START = re.compile(r"before the start of training step")

WORKFLOW_STAGES = ("model_loading", "data_loading", "checkpoint", "checkpoint_done")  # steps, not faults

# A traceback names the function that failed. Without progress lines (a pasted excerpt)
# the innermost frame with a stage's function says where the job was. Real frames:
#   File ".../megatron/training.py", line 714, in train_step    (EleutherAI/gpt-neox slurm/llemma-f-0.2 debug log)
#   File ".../torch/serialization.py", line 1040, in load       (model loading, torch.load)
#   File ".../lightning/pytorch/strategies/fsdp.py", line 265, in _setup_model   (wrapping the model in FSDP before
#   any step, Lottotpk/graphRAG_multimodal LaViC README)
#   File ".../returnn/torch/engine.py", line 414, in ddp_train_forward_ctx   (rwth-i6/returnn#1467)
#   File ".../main.py", line 211, in training_loop; ..., in forward       (MrCogito/Deep_learning_2023 slurm logs)
# A module's forward runs in the training (or evaluation) step; loading a model does not call it.
_FRAME = re.compile(r"""(?:File "[^"]*"|File <PATH>), line (?:\d+|<NUM>), in (?P<func>[\w<>.]+)""")
_FRAME_STAGES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("checkpoint", re.compile(r"(?i)^(save_checkpoint|_save_checkpoint|save_pretrained|save_model|save_state|_save)$")),
    ("model_loading", re.compile(
        r"(?i)^(load_checkpoint|_load_checkpoint|load_state_dict|from_pretrained|_load_pretrained_model|build_model|"
        r"get_model|setup_model_and_optimizer|model_provider|load_model|_load_state_dict_into_model|"
        r"_?setup_model|_?wrap_model|configure_model|prepare_model)$")),
    ("data_loading", re.compile(
        r"(?i)^(__getitem__|_next_data|_get_data|build_train_valid_test_datasets|build_dataset|_build_dataset|"
        r"get_batch|_process_data|load_dataset|tokenize|_tokenize|preprocess\w*)$")),
    ("training", re.compile(
        r"(?i)^(backward|train_step|training_step|forward_backward\w*|train_batch|_inner_training_loop|"
        r"train_epoch|optimizer_step|step|train|training_loop|train_loop|train_one_epoch|\w*train_forward\w*|forward)$")),
    ("init", re.compile(
        r"(?i)^(init_process_group|_init_process_group|initialize_distributed|_initialize_distributed|"
        r"rendezvous|_create_c10d_store|init_distributed|initialize_megatron)$")),
)
FRAME_WINDOW = 120  # lines around the root searched for its traceback

# Messages only a training step can print (the backward pass, DDP's gradient reduction):
# with no progress line and no frame, the error itself says the job was training. Real lines:
#   "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one."
#       (pytorch/pytorch docs/source/distributed.md, TORCH_DISTRIBUTED_DEBUG example)
#   "RuntimeError: one of the variables needed for gradient computation has been modified by an
#    inplace operation" (Ascend/pytorch troubleshooting cases)
#   "RuntimeError: Function 'FusedAttnFuncBackward' returned nan values in its 2th output." and
#   "Error detected in FusedAttnFuncBackward." (autograd's anomaly mode, NVIDIA/TransformerEngine#1101)
_TRAINING_ONLY = re.compile(
    r"finished reduction in the prior iteration|variables needed for gradient computation|"
    r"did not receive grad|element \d+ of tensors does not require grad|Gradient overflow|"
    r"\bloss (?:is |= ?)?(?:nan|inf)\b|Backward\d*' returned nan values|Error detected in \w+Backward",
    re.I,
)


# PyTorch's watchdog names the collective's place in its communicator's sequence ("WorkNCCL(
# SeqNum=15734, OpType=ALLREDUCE, ...)", modelscope/FunASR#2006). Set-up can run hundreds (a
# DeepSpeed engine broadcasts every parameter tensor on start), so only thousands say training.
_NCCL_SEQ = re.compile(r"SeqNum=(\d+)")
TRAINING_SEQ = 5000


# Messages that say where a job most likely was when nothing else does: device memory peaks in
# the forward and backward passes, a kernel's own fault (an illegal address, a device-side
# assert, tensors on two devices) needs a step to run, and a host's memory or a scheduler's
# limit runs out in the longest phase. Used only when no traceback frame, progress line or
# loading marker names the stage. Real lines:
#   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 36.79 GiB" (MischaDy/electricity-uq job.err)
#   "slurmstepd: error: *** JOB 61407695 ON holygpu8a11 CANCELLED AT ... DUE TO TIME LIMIT ***"
#   (kevinrankine/cs287-final), "=>> PBS: job killed: walltime 3633 exceeded limit 3600"
#   (pedramh-profiling), "TERM_RUNLIMIT: job killed after reaching LSF run time limit." (MrCogito/Deep_learning_2023)
#   "RuntimeError: Expected all tensors to be on the same device. Expected NPU tensor, ..." (Ascend/pytorch
#   troubleshooting cases), "torch.AcceleratorError: CUDA error: an illegal memory access was encountered"
#   and "... CUDA error: device-side assert triggered" (huggingface/trl benchmark/fix_fsdp_sonic.md,
#   debug_liger_ep.md), "RuntimeError: Trying to backward through the graph a second time" (open-mmlab/mmcv FAQ)
#   "slurmstepd-gpu20-15: error: Detected 1 oom-kill event(s) in StepId=9411285.0." (ZwwWayne/K-Net#30),
#   "Out of memory: Killed process 410126 (python)" (2U1/Qwen-VL-Series-Finetune#135 dmesg), "reason: OOMKilled"
#   (microsoft/pai#5464), "slurmstepd: error: Exceeded job memory limit" (coqui-ai/STT#2238)
_LIKELY_TRAINING = re.compile(
    r"out of memory\. Tried to allocate|DUE TO TIME LIMIT|PBS: job killed: walltime|TERM_RUNLIMIT|"
    r"Expected all tensors to be on the same device|an illegal memory access was encountered|device-side assert triggered|"
    r"backward through the graph a second time|Out of memory: Killed process|oom-kill|OOMKilled|Exceeded job memory limit"
)


# Messages that only loading a checkpoint into a model prints: its keys, its pickle, the
# training state saved with it. Real lines: "RuntimeError: Missing key in checkpoint state_dict:
# model.decoder.layers...." (NVIDIA/NeMo-Aligner known errors), "_pickle.UnpicklingError: Weights only
# load failed." (THUDM/slime#686), "[rank5]: \tMissing key(s) in state_dict: ..." (Ascend MindSpeed-MM
# LoRA), "AnnealingLR: class input value 1e-05 and checkpointvalue 3e-05 for learning rate do not
# match" (bigscience-workshop/bigscience tr8-104B chronicles).
_LIKELY_MODEL_LOADING = re.compile(
    r"Missing key\(s\) in state_dict|Unexpected key\(s\) in state_dict|Error\(s\) in loading state_dict|"
    r"Missing key in checkpoint state_dict|Weights only load failed|PytorchStreamReader failed reading zip archive|"
    r"\bcheckpointvalue\b"
)


# Messages only a data loader's worker or reader prints: the loader reports its worker's
# death, whatever killed it. Real lines: "ERROR: Unexpected bus error encountered in worker. This
# might be caused by insufficient shared memory (shm)." (torch/utils/data/_utils/signal_handling.py;
# pangeo-data/pangeo-docker-images#258), "RuntimeError: DataLoader worker (pid(s) 25) exited
# unexpectedly" (facebookresearch/detectron2#384), "SystemError: (Fatal) Blocking queue is killed
# because the data reader raises an exception" (PaddlePaddle/PaddleClas FAQ).
_LIKELY_DATA_LOADING = re.compile(
    r"encountered in worker\. This might be caused by insufficient shared memory|DataLoader worker \(pid|"
    r"Blocking queue is killed because the data reader"
)


# The pipeline's own failures: its shared-memory transport (a worker's bus error) and its reader
# raising. A worker "killed by signal: Killed" is a casualty of whatever killed it (a host OOM
# killer choosing the biggest process; an independent author's job labels that training).
_DATA_PIPELINE_FAILED = re.compile(
    r"encountered in worker\. This might be caused by insufficient shared memory|"
    r"DataLoader worker \(pid \d+\) is killed by signal: Bus error|Blocking queue is killed because the data reader"
)


def is_data_pipeline_death(text: str) -> bool:
    """Whether the line reports the data pipeline itself failing (a DataLoader worker's bus error
    on shared memory, Paddle's reader raising). That is data loading even in the middle of
    training: the step only waited on a batch that never came."""
    return bool(_DATA_PIPELINE_FAILED.search(text))


def likely_stage(text: str) -> str | None:
    """The stage a message most likely came from (absent other evidence): ``training``,
    ``data_loading`` or ``model_loading``, else None."""
    if _LIKELY_TRAINING.search(text):
        return "training"
    if _LIKELY_DATA_LOADING.search(text):
        return "data_loading"
    return "model_loading" if _LIKELY_MODEL_LOADING.search(text) else None


# HCCL names the phase an error hit; in [TaskExecStage] a collective was running, which set-up
# ([InitGroupStage], [InitChannelStage]) does not do. Real line (hicann/hccl fault-diagnosis guide,
# task_exec_stage.md): "[ERROR] HCCL(2111665,all_reduce_test):2025-10-24-11:18:29.499.235
# [task_exception_handler.cc:908] [2111665][TaskExecStage][Timeout][Host]Task run failed, ..."
_HCCL_TASK_STAGE = re.compile(r"\[TaskExecStage\]")


def message_stage(text: str) -> str | None:
    """``training`` when the message can only come from a training step, else None."""
    if _TRAINING_ONLY.search(text) or _HCCL_TASK_STAGE.search(text):
        return "training"
    seq = _NCCL_SEQ.search(text)
    return "training" if seq and int(seq.group(1)) >= TRAINING_SEQ else None


# A call in a traceback's statement line: "    save_checkpoint(" (VirenLoka/GlueFormer torchrun logs).
_CALL = re.compile(r"(\w+)\(")
# A frame line whose path was cut off: ", in wrapper" (ultralytics/ultralytics#17080, Windows console).
_CUT_FRAME = re.compile(r"\W*, in [\w<>.]+\s*$")
_STATEMENT_LINES = 5  # a frame's statement and its caret lines ("~~~~^^^") before the next frame


def _function_stage(func: str) -> str | None:
    return next((st for st, rx in _FRAME_STAGES if rx.match(func)), None)


def frame_stage(lines: list[str], root_index: int) -> str | None:
    """The stage a traceback names, from raw lines around the root (``lines[root_index]``):
    the innermost frame (or call in a frame's statement) before the root that names a stage's
    function, else one after it.
    Raw lines, because Drain merges frames into one template and loses the function name."""
    found: list[tuple[float, str]] = []
    for i, text in enumerate(lines):
        m = _FRAME.search(text)
        if m is None:
            continue
        stage = _function_stage(m.group("func"))
        if stage is not None:
            found.append((i, stage))
        # Python prints the frame's statement under it. In the innermost frame, the call it makes
        # is what failed (an outer frame's statement may still be evaluating its arguments:
        # "train(parse_argv(SFTTrainerConfig))" failed in parse_argv, PrimeIntellect-ai/prime-rl#721).
        innermost = not any(_FRAME.search(t) or _CUT_FRAME.match(t) for t in lines[i + 1 : i + 1 + _STATEMENT_LINES])
        statement = lines[i + 1] if innermost and i + 1 < len(lines) and i + 1 != root_index else ""
        if statement and not _FRAME.search(statement):
            called = next((st for call in _CALL.findall(statement) if (st := _function_stage(call))), None)
            if called is not None:
                found.append((i + 0.5, called))
    before = [st for i, st in found if i <= root_index]
    after = [st for i, st in found if i > root_index]
    return before[-1] if before else (after[-1] if after else None)


def stage_of_template(template: str) -> str | None:
    """The stage a message marks, or None when it marks none."""
    if _MLLOG_TRAINING.search(template):
        return "training"
    if _MLLOG_MODEL.search(template):
        return "model_loading"
    bar = PROGRESS_BAR.search(template)
    if (bar and (_LOSS.search(template) or _TRAINING_BAR.search(template))) or _TRAINING_START.search(template):
        return "training"
    if _CKPT_SAVE_DONE.search(template):
        return "checkpoint_done"
    if _CKPT_SAVE.search(template):
        return "checkpoint"
    if _DATA_LOADING.search(template):  # before model: "loading tokenizer from /models/..." is data
        return "data_loading"
    if _MODEL_LOADING.search(template):
        return "model_loading"
    if _INIT.search(template):
        return "init"
    return None


def training_positions(mined: MinedJob, node: str) -> np.ndarray:
    """Positions in a node's log of lines that mark a training step (a step's progress line). The
    raw line decides too: Drain can merge a bar's "30%|███" into one wildcard. Read once per node."""
    key = f"training_positions:{node}"
    cached = mined.derived.get(key)
    if isinstance(cached, np.ndarray):
        return cached
    log = mined.nodes[node]

    def marks_training(tid: int) -> bool:
        texts = [mined.miner.template(tid), *log.samples.get(tid, [])[:1]]
        return any(stage_of_template(text) == "training" for text in texts)

    training = [int(t) for t in np.unique(log.template) if marks_training(int(t))]
    found = np.flatnonzero(np.isin(log.template, training))
    mined.derived[key] = found
    return found


def stage_marks(mined: MinedJob, progress_tids: set[int]) -> dict[int, str]:
    """Stage marked by each template that marks one."""
    marks: dict[int, str] = {}
    for tid, template in mined.miner.templates().items():
        if tid in progress_tids:
            marks[tid] = "training"
            continue
        stage = stage_of_template(template)
        if stage:
            marks[tid] = stage
    return marks


def stage_at(log: NodeLog, pos: int, marks: dict[int, str]) -> str:
    """The stage a node was in at line position ``pos`` (markers up to and including it).

    Before training the latest loading marker wins (frameworks load model and data in
    either order), but init-like lines (NCCL/HCCL set-up happens lazily) never send the
    stage back to init. Once training began only checkpoint saves change it."""
    stage = "init"
    trained = False
    tids = log.template[: pos + 1]
    for p in np.flatnonzero(np.isin(tids, list(marks))).tolist():
        mark = marks[int(tids[p])]
        if mark == "training":
            stage, trained = "training", True
        elif mark == "checkpoint":
            stage = "checkpoint" if trained else stage
        elif mark == "checkpoint_done":
            stage = "training" if trained else stage
        elif not trained and mark != "init":
            stage = mark
    return stage


def job_stage_at(
    mined: MinedJob,
    timeline: Timeline,
    table: EventTable,
    marks: dict[int, str],
    node: str,
    pos: int,
    ts: float,
    weights: Weights = DEFAULT_WEIGHTS,
) -> str:
    """The stage at a moment, using the whole job: often only one rank logs progress or
    announces a checkpoint save, so a node's own lines are not enough."""
    tol = weights.same_moment_seconds
    local = stage_at(mined.nodes[node], pos, marks)
    if math.isnan(ts):
        return _file_order_stage(mined, marks, node, pos, local)
    progress_times = [p.ts[np.isfinite(p.ts)] for p in timeline.per_node.values()]
    progress_times = [t for t in progress_times if len(t)]
    if not progress_times and local in ("training", "checkpoint"):
        return local  # no progress figures, but the node said it began training (MLPerf's run_start)
    if not progress_times or ts < min(float(t.min()) for t in progress_times) - tol:
        return _loading_stage_at(mined, table, marks, ts, local, weights)
    before = [float(t[t <= ts + tol].max()) for t in progress_times if (t <= ts + tol).any()]
    last_progress = max(before) if before else -math.inf
    # A save announced (by any node) after the last progress line and not finished yet.
    save_tids = [t for t, m in marks.items() if m == "checkpoint"]
    done_tids = [t for t, m in marks.items() if m == "checkpoint_done"]
    saving_since, done_since = -math.inf, -math.inf
    for name, log in mined.nodes.items():
        offset = table.skew.get(name, 0.0)
        for tids, attr in ((save_tids, "save"), (done_tids, "done")):
            hits = np.flatnonzero(np.isin(log.template, tids))
            times = log.ts[hits] - offset
            times = times[(times >= last_progress - tol) & (times <= ts + tol)]
            if len(times):
                if attr == "save":
                    saving_since = max(saving_since, float(times.max()))
                else:
                    done_since = max(done_since, float(times.max()))
    if saving_since > -math.inf and saving_since >= done_since:
        return "checkpoint"
    return "training"


_STAGE_ORDER = {"init": 0, "model_loading": 1, "data_loading": 1, "training": 2, "checkpoint": 3}


def _file_order_stage(mined: MinedJob, marks: dict[int, str], node: str, pos: int, local: str) -> str:
    """Without timestamps, a console's lines are still in the order they were written: the
    furthest stage any rank of the same file had reached by the root's line. The launcher's
    own lines ("slurmstepd: ... DUE TO TIME LIMIT") sit on the file's node, which never
    logs a training step itself."""
    log = mined.nodes[node]
    line = int(log.lineno[pos])
    stage = local
    for name, other in mined.nodes.items():
        if name == node or other.source != log.source or not len(other):
            continue
        upto = int(np.searchsorted(other.lineno, line, side="right")) - 1
        if upto >= 0:
            theirs = stage_at(other, upto, marks)
            if _STAGE_ORDER.get(theirs, 0) > _STAGE_ORDER.get(stage, 0):
                stage = theirs
    return stage


def _loading_stage_at(
    mined: MinedJob, table: EventTable, marks: dict[int, str], ts: float, local: str, weights: Weights
) -> str:
    """Before training: the latest loading marker any node printed up to ``ts`` (often only
    rank 0 announces "building datasets"); init when there is none."""
    loading = [t for t, m in marks.items() if m in ("model_loading", "data_loading")]
    latest, stage = -math.inf, "init"
    for name, log in mined.nodes.items():
        hits = np.flatnonzero(np.isin(log.template, loading))
        if not len(hits):
            continue
        times = log.ts[hits] - table.skew.get(name, 0.0)
        ok = np.flatnonzero(times <= ts + weights.same_moment_seconds)
        if len(ok) and float(times[ok[-1]]) > latest:
            latest = float(times[ok[-1]])
            stage = marks[int(log.template[hits[ok[-1]]])]
    if stage == "init" and local in ("model_loading", "data_loading"):
        return local
    return stage


def _unstamped_beside_stamped(mined: MinedJob, node: str) -> bool:
    """The node's file has no time at all while another file of the job has."""
    source = mined.nodes[node].source
    return (not any(log.stamped.any() for log in mined.nodes.values() if log.source == source)
            and any(log.stamped.any() for log in mined.nodes.values() if log.source != source))


def failure_stage(
    mined: MinedJob,
    timeline: Timeline,
    table: EventTable,
    marks: dict[int, str],
    root: EventStats | None,
    onset: float,
    weights: Weights = DEFAULT_WEIGHTS,
) -> tuple[str, str | None, float]:
    """(stage, anchor node, anchor time) of the failure: where the root event was first
    printed; without a root, the end of the longest node log (anchor time: the onset)."""
    if root is not None:
        node = root.first_node()
        stats = root.per_node[node]
        ts = stats.first_ts
        # An undated root line may have been printed any time up to ``first_ts_latest``; the
        # failure's onset, when it falls in that span, is the likelier moment: an Xid under the
        # rank's last NCCL set-up line was printed when training stopped, not during set-up.
        if stats.first_ts_latest > ts and not math.isnan(onset):
            ts = min(max(onset, ts), stats.first_ts_latest)
        # A file with no time at all beside stamped ones (a Kubernetes events dump: "12m  Warning
        # OOMKilling  node/gpu-node-55  Memory cgroup out of memory: Killed process ...", independent
        # corpus I, c10) reports the failure when the job failed: its onset dates it.
        elif math.isnan(ts) and not math.isnan(onset) and _unstamped_beside_stamped(mined, node):
            ts = onset
        return job_stage_at(mined, timeline, table, marks, node, stats.first_pos, ts, weights), node, ts
    if mined.nodes:
        node = max(mined.nodes, key=lambda n: len(mined.nodes[n]))
        log = mined.nodes[node]
        return stage_at(log, len(log) - 1, marks), node, onset
    return "unknown", None, onset
