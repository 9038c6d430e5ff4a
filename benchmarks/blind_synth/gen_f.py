#!/usr/bin/env python3
"""Independent generator of labeled failed distributed LLM-training jobs.

Standard library only, deterministic given --seed.
Writes DATASET/cases/<id>/{logs/...,label.json} and DATASET/normal/<setting>/<job>/logs/...
Layout of label.json follows l4-label/1 (see /work/shared/CONTRACTS.md).
"""
import argparse
import datetime as dt
import json
import os
import random
import shutil

# ----------------------------------------------------------------------------
# timestamps
# ----------------------------------------------------------------------------
EPOCH0 = dt.datetime(2024, 3, 1, 0, 0, 0)


def fmt_ts(t, style, level="I"):
    d = EPOCH0 + dt.timedelta(seconds=t)
    us = d.microsecond
    if style == "iso":
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (us // 1000)
    if style == "bracket":
        return "[" + d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d]" % (us // 1000)
    if style == "comma":
        return d.strftime("%Y-%m-%d %H:%M:%S,") + "%03d" % (us // 1000)
    if style == "glog":
        return level + d.strftime("%m%d %H:%M:%S.") + "%06d" % us
    if style == "glogns":
        return level + d.strftime("%m%d %H:%M:%S.") + "%06d%03d" % (us, (us * 7) % 1000)
    if style == "cann":
        return d.strftime("%Y-%m-%d-%H:%M:%S.") + "%03d.%03d" % (us // 1000, us % 1000)
    if style == "cannshort":
        return d.strftime("%Y-%m-%d-%H:%M:%S")
    if style == "hf":
        return d.strftime("%m/%d/%Y %H:%M:%S")
    if style == "plain":
        return d.strftime("%Y-%m-%d %H:%M:%S")
    if style == "slurm":
        return d.strftime("%Y-%m-%dT%H:%M:%S")
    if style == "under":
        return d.strftime("%Y-%m-%d_%H:%M:%S")
    raise ValueError(style)


# ----------------------------------------------------------------------------
# job model
# ----------------------------------------------------------------------------
class Job:
    """A distributed job: nnodes hosts x 8 ranks.  Lines are emitted into
    streams keyed by (node, local_rank) -- local_rank None = node-level
    (launcher / kernel / scheduler) -- and rendered into files by a layout."""

    def __init__(self, rng, cfg):
        self.rng = rng
        self.cfg = cfg
        self.stack = cfg["stack"]
        self.fw = cfg["fw"]
        self.nn = cfg["nnodes"]
        self.g = 8
        self.world = self.nn * self.g
        self.layout = cfg["layout"]
        self.streams = {}
        self.seq = 0
        self.hosts, self.files, self.ips = make_hosts(rng, cfg)
        self.skew = [0.0] + [rng.uniform(-1.8, 1.8) for _ in range(self.nn - 1)]
        self.pids = [[rng.randint(2000, 60000) + 7 * lr for lr in range(8)] for _ in range(self.nn)]
        self.tids = [[p + rng.randint(300, 900) for p in row] for row in self.pids]
        self.dead = set()      # (n, lr) that stopped logging
        self.jobid = rng.randint(1200000, 9800000)
        self.t0 = rng.uniform(0, 86400 * 60)
        self.port = rng.choice([29500, 6000, 23456, 29400, 8888])

    # -- emit -------------------------------------------------------------
    def emit(self, n, lr, t, text, tag=None, kind="rank"):
        """kind: rank | launcher | kernel | slurm"""
        if (n, lr) in self.dead and kind == "rank":
            return
        self.seq += 1
        self.streams.setdefault((n, lr), []).append((t, self.seq, text, tag, kind))

    def ts(self, n, t, style, level="I"):
        return fmt_ts(t + self.skew[n], style, level)

    def grank(self, n, lr):
        return n * 8 + lr

    def where(self, g):
        return g // 8, g % 8

    def host(self, n):
        return self.hosts[n]


def make_hosts(rng, cfg):
    nn = cfg["nnodes"]
    scheme = cfg["naming"]
    job = cfg.get("jobname", "llm")
    base_ip = "10.%d.%d." % (rng.randint(0, 250), rng.randint(0, 250))
    ips = []
    used = set()
    for i in range(nn):
        while True:
            x = rng.randint(2, 250)
            if x not in used:
                used.add(x)
                break
        ips.append(base_ip + str(x))
    if scheme == "k8s-pytorchjob":
        hosts = ["%s-master-0" % job] + ["%s-worker-%d" % (job, i) for i in range(nn - 1)]
        files = list(hosts)
    elif scheme == "volcano":
        hosts = ["%s-worker-%d" % (job, i) for i in range(nn)]
        files = list(hosts)
    elif scheme == "fqdn":
        r = rng.randint(1, 12)
        start = rng.randint(1, 20)
        hosts = []
        for i in range(nn):
            k = start + i
            hosts.append("gpu-r%02d-n%02d.cluster.local" % (r + k // 16, k % 16 + 1))
        files = [h.split(".")[0] for h in hosts]
    elif scheme == "slurm-short":
        pre = rng.choice(["gpu-a", "dgx", "hgx-b", "nid00"])
        start = rng.randint(1, 60)
        hosts = ["%s%d" % (pre, start + i * rng.choice([1, 1, 2])) if pre != "dgx" else "dgx-%03d" % (start + i) for i in range(nn)]
        hosts = list(dict.fromkeys(hosts))
        while len(hosts) < nn:
            hosts.append("%s%d" % (pre, 200 + len(hosts)))
        files = list(hosts)
    elif scheme == "aws":
        hosts = ["ip-" + ip.replace(".", "-") for ip in ips]
        files = list(hosts)
    elif scheme == "ip":
        hosts = ["devserver-%s-%02d" % (rng.choice(["ai", "npu", "910b"]), rng.randint(1, 80) + i) for i in range(nn)]
        files = list(ips)
    elif scheme == "ascend-node":
        hosts = ["node-%02d" % (i + rng.randint(1, 5)) for i in range(nn)]
        hosts = ["node-%02d" % (i + 1) for i in range(nn)] if len(set(hosts)) < nn else hosts
        files = list(hosts)
    else:
        raise ValueError(scheme)
    return hosts, files, ips


# ----------------------------------------------------------------------------
# rendering
# ----------------------------------------------------------------------------
def render(J, outdir):
    """Write files for the job; return {tag: {node: [lines]}} and
    {tag: first_text} plus the list of node names per host (for labels)."""
    files = {}  # relpath -> list of (t, seq, text, tag, nodename)
    lay = J.layout
    cons_name = None
    if lay == "console":
        cons_name = J.cfg.get("console_name", "slurm-%d" % J.jobid)
    for (n, lr), lines in J.streams.items():
        for (t, seq, text, tag, kind) in lines:
            if lay == "pernode":
                rel = J.files[n] + J.cfg.get("ext", ".log")
                node = J.files[n]
                if lr is not None and J.cfg.get("prefix") == "default":
                    text = "[default%d]:%s" % (lr, text)
            elif lay == "perrank":
                if lr is None:
                    rel = "%s/torchrun.log" % J.files[n]
                    node = "%s/torchrun" % J.files[n]
                else:
                    rel = "%s/rank_%d.log" % (J.files[n], lr)
                    node = "%s/rank_%d" % (J.files[n], lr)
            elif lay == "msrun":
                l2 = 0 if lr is None else lr
                g = J.grank(n, l2)
                rel = "%s/msrun_log/worker_%d.log" % (J.files[n], g)
                node = "worker_%d" % g
            elif lay == "rankdir":
                l2 = 0 if lr is None else lr
                g = J.grank(n, l2)
                rel = "%s/log/rank_%d/train.log" % (J.files[n], g)
                node = "rank_%d/train" % g
            elif lay == "console":
                rel = cons_name + ".out"
                if lr is None:
                    if kind != "slurm":
                        continue
                    node = cons_name
                else:
                    g = J.grank(n, lr)
                    text = "%d: %s" % (g, text)
                    node = "rank%d" % g
            else:
                raise ValueError(lay)
            files.setdefault(rel, []).append((t, seq, text, tag, node))
    tagmap = {}
    first = {}
    total = 0
    for rel, lines in files.items():
        lines.sort(key=lambda x: (x[0], x[1]))
        p = os.path.join(outdir, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            for i, (t, seq, text, tag, node) in enumerate(lines, 1):
                assert "\n" not in text, text
                f.write(text + "\n")
                if tag:
                    tagmap.setdefault(tag, {}).setdefault(node, []).append(i)
                    if tag not in first:
                        first[tag] = (t, text)
        total += len(lines)
    return tagmap, first, total


def node_names(J, n, lr=None):
    """Names under which (n, lr) -- lr None = the whole host -- appears."""
    lay = J.layout
    if lay == "pernode":
        return [J.files[n]]
    lrs = range(8) if lr is None else [lr]
    if lay == "perrank":
        return ["%s/rank_%d" % (J.files[n], l) for l in lrs] + (["%s/torchrun" % J.files[n]] if lr is None else [])
    if lay == "msrun":
        return ["worker_%d" % J.grank(n, l) for l in lrs]
    if lay == "rankdir":
        return ["rank_%d/train" % J.grank(n, l) for l in lrs]
    if lay == "console":
        return ["rank%d" % J.grank(n, l) for l in lrs]
    raise ValueError(lay)


# ----------------------------------------------------------------------------
# baseline run simulation
# ----------------------------------------------------------------------------
def hx(rng, n=12):
    return "0x" + "".join(rng.choice("0123456789abcdef") for _ in range(n))


BUSIDS = ["18000", "2a000", "3a000", "5d000", "9a000", "ab000", "ba000", "db000"]
NPU_BUS = ["c1", "c2", "81", "82", "01", "02", "41", "42"]


def tp_pp(J):
    return J.cfg["tp"], J.cfg["pp"]


def nccl_prefix(J, n, lr):
    return "%s:%d:%d [%d]" % (J.host(n).split(".")[0], J.pids[n][lr], J.tids[n][lr], lr)


def launcher_start(J, n, t):
    """torchrun / msrun / srun start-up lines for host n."""
    rng = J.rng
    fw = J.fw
    if J.layout == "console":
        if n == 0:
            J.emit(n, None, t - 5, "SLURM_JOB_ID=%d SLURM_NNODES=%d SLURM_NTASKS=%d" % (J.jobid, J.nn, J.world), kind="slurm")
            J.emit(n, None, t - 5, "+ export MASTER_ADDR=%s MASTER_PORT=%d" % (J.host(0).split(".")[0], J.port), kind="slurm")
            J.emit(n, None, t - 4, "+ srun -l --ntasks-per-node=8 --cpu-bind=none --container-image=%s bash -c 'python -u %s ${TRAIN_ARGS}'" % (J.cfg["image"], J.cfg["script"]), kind="slurm")
        return
    if fw == "mindspore":
        if n == 0:
            J.emit(n, None, t, "[INFO] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:212] Start scheduler process, log file:%s/msrun_log/scheduler.log" % (J.pids[n][0] - 11, 281473000000000 + J.pids[n][0], J.ts(n, t, "cann"), J.cfg["workdir"]), kind="launcher")
        for lr in range(8):
            J.emit(n, None, t + 0.01 * lr, "[INFO] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:226] Start worker process with rank id:%d, log file:%s/msrun_log/worker_%d.log. Environment variable [RANK_ID=%d] is exported." % (J.pids[n][0] - 11, 281473000000000 + J.pids[n][0], J.ts(n, t, "cann"), J.grank(n, lr), J.cfg["workdir"], J.grank(n, lr), J.grank(n, lr)), kind="launcher")
        return
    if fw == "deepspeed":
        J.emit(n, None, t, "%s [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % J.ts(n, t, "bracket"), kind="launcher")
        J.emit(n, None, t + 0.4, "%s [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (J.ts(n, t + 0.4, "bracket"), ", ".join("'%s': [0, 1, 2, 3, 4, 5, 6, 7]" % h.split(".")[0] for h in J.hosts[:4]) + (", ..." if J.nn > 4 else "")), kind="launcher")
        J.emit(n, None, t + 0.4, "%s [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=8, node_rank=%d" % (J.ts(n, t + 0.4, "bracket"), J.nn, n), kind="launcher")
        J.emit(n, None, t + 0.5, "%s [INFO] [launch.py:164:main] dist_world_size=%d" % (J.ts(n, t + 0.5, "bracket"), J.world), kind="launcher")
        J.emit(n, None, t + 0.5, "%s [INFO] [launch.py:168:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7" % J.ts(n, t + 0.5, "bracket"), kind="launcher")
        return
    # torchrun
    J.emit(n, None, t, "+ torchrun --nnodes=%d --node_rank=%d --nproc_per_node=8 --rdzv_backend=c10d --rdzv_endpoint=%s:%d %s %s" % (J.nn, n, J.host(0).split(".")[0], J.port, "--tee 3" if J.cfg.get("prefix") == "default" else "", J.cfg["script"]), kind="launcher")
    J.emit(n, None, t + 0.8, "W%s %d torch/distributed/run.py:779] " % (J.ts(n, t + 0.8, "glog", "")[0:], J.pids[n][0] - 40), kind="launcher")
    J.emit(n, None, t + 0.8, "W%s %d torch/distributed/run.py:779] *****************************************" % (J.ts(n, t + 0.8, "glog", ""), J.pids[n][0] - 40), kind="launcher")
    J.emit(n, None, t + 0.8, "W%s %d torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % (J.ts(n, t + 0.8, "glog", ""), J.pids[n][0] - 40), kind="launcher")
    J.emit(n, None, t + 0.8, "W%s %d torch/distributed/run.py:779] *****************************************" % (J.ts(n, t + 0.8, "glog", ""), J.pids[n][0] - 40), kind="launcher")
    if J.stack == "cuda":
        if rng.random() < 0.6:
            J.emit(n, None, t + 1.5, "[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:%d (errno: 99 - Cannot assign requested address)." % (J.host(0).split(".")[0], J.port), kind="launcher")


def env_dump(J, n, lr, t):
    rng = J.rng
    g = J.grank(n, lr)
    if J.stack == "cuda":
        keys = [("NCCL_DEBUG", "INFO"), ("NCCL_IB_HCA", "mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11"),
                ("NCCL_IB_TIMEOUT", "22"), ("NCCL_SOCKET_IFNAME", "eth0"), ("CUDA_DEVICE_MAX_CONNECTIONS", "1"),
                ("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"), ("RANK", str(g)), ("LOCAL_RANK", str(lr)), ("WORLD_SIZE", str(J.world)),
                ("MASTER_ADDR", J.host(0).split(".")[0]), ("MASTER_PORT", str(J.port))]
    else:
        keys = [("HCCL_CONNECT_TIMEOUT", "1200"), ("HCCL_EXEC_TIMEOUT", "1800"), ("ASCEND_GLOBAL_LOG_LEVEL", "3"),
                ("HCCL_IF_IP", J.ips[n]), ("ASCEND_RT_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7"), ("RANK_ID", str(g)),
                ("DEVICE_ID", str(lr)), ("RANK_SIZE", str(J.world)), ("MASTER_ADDR", J.ips[0]),
                ("MASTER_PORT", str(J.port)), ("TASK_QUEUE_ENABLE", "2"), ("CPU_AFFINITY_CONF", "1"), ("HCCL_BUFFSIZE", "200")]
    keys.insert(0, ("HOSTNAME", J.host(n)))
    if lr == 0 or J.fw in ("mindspore",) or J.layout in ("perrank", "rankdir"):
        for k, v in keys:
            J.emit(n, lr, t, "%s=%s" % (k, v))


def nccl_init(J, n, lr, t, nranks=None):
    rng = J.rng
    p = nccl_prefix(J, n, lr)
    g = J.grank(n, lr)
    nranks = nranks or J.world
    comm = hx(rng)
    L = []
    if g == 0:
        L.append("%s NCCL INFO Bootstrap : Using eth0:%s<0>" % (p, J.ips[n]))
        L.append("%s NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)" % p)
        L.append("%s NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so" % p)
        L.append("%s NCCL INFO NET/Plugin: Using internal network plugin." % p)
        L.append("%s NCCL INFO cudaDriverVersion 12040" % p)
        L.append("NCCL version 2.20.5+cuda12.4")
    L.append("%s NCCL INFO NCCL_IB_TIMEOUT set by environment to 22." % p)
    L.append("%s NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [4]mlx5_6:1/IB [5]mlx5_9:1/IB [6]mlx5_10:1/IB [7]mlx5_11:1/IB [RO]; OOB eth0:%s<0>" % (p, J.ips[n]))
    L.append("%s NCCL INFO Using non-device net plugin version 0" % p)
    L.append("%s NCCL INFO Using network IB" % p)
    L.append("%s NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init START" % (p, comm, g, nranks, lr, lr, BUSIDS[lr], hx(rng, 16)))
    L.append("%s NCCL INFO Setting affinity for GPU %d to %s" % (p, lr, "ffffffff,00000000,ffffffff" if lr < 4 else "ffffffff,00000000,ffffffff,00000000"))
    L.append("%s NCCL INFO NVLS multicast support is not available on dev %d" % (p, lr))
    L.append("%s NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks 8 localRank %d MNNVL 0" % (p, comm, g, nranks, J.nn, lr))
    nx = (g + 1) % nranks
    pv = (g - 1) % nranks
    L.append("%s NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d [2] %d/%d/-1->%d->%d" % (p, nx, g, pv, nx, g, pv, nx, (g + 8) % nranks, g, pv))
    L.append("%s NCCL INFO P2P Chunksize set to 131072" % p)
    for ch in range(rng.choice([4, 6, 8])):
        if lr == 7 or lr == 0 and ch % 2:
            peer = (g + 8) % nranks
            L.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA" % (p, ch, g, lr, peer, peer % 8, lr))
        else:
            L.append("%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (p, ch, g, lr, nx, nx % 8))
    L.append("%s NCCL INFO Connected all rings" % p)
    L.append("%s NCCL INFO Connected all trees" % p)
    L.append("%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (p, nranks * 8))
    L.append("%s NCCL INFO 24 coll channels, 24 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer" % p)
    L.append("%s NCCL INFO TUNER/Plugin: Plugin load returned 11 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-tuner.so" % p)
    L.append("%s NCCL INFO TUNER/Plugin: Using internal tuner plugin." % p)
    L.append("%s NCCL INFO ncclCommInitRank comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId %s - Init COMPLETE" % (p, comm, g, nranks, lr, lr, BUSIDS[lr], hx(rng, 16)))
    for i, s in enumerate(L):
        J.emit(n, lr, t + 0.002 * i, s)
    return t + 0.002 * len(L)


def npu_init(J, n, lr, t):
    rng = J.rng
    g = J.grank(n, lr)
    L = []
    if J.fw == "mindspeed":
        L.append("/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/path_manager.py:82: UserWarning: Warning: The /usr/local/Ascend/ascend-toolkit/latest owner does not match the current user.")
        L.append("  warnings.warn(f\"Warning: The {path} owner does not match the current user.\")")
        L.append("/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/contrib/transfer_to_npu.py:292: ImportWarning: ")
        L.append("    *************************************************************************************************************")
        L.append("    The torch.Tensor.cuda and torch.nn.Module.cuda are replaced with torch.Tensor.npu and torch.nn.Module.npu now..")
        L.append("    The torch.cuda.DoubleTensor is replaced with torch.npu.FloatTensor cause the double type is not supported now..")
        L.append("    *************************************************************************************************************")
        L.append("  warnings.warn(msg, ImportWarning)")
        L.append("[W compiler_depend.ts:623] Warning: expandable_segments currently defaults to false. You can enable this feature by `export PYTORCH_NPU_ALLOC_CONF = expandable_segments:True`. (function operator())")
        L.append("MindSpeed patch applied: fused_rmsnorm, fused_swiglu, flash_attention, ring_exchange (rank %d)" % g)
        L.append("> set device npu:%d, HCCL_IF_IP=%s, rank_table_file=None" % (lr, J.ips[n]))
    else:
        ts = J.ts(n, t, "cann")
        pid = J.pids[n][lr]
        L.append("[WARNING] ME(%d:%d,MainProcess):%s [mindspore/context.py:1328] For 'context.set_context', the parameter 'device_target' will be deprecated and removed in a future version. Please use the api mindspore.set_device() instead." % (pid, 281473000000000 + pid, ts))
        L.append("[INFO] ME(%d:%d,MainProcess):%s [mindspore/parallel/_auto_parallel_context.py:591] Set parallel mode: semi_auto_parallel, device_num: %d, global_rank: %d" % (pid, 281473000000000 + pid, ts, J.world, g))
        L.append("[WARNING] DEVICE(%d,ffff%s,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/hardware/ge_device_context.cc:345] InitGe] The jit_compile option is not set, default to false." % (pid, hx(rng, 8)[2:], ts))
        L.append("[INFO] HCCL(%d,python):%s [hccl_comm.cc:421] init hccl comm: rank[%d], rankSize[%d], deviceLogicId[%d], serverId[%s]" % (pid, ts, g, J.world, lr, J.ips[n]))
        L.append("[WARNING] DISTRIBUTED(%d,ffff%s,python):%s [mindspore/ccsrc/distributed/cluster/cluster_context.cc:269] BuildCluster] Topology build timed out., retry(1/14400)." % (pid, hx(rng, 8)[2:], ts))
        L.append("[WARNING] DISTRIBUTED(%d,ffff%s,python):%s [mindspore/ccsrc/distributed/cluster/cluster_context.cc:272] BuildCluster] Cluster is successfully initialized." % (pid, hx(rng, 8)[2:], ts))
    for i, s in enumerate(L):
        J.emit(n, lr, t + 0.003 * i, s)
    return t + 0.01 * len(L)


MEGATRON_ARGS = ["accumulate_allreduce_grads_in_fp32", "adam_beta1", "adam_beta2", "adam_eps", "attention_dropout",
                 "bf16", "clip_grad", "data_path", "distributed_backend", "eval_interval", "eval_iters", "ffn_hidden_size",
                 "global_batch_size", "hidden_dropout", "hidden_size", "init_method_std", "log_interval", "lr",
                 "lr_decay_style", "lr_warmup_iters", "make_vocab_size_divisible_by", "micro_batch_size", "min_lr",
                 "normalization", "num_attention_heads", "num_layers", "num_query_groups", "overlap_grad_reduce",
                 "pipeline_model_parallel_size", "position_embedding_type", "save", "save_interval", "seq_length",
                 "sequence_parallel", "swiglu", "tensor_model_parallel_size", "tokenizer_type", "train_iters",
                 "untie_embeddings_and_output_weights", "use_distributed_optimizer", "use_flash_attn", "weight_decay",
                 "world_size"]


def arg_value(J, k):
    c = J.cfg
    d = {"tensor_model_parallel_size": c["tp"], "pipeline_model_parallel_size": c["pp"], "world_size": J.world,
         "global_batch_size": c["gbs"], "micro_batch_size": 1, "train_iters": c["train_iters"], "save_interval": c["save_interval"],
         "log_interval": c["log_interval"], "seq_length": c["seq"], "save": c["ckpt_dir"], "data_path": "['%s']" % c["data_path"],
         "hidden_size": c["hidden"], "num_layers": c["layers"], "lr": c["lr"], "bf16": True, "tokenizer_type": "Llama2Tokenizer" if J.stack == "cuda" else "PretrainedFromHF"}
    if k in d:
        return d[k]
    return {"adam_beta1": 0.9, "adam_beta2": 0.95, "adam_eps": 1e-08, "clip_grad": 1.0, "lr_decay_style": "cosine",
            "normalization": "RMSNorm", "position_embedding_type": "rope", "distributed_backend": "nccl" if J.stack == "cuda" else "hccl"}.get(k, J.rng.choice(["True", "False", "0.0", "None", "1"]))


def framework_start(J, n, lr, t):
    """Per-rank framework start-up, model building, config dump."""
    rng = J.rng
    g = J.grank(n, lr)
    fw = J.fw
    if fw in ("megatron", "mindspeed"):
        if g == 0:
            J.emit(n, lr, t, "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: %d " % (J.world, J.world // (J.cfg["tp"] * J.cfg["pp"]) if J.world % (J.cfg["tp"] * J.cfg["pp"]) == 0 else 0, J.cfg["tp"], J.cfg["pp"]))
            J.emit(n, lr, t, "WARNING: Setting args.overlap_p2p_comm to False since non-interleaved schedule does not support overlapping p2p communication")
            J.emit(n, lr, t, "------------------------ arguments ------------------------")
            for k in MEGATRON_ARGS:
                J.emit(n, lr, t, "  %s %s %s" % (k, "." * (48 - len(k)), arg_value(J, k)))
            J.emit(n, lr, t, "-------------------- end of arguments ---------------------")
            J.emit(n, lr, t + 0.1, "setting number of micro-batches to constant %d" % (J.cfg["gbs"] // max(1, J.world // (J.cfg["tp"] * J.cfg["pp"]))))
            J.emit(n, lr, t + 0.2, "> building %s tokenizer ..." % arg_value(J, "tokenizer_type"))
            J.emit(n, lr, t + 1.1, " > padded vocab (size: 32000) with 0 dummy tokens (new size: 32000)")
            J.emit(n, lr, t + 1.2, "> initializing torch distributed ...")
            J.emit(n, lr, t + 3.2, "> initialized tensor model parallel with size %d" % J.cfg["tp"])
            J.emit(n, lr, t + 3.2, "> initialized pipeline model parallel with size %d" % J.cfg["pp"])
            J.emit(n, lr, t + 3.3, "> setting random seeds to 1234 ...")
            J.emit(n, lr, t + 3.4, "> compiling dataset index builder ...")
            J.emit(n, lr, t + 5.0, ">>> done with dataset index builder. Compilation time: 0.071 seconds")
            J.emit(n, lr, t + 5.1, "> compiling and loading fused kernels ...")
            J.emit(n, lr, t + 9.0, ">>> done with compiling and loading fused kernels. Compilation time: 3.902 seconds")
        return t + 10
    if fw == "deepspeed":
        J.emit(n, lr, t, "%s [INFO] [comm.py:637:init_distributed] cdb=None" % J.ts(n, t, "bracket"))
        if g == 0:
            J.emit(n, lr, t, "%s [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % J.ts(n, t, "bracket"))
        return t + 2
    if fw == "fsdp":
        J.emit(n, lr, t, "[rank%d]:%s - root - INFO - Starting job: %s" % (g, J.ts(n, t, "comma"), J.cfg["model"] + " training"))
        J.emit(n, lr, t + 0.1, "[rank%d]:%s - root - WARNING - ENV[TORCH_NCCL_ASYNC_ERROR_HANDLING] = 1 will be overridden to 3 based on job config" % (g, J.ts(n, t + 0.1, "comma")))
        J.emit(n, lr, t + 0.2, "[rank%d]:%s - root - INFO - Building 1-D device mesh with ['dp_shard'], [%d]" % (g, J.ts(n, t + 0.2, "comma"), J.world))
        return t + 1
    if fw == "accelerate":
        if lr == 0:
            J.emit(n, lr, t, "%s - INFO - __main__ - Distributed environment: MULTI_GPU  Backend: nccl" % J.ts(n, t, "hf"))
            J.emit(n, lr, t, "Num processes: %d" % J.world)
            J.emit(n, lr, t, "Process index: %d" % g)
            J.emit(n, lr, t, "Local process index: 0")
            J.emit(n, lr, t, "Device: cuda:0")
            J.emit(n, lr, t, "Mixed precision type: bf16")
        return t + 1
    if fw == "mindspore":
        ms = "%s - mindformers[mindformers/%s] - INFO - %s"
        for i, (src, msg) in enumerate([("tools/utils.py:167", "set output path to '%s/output'" % J.cfg["workdir"]),
                                        ("trainer/base_trainer.py:97", "Now Running Task is: text_generation, Model is: %s" % J.cfg["model"]),
                                        ("core/context/build_context.py:368", "full_batch will be forced to False when the parallel mode is stand_alone or data_parallel"),
                                        ("core/context/build_context.py:378", "Setting parallel context: mode=semi_auto_parallel, device_num=%d, pipeline_stages=%d" % (J.world, J.cfg["pp"])),
                                        ("trainer/base_trainer.py:241", "The current parallel mode is semi_auto_parallel, full batch is True,so global batch size will be changed: global_batch_size = batch_size * data_parallel * micro_batch_num * micro_batch_interleave_num * gradient_accumulation_steps = %d" % J.cfg["gbs"])]):
            J.emit(n, lr, t + i * 0.05, ms % (J.ts(n, t + i * 0.05, "comma"), src, msg))
        return t + 1
    return t + 1


def model_loading(J, t):
    """Build model and load checkpoint on all ranks; returns end time."""
    rng = J.rng
    fw = J.fw
    c = J.cfg
    for n in range(J.nn):
        for lr in range(8):
            g = J.grank(n, lr)
            tt = t + rng.uniform(0, 2)
            if fw in ("megatron", "mindspeed"):
                if g == 0:
                    J.emit(n, lr, tt, "building GPT model ...")
                tpr = g % c["tp"]
                ppr = (g // c["tp"]) % c["pp"]
                if g < c["tp"] * c["pp"]:
                    J.emit(n, lr, tt + 3, " > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (tpr, ppr, c["params"] // (c["tp"] * c["pp"]) + rng.randint(-5000, 5000)))
                if g == 0:
                    J.emit(n, lr, tt + 4, "%s INFO:megatron.core.distributed.param_and_grad_buffer:Number of buckets for gradient all-reduce / reduce-scatter: 1" % J.ts(n, tt + 4, "comma"))
                    J.emit(n, lr, tt + 6, " loading release checkpoint from %s" % c["load_dir"] if not c.get("resume") else " loading checkpoint from %s at iteration %d" % (c["ckpt_dir"], c["it0"]))
                if c.get("resume") or g == 0:
                    pass
                if g == 0:
                    J.emit(n, lr, tt + 60, "  successfully loaded checkpoint from %s [ t 1/%d, p 1/%d ] at iteration %d" % (c["ckpt_dir"] if c.get("resume") else c["load_dir"], c["tp"], c["pp"], c["it0"]))
                    J.emit(n, lr, tt + 61, "(min, max) time across ranks (ms):")
                    J.emit(n, lr, tt + 61, "    load-checkpoint ................................: (%.2f, %.2f)" % (55000 + rng.uniform(0, 3000), 59000 + rng.uniform(0, 3000)))
                    J.emit(n, lr, tt + 61, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % J.ts(n, tt + 61, "plain"))
                if fw == "mindspeed" and lr == 0:
                    J.emit(n, lr, tt + 61, "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/storage.py:38: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
            elif fw == "deepspeed":
                if g == 0:
                    J.emit(n, lr, tt, "%s [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.2, git-hash=unknown, git-branch=unknown" % J.ts(n, tt, "bracket"))
                    J.emit(n, lr, tt + 1, "%s [INFO] [config.py:996:print] DeepSpeedEngine configuration:" % J.ts(n, tt + 1, "bracket"))
                    for k, v in [("bfloat16_enabled", "True"), ("gradient_accumulation_steps", "8"), ("gradient_clipping", "1.0"),
                                 ("train_batch_size", str(c["gbs"])), ("train_micro_batch_size_per_gpu", "1"), ("wall_clock_breakdown", "False"),
                                 ("zero_enabled", "True"), ("zero_optimization_stage", "3"), ("steps_per_print", str(c["log_interval"]))]:
                        J.emit(n, lr, tt + 1, "%s [INFO] [config.py:1000:print]   %s %s %s" % (J.ts(n, tt + 1, "bracket"), k, "." * (30 - len(k)), v))
                J.emit(n, lr, tt + 2, "Loading checkpoint shards: 100%%|##########| %d/%d [00:%02d<00:00,  2.1s/it]" % (c["shards"], c["shards"], rng.randint(20, 59)))
                if lr == 0:
                    J.emit(n, lr, tt + 40, "%s [INFO] [partition_parameters.py:345:__exit__] finished initializing model - num_params = %d, num_elems = %.2fB" % (J.ts(n, tt + 40, "bracket"), rng.randint(400, 900), c["params"] / 1e9))
                    J.emit(n, lr, tt + 41, "%s [WARNING] [stage3.py:2069:step] 1 pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time" % J.ts(n, tt + 41, "bracket"))
            elif fw == "fsdp":
                J.emit(n, lr, tt, "[rank%d]:%s - root - INFO - Building %s with ModelArgs(dim=%d, n_layers=%d, n_heads=64, vocab_size=128256, norm_eps=1e-05, rope_theta=500000)" % (g, J.ts(n, tt, "comma"), c["model"], c["hidden"], c["layers"]))
                J.emit(n, lr, tt + 2, "[rank%d]:%s - root - INFO - Applied FSDP to the model" % (g, J.ts(n, tt + 2, "comma")))
                J.emit(n, lr, tt + 2, "[rank%d]:%s - root - INFO - GPU memory usage for model: %.2fGiB(%.2f%%)" % (g, J.ts(n, tt + 2, "comma"), 8 + rng.random(), 10 + rng.random()))
                J.emit(n, lr, tt + 30, "[rank%d]:%s - root - INFO - Loading the checkpoint at step %d." % (g, J.ts(n, tt + 30, "comma"), c["it0"]))
                J.emit(n, lr, tt + 55, "[rank%d]:%s - root - INFO - Finished loading the checkpoint in %.2f seconds." % (g, J.ts(n, tt + 55, "comma"), 25 + rng.random() * 3))
            elif fw == "accelerate":
                if lr == 0:
                    J.emit(n, lr, tt, "loading weights file %s/model.safetensors.index.json" % c["load_dir"])
                    J.emit(n, lr, tt + 1, "Instantiating LlamaForCausalLM model under default dtype torch.bfloat16.")
                J.emit(n, lr, tt + 2, "Loading checkpoint shards: 100%%|##########| %d/%d [00:%02d<00:00,  1.9s/it]" % (c["shards"], c["shards"], rng.randint(20, 59)))
                if lr == 0:
                    J.emit(n, lr, tt + 30, "All model checkpoint weights were used when initializing LlamaForCausalLM.")
            elif fw == "mindspore":
                ms = "%s - mindformers[mindformers/%s] - INFO - %s"
                J.emit(n, lr, tt, ms % (J.ts(n, tt, "comma"), "trainer/base_trainer.py:1014", ".........Build Network From Config.........."))
                J.emit(n, lr, tt + 5, ms % (J.ts(n, tt + 5, "comma"), "models/modeling_utils.py:1497", "model built, but weights is unloaded, since the config has no checkpoint_name_or_path attribute or checkpoint_name_or_path is None."))
                J.emit(n, lr, tt + 6, ms % (J.ts(n, tt + 6, "comma"), "trainer/base_trainer.py:1093", "Network Parameters: %d M." % (c["params"] // 1000000 // (c["tp"] * c["pp"]))))
                J.emit(n, lr, tt + 7, ms % (J.ts(n, tt + 7, "comma"), "utils/load_checkpoint_utils.py:259", ".............Start load checkpoint from checkpoint.................."))
                J.emit(n, lr, tt + 50, ms % (J.ts(n, tt + 50, "comma"), "utils/load_checkpoint_utils.py:324", "Network parameters are not loaded: (['adam_m.*', 'adam_v.*'], [])"))
                J.emit(n, lr, tt + 51, ms % (J.ts(n, tt + 51, "comma"), "utils/load_checkpoint_utils.py:310", "load checkpoint from %s/rank_%d/%s_rank_%d-%d_1.ckpt success." % (c["load_dir"], g, c["model"].split("-")[0], g, c["it0"])))
    return t + 65


def data_loading(J, t):
    rng = J.rng
    fw = J.fw
    c = J.cfg
    for n in range(J.nn):
        for lr in range(8):
            g = J.grank(n, lr)
            tt = t + rng.uniform(0, 1)
            if fw in ("megatron", "mindspeed"):
                if g == 0:
                    J.emit(n, lr, tt, "> building train, validation, and test datasets ...")
                    J.emit(n, lr, tt, " > datasets target sizes (minimum size):")
                    J.emit(n, lr, tt, "    train:      %d" % (c["gbs"] * c["train_iters"]))
                    J.emit(n, lr, tt, "    validation: %d" % (c["gbs"] * 100))
                    J.emit(n, lr, tt + 0.5, "%s INFO:megatron.core.datasets.blended_megatron_dataset_builder:Building dataset splits with cls=GPTDataset, sizes=(%d, %d, %d), and config=GPTDatasetConfig(...)" % (J.ts(n, tt + 0.5, "comma"), c["gbs"] * c["train_iters"], c["gbs"] * 100, c["gbs"] * 10))
                    J.emit(n, lr, tt + 1, "%s INFO:megatron.core.datasets.indexed_dataset:Load the _IndexReader from %s.idx" % (J.ts(n, tt + 1, "comma"), c["data_path"]))
                    J.emit(n, lr, tt + 1, "%s INFO:megatron.core.datasets.indexed_dataset:\tExtract the sequence lengths" % J.ts(n, tt + 1, "comma"))
                    J.emit(n, lr, tt + 2, "%s INFO:megatron.core.datasets.indexed_dataset:> total number of sequences: %d" % (J.ts(n, tt + 2, "comma"), rng.randint(10 ** 7, 10 ** 8)))
                    J.emit(n, lr, tt + 3, "%s WARNING:megatron.core.datasets.gpt_dataset:Unable to save the GPTDataset indexes because path_to_cache is None" % J.ts(n, tt + 3, "comma"))
                    J.emit(n, lr, tt + 8, "> finished creating GPT datasets ...")
                    J.emit(n, lr, tt + 8, "[after dataloaders are built] datetime: %s " % J.ts(n, tt + 8, "plain"))
                    J.emit(n, lr, tt + 8, "done with setup ...")
                    J.emit(n, lr, tt + 8, "training ...")
                    J.emit(n, lr, tt + 8, "[before the start of training step] datetime: %s " % J.ts(n, tt + 8, "plain"))
            elif fw == "deepspeed":
                if lr == 0:
                    J.emit(n, lr, tt, "Map (num_proc=16): 100%%|##########| %d/%d [00:%02d<00:00, %d.%02d examples/s]" % (c["nsamples"], c["nsamples"], rng.randint(10, 59), rng.randint(1000, 9000), rng.randint(0, 99)))
                if g == 0:
                    J.emit(n, lr, tt + 2, "***** Running training *****")
                    J.emit(n, lr, tt + 2, "  Num examples = %s" % format(c["nsamples"], ","))
                    J.emit(n, lr, tt + 2, "  Total optimization steps = %s" % format(c["train_iters"], ","))
            elif fw == "fsdp":
                J.emit(n, lr, tt, "[rank%d]:%s - root - INFO - Preparing %s dataset from %s" % (g, J.ts(n, tt, "comma"), c["dataset"], c["data_path"]))
                J.emit(n, lr, tt + 3, "[rank%d]:%s - root - INFO - Training starts at step %d, with local batch size 2, global batch size %d, sequence length %d, total steps %d (warmup 200)" % (g, J.ts(n, tt + 3, "comma"), c["it0"] + 1, c["gbs"], c["seq"], c["train_iters"]))
            elif fw == "accelerate":
                if lr == 0:
                    J.emit(n, lr, tt, "%s - INFO - __main__ - Sample 1742 of the training set: {'input_ids': [1, 518, 25580, 29962, ...], 'labels': [-100, -100, ...]}." % J.ts(n, tt, "hf"))
                if g == 0:
                    J.emit(n, lr, tt + 1, "***** Running training *****")
                    J.emit(n, lr, tt + 1, "  Num examples = %s" % format(c["nsamples"], ","))
                    J.emit(n, lr, tt + 1, "  Total optimization steps = %s" % format(c["train_iters"], ","))
            elif fw == "mindspore":
                ms = "%s - mindformers[mindformers/%s] - INFO - %s"
                J.emit(n, lr, tt, ms % (J.ts(n, tt, "comma"), "dataset/causal_language_model_dataset.py:201", "Now Create Causal Language Model Dataset."))
                J.emit(n, lr, tt + 1, ms % (J.ts(n, tt + 1, "comma"), "trainer/base_trainer.py:1125", ".........Starting Init Train Model.........."))
                J.emit(n, lr, tt + 1, "[WARNING] ME(%d:%d,MainProcess):%s [mindspore/dataset/engine/datasets.py:4267] Python multiprocessing is not supported on this platform with the current settings, using threads." % (J.pids[n][lr], 281473000000000 + J.pids[n][lr], J.ts(n, tt + 1, "cann")))
                J.emit(n, lr, tt + 2, ms % (J.ts(n, tt + 2, "comma"), "trainer/base_trainer.py:1178", ".........Starting Training Model.........."))
    return t + 12


def loss_at(J, it):
    base = J.cfg["loss0"]
    return base * (0.55 + 0.45 * (1.0 / (1 + it / 3000.0))) + J.rng.uniform(-0.03, 0.03)


def train_log(J, it, t, dt_ms, mods):
    """Emit the progress line(s) for iteration it at time t."""
    rng = J.rng
    c = J.cfg
    fw = J.fw
    loss = loss_at(J, it)
    nan = mods.get("nan_from") is not None and it >= mods["nan_from"]
    lstr = "nan" if nan else "%.6E" % loss
    if fw in ("megatron", "mindspeed"):
        n, lr = J.where(J.world - 1)
        skipped = 0
        line = (" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | "
                "learning rate: %.6E | global batch size: %5d | lm loss: %s | loss scale: 1.0 | grad norm: %s | number of skipped iterations: %3d | number of nan iterations: %3d |"
                % (J.ts(n, t, "plain"), it, c["train_iters"], it * c["gbs"], dt_ms, 380.0 * 4000 / dt_ms if J.stack == "cuda" else 180.0 * 4000 / dt_ms,
                   c["lr"] * (0.5 + 0.5 * rng.random()), c["gbs"], lstr, "nan" if nan else "%.3f" % rng.uniform(0.15, 1.2), skipped, 1 if nan else 0))
        J.emit(n, lr, t, line)
    elif fw == "deepspeed":
        J.emit(0, 0, t, "%s [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (J.ts(0, t, "bracket"), it, c["lr"]))
        J.emit(0, 0, t, "%s [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (J.ts(0, t, "bracket"), it * 8, it, c["gbs"] * 1000.0 / dt_ms, c["gbs"] * 1000.0 / dt_ms * rng.uniform(0.95, 1.05), 31 + rng.random(), 62 + rng.random()))
        J.emit(0, 0, t, "{'loss': %s, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % ("nan" if nan else "%.4f" % loss, rng.uniform(0.2, 1.5), c["lr"], it / float(c["train_iters"])))
    elif fw == "fsdp":
        for n in range(J.nn):
            for lr in range(8):
                g = J.grank(n, lr)
                sl = mods.get("slow_node")
                d = dt_ms * (1.0 if sl is None or it < mods["slow_from"] else 1.0)
                J.emit(n, lr, t + rng.uniform(0, 0.05), "[rank%d]:%s - root - INFO - step: %5d  loss: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  mfu: %.2f%%" % (
                    g, J.ts(n, t, "comma"), it, float("nan") if nan else loss, 61 + rng.random(), 77 + rng.random(), format(int(3400 * 6000 / d), ","), 41.0 * 6000 / d))
    elif fw == "accelerate":
        J.emit(0, 0, t, "{'loss': %s, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % ("nan" if nan else "%.4f" % loss, rng.uniform(0.2, 1.5), c["lr"], it / float(c["train_iters"])))
        for n in range(J.nn):
            J.emit(n, 0, t + 0.01, " %2d%%|%s| %d/%d [%02d:%02d:%02d<%02d:%02d:%02d, %.2fs/it]" % (
                100 * it // c["train_iters"], "#" * (10 * it // c["train_iters"]) + " " * (10 - 10 * it // c["train_iters"]), it, c["train_iters"],
                int(t - J.t0) // 3600, int(t - J.t0) // 60 % 60, int(t - J.t0) % 60, 1, 2, 3, dt_ms / 1000.0))
    elif fw == "mindspore":
        for n in range(J.nn):
            for lr in range(8):
                J.emit(n, lr, t + rng.uniform(0, 0.3), "%s - mindformers[mindformers/core/callback/callback.py:318] - INFO - { Epoch:[  1/  1], step:[%5d/%5d], loss: %s, per_step_time: %dms, lr: %.4e, overflow cond: %s, loss_scale: 1.0, global_norm: [%.3f], train_throughput_per_npu: %.1fT" % (
                    J.ts(n, t, "comma"), it, c["train_iters"], "nan" if nan else "%.3f" % loss, int(dt_ms), c["lr"], "True" if nan else "False", rng.uniform(0.2, 1.5), 180 * 4000 / dt_ms))


def more_comms(J, t):
    """Sub-communicators created lazily at the first step (TP/DP/PP groups...)."""
    rng = J.rng
    ncomm = {"megatron": 4, "fsdp": 2, "deepspeed": 2, "accelerate": 1, "mindspeed": 4, "mindspore": 3}[J.fw]
    for n in range(J.nn):
        for lr in range(8):
            if (n, lr) in J.dead:
                continue
            tt = t - 1.5
            for k in range(ncomm):
                if J.stack == "cuda":
                    tt = nccl_init(J, n, lr, tt + 0.05, nranks=[8, J.world // 8 or 1, 2, J.world][k % 4] or 1)
                else:
                    pid = J.pids[n][lr]
                    for s in ["[INFO] HCCL(%d,python):%s [hccl_comm.cc:421][%d]init hccl comm: rank[%d], rankSize[%d], group[%s]" % (pid, J.ts(n, tt, "cann"), pid, J.grank(n, lr), [8, J.world][k % 2], ["tp", "dp", "pp", "world"][k % 4] + "_group_" + str(k)),
                              "[INFO] HCCL(%d,python):%s [hccl_communicator.cc:2301][%d]HcclCommunicator::Init success, deviceLogicId[%d], userRank[%d], algo[level0:fullmesh, level1:ring]" % (pid, J.ts(n, tt, "cann"), pid, lr, J.grank(n, lr)),
                              "[W OpCommand.cpp:75] Warning: [Check][offset] Check input storage_offset[%d] = 0 failed, result is untrustworthy (function operator())" % rng.randint(1, 99999)]:
                        J.emit(n, lr, tt, s)
                        tt += 0.01


def ckpt_save_start(J, it, t):
    c = J.cfg
    fw = J.fw
    if fw in ("megatron", "mindspeed"):
        J.emit(0, 0, t, "saving checkpoint at iteration %7d to %s in torch_dist format" % (it, c["ckpt_dir"]))
    elif fw == "deepspeed":
        J.emit(0, 0, t, "Saving model checkpoint to %s/checkpoint-%d" % (c["ckpt_dir"], it))
        J.emit(0, 0, t, "%s [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is about to be saved!" % (J.ts(0, t, "bracket"), it))
    elif fw == "fsdp":
        for n in range(J.nn):
            for lr in range(8):
                J.emit(n, lr, t, "[rank%d]:%s - root - INFO - Saving the checkpoint (or staging if async is enabled)." % (J.grank(n, lr), J.ts(n, t, "comma")))
    elif fw == "accelerate":
        J.emit(0, 0, t, "Saving model checkpoint to %s/checkpoint-%d" % (c["ckpt_dir"], it))
    elif fw == "mindspore":
        for n in range(J.nn):
            for lr in range(8):
                J.emit(n, lr, t, "%s - mindformers[mindformers/core/callback/callback.py:1165] - INFO - ......Saving ckpt......" % J.ts(n, t, "comma"))


def ckpt_save_done(J, it, t):
    c = J.cfg
    fw = J.fw
    rng = J.rng
    if fw in ("megatron", "mindspeed"):
        J.emit(0, 0, t, "  successfully saved checkpoint from iteration %7d to %s [ t 1/%d, p 1/%d ]" % (it, c["ckpt_dir"], c["tp"], c["pp"]))
        J.emit(0, 0, t, "(min, max) time across ranks (ms):")
        J.emit(0, 0, t, "    save-checkpoint ................................: (%.2f, %.2f)" % (20000 + rng.random() * 1000, 24000 + rng.random() * 1000))
    elif fw == "deepspeed":
        for n in range(J.nn):
            for lr in range(8):
                g = J.grank(n, lr)
                J.emit(n, lr, t - 2, "%s [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving %s/checkpoint-%d/global_step%d/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt..." % (J.ts(n, t - 2, "bracket"), c["ckpt_dir"], it, it, g))
                J.emit(n, lr, t, "%s [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved %s/checkpoint-%d/global_step%d/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt." % (J.ts(n, t, "bracket"), c["ckpt_dir"], it, it, g))
                J.emit(n, lr, t, "%s [INFO] [engine.py:3536:_save_zero_checkpoint] zero checkpoint saved %s/checkpoint-%d/global_step%d/bf16_zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (J.ts(n, t, "bracket"), c["ckpt_dir"], it, it, g))
    elif fw == "fsdp":
        J.emit(0, 0, t, "[rank0]:%s - root - INFO - Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % (J.ts(0, t, "comma"), 18 + rng.random() * 4))
    elif fw == "accelerate":
        J.emit(0, 0, t, "Configuration saved in %s/checkpoint-%d/config.json" % (c["ckpt_dir"], it))
        J.emit(0, 0, t, "Model weights saved in %s/checkpoint-%d/model.safetensors" % (c["ckpt_dir"], it))
    elif fw == "mindspore":
        for n in range(J.nn):
            for lr in range(8):
                J.emit(n, lr, t, "%s - mindformers[mindformers/core/callback/callback.py:1184] - INFO - Finish saving ckpt of epoch 1 step %d using %.3f seconds" % (J.ts(n, t, "comma"), it, 21 + rng.random() * 3))


def training(J, t, it_stop, mods, in_ckpt=False):
    """Run iterations it0+1 .. it_stop.  Returns time of iteration it_stop.
    If in_ckpt, the checkpoint save at it_stop is started but not finished."""
    c = J.cfg
    rng = J.rng
    it = c["it0"]
    dt_s = c["it_s"]
    first = True
    while it < it_stop:
        it += 1
        d = dt_s * rng.uniform(0.97, 1.04)
        if first:
            d *= 2.5
        if mods.get("slow_from") is not None and it >= mods["slow_from"]:
            d *= mods["slow_factor"]
        t += d
        if it % c["log_interval"] == 0 or first:
            train_log(J, it, t, d * 1000, mods)
            if first:
                more_comms(J, t)
            if first and J.fw in ("megatron", "mindspeed"):
                for n in range(J.nn):
                    for lr in range(8):
                        g = J.grank(n, lr)
                        if g % c["tp"] == 0 or J.layout in ("perrank", "rankdir"):
                            J.emit(n, lr, t + 0.1, "[Rank %d] (after %d iterations) memory (MB) | allocated: %.1f | max allocated: %.1f | reserved: %.1f | max reserved: %.1f" % (g, it, 20000 + rng.random() * 4000, 41000 + rng.random() * 6000, 47000.0, 47000.0))
            first = False
        hook = mods.get("hook")
        if hook:
            hook(J, it, t)
        if it % c["save_interval"] == 0:
            ckpt_save_start(J, it, t + 0.1)
            if in_ckpt and it == it_stop:
                return t + 0.1
            t += c["save_s"]
            ckpt_save_done(J, it, t)
    return t


def finish_ok(J, t):
    """Normal end of a successful job."""
    fw = J.fw
    c = J.cfg
    ckpt_save_start(J, c["train_iters"], t + 1)
    t += c["save_s"]
    ckpt_save_done(J, c["train_iters"], t)
    if fw in ("megatron", "mindspeed"):
        J.emit(0, 0, t + 1, "[after training is done] datetime: %s " % J.ts(0, t + 1, "plain"))
    if fw in ("accelerate", "deepspeed"):
        J.emit(0, 0, t + 1, "Training completed. Do not forget to share your model on huggingface.co/models =)")
        J.emit(0, 0, t + 1, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 1.0}" % (t - J.t0, 12.3, 0.089, 1.734))
    if fw == "mindspore":
        for n in range(J.nn):
            for lr in range(8):
                J.emit(n, lr, t + 1, "%s - mindformers[mindformers/trainer/base_trainer.py:1278] - INFO - .........Training Over!.............." % J.ts(n, t + 1, "comma"))
    for n in range(J.nn):
        if J.stack == "cuda":
            for lr in range(8):
                J.emit(n, lr, t + 2, "%s NCCL INFO comm %s rank %d nranks %d cudaDev %d busId %s - Destroy COMPLETE" % (nccl_prefix(J, n, lr), hx(J.rng), J.grank(n, lr), J.world, lr, BUSIDS[lr]))
        if J.layout != "console" and fw not in ("mindspore", "deepspeed"):
            J.emit(n, None, t + 4, "I%s %d torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish." % (J.ts(n, t + 4, "glog", "")[0:], J.pids[n][0] - 40), kind="launcher")
            J.emit(n, None, t + 5, "I%s %d torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish" % (J.ts(n, t + 5, "glog", ""), J.pids[n][0] - 40), kind="launcher")
            J.emit(n, None, t + 6, "I%s %d torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: %.4f seconds" % (J.ts(n, t + 6, "glog", ""), J.pids[n][0] - 40, 0.3 + J.rng.random()), kind="launcher")
        if fw == "deepspeed":
            J.emit(n, None, t + 6, "%s [INFO] [launch.py:351:main] Process %d exits successfully." % (J.ts(n, t + 6, "bracket"), J.pids[n][0]), kind="launcher")
    if J.layout == "console":
        J.emit(0, None, t + 8, "Job %d finished with exit code 0" % J.jobid, kind="slurm")
    return t + 8


def startup(J, stop=None):
    """init + model_loading + data_loading.  stop = stage name to stop *at*
    (returns time when that stage starts)."""
    rng = J.rng
    t = J.t0
    for n in range(J.nn):
        launcher_start(J, n, t + rng.uniform(0, 20))
    t += 22
    for n in range(J.nn):
        for lr in range(8):
            tt = t + rng.uniform(0, 3)
            env_dump(J, n, lr, tt)
            tt = framework_start(J, n, lr, tt + 0.5)
            if J.stack == "cuda":
                if rng.random() < 0.15:
                    J.emit(n, lr, tt, "/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py:79: FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead.")
                if stop != "init":
                    nccl_init(J, n, lr, tt + 1)
            else:
                npu_init(J, n, lr, tt + 1)
    t += 20
    if stop == "init":
        return t
    if stop == "model_loading":
        return t + 5
    t = model_loading(J, t)
    if stop == "data_loading":
        return t + 2
    t = data_loading(J, t)
    return t


# ----------------------------------------------------------------------------
# cascades
# ----------------------------------------------------------------------------
def cuda_watchdog(J, n, lr, t, op, seq, numel, tmo=600000, pg=1):
    g = J.grank(n, lr)
    ran = tmo + J.rng.randint(3, 120)
    pre = "[rank%d]:" % g
    def E(tt, src, msg):
        J.emit(n, lr, tt, "%s[%s %s] %s" % (pre, J.ts(n, tt, "glogns", "E"), src, msg))
    w = "WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d)" % (seq, op, numel, numel, tmo)
    E(t, "ProcessGroupNCCL.cpp:607", "[Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (g, w, ran))
    E(t + 0.001, "ProcessGroupNCCL.cpp:1664", "[PG %d Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (pg, g, seq, seq + 1, seq - 1))
    E(t + 0.002, "ProcessGroupNCCL.cpp:621", "[Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % g)
    E(t + 0.003, "ProcessGroupNCCL.cpp:627", "[Rank %d] To avoid data inconsistency, we are taking the entire process down." % g)
    E(t + 0.004, "ProcessGroupNCCL.cpp:1515", "[PG %d Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: %s ran for %d milliseconds before timing out." % (pg, g, g, w, ran))
    J.emit(n, lr, t + 0.005, "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):")
    J.emit(n, lr, t + 0.005, "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f%s in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)" % hx(J.rng, 9)[2:])
    J.emit(n, lr, t + 0.005, "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%s in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)" % hx(J.rng, 9)[2:])
    J.emit(n, lr, t + 0.005, "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f%s in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)" % hx(J.rng, 9)[2:])
    J.emit(n, lr, t + 0.006, "terminate called after throwing an instance of 'c10::DistBackendError'")
    J.dead.add((n, lr))


def ascend_timeout(J, n, lr, t, op, remote_ip=None, remote_rank=None):
    g = J.grank(n, lr)
    pid = J.pids[n][lr]
    tag = "%s_hccl_world_group" % op
    rem = "[%s]" % remote_ip if remote_ip else "[unknown]"
    J.emit(n, lr, t, "[rank%d]:[E compiler_depend.ts:%d] [PG 0 Rank %d] Watchdog caught collective operation timeout: WorkHCCL(SeqNum=%d, OpType=%s, Timeout(ms)=1800000) ran for 1800%03d milliseconds before timing out." % (g, 1730, g, J.cfg.get("seq", 1), op.upper(), J.rng.randint(0, 999)) if J.fw == "mindspeed" else
           "[ERROR] DEVICE(%d,ffff%s,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:697] TaskFailCallback] Execute TaskFailCallback failed. task_id: %d, stream_id: 2" % (pid, hx(J.rng, 8)[2:], J.ts(n, t, "cann"), J.rng.randint(1000, 90000)))
    J.emit(n, lr, t + 0.01, "EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: %s. base information: [streamID:[%d], taskID[%d], tag[%s], AlgType(level 0-1-2):[fullmesh-ring-NHR]]. task information: []" % (pid, J.ts(n, t, "cann"), rem, J.rng.randint(2, 9), J.rng.randint(10000, 9000000), tag))
    J.emit(n, lr, t + 0.01, "        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default). If so, adjust the timeout interval by using the HCCL_CONNECT_TIMEOUT environment variable.3. Check the connectivity of the communication link between nodes. (For details, see the TLS command and HCCN connectivity check examples.). For details:https://www.hiascend.com/document")
    J.emit(n, lr, t + 0.01, "        TraceBack (most recent call last):")
    J.emit(n, lr, t + 0.01, "        Notify wait execute failed, device_id=%d, stream_id=%d, task_id=%d, flip_num=0, notify_id=%d[FUNC:GetError][FILE:stream.cc][LINE:1082]" % (lr, J.rng.randint(2, 9), J.rng.randint(1000, 60000), J.rng.randint(10, 300)))
    J.emit(n, lr, t + 0.01, "        rtStreamSynchronizeWithTimeout execute failed, reason=[notify wait timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]")
    if J.fw == "mindspeed":
        J.emit(n, lr, t + 0.02, "[rank%d]: RuntimeError: The Inner error is reported as above. The process exits for this inner error, and the current working operator name is HcclAllreduce." % g)
        J.emit(n, lr, t + 0.02, "[rank%d]: [ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (g, J.ts(n, t, "cannshort"), pid, lr, g))
    J.dead.add((n, lr))


def teardown(J, n, t, failed, exitcode=1, sig=None, root=None):
    """Launcher teardown on host n.  failed = list of local ranks reported."""
    rng = J.rng
    fw = J.fw
    if J.layout == "console":
        for lr in failed:
            J.emit(n, None, t, "srun: error: %s: task %d: %s" % (J.host(n).split(".")[0], J.grank(n, lr), "Aborted (core dumped)" if exitcode == -6 else "Exited with exit code %d" % exitcode), kind="slurm")
        return
    if fw == "mindspore":
        for lr in failed:
            J.emit(n, None, t, "[ERROR] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:312] Worker process %d exit with exception. Error code: %d." % (J.pids[n][0] - 11, 281473000000000 + J.pids[n][0], J.ts(n, t, "cann"), J.pids[n][lr], abs(exitcode)), kind="launcher")
        J.emit(n, None, t + 0.5, "[WARNING] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:318] There's worker exits with exception, kill all other workers." % (J.pids[n][0] - 11, 281473000000000 + J.pids[n][0], J.ts(n, t + 0.5, "cann")), kind="launcher")
        for lr in range(8):
            J.dead.add((n, lr))
        return
    if fw == "deepspeed":
        lr = failed[0] if failed else 0
        J.emit(n, None, t, "%s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (J.ts(n, t, "bracket"), J.pids[n][lr]), kind="launcher")
        for l2 in range(8):
            if l2 != lr:
                J.emit(n, None, t + 0.2, "%s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (J.ts(n, t + 0.2, "bracket"), J.pids[n][l2]), kind="launcher")
        J.emit(n, None, t + 0.4, "%s [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python3', '-u', '%s', '--local_rank=%d', '--deepspeed', 'ds_z3.json'] exits with return code = %d" % (J.ts(n, t + 0.4, "bracket"), J.cfg["script"], lr, exitcode), kind="launcher")
        for l2 in range(8):
            J.dead.add((n, l2))
        return
    lp = J.pids[n][0] - 40
    first = failed[0] if failed else 0
    for lr in range(8):
        if lr not in failed:
            J.emit(n, None, t, "W%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (J.ts(n, t, "glog", ""), lp, J.pids[n][lr]), kind="launcher")
    J.emit(n, None, t + 1, "E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (J.ts(n, t + 1, "glog", ""), lp, exitcode, first, J.pids[n][first]), kind="launcher")
    tb = ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
          "    return f(*args, **kwargs)", '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main',
          "    run(args)", '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
          "    raise ChildFailedError(", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
          "============================================================", "%s FAILED" % J.cfg["script"],
          "------------------------------------------------------------", "Failures:"]
    others = [l for l in failed if l != first]
    if not others:
        tb.append("  <NO_OTHER_FAILURES>")
    for i, lr in enumerate(others, 1):
        tb += ["[%d]:" % i, "  time      : %s" % J.ts(n, t, "under"), "  host      : %s" % J.host(n), "  rank      : %d (local_rank: %d)" % (J.grank(n, lr), lr),
               "  exitcode  : %d (pid: %d)" % (exitcode, J.pids[n][lr]), "  error_file: <N/A>",
               "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-exitcode, sig, J.pids[n][lr]) if sig else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")]
    tb += ["------------------------------------------------------------", "Root Cause (first observed failure):", "[0]:",
           "  time      : %s" % J.ts(n, t, "under"), "  host      : %s" % J.host(n), "  rank      : %d (local_rank: %d)" % (J.grank(n, first), first),
           "  exitcode  : %d (pid: %d)" % (exitcode, J.pids[n][first]), "  error_file: <N/A>",
           "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-exitcode, sig, J.pids[n][first]) if sig else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"),
           "============================================================"]
    for s in tb:
        J.emit(n, None, t + 1.1, s, kind="launcher")
    for lr in range(8):
        J.dead.add((n, lr))


def cascade_timeout(J, t_fault, skip, op="ALLREDUCE", seq=None, numel=None, tmo_s=None, remote=None, teardown_all=True, extra=None):
    """Ranks not in skip hang in a collective, then time out and are torn down."""
    rng = J.rng
    seq = seq or rng.randint(2000, 90000)
    numel = numel or rng.choice([1, 8388608, 466119168, 134217728, 33554432])
    if J.stack == "cuda":
        tmo = tmo_s or J.cfg.get("nccl_timeout", 600)
    else:
        tmo = tmo_s or 1800
    for n in range(J.nn):
        fl = []
        tn = None
        for lr in range(8):
            if (n, lr) in skip or (n, lr) in J.dead:
                continue
            tt = t_fault + tmo + rng.uniform(0.5, 4.0)
            tn = tt if tn is None else max(tn, tt)
            if J.stack == "cuda":
                cuda_watchdog(J, n, lr, tt, op, seq, numel, tmo * 1000)
            else:
                ascend_timeout(J, n, lr, tt, op.lower() if J.fw != "mindspore" else "AllReduce", remote_ip=remote)
            fl.append(lr)
        if fl and teardown_all:
            teardown(J, n, tn + rng.uniform(1, 5), fl, exitcode=-6 if J.stack == "cuda" else 1, sig="SIGABRT" if J.stack == "cuda" else None)
    return t_fault + tmo + 10


def py_traceback(J, n, lr, t, frames, exc, tag=None, prefix=True, exc_tag=None):
    g = J.grank(n, lr)
    pre = ("[rank%d]: " % g) if prefix else ""
    J.emit(n, lr, t, pre + "Traceback (most recent call last):")
    for f in frames:
        J.emit(n, lr, t, pre + f)
    lines = exc if isinstance(exc, list) else [exc]
    for i, e in enumerate(lines):
        J.emit(n, lr, t + 0.0001, pre + e, tag=(exc_tag or tag) if i == 0 else tag if tag and exc_tag else None)


TRAIN_FRAMES = {
    "megatron": ['  File "/workspace/Megatron-LM/pretrain_gpt.py", line 247, in <module>', "    pretrain(",
                 '  File "/workspace/Megatron-LM/megatron/training/training.py", line 355, in pretrain', "    iteration, num_floating_point_operations_so_far = train(",
                 '  File "/workspace/Megatron-LM/megatron/training/training.py", line 1230, in train', "    train_step(forward_step_func,",
                 '  File "/workspace/Megatron-LM/megatron/training/training.py", line 688, in train_step', "    losses_reduced = forward_backward_func("],
    "mindspeed": ['  File "/home/ma-user/work/MindSpeed-LLM/pretrain_gpt.py", line 247, in <module>', "    main()",
                  '  File "/home/ma-user/work/MindSpeed-LLM/mindspeed_llm/training/training.py", line 406, in pretrain', "    iteration, num_floating_point_operations_so_far = train(",
                  '  File "/home/ma-user/work/MindSpeed-LLM/mindspeed_llm/training/training.py", line 710, in train', "    train_step(forward_step_func,"],
    "deepspeed": ['  File "/app/train_sft.py", line 311, in <module>', "    main()", '  File "/app/train_sft.py", line 297, in main', "    trainer.train()",
                  '  File "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", line 1938, in train', "    return inner_training_loop(",
                  '  File "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", line 2279, in _inner_training_loop', "    tr_loss_step = self.training_step(model, inputs)"],
    "fsdp": ['  File "/opt/torchtitan/torchtitan/train.py", line 386, in <module>', "    main(config)",
             '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper', "    return f(*args, **kwargs)",
             '  File "/opt/torchtitan/torchtitan/train.py", line 296, in main', "    loss.backward()"],
    "accelerate": ['  File "/work/finetune.py", line 402, in <module>', "    main()", '  File "/work/finetune.py", line 355, in main', "    accelerator.backward(loss)"],
    "mindspore": ['  File "/home/ma-user/work/mindformers/run_mindformer.py", line 285, in <module>', "    main(config_)",
                  '  File "/home/ma-user/work/mindformers/mindformers/trainer/trainer.py", line 448, in train', "    self.trainer.train(",
                  '  File "/usr/local/python3.9/lib/python3.9/site-packages/mindspore/train/model.py", line 1082, in train', "    self._train(epoch,"],
}


# ----------------------------------------------------------------------------
# faults
# ----------------------------------------------------------------------------
def run_to(J, stage, it, mods=None):
    mods = mods or {}
    if stage in ("init", "model_loading", "data_loading"):
        return startup(J, stop=stage), []
    t = startup(J)
    t = training(J, t, it, mods, in_ckpt=(stage == "checkpoint"))
    return t, [it]


def pick_it(J, stage):
    c = J.cfg
    if stage == "checkpoint":
        k = J.rng.randint(1, max(1, (c["train_iters"] - c["it0"]) // c["save_interval"] - 1))
        return (c["it0"] // c["save_interval"] + k) * c["save_interval"]
    return c["it0"] + J.rng.randint(c["log_interval"] * 3, (c["train_iters"] - c["it0"]) - 5)


def kern(J, n, t, msg, tag=None):
    """A host-level (dmesg / health-agent) line captured into the node log."""
    J.emit(n, None, t, msg, tag=tag, kind="kernel")


def F(cat, sub, sym, faulty, rc, rem, events, accept=None, hosts=None):
    return dict(category=cat, subcategory=sub, symptom=sym, faulty=faulty, root_cause=rc, remediation=rem,
                events=events, accept=accept, hosts=hosts)


def f_xid(J, kind):
    rng = J.rng
    n = rng.randrange(J.nn)
    lr = rng.randrange(8)
    stage = "training"
    t, its = run_to(J, stage, pick_it(J, stage))
    pci = "0000:%s:00" % BUSIDS[lr][:2]
    pid = J.pids[n][lr]
    one_line = J.layout == "pernode" and rng.random() < 0.5
    if kind == "79":
        kmsg = "NVRM: Xid (PCI:%s): 79, pid=%d, name=python3, GPU has fallen off the bus." % (pci, pid)
        rmsg = "RuntimeError: CUDA error: unspecified launch failure"
        pat = ("GPU has fallen off the bus", "CUDA error: unspecified launch failure")
        rc = "GPU %d on %s fell off the PCIe bus (Xid 79) in the middle of training, killing its rank and stalling all collectives." % (lr, J.host(n))
        rem = "Drain the node, reseat or replace the GPU/riser and check PCIe/power, then resume from the last checkpoint without it."
    elif kind == "48":
        kmsg = "NVRM: Xid (PCI:%s): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition 0." % (pci, pid, rng.randint(0, 11))
        rmsg = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
        pat = ("uncorrectable double bit error", "uncorrectable ECC error encountered")
        rc = "An uncorrectable double-bit ECC error in GPU %d memory on %s (Xid 48) crashed the rank." % (lr, J.host(n))
        rem = "Cordon the node, reset the GPU and check retired/remapped pages; RMA the GPU if it recurs, then restart from checkpoint."
    elif kind == "94":
        kmsg = "NVRM: Xid (PCI:%s): 94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % (pci, pid)
        rmsg = "RuntimeError: CUDA error: uncorrectable ECC error encountered"
        pat = ("Xid (PCI:%s): 94" % pci, "uncorrectable ECC error encountered")
        rc = "A contained uncorrectable ECC error (Xid 94) on GPU %d of %s killed the application context of that rank." % (lr, J.host(n))
        rem = "Reset the affected GPU (or reboot the node) to clear the error and run GPU diagnostics before returning it to the pool."
    else:  # nvlink
        kmsg = "NVRM: Xid (PCI:%s): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (pci, pid, rng.randint(0, 17))
        rmsg = "%s misc/strongstream.cc:395 NCCL WARN Cuda failure 'uncorrectable NVLink error detected during the execution'" % nccl_prefix(J, n, lr)
        pat = ("NVLink: fatal error detected on link", "uncorrectable NVLink error detected")
        rc = "A fatal NVLink error (Xid 74) on GPU %d of %s broke intra-node NCCL traffic and crashed the rank." % (lr, J.host(n))
        rem = "Take the node out of service, run nvidia-smi nvlink -e / field diagnostics and replace the faulty GPU or NVSwitch board."
    evs = []
    kern(J, n, t + 0.3, kmsg, tag="e1")
    if J.layout == "pernode" or J.layout == "perrank":
        evs.append(("e1", pat[0]))
    if one_line:
        for l in range(8):
            J.dead.add((n, l))
    else:
        if kind == "74" or kind == "nvlink":
            J.emit(n, lr, t + 0.5, rmsg, tag="e2")
            J.emit(n, lr, t + 0.5, "%s NCCL INFO enqueue.cc:1968 -> 1" % nccl_prefix(J, n, lr))
            J.emit(n, lr, t + 0.6, "[rank%d]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5" % J.grank(n, lr))
        else:
            py_traceback(J, n, lr, t + 0.5, TRAIN_FRAMES.get(J.fw, TRAIN_FRAMES["megatron"]), [rmsg, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.",
                                                                                          "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions."], exc_tag="e2")
        evs.append(("e2", pat[1]))
        J.dead.add((n, lr))
        teardown(J, n, t + rng.uniform(2, 8), [lr], exitcode=1)
    cascade_timeout(J, t, set(), op=rng.choice(["ALLREDUCE", "_REDUCE_SCATTER_BASE", "_ALLGATHER_BASE"]))
    return its, stage, F("hardware", "accelerator", "training_crash", [(n, lr if J.layout != "pernode" else None)], rc, rem, evs,
                         accept=["hardware/accelerator", "hardware/network"] if kind == "nvlink" else None, hosts=[J.host(n)])


def f_ib(J, peer_only=False):
    rng = J.rng
    n = rng.randrange(1, J.nn)
    lr = rng.randrange(8)
    stage = "training"
    t, its = run_to(J, stage, pick_it(J, stage))
    hca = ["mlx5_0", "mlx5_3", "mlx5_4", "mlx5_5", "mlx5_6", "mlx5_9", "mlx5_10", "mlx5_11"][lr]
    evs = []
    peers = [(m, lr) for m in range(J.nn) if m != n]
    if not peer_only:
        J.emit(n, lr, t + 0.2, "%s NCCL WARN NET/IB : %s:1 Got async event : port error" % (nccl_prefix(J, n, lr), hca), tag="e1")
        for k in range(rng.randint(2, 4)):
            m = rng.choice(peers)[0]
            J.emit(n, lr, t + 1 + k * 0.01, "%s transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=%d vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (
                nccl_prefix(J, n, lr), J.ips[m], rng.randint(30000, 60000), rng.choice([0, 1, 32616]), rng.choice([0, 65536, 524288]), J.ips[n], J.ips[m]), tag="e2")
            J.emit(n, lr, t + 1 + k * 0.01, "%s NCCL INFO transport/net.cc:1298 -> 6" % nccl_prefix(J, n, lr))
            J.emit(n, lr, t + 1 + k * 0.01, "%s NCCL INFO proxy.cc:694 -> 6" % nccl_prefix(J, n, lr))
            J.emit(n, lr, t + 1 + k * 0.01, "%s NCCL INFO proxy.cc:874 -> 6 [Progress Thread]" % nccl_prefix(J, n, lr))
        evs = [("e1", "Got async event : port error"), ("e2", "with status=12")]
    # peers blame the faulty node by IP
    blamers = rng.sample(peers, min(len(peers), rng.randint(2, 5)))
    for (m, l2) in blamers:
        for k in range(rng.randint(1, 3)):
            J.emit(m, l2, t + 14 + k * 0.01, "%s transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (
                nccl_prefix(J, m, l2), J.ips[n], rng.randint(30000, 60000), rng.choice([0, 32616, 129]), J.ips[m], J.ips[n]), tag="p1" if peer_only else None)
            J.emit(m, l2, t + 14 + k * 0.01, "%s NCCL INFO transport/net.cc:1298 -> 6" % nccl_prefix(J, m, l2))
    if peer_only:
        evs = [("p1", "Got completion from peer %s<" % J.ips[n])]
    # everybody then fails with a remote error; faulty node first
    order = [n] + [m for m in range(J.nn) if m != n]
    for i, m in enumerate(order):
        tt = t + (1.5 if (m == n and not peer_only) else 15 + rng.uniform(0, 3))
        if peer_only and m == n:
            continue
        for l2 in range(8):
            J.emit(m, l2, tt + 0.01 * l2, "[rank%d]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, remote process exited or there was a network error, NCCL version 2.20.5" % J.grank(m, l2))
            J.emit(m, l2, tt + 0.01 * l2, "[rank%d]: ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely." % J.grank(m, l2))
            J.emit(m, l2, tt + 0.01 * l2, "[rank%d]: Last error:" % J.grank(m, l2))
            J.emit(m, l2, tt + 0.01 * l2, "[rank%d]: NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (J.grank(m, l2), J.ips[n if m != n else (n + 1) % J.nn], rng.randint(30000, 60000)),
                   tag=("p1" if peer_only else None) if m != n else ("e2" if not peer_only else None))
            J.dead.add((m, l2))
        teardown(J, m, tt + 2, list(range(8)), exitcode=1)
    if peer_only:
        cascade_timeout(J, t, set())
    rc = "The InfiniBand link of %s (HCA %s, %s) failed during training, so NCCL transfers to and from that node hit retry-exceeded errors and every rank aborted." % (J.host(n), hca, J.ips[n])
    rem = "Drain %s, check the HCA/cable/switch port (ibstat, port counters) and replace the faulty part before rescheduling." % J.host(n)
    fl = [(n, lr if J.layout != "pernode" else None)] if not peer_only else [(n, None)]
    return its, stage, F("hardware", "network", "training_crash", fl, rc, rem, evs, hosts=[J.host(n), J.ips[n]])


def f_oom(J):
    rng = J.rng
    stage = rng.choice(["training", "training", "model_loading"]) if J.fw != "mindspore" else "training"
    it = J.cfg["it0"] + rng.randint(1, 3) if stage == "training" else None
    t, its = run_to(J, stage, it)
    last = J.world - 1 if J.fw in ("megatron", "mindspeed") else rng.randrange(J.world)
    victims = sorted(set([last] + ([last - 1, last - 2] if rng.random() < 0.5 else [])))
    evs = []
    for gi, g in enumerate(victims):
        n, lr = J.where(g)
        if J.stack == "cuda":
            msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.15 GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)"
                   % (rng.uniform(1, 8), lr, rng.uniform(0.3, 2.5), J.pids[n][lr], rng.uniform(76, 78.5), rng.uniform(70, 74), rng.uniform(1, 4)))
            pat = "CUDA out of memory. Tried to allocate"
        elif J.fw == "mindspore":
            msg = "RuntimeError: Device(id:%d) memory isn't enough and alloc failed, kernel name: Default/network-_VirtualDatasetCell/_backbone-GradAccumulationCell/network-LlamaForCausalLM/model-LlamaModel/layers-CellList/%d-LLamaDecodeLayer/attention-LLamaAttention/MatMul-op%d, alloc size: %dB." % (lr, rng.randint(0, 60), rng.randint(100, 9000), rng.choice([2147483648, 1073741824, 4294967296]))
            pat = "memory isn't enough and alloc failed"
        else:
            msg = "RuntimeError: NPU out of memory. Tried to allocate %.2f GiB (NPU %d; 60.96 GiB total capacity; %.2f GiB already allocated; %.2f GiB current active; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (rng.uniform(1, 6), lr, rng.uniform(55, 58), rng.uniform(55, 58), rng.uniform(10, 900), rng.uniform(58, 60))
            pat = "NPU out of memory. Tried to allocate"
        py_traceback(J, n, lr, t + 2 + gi * 0.3, TRAIN_FRAMES.get(J.fw), msg, exc_tag="e1", prefix=J.stack == "cuda")
        if J.fw == "mindspore":
            J.emit(n, lr, t + 2.01, "EL0004: %s Failed to allocate memory." % J.ts(n, t + 2.01, "cann"), tag="e2")
            J.emit(n, lr, t + 2.01, "        Possible Cause: Available memory is insufficient.")
            J.emit(n, lr, t + 2.01, "        Solution: Close applications not in use.")
            evs.append(("e2", "Failed to allocate memory."))
        J.dead.add((n, lr))
    evs.insert(0, ("e1", pat))
    for g in victims:
        n, lr = J.where(g)
        if (n, lr) in J.dead and not any((n, l) not in J.dead for l in range(8)):
            pass
    tn = {}
    for g in victims:
        tn.setdefault(J.where(g)[0], []).append(J.where(g)[1])
    for n, lrs in tn.items():
        teardown(J, n, t + 4, lrs, exitcode=1)
    cascade_timeout(J, t, set())
    rc = "The micro-batch/sequence-length configuration needs more device memory than the %s provides on the last pipeline stage, so the rank(s) ran out of memory%s." % ("80 GB GPU" if J.stack == "cuda" else "64 GB NPU", " while loading the model" if stage == "model_loading" else " in the first iterations")
    rem = "Reduce micro-batch size or sequence length, or raise pipeline/tensor parallelism or enable activation recomputation so the last stage fits in memory."
    return its, stage, F("user", "configuration", "training_crash", [], rc, rem, evs, accept=["user/configuration", "platform/resource_management"])


def f_nan(J):
    rng = J.rng
    stage = "training"
    n = rng.randrange(J.nn)
    lr = rng.randrange(8)
    g = J.grank(n, lr)
    t, its = run_to(J, stage, pick_it(J, stage))
    msg = "Rank %d: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: %d, node: %s" % (g, lr, J.host(n))
    fr = TRAIN_FRAMES.get(J.fw) + ['  File "%s/core/distributed/param_and_grad_buffer.py", line 190, in check_for_nan_in_grad' % ("/workspace/Megatron-LM/megatron" if J.stack == "cuda" else "/home/ma-user/work/Megatron-LM/megatron"), "    assert not norm_is_nan, ("]
    py_traceback(J, n, lr, t + 3, fr, "AssertionError: " + msg, exc_tag="e1")
    J.dead.add((n, lr))
    teardown(J, n, t + 6, [lr], exitcode=1)
    cascade_timeout(J, t, set())
    rc = "Only rank %d on %s produced NaN gradients while all other data-parallel replicas stayed finite, pointing to silent data corruption on that device." % (g, J.host(n))
    rem = "Exclude %s, run the vendor stress/diagnostic suite on device %d and resume from the last checkpoint; replace the device if the test fails." % (J.host(n), lr)
    return its, stage, F("hardware", "accelerator", "training_crash", [(n, lr if J.layout != "pernode" else None)], rc, rem, [("e1", "found NaN in local grad norm")],
                         accept=["hardware/accelerator", "user/configuration"], hosts=[J.host(n), "Rank %d" % g])


def f_overflow(J):
    rng = J.rng
    stage = "training"
    it = pick_it(J, stage)
    start = it - rng.randint(12, 30)
    state = {"scale": 2.0 ** 10}

    def hook(J2, i, t):
        if i >= start:
            state["scale"] = max(1.0, state["scale"] / 2)
            J.emit(0, 0, t + 0.2, "%s [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (J.ts(0, t + 0.2, "bracket"), int(state["scale"] * 2), int(state["scale"])), tag="e1")
    J.cfg["log_interval"] = 1
    t, its = run_to(J, stage, it, {"hook": hook})
    for n in range(J.nn):
        for lr in range(8):
            py_traceback(J, n, lr, t + 1, TRAIN_FRAMES["deepspeed"] + ['  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/fp16/loss_scaler.py", line 175, in update_scale', "    raise Exception("],
                         "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.", exc_tag="e2")
            J.dead.add((n, lr))
        teardown(J, n, t + 3, list(range(8)), exitcode=1)
    rc = "fp16 training diverged: the dynamic loss scale kept overflowing until it reached its minimum and DeepSpeed aborted the run."
    rem = "Lower the learning rate or use bf16, raise min_loss_scale/warmup, and resume from the last good checkpoint."
    return its, stage, F("user", "configuration", "training_crash", [], rc, rem, [("e1", "OVERFLOW! Rank 0 Skipping step"), ("e2", "Current loss scale already at minimum")])


def f_badconfig(J, kind):
    rng = J.rng
    stage = "init"
    t, its = run_to(J, stage, None)
    evs = []
    if kind == "world":
        tp, pp = J.cfg["tp"], J.cfg["pp"]
        msg = "AssertionError: world size (%d) is not divisible by tensor model parallel size (%d) times pipeline model parallel size (%d)" % (J.world, tp, pp)
        fr = ['  File "%s/pretrain_gpt.py", line 243, in <module>' % J.cfg["workdir"], "    pretrain(", '  File "%s/megatron/training/initialize.py", line 58, in initialize_megatron' % J.cfg["workdir"],
              "    validate_args(args, args_defaults)", '  File "%s/megatron/training/arguments.py", line 98, in validate_args' % J.cfg["workdir"], "    assert args.world_size % (args.tensor_model_parallel_size * args.pipeline_model_parallel_size) == 0, \\"]
        pat = "is not divisible by tensor model parallel size"
        rc = "The job was launched on %d devices, which is not a multiple of TP=%d x PP=%d, so argument validation failed on every rank." % (J.world, tp, pp)
        rem = "Make the device count a multiple of tensor x pipeline parallel size (or change TP/PP) and resubmit."
        code = 1
    else:
        bad = rng.choice(["--use-mcore-models-v2", "--sequence-paralell", "--recompute-activation", "--fp8-hybrid"])
        msg = "%s: error: unrecognized arguments: %s" % (J.cfg["script"].split("/")[-1], bad)
        fr = []
        pat = "error: unrecognized arguments"
        rc = "The launch script passes the option %s, which this version of the training script does not accept, so argparse exited on every rank." % bad
        rem = "Fix the typo or drop the option (or upgrade the framework that provides it) and resubmit."
        code = 2
    for n in range(J.nn):
        for lr in range(8):
            tt = t + rng.uniform(0, 1.5)
            if fr:
                py_traceback(J, n, lr, tt, fr, msg, exc_tag="e1", prefix=J.stack == "cuda")
            else:
                J.emit(n, lr, tt, "usage: %s [-h] [--num-layers NUM_LAYERS] [--encoder-num-layers ENCODER_NUM_LAYERS] ..." % J.cfg["script"].split("/")[-1])
                J.emit(n, lr, tt, msg, tag="e1")
            J.dead.add((n, lr))
        teardown(J, n, t + 3 + rng.uniform(0, 1), list(range(8)), exitcode=code)
    return its, stage, F("user", "configuration", "launching_failure", [], rc, rem, [("e1", pat)])


def f_scriptbug(J):
    rng = J.rng
    stage = rng.choice(["training", "data_loading"])
    t, its = run_to(J, stage, pick_it(J, "training") if stage == "training" else None)
    fw = J.fw
    if fw == "mindspore":
        msg = "ValueError: For 'MatMul', the input dimensions must be equal, but got 'x1_col': %d and 'x2_row': %d." % (J.cfg["hidden"], J.cfg["hidden"] + 1024)
        pat = "the input dimensions must be equal"
        fr = TRAIN_FRAMES["mindspore"]
    elif stage == "data_loading":
        msg = "KeyError: 'attention_mask'"
        pat = "KeyError: 'attention_mask'"
        fr = (TRAIN_FRAMES.get(fw) or [])[:2] + ['  File "%s/data/collator.py", line 88, in __call__' % J.cfg["workdir"], "    masks = [ex[\"attention_mask\"] for ex in batch]"]
    else:
        msg = "TypeError: forward() got an unexpected keyword argument 'packed_seq_params'"
        pat = "got an unexpected keyword argument 'packed_seq_params'"
        fr = TRAIN_FRAMES.get(fw) + ['  File "%s/model/custom_block.py", line 214, in forward' % J.cfg["workdir"], "    out = self.attn(x, attention_mask, packed_seq_params=packed_seq_params)"]
    for n in range(J.nn):
        for lr in range(8):
            py_traceback(J, n, lr, t + rng.uniform(0.5, 3), fr, msg, exc_tag="e1", prefix=J.stack == "cuda")
            J.dead.add((n, lr))
        teardown(J, n, t + 5 + rng.uniform(0, 2), list(range(8)), exitcode=1)
    rc = "A bug in the user's training code (%s) raises the same exception on every rank%s." % (pat, " when the first batch is built" if stage == "data_loading" else " after the code path changed at this iteration")
    rem = "Fix the training/data code so the call signature and batch keys match, test on one node, then relaunch."
    return its, stage, F("user", "script_bug", "training_crash", [], rc, rem, [("e1", pat)])


def f_incompat(J, kind):
    rng = J.rng
    stage = "init"
    t, its = run_to(J, stage, None)
    if kind == "flash":
        msg = "ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"
        fr = ['  File "%s/%s", line 12, in <module>' % (J.cfg["workdir"], J.cfg["script"]), "    from flash_attn import flash_attn_varlen_func",
              '  File "/usr/local/lib/python3.10/dist-packages/flash_attn/__init__.py", line 3, in <module>', "    from flash_attn.flash_attn_interface import (",
              '  File "/usr/local/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py", line 15, in <module>', "    import flash_attn_2_cuda as flash_attn_gpu"]
        pat = "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol"
        rc = "The flash-attn wheel in the image was built against a different PyTorch/C++ ABI, so importing it fails with an undefined symbol on every rank."
        rem = "Install the flash-attn build that matches the image's torch version and CXX11 ABI (or rebuild it from source) and relaunch."
    else:
        msg = "ImportError: /usr/local/Ascend/ascend-toolkit/latest/lib64/libhccl.so: undefined symbol: HcclCommInitClusterInfoConfig"
        fr = ['  File "%s/pretrain_gpt.py", line 8, in <module>' % J.cfg["workdir"], "    import torch_npu",
              '  File "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/__init__.py", line 40, in <module>', "    import torch_npu.npu"]
        pat = "libhccl.so: undefined symbol"
        rc = "The installed torch_npu expects a newer CANN than the toolkit in the image, so loading libhccl fails with an undefined symbol on every rank."
        rem = "Use a torch_npu release that matches the installed CANN version (or upgrade CANN) per the Ascend compatibility table."
    for n in range(J.nn):
        for lr in range(8):
            py_traceback(J, n, lr, t + rng.uniform(0, 2), fr, msg, exc_tag="e1", prefix=False)
            J.dead.add((n, lr))
        teardown(J, n, t + 4, list(range(8)), exitcode=1)
    return its, stage, F("user", "software_incompatibility", "launching_failure", [], rc, rem, [("e1", pat)])


def f_node_env(J, kind):
    """One node has a broken environment; the others wait in rendezvous."""
    rng = J.rng
    n = rng.randrange(1, J.nn)
    stage = "init"
    t, its = run_to(J, stage, None)
    if kind == "driver":
        msg = "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver."
        pat = "The NVIDIA driver on your system is too old"
        fr = ['  File "%s/%s", line 40, in <module>' % (J.cfg["workdir"], J.cfg["script"]), "    torch.cuda.set_device(local_rank)"]
        rc = "%s still runs an old NVIDIA driver (CUDA 11.4) that cannot run the image's CUDA 12 PyTorch, so its ranks die at start-up and the others time out waiting for them." % J.host(n)
        rem = "Upgrade the driver on %s (or exclude it via node labels/constraints) so every node in the pool has the same driver." % J.host(n)
    elif kind == "hal":
        msg = "ImportError: libascend_hal.so: cannot open shared object file: No such file or directory"
        pat = "libascend_hal.so: cannot open shared object file"
        fr = ['  File "%s/pretrain_gpt.py", line 8, in <module>' % J.cfg["workdir"], "    import torch_npu",
              '  File "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/__init__.py", line 18, in <module>', "    import torch_npu._C"]
        rc = "The container on %s was started without the Ascend driver mounted (/usr/local/Ascend/driver), so torch_npu cannot load libascend_hal.so there and the rest of the job times out." % J.host(n)
        rem = "Fix the device-plugin/volume mounts on %s so the Ascend driver libraries are mapped into the container, then relaunch." % J.host(n)
    else:  # ej0001
        msg = None
        pat = "Failed to initialize the HCCP process"
        rc = "A leftover training process from a previous job was still holding the NPUs on %s, so HCCP could not initialise there and the collective setup timed out everywhere else." % J.host(n)
        rem = "Kill the stale processes on %s (npu-smi info to find them), wait for the devices to be released and resubmit." % J.host(n)
    evs = [("e1", pat)]
    for lr in range(8):
        tt = t + rng.uniform(0, 2)
        if msg:
            py_traceback(J, n, lr, tt, fr, msg, exc_tag="e1", prefix=False)
        else:
            g = J.grank(n, lr)
            J.emit(n, lr, tt, "[rank%d]: RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64" % g)
            J.emit(n, lr, tt, "[rank%d]: [ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (g, J.ts(n, tt, "cannshort"), J.pids[n][lr], lr, g))
            J.emit(n, lr, tt, "[rank%d]: EJ0001: %s Failed to initialize the HCCP process. Reason: Maybe the last training process is running." % (g, J.ts(n, tt, "cann")), tag="e1")
            J.emit(n, lr, tt, "[rank%d]:         Solution: Wait for 10s after killing the last training process and try again." % g)
            J.emit(n, lr, tt, "[rank%d]:         TraceBack (most recent call last):" % g)
            J.emit(n, lr, tt, "[rank%d]:         tsd client wait response fail, device response code[1]. unknown device error.[FUNC:WaitRsp][FILE:process_mode_manager.cpp][LINE:290]" % g)
        J.dead.add((n, lr))
    teardown(J, n, t + 4, list(range(8)), exitcode=1)
    # others wait
    wait = 1800 if kind != "ej0001" else 1200
    for m in range(J.nn):
        if m == n:
            continue
        for lr in range(8):
            g = J.grank(m, lr)
            tt = t + wait + rng.uniform(0, 3)
            if J.fw == "mindspore":
                J.emit(m, lr, tt - 600, "[WARNING] DISTRIBUTED(%d,ffff%s,python):%s [mindspore/ccsrc/distributed/cluster/cluster_context.cc:269] BuildCluster] Topology build timed out., retry(%d/14400)." % (J.pids[m][lr], hx(rng, 8)[2:], J.ts(m, tt - 600, "cann"), rng.randint(100, 300)))
                J.emit(m, lr, tt, "[ERROR] DISTRIBUTED(%d,ffff%s,python):%s [mindspore/ccsrc/distributed/cluster/topology/compute_graph_node.cc:197] Register] The total number of timed out node is 8. Timed out node list is: [%s]" % (J.pids[m][lr], hx(rng, 8)[2:], J.ts(m, tt, "cann"), ", ".join("worker_%d" % J.grank(n, x) for x in range(8))))
                J.emit(m, lr, tt, "RuntimeError: Failed to initialize cluster: Topology build timed out.")
            elif J.stack == "ascend" and kind == "ej0001":
                J.emit(m, lr, tt, "[rank%d]: EI0006: [PID: %d] %s Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck" % (g, J.pids[m][lr], J.ts(m, tt, "cann")))
                J.emit(m, lr, tt, "[rank%d]:         Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default)." % g)
                J.emit(m, lr, tt, "[rank%d]: [ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (g, J.ts(m, tt, "cannshort"), J.pids[m][lr], lr, g))
            else:
                J.emit(m, lr, tt, "[rank%d]: torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. %d/%d clients joined." % (g, J.world - 8, J.world))
            J.dead.add((m, lr))
        teardown(J, m, t + wait + 6, list(range(8)), exitcode=1)
    cat, sub = ("platform", "platform_configuration") if kind in ("driver", "hal") else ("platform", "resource_management")
    acc = [cat + "/" + sub, "user/software_incompatibility"] if kind in ("driver", "hal") else [cat + "/" + sub, "user/misoperation"]
    return its, stage, F(cat, sub, "launching_failure", [(n, None)], rc, rem, evs, accept=acc, hosts=[J.host(n), J.ips[n]])


def f_ckpt(J, kind):
    rng = J.rng
    stage = "checkpoint"
    it = pick_it(J, stage)
    t, its = run_to(J, stage, it)
    base = "%s/iter_%07d" % (J.cfg["ckpt_dir"], it) if J.fw in ("megatron", "mindspeed") else "%s/checkpoint-%d" % (J.cfg["ckpt_dir"], it)
    frs = ['  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 862, in save', "    _save(", '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 1099, in _save', "    zip_file.write_record(name, storage, num_bytes)"]
    if kind == "full":
        victims = rng.sample(range(J.world), min(J.world, rng.randint(3, 9)))
        for i, g in enumerate(sorted(victims)):
            n, lr = J.where(g)
            py_traceback(J, n, lr, t + 30 + i * 0.7, frs, ["RuntimeError: [enforce fail at inline_container.cc:603] . unexpected pos %d vs %d" % (rng.randint(10 ** 8, 10 ** 9), rng.randint(10 ** 8, 10 ** 9))], prefix=J.stack == "cuda")
            J.emit(n, lr, t + 30 + i * 0.7 + 0.01, ("[rank%d]: " % g if J.stack == "cuda" else "") + "OSError: [Errno 28] No space left on device: '%s/__%d_0.distcp'" % (base, g), tag="e1")
            J.dead.add((n, lr))
        for n in sorted(set(J.where(g)[0] for g in victims)):
            teardown(J, n, t + 40, [J.where(g)[1] for g in victims if J.where(g)[0] == n], exitcode=1)
        cascade_timeout(J, t + 30, set(), op="ALLGATHER" if J.stack == "cuda" else "allgather")
        rc = "The shared checkpoint file system ran out of space while iteration %d was being saved, so several ranks failed writing their shards." % it
        rem = "Free space or raise the quota on the checkpoint volume (and prune old checkpoints), then resume from the previous checkpoint."
        return its, stage, F("platform", "resource_management", "training_crash", [], rc, rem, [("e1", "No space left on device")], accept=["platform/resource_management", "hardware/storage"])
    n = rng.randrange(J.nn)
    for lr in range(8):
        g = J.grank(n, lr)
        py_traceback(J, n, lr, t + 5 + lr * 0.05, frs[:2] + ['  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 651, in _open_zipfile_writer', "    return container(name_or_buffer)"],
                     "OSError: [Errno 116] Stale file handle: '%s/__%d_0.distcp'" % (base, g), exc_tag="e1", prefix=J.stack == "cuda")
        J.dead.add((n, lr))
    teardown(J, n, t + 8, list(range(8)), exitcode=1)
    cascade_timeout(J, t + 5, set(), op="ALLGATHER" if J.stack == "cuda" else "allgather")
    rc = "The NFS mount for checkpoints on %s went stale while iteration %d was being written, so every rank on that node failed with ESTALE." % (J.host(n), it)
    rem = "Remount the NFS export on %s (check the NFS server and client logs) and resume from the previous checkpoint." % J.host(n)
    return its, stage, F("hardware", "storage", "training_crash", [(n, None)], rc, rem, [("e1", "Stale file handle")], hosts=[J.host(n)])


def f_hostoom(J):
    rng = J.rng
    n = rng.randrange(J.nn)
    lr = rng.randrange(8)
    stage = rng.choice(["training", "data_loading"])
    t, its = run_to(J, stage, pick_it(J, "training") if stage == "training" else None)
    wpid = J.pids[n][lr] + rng.randint(200, 3000)
    evs = []
    if J.layout in ("pernode", "perrank"):
        kern(J, n, t + 1, "[%d.%06d] Memory cgroup out of memory: Killed process %d (pt_data_worker) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (
            rng.randint(100000, 900000), rng.randint(0, 999999), wpid, rng.randint(10 ** 8, 3 * 10 ** 8), rng.randint(10 ** 7, 9 * 10 ** 7), rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 6, 10 ** 7), rng.randint(10 ** 4, 10 ** 5)), tag="e1")
        evs.append(("e1", "Memory cgroup out of memory: Killed process"))
    fr = ['  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", line 1133, in _try_get_data', "    data = self._data_queue.get(timeout=timeout)",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/signal_handling.py", line 66, in handler', "    _error_if_any_worker_fails()"]
    py_traceback(J, n, lr, t + 1.5, fr, "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid, exc_tag="e2", prefix=J.stack == "cuda")
    evs.append(("e2", "is killed by signal: Killed"))
    J.dead.add((n, lr))
    teardown(J, n, t + 4, [lr], exitcode=1)
    cascade_timeout(J, t, set())
    rc = "The host memory cgroup of %s was exhausted by data-loader workers, so the kernel OOM killer killed a worker and its rank crashed." % J.host(n)
    rem = "Reduce num_workers/prefetch or dataset caching per rank, or raise the pod/cgroup memory limit, then resume."
    return its, stage, F("platform", "resource_management", "training_crash", [(n, lr if J.layout != "pernode" else None)], rc, rem, evs,
                         accept=["platform/resource_management", "user/configuration"], hosts=[J.host(n)])


def f_node_lost(J):
    rng = J.rng
    n = rng.randrange(1, J.nn)
    stage = "training"
    t, its = run_to(J, stage, pick_it(J, stage))
    for lr in range(8):
        J.dead.add((n, lr))
    evs = []
    if J.layout == "console":
        J.emit(0, None, t + 95, "srun: error: Node failure on %s" % J.host(n).split(".")[0], tag="e1", kind="slurm")
        J.emit(0, None, t + 96, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (J.jobid, J.host(0).split(".")[0], J.ts(0, t + 96, "slurm")), kind="slurm")
        evs.append(("e1", "Node failure on %s" % J.host(n).split(".")[0]))
        for m in range(J.nn):
            if m != n:
                for lr in range(8):
                    J.dead.add((m, lr))
        J.emit(0, None, t + 97, "srun: error: %s: tasks %d-%d: Killed" % (J.host(0).split(".")[0], 0, 7), kind="slurm")
    else:
        # peers notice the dead host through the c10d store / NCCL
        for m in range(J.nn):
            if m == n:
                continue
            J.emit(m, 0, t + 40 + rng.uniform(0, 5), "[rank%d]:[W%s socket.cpp:464] [c10d] recvValue failed on SocketImpl(fd=%d, addr=[%s]:%d, remote=[%s]:%d): Connection reset by peer" % (
                J.grank(m, 0), J.ts(m, t + 40, "glogns", "")[0:], rng.randint(40, 90), J.host(m).split(".")[0], rng.randint(30000, 60000), J.ips[n], J.port), tag="p1")
        evs.append(("p1", "Connection reset by peer"))
        cascade_timeout(J, t, set())
    rc = "Host %s went down during training (no further output from it), so the remaining ranks lost their peer and the job was torn down." % J.host(n)
    rem = "Have the node's BMC/kernel logs checked, keep it drained until it passes health checks, and restart the job from the last checkpoint."
    return its, stage, F("hardware", "node", "training_crash", [(n, None)], rc, rem, evs, hosts=[J.host(n), J.ips[n]])


def f_preempt(J):
    rng = J.rng
    n = rng.randrange(J.nn)
    stage = "training"
    t, its = run_to(J, stage, pick_it(J, stage))
    evs = []
    if J.layout == "console":
        J.emit(n, None, t, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (J.jobid, J.host(n).split(".")[0], J.ts(n, t, "slurm")), tag="e1", kind="slurm")
        evs.append(("e1", "DUE TO PREEMPTION"))
        for m in range(J.nn):
            for lr in range(8):
                J.dead.add((m, lr))
        J.emit(n, None, t + 1, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.", kind="slurm")
        J.emit(n, None, t + 33, "srun: error: Timed out waiting for job step to complete", kind="slurm")
        return its, stage, F("platform", "scheduling", "training_crash", [(n, None)], "The scheduler preempted the job for a higher-priority allocation, cancelling the step.", "Submit to a non-preemptible partition/QoS or enable automatic requeue with checkpoint resume.", evs, hosts=[J.host(n)])
    lp = J.pids[n][0] - 40
    msg = "W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % (J.ts(n, t, "glog", ""), lp)
    J.emit(n, None, t, msg, tag="e1", kind="launcher")
    for lr in range(8):
        J.emit(n, None, t + 0.1, "W%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM" % (J.ts(n, t + 0.1, "glog", ""), lp, J.pids[n][lr]), kind="launcher")
        J.dead.add((n, lr))
    J.emit(n, None, t + 1, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % lp, kind="launcher")
    evs.append(("e1", "Received Signals.SIGTERM death signal"))
    # the others see the broken peer, then the operator deletes their pods as well (later)
    for m in range(J.nn):
        if m == n:
            continue
        for lr in range(8):
            J.emit(m, lr, t + 5 + rng.uniform(0, 2), "[rank%d]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, remote process exited or there was a network error, NCCL version 2.20.5" % J.grank(m, lr) if J.stack == "cuda" else
                   "[rank%d]: RuntimeError: HCCL function error: HcclAllReduce(...), error code is 7" % J.grank(m, lr))
            J.dead.add((m, lr))
        tt = t + 30 + rng.uniform(0, 20)
        lp2 = J.pids[m][0] - 40
        J.emit(m, None, tt, "W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % (J.ts(m, tt, "glog", ""), lp2), kind="launcher")
        J.emit(m, None, tt + 1, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % lp2, kind="launcher")
    rc = "The pod on %s was preempted (SIGTERM from the scheduler) first; the other pods only failed afterwards when their peer vanished and the job was deleted." % J.host(n)
    rem = "Run on a non-preemptible queue or priority class, or enable elastic restart with frequent checkpoints."
    return its, stage, F("platform", "scheduling", "training_crash", [(n, None)], rc, rem, evs, hosts=[J.host(n)])


def f_straggler(J):
    rng = J.rng
    n = rng.randrange(J.nn)
    lr = rng.randrange(8)
    stage = "training"
    it = pick_it(J, stage)
    slow_from = max(J.cfg["it0"] + 2, it - rng.randint(60, 200))
    state = {"k": 0}

    def hook(J2, i, t):
        if i >= slow_from and i % 5 == 0:
            kern(J, n, t + 0.5, "[gpu-health] GPU %d (00000000:%s:00.0): clocks_event_reasons: HW Slowdown, HW Power Brake Slowdown | sm_clock %d MHz | power %.2f W | temp %d C" % (
                lr, BUSIDS[lr][:2], rng.randint(300, 600), rng.uniform(80, 120), rng.randint(55, 70)), tag="e1")
    t, its = run_to(J, stage, it, {"hook": hook, "slow_from": slow_from, "slow_factor": rng.uniform(2.2, 3.5)})
    # job cancelled by the user after the slowdown
    for m in range(J.nn):
        lp = J.pids[m][0] - 40
        tt = t + 60 + rng.uniform(0, 2)
        J.emit(m, None, tt, "W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % (J.ts(m, tt, "glog", ""), lp), kind="launcher")
        for l2 in range(8):
            J.dead.add((m, l2))
    rc = "GPU %d on %s is throttled by hardware slowdown (power brake), so every iteration waits for it and throughput dropped ~%dx until the run was cancelled." % (lr, J.host(n), 3)
    rem = "Check the node's PSU/power-brake signal and cooling, swap out the throttled GPU/node and restart from the latest checkpoint."
    return [slow_from], stage, F("hardware", "accelerator", "abnormal_behavior", [(n, None)], rc, rem, [("e1", "HW Slowdown")], accept=["hardware/accelerator", "hardware/node"], hosts=[J.host(n)])


def f_zero3(J):
    rng = J.rng
    stage = "training"
    n = rng.randrange(J.nn)
    lr = rng.randrange(8)
    t, its = run_to(J, stage, pick_it(J, stage))
    d = "{'id': %d, 'status': 'AVAILABLE', 'numel': 0, 'ds_numel': %d, 'shape': (0,), 'ds_shape': (%d, %d), 'requires_grad': True, 'grad_shape': None, 'persist': False, 'active_sub_modules': {%d}, 'ds_tensor.shape': torch.Size([%d])}" % (
        rng.randint(100, 900), 4096 * 11008, 11008, 4096, rng.randint(100, 500), 4096 * 11008 // J.world)
    fr = TRAIN_FRAMES["deepspeed"] + ['  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 324, in fetch_sub_module', "    assert param.ds_status == ZeroParamStatus.AVAILABLE, param.ds_summary()"]
    py_traceback(J, n, lr, t + 1, fr, "AssertionError: " + d, exc_tag="e1")
    J.dead.add((n, lr))
    teardown(J, n, t + 3, [lr], exitcode=1)
    cascade_timeout(J, t, set(), op="_ALLGATHER_BASE")
    rc = "A DeepSpeed ZeRO-3 parameter-fetch bug (parameter found AVAILABLE but empty after a re-entrant module call) hit one rank, which crashed while the others waited in all-gather."
    rem = "Upgrade DeepSpeed to a release with the ZeRO-3 prefetch fix or disable prefetching/overlap_comm, then resume."
    return its, stage, F("framework", "framework_bug", "training_crash", [], rc, rem, [("e1", "'status': 'AVAILABLE', 'numel': 0")])


def f_divergent(J):
    rng = J.rng
    stage = "training"
    t, its = run_to(J, stage, pick_it(J, stage))
    seq = rng.randint(5000, 80000)
    cuda_watchdog(J, 0, 0, t + 600 + rng.uniform(0, 1), "_ALLGATHER_BASE", seq, 2048, 600000)
    # tag the diverging rank's watchdog line
    for k, row in enumerate(J.streams[(0, 0)]):
        if "OpType=_ALLGATHER_BASE" in row[2]:
            J.streams[(0, 0)][k] = row[:3] + ("e1",) + row[4:]
    cascade_timeout(J, t, set(), op="ALLREDUCE", seq=seq, teardown_all=False)
    for m in range(J.nn):
        teardown(J, m, t + 610, list(range(8)), exitcode=-6, sig="SIGABRT")
    rc = "Rank 0 entered an extra all-gather (evaluation code guarded by a rank check) while all other ranks issued the next all-reduce, so the collectives mismatched and the job hung until the NCCL watchdog fired."
    rem = "Make every rank execute the same sequence of collectives (move rank-0-only logic outside collective calls) and relaunch."
    return its, stage, F("user", "script_bug", "abnormal_behavior", [], rc, rem, [("e1", "OpType=_ALLGATHER_BASE")])


def f_npu_hw(J, kind):
    rng = J.rng
    n = rng.randrange(J.nn)
    lr = rng.randrange(8)
    g = J.grank(n, lr)
    stage = "training"
    t, its = run_to(J, stage, pick_it(J, stage))
    pid = J.pids[n][lr]
    P = ("[rank%d]: " % g) if J.fw == "mindspeed" else ""
    J.emit(n, lr, t + 1, P + "RuntimeError: npuSynchronizeDevice:torch_npu/csrc/core/npu/NPUStream.cpp:464 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is %s" % ("507054" if kind == "hbm" else "507015"))
    J.emit(n, lr, t + 1, P + "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed" % (J.ts(n, t + 1, "cannshort"), pid, lr, g))
    if kind == "hbm":
        J.emit(n, lr, t + 1, P + "[Error]: HBM MULTI BIT ECC ERROR. ", tag="e1")
        J.emit(n, lr, t + 1, P + "        Rectify the fault based on the error information in the ascend log.")
        J.emit(n, lr, t + 1, P + "EZ9999: Inner Error!")
        J.emit(n, lr, t + 1, P + "EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, there is an hbm multi-bit ecc error, address=0x%s.[FUNC:ProcessHbmMultiBitEccError][FILE:device_error_proc.cc][LINE:1412]" % (pid, J.ts(n, t + 1, "cann"), lr, rng.randint(1, 40), hx(rng, 10)[2:]), tag="e2")
        evs = [("e1", "HBM MULTI BIT ECC ERROR"), ("e2", "hbm multi-bit ecc error")]
        rc = "NPU %d on %s reported an uncorrectable multi-bit ECC error in HBM, which killed its rank; the other ranks then timed out in HCCL." % (lr, J.host(n))
        rem = "Isolate the NPU/node, run npu-smi/hardware diagnostics and replace the device if the HBM error recurs; resume from checkpoint."
        cat = ("hardware", "accelerator")
        acc = None
        fl = [(n, lr if J.layout != "pernode" else None)]
    else:
        J.emit(n, lr, t + 1, P + "[Error]: The vector core execution is abnormal. ")
        J.emit(n, lr, t + 1, P + "EZ9999: Inner Error!")
        J.emit(n, lr, t + 1, P + "EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, there is an exception of aivec error, core id is %d, error code = 0x800000, dump info: pc start: 0x12c0c%s, current: 0x12c0c%s, vec error info: 0x%s, mte error info: 0x%s, ifu error info: 0x2dffeebc4ffc0, ccu error info: 0x0, cube error info: 0, biu error info: 0, aic error mask: 0x65000200d000288, para base: 0x12c1003a8000.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1182]" % (
            pid, J.ts(n, t + 1, "cann"), lr, rng.randint(1, 40), rng.randint(0, 47), hx(rng, 7)[2:], hx(rng, 7)[2:], hx(rng, 10)[2:], hx(rng, 10)[2:]), tag="e1")
        J.emit(n, lr, t + 1, P + "        The extend info: errcode:(0x800000, 0x0, 0x0) errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x0, fixp_error1 info: 0x0, fsmId:0, tslot:3, thread:0, ctxid:0, blk:%d, sublk:0, subErrType:4.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1194]" % rng.randint(0, 40))
        J.emit(n, lr, t + 1, P + "        Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1232]")
        J.emit(n, lr, t + 1, P + "        AIV Kernel happen error, retCode=0x31.[FUNC:GetError][FILE:stream.cc][LINE:1082]")
        J.emit(n, lr, t + 1, P + "        [AIC_INFO] after execute:args print end[FUNC:GetError][FILE:stream.cc][LINE:1082]")
        J.emit(n, lr, t + 1, P + "        Aicore kernel execute failed, device_id=%d, stream_id=2, report_stream_id=2, task_id=%d, flip_num=%d, fault kernel_name=FlashAttentionScoreGrad_%s_high_performance_20000000, fault kernel info ext=none, program id=%d, hash=%d.[FUNC:GetError][FILE:stream.cc][LINE:1082]" % (lr, rng.randint(1000, 60000), rng.randint(0, 9), rng.randint(10 ** 8, 10 ** 9), rng.randint(10, 99), rng.randint(10 ** 17, 10 ** 18)), tag="e2")
        evs = [("e1", "there is an exception of aivec error"), ("e2", "Aicore kernel execute failed")]
        rc = "The FlashAttentionScoreGrad operator hit an out-of-range MTE address (aivec exception) on one NPU, an operator bug in this CANN/MindSpeed version triggered by the sequence layout."
        rem = "Upgrade CANN/the fused-attention kernel or switch off the fused operator for this shape; confirm with the operator dump before blaming the device."
        cat = ("framework", "framework_bug")
        acc = ["framework/framework_bug", "hardware/accelerator"]
        fl = []
    J.dead.add((n, lr))
    teardown(J, n, t + 4, [lr], exitcode=1)
    cascade_timeout(J, t, set(), op="AllReduce")
    return its, stage, F(cat[0], cat[1], "training_crash", fl, rc, rem, evs, accept=acc, hosts=[J.host(n)])


def f_hccl_link(J):
    rng = J.rng
    n = rng.randrange(J.nn)
    lr = rng.randrange(8)
    stage = "training"
    t, its = run_to(J, stage, pick_it(J, stage))
    evs = []
    if J.layout in ("pernode", "perrank"):
        for k in range(3):
            kern(J, n, t + 1 + k * 30, "[npu-health] device %d: hccn_tool -i %d -link -g : link status: DOWN (roce ip %s, up/down count %d)" % (lr, lr, "192.168.%d.%d" % (100 + lr, 10 + n), 3 + k), tag="e1")
        evs.append(("e1", "link status: DOWN"))
    g = J.grank(n, lr)
    pid = J.pids[n][lr]
    P = ("[rank%d]: " % g) if J.fw == "mindspeed" else ""
    J.emit(n, lr, t + 120, P + "EI0006: [PID: %d] %s Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck" % (pid, J.ts(n, t + 120, "cann")), tag="e2")
    J.emit(n, lr, t + 120, P + "        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default).")
    J.emit(n, lr, t + 120.1, P + "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (J.ts(n, t + 120, "cannshort"), pid, lr, g))
    evs.append(("e2", "Getting socket times out"))
    J.dead.add((n, lr))
    teardown(J, n, t + 125, [lr], exitcode=1)
    cascade_timeout(J, t, set(), op="AllReduce")
    rc = "The RoCE port of NPU %d on %s went down, so HCCL traffic through it stalled: that rank failed first with a socket timeout and all others hit notify-wait timeouts." % (lr, J.host(n))
    rem = "Check the NPU NIC/optical module and switch port (hccn_tool -link/-optical), replace the faulty part and rerun."
    return its, stage, F("hardware", "network", "training_crash", [(n, lr if J.layout != "pernode" else None)], rc, rem, evs, hosts=[J.host(n), J.ips[n]])


# ----------------------------------------------------------------------------
# settings and the case plan
# ----------------------------------------------------------------------------
SETTINGS = {
    "llama2-70b-megatron-slurm-cuda": dict(stack="cuda", fw="megatron", layout="console", naming="slurm-short", nodes=(4, 8), tp=8, pp=4, model="llama2-70b",
                                           script="pretrain_gpt.py", image="nvcr.io/nvidia/pytorch:24.03-py3", params=70_000_000_000, hidden=8192, layers=80),
    "gpt3-175b-megatron-cuda": dict(stack="cuda", fw="megatron", layout="pernode", naming="fqdn", nodes=(16, 32), tp=8, pp=8, ext=".out", model="gpt3-175b",
                                    script="pretrain_gpt.py", params=175_000_000_000, hidden=12288, layers=96, prefix="default"),
    "llama3-8b-fsdp-k8s-cuda": dict(stack="cuda", fw="fsdp", layout="pernode", naming="k8s-pytorchjob", nodes=(2, 4), tp=1, pp=1, prefix="default", model="llama3-8b",
                                    jobname="llama-pt", script="torchtitan/train.py", params=8_000_000_000, hidden=4096, layers=32),
    "qwen2-72b-sft-deepspeed-cuda": dict(stack="cuda", fw="deepspeed", layout="pernode", naming="volcano", nodes=(4, 8), tp=1, pp=1, model="qwen2-72b",
                                         jobname="qwen-sft", script="train_sft.py", params=72_000_000_000, hidden=8192, layers=80),
    "mistral-7b-accelerate-cuda": dict(stack="cuda", fw="accelerate", layout="pernode", naming="aws", nodes=(2, 4), tp=1, pp=1, model="mistral-7b", ext=".txt",
                                       script="finetune.py", params=7_000_000_000, hidden=4096, layers=32),
    "llama3-70b-fsdp-perrank-cuda": dict(stack="cuda", fw="fsdp", layout="perrank", naming="slurm-short", nodes=(2, 3), tp=1, pp=1, model="llama3-70b",
                                         script="torchtitan/train.py", params=70_000_000_000, hidden=8192, layers=80),
    "llama2-13b-mindspeed-ascend": dict(stack="ascend", fw="mindspeed", layout="pernode", naming="ip", nodes=(2, 8), tp=8, pp=2, model="llama2-13b",
                                        script="pretrain_gpt.py", params=13_000_000_000, hidden=5120, layers=40),
    "deepseek-67b-mindspeed-ascend-large": dict(stack="ascend", fw="mindspeed", layout="pernode", naming="ip", nodes=(16, 32), tp=8, pp=4, model="deepseek-67b",
                                                script="pretrain_gpt.py", params=67_000_000_000, hidden=8192, layers=95),
    "qwen-72b-mindspeed-rankdir-ascend": dict(stack="ascend", fw="mindspeed", layout="rankdir", naming="ascend-node", nodes=(2, 4), tp=8, pp=2, model="qwen-72b",
                                              script="pretrain_gpt.py", params=72_000_000_000, hidden=8192, layers=80),
    "llama2-7b-mindformers-ascend": dict(stack="ascend", fw="mindspore", layout="msrun", naming="ascend-node", nodes=(2, 4), tp=4, pp=2, model="llama2-7b",
                                         script="run_mindformer.py", params=7_000_000_000, hidden=4096, layers=32),
}

PLAN = [
    ("llama2-70b-megatron-slurm-cuda", "xid79"), ("llama2-70b-megatron-slurm-cuda", "node_lost"), ("llama2-70b-megatron-slurm-cuda", "badconfig_world"),
    ("llama2-70b-megatron-slurm-cuda", "preempt"), ("llama2-70b-megatron-slurm-cuda", "nan"),
    ("gpt3-175b-megatron-cuda", "xid48"), ("gpt3-175b-megatron-cuda", "ib"), ("gpt3-175b-megatron-cuda", "ib_peer"),
    ("gpt3-175b-megatron-cuda", "ckpt_full"), ("gpt3-175b-megatron-cuda", "divergent"),
    ("llama3-8b-fsdp-k8s-cuda", "xid94"), ("llama3-8b-fsdp-k8s-cuda", "nvlink"), ("llama3-8b-fsdp-k8s-cuda", "oom"),
    ("llama3-8b-fsdp-k8s-cuda", "hostoom"), ("llama3-8b-fsdp-k8s-cuda", "preempt"),
    ("qwen2-72b-sft-deepspeed-cuda", "overflow"), ("qwen2-72b-sft-deepspeed-cuda", "zero3"), ("qwen2-72b-sft-deepspeed-cuda", "nfs"),
    ("qwen2-72b-sft-deepspeed-cuda", "flash"),
    ("mistral-7b-accelerate-cuda", "scriptbug"), ("mistral-7b-accelerate-cuda", "driver"), ("mistral-7b-accelerate-cuda", "straggler"),
    ("llama3-70b-fsdp-perrank-cuda", "node_lost"), ("llama3-70b-fsdp-perrank-cuda", "badarg"),
    ("llama2-13b-mindspeed-ascend", "npu_hbm"), ("llama2-13b-mindspeed-ascend", "hccl_link"), ("llama2-13b-mindspeed-ascend", "ej0001"),
    ("llama2-13b-mindspeed-ascend", "preempt"), ("llama2-13b-mindspeed-ascend", "nfs"),
    ("deepseek-67b-mindspeed-ascend-large", "node_lost"), ("deepseek-67b-mindspeed-ascend-large", "npu_aicore"), ("deepseek-67b-mindspeed-ascend-large", "ckpt_full"),
    ("qwen-72b-mindspeed-rankdir-ascend", "oom"), ("qwen-72b-mindspeed-rankdir-ascend", "badconfig_world"),
    ("qwen-72b-mindspeed-rankdir-ascend", "hccl_undef"), ("qwen-72b-mindspeed-rankdir-ascend", "nan"),
    ("llama2-7b-mindformers-ascend", "oom"), ("llama2-7b-mindformers-ascend", "scriptbug"), ("llama2-7b-mindformers-ascend", "hal"),
    ("llama2-7b-mindformers-ascend", "npu_hbm"),
]

FAULTS = {
    "xid79": lambda J: f_xid(J, "79"), "xid48": lambda J: f_xid(J, "48"), "xid94": lambda J: f_xid(J, "94"), "nvlink": lambda J: f_xid(J, "nvlink"),
    "ib": lambda J: f_ib(J), "ib_peer": lambda J: f_ib(J, peer_only=True), "oom": f_oom, "nan": f_nan, "overflow": f_overflow,
    "badconfig_world": lambda J: f_badconfig(J, "world"), "badarg": lambda J: f_badconfig(J, "arg"), "scriptbug": f_scriptbug,
    "flash": lambda J: f_incompat(J, "flash"), "hccl_undef": lambda J: f_incompat(J, "hccl"),
    "driver": lambda J: f_node_env(J, "driver"), "hal": lambda J: f_node_env(J, "hal"), "ej0001": lambda J: f_node_env(J, "ej0001"),
    "ckpt_full": lambda J: f_ckpt(J, "full"), "nfs": lambda J: f_ckpt(J, "nfs"), "hostoom": f_hostoom, "node_lost": f_node_lost,
    "preempt": f_preempt, "straggler": f_straggler, "zero3": f_zero3, "divergent": f_divergent,
    "npu_hbm": lambda J: f_npu_hw(J, "hbm"), "npu_aicore": lambda J: f_npu_hw(J, "aicore"), "hccl_link": f_hccl_link,
}


def make_cfg(rng, setting, fault=None):
    s = dict(SETTINGS[setting])
    lo, hi = s.pop("nodes")
    nn = rng.choice([x for x in (2, 3, 4, 6, 8, 12, 16, 24, 32) if lo <= x <= hi])
    s["nnodes"] = nn
    s["setting"] = setting
    s["workdir"] = {"megatron": "/workspace/Megatron-LM", "mindspeed": "/home/ma-user/work/MindSpeed-LLM", "mindspore": "/home/ma-user/work/mindformers"}.get(s["fw"], "/workspace/train")
    s["log_interval"] = {"megatron": rng.choice([5, 10]), "mindspeed": rng.choice([1, 5]), "deepspeed": 10, "fsdp": rng.choice([5, 10]), "accelerate": 5, "mindspore": rng.choice([1, 2])}[s["fw"]]
    span = {"megatron": rng.randint(1500, 6000), "mindspeed": rng.randint(400, 1500), "deepspeed": rng.randint(800, 1500), "fsdp": rng.randint(600, 1500),
            "accelerate": rng.randint(500, 1500), "mindspore": rng.randint(300, 700)}[s["fw"]]
    s["resume"] = rng.random() < 0.6
    s["it0"] = rng.choice([1000, 2000, 5000, 12000]) if s["resume"] else 0
    s["train_iters"] = s["it0"] + span
    s["save_interval"] = rng.choice([100, 200, 250, 500]) if span > 1200 else rng.choice([50, 100, 200])
    s["save_s"] = rng.uniform(15, 90)
    s["it_s"] = rng.uniform(2.0, 12.0)
    s["gbs"] = rng.choice([256, 512, 1024, 2048])
    s["seq"] = rng.choice([2048, 4096, 8192])
    s["lr"] = rng.choice([3e-4, 1.5e-4, 2e-5, 1e-5])
    s["loss0"] = rng.uniform(2.2, 3.4)
    s["ckpt_dir"] = rng.choice(["/mnt/lustre/ckpt/%s" % s["model"], "/mnt/nfs/exp/%s/checkpoints" % s["model"], "/cache/ckpt/%s" % s["model"]])
    s["load_dir"] = "/mnt/models/%s-base" % s["model"]
    s["data_path"] = rng.choice(["/mnt/data/pile/pile_text_document", "/data/redpajama/rp_text_document", "/cache/dataset/wiki_zh_text_document"])
    s["dataset"] = "c4"
    s["nsamples"] = rng.randint(50000, 900000)
    s["shards"] = rng.choice([4, 15, 30, 37])
    s["nccl_timeout"] = rng.choice([600, 600, 1800])
    s.setdefault("image", "registry.local/llm/train:2024.04")
    if fault == "badconfig_world":
        # a world size that is not a multiple of tp*pp
        while (nn * 8) % (s["tp"] * s["pp"]) == 0:
            s["pp"] = s["pp"] * 2 + 1 if s["pp"] > 1 else 3
    return s


def strip_console(J, text):
    if J.layout == "console":
        i = text.find(": ")
        if i > 0 and text[:i].isdigit():
            return text[i + 2:]
    return text


def build_case(seed, idx, setting, fault, outroot):
    rng = random.Random("%d-%d-%s-%s" % (seed, idx, setting, fault))
    cfg = make_cfg(rng, setting, fault)
    J = Job(rng, cfg)
    its, stage, info = FAULTS[fault](J)
    case_id = "f%02d-%s-%s" % (idx, fault.replace("_", ""), setting.split("-")[0])
    cdir = os.path.join(outroot, "cases", case_id)
    if os.path.exists(cdir):
        shutil.rmtree(cdir)
    tagmap, first, total = render(J, os.path.join(cdir, "logs"))
    events = []
    patterns = {}
    for k, (tag, pat) in enumerate(info["events"], 1):
        if tag not in tagmap:
            continue
        eid = "e%d" % (len(events) + 1)
        events.append({"id": eid, "text": strip_console(J, first[tag][1]), "lines": {nd: ln for nd, ln in sorted(tagmap[tag].items())}})
        patterns[eid] = pat
    assert events, (case_id, "no fault event rendered")
    faulty = []
    for (n, lr) in info["faulty"]:
        for nm in node_names(J, n, lr):
            if nm not in faulty:
                faulty.append(nm)
    label = {"schema": "l4-label/1", "setting": setting, "stack": cfg["stack"], "category": info["category"], "subcategory": info["subcategory"],
             "symptom": info["symptom"], "faulty_nodes": faulty, "stage": stage, "iterations": its, "fault_events": events,
             "root_cause": info["root_cause"], "remediation": info["remediation"], "source": "independent generator F (gen.py, fault=%s)" % fault}
    if info.get("accept"):
        label["accept"] = info["accept"]
    if info.get("hosts") and faulty:
        txt = []
        for root, _, fs in os.walk(os.path.join(cdir, "logs")):
            for f in fs:
                txt.append(open(os.path.join(root, f)).read())
        txt = "\n".join(txt)
        hs = [h for h in dict.fromkeys(info["hosts"]) if h in txt]
        if hs:
            label["hosts"] = hs
    with open(os.path.join(cdir, "label.json"), "w") as f:
        json.dump(label, f, indent=2)
    return case_id, label, patterns, total, J


def build_normal(seed, setting, k, outroot):
    rng = random.Random("%d-normal-%s-%d" % (seed, setting, k))
    cfg = make_cfg(rng, setting)
    cfg["train_iters"] = cfg["it0"] + min(cfg["train_iters"] - cfg["it0"], rng.randint(300, 900))
    J = Job(rng, cfg)
    t = startup(J)
    t = training(J, t, cfg["train_iters"] - 1, {})
    finish_ok(J, t)
    job_id = "job-%d" % J.jobid
    d = os.path.join(outroot, "normal", setting, job_id)
    if os.path.exists(d):
        shutil.rmtree(d)
    render(J, os.path.join(d, "logs"))
    return job_id


# ----------------------------------------------------------------------------
# verification (re-reads every file from disk)
# ----------------------------------------------------------------------------
import re

CONS_RE = re.compile(r"^(\d+): ")


def read_job(logdir):
    """Node name -> list of (file, lineno, text), following the CONTRACTS rules."""
    files = []
    for root, _, fs in os.walk(logdir):
        for f in fs:
            if f.endswith((".log", ".out", ".txt")):
                files.append(os.path.join(root, f))
    base = {}
    for p in files:
        b = os.path.basename(p)
        for e in (".gz", ".log", ".out", ".txt"):
            if b.endswith(e):
                b = b[: -len(e)]
        base.setdefault(b, []).append(p)
    nodes = {}
    for b, ps in base.items():
        for p in ps:
            name = b if len(ps) == 1 else os.path.basename(os.path.dirname(p)) + "/" + b
            with open(p) as f:
                lines = f.read().split("\n")[:-1]
            cons = sum(1 for l in lines if CONS_RE.match(l)) > 0.5 * len(lines)
            for i, l in enumerate(lines, 1):
                nm = name
                if cons:
                    m = CONS_RE.match(l)
                    if m:
                        nm = "rank%s" % m.group(1)
                nodes.setdefault(nm, []).append((p, i, l))
    return nodes


def verify_case(cdir, patterns):
    label = json.load(open(os.path.join(cdir, "label.json")))
    nodes = read_job(os.path.join(cdir, "logs"))
    errs = []
    for nm in label["faulty_nodes"]:
        if nm not in nodes:
            errs.append("faulty node %s not a node" % nm)
    alltext = None
    if label.get("hosts"):
        alltext = "\n".join(l for v in nodes.values() for (_, _, l) in v)
        for h in label["hosts"]:
            if h not in alltext:
                errs.append("host alias %s not in logs" % h)
    nlabeled = 0
    for ev in label["fault_events"]:
        pat = patterns[ev["id"]]
        if pat not in ev["text"]:
            errs.append("%s text lacks pattern" % ev["id"])
        for nm, lns in ev["lines"].items():
            if nm not in nodes:
                errs.append("%s: node %s missing" % (ev["id"], nm))
                continue
            bynum = {i: l for (_, i, l) in nodes[nm]}
            for ln in lns:
                if ln not in bynum:
                    errs.append("%s: %s line %d not on that node" % (ev["id"], nm, ln))
                elif pat not in bynum[ln]:
                    errs.append("%s: %s line %d lacks pattern" % (ev["id"], nm, ln))
            allm = sorted(i for (_, i, l) in nodes[nm] if pat in l)
            if allm != sorted(lns):
                errs.append("%s: %s labeled %d lines, %d carry the pattern" % (ev["id"], nm, len(lns), len(allm)))
            nlabeled += len(lns)
    return errs, nlabeled, {k: len(v) for k, v in nodes.items()}


# ----------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--no-normal", action="store_true")
    a = ap.parse_args()
    out = a.out
    for sub in ("cases", "normal"):
        if os.path.exists(os.path.join(out, sub)):
            shutil.rmtree(os.path.join(out, sub))
    os.makedirs(os.path.join(out, "cases"), exist_ok=True)
    plan = list(PLAN)
    random.Random(a.seed).shuffle(plan)
    plan = plan[: a.cases]
    summary = []
    bad = 0
    for i, (setting, fault) in enumerate(plan, 1):
        cid, label, pats, total, J = build_case(a.seed, i, setting, fault, out)
        errs, nl, nodes = verify_case(os.path.join(out, "cases", cid), pats)
        # the faulty node should not trivially be the one with most error lines: report it
        summary.append((cid, label["category"] + "/" + label["subcategory"], J.nn, J.layout, total, nl, len(nodes), errs))
        if errs:
            bad += 1
    if not a.no_normal:
        settings = sorted(SETTINGS)
        rng = random.Random(a.seed + 99)
        for s in settings:
            if rng.random() < 0.55 or s in ("gpt3-175b-megatron-cuda", "llama2-13b-mindspeed-ascend"):
                for k in range(rng.choice([1, 2])):
                    build_normal(a.seed, s, k, out)
    for row in summary:
        print("%-40s %-34s nodes=%-3d %-8s lines=%-7d labeled=%-4d lognodes=%-4d %s" % (row[0], row[1], row[2], row[3], row[4], row[5], row[6], "OK" if not row[7] else "ERR " + "; ".join(row[7][:4])))
    print("cases: %d, with label errors: %d" % (len(summary), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
