"""User, framework and platform fault types (catalogue order).

Each line quotes a real public log line (``# real:`` names where it was printed); the
knowledge doc named beside it carries the same example with its sources.
"""

from __future__ import annotations

from l4synth.fault_types import _BOTH, _CUDA, _HCCL_INIT_FAILED, _NPU, _TRAIN_TB, FaultType, Line, _tb

SOFTWARE: tuple[FaultType, ...] = (
    # -------------------------------------------------------------- user / configuration
    FaultType(
        "tp-pp-not-dividing-world", "user", "configuration", "launching_failure", "init", _BOTH, "crash", "all",
        # real: knowledge/framework/megatron-world-size-not-divisible-by-model-parallel (Megatron-LM's
        # parallel_state check, "[rank0]: RuntimeError: world_size (12) is not divisible by ...").
        (*_tb("/workspace/Megatron-LM/megatron/core/parallel_state.py|441|initialize_model_parallel|"
              "raise RuntimeError("),
         Line("print", "RuntimeError: world_size ({world}) is not divisible by tensor_model_parallel_size ({bad_tp}) x "
              "pipeline_model_parallel_size ({pp}) x context_parallel_size (1)", per_rank=True)),
        "The job asked for tensor x pipeline parallel sizes whose product does not divide the world size.",
        "Choose --tensor-model-parallel-size and --pipeline-model-parallel-size whose product divides the number "
        "of accelerators (or change the node count).",
    ),
    FaultType(
        "layers-not-divisible-pp", "user", "configuration", "launching_failure", "model_loading", _BOTH, "crash", "all",
        # real: NVIDIA-BioNeMo/bionemo-recipes#784 (transformer_block.py get_num_layers_to_build:
        # "AssertionError: num_layers should be divisible by pipeline_model_parallel_size").
        (*_tb("/workspace/Megatron-LM/megatron/core/transformer/transformer_block.py|110|get_num_layers_to_build|"
              "num_layers % config.pipeline_model_parallel_size == 0"),
         Line("print", "AssertionError: num_layers should be divisible by pipeline_model_parallel_size",
              per_rank=True)),
        "The number of transformer layers is not divisible by the pipeline-parallel size.",
        "Set --num-layers to a multiple of --pipeline-model-parallel-size, or pick a pipeline size that divides it.",
    ),
    FaultType(
        "hccl-exec-timeout-too-low", "user", "configuration", "training_crash", "training", _NPU, "crash", "all",
        # real: hiyouga/LlamaFactory#975 (EI0002 with its base and task information) in the stamped form of
        # vllm-project/vllm-ascend#1443; "ACL stream synchronize failed, error code:507048" (vllm-ascend#2800).
        (Line("ecode", "EI0002|The wait execution of the Notify register times out. Reason: The Notify register has "
              "not received the Notify record from remote rank [{peer_rank}].base information: [streamID:[{n2}], "
              "taskID[{n1}], taskType[Notify Wait], tag[AllReduce_{ip}%enp69s0_60000_0_{h1}].] task information: "
              "[notify id:[0x00000005000000{n2}], stage:[0], remote rank:[{peer_rank}].]", per_rank=True),
         Line("print", "RuntimeError: ACL stream synchronize failed, error code:507048", per_rank=True, event=False)),
        "HCCL_EXEC_TIMEOUT was set far below the duration of a slow step, so a normal wait during a long collective "
        "was reported as a notify timeout.",
        "Unset HCCL_EXEC_TIMEOUT or raise it (default 1836 s) so it exceeds the longest step, checkpoint and eval.",
        reaction="none",
        env=(("HCCL_EXEC_TIMEOUT", "{n2}"),),
    ),
    FaultType(
        "invalid-ranktable", "user", "configuration", "launching_failure", "init", _NPU, "crash", "all",
        # real: the HCCL user guide's EI0004 example (hiascend hcclug FAQ; knowledge/ascend/hccl-ei0004-ranktable-invalid).
        (Line("ecode", "EI0004|The ranktable or rank is invalid, Reason:[The ip in ranktable is not a valid ip "
              "address]. Please check the configured ranktable. [The ranktable path configured in the training can "
              "be found in the plogs.]", per_rank=True),
         *_HCCL_INIT_FAILED),
        "The rank table file given to HCCL does not match the servers (an invalid IP), so communicator init failed.",
        "Regenerate the rank table (RANK_TABLE_FILE) for the allocated servers and devices, or let the platform "
        "create it, and relaunch.",
    ),
    FaultType(
        "dataset-path-missing", "user", "configuration", "launching_failure", "data_loading", _BOTH, "crash", "all",
        # real: knowledge/framework/dataset-path-file-not-found (Megatron's indexed dataset on a missing prefix).
        (*_tb("/workspace/Megatron-LM/megatron/core/datasets/indexed_dataset.py|380|__init__|"
              "self.bin_buffer_mmap = numpy.memmap(path_prefix + '.bin', mode='r', order='C')"),
         Line("print", "FileNotFoundError: [Errno 2] No such file or directory: '{data}.bin'", per_rank=True)),
        "The --data-path prefix points at a dataset that does not exist on the job's storage.",
        "Fix --data-path (prefix without .bin/.idx) to the preprocessed dataset location and relaunch.",
    ),
    FaultType(
        "tokenizer-path-missing", "user", "configuration", "launching_failure", "data_loading", _BOTH, "crash", "all",
        # real: knowledge/framework/hf-cant-load-tokenizer (transformers' message, first sentence pair).
        (Line("print", "OSError: Can't load tokenizer for '{tok}'. If you were trying to load it from "
              "'https://huggingface.co/models', make sure you don't have a local directory with the same name.",
              per_rank=True),),
        "The tokenizer path given to the job does not exist or is not a tokenizer directory.",
        "Point --tokenizer-model/--tokenizer-name-or-path at the tokenizer files on shared storage and relaunch.",
    ),
    FaultType(
        "fp16-loss-scale-collapse", "user", "configuration", "training_crash", "training", _BOTH, "crash", "all",
        # real: knowledge/framework/fp16-gradient-overflow-skipped-steps (DeepSpeed's loss_scaler.py
        # "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768")
        # and knowledge/framework/fp16-loss-scale-at-minimum (the exception).
        (Line("app", "[deepspeed] OVERFLOW! Rank {rank} Skipping step. Attempted loss scale: 2, reducing to 1",
              level="INFO", event=False),
         Line("print", "Exception: Current loss scale already at minimum - cannot decrease scale anymore. "
              "Exiting run.")),
        "The loss diverged (fp16 overflow every step) until the dynamic loss scale hit its minimum; the "
        "learning rate/warmup is too aggressive for fp16.",
        "Lower the learning rate or lengthen warmup, switch to bf16, and restart from a checkpoint before the "
        "divergence.",
        frameworks=("deepspeed",),
    ),
    FaultType(
        "nan-loss", "user", "configuration", "training_crash", "training", _BOTH, "crash", "all",
        # real: knowledge/framework/nan-loss-grad-norm-divergence (Megatron's grad-norm check, "AssertionError:
        # Rank 11: found NaN in local grad norm in backward pass before data-parallel communication collective.").
        (Line("print", "AssertionError: Rank {rank}: found NaN in local grad norm in backward pass before data-parallel "
              "communication collective. Device: {dev}, node: {host}", per_rank=True),),
        "The loss became NaN (gradient norm NaN on every rank) after the learning rate ramped up.",
        "Lower the peak learning rate or increase warmup, check the data at that iteration, and resume from the "
        "last checkpoint before the NaN.",
        frameworks=("megatron", "mindspeed", "torch"),
    ),
    # ------------------------------------------------------------------ user / script bug
    FaultType(
        "user-code-exception", "user", "script_bug", "training_crash", "training", _BOTH, "crash", "some",
        # real: knowledge/framework/python-exception-in-training-code ("[rank3]: KeyError: 'input_ids'": a
        # Python exception raised in the user's own frame).
        (*_TRAIN_TB,
         Line("print", '  File "/workspace/custom/data_collator.py", line {n2}, in __call__', event=False, per_rank=True),
         Line("print", "    labels[i, : len(ex['labels'])] = ex['labels']", event=False, per_rank=True),
         Line("print", "KeyError: 'labels'", per_rank=True)),
        "The user's custom data collator indexes a key that some samples lack, raising KeyError at this iteration.",
        "Fix the collator to handle samples without 'labels' (or filter them during preprocessing) and resume.",
    ),
    FaultType(
        "dataloader-fork-hang", "user", "script_bug", "abnormal_behavior", "data_loading", _BOTH, "hang", "all",
        # real: huggingface/tokenizers' fork warning (its utils/parallelism.rs), as printed verbatim in many
        # public notebooks and issue threads.
        (Line("print", "huggingface/tokenizers: The current process just got forked, after parallelism has already "
              "been used. Disabling parallelism to avoid deadlocks...", level="WARNING", per_rank=True),
         Line("print", "To disable this warning, you can either:", level="WARNING", event=False, per_rank=True)),
        "The training script forks dataloader workers after the tokenizer's thread pool started, and the forked "
        "workers deadlock, so the first batch never arrives.",
        "Set TOKENIZERS_PARALLELISM=false or use the 'spawn' start method for dataloader workers, then relaunch.",
    ),
    # ------------------------------------------------------ user / software incompatibility
    FaultType(
        "cuda-driver-too-old", "user", "software_incompatibility", "launching_failure", "init", _CUDA, "crash", "all",
        # real: knowledge/cuda/cuda-driver-too-old (torch's check, "found version 11040").
        (Line("print", "RuntimeError: The NVIDIA driver on your system is too old (found version {driver_old}). Please "
              "update your GPU driver by downloading and installing a new version from the URL: "
              "http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a "
              "PyTorch version that has been compiled with your version of the CUDA driver.", per_rank=True),),
        "The container's CUDA runtime needs a newer NVIDIA driver than the one installed on the hosts.",
        "Use an image built for the hosts' driver (or the CUDA forward-compat package), or upgrade the driver.",
    ),
    FaultType(
        "torch-npu-cann-mismatch", "user", "software_incompatibility", "launching_failure", "init", _NPU, "crash", "all",
        # real: knowledge/ascend/ascend-torch-npu-cann-version-mismatch (torch_npu built for a newer CANN:
        # "libtorch_npu.so: undefined symbol: MsprofSysCycleTime", triton-lang/triton-ascend#328).
        (*_tb("/workspace/{script}|{n2}|<module>|import torch_npu",
              "/usr/local/lib/python3.10/site-packages/torch_npu/__init__.py|14|<module>|import torch_npu.npu"),
         Line("print", "ImportError: /usr/local/lib/python3.10/site-packages/torch_npu/lib/libtorch_npu.so: undefined "
              "symbol: MsprofSysCycleTime", per_rank=True)),
        "The torch_npu build requires a newer CANN than the container and host provide.",
        "Install the torch_npu release that matches the CANN toolkit and driver (see the version table) and relaunch.",
    ),
    FaultType(
        "flash-attn-undefined-symbol", "user", "software_incompatibility", "launching_failure", "init", _CUDA, "crash",
        "all",
        # real: knowledge/framework/flash-attn-undefined-symbol (Dao-AILab/flash-attention#620 and many threads).
        (Line("print", "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-"
              "linux-gnu.so: undefined symbol: _ZN3c104cuda9SetDeviceEi", per_rank=True),),
        "The flash-attn extension was built against a different torch version than the one installed "
        "(undefined C++ symbol at import).",
        "Rebuild/reinstall flash-attn against the installed torch (pip install --no-build-isolation) or pin "
        "matching versions in the image.",
    ),
    # ---------------------------------------------------------------- user / misoperation
    FaultType(
        "ckpt-permission-denied", "user", "misoperation", "training_crash", "checkpoint", _BOTH, "crash", "all",
        # real: knowledge/platform/output-dir-permission-denied (Python's EACCES on the checkpoint directory).
        (*_tb("/workspace/Megatron-LM/megatron/training/checkpointing.py|370|save_checkpoint|"
              "os.makedirs(os.path.dirname(checkpoint_name), exist_ok=True)"),
         Line("print", "PermissionError: [Errno 13] Permission denied: '{ckpt}/iter_{iter:07d}'", per_rank=True)),
        "The checkpoint directory points at storage the job's user cannot write, so the first save failed.",
        "Point --save at a writable path (or grant the job's service account write access) and resume.",
    ),
    FaultType(
        "stale-process-occupies-npu", "user", "misoperation", "launching_failure", "init", _NPU, "crash", "host",
        # real: knowledge/ascend/ascend-device-occupied-residual-process (EJ0001, hiascend hcclug FAQ) and
        # torch_npu's HCCL init failure (verl-project/verl#3947).
        (Line("ecode", "EJ0001|Failed to initialize the HCCP process. Reason: Maybe the last training process is "
              "running.", per_rank=True),
         *_HCCL_INIT_FAILED),
        "A previous training process the user left running on this node still holds the NPUs' HCCP resources.",
        "Kill the leftover processes on the node (npu-smi info to find them), wait 10 s, and relaunch.",
    ),
    # ----------------------------------------------------------------- framework bugs
    FaultType(
        "deepspeed-zero-reduce-assert", "framework", "framework_bug", "training_crash", "training", _BOTH, "crash",
        "all",
        # real: knowledge/framework/deepspeed-zero-gradient-reduced-twice (the assertion's text keeps the
        # source's line continuations as runs of spaces).
        (Line("print", "AssertionError: The parameter {n1} has already been reduced.             Gradient computed "
              "twice for this partition.             Multiple gradient reduction is currently not supported",
              per_rank=True),),
        "DeepSpeed ZeRO's gradient bookkeeping asserted on a parameter reduced twice, a known framework bug with "
        "this model's shared weights.",
        "Roll DeepSpeed back to the last version known to work with this model (or apply the upstream fix) and resume.",
        frameworks=("deepspeed",),
    ),
    FaultType(
        "megatron-dist-opt-assert", "framework", "framework_bug", "training_crash", "checkpoint", _BOTH, "crash", "all",
        # real: THUDM/slime#1221 (distrib_optimizer.py sharded_param_state_dp_reshardable asserting while a
        # checkpoint is saved: "AssertionError: (torch.Size([]), 0, 77856768)").
        (*_tb("/workspace/Megatron-LM/megatron/core/optimizer/distrib_optimizer.py|1254|sharded_state_dict|"
              "param_state = self.sharded_param_state_dp_reshardable(",
              "/workspace/Megatron-LM/megatron/core/optimizer/distrib_optimizer.py|1648|"
              "sharded_param_state_dp_reshardable|assert tensors[key].shape == (gbuf_local_end - gbuf_local_start,), ("),
         Line("print", "AssertionError: (torch.Size([]), 0, {n1}{n2})", per_rank=True)),
        "Megatron's distributed optimizer asserted on an inconsistent state shard while gathering it for the "
        "checkpoint, a framework bug.",
        "Upgrade Megatron-LM/MindSpeed to a release with the distributed-optimizer checkpoint fix (or disable "
        "--use-distributed-optimizer) and resume.",
        frameworks=("megatron", "mindspeed"),
    ),
    FaultType(
        "torch-npu-internal-error", "framework", "framework_bug", "training_crash", "training", _NPU, "crash", "all",
        # real: Ascend/pytorch#90 ("RuntimeError: copy_d2d_baseformat_opapi:build/CMakeFiles/torch_npu.dir/
        # compiler_depend.ts:88 NPU function error: call aclnnInplaceCopy failed, error code is 561103") and its
        # ERR00100 banner (vllm-project/vllm-ascend#4859); knowledge/ascend/ascend-torch-npu-aclnn-call-failed.
        (Line("print", "RuntimeError: copy_d2d_baseformat_opapi:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:88 "
              "NPU function error: call aclnnInplaceCopy failed, error code is 561103", per_rank=True),
         Line("npuerr", "ERR00100 PTA call acl api failed.", per_rank=True, event=False)),
        "torch_npu's in-place copy kernel failed internally for this tensor layout, a framework bug.",
        "Upgrade torch_npu/CANN to a release with the fix, or avoid the in-place copy on that tensor layout.",
    ),
    # -------------------------------------------------------- platform / resource management
    FaultType(
        "host-oom-killer", "platform", "resource_management", "training_crash", "training", _BOTH, "crash", "rank",
        # real: knowledge/platform/host-oom-killer (the kernel's OOM-kill line) and the oom_reaper line the
        # kernel prints after it (mm/oom_kill.c).
        (Line("kernel", "Out of memory: Killed process {pid} (python) total-vm:{n1}44kB, anon-rss:{n1}20kB, "
              "file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:{n1}kB oom_score_adj:0"),
         Line("kernel", "oom_reaper: reaped process {pid} (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
              level="INFO")),
        "The host ran out of memory (other tenants' processes were co-scheduled on it) and the kernel OOM killer "
        "killed a rank.",
        "Schedule the job with exclusive hosts or a correct memory request, and restart from the checkpoint.",
    ),
    FaultType(
        "container-memory-limit", "platform", "resource_management", "training_crash", "checkpoint", _BOTH, "crash",
        "rank",
        # real: knowledge/platform/cgroup-oom-killed ("Memory cgroup out of memory: Killed process ...").
        (Line("kernel", "Memory cgroup out of memory: Killed process {pid} (python) total-vm:{n1}44kB, "
              "anon-rss:{n1}20kB, file-rss:0kB, shmem-rss:0kB, UID:1000 pgtables:{n1}kB oom_score_adj:0"),),
        "The container's memory limit was too small for the host-side copy made while saving the checkpoint, so "
        "the cgroup OOM killer killed a rank.",
        "Raise the container memory limit (or use async/sharded checkpointing) and resume.",
    ),
    FaultType(
        "storage-mount-missing", "platform", "resource_management", "launching_failure", "model_loading", _BOTH,
        "crash", "host",
        # real: NVIDIA/Megatron-LM#185 ("[Errno 2] No such file or directory: 'checkpoints/gpt2_345m/iter_0006000/
        # mp_rank_00/model_optim_rng.pt'"); knowledge/platform/storage-mount-missing-on-node.
        (*_tb("/workspace/Megatron-LM/megatron/training/checkpointing.py|1092|load_checkpoint|"
              "state_dict = torch.load(checkpoint_name, map_location='cpu')",
              "/usr/local/lib/python3.10/dist-packages/torch/serialization.py|986|load|"
              "with _open_file_like(f, 'rb') as opened_file:"),
         Line("print", "FileNotFoundError: [Errno 2] No such file or directory: "
              "'{ckpt}/iter_{n1:07d}/mp_rank_00/model_optim_rng.pt'", per_rank=True)),
        "The platform did not mount the shared checkpoint volume on this node, so its ranks could not load "
        "the checkpoint.",
        "Fix the volume mount on the node (or reschedule), verify the path on every node, and relaunch.",
    ),
    # --------------------------------------------------------------- platform / scheduling
    FaultType(
        "scheduler-preemption", "platform", "scheduling", "training_crash", "training", _BOTH, "crash", "all",
        # real: knowledge/platform/slurm-job-preempted ("slurmstepd: error: *** JOB 32391783 ON cn119
        # CANCELLED AT 2021-06-18T13:05:36 DUE TO PREEMPTION ***").
        (Line("print", "slurmstepd: error: *** JOB {jobid} ON {host} CANCELLED AT {date} DUE TO PREEMPTION ***"),),
        "The scheduler preempted the job for a higher-priority one and sent SIGTERM to every task.",
        "Resubmit with the right priority/QoS or to a non-preemptible partition, and resume from the checkpoint.",
        reaction="none",
    ),
    FaultType(
        "k8s-pod-preempted", "platform", "scheduling", "training_crash", "training", _BOTH, "crash", "host",
        # real: the scheduler's event as `kubectl describe pod` lists it (kubernetes/kubernetes
        # pkg/scheduler preemption: "Preempted by pod %v on node %v"; knowledge/platform/k8s-pod-evicted-or-preempted).
        (Line("print", "  Normal   Preempted  {n2}s   default-scheduler  Preempted by pod {uid} on node {host}",
              level="WARNING"),),
        "The platform preempted the job's pod on this node for a higher-priority pod, killing its ranks.",
        "Give the job a PriorityClass that low-priority work cannot preempt (or a dedicated pool) and resume.",
    ),
    # ------------------------------------------------------ platform / platform configuration
    FaultType(
        "wrong-socket-ifname", "platform", "platform_configuration", "launching_failure", "init", _CUDA, "crash", "all",
        # real: knowledge/platform/socket-ifname-misconfigured and knowledge/cuda/nccl-bootstrap-socket-ifname-
        # misconfig ("NCCL_SOCKET_IFNAME set by environment to eth2", "bootstrap.cc:126 NCCL WARN Bootstrap : no
        # socket interface found"); PyTorch's DistBackendError text.
        (Line("nccl", "NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth9", level="INFO", per_rank=True),
         Line("nccl", "bootstrap.cc:126 NCCL WARN Bootstrap : no socket interface found", level="WARNING",
              per_rank=True),
         Line("print", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
              "ProcessGroupNCCL.cpp:1691, internal error - please report this issue to the NCCL developers, NCCL "
              "version {nccl}", per_rank=True, event=False)),
        "The platform injected NCCL_SOCKET_IFNAME=eth9, an interface the hosts do not have, so NCCL found no "
        "bootstrap interface.",
        "Fix the platform's NCCL_SOCKET_IFNAME default (bond0 on these hosts) or override it in the job, and relaunch.",
        env=(("NCCL_SOCKET_IFNAME", "eth9"),),
    ),
    FaultType(
        "shm-too-small", "platform", "resource_management", "launching_failure", "data_loading", _BOTH, "crash",
        "all",
        # real: knowledge/platform/dataloader-shm-bus-error (PyTorch's DataLoader bus-error messages).
        (Line("print", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
              "shared memory (shm).", per_rank=True),
         Line("print", "RuntimeError: DataLoader worker (pid {n1}) is killed by signal: Bus error. It is possible "
              "that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
              per_rank=True, event=False)),
        "The container's /dev/shm is the 64 MB default, too small for the dataloader workers' shared tensors.",
        "Mount a larger /dev/shm in the job template (e.g. an emptyDir with medium Memory) or set --shm-size.",
    ),
)
