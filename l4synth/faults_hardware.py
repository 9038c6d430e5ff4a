"""Hardware fault types: network, accelerator, node, storage (catalogue order)."""

from __future__ import annotations

from l4synth.fault_types import _BOTH, _CUDA, _NCCL_CHAIN, _NPU, FaultType, Line, _tb

HARDWARE: tuple[FaultType, ...] = (
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
)
