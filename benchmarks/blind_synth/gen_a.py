#!/usr/bin/env python3
"""Independent generator of labeled failed distributed-LLM-training jobs.

Standard library only, deterministic for a given --seed.
Writes DATASET/cases/<id>/{logs/,label.json} and DATASET/normal/<setting>/<job>/logs/.
"""
import argparse
import datetime as dtm
import json
import os
import random
import shutil
import sys

# ----------------------------------------------------------------------------
# small helpers
# ----------------------------------------------------------------------------

GPU_BUS = ["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"]
NPU_BUS = ["c1", "c2", "81", "82", "01", "02", "41", "42"]


def hexid(rng, n=12):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


class Line:
    __slots__ = ("t", "lr", "text", "ev", "pfx")

    def __init__(self, t, lr, text, ev, pfx):
        self.t, self.lr, self.text, self.ev, self.pfx = t, lr, text, ev, pfx


class Node:
    def __init__(self, idx, host, ip, fname, skew, pid):
        self.idx, self.host, self.ip, self.fname = idx, host, ip, fname
        self.skew, self.pid = skew, pid


# ----------------------------------------------------------------------------
# settings: framework, stack, model, node naming, layout (fixed per setting)
# ----------------------------------------------------------------------------

SETTINGS = {
    "gpt3-175b-megatron-cuda": dict(fw="megatron", stack="cuda", model="gpt3-175b", nnodes=16,
                                     tp=8, pp=8, naming="gpu-a", layout="per_node", ext=".log",
                                     monitor=True, gpu="NVIDIA H100 80GB HBM3", launcher="torchrun"),
    "llama2-70b-megatron-cuda": dict(fw="megatron", stack="cuda", model="llama2-70b", nnodes=8,
                                      tp=8, pp=4, naming="dgx", layout="slurm", ext=".out",
                                      monitor=False, gpu="NVIDIA A100-SXM4-80GB", launcher="torchrun"),
    "llama-65b-megatron-cuda": dict(fw="megatron", stack="cuda", model="llama-65b", nnodes=32,
                                     tp=8, pp=4, naming="ip", layout="per_node", ext=".out",
                                     monitor=False, gpu="NVIDIA H800", launcher="torchrun"),
    "mixtral-8x7b-deepspeed-cuda": dict(fw="deepspeed", stack="cuda", model="mixtral-8x7b", nnodes=4,
                                         tp=1, pp=1, naming="worker", layout="per_node", ext=".txt",
                                         monitor=True, gpu="NVIDIA H100 80GB HBM3", launcher="deepspeed"),
    "deepseek-7b-deepspeed-cuda": dict(fw="deepspeed", stack="cuda", model="deepseek-llm-7b", nnodes=4,
                                        tp=1, pp=1, naming="node", layout="per_node_tee", ext=".out",
                                        monitor=False, gpu="NVIDIA A800-SXM4-80GB", launcher="torchrun"),
    "llama3-8b-fsdp-cuda": dict(fw="fsdp", stack="cuda", model="llama3-8b", nnodes=2,
                                tp=1, pp=1, naming="h100", layout="per_rank", ext=".log",
                                monitor=False, gpu="NVIDIA H100 80GB HBM3", launcher="torchrun"),
    "qwen-14b-hf-cuda": dict(fw="hf", stack="cuda", model="qwen-14b", nnodes=2,
                             tp=1, pp=1, naming="gpu-b", layout="console", ext=".log",
                             monitor=False, gpu="NVIDIA A100-SXM4-80GB", launcher="accelerate"),
    "qwen2-72b-mindspeed-ascend": dict(fw="mindspeed", stack="ascend", model="qwen2-72b", nnodes=8,
                                        tp=8, pp=4, naming="ascend", layout="per_node", ext=".log",
                                        monitor=True, gpu="Ascend910B3", launcher="torchrun"),
    "llama2-13b-mindspeed-ascend": dict(fw="mindspeed", stack="ascend", model="llama2-13b", nnodes=4,
                                         tp=4, pp=2, naming="ip", layout="per_node", ext=".log",
                                         monitor=False, gpu="Ascend910B2", launcher="torchrun"),
    "internlm-20b-mindspeed-ascend": dict(fw="mindspeed", stack="ascend", model="internlm-20b", nnodes=16,
                                           tp=8, pp=2, naming="cn-npu", layout="slurm", ext=".out",
                                           monitor=False, gpu="Ascend910B1", launcher="torchrun"),
    "pangu-38b-mindspore-ascend": dict(fw="mindspore", stack="ascend", model="pangu-38b", nnodes=4,
                                        tp=8, pp=2, naming="ms", layout="msrun", ext=".log",
                                        monitor=False, gpu="Ascend910B3", launcher="msrun"),
    "baichuan2-13b-hf-ascend": dict(fw="hf", stack="ascend", model="baichuan2-13b", nnodes=2,
                                     tp=1, pp=1, naming="npu-node", layout="per_node", ext=".txt",
                                     monitor=False, gpu="Ascend910B3", launcher="accelerate"),
}


