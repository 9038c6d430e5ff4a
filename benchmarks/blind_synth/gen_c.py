#!/usr/bin/env python3
"""Independent generator of labeled failed distributed LLM-training jobs.

Standard library only, deterministic for a given --seed.
Layout written (CONTRACTS "Labeled dataset"):
  OUT/cases/<case_id>/logs/...   + label.json (schema l4-label/1)
  OUT/normal/<setting>/<job_id>/logs/...

Design: every job is simulated as a set of *sources* (one per global rank plus one
"agent" per host for launcher / kernel / scheduler lines).  Each source collects
records (t, seq, text, mark).  A *layout* then groups sources into files (one file
per node, one per rank, one combined console ...) and adds launcher prefixes.
Line numbers of marked (fault-indicating) records are computed while writing.
"""
import argparse
import datetime as dtm
import json
import os
import random
import shutil

RPN = 8  # ranks per node


# ----------------------------------------------------------------------------
# sources and records
# ----------------------------------------------------------------------------
class Src:
    def __init__(self, kind, host_idx, grank=None, lrank=None):
        self.kind = kind  # 'agent' or 'rank'
        self.h = host_idx
        self.g = grank
        self.l = lrank
        self.recs = []
        self.seq = 0
        self.pid = 0

    def put(self, t, text, mark=None):
        for i, ln in enumerate(text.split("\n")):
            self.recs.append((t, self.seq, ln, mark))
            self.seq += 1


