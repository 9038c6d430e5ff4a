"""Hardware fault types: network, accelerator, node, storage (catalogue order).

Each line quotes a real public log line (``# real:`` names where it was printed); the
knowledge doc named beside it carries the same example with its sources.
"""

from __future__ import annotations

from l4synth.fault_types import _BOTH, _CUDA, _NCCL_CHAIN, _NPU, FaultType, Line, _tb

# real: "Clocks Event Reasons" as `nvidia-smi -q` prints it (mlfoundations/open_clip#703), with the
# thermal reason active (knowledge/cuda: HW Thermal Slowdown : Active).
_CLOCK_EVENTS = "    Clocks Event Reasons"
# real: torch.load's frames over a truncated or missing file (NVIDIA/Megatron-LM#659, #185).
_LOAD_TB = _tb(
    "/workspace/Megatron-LM/megatron/training/checkpointing.py|1092|load_checkpoint|"
    "state_dict = torch.load(checkpoint_name, map_location='cpu')",
    "/usr/local/lib/python3.10/dist-packages/torch/serialization.py|1004|load|"
    "with _open_zipfile_reader(opened_file) as opened_zipfile:",
)

HARDWARE: tuple[FaultType, ...] = (
    # ---------------------------------------------------------------- hardware / network
    FaultType(
        "nccl-ib-completion-error", "hardware", "network", "training_crash", "training", _CUDA, "crash", "host",
        # real: NVIDIA/nccl#1405 ("... with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ...")
        # and NVIDIA/nccl#1814 (the ::ffff: GIDs of RoCE v2); knowledge/cuda/nccl-ib-completion-error-12-retry-exceeded.
        (Line("nccl", "transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer {peer_ip}<{port}> with "
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
        # real: hicann/hccl docs/en/user_guide/fault_diagnosis/task_exec_stage.md (ERROR CQE, EI0013): the
        # ROCE driver's error CQE, HCCP's poll, HCCL's heartbeat record and the console's EI0013 line.
        (Line("plog", "ROCE|hns_roce_lite.c:630|hns_roce_lite_handle_error_cqe(630) : error cqe status: 0x15",
              repeat=(1, 3)),
         Line("plog", "HCCP|ra_hdc_lite.c:794|ra_hdc_lite_period_poll_cqe : [create][ra_hdc_period_poll]failed CQE "
              "status[12], wr[0]", event=False),
         Line("plog", "HCCL|heartbeat.cc:1229|[TaskExecStage][HeartbeatAbnormal][ROCE CQE ERROR]cqe error status[12], "
              "time:[{date_us}],localInfo{{server[{ip}],deviceId[{ip}],deviceIp[{devip}]}}, "
              "remoteIP{{server[{peer_ip}],deviceId[{peer_ip}],deviceIp[{peer_devip}]}}"),
         Line("pidstamp", "Execution Error ROCE CQE(EI0013): An error CQE occurred during operator execution. Local "
              "information: server {ip}, device ID {dev}, device IP {devip}. Peer information: server {peer_ip}, "
              "device ID {peer_dev}, device IP {peer_devip}.")),
        "The node's RoCE NIC reported error CQEs (retry exceeded) on its HCCL queue pairs, a link-level fault.",
        "Isolate the node, inspect the NIC with hccn_tool (link stat, optical module, pcs_err_cnt) and replace the "
        "faulty port or cable.",
    ),
    FaultType(
        "roce-link-down", "hardware", "network", "abnormal_behavior", "training", _NPU, "hang", "host",
        # real: the hns3 driver's "link down" (torvalds/linux drivers/net/ethernet/hisilicon/hns3/hns3_enet.c;
        # knowledge/ascend/roce-link-down-flap) and HCCL's cluster-exception record (hicann/hccl
        # task_exec_stage.md; knowledge/ascend/hccl-ei0013-error-cqe).
        (Line("kernel", "hns3 0000:{bus}:00.0 eth{dev}: link down", level="INFO"),
         Line("plog", "HCCL|task_exception_handler.cc:610|[TaskExecStage][HeartbeatAbnormal]Cluster Exception "
              "Location[IP/ID]:[{devip}/{dev}], Arrival Time:[{ctime}], Discoverer:[{peer_devip}/{peer_dev}], "
              "ExceptionType:[Error CQE Occurred], Possible Reason:1. Network Disconnected")),
        "A NIC port of the node went link-down mid-training, so collectives through it never completed and the "
        "job hung until the HCCL timeout.",
        "Check the port with hccn_tool -i {dev} -link -g and the switch side, replace the optical module or cable, "
        "then resume without the node.",
    ),
    FaultType(
        "nic-pcs-err-slowdown", "hardware", "network", "abnormal_behavior", "training", _NPU, "slowdown", "host",
        # real: the NPU's device event log line with rf_lf and pcs_err_cnt (Ascend/mind-cluster
        # ascend-faultdiag kg-config.json; knowledge/ascend/roce-pcs-err-cnt-rf-lf).
        (Line("imp", "70 (device_id:{dev} die_id:0) [IMP] present 1, mac_link 1, pcs_link 1, rf_lf 1, pcs_err_cnt "
              "{n3}, pcs_64_66b {n1}", level="WARNING"),),
        "Physical coding sublayer errors on one NIC forced retransmissions, and synchronous training ran at the "
        "pace of that slow link.",
        "Read hccn_tool -i <dev> -stat for pcs_err_cnt on the node, reseat or replace the optical module, and "
        "restart without the node.",
    ),
    FaultType(
        "nccl-socket-timeout", "hardware", "network", "launching_failure", "init", _CUDA, "crash", "host",
        # real: NVIDIA/nccl-tests#166 ("misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to
        # 10.0.0.2<45763> failed : Software caused connection abort" and its "-> 2" chain).
        (Line("nccl", "misc/socket.cc:483 NCCL WARN socketStartConnect: Connect to {peer_ip}<{port}> failed : "
              "Software caused connection abort", level="WARNING", repeat=(1, 3)),
         Line("nccl", "NCCL INFO misc/socket.cc:564 -> 2", level="INFO", event=False),
         Line("nccl", "NCCL INFO misc/socket.cc:586 -> 2", level="INFO", event=False)),
        "TCP connections from the node to its peers failed during NCCL bootstrap: its bootstrap interface or "
        "top-of-rack switch port is unreachable.",
        "Test connectivity from the node (ping/ib_write_bw to peers on bond0), fix the port or route, and relaunch.",
    ),
    FaultType(
        "ib-port-flap-hang", "hardware", "network", "abnormal_behavior", "training", _CUDA, "hang", "host",
        # real: mlx5_core's module event and link-down lines (torvalds/linux mlx5 events.c; kernel logs
        # quoted on LKML; knowledge/cuda/ib-port-down-or-flapping) and NCCL's "Got async event : port
        # error" (NVIDIA/nccl#905).
        (Line("kernel", "mlx5_core 0000:{bus}:00.0: Port module event: module {dev}, Cable unplugged", level="INFO"),
         Line("kernel", "mlx5_core 0000:{bus}:00.0 ens{dev}f0np0: Link down", level="INFO"),
         Line("nccl", "NCCL WARN NET/IB : Got async event : port error", level="WARNING", repeat=(2, 6))),
        "An InfiniBand port of the node lost its link (cable/module event) and every collective through it "
        "stalled until the NCCL watchdog fired.",
        "Check the cable and transceiver of that port (mlxlink), replace them, and restart without the node.",
    ),
    # ------------------------------------------------------------ hardware / accelerator
    FaultType(
        "xid79-fallen-off-bus", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        # real: knowledge/cuda/xid-79-gpu-fallen-off-the-bus (NVIDIA Xid catalogue; NVIDIA/NVSentinel#155
        # quotes "NVRM: Xid (PCI:0000:44:00): 79, GPU has fallen off the bus"); PyTorch's CUDA error text.
        (Line("kernel", "NVRM: GPU at PCI:0000:{bus}:00: GPU-{h1}-{n1}", level="INFO", event=False),
         Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 79, pid={pid}, name=python, GPU has fallen off the bus."),
         Line("kernel", "NVRM: GPU 0000:{bus}:00.0: GPU has fallen off the bus.", level="WARNING"),
         Line("print", "RuntimeError: CUDA error: unspecified launch failure", event=False)),
        "GPU {dev} of the node fell off the PCIe bus (Xid 79), a hardware or power fault of that GPU.",
        "Drain the node, collect nvidia-bug-report, reseat or replace the GPU, and restart from the last "
        "checkpoint without it.",
    ),
    FaultType(
        "xid48-double-bit-ecc", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        # real: knowledge/cuda/xid-48-double-bit-ecc-error (NVIDIA/gpu-operator#1146: "... in the framebuffer
        # at physAddr 0x7fdf0de80 partition 5, subpartition 1") and pytorch/pytorch#113128's RuntimeError.
        (Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 48, pid='<unknown>', name=<unknown>, An uncorrectable double "
              "bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x{h1} partition {n3}, "
              "subpartition 1"),
         Line("print", "RuntimeError: CUDA error: uncorrectable ECC error encountered"),),
        "GPU {dev} hit an uncorrectable double-bit ECC error in its memory (Xid 48).",
        "Drain the node, reset the GPU and check retired pages/row remapping (nvidia-smi -q -d ECC); replace it if "
        "errors recur, then restart from the checkpoint.",
    ),
    FaultType(
        "xid95-uncontained-ecc", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        # real: knowledge/cuda/xid-95-uncontained-ecc-error and xid-94-contained-ecc-error (NVIDIA's A100
        # memory error recovery guide, leptonai/gpud); PyTorch's illegal-access text.
        (Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 95, pid={pid}, Uncontained: FBHUB. RST: Yes, D-RST: No"),
         Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 94, pid={pid}, Contained: CE User Channel (0x{n3}). "
              "RST: No, D-RST: No", level="WARNING"),
         Line("print", "RuntimeError: CUDA error: an illegal memory access was encountered", event=False)),
        "GPU {dev} reported an uncontained memory error (Xid 95) that corrupted the process's context.",
        "Drain the node, reset the GPU, run dcgmi diag -r 3, and replace it if the error repeats.",
    ),
    FaultType(
        "cuda-illegal-address-mmu", "hardware", "accelerator", "training_crash", "training", _CUDA, "crash", "rank",
        # real: knowledge/cuda/xid-31-gpu-memory-page-fault (an Xid 31 MMU fault line) and PyTorch's
        # illegal-access error with its asynchronous-report note (knowledge/cuda/cuda-illegal-memory-access).
        (Line("kernel", "NVRM: Xid (PCI:0000:{bus}:00): 31, pid={pid}, name=python, channel 0x00000002, intr "
              "00000000. MMU Fault: ENGINE GRAPHICS GPC6 GPCCLIENT_T1_13 faulted @ 0x7f{n1}_320c2000. Fault is of "
              "type FAULT_PDE ACCESS_TYPE_VIRT_READ", level="WARNING"),
         Line("print", "RuntimeError: CUDA error: an illegal memory access was encountered"),
         Line("print", "CUDA kernel errors might be asynchronously reported at some other API call, so the "
              "stacktrace below might be incorrect.", level="INFO", event=False)),
        "GPU {dev} raised an MMU fault (Xid 31) and the kernel died with an illegal memory access; with identical "
        "code on every other GPU this points at the device.",
        "Run dcgmi diag and a memory stress test on that GPU, replace it if it fails, and restart without the node.",
    ),
    FaultType(
        "aicore-execute-failure", "hardware", "accelerator", "training_crash", "training", _NPU, "crash", "rank",
        # real: knowledge/ascend/npu-aicore-exception (EZ9999 "... there is an exception of fftsplus aicore
        # error ..." and "[Error]: The aicore execution is abnormal."), RUNTIME's "Aicore kernel execute
        # failed" plog (hicann/hccl task_exec_stage.md), and "ACL stream synchronize failed, error
        # code:507034" (vllm-project/vllm-ascend#1972).
        (Line("ecode", "EZ9999|The error from device(chipId:{dev}, dieId:0), serial number is {n3}, there is an "
              "exception of fftsplus aicore error, core id is {n2}, error code = 0x800000"),
         Line("plog", "RUNTIME|davinci_kernel_task.cc:1268|PrintErrorInfoForDavinciTask:[INIT][DEFAULT]Aicore kernel "
              "execute failed, device_id={dev}, stream_id={n2}, report_stream_id={n2}, task_id={n1}, flip_num=0, "
              "fault kernel_name=FlashAttentionScore_{n1}"),
         Line("print", "[Error]: The aicore execution is abnormal. ", event=False),
         Line("print", "RuntimeError: ACL stream synchronize failed, error code:507015", event=False)),
        "An AI Core of NPU {dev} failed while executing a kernel (EZ9999 aicore error), a computational fault of "
        "that accelerator.",
        "Isolate the NPU, run the Ascend hardware diagnosis (ascend-dmi -dg) on it, and replace it if the aicore "
        "test fails.",
    ),
    FaultType(
        "hbm-multibit-ecc", "hardware", "accelerator", "training_crash", "training", _NPU, "crash", "rank",
        # real: torch_npu's UCE (uncorrectable memory error) check, "npuSynchronizeDevice:...NPUStream.cpp:506
        # NPU function error: UCE ERROR." (Ascend/pytorch NPUException.h; knowledge/ascend/npu-mem-uce-error),
        # and the ERR00100 banner (vllm-project/vllm-ascend#1443). No real line: the device-side HBM
        # multi-bit ECC record itself, which only msnpureport's device logs carry.
        (Line("print", "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:506 NPU function "
              "error: UCE ERROR."),
         Line("npuerr", "ERR00100 PTA call acl api failed", event=False)),
        "NPU {dev} hit an uncorrectable multi-bit ECC error in HBM (UCE), so the device could not continue.",
        "Replace the NPU (multi-bit HBM errors are not recoverable) and restart from the checkpoint without it.",
    ),
    FaultType(
        "npu-heartbeat-lost", "hardware", "accelerator", "training_crash", "training", _NPU, "crash", "rank",
        # real: the Ascend driver's kernel line "Heartbeat lost! (device=...; old_count=...)" (its format string
        # in the driver's heart_beat_judge; knowledge/ascend/npu-device-heartbeat-lost) and the console lines
        # of vllm-project/vllm-ascend#8186 ("[Error]: The task scheduler loses the heartbeat.",
        # "Device[0] lost heartbeat.[FUNC:SyncTask]...", "NPU warning, error code is 507010").
        (Line("kernel", "[ascend] [ERROR] [drv_soft_fault] [heart_beat_judge 318] <kworker/{n3}:1H:{n1}> Heartbeat "
              "lost! (device={dev}; old_count={n1}; new_count={n1}; lost_count=4; total_lost_count=4)",
              level="WARNING"),
         Line("cpp", "NPUStream.cpp:577] Warning: NPU warning, error code is 507010[Error]: ", level="WARNING",
              event=False),
         Line("print", "[Error]: The task scheduler loses the heartbeat. "),
         Line("print", "        Device[{dev}] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc][LINE:407]")),
        "NPU {dev} stopped answering the driver heartbeat, so the runtime declared the device lost.",
        "Collect the device log (msnpureport), reset or replace the NPU, and restart without the node.",
    ),
    FaultType(
        "gpu-thermal-slowdown", "hardware", "accelerator", "abnormal_behavior", "training", _CUDA, "slowdown", "rank",
        # real: `nvidia-smi -q` clock event reasons (mlfoundations/open_clip#703 shows the block; the active
        # thermal reason as knowledge/cuda quotes it). The node log holds them when a monitor dumps them.
        (Line("print", _CLOCK_EVENTS, level="INFO", event=False),
         Line("print", "        HW Slowdown                       : Active", level="WARNING", event=False),
         Line("print", "            HW Thermal Slowdown           : Active", level="WARNING")),
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
        # real: NVIDIA/nccl#1814 ("... with status=12 opcode=1 len=0 vendor err 129 (Send) localGid ::ffff:...").
        peer_lines=(Line("nccl", "transport/net_ib.cc:1295 NCCL WARN NET/IB : Got completion from peer {fip}<{port}> "
                         "with status=12 opcode=1 len=0 vendor err 129 (Send) localGid ::ffff:{ip} "
                         "remoteGids::ffff:{fip}", level="WARNING", repeat=(1, 3)),),
    ),
    FaultType(
        "npu-node-silent-death", "hardware", "node", "training_crash", "training", _NPU, "silent", "host",
        (),
        "The node went down without a word (its log just stops); its HCCL peers reported the lost connection.",
        "Check the node's BMC event log and heartbeat history, repair it, and restart the job without it.",
        # real: HCCL's cluster-exception record for a lost heartbeat (hicann/hccl task_exec_stage.md;
        # knowledge/ascend/hccl-heartbeat-lost-occurred).
        peer_lines=(Line("plog", "HCCL|task_exception_handler.cc:610|[TaskExecStage][HeartbeatAbnormal]Cluster "
                         "Exception Location[IP/ID]:[{fip}/{frank}], Arrival Time:[{ctime}], Discoverer:[{ip}/{rank}], "
                         "ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited, 2. Network "
                         "Disconnected", level="ERROR", repeat=(1, 2)),),
    ),
    FaultType(
        "host-mce-crash", "hardware", "node", "training_crash", "training", _BOTH, "silent", "host",
        # real: knowledge/cuda/mce-hardware-error (the kernel's mce lines as syslog and dmesg keep them).
        (Line("kernel", "mce: [Hardware Error]: Machine check events logged", level="WARNING", repeat=(2, 4)),
         Line("kernel", "mce: [Hardware Error]: CPU {n3}: Machine Check Exception: 5 Bank 7: be00000001010090",
              level="WARNING")),
        "The host logged machine-check (MCE) hardware errors and then went down, killing its ranks.",
        "Read the BMC SEL and mcelog on the node, replace the faulty DIMM/CPU, and restart without the node.",
    ),
    FaultType(
        "local-disk-readonly", "hardware", "node", "training_crash", "training", _BOTH, "crash", "host",
        # real: knowledge/cuda/ext4-fs-error-readonly (EXT4-fs error and remount lines) and Python's EROFS error
        # (knowledge/framework/output-dir-permission-denied).
        (Line("kernel", "EXT4-fs error (device nvme0n1p1): ext4_find_entry:1455: inode #2: comm python: reading "
              "directory lblock 0"),
         Line("kernel", "EXT4-fs (nvme0n1p1): Remounting filesystem read-only", level="INFO"),
         Line("print", "OSError: [Errno 30] Read-only file system: '/tmp/torchinductor_root/{h1}.lock'")),
        "The node's local NVMe disk failed and was remounted read-only, so the rank could not write its cache files.",
        "Check the disk's SMART log, replace it, and restart without the node.",
    ),
    # -------------------------------------------------------------- hardware / storage
    FaultType(
        "ckpt-save-io-error", "hardware", "storage", "training_crash", "checkpoint", _BOTH, "crash", "some",
        # real: knowledge/framework/checkpoint-write-eio ("OSError: [Errno 5] Input/output error:
        # '/checkpoints/run7/iter_0012000/mp_rank_00/model_optim_rng.pt'").
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
        # real: the kernel NFS client's message (knowledge/platform/nfs-server-not-responding).
        (Line("kernel", "nfs: server {nfs} not responding, still trying", level="WARNING", repeat=(1, 3)),),
        "The NFS server holding checkpoints stopped responding during a save, so every rank blocked in the write "
        "and the job hung.",
        "Check the NFS server and the network path to it, then restart from the previous checkpoint.",
    ),
    FaultType(
        "ckpt-load-corrupt", "hardware", "storage", "launching_failure", "model_loading", _BOTH, "crash", "all",
        # real: knowledge/framework/torch-load-zip-archive-corrupt (PyTorch's reader on a truncated file).
        (*_LOAD_TB,
         Line("print", "RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central "
              "directory", per_rank=True)),
        "The checkpoint on remote storage is truncated (a partial write), so loading it failed on every rank.",
        "Verify the checkpoint files' sizes and checksums, fall back to the previous complete checkpoint "
        "(edit latest_checkpointed_iteration.txt), and relaunch.",
    ),
)
