"""The fault catalogue: every failure the generator can inject, with its ground truth.

A fault type is data: where in the taxonomy it sits, which stage it strikes in, how it
plays out (crash, hang, slowdown, or a node that silently disappears), which nodes it
hits, and the lines the hit nodes print. Lines marked ``event`` are the
failure-indicating messages the label lists; the rest are context that real logs
print around them (traceback frames, ``-> 6`` return-code chains). How the rest of the
job reacts (peer timeouts, launcher teardown) is generic and lives in ``job.py``.

Templates are ``str.format`` strings over the variables ``job.py`` supplies: the hit
rank's ``rank dev pid host ip bus iter``, its ring peer's ``peer_rank peer_ip``, job
facts ``world tp pp layers ckpt data tok script``, and random ``n1 n2 n3 h1``.
Messages of kind ``plog`` are ``MODULE|file:line|text``; of kind ``ecode`` ``CODE|text``.
"""

from __future__ import annotations

from dataclasses import dataclass

from agent.schema import SUBCATEGORIES


@dataclass(frozen=True)
class Line:
    kind: str  # a renderer in job.py: app print stamp nccl cpp plog ecode npuerr kernel launcher
    text: str
    level: str = "ERROR"
    event: bool = True
    repeat: tuple[int, int] = (1, 1)
    per_rank: bool = False  # printed by every local rank of a hit node (else by the hit rank only)


@dataclass(frozen=True)
class FaultType:
    id: str
    category: str
    subcategory: str
    symptom: str
    stage: str
    stacks: tuple[str, ...]
    outcome: str  # crash | hang | slowdown | silent
    scope: str  # rank (one accelerator) | host (a whole machine) | some (one node, not its fault) | all
    lines: tuple[Line, ...]
    root_cause: str
    remediation: str
    peer_lines: tuple[Line, ...] = ()  # printed by the hit node's ring neighbours
    reaction: str = "watchdog"  # how peers notice: watchdog | remote | none
    frameworks: tuple[str, ...] = ()  # restrict to these frameworks (empty = any)
    env: tuple[tuple[str, str], ...] = ()  # environment the job was (mis)configured with, shown in its env dump

    @property
    def node_local(self) -> bool:
        return self.scope in ("rank", "host")

    @property
    def kernel_only_evidence(self) -> bool:
        """True when some event line comes from the kernel log (not printed into a rank's console)."""
        return any(line.kind == "kernel" and line.event for line in self.lines)


def _tb(*frames: str) -> tuple[Line, ...]:
    """A Python traceback (context lines, no timestamps)."""
    out = [Line("print", "Traceback (most recent call last):", event=False, per_rank=True)]
    for fr in frames:
        path, lineno, func, code = fr.split("|")
        out.append(Line("print", f'  File "{path}", line {lineno}, in {func}', event=False, per_rank=True))
        out.append(Line("print", f"    {code}", event=False, per_rank=True))
    return tuple(out)


_TRAIN_TB = _tb(
    "/workspace/{script}|{n1}|<module>|pretrain(train_valid_test_datasets_provider, model_provider)",
    "/workspace/Megatron-LM/megatron/training/training.py|306|pretrain|iteration, num_floating_point_operations_so_far = train(",
    "/workspace/Megatron-LM/megatron/training/training.py|1123|train|train_step(forward_step_func,",
)
_NCCL_CHAIN = (
    Line("nccl", "NCCL INFO transport/net.cc:1298 -> 6", level="INFO", event=False),
    Line("nccl", "NCCL INFO proxy.cc:694 -> 6", level="INFO", event=False),
)
_CUDA = ("cuda",)
_NPU = ("ascend",)
_BOTH = ("cuda", "ascend")