class Job:
    def __init__(self, rng, setting, n_nodes, start):
        self.rng = rng
        self.S = setting
        self.stack = setting["stack"]
        self.flavor = setting["flavor"]
        self.n = n_nodes
        self.world = n_nodes * RPN
        self.start = start
        self.hosts = []
        self.ips = []
        self.skew = []
        self.agents = []
        self.ranks = []
        self.events = {}      # eid -> {"text":..., "pattern":...}
        self.ev_order = []
        self.job_id = rng.randint(100000, 999999)
        self.jobname = setting["model"].lower().replace(".", "")
        self.make_hosts()
        for h in range(self.n):
            a = Src("agent", h)
            a.pid = rng.randint(1000, 60000)
            self.agents.append(a)
        for g in range(self.world):
            r = Src("rank", g // RPN, g, g % RPN)
            r.pid = rng.randint(2000, 250000)
            self.ranks.append(r)
        # parallelism
        self.tp = setting.get("tp", 8)
        self.pp = setting.get("pp", 1)
        while self.world % (self.tp * self.pp):
            self.pp = 1
        self.dp = self.world // (self.tp * self.pp)
        self.master = self.hosts[0]
        self.port = rng.choice([29500, 6000, 23456, 29400, 60001])

    # -- naming -----------------------------------------------------------
    def make_hosts(self):
        rng = self.rng
        scheme = self.S["hostscheme"]
        a, b = rng.randint(0, 250), rng.randint(0, 200)
        base = rng.randint(1, 60)
        used = set()
        for i in range(self.n):
            while True:
                k = base + rng.randint(0, 3 * self.n + 6)
                if k not in used:
                    used.add(k)
                    break
            pfx = self.S.get("subnet", "10")
            if pfx == "10":
                ip = "10.%d.%d.%d" % (a, b + i // 200, 10 + (k % 240))
            elif pfx == "172":
                ip = "172.16.%d.%d" % (a % 32 + i // 200, 10 + (k % 240))
            else:
                ip = "192.168.%d.%d" % (a % 250 + i // 200, 10 + (k % 240))
            if scheme == "gpu-a":
                h = "gpu-a%02d" % k
            elif scheme == "dgx":
                h = "dgx%03d" % (k + 100)
            elif scheme == "hgx":
                h = "hgx-r%du%02d" % (1 + k // 8, 4 * (k % 8) + 3)
            elif scheme == "ipdash":
                h = "ip-" + ip.replace(".", "-")
            elif scheme == "cn":
                h = "cn-%d" % (1000 + k)
            elif scheme == "sh":
                h = "sh-h800-%04d" % (k + 30)
            elif scheme == "atlas":
                h = "atlas-n%03d" % k
            elif scheme == "npusrv":
                h = "npu-srv-%d" % (k + 10)
            elif scheme == "ascend":
                h = "ascend-%s%02d" % ("abcdef"[k % 6], k)
            elif scheme == "pod":
                h = None
            else:
                h = "node%02d" % k
            self.ips.append(ip)
            self.hosts.append(h)
            self.skew.append(rng.uniform(-2.5, 2.5))
        if scheme == "pod":
            jn = self.S["podjob"]
            self.hosts = ["pytorchjob-%s-master-0" % jn] + [
                "pytorchjob-%s-worker-%d" % (jn, i) for i in range(self.n - 1)]
        if self.S.get("sort_hosts", True) and scheme != "pod":
            pairs = sorted(zip(self.hosts, self.ips))
            self.hosts = [p[0] for p in pairs]
            self.ips = [p[1] for p in pairs]

    # -- time ---------------------------------------------------------------
    def dt(self, t, h):
        return self.start + dtm.timedelta(seconds=t + self.skew[h])

    def ev(self, eid, text, pattern):
        if eid not in self.events:
            self.events[eid] = {"text": text, "pattern": pattern}
            self.ev_order.append(eid)
        return eid


# timestamp styles -----------------------------------------------------------
def ts_bracket(d):   # [2024-05-01 12:00:01,123]
    return "[%s,%03d]" % (d.strftime("%Y-%m-%d %H:%M:%S"), d.microsecond // 1000)


def ts_plain(d):     # 2024-05-01 12:00:01
    return d.strftime("%Y-%m-%d %H:%M:%S")


def ts_iso(d):       # 2024-05-01T12:00:01.123456+00:00
    return d.strftime("%Y-%m-%dT%H:%M:%S") + ".%06dZ" % d.microsecond


def ts_glog(d, lvl="I"):  # I0501 12:00:01.123456
    return "%s%s.%06d" % (lvl, d.strftime("%m%d %H:%M:%S"), d.microsecond)


def ts_glog9(d, lvl="E"):  # E0501 12:00:01.123456789
    return "%s%s.%06d%03d" % (lvl, d.strftime("%m%d %H:%M:%S"), d.microsecond, (d.microsecond * 7) % 1000)


def ts_cann(d):      # 2024-05-01-12:00:01.123.456
    return "%s.%03d.%03d" % (d.strftime("%Y-%m-%d-%H:%M:%S"), d.microsecond // 1000, d.microsecond % 1000)


def ts_cann_s(d):    # 2024-05-01-12:00:01
    return d.strftime("%Y-%m-%d-%H:%M:%S")


def ts_dmesgT(d):    # [Wed May  1 12:00:01 2024]
    return "[%s]" % d.strftime("%a %b %e %H:%M:%S %Y")


def ts_syslog(d):    # May  1 12:00:01
    return d.strftime("%b %e %H:%M:%S")


def ts_hms(d):
    return d.strftime("%H:%M:%S")


# ----------------------------------------------------------------------------
# settings (a setting = model + framework + stack + layout family)
# ----------------------------------------------------------------------------
SETTINGS = [
    dict(name="llama3-70b-megatron-k8s-cuda", stack="cuda", flavor="megatron", model="Llama3-70B",
         layout="pernode", fname="{host}.log", hostscheme="pod", podjob="llama70b", nodes=(4, 16), tp=8, pp=2,
         launcher="torchrun", prefix_local=False, nccl_debug=True, mon="k8s", subnet="10"),
    dict(name="gpt-175b-megatron-slurm-cuda", stack="cuda", flavor="megatron", model="GPT-175B",
         layout="console_srun", fname="slurm-{jobid}.out", hostscheme="cn", nodes=(2, 4), tp=8, pp=4,
         launcher="srun", prefix_local=False, nccl_debug=False, mon=None, subnet="172"),
    dict(name="qwen2-7b-deepspeed-pdsh-cuda", stack="cuda", flavor="deepspeed", model="Qwen2-7B",
         layout="console_pdsh", fname="ds_console.log", hostscheme="gpu-a", nodes=(2, 6), tp=1, pp=1,
         launcher="deepspeed", prefix_local=False, nccl_debug=True, mon=None, subnet="10"),
    dict(name="mixtral-8x7b-deepspeed-ipfiles-cuda", stack="cuda", flavor="deepspeed", model="Mixtral-8x7B",
         layout="pernode", fname="{ip}.log", hostscheme="ipdash", nodes=(4, 16), tp=1, pp=1,
         launcher="deepspeed", prefix_local=False, nccl_debug=True, mon="dcgm", subnet="172"),
    dict(name="llama2-13b-accelerate-fsdp-cuda", stack="cuda", flavor="hf", model="Llama-2-13b-hf",
         layout="pernode", fname="{host}.out", hostscheme="dgx", nodes=(2, 4), tp=1, pp=1,
         launcher="accelerate", prefix_local=True, nccl_debug=True, mon="dcgm", subnet="192"),
    dict(name="mistral-7b-titan-fsdp-rankfiles-cuda", stack="cuda", flavor="titan", model="Mistral-7B",
         layout="perrank", fname="{host}/rank_{g}.txt", agentfile="{host}/launcher.log", hostscheme="hgx",
         nodes=(2, 3), tp=1, pp=1, launcher="torchrun", prefix_local=False, nccl_debug=False, mon=None, subnet="10"),
    dict(name="llama3-8b-raytrain-fsdp-cuda", stack="cuda", flavor="titan", model="Llama3-8B",
         layout="console_ray", fname="ray_driver.log", hostscheme="ipdash", nodes=(2, 4), tp=1, pp=1,
         launcher="ray", prefix_local=False, nccl_debug=False, mon=None, subnet="172"),
    dict(name="deepseek-67b-megatron-torchrun-console-cuda", stack="cuda", flavor="megatron", model="DeepSeek-67B",
         layout="console_rank", fname="train_console.log", hostscheme="sh", nodes=(2, 4), tp=4, pp=2,
         launcher="torchrun", prefix_local=False, nccl_debug=True, mon=None, subnet="10"),
    dict(name="qwen-72b-mindspeed-ascend", stack="ascend", flavor="megatron", model="Qwen-72B",
         layout="pernode", fname="{host}.log", hostscheme="atlas", nodes=(4, 32), tp=8, pp=4,
         launcher="torchrun", prefix_local=False, nccl_debug=True, mon="npu", subnet="192"),
    dict(name="llama2-70b-mindspeed-modelarts-ascend", stack="ascend", flavor="megatron", model="Llama-2-70B",
         layout="pernode", fname="modelarts-job-{uuid}-worker-{i}.log", hostscheme="npusrv", nodes=(4, 16), tp=8, pp=2,
         launcher="torchrun", prefix_local=False, nccl_debug=False, mon="npu", subnet="172"),
    dict(name="pangu-38b-mindspore-msrun-ascend", stack="ascend", flavor="mindspore", model="PanGu-38B",
         layout="perrank", fname="{host}/worker_{g}.log", agentfile="{host}/scheduler.log", hostscheme="ascend",
         nodes=(2, 4), tp=4, pp=2, launcher="msrun", prefix_local=False, nccl_debug=False, mon=None, subnet="10"),
    dict(name="glm4-9b-llamafactory-npu-ascend", stack="ascend", flavor="hf", model="glm-4-9b",
         layout="perrank", fname="{host}/rank_{l}.log", agentfile="{host}/launcher.log", hostscheme="npusrv",
         nodes=(2, 3), tp=1, pp=1, launcher="torchrun", prefix_local=False, nccl_debug=False, mon=None, subnet="192"),
]
SET_BY_NAME = {s["name"]: s for s in SETTINGS}

NCCL_VER = ["2.18.5+cuda12.2", "2.19.3+cuda12.3", "2.20.5+cuda12.4", "2.21.5+cuda12.4"]
TORCH_VER = ["2.1.2", "2.3.1", "2.4.0", "2.5.1"]


# ----------------------------------------------------------------------------
# normal run generation
# ----------------------------------------------------------------------------
class Plan:
    """What the normal run does before the fault takes over."""
    def __init__(self):
        self.stop_stage = None     # None = run to completion
        self.stop_iter = None      # iteration during which the fault hits
        self.stop_frac = 0.6       # for pre-training stages: fraction of the stage emitted
        self.slow = None           # (from_iter, factor) job-wide slowdown (straggler)
        self.slow_host = None      # host that is the straggler
        self.ckpt_fail = False     # checkpoint save at stop_iter starts then fails
        self.silent_hosts = set()  # hosts whose output stops at t_fault
        self.hang_hosts = set()
        self.hook = None           # per logged iteration: (loss, gn, extra, mark) overrides
        self.hook_pat = ""


STAGES = ["init", "model_loading", "data_loading", "training", "checkpoint"]


def nccl_pfx(job, r):
    return "%s:%d:%d [%d]" % (job.hosts[r.h], r.pid, r.pid + (3 if r.l % 2 else 171), r.l)


def ascend_log(job, r, t, lvl, mod, msg, src="hccl_communicator.cc:"):
    d = job.dt(t, r.h)
    return "[%s] %s(%d,python):%s [%s%d][%d]%s" % (lvl, mod, r.pid, ts_cann(d), src, job.rng.randint(80, 2200), r.pid + 11, msg)


def ms_log(job, r, t, lvl, path, msg):
    d = job.dt(t, r.h)
    return "[%s] ME(%d:2814730%08d,MainProcess):%s [%s] %s" % (lvl, r.pid, r.pid * 13 % 10 ** 8, ts_cann(d), path, msg)


def py_log(job, h, t, lvl, where, msg):
    return "%s [%s] [%s] %s" % (ts_bracket(job.dt(t, h)), lvl, where, msg)


def hf_log(job, h, t, lvl, where, msg):
    return "[%s|%s] %s >> %s" % (lvl, where, ts_plain(job.dt(t, h)) + ",%03d" % job.rng.randint(0, 999), msg)


def glog_line(job, h, t, lvl, pid, where, msg):
    return "%s %d %s] %s" % (ts_glog(job.dt(t, h), lvl), pid, where, msg)


def emit_launcher(job, t):
    S, rng = job.S, job.rng
    tv = job.torch_ver
    for h, a in enumerate(job.agents):
        tt = t + rng.uniform(0, 3)
        if h > 0 and S["layout"] in ("console_srun", "console_rank", "console_ray"):
            continue  # one batch script prints the environment once
        if S["launcher"] == "srun":
            a.put(tt, "+ srun -l --ntasks-per-node=8 --gpus-per-node=8 --cpu-bind=none python -u %s --distributed-backend nccl" % job.entry)
        if S["stack"] == "ascend":
            a.put(tt, "+ source /usr/local/Ascend/ascend-toolkit/set_env.sh")
            a.put(tt, "+ export HCCL_CONNECT_TIMEOUT=%d" % job.hccl_connect_to)
            a.put(tt, "+ export HCCL_EXEC_TIMEOUT=%d" % job.hccl_exec_to)
            a.put(tt, "+ export HCCL_IF_IP=%s" % job.ips[h])
            a.put(tt, "+ export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7")
            a.put(tt, "+ export CUDA_DEVICE_MAX_CONNECTIONS=1")
            a.put(tt, "+ export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True")
            if S["nccl_debug"]:
                a.put(tt, "+ export ASCEND_GLOBAL_LOG_LEVEL=1 ASCEND_SLOG_PRINT_TO_STDOUT=1")
            a.put(tt, "+ npu-smi info")
            a.put(tt, "+------------------------------------------------------------------------------------------------+")
            a.put(tt, "| npu-smi 23.0.6                   Version: 23.0.6                                               |")
            a.put(tt, "+---------------------------+---------------+----------------------------------------------------+")
            a.put(tt, "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|")
            a.put(tt, "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |")
            a.put(tt, "+===========================+===============+====================================================+")
            for d in range(8):
                a.put(tt, "| %-4d  910B3               | OK            | %-5.1f       %-2d                0    / 0             |" % (d, rng.uniform(88, 99), rng.randint(35, 44)))
                a.put(tt, "| 0                         | 0000:%02X:00.0  | 0           0    / 0          %-5d/ 65536         |" % ([0xC1, 0x01, 0xC2, 0x02, 0x81, 0x41, 0x82, 0x42][d], rng.randint(3300, 3500)))
                a.put(tt, "+===========================+===============+====================================================+")
        else:
            a.put(tt, "+ export NCCL_IB_HCA=mlx5_0,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_9,mlx5_10,mlx5_11")
            a.put(tt, "+ export NCCL_SOCKET_IFNAME=%s" % job.iface)
            a.put(tt, "+ export NCCL_DEBUG=%s" % ("INFO" if S["nccl_debug"] else "WARN"))
            a.put(tt, "+ export CUDA_DEVICE_MAX_CONNECTIONS=1")
            a.put(tt, "+ export TORCH_NCCL_ASYNC_ERROR_HANDLING=1")
        L = S["launcher"]
        if L in ("torchrun", "accelerate"):
            if L == "accelerate":
                a.put(tt, "+ accelerate launch --config_file fsdp.yaml --num_machines %d --machine_rank %d --main_process_ip %s --main_process_port %d train.py" % (job.n, h, job.ips[0], job.port))
                a.put(tt + 0.5, "The following values were not passed to `accelerate launch` and had defaults used instead:")
                a.put(tt + 0.5, "\t`--dynamo_backend` was set to a value of `'no'`")
                a.put(tt + 0.5, "To avoid this warning pass in values for each of the problematic parameters or run `accelerate config`.")
            else:
                a.put(tt, "+ torchrun --nnodes %d --nproc_per_node 8 --node_rank %d --master_addr %s --master_port %d %s" % (job.n, h, job.master if job.S["hostscheme"] != "pod" else job.hosts[0], job.port, job.entry))
            if job.tv_new:
                a.put(tt + 1, glog_line(job, h, tt + 1, "W", a.pid, "torch/distributed/run.py:793", ""))
                a.put(tt + 1, glog_line(job, h, tt + 1, "W", a.pid, "torch/distributed/run.py:793", "*****************************************"))
                a.put(tt + 1, glog_line(job, h, tt + 1, "W", a.pid, "torch/distributed/run.py:793", "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. "))
                a.put(tt + 1, glog_line(job, h, tt + 1, "W", a.pid, "torch/distributed/run.py:793", "*****************************************"))
            else:
                a.put(tt + 1, "WARNING:torch.distributed.run:")
                a.put(tt + 1, "*****************************************")
                a.put(tt + 1, "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. ")
                a.put(tt + 1, "*****************************************")
            if h > 0 and rng.random() < 0.5:
                a.put(tt + 2, "[W socket.cpp:663] [c10d] The client socket has failed to connect to [%s]:%d (errno: 111 - Connection refused)." % (job.hosts[0] or job.ips[0], job.port))
            if rng.random() < 0.5:
                a.put(tt + 2, "[W socket.cpp:464] [c10d] The server socket cannot be initialized on [::]:%d (errno: 97 - Address family not supported by protocol)." % job.port)
        elif L == "deepspeed":
            a.put(tt, py_log(job, h, tt, "INFO", "real_accelerator.py:203:get_accelerator", "Setting ds_accelerator to cuda (auto detect)"))
            a.put(tt, py_log(job, h, tt, "INFO", "launch.py:146:main", "WORLD INFO DICT: {%s}" % ", ".join("'%s': [0, 1, 2, 3, 4, 5, 6, 7]" % ip for ip in job.ips)))
            a.put(tt, py_log(job, h, tt, "INFO", "launch.py:152:main", "nnodes=%d, num_local_procs=8, node_rank=%d" % (job.n, h)))
            a.put(tt, py_log(job, h, tt, "INFO", "launch.py:163:main", "global_rank_mapping=defaultdict(<class 'list'>, {%s})" % ", ".join("'%s': [%s]" % (ip, ", ".join(str(i * 8 + k) for k in range(8))) for i, ip in enumerate(job.ips))))
            a.put(tt, py_log(job, h, tt, "INFO", "launch.py:164:main", "dist_world_size=%d" % job.world))
            a.put(tt, py_log(job, h, tt, "INFO", "launch.py:168:main", "Setting CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7"))
        elif L == "msrun":
            if h == 0:
                a.put(tt, ms_log(job, job.ranks[0], tt, "INFO", "mindspore/parallel/cluster/process_entity/_api.py:224", "Start scheduler process, log file:./msrun_log/scheduler.log. Environment variable [RANK_ID] is exported."))
                a.put(tt, ms_log(job, job.ranks[0], tt, "INFO", "mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:98", "The meta server node listens on %s:%d" % (job.ips[0], job.port)))
        elif L == "srun":
            pass
        elif L == "ray":
            if h == 0:
                a.put(tt, "%s\tINFO worker.py:1740 -- Connecting to existing Ray cluster at address: %s:6379..." % (ts_plain(job.dt(tt, 0)) + ",%03d" % rng.randint(0, 999), job.ips[0]))
                a.put(tt, "%s\tINFO worker.py:1915 -- Connected to Ray cluster. View the dashboard at http://%s:8265 " % (ts_plain(job.dt(tt, 0)) + ",%03d" % rng.randint(0, 999), job.ips[0]))
                a.put(tt + 1, "View detailed results here: /mnt/cluster_storage/ray_results/TorchTrainer_%s" % job.runid)
                a.put(tt + 1, "To visualize your results with TensorBoard, run: `tensorboard --logdir /tmp/ray/session_%s/artifacts/%s/TorchTrainer_%s/driver_artifacts`" % (job.start.strftime("%Y-%m-%d_%H-%M-%S_000000_1"), job.start.strftime("%Y-%m-%d_%H-%M-%S"), job.runid))
                a.put(tt + 2, "Training started with configuration:")
                a.put(tt + 2, "╭──────────────────────────────────────────╮")
                a.put(tt + 2, "│ Training config                          │")
                a.put(tt + 2, "├──────────────────────────────────────────┤")
                a.put(tt + 2, "│ train_loop_config/lr              0.0003 │")
                a.put(tt + 2, "│ train_loop_config/seq_len           8192 │")
                a.put(tt + 2, "╰──────────────────────────────────────────╯")


def emit_rank_init(job, r, t, frac=1.0):
    """distributed init on one rank; returns end time"""
    S, rng = job.S, job.rng
    h = r.h
    tt = t + rng.uniform(2, 12)
    lines = []
    if S["flavor"] == "megatron" and r.g == 0:
        lines.append(("plain", "using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: %d " % (job.world, job.dp, job.tp, job.pp)))
        lines.append(("plain", "using torch.bfloat16 for parameters ..."))
        lines.append(("plain", "------------------------ arguments ------------------------"))
        for k, v in job.args:
            lines.append(("plain", "  %s %s %s" % (k, "." * max(3, 48 - len(k)), v)))
        lines.append(("plain", "-------------------- end of arguments ---------------------"))
        lines.append(("plain", "> building %s tokenizer ..." % job.tok))
        lines.append(("plain", " > padded vocab (size: %d) with %d dummy tokens (new size: %d)" % (job.vocab, job.vocab_pad - job.vocab, job.vocab_pad)))
        lines.append(("plain", "> initializing torch distributed ..."))
    if S["flavor"] == "deepspeed":
        lines.append(("plain", py_log(job, h, tt, "INFO", "comm.py:637:init_distributed", "cdb=None")))
        if r.g == 0:
            lines.append(("plain", py_log(job, h, tt, "INFO", "comm.py:668:init_distributed", "Initializing TorchBackend in DeepSpeed with backend nccl")))
    if S["flavor"] == "mindspore":
        lines.append(("plain", ms_log(job, r, tt, "WARNING", "mindspore/run_check/_check_version.py:102", "MindSpore version 2.3.1 and Ascend AI software package (Ascend Data Center Solution)version 7.3 does not match, the version of software package expect one of ['7.2']. Please refer to the match info on: https://www.mindspore.cn/install")))
        lines.append(("plain", ms_log(job, r, tt, "INFO", "mindspore/ccsrc/distributed/cluster/topology/compute_graph_node.cc:173", "Start connecting heartbeat. Connecting to the meta server node %s:%d" % (job.ips[0], job.port))))
        lines.append(("plain", ms_log(job, r, tt + 1, "INFO", "mindspore/ccsrc/distributed/cluster/topology/compute_graph_node.cc:208", "The compute graph node: %d has been registered successfully." % r.g)))
        lines.append(("plain", ms_log(job, r, tt + 2, "INFO", "mindspore/ccsrc/distributed/collective/collective_manager.cc:262", "Start initializing communication library on device %d..." % r.l)))
        lines.append(("plain", ms_log(job, r, tt + 4, "INFO", "mindspore/ccsrc/plugin/device/ascend/hal/hccl_adapter/hccl_adapter.cc:504", "Start init hccl adapter for hccl_world_group")))
        lines.append(("plain", ms_log(job, r, tt + 6, "INFO", "mindspore/ccsrc/distributed/collective/collective_manager.cc:318", "End initializing communication library.")))
    if S["stack"] == "cuda" and S["nccl_debug"]:
        p = nccl_pfx(job, r)
        lines.append(("plain", "%s NCCL INFO Bootstrap : Using %s:%s<0>" % (p, job.iface, job.ips[h])))
        lines.append(("plain", "%s NCCL INFO NET/Plugin : dlerror=libnccl-net.so: cannot open shared object file: No such file or directory No plugin found (libnccl-net.so), using internal implementation" % p))
        lines.append(("plain", "%s NCCL INFO cudaDriverVersion %d" % (p, job.cudadrv)))
        if r.g == 0:
            lines.append(("plain", "NCCL version %s" % job.nccl_ver))
        lines.append(("plain", "%s NCCL INFO NET/IB : Using [0]mlx5_0:1/%s [1]mlx5_3:1/%s [2]mlx5_4:1/%s [3]mlx5_5:1/%s [4]mlx5_6:1/%s [5]mlx5_9:1/%s [6]mlx5_10:1/%s [7]mlx5_11:1/%s ; OOB %s:%s<0>" % ((p,) + (job.fabric,) * 8 + (job.iface, job.ips[h]))))
        lines.append(("plain", "%s NCCL INFO Using non-device net plugin version 0" % p))
        lines.append(("plain", "%s NCCL INFO Using network IB" % p))
        cid = job.commid
        lines.append(("plain", "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init START" % (p, r.pid * 4099 % (1 << 44) + 0x7f0000000000, r.g, job.world, r.l, r.l, job.busids[r.l], cid)))
        lines.append(("plain", "%s NCCL INFO Setting affinity for GPU %d to %s" % (p, r.l, "ffffffff,00000000,ffffffff" if r.l < 4 else "ffffffff,00000000,ffffffff,00000000")))
        if rng.random() < 0.25:
            lines.append(("plain", "%s NCCL WARN Could not find real path of /sys/class/pci_bus/0000:%s/../../0000:%s:00.0" % (p, job.busids[r.l][:2], job.busids[r.l][:2])))
        if job.gpu == "H100":
            lines.append(("plain", "%s NCCL INFO NVLS multicast support is available on dev %d" % (p, r.l)))
        nx = (r.g + 1) % job.world
        pv = (r.g - 1) % job.world
        lines.append(("plain", "%s NCCL INFO Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d" % (p, nx, r.g, pv, nx, r.g, pv)))
        lines.append(("plain", "%s NCCL INFO P2P Chunksize set to 524288" % p))
        for c in range(2):
            if (r.l == 7 or r.l == 0):
                lines.append(("plain", "%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] [%s] via NET/IB/%d/GDRDMA" % (p, c, r.g, r.l, nx if r.l == 7 else pv, (r.l + 1) % 8 if r.l == 7 else 7, "send" if r.l == 7 else "receive", c)))
            else:
                lines.append(("plain", "%s NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via P2P/CUMEM/read" % (p, c, r.g, r.l, nx, r.l + 1)))
        lines.append(("plain", "%s NCCL INFO Connected all rings" % p))
        lines.append(("plain", "%s NCCL INFO Connected all trees" % p))
        lines.append(("plain", "%s NCCL INFO threadThresholds 8/8/64 | %d/8/64 | 512 | 512" % (p, job.world * 8)))
        lines.append(("plain", "%s NCCL INFO 32 coll channels, 32 collnet channels, %d nvls channels, 32 p2p channels, 32 p2p channels per peer" % (p, 16 if job.gpu == "H100" else 0)))
        lines.append(("plain", "%s NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId 0x%s - Init COMPLETE" % (p, r.pid * 4099 % (1 << 44) + 0x7f0000000000, r.g, job.world, r.l, r.l, job.busids[r.l], cid)))
    if S["stack"] == "ascend" and S["flavor"] != "mindspore":
        if r.l == 0 or rng.random() < 0.3:
            lines.append(("plain", "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/path_manager.py:82: UserWarning: Warning: The /usr/local/Ascend/ascend-toolkit/latest owner does not match the current user."))
            lines.append(("plain", "  warnings.warn(f\"Warning: The {path} owner does not match the current user.\")"))
        lines.append(("plain", "[W compiler_depend.ts:615] Warning: expandable_segments currently defaults to false. You can enable this feature by `export PYTORCH_NPU_ALLOC_CONF = expandable_segments:True`. (function operator())"))
        if S["nccl_debug"]:
            lines.append(("ts", ascend_log(job, r, tt, "INFO", "HCCL", "Entry-HcclCommInitRootInfo:ranks[%d], rank[%d], rootinfo: host ip[%s] port[%d] nicDeploy[1] identifier[%s%%enp189s0f0_%d_0_%d], deviceLogicId[%d]" % (job.world, r.g, job.ips[0], 60000, job.ips[0], 60000, job.start.toordinal() * 7, r.l))))
            lines.append(("ts", ascend_log(job, r, tt + 1, "INFO", "HCCL", "[HcclCommunicator][Init] rankSize[%d], userRank[%d], deviceLogicId[%d], devicePhyId[%d], nicDeploy[1], serverId[%s]" % (job.world, r.g, r.l, r.l, job.ips[h]))))
            lines.append(("ts", ascend_log(job, r, tt + 2, "INFO", "HCCL", "[TransportManager][Create] link establish success, userRank[%d], remoteRank[%d], linkType[%s]" % (r.g, (r.g + 8) % job.world, "RDMA" if job.n > 1 else "HCCS"))))
            lines.append(("ts", ascend_log(job, r, tt + 3, "INFO", "HCCL", "HcclCommInitRootInfo success, take time [%d]us, rankNum[%d], rank[%d]" % (rng.randint(800000, 4000000), job.world, r.g))))
    if S["flavor"] == "hf" and r.l == 0:
        lines.append(("plain", "%s - INFO - llamafactory.hparams.parser - Process rank: %d, device: %s:%d, n_gpu: 1, distributed training: True, compute dtype: torch.bfloat16" % (ts_plain(job.dt(tt, h)) if S["stack"] == "ascend" else job.dt(tt, h).strftime("%m/%d/%Y %H:%M:%S"), r.g, "npu" if S["stack"] == "ascend" else "cuda", r.l)))
    if S["flavor"] == "titan":
        lines.append(("plain", "%s - root - INFO - Starting job: %s training" % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999), job.S["model"])))
        lines.append(("plain", "%s - root - INFO - Building 1-D device mesh with ['dp_shard'], [%d]" % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999), job.world)))
    n = int(len(lines) * frac) if frac < 1 else len(lines)
    for i, (_, ln) in enumerate(lines[:n]):
        r.put(tt + i * 0.25, ln)
    return tt + len(lines) * 0.25


def setup_job_params(job):
    S, rng = job.S, job.rng
    job.torch_ver = rng.choice(TORCH_VER)
    job.tv_new = job.torch_ver >= "2.3"
    job.nccl_ver = rng.choice(NCCL_VER)
    job.iface = rng.choice(["eth0", "bond0", "ens10f0np0", "enp86s0f0"])
    job.fabric = rng.choice(["IB", "IB", "RoCE"])
    job.gpu = rng.choice(["H100", "H100", "A100", "H800"]) if S["stack"] == "cuda" else "910B3"
    job.hbm = {"H100": 79.11, "A100": 79.15, "H800": 79.11, "910B3": 60.96}[job.gpu]
    job.cudadrv = rng.choice([12020, 12030, 12040, 12050])
    job.busids = rng.choice([["18", "2a", "3a", "5d", "9a", "ab", "ba", "db"], ["0f", "2d", "44", "5b", "89", "a8", "c0", "d8"]])
    job.commid = "%016x" % rng.getrandbits(64)
    job.runid = "%s_%05d" % (job.start.strftime("%Y-%m-%d_%H-%M-%S"), rng.randint(0, 99999))
    job.uuid = "%08x" % rng.getrandbits(32)
    job.hccl_connect_to = rng.choice([600, 1200, 1800])
    job.hccl_exec_to = rng.choice([1800, 1200, 900])
    job.nccl_to_ms = rng.choice([600000, 1800000, 1200000])
    job.tok = rng.choice(["Llama3Tokenizer", "HuggingFaceTokenizer", "GPTSentencePieceTokenizer"])
    job.vocab = rng.choice([128256, 151643, 64000, 32000, 100277])
    job.vocab_pad = ((job.vocab + 127) // 128) * 128 + (128 if job.vocab % 128 == 0 else 0)
    job.ckpt = rng.choice(["/mnt/lustre/ckpt/%s" % job.jobname, "/nfs/shared/checkpoints/%s-run%d" % (job.jobname, rng.randint(1, 40)),
                           "/cache/ckpt/%s" % job.jobname, "/data/ckpts/%s/pretrain" % job.jobname])
    job.data = rng.choice(["/mnt/lustre/data/pile_text_document", "/data/corpus/mix_v3_text_document", "/cache/dataset/wudao_text_document", "/datasets/slimpajama/train"])
    job.entry = rng.choice(["pretrain_gpt.py", "pretrain_gpt.py", "train_llm.py"]) if S["flavor"] == "megatron" else rng.choice(["train.py", "sft.py", "run_clm.py"])
    job.seq = rng.choice([2048, 4096, 8192])
    job.mbs = rng.choice([1, 1, 2, 4])
    job.gbs = job.mbs * job.dp * rng.choice([8, 16, 32, 64])
    job.lr = rng.choice([3e-4, 1.5e-4, 1e-5, 2e-5, 6e-5])
    job.it0 = rng.choice([0, 0, 2000, 12000, 48000, 5000])
    job.train_iters = rng.choice([20000, 50000, 100000, 250000])
    job.log_interval = rng.choice([1, 1, 5, 10]) if S["flavor"] != "hf" else rng.choice([5, 10])
    job.save_interval = rng.choice([200, 500, 1000, 250])
    job.step_t = rng.uniform(2.0, 14.0)
    job.mon_every = rng.choice([20, 25, 50])
    job.loss0 = rng.uniform(2.0, 3.2) if job.it0 else rng.uniform(9.5, 11.5)
    job.args = []
    if S["flavor"] == "megatron":
        kv = [("accumulate_allreduce_grads_in_fp32", "True"), ("adam_beta1", "0.9"), ("adam_beta2", "0.95"), ("attention_dropout", "0.0"),
              ("bf16", "True"), ("clip_grad", "1.0"), ("data_path", "['%s']" % job.data), ("distributed_backend", "nccl" if S["stack"] == "cuda" else "hccl"),
              ("distributed_timeout_minutes", str(job.nccl_to_ms // 60000)), ("ffn_hidden_size", str(rng.choice([28672, 22016, 13824]))),
              ("global_batch_size", str(job.gbs)), ("hidden_size", str(rng.choice([8192, 5120, 4096]))), ("load", job.ckpt), ("log_interval", str(job.log_interval)),
              ("lr", str(job.lr)), ("lr_decay_style", "cosine"), ("micro_batch_size", str(job.mbs)), ("num_attention_heads", "64"), ("num_layers", str(rng.choice([80, 60, 40]))),
              ("pipeline_model_parallel_size", str(job.pp)), ("save", job.ckpt), ("save_interval", str(job.save_interval)), ("seq_length", str(job.seq)),
              ("sequence_parallel", "True"), ("tensor_model_parallel_size", str(job.tp)), ("tokenizer_type", job.tok), ("train_iters", str(job.train_iters)),
              ("use_distributed_optimizer", "True"), ("use_flash_attn", "True"), ("world_size", str(job.world))]
        if S["stack"] == "ascend":
            kv += [("use_fused_rmsnorm", "True"), ("use_fused_swiglu", "True"), ("use_mc2", "False"), ("transformer_impl", "local")]
        job.args = sorted(kv)
    job.nparams = rng.choice([8030261248, 13015864320, 70553706496, 46702792704, 7241732096, 9399951360]) // max(1, job.tp * job.pp)
    job.shards = rng.choice([4, 6, 15, 30])
    job.nsamp = rng.randint(200000, 4000000)
    job.slow_dev = rng.randint(0, 7)
    job.it_end = job.it0 + job.log_interval * rng.randint(120, 400)
    job.kstyle = rng.choice(["syslog", "dmesgT", "dump"])


def loss_at(job, it):
    x = it - job.it0 + (job.it0 + 50)
    base = job.loss0 * (0.35 + 0.65 * (1.0 / (1 + x / 300.0))) if not job.it0 else job.loss0 - 0.15 * (it - job.it0) / 5000.0
    return max(1.2, base + job.rng.gauss(0, 0.03))


def emit_model(job, r, t, frac=1.0):
    S, rng = job.S, job.rng
    h = r.h
    tt = t + rng.uniform(5, 30)
    out = []
    fl = S["flavor"]
    if fl == "megatron":
        if r.g == 0:
            out.append("building GPT model ...")
        tpr, ppr = r.g % job.tp, (r.g // job.tp) % job.pp
        if r.g // (job.tp * job.pp) == 0:
            out.append(" > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d" % (tpr, ppr, job.nparams))
        if r.g == 0:
            out.append("INFO:megatron.core.distributed.distributed_data_parallel:Setting up DistributedDataParallel with config DistributedDataParallelConfig(grad_reduce_in_fp32=True, overlap_grad_reduce=True, use_distributed_optimizer=True, check_for_nan_in_grad=True, bucket_size=40000000)")
            out.append("INFO:megatron.core.optimizer:Setting up optimizer with OptimizerConfig(optimizer='adam', lr=%s, min_lr=%s, weight_decay=0.1, bf16=True, adam_beta1=0.9, adam_beta2=0.95, clip_grad=1.0)" % (job.lr, job.lr / 10))
        if S["stack"] == "ascend" and (r.l == 0 or rng.random() < 0.2):
            out.append("[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())")
        if job.it0:
            if r.g == 0:
                out.append(" loading checkpoint from %s at iteration %d" % (job.ckpt, job.it0))
            if r.l == 0:
                out.append(" checkpoint version 3.0")
            if r.g // (job.tp * job.pp) == 0:
                out.append("  successfully loaded checkpoint from %s [ t %d/%d, p %d/%d ] at iteration %d" % (job.ckpt, tpr + 1, job.tp, ppr + 1, job.pp, job.it0))
        elif r.g == 0:
            out.append("WARNING: could not find the metadata file %s/latest_checkpointed_iteration.txt " % job.ckpt)
            out.append("    will not load any checkpoints and will start from random")
        if r.g == 0:
            out.append("(min, max) time across ranks (ms):")
            out.append("    load-checkpoint ................................: (%.2f, %.2f)" % (rng.uniform(2e4, 9e4), rng.uniform(9e4, 1.2e5)))
    elif fl == "deepspeed":
        if r.g == 0:
            out.append(py_log(job, h, tt, "INFO", "logging.py:96:log_dist", "[Rank 0] DeepSpeed info: version=0.14.2, git-hash=unknown, git-branch=unknown"))
        out.append("Loading checkpoint shards: 100%%|██████████| %d/%d [00:%02d<00:00,  %.2fs/it]" % (job.shards, job.shards, rng.randint(20, 59), rng.uniform(0.8, 3.2)))
        if r.g == 0:
            out.append(py_log(job, h, tt + 2, "INFO", "logging.py:96:log_dist", "[Rank 0] Creating ZeRO Offload"))
            out.append(py_log(job, h, tt + 2, "INFO", "config.py:984:print", "DeepSpeedEngine configuration:"))
            for k, v in [("activation_checkpointing_config", "{\"partition_activations\": false, \"contiguous_memory_optimization\": false}"), ("bfloat16_enabled", "True"),
                         ("gradient_accumulation_steps", str(job.gbs // (job.mbs * job.world) or 1)), ("gradient_clipping", "1.0"), ("steps_per_print", str(job.log_interval)),
                         ("train_batch_size", str(job.gbs)), ("train_micro_batch_size_per_gpu", str(job.mbs)), ("wall_clock_breakdown", "False"),
                         ("zero_enabled", "True"), ("zero_optimization_stage", "2")]:
                out.append(py_log(job, h, tt + 2, "INFO", "config.py:988:print", "  %s %s %s" % (k, "." * max(2, 30 - len(k)), v)))
            out.append(py_log(job, h, tt + 3, "INFO", "stage_1_and_2.py:148:__init__", "Reduce bucket size 500000000"))
            out.append(py_log(job, h, tt + 3, "INFO", "stage_1_and_2.py:149:__init__", "Allgather bucket size 500000000"))
        if rng.random() < 0.3:
            out.append("/usr/local/lib/python3.10/dist-packages/torch/_utils.py:831: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()")
            out.append("  return self.fget.__get__(instance, owner)()")
    elif fl == "hf":
        if r.l == 0:
            out.append(hf_log(job, h, tt, "INFO", "configuration_utils.py:733", "loading configuration file /models/%s/config.json" % job.S["model"]))
            out.append(hf_log(job, h, tt, "INFO", "modeling_utils.py:3553", "loading weights file /models/%s/model.safetensors.index.json" % job.S["model"]))
        out.append("Loading checkpoint shards: 100%%|██████████| %d/%d [00:%02d<00:00,  %.2fs/it]" % (job.shards, job.shards, rng.randint(10, 59), rng.uniform(0.8, 3.2)))
        if r.l == 0:
            out.append(hf_log(job, h, tt + 5, "INFO", "modeling_utils.py:4364", "All model checkpoint weights were used when initializing %sForCausalLM." % job.S["model"].split("-")[0].capitalize()))
        if rng.random() < 0.4:
            out.append("/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.")
    elif fl == "titan":
        out.append("%s - root - INFO - Building %s with ModelArgs(dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=%d, multiple_of=1024, ffn_dim_multiplier=1.3, norm_eps=1e-05, rope_theta=500000, max_seq_len=%d)" % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999), job.S["model"], job.vocab, job.seq))
        out.append("%s - root - INFO - Model %s size: %d total parameters" % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999), job.S["model"], job.nparams))
        out.append("%s - root - INFO - Applied FSDP to the model" % (ts_plain(job.dt(tt + 3, h)) + ",%03d" % rng.randint(0, 999)))
        if job.it0:
            out.append("%s - root - INFO - Loading the checkpoint at step %d." % (ts_plain(job.dt(tt + 5, h)) + ",%03d" % rng.randint(0, 999), job.it0))
            out.append("%s - root - INFO - Finished loading the checkpoint in %.2f seconds." % (ts_plain(job.dt(tt + 45, h)) + ",%03d" % rng.randint(0, 999), rng.uniform(20, 90)))
    elif fl == "mindspore":
        out.append(ms_log(job, r, tt, "WARNING", "mindspore/common/_decorator.py:38", "'TensorAdd' is deprecated from version 1.1 and will be removed in a future version, use 'Add' instead."))
        out.append("%s - mindformers[mindformers/models/modeling_utils.py:1492] - INFO - model built, but weights is unloaded, since the config has no checkpoint_name_or_path attribute or checkpoint_name_or_path is None." % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999)))
        out.append("%s - mindformers[mindformers/trainer/base_trainer.py:1157] - INFO - .........Build Net For Train.........." % (ts_plain(job.dt(tt + 1, h)) + ",%03d" % rng.randint(0, 999)))
        out.append("%s - mindformers[mindformers/trainer/utils.py:321] - INFO - .............Start load resume context from checkpoint.................." % (ts_plain(job.dt(tt + 2, h)) + ",%03d" % rng.randint(0, 999)))
        out.append("%s - mindformers[mindformers/trainer/utils.py:688] - INFO - Network parameters are loaded from %s/rank_%d/%s_rank_%d-%d_1.ckpt" % (ts_plain(job.dt(tt + 60, h)) + ",%03d" % rng.randint(0, 999), job.ckpt, r.g, job.jobname, r.g, max(1, job.it0)))
        out.append(ms_log(job, r, tt + 80, "WARNING", "mindspore/train/serialization.py:1539", "For 'load_param_into_net', 2 parameters in the 'net' are not loaded, because they are not in the 'parameter_dict', please check whether the network structure is consistent when training and loading checkpoint."))
    n = max(1, int(len(out) * frac)) if frac < 1 else len(out)
    for i, ln in enumerate(out[:n]):
        r.put(tt + i * 0.05 + (40 if "loaded" in ln else 0), ln)
    return tt + 60


def emit_data(job, r, t, frac=1.0):
    S, rng = job.S, job.rng
    h = r.h
    tt = t + rng.uniform(3, 20)
    out = []
    fl = S["flavor"]
    if fl == "megatron":
        if r.g == 0:
            out += ["> building train, validation, and test datasets ...", " > datasets target sizes (minimum size):",
                    "    train:      %d" % (job.train_iters * job.gbs), "    validation: %d" % (job.gbs * 100), "    test:       %d" % (job.gbs * 10),
                    "> building train, validation, and test datasets for GPT ...",
                    "INFO:megatron.core.datasets.blended_megatron_dataset_builder:Building dataset splits with cls=GPTDataset, sizes=(%d, %d, %d), and config=GPTDatasetConfig(random_seed=1234, sequence_length=%d)" % (job.train_iters * job.gbs, job.gbs * 100, job.gbs * 10, job.seq),
                    "INFO:megatron.core.datasets.indexed_dataset:Load the _IndexReader from %s.idx" % job.data,
                    "INFO:megatron.core.datasets.indexed_dataset:\tExtract the sequence lengths",
                    "INFO:megatron.core.datasets.indexed_dataset:\tExtract the sequence pointers",
                    "INFO:megatron.core.datasets.indexed_dataset:> total number of sequences: %d" % rng.randint(10 ** 7, 9 * 10 ** 8),
                    "WARNING:megatron.core.datasets.gpt_dataset:Unable to save the GPTDataset indices because path_to_cache is None",
                    "> finished creating GPT datasets ...",
                    "[after dataloaders are built] datetime: %s " % ts_plain(job.dt(tt + 20, h)),
                    "done with setup ...", "training ...",
                    "[before the start of training step] datetime: %s " % ts_plain(job.dt(tt + 25, h))]
    elif fl == "deepspeed":
        if r.l == 0:
            out.append("Map (num_proc=32): 100%%|██████████| %d/%d [00:%02d<00:00, %d.%02d examples/s]" % (job.nsamp, job.nsamp, rng.randint(10, 59), rng.randint(2000, 90000), rng.randint(0, 99)))
        if r.g == 0:
            out.append("***** Running training *****  num_examples=%d  steps=%d" % (job.nsamp, job.train_iters))
    elif fl == "hf":
        if r.g == 0:
            out.append("Running tokenizer on dataset (num_proc=16): 100%%|██████████| %d/%d [01:%02d<00:00, %d.%02d examples/s]" % (job.nsamp, job.nsamp, rng.randint(0, 59), rng.randint(900, 9000), rng.randint(0, 99)))
            out.append(hf_log(job, h, tt + 5, "INFO", "trainer.py:2128", "***** Running training *****"))
            out.append(hf_log(job, h, tt + 5, "INFO", "trainer.py:2129", "  Num examples = {:,}".format(job.nsamp)))
            out.append(hf_log(job, h, tt + 5, "INFO", "trainer.py:2130", "  Num Epochs = 3"))
            out.append(hf_log(job, h, tt + 5, "INFO", "trainer.py:2131", "  Instantaneous batch size per device = %d" % job.mbs))
            out.append(hf_log(job, h, tt + 5, "INFO", "trainer.py:2134", "  Total train batch size (w. parallel, distributed & accumulation) = %d" % job.gbs))
            out.append(hf_log(job, h, tt + 5, "INFO", "trainer.py:2136", "  Total optimization steps = {:,}".format(job.train_iters)))
            out.append(hf_log(job, h, tt + 5, "INFO", "trainer.py:2137", "  Number of trainable parameters = {:,}".format(job.nparams)))
        elif r.l == 0 and rng.random() < 0.6:
            out.append("/usr/local/lib/python3.10/dist-packages/transformers/training_args.py:1559: FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of 🤗 Transformers. Use `eval_strategy` instead")
            out.append("  warnings.warn(")
    elif fl == "titan":
        out.append("%s - root - INFO - Preparing %s dataset from %s" % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999), job.data.split("/")[-2], job.data))
        out.append("%s - root - INFO - GPU capacity: NVIDIA %s 80GB HBM3 (%d) with %.2fGiB memory" % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999), job.gpu, r.l, job.hbm))
        out.append("%s - root - INFO - Training starts at step %d, with local batch size %d, global batch size %d, sequence length %d, total steps %d (warmup 200)" % (ts_plain(job.dt(tt + 2, h)) + ",%03d" % rng.randint(0, 999), job.it0 + 1, job.mbs, job.gbs, job.seq, job.train_iters))
    elif fl == "mindspore":
        out.append("%s - mindformers[mindformers/dataset/causal_language_model_dataset.py:154] - INFO - Now Create Causal Language Model Dataset." % (ts_plain(job.dt(tt, h)) + ",%03d" % rng.randint(0, 999)))
        out.append(ms_log(job, r, tt + 1, "WARNING", "mindspore/dataset/engine/datasets.py:1172", "Repeat is located before batch, data from two epochs can be batched together."))
        out.append("%s - mindformers[mindformers/trainer/base_trainer.py:1260] - INFO - .........Starting Training Model.........." % (ts_plain(job.dt(tt + 3, h)) + ",%03d" % rng.randint(0, 999)))
        out.append(ms_log(job, r, tt + 4, "INFO", "mindspore/ccsrc/backend/graph_compiler/graph_compiler.cc:381", "Start compile graph kernel_graph_%d, it may take a while (usually 10-40 minutes) ..." % rng.randint(0, 9)))
        out.append(ms_log(job, r, tt + 700, "INFO", "mindspore/ccsrc/backend/graph_compiler/graph_compiler.cc:402", "Finish compile graph, cost %d seconds." % rng.randint(600, 800)))
    n = max(1, int(len(out) * frac)) if frac < 1 else len(out)
    for i, ln in enumerate(out[:n]):
        r.put(tt + i * 0.02 + (700 if "Finish compile" in ln else 0), ln)
    return tt + 40 + (720 if fl == "mindspore" else 0)


