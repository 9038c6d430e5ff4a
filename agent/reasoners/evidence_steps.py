"""Remediation from what the log itself names: the module, the library, the path, the URL, the frame.

A catalogue doc says what usually fixes a kind of failure; the failing line says which
package, file, address or line of code this job tripped on. An SRE reads the message
first, so these steps lead, and when no doc explains the failure they are what l4 can
say honestly. Each reading rests on how a runtime phrases one kind of error (Python's
import system, the dynamic linker, errno, HTTP, the CUDA/NPU caching allocator), never
on one project's wording; each carries a real line as its example.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import takewhile

from ..extract import lexicon

MAX_STEPS = 2

# Python's import system: the module path says which package is missing or too old.
#   "ModuleNotFoundError: No module named 'vllm.lora.lora_model'" (verl-project/verl#5468)
_NO_MODULE = re.compile(r"No module named '(?P<mod>[\w.]+)'")
# Python packages that ship inside the CANN toolkit, found only once its set_env.sh has run.
#   "EC0010: Failed to import Python module [ModuleNotFoundError: No module named
#    'tbe.common.repository_manager.utils.repository_manager_log'.]" (hiyouga/LlamaFactory#5638)
#   "ModuleNotFoundError: No module named 'acl'" (pyACL; MindSpeed-MM FAQ)
_CANN_PACKAGES = frozenset({"tbe", "te", "te_fusion", "op_compile_tool", "op_gen", "acl"})
# A shared library the loader could not find, and who ships it.
#   "OSError: libatb.so: cannot open shared object file" (MindSpeed-MM troubleshooting)
#   "ImportError: libhccl.so: cannot open shared object file: No such file or directory" (torch_npu FAQ)
_NO_SHARED_OBJECT = re.compile(r"(?P<lib>lib[\w+-]+)\.so[\w.]*: cannot open shared object file")
_LIBRARY_OWNERS = (
    (re.compile(r"^libatb$"), "Ascend NNAL (ATB) package: source /usr/local/Ascend/nnal/atb/set_env.sh after CANN's set_env.sh"),
    (re.compile(r"^lib(hccl|ascendcl|opapi|optiling|ge_runner|graph|runtime|acl_\w+|register|tiling_api)$"),
     "CANN toolkit: source /usr/local/Ascend/ascend-toolkit/set_env.sh (or the install's set_env.sh) for every rank"),
    (re.compile(r"^libcuda$"), "NVIDIA driver: run on a GPU node, and in containers with the NVIDIA runtime (--gpus all)"),
    (re.compile(r"^lib(cudart|cublas\w*|cufft|curand|cusparse\w*|cusolver|nvrtc|nvJitLink|cudnn\w*|nccl|nvidia-ml)$"),
     "CUDA libraries: install the toolkit, cuDNN or NCCL version the framework was built for (or its nvidia-* pip "
     "wheels) and put its lib directory on LD_LIBRARY_PATH for every rank"),
)
# The package is there but lacks the name: the importer was written for another version,
# or the code's own module is out of step with its checkout.
#   "ImportError: cannot import name 'index_first_axis' from 'transformers.integrations.npu_flash_attention'
#    (/usr/local/python3.10/lib/python3.10/site-packages/transformers/...)" (verl-project/verl#3561)
#   "ImportError: cannot import name 'Auc' from 'ppcls.metric.metrics' (/mnt/data1_hdd/wgk/PaddleClas/ppcls/metric/metrics.py)"
#   (Tomry1114/2025_Geo-RepNet_ICIA:tr/log/workerlog.0)
_CANNOT_IMPORT = re.compile(r"cannot import name '(?P<name>[\w.]+)' from '(?P<mod>[\w.]+)'(?: \((?P<path>[^)]*)\))?")
# The dynamic linker: a compiled extension references a symbol its libraries do not export.
#   "ImportError: /home/zitwang/miniforge3/envs/nanofm/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so:
#    undefined symbol: ncclDevCommDestroy" (ZenWang00/2026-Spring-CS503-Visual-Intelligence-Homework:NanoFM_Homeworks/multi_node_job.err)
_UNDEFINED_SYMBOL = re.compile(r"(?P<lib>/\S+?\.so[\w.]*): undefined symbol: (?P<sym>\w+)")
# The dynamic linker again: a library needs a newer C++ runtime or C library than the one loaded.
#   "ImportError: /usr/lib64/libstdc++.so.6: version `GLIBCXX_3.4.20' not found (required by
#    /home/shaohuais/.cache/Python-Eggs/resample2d_cuda-0.0.0-py2.7-linux-x86_64.egg-tmp/resample2d_cuda.so)"
#   (HKBU-HPML/FADNet, Slurm job 67190)
_SYMBOL_VERSION = re.compile(r"(?P<lib>/\S+?\.so[\w.]*): version `(?P<ver>[\w.]+)' not found \(required by (?P<by>[^)\s]+)\)")
# errno, as Python prints OSError: the path, when given, is the one the call was about.
#   "OSError: [Errno 28] No space left on device: '/tmp/pymp-2ntknau9'" (Fsoft-AIC/RoPADet:train.out)
#   "OSError: [Errno 122] Disk quota exceeded: '/work/proj/ckpt/epoch_14.pth'" (knowledge/platform/disk-quota-exceeded.md)
#   "PermissionError: [Errno 13] Permission denied: '/data/shared/output/llama7b-sft/checkpoint-500'"
#   (knowledge/platform/output-dir-permission-denied.md)
#   "FileNotFoundError: [Errno 2] No such file or directory: '/data/model/finet une_model/.../tmp-checkpoint-950'"
#   (hiyouga/LlamaFactory#1839)
_NO_SPACE = re.compile(r"No space left on device(?:: '(?P<path>[^']+)')?|StorageFull")
_QUOTA = re.compile(r"Disk quota exceeded(?:: '(?P<path>[^']+)')?")
_PERMISSION = re.compile(r"\[Errno 13\] Permission denied: '(?P<path>[^']+)'")
_NOT_FOUND = re.compile(r"\[Errno 2\] No such file or directory: '(?P<path>[^']+)'")
MISSING_PATH = "does not exist where the job ran"  # the missing-input step's reading (offline drops it for a race)
# A one-level mkdir on the traceback's last source line: "    if not exists(folder): mkdir(folder)"
# above "FileNotFoundError: [Errno 2] No such file or directory: 'outputs/1WorkingSetup/1WorkingSetup-0/'"
# (MrCogito/Deep_learning_2023, LSF job 19629902). makedirs and parents=True make the whole path.
_MKDIR = re.compile(r"(?<![\w.])(?:os\.)?mkdir\((?![^)]*parents\s*=\s*True)[^)]*\)|\.mkdir\((?![^)]*parents\s*=\s*True)[^)]*\)")
# Any other message that names a path and says nothing is there: the job was pointed at the
# wrong place, or the place is not there where the ranks run.
#   "Exception: No video found in data/kinetics100/train_video" (hutuxian/RSPNet log/workerlog.0)
#   "RuntimeError: ... Assert on "fp_ != nullptr" failed: Could not open file /data/train.rec: No such file or directory"
#   (mlcommons/training_results_v4.0, Oracle resnet result log)
_MISSING_WORDS = re.compile(r"(?i)\bno \w+ (?:was |were )?found\b|\bnot found\b|\bdoes(?: not|n't) exist\b|\bis empty\b|"
                            r"no such file or directory|\b(?:cannot|can't|could not|couldn't|unable to) (?:find|open|locate)\b")
_PATH_TOKEN = re.compile(r"(?<![\w/:.])(?P<path>(?:~|\.{1,2})?/?(?:[\w.@+-]+/)+[\w.@+-]*)")
_SOURCE_LOCATION = re.compile(r":\d")  # "std_file.cc:29": where the message was raised, not what is missing
# HTTP clients (requests, huggingface_hub) name the status and the address.
#   "requests.exceptions.HTTPError: 429 Client Error: Too Many Requests for url:
#    https://huggingface.co/HuggingFaceTB/cosmo2-tokenizer/resolve/main/config.json" (ZenWang00/...:NanoVLM_Homework/nanovlm_train_2844545.err)
_HTTP = re.compile(r"\b(?P<status>[45]\d\d) (?:Client|Server) Error\b.*?\bfor url:? (?P<url>\S+)")
# The caching allocator's report (CUDA and torch_npu print the same shape).
#   "RuntimeError: NPU out of memory. Tried to allocate 386.00 MiB (NPU 2; 60.97 GiB total capacity;
#    59.57 GiB already allocated; ...; 60.06 GiB reserved in total by PyTorch)" (hiyouga/LlamaFactory#5491)
#   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 170.00 MiB. GPU 0 has a total capacity of
#    79.15 GiB of which 14.69 MiB is free." (PyTorch >= 2.1 wording; knowledge/cuda/cuda-out-of-memory.md)
_OOM = re.compile(r"(?P<kind>CUDA|NPU) out of memory\. Tried to allocate (?P<ask>[\d.]+ [KMG]iB)")
_OOM_DEVICE = re.compile(r"\((?:GPU|NPU) (?P<dev>\d+); (?P<total>[\d.]+ [KMG]iB) total capacity; (?P<used>[\d.]+ [KMG]iB) already allocated"
                         r"|(?:GPU|NPU) (?P<dev2>\d+) has a total capacity of (?P<total2>[\d.]+ [KMG]iB)")
_UNITS = {"KiB": 1 / 1024 / 1024, "MiB": 1 / 1024, "GiB": 1.0}
# What the failing process itself held, and what was still free: the rest of the device was
# taken by another process. "(GPU 0; 22.17 GiB total capacity; 3.47 GiB already allocated;
# 153.81 MiB free; 4.20 GiB reserved in total by PyTorch)" (And1210/FER_SSL train_2.out: a
# second job on the same GPU); PyTorch >= 2.1 says "of which 38.19 MiB is free. Including
# non-PyTorch memory, this process has 10.53 GiB memory in use" (JunyeP/Interpretability run.log).
_OOM_HELD = re.compile(r"(?P<held>[\d.]+ [KMG]iB) reserved in total by PyTorch|this process has (?P<held2>[\d.]+ [KMG]iB) memory in use")
_OOM_FREE = re.compile(r"(?P<free>[\d.]+ [KMG]iB) free;|of which (?P<free2>[\d.]+ [KMG]iB) is free")
TAKEN_BY_OTHERS = 0.5  # another process held at least this share of the device
# Memory already this full when a small request fails: the model's states fill the device,
# so a smaller batch will not save it; sharding the states will.
NEARLY_FULL = 0.85
SMALL_REQUEST = 0.05

# Messages that name the rank or peer at fault rather than the one reporting.
#   "RuntimeError: Rank 1 failed to pass monitoredBarrier in 2000 ms" (PyTorch docs, monitored_barrier example)
_MISSED_BARRIER = re.compile(r"Rank (?P<rank>\d+) failed to pass monitoredBarrier")
#   "r11i6n2:486514:486651 [1] include/socket.h:403 NCCL WARN Connect to 10.148.3.247<56821> failed : Connection refused"
#   (bigscience-workshop/bigscience:jz/slurm/README.md)
_REFUSED = re.compile(r"Connect to (?P<ip>[\d.]+|\[[\da-f:]+\])<(?P<port>\d+)> failed : Connection refused")
#   "pool0-00008:1391870:1393239 [7] init.cc:904 NCCL WARN Duplicate GPU detected : rank 15 and rank 7 both on CUDA
#    device e4000" (NVIDIA-NeMo/RL#3155)
_DUPLICATE_GPU = re.compile(r"Duplicate GPU detected : rank (?P<a>\d+) and rank (?P<b>\d+) both on CUDA device (?P<dev>\w+)")
# PyTorch's collectives take only dense, contiguous tensors.
#   "RuntimeError: Tensors must be contiguous" (Ascend torch_npu troubleshooting, dist.all_reduce on a strided view)
_NOT_CONTIGUOUS = re.compile(r"Tensors? must be (?:contiguous|non-overlapping and dense)")
# An operator the device backend has no kernel for; torch_npu warns and falls back to the CPU.
#   "[W compiler_depend.ts:51] Warning: CAUTION: The operator 'aten::linalg_lstsq.out' is not currently supported
#    on the NPU backend and will fall back to run on the CPU." (Ascend torch_npu troubleshooting)
_UNSUPPORTED_OP = re.compile(r"operator '(?P<op>[\w:.]+)' is not (?:currently )?(?:supported|implemented) (?:on|for) the (?P<dev>\w+)")
# CANN looks up a precompiled kernel binary per operator and dtype in its ops package.
#   "EZ9999: Inner Error! ... Cannot find bin of op Range, integral key 0/1/|int64/ND/int64/ND/int64/ND/int64/ND/."
#   (Ascend torch_npu troubleshooting, torch.arange on the NPU)
_NO_KERNEL_BIN = re.compile(r"Cannot find bin of op (?P<op>\w+)")
# sshd's refusal, as the multi-node launchers that start ranks over SSH (pdsh for DeepSpeed
# and GPT-NeoX, horovodrun, mpirun) pass it on.
#   "172.17.0.2: mchorse@172.17.0.2: Permission denied (publickey,password)." (EleutherAI/gpt-neox#734)
#   "pdsh@6dca91c32bfd: 172.17.0.2: ssh exited with exit code 255" (EleutherAI/gpt-neox#734)
_SSH_DENIED = re.compile(r"(?:(?P<user>[\w.-]+)@(?P<host>[\w.-]+): )?Permission denied \((?:publickey|password|gssapi)[\w,-]*\)"
                         r"|(?P<host2>[\w.-]+): ssh exited with exit code 255")
# A Python traceback frame.
#   'File "/data3/cty/mind_lab/test_mindocr/mindocr/mindocr/data/rec_lmdb_dataset.py", line 68, in __init__'
#   (mindspore-lab/mindocr#136)
_FRAME = re.compile(r'File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>[\w<>.]+)')
# Where installed packages and the interpreter live: frames there are library code.
_LIBRARY_PATH = re.compile(r"/(?:site|dist)-packages/(?P<pkg>[\w.-]+)|/lib/python3\.\d+/(?!site-packages|dist-packages)")
STDLIB = "the Python standard library"
# Training frameworks people run from a checkout, not an installed package: their frames are the
# stack the job runs on, not the job's own script ("verl/trainer/ppo/core_algos.py",
# verl-project/verl#4962; "megatron/core/pipeline_parallel/schedules.py", verl-project/verl#3641;
# "/workspace/FunASR/funasr/utils/misc.py", modelscope/FunASR#2557).
FRAMEWORK_CHECKOUT = re.compile(
    r"(?:^|/)(?P<fw>torch|torch_npu|verl|megatron|deepspeed|transformers|trl|accelerate|vllm|sglang|peft|nemo|nemo_rl|"
    r"mindspeed\w*|llamafactory|torchtune|torchtitan\w*|xtuner|funasr|paddlenlp|paddleocr|ppocr|mmcv|mmdet\w*|mmengine|"
    r"fairseq|colossalai|lightning|timm|open_clip|chatlearn|slime|realhf|openrlhf)/"
)
# Python's own exception types: raised where the code misused a value, so the frame matters.
# A bare "Exception: ..." is one the code raised itself ("Exception: No video found in
# data/kinetics100/train_video", hutuxian/RSPNet); "StopIteration" is next() on an empty
# iterator (a traceback through torch's module.py, Ascend/pytorch migration guide).
_PYTHON_EXCEPTION = re.compile(
    r"\b(?P<exc>KeyError|TypeError|AttributeError|ValueError|IndexError|NameError|AssertionError|"
    r"ZeroDivisionError|UnboundLocalError|RecursionError|NotImplementedError|StopIteration)\b|^\s*(?P<exc2>Exception)(?=:)"
)


# Libraries often end an error message with their own remedy, and it is written for exactly
# this error, so it is quoted first.
#   "... You can enable unused parameter detection by passing the keyword argument
#    `find_unused_parameters=True` to `torch.nn.parallel.DistributedDataParallel`, ..." (pytorch/pytorch#68862)
#   "RuntimeError: Expected all tensors to be on the same device. Expected NPU tensor, please check whether the
#    input tensor device is correct." (Ascend torch_npu troubleshooting, knowledge/ascend)
#   "... Hint: enable anomaly detection to find the operation that failed to compute its gradient, with
#    torch.autograd.set_detect_anomaly(True)." (Ascend torch_npu troubleshooting, fault-mode example)
#   "... you can use SLURM's PMIx support. This requires that you configure and build SLURM --with-pmix."
#   (mlcommons training_results_v4.0 Oracle resnet result log)
_HINT = re.compile(
    r"(?:^|(?<=[.;:!?,]\s))(?P<hint>(?:(?:you can|you may|you should|you need to|please|try|consider|make sure|"
    r"to fix this|did you mean)\b|hint:\s).{12,240}?)(?=\.\s+[A-Z(\[]|\.?\s*$|;)",
    re.I,
)
# Hints every such error prints, whatever the cause: they send the reader to a debug flag, a
# bug tracker or a retry, not to the fix.
#   "For debugging consider passing CUDA_LAUNCH_BLOCKING=1." (huggingface/accelerate#1192)
#   "Please include the loss function and the structure of the return value of `forward` of your module when
#    reporting this issue" (pytorch/pytorch#68862)
#   "Permission denied, please try again." (EleutherAI/gpt-neox#734)
#   "wandb: You can sync this run to the cloud by running:" (wandb's exit notice, gpt-neox Llemma train log)
#   "You can inspect the repository content at /opt/dlami/nvme/models/..." (transformers' trust_remote_code
#   error, verl-project/verl#5200): a place to look, while the next sentence is the fix
#   "For more info, please see https://pytorch.org/docs/stable/distributed.html#shutdown" (PyTorch's exit-time
#   destroy_process_group() warning under any crash, VirenLoka/GlueFormer torchrun logs): a page, like "refer to"
_BOILERPLATE_HINT = re.compile(
    r"(?i)CUDA_LAUNCH_BLOCKING|sync this run|TORCH_USE_CUDA_DSA|report|github\.com|refer to|try again|tune the variable|"
    r"max_split_size_mb|contact|file an issue|for debugging|be aware|note that|inspect the repository|\bsee https?://"
)
MAX_HINTS = 2


# A message that numbers its own workarounds: "If you cannot immediately regenerate your protos,
# some other possible workarounds are:" / " 1. Downgrade the protobuf package to 3.20.x or lower."
# (protobuf's descriptor error, EleutherAI/gpt-neox commit 86206da).
_NUMBERED_REMEDY = re.compile(
    r"^\s*\d[.)]\s+(?P<hint>(?:Downgrade|Upgrade|Install|Uninstall|Reinstall|Pin|Set|Unset|Use|Pass|Remove|Add|Run|Export)\b"
    r".{8,200}?)\.?\s*$"
)


def message_hints(lines: list[str]) -> list[str]:
    """The remedies the error message itself spells out (its own 'You can ...', 'Please ...',
    its numbered workarounds)."""
    hints: list[str] = []
    for line in lines:
        if (m := _NUMBERED_REMEDY.match(line)) and not _BOILERPLATE_HINT.search(m["hint"]):
            hints.append(m["hint"].strip().rstrip(".") + ".")
    # A long message arrives wrapped over several lines: read them as one text.
    text = " ".join(line.strip() for line in lines)
    for m in _HINT.finditer(text):
        hint = re.sub(r"(?i)^hint:\s*", "", m["hint"].strip().rstrip(","))
        if not _BOILERPLATE_HINT.search(hint) and hint not in hints:
            hints.append(hint[0].upper() + hint[1:] + ".")
    return hints[:MAX_HINTS]


@dataclass(frozen=True)
class Frame:
    path: str
    line: int
    func: str

    @property
    def package(self) -> str | None:
        if not self.path.startswith(("/", ".")) and self.path.endswith((".pyx", ".pxd", ".pxi")) and "/" in self.path:
            return self.path.split("/", 1)[0]  # a compiled (Cython) module names itself by package: "h5py/h5o.pyx"
        if _LIBRARY_PATH.search(self.path) is None:
            checkout = FRAMEWORK_CHECKOUT.search(self.path)
            return checkout["fw"] if checkout else None
        return _package(self.path) or STDLIB

    def __str__(self) -> str:
        return f"{self.path}:{self.line} ({self.func})"


def frames(lines: list[str]) -> list[Frame]:
    """The traceback frames in these lines, outermost first (as Python prints them)."""
    return [Frame(m["path"], int(m["line"]), m["func"]) for text in lines for m in _FRAME.finditer(text)]


def _package(path: str) -> str | None:
    """The package a site-packages path is in; an egg's directory carries its version
    ("byteps-0.7.2-py3.7-linux-x86_64.egg/byteps/torch/__init__.py", bytedance/byteps 10dad881)."""
    m = _LIBRARY_PATH.search(path)
    name = re.match(r"[A-Za-z_]\w*", m.group("pkg")) if m and m.group("pkg") else None
    return name.group(0) if name else None


def _short(text: str, limit: int = 90) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _gib(size: str) -> float:
    number, unit = size.split()
    return float(number) * _UNITS[unit]


def _held_by_others(text: str, total: str | None) -> float | None:
    """GiB of the device that neither this process held nor was free, when the message says both."""
    held, free = _OOM_HELD.search(text), _OOM_FREE.search(text)
    if not (total and held and free):
        return None
    return _gib(total) - _gib(held["held"] or held["held2"]) - _gib(free["free"] or free["free2"])


def _oom_step(m: re.Match[str], device: re.Match[str] | None, stage: str) -> str:
    dev = device and (device["dev"] or device["dev2"])
    total = device and (device["total"] or device["total2"])
    used = device["used"] if device else None
    where = f"{m['kind']} device {dev}" if dev else f"the {m['kind']} device"
    facts = f"{where}{f' ({total})' if total else ''} could not give {m['ask']} more"
    others = _held_by_others(m.string, total)
    if others is not None and total and others >= TAKEN_BY_OTHERS * _gib(total):
        return (f"{facts}, and about {others:.1f} GiB of it was held outside this process's PyTorch allocator: look for "
                f"another process on that {m['kind']} device first (`nvidia-smi` / `npu-smi info` on the node: a second "
                "job scheduled onto the same device, a leftover process of an earlier run) and give the job a device of "
                "its own (request it with --gres/--gpus, or set CUDA_VISIBLE_DEVICES). Only if the device was the job's "
                "alone, lower what it holds (micro-batch size or sequence length, activation checkpointing).")
    if used and total:
        facts += f" with {used} already allocated"
    if stage in ("model_loading", "checkpoint"):
        return (f"{facts} during {stage.replace('_', ' ')}: the model's weights (or the checkpoint's copy) do not fit "
                "one device. Shard them (ZeRO-3/FSDP, tensor/pipeline parallel, more devices) or load to CPU first; a "
                "smaller batch will not help here.")
    if used and total and _gib(used) >= NEARLY_FULL * _gib(total) and _gib(m["ask"]) <= SMALL_REQUEST * _gib(total):
        return (f"{facts}: the device was nearly full before this small request, so model and optimizer states (or "
                "memory kept across steps) fill it. Shard those states (ZeRO/FSDP, tensor/pipeline parallel, "
                "offload) or use a smaller model per device, then lower the micro-batch size.")
    return (f"{facts}: lower what one device holds (micro-batch size or sequence length, activation "
            "checkpointing/recomputation, more tensor/pipeline/ZeRO sharding) and check that no other process "
            "holds memory on it.")


def _missing_path(text: str) -> str | None:
    """The filesystem path a missing-thing message names after saying so ("No video found in
    PATH", "Could not open file PATH"): two segments at least, with lower-case letters (NCCL's
    "NET/IB/1" is a transport), not a source location ("socket.h:416"). A path before the
    words is who complains ("/bin/sh: 1: torchrun: not found") or what lacks a part
    ("libstdc++.so.6: version ... not found")."""
    said = _MISSING_WORDS.search(text)
    if said is None:
        return None
    for m in _PATH_TOKEN.finditer(text, said.end()):
        path = m["path"].rstrip(".")
        if ("://" in text[max(0, m.start() - 8):m.start() + 3] or not any(c.islower() for c in path)
                or _SOURCE_LOCATION.match(text, m.end())):
            continue
        if path.count("/") >= (1 if path.startswith(("/", "./", "../", "~")) else 2):
            return path
    return None


# A library that dropped an argument says so by name: "[ERROR] datasets.load: trust_remote_code is
# not supported anymore." (aws-samples/awsome-distributed-training commit bff3aa29).
_DROPPED_ARGUMENT = re.compile(
    r"(?:(?P<where>[\w.]+): )?`?(?P<arg>[A-Za-z_][\w.-]*)`? is (?:not supported anymore|no longer supported)")


def steps_from_message(text: str, stage: str = "unknown") -> list[str]:
    """Steps that name what the failing message names (a module, a library, a path, a URL)."""
    if m := _DROPPED_ARGUMENT.search(text):
        where = f" by {m['where'].split('.')[0]}" if m["where"] else ""
        return [f"`{m['arg']}` is no longer accepted{where}: remove it from the call or config that passes it (the "
                "installed release dropped it), or pin the release the code was written for."]
    if m := _NO_MODULE.search(text):
        mod = m["mod"]
        top = mod.split(".")[0]
        if top in _CANN_PACKAGES:
            return [f"'{mod}' belongs to the CANN toolkit's Python packages ({top}): source the toolkit's set_env.sh "
                    "for the interpreter the job runs (or install CANN's te/tbe wheels into that environment)."]
        if mod.endswith("._C"):
            # A package's compiled core is missing: every release has one, so the import found a
            # folder of sources (a checkout in the working directory) or a failed build, not a
            # version without it (Ascend/pytorch installation FAQ, "No module named 'torch_npu._C'").
            return [f"'{mod}' is {top}'s compiled extension, which every release ships: check the traceback's paths: "
                    f"if {top} is imported from a source checkout (the working directory or PYTHONPATH) rather than "
                    "site-packages, launch from another directory; only a failed or partial build needs reinstalling."]
        if "." in mod:
            return [f"Python cannot import '{mod}': if '{top}' is installed, its version has no such module. Install the "
                    f"{top} version the calling code supports (compare `pip show {top}` with the project's pinned "
                    "requirements), in the environment every rank runs."]
        return [f"Python cannot find the module '{mod}': install the package that provides it in the environment every "
                "rank runs (or fix PYTHONPATH / the activated environment), then check with "
                f"`python -c 'import {mod}'` on a node."]
    if m := _CANNOT_IMPORT.search(text):
        name, mod, path = m["name"], m["mod"], m["path"] or ""
        top = mod.split(".")[0]
        if path and _package(path) is None and "/lib/python3" not in path:
            return [f"The job's own module '{mod}' ({_short(path)}) does not define '{name}': the checkout is out of step "
                    "with the code importing it. Update the checkout to one consistent revision, or fix the import."]
        return [f"The installed '{top}' has no '{name}' in '{mod}': the importing code was written for another {top} "
                f"version. Install the {top} version it pins (its requirements or install guide), or upgrade the "
                f"importing package together with {top}; `pip show {top}` shows what is installed."]
    if m := _NO_SHARED_OBJECT.search(text):
        lib = m["lib"]
        owner = next((text for rx, text in _LIBRARY_OWNERS if rx.match(lib)), None)
        if owner:
            return [f"The loader cannot find {lib}.so, which comes with the {owner}; then check `ldconfig -p | grep {lib}` "
                    "or `ls` of that directory on a node."]
        return [f"The loader cannot find {lib}.so: find which package ships it (`ldconfig -p | grep {lib}`, the package "
                "manager's file search), install it, or add its directory to LD_LIBRARY_PATH for every rank."]
    if m := _UNDEFINED_SYMBOL.search(text):
        lib, sym = m["lib"], m["sym"]
        owner = _package(lib) or lib.rsplit("/", 1)[-1]
        linked = "NCCL" if sym.startswith("nccl") else "PyTorch" if sym.startswith("_ZN3c10") or sym.startswith("_ZN2at") else None
        name = lib.rsplit("/", 1)[-1]
        if linked is None:
            return [f"The compiled library {name} ({owner}) needs '{_short(sym, 40)}', which no loaded library exports: "
                    f"reinstall {owner} built for the installed versions of what it links (`ldd` on the .so shows "
                    "which copies load)."]
        return [f"The compiled library {name} ({owner}) expects {linked} to export '{_short(sym, 40)}', which the copy "
                f"loaded lacks: install the {linked} version {owner} was built against (or {owner} built for the "
                f"installed {linked}), and make sure no older copy of {linked} shadows it on LD_LIBRARY_PATH "
                "(`ldd` on the .so shows which one loads)."]
    if m := _SYMBOL_VERSION.search(text):
        lib, ver, needer = m["lib"].rsplit("/", 1)[-1], m["ver"], m["by"].rsplit("/", 1)[-1]
        if ver.startswith(("GLIBCXX", "CXXABI")):
            return [f"{needer} was built with a newer C++ compiler than the {lib} loaded from {m['lib'].rsplit('/', 1)[0]} "
                    f"provides ({ver}): run with the C++ runtime of the compiler it was built with (load that GCC module, or "
                    "put its lib64 or the environment's lib first on LD_LIBRARY_PATH), or rebuild it with the compiler the "
                    "nodes provide."]
        return [f"{needer} needs {ver} from {lib}, newer than the nodes' system library: install a build of it made for "
                "this OS (or the project's container), or rebuild it on these nodes."]
    if m := _NO_SPACE.search(text):
        path = m.group("path") if m.lastindex else None
        where = f" ('{path}')" if path else ""
        extra = " /tmp is full: point TMPDIR at a larger local disk." if path and path.startswith("/tmp") else ""
        return [f"The filesystem being written{where} is full: check `df -h` on it on the failing node, free space or send "
                "the writes to a larger volume (checkpoints, caches such as HF_DATASETS_CACHE and ~/.cache, TMPDIR)." + extra]
    if m := _QUOTA.search(text):
        path = m.group("path")
        where = f" for '{path}'" if path else ""
        return [f"The job's user or project quota is used up{where}: check it (`quota -s`, `lfs quota -u $USER <fs>`), "
                "remove old checkpoints or write to an area with more quota."]
    if m := _PERMISSION.search(text):
        return [f"The job's user may not access '{m['path']}': fix the directory's owner/permissions, or point the job "
                "at a path it owns (check which user the ranks run as)."]
    if m := _NOT_FOUND.search(text):
        return [f"'{_short(m['path'])}' {MISSING_PATH}: check the argument or config entry that sets it "
                "and that the storage holding it is mounted on every node (`ls -l` it on the failing node)."]
    if m := _HTTP.search(text):
        status, url = m["status"], m["url"].rstrip(".,)")
        host = re.sub(r"^\w+://([^/]+).*", r"\1", url)
        if status == "429":
            return [f"{host} rate-limited the job (429) for {_short(url)}: every rank fetched it at start-up. Download it "
                    "once into a cache all ranks read before launching, and run offline (HF_HUB_OFFLINE=1 for the Hub)."]
        if status in ("401", "403"):
            return [f"{host} refused {_short(url)} ({status}): the job is not authenticated or lacks access. Request access "
                    "and pass a token (HF_TOKEN for the Hub), or use a local copy."]
        if status == "404":
            return [f"{_short(url)} does not exist (404): check the model/dataset id and revision the job asks for."]
        return [f"{host} answered {status} for {_short(url)}: retry later or use a local copy of what it serves."]
    if m := _UNSUPPORTED_OP.search(text):
        return [f"The {m['dev']} backend has no kernel for {m['op']}: replace that call with an operation the backend "
                "supports, or move its inputs to the CPU explicitly and the result back."]
    if m := _NO_KERNEL_BIN.search(text):
        return [f"CANN has no compiled kernel for operator {m['op']} with these input types: install the CANN kernels "
                "(ops) package that matches the toolkit version and the chip, or call the operator with a dtype its "
                "binaries cover."]
    if _NOT_CONTIGUOUS.search(text):
        return ["The collective was given a non-contiguous tensor (a slice, transpose or expand view): call "
                ".contiguous() on it before the call the traceback names."]
    if m := _SSH_DENIED.search(text):
        host = m["host"] or m["host2"]
        target = f" to {host}" if host else ""
        return [f"The launcher's SSH login{target} was refused: set up key-based, passwordless SSH for the launch user "
                "from the launching node to every worker (the port and user the workers' sshd accepts), test it with "
                "`ssh HOST true`, or launch with something that needs no SSH (torchrun on each node, srun)."]
    if m := _MISSED_BARRIER.search(text):
        return [f"Rank {m['rank']} never reached the barrier the other ranks waited at: read rank {m['rank']}'s own last "
                "lines and dump its stack (py-spy dump) to see where it stalled or which code path skipped the barrier."]
    if m := _REFUSED.search(text):
        return [f"Nothing listened at {m['ip']}:{m['port']} when NCCL connected: find the host with that address, check "
                "whether its ranks had already died or never started (their own logs come first), then its network "
                "interface and firewall (NCCL_SOCKET_IFNAME); exclude the host if it is broken."]
    if m := _DUPLICATE_GPU.search(text):
        return [f"Ranks {m['b']} and {m['a']} were both given GPU {m['dev']}: fix how ranks map to devices "
                "(CUDA_VISIBLE_DEVICES, LOCAL_RANK and torch.cuda.set_device, or the launcher's / Ray's GPU assignment) "
                "so each rank gets its own GPU; no hardware is at fault."]
    if m := _OOM.search(text):
        return [_oom_step(m, _OOM_DEVICE.search(text), stage)]
    if (m := _ONLY_ON.search(text)) and _PLATFORM_WORD.search(m["need"] or m["need2"]):
        what, need = _clause(m["what"] or m["what2"]), _clause(m["need"] or m["need2"])
        return [f"The message says {what} works only with {need}, which this job lacks: run it where that holds (a "
                "newer stack, other hardware, or the build for this device), or stop using it in the job's settings."]
    if m := _REQUIRES.search(text):
        what, need = _clause(m["what"]), _clause(m["need"])
        return [f"The message says {what} needs {need}, which the job did not provide: add or enable it (install it, or "
                "set the option that turns it on), or stop using what needs it."]
    if path := _missing_path(text):
        return [f"The job found nothing at '{_short(path)}': check the argument or config entry that sets it, that it "
                "holds what the job expects, and that it resolves where the ranks run (a relative path resolves against "
                "each rank's working directory; `ls -l` it on the failing node)."]
    return []


# A feature that names what it needs: "CP on deepseek_v32 requires 'npu_dsa' converter"
# (hicann/torchtitan-npu custom_cp.md), "FP8 block scaled GEMM requires Hopper and CUDA >= 12.9"
# (NVIDIA-NeMo/RL docs), "FlashAttention only supports Ampere GPUs or newer." (OpenGVLab/InternVL#918),
# "[MXFP8/Hif8] is only supported on Ascend950 or higher architecture" (hicann/torchtitan-npu docs).
_SUBJECT = r"(?:^|:\s+|\]\s+|\.\s+)(?P<{}>[A-Za-z\[](?:(?!\.\s)[^:\n]){{2,80}}?)"
_REQUIRES = re.compile(_SUBJECT.format("what") + r"\s+requires\s+(?P<need>[^\n;]{2,100}?)(?:\.\s|\.?$| but )")
_ONLY_ON = re.compile(
    _SUBJECT.format("what") + r"\s+(?:is\s+)?only\s+supported\s+(?:on|in|with|for|by)\s+(?P<need>[^\n;]{2,100}?)(?:\.\s|\.?$)"
    r"|" + _SUBJECT.format("what2") + r"\s+only\s+supports?\s+(?P<need2>[^\n;]{2,100}?)(?:\.\s|\.?$)"
)

# What hardware or a stack provides, not what a function accepts ("only supports tensor, int, float").
_PLATFORM_WORD = re.compile(r"(?i)GPU|NPU|device|architecture|\barch\b|CUDA|CANN|Ascend|Hopper|Ampere|version|newer|higher|"
                            r"later|driver|compute capability|\bsm_?\d|\bCPU\b")


def _clause(text: str) -> str:
    return _short(re.sub(r"\s+", " ", text.strip()), 80)


_ANY_EXCEPTION = re.compile(r"\b(?P<exc>[A-Z]\w*(?:Error|Exception))\b(?P<exc2>)")


def step_from_frames(text: str, before: list[str], *, any_exception: bool = False) -> str | None:
    """Where a Python exception was raised: the job's own frame, or the library it called.
    Only programming errors by default (a RuntimeError mostly carries a device or NCCL error,
    whose frames say little); ``any_exception`` when the frames themselves decided the verdict."""
    found = _PYTHON_EXCEPTION.search(text) or (_ANY_EXCEPTION.search(text) if any_exception else None)
    stack = frames([*before, text])
    if found is None or not stack:
        return None
    exc = {"exc": found["exc"] or found["exc2"]}
    innermost = stack[-1]
    own = [f for f in stack if f.package is None]
    # A bare exception ("AssertionError") is explained by its frame's source line just above:
    # "    assert num_samples > 0" (aws-samples/awsome-distributed-training, Megatron GPT-3 README).
    statement = statement_above(before)
    source_line = statement.strip() if statement and text.strip().endswith(exc["exc"]) and statement[:1].isspace() else ""
    failing = f" (the failing statement: `{source_line}`)" if source_line and not source_line.startswith("File ") else ""
    if innermost.package is None:
        return (f"The {exc['exc']} is raised in the job's checkout (not an installed package) at {innermost}{failing}: "
                "fix the code there, or the data or setting that reaches it with this value.")
    if own:
        caller = own[-1]
        return (f"The {exc['exc']} is raised inside {innermost.package} ({innermost}){failing}, called from the job's checkout at "
                f"{caller}: check what the job passes there, and whether this {innermost.package} version supports it "
                "(the version the project pins, or its issue tracker for the message).")
    # Only the innermost traceback can refuse the value: the main process's frames above a
    # DataLoader's "Original Traceback" are its way in.
    if rejected_input(before, frames(traceback_above(before))):
        return (f"{innermost.package} raised this {exc['exc']} on purpose ({innermost}: `{before[-1].strip()}`): it rejects "
                "a value the job gave it, so change the setting, path or input the message names, not the code.")
    if _VALUE_CHECK.search(f"{text} {source_line}"):
        # A library checking a value the job set is refusing the setting, whatever frames surround it.
        return (f"{innermost.package} checks a value here ({innermost}{failing}): a setting or input of the job fails "
                "that check, so change the value the message or the statement names (a size, a parallel degree, a "
                f"schedule length); only if the value is right is it a bug of {innermost.package}: search its issue "
                "tracker for the message.")
    # Every frame is the stack's: the bug is in it, or in how two of its pieces meet. The frame
    # where one package calls into another is where the bad value crossed (verl's checkpoint
    # manager calling transformers' from_config without trust_remote_code, verl-project/verl#5200).
    stack_frames = [f for f in stack if f.package != STDLIB] or stack
    boundary = next((f for f in reversed(stack_frames) if f.package != innermost.package), None)
    crossing = f", called from {boundary.package} at {boundary}" if boundary is not None else ""
    owners = list(dict.fromkeys(p for p in (boundary.package if boundary else None, innermost.package) if p))
    whose = (f"a bug of {owners[0]} and {owners[1]} or a version mismatch between them; search their issue trackers"
             if len(owners) > 1 else f"a bug of {owners[0]} or of the versions around it; search its issue tracker")
    return (f"The {exc['exc']} is raised inside {innermost.package} ({innermost}){failing}{crossing}, and no frame is the job's "
            f"own code: it is {whose} for this message and move to the release that fixes it, or pin the versions the "
            "project was tested with.")


_SOURCE_OR_CARET = re.compile(r"^\s+\S|^\s*[~^]+\s*$")


def frame_run(lines: Iterable[str]) -> Iterator[str]:
    """The lines (launcher prefix removed) for as long as they are traceback frames, their
    indented source lines or carets."""
    for line in lines:
        text = lexicon.unprefixed(line)
        if not (frames([text]) or _SOURCE_OR_CARET.match(text)):
            return
        yield text


def traceback_above(before: list[str]) -> list[str]:
    """The traceback block right above the root: frame lines, their indented source lines and
    carets, back to its header. Pasted excerpts often start mid-traceback, without the header."""
    block = list(takewhile(lambda text: "Traceback (most recent call last)" not in text, frame_run(reversed(before))))
    return block[::-1] if frames(block) else []


_CARET_LINE = re.compile(r"^\s*[~^]+\s*$")


def statement_above(before: Sequence[str]) -> str | None:
    """The last line above an exception that is not Python 3.11's caret underline of it: the
    statement that raised, when the lines above are its traceback."""
    return next((line for line in reversed(before) if not _CARET_LINE.match(lexicon.unprefixed(line))), None)


# Wording of a check on a value: "ValueError: end should be larger than begin, but got begin=0,
# end=0" (mmengine's parameter scheduler under XTuner, csg2008/InternLMAgricultureAssistant notes),
# "    assert self.num_heads % tp_size == 0" (TensorRT-LLM attention, verl-project/verl PR #5687 log).
_VALUE_CHECK = re.compile(r"(?i)\bassert\b.{0,80}(?:\s%\s|[<>]=?|==|!=)|"
                          r"\b(?:should|must) be (?:larger|smaller|greater|less|at least|at most|positive|divisible|a multiple)\b|"
                          r"\bdivisible by\b|\bexceeds?\b.{0,40}\d|\bbut got \w+=")
_INPUT_CHECK_RAISE = re.compile(r"^\s+raise (?:ValueError|TypeError|KeyError)\b")


def rejected_input(before: list[str], stack: list[Frame] | None = None) -> bool:
    """The job's entry package refused what the job gave it: the failing statement is its own
    ``raise ValueError(...)`` and no other package of the stack called into it. "raise
    ValueError(f"Undefined dataset {name} in {DATA_CONFIG}.")" above "ValueError: Undefined
    dataset mllm_demo in dataset_info.json." (hiyouga/LlamaFactory#7703, run from outside the
    checkout). torch refusing Megatron's call (no process group yet) is Megatron's bug instead."""
    if not before or _INPUT_CHECK_RAISE.match(before[-1]) is None:
        return False
    stack = frames(before) if stack is None else stack
    packages = {f.package for f in stack if f.package != STDLIB and not _LOADER_HARNESS.search(f.path)}
    return len(packages) == 1 and None not in packages


# A data loader's worker only calls the dataset: its frames are the harness, not a party to the
# check. "torch/utils/data/_utils/fetch.py ... in fetch" over verl's dataset raising "ValueError:
# sequence_length=5284 is larger than self.max_length=4096" (HappynessI/verl-for-AgentGym textcraft SFT log).
_LOADER_HARNESS = re.compile(r"torch/utils/data/|/torchdata/")


# Messages printed below the line that announces them:
#   "accelerate.utils.operations.DistributedOperationException:" then, after a blank line,
#   "Cannot apply desired operation due to shape mismatches. ..." (huggingface/accelerate troubleshooting)
#   Open MPI's help text framed by dashes under "OPAL ERROR: Unreachable in file pmix3x_client.c"
#   (mlcommons training_results_v4.0 Oracle resnet result log)
_BARE_HEADER = re.compile(r"^\s*[\w.]*(?:Error|Exception)\s*:\s*$")
_RULE = re.compile(r"^\s*[-=*_]{10,}\s*$")
QUOTE_CHARS = 320
# What mpirun frames after any failed rank, whatever the cause (horovod/horovod#1136):
#   "Primary job  terminated normally, but 1 process returned a non-zero exit code. Per user-direction, ..."
# and the header of the job report LSF appends to the output file, between rules of dashes:
#   "Sender: LSF System <lsfadmin@hpc.dtu.dk>" / "Subject: Job 19629902: <WorkingSetup_0> in cluster <dcc> Exited"
#   (MrCogito/Deep_learning_2023 outputs)
# and MindSpore's developer section under an error, framed the same way as its help blocks:
#   "- C++ Call Stack: (For framework developers)" (mindspore-lab/models LPCNet train_timers3.log)
_LAUNCHER_BOILERPLATE = re.compile(r"Primary job\s+terminated normally|Per user-direction|mpirun noticed that process|"
                                   r"Sender: LSF System|Subject: Job \d+|C\+\+ Call Stack|For framework developers")


def message_below(root_text: str, after: Sequence[str]) -> str | None:
    """The text the error printed under itself: below a bare exception header, or inside a
    help block framed by a rule of dashes right after it."""
    lines = list(after)
    if _BARE_HEADER.match(root_text):
        start = 0
    else:
        rule = next((i for i, line in enumerate(lines[:3]) if _RULE.match(line)), None)
        if rule is None:
            return None
        start = rule + 1
    text: list[str] = []
    for line in lines[start:]:
        if _RULE.match(line):
            if text and not text[-1].endswith(":"):
                break
            continue  # a heading in its own frame ("- Dataset Pipeline Error Message:"): its text follows
        if line.strip():
            text.append(line.strip())
    quote = " ".join(text)
    if len(quote) < 20 or _LAUNCHER_BOILERPLATE.search(quote):
        return None
    return quote if len(quote) <= QUOTE_CHARS else quote[: QUOTE_CHARS - 1].rsplit(" ", 1)[0] + " …"


def evidence_steps(
    root_text: str, before: list[str], companions: Sequence[str] = (), stage: str = "unknown", after: Sequence[str] = ()
) -> tuple[list[str], str | None]:
    """Steps naming what the failing message names (the root's, else a companion's, at most
    ``MAX_STEPS``), and where its traceback says the exception was raised."""
    frame = step_from_frames(root_text, before)
    missing = _NOT_FOUND.search(root_text)
    made = _MKDIR.search(before[-1]) if before and missing else None
    if missing and made:
        # mkdir makes one level: the missing path is its parent, not the input the job reads.
        return [f"'{_short(missing['path'])}' could not be created: `{made.group(0).strip()}` makes one directory level and its "
                "parent does not exist. Create the parent first, or use os.makedirs(path, exist_ok=True) / "
                "Path(path).mkdir(parents=True, exist_ok=True)."], frame
    below = message_below(root_text, after)
    if below is not None:
        return [f"The message printed with the error says: \u201c{below}\u201d", *steps_from_message(below, stage)][:MAX_STEPS], frame
    for text in (root_text, *companions, *after):
        steps = steps_from_message(text, stage)
        if steps:
            return steps[:MAX_STEPS], frame
    # A backend's fallback warning above the traceback names the operator the error is about.
    unsupported = [m for line in before if (m := _UNSUPPORTED_OP.search(line))]
    if unsupported:
        return steps_from_message(unsupported[-1].string, stage), frame
    return [], frame