FAULTS: tuple[FaultType, ...] = (
    # ---------------------------------------------------------------- hardware / network
    FaultType(
        "nccl-ib-completion-error", "hardware", "network", "training_crash", "training", _CUDA, "crash", "host",
        (Line("nccl", "transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer {peer_ip}<{n2}> with "
              "status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:{ip} remoteGids::ffff:{peer_ip}",
              level="WARNING", repeat=(2, 5)),
         *_NCCL_CHAIN),
        "The InfiniBand/RoCE port of the node retried a transfer until the transport retry counter was exceeded "
        "(completion status 12), so its NCCL connections broke.",
        "Drain the node, check the HCA port counters and cable/optics (ibstat, perfquery), and restart from the "
        "last checkpoint without it.",
        reaction="remote",
    ),
    FaultType(
        "roce-cqe-error", "hardware", "network", "training_crash", "training", _NPU, "crash", "host",
        (Line("plog", "ROCE|rs_epoll.c:388|rs_cqe_status: error cqe status 0x{n3}, qpn {n1}, local {ip}, "
              "remote {peer_ip}", level="ERROR", repeat=(2, 4)),
         Line("plog", "HCCL|transport_ibverbs.cc:1207|[TransportIbverbs]qp[{n1}] wc error, remote rank[{peer_rank}] "
              "ip[{peer_ip}], status[12]", level="ERROR")),
        "The node's RoCE NIC reported error CQEs (retry exceeded) on its HCCL queue pairs, a link-level fault.",
        "Isolate the node, inspect the NIC with hccn_tool (link stat, optical module, pcs_err_cnt) and replace the "
        "faulty port or cable.",
    ),
    FaultType(
        "roce-link-down", "hardware", "network", "abnormal_behavior", "training", _NPU, "hang", "host",
        (Line("kernel", "hns3 0000:{bus}:00.0 eth{dev}: link down", level="INFO"),
         Line("plog", "HCCP|net_adapt.c:577|[hccp] device {dev} NIC port link status changed to DOWN", level="INFO")),
        "A NIC port of the node went link-down mid-training, so collectives through it never completed and the "
        "job hung until the HCCL timeout.",
        "Check the port with hccn_tool -i {dev} -link -g and the switch side, replace the optical module or cable, "
        "then resume without the node.",
    ),
    FaultType(
        "nic-pcs-err-slowdown", "hardware", "network", "abnormal_behavior", "training", _NPU, "slowdown", "host",
        (Line("plog", "HCCP|link_monitor.c:212|[hccp] device {dev} pcs_err_cnt increased to {n2}, link quality "
              "degraded, retransmission rate {n3}/10000", level="WARNING"),),
        "Physical coding sublayer errors on one NIC forced retransmissions, and synchronous training ran at the "
        "pace of that slow link.",
        "Read hccn_tool -i <dev> -stat for pcs_err_cnt on the node, reseat or replace the optical module, and "
        "restart without the node.",
    ),
    FaultType(
        "nccl-socket-timeout", "hardware", "network", "launching_failure", "init", _CUDA, "crash", "host",
        (Line("nccl", "misc/socket.cc:484 NCCL WARN socketStartConnect: Connect to {peer_ip}<{n2}> failed : "
              "Connection timed out", level="WARNING", repeat=(1, 3)),
         Line("nccl", "NCCL INFO misc/socket.cc:567 -> 6", level="INFO", event=False),
         Line("nccl", "NCCL INFO bootstrap.cc:274 -> 6", level="INFO", event=False)),
        "TCP connections from the node to its peers timed out during NCCL bootstrap: its bootstrap interface or "
        "top-of-rack switch port is unreachable.",
        "Test connectivity from the node (ping/ib_write_bw to peers on bond0), fix the port or route, and relaunch.",
    ),
    FaultType(
        "ib-port-flap-hang", "hardware", "network", "abnormal_behavior", "training", _CUDA, "hang", "host",
        (Line("kernel", "mlx5_core 0000:{bus}:00.0: mlx5_port_module_event:1154:(pid 0): Port module event: "
              "module 0, Cable unplugged", level="INFO"),
         Line("kernel", "mlx5_core 0000:{bus}:00.0 ib{dev}: Link down", level="INFO")),
        "An InfiniBand port of the node lost its link (cable/module event) and every collective through it "
        "stalled until the NCCL watchdog fired.",
        "Check the cable and transceiver of that port (mlxlink), replace them, and restart without the node.",
    ),
    # ------------------------------------------------------------ hardware / accelerator
    FaultType(
        "xid79-fallen-off-bus", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        (Line("kernel", "NVRM: GPU at PCI:0000:{bus}:00: GPU-{h1}", level="INFO", event=False),
         Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 79, pid={pid}, name=python, GPU has fallen off the bus."),
         Line("kernel", "NVRM: GPU 0000:{bus}:00.0: GPU has fallen off the bus.", level="WARNING"),
         Line("app", "CUDA error: unspecified launch failure on device {dev}", event=False)),
        "GPU {dev} of the node fell off the PCIe bus (Xid 79), a hardware or power fault of that GPU.",
        "Drain the node, collect nvidia-bug-report, reseat or replace the GPU, and restart from the last "
        "checkpoint without it.",
    ),
    FaultType(
        "xid48-double-bit-ecc", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        (Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 48, pid={pid}, name=python, An uncorrectable double bit "
              "error (DBE) has been detected on GPU in the framebuffer at partition {n3}, subpartition 0."),
         Line("print", "RuntimeError: CUDA error: uncorrectable ECC error encountered"),),
        "GPU {dev} hit an uncorrectable double-bit ECC error in its memory (Xid 48).",
        "Drain the node, reset the GPU and check retired pages/row remapping (nvidia-smi -q -d ECC); replace it if "
        "errors recur, then restart from the checkpoint.",
    ),
    FaultType(
        "xid95-uncontained-ecc", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        (Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 95, pid={pid}, name=python, Uncontained: FBHUB. "
              "RST: Yes, D-RST: No"),
         Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 94, pid={pid}, name=python, Contained: CE User Channel "
              "(0x{n3}). RST: No, D-RST: No", level="WARNING"),
         Line("print", "RuntimeError: CUDA error: an illegal memory access was encountered", event=False)),
        "GPU {dev} reported an uncontained memory error (Xid 95) that corrupted the process's context.",
        "Drain the node, reset the GPU, run dcgmi diag -r 3, and replace it if the error repeats.",
    ),
    FaultType(
        "cuda-illegal-address-mmu", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        (Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 31, pid={pid}, name=python, Ch 00000010, intr 00000000. "
              "MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_3 faulted @ 0x7f{n1}_00000000. Fault is of type "
              "FAULT_PDE ACCESS_TYPE_VIRT_READ", level="WARNING"),
         Line("print", "RuntimeError: CUDA error: an illegal memory access was encountered"),
         Line("print", "CUDA kernel errors might be asynchronously reported at some other API call, so the "
              "stacktrace below might be incorrect.", level="INFO", event=False)),
        "GPU {dev} raised an MMU fault (Xid 31) and the kernel died with an illegal memory access; with identical "
        "code on every other GPU this points at the device.",
        "Run dcgmi diag and a memory stress test on that GPU, replace it if it fails, and restart without the node.",
    ),
    FaultType(
        "aicore-execute-failure", "hardware", "accelerator", "training_crash", "training", _NPU, "crash", "rank",
        (Line("plog", "RUNTIME|device_error_proc.cc:1101|The error from device(chipId:{dev}, dieId:0), serial "
              "number is {n1}, there is an aicore error exception, core id is {n3}, error code = 0x800000", ),
         Line("plog", "RUNTIME|stream.cc:1044|Aicore kernel execute failed, device_id={dev}, stream_id={n2}, "
              "report_stream_id={n2}, task_id={n1}, flip_num=0, fault kernel_name=FlashAttentionScore_{n1}"),
         Line("ecode", "EZ9999|Inner Error!", event=False),
         Line("print", "RuntimeError: ACL stream synchronize failed, error code:507015", event=False)),
        "An AI Core of NPU {dev} failed while executing a kernel (EZ9999 aicore error), a computational fault of "
        "that accelerator.",
        "Isolate the NPU, run the Ascend hardware diagnosis (ascend-dmi -dg) on it, and replace it if the aicore "
        "test fails.",
    ),
    FaultType(
        "hbm-multibit-ecc", "hardware", "accelerator", "training_crash", "training", _NPU, "crash", "rank",
        (Line("plog", "DRV|dev_mng.c:1337|devmm hbm multi-bit ecc error detected, device {dev}, addr 0x{n1}00, "
              "isolated pages {n3}"),
         Line("ecode", "EL0004|Failed to allocate memory. Possible Cause: Available memory is insufficient or HBM "
              "page isolated on device {dev}.", level="ERROR"),
         Line("print", "RuntimeError: NPU out of memory. Tried to allocate 2.00 GiB", event=False)),
        "NPU {dev} hit a multi-bit ECC error in HBM and isolated memory pages, so the next allocation failed.",
        "Replace the NPU (multi-bit HBM errors are not recoverable) and restart from the checkpoint without it.",
    ),
    FaultType(
        "npu-heartbeat-lost", "hardware", "accelerator", "training_crash", "training", _NPU, "crash", "rank",
        (Line("plog", "DRV|dms_heartbeat.c:406|device {dev} heartbeat lost, last response {n3} ms ago, "
              "device status abnormal", level="WARNING"),
         Line("npuerr", "ERR00100 PTA call acl api failed", event=False),
         Line("ecode", "EE1001|Device {dev} is unavailable: the device heartbeat is lost.")),
        "NPU {dev} stopped answering the driver heartbeat, so the runtime declared the device lost.",
        "Collect the device log (msnpureport), reset or replace the NPU, and restart without the node.",
    ),
    FaultType(
        "gpu-thermal-slowdown", "hardware", "accelerator", "abnormal_behavior", "training", _CUDA, "slowdown", "rank",
        (Line("app", "[health] GPU {dev}: clocks_event_reasons.hw_thermal_slowdown Active, temp {n2}C, sm_clock "
              "{n3}MHz", level="WARNING"),),
        "GPU {dev} throttled its clocks for heat (HW thermal slowdown) and the whole synchronous job slowed to its pace.",
        "Check the node's fans, airflow and inlet temperature, reseat the heatsink if needed, and move the job off "
        "the node until it is fixed.",
    ),
    # ----------------------------------------------------------------- hardware / node
    FaultType(
        "node-silent-death", "hardware", "node", "training_crash", "training", _CUDA, "silent", "host",
        (),
        "The node stopped (power or mainboard failure): its log ends abruptly and its peers lost their connections "
        "to it.",
        "Check the node's BMC/IPMI event log and power, replace the failed part, and restart without the node.",
        peer_lines=(Line("nccl", "transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer {fip}<{n2}> "
                         "with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:{ip} "
                         "remoteGids::ffff:{fip}", level="WARNING", repeat=(1, 3)),),
    ),
    FaultType(
        "npu-node-silent-death", "hardware", "node", "training_crash", "training", _NPU, "silent", "host",
        (),
        "The node went down without a word (its log just stops); its HCCL peers reported the lost connection.",
        "Check the node's BMC event log and heartbeat history, repair it, and restart the job without it.",
        peer_lines=(Line("plog", "HCCL|heartbeat.cc:802|[Heartbeat]rank[{frank}] ip[{fip}] heartbeat lost, remote "
                         "node may be down", level="ERROR", repeat=(1, 2)),),
    ),
    FaultType(
        "host-mce-crash", "hardware", "node", "training_crash", "training", _BOTH, "silent", "host",
        (Line("kernel", "mce: [Hardware Error]: Machine check events logged", level="WARNING", repeat=(2, 4)),
         Line("kernel", "mce: [Hardware Error]: CPU {n3}: Machine Check: 0 Bank 7: be00000000800400", level="WARNING")),
        "The host logged machine-check (MCE) hardware errors and then went down, killing its ranks.",
        "Read the BMC SEL and mcelog on the node, replace the faulty DIMM/CPU, and restart without the node.",
    ),
    FaultType(
        "local-disk-readonly", "hardware", "node", "training_crash", "training", _BOTH, "crash", "host",
        (Line("kernel", "EXT4-fs error (device nvme0n1p1): ext4_journal_check_start:83: comm python: Detected aborted "
              "journal"),
         Line("kernel", "EXT4-fs (nvme0n1p1): Remounting filesystem read-only", level="INFO"),
         Line("print", "OSError: [Errno 30] Read-only file system: '/tmp/torchinductor_root/{h1}.lock'")),
        "The node's local NVMe disk failed and was remounted read-only, so the rank could not write its cache files.",
        "Check the disk's SMART log, replace it, and restart without the node.",
    ),
    # -------------------------------------------------------------- hardware / storage
    FaultType(
        "ckpt-save-io-error", "hardware", "storage", "training_crash", "checkpoint", _BOTH, "crash", "some",
        (*_tb("/workspace/Megatron-LM/megatron/training/checkpointing.py|386|save_checkpoint|"
              "torch.save(state_dict, checkpoint_name)"),
         Line("print", "OSError: [Errno 5] Input/output error: '{ckpt}/iter_{iter:07d}/mp_rank_{tp:02d}/"
              "model_optim_rng.pt'", per_rank=True)),
        "The shared checkpoint storage returned an I/O error while ranks wrote the checkpoint.",
        "Check the storage backend's health and capacity for the checkpoint path, then resume from the previous "
        "checkpoint.",
    ),
    FaultType(
        "nfs-not-responding-hang", "hardware", "storage", "abnormal_behavior", "checkpoint", _BOTH, "hang", "all",
        (Line("kernel", "nfs: server 10.200.0.{n3} not responding, still trying", level="WARNING", repeat=(1, 3)),),
        "The NFS server holding checkpoints stopped responding during a save, so every rank blocked in the write "
        "and the job hung.",
        "Check the NFS server and the network path to it, then restart from the previous checkpoint.",
    ),
    FaultType(
        "ckpt-load-corrupt", "hardware", "storage", "launching_failure", "model_loading", _BOTH, "crash", "all",
        (*_tb("/workspace/Megatron-LM/megatron/training/checkpointing.py|1092|load_checkpoint|"
              "state_dict = torch.load(checkpoint_name, map_location='cpu')"),
         Line("print", "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
              "directory", per_rank=True),
         Line("app", "Failed to load checkpoint {ckpt}/iter_{n1:07d}: file is truncated or corrupted", per_rank=True)),
        "The checkpoint on remote storage is truncated (a partial write), so loading it failed on every rank.",
        "Verify the checkpoint files' sizes and checksums, fall back to the previous complete checkpoint "
        "(edit latest_checkpointed_iteration.txt), and relaunch.",
    ),
    # -------------------------------------------------------------- user / configuration
    FaultType(
        "tp-pp-not-dividing-world", "user", "configuration", "launching_failure", "init", _BOTH, "crash", "all",
        (*_tb("/workspace/Megatron-LM/megatron/core/parallel_state.py|441|initialize_model_parallel|"
              "raise RuntimeError("),
         Line("print", "RuntimeError: world_size ({world}) is not divisible by tensor_model_parallel_size ({bad_tp}) x "
              "pipeline_model_parallel_size ({pp})", per_rank=True)),
        "The job asked for tensor x pipeline parallel sizes whose product does not divide the world size.",
        "Choose --tensor-model-parallel-size and --pipeline-model-parallel-size whose product divides the number "
        "of accelerators (or change the node count).",
    ),
    FaultType(
        "layers-not-divisible-pp", "user", "configuration", "launching_failure", "model_loading", _BOTH, "crash", "all",
        (*_tb("/workspace/Megatron-LM/megatron/core/transformer/transformer_block.py|62|get_num_layers_to_build|"
              "assert num_layers % pipeline_model_parallel_size == 0"),
         Line("print", "AssertionError: num_layers ({bad_layers}) must be divisible by pipeline_model_parallel_size ({pp2})",
              per_rank=True)),
        "The number of transformer layers is not divisible by the pipeline-parallel size.",
        "Set --num-layers to a multiple of --pipeline-model-parallel-size, or pick a pipeline size that divides it.",
    ),
    FaultType(
        "hccl-exec-timeout-too-low", "user", "configuration", "training_crash", "training", _NPU, "crash", "all",
        (Line("ecode", "EI0002|The wait execution of the Notify register times out. Reason: The Notify register has "
              "not received the Notify record from remote rank [{peer_rank}]. base information: [streamID:[{n2}], "
              "taskID[{n1}], taskType[Notify Wait], tag[AllReduce_{ip}%enp_60000_0_{n3}].] "
              "timeout[{n2}s]", per_rank=True),
         Line("print", "RuntimeError: ACL stream synchronize failed, error code:507048", per_rank=True, event=False)),
        "HCCL_EXEC_TIMEOUT was set far below the duration of a slow step, so a normal wait during a long collective "
        "was reported as a notify timeout.",
        "Unset HCCL_EXEC_TIMEOUT or raise it (default 1836 s) so it exceeds the longest step, checkpoint and eval.",
        reaction="none",
        env=(("HCCL_EXEC_TIMEOUT", "{n2}"),),
    ),
    FaultType(
        "invalid-ranktable", "user", "configuration", "launching_failure", "init", _NPU, "crash", "all",
        (Line("ecode", "EI0004|The ranktable or rank is invalid,Reason:[The ranktable config not match the device "
              "number of server {ip}, device_num {n3} expect {n2}]. Please check the configured ranktable.",
              per_rank=True),
         Line("print", "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64",
              per_rank=True, event=False)),
        "The rank table file given to HCCL does not match the devices of the servers, so communicator init failed.",
        "Regenerate the rank table (RANK_TABLE_FILE) for the allocated servers and devices, or let the platform "
        "create it, and relaunch.",
    ),
    FaultType(
        "dataset-path-missing", "user", "configuration", "launching_failure", "data_loading", _BOTH, "crash", "all",
        (*_tb("/workspace/Megatron-LM/megatron/core/datasets/indexed_dataset.py|380|__init__|"
              "self.bin_buffer_mmap = numpy.memmap(path_prefix + '.bin', mode='r', order='C')"),
         Line("print", "FileNotFoundError: [Errno 2] No such file or directory: '{data}.bin'", per_rank=True)),
        "The --data-path prefix points at a dataset that does not exist on the job's storage.",
        "Fix --data-path (prefix without .bin/.idx) to the preprocessed dataset location and relaunch.",
    ),
    FaultType(
        "tokenizer-path-missing", "user", "configuration", "launching_failure", "data_loading", _BOTH, "crash", "all",
        (Line("print", "OSError: Can't load tokenizer for '{tok}'. If you were trying to load it from "
              "'https://huggingface.co/models', make sure you don't have a local directory with the same name.",
              per_rank=True),),
        "The tokenizer path given to the job does not exist or is not a tokenizer directory.",
        "Point --tokenizer-model/--tokenizer-name-or-path at the tokenizer files on shared storage and relaunch.",
    ),
    FaultType(
        "fp16-loss-scale-collapse", "user", "configuration", "training_crash", "training", _BOTH, "crash", "all",
        (Line("app", "[deepspeed] OVERFLOW! Rank {rank} Skipping step. Attempted loss scale: {n1}, reducing to 1",
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
        (Line("app", "Rank {rank}: found NaN in local grad norm in backward pass. Device: {dev}, node: {host}",
              per_rank=True),
         Line("print", "RuntimeError: Rank {rank}: found NaN in local grad norm in backward pass. Device: {dev}, "
              "node: {host}", per_rank=True, event=False)),
        "The loss became NaN (gradient norm NaN on every rank) after the learning rate ramped up.",
        "Lower the peak learning rate or increase warmup, check the data at that iteration, and resume from the "
        "last checkpoint before the NaN.",
        frameworks=("megatron", "mindspeed", "torch"),
    ),
    # ------------------------------------------------------------------ user / script bug
    FaultType(
        "user-code-exception", "user", "script_bug", "training_crash", "training", _BOTH, "crash", "some",
        (*_TRAIN_TB,
         Line("print", '  File "/workspace/custom/data_collator.py", line {n2}, in __call__', event=False, per_rank=True),
         Line("print", "    labels[i, : len(ex['labels'])] = ex['labels']", event=False, per_rank=True),
         Line("print", "KeyError: 'labels'", per_rank=True)),
        "The user's custom data collator indexes a key that some samples lack, raising KeyError at this iteration.",
        "Fix the collator to handle samples without 'labels' (or filter them during preprocessing) and resume.",
    ),
    FaultType(
        "dataloader-fork-hang", "user", "script_bug", "abnormal_behavior", "data_loading", _BOTH, "hang", "all",
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
        (Line("print", "RuntimeError: The NVIDIA driver on your system is too old (found version {n1}). Please update "
              "your GPU driver by downloading and installing a new version from the URL: "
              "http://www.nvidia.com/Download/index.aspx", per_rank=True),),
        "The container's CUDA runtime needs a newer NVIDIA driver than the one installed on the hosts.",
        "Use an image built for the hosts' driver (or the CUDA forward-compat package), or upgrade the driver.",
    ),
    FaultType(
        "torch-npu-cann-mismatch", "user", "software_incompatibility", "launching_failure", "init", _NPU, "crash", "all",
        (Line("print", "[W compiler_depend.ts:{n2}] Warning: The stream mode cannot be set in current driver version, "
              "please upgrade the driver or CANN to the matching version.", level="WARNING", per_rank=True),
         Line("print", "RuntimeError: Initialize:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:{n1} NPU error, "
              "error code is 500002", per_rank=True)),
        "The torch_npu build requires a newer CANN/driver than the container and host provide.",
        "Install the torch_npu release that matches the CANN toolkit and driver (see the version table) and relaunch.",
    ),
    FaultType(
        "flash-attn-undefined-symbol", "user", "software_incompatibility", "launching_failure", "init", _CUDA, "crash",
        "all",
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
        (*_tb("/workspace/Megatron-LM/megatron/training/checkpointing.py|370|save_checkpoint|"
              "os.makedirs(os.path.dirname(checkpoint_name), exist_ok=True)"),
         Line("print", "PermissionError: [Errno 13] Permission denied: '{ckpt}/iter_{iter:07d}'", per_rank=True)),
        "The checkpoint directory points at storage the job's user cannot write, so the first save failed.",
        "Point --save at a writable path (or grant the job's service account write access) and resume.",
    ),
    FaultType(
        "stale-process-occupies-npu", "user", "misoperation", "launching_failure", "init", _NPU, "crash", "host",
        (Line("ecode", "EJ0001|Failed to initialize the HCCP process. Reason: Maybe the last training process is "
              "running.", per_rank=True),
         Line("print", "RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64",
              per_rank=True, event=False)),
        "A previous training process the user left running on this node still holds the NPUs' HCCP resources.",
        "Kill the leftover processes on the node (npu-smi info to find them), wait 10 s, and relaunch.",
    ),
    # ----------------------------------------------------------------- framework bugs
    FaultType(
        "deepspeed-zero-reduce-assert", "framework", "framework_bug", "training_crash", "training", _BOTH, "crash",
        "all",
        (Line("print", "AssertionError: The parameter {n1} has already been reduced. Gradient computed twice for this "
              "partition. Multiple gradient reduction is currently not supported", per_rank=True),),
        "DeepSpeed ZeRO's gradient bookkeeping asserted on a parameter reduced twice, a known framework bug with "
        "this model's shared weights.",
        "Roll DeepSpeed back to the last version known to work with this model (or apply the upstream fix) and resume.",
        frameworks=("deepspeed",),
    ),
    FaultType(
        "megatron-dist-opt-assert", "framework", "framework_bug", "training_crash", "checkpoint", _BOTH, "crash", "all",
        (Line("print", "AssertionError: Shard of optimizer state for param bucket {n3} has unexpected size {n1} "
              "(expected {n2}); distributed optimizer state is inconsistent", per_rank=True),),
        "Megatron's distributed optimizer asserted on an inconsistent state shard while gathering it for the "
        "checkpoint, a framework bug.",
        "Upgrade Megatron-LM/MindSpeed to a release with the distributed-optimizer checkpoint fix (or disable "
        "--use-distributed-optimizer) and resume.",
        frameworks=("megatron", "mindspeed"),
    ),
    FaultType(
        "torch-npu-internal-error", "framework", "framework_bug", "training_crash", "training", _NPU, "crash", "all",
        (Line("ecode", "EE9999|Inner Error!", per_rank=True, event=False),
         Line("ecode", "EE9999|[Exec][Op]Execute op failed. op type = IndexPut, ge result = 4294967295, "
              "inner error: tiling func returned error", per_rank=True),
         Line("print", "RuntimeError: call aclnnIndexPutImpl failed, detail:EE9999: Inner Error!", per_rank=True,
              event=False)),
        "torch_npu's IndexPut kernel failed internally (EE9999) for this tensor shape, a framework bug.",
        "Upgrade torch_npu/CANN to a release with the IndexPut fix, or avoid in-place advanced indexing in that code.",
    ),
    # -------------------------------------------------------- platform / resource management
    FaultType(
        "host-oom-killer", "platform", "resource_management", "training_crash", "training", _BOTH, "crash", "rank",
        (Line("kernel", "Out of memory: Killed process {pid} (python) total-vm:{n1}kB, anon-rss:{n2}kB, file-rss:0kB, "
              "shmem-rss:0kB, UID:0 pgtables:{n3}kB oom_score_adj:0"),
         Line("kernel", "oom_reaper: reaped process {pid} (python), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
              level="INFO")),
        "The host ran out of memory (other tenants' processes were co-scheduled on it) and the kernel OOM killer "
        "killed a rank.",
        "Schedule the job with exclusive hosts or a correct memory request, and restart from the checkpoint.",
    ),
    FaultType(
        "container-memory-limit", "platform", "resource_management", "training_crash", "checkpoint", _BOTH, "crash",
        "rank",
        (Line("kernel", "Memory cgroup out of memory: Killed process {pid} (python) total-vm:{n1}kB, "
              "anon-rss:{n2}kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:{n3}kB oom_score_adj:-997"),),
        "The container's memory limit was too small for the host-side copy made while saving the checkpoint, so "
        "the cgroup OOM killer killed a rank.",
        "Raise the container memory limit (or use async/sharded checkpointing) and resume.",
    ),
    FaultType(
        "storage-mount-missing", "platform", "resource_management", "launching_failure", "model_loading", _BOTH,
        "crash", "host",
        (Line("app", "checkpoint tracker {ckpt}/latest_checkpointed_iteration.txt not found; mount point "
              "{ckpt} is empty", level="WARNING", per_rank=True),
         Line("print", "FileNotFoundError: [Errno 2] No such file or directory: "
              "'{ckpt}/iter_{n1:07d}/mp_rank_00/model_optim_rng.pt'", per_rank=True)),
        "The platform did not mount the shared checkpoint volume on this node, so its ranks could not load "
        "the checkpoint.",
        "Fix the volume mount on the node (or reschedule), verify the path on every node, and relaunch.",
    ),
    # --------------------------------------------------------------- platform / scheduling
    FaultType(
        "scheduler-preemption", "platform", "scheduling", "training_crash", "training", _BOTH, "crash", "all",
        (Line("print", "slurmstepd: error: *** STEP {n1}.0 ON {host} CANCELLED AT {date} DUE TO PREEMPTION ***"),),
        "The scheduler preempted the job for a higher-priority one and sent SIGTERM to every task.",
        "Resubmit with the right priority/QoS or to a non-preemptible partition, and resume from the checkpoint.",
        reaction="none",
    ),
    FaultType(
        "k8s-node-eviction", "platform", "scheduling", "training_crash", "training", _BOTH, "crash", "host",
        (Line("print", "[platform] pod {host}-worker evicted by scheduler: node drained for maintenance, sending "
              "SIGTERM (grace period 30s)", level="WARNING"),),
        "The platform drained a node for maintenance while the job ran and evicted its pod, killing its ranks.",
        "Ask the platform team to exclude running jobs from drains (PodDisruptionBudget) and resume.",
    ),
    # ------------------------------------------------------ platform / platform configuration
    FaultType(
        "wrong-socket-ifname", "platform", "platform_configuration", "launching_failure", "init", _CUDA, "crash", "all",
        (Line("nccl", "NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth9", level="INFO", per_rank=True),
         Line("nccl", "misc/socket.cc:50 NCCL WARN Bootstrap : no socket interface found", level="WARNING",
              per_rank=True),
         Line("print", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
              "ProcessGroupNCCL.cpp:1691, internal error - please report this issue to the NCCL developers, NCCL "
              "version {n2}", per_rank=True, event=False)),
        "The platform injected NCCL_SOCKET_IFNAME=eth9, an interface the hosts do not have, so NCCL found no "
        "bootstrap interface.",
        "Fix the platform's NCCL_SOCKET_IFNAME default (bond0 on these hosts) or override it in the job, and relaunch.",
        env=(("NCCL_SOCKET_IFNAME", "eth9"),),
    ),
    FaultType(
        "shm-too-small", "platform", "platform_configuration", "launching_failure", "data_loading", _BOTH, "crash",
        "all",
        (Line("print", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient "
              "shared memory (shm).", per_rank=True),
         Line("print", "RuntimeError: DataLoader worker (pid {n1}) is killed by signal: Bus error. It is possible "
              "that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.",
              per_rank=True, event=False)),
        "The container's /dev/shm is the 64 MB default, too small for the dataloader workers' shared tensors.",
        "Mount a larger /dev/shm in the job template (e.g. an emptyDir with medium Memory) or set --shm-size.",
    ),
)

BY_ID: dict[str, FaultType] = {f.id: f for f in FAULTS}


def _validate() -> None:
    for f in FAULTS:
        assert f.subcategory in SUBCATEGORIES[f.category], f.id
        assert f.lines or f.peer_lines, f.id


_validate()