def make_nodes(rng, S, nnodes):
    nodes = []
    base = rng.randint(1, 40)
    subnet = rng.randint(1, 30)
    second = rng.choice([0, 2, 10, 42])
    for i in range(nnodes):
        n = base + i
        ip = "10.%d.%d.%d" % (second, subnet + (10 + n) // 250, (10 + n) % 250)
        nm = S["naming"]
        if nm == "gpu-a":
            host = "gpu-a%02d" % n
            fname = host
        elif nm == "dgx":
            host = "dgx%03d" % (100 + n)
            fname = host
        elif nm == "ip":
            host = "ip-" + ip.replace(".", "-") if S["stack"] == "cuda" else "node%03d" % n
            fname = ip
        elif nm == "worker":
            host = "ip-" + ip.replace(".", "-")
            fname = "worker-%d" % i
        elif nm == "node":
            host = "sh-idc1-%s" % ip.replace(".", "-")
            fname = "node-%02d" % i
        elif nm == "h100":
            host = "h100-%03d" % n
            fname = host
        elif nm == "gpu-b":
            host = "gpu-b%02d" % n
            fname = host
        elif nm == "ascend":
            host = "ascend-910b-%02d" % n
            fname = host
        elif nm == "cn-npu":
            host = "cn-bj-npu-%04d" % (1000 + n)
            fname = host
        elif nm == "ms":
            host = "ms-train-%02d" % n
            fname = host
        else:
            host = "npu-node-%d" % i
            fname = host
        skew = rng.uniform(-1.5, 1.5)
        nodes.append(Node(i, host, ip, fname, skew, rng.randint(20000, 90000)))
    return nodes


# ----------------------------------------------------------------------------
# the simulated job
# ----------------------------------------------------------------------------

class Abort(Exception):
    pass


class Job:
    def __init__(self, rng, setting, S, nnodes, case_seed):
        self.rng = rng
        self.setting = setting
        self.S = S
        self.fw = S["fw"]
        self.stack = S["stack"]
        self.nn = nnodes
        self.W = nnodes * 8
        self.nodes = make_nodes(rng, S, nnodes)
        self.lines = [[] for _ in range(nnodes)]
        self.extra = {}   # extra files: name -> list of Line (launcher/scheduler)
        self.t0 = dtm.datetime(2024, rng.randint(1, 12), rng.randint(1, 28), rng.randint(0, 23),
                               rng.randint(0, 59), rng.randint(0, 59))
        self.tp, self.pp = S["tp"], S["pp"]
        self.dp = max(1, self.W // (self.tp * self.pp))
        self.gbs = self.dp * max(rng.choice([4, 8, 16]), rng.choice([256, 512, 1024]) // self.dp)
        self.total_iters = rng.choice([20000, 50000, 100000, 250000])
        self.start_iter = rng.choice([0, 0, 1000, 2000, 5000, 12000])
        self.log_interval = rng.choice([1, 1, 5, 10]) if self.fw in ("megatron", "mindspeed") else rng.choice([1, 5, 10])
        self.save_interval = rng.choice([100, 200, 250, 500])
        self.iter_time = rng.uniform(1.5, 9.0)
        self.loss = rng.uniform(2.2, 3.4) if self.start_iter else rng.uniform(9.5, 11.0)
        self.seq = rng.randint(50, 400)
        self.job_id = rng.randint(100000, 999999)
        self.master = self.nodes[0]
        self.ckpt_dir = rng.choice(["/mnt/ckpt/%s" % S["model"], "/nfs/exp/%s/checkpoints" % S["model"],
                                    "/data/shared/ckpt/%s-run%d" % (S["model"], rng.randint(1, 9))])
        self.ifname = rng.choice(["eth0", "bond0", "ens12f0np0"]) if self.stack == "cuda" else rng.choice(["enp189s0f0", "eth0"])
        self.torch_ver = rng.choice(["2.3.1", "2.4.0", "2.5.1"]) if self.stack == "cuda" else rng.choice(["2.1.0", "2.4.0"])
        self.ended = [False] * nnodes   # node stops logging
        self.console_lines = []         # unprefixed launcher/scheduler lines (console layouts)
        self.stopped_at = None

    # -- time formats ---------------------------------------------------------
    def clk(self, n, t):
        return self.t0 + dtm.timedelta(seconds=t + self.nodes[n].skew)

    def ts_br(self, n, t):
        d = self.clk(n, t)
        return "[%s,%03d]" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000)

    def ts_plain(self, n, t):
        return self.clk(n, t).strftime("%Y-%m-%d %H:%M:%S")

    def ts_iso(self, n, t):
        d = self.clk(n, t)
        return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%03dZ" % (d.microsecond // 1000)

    def ts_glog(self, n, t, lvl="I"):
        d = self.clk(n, t)
        return "%s%s.%06d" % (lvl, d.strftime("%m%d %H:%M:%S"), d.microsecond)

    def ts_glog9(self, n, t, lvl="E"):
        d = self.clk(n, t)
        return "%s%s.%06d%03d" % (lvl, d.strftime("%m%d %H:%M:%S"), d.microsecond, (int(t * 1e6) % 997))

    def ts_cann(self, n, t):
        d = self.clk(n, t)
        us = d.microsecond
        return "%s.%03d.%03d" % (d.strftime("%Y-%m-%d-%H:%M:%S"), us // 1000, us % 1000)

    def ts_hf(self, n, t):
        d = self.clk(n, t)
        return "%s,%03d" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000)

    def ts_dmesg(self, n, t):
        return self.clk(n, t).strftime("[%a %b %d %H:%M:%S %Y]").replace(" 0", "  ", 1) if False else self.clk(n, t).strftime("[%a %b %d %H:%M:%S %Y]")

    # -- emit -------------------------------------------------------------------
    def emit(self, n, t, text, lr=None, ev=None, pfx=False):
        if self.ended[n]:
            return
        for i, part in enumerate(text.split("\n")):
            self.lines[n].append(Line(t, lr, part, ev if i == 0 else None, pfx))

    def console(self, t, text, ev=None):
        self.console_lines.append(Line(t, None, text, ev, False))

    def g(self, n, lr):
        return n * 8 + lr

    def nccl(self, n, lr, msg, kind="INFO", t=None, ev=None, src=None):
        nd = self.nodes[n]
        pid = nd.pid + lr
        head = "%s:%d:%d [%d]" % (nd.host, pid, pid + (0 if src is None else 57), lr)
        if src:
            head += " " + src
        self.emit(n, t, "%s NCCL %s %s" % (head, kind, msg), lr, ev)

    # ==========================================================================
    # phases
    # ==========================================================================
    def run(self, fault):
        self.fault = fault
        t = 0.0
        try:
            t = self.phase_launch(t)
            t = self.phase_env(t)
            if fault and fault.run_stage == "init":
                fault.inject(self, t + self.rng.uniform(5, 40))
                raise Abort()
            t = self.phase_dist_init(t)
            if fault and fault.run_stage == "init_late":
                fault.inject(self, t + self.rng.uniform(1, 5))
                raise Abort()
            t = self.phase_model(t)
            if fault and fault.run_stage == "model_loading":
                fault.inject(self, t + self.rng.uniform(3, 60))
                raise Abort()
            t = self.phase_ckpt_load(t)
            if fault and fault.run_stage == "ckpt_loading":
                fault.inject(self, t + self.rng.uniform(3, 60))
                raise Abort()
            t = self.phase_data(t)
            if fault and fault.run_stage == "data_loading":
                fault.inject(self, t + self.rng.uniform(1, 20))
                raise Abort()
            t = self.phase_train(t, fault)
            if fault is None:
                self.phase_finish(t)
        except Abort:
            pass

    # -- launcher --------------------------------------------------------------
    def phase_launch(self, t):
        S = self.S
        for n, nd in enumerate(self.nodes):
            tt = t + self.rng.uniform(0, 3)
            pid = nd.pid - 40
            if S["launcher"] == "torchrun" or S["launcher"] == "accelerate":
                if S["launcher"] == "accelerate":
                    self.emit(n, tt, "The following values were not passed to `accelerate launch` and had defaults used instead:")
                    self.emit(n, tt, "\t`--dynamo_backend` was set to a value of `'no'`")
                    self.emit(n, tt, "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.")
                self.emit(n, tt, "%s %d torch/distributed/run.py:793] " % (self.ts_glog(n, tt, "W"), pid))
                self.emit(n, tt, "%s %d torch/distributed/run.py:793] *****************************************" % (self.ts_glog(n, tt, "W"), pid))
                self.emit(n, tt, "%s %d torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % (self.ts_glog(n, tt, "W"), pid))
                self.emit(n, tt, "%s %d torch/distributed/run.py:793] *****************************************" % (self.ts_glog(n, tt, "W"), pid))
                tt += self.rng.uniform(0.5, 2)
                self.emit(n, tt, "%s %d torch/distributed/elastic/agent/server/api.py:677] [default] starting workers for entrypoint: python" % (self.ts_glog(n, tt), pid))
                self.emit(n, tt, "%s %d torch/distributed/elastic/agent/server/api.py:525] [default] Rendezvous complete for workers. Result:" % (self.ts_glog(n, tt), pid))
                self.emit(n, tt, "  restart_count=0\n  master_addr=%s\n  master_port=%d\n  group_rank=%d\n  group_world_size=%d\n  local_ranks=[0, 1, 2, 3, 4, 5, 6, 7]\n  role_ranks=%s\n  global_ranks=%s\n  role_world_sizes=%s\n  global_world_sizes=%s\n"
                          % (self.master.host, 29500, n, self.nn, list(range(n * 8, n * 8 + 8)), list(range(n * 8, n * 8 + 8)), [self.W] * 8, [self.W] * 8))
                self.emit(n, tt, "%s %d torch/distributed/elastic/agent/server/local_elastic_agent.py:236] Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not use FileTimer." % (self.ts_glog(n, tt), pid))
            elif S["launcher"] == "deepspeed":
                ts = self.ts_br(n, tt)
                self.emit(n, tt, "%s [INFO] [real_accelerator.py:203:get_accelerator] Setting ds_accelerator to cuda (auto detect)" % ts)
                self.emit(n, tt, "%s [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}" % (ts, ", ".join("'%s': [0, 1, 2, 3, 4, 5, 6, 7]" % x.host for x in self.nodes)))
                self.emit(n, tt, "%s [INFO] [launch.py:152:main] nnodes=%d, num_local_procs=8, node_rank=%d" % (ts, self.nn, n))
                self.emit(n, tt, "%s [INFO] [launch.py:163:main] global_rank_mapping=defaultdict(<class 'list'>, {%s})" % (ts, ", ".join("'%s': %s" % (x.host, list(range(x.idx * 8, x.idx * 8 + 8))) for x in self.nodes)))
                self.emit(n, tt, "%s [INFO] [launch.py:164:main] dist_world_size=%d" % (ts, self.W))
                self.emit(n, tt, "%s [INFO] [launch.py:166:main] Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7" % ts)
                self.emit(n, tt, "%s [INFO] [launch.py:256:main] process %d spawned with command: ['/usr/bin/python', '-u', 'train.py', '--local_rank=0', '--deepspeed', 'ds_z3.json']" % (ts, nd.pid))
            elif S["launcher"] == "msrun":
                pass
        return t + 4

    def phase_env(self, t):
        S = self.S
        for n, nd in enumerate(self.nodes):
            tt = t + self.rng.uniform(0, 1)
            lr = 0 if S["layout"] in ("per_rank", "msrun") else None
            self.emit(n, tt, "==== job %d node %d/%d host %s (%s) ====" % (self.job_id, n, self.nn, nd.host, nd.ip), lr)
            if self.stack == "cuda":
                envs = ["NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7",
                        "NCCL_SOCKET_IFNAME=%s" % self.ifname, "NCCL_IB_GID_INDEX=3", "NCCL_IB_TIMEOUT=22",
                        "NCCL_DEBUG=INFO", "CUDA_DEVICE_MAX_CONNECTIONS=1", "TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
                        "MASTER_ADDR=%s" % self.master.host, "MASTER_PORT=29500", "WORLD_SIZE=%d" % self.W,
                        "NNODES=%d" % self.nn, "NODE_RANK=%d" % n, "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"]
            else:
                envs = ["ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", "HCCL_CONNECT_TIMEOUT=1200",
                        "HCCL_EXEC_TIMEOUT=1800", "HCCL_IF_IP=%s" % nd.ip, "HCCL_SOCKET_IFNAME=%s" % self.ifname,
                        "ASCEND_GLOBAL_LOG_LEVEL=3", "ASCEND_GLOBAL_EVENT_ENABLE=0", "TASK_QUEUE_ENABLE=2",
                        "COMBINED_ENABLE=1", "CPU_AFFINITY_CONF=1", "MASTER_ADDR=%s" % self.master.ip,
                        "MASTER_PORT=6000", "NNODES=%d" % self.nn, "NODE_RANK=%d" % n,
                        "ASCEND_HOME_PATH=/usr/local/Ascend/ascend-toolkit/latest"]
            self.rng.shuffle(envs)
            for e in envs:
                self.emit(n, tt, "+ export " + e, lr)
            if self.stack == "cuda":
                if self.rng.random() < 0.6:
                    for k in range(8):
                        self.emit(n, tt, "GPU %d: %s (UUID: GPU-%s-%s-%s)" % (k, S["gpu"], hexid(self.rng, 8), hexid(self.rng, 4), hexid(self.rng, 12)), lr)
            else:
                self.emit(n, tt, "+------------------------------------------------------------------------------------------------+", lr)
                self.emit(n, tt, "| npu-smi 23.0.6                   Version: 23.0.6                                               |", lr)
                self.emit(n, tt, "+---------------------------+---------------+----------------------------------------------------+", lr)
                for k in range(8):
                    self.emit(n, tt, "| %-5d %-19s | OK            | %-11.1f %-17d 0    / 0             |" % (k, S["gpu"].replace("Ascend", ""), self.rng.uniform(88, 102), self.rng.randint(34, 41)), lr)
                    self.emit(n, tt, "| 0                         | 0000:%s:00.0  | 0           0    / 0          %-5d/ 65536         |" % (NPU_BUS[k].upper(), self.rng.randint(2800, 3500)), lr)
                self.emit(n, tt, "+===========================+===============+====================================================+", lr)
        return t + 3

    # -- distributed init ----------------------------------------------------------
    def phase_dist_init(self, t):
        rng = self.rng
        for n, nd in enumerate(self.nodes):
            for lr in range(8):
                tt = t + rng.uniform(2, 8)
                g = self.g(n, lr)
                if self.fw == "mindspore":
                    continue
                if n > 0 and lr == 0 and rng.random() < 0.35:
                    for k in range(rng.randint(1, 3)):
                        self.emit(n, tt, "[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:29500 (errno: 111 - Connection refused)." % self.master.host, lr)
                        tt += 1
                if self.stack == "cuda":
                    if g == 0:
                        self.emit(n, tt, "NCCL version 2.20.5+cuda12.4", lr)
                    self.nccl(n, lr, "Bootstrap : Using %s:%s<0>" % (self.ifname, nd.ip), t=tt)
                    self.nccl(n, lr, "NET/Plugin: No plugin found (libnccl-net.so)", t=tt)
                    self.nccl(n, lr, "NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory : when loading libnccl-net.so", t=tt)
                    self.nccl(n, lr, "cudaDriverVersion 12040", t=tt)
                    self.nccl(n, lr, "NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB [2]mlx5_2:1/IB [3]mlx5_3:1/IB [4]mlx5_4:1/IB [5]mlx5_5:1/IB [6]mlx5_6:1/IB [7]mlx5_7:1/IB [RO]; OOB %s:%s<0>" % (self.ifname, nd.ip), t=tt)
                    self.nccl(n, lr, "Using non-device net plugin version 0", t=tt)
                    self.nccl(n, lr, "Using network IB", t=tt)
                    cid = hexid(rng, 16)
                    self.nccl(n, lr, "comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init START" % (hexid(rng, 8), g, self.W, lr, lr, GPU_BUS[lr], cid), t=tt)
                    self.nccl(n, lr, "Setting affinity for GPU %d to %s" % (lr, "ffffffff,00000000,ffffffff" if lr < 4 else "ffffffff,00000000,ffffffff,00000000"), t=tt)
                    if rng.random() < 0.08:
                        self.nccl(n, lr, "NET/IB : GPU Direct RDMA Disabled for HCA %d 'mlx5_%d' (no module)" % (lr, lr), kind="WARN", t=tt, src="transport/net_ib.cc:543")
                    for ch in range(0, 4):
                        self.nccl(n, lr, "Channel %02d/24 :    %s" % (ch, " ".join(str(x) for x in range(0, min(self.W, 16)))), t=tt)
                    self.nccl(n, lr, "Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % ((g + 1) % self.W, g, (g - 1) % self.W, (g + 1) % self.W, g, (g - 1) % self.W), t=tt)
                    self.nccl(n, lr, "P2P Chunksize set to 131072", t=tt)
                    self.nccl(n, lr, "Connected all rings", t=tt + 1)
                    self.nccl(n, lr, "Connected all trees", t=tt + 1)
                    self.nccl(n, lr, "threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (self.W * 8), t=tt + 1)
                    self.nccl(n, lr, "24 coll channels, 0 collnet channels, 0 nvls channels, 32 p2p channels, 32 p2p channels per peer", t=tt + 1)
                    self.nccl(n, lr, "comm 0x%s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init COMPLETE" % (hexid(rng, 8), g, self.W, lr, lr, GPU_BUS[lr], cid), t=tt + 1.5)
                else:
                    if rng.random() < 0.5:
                        self.emit(n, tt, "/usr/local/python3.9/lib/python3.9/site-packages/torch_npu/utils/path_manager.py:79: UserWarning: Warning: The /usr/local/Ascend/ascend-toolkit/latest owner does not match the current owner.", lr)
                        self.emit(n, tt, "  warnings.warn(f\"Warning: The {path} owner does not match the current owner.\")", lr)
                    self.emit(n, tt, "[rank%d] torch_npu %s / CANN 8.0.RC2: set device npu:%d (phy %d), HCCL backend" % (g, self.torch_ver, lr, lr), lr)
                    self.emit(n, tt + 1, "[W compiler_depend.ts:%d] Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())" % rng.choice([133, 147]), lr)
        return t + 10

    # -- model building ------------------------------------------------------------
    def megatron_args(self, n, t):
        S = self.S
        args = {
            "accumulate_allreduce_grads_in_fp32": "False", "adam_beta1": "0.9", "adam_beta2": "0.95",
            "adam_eps": "1e-08", "attention_dropout": "0.0", "bf16": "True", "clip_grad": "1.0",
            "data_path": "['/data/tokenized/%s_text_document']" % S["model"].split("-")[0],
            "distributed_backend": "nccl" if self.stack == "cuda" else "hccl",
            "eval_interval": "1000", "eval_iters": "10", "ffn_hidden_size": str(self.rng.choice([11008, 13824, 28672, 49152])),
            "global_batch_size": str(self.gbs), "hidden_size": str(self.rng.choice([4096, 5120, 8192, 12288])),
            "log_interval": str(self.log_interval), "lr": "0.0003", "lr_decay_style": "cosine",
            "lr_warmup_iters": "2000", "micro_batch_size": "1", "min_lr": "3e-05",
            "num_attention_heads": str(self.rng.choice([32, 40, 64, 96])), "num_layers": str(self.rng.choice([32, 40, 80, 96])),
            "pipeline_model_parallel_size": str(self.pp), "save": self.ckpt_dir, "load": self.ckpt_dir,
            "save_interval": str(self.save_interval), "seq_length": str(self.rng.choice([2048, 4096, 8192])),
            "sequence_parallel": "True", "tensor_model_parallel_size": str(self.tp), "tokenizer_type": "Llama2Tokenizer",
            "train_iters": str(self.total_iters), "use_distributed_optimizer": "True", "use_flash_attn": "True",
            "weight_decay": "0.1", "world_size": str(self.W), "recompute_granularity": "None",
            "overlap_grad_reduce": "True", "overlap_param_gather": "True", "num_workers": "2",
            "distributed_timeout_minutes": "10" if self.stack == "cuda" else "30", "seed": "1234",
        }
        self.emit(n, t, "using world size: %d, data-parallel size: %d, context-parallel size: 1 tensor-model-parallel size: %d, pipeline-model-parallel size: %d " % (self.W, self.dp, self.tp, self.pp), 0)
        self.emit(n, t, "------------------------ arguments ------------------------", 0)
        for k in sorted(args):
            self.emit(n, t, "  %s %s %s" % (k, "." * max(3, 48 - len(k)), args[k]), 0)
        self.emit(n, t, "-------------------- end of arguments ---------------------", 0)

    def phase_model(self, t):
        rng = self.rng
        fw = self.fw
        last = self.nn - 1
        if fw in ("megatron", "mindspeed"):
            self.megatron_args(0, t)
            self.emit(0, t + 1, "> building Llama2Tokenizer tokenizer ...", 0)
            self.emit(0, t + 1, " > padded vocab (size: 32000) with 0 dummy tokens (new size: 32000)", 0)
            self.emit(0, t + 1, "> initializing torch distributed ...", 0)
            self.emit(0, t + 3, "> initialized tensor model parallel with size %d" % self.tp, 0)
            self.emit(0, t + 3, "> initialized pipeline model parallel with size %d" % self.pp, 0)
            self.emit(0, t + 3, "> setting random seeds to 1234 ...", 0)
            self.emit(0, t + 3, "> compiling dataset index builder ...", 0)
            self.emit(0, t + 3, "make: Entering directory '/workspace/Megatron-LM/megatron/core/datasets'\nmake: Nothing to be done for 'default'.\nmake: Leaving directory '/workspace/Megatron-LM/megatron/core/datasets'", 0)
            self.emit(0, t + 3, ">>> done with dataset index builder. Compilation time: %.3f seconds" % rng.uniform(0.03, 0.2), 0)
            if fw == "mindspeed":
                for n in range(self.nn):
                    self.emit(n, t + 4, "/usr/local/python3.9/lib/python3.9/site-packages/mindspeed/core/transformer/moe/grouped_gemm_util.py:23: UserWarning: Grouped gemm is not available, please run `pip install git+https://github.com/fanshiqing/grouped_gemm@v1.0`.", 0)
            self.emit(0, t + 6, "time to initialize megatron (seconds): %.3f" % rng.uniform(20, 90), 0)
            self.emit(0, t + 6, "[after megatron is initialized] datetime: %s " % self.ts_plain(0, t + 6), 0)
            self.emit(0, t + 7, "building GPT model ...", 0)
            # (tp, pp) ranks with dp rank 0 print their parameter count
            for pr in range(self.pp):
                for tr in range(self.tp):
                    g = pr * (self.W // self.pp) + tr
                    n, lr = divmod(g, 8)
                    if n < self.nn:
                        self.emit(n, t + 8 + rng.uniform(0, 2), " > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (tr, pr, rng.randint(800_000_000, 1_900_000_000)), lr)
            for n in range(self.nn):
                if rng.random() < 0.5:
                    for lr in range(8):
                        self.emit(n, t + 9, "/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/attention.py:5283: UserWarning: window_size should be (-1, -1) or (>=0, >=0) for attn_mask_type=causal\n  warnings.warn(" if self.stack == "cuda" else
                                  "/usr/local/python3.9/lib/python3.9/site-packages/torch/distributed/distributed_c10d.py:3049: FutureWarning: `torch.distributed._all_gather_base` is a private function and will be deprecated. Please use `torch.distributed.all_gather_into_tensor` instead.\n  warnings.warn(", lr)
            self.emit(0, t + 10, "> learning rate decay style: cosine", 0)
            return t + 12
        if fw == "deepspeed":
            for n in range(self.nn):
                for lr in range(8):
                    ts = self.ts_br(n, t + rng.uniform(0, 2))
                    self.emit(n, t, "%s [INFO] [comm.py:637:init_distributed] cdb=None" % ts, lr)
            self.emit(0, t + 1, "%s [INFO] [comm.py:668:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl" % self.ts_br(0, t + 1), 0)
            self.emit(0, t + 5, "%s [INFO] [logging.py:96:log_dist] [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown" % self.ts_br(0, t + 5), 0)
            self.emit(0, t + 5, "%s [INFO] [config.py:733:__init__] Config mesh_device None world_size = %d" % (self.ts_br(0, t + 5), self.W), 0)
            for n in range(self.nn):
                for lr in range(8):
                    self.emit(n, t + 20, "Loading checkpoint shards: 100%%|##########| %d/%d [00:%02d<00:00,  %.2fs/it]" % (8, 8, rng.randint(10, 50), rng.uniform(1, 6)), lr)
            self.emit(0, t + 25, "%s [INFO] [logging.py:96:log_dist] [Rank 0] Creating ZeRO stage 3 optimizer" % self.ts_br(0, t + 25), 0)
            self.emit(0, t + 25, "%s [INFO] [stage3.py:130:__init__] Reduce bucket size 500000000" % self.ts_br(0, t + 25), 0)
            self.emit(0, t + 25, "%s [INFO] [stage3.py:131:__init__] Prefetch bucket size 50000000" % self.ts_br(0, t + 25), 0)
            self.emit(0, t + 28, "Parameter Offload: Total persistent parameters: %d in %d params" % (rng.randint(200000, 2000000), rng.randint(100, 400)), 0)
            cfg = ["activation_checkpointing_config  {'partition_activations': False, 'contiguous_memory_optimization': False}",
                   "bfloat16_enabled ............. True", "gradient_accumulation_steps .. %d" % rng.choice([1, 2, 4]),
                   "gradient_clipping ............ 1.0", "steps_per_print .............. %d" % self.log_interval,
                   "train_batch_size ............. %d" % self.gbs, "train_micro_batch_size_per_gpu  %d" % rng.choice([1, 2, 4]),
                   "wall_clock_breakdown ......... False", "zero_enabled ................. True",
                   "zero_optimization_stage ...... 3", "zero_allow_untested_optimizer  False",
                   "communication_data_type ...... None", "fp16_enabled ................. False"]
            self.emit(0, t + 30, "%s [INFO] [config.py:997:print] DeepSpeedEngine configuration:" % self.ts_br(0, t + 30), 0)
            for c in cfg:
                self.emit(0, t + 30, "%s [INFO] [config.py:1001:print]   %s" % (self.ts_br(0, t + 30), c), 0)
            return t + 32
        if fw == "fsdp":
            for n in range(self.nn):
                for lr in range(8):
                    g = self.g(n, lr)
                    tt = t + rng.uniform(0, 3)
                    self.emit(n, tt, "%s | INFO | rank %d | building %s with FSDP(FULL_SHARD), mixed precision bf16, activation checkpointing on" % (self.ts_iso(n, tt), g, self.S["model"]), lr)
                    self.emit(n, tt + 20, "%s | INFO | rank %d | model params: 8.03B, sharded %.2fM on this rank" % (self.ts_iso(n, tt + 20), g, 8030.0 / self.W), lr)
                    self.emit(n, tt + 20, "/usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/_init_utils.py:440: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1." if False else
                              "/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:1399: FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast('cpu', args...)` instead.", lr)
            return t + 25
        if fw == "hf":
            for n in range(self.nn):
                for lr in range(8):
                    tt = t + rng.uniform(0, 2)
                    if lr == 0 or self.S["layout"] == "console":
                        self.emit(n, tt, "%s - INFO - __main__ - Process rank: %d, device: %s:%d, n_gpu: 1, distributed training: True, 16-bits training: False" % (self.clk(n, tt).strftime("%m/%d/%Y %H:%M:%S"), self.g(n, lr), "cuda" if self.stack == "cuda" else "npu", lr), lr)
            self.emit(0, t + 2, "[INFO|configuration_utils.py:731] %s >> loading configuration file /models/%s/config.json" % (self.ts_hf(0, t + 2), self.S["model"]), 0)
            self.emit(0, t + 2, "[INFO|modeling_utils.py:3474] %s >> loading weights file /models/%s/model.safetensors.index.json" % (self.ts_hf(0, t + 2), self.S["model"]), 0)
            for n in range(self.nn):
                for lr in range(8):
                    if lr == 0 or self.S["layout"] == "console" or n == 0:
                        self.emit(n, t + 30, "Loading checkpoint shards: 100%%|##########| 6/6 [00:%02d<00:00,  %.2fs/it]" % (rng.randint(10, 40), rng.uniform(2, 7)), lr)
            self.emit(0, t + 31, "[INFO|modeling_utils.py:4280] %s >> All model checkpoint weights were used when initializing %s." % (self.ts_hf(0, t + 31), "QWenLMHeadModel" if "qwen" in self.S["model"] else "BaichuanForCausalLM"), 0)
            return t + 32
        if fw == "mindspore":
            for n in range(self.nn):
                for lr in range(8):
                    tt = t + rng.uniform(0, 3)
                    pid = self.nodes[n].pid + lr
                    self.emit(n, tt, "[WARNING] ME(%d:%d,MainProcess):%s [mindspore/run_check/_check_version.py:375] MindSpore version 2.3.0 and Ascend AI software package (Ascend Data Center Solution)version 7.3 does not match, the version of software package expect one of ['7.2']. Please refer to the match info on: https://www.mindspore.cn/install" % (pid, 281473000000000 + pid, self.ts_cann(n, tt)), lr)
                    self.emit(n, tt + 1, "[WARNING] DISTRIBUTED(%d,ffff%s,python):%s [mindspore/ccsrc/distributed/collective/collective_manager.cc:281] CreateCommunicationGroup] Start to create communication group: hccl_world_group [const vector]{%s}" % (pid, hexid(self.rng, 8), self.ts_cann(n, tt + 1), ", ".join(str(x) for x in range(min(self.W, 32)))), lr)
                    self.emit(n, tt + 5, "[WARNING] DISTRIBUTED(%d,ffff%s,python):%s [mindspore/ccsrc/distributed/collective/collective_manager.cc:359] CreateCommunicationGroup] End to create communication group: hccl_world_group" % (pid, hexid(self.rng, 8), self.ts_cann(n, tt + 5)), lr)
                    self.emit(n, tt + 6, "%s - mindformers[mindformers/models/modeling_utils.py:1437] - INFO - model built, total params %s" % (self.ts_hf(n, tt + 6), "38.2B"), lr)
            return t + 12
        return t

    def phase_ckpt_load(self, t):
        rng = self.rng
        fw = self.fw
        if self.start_iter == 0:
            if fw in ("megatron", "mindspeed"):
                self.emit(0, t, "WARNING: could not find the metadata file %s/latest_checkpointed_iteration.txt " % self.ckpt_dir, 0)
                self.emit(0, t, "    will not load any checkpoints and will start from random", 0)
            return t + 1
        if fw in ("megatron", "mindspeed"):
            self.emit(0, t, " loading checkpoint from %s at iteration %d" % (self.ckpt_dir, self.start_iter), 0)
            self.emit(0, t, " checkpoint version 3.0", 0)
            t2 = t + rng.uniform(20, 120)
            self.emit(0, t2, "  successfully loaded checkpoint from %s [ t 1/%d, p 1/%d ] at iteration %d" % (self.ckpt_dir, self.tp, self.pp, self.start_iter), 0)
            self.emit(0, t2, "(min, max) time across ranks (ms):", 0)
            self.emit(0, t2, "    load-checkpoint ................................: (%.2f, %.2f)" % ((t2 - t) * 1000 - 500, (t2 - t) * 1000), 0)
            self.emit(0, t2, "[after model, optimizer, and learning rate scheduler are built] datetime: %s " % self.ts_plain(0, t2), 0)
            return t2 + 1
        if fw == "deepspeed":
            for n in range(self.nn):
                for lr in range(8):
                    tt = t + rng.uniform(1, 30)
                    self.emit(n, tt, "%s [INFO] [torch_checkpoint_engine.py:27:load] [Torch] Loading checkpoint from %s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt..." % (self.ts_br(n, tt), self.ckpt_dir, self.start_iter, self.g(n, lr)), lr)
                    self.emit(n, tt + 5, "%s [INFO] [torch_checkpoint_engine.py:29:load] [Torch] Loaded checkpoint from %s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt." % (self.ts_br(n, tt + 5), self.ckpt_dir, self.start_iter, self.g(n, lr)), lr)
            self.emit(0, t + 40, "%s [INFO] [engine.py:3152:_get_all_zero_checkpoint_state_dicts] successfully read %d ZeRO state_dicts for rank 0" % (self.ts_br(0, t + 40), self.W), 0)
            return t + 42
        if fw == "fsdp":
            for n in range(self.nn):
                for lr in range(8):
                    tt = t + rng.uniform(1, 30)
                    self.emit(n, tt, "%s | INFO | rank %d | loading sharded state dict from %s/step_%d (dcp)" % (self.ts_iso(n, tt), self.g(n, lr), self.ckpt_dir, self.start_iter), lr)
                    self.emit(n, tt + 10, "%s | INFO | rank %d | resumed from step %d" % (self.ts_iso(n, tt + 10), self.g(n, lr), self.start_iter), lr)
            return t + 45
        if fw == "hf":
            self.emit(0, t, "[INFO|trainer.py:2284] %s >>   Continuing training from checkpoint, will skip to saved global_step" % self.ts_hf(0, t), 0)
            self.emit(0, t, "[INFO|trainer.py:2285] %s >>   Continuing training from global step %d" % (self.ts_hf(0, t), self.start_iter), 0)
            return t + 10
        if fw == "mindspore":
            for n in range(self.nn):
                for lr in range(8):
                    tt = t + rng.uniform(1, 40)
                    self.emit(n, tt, "%s - mindformers[mindformers/trainer/utils.py:321] - INFO - .........Loading checkpoint: %s/rank_%d/pangu_rank_%d-%d_1.ckpt" % (self.ts_hf(n, tt), self.ckpt_dir, self.g(n, lr), self.g(n, lr), self.start_iter), lr)
                    self.emit(n, tt + 15, "%s - mindformers[mindformers/trainer/utils.py:340] - INFO - Network parameters are not loaded: ([], [])" % self.ts_hf(n, tt + 15), lr)
            return t + 60
        return t

    def phase_data(self, t):
        fw = self.fw
        rng = self.rng
        if fw in ("megatron", "mindspeed"):
            self.emit(0, t, "> building train, validation, and test datasets ...", 0)
            self.emit(0, t, " > datasets target sizes (minimum size):", 0)
            self.emit(0, t, "    train:      %d" % (self.total_iters * self.gbs), 0)
            self.emit(0, t, "    validation: %d" % ((self.total_iters // 1000 + 1) * 10 * self.gbs), 0)
            self.emit(0, t, "    test:       %d" % (10 * self.gbs), 0)
            self.emit(0, t, "> building train, validation, and test datasets for GPT ...", 0)
            self.emit(0, t + 2, "> finished creating GPT datasets ...", 0)
            self.emit(0, t + 3, "[after dataloaders are built] datetime: %s " % self.ts_plain(0, t + 3), 0)
            self.emit(0, t + 3, "done with setup ...", 0)
            self.emit(0, t + 3, "(min, max) time across ranks (ms):\n    model-and-optimizer-setup ......................: (%.2f, %.2f)\n    train/valid/test-data-iterators-setup ..........: (%.2f, %.2f)" % (rng.uniform(3e4, 9e4), rng.uniform(9e4, 1e5), rng.uniform(500, 3000), rng.uniform(3000, 5000)), 0)
            self.emit(0, t + 3, "training ...", 0)
            self.emit(0, t + 3, "[before the start of training step] datetime: %s " % self.ts_plain(0, t + 3), 0)
            return t + 4
        if fw == "deepspeed":
            for n in range(self.nn):
                for lr in range(8):
                    tt = t + rng.uniform(0, 3)
                    self.emit(n, tt, "[rank %d] loading dataset /data/sft/mix_v3/*.jsonl: 100%% | 64 shards, %d samples" % (self.g(n, lr), 1843200), lr)
            return t + 5
        if fw == "fsdp":
            for n in range(self.nn):
                for lr in range(8):
                    tt = t + rng.uniform(0, 3)
                    self.emit(n, tt, "%s | INFO | rank %d | dataloader: StreamingTokenDataset(/lustre/data/fineweb-edu/tokens, seq_len=8192, shard %d/%d), num_workers=8" % (self.ts_iso(n, tt), self.g(n, lr), self.g(n, lr), self.W), lr)
            return t + 5
        if fw == "hf":
            self.emit(0, t, "Running tokenizer on dataset (num_proc=32): 100%%|##########| %d/%d [01:%02d<00:00, %.2f examples/s]" % (1200000, 1200000, rng.randint(0, 59), rng.uniform(9000, 15000)), 0)
            self.emit(0, t + 1, "[INFO|trainer.py:2128] %s >> ***** Running training *****" % self.ts_hf(0, t + 1), 0)
            self.emit(0, t + 1, "[INFO|trainer.py:2129] %s >>   Num examples = 1,200,000" % self.ts_hf(0, t + 1), 0)
            self.emit(0, t + 1, "[INFO|trainer.py:2131] %s >>   Instantaneous batch size per device = 2" % self.ts_hf(0, t + 1), 0)
            self.emit(0, t + 1, "[INFO|trainer.py:2134] %s >>   Total train batch size (w. parallel, distributed & accumulation) = %d" % (self.ts_hf(0, t + 1), self.gbs), 0)
            self.emit(0, t + 1, "[INFO|trainer.py:2136] %s >>   Total optimization steps = %d" % (self.ts_hf(0, t + 1), self.total_iters), 0)
            return t + 2
        if fw == "mindspore":
            for n in range(self.nn):
                for lr in range(8):
                    self.emit(n, t, "%s - mindformers[mindformers/dataset/causal_language_model_dataset.py:208] - INFO - Now Create Causal Language Model Dataset." % self.ts_hf(n, t), lr)
            return t + 3
        return t

    # -- training --------------------------------------------------------------------
    def log_rank(self):
        """(node, local rank) that prints iteration lines."""
        if self.fw in ("megatron", "mindspeed"):
            return self.nn - 1, 7
        return 0, 0

    def loss_at(self, it):
        base = 2.0 + 7.5 * (0.9985 ** max(it, 0)) if self.start_iter == 0 else self.loss - 0.00002 * (it - self.start_iter)
        return max(1.4, base + self.rng.gauss(0, 0.03))

    def iter_line(self, it, t, nan=False, loss_scale=None):
        """Emit the framework-specific progress line(s) for iteration it."""
        rng = self.rng
        n, lr = self.log_rank()
        loss = float("nan") if nan else self.loss_at(it)
        ms = self.iter_time * 1000 * rng.uniform(0.97, 1.04)
        fw = self.fw
        if fw in ("megatron", "mindspeed"):
            lrv = 3e-4 * min(1.0, it / 2000.0) if it < 2000 else 3e-4 * (0.5 + 0.5 * (1 - it / self.total_iters))
            self.emit(n, t, " [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations:   %d |"
                      % (self.ts_plain(n, t), it, self.total_iters, it * self.gbs, ms, rng.uniform(150, 420) if self.stack == "cuda" else rng.uniform(110, 190), lrv, self.gbs, loss, rng.uniform(0.15, 0.6), 1 if nan else 0), lr)
        elif fw == "deepspeed":
            ts = self.ts_br(n, t)
            self.emit(n, t, "%s [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]" % (ts, it, 2e-5 * (1 - it / self.total_iters)), lr)
            self.emit(n, t, "%s [INFO] [timer.py:259:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (ts, it * 2, it, self.gbs / self.iter_time, self.gbs / (ms / 1000), rng.uniform(30, 40), rng.uniform(60, 72)), lr)
            # every rank of the user script prints its loss
            for nn in range(self.nn):
                for l in range(8):
                    if rng.random() < 0.5:
                        tt = t + rng.uniform(0, 0.2)
                        self.emit(nn, tt, "rank %d | epoch 0 | step %d | loss %.4f | tokens/s %.0f" % (self.g(nn, l), it, loss if nan else loss + rng.gauss(0, 0.05), rng.uniform(2800, 3300)), l)
        elif fw == "fsdp":
            for nn in range(self.nn):
                for l in range(8):
                    tt = t + rng.uniform(0, 0.3)
                    self.emit(nn, tt, "%s | INFO | rank %d | step %d | loss %.4f | grad_norm %.3f | lr %.3e | tok/s/gpu %.0f | mfu %.1f%%" % (self.ts_iso(nn, tt), self.g(nn, l), it, loss + rng.gauss(0, 0.02), rng.uniform(0.2, 0.9), 3e-4, rng.uniform(7000, 8200), rng.uniform(38, 46)), l)
        elif fw == "hf":
            ep = it / 5000.0
            self.emit(n, t, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (loss, rng.uniform(0.3, 1.4), 2e-5 * (1 - it / self.total_iters), ep), lr)
            self.emit(n, t, " %2d%%|%s| %d/%d [%s<%s, %.2fs/it]" % (100 * it // self.total_iters, "#" * (10 * it // self.total_iters) + " " * (10 - 10 * it // self.total_iters), it, self.total_iters, self.hms(it * self.iter_time), self.hms((self.total_iters - it) * self.iter_time), ms / 1000), lr)
        elif fw == "mindspore":
            for nn in range(self.nn):
                for l in range(8):
                    tt = t + rng.uniform(0, 0.3)
                    self.emit(nn, tt, "%s - mindformers[mindformers/core/callback/callback.py:326] - INFO - { Epoch:[  1/  1], step:[%5d/%5d], loss: %.3f, per_step_time: %dms, lr: %.6e, overflow cond: False, loss_scale: %.1f" % (self.ts_hf(nn, tt), it, self.total_iters, loss + rng.gauss(0, 0.01), int(ms), 1e-4, 65536.0 if loss_scale is None else loss_scale), l)

    @staticmethod
    def hms(s):
        s = int(s)
        return "%d:%02d:%02d" % (s // 3600, s // 60 % 60, s % 60)

    def monitor_line(self, n, t, slow_gpu=None):
        """Platform node agent: per-GPU health samples (only some settings)."""
        rng = self.rng
        for k in range(8):
            if self.stack == "cuda":
                util = rng.randint(92, 100) if k != slow_gpu else rng.randint(99, 100)
                clk = rng.randint(1755, 1980) if k != slow_gpu else rng.randint(540, 810)
                self.emit(n, t, "%s [node-agent] gpu%d util=%d%% mem=%dMiB temp=%dC power=%dW sm_clk=%dMHz xid=none" % (self.ts_iso(n, t), k, util, rng.randint(68000, 78000), rng.randint(55, 72) if k != slow_gpu else rng.randint(88, 93), rng.randint(540, 690), clk))
            else:
                self.emit(n, t, "%s [node-agent] npu%d aicore=%d%% hbm=%dMB temp=%dC power=%.1fW health=OK" % (self.ts_iso(n, t), k, rng.randint(60, 98), rng.randint(52000, 61000), rng.randint(40, 58), rng.uniform(250, 380)))

    def save_ckpt(self, it, t, fail=None):
        """Emit checkpoint-saving lines; returns duration. fail: callable(job, t) to inject instead of success."""
        fw = self.fw
        rng = self.rng
        if fw in ("megatron", "mindspeed"):
            self.emit(0, t, "saving checkpoint at iteration %7d to %s in torch_dist format" % (it, self.ckpt_dir), 0)
            if fail:
                fail(self, t + rng.uniform(5, 30))
                raise Abort()
            d = rng.uniform(15, 90)
            self.emit(0, t + d, "  successfully saved checkpoint from iteration %7d to %s [ t 1/%d, p 1/%d ]" % (it, self.ckpt_dir, self.tp, self.pp), 0)
            self.emit(0, t + d, "(min, max) time across ranks (ms):\n    save-checkpoint ................................: (%.2f, %.2f)" % (d * 1000 - 300, d * 1000), 0)
            return d
        if fw == "deepspeed":
            n, lr = 0, 0
            self.emit(0, t, "%s [INFO] [logging.py:96:log_dist] [Rank 0] [Torch] Checkpoint global_step%d is about to be saved!" % (self.ts_br(0, t), it), 0)
            for nn in range(self.nn):
                for l in range(8):
                    tt = t + rng.uniform(0.5, 3)
                    self.emit(nn, tt, "%s [INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving %s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt..." % (self.ts_br(nn, tt), self.ckpt_dir, it, self.g(nn, l)), l)
            if fail:
                fail(self, t + rng.uniform(5, 30))
                raise Abort()
            d = rng.uniform(20, 60)
            for nn in range(self.nn):
                for l in range(8):
                    tt = t + d - rng.uniform(0, 3)
                    self.emit(nn, tt, "%s [INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved %s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt." % (self.ts_br(nn, tt), self.ckpt_dir, it, self.g(nn, l)), l)
                    self.emit(nn, tt, "%s [INFO] [engine.py:3536:_save_zero_checkpoint] zero checkpoint saved %s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (self.ts_br(nn, tt), self.ckpt_dir, it, self.g(nn, l)), l)
            self.emit(0, t + d, "%s [INFO] [torch_checkpoint_engine.py:33:commit] [Torch] Checkpoint global_step%d is ready now!" % (self.ts_br(0, t + d), it), 0)
            return d
        if fw == "fsdp":
            for nn in range(self.nn):
                for l in range(8):
                    tt = t + rng.uniform(0, 1)
                    self.emit(nn, tt, "%s | INFO | rank %d | saving distributed checkpoint to %s/step_%d" % (self.ts_iso(nn, tt), self.g(nn, l), self.ckpt_dir, it), l)
            if fail:
                fail(self, t + rng.uniform(5, 30))
                raise Abort()
            d = rng.uniform(10, 40)
            self.emit(0, t + d, "%s | INFO | rank 0 | checkpoint step_%d committed (%.1fs)" % (self.ts_iso(0, t + d), it, d), 0)
            return d
        if fw == "hf":
            self.emit(0, t, "[INFO|trainer.py:3478] %s >> Saving model checkpoint to /output/%s/checkpoint-%d" % (self.ts_hf(0, t), self.S["model"], it), 0)
            self.emit(0, t, "[INFO|configuration_utils.py:472] %s >> Configuration saved in /output/%s/checkpoint-%d/config.json" % (self.ts_hf(0, t), self.S["model"], it), 0)
            if fail:
                fail(self, t + rng.uniform(5, 30))
                raise Abort()
            d = rng.uniform(30, 90)
            self.emit(0, t + d, "[INFO|modeling_utils.py:2698] %s >> The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in 6 checkpoint shards. You can find where each parameters has been saved in the index located at /output/%s/checkpoint-%d/model.safetensors.index.json." % (self.ts_hf(0, t + d), self.S["model"], it), 0)
            return d
        if fw == "mindspore":
            for nn in range(self.nn):
                for l in range(8):
                    tt = t + rng.uniform(0, 2)
                    self.emit(nn, tt, "%s - mindformers[mindformers/core/callback/callback.py:873] - INFO - ......Saving ckpt......" % self.ts_hf(nn, tt), l)
            if fail:
                fail(self, t + rng.uniform(5, 30))
                raise Abort()
            d = rng.uniform(20, 60)
            for nn in range(self.nn):
                for l in range(8):
                    tt = t + d - rng.uniform(0, 2)
                    self.emit(nn, tt, "%s - mindformers[mindformers/core/callback/callback.py:905] - INFO - Finish saving ckpt of step %d, cost %.2fs" % (self.ts_hf(nn, tt), it, d), l)
            return d
        return 0

    def phase_train(self, t, fault):
        rng = self.rng
        it = self.start_iter
        if fault is None:
            end = min(self.total_iters, self.start_iter + rng.randint(300, 1200))
        else:
            end = fault.iteration
        first_mem = True
        while True:
            it += 1
            dt = self.iter_time * rng.uniform(0.97, 1.04)
            if fault is not None and getattr(fault, "slow_from", None) and it >= fault.slow_from:
                dt *= fault.slow_factor
            t += dt
            if fault is not None and it == end and fault.run_stage == "training":
                fault.inject(self, t)
                raise Abort()
            if it % self.log_interval == 0 or it == self.start_iter + 1:
                self.iter_line(it, t)
                if fault is not None and hasattr(fault, "on_log"):
                    fault.on_log(self, it, t)
            if first_mem and it >= self.start_iter + self.log_interval and self.fw in ("megatron", "mindspeed"):
                first_mem = False
                for n in range(self.nn):
                    for lr in (0,):
                        self.emit(n, t + 0.1, "[Rank %d] (after %d iterations) memory (MB) | allocated: %.2f | max allocated: %.2f | reserved: %.0f | max reserved: %.0f" % (self.g(n, lr), it, rng.uniform(20000, 30000), rng.uniform(50000, 62000), rng.uniform(60000, 70000), rng.uniform(60000, 70000)), lr)
            if self.S.get("monitor") and it % max(self.log_interval * 5, 20) == 0:
                for n in range(self.nn):
                    self.monitor_line(n, t + rng.uniform(0, 1), getattr(fault, "slow_gpu", None) if (fault and getattr(fault, "slow_node", -1) == n and it >= getattr(fault, "slow_from", 10 ** 9)) else None)
            if it % self.save_interval == 0:
                if fault is not None and fault.run_stage == "checkpoint" and it == end:
                    self.save_ckpt(it, t, fail=fault.inject)
                t += self.save_ckpt(it, t)
            if it >= end:
                break
        self.stopped_at = it
        return t

    def phase_finish(self, t):
        fw = self.fw
        if fw in ("megatron", "mindspeed"):
            self.emit(self.nn - 1, t, "[after training is done] datetime: %s " % self.ts_plain(self.nn - 1, t), 7)
        elif fw == "hf":
            self.emit(0, t, "{'train_runtime': %.1f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': %.2f}" % (t, self.gbs / self.iter_time, 1 / self.iter_time, self.loss_at(self.stopped_at), self.stopped_at / 5000.0), 0)
        for n, nd in enumerate(self.nodes):
            if self.S["launcher"] in ("torchrun", "accelerate"):
                self.emit(n, t + 5, "%s %d torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish." % (self.ts_glog(n, t + 5), nd.pid - 40))
                self.emit(n, t + 6, "%s %d torch/distributed/elastic/agent/server/api.py:932] Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish" % (self.ts_glog(n, t + 6), nd.pid - 40))
                self.emit(n, t + 6, "%s %d torch/distributed/elastic/agent/server/api.py:946] Done waiting for other agents. Elapsed: %.5f seconds" % (self.ts_glog(n, t + 6), nd.pid - 40, self.rng.uniform(0.001, 3)))
            elif self.S["launcher"] == "deepspeed":
                self.emit(n, t + 5, "%s [INFO] [launch.py:351:main] Process %d exits successfully." % (self.ts_br(n, t + 5), nd.pid))
            else:
                self.emit(n, t + 5, "%s - mindformers - INFO - .........Training Over!.............." % self.ts_hf(n, t + 5), 0)


# ----------------------------------------------------------------------------
# shared failure mechanics: node-level kernel lines, cascades, launcher teardown
# ----------------------------------------------------------------------------

def nl(job, lr):
    """Local rank to attach a node-level line to (rank-split layouts need one)."""
    return lr if job.S["layout"] in ("per_rank", "msrun", "console") else None


def kernel(job, n, t, msg, lr=None, ev=None):
    """Kernel / node-agent message copied into the node log (per-node layouts only)."""
    if job.S["layout"] not in ("per_node", "per_node_tee"):
        return False
    if job.S.get("monitor"):
        job.emit(n, t, "%s [node-agent] kernel: %s" % (job.ts_iso(n, t), msg), None, ev)
    else:
        job.emit(n, t, "%s %s" % (job.ts_dmesg(n, t), msg), None, ev)
    return True


def agent_line(job, n, t, msg, lr=None, ev=None):
    """Platform agent line (k8s/node agent); only in per-node and slurm layouts."""
    if job.S["layout"] in ("per_rank", "msrun", "console"):
        if job.S["layout"] == "console":
            job.emit(n, t, "[platform] %s" % msg, None, ev)
            return True
        return False
    job.emit(n, t, "%s [platform] %s" % (job.ts_iso(n, t), msg), None, ev)
    return True


def torch_glog9(job, n, t, lvl="E"):
    d = job.clk(n, t)
    return "%s%d%02d %s.%06d%03d" % (lvl, d.month, d.day, d.strftime("%H:%M:%S"), d.microsecond, int(t * 1000) % 1000)


def pyexc(job, n, lr, t, frames, exc, ev=None, pattern_ev=None):
    """Python traceback from a worker process."""
    pfx = job.stack == "cuda"
    job.emit(n, t, "Traceback (most recent call last):", lr, None, pfx)
    for f, ln, fn, code in frames:
        job.emit(n, t, '  File "%s", line %d, in %s' % (f, ln, fn), lr, None, pfx)
        if code:
            job.emit(n, t, "    " + code, lr, None, pfx)
    for i, part in enumerate(exc.split("\n")):
        job.emit(n, t + 1e-4 * i, part, lr, ev if i == 0 else None, pfx)


def nccl_watchdog(job, n, lr, t, seq, op, numel, timeout_ms=600000, ev=None):
    g = job.g(n, lr)
    if job.stack == "cuda":
        ran = timeout_ms + job.rng.randint(5, 90)
        job.emit(n, t, "[%s ProcessGroupNCCL.cpp:607] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (torch_glog9(job, n, t), g, seq, op, numel, numel, timeout_ms, ran), lr, ev, True)
        job.emit(n, t, "[%s ProcessGroupNCCL.cpp:1664] [PG 0 (default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (torch_glog9(job, n, t), g, seq, seq + job.rng.randint(0, 3), seq - 1), lr, None, True)
        job.emit(n, t, "[%s ProcessGroupNCCL.cpp:621] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (torch_glog9(job, n, t), g), lr, None, True)
        job.emit(n, t, "[%s ProcessGroupNCCL.cpp:627] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (torch_glog9(job, n, t), g), lr, None, True)
        job.emit(n, t, "terminate called after throwing an instance of 'c10::DistBackendError'", lr)
        job.emit(n, t, "  what():  [PG 0 (default_pg) Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (g, seq, op, numel, numel, timeout_ms, ran), lr)
        job.emit(n, t, "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):", lr)
        job.emit(n, t, "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7f%s in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)" % hexid(job.rng, 10), lr)
        job.emit(n, t, "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x7f%s in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)" % hexid(job.rng, 10), lr)
        job.emit(n, t, "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x7f%s in /usr/local/lib/python3.10/dist-packages/torch/lib/libtorch_cuda.so)" % hexid(job.rng, 10), lr)


def hccl_timeout(job, n, lr, t, remote, ev=None):
    """Ascend notify-wait timeout (EI0002) as printed by torch_npu / MindSpore."""
    rng = job.rng
    g = job.g(n, lr)
    nd = job.nodes[n]
    pid = nd.pid + lr
    stamp = "17%08d" % rng.randint(0, 10 ** 8)
    tag = "AllReduce_%s%%%s_60000_0_%s" % (job.master.ip, job.ifname, stamp)
    d = job.clk(n, t)
    if job.fw == "mindspore":
        job.emit(n, t, "[ERROR] DEVICE(%d,ffff%s,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:1094] TaskFailCallback] Task fail infos, task_id: %d, stream_id: %d, tid: %d, device_id: %d, retcode: 507011 (model execute failed)" % (pid, hexid(rng, 8), job.ts_cann(n, t), rng.randint(10, 60000), rng.randint(2, 40), pid, lr), lr, ev)
    else:
        job.emit(n, t, "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (d.strftime("%Y-%m-%d-%H:%M:%S"), pid, lr, g), lr, ev)
    job.emit(n, t, "EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [%s]. base information: [streamID:[%d], taskID[%d], taskType[Notify Wait], tag[%s], AlgType(level 0-1-2):[fullmesh-ring-NHR].]. task information: [notify id:[0x%016x], stage:[0], remote rank:[%s]]. group information: [group:[%s%%%s_60000_0_%s], user define information[Unspecified], rankSize[%d], rankId[%d]]"
             % (pid, job.ts_cann(n, t), remote, rng.randint(2, 120), rng.randint(10, 90000), tag, rng.randint(1, 2 ** 40), remote, job.master.ip, job.ifname, stamp, job.W, g), lr)
    job.emit(n, t, "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to complete a communication operation within the timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or other connectivity problems occur on the communication link.", lr)
    job.emit(n, t, "        Solution: 1. If this error is reported on part of these ranks, check other ranks to see whether other errors have been reported earlier.2. If this error is reported for all ranks, check whether the error reporting time is consistent (the maximum difference must not exceed 1800s). If not, locate the cause or adjust the locate the cause or set the HCCL_EXEC_TIMEOUT environment variable to a larger value.", lr)
    job.emit(n, t, "        TraceBack (most recent call last):", lr)
    job.emit(n, t, "        Task execute failed, device_id=%d, stream_id=%d, task_id=%d, flip_num=0, task_type=3(EVENT_WAIT).[FUNC:GetError][FILE:stream.cc][LINE:1082]" % (lr, rng.randint(2, 40), rng.randint(10, 60000)), lr)
    if job.fw != "mindspore":
        job.emit(n, t + 0.01, "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048", lr)
    else:
        job.emit(n, t + 0.01, "RuntimeError: Call runtime rtStreamSynchronizeWithTimeout failed. Op name: Default/network-PanguAlphaWithLoss/AllReduce-op%d" % rng.randint(100, 999), lr)


def collective_cascade(job, t, skip, remote_g=None, timeout=None, nodes=None, frac=1.0):
    """Peers of the failed rank(s) time out in their pending collective."""
    rng = job.rng
    seq = job.seq + rng.randint(1000, 90000)
    op = rng.choice(["ALLREDUCE", "_ALLGATHER_BASE", "_REDUCE_SCATTER_BASE", "ALLREDUCE", "BROADCAST"])
    numel = rng.choice([1, 4, 466119168, 212336640, 65536000])
    if timeout is None:
        timeout = 600 if job.stack == "cuda" else 1800
    when = {}
    for n in (nodes if nodes is not None else range(job.nn)):
        for lr in range(8):
            if (n, lr) in skip or (n, None) in skip:
                continue
            if rng.random() > frac:
                continue
            tt = t + timeout + rng.uniform(0.0, 2.5)
            if job.stack == "cuda":
                nccl_watchdog(job, n, lr, tt, seq, op, numel, timeout * 1000)
            else:
                rr = remote_g if (remote_g is not None and rng.random() < 0.4) else rng.choice([str(rng.randrange(job.W)), "unknown"]) if remote_g is None else str(remote_g) if rng.random() < 0.5 else str(rng.randrange(job.W))
                hccl_timeout(job, n, lr, tt, rr)
            when.setdefault(n, tt)
    return when


def launcher_fail(job, n, t, lr, ec, reason=None, others=()):
    """torchrun / deepspeed / msrun teardown on node n (lr failed first)."""
    rng = job.rng
    nd = job.nodes[n]
    apid = nd.pid - 40
    L = job.S["launcher"]
    g = job.g(n, lr)
    script = {"megatron": "pretrain_gpt.py", "mindspeed": "pretrain_gpt.py", "fsdp": "train_fsdp.py",
              "hf": "src/train.py", "deepspeed": "train.py", "mindspore": "run_mindformer.py"}[job.fw]
    if L in ("torchrun", "accelerate"):
        for k in range(8):
            if k != lr and k not in others:
                job.emit(n, t, "%s %d torch/distributed/elastic/multiprocessing/api.py:858] Sending process %d closing signal SIGTERM" % (job.ts_glog(n, t, "W"), apid, nd.pid + k))
        job.emit(n, t + 1, "%s %d torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (job.ts_glog(n, t + 1, "E"), apid, ec, lr, nd.pid + lr))
        tb = {1: "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
              -6: "Signal 6 (SIGABRT) received by PID %d" % (nd.pid + lr),
              -9: "Signal 9 (SIGKILL) received by PID %d" % (nd.pid + lr),
              -7: "Signal 7 (SIGBUS) received by PID %d" % (nd.pid + lr),
              -15: "Signal 15 (SIGTERM) received by PID %d" % (nd.pid + lr),
              2: "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"}.get(ec, "N/A")
        lines = ["Traceback (most recent call last):",
                 '  File "/usr/local/bin/torchrun", line 8, in <module>' if L == "torchrun" else '  File "/usr/local/bin/accelerate", line 8, in <module>',
                 "    sys.exit(main())",
                 '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
                 "    return f(*args, **kwargs)",
                 '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main',
                 "    run(args)",
                 '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
                 "    raise ChildFailedError(",
                 "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                 "============================================================",
                 "%s FAILED" % script,
                 "------------------------------------------------------------",
                 "Failures:"]
        if others:
            for i, k in enumerate(others):
                lines += ["[%d]:" % (i + 1), "  time      : %s" % job.clk(n, t).strftime("%Y-%m-%d_%H:%M:%S"),
                          "  host      : %s" % nd.host, "  rank      : %d (local_rank: %d)" % (job.g(n, k), k),
                          "  exitcode  : %d (pid: %d)" % (ec, nd.pid + k), "  error_file: <N/A>",
                          "  traceback : %s" % tb.replace(str(nd.pid + lr), str(nd.pid + k))]
        else:
            lines.append("  <NO_OTHER_FAILURES>")
        lines += ["------------------------------------------------------------",
                  "Root Cause (first observed failure):", "[0]:",
                  "  time      : %s" % job.clk(n, t).strftime("%Y-%m-%d_%H:%M:%S"),
                  "  host      : %s" % nd.host, "  rank      : %d (local_rank: %d)" % (g, lr),
                  "  exitcode  : %d (pid: %d)" % (ec, nd.pid + lr), "  error_file: <N/A>",
                  "  traceback : %s" % tb,
                  "============================================================"]
        for x in lines:
            job.emit(n, t + 1.2, x)
    elif L == "deepspeed":
        for k in range(8):
            job.emit(n, t, "%s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (job.ts_br(n, t), nd.pid + k))
        job.emit(n, t + 1, "%s [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=%d', '--deepspeed', 'ds_z3.json'] exits with return code = %d" % (job.ts_br(n, t + 1), lr, ec))
    elif L == "msrun":
        if n == 0:
            job.emit(0, t + 2, "[ERROR] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:312] Worker process %d exit with exception. Error code: %d." % (apid, 281470000000000 + apid, job.ts_cann(0, t + 2), nd.pid + lr, ec))
            job.emit(0, t + 2, "[WARNING] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:318] There's worker exits with exception, kill all other workers." % (apid, 281470000000000 + apid, job.ts_cann(0, t + 2)))
            job.emit(0, t + 3, "[ERROR] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:331] Scheduler process %d exit with exception." % (apid, 281470000000000 + apid, job.ts_cann(0, t + 3), apid + 1))
    if job.S["layout"] == "slurm":
        job.console(t + 2, "srun: error: %s: task %d: Exited with exit code %d" % (nd.host, n, 1 if ec != 0 else 0))


def teardown(job, t_fail, first, ec_first=1, timeout=True, skip_nodes=(), remote_g=None, first_others=()):
    """first: list of (node, lr) whose processes died at t_fail.
    Others time out in collectives (cascade) and are torn down."""
    done = set()
    for (n, lr) in first:
        if n in done:
            continue
        done.add(n)
        launcher_fail(job, n, t_fail + 1, lr, ec_first, others=[k for (m, k) in first if m == n and k != lr][:3] or first_others)
    if not timeout:
        return
    skip = set((n, None) for n in done) | set((n, None) for n in skip_nodes)
    when = collective_cascade(job, t_fail, skip, remote_g=remote_g)
    for n, tt in when.items():
        launcher_fail(job, n, tt + 1, job.rng.randrange(8), -6 if job.stack == "cuda" else 1)
    if job.S["layout"] == "slurm":
        job.console(t_fail + 2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")


# ----------------------------------------------------------------------------
# faults
# ----------------------------------------------------------------------------

class Fault:
    def __init__(self, **kw):
        self.accept = None
        self.hosts_extra = []
        self.faulty_override = None
        self.__dict__.update(kw)


def pick_iter(job, rng, lo=60, hi=1400):
    span = rng.randint(lo, hi)
    return job.start_iter + span


def pick_save_iter(job, rng):
    k = rng.randint(1, 4)
    return (job.start_iter // job.save_interval + k) * job.save_interval


MEG_FRAMES = [("/workspace/Megatron-LM/pretrain_gpt.py", 265, "<module>", "pretrain("),
              ("/workspace/Megatron-LM/megatron/training/training.py", 354, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
              ("/workspace/Megatron-LM/megatron/training/training.py", 1263, "train", "train_step(forward_step_func,"),
              ("/workspace/Megatron-LM/megatron/training/training.py", 730, "train_step", "losses_reduced = forward_backward_func(")]
DS_FRAMES = [("/workspace/train.py", 412, "<module>", "main()"),
             ("/workspace/train.py", 371, "main", "model_engine.backward(loss)"),
             ("/usr/local/lib/python3.10/dist-packages/deepspeed/utils/nvtx.py", 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
             ("/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py", 1976, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)")]
FSDP_FRAMES = [("/workspace/train_fsdp.py", 318, "<module>", "main(cfg)"),
               ("/workspace/train_fsdp.py", 262, "main", "loss = train_step(model, batch, optimizer)"),
               ("/workspace/train_fsdp.py", 141, "train_step", "loss.backward()")]
HF_FRAMES = [("/workspace/src/train.py", 158, "<module>", "main()"),
             ("/workspace/src/train.py", 151, "main", "trainer.train(resume_from_checkpoint=training_args.resume_from_checkpoint)"),
             ("/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", 1938, "train", "return inner_training_loop("),
             ("/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)")]
MS_FRAMES = [("/workspace/mindformers/run_mindformer.py", 267, "<module>", "main(config_)"),
             ("/workspace/mindformers/run_mindformer.py", 42, "main", "trainer.train()"),
             ("/usr/local/python3.9/lib/python3.9/site-packages/mindspore/train/model.py", 1082, "train", "self._train(epoch,")]


def train_frames(job):
    return {"megatron": MEG_FRAMES, "mindspeed": MEG_FRAMES, "deepspeed": DS_FRAMES, "fsdp": FSDP_FRAMES,
            "hf": HF_FRAMES, "mindspore": MS_FRAMES}[job.fw]


def pick_node(job, rng, avoid_last=True):
    hi = job.nn - 2 if (avoid_last and job.nn > 2) else job.nn - 1
    return rng.randint(1 if job.nn > 2 else 0, max(hi, 0))


def make_fault(kind, job, rng):
    S = job.S
    cuda = job.stack == "cuda"
    k = rng.randrange(8)
    n = pick_node(job, rng)
    F = Fault(kind=kind)
    bus = GPU_BUS[k]

    # ---------------------------------------------------------------- GPU hardware
    if kind in ("xid79", "ecc48", "xid94", "nvlink74"):
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = [(n, k)]
        F.category, F.subcategory, F.symptom = "hardware", "accelerator", "training_crash"
        if kind == "xid79":
            F.patterns = {"e1": "GPU has fallen off the bus", "e2": "CUDA error: unspecified launch failure"}
            F.root_cause = "GPU %d on the faulty node dropped off the PCIe bus (Xid 79), killing its rank and stalling every collective." % k
            F.remediation = "Drain the node, reseat or replace the GPU (check power/thermals), then resume from the last checkpoint on healthy nodes."
        elif kind == "ecc48":
            F.patterns = {"e1": "double bit error (DBE)", "e2": "uncorrectable ECC error encountered"}
            F.root_cause = "An uncorrectable double-bit ECC error (Xid 48) in the frame buffer of one GPU crashed the rank that used it."
            F.remediation = "Cordon the node, run GPU memory diagnostics/row-remapping checks and RMA the GPU if it repeats; restart from checkpoint elsewhere."
        elif kind == "xid94":
            F.patterns = {"e1": "94, pid=", "e2": "uncorrectable ECC error encountered"}
            F.root_cause = "A contained uncorrectable ECC error (Xid 94) on one GPU terminated the application using that GPU."
            F.remediation = "Reset the affected GPU (or reboot the node) so the page is retired/row-remapped, then restart the job from the last checkpoint."
        else:
            F.patterns = {"e1": "NVLink: fatal error detected on link", "e2": "an uncorrectable NVLink error was detected"}
            F.subcategory = "network"
            F.accept = ["hardware/network", "hardware/accelerator"]
            F.root_cause = "A fatal NVLink error (Xid 74) on one GPU broke intra-node communication and crashed the rank."
            F.remediation = "Drain the node and have the NVLink/NVSwitch fabric checked (nvidia-smi nvlink -e, field diag) before returning it to service."

        def inject(job, t, F=F, n=n, k=k, bus=bus):
            rng = job.rng
            nd = job.nodes[n]
            pid = nd.pid + k
            if F.kind == "xid79":
                kernel(job, n, t - 0.4, "NVRM: GPU at PCI:0000:%s:00: GPU-%s" % (bus, hexid(rng, 8)), k)
                kernel(job, n, t - 0.3, "NVRM: Xid (PCI:0000:%s:00): 79, pid=%d, name=python3, GPU has fallen off the bus." % (bus, pid), k, "e1")
                kernel(job, n, t - 0.3, "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus, k, "e1")
                err = "CUDA error: unspecified launch failure"
            elif F.kind == "ecc48":
                kernel(job, n, t - 0.3, "NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at physAddr 0x%x." % (bus, pid, rng.randint(2 ** 30, 2 ** 36)), k, "e1")
                kernel(job, n, t - 0.2, "NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=python3, Row Remapper: New row (0x%x) Marked for Remapping, reset gpu to activate." % (bus, pid, rng.randint(2 ** 20, 2 ** 30)), k)
                err = "CUDA error: uncorrectable ECC error encountered"
            elif F.kind == "xid94":
                kernel(job, n, t - 0.3, "NVRM: Xid (PCI:0000:%s:00): 94, pid=%d, name=python3, Contained: SM (0x1). RST: No, D-RST: No" % (bus, pid), k, "e1")
                err = "CUDA error: uncorrectable ECC error encountered"
            else:
                link = rng.randint(0, 17)
                kernel(job, n, t - 0.3, "NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python3, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (bus, pid, link), k, "e1")
                err = "CUDA error: an uncorrectable NVLink error was detected during the execution"
            g = job.g(n, k)
            job.emit(n, t, "[%s ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (torch_glog9(job, n, t), g, err), k, "e2", True)
            job.emit(n, t, "Search for `cudaError' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.", k, None, True)
            job.emit(n, t, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.", k, None, True)
            job.emit(n, t, "For debugging consider passing CUDA_LAUNCH_BLOCKING=1", k, None, True)
            job.emit(n, t, "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", k, None, True)
            job.emit(n, t + 0.01, "terminate called after throwing an instance of 'c10::DistBackendError'", k)
            job.emit(n, t + 0.01, "  what():  [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (g, err), k)
            teardown(job, t, [(n, k)], ec_first=-6)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- IB link
    if kind == "ib_port":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = [(n, k)]
        F.category, F.subcategory, F.symptom = "hardware", "network", "training_crash"
        F.patterns = {"e1": "Got async event : port error", "e2": "mlx5_%d: Port: 1 Link DOWN" % k}
        F.root_cause = "The InfiniBand port mlx5_%d on the faulty node went down mid-training; its NCCL proxy lost the link and peers then timed out." % k
        F.remediation = "Take the node out, check the HCA/cable/switch port (ibstat, port counters, replace cable/transceiver), then restart from checkpoint."
        F.hosts_extra = [job.nodes[n].ip]

        def inject(job, t, F=F, n=n, k=k):
            rng = job.rng
            nd = job.nodes[n]
            kernel(job, n, t - 2, "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link DOWN" % (rng.choice(["0c", "1f", "47", "5e", "8d", "a2", "c9", "e1"]), k), k, "e2")
            job.nccl(n, k, "NET/IB : mlx5_%d:1 Got async event : port error" % k, kind="WARN", t=t - 1.5, ev="e1", src="transport/net_ib.cc:107")
            peer = job.nodes[(n + 1) % job.nn]
            for j in range(rng.randint(2, 4)):
                tt = t + 0.1 * j
                # peers see completion errors naming this node (cascade)
                pn = rng.choice([x for x in range(job.nn) if x != n])
                job.nccl(pn, k, "NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (nd.ip, rng.randint(30000, 60000), rng.choice([0, 1, 129]), job.nodes[pn].ip, nd.ip), kind="WARN", t=tt, src="transport/net_ib.cc:1696")
                job.nccl(pn, k, "transport/net.cc:1298 -> 6", t=tt)
                job.nccl(pn, k, "proxy.cc:694 -> 6", t=tt)
                job.nccl(pn, k, "proxy.cc:874 -> 6 [Progress Thread]", t=tt)
            g = job.g(n, k)
            job.emit(n, t + 1, "[%s ProcessGroupNCCL.cpp:1515] [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.20.5" % (torch_glog9(job, n, t + 1), g), k, None, True)
            job.emit(n, t + 1, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", k, None, True)
            teardown(job, t + 1, [(n, k)], ec_first=-6)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- device OOM
    if kind in ("cuda_oom", "npu_oom"):
        F.stage = F.run_stage = "training"
        F.iteration = job.start_iter + rng.randint(1, 40) if rng.random() < 0.5 else pick_iter(job, rng)
        ranks = sorted(rng.sample(range(8), rng.randint(1, 4)))
        F.faulty = [(n, r) for r in ranks]
        F.category, F.subcategory, F.symptom = "user", "configuration", "training_crash"
        F.accept = ["user/configuration", "user/script_bug"]
        if cuda:
            F.patterns = {"e1": "CUDA out of memory. Tried to allocate"}
        else:
            F.patterns = {"e1": "NPU out of memory. Tried to allocate"}
        F.root_cause = "Activation memory of the pipeline stage hosted on the faulty node exceeded device memory (a long-sequence batch), so its ranks hit %s OOM." % ("CUDA" if cuda else "NPU")
        F.remediation = "Reduce micro-batch size or sequence length, enable activation recomputation / more pipeline stages, then restart from the last checkpoint."

        def inject(job, t, F=F, n=n, ranks=ranks):
            rng = job.rng
            for r in ranks:
                tt = t + rng.uniform(0, 0.5)
                alloc = rng.choice([1.0, 2.0, 3.5, 4.0, 7.83])
                if job.stack == "cuda":
                    msg = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.11 GiB of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (alloc, r, rng.uniform(0.1, 1.2), rng.uniform(77, 78.9), rng.uniform(70, 75), rng.uniform(1, 3))
                else:
                    msg = "RuntimeError: NPU out of memory. Tried to allocate %.2f GiB (NPU %d; 60.97 GiB total capacity; %.2f GiB already allocated; %.2f GiB current active; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (alloc, r, rng.uniform(55, 59), rng.uniform(55, 59), rng.uniform(10, 500), rng.uniform(59, 60.5))
                frames = train_frames(job) + [("/workspace/Megatron-LM/megatron/core/transformer/transformer_layer.py", 303, "forward", "mlp_output_with_bias = self.mlp(pre_mlp_layernorm_output)")]
                pyexc(job, n, r, tt, frames, msg, "e1")
            teardown(job, t + 1, [(n, ranks[0])], ec_first=1, first_others=ranks[1:])
        F.inject = inject
        return F

    # ---------------------------------------------------------------- NaN (single rank, SDC)
    if kind == "nan_sdc":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = [(n, k)]
        F.category, F.subcategory, F.symptom = "hardware", "accelerator", "training_crash"
        F.accept = ["hardware/accelerator", "user/configuration"]
        F.patterns = {"e1": "found NaN in local forward loss calculation"}
        F.root_cause = "Only one rank produced a NaN loss while its data-parallel replicas were finite, pointing at silent data corruption on that GPU."
        F.remediation = "Exclude the node, run GPU burn-in/DCGM diag level 3 on that GPU, and resume from the checkpoint before the NaN."

        def inject(job, t, F=F, n=n, k=k):
            nd = job.nodes[n]
            frames = MEG_FRAMES + [("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py", 277, "forward_step", "output_tensor = loss_func(output_tensor)"),
                                   ("/workspace/Megatron-LM/pretrain_gpt.py", 176, "loss_func", "assert not loss[0].isnan(), (")]
            pyexc(job, n, k, t, frames, "AssertionError: Rank %d: found NaN in local forward loss calculation. Device: %d, node: %s" % (job.g(n, k), k, nd.host), "e1")
            teardown(job, t, [(n, k)], ec_first=1)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- NaN (job-wide)
    if kind in ("nan_lossscale", "nan_job"):
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = []
        F.category, F.subcategory, F.symptom = "user", "configuration", "training_crash"
        if kind == "nan_lossscale":
            F.patterns = {"e1": "Current loss scale already at minimum", "e2": "OVERFLOW! Rank"}
            F.root_cause = "fp16 gradients overflowed on every step after a loss spike until the dynamic loss scale hit its minimum and DeepSpeed aborted; the learning rate / precision setup is unstable."
            F.remediation = "Lower the learning rate or increase warmup, switch to bf16 (or raise min_loss_scale / clip gradients), and restart from an earlier checkpoint."
        else:
            F.patterns = {"e1": "found NaN in local forward loss calculation"}
            F.accept = ["user/configuration", "user/misoperation"]
            F.root_cause = "The loss diverged to NaN on all last-stage ranks simultaneously after a loss spike, i.e. a numerical instability of the training recipe rather than a device fault."
            F.remediation = "Resume from an earlier checkpoint with a lower learning rate / longer warmup and skip the offending data batch."
        F.overflow_from = F.iteration - rng.randint(6, 30)

        def on_log(job, it, t, F=F):
            if F.kind == "nan_lossscale" and it >= F.overflow_from:
                for nn in range(job.nn):
                    job.emit(nn, t + 0.05, "%s [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank %d Skipping step. Attempted loss scale: %d, reducing to %d" % (job.ts_br(nn, t), job.g(nn, 0), max(1, 2 ** max(0, 16 - (it - F.overflow_from))), max(1, 2 ** max(0, 15 - (it - F.overflow_from)))), 0, "e2")
        F.on_log = on_log

        def inject(job, t, F=F):
            rng = job.rng
            first = []
            if F.kind == "nan_lossscale":
                for nn in range(job.nn):
                    for r in range(8):
                        tt = t + rng.uniform(0, 0.3)
                        pyexc(job, nn, r, tt, DS_FRAMES[:2] + [("/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/fp16/loss_scaler.py", 175, "update_scale", "raise Exception(")],
                              "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.", "e1")
                    first.append((nn, 0))
            else:
                # last pipeline stage = last W/pp ranks
                per = job.W // job.pp
                for g in range(job.W - per, job.W):
                    nn, r = divmod(g, 8)
                    tt = t + rng.uniform(0, 0.4)
                    frames = MEG_FRAMES + [("/workspace/Megatron-LM/pretrain_gpt.py", 176, "loss_func", "assert not loss[0].isnan(), (")]
                    pyexc(job, nn, r, tt, frames, "AssertionError: Rank %d: found NaN in local forward loss calculation. Device: %d, node: %s" % (g, r, job.nodes[nn].host), "e1")
                    if (nn, 0) not in first and r == 0:
                        first.append((nn, r))
            teardown(job, t, first, ec_first=1)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- configuration errors (job-wide, init)
    if kind == "bad_parallel":
        F.stage, F.run_stage = "init", "init"
        F.iteration = None
        F.faulty = []
        F.category, F.subcategory, F.symptom = "user", "configuration", "launching_failure"
        bad_pp = rng.choice([3, 5, 6])
        F.patterns = {"e1": "is not divisible by tensor model parallel size"}
        F.root_cause = "The launch script set tensor-parallel %d x pipeline-parallel %d, whose product does not divide the world size %d, so Megatron argument validation failed on every rank." % (job.tp, bad_pp, job.W)
        F.remediation = "Fix TP/PP (or the node count) so that world_size is a multiple of TP*PP and relaunch."

        def inject(job, t, F=F, bad_pp=bad_pp):
            rng = job.rng
            for nn in range(job.nn):
                for r in range(8):
                    tt = t + rng.uniform(0, 2)
                    frames = [("/workspace/Megatron-LM/pretrain_gpt.py", 265, "<module>", "pretrain("),
                              ("/workspace/Megatron-LM/megatron/training/training.py", 230, "pretrain", "initialize_megatron("),
                              ("/workspace/Megatron-LM/megatron/training/initialize.py", 59, "initialize_megatron", "validate_args(args, args_defaults)"),
                              ("/workspace/Megatron-LM/megatron/training/arguments.py", 185, "validate_args", "assert args.world_size % total_model_size == 0, 'world size ({}) is not divisible by tensor model parallel size ({}) times pipeline model parallel size ({})'.format(")]
                    pyexc(job, nn, r, tt, frames, "AssertionError: world size (%d) is not divisible by tensor model parallel size (%d) times pipeline model parallel size (%d)" % (job.W, job.tp, bad_pp), "e1")
            teardown(job, t + 2, [(nn, 0) for nn in range(job.nn)], ec_first=1, timeout=False)
        F.inject = inject
        return F

    if kind == "bad_arg":
        F.stage, F.run_stage = "init", "init"
        F.iteration = None
        F.faulty = []
        F.category, F.subcategory, F.symptom = "user", "configuration", "launching_failure"
        F.patterns = {"e1": "Some specified arguments are not used by the HfArgumentParser"}
        F.root_cause = "The launch command passes an option the training script does not define (a typo'd flash-attention flag), so argument parsing fails on every rank."
        F.remediation = "Correct the flag name (e.g. --flash_attn fa2 -> the script's real option) and relaunch."

        def inject(job, t):
            rng = job.rng
            for nn in range(job.nn):
                for r in range(8):
                    tt = t + rng.uniform(0, 1)
                    frames = [("/workspace/src/train.py", 158, "<module>", "main()"),
                              ("/workspace/src/train.py", 47, "main", "model_args, data_args, training_args = parser.parse_args_into_dataclasses()"),
                              ("/usr/local/lib/python3.10/dist-packages/transformers/hf_argparser.py", 348, "parse_args_into_dataclasses", "raise ValueError(f\"Some specified arguments are not used by the HfArgumentParser: {remaining_args}\")")]
                    pyexc(job, nn, r, tt, frames, "ValueError: Some specified arguments are not used by the HfArgumentParser: ['--use_flash_attn2', 'true']", "e1")
            teardown(job, t + 1, [(nn, 0) for nn in range(job.nn)], ec_first=1, timeout=False)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- version incompatibility
    if kind in ("undefined_symbol", "undefined_symbol_node"):
        F.stage, F.run_stage = "init", "init"
        F.iteration = None
        node_local = kind == "undefined_symbol_node"
        F.faulty = [(n, None)] if node_local else []
        F.category, F.subcategory, F.symptom = "user", "software_incompatibility", "launching_failure"
        if cuda:
            F.patterns = {"e1": "undefined symbol: _ZN3c10"}
            lib = "/usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so"
            sym = rng.choice(["_ZN3c104cuda9SetDeviceEi", "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE"])
            frames = [("/workspace/Megatron-LM/pretrain_gpt.py" if job.fw == "megatron" else "/workspace/src/train.py", 12, "<module>", "from megatron.core.transformer.custom_layers import transformer_engine" if job.fw == "megatron" else "from transformers import AutoModelForCausalLM, Trainer"),
                      ("/usr/local/lib/python3.10/dist-packages/flash_attn/__init__.py", 3, "<module>", "from flash_attn.flash_attn_interface import ("),
                      ("/usr/local/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py", 15, "<module>", "import flash_attn_2_cuda as flash_attn_gpu")]
            F.root_cause = "The flash-attn wheel was built against a different PyTorch ABI than the installed torch%s, so importing it fails with an undefined c10 symbol." % (" in the image on the faulty node" if node_local else "")
            F.remediation = "Install a flash-attn build matching the torch/CUDA/C++ ABI of the image (or rebuild it from source)%s and relaunch." % (" on that node / pin the image digest for all nodes" if node_local else "")
        else:
            F.patterns = {"e1": "undefined symbol: _ZN3c10"}
            lib = "/usr/local/python3.9/lib/python3.9/site-packages/torch_npu/lib/libtorch_npu.so"
            sym = "_ZN3c1010Dispatcher17runRecordFunctionERN2at14RecordFunctionESt17reference_wrapperIKNS_14FunctionSchemaEENS_11DispatchKeyE"
            frames = [("/workspace/MindSpeed-LLM/pretrain_gpt.py", 6, "<module>", "import mindspeed.megatron_adaptor"),
                      ("/usr/local/python3.9/lib/python3.9/site-packages/mindspeed/megatron_adaptor.py", 9, "<module>", "import torch_npu"),
                      ("/usr/local/python3.9/lib/python3.9/site-packages/torch_npu/__init__.py", 19, "<module>", "import torch_npu.npu")]
            F.root_cause = "torch_npu was built for a different torch release than the one installed%s, so libtorch_npu.so fails to load with an undefined symbol." % (" on the faulty node" if node_local else "")
            F.remediation = "Install the torch_npu version that matches the installed torch and CANN (same image on every node) and relaunch."
        exc = "ImportError: %s: undefined symbol: %s" % (lib, sym)

        def inject(job, t, F=F, n=n, frames=frames, exc=exc, node_local=node_local):
            rng = job.rng
            nodes = [n] if node_local else range(job.nn)
            for nn in nodes:
                for r in range(8):
                    pyexc(job, nn, r, t + rng.uniform(0, 1), frames, exc, "e1")
            teardown(job, t + 1, [(nn, 0) for nn in nodes], ec_first=1, timeout=False)
            if node_local:
                # the others wait in rendezvous / store until they give up
                for nn in range(job.nn):
                    if nn == n:
                        continue
                    tt = t + 1800 + rng.uniform(0, 3)
                    for r in range(8):
                        if job.stack == "cuda":
                            job.emit(nn, tt, "[%s socket.cpp:1011] [c10d] The client socket has timed out after 1800000ms while trying to connect to (%s, 29500)." % (torch_glog9(job, nn, tt), job.master.host if nn else "127.0.0.1"), r, None, True)
                            job.emit(nn, tt, "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. %d/%d clients joined." % (job.W - 8, job.W), r, None, True)
                        else:
                            job.emit(nn, tt, "RuntimeError: The client socket has timed out after 1800s while trying to connect to (%s, 6000)." % job.master.ip, r)
                    launcher_fail(job, nn, tt + 1, 0, 1)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- script bug (job-wide)
    if kind == "script_bug":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = []
        F.category, F.subcategory, F.symptom = "user", "script_bug", "training_crash"
        if job.fw == "fsdp":
            exc = "KeyError: 'attention_mask'"
            frames = FSDP_FRAMES[:2] + [("/workspace/train_fsdp.py", 118, "log_metrics", "n_tokens = batch[\"attention_mask\"].sum()")]
            F.patterns = {"e1": "KeyError: 'attention_mask'"}
            F.root_cause = "The periodic metrics hook in train_fsdp.py reads batch['attention_mask'], which the packed-sequence collator no longer produces, so every rank raised KeyError at the first logging step."
        elif job.fw in ("megatron", "mindspeed"):
            exc = "TypeError: unsupported operand type(s) for /: 'NoneType' and 'int'"
            frames = MEG_FRAMES[:3] + [("/workspace/Megatron-LM/megatron/training/training.py", 1188, "train", "throughput = num_tokens / elapsed_time_per_iteration  # custom metric")]
            F.patterns = {"e1": "TypeError: unsupported operand type(s) for /"}
            F.root_cause = "A locally added throughput metric divides a value that is None on this code path, so every rank raised TypeError in the training loop."
        else:
            exc = "AttributeError: 'NoneType' object has no attribute 'item'"
            frames = HF_FRAMES[:3] + [("/workspace/src/callbacks.py", 64, "on_log", "logs['aux_loss'] = state.aux_loss.item()")]
            F.patterns = {"e1": "AttributeError: 'NoneType' object has no attribute 'item'"}
            F.root_cause = "A custom logging callback calls .item() on an auxiliary loss that is None for this model, crashing all ranks at a logging step."
        F.remediation = "Fix the user code path (guard the missing field / None value), test it on a single node, and resume from the last checkpoint."

        def inject(job, t, F=F, exc=exc, frames=frames):
            rng = job.rng
            for nn in range(job.nn):
                for r in range(8):
                    pyexc(job, nn, r, t + rng.uniform(0, 0.5), frames, exc, "e1")
            teardown(job, t + 1, [(nn, rng.randrange(8)) for nn in range(job.nn)], ec_first=1, timeout=False)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- framework bugs
    if kind == "zero3_bug":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = []
        F.category, F.subcategory, F.symptom = "framework", "framework_bug", "training_crash"
        pid_ = rng.randint(100, 900)
        F.patterns = {"e1": "'status': 'NOT_AVAILABLE'"}
        F.root_cause = "DeepSpeed ZeRO-3 parameter prefetching got out of sync with the module execution order (MoE router skipped an expert), leaving a parameter NOT_AVAILABLE in forward on every rank."
        F.remediation = "Upgrade DeepSpeed to a release with the ZeRO-3 MoE prefetch fix or mark the expert modules as ZeRO-3 leaf modules, then resume."

        def inject(job, t, F=F, pid_=pid_):
            rng = job.rng
            frames = [("/workspace/train.py", 412, "<module>", "main()"), ("/workspace/train.py", 366, "main", "loss = model_engine(**batch).loss"),
                      ("/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/parameter_offload.py", 386, "_pre_forward_module_hook", "self.pre_sub_module_forward_function(module)"),
                      ("/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partitioned_param_coordinator.py", 318, "fetch_sub_module", "assert param.ds_status == ZeroParamStatus.AVAILABLE, param.ds_summary()")]
            for nn in range(job.nn):
                for r in range(8):
                    pyexc(job, nn, r, t + rng.uniform(0, 0.5), frames,
                          "AssertionError: {'id': %d, 'status': 'NOT_AVAILABLE', 'numel': 0, 'ds_numel': 58720256, 'shape': (0,), 'ds_shape': (14336, 4096), 'requires_grad': True, 'grad_shape': None, 'persist': False, 'active_sub_modules': {%d}, 'ds_tensor.shape': torch.Size([%d])}" % (pid_, rng.randint(100, 999), 58720256 // job.W), "e1")
            teardown(job, t + 1, [(nn, 0) for nn in range(job.nn)], ec_first=1, timeout=False)
        F.inject = inject
        return F

    if kind == "aicore_bug":
        F.stage = F.run_stage = "training"
        F.iteration = job.start_iter + rng.randint(1, 3)
        F.faulty = []
        F.category, F.subcategory, F.symptom = "framework", "framework_bug", "training_crash"
        F.accept = ["framework/framework_bug", "user/software_incompatibility"]
        F.patterns = {"e1": "there is an aivec error exception"}
        F.root_cause = "A fused attention kernel in the framework/CANN operator library raised an AI Core vector exception (out-of-range MTE address) on every device at the first steps."
        F.remediation = "Disable the fused operator (fall back to the reference implementation) or upgrade CANN/MindSpore to a fixed release, then rerun."

        def inject(job, t):
            rng = job.rng
            for nn in range(job.nn):
                for r in range(8):
                    tt = t + rng.uniform(0, 0.5)
                    pid = job.nodes[nn].pid + r
                    job.emit(nn, tt, "[ERROR] KERNEL(%d,ffff%s,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:1133] DumpTaskExceptionInfo] Task fail infos task_id: %d, stream_id: %d, tid: %d, device_id: %d, retcode: 507015 ( aicore exception)" % (pid, hexid(rng, 8), job.ts_cann(nn, tt), rng.randint(100, 9000), rng.randint(2, 20), pid, r), r)
                    job.emit(nn, tt, "EZ9999: Inner Error!", r)
                    job.emit(nn, tt, "EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, there is an aivec error exception, core id is %d, error code = 0x800000, dump info: pc start: 0x124837587968, current: 0x124837588284, vec error info: 0x680000016f, mte error info: 0x200600006b, ifu error info: 0x2000111ee30c0, ccu error info: 0x8a6d50d07a800075, cube error info: 0, biu error info: 0, aic error mask: 0x6500020bd000288, para base: 0x124100433000.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1434]" % (pid, job.ts_cann(nn, tt), r, rng.randint(1, 300), rng.randint(0, 23)), r, "e1")
                    job.emit(nn, tt, "        TraceBack (most recent call last):", r)
                    job.emit(nn, tt, "       The extend info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x600006b, fixp_error1 info: 0x20, fsmId:0, tslot:4, thread:0, ctxid:0, blk:33, sublk:0, subErrType:4.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1446]", r)
                    job.emit(nn, tt, "       Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1493]", r)
                    pyexc(job, nn, r, tt + 0.01, MS_FRAMES, "RuntimeError: Launch kernel failed, name:Default/network-PanguAlphaWithLoss/network-PanguAlphaModel/FlashAttentionScore-op%d" % rng.randint(100, 999))
            teardown(job, t + 1, [(0, 0)], ec_first=1, timeout=False)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- storage
    if kind in ("ckpt_enospc", "nfs_stale"):
        F.stage, F.run_stage = "checkpoint", "checkpoint"
        F.iteration = pick_save_iter(job, rng)
        F.category, F.subcategory, F.symptom = "hardware", "storage", "training_crash"
        writer = k if job.fw in ("fsdp", "deepspeed", "mindspore") else 0
        F.faulty = [(n, writer)]
        if kind == "ckpt_enospc":
            F.patterns = {"e1": "No space left on device"}
            F.accept = ["hardware/storage", "platform/resource_management"]
            F.root_cause = "The node-local checkpoint staging volume on the faulty node was full, so writing its checkpoint shard failed with ENOSPC."
            F.remediation = "Free or enlarge the staging volume (clean old checkpoints, add a retention policy) and resume from the last complete checkpoint."
        else:
            F.patterns = {"e1": "Stale file handle"}
            F.accept = ["hardware/storage", "platform/platform_configuration"]
            F.root_cause = "The NFS mount on the faulty node returned ESTALE after a storage-server failover, so its checkpoint write failed while other nodes saved normally."
            F.remediation = "Remount the NFS export on that node (or drain it), verify the storage server, and resume from the last complete checkpoint."
        F.n = n

        def inject(job, t, F=F, n=n, writer=writer):
            rng = job.rng
            path = "%s/iter_%07d/__%d_0.distcp" % (job.ckpt_dir, F.iteration, job.g(n, writer)) if job.fw in ("megatron", "mindspeed", "fsdp") else \
                   "%s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (job.ckpt_dir, F.iteration, job.g(n, writer)) if job.fw == "deepspeed" else \
                   "%s/rank_%d/pangu_rank_%d-%d_1.ckpt" % (job.ckpt_dir, job.g(n, writer), job.g(n, writer), F.iteration)
            if F.kind == "ckpt_enospc":
                path = path.replace(job.ckpt_dir, "/local_nvme/ckpt_stage")
                frames = train_frames(job)[:2] + [("/usr/local/lib/python3.10/dist-packages/torch/serialization.py", 652, "save", "with _open_zipfile_writer(f) as opened_zipfile:"),
                                                   ("/usr/local/lib/python3.10/dist-packages/torch/serialization.py", 864, "_save", "zip_file.write_record(name, storage, num_bytes)")]
                job.emit(n, t - 0.5, "[W%s] Warning: unexpected pos %d vs %d (function operator())" % (job.ts_glog(n, t - 0.5, "")[0:], rng.randint(10 ** 9, 2 * 10 ** 9), rng.randint(10 ** 8, 10 ** 9)) if False else
                         "write failed for %s: [Errno 28] No space left on device" % path, writer, "e1")
                pyexc(job, n, writer, t, frames, "OSError: [Errno 28] No space left on device", "e1")
            else:
                frames = train_frames(job)[:2] + [("/usr/local/lib/python3.10/dist-packages/torch/distributed/checkpoint/filesystem.py", 472, "write_data", "with create_stream(path, \"wb\") as stream:")]
                pyexc(job, n, writer, t, frames, "OSError: [Errno 116] Stale file handle: '%s'" % path, "e1")
            teardown(job, t, [(n, writer)], ec_first=1)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- host memory / shm
    if kind in ("host_oom", "dataloader_killed", "shm_bus"):
        F.faulty = [(n, k)]
        if kind == "host_oom":
            F.stage, F.run_stage = "model_loading", "ckpt_loading"
            if job.start_iter == 0:
                job.start_iter = 2000
            F.iteration = None
            F.category, F.subcategory, F.symptom = "platform", "resource_management", "launching_failure"
            F.accept = ["platform/resource_management", "user/configuration"]
            F.patterns = {"e1": "Out of memory: Killed process", "e2": "failed (exitcode: -9)"}
            F.root_cause = "While all eight ranks loaded full optimizer states into host RAM, the faulty node (with less free memory because of a co-located service) triggered the kernel OOM killer."
            F.remediation = "Load checkpoints rank-by-rank or memory-mapped, reserve enough host memory for the job (exclusive node / memory limit), then relaunch."
        elif kind == "dataloader_killed":
            F.stage = F.run_stage = "training"
            F.iteration = pick_iter(job, rng)
            F.category, F.subcategory, F.symptom = "user", "configuration", "training_crash"
            F.accept = ["user/configuration", "platform/resource_management"]
            F.patterns = {"e1": "is killed by signal: Killed", "e2": "Out of memory: Killed process"}
            F.root_cause = "DataLoader workers (too many workers with large prefetch) exhausted host RAM on the faulty node and the kernel OOM killer killed a worker."
            F.remediation = "Reduce num_workers/prefetch_factor or move preprocessing offline, then resume from the last checkpoint."
        else:
            F.stage, F.run_stage = "data_loading", "data_loading"
            F.iteration = None
            F.category, F.subcategory, F.symptom = "platform", "platform_configuration", "launching_failure"
            F.accept = ["platform/platform_configuration", "platform/resource_management"]
            F.patterns = {"e1": "Unexpected bus error encountered in worker", "e2": "exited unexpectedly"}
            F.root_cause = "The container on the faulty node was started with a tiny /dev/shm, so DataLoader workers crashed with SIGBUS when passing batches through shared memory."
            F.remediation = "Give the container a larger shared-memory segment (--shm-size / emptyDir medium Memory) on all nodes and relaunch."

        def inject(job, t, F=F, n=n, k=k):
            rng = job.rng
            nd = job.nodes[n]
            wpid = nd.pid + 900 + rng.randint(0, 90)
            if F.kind == "host_oom":
                victim = nd.pid + k
                ok = kernel(job, n, t, "Out of memory: Killed process %d (python3) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (victim, rng.randint(3 * 10 ** 8, 4 * 10 ** 8), rng.randint(2 * 10 ** 8, 2.6 * 10 ** 8), rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 6, 10 ** 7), rng.randint(4 * 10 ** 5, 8 * 10 ** 5)), k, "e1")
                if job.S["layout"] == "slurm":
                    job.console(t + 3, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.job_id)
                nd2 = job.nodes[n]
                apid = nd2.pid - 40
                if job.S["launcher"] in ("torchrun", "accelerate"):
                    job.emit(n, t + 1, "%s %d torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: -9) local_rank: %d (pid: %d) of binary: /usr/bin/python3" % (job.ts_glog(n, t + 1, "E"), apid, k, victim), None, "e2")
                    launcher_fail(job, n, t + 2, k, -9)
                else:
                    job.emit(n, t + 1, "%s [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=%d', '--deepspeed', 'ds_z3.json'] exits with return code = -9" % (job.ts_br(n, t + 1), k), None, "e2")
                    F.patterns["e2"] = "exits with return code = -9"
                    for kk in range(8):
                        job.emit(n, t + 1.5, "%s [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d" % (job.ts_br(n, t + 1.5), nd.pid + kk))
                teardown(job, t + 2, [], timeout=True, skip_nodes=[n])
            elif F.kind == "dataloader_killed":
                kernel(job, n, t - 1, "Out of memory: Killed process %d (pt_data_worker) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (wpid, rng.randint(3 * 10 ** 7, 9 * 10 ** 7), rng.randint(2 * 10 ** 7, 5 * 10 ** 7), rng.randint(10 ** 4, 10 ** 5), rng.randint(10 ** 5, 10 ** 6), rng.randint(10 ** 5, 3 * 10 ** 5)), k, "e2")
                frames = train_frames(job)[:3] + [("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1284, "_get_data", "success, data = self._try_get_data()"),
                                                   ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1132, "_try_get_data", "data = self._data_queue.get(timeout=timeout)"),
                                                   ("/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/signal_handling.py", 66, "handler", "_error_if_any_worker_fails()")]
                pyexc(job, n, k, t, frames, "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wpid, "e1")
                teardown(job, t, [(n, k)], ec_first=1)
            else:
                for r in sorted(set([k, (k + 3) % 8])):
                    job.emit(n, t, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", r, "e1")
                    frames = train_frames(job)[:2] + [("/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py", 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]
                    pyexc(job, n, r, t + 0.2, frames, "RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % (wpid + r), "e2")
                teardown(job, t, [(n, k)], ec_first=1)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- node lost / MCE
    if kind in ("node_lost", "mce_node"):
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = [(n, None)]
        F.category, F.subcategory, F.symptom = "hardware", "node", "training_crash"
        if kind == "mce_node":
            F.patterns = {"e1": "Machine Check"}
            F.root_cause = "The faulty host logged uncorrected machine-check errors and then went down, silencing all its ranks; the rest of the job timed out in collectives."
        else:
            F.patterns = {}
            F.root_cause = "The faulty host became unreachable (node failure) mid-training; its log simply stops and the other nodes report it as gone or time out waiting for it."
        F.remediation = "Drain the node and have it inspected (BMC/SEL logs, memory/CPU), then restart the job from the last checkpoint without it."
        F.hosts_extra = [job.nodes[n].ip]

        def inject(job, t, F=F, n=n):
            rng = job.rng
            nd = job.nodes[n]
            if F.kind == "mce_node":
                kernel(job, n, t - 5, "mce: [Hardware Error]: Machine check events logged", None, "e1")
                kernel(job, n, t - 4.9, "mce: [Hardware Error]: CPU %d: Machine Check: 0 Bank 7: be00000001010091" % rng.randint(0, 95), None, "e1")
                kernel(job, n, t - 4.8, "mce: [Hardware Error]: TSC 0 ADDR %x MISC 200000c000002086 PPIN 19ba8d4e3bb6f4a1" % rng.randint(2 ** 30, 2 ** 36))
                kernel(job, n, t - 4.7, "EDAC skx MC2: HANDLING MCE MEMORY ERROR", None)
                kernel(job, n, t - 4.6, "Kernel panic - not syncing: Fatal machine check", None, "e1")
            job.ended[n] = True
            ev = "e1" if F.kind == "node_lost" else None
            # evidence on others: platform / scheduler notices naming the host
            if job.S["layout"] == "slurm":
                job.console(t + 65, "srun: error: Node failure on %s" % nd.host, ev)
                job.console(t + 66, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (job.job_id, job.master.host, job.clk(0, t + 66).strftime("%Y-%m-%dT%H:%M:%S")), "e2" if ev else None)
                if F.kind == "node_lost":
                    F.patterns = {"e1": "Node failure on", "e2": "DUE TO NODE FAILURE"}
            else:
                if F.kind == "node_lost":
                    F.patterns = {"e1": "NotReady"}
                agent_line(job, 0, t + 45, "node %s (%s) NotReady: kubelet stopped posting node status (last heartbeat %s)" % (nd.host, nd.ip, job.clk(0, t).strftime("%H:%M:%S")), None, ev)
                # IB peers report the dead host
                if job.stack == "cuda":
                    for pn in rng.sample([x for x in range(job.nn) if x != n], min(3, job.nn - 1)):
                        r = rng.randrange(8)
                        job.nccl(pn, r, "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (nd.ip, rng.randint(30000, 60000), job.nodes[pn].ip, nd.ip), kind="WARN", t=t + 8, src="transport/net_ib.cc:1696")
            teardown(job, t, [], timeout=True, skip_nodes=[n], remote_g=job.g(n, 0))
        F.inject = inject
        return F

    # ---------------------------------------------------------------- preemption
    if kind == "preempt":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = []
        F.category, F.subcategory, F.symptom = "platform", "scheduling", "training_crash"
        F.accept = ["platform/scheduling"]
        if job.S["layout"] == "slurm":
            F.patterns = {"e1": "DUE TO PREEMPTION"}
        else:
            F.patterns = {"e1": "preempted by higher-priority"}
        F.root_cause = "The scheduler preempted the job for a higher-priority workload; all ranks were sent SIGTERM at once, no process failed on its own."
        F.remediation = "Resubmit with an appropriate priority/QoS or a reservation and enable automatic requeue with resume from the latest checkpoint."

        def inject(job, t, F=F):
            rng = job.rng
            if job.S["layout"] == "slurm":
                job.console(t, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.job_id, job.master.host, job.clk(0, t).strftime("%Y-%m-%dT%H:%M:%S")), "e1")
                job.console(t + 0.1, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.job_id, job.master.host, job.clk(0, t).strftime("%Y-%m-%dT%H:%M:%S")), "e1")
                job.console(t + 0.2, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            for nn in range(job.nn):
                tt = t + rng.uniform(0, 1)
                if job.S["layout"] != "slurm":
                    agent_line(job, nn, tt - 0.5, "pod %s-worker-%d evicted: preempted by higher-priority job %s (priority 1000 > 100); sending SIGTERM, grace period 30s" % (job.S["model"], nn, rng.choice(["team-infer/online-serving", "ads/rank-retrain"])), None, "e1")
                apid = job.nodes[nn].pid - 40
                if job.S["launcher"] in ("torchrun", "accelerate"):
                    job.emit(nn, tt, "%s %d torch/distributed/elastic/agent/server/api.py:695] Received 15 death signal, shutting down workers" % (job.ts_glog(nn, tt, "W"), apid))
                    for r in range(8):
                        job.emit(nn, tt, "%s %d torch/distributed/elastic/multiprocessing/api.py:858] Sending process %d closing signal SIGTERM" % (job.ts_glog(nn, tt, "W"), apid, job.nodes[nn].pid + r))
                    job.emit(nn, tt + 2, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % apid)
                else:
                    job.emit(nn, tt, "%s [INFO] [launch.py:325:sigkill_handler] Main process received SIGTERM, exiting" % job.ts_br(nn, tt) if job.S["launcher"] == "deepspeed" else "received signal 15, exiting", 0)
        F.inject = inject
        return F

    # ---------------------------------------------------------------- slow node / hang
    if kind in ("straggler", "npu_straggler"):
        F.stage = F.run_stage = "training"
        F.slow_from = pick_iter(job, rng, 40, 400)
        F.iteration = F.slow_from + rng.randint(150, 500)
        F.slow_factor = rng.uniform(1.6, 2.6)
        F.slow_node, F.slow_gpu = n, k
        F.faulty = [(n, None)]
        F.iters_label = [F.slow_from]
        F.category, F.subcategory, F.symptom = "hardware", "accelerator", "abnormal_behavior"
        if cuda:
            F.patterns = {"e1": "HW_SLOWDOWN"}
            F.root_cause = "GPU %d on the faulty node entered hardware slowdown (thermal/power brake) and its clocks collapsed, so every synchronous step waited for it (job-wide slowdown)." % k
        else:
            F.patterns = {"e1": "frequency reduced"}
            F.root_cause = "NPU %d on the faulty node throttled its AI Core frequency (over-temperature), turning that rank into a straggler that slowed all collectives." % k
        F.remediation = "Drain the node, check cooling/power (fans, PSU, inlet temperature) and the device health, then resume without it."

        def on_log(job, it, t, F=F, n=n, k=k):
            if it >= F.slow_from and it - getattr(F, "last_warn", -10 ** 9) >= 20:
                F.last_warn = it
                if job.stack == "cuda":
                    agent_line(job, n, t + 0.3, "WARN gpu%d clocks_event_reasons=0x%x (HW_SLOWDOWN, HW_THERMAL_SLOWDOWN) sm_clk=%dMHz temp=%dC" % (k, 0x48, job.rng.randint(540, 810), job.rng.randint(88, 94)), k, "e1")
                else:
                    agent_line(job, n, t + 0.3, "WARN npu%d aicore frequency reduced to %dMHz (over-temperature, %dC)" % (k, job.rng.choice([800, 1000]), job.rng.randint(96, 105)), k, "e1")
        F.on_log = on_log

        def inject(job, t, F=F):
            rng = job.rng
            # the user / platform watchdog kills the job for low throughput
            for nn in range(job.nn):
                agent_line(job, nn, t, "job throughput %.0f%% of baseline for 30 min; terminating job per policy slow-job-killer" % (100 / F.slow_factor), None)
                if job.S["launcher"] in ("torchrun", "accelerate"):
                    apid = job.nodes[nn].pid - 40
                    job.emit(nn, t + 1, "%s %d torch/distributed/elastic/agent/server/api.py:695] Received 15 death signal, shutting down workers" % (job.ts_glog(nn, t + 1, "W"), apid))
                    job.emit(nn, t + 2, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % apid)
            if job.S["layout"] == "slurm":
                job.console(t + 1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (job.job_id, job.master.host, job.clk(0, t).strftime("%Y-%m-%dT%H:%M:%S")))
        F.inject = inject
        return F

    if kind == "nfs_hang":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = [(n, None)]
        F.category, F.subcategory, F.symptom = "hardware", "storage", "abnormal_behavior"
        F.accept = ["hardware/storage", "platform/platform_configuration"]
        F.patterns = {"e1": "not responding, still trying"}
        server = rng.choice(["nas-03", "fs-gpfs-io2", "10.8.0.21"])
        F.root_cause = "The NFS client on the faulty node lost its server (%s) and its data-loader reads blocked, so the node stopped stepping and the whole job hung in the next collective." % server
        F.remediation = "Check the NFS server/network path for that node, remount or drain it, then cancel and resume the job from the last checkpoint."

        def inject(job, t, F=F, n=n, server=server):
            rng = job.rng
            # everyone stops after this step; faulty node's kernel complains repeatedly
            for j in range(rng.randint(3, 8)):
                tt = t + 20 + j * 180
                if not kernel(job, n, tt, "nfs: server %s not responding, still trying" % server, None, "e1"):
                    agent_line(job, n, tt, "kernel: nfs: server %s not responding, still trying" % server, 0, "e1")
            # hang: nothing else; user cancels after a long time
            tc = t + rng.uniform(2400, 5000)
            if job.S["layout"] == "slurm":
                job.console(tc, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (job.job_id, job.master.host, job.clk(0, tc).strftime("%Y-%m-%dT%H:%M:%S")))
            for nn in range(job.nn):
                if job.S["launcher"] in ("torchrun", "accelerate"):
                    apid = job.nodes[nn].pid - 40
                    job.emit(nn, tc + 1, "%s %d torch/distributed/elastic/agent/server/api.py:695] Received 15 death signal, shutting down workers" % (job.ts_glog(nn, tc + 1, "W"), apid))
                    job.emit(nn, tc + 2, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % apid)
                elif job.S["launcher"] == "deepspeed":
                    job.emit(nn, tc + 1, "%s [INFO] [launch.py:325:sigkill_handler] Main process received SIGTERM, exiting" % job.ts_br(nn, tc + 1))
        F.inject = inject
        return F

    # ---------------------------------------------------------------- Ascend device / HCCL
    if kind == "hbm_ecc":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = [(n, k)]
        F.category, F.subcategory, F.symptom = "hardware", "accelerator", "training_crash"
        F.patterns = {"e1": "hbm Multi-bit ECC error", "e2": "error code is 507053"}
        F.root_cause = "NPU %d on the faulty node hit an uncorrectable multi-bit HBM ECC error, aborting its task; every peer then timed out waiting on HCCL notifies." % k
        F.remediation = "Isolate the NPU/node, run the vendor HBM diagnostics (npu-smi info -t health, hot-reset or replace), and resume from the last checkpoint."

        def inject(job, t, F=F, n=n, k=k):
            rng = job.rng
            pid = job.nodes[n].pid + k
            if job.fw == "mindspore":
                job.emit(n, t, "[ERROR] DEVICE(%d,ffff%s,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/hardware/ge_device_res_manager.cc:501] SyncAllStreams] Sync stream failed, error code is 507053" % (pid, hexid(rng, 8), job.ts_cann(n, t)), k, "e2")
            else:
                job.emit(n, t, "RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507053", k, "e2")
                job.emit(n, t, "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed" % (job.clk(n, t).strftime("%Y-%m-%d-%H:%M:%S"), pid, k, job.g(n, k)), k)
            job.emit(n, t, "[Error]: The device memory checked is abnormal.", k)
            job.emit(n, t, "        Rectify the fault based on the error information in the ascend log.", k)
            job.emit(n, t, "EZ9999: Inner Error!", k)
            job.emit(n, t, "EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, hbm Multi-bit ECC error occurred on device, error addr=0x%x, time=%s.[FUNC:ProcessHbmEccErrorInfo][FILE:device_error_proc.cc][LINE:1025]" % (pid, job.ts_cann(n, t), k, rng.randint(1, 300), rng.randint(2 ** 30, 2 ** 35), job.clk(n, t).strftime("%Y-%m-%d %H:%M:%S")), k, "e1")
            job.emit(n, t, "        TraceBack (most recent call last):", k)
            job.emit(n, t, "        rtDeviceSynchronize execute failed, reason=[hbm Multi-bit ECC error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]", k, "e1")
            kernel(job, n, t - 0.5, "[ascend] [drv] devdrv_hbm_ecc_handler: device %d hbm multi-bit ecc error, addr 0x%x" % (k, rng.randint(2 ** 30, 2 ** 35)), k)
            teardown(job, t, [(n, k)], ec_first=1, remote_g=job.g(n, k))
        F.inject = inject
        return F

    if kind == "hccl_roce":
        F.stage = F.run_stage = "training"
        F.iteration = pick_iter(job, rng)
        F.faulty = [(n, k)]
        F.category, F.subcategory, F.symptom = "hardware", "network", "training_crash"
        F.patterns = {"e1": "error cqe", "e2": "link status: DOWN"}
        F.root_cause = "The RoCE port of NPU %d on the faulty node went down; HCCL on that rank received error CQEs and the collective never completed for the peers." % k
        F.remediation = "Check the NPU NIC link (hccn_tool -i %d -link -g, optics, switch port), replace the faulty optic/cable, and resume from checkpoint." % k
        F.hosts_extra = [job.nodes[n].ip]

        def inject(job, t, F=F, n=n, k=k):
            rng = job.rng
            pid = job.nodes[n].pid + k
            dev_ip = "29.%d.%d.%d" % (rng.randint(1, 200), n, 10 + k)
            agent_line(job, n, t - 3, "hccn_tool -i %d -link -g: link status: DOWN (was UP, %d flaps in 60s)" % (k, rng.randint(1, 5)), k, "e2")
            for j in range(rng.randint(2, 4)):
                job.emit(n, t + j * 0.01, "[ERROR] HCCL(%d,python):%s [transport_roce_mem.cc:%d][%d]error cqe status[0xc], qp_num[%d], local ip[%s], remote ip[29.%d.%d.%d]" % (pid, job.ts_cann(n, t + j * 0.01), rng.choice([492, 506]), pid, rng.randint(100, 3000), dev_ip, rng.randint(1, 200), rng.randrange(job.nn), 10 + k), k, "e1")
            teardown(job, t + 1, [(n, k)], ec_first=1, remote_g=job.g(n, k))
        F.inject = inject
        return F

    if kind == "hccl_port":
        F.stage, F.run_stage = "init", "init_late"
        F.iteration = None
        F.faulty = [(n, k)]
        F.category, F.subcategory, F.symptom = "user", "misoperation", "launching_failure"
        F.accept = ["user/misoperation", "platform/resource_management"]
        F.patterns = {"e1": "and specific port["}
        port = 16666 + k
        F.root_cause = "A leftover process from a previous run still held HCCL port %d on the faulty node, so HCCL could not listen there and every other rank timed out establishing sockets (EI0006)." % port
        F.remediation = "Kill stale training processes on the node (or reboot it), ensure jobs are cleaned up on exit, and relaunch."

        def inject(job, t, F=F, n=n, k=k, port=port):
            rng = job.rng
            pid = job.nodes[n].pid + k
            ip = job.nodes[n].ip
            for j in range(2):
                job.emit(n, t + j, "[ERROR] HCCL(%d,python):%s [hccl_socket.cc:100] [%d][HcclSocket][Listen] socket type[1], listen on ip[%s] and specific port[%d] fail. Please check the port status and whether the port is been using by other process." % (pid, job.ts_cann(n, t + j), pid, ip, port), k, "e1")
            job.emit(n, t + 1, "[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:54] [%d][ServerInit]call trace: hcclRet -> 19" % (pid, job.ts_cann(n, t + 1), pid), k)
            job.emit(n, t + 1, "RuntimeError: create:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:%d HCCL function error: HcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 19" % rng.choice([102, 120]), k)
            launcher_fail(job, n, t + 2, k, 1)
            for nn in range(job.nn):
                for r in range(8):
                    if nn == n and r == k:
                        continue
                    tt = t + 120 + rng.uniform(0, 3)
                    p2 = job.nodes[nn].pid + r
                    job.emit(nn, tt, "[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:778] [%d][Wait][LinkEstablish]wait socket establish timeout, role[1] rank[%d] timeout[120]" % (p2, job.ts_cann(nn, tt), p2, job.g(nn, r)), r)
                    job.emit(nn, tt, "EI0006: [PID: %d] %s Getting socket times out. Reason: Remote Rank did not send the data in time. Please check the reason for the rank being stuck" % (p2, job.ts_cann(nn, tt)), r)
                    job.emit(nn, tt, "        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default). If so, adjust the timeout interval by using the HCCL_CONNECT_TIMEOUT environment variable.3. Check the connectivity of the communication link between nodes. (For details, see the TLS command and HCCN connectivity check examples.)", r)
                    job.emit(nn, tt + 0.1, "RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: HcclAllreduce, error code is 6", r)
                if nn != n:
                    launcher_fail(job, nn, t + 125, rng.randrange(8), 1)
        F.inject = inject
        return F

    if kind == "ms_oom":
        F.stage, F.run_stage = "model_loading", "model_loading"
        F.iteration = None
        F.faulty = [(n, r) for r in range(8)] if False else [(n, k)]
        F.category, F.subcategory, F.symptom = "user", "configuration", "launching_failure"
        F.accept = ["user/configuration"]
        F.patterns = {"e1": "memory isn't enough and alloc failed"}
        F.root_cause = "The first pipeline stage (embedding + layers) on the faulty device needs more device memory than the NPU has at graph build, so MindSpore failed to allocate memory."
        F.remediation = "Rebalance the pipeline stages / enable recompute or optimizer parallel and lower micro-batch, then relaunch."

        def inject(job, t, F=F, n=n, k=k):
            rng = job.rng
            pid = job.nodes[n].pid + k
            job.emit(n, t, "[EXCEPTION] DEVICE(%d,ffff%s,python):%s [mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:%d] Run] Device(id:%d) memory isn't enough and alloc failed, kernel name: Default/network-PanguAlphaWithLoss/network-PanguAlphaModel/MatMul-op%d, alloc size: %dB." % (pid, hexid(rng, 8), job.ts_cann(n, t), rng.randint(900, 1300), k, rng.randint(100, 999), rng.randint(10 ** 9, 4 * 10 ** 9)), k, "e1")
            pyexc(job, n, k, t + 0.1, MS_FRAMES[:2] + [("/usr/local/python3.9/lib/python3.9/site-packages/mindspore/train/model.py", 633, "_init", "train_network.compile(*inputs)")],
                  "RuntimeError: Device(id:%d) memory isn't enough and alloc failed, kernel name: Default/network-PanguAlphaWithLoss/network-PanguAlphaModel/MatMul-op%d, alloc size: %dB." % (k, rng.randint(100, 999), rng.randint(10 ** 9, 4 * 10 ** 9)), "e1")
            teardown(job, t, [(n, k)], ec_first=1)
        F.inject = inject
        return F

    raise ValueError(kind)


# ----------------------------------------------------------------------------
# writing jobs to disk (layouts) and labels
# ----------------------------------------------------------------------------

def console_name(job):
    L = job.S["layout"]
    if L == "slurm":
        return "slurm-%d" % job.job_id
    if L == "console":
        return "train_console"
    return None


def node_name(job, n, lr):
    L = job.S["layout"]
    nd = job.nodes[n]
    if L in ("per_node", "per_node_tee"):
        return nd.fname
    if L == "per_rank":
        return "%s/rank_%d" % (nd.host, lr) if lr is not None else "%s/launcher" % nd.host
    if L == "msrun":
        return "worker_%d" % job.g(n, lr) if lr is not None else "scheduler"
    if L == "console":
        return "rank%d" % job.g(n, lr) if lr is not None else "train_console"
    if L == "slurm":
        return "rank%d" % n
    raise ValueError(L)


def render(job):
    """Return {relpath: [(t, text, ev, nodename), ...]} following the setting's layout."""
    S = job.S
    L = S["layout"]
    files = {}

    def add(rel, name, t, text, ev):
        files.setdefault(rel, []).append((t, text, ev, name))

    for n, nd in enumerate(job.nodes):
        for ln in job.lines[n]:
            text = ln.text
            g = job.g(n, ln.lr) if ln.lr is not None else None
            if ln.pfx and g is not None and L != "console":
                text = "[rank%d]:%s" % (g, text if text.startswith("[") else " " + text)
            if L == "per_node":
                add(nd.fname + S["ext"], nd.fname, ln.t, text, ln.ev)
            elif L == "per_node_tee":
                if ln.lr is not None:
                    text = "[default%d]:%s" % (ln.lr, text)
                add(nd.fname + S["ext"], nd.fname, ln.t, text, ln.ev)
            elif L == "per_rank":
                if ln.lr is None:
                    add("%s/launcher.log" % nd.host, node_name(job, n, None), ln.t, text, ln.ev)
                else:
                    add("%s/rank_%d.log" % (nd.host, ln.lr), node_name(job, n, ln.lr), ln.t, text, ln.ev)
            elif L == "msrun":
                if ln.lr is None:
                    if n == 0:
                        add("%s/scheduler.log" % nd.host, "scheduler", ln.t, text, ln.ev)
                else:
                    add("%s/worker_%d.log" % (nd.host, g), node_name(job, n, ln.lr), ln.t, text, ln.ev)
            elif L == "console":
                if ln.lr is None:
                    add("train_console.log", "train_console", ln.t, text, ln.ev)
                else:
                    add("train_console.log", node_name(job, n, ln.lr), ln.t, "[rank%d]:%s" % (g, text), ln.ev)
            elif L == "slurm":
                add("slurm-%d.out" % job.job_id, "rank%d" % n, ln.t, "%d: %s" % (n, text), ln.ev)
    cn = console_name(job)
    if cn:
        rel = "slurm-%d.out" % job.job_id if L == "slurm" else "train_console.log"
        for ln in job.console_lines:
            add(rel, cn, ln.t, ln.text, ln.ev)
    for rel in files:
        files[rel].sort(key=lambda x: x[0])
    return files


def write_logs(files, logdir):
    """Write files; return {ev: {node: [lineno]}} and {node: [(lineno, text)]}."""
    ev_lines = {}
    by_node = {}
    for rel, lines in sorted(files.items()):
        p = os.path.join(logdir, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            for i, (t, text, ev, name) in enumerate(lines, 1):
                f.write(text + "\n")
                by_node.setdefault(name, []).append((i, text))
                if ev:
                    ev_lines.setdefault(ev, {}).setdefault(name, []).append(i)
    return ev_lines, by_node


def build_label(job, F, ev_lines, by_node):
    events = []
    for ev in sorted(ev_lines):
        pat = F.patterns.get(ev)
        if pat is None:
            raise RuntimeError("no pattern for %s in %s" % (ev, F.kind))
        lines = {}
        for node in ev_lines[ev]:
            # every line of that message type on that node (complete the set)
            lines[node] = sorted(i for i, text in by_node[node] if pat in text)
        first_node = sorted(lines, key=lambda x: lines[x][0])[0]
        first_ln = lines[first_node][0]
        text = [tx for i, tx in by_node[first_node] if i == first_ln][0]
        events.append({"id": ev, "text": text, "lines": lines})
    if F.faulty_override is not None:
        faulty = F.faulty_override
    else:
        faulty = []
        for (n, lr) in F.faulty:
            nm = node_name(job, n, lr)
            if nm not in faulty:
                faulty.append(nm)
    hosts = []
    for (n, lr) in F.faulty:
        nd = job.nodes[n]
        if node_name(job, n, lr) != nd.host and nd.host not in hosts:
            hosts.append(nd.host)
    for h in F.hosts_extra:
        if h not in hosts:
            hosts.append(h)
    iters = getattr(F, "iters_label", None)
    if iters is None:
        iters = [F.iteration] if F.stage in ("training", "checkpoint") and F.iteration else []
    label = {
        "schema": "l4-label/1",
        "setting": job.setting,
        "stack": job.stack,
        "category": F.category, "subcategory": F.subcategory,
        "symptom": F.symptom,
        "faulty_nodes": faulty,
        "stage": F.stage,
        "iterations": iters,
        "fault_events": events,
        "root_cause": F.root_cause,
        "remediation": F.remediation,
    }
    if F.accept:
        label["accept"] = F.accept
    if hosts:
        label["hosts"] = hosts
    return label


# ----------------------------------------------------------------------------
# independent verification: re-read the files with the CONTRACTS node rules
# ----------------------------------------------------------------------------

import re

LOG_EXT = re.compile(r"(\.(log|txt|out))(\.gz)?$")
PFX_SRUN = re.compile(r"^(\d+): ")
PFX_RANK = re.compile(r"^\[(?:rank|default)(\d+)\]:")


def reread(logdir):
    """{node: {lineno: text}} derived only from the files on disk."""
    paths = []
    for root, _, fs in os.walk(logdir):
        for fn in fs:
            if LOG_EXT.search(fn):
                paths.append(os.path.join(root, fn))
    base = {}
    for p in paths:
        b = LOG_EXT.sub("", os.path.basename(p))
        base.setdefault(b, []).append(p)
    nodes = {}
    for p in sorted(paths):
        b = LOG_EXT.sub("", os.path.basename(p))
        name = b if len(base[b]) == 1 else "%s/%s" % (os.path.basename(os.path.dirname(p)), b)
        with open(p) as f:
            lines = f.read().split("\n")[:-1]
        # combined console? (many different launcher prefixes across the file)
        srun = set(m.group(1) for m in (PFX_SRUN.match(x) for x in lines) if m)
        rank = set(m.group(1) for m in (re.match(r"^\[rank(\d+)\]:", x) for x in lines) if m)
        is_console = b.startswith("slurm-") or b == "train_console"
        for i, x in enumerate(lines, 1):
            nm = name
            if is_console:
                m = PFX_SRUN.match(x) if srun else re.match(r"^\[rank(\d+)\]:", x)
                if m:
                    nm = "rank%s" % m.group(1)
            nodes.setdefault(nm, {})[i] = x
    return nodes


def verify_case(case_dir, patterns):
    label = json.load(open(os.path.join(case_dir, "label.json")))
    nodes = reread(os.path.join(case_dir, "logs"))
    errs = []
    alltext = None
    for fn in label["faulty_nodes"]:
        if fn not in nodes:
            errs.append("faulty node %s not a node" % fn)
    for ev in label["fault_events"]:
        pat = patterns[ev["id"]]
        for node, lns in ev["lines"].items():
            if node not in nodes:
                errs.append("event node %s missing" % node)
                continue
            for i in lns:
                if pat not in nodes[node].get(i, ""):
                    errs.append("%s %s:%d lacks %r" % (ev["id"], node, i, pat))
            want = sorted(i for i, x in nodes[node].items() if pat in x)
            if want != sorted(lns):
                errs.append("%s %s incomplete: %s vs %s" % (ev["id"], node, want[:5], lns[:5]))
            if ev["text"] not in nodes[node].values() and not any(ev["text"] in nodes[m].values() for m in ev["lines"]):
                errs.append("%s text not found" % ev["id"])
    if not label["fault_events"]:
        errs.append("no fault events")
    for h in label.get("hosts", []):
        if alltext is None:
            alltext = "\n".join(x for nd in nodes.values() for x in nd.values())
        if h not in alltext:
            errs.append("host %s not in logs" % h)
    if label["faulty_nodes"]:
        evnodes = set(n for ev in label["fault_events"] for n in ev["lines"])
        if not (evnodes & set(label["faulty_nodes"])) and label["category"] != "hardware":
            errs.append("no event on faulty node")
    return errs, nodes


# ----------------------------------------------------------------------------
# the case plan
# ----------------------------------------------------------------------------

PLAN = [
    ("gpt3-175b-megatron-cuda", "xid79"), ("gpt3-175b-megatron-cuda", "straggler"),
    ("gpt3-175b-megatron-cuda", "ckpt_enospc"), ("gpt3-175b-megatron-cuda", "nvlink74"),
    ("llama2-70b-megatron-cuda", "node_lost"), ("llama2-70b-megatron-cuda", "preempt"),
    ("llama2-70b-megatron-cuda", "bad_parallel"), ("llama2-70b-megatron-cuda", "cuda_oom"),
    ("llama-65b-megatron-cuda", "ib_port"), ("llama-65b-megatron-cuda", "nan_sdc"),
    ("llama-65b-megatron-cuda", "undefined_symbol_node"),
    ("mixtral-8x7b-deepspeed-cuda", "ecc48"), ("mixtral-8x7b-deepspeed-cuda", "zero3_bug"),
    ("mixtral-8x7b-deepspeed-cuda", "host_oom"), ("mixtral-8x7b-deepspeed-cuda", "nfs_hang"),
    ("deepseek-7b-deepspeed-cuda", "nan_lossscale"), ("deepseek-7b-deepspeed-cuda", "xid94"),
    ("deepseek-7b-deepspeed-cuda", "shm_bus"),
    ("llama3-8b-fsdp-cuda", "script_bug"), ("llama3-8b-fsdp-cuda", "nfs_stale"), ("llama3-8b-fsdp-cuda", "xid79"),
    ("qwen-14b-hf-cuda", "bad_arg"), ("qwen-14b-hf-cuda", "undefined_symbol"), ("qwen-14b-hf-cuda", "cuda_oom"),
    ("qwen2-72b-mindspeed-ascend", "hbm_ecc"), ("qwen2-72b-mindspeed-ascend", "hccl_roce"),
    ("qwen2-72b-mindspeed-ascend", "npu_straggler"), ("qwen2-72b-mindspeed-ascend", "mce_node"),
    ("llama2-13b-mindspeed-ascend", "hccl_port"), ("llama2-13b-mindspeed-ascend", "npu_oom"),
    ("llama2-13b-mindspeed-ascend", "bad_parallel"), ("llama2-13b-mindspeed-ascend", "ckpt_enospc"),
    ("internlm-20b-mindspeed-ascend", "nan_job"), ("internlm-20b-mindspeed-ascend", "undefined_symbol"),
    ("internlm-20b-mindspeed-ascend", "nfs_hang"),
    ("pangu-38b-mindspore-ascend", "ms_oom"), ("pangu-38b-mindspore-ascend", "hbm_ecc"),
    ("pangu-38b-mindspore-ascend", "aicore_bug"),
    ("baichuan2-13b-hf-ascend", "dataloader_killed"), ("baichuan2-13b-hf-ascend", "preempt"),
]

NORMAL_SETTINGS = ["gpt3-175b-megatron-cuda", "llama2-70b-megatron-cuda", "mixtral-8x7b-deepspeed-cuda",
                   "llama3-8b-fsdp-cuda", "qwen2-72b-mindspeed-ascend", "pangu-38b-mindspore-ascend",
                   "internlm-20b-mindspeed-ascend"]


def gen_case(seed, idx, setting, kind, out_cases, manifest):
    rng = random.Random("%d/%d/%s/%s" % (seed, idx, setting, kind))
    S = SETTINGS[setting]
    job = Job(rng, setting, S, S["nnodes"], idx)
    F = make_fault(kind, job, rng)
    job.run(F)
    files = render(job)
    cid = "case-%03d" % (idx + 1)
    cdir = os.path.join(out_cases, cid)
    ev_lines, by_node = write_logs(files, os.path.join(cdir, "logs"))
    label = build_label(job, F, ev_lines, by_node)
    with open(os.path.join(cdir, "label.json"), "w") as f:
        json.dump(label, f, indent=2)
    manifest[cid] = {"kind": kind, "setting": setting, "layout": S["layout"], "patterns": F.patterns,
                     "nodes": len(by_node), "lines": sum(len(v) for v in files.values())}
    return cid


def gen_normal(seed, setting, j, out_normal):
    rng = random.Random("%d/normal/%s/%d" % (seed, setting, j))
    S = SETTINGS[setting]
    job = Job(rng, setting, S, S["nnodes"], 1000 + j)
    job.run(None)
    files = render(job)
    d = os.path.join(out_normal, setting, "job-%d" % job.job_id, "logs")
    write_logs(files, d)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--no-normal", action="store_true")
    a = ap.parse_args()
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    out_cases = os.path.join(a.out, "cases")
    os.makedirs(out_cases)
    plan = list(PLAN)
    random.Random(a.seed).shuffle(plan)
    manifest = {}
    for i, (setting, kind) in enumerate(plan[:a.cases]):
        gen_case(a.seed, i, setting, kind, out_cases, manifest)
    if not a.no_normal:
        for setting in NORMAL_SETTINGS:
            for j in range(1 + (hash(setting) & 0) + (1 if random.Random("%d%s" % (a.seed, setting)).random() < 0.5 else 0)):
                gen_normal(a.seed, setting, j, os.path.join(a.out, "normal"))
    # verification pass: re-read everything from disk
    bad = 0
    for cid, m in sorted(manifest.items()):
        errs, nodes = verify_case(os.path.join(out_cases, cid), m["patterns"])
        m["verified"] = not errs
        if errs:
            bad += 1
            print("VERIFY FAIL", cid, m["kind"], errs[:4], file=sys.stderr)
    with open(os.path.join(os.path.dirname(a.out.rstrip("/")), "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
    print("wrote %d cases to %s, %d failed verification" % (len(manifest), a.out, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