def printers(job):
    fl = job.S["flavor"]
    if fl == "megatron":
        return [job.ranks[-1]]
    if fl in ("deepspeed", "hf"):
        return [job.ranks[0]]
    if fl == "titan":
        return [r for r in job.ranks if r.l == 0 or job.n <= 2]
    return job.ranks  # mindspore: every worker logs


def iter_lines(job, r, it, t, st, loss, gn, extra=None):
    fl, h, rng = job.S["flavor"], r.h, job.rng
    out = []
    if fl == "megatron":
        tf = 400.0 * 8.0 / max(st, 0.1) * (job.step_t / 8.0) if job.S["stack"] == "cuda" else 180.0 * job.step_t / max(st, 0.1)
        lr = job.lr * min(1.0, it / 2000.0)
        out.append(" [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | throughput per GPU (TFLOP/s/GPU): %.1f | learning rate: %.6E | global batch size: %5d | lm loss: %s | loss scale: 1.0 | grad norm: %s | number of skipped iterations: %3d | number of nan iterations: %3d |"
                   % (ts_plain(job.dt(t, h)), it, job.train_iters, it * job.gbs, st * 1000, tf, lr, job.gbs,
                      ("%.6E" % loss) if isinstance(loss, float) else loss, ("%.3f" % gn) if isinstance(gn, float) else gn,
                      (extra or {}).get("skipped", 0), (extra or {}).get("nan", 0)))
        if it == job.it0 + job.log_interval * (1 if job.log_interval > 1 else 10):
            for rr in (job.ranks[0], job.ranks[-1]):
                rr.put(t + 0.01, "[Rank %d] (after %d iterations) memory (MB) | allocated: %.1f | max allocated: %.1f | reserved: %.1f | max reserved: %.1f" % (rr.g, it, job.hbm * 1024 * 0.45, job.hbm * 1024 * 0.78, job.hbm * 1024 * 0.82, job.hbm * 1024 * 0.82))
    elif fl == "deepspeed":
        out.append(py_log(job, h, t, "INFO", "logging.py:96:log_dist", "[Rank 0] step=%d, skipped=%d, lr=[%.6e], mom=[(0.9, 0.95)]" % (it, (extra or {}).get("skipped", 0), job.lr * min(1, it / 500.0))))
        out.append(py_log(job, h, t, "INFO", "timer.py:260:stop", "epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.4f, CurrSamplesPerSec=%.4f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB" % (it * 4, it, job.gbs / job.step_t, job.gbs / st, job.hbm * 0.31, job.hbm * 0.74)))
        out.append("step %d | loss %s | lr %.3e | %.2f s/it" % (it, ("%.4f" % loss) if isinstance(loss, float) else loss, job.lr * min(1, it / 500.0), st))
    elif fl == "hf":
        pct = int(100 * it / job.train_iters)
        el = int((it - job.it0) * job.step_t)
        rem = int((job.train_iters - it) * st)
        out.append("%3d%%|%-10s| %d/%d [%s<%s, %.2fs/it]" % (pct, "█" * (pct // 10) + ("▍" if pct % 10 > 4 else ""), it, job.train_iters, fmt_dur(el), fmt_dur(rem), st))
        out.append("{'loss': %s, 'grad_norm': %s, 'learning_rate': %s, 'epoch': %.2f}" % (("%.4f" % loss) if isinstance(loss, float) else loss, ("%.6f" % gn) if isinstance(gn, float) else gn, "%.14e" % (job.lr * (1 - it / job.train_iters)), 3.0 * it / job.train_iters))
    elif fl == "titan":
        out.append("%s - root - INFO - step: %5d  loss: %8.4f  memory: %.2fGiB(%.2f%%)  tps: %s  mfu: %.2f%%" % (ts_plain(job.dt(t, h)) + ",%03d" % rng.randint(0, 999), it, loss if isinstance(loss, float) else float("nan"), job.hbm * 0.72, 72.0, "{:,}".format(int(job.seq * job.mbs / st)), 40.0 * job.step_t / st))
    elif fl == "mindspore":
        out.append("%s - mindformers[mindformers/core/callback/callback.py:334] - INFO - { Epoch:[  1/  1], step:[%5d/%5d], loss: %s, per_step_time: %dms, lr: %.6e, overflow cond: %s, loss_scale: %.1f, global_norm: [%s], train_throughput_per_npu: %.3fT" % (ts_plain(job.dt(t, h)) + ",%03d" % rng.randint(0, 999), it, job.train_iters, ("%.3f" % loss) if isinstance(loss, float) else loss, int(st * 1000), job.lr, (extra or {}).get("overflow", "False"), (extra or {}).get("scale", 1.0), ("%.5f" % gn) if isinstance(gn, float) else gn, 150.0 * job.step_t / st))
    return out


def fmt_dur(s):
    h, m = divmod(s, 3600)
    m, sec = divmod(m, 60)
    return ("%d:%02d:%02d" % (h, m, sec)) if h else ("%02d:%02d" % (m, sec))


def mon_lines(job, a, it, t, slow=False):
    m = job.S.get("mon")
    rng = job.rng
    if not m:
        return
    h = a.h
    if m == "k8s":
        util = ",".join(str(rng.randint(95, 100)) for _ in range(8))
        clk = ",".join(str(1980 if not (slow and i == job.slow_dev) else rng.choice([1095, 1110, 1200])) for i in range(8))
        tmp = ",".join(str(rng.randint(52, 66) if not (slow and i == job.slow_dev) else rng.randint(86, 91)) for i in range(8))
        a.put(t, "%s gpu-health host=%s step=%d util=[%s] sm_clock_mhz=[%s] temp_c=[%s] xid=none" % (ts_iso(job.dt(t, h)), job.hosts[h], it, util, clk, tmp))
    elif m == "dcgm":
        a.put(t, "DCGM | %s | util%% %s | smclk %s | temp %s" % (ts_hms(job.dt(t, h)), " ".join(str(rng.randint(93, 100)) for _ in range(8)),
                                                               " ".join(str(1980 if not (slow and i == job.slow_dev) else 1140) for i in range(8)),
                                                               " ".join(str(rng.randint(50, 68) if not (slow and i == job.slow_dev) else rng.randint(87, 92)) for i in range(8))))
    elif m == "npu":
        a.put(t, "[npu-mon %s] aicore%% %s | hbm_used_mb %s | temp_c %s | health %s" % (ts_plain(job.dt(t, h)), " ".join(str(rng.randint(80, 99)) for _ in range(8)),
                                                                                     " ".join(str(rng.randint(52000, 61000)) for _ in range(8)),
                                                                                     " ".join(str(rng.randint(40, 58) if not (slow and i == job.slow_dev) else rng.randint(90, 96)) for i in range(8)),
                                                                                     " ".join("OK" if not (slow and i == job.slow_dev) else "Warning" for i in range(8))))


def save_lines(job, it, t, fail=False):
    """checkpoint save at iteration it. If fail: only the start of the save is logged. returns end time"""
    fl, rng = job.S["flavor"], job.rng
    r0 = job.ranks[0]
    dur = rng.uniform(20, 120)
    if fl == "megatron":
        r0.put(t, "saving checkpoint at iteration %8d to %s in torch_dist format" % (it, job.ckpt))
        if fail:
            return t + 1
        for r in job.ranks[: job.tp * job.pp]:
            r.put(t + dur, "  successfully saved checkpoint from iteration %8d to %s [ t %d/%d, p %d/%d ]" % (it, job.ckpt, r.g % job.tp + 1, job.tp, (r.g // job.tp) % job.pp + 1, job.pp))
        r0.put(t + dur + 0.1, "(min, max) time across ranks (ms):")
        r0.put(t + dur + 0.1, "    save-checkpoint ................................: (%.2f, %.2f)" % (dur * 990, dur * 1000))
    elif fl == "deepspeed":
        r0.put(t, py_log(job, 0, t, "INFO", "logging.py:96:log_dist", "[Rank 0] Saving model checkpoint: %s/global_step%d/mp_rank_00_model_states.pt" % (job.ckpt, it)))
        r0.put(t, py_log(job, 0, t, "INFO", "torch_checkpoint_engine.py:21:save", "[Torch] Saving %s/global_step%d/mp_rank_00_model_states.pt..." % (job.ckpt, it)))
        if fail:
            return t + 1
        for r in job.ranks:
            if r.l == 0 or job.n <= 4:
                r.put(t + dur * 0.5, py_log(job, r.h, t + dur * 0.5, "INFO", "torch_checkpoint_engine.py:21:save", "[Torch] Saving %s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt..." % (job.ckpt, it, r.g)))
                r.put(t + dur, py_log(job, r.h, t + dur, "INFO", "torch_checkpoint_engine.py:23:save", "[Torch] Saved %s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt." % (job.ckpt, it, r.g)))
        r0.put(t + dur + 0.2, py_log(job, 0, t + dur + 0.2, "INFO", "engine.py:3488:_save_zero_checkpoint", "zero checkpoint saved %s/global_step%d/zero_pp_rank_0_mp_rank_00_optim_states.pt" % (job.ckpt, it)))
    elif fl == "hf":
        r0.put(t, hf_log(job, 0, t, "INFO", "trainer.py:3410", "Saving model checkpoint to %s/checkpoint-%d" % (job.ckpt, it)))
        if fail:
            return t + 1
        r0.put(t + 2, hf_log(job, 0, t + 2, "INFO", "configuration_utils.py:472", "Configuration saved in %s/checkpoint-%d/config.json" % (job.ckpt, it)))
        r0.put(t + dur, hf_log(job, 0, t + dur, "INFO", "modeling_utils.py:2627", "The model is bigger than the maximum size per checkpoint (5GB) and is going to be split in %d checkpoint shards. You can find where each parameters has been saved in the index located at %s/checkpoint-%d/model.safetensors.index.json." % (job.shards, job.ckpt, it)))
    elif fl == "titan":
        r0.put(t, "%s - root - INFO - Saving the checkpoint (or staging if async is enabled)." % (ts_plain(job.dt(t, 0)) + ",%03d" % rng.randint(0, 999)))
        if fail:
            return t + 1
        r0.put(t + dur, "%s - root - INFO - [GC] Performing periodical GC collection. %.2f seconds." % (ts_plain(job.dt(t + dur, 0)) + ",%03d" % rng.randint(0, 999), rng.uniform(0.02, 0.09)))
        r0.put(t + dur, "%s - root - INFO - Finished saving the checkpoint (or staging if async is enabled)in %.2f seconds." % (ts_plain(job.dt(t + dur, 0)) + ",%03d" % rng.randint(0, 999), dur))
    elif fl == "mindspore":
        for r in job.ranks:
            r.put(t, "%s - mindformers[mindformers/core/callback/callback.py:1045] - INFO - ......Saving ckpt...... step: %d" % (ts_plain(job.dt(t, r.h)) + ",%03d" % rng.randint(0, 999), it))
        if fail:
            return t + 1
        for r in job.ranks:
            r.put(t + dur, "%s - mindformers[mindformers/core/callback/callback.py:1102] - INFO - Finish saving ckpt of epoch 1 step %d using %.3f seconds" % (ts_plain(job.dt(t + dur, r.h)) + ",%03d" % rng.randint(0, 999), it, dur))
    return t + dur + 1


def emit_train(job, plan, t0):
    rng = job.rng
    it_stop = plan.stop_iter
    end_it = it_stop if it_stop is not None else job.it_end
    t = t0
    job.t_iter = {}
    prs = printers(job)
    if job.S["stack"] == "ascend" and job.S["flavor"] != "mindspore":
        for r in job.ranks:
            if r.l in (0, 3) or rng.random() < 0.15:
                r.put(t + 1, "[W compiler_depend.ts:51] Warning: CAUTION: The operator 'aten::_foreach_norm' is not currently supported on the NPU backend and will fall back to run on the CPU. This may have performance implications. (function npu_cpu_fallback)")
    for it in range(job.it0 + 1, end_it + 1):
        st = job.step_t * (1 + rng.gauss(0, 0.015))
        slow = plan.slow and it >= plan.slow[0]
        if slow:
            st *= plan.slow[1] * (1 + rng.gauss(0, 0.03))
        if it == it_stop and plan.stop_stage == "training":
            job.t_fault = t + st * rng.uniform(0.2, 0.8)
            job.t_last_ok = t
            return
        t += st
        job.t_iter[it] = t
        if it % job.log_interval == 0 or it == job.it0 + 1:
            loss = loss_at(job, it)
            gn = abs(rng.gauss(0.6, 0.15)) + 0.1
            ov = plan.hook(it, t) if plan.hook else None
            extra, mk = None, None
            if ov:
                loss, gn, extra, mk = ov
            for r in prs:
                for ln in iter_lines(job, r, it, t + rng.uniform(0, 0.05), st, loss, gn, extra):
                    r.put(t, ln, mk if (mk and plan.hook_pat in ln) else None)
        if job.S["flavor"] == "hf" and it % (job.log_interval * 2) == 0:
            for r in job.ranks:
                r.put(t + rng.uniform(0, 0.3), "[rank%d] step %d | mem_alloc %.1fGiB | max_alloc %.1fGiB | tok/s %d | data_wait %.2fs" % (r.g, it, job.hbm * rng.uniform(0.5, 0.55), job.hbm * 0.81, int(job.seq * job.mbs / st * rng.uniform(0.97, 1.03)), rng.uniform(0.01, 0.2)))
        if it % job.mon_every == 0:
            for a in job.agents:
                mon_lines(job, a, it, t + rng.uniform(0, 1), slow=slow and a.h == plan.slow_host)
        if it % job.save_interval == 0:
            if plan.ckpt_fail and it == it_stop:
                save_lines(job, it, t + 0.5, fail=True)
                job.t_fault = t + rng.uniform(5, 60)
                job.t_last_ok = t
                return
            t = save_lines(job, it, t + 0.5)
    job.t_fault = t + 1
    job.t_last_ok = t


def emit_finish(job, t):
    """successful end of run"""
    fl, rng = job.S["flavor"], job.rng
    r0 = job.ranks[0]
    if fl == "megatron":
        r0.put(t, "[after training is done] datetime: %s " % ts_plain(job.dt(t, 0)))
        t = save_lines(job, job.it_end, t + 1)
    elif fl == "hf":
        r0.put(t, hf_log(job, 0, t, "INFO", "trainer.py:2383", ""))
        r0.put(t, "")
        r0.put(t, "Training completed. Do not forget to share your model on huggingface.co/models =)")
        r0.put(t, "")
        r0.put(t, "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.4f, 'epoch': 3.0}" % (t, job.gbs / job.step_t, 1 / job.step_t, 1.7))
    elif fl == "titan":
        r0.put(t, "%s - root - INFO - Training completed" % (ts_plain(job.dt(t, 0)) + ",000"))
    elif fl == "deepspeed":
        t = save_lines(job, job.it_end, t + 1)
    elif fl == "mindspore":
        for r in job.ranks:
            r.put(t, "%s - mindformers[mindformers/trainer/base_trainer.py:1290] - INFO - .........Training Over!............." % (ts_plain(job.dt(t, r.h)) + ",%03d" % rng.randint(0, 999)))
    for a in job.agents:
        L = job.S["launcher"]
        if L in ("torchrun", "accelerate"):
            if job.tv_new:
                a.put(t + 5, glog_line(job, a.h, t + 5, "I", a.pid, "torch/distributed/elastic/agent/server/api.py:879", "[default] worker group successfully finished. Waiting 300 seconds for other agents to finish."))
                a.put(t + 5, glog_line(job, a.h, t + 5, "I", a.pid, "torch/distributed/elastic/agent/server/api.py:932", "Local worker group finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish"))
                a.put(t + 6, glog_line(job, a.h, t + 6, "I", a.pid, "torch/distributed/elastic/agent/server/api.py:946", "Done waiting for other agents. Elapsed: %.4f seconds" % rng.uniform(0.01, 3)))
            else:
                a.put(t + 5, "INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully finished. Waiting 300 seconds for other agents to finish.")
                a.put(t + 6, "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: %.4f seconds" % rng.uniform(0.01, 3))
        elif L == "deepspeed":
            for l in range(8):
                a.put(t + 5, py_log(job, a.h, t + 5, "INFO", "launch.py:348:main", "Process %d exits successfully." % job.ranks[a.h * 8 + l].pid))
        elif L == "msrun" and a.h == 0:
            a.put(t + 5, ms_log(job, job.ranks[0], t + 5, "INFO", "mindspore/parallel/cluster/process_entity/_api.py:292", "Scheduler process %d exit normally." % a.pid))
        elif L == "ray" and a.h == 0:
            a.put(t + 5, "Training completed after %d iterations at %s. Total running time: %s" % (job.it_end - job.it0, ts_plain(job.dt(t + 5, 0)), fmt_dur(int(t))))
        elif L == "srun" and a.h == 0:
            pass


def run_normal(job, plan):
    """emit everything up to the fault (or to completion). sets job.t_fault and job.stage_t"""
    rng = job.rng
    t = 0.0
    emit_launcher(job, t)
    ss = plan.stop_stage
    stage_end = {}
    if ss == "launch":
        job.t_fault = 8.0
        job.t_last_ok = 5.0
        return
    # init
    ends = [emit_rank_init(job, r, 5.0, plan.stop_frac if ss == "init" else 1.0) for r in job.ranks]
    t = max(ends) + rng.uniform(1, 5)
    stage_end["init"] = t
    if ss == "init":
        job.t_fault = t - rng.uniform(0.5, 3)
        job.t_last_ok = job.t_fault - 1
        return
    ends = [emit_model(job, r, t, plan.stop_frac if ss == "model_loading" else 1.0) for r in job.ranks]
    t = max(ends) + rng.uniform(1, 5)
    if ss == "model_loading":
        job.t_fault = t - rng.uniform(5, 20)
        job.t_last_ok = job.t_fault - 1
        return
    ends = [emit_data(job, r, t, plan.stop_frac if ss == "data_loading" else 1.0) for r in job.ranks]
    t = max(ends) + rng.uniform(1, 5)
    if ss == "data_loading":
        job.t_fault = t - rng.uniform(2, 10)
        job.t_last_ok = job.t_fault - 1
        return
    job.t_train0 = t
    emit_train(job, plan, t)
    if ss is None:
        emit_finish(job, job.t_fault)


# ----------------------------------------------------------------------------
# fault / cascade helpers
# ----------------------------------------------------------------------------
def is_console(job):
    return job.S["layout"].startswith("console")


def kern(job, h, t, msg, mark=None):
    """a kernel message from host h, as the platform captures it into the node log.
    returns True if written (console layouts carry no kernel lines)."""
    if is_console(job):
        return False
    a = job.agents[h]
    d = job.dt(t, h)
    up = 86400 * 3 + t + 1234.5 + h * 17
    st = job.kstyle
    if st == "syslog":
        a.put(t, "%s %s kernel: [%12.6f] %s" % (ts_syslog(d), job.hosts[h], up, msg), mark)
    elif st == "dmesgT":
        a.put(t, "%s %s" % (ts_dmesgT(d), msg), mark)
    else:
        # collected by the node health hook when the job fails: defer into a dump block
        job.kdump.setdefault(h, []).append((t, "[%12.6f] %s" % (up, msg), mark))
    return True


def flush_kdump(job, t_end):
    for h, items in job.kdump.items():
        a = job.agents[h]
        t = t_end + 20 + h * 0.01
        a.put(t, "==== node-health hook: dmesg tail (%s) ====" % job.hosts[h])
        for i in range(job.rng.randint(2, 5)):
            a.put(t, "[%12.6f] IPv6: ADDRCONF(NETDEV_CHANGE): veth%x: link becomes ready" % (86400 * 3 + 100 + i * 37.2, job.rng.getrandbits(24)))
        for (_, txt, mark) in sorted(items, key=lambda x: x[0]):
            a.put(t, txt, mark)
        a.put(t, "==== end of dmesg tail ====")
    job.kdump = {}


def rpfx(job, r):
    """torch>=2.3 prefixes exception lines with [rankN]: (not in consoles that already do it)"""
    if job.tv_new and job.S["layout"] != "console_rank" and job.S["flavor"] not in ("mindspore",):
        return "[rank%d]: " % r.g
    return ""


def traceback(job, r, t, frames, exc, mark=None, mark_lines=(0,), pre=None):
    p = rpfx(job, r) if pre is None else pre
    r.put(t, p + "Traceback (most recent call last):")
    for f, n, fn, code in frames:
        r.put(t, p + '  File "%s", line %d, in %s' % (f, n, fn))
        if code:
            r.put(t, p + "    " + code)
    for i, e in enumerate(exc):
        r.put(t, p + e, mark if (mark and i in mark_lines) else None)


def site(job):
    if job.S["stack"] == "ascend":
        return "/usr/local/python3.10/lib/python3.10/site-packages"
    return "/usr/local/lib/python3.10/dist-packages"


def frames_train(job):
    fl, sp = job.S["flavor"], site(job)
    if fl == "megatron":
        root = "/workspace/Megatron-LM" if job.S["stack"] == "cuda" else "/home/ma-user/work/MindSpeed-LLM"
        return [("%s/%s" % (root, job.entry), 264 if job.S["stack"] == "cuda" else 198, "<module>", "pretrain("),
                ("%s/megatron/training/training.py" % root, 360, "pretrain", "iteration, num_floating_point_operations_so_far = train("),
                ("%s/megatron/training/training.py" % root, 1232, "train", "train_step(forward_step_func,"),
                ("%s/megatron/training/training.py" % root, 677, "train_step", "losses_reduced = forward_backward_func("),
                ("%s/megatron/core/pipeline_parallel/schedules.py" % root, 1375, "forward_backward_pipelining_without_interleaving", "input_tensor_grad = backward_step(")]
    if fl == "deepspeed":
        return [("/workspace/%s" % job.entry, 412, "<module>", "main()"), ("/workspace/%s" % job.entry, 377, "main", "model_engine.backward(loss)"),
                ("%s/deepspeed/utils/nvtx.py" % sp, 15, "wrapped_fn", "ret_val = func(*args, **kwargs)"),
                ("%s/deepspeed/runtime/engine.py" % sp, 1976, "backward", "self.optimizer.backward(loss, retain_graph=retain_graph)")]
    if fl == "hf":
        return [("/app/LLaMA-Factory/src/llamafactory/launcher.py" if job.S["stack"] == "ascend" else "/workspace/%s" % job.entry, 23, "<module>", "launch()" if job.S["stack"] == "ascend" else "main()"),
                ("%s/transformers/trainer.py" % sp, 1938, "train", "return inner_training_loop("),
                ("%s/transformers/trainer.py" % sp, 2279, "_inner_training_loop", "tr_loss_step = self.training_step(model, inputs)"),
                ("%s/transformers/trainer.py" % sp, 3318, "training_step", "loss = self.compute_loss(model, inputs)")]
    if fl == "titan":
        return [("/opt/torchtitan/train.py", 418, "<module>", "main(config)"),
                ("%s/torch/distributed/elastic/multiprocessing/errors/__init__.py" % sp, 348, "wrapper", "return f(*args, **kwargs)"),
                ("/opt/torchtitan/train.py", 314, "main", "loss.backward()")]
    return [("/home/ma-user/work/mindformers/run_mindformer.py", 267, "<module>", "main(config_)"),
            ("/home/ma-user/work/mindformers/mindformers/trainer/base_trainer.py", 1297, "training_process", "model.train(config.runner_config.epochs, dataset,"),
            ("%s/mindspore/train/model.py" % site(job), 1090, "train", "self._train(epoch,")]


def frames_save(job):
    fl, sp = job.S["flavor"], site(job)
    if fl == "megatron":
        root = "/workspace/Megatron-LM" if job.S["stack"] == "cuda" else "/home/ma-user/work/MindSpeed-LLM"
        return [("%s/megatron/training/training.py" % root, 1327, "train", "save_checkpoint_and_time(iteration, model, optimizer,"),
                ("%s/megatron/training/checkpointing.py" % root, 410, "save_checkpoint", "torch.save(state_dict, checkpoint_name)"),
                ("%s/torch/serialization.py" % sp, 628, "save", "_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)"),
                ("%s/torch/serialization.py" % sp, 862, "_save", "zip_file.write_record(name, storage.data_ptr(), num_bytes)")]
    if fl == "deepspeed":
        return [("/workspace/%s" % job.entry, 398, "main", "model_engine.save_checkpoint(args.output_dir, tag=f\"global_step{step}\")"),
                ("%s/deepspeed/runtime/engine.py" % sp, 3139, "save_checkpoint", "self._save_zero_checkpoint(save_dir, tag)"),
                ("%s/deepspeed/runtime/engine.py" % sp, 3486, "_save_zero_checkpoint", "self.checkpoint_engine.save(zero_sd, zero_checkpoint_name)"),
                ("%s/deepspeed/runtime/checkpoint_engine/torch_checkpoint_engine.py" % sp, 22, "save", "torch.save(state_dict, path)"),
                ("%s/torch/serialization.py" % sp, 862, "_save", "zip_file.write_record(name, storage.data_ptr(), num_bytes)")]
    if fl == "hf":
        return [("%s/transformers/trainer.py" % sp, 2730, "_maybe_log_save_evaluate", "self._save_checkpoint(model, trial, metrics=metrics)"),
                ("%s/transformers/trainer.py" % sp, 2825, "_save_checkpoint", "self._save_optimizer_and_scheduler(output_dir)"),
                ("%s/transformers/trainer.py" % sp, 2940, "_save_optimizer_and_scheduler", "torch.save(self.optimizer.state_dict(), os.path.join(output_dir, OPTIMIZER_NAME))"),
                ("%s/torch/serialization.py" % sp, 862, "_save", "zip_file.write_record(name, storage.data_ptr(), num_bytes)")]
    if fl == "titan":
        return [("/opt/torchtitan/train.py", 372, "main", "checkpoint.save(train_state.step, force=(train_state.step == job_config.training.steps))"),
                ("/opt/torchtitan/torchtitan/checkpoint.py", 398, "save", "dcp.save(self.states, checkpoint_id=checkpoint_id)"),
                ("%s/torch/distributed/checkpoint/filesystem.py" % sp, 311, "_write_files_from_queue", "_write_item(stream, data, write_item, storage_key)")]
    return [("%s/mindspore/train/callback/_checkpoint.py" % site(job), 541, "_save_ckpt", "save_checkpoint(network, cur_file, self._config.integrated_save, self._config.async_save,"),
            ("%s/mindspore/train/serialization.py" % site(job), 487, "save_checkpoint", "_exec_save(ckpt_file_name, data_list, enc_key, enc_mode, map_param_inc)")]


def frames_data(job):
    sp = site(job)
    return [("%s/torch/utils/data/dataloader.py" % sp, 631, "__next__", "data = self._next_data()"),
            ("%s/torch/utils/data/dataloader.py" % sp, 1329, "_next_data", "idx, data = self._get_data()"),
            ("%s/torch/utils/data/dataloader.py" % sp, 1285, "_get_data", "success, data = self._try_get_data()"),
            ("%s/torch/utils/data/dataloader.py" % sp, 1146, "_try_get_data", "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")]


def teardown_agent(job, h, t, failed_locals, exitcode, root=None, signal_kill=False):
    """launcher teardown on host h"""
    a = job.agents[h]
    L = job.S["launcher"]
    rng = job.rng
    if not failed_locals:
        failed_locals = [0]
    fr = failed_locals[0]
    if L in ("torchrun", "accelerate"):
        others = [l for l in range(8) if l not in failed_locals]
        for l in others:
            msg = "Sending process %d closing signal SIGTERM" % job.ranks[h * 8 + l].pid
            if job.tv_new:
                a.put(t, glog_line(job, h, t, "W", a.pid, "torch/distributed/elastic/multiprocessing/api.py:897", msg))
            else:
                a.put(t, "WARNING:torch.distributed.elastic.multiprocessing.api:" + msg)
        t += rng.uniform(2, 30)
        msg = "failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python" % (exitcode, fr, job.ranks[h * 8 + fr].pid)
        if job.tv_new:
            a.put(t, glog_line(job, h, t, "E", a.pid, "torch/distributed/elastic/multiprocessing/api.py:869", msg))
        else:
            a.put(t, "ERROR:torch.distributed.elastic.multiprocessing.api:" + msg)
        a.put(t, "Traceback (most recent call last):")
        a.put(t, '  File "/usr/local/bin/%s", line 8, in <module>' % ("accelerate" if L == "accelerate" else "torchrun"))
        a.put(t, "    sys.exit(main())")
        a.put(t, '  File "%s/torch/distributed/launcher/api.py", line 263, in launch_agent' % site(job))
        a.put(t, "    raise ChildFailedError(")
        a.put(t, "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ")
        a.put(t, "============================================================")
        a.put(t, "%s FAILED" % job.entry)
        a.put(t, "------------------------------------------------------------")
        a.put(t, "Failures:")
        if len(failed_locals) > 1:
            for i, l in enumerate(failed_locals[1:4]):
                g = h * 8 + l
                a.put(t, "[%d]:" % (i + 1))
                a.put(t, "  time      : %s" % job.dt(t, h).strftime("%Y-%m-%d_%H:%M:%S"))
                a.put(t, "  host      : %s" % job.hosts[h])
                a.put(t, "  rank      : %d (local_rank: %d)" % (g, l))
                a.put(t, "  exitcode  : %d (pid: %d)" % (exitcode, job.ranks[g].pid))
                a.put(t, "  error_file: <N/A>")
                a.put(t, "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-exitcode, {6: "SIGABRT", 9: "SIGKILL", 15: "SIGTERM"}.get(-exitcode, "SIG"), job.ranks[g].pid) if exitcode < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"))
        else:
            a.put(t, "  <NO_OTHER_FAILURES>")
        a.put(t, "------------------------------------------------------------")
        a.put(t, "Root Cause (first observed failure):")
        g = h * 8 + fr
        a.put(t, "[0]:")
        a.put(t, "  time      : %s" % job.dt(t, h).strftime("%Y-%m-%d_%H:%M:%S"))
        a.put(t, "  host      : %s" % job.hosts[h])
        a.put(t, "  rank      : %d (local_rank: %d)" % (g, fr))
        a.put(t, "  exitcode  : %d (pid: %d)" % (exitcode, job.ranks[g].pid))
        a.put(t, "  error_file: <N/A>")
        a.put(t, "  traceback : %s" % ("Signal %d (%s) received by PID %d" % (-exitcode, {6: "SIGABRT", 9: "SIGKILL", 15: "SIGTERM"}.get(-exitcode, "SIG"), job.ranks[g].pid) if exitcode < 0 else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"))
        a.put(t, "============================================================")
    elif L == "deepspeed":
        for l in range(8):
            a.put(t, py_log(job, h, t, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % job.ranks[h * 8 + l].pid))
        a.put(t + 1, py_log(job, h, t + 1, "ERROR", "launch.py:325:sigkill_handler", "['/usr/bin/python', '-u', '%s', '--local_rank=%d', '--deepspeed', '--deepspeed_config', 'ds_z3.json'] exits with return code = %d" % (job.entry, fr, exitcode)))
        if job.S["layout"] == "console_pdsh":
            a.put(t + 2, "pdsh@%s: %s: ssh exited with exit code %d" % (job.hosts[0], job.ips[h], abs(exitcode) if exitcode > 0 else 128 - exitcode))
    elif L == "msrun":
        a0 = job.agents[0]
        if h == 0 or True:
            for l in failed_locals[:1]:
                g = h * 8 + l
                a0.put(t, ms_log(job, job.ranks[0], t, "ERROR", "mindspore/parallel/cluster/process_entity/_api.py:312", "Worker process %d exit with exception. Error code: %d." % (job.ranks[g].pid, exitcode)))
    elif L == "srun":
        a0 = job.agents[0]
        g = h * 8 + fr
        a0.put(t, "srun: error: %s: task %d: Exited with exit code %d" % (job.hosts[h], g, exitcode if exitcode > 0 else 134))
    elif L == "ray":
        pass
    return t


def srun_end(job, t, reason=None):
    a0 = job.agents[0]
    a0.put(t, "srun: launch/slurm: _step_signal: Terminating StepId=%d.0" % job.job_id)
    a0.put(t + 1, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***" % (job.job_id, job.hosts[0], job.dt(t + 1, 0).strftime("%Y-%m-%dT%H:%M:%S"), (" " + reason) if reason else ""))


def ray_end(job, t, g, err):
    a0 = job.agents[0]
    a0.put(t, "%s\tERROR tune_controller.py:1331 -- Trial task failed for trial TorchTrainer_%s" % (ts_plain(job.dt(t, 0)) + ",%03d" % job.rng.randint(0, 999), job.runid[-5:]))
    a0.put(t, "ray.exceptions.RayTaskError(%s): \x1b[36mray::_Inner.train()\x1b[39m (pid=%d, ip=%s, actor_id=%032x, repr=TorchTrainer)" % (err, job.agents[0].pid, job.ips[0], job.rng.getrandbits(128)))
    a0.put(t, "ray.exceptions.RayTaskError(%s): \x1b[36mray::_RayTrainWorker__execute.get_next()\x1b[39m (pid=%d, ip=%s, actor_id=%032x, repr=<ray.train._internal.worker_group.RayTrainWorker object at 0x7f%010x>)" % (err, job.ranks[g].pid, job.ips[g // 8], job.rng.getrandbits(128), job.rng.getrandbits(40)))
    a0.put(t + 1, "Training errored after %d iterations at %s. Total running time: %s" % (max(0, len(job.t_iter)), ts_plain(job.dt(t + 1, 0)), fmt_dur(int(t))))
    a0.put(t + 1, "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed. Please inspect the previous error messages for a cause. After fixing the issue (assuming that the error is not caused by your own application logic, but rather an error such as OOM), you can restart the run from scratch or continue this run.")


def finish_job(job, t, failed_by_host, exitcode_by_host, reason=None):
    """launcher-level teardown for every host; failed_by_host: h -> list of failed local ranks"""
    L = job.S["launcher"]
    for h in range(job.n):
        if h in job.silent:
            continue
        teardown_agent(job, h, t + job.rng.uniform(0, 4), failed_by_host.get(h, [0]), exitcode_by_host.get(h, 1))
    if L == "srun":
        srun_end(job, t + 8, reason)
    if L == "ray":
        g = job.ray_err_rank if hasattr(job, "ray_err_rank") else 0
        ray_end(job, t + 6, g, job.ray_err if hasattr(job, "ray_err") else "RuntimeError")


def nccl_watchdog(job, r, t, seq, op, numel, completed=None, mark=None):
    """CUDA ProcessGroupNCCL watchdog timeout on rank r"""
    to = job.nccl_to_ms
    ran = to + job.rng.randint(5, 900)
    d = job.dt(t, r.h)
    if job.tv_new:
        p = "[rank%d]:" % r.g if job.S["layout"] != "console_rank" else ""
        r.put(t, "%s[%s ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (p, ts_glog9(d, "E"), r.g, seq, op, numel, numel, to, ran), mark)
        r.put(t, "%s[%s ProcessGroupNCCL.cpp:1785] [PG 0 (default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (p, ts_glog9(d, "E"), r.g, seq, seq + 1, completed if completed is not None else seq - 1))
        r.put(t, "%s[%s ProcessGroupNCCL.cpp:630] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (p, ts_glog9(d, "E"), r.g))
        r.put(t, "%s[%s ProcessGroupNCCL.cpp:636] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (p, ts_glog9(d, "E"), r.g))
        r.put(t, "%s[%s ProcessGroupNCCL.cpp:1595] [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (p, ts_glog9(d, "E"), r.g, r.g, seq, op, numel, numel, to, ran))
        r.put(t, "terminate called after throwing an instance of 'c10::DistBackendError'")
    else:
        r.put(t, "[E ProcessGroupNCCL.cpp:475] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (r.g, seq, op, numel, numel, to, ran), mark)
        r.put(t, "[E ProcessGroupNCCL.cpp:489] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.")
        r.put(t, "[E ProcessGroupNCCL.cpp:495] To avoid data inconsistency, we are taking the entire process down.")
        r.put(t, "[E ProcessGroupNCCL.cpp:916] [Rank %d] NCCL watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (r.g, r.g, seq, op, numel, numel, to, ran))
        r.put(t, "terminate called after throwing an instance of 'std::runtime_error'")
    r.put(t, "  what():  [PG 0 Rank %d] Process group watchdog thread terminated with exception: [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (r.g, r.g, seq, op, numel, numel, to, ran))


def nccl_peer_exit(job, r, t, peer_h):
    """CUDA: peer process went away -> socket / remote error on rank r"""
    p = nccl_pfx(job, r)
    port = job.rng.randint(32768, 60999)
    r.put(t, "%s NCCL WARN socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (p, job.ips[peer_h], port))
    r.put(t, "%s NCCL INFO misc/socket.cc:%d -> 6" % (p, job.rng.choice([49, 752, 847])))
    pre = "[rank%d]:" % r.g if (job.tv_new and job.S["layout"] != "console_rank") else ""
    d = job.dt(t, r.h)
    r.put(t + 0.1, "%s[%s ProcessGroupNCCL.cpp:1595] [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pre, ts_glog9(d, "E"), r.g, job.nccl_ver.split("+")[0]))
    r.put(t + 0.1, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
    r.put(t + 0.1, "Last error:")
    r.put(t + 0.1, "socketProgressOpt: Call to recv from %s<%d> failed : Connection reset by peer" % (job.ips[peer_h], port))


def hccl_notify_timeout(job, r, t, remote, tag_op="AllReduce", mark=None):
    d = job.dt(t, r.h)
    r.put(t, "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (ts_cann_s(d), r.pid, r.l, r.g))
    r.put(t, "EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [%s]. base information: [streamID:[%d], taskID[%d], taskType[Notify Wait], tag[%s_%s%%enp189s0f0_60000_0_%d]]. task information: [notify id:[0x%016x], stage:[ffffffff], remote rank:[%s]]. group information: [group:[%s%%enp189s0f0_60000_0_%d], user define information[Unspecified], rankSize[%d], rankId[%d]]" % (
        r.pid, ts_cann(d), remote, job.rng.randint(2, 40), job.rng.randint(1000, 900000), tag_op, job.ips[0], job.start.toordinal() * 7, job.rng.getrandbits(20), remote, job.ips[0], job.start.toordinal() * 7, job.world, r.g), mark)
    r.put(t, "        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to complete a communication operation within the timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or other connectivity problems occur on the communication link.")
    r.put(t, "        Solution: 1. If this error is reported on part of these ranks, check other ranks to see whether other errors have been reported earlier.2. If this error is reported for all ranks, check whether the error reporting time is consistent (the maximum difference must not exceed 1800s). If not, locate the cause or adjust the locate the cause or set the HCCL_EXEC_TIMEOUT environment variable to a larger value.3. Check whether the completion queue element (CQE) of the error exists in the plog(grep -rn 'error cqe'). If so, check the network connection status. (For details, see the TLS command and HCCN connectivity check examples.)4. Ensure that the number of training samples of each NPU is consistent.")
    r.put(t, "        TraceBack (most recent call last):")


def ascend_rt_error(job, r, t, code, func="AclrtSynchronizeDeviceWithTimeout", mark=None):
    d = job.dt(t, r.h)
    r.put(t, "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed" % (ts_cann_s(d), r.pid, r.l, r.g))
    r.put(t, "%sRuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:479 NPU function error: %s, error code is %d" % (rpfx(job, r), func, code), mark)


def cascade_cuda(job, t, mode, faulty_hosts, peer_h, seq, op="ALLREDUCE", numel=None, skip_ranks=()):
    """cascade on all ranks of non-faulty hosts, starting at t. mode: 'watchdog' (all ranks time out
    after the NCCL timeout), 'peer_exit' (socket errors soon after t), 'mixed'. returns last time used."""
    rng = job.rng
    numel = numel or rng.choice([1, 466119168, 68124672, 262144000, 8192])
    tmax = t
    for r in job.ranks:
        if r.h in faulty_hosts or r.h in job.silent or r.g in skip_ranks:
            continue
        m = mode if mode != "mixed" else ("peer_exit" if rng.random() < 0.5 else "watchdog")
        if m == "peer_exit" and r.h == peer_h:
            m = "watchdog"
        if m == "watchdog":
            tt = t + job.nccl_to_ms / 1000.0 + rng.uniform(0, 3)
            nccl_watchdog(job, r, tt, seq, op, numel)
        else:
            tt = t + rng.uniform(0.5, 20)
            nccl_peer_exit(job, r, tt, peer_h)
        tmax = max(tmax, tt)
    return tmax


def cascade_ascend(job, t, faulty_hosts, remote, skip_ranks=(), mark=None):
    rng = job.rng
    tmax = t
    for r in job.ranks:
        if r.h in faulty_hosts or r.h in job.silent or r.g in skip_ranks:
            continue
        tt = t + rng.uniform(0, 3)
        tmax = max(tmax, tt)
        rem = remote if not callable(remote) else remote(r)
        if job.S["flavor"] == "mindspore":
            r.put(tt, ms_log(job, r, tt, "ERROR", "mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:1048", "Call rt api rtStreamSynchronize failed, ret: 507048"))
            hccl_notify_timeout(job, r, tt, rem, mark=mark)
            r.put(tt, "RuntimeError: Sync stream failed:Ascend_%d" % r.l)
            r.put(tt, "")
            r.put(tt, "----------------------------------------------------")
            r.put(tt, "- C++ Call Stack: (For framework developers)")
            r.put(tt, "----------------------------------------------------")
            r.put(tt, "mindspore/ccsrc/plugin/device/ascend/hal/hardware/ge_device_res_manager.cc:399 SyncStream")
        else:
            hccl_notify_timeout(job, r, tt, rem, mark=mark)
            ascend_rt_error(job, r, tt + 0.2, 507048)
    return tmax


# ----------------------------------------------------------------------------
# faults
# ----------------------------------------------------------------------------
class Fault:
    def __init__(self, kind, cat, sub, symptom, stage, rc, rem, accept=None):
        self.kind, self.cat, self.sub, self.symptom, self.stage = kind, cat, sub, symptom, stage
        self.rc, self.rem = rc, rem
        self.accept = accept
        self.faulty = []       # list of Src whose label node is faulty
        self.iteration = None
        self.hosts = []        # alias strings


def pick_iter(job, lo=30, hi=260):
    return job.it0 + job.log_interval * job.rng.randint(lo, hi) + job.rng.randint(0, max(0, job.log_interval - 1))


def pick_save_iter(job):
    k = job.rng.randint(1, 3)
    base = ((job.it0 // job.save_interval) + k) * job.save_interval
    return base


def pick_host(job, avoid0=True):
    if job.n == 1:
        return 0
    return job.rng.randint(1 if avoid0 else 0, job.n - 1)


def alias(job, F, h):
    for x in (job.hosts[h], job.ips[h]):
        if x and x not in F.hosts:
            F.hosts.append(x)


def last_seq(job):
    return 40 + (len(job.t_iter) * job.rng.choice([3, 5, 7]))


def gpu_xid(kind):
    def build(job, plan):
        rng = job.rng
        h = pick_host(job)
        d = rng.randint(0, 7)
        r = job.ranks[h * 8 + d]
        it = pick_iter(job)
        plan.stop_stage, plan.stop_iter = "training", it
        bus = job.busids[d]
        if kind == 79:
            F = Fault("gpu_xid79_fell_off_bus", "hardware", "accelerator", "training_crash", "training",
                      "GPU %d on %s fell off the PCIe bus (Xid 79), killing the rank that used it." % (d, job.hosts[h]),
                      "Drain the node, reseat/replace the GPU or riser and check PSU/thermals before returning it to the pool; resume from the last checkpoint without it.")
            xid = ["NVRM: Xid (PCI:0000:%s:00): 79, pid=%d, name=python, GPU has fallen off the bus." % (bus, r.pid),
                   "NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus." % bus]
            pat = ["): 79, pid=", "NVRM: GPU 0000:"]
            cerr = "CUDA error: unspecified launch failure"
        elif kind == 48:
            F = Fault("gpu_xid48_dbe_ecc", "hardware", "accelerator", "training_crash", "training",
                      "An uncorrectable double-bit ECC error (Xid 48) in the HBM of GPU %d on %s corrupted the rank's memory." % (d, job.hosts[h]),
                      "Cordon the node, let row-remapping/GPU reset run or RMA the GPU, then restart from the last checkpoint on healthy nodes.")
            xid = ["NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=python, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d." % (bus, r.pid, rng.randint(0, 11), rng.randint(0, 1)),
                   "NVRM: Xid (PCI:0000:%s:00): 63, pid=%d, name=python, Row Remapper: New row (0x%09x) marked for remapping, reset gpu to activate." % (bus, r.pid, rng.getrandbits(32))]
            pat = ["): 48, pid=", "): 63, pid="]
            cerr = "CUDA error: uncorrectable ECC error encountered"
        elif kind == 94:
            F = Fault("gpu_xid94_contained_ecc", "hardware", "accelerator", "training_crash", "training",
                      "A contained uncorrectable ECC error (Xid 94) on GPU %d of %s terminated the process using it." % (d, job.hosts[h]),
                      "Reset the GPU (or reboot the node) to retire the bad memory rows, check the ECC counters with nvidia-smi -q, then resubmit from the last checkpoint.")
            xid = ["NVRM: Xid (PCI:0000:%s:00): 94, pid=%d, name=python, Contained: SM (0x1). RST: No, D-RST: No" % (bus, r.pid)]
            pat = ["): 94, pid="]
            cerr = "CUDA error: uncorrectable ECC error encountered"
        else:
            F = Fault("gpu_xid74_nvlink", "hardware", "network", "training_crash", "training",
                      "A fatal NVLink error (Xid 74) on GPU %d of %s broke intra-node NCCL traffic." % (d, job.hosts[h]),
                      "Take the node out of service, run the NVLink/NVSwitch field diagnostics (dcgmi diag -r 3 / nvidia-smi nvlink -e) and replace the faulty baseboard or GPU.",
                      accept=["hardware/network", "hardware/accelerator"])
            xid = ["NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python, NVLink: fatal error detected on link %d(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (bus, r.pid, rng.randint(0, 17))]
            pat = ["): 74, pid="]
            cerr = "CUDA error: an illegal memory access was encountered"
        F.iteration = [it]

        def inject():
            t = job.t_fault
            wrote = False
            for i, (x, p) in enumerate(zip(xid, pat)):
                e = job.ev("e%d" % (i + 1), x, p)
                wrote |= kern(job, h, t + i * 0.3, x, mark=e)
            if wrote:
                F.faulty.append(job.agents[h])
            e2 = job.ev("e%d" % (len(xid) + 1), cerr, cerr)
            d9 = job.dt(t + 0.5, h)
            pre = "[rank%d]:" % r.g if (job.tv_new and job.S["layout"] != "console_rank") else ""
            r.put(t + 0.5, "%s[%s ProcessGroupNCCL.cpp:1595] [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (pre, ts_glog9(d9, "E"), r.g, cerr), e2)
            r.put(t + 0.5, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.")
            r.put(t + 0.5, "For debugging consider passing CUDA_LAUNCH_BLOCKING=1")
            r.put(t + 0.5, "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.")
            r.put(t + 0.5, "")
            r.put(t + 0.5, "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):")
            r.put(t + 0.5, "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f%010x in %s/torch/lib/libc10.so)" % (rng.getrandbits(36), site(job)))
            r.put(t + 0.5, "terminate called after throwing an instance of 'c10::DistBackendError'")
            r.put(t + 0.5, "  what():  [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: %s" % (r.g, cerr), e2)
            F.faulty.append(r)
            alias(job, F, h)
            seq = last_seq(job)
            # the other ranks of the same node also block, then time out
            for rr in job.ranks:
                if rr.h == h and rr.g != r.g:
                    nccl_watchdog(job, rr, t + job.nccl_to_ms / 1000.0 + rng.uniform(0, 2), seq, "ALLREDUCE", 1)
            tend = cascade_cuda(job, t + 1, "watchdog" if rng.random() < 0.5 else "mixed", {h}, h, seq) + 15
            tend = max(tend, t + job.nccl_to_ms / 1000.0 + 5)
            fb = {hh: [0] for hh in range(job.n)}
            fb[h] = [d]
            finish_job(job, tend, fb, {hh: -6 for hh in range(job.n)} | {h: -6})
            flush_kdump(job, tend)
            job.ray_err_rank = r.g
            job.ray_err = "DistBackendError"
        F.inject = inject
        return F
    return build


def f_ib_link(job, plan):
    rng = job.rng
    h = pick_host(job)
    it = pick_iter(job)
    plan.stop_stage, plan.stop_iter = "training", it
    hca = rng.choice([0, 3, 4, 5, 6, 9, 10, 11])
    locs = [rng.randint(0, 7)]
    peer = (h + 1) % job.n if job.n > 1 else h
    F = Fault("nccl_ib_link_error", "hardware", "network", "training_crash", "training",
              "The InfiniBand/RoCE port mlx5_%d on %s went down, so NCCL work requests from its ranks failed with transport retry errors (status 12)." % (hca, job.hosts[h]),
              "Check the cable/transceiver and switch port of mlx5_%d on %s (ibstat, switch counters), exclude the node until the link is clean, then resume from checkpoint." % (hca, job.hosts[h]))
    F.iteration = [it]

    def inject():
        t = job.t_fault
        pb = "%02x" % rng.randint(0x10, 0xf0)
        e1 = job.ev("e1", "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link DOWN" % (pb, hca), "Link DOWN")
        if kern(job, h, t - 2, "mlx5_core 0000:%s:00.0: mlx5_port_module_event:1148:(pid 0): Port module event[error]: module %d, Cable error, Bus stuck (I2C or data shorted)" % (pb, hca), mark=job.ev("e2", "Port module event[error]: module %d, Cable error" % hca, "Port module event[error]")):
            kern(job, h, t - 1.5, "mlx5_core 0000:%s:00.0 mlx5_%d: Port: 1 Link DOWN" % (pb, hca), mark=e1)
            F.faulty.append(job.agents[h])
        else:
            del job.events["e1"], job.events["e2"]
            job.ev_order.clear()
        eid = job.ev("e3" if "e1" in job.events else "e1", "NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (job.ips[peer], 50000, job.ips[h], job.ips[peer]), "NET/IB : Got completion from peer")
        for l in locs:
            r = job.ranks[h * 8 + l]
            p = nccl_pfx(job, r)
            for k in range(rng.randint(1, 3)):
                port = rng.randint(32768, 60999)
                r.put(t + k * 0.01, "%s transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (p, job.ips[peer], port, rng.choice([0, 1, 32616]), job.ips[h], job.ips[peer]), eid)
                r.put(t + k * 0.01, "%s NCCL INFO transport/net.cc:1298 -> 6" % p)
                r.put(t + k * 0.01, "%s NCCL INFO proxy.cc:694 -> 6" % p)
                r.put(t + k * 0.01, "%s NCCL INFO proxy.cc:874 -> 6 [Progress Thread]" % p)
            pre = "[rank%d]:" % r.g if (job.tv_new and job.S["layout"] != "console_rank") else ""
            r.put(t + 1, "%s[%s ProcessGroupNCCL.cpp:1595] [PG 0 (default_pg) Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version %s" % (pre, ts_glog9(job.dt(t + 1, h), "E"), r.g, job.nccl_ver.split("+")[0]))
            r.put(t + 1, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.")
            r.put(t + 1, "Last error:")
            r.put(t + 1, "NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (job.ips[peer], port, job.ips[h], job.ips[peer]), eid)
            F.faulty.append(r)
        # the peer sees errors naming the faulty host (cascade, same message type)
        for l in locs:
            r = job.ranks[peer * 8 + l]
            if peer != h:
                p = nccl_pfx(job, r)
                r.put(t + 0.2, "%s transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (p, job.ips[h], rng.randint(32768, 60999), rng.choice([0, 32616]), job.ips[peer], job.ips[h]))
                r.put(t + 0.2, "%s NCCL INFO transport/net.cc:1298 -> 6" % p)
        alias(job, F, h)
        seq = last_seq(job)
        skip = [h * 8 + l for l in locs]
        tend = cascade_cuda(job, t + rng.uniform(2, 40), "mixed", set(), h, seq, skip_ranks=skip) + 10
        fb = {hh: [0] for hh in range(job.n)}
        fb[h] = locs
        finish_job(job, tend, fb, {hh: -6 for hh in range(job.n)})
        flush_kdump(job, tend)
        job.ray_err_rank = h * 8 + locs[0]
        job.ray_err = "DistBackendError"
    F.inject = inject
    return F


# ----------------------------------------------------------------------------
# layout, writing, labels
# ----------------------------------------------------------------------------
LOG_EXT = (".log", ".txt", ".out")


def stem(path):
    b = os.path.basename(path)
    if b.endswith(".gz"):
        b = b[:-3]
    for e in LOG_EXT:
        if b.endswith(e):
            return b[: -len(e)]
    return b


def plan_files(job):
    """returns list of (relpath, [(src, prefix)]) and dict src-id -> label node"""
    S = job.S
    L = S["layout"]
    files = []
    lab = {}
    fmt = lambda f, h, g=None, l=None: f.format(host=job.hosts[h], ip=job.ips[h], i=h, uuid=job.uuid, jobid=job.job_id, g=g, l=l)
    if L == "pernode":
        for h in range(job.n):
            rel = fmt(S["fname"], h)
            ent = [(job.agents[h], "")]
            for r in job.ranks[h * 8:(h + 1) * 8]:
                ent.append((r, "[default%d]:" % r.l if S["prefix_local"] else ""))
            files.append((rel, ent))
            for s, _ in ent:
                lab[id(s)] = stem(rel)
    elif L == "perrank":
        rels = []
        for r in job.ranks:
            rels.append((fmt(S["fname"], r.h, r.g, r.l), [(r, "")]))
        for a in job.agents:
            if a.recs:
                af = S["agentfile"]
                if S["launcher"] == "msrun" and a.h != 0:
                    af = "{host}/node_monitor.log"
                rels.append((fmt(af, a.h), [(a, "")]))
        stems = {}
        for rel, _ in rels:
            stems.setdefault(stem(rel), []).append(rel)
        for rel, ent in rels:
            st = stem(rel)
            name = st if len(stems[st]) == 1 else os.path.dirname(rel).split("/")[-1] + "/" + st
            for s, _ in ent:
                lab[id(s)] = name
            files.append((rel, ent))
    else:
        rel = fmt(S["fname"], 0)
        ent = []
        for a in job.agents:
            if L == "console_pdsh":
                ent.append((a, "%s: " % job.ips[a.h]))
            elif L == "console_ray" and a.h > 0:
                ent.append((a, "(raylet, ip=%s) " % job.ips[a.h]))
            else:
                ent.append((a, ""))
            lab[id(a)] = stem(rel)
        for r in job.ranks:
            if L == "console_rank":
                ent.append((r, "[rank%d]:" % r.g))
                lab[id(r)] = "rank%d" % r.g
            elif L == "console_srun":
                ent.append((r, "%d: " % r.g))
                lab[id(r)] = "rank%d" % r.g
            elif L == "console_pdsh":
                ent.append((r, "%s: " % job.ips[r.h]))
                lab[id(r)] = stem(rel)
            else:
                ent.append((r, "(RayTrainWorker pid=%d, ip=%s) " % (r.pid, job.ips[r.h])))
                lab[id(r)] = stem(rel)
        files.append((rel, ent))
    return files, lab


def write_job(job, logdir):
    files, lab = plan_files(job)
    marks = {}  # eid -> node -> [lines]
    total = 0
    for rel, ent in files:
        recs = []
        for si, (s, pfx) in enumerate(ent):
            for (t, seq, text, mark) in s.recs:
                recs.append((t, si, seq, pfx + text if pfx else text, mark, lab[id(s)]))
        recs.sort(key=lambda x: (x[0], x[1], x[2]))
        path = os.path.join(logdir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            for i, rc in enumerate(recs, 1):
                f.write(rc[3] + "\n")
                if rc[4]:
                    marks.setdefault(rc[4], {}).setdefault(rc[5], []).append(i)
        total += os.path.getsize(path)
    return marks, lab, total, [f[0] for f in files]


def make_job(rng, S, n, start):
    job = Job(rng, S, n, start)
    job.silent = set()
    job.kdump = {}
    job.t_iter = {}
    setup_job_params(job)
    return job


def crash_common(job, t, crashed, exitcode=1, cascade=True, seq=None, mode="mixed", ascend_remote=None):
    """after ranks in `crashed` raised: cascade on the others, launcher teardown. returns end time"""
    rng = job.rng
    hosts_c = sorted(set(r.h for r in crashed))
    tend = t + 5
    if cascade:
        skip = [r.g for r in crashed]
        if job.stack == "cuda":
            tend = cascade_cuda(job, t + 1, mode, set(), hosts_c[0], seq or last_seq(job), skip_ranks=skip) + 5
        else:
            tend = cascade_ascend(job, t + job.hccl_exec_to, set(), ascend_remote if ascend_remote is not None else crashed[0].g, skip_ranks=skip) + 5
    fb = {h: [0] for h in range(job.n)}
    ec = {h: (-6 if cascade and job.stack == "cuda" else 1) for h in range(job.n)}
    for h in hosts_c:
        fb[h] = sorted(r.l for r in crashed if r.h == h)
        ec[h] = exitcode
    finish_job(job, tend, fb, ec)
    flush_kdump(job, tend)
    job.ray_err_rank = crashed[0].g
    return tend


def f_cuda_oom(job, plan):
    rng = job.rng
    it = job.it0 + rng.randint(1, 3)
    plan.stop_stage, plan.stop_iter = "training", it
    F = Fault("cuda_oom", "user", "configuration", "training_crash", "training",
              "Activation memory of the first pipeline stage exceeded GPU memory at sequence length %d with micro-batch %d." % (job.seq, job.mbs),
              "Reduce the micro-batch size or sequence length, or enable activation recomputation / a larger pipeline or tensor parallel degree.")
    F.iteration = [it]

    def inject():
        t = job.t_fault
        hosts = [0] if job.n < 3 or rng.random() < 0.5 else [0, 1]
        crashed = [r for r in job.ranks if r.h in hosts and (r.l < rng.choice([4, 8]) or r.l == 0)]
        e = job.ev("e1", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB.", "CUDA out of memory. Tried to allocate")
        for r in crashed:
            alloc = rng.choice([1.96, 3.91, 7.83, 2.50])
            free = rng.uniform(0.3, 2.4)
            if job.tv_new:
                msg = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % (alloc, r.l, job.hbm, free, r.pid, job.hbm - free, job.hbm - free - 1.1, 1.1)
            else:
                msg = "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacty of %.2f GiB of which %.2f GiB is free. Process %d has %.2f GiB memory in use. Of the allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF" % (alloc, r.l, job.hbm, free, r.pid, job.hbm - free, job.hbm - free - 1.1, 1.1)
            fr = frames_train(job) + [("%s/torch/autograd/__init__.py" % site(job), 266, "backward", "Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass")]
            traceback(job, r, t + rng.uniform(0, 1), fr, [msg], mark=e)
        F.faulty.extend(crashed)
        for h in hosts:
            alias(job, F, h)
        crash_common(job, t + 2, crashed)
        job.ray_err = "OutOfMemoryError"
    F.inject = inject
    return F


def f_npu_oom(job, plan):
    rng = job.rng
    it = job.it0 + rng.randint(1, 4)
    plan.stop_stage, plan.stop_iter = "training", it
    F = Fault("npu_oom", "user", "configuration", "training_crash", "training",
              "The configured micro-batch/sequence length (%d) needs more HBM than the 64 GB of a 910B NPU on the first pipeline stage." % job.seq,
              "Lower micro-batch size or sequence length, enable recomputation (--recompute-granularity full) or increase TP/PP so each NPU holds less activation memory.")
    F.iteration = [it]

    def inject():
        t = job.t_fault
        h = 0
        crashed = [r for r in job.ranks if r.h == h and r.l in sorted(rng.sample(range(8), rng.randint(2, 8)))]
        if job.S["flavor"] == "mindspore":
            e = job.ev("e1", "Device(id:3) memory isn't enough and alloc failed, kernel name: Default/network-MFPipelineWithLossScaleCell/network-_VirtualDatasetCell/_backbone-LlamaForCausalLM/model-LlamaModel/layers-CellList/0-LLamaDecodeLayer/attention-LLamaAttention/MatMul-op1042, alloc size: 2147483648B.", "memory isn't enough and alloc failed")
            for r in crashed:
                r.put(t, ms_log(job, r, t, "ERROR", "mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1297", "Device(id:%d) memory isn't enough and alloc failed, kernel name: Default/network-MFPipelineWithLossScaleCell/network-_VirtualDatasetCell/_backbone-LlamaForCausalLM/model-LlamaModel/layers-CellList/%d-LLamaDecodeLayer/attention-LLamaAttention/MatMul-op%d, alloc size: %dB." % (r.l, rng.randint(0, 7), rng.randint(100, 4000), rng.choice([2147483648, 1073741824, 536870912]))), e)
                traceback(job, r, t, frames_train(job), ["RuntimeError: Memory not enough: current free memory size[%d] is smaller than required size[%d]." % (rng.randint(10 ** 8, 10 ** 9), 2147483648), "", "----------------------------------------------------", "- C++ Call Stack: (For framework developers)", "----------------------------------------------------", "mindspore/ccsrc/runtime/pynative/op_runner.cc:488 Malloc"])
        else:
            e = job.ev("e1", "RuntimeError: NPU out of memory. Tried to allocate 5.03 GiB (NPU 3; 60.96 GiB total capacity; 49.47 GiB already allocated; 49.47 GiB current active; 1.32 GiB free; 57.55 GiB reserved in total by PyTorch)", "NPU out of memory. Tried to allocate")
            for r in crashed:
                a = rng.uniform(1, 8)
                alloc = rng.uniform(45, 58)
                msg = "RuntimeError: NPU out of memory. Tried to allocate %.2f GiB (NPU %d; 60.96 GiB total capacity; %.2f GiB already allocated; %.2f GiB current active; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (a, r.l, alloc, alloc, rng.uniform(0.1, 2), alloc + 3)
                traceback(job, r, t + rng.uniform(0, 1), frames_train(job), [msg], mark=e)
        F.faulty.extend(crashed)
        alias(job, F, h)
        crash_common(job, t + 2, crashed)
    F.inject = inject
    return F


def f_nan(job, plan):
    rng = job.rng
    it = pick_iter(job, 80, 250)
    plan.stop_stage, plan.stop_iter = "training", it
    k0 = it - job.log_interval * rng.randint(3, 6)
    F = Fault("loss_nan", "user", "configuration", "training_crash", "training",
              "The loss diverged (spikes, then NaN gradients) because the learning rate %.1e is too high for this model in bf16; Megatron's NaN check aborted every rank." % job.lr,
              "Roll back to the last good checkpoint, lower the learning rate or lengthen warm-up, and skip/inspect the data batch around the divergence.",
              accept=["user/configuration", "unknown/unknown"])
    F.iteration = [it]
    e1 = job.ev("e1", "lm loss: nan | loss scale: 1.0 | grad norm: nan", "grad norm: nan")
    plan.hook_pat = "grad norm: nan"

    def hook(i, t):
        if i < k0:
            return None
        if i >= it - job.log_interval * 2:
            return ("nan", "nan", {"nan": (i - (it - 2 * job.log_interval)) // max(1, job.log_interval) + 1, "skipped": 1}, e1)
        return (loss_at(job, i) * rng.uniform(1.6, 4.0), rng.uniform(40, 900), None, None)
    plan.hook = hook

    def inject():
        t = job.t_fault
        e2 = job.ev("e2", "AssertionError: Rank 0: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: 0, node: host", "found NaN in local grad norm")
        for r in job.ranks:
            traceback(job, r, t + rng.uniform(0, 2), frames_train(job) + [("%s/megatron/core/distributed/param_and_grad_buffer.py" % ("/workspace/Megatron-LM" if job.stack == "cuda" else "/home/ma-user/work/MindSpeed-LLM"), 151, "check_for_nan_in_grad", "assert not norm_is_nan, (")],
                      ["AssertionError: Rank %d: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: %d, node: %s" % (r.g, r.l, job.hosts[r.h])], mark=e2)
        crash_common(job, t + 3, job.ranks, cascade=False)
    F.inject = inject
    return F


def f_ds_overflow(job, plan):
    rng = job.rng
    it = pick_iter(job, 60, 200)
    plan.stop_stage, plan.stop_iter = "training", it
    F = Fault("fp16_loss_scale_overflow", "user", "configuration", "training_crash", "training",
              "fp16 mixed precision kept overflowing until the dynamic loss scale hit its minimum, so DeepSpeed aborted the run.",
              "Switch to bf16 (or raise min_loss_scale / lower the learning rate) and resume from the last good checkpoint.",
              accept=["user/configuration", "unknown/unknown"])
    F.iteration = [it]

    def inject():
        t = job.t_last_ok
        r0 = job.ranks[0]
        e1 = job.ev("e1", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1", "OVERFLOW! Rank 0 Skipping step")
        sc = 2 ** rng.randint(8, 14)
        tt = t
        while sc >= 1:
            tt += job.step_t
            r0.put(tt, py_log(job, 0, tt, "INFO", "loss_scaler.py:183:update_scale", "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: %d, reducing to %d" % (sc, max(1, sc // 2))), e1)
            sc //= 2
        e2 = job.ev("e2", "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.", "Current loss scale already at minimum")
        for r in job.ranks:
            traceback(job, r, tt + 1, frames_train(job) + [("%s/deepspeed/runtime/fp16/loss_scaler.py" % site(job), 175, "update_scale", "raise Exception(")],
                      ["Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run."], mark=e2)
        F.iteration = [it]
        crash_common(job, tt + 3, job.ranks, cascade=False)
    F.inject = inject
    return F


def f_bad_tp(job, plan):
    rng = job.rng
    job.tp = 16
    plan.stop_stage, plan.stop_frac = "init", 0.0
    F = Fault("bad_parallel_config", "user", "configuration", "launching_failure", "init",
              "--tensor-model-parallel-size 16 does not divide the world size of %d ranks, so Megatron's argument validation failed on every rank." % job.world,
              "Use a tensor-parallel size that divides GPUs-per-node x nodes (e.g. 8) and keep TP x PP x DP equal to the world size.")

    def inject():
        t = job.t_fault
        e = job.ev("e1", "AssertionError: world size (%d) is not divisible by tensor model parallel size (16)" % job.world, "is not divisible by tensor model parallel size")
        root = "/workspace/Megatron-LM" if job.stack == "cuda" else "/home/ma-user/work/MindSpeed-LLM"
        for r in job.ranks:
            traceback(job, r, t + rng.uniform(0, 2), [("%s/%s" % (root, job.entry), 231, "<module>", "pretrain("),
                                                     ("%s/megatron/training/training.py" % root, 219, "pretrain", "initialize_megatron("),
                                                     ("%s/megatron/training/initialize.py" % root, 54, "initialize_megatron", "validate_args(args, args_defaults)"),
                                                     ("%s/megatron/training/arguments.py" % root, 134, "validate_args", "assert args.world_size % args.tensor_model_parallel_size == 0, 'world size'\\")],
                      ["AssertionError: world size (%d) is not divisible by tensor model parallel size (16)" % job.world], mark=e)
        crash_common(job, t + 3, job.ranks, cascade=False)
    F.inject = inject
    return F


def f_bad_args(job, plan):
    rng = job.rng
    plan.stop_stage, plan.stop_frac = "init", 0.0
    fl = job.S["flavor"]
    if fl == "megatron":
        bad = rng.choice(["--use-fused-rotary-pos-emb", "--overlap-param-gather-with-optimizer-step", "--use-mcore-models --num-experts-per-tok 2"])
        line = "%s: error: unrecognized arguments: %s" % (job.entry, bad)
        usage = "usage: %s [-h] [--num-layers NUM_LAYERS] [--encoder-num-layers ENCODER_NUM_LAYERS]" % job.entry
        rc = "The launch script passes %s, which this Megatron version does not define, so argparse rejected the command line on every rank." % bad.split()[0]
    else:
        bad = rng.choice(["cosine_warmup", "linear_with_warmup", "wsd_decay"])
        line = "%s: error: argument --lr_scheduler_type: invalid SchedulerType value: '%s'" % (job.entry, bad)
        usage = "usage: %s [-h] --model_name_or_path MODEL_NAME_OR_PATH [--output_dir OUTPUT_DIR]" % job.entry
        rc = "The job passes --lr_scheduler_type %s, which is not a valid SchedulerType, so argument parsing failed on every rank." % bad
    F = Fault("bad_cli_argument", "user", "configuration", "launching_failure", "init", rc,
              "Fix the launch script's arguments to match the installed framework version (check --help) and resubmit.",
              accept=["user/configuration", "user/software_incompatibility"])

    def inject():
        t = job.t_fault
        e = job.ev("e1", line, "error: " + line.split("error: ")[1][:40])
        for r in job.ranks:
            r.put(t + rng.uniform(0, 1), usage)
            r.put(t + 1.1, "       " + " " * len(job.entry) + " [--hidden-size HIDDEN_SIZE] ...")
            r.put(t + 1.2, line, e)
        crash_common(job, t + 3, job.ranks, exitcode=2, cascade=False)
    F.inject = inject
    return F


def f_script_bug(job, plan):
    rng = job.rng
    it = pick_iter(job, 40, 250)
    plan.stop_stage, plan.stop_iter = "training", it
    F = Fault("dataset_script_bug", "user", "script_bug", "training_crash", "training",
              "The custom dataset code indexes past the end of a sample's token list for an empty document, raising IndexError in a DataLoader worker.",
              "Fix the __getitem__/packing code to handle empty or short samples (filter them in preprocessing) and restart from the last checkpoint.")
    F.iteration = [it]

    def inject():
        t = job.t_fault
        r = job.ranks[rng.randint(0, job.world - 1)]
        w = rng.randint(0, 7)
        e = job.ev("e1", "IndexError: Caught IndexError in DataLoader worker process %d." % w, "IndexError")
        fr = frames_train(job)[:2] + frames_data(job)[:2] + [("%s/torch/utils/data/dataloader.py" % site(job), 1371, "_process_data", "data.reraise()"),
                                                            ("%s/torch/_utils.py" % site(job), 705, "reraise", "raise exception")]
        pre = rpfx(job, r)
        traceback(job, r, t, fr, ["IndexError: Caught IndexError in DataLoader worker process %d." % w, "Original Traceback (most recent call last):"], mark=e)
        for f_ in [("%s/torch/utils/data/_utils/worker.py" % site(job), 308, "_worker_loop", "data = fetcher.fetch(index)  # type: ignore[possibly-undefined]"),
                   ("/workspace/data/packed_dataset.py", 88, "__getitem__", "last = ids[-1] if ids[-1] == self.eos_id else ids[self.seq_len - 1]")]:
            r.put(t, pre + '  File "%s", line %d, in %s' % f_[:3])
            r.put(t, pre + "    " + f_[3])
        r.put(t, pre + "IndexError: list index out of range", e)
        F.faulty.append(r)
        alias(job, F, r.h)
        job.ray_err = "IndexError"
        crash_common(job, t + 1, [r])
    F.inject = inject
    return F


def f_undef_symbol(job, plan):
    rng = job.rng
    stack = job.stack
    if stack == "cuda":
        plan.stop_stage, plan.stop_frac = ("model_loading", 0.3) if job.S["flavor"] != "megatron" else ("init", 0.0)
        so = "%s/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so" % site(job)
        sym = rng.choice(["_ZN3c104cuda9SetDeviceEi", "_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE", "_ZN2at4_ops9_pad_enum4callERKNS_6TensorEN3c108ArrayRefINS5_6SymIntEEElNS5_8optionalIdEE"])
        F = Fault("flash_attn_undefined_symbol", "user", "software_incompatibility", "launching_failure", plan.stop_stage,
                  "The installed flash-attn wheel was built against a different PyTorch/CUDA ABI than torch %s in the image, so importing flash_attn_2_cuda fails with an undefined symbol." % job.torch_ver,
                  "Reinstall flash-attn built for this exact torch/CUDA/cxx11abi combination (or rebuild from source) and rebuild the image.")
        hosts = list(range(job.n))
    else:
        plan.stop_stage, plan.stop_frac = "init", 0.0
        so = "%s/torch_npu/lib/libtorch_npu.so" % site(job)
        sym = rng.choice(["aclnnGroupedMatmulV4GetWorkspaceSize", "aclnnFlashAttentionScoreV2GetWorkspaceSize", "HcclCommInitClusterInfoConfig"])
        hb = pick_host(job)
        F = Fault("torch_npu_cann_mismatch", "user", "software_incompatibility", "launching_failure", "init",
                  "Node %s has an older CANN toolkit than the torch_npu build expects, so torch_npu fails to load with an undefined CANN symbol there while the other nodes wait in HCCL init." % job.hosts[hb],
                  "Align the CANN toolkit/driver on %s with the version torch_npu was built for (same image on all nodes) and resubmit." % job.hosts[hb],
                  accept=["user/software_incompatibility", "platform/platform_configuration"])
        hosts = [hb]

    def inject():
        t = job.t_fault
        line = "ImportError: %s: undefined symbol: %s" % (so, sym)
        e = job.ev("e1", line, "undefined symbol: %s" % sym)
        crashed = [r for r in job.ranks if r.h in hosts]
        for r in crashed:
            if stack == "cuda":
                fr = [("/workspace/%s" % job.entry if job.S["flavor"] != "megatron" else "/workspace/Megatron-LM/%s" % job.entry, 17, "<module>", "from flash_attn import flash_attn_func" if job.S["flavor"] != "megatron" else "from megatron.core.transformer.dot_product_attention import DotProductAttention"),
                      ("%s/flash_attn/__init__.py" % site(job), 3, "<module>", "from flash_attn.flash_attn_interface import ("),
                      ("%s/flash_attn/flash_attn_interface.py" % site(job), 10, "<module>", "import flash_attn_2_cuda as flash_attn_cuda")]
            else:
                fr = [("/home/ma-user/work/MindSpeed-LLM/%s" % job.entry if job.S["flavor"] == "megatron" else "/app/LLaMA-Factory/src/llamafactory/launcher.py", 9, "<module>", "import torch_npu"),
                      ("%s/torch_npu/__init__.py" % site(job), 17, "<module>", "import torch_npu.npu")]
            traceback(job, r, t + rng.uniform(0, 1), fr, [line], mark=e)
        if stack == "ascend":
            F.faulty.extend(crashed)
            alias(job, F, hosts[0])
            # the others wait for the missing ranks in HCCL comm init
            for r in job.ranks:
                if r.h in hosts:
                    continue
                tt = t + job.hccl_connect_to + rng.uniform(0, 2)
                d = job.dt(tt, r.h)
                r.put(tt, "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (ts_cann_s(d), r.pid, r.l, r.g))
                r.put(tt, "EI0006: [PID: %d] %s Getting socket times out. Reason: 1. The remote does not initiate a connect request. some NPUs in the cluster are abnormal.    2. The remote does not initiate a connect request because the collective communication operator is started too late or is not started by some NPU in the cluster.    3. The communication link is disconnected. (For example, the IP addresses are not on the same network segment or the TLS configurations are inconsistent.)" % (r.pid, ts_cann(d)))
                r.put(tt, "        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default). If so, adjust the timeout interval by using the HCCL_CONNECT_TIMEOUT environment variable.3. Check the connectivity of the communication link between nodes. (For details, see the TLS command and HCCN connectivity check examples.)")
            crash_common(job, t + job.hccl_connect_to + 5, crashed, cascade=False)
        else:
            crash_common(job, t + 3, crashed, cascade=False)
    F.inject = inject
    return F


def f_ckpt_disk_full(job, plan):
    rng = job.rng
    it = pick_save_iter(job)
    plan.stop_stage, plan.stop_iter, plan.ckpt_fail = "checkpoint", it, True
    F = Fault("checkpoint_disk_full", "hardware", "storage", "training_crash", "checkpoint",
              "The checkpoint file system %s ran out of space while iteration %d was being saved, so torch.save failed on the writing ranks." % (job.ckpt.rsplit("/", 1)[0], it),
              "Free space or raise the quota on the checkpoint volume (prune old iter_* directories, keep fewer checkpoints) and resume from the last complete checkpoint.",
              accept=["hardware/storage", "platform/resource_management"])
    F.iteration = [it]

    def inject():
        t = job.t_fault
        fl = job.S["flavor"]
        writers = job.ranks[: job.tp * job.pp] if fl == "megatron" else ([job.ranks[0]] if fl in ("hf",) else [r for r in job.ranks if r.l == 0])
        writers = writers[: rng.randint(1, max(1, min(8, len(writers))))]
        e1 = job.ev("e1", "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 1283072 vs 1282960", "unexpected pos")
        e2 = job.ev("e2", "RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data/176: file write failed", "PytorchStreamWriter failed writing file")
        e3 = job.ev("e3", "OSError: [Errno 28] No space left on device", "No space left on device")
        for r in writers:
            tt = t + rng.uniform(0, 5)
            pre = rpfx(job, r)
            fr = frames_save(job)
            r.put(tt, pre + "Traceback (most recent call last):")
            for f_ in fr:
                r.put(tt, pre + '  File "%s", line %d, in %s' % f_[:3])
                r.put(tt, pre + "    " + f_[3])
            r.put(tt, pre + "RuntimeError: [enforce fail at inline_container.cc:%d] . PytorchStreamWriter failed writing file data/%d: file write failed" % (rng.choice([778, 595, 471]), rng.randint(3, 400)), e2)
            r.put(tt, pre + "")
            r.put(tt, pre + "During handling of the above exception, another exception occurred:")
            r.put(tt, pre + "")
            r.put(tt, pre + "Traceback (most recent call last):")
            r.put(tt, pre + '  File "%s/torch/serialization.py", line 627, in save' % site(job))
            r.put(tt, pre + "    with _open_zipfile_writer(f) as opened_zipfile:")
            r.put(tt, pre + '  File "%s/torch/serialization.py", line 475, in __exit__' % site(job))
            r.put(tt, pre + "    self.file_like.write_end_of_file()")
            p1 = rng.randint(10 ** 6, 10 ** 9)
            r.put(tt, pre + "RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos %d vs %d" % (p1, p1 - rng.randint(50, 200)), e1)
            if rng.random() < 0.5:
                r.put(tt, pre + "OSError: [Errno 28] No space left on device", e3)
        crash_common(job, t + 6, writers)
    F.inject = inject
    return F


def f_nfs_stale(job, plan):
    rng = job.rng
    it = pick_save_iter(job)
    plan.stop_stage, plan.stop_iter, plan.ckpt_fail = "checkpoint", it, True
    h = pick_host(job, avoid0=False)
    F = Fault("nfs_stale_file_handle", "hardware", "storage", "training_crash", "checkpoint",
              "The NFS mount of %s on %s went stale (server failover), so the ranks on that node could not write their checkpoint shards." % (job.ckpt, job.hosts[h]),
              "Remount the checkpoint NFS export on %s (umount -f / mount), check the NFS server failover logs, and resume from the last complete checkpoint." % job.hosts[h],
              accept=["hardware/storage", "platform/platform_configuration"])
    F.iteration = [it]

    def inject():
        t = job.t_fault
        writers = [r for r in job.ranks if r.h == h and (r.l in (0, 4) or rng.random() < 0.3)]
        e1 = job.ev("e1", "OSError: [Errno 116] Stale file handle", "[Errno 116] Stale file handle")
        for r in writers:
            tt = t + rng.uniform(0, 3)
            fn = "%s/iter_%07d/mp_rank_%02d_%03d/distrib_optim.pt" % (job.ckpt, it, r.g % job.tp, (r.g // job.tp) % job.pp) if job.S["flavor"] == "megatron" else "%s/global_step%d/zero_pp_rank_%d_mp_rank_00_optim_states.pt" % (job.ckpt, it, r.g)
            traceback(job, r, tt, frames_save(job)[:2] + [("%s/torch/serialization.py" % site(job), 651, "save", "with _open_zipfile_writer(f) as opened_zipfile:")],
                      ["OSError: [Errno 116] Stale file handle: '%s'" % fn], mark=e1)
        kern(job, h, t - 3, "nfs: server %s not responding, still trying" % rng.choice(["nfs-ckpt01", "10.0.200.5", "fs-lb.internal"]),
             mark=job.ev("e2", "nfs: server nfs-ckpt01 not responding, still trying", "not responding, still trying")) and F.faulty.append(job.agents[h])
        F.faulty.extend(writers)
        alias(job, F, h)
        crash_common(job, t + 4, writers)
    F.inject = inject
    return F


def f_host_oom(job, plan):
    rng = job.rng
    it = pick_iter(job, 60, 260)
    plan.stop_stage, plan.stop_iter = "training", it
    h = pick_host(job, avoid0=False)
    F = Fault("host_oom_dataloader_killed", "platform", "resource_management", "training_crash", "training",
              "Host memory on %s was exhausted (too many DataLoader workers with prefetching under the pod/cgroup memory limit) and the kernel OOM killer killed a DataLoader worker." % job.hosts[h],
              "Lower num_workers/prefetch_factor or raise the container memory limit, and check for host-memory leaks in the dataset code.",
              accept=["platform/resource_management", "user/configuration"])
    F.iteration = [it]

    def inject():
        t = job.t_fault
        r = job.ranks[h * 8 + rng.randint(0, 7)]
        wp = r.pid + rng.randint(20, 400)
        kk = [("python invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", "invoked oom-killer"),
              ("Memory cgroup out of memory: Killed process %d (pt_data_worker) total-vm:%dkB, anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0" % (wp, rng.randint(4 * 10 ** 7, 9 * 10 ** 7), rng.randint(2 * 10 ** 7, 4 * 10 ** 7), rng.randint(10 ** 5, 9 * 10 ** 5), rng.randint(10 ** 4, 10 ** 6), rng.randint(50000, 90000)), "out of memory: Killed process")]
        w = False
        for i, (msg, pat) in enumerate(kk):
            w |= kern(job, h, t - 0.5 + i * 0.01, msg, mark=job.ev("e%d" % (i + 1), msg, pat))
        if w:
            F.faulty.append(job.agents[h])
        e3 = job.ev("e3", "RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed." % wp, "is killed by signal: Killed")
        fr = frames_train(job)[:2] + frames_data(job)[:3] + [("%s/torch/utils/data/_utils/signal_handling.py" % site(job), 67, "handler", "_error_if_any_worker_fails()")]
        traceback(job, r, t, fr, ["RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. " % wp], mark=e3)
        F.faulty.append(r)
        alias(job, F, h)
        job.ray_err = "RuntimeError"
        crash_common(job, t + 1, [r])
    F.inject = inject
    return F


def f_shm(job, plan):
    rng = job.rng
    plan.stop_stage, plan.stop_frac = "data_loading", 1.0
    h = pick_host(job, avoid0=False)
    F = Fault("shm_too_small_bus_error", "platform", "platform_configuration", "training_crash", "data_loading",
              "The container on %s was started with the default 64 MB /dev/shm, so DataLoader workers died with a bus error when passing the first batches." % job.hosts[h],
              "Mount a larger /dev/shm (e.g. an emptyDir with medium: Memory or --shm-size=64g) in the job template for every worker and resubmit.")

    def inject():
        t = job.t_fault
        e1 = job.ev("e1", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", "insufficient shared memory (shm)")
        e2 = job.ev("e2", "RuntimeError: DataLoader worker (pid(s) 12345) exited unexpectedly", "RuntimeError: DataLoader worker (pid(s)")
        crashed = [r for r in job.ranks if r.h == h and rng.random() < 0.7] or [job.ranks[h * 8]]
        for r in crashed:
            tt = t + rng.uniform(0, 2)
            for k in range(rng.randint(1, 2)):
                r.put(tt, "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", e1)
            wp = r.pid + rng.randint(10, 300)
            traceback(job, r, tt + 0.5, frames_train(job)[:2] + frames_data(job), ["RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly" % wp], mark=e2)
        F.faulty.extend(crashed)
        alias(job, F, h)
        crash_common(job, t + 3, crashed, mode="watchdog", seq=3)
    F.inject = inject
    return F


def f_eaddrinuse(job, plan):
    rng = job.rng
    plan.stop_stage = "launch"
    F = Fault("master_port_in_use", "user", "misoperation", "launching_failure", "init",
              "A leftover torchrun from the previous run still held port %d on the master node %s, so the new rendezvous store could not bind and the other nodes timed out connecting." % (job.port, job.hosts[0]),
              "Kill the stale training processes on %s (or pick a free --master_port) before resubmitting." % job.hosts[0],
              accept=["user/misoperation", "platform/platform_configuration"])

    def inject():
        t = job.t_fault
        a = job.agents[0]
        e1 = job.ev("e1", "The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use)." % job.port, "Address already in use")
        a.put(t, "[W socket.cpp:436] [c10d] The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use)." % job.port, e1)
        a.put(t, "[W socket.cpp:436] [c10d] The server socket has failed to bind to 0.0.0.0:%d (errno: 98 - Address already in use)." % job.port, e1)
        a.put(t, "[E socket.cpp:472] [c10d] The server socket has failed to listen on any local network address.")
        a.put(t, "Traceback (most recent call last):")
        a.put(t, '  File "/usr/local/bin/torchrun", line 8, in <module>')
        a.put(t, "    sys.exit(main())")
        a.put(t, '  File "%s/torch/distributed/rendezvous.py", line 174, in _create_c10d_store' % site(job))
        a.put(t, "    return TCPStore(")
        a.put(t, "torch.distributed.DistNetworkError: The server socket has failed to listen on any local network address. The server socket has failed to bind to [::]:%d (errno: 98 - Address already in use). The server socket has failed to bind to 0.0.0.0:%d (errno: 98 - Address already in use)." % (job.port, job.port), e1)
        F.faulty.append(a)
        alias(job, F, 0)
        for h in range(1, job.n):
            b = job.agents[h]
            tt = t + 900 + rng.uniform(0, 3)
            b.put(tt, "Traceback (most recent call last):")
            b.put(tt, '  File "/usr/local/bin/torchrun", line 8, in <module>')
            b.put(tt, "    sys.exit(main())")
            b.put(tt, '  File "%s/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", line 238, in create_backend' % site(job))
            b.put(tt, "    store = _create_tcp_store(params)")
            b.put(tt, "torch.distributed.DistNetworkError: The client socket has timed out after 900s while trying to connect to (%s, %d)." % (job.hosts[0], job.port))
            b.put(tt, "")
            b.put(tt, "The above exception was the direct cause of the following exception:")
            b.put(tt, "")
            b.put(tt, "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.")
        if job.S["launcher"] == "srun":
            srun_end(job, t + 905)
    F.inject = inject
    return F


def f_nccl_iface(job, plan):
    rng = job.rng
    plan.stop_stage, plan.stop_frac = "init", 0.0
    h = pick_host(job)
    F = Fault("nccl_socket_ifname_missing", "platform", "platform_configuration", "launching_failure", "init",
              "NCCL_SOCKET_IFNAME=%s does not exist on %s (its NIC is named differently), so NCCL bootstrap found no socket interface there and the others blocked in the first collective." % (job.iface, job.hosts[h]),
              "Make the interface names consistent across nodes or set NCCL_SOCKET_IFNAME to a prefix list that matches every node (e.g. =bond,eth,ens).")

    def inject():
        t = job.t_fault
        e1 = job.ev("e1", "NCCL WARN Bootstrap : no socket interface found", "no socket interface found")
        crashed = [r for r in job.ranks if r.h == h]
        for r in crashed:
            p = nccl_pfx(job, r)
            tt = t + rng.uniform(0, 2)
            r.put(tt, "%s NCCL WARN Bootstrap : no socket interface found" % p, e1)
            r.put(tt, "%s NCCL INFO init.cc:%d -> 3" % (p, rng.choice([1806, 1735])))
            traceback(job, r, tt + 0.1, [("/workspace/%s" % job.entry if job.S["flavor"] != "megatron" else "/workspace/Megatron-LM/%s" % job.entry, 120, "<module>", "torch.distributed.barrier()"),
                                        ("%s/torch/distributed/distributed_c10d.py" % site(job), 3439, "barrier", "work = default_pg.barrier(opts=opts)")],
                      ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, internal error - please report this issue to the NCCL developers, NCCL version %s" % job.nccl_ver.split("+")[0],
                       "ncclInternalError: Internal check failed.", "Last error:", "Bootstrap : no socket interface found"], mark=e1, mark_lines=(3,))
        F.faulty.extend(crashed)
        alias(job, F, h)
        crash_common(job, t + 2, crashed, mode="watchdog", seq=1)
    F.inject = inject
    return F


def f_ds_fw_bug(job, plan):
    rng = job.rng
    it = job.it0 + 1
    plan.stop_stage, plan.stop_iter = "training", it
    pid_ = rng.randint(100, 900)
    F = Fault("deepspeed_zero_double_reduce", "framework", "framework_bug", "training_crash", "training",
              "DeepSpeed ZeRO-2 with overlap_comm reduced a parameter's gradient twice (tied/shared weights traversed twice in backward), tripping an internal assertion in stage_1_and_2.py.",
              "Upgrade DeepSpeed to a release with the fix or disable overlap_comm / untie the shared embedding, then restart.",
              accept=["framework/framework_bug", "user/software_incompatibility"])
    F.iteration = [it]

    def inject():
        t = job.t_fault
        e = job.ev("e1", "AssertionError: The parameter %d has already been reduced. Gradient computed twice for this partition. Multiple gradient reduction is currently not supported" % pid_, "has already been reduced. Gradient computed twice")
        sp = site(job)
        for r in job.ranks:
            traceback(job, r, t + rng.uniform(0, 2), frames_train(job) + [("%s/deepspeed/runtime/zero/stage_1_and_2.py" % sp, 2056, "backward", "self.loss_scaler.backward(loss.float(), retain_graph=retain_graph)"),
                                                                       ("%s/torch/autograd/__init__.py" % sp, 266, "backward", "Variable._execution_engine.run_backward("),
                                                                       ("%s/deepspeed/runtime/zero/stage_1_and_2.py" % sp, 903, "reduce_partition_and_remove_grads", "self.reduce_ready_partitions_and_remove_grads(param, i)"),
                                                                       ("%s/deepspeed/runtime/zero/stage_1_and_2.py" % sp, 1416, "reduce_ready_partitions_and_remove_grads", "self.reduce_independent_p_g_buckets_and_remove_grads(param, i)"),
                                                                       ("%s/deepspeed/runtime/zero/stage_1_and_2.py" % sp, 936, "reduce_independent_p_g_buckets_and_remove_grads", "assert self.params_already_reduced[param_id] == False, \\")],
                      ["AssertionError: The parameter %d has already been reduced. Gradient computed twice for this partition. Multiple gradient reduction is currently not supported" % pid_], mark=e)
        crash_common(job, t + 3, job.ranks, cascade=False)
    F.inject = inject
    return F


def f_straggler(job, plan):
    rng = job.rng
    it_slow = pick_iter(job, 40, 120)
    it_stop = it_slow + job.log_interval * rng.randint(80, 200)
    plan.stop_stage, plan.stop_iter = "training", it_stop
    h = pick_host(job, avoid0=False)
    plan.slow = (it_slow, rng.uniform(1.35, 2.2))
    plan.slow_host = h
    d = job.slow_dev
    if job.stack == "cuda":
        F = Fault("gpu_thermal_straggler", "hardware", "accelerator", "abnormal_behavior", "training",
                  "GPU %d on %s is thermally throttled (HW slowdown, clocks ~1.1 GHz), making the whole synchronous job %.0f%% slower from iteration %d." % (d, job.hosts[h], (plan.slow[1] - 1) * 100, it_slow),
                  "Drain %s and check its cooling (fans, airflow, inlet temperature) and GPU %d power/clock state before putting it back; restart without it from the last checkpoint." % (job.hosts[h], d),
                  accept=["hardware/accelerator", "hardware/node"])
    else:
        F = Fault("npu_overtemp_straggler", "hardware", "accelerator", "abnormal_behavior", "training",
                  "NPU %d on %s reduced its AI Core frequency after an over-temperature alarm, slowing every step of the job by %.0f%% from iteration %d." % (d, job.hosts[h], (plan.slow[1] - 1) * 100, it_slow),
                  "Isolate %s, check the NPU %d cooling and health (npu-smi info -t health), and resume on a healthy node." % (job.hosts[h], d),
                  accept=["hardware/accelerator", "hardware/node"])
    F.iteration = [it_slow]

    def inject():
        a = job.agents[h]
        if job.stack == "cuda":
            txt = "[node-health] %s GPU%d clocks_event_reasons: HW_SLOWDOWN HW_THERMAL_SLOWDOWN active; sm_clock=%dMHz (max 1980MHz) temp=%dC power=%dW"
            e = job.ev("e1", txt % ("", d, 1110, 89, 412), "HW_THERMAL_SLOWDOWN")
        else:
            txt = "[node-health] %s npu %d health=Warning alarm=0x80818C00 (over-temperature) aicore_freq=%dMHz (rated 1800MHz) temp=%dC power=%dW"
            e = job.ev("e1", txt % ("", d, 1000, 95, 310), "over-temperature")
        for it in sorted(job.t_iter):
            if it >= it_slow and (it - it_slow) % (job.mon_every * 2) == 0:
                t = job.t_iter[it] + rng.uniform(0, 2)
                line = txt % (ts_plain(job.dt(t, h)), d, rng.choice([1095, 1110, 1140]) if job.stack == "cuda" else rng.choice([1000, 1100]), rng.randint(86, 96), rng.randint(300, 450))
                if job.events[e]["text"].startswith("[node-health]  "):
                    job.events[e]["text"] = line
                a.put(t, line, e)
        F.faulty.append(a)
        alias(job, F, h)
        # operator cancels the slow job
        t = job.t_fault + 30
        for hh in range(job.n):
            b = job.agents[hh]
            if job.S["launcher"] in ("torchrun", "accelerate"):
                b.put(t, glog_line(job, hh, t, "W", b.pid, "torch/distributed/elastic/agent/server/api.py:704", "Received Signals.SIGTERM death signal, shutting down workers") if job.tv_new else "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers")
                for l in range(8):
                    b.put(t, (glog_line(job, hh, t, "W", b.pid, "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % job.ranks[hh * 8 + l].pid)) if job.tv_new else "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process %d closing signal SIGTERM" % job.ranks[hh * 8 + l].pid)
                b.put(t + 1, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % b.pid)
            elif job.S["launcher"] == "deepspeed":
                b.put(t, py_log(job, hh, t, "INFO", "launch.py:319:sigkill_handler", "Killing subprocess %d" % job.ranks[hh * 8].pid))
        if job.S["launcher"] == "msrun":
            job.agents[0].put(t, ms_log(job, job.ranks[0], t, "WARNING", "mindspore/parallel/cluster/process_entity/_api.py:330", "Scheduler process %d received SIGTERM, killing all worker processes." % job.agents[0].pid))
        flush_kdump(job, t)
    F.inject = inject
    return F


def f_hang_xid109(job, plan):
    rng = job.rng
    it = pick_iter(job)
    plan.stop_stage, plan.stop_iter = "training", it
    h = pick_host(job)
    d = rng.randint(0, 7)
    F = Fault("gpu_hang_xid109", "hardware", "accelerator", "abnormal_behavior", "training",
              "GPU %d on %s stopped making progress (Xid 109 context-switch timeout); its rank went silent and the job hung until the NCCL watchdogs fired." % (d, job.hosts[h]),
              "Reset or replace GPU %d on %s (run dcgmi diag), exclude the node, and restart from the last checkpoint; keep NCCL timeouts short so hangs surface quickly." % (d, job.hosts[h]))
    F.iteration = [it]

    def inject():
        t = job.t_fault
        r = job.ranks[h * 8 + d]
        x = "NVRM: Xid (PCI:0000:%s:00): 109, pid=%d, name=python, Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x%05x" % (job.busids[d], r.pid, rng.randint(0x10000, 0xfffff))
        kern(job, h, t + 5, x, mark=job.ev("e1", x, "): 109, pid="))
        F.faulty.append(job.agents[h])
        alias(job, F, h)
        seq = last_seq(job)
        tend = cascade_cuda(job, t, "watchdog", set(), h, seq, skip_ranks=[r.g]) + 20
        fb = {hh: [0] for hh in range(job.n)}
        fb[h] = [l for l in range(8) if l != d][:1]
        finish_job(job, tend, fb, {hh: -6 for hh in range(job.n)})
        flush_kdump(job, tend)
    F.inject = inject
    return F


def f_node_death(job, plan):
    rng = job.rng
    it = pick_iter(job)
    plan.stop_stage, plan.stop_iter = "training", it
    h = pick_host(job)
    F = Fault("node_silent_death", "hardware", "node", "training_crash", "training",
              "Node %s (%s) died abruptly (power/kernel failure): its log stops mid-iteration with no error and the peers report its ranks as unreachable." % (job.hosts[h], job.ips[h]),
              "Check the BMC/IPMI event log and console of %s, keep it out of the pool until it passes burn-in, and restart the job from the last checkpoint on a spare node." % job.hosts[h])
    F.iteration = [it]

    def inject():
        t = job.t_fault
        job.silent.add(h)
        dead = [r for r in job.ranks if r.h == h]
        F.faulty.append(job.agents[h])
        F.faulty.extend(dead)
        alias(job, F, h)
        if job.stack == "cuda":
            e = job.ev("e1", "NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Recv)" % (job.ips[h], 50000), "Got completion from peer %s<" % job.ips[h])
            nb = [hh for hh in range(job.n) if hh != h]
            for hh in nb[: rng.randint(1, min(3, len(nb)))]:
                for l in rng.sample(range(8), rng.randint(1, 4)):
                    r = job.ranks[hh * 8 + l]
                    p = nccl_pfx(job, r)
                    tt = t + rng.uniform(7, 12)
                    r.put(tt, "%s transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s" % (p, job.ips[h], rng.randint(32768, 60999), rng.choice([0, 32616, 129]), job.ips[hh], job.ips[h]), e)
                    r.put(tt, "%s NCCL INFO transport/net.cc:1298 -> 6" % p)
            tend = cascade_cuda(job, t, "watchdog", {h}, h, last_seq(job)) + 10
        else:
            remote = {r.g: rng.choice(dead).g for r in job.ranks}
            e = job.ev("e1", "EI0002: The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank: [%d]." % dead[0].g, "REMOTE")
            # pattern: any of the dead ranks
            job.events["e1"]["pattern"] = ["remote rank: [%d]" % r.g for r in dead]
            tend = cascade_ascend(job, t + job.hccl_exec_to, {h}, lambda r: remote[r.g], mark=e) + 10
        if job.S["launcher"] == "srun":
            a0 = job.agents[0]
            a0.put(tend - 5, "srun: error: Node failure on %s" % job.hosts[h], job.ev("e2", "srun: error: Node failure on %s" % job.hosts[h], "Node failure on"))
        finish_job(job, tend, {hh: [0] for hh in range(job.n)}, {hh: -6 for hh in range(job.n)}, reason="DUE TO NODE FAILURE")
        flush_kdump(job, tend)
    F.inject = inject
    return F


def f_slurm_node_fail(job, plan):
    """srun console: the scheduler reports the node failure; the node's ranks go silent"""
    rng = job.rng
    it = pick_iter(job)
    plan.stop_stage, plan.stop_iter = "training", it
    h = pick_host(job)
    F = Fault("slurm_node_failure", "hardware", "node", "training_crash", "training",
              "Slurm lost contact with %s in the middle of iteration %d (node failure); the step was cancelled and the surviving ranks hit NCCL errors." % (job.hosts[h], it),
              "Inspect %s (slurmd log, BMC events), drain it with scontrol, and requeue the job from the last checkpoint." % job.hosts[h],
              accept=["hardware/node", "platform/scheduling"])
    F.iteration = [it]

    def inject():
        t = job.t_fault
        job.silent.add(h)
        dead = [r for r in job.ranks if r.h == h]
        F.faulty.extend(dead)
        alias(job, F, h)
        a0 = job.agents[0]
        e1 = job.ev("e1", "srun: error: Node failure on %s" % job.hosts[h], "Node failure on %s" % job.hosts[h])
        tn = t + rng.uniform(60, 300)
        a0.put(tn, "srun: error: Node failure on %s" % job.hosts[h], e1)
        for r in job.ranks:
            if r.h != h and rng.random() < 0.5:
                nccl_peer_exit(job, r, tn + rng.uniform(0, 5), h)
        e2 = job.ev("e2", "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (job.job_id, job.hosts[0], job.dt(tn, 0).strftime("%Y-%m-%dT%H:%M:%S")), "DUE TO NODE FAILURE")
        a0.put(tn + 8, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
        a0.put(tn + 9, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (job.job_id, job.hosts[0], job.dt(tn + 9, 0).strftime("%Y-%m-%dT%H:%M:%S")), e2)
        for hh in range(job.n):
            if hh != h:
                a0.put(tn + 10, "srun: error: %s: tasks %d-%d: Killed" % (job.hosts[hh], hh * 8, hh * 8 + 7))
    F.inject = inject
    return F


def f_preempt(job, plan):
    rng = job.rng
    it = pick_iter(job)
    plan.stop_stage, plan.stop_iter = "training", it
    pod = job.S["hostscheme"] == "pod"
    h = pick_host(job) if pod else 0
    if pod:
        F = Fault("pod_preempted", "platform", "scheduling", "training_crash", "training",
                  "The scheduler preempted pod %s for a higher-priority workload; its torchrun got SIGTERM and the remaining pods lost their peer." % job.hosts[h],
                  "Run the job in a non-preemptible queue/priority class or enable elastic restarts from checkpoints, and resubmit.")
    else:
        F = Fault("slurm_preemption", "platform", "scheduling", "training_crash", "training",
                  "Slurm preempted the whole job for a higher-priority reservation; all steps were cancelled.",
                  "Submit to a partition/QOS without preemption or enable --requeue with checkpoint-restart, then resubmit.")
    F.iteration = [it]

    def inject():
        t = job.t_fault
        if pod:
            a = job.agents[h]
            e1 = job.ev("e1", "[entrypoint] caught SIGTERM from kubelet (reason=Preempted) - forwarding to torchrun", "caught SIGTERM from kubelet")
            a.put(t, "%s [entrypoint] caught SIGTERM from kubelet (reason=Preempted, by=volcano, queue=%s) - forwarding to torchrun" % (ts_iso(job.dt(t, h)), rng.choice(["prod-hi", "infer-online", "urgent"])), e1)
            e2 = job.ev("e2", "Received Signals.SIGTERM death signal, shutting down workers", "death signal")
            a.put(t + 0.2, glog_line(job, h, t + 0.2, "W", a.pid, "torch/distributed/elastic/agent/server/api.py:704", "Received Signals.SIGTERM death signal, shutting down workers") if job.tv_new else "WARNING:torch.distributed.elastic.agent.server.api:Received 15 death signal, shutting down workers", e2)
            for l in range(8):
                a.put(t + 0.3, glog_line(job, h, t + 0.3, "W", a.pid, "torch/distributed/elastic/multiprocessing/api.py:897", "Sending process %d closing signal SIGTERM" % job.ranks[h * 8 + l].pid) if job.tv_new else "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process %d closing signal SIGTERM" % job.ranks[h * 8 + l].pid)
            a.put(t + 5, "torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15" % a.pid)
            job.silent.add(h)
            F.faulty.append(a)
            alias(job, F, h)
            tend = cascade_cuda(job, t + 5, "mixed", {h}, h, last_seq(job)) + 10
            finish_job(job, tend, {hh: [0] for hh in range(job.n)}, {hh: -6 for hh in range(job.n)})
        else:
            a0 = job.agents[0]
            e1 = job.ev("e1", "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.job_id, job.hosts[0], job.dt(t, 0).strftime("%Y-%m-%dT%H:%M:%S")), "DUE TO PREEMPTION")
            a0.put(t, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
            a0.put(t, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.job_id, job.hosts[0], job.dt(t, 0).strftime("%Y-%m-%dT%H:%M:%S")), e1)
            a0.put(t + 1, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***" % (job.job_id, job.hosts[0], job.dt(t + 1, 0).strftime("%Y-%m-%dT%H:%M:%S")), e1)
            for hh in range(job.n):
                a0.put(t + 2, "srun: error: %s: tasks %d-%d: Terminated" % (job.hosts[hh], hh * 8, hh * 8 + 7))
            a0.put(t + 2, "srun: Force Terminated StepId=%d.0" % job.job_id)
    F.inject = inject
    return F


def ascend_dev_fault(kind):
    def build(job, plan):
        rng = job.rng
        it = pick_iter(job)
        plan.stop_stage, plan.stop_iter = "training", it
        h = pick_host(job)
        d = rng.randint(0, 7)
        r = job.ranks[h * 8 + d]
        if kind == "hbm":
            F = Fault("npu_hbm_multibit_ecc", "hardware", "accelerator", "training_crash", "training",
                      "An uncorrectable multi-bit ECC error in the HBM of NPU %d on %s aborted the stream of rank %d." % (d, job.hosts[h], r.g),
                      "Isolate NPU %d on %s, check it with npu-smi info -t health / ascend-dmi, replace it if the error repeats, and resume from the last checkpoint." % (d, job.hosts[h]))
        else:
            F = Fault("npu_aicore_exception", "hardware", "accelerator", "training_crash", "training",
                      "NPU %d on %s raised an AI Core exception while executing a kernel; the same op runs fine on every other device, pointing to the device." % (d, job.hosts[h]),
                      "Stress-test NPU %d on %s with ascend-dmi --dg -i aicore, swap the device or node if it fails, and resume from the last checkpoint." % (d, job.hosts[h]),
                      accept=["hardware/accelerator", "framework/framework_bug"])
        F.iteration = [it]

        def inject():
            t = job.t_fault
            dd = job.dt(t, h)
            sn = rng.randint(1, 40)
            if kind == "hbm":
                code = 507054
                e1 = job.ev("e1", "The error from device(chipId:%d, dieId:0), serial number is %d, hbm Multi-bit ECC error occurred during task execution" % (d, sn), "hbm Multi-bit ECC error")
                det = ["EZ9999: Inner Error!",
                       "EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, hbm Multi-bit ECC error occurred during task execution, stream_id:%d, sq_id:%d, task_id:%d, addr=0x%x[FUNC:ProcessStarsHbmEccErrorInfo][FILE:device_error_proc.cc][LINE:1312]" % (r.pid, ts_cann(dd), d, sn, rng.randint(2, 60), rng.randint(2, 60), rng.randint(100, 60000), rng.getrandbits(40)),
                       "        TraceBack (most recent call last):",
                       "        rtStreamSynchronizeWithTimeout execute failed, reason=[hbm Multi-bit ECC error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
                       "        synchronize stream failed, runtime result = %d[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]" % code]
                marks = {1: e1, 3: e1}
            else:
                code = 507015
                e1 = job.ev("e1", "there is an aicore error exception, core id is 17, error code = 0x800000", "there is an aicore error exception")
                e3 = job.ev("e3", "PrintErrorInfoForDavinciTask:Aicore kernel execute failed, device_id=%d" % d, "Aicore kernel execute failed")
                kn = rng.choice(["MatMulV2_1b2c", "FlashAttentionScore_a9e1", "RmsNormGrad_77f0", "SwiGlu_3c40"])
                r.put(t - 0.01, "[ERROR] RUNTIME(%d,python):%s [task_info.cc:1678]%d PrintErrorInfoForDavinciTask:Aicore kernel execute failed, device_id=%d, stream_id=%d, report_stream_id=%d, task_id=%d, flip_num=%d, fault kernel_name=%s_%016x_high_performance_%d, fault kernel info ext=none, program id=%d, hash=%d." % (r.pid, ts_cann(dd), r.pid + 175, d, 2, 2, rng.randint(100, 60000), rng.randint(0, 9), kn, rng.getrandbits(64), rng.randint(100000000, 999999999), rng.randint(1, 40), rng.getrandbits(63)), e3)
                det = ["EZ9999: Inner Error!",
                       "EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, there is an aicore error exception, core id is %d, error code = 0x800000, dump info: pc start: 0x12c0%08x, current: 0x12c0%08x, vec error info: 0x%x, mte error info: 0x%x, ifu error info: 0x%x, ccu error info: 0x%x, cube error info: 0x0, biu error info: 0x0, aic error mask: 0x65000200d000288, para base: 0x12c0%08x.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1211]" % (r.pid, ts_cann(dd), d, sn, rng.randint(0, 23), rng.getrandbits(28), rng.getrandbits(28), rng.getrandbits(24), rng.getrandbits(32), rng.getrandbits(20), rng.getrandbits(24), rng.getrandbits(28)),
                       "        TraceBack (most recent call last):",
                       "        The extend info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out of range. fixp_error0 info: 0x%x, fixp_error1 info: 0x0, fsmId:0, tslot:0, thread:0, ctxid:0, blk:%d, sublk:0, subErrType:4.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1223]" % (rng.getrandbits(24), rng.randint(0, 40)),
                       "        Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1252]"]
                marks = {1: e1}
            if job.S["flavor"] == "mindspore":
                r.put(t, ms_log(job, r, t, "ERROR", "mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:1048", "Call rt api rtStreamSynchronize failed, ret: %d" % code), None)
                e2 = job.ev("e2", "Call rt api rtStreamSynchronize failed, ret: %d" % code, "rtStreamSynchronize failed, ret: %d" % code)
                r.recs[-1] = r.recs[-1][:3] + (e2,)
                r.put(t, "RuntimeError: Sync stream failed:Ascend_%d" % d)
            else:
                e2 = job.ev("e2", "NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is %d" % code, "error code is %d" % code)
                ascend_rt_error(job, r, t, code, mark=e2)
            for i, ln in enumerate(det):
                r.put(t, ln, marks.get(i))
            F.faulty.append(r)
            alias(job, F, h)
            tend = cascade_ascend(job, t + job.hccl_exec_to, set(), r.g, skip_ranks=[r.g]) + 5
            fb = {hh: [0] for hh in range(job.n)}
            fb[h] = [d]
            finish_job(job, tend, fb, {hh: 1 for hh in range(job.n)})
            flush_kdump(job, tend)
        F.inject = inject
        return F
    return build


def f_hccl_link_init(job, plan):
    rng = job.rng
    plan.stop_stage, plan.stop_frac = "init", 0.4
    h = pick_host(job)
    d = rng.randint(0, 7)
    F = Fault("hccl_roce_link_down_init", "hardware", "network", "launching_failure", "init",
              "The RoCE port of NPU %d on %s is down, so HCCL could not build its links during communicator init and every rank timed out getting sockets (EI0006)." % (d, job.hosts[h]),
              "Fix the NPU NIC link on %s (hccn_tool -i %d -link -g, check optics/switch port) or exclude the node, then resubmit." % (job.hosts[h], d))

    def inject():
        t = job.t_fault
        a = job.agents[h]
        e1 = job.ev("e1", "[precheck] hccn_tool -i %d -link -g -> link status: DOWN" % d, "link status: DOWN")
        a.put(2.0, "[precheck] %s hccn_tool -i %d -link -g -> link status: DOWN" % (ts_plain(job.dt(2.0, h)), d), e1)
        for k in range(8):
            if k != d:
                a.put(2.0, "[precheck] %s hccn_tool -i %d -link -g -> link status: UP" % (ts_plain(job.dt(2.0, h)), k))
        a.put(2.1, "[precheck] %s WARNING: 1 device NIC(s) not UP on %s, continuing (PRECHECK_STRICT=0)" % (ts_plain(job.dt(2.1, h)), job.hosts[h]))
        F.faulty.append(a)
        alias(job, F, h)
        tt0 = t + job.hccl_connect_to
        e2 = job.ev("e2", "EI0006: Getting socket times out.", "Getting socket times out")
        for r in job.ranks:
            tt = tt0 + rng.uniform(0, 3)
            d9 = job.dt(tt, r.h)
            mk = e2 if r.h == h and r.l == d else None
            if job.S["flavor"] == "mindspore":
                r.put(tt, ms_log(job, r, tt, "ERROR", "mindspore/ccsrc/plugin/device/ascend/hal/hccl_adapter/hccl_adapter.cc:540", "Call HcclCommInitRootInfo failed, ret: 9"))
            else:
                r.put(tt, "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed." % (ts_cann_s(d9), r.pid, r.l, r.g))
            r.put(tt, "EI0006: [PID: %d] %s Getting socket times out. Reason: 1. The remote does not initiate a connect request. some NPUs in the cluster are abnormal.    2. The remote does not initiate a connect request because the collective communication operator is started too late or is not started by some NPU in the cluster.    3. The communication link is disconnected. (For example, the IP addresses are not on the same network segment or the TLS configurations are inconsistent.)" % (r.pid, ts_cann(d9)), mk)
            r.put(tt, "        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If this error is reported for all NPUs, check whether the time difference between the earliest and latest errors is greater than the connect timeout interval (120s by default). If so, adjust the timeout interval by using the HCCL_CONNECT_TIMEOUT environment variable.3. Check the connectivity of the communication link between nodes. (For details, see the TLS command and HCCN connectivity check examples.)")
            if mk:
                F.faulty.append(r)
        crash_common(job, tt0 + 5, job.ranks, cascade=False)
    F.inject = inject
    return F


def f_ms_matmul(job, plan):
    rng = job.rng
    plan.stop_stage, plan.stop_frac = "data_loading", 0.8
    hs, wrong = rng.choice([(5120, 4096), (4096, 5120), (6144, 5120)])
    F = Fault("mindspore_shape_mismatch", "user", "configuration", "launching_failure", "model_loading",
              "The model YAML sets hidden_size %d while the attention projection weights are built for %d, so MindSpore graph compilation fails with a MatMul shape error on every rank." % (wrong, hs),
              "Make hidden_size / num_heads / ffn sizes in the YAML consistent with the checkpoint and model definition, then relaunch.",
              accept=["user/configuration", "user/script_bug"])

    def inject():
        t = job.t_fault
        line = "ValueError: For 'MatMul', the input dimensions must be equal, but got 'x1_col': %d and 'x2_row': %d. And 'x' shape [%d, %d](transpose_a=False), 'y' shape [%d, %d](transpose_b=False)." % (wrong, hs, job.seq * job.mbs, wrong, hs, hs)
        e = job.ev("e1", line, "For 'MatMul', the input dimensions must be equal")
        for r in job.ranks:
            tt = t + rng.uniform(0, 3)
            traceback(job, r, tt, frames_train(job) + [("%s/mindspore/common/api.py" % site(job), 1677, "compile", "result = self._graph_executor.compile(obj, args, kwargs, phase, self._use_vm_mode())")], [line], mark=e)
            for ln in ["", "----------------------------------------------------", "- The Traceback of Net Construct Code:", "----------------------------------------------------",
                       "# 0 In file /home/ma-user/work/mindformers/mindformers/models/llama/llama_transformer.py:%d" % rng.randint(300, 500),
                       "        query = self.cast(self.wq(x), self.dtype)  # dp, 1, 1 -> dp, 1, 1", "                          ^",
                       "", "----------------------------------------------------", "- C++ Call Stack: (For framework developers)", "----------------------------------------------------",
                       "mindspore/core/ops/mat_mul.cc:101 MatMulMakeShape"]:
                r.put(tt, ln)
        crash_common(job, t + 5, job.ranks, cascade=False)
    F.inject = inject
    return F


NONCON = lambda S: not S["layout"].startswith("console")
FAULTS = {
    # name: (builder, stack, predicate on setting)
    "xid79": (gpu_xid(79), "cuda", NONCON),
    "xid48": (gpu_xid(48), "cuda", NONCON),
    "xid94": (gpu_xid(94), "cuda", NONCON),
    "nvlink74": (gpu_xid(74), "cuda", NONCON),
    "ib_link": (f_ib_link, "cuda", lambda S: True),
    "cuda_oom": (f_cuda_oom, "cuda", lambda S: True),
    "nan_loss": (f_nan, "any", lambda S: S["flavor"] == "megatron"),
    "fp16_overflow": (f_ds_overflow, "cuda", lambda S: S["flavor"] == "deepspeed"),
    "bad_tp": (f_bad_tp, "any", lambda S: S["flavor"] == "megatron"),
    "bad_args": (f_bad_args, "any", lambda S: S["flavor"] in ("megatron", "hf", "deepspeed")),
    "script_bug": (f_script_bug, "any", lambda S: S["flavor"] in ("hf", "titan", "deepspeed")),
    "undef_symbol": (f_undef_symbol, "any", lambda S: S["flavor"] != "mindspore" and (S["stack"] == "cuda" or not S["layout"].startswith("console"))),
    "ckpt_disk_full": (f_ckpt_disk_full, "any", lambda S: S["flavor"] != "mindspore"),
    "nfs_stale": (f_nfs_stale, "any", lambda S: S["flavor"] in ("megatron", "deepspeed") and NONCON(S)),
    "host_oom": (f_host_oom, "any", lambda S: S["flavor"] != "mindspore" and NONCON(S)),
    "shm_bus": (f_shm, "any", lambda S: S["flavor"] in ("hf", "titan", "deepspeed")),
    "port_in_use": (f_eaddrinuse, "cuda", lambda S: S["launcher"] in ("torchrun", "accelerate") and NONCON(S)),
    "nccl_iface": (f_nccl_iface, "cuda", NONCON),
    "ds_fw_bug": (f_ds_fw_bug, "cuda", lambda S: S["flavor"] == "deepspeed"),
    "straggler": (f_straggler, "any", NONCON),
    "hang_xid109": (f_hang_xid109, "cuda", NONCON),
    "node_death": (f_node_death, "any", lambda S: S["layout"] in ("pernode",)),
    "slurm_node_fail": (f_slurm_node_fail, "cuda", lambda S: S["layout"] == "console_srun"),
    "preempt": (f_preempt, "cuda", lambda S: S["hostscheme"] == "pod" or S["launcher"] == "srun"),
    "npu_hbm_ecc": (ascend_dev_fault("hbm"), "ascend", lambda S: True),
    "npu_aicore": (ascend_dev_fault("aicore"), "ascend", lambda S: True),
    "hccl_link_init": (f_hccl_link_init, "ascend", NONCON),
    "npu_oom": (f_npu_oom, "ascend", lambda S: True),
    "ms_shape": (f_ms_matmul, "ascend", lambda S: S["flavor"] == "mindspore"),
}

CUDA_PLAN = ["xid79", "xid48", "xid94", "nvlink74", "ib_link", "cuda_oom", "nan_loss", "fp16_overflow", "bad_tp",
             "bad_args", "script_bug", "undef_symbol", "ckpt_disk_full", "nfs_stale", "host_oom", "shm_bus", "port_in_use",
             "nccl_iface", "ds_fw_bug", "straggler", "hang_xid109", "node_death", "slurm_node_fail", "preempt"]
ASCEND_PLAN = ["npu_hbm_ecc", "npu_hbm_ecc", "npu_aicore", "hccl_link_init", "npu_oom", "npu_oom", "nan_loss", "bad_tp",
               "undef_symbol", "ckpt_disk_full", "host_oom", "straggler", "node_death", "node_death", "ms_shape", "script_bug"]


def case_plan(rng, n):
    """(fault, setting, n_override) for every case: 24 CUDA + 16 Ascend for n=40"""
    n_cuda = int(round(n * 0.6))
    fl = [(f, "cuda") for f in (CUDA_PLAN * 3)[:n_cuda]] + [(f, "ascend") for f in (ASCEND_PLAN * 3)[: n - n_cuda]]
    rng.shuffle(fl)
    out = []
    used = {}
    for f, st in fl:
        ok = [S["name"] for S in SETTINGS if S["stack"] == st and FAULTS[f][2](S)]
        ok.sort(key=lambda s: (used.get(s, 0), rng.random()))
        sname = ok[0]
        used[sname] = used.get(sname, 0) + 1
        nover = None
        if f == "bad_tp":
            nover = 3 if SET_BY_NAME[sname]["nodes"][0] <= 3 else 5
        out.append((f, sname, nover))
    return out


# ----------------------------------------------------------------------------
# driver
# ----------------------------------------------------------------------------
def build_label(job, F, marks, lab):
    evs = []
    k = 0
    for eid in job.ev_order:
        if eid not in marks:
            continue
        k += 1
        lines = {n: sorted(v) for n, v in sorted(marks[eid].items())}
        evs.append({"id": "e%d" % k, "text": job.events[eid]["text"], "lines": lines, "_pattern": job.events[eid]["pattern"]})
    faulty = sorted(set(lab[id(s)] for s in F.faulty), key=lambda x: (len(x), x))
    lbl = {"schema": "l4-label/1", "setting": job.S["name"], "stack": job.stack,
           "category": F.cat, "subcategory": F.sub, "symptom": F.symptom,
           "faulty_nodes": faulty, "stage": F.stage,
           "iterations": F.iteration or [], "fault_events": evs,
           "root_cause": F.rc, "remediation": F.rem}
    if F.accept:
        lbl["accept"] = F.accept
    if F.hosts and faulty:
        lbl["hosts"] = F.hosts
    lbl["source"] = "synthetic: independent generator C (gen.py), fault=%s" % F.kind
    return lbl


def gen_case(rng, case_id, S, fb, outdir, n_override=None):
    lo, hi = S["nodes"]
    n = n_override or rng.randint(lo, hi)
    start = dtm.datetime(2024, 1, 1) + dtm.timedelta(seconds=rng.randint(0, 600 * 86400))
    job = make_job(rng, S, n, start)
    plan = Plan()
    F = fb(job, plan)
    run_normal(job, plan)
    F.inject()
    cdir = os.path.join(outdir, "cases", case_id)
    logdir = os.path.join(cdir, "logs")
    marks, lab, size, files = write_job(job, logdir)
    lbl = build_label(job, F, marks, lab)
    pats = {e["id"]: e.pop("_pattern") for e in lbl["fault_events"]}
    with open(os.path.join(cdir, "label.json"), "w") as f:
        json.dump(lbl, f, indent=2, ensure_ascii=False)
    with open(os.path.join(cdir, ".patterns.json"), "w") as f:
        json.dump(pats, f)
    return lbl, size


def gen_normal(rng, S, job_id, outdir):
    lo, hi = S["nodes"]
    n = rng.randint(lo, min(hi, lo + 2))
    start = dtm.datetime(2024, 1, 1) + dtm.timedelta(seconds=rng.randint(0, 600 * 86400))
    job = make_job(rng, S, n, start)
    plan = Plan()
    run_normal(job, plan)
    logdir = os.path.join(outdir, "normal", S["name"], job_id, "logs")
    marks, lab, size, files = write_job(job, logdir)
    return size


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=23)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    ap.add_argument("--cases", type=int, default=40)
    ap.add_argument("--no-normal", action="store_true")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    plan = case_plan(rng, a.cases)
    total = 0
    for i, (fname, sname, nover) in enumerate(plan):
        S = SET_BY_NAME[sname]
        cid = "c%02d-%s" % (i + 1, fname.replace("_", "-"))
        lbl, size = gen_case(random.Random(rng.getrandbits(64)), cid, S, FAULTS[fname][0], a.out, nover)
        total += size
        print("%-40s %-44s %-8s nodes=%-22s ev=%d %.1fMB" % (cid, sname, lbl["category"] + "/" + lbl["subcategory"], ",".join(lbl["faulty_nodes"])[:22], len(lbl["fault_events"]), size / 1e6))
    if not a.no_normal:
        for k, S in enumerate(SETTINGS):
            if k % 2 == 0:
                for j in range(rng.choice([1, 2])):
                    total += gen_normal(random.Random(rng.getrandbits(64)), S, "ok-%d" % (j + 1), a.out)
    print("total size %.1f MB" % (total / 1e6))


if __name__ == "__main__":
    main()
