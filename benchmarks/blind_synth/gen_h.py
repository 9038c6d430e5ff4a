#!/usr/bin/env python3
"""Independent synthetic corpus of labeled failed LLM-training jobs (blind_h).

Usage: python3 gen.py --seed 5 --out DIR

Writes DIR/cases/<case_id>/{logs/...,label.json} and DIR/normal/<setting>/<job>/logs/...
Standard library only; deterministic for a given seed.
"""
import argparse
import gzip
import io
import json
import os
import random
import shutil
import sys
import time as _time

# ---------------------------------------------------------------------------
# time formatting
# ---------------------------------------------------------------------------

def _tm(t):
    return _time.gmtime(int(t))


def fmt_ts(style, t):
    g = _tm(t)
    ms = int((t - int(t)) * 1000)
    us = int((t - int(t)) * 1000000)
    if style == "none":
        return ""
    if style == "iso":
        return _time.strftime("%Y-%m-%d %H:%M:%S", g) + ",%03d " % ms
    if style == "k8s":
        return _time.strftime("%Y-%m-%dT%H:%M:%S", g) + ".%06d123Z " % us
    if style == "bracket":
        return "[" + _time.strftime("%Y-%m-%d %H:%M:%S", g) + "] "
    if style == "syslog":
        return _time.strftime("%b %d %H:%M:%S ", g)
    raise ValueError(style)


def ts_glog(t, lvl="I"):
    g = _tm(t)
    return "%s%s %s.%06d" % (lvl, _time.strftime("%m%d", g), _time.strftime("%H:%M:%S", g), int((t % 1) * 1e6))


def ts_ascend(t):
    g = _tm(t)
    f = t % 1
    return _time.strftime("%Y-%m-%d-%H:%M:%S", g) + ".%03d.%03d" % (int(f * 1000), int(f * 1e6) % 1000)


def ts_torch_e(t, lvl="E"):
    # [rank3]:[E512 10:31:02.123456789 ProcessGroupNCCL.cpp:616]
    g = _tm(t)
    return "%s%s %s.%09d" % (lvl, _time.strftime("%m%d", g), _time.strftime("%H:%M:%S", g), int((t % 1) * 1e9))


def ts_pyl(t):
    g = _tm(t)
    return _time.strftime("%Y-%m-%d %H:%M:%S", g) + ",%03d" % int((t % 1) * 1000)


def ts_slurm(t):
    return _time.strftime("%Y-%m-%dT%H:%M:%S", _tm(t))


def ts_ctime(t):
    return _time.strftime("%a %b %d %H:%M:%S %Y", _tm(t))


# ---------------------------------------------------------------------------
# job model
# ---------------------------------------------------------------------------

class Job:
    """A job is a set of nodes; each node has a stream of lines (t, text, tag, rank)."""

    def __init__(self, rng, nodes, gpn, t0):
        self.rng = rng
        self.nodes = nodes  # list of dicts: host, ip, name(optional)
        self.gpn = gpn
        self.t0 = t0
        self.streams = [[] for _ in nodes]
        self.seq = 0

    def add(self, n, t, text, tag=None, rank=None):
        self.seq += 1
        self.streams[n].append((t, self.seq, text, tag, rank))

    def grank(self, n, local=0):
        return n * self.gpn + local

    def world(self):
        return len(self.nodes) * self.gpn


def render(job, layout, ts_style, outdir):
    """Render streams to files. Returns dict tag -> {node: [lines]}, list of (relpath, lines)."""
    files = {}  # relpath -> list of (text, tag, nodename)
    kind = layout["kind"]

    def sorted_stream(s):
        return sorted(s, key=lambda x: (x[0], x[1]))

    if kind == "per_node":
        namefn = layout["name"]
        prefix = layout.get("prefix", "none")
        ext = layout.get("ext", ".log")
        for n, s in enumerate(job.streams):
            nm = namefn(n)
            rel = layout.get("dir", "") + nm + ext
            out = []
            for (t, _, text, tag, rank) in sorted_stream(s):
                p = ""
                if rank is not None and prefix == "default":
                    p = "[default%d]:" % (rank % job.gpn)
                elif rank is not None and prefix == "rank":
                    p = "[rank%d]:" % rank
                for sub in text.split("\n"):
                    out.append((fmt_ts(ts_style, t) + p + sub, tag, nm))
            files[rel] = out
    elif kind == "host_dirs":
        # dir per host, file per local rank: <host>/rank_<local>.log ; launcher lines in rank_0
        for n, s in enumerate(job.streams):
            host = layout["name"](n)
            per = {}
            for (t, _, text, tag, rank) in sorted_stream(s):
                lr = 0 if rank is None else rank % job.gpn
                per.setdefault(lr, [])
                for sub in text.split("\n"):
                    per[lr].append((fmt_ts(ts_style, t) + sub, tag, "%s/rank_%d" % (host, lr)))
            for lr in range(job.gpn):
                files["%s/rank_%d.log" % (host, lr)] = per.get(lr, [])
    elif kind == "console":
        # one or more combined consoles. layout["consoles"]: list of (relpath, [node indices], time window)
        for (rel, nodeset, tmin, tmax) in layout["consoles"]:
            stem = os.path.basename(rel)
            for e in (".out", ".log", ".txt"):
                if stem.endswith(e):
                    stem = stem[: -len(e)]
            multi = len(layout["consoles"]) > 1
            merged = []
            for n in nodeset:
                for x in job.streams[n]:
                    if tmin <= x[0] < tmax:
                        merged.append(x)
            merged.sort(key=lambda x: (x[0], x[1]))
            out = []
            style = layout.get("prefix", "srun")
            for (t, _, text, tag, rank) in merged:
                for sub in text.split("\n"):
                    if rank is None:
                        nm = stem
                        line = fmt_ts(ts_style, t) + sub
                    else:
                        nm = ("%s/rank%d" % (stem, rank)) if multi else ("rank%d" % rank)
                        if style == "srun":
                            line = "%d: " % rank + fmt_ts(ts_style, t) + sub
                        elif sub.startswith("[rank%d]:" % rank):
                            line = fmt_ts(ts_style, t) + sub
                        else:
                            line = fmt_ts(ts_style, t) + "[rank%d]:" % rank + sub
                    out.append((line, tag, nm))
            files[rel] = out
    elif kind == "msrun":
        # one file per worker (global rank) + scheduler.log (stream index given)
        for n, s in enumerate(job.streams):
            per = {}
            for (t, _, text, tag, rank) in sorted_stream(s):
                key = "scheduler" if rank == "sched" else ("worker_%d" % (rank if rank is not None else job.grank(n)))
                per.setdefault(key, [])
                for sub in text.split("\n"):
                    per[key].append((fmt_ts(ts_style, t) + sub, tag, key))
            for lr in range(job.gpn):
                key = "worker_%d" % job.grank(n, lr)
                files[layout["dir"](n) + key + ".log"] = per.get(key, [])
            if "scheduler" in per:
                files[layout["dir"](n) + "scheduler.log"] = per["scheduler"]
    else:
        raise ValueError(kind)

    for (rel, fn) in layout.get("extra", []):
        files[rel] = fn()

    events = {}
    written = []
    for rel in sorted(files):
        lines = files[rel]
        path = os.path.join(outdir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = "".join(text + "\n" for (text, _, _) in lines).encode("utf-8")
        if layout.get("gz") and rel.endswith(".log") and not rel.endswith("events.txt"):
            path += ".gz"
            with open(path, "wb") as raw:
                with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as gz:
                    gz.write(data)
        else:
            with open(path, "wb") as f:
                f.write(data)
        for i, (text, tag, nm) in enumerate(lines, 1):
            if tag:
                for tg in tag.split(","):
                    events.setdefault(tg, {}).setdefault(nm, []).append(i)
        written.append((rel, lines))
    return events, written


# ---------------------------------------------------------------------------
# healthy content builders
# ---------------------------------------------------------------------------

def env_dump(job, n, t, stack, extra=None, rank=None):
    r = job.rng
    h = job.nodes[n]
    L = ["+ hostname", h["host"], "+ env | grep -E 'NCCL|CUDA|MASTER|HCCL|ASCEND|WORLD|RANK' | sort"]
    if stack == "cuda":
        L += ["CUDA_DEVICE_MAX_CONNECTIONS=1", "CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
              "MASTER_ADDR=%s" % job.nodes[0]["host"], "MASTER_PORT=29500",
              "NCCL_DEBUG=INFO", "NCCL_IB_HCA=mlx5_0,mlx5_3,mlx5_4,mlx5_5", "NCCL_IB_TIMEOUT=22",
              "NCCL_SOCKET_IFNAME=%s" % (extra or "bond0"), "NODE_RANK=%d" % n,
              "WORLD_SIZE=%d" % job.world()]
    else:
        L += ["ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7", "ASCEND_GLOBAL_LOG_LEVEL=3",
              "HCCL_CONNECT_TIMEOUT=1200", "HCCL_EXEC_TIMEOUT=1800",
              "HCCL_IF_IP=%s" % h["ip"], "HCCL_SOCKET_IFNAME=%s" % (extra or "enp189s0f0"),
              "MASTER_ADDR=%s" % job.nodes[0]["ip"], "MASTER_PORT=6000", "NODE_RANK=%d" % n,
              "WORLD_SIZE=%d" % job.world()]
    for i, l in enumerate(L):
        job.add(n, t + i * 0.001, l, rank=rank)
    return t + 0.05


def torchrun_banner(job, n, t):
    job.add(n, t, "W%s %d torch/distributed/run.py:793] " % (ts_glog(t, "W")[1:], 4000 + n) if False else
            "W%s %d torch/distributed/run.py:793] " % (ts_glog(t)[1:], 4000 + n))
    job.add(n, t + 0.001, "W%s %d torch/distributed/run.py:793] *****************************************" % (ts_glog(t)[1:], 4000 + n))
    job.add(n, t + 0.002, "W%s %d torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your system being overloaded, please further tune the variable for optimal performance in your application as needed. " % (ts_glog(t)[1:], 4000 + n))
    job.add(n, t + 0.003, "W%s %d torch/distributed/run.py:793] *****************************************" % (ts_glog(t)[1:], 4000 + n))


def nccl_init(job, n, t, lranks=(0,), bad_plugin=True):
    h = job.nodes[n]["host"]
    pid = 31000 + n * 17
    for lr in lranks:
        g = job.grank(n, lr)
        p = pid + lr
        pre = "%s:%d:%d [%d] " % (h, p, p, lr)
        job.add(n, t, pre + "NCCL INFO Bootstrap : Using bond0:%s<0>" % job.nodes[n]["ip"], rank=g)
        if bad_plugin:
            job.add(n, t + 0.01, pre + "NCCL INFO NET/Plugin : Plugin load (libnccl-net.so) returned 2 : libnccl-net.so: cannot open shared object file: No such file or directory", rank=g)
            job.add(n, t + 0.011, pre + "NCCL INFO NET/Plugin : No plugin found, using internal implementation", rank=g)
        job.add(n, t + 0.02, pre + "NCCL INFO cudaDriverVersion 12040", rank=g)
        if g == 0:
            job.add(n, t + 0.03, "NCCL version 2.21.5+cuda12.4", rank=g)
        q = "%s:%d:%d [%d] " % (h, p, p + 211, lr)
        job.add(n, t + 0.2, q + "NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB [RO]; OOB bond0:%s<0>" % job.nodes[n]["ip"], rank=g)
        job.add(n, t + 0.21, q + "NCCL INFO Using network IB", rank=g)
        job.add(n, t + 0.4, q + "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%x - Init START" % (0x55d0a0000000 + g * 4096, g, job.world(), lr, lr, 0x18 + lr * 0x10, 0x6f1e2a93c0b1d4e7), rank=g)
        job.add(n, t + 1.5, q + "NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %x000 commId 0x%x - Init COMPLETE" % (0x55d0a0000000 + g * 4096, g, job.world(), lr, lr, 0x18 + lr * 0x10, 0x6f1e2a93c0b1d4e7), rank=g)


def hccl_init(job, n, t, lranks=(0,)):
    for lr in lranks:
        g = job.grank(n, lr)
        job.add(n, t, "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/storage.py:38: UserWarning: TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only storage class. This should only matter to you if you are using storages directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()", rank=g)
        job.add(n, t + 0.1, "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/distributed/distributed_c10d.py:93: UserWarning: HCCL doesn't support gather at the moment. Implemented with allgather instead.", rank=g)
        job.add(n, t + 0.11, '  warnings.warn("HCCL doesn\'t support gather at the moment. Implemented with allgather instead.")', rank=g)


class Trainer:
    """Produces healthy iteration lines for a given framework style."""

    def __init__(self, job, fw, total, gbs, dt, lr0=3e-4, loss0=10.8):
        self.job = job
        self.fw = fw
        self.total = total
        self.gbs = gbs
        self.dt = dt
        self.lr0 = lr0
        self.loss0 = loss0

    def loss(self, it):
        r = self.job.rng
        return 2.1 + (self.loss0 - 2.1) * (0.985 ** it) + r.uniform(-0.04, 0.04)

    def lr(self, it):
        return self.lr0 * min(1.0, it / 200.0)

    def line(self, it, dt_ms, loss=None, gn=None, nan=0):
        r = self.job.rng
        loss = self.loss(it) if loss is None else loss
        gn = r.uniform(0.18, 0.45) if gn is None else gn
        lr = self.lr(it)
        if self.fw in ("megatron", "mindspeed"):
            ls = "nan" if loss != loss else "%.6E" % loss
            return (" iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | "
                    "learning rate: %.6E | global batch size: %5d | lm loss: %s | loss scale: 1.0 | "
                    "grad norm: %.3f | number of skipped iterations:   0 | number of nan iterations: %3d |"
                    % (it, self.total, it * self.gbs, dt_ms, lr, self.gbs, ls, gn, nan))
        if self.fw == "deepspeed":
            return ("[INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]\n"
                    "[INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, MemAllocated=31.42GB, MaxMemAllocated=58.97GB"
                    % (it, lr, it * 4, it, self.gbs / (dt_ms / 1000.0) * 0.99, self.gbs / (dt_ms / 1000.0)))
        if self.fw == "hf":
            return "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (loss, gn, lr, it / float(self.total) * 3)
        if self.fw == "fsdp":
            return "[train] step %d | loss %.4f | lr %.3e | tok/s %d | step_time %.2fs | mem_alloc %.1fGiB" % (
                it, loss, lr, int(4096 * self.gbs / (dt_ms / 1000.0)), dt_ms / 1000.0, r.uniform(61, 63))
        if self.fw == "mindformers":
            return ("{ Epoch:[  1/  2], step:[%5d/%5d], loss: %.6f, per_step_time: %dms, lr: %.6e, overflow cond: False, loss_scale: 1.0, global_norm: [%.3f]"
                    % (it, self.total, loss, dt_ms, lr, gn))
        raise ValueError(self.fw)

    def run(self, n, rank, t, it0, it1, save_every=0, save_node=None, slow_from=None, slow_factor=1.0,
            side_nodes=(), side_every=100, side_text=None):
        """Emit iterations it0..it1 inclusive on node n; returns time after it1."""
        r = self.job.rng
        for it in range(it0, it1 + 1):
            f = slow_factor if (slow_from is not None and it >= slow_from) else 1.0
            d = self.dt * f * r.uniform(0.97, 1.03)
            t += d
            self.job.add(n, t, self.line(it, d * 1000), rank=rank)
            if side_nodes and it % side_every == 0:
                for sn in side_nodes:
                    txt = side_text(sn, it) if side_text else None
                    if txt:
                        self.job.add(sn, t + r.uniform(0, 0.3), txt, rank=self.job.grank(sn))
            if save_every and it % save_every == 0:
                t = self.save(save_node if save_node is not None else n, rank, t, it)
            if it % 733 == 17:
                w = self.harmless(it)
                if w:
                    self.job.add(n, t + 0.05, w, rank=rank)
        return t

    def harmless(self, it):
        """Alarming-looking but harmless warnings seen in healthy runs."""
        if self.fw == "deepspeed":
            return ("[INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768" if it % 2
                    else "[WARNING] [stage3.py:2069:step] 2 pytorch allocator cache flushes since last step. this happens when there is high memory pressure and is detrimental to performance. if this is happening frequently consider adjusting settings to reduce memory consumption. If you are unable to make the cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to ensure that all ranks flush their caches at the same time")
        if self.fw == "hf":
            return "`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`."
        if self.fw == "fsdp":
            return ("/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, but if you need to preserve the current default behavior, you can pass use_reentrant=True. Refer to docs for more details on the differences between the two variants.")
        if self.fw == "megatron":
            return ("/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py:189: UserWarning: The AccumulateGrad node's stream does not match the stream of the node that produced the incoming gradient. This may incur unnecessary synchronization and break CUDA graph capture if the AccumulateGrad node's stream is the default stream. (Triggered internally at /pytorch/torch/csrc/autograd/input_buffer.cpp:240.)")
        if self.fw == "mindspeed":
            return "[W compiler_depend.ts:623] Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())"
        if self.fw == "mindformers":
            return None
        return None

    def save(self, n, rank, t, it):
        j = self.job
        if self.fw in ("megatron", "mindspeed"):
            j.add(n, t + 0.01, "saving checkpoint at iteration %7d to /mnt/ckpt/run-2417" % it, rank=rank)
            t += j.rng.uniform(40, 70)
            j.add(n, t, "  successfully saved checkpoint at iteration %7d to /mnt/ckpt/run-2417" % it, rank=rank)
        elif self.fw == "deepspeed":
            j.add(n, t + 0.01, "[INFO] [logging.py:96:log_dist] [Rank 0] Saving model checkpoint: /ckpt/mixtral/global_step%d/mp_rank_00_model_states.pt" % it, rank=rank)
            t += j.rng.uniform(20, 40)
            j.add(n, t, "[INFO] [torch_checkpoint_engine.py:23:save] [Torch] Saved /ckpt/mixtral/global_step%d/mp_rank_00_model_states.pt." % it, rank=rank)
        elif self.fw == "hf":
            j.add(n, t + 0.01, "[INFO|trainer.py:3984] %s >> Saving model checkpoint to /output/qwen7b-sft/checkpoint-%d" % (ts_pyl(t), it), rank=rank)
            t += j.rng.uniform(15, 30)
            j.add(n, t, "[INFO|modeling_utils.py:3042] %s >> Model weights saved in /output/qwen7b-sft/checkpoint-%d/model.safetensors" % (ts_pyl(t), it), rank=rank)
        elif self.fw == "fsdp":
            j.add(n, t + 0.01, "[ckpt] saving sharded state dict (step %d) to /ckpt/llama8b/step_%d" % (it, it), rank=rank)
            t += j.rng.uniform(15, 30)
            j.add(n, t, "[ckpt] save done in %.1fs" % j.rng.uniform(15, 30), rank=rank)
        elif self.fw == "mindformers":
            j.add(n, t + 0.01, "- INFO - ......Saving ckpt......", rank=rank)
            t += j.rng.uniform(15, 30)
            j.add(n, t, "- INFO - Finish saving ckpt of step %d." % it, rank=rank)
        return t


def megatron_setup(job, n, rank, t, model="llama-70b", tp=8, pp=4, stack="cuda"):
    L = ["using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, pipeline-model-parallel size: %d "
         % (job.world(), max(1, job.world() // (tp * pp)), tp, pp),
         "WARNING: Setting args.overlap_p2p_comm and args.align_param_gather to False since non-interleaved schedule does not support overlapping p2p communication and aligned param AG",
         "------------------------ arguments ------------------------",
         "  accumulate_allreduce_grads_in_fp32 .............. True",
         "  bf16 ............................................ True",
         "  check_for_nan_in_loss_and_grad .................. True",
         "  global_batch_size ............................... 1024",
         "  log_interval .................................... 1",
         "  micro_batch_size ................................ 1",
         "  save_interval ................................... 500",
         "  seq_length ...................................... 4096",
         "  tensor_model_parallel_size ...................... %d" % tp,
         "  pipeline_model_parallel_size .................... %d" % pp,
         "-------------------- end of arguments ---------------------",
         "> initializing torch distributed ...",
         "> initialized tensor model parallel with size %d" % tp,
         "> initialized pipeline model parallel with size %d" % pp,
         "> compiling dataset index builder ...",
         ">>> done with dataset index builder. Compilation time: 0.061 seconds",
         "time to initialize megatron (seconds): %.3f" % job.rng.uniform(30, 90),
         "[after megatron is initialized] datetime: %s " % _time.strftime("%Y-%m-%d %H:%M:%S", _tm(t)),
         "building GPT model ...",
         " > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d" % job.rng.randint(10**9, 3 * 10**9),
         "WARNING: could not find the metadata file /mnt/ckpt/run-2417/latest_checkpointed_iteration.txt ",
         "    will not load any checkpoints and will start from random",
         "(min, max) time across ranks (ms):",
         "    load-checkpoint ................................: (2.01, 2.33)",
         "> building train, validation, and test datasets ...",
         " > datasets target sizes (minimum size):",
         "    train:      256000000",
         "> finished creating GPT datasets ...",
         "[after dataloaders are built] datetime: %s " % _time.strftime("%Y-%m-%d %H:%M:%S", _tm(t + 60)),
         "done with setup ...",
         "training ..."]
    for i, l in enumerate(L):
        job.add(n, t + i * 1.7, l, rank=rank)
    return t + len(L) * 1.7 + 1


def launcher_teardown(job, n, t, failed_local, exitcode=1, others=True, binary="/usr/bin/python3", script="pretrain_gpt.py"):
    """torchrun agent teardown on node n (unprefixed)."""
    t = t + n * 0.53
    pid0 = 52000 + n * 31
    pre = lambda lvl, tt: "%s %d torch/distributed/elastic/multiprocessing/api.py" % (ts_glog(tt, lvl), pid0)
    k = 0
    if others:
        for lr in range(job.gpn):
            if lr == failed_local:
                continue
            job.add(n, t + k * 0.001, pre("W", t) + ":897] Sending process %d closing signal SIGTERM" % (pid0 + 1 + lr))
            k += 1
    t2 = t + 2.5
    job.add(n, t2, pre("E", t2) + ":869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: %s" % (exitcode, failed_local, pid0 + 1 + failed_local, binary))
    tb = ["Traceback (most recent call last):",
          '  File "/usr/local/bin/torchrun", line 8, in <module>',
          "    sys.exit(main())",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
          "    return f(*args, **kwargs)",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main',
          "    run(args)",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 910, in run',
          "    elastic_launch(",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 138, in __call__',
          "    return launch_agent(self._config, self._entrypoint, list(args))",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 269, in launch_agent',
          "    raise ChildFailedError(",
          "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
          "============================================================",
          "%s FAILED" % script,
          "------------------------------------------------------------",
          "Failures:",
          "  <NO_OTHER_FAILURES>",
          "------------------------------------------------------------",
          "Root Cause (first observed failure):",
          "[0]:",
          "  time      : %s" % _time.strftime("%Y-%m-%d_%H:%M:%S", _tm(t2)),
          "  host      : %s" % job.nodes[n]["host"],
          "  rank      : %d (local_rank: %d)" % (job.grank(n, failed_local), failed_local),
          "  exitcode  : %d (pid: %d)" % (exitcode, pid0 + 1 + failed_local),
          "  error_file: <N/A>",
          "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html" if exitcode > 0 else
          "  traceback : Signal %d (SIG%s) received by PID %d" % (-exitcode, {6: "ABRT", 9: "KILL", 15: "TERM", 7: "BUS"}.get(-exitcode, "TERM"), pid0 + 1 + failed_local),
          "============================================================"]
    for i, l in enumerate(tb):
        job.add(n, t2 + 0.01 + i * 0.0001, l)
    return t2 + 0.1


def watchdog_timeout(job, n, lr, t, seq, op="ALLREDUCE", numel=466119168, timeout_ms=600000, tag=None):
    g = job.grank(n, lr)
    ran = timeout_ms + job.rng.randint(3, 90)
    a = "[rank%d]:[%s ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out." % (
        g, ts_torch_e(t), g, seq, op, numel, numel, timeout_ms, ran)
    b = "[rank%d]:[%s ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (
        g, ts_torch_e(t + 0.0003), g, seq, seq + 2, seq - 1)
    c = "[rank%d]:[%s ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) Rank %d] Timeout at NCCL work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d." % (
        g, ts_torch_e(t + 0.0005), g, seq, seq + 2, seq - 1)
    d = "[rank%d]:[%s ProcessGroupNCCL.cpp:630] [Rank %d] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data." % (
        g, ts_torch_e(t + 0.0006), g)
    e = "[rank%d]:[%s ProcessGroupNCCL.cpp:636] [Rank %d] To avoid data inconsistency, we are taking the entire process down." % (g, ts_torch_e(t + 0.0007), g)
    job.add(n, t, a, tag=tag, rank=g)
    job.add(n, t + 0.0003, b, rank=g)
    job.add(n, t + 0.0005, c, rank=g)
    job.add(n, t + 0.0006, d, rank=g)
    job.add(n, t + 0.0007, e, rank=g)


def slurm_tail(job, t, failed_host, task, jobid, stepid=0, exitcode=1, host_for_step=None, extra=()):
    """Unprefixed srun/slurmstepd teardown (added to node 0 stream, unranked)."""
    job.add(0, t, "srun: error: %s: task %d: Exited with exit code %d" % (failed_host, task, exitcode))
    job.add(0, t + 0.4, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    job.add(0, t + 0.5, "slurmstepd: error: *** STEP %d.%d ON %s CANCELLED AT %s ***" % (jobid, stepid, host_for_step or job.nodes[0]["host"], ts_slurm(t + 0.5)))
    for i, x in enumerate(extra):
        job.add(0, t + 1 + i * 0.01, x)
    job.add(0, t + 33, "srun: error: %s: tasks 0-7: Terminated" % job.nodes[0]["host"])
    job.add(0, t + 33.1, "srun: Force Terminated StepId=%d.%d" % (jobid, stepid))


def ascend_ei0002(job, n, lr, t, tag=None, loc=None, exc="Heartbeat Lost Occurred", group_ip=None):
    g = job.grank(n, lr)
    gip = group_ip or job.nodes[0]["ip"]
    L = ["[W compiler_depend.ts:487] Warning: NPU warning, error code is 507048[Error]: ",
         "[Error]: The execution of the internal task times out. ",
         "        Rectify the fault based on the error information in the ascend log.",
         "EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register has not received the Notify record from remote rank [unknown].base information: [streamID:[%d], taskID[%d], tag[AllReduce_%s%%enp189s0f0_60000_0_1732766162316022], AlgType(level 0-1-2):[fullmesh-ring-ring].] task information: [" % (
             7000 + g, ts_ascend(t), 2282987520 + g, job.rng.randint(5, 9000), gip)]
    if loc:
        L += ["there are(is) 1 abnormal device(s):",
              "Cluster Exception Location[IP/ID]:[%s], Arrival Time:[%s], Discoverer:[%s/%d], ExceptionType:[%s], Possible Reason:1. Process has exited, 2. Network Disconnected" % (
                  loc[0], ts_ctime(loc[1]), job.nodes[n]["ip"], lr, exc)]
    L += ["]",
          "Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in the cluster is too slow to complete a communication operation within the timeout interval. (default 1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.4. Packet loss or other connectivity problems occur on the communication link.",
          ]
    for i, l in enumerate(L):
        job.add(n, t + i * 0.0001, l, rank=g, tag=(tag if i == 3 else None))


# ---------------------------------------------------------------------------
# settings
# ---------------------------------------------------------------------------

SETTINGS = {
    # name: stack, framework, layout kind, gpn, ts style, naming
    "llama70b-megatron-cuda-slurm": dict(stack="cuda", fw="megatron", kind="console_srun", gpn=8, ts="none"),
    "gpt13b-megatron-cuda-hostfiles": dict(stack="cuda", fw="megatron", kind="per_host", gpn=8, ts="iso"),
    "llama8b-fsdp-cuda-k8s": dict(stack="cuda", fw="fsdp", kind="k8s", gpn=8, ts="k8s"),
    "mixtral-deepspeed-cuda-hostdirs": dict(stack="cuda", fw="deepspeed", kind="host_dirs", gpn=8, ts="bracket"),
    "qwen7b-hf-cuda-torchrun": dict(stack="cuda", fw="hf", kind="console_torchrun", gpn=8, ts="none"),
    "llama13b-megatron-cuda-ipfiles": dict(stack="cuda", fw="megatron", kind="per_ip", gpn=8, ts="none"),
    "llama2-70b-mindspeed-ascend-hostfiles": dict(stack="ascend", fw="mindspeed", kind="per_host", gpn=8, ts="none"),
    "qwen14b-mindformers-ascend-msrun": dict(stack="ascend", fw="mindformers", kind="msrun", gpn=8, ts="none"),
    "pangu38b-torchnpu-ascend-k8s": dict(stack="ascend", fw="deepspeed", kind="k8s", gpn=8, ts="k8s"),
}


def make_nodes(setting, nn, rng):
    nodes = []
    base = rng.randint(2, 40)
    for i in range(nn):
        if setting.startswith("llama70b"):
            h = "gpu-st-p5-%02d" % (base + i)
            ip = "10.1.%d.%d" % (16 + (base + i) // 200, (base + i) % 200 + 10)
        elif setting.startswith("gpt13b"):
            h = "dgx-a100-%03d" % (base * 3 + i)
            ip = "172.20.%d.%d" % (8 + i // 100, 11 + (base * 3 + i) % 200)
        elif setting.startswith("llama8b"):
            h = "llama8b-ft-worker-%d" % i
            ip = "10.244.%d.%d" % (3 + i, 17 + i)
        elif setting.startswith("mixtral"):
            h = "hgx-h800-%02d" % (base + i)
            ip = "192.168.50.%d" % (100 + base + i)
        elif setting.startswith("qwen7b"):
            h = "node%d" % (base + i)
            ip = "10.8.0.%d" % (base + i)
        elif setting.startswith("llama13b"):
            h = "cn-%s" % "".join(rng.choice("abcdef0123456789") for _ in range(8))
            ip = "10.22.%d.%d" % (4 + (base + i) // 120, 20 + (base + i * 2) % 230)
        elif setting.startswith("llama2-70b"):
            h = "ascend-910b-%02d" % (base + i)
            ip = "90.90.%d.%d" % (92 + i // 100, 200 + (i % 50))
        elif setting.startswith("qwen14b"):
            h = "atlas800t-a2-%02d" % (base + i)
            ip = "192.168.%d.%d" % (20 + i // 200, 150 + i)
        elif setting.startswith("pangu38b"):
            h = "pangu-trainer-worker-%d" % i
            ip = "172.16.%d.%d" % (38 + i, 219 - i)
        else:
            raise ValueError(setting)
        nodes.append(dict(host=h, ip=ip, k8snode="cce-npu-%s" % "".join(rng.choice("0123456789abcdef") for _ in range(5))
                          if "pangu" in setting else "gke-a3-pool-%s" % "".join(rng.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(4))))
    return nodes


def layout_for(setting, job, nconsoles=None):
    s = SETTINGS[setting]
    k = s["kind"]
    if k == "console_srun":
        return dict(kind="console", prefix="srun", consoles=nconsoles or [("slurm-%d.out" % job.jobid, list(range(len(job.nodes))), 0, 1e12)])
    if k == "console_torchrun":
        return dict(kind="console", prefix="torchrun", consoles=nconsoles or [("train_console.log", list(range(len(job.nodes))), 0, 1e12)])
    if k == "per_host":
        return dict(kind="per_node", name=lambda n: job.nodes[n]["host"], prefix="default")
    if k == "per_ip":
        return dict(kind="per_node", name=lambda n: job.nodes[n]["ip"], prefix="default", ext=".log")
    if k == "k8s":
        return dict(kind="per_node", name=lambda n: job.nodes[n]["host"], prefix="none", dir="pods/", ext=".log")
    if k == "host_dirs":
        return dict(kind="host_dirs", name=lambda n: job.nodes[n]["host"])
    if k == "msrun":
        return dict(kind="msrun", dir=lambda n: "%s/msrun_log/" % job.nodes[n]["host"])
    raise ValueError(k)


def node_label(setting, job, n, lr=0):
    """CONTRACTS node name for the process (n, local rank lr) as rendered."""
    k = SETTINGS[setting]["kind"]
    if k in ("console_srun", "console_torchrun"):
        return "rank%d" % job.grank(n, lr)
    if k == "per_host" or k == "k8s":
        return job.nodes[n]["host"]
    if k == "per_ip":
        return job.nodes[n]["ip"]
    if k == "host_dirs":
        return "%s/rank_%d" % (job.nodes[n]["host"], lr)
    if k == "msrun":
        return "worker_%d" % job.grank(n, lr)
    raise ValueError(k)


# ---------------------------------------------------------------------------
# common healthy prologue per setting
# ---------------------------------------------------------------------------

def prologue(setting, job, extra_env=None):
    """Env dump, launcher banner, framework init on all nodes. Returns time training starts."""
    s = SETTINGS[setting]
    t = job.t0
    for n in range(len(job.nodes)):
        tn = t + job.rng.uniform(0, 3)
        tn = env_dump(job, n, tn, s["stack"], extra_env, rank=job.grank(n) if s["kind"].startswith("console") else None)
        if s["stack"] == "cuda":
            if s["kind"] != "console_srun":
                torchrun_banner(job, n, tn)
            nccl_init(job, n, tn + 20, lranks=(0,) if len(job.nodes) > 4 else (0, 1))
            job.add(n, tn + 25, "[rank%d]:[%s ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as devices used by this process are currently unknown. This can potentially cause a hang if this rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular device,or call init_process_group() with a device_id." % (job.grank(n), ts_torch_e(tn + 25, "W"), job.grank(n), 0), rank=job.grank(n))
        else:
            if s["fw"] != "mindformers":
                torchrun_banner(job, n, tn)
            hccl_init(job, n, tn + 20, lranks=(0,))
        if s["fw"] == "mindformers":
            for lr in range(job.gpn):
                g = job.grank(n, lr)
                job.add(n, tn + 1 + lr * 0.01, "[WARNING] DISTRIBUTED(%d,ffff8a3c1120,python):%s [mindspore/ccsrc/distributed/cluster/cluster_context.cc:194] BuildCluster] Topology build timed out., retry(1/60)." % (100 + g, ts_ascend(tn + 1)), rank=g)
                job.add(n, tn + 4 + lr * 0.01, "[WARNING] DISTRIBUTED(%d,ffff8a3c1120,python):%s [mindspore/ccsrc/distributed/cluster/cluster_context.cc:196] BuildCluster] Cluster is successfully initialized." % (100 + g, ts_ascend(tn + 4)), rank=g)
                job.add(n, tn + 30 + lr * 0.01, "- INFO - .........Build Dataset From Config..........", rank=g)
                job.add(n, tn + 60 + lr * 0.01, "- INFO - .........Build Net For Train..........", rank=g)
            if n == 0:
                job.add(0, tn + 0.5, "[INFO] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:174] Start scheduler process, log file:/job/output/msrun_log/scheduler.log" % (90000, ts_ascend(tn)), rank="sched")
                job.add(0, tn + 2, "[WARNING] DISTRIBUTED(90011,ffffb85d0c80,python):%s [mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:204] HandleMessage] The new node: %d is registered successfully. Currently registered node number: %d, expected node number: %d" % (ts_ascend(tn + 2), 0, 1, job.world()), rank="sched")
    start = t + 120
    if s["fw"] in ("megatron", "mindspeed"):
        last = len(job.nodes) - 1
        start = megatron_setup(job, last, job.grank(last, job.gpn - 1), t + 40, stack=s["stack"])
        for n in range(len(job.nodes)):
            job.add(n, t + 45, "[W init.cpp:767] Warning: nvfuser is no longer supported in torch script, use _jit_disable_nvfuser=True to disable it" if s["stack"] == "cuda"
                    else "[W compiler_depend.ts:623] Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())", rank=job.grank(n))
    elif s["fw"] == "deepspeed":
        job.add(0, t + 40, "[INFO] [comm.py:637:init_distributed] cdb=None", rank=0)
        job.add(0, t + 41, "[INFO] [config.py:1000:print_user_config]   json = {\"train_micro_batch_size_per_gpu\": 1, \"gradient_accumulation_steps\": 4, \"zero_optimization\": {\"stage\": 3, \"overlap_comm\": true}, \"bf16\": {\"enabled\": true}}", rank=0)
        job.add(0, t + 90, "[INFO] [stage3.py:130:__init__] Reduce bucket size 500,000,000", rank=0)
        start = t + 100
    elif s["fw"] == "hf":
        job.add(0, t + 40, "[INFO|trainer.py:2243] %s >> ***** Running training *****" % ts_pyl(t + 40), rank=0)
        job.add(0, t + 40.01, "[INFO|trainer.py:2244] %s >>   Num examples = 1,204,331" % ts_pyl(t + 40), rank=0)
        job.add(0, t + 40.02, "[INFO|trainer.py:2246] %s >>   Instantaneous batch size per device = 2" % ts_pyl(t + 40), rank=0)
        start = t + 50
    elif s["fw"] == "fsdp":
        for n in range(len(job.nodes)):
            job.add(n, t + 40, "[init] FSDP wrap policy=transformer_auto_wrap_policy, sharding=FULL_SHARD, mixed_precision=bf16", rank=job.grank(n))
            job.add(n, t + 41, "/usr/local/lib/python3.10/dist-packages/torch/distributed/fsdp/_init_utils.py:444: UserWarning: FSDP is switching to use `NO_SHARD` instead of ShardingStrategy.FULL_SHARD since the world size is 1." if False else
                    "[init] loaded 32 shards of /data/tokenized/fineweb-edu (1.31B tokens)", rank=job.grank(n))
        start = t + 60
    return start


def reporter(setting, job):
    s = SETTINGS[setting]
    if s["fw"] in ("megatron", "mindspeed"):
        n = len(job.nodes) - 1
        return n, job.grank(n, job.gpn - 1)
    return 0, 0


def side_text_for(setting, job):
    s = SETTINGS[setting]
    if s["stack"] == "ascend":
        return lambda n, it: None
    if s["fw"] == "fsdp":
        return lambda n, it: "[train] step %d | local shard ok | dataloader queue 8/8" % it
    if s["fw"] in ("megatron",):
        def f(n, it):
            if it % 500 == 0:
                return "[Rank %d] (after %d iterations) memory (MB) | allocated: %.1f | max allocated: %.1f | reserved: 61250.0 | max reserved: 61250.0" % (job.grank(n), it, 40000 + job.rng.uniform(-50, 50), 58211.4)
            return None
        return f
    return lambda n, it: None


# ---------------------------------------------------------------------------
# case builder
# ---------------------------------------------------------------------------

class Case:
    def __init__(self, cid, setting, nn, seed):
        self.cid = cid
        self.setting = setting
        self.rng = random.Random("%s-%d" % (cid, seed))
        self.nodes = make_nodes(setting, nn, self.rng)
        t0 = 1714000000 + self.rng.randint(0, 20000000) + self.rng.random()
        self.job = Job(self.rng, self.nodes, SETTINGS[setting]["gpn"], t0)
        self.job.jobid = self.rng.randint(100000, 999999)
        self.label = dict(schema="l4-label/1", setting=setting, stack=SETTINGS[setting]["stack"])
        self.events = []  # (id, key substring)
        self.extra = []
        self.consoles = None
        self.hosts = []

    def ev(self, eid, key):
        self.events.append((eid, key))


def healthy_run(case, it_end, dt=None, save_every=0, slow_from=None, slow_factor=1.0, extra_env=None, it0=1, t_start=None):
    job = case.job
    s = SETTINGS[case.setting]
    start = prologue(case.setting, job, extra_env) if t_start is None else t_start
    rn, rr = reporter(case.setting, job)
    tr = Trainer(job, s["fw"], 250000 if s["fw"] in ("megatron", "mindspeed") else 6000, 1024 if s["fw"] in ("megatron", "mindspeed") else 64,
                 dt or job.rng.uniform(0.8, 2.5))
    side = [n for n in range(len(job.nodes)) if n != rn]
    t = tr.run(rn, rr, start, it0, it_end, save_every=save_every, slow_from=slow_from, slow_factor=slow_factor,
               side_nodes=side, side_every=100, side_text=side_text_for(case.setting, job))
    case.trainer = tr
    case.rep = (rn, rr)
    return t


# ----------------------------- fault scenarios ----------------------------

def peers_watchdog(case, t, skip, seq, lrs=(0,), tag=None, op="ALLREDUCE"):
    job = case.job
    for n in range(len(job.nodes)):
        if n in skip:
            continue
        for lr in lrs:
            watchdog_timeout(job, n, lr, t + job.rng.uniform(0, 2), seq, op=op, tag=tag)


def f_ib_completion(case):
    job, r = case.job, case.rng
    fi = r.randint(1800, 3200)
    t = healthy_run(case, fi, save_every=500)
    bad = r.randint(1, len(job.nodes) - 2)
    lr = r.randint(0, 7)
    g = job.grank(bad, lr)
    h = job.nodes[bad]["host"]
    peer = job.nodes[bad + 1]["ip"]
    for k in range(3):
        tt = t + 5 + k * 0.002
        job.add(bad, tt, "%s:%d:%d [%d] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 opcode=%d len=%d vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s" % (
            h, 61234 + lr, 61990 + lr, lr, peer, 44206 + k, [0, 32656, 1][k], [0, 32659, 65536][k], job.nodes[bad]["ip"], peer), tag="e1", rank=g)
        job.add(bad, tt + 0.0001, "%s:%d:%d [%d] NCCL INFO transport/net.cc:1298 -> 6" % (h, 61234 + lr, 61990 + lr, lr), rank=g)
        job.add(bad, tt + 0.0002, "%s:%d:%d [%d] NCCL INFO proxy.cc:694 -> 6" % (h, 61234 + lr, 61990 + lr, lr), rank=g)
        job.add(bad, tt + 0.0003, "%s:%d:%d [%d] NCCL INFO proxy.cc:874 -> 6 [Progress Thread]" % (h, 61234 + lr, 61990 + lr, lr), rank=g)
    job.add(bad, t + 6, "[rank%d]:[%s ProcessGroupNCCL.cpp:1664] [PG 0 Rank %d] Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error, NCCL version 2.21.5" % (g, ts_torch_e(t + 6), g), tag="e2", rank=g)
    job.add(bad, t + 6.001, "ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.", rank=g)
    seq = fi * 3 + 11
    for n in range(len(job.nodes)):
        if n != bad:
            watchdog_timeout(job, n, 0, t + 600 + r.uniform(0, 3), seq)
    slurm_tail(job, t + 610, h, g, job.jobid)
    case.label.update(category="hardware", subcategory="network", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad, lr)])
    case.hosts = [h]
    case.ev("e1", "NCCL WARN NET/IB : Got completion from peer")
    case.ev("e2", "Process group watchdog thread terminated with exception: NCCL error: remote process exited or there was a network error")
    case.label["root_cause"] = "The InfiniBand link of %s failed mid-training (work completion status 12, transport retry counter exceeded), so NCCL aborted the collective and the peers timed out." % h
    case.label["remediation"] = "Drain %s, check the HCA port, cable and switch counters (ibstat, perfquery) and resume the job from the last checkpoint without that node." % h


def f_xid79(case):
    job, r = case.job, case.rng
    fi = r.randint(900, 2600)
    t = healthy_run(case, fi, save_every=500)
    bad = r.randint(0, len(job.nodes) - 2)
    h = job.nodes[bad]["host"]
    pci = "0000:%02x:00" % r.choice([0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb])
    job.add(bad, t + 1, "[node-agent] kernel: NVRM: GPU at PCI:%s: GPU-ccdb674e-0f5b-c678-9099-59940ccd%04x" % (pci, r.randint(0, 65535)))
    job.add(bad, t + 1.001, "[node-agent] kernel: NVRM: Xid (PCI:%s): 79, pid=%d, name=python3, GPU has fallen off the bus." % (pci, 41000 + r.randint(0, 999)), tag="e1")
    job.add(bad, t + 1.002, "[node-agent] kernel: NVRM: GPU %s.0: GPU has fallen off the bus." % pci, tag="e2")
    job.add(bad, t + 1.003, "[node-agent] kernel: NVRM: GPU %s.0: GPU serial number is 1654321098765." % pci)
    job.add(bad, t + 1.004, "[node-agent] kernel: NVRM: kgspRcAndNotifyAllChannels_IMPL: RC all channels for critical error 79.")
    lr = r.randint(0, 7)
    launcher_teardown(job, bad, t + 45, lr, exitcode=-6)
    seq = fi * 3 + 5
    for n in range(len(job.nodes)):
        if n != bad:
            watchdog_timeout(job, n, 0, t + 600 + r.uniform(0, 2), seq)
            launcher_teardown(job, n, t + 603, 0, exitcode=-6)
    case.label.update(category="hardware", subcategory="accelerator", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h]
    case.ev("e1", "79, pid=")
    case.ev("e2", ".0: GPU has fallen off the bus.")
    case.label["root_cause"] = "A GPU on %s dropped off the PCIe bus (Xid 79), killing its rank and leaving every other rank blocked in the next all-reduce until the NCCL watchdog fired." % h
    case.label["remediation"] = "Cordon %s, reseat or replace the GPU (check power and thermals), and restart from the last checkpoint on healthy nodes." % h


def f_ecc(case, restart=False):
    job, r = case.job, case.rng
    s = SETTINGS[case.setting]
    bad = r.randint(1, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    lr = r.randint(0, 7)
    g = job.grank(bad, lr)

    def crash(t, fi, tagp):
        job.add(bad, t, "[rank%d]: RuntimeError: CUDA error: uncorrectable ECC error encountered" % g, tag="e1", rank=g)
        job.add(bad, t + 0.001, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.", rank=g)
        job.add(bad, t + 0.002, "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.", rank=g)
        job.add(bad, t + 0.003, "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.", rank=g)
        job.add(bad, t + 0.01, "[E ProcessGroupNCCL.cpp:916] [Rank %d] NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered" % g, tag="e2", rank=g)
        job.add(bad, t + 0.011, "Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):", rank=g)
        job.add(bad, t + 0.012, "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7a71e4e84617 in /usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)", rank=g)

    if not restart:
        fi = r.randint(400, 1600)
        t = healthy_run(case, fi, save_every=200 if s["fw"] == "fsdp" else 500)
        crash(t + 2, fi, "")
        peers_watchdog(case, t + 600, {bad}, fi * 4 + 7, op="_ALLGATHER_BASE")
        its = [fi]
    else:
        fi1 = r.randint(700, 1200)
        t = healthy_run(case, fi1, save_every=500)
        crash(t + 2, fi1, "")
        seq = fi1 * 3 + 9
        for n in range(len(job.nodes)):
            if n != bad:
                watchdog_timeout(job, n, 0, t + 600 + r.uniform(0, 2), seq)
        slurm_tail(job, t + 606, h, g, job.jobid)
        t1 = t + 700
        # second attempt (requeue) starting from checkpoint 500
        t2 = t1 + 3600
        job2 = job.jobid + r.randint(3, 40)
        case.consoles = [("slurm-%d.out" % job.jobid, list(range(len(job.nodes))), 0, t1), ("slurm-%d.out" % job2, list(range(len(job.nodes))), t1, 1e12)]
        for n in range(len(job.nodes)):
            env_dump(job, n, t2 + r.uniform(0, 2), "cuda")
            nccl_init(job, n, t2 + 20, lranks=(0,))
        job.add(len(job.nodes) - 1, t2 + 60, "loading checkpoint from /mnt/ckpt/run-2417 at iteration 500", rank=case.rep[1])
        job.add(len(job.nodes) - 1, t2 + 120, "  successfully loaded checkpoint from /mnt/ckpt/run-2417 [ t 0/8, p 0/4 ] at iteration 500", rank=case.rep[1])
        fi2 = 500 + r.randint(150, 400)
        t3 = case.trainer.run(case.rep[0], case.rep[1], t2 + 130, 501, fi2)
        crash(t3 + 2, fi2, "")
        for n in range(len(job.nodes)):
            if n != bad:
                watchdog_timeout(job, n, 0, t3 + 600 + r.uniform(0, 2), fi2 * 3 + 1)
        slurm_tail(job, t3 + 606, h, g, job2)
        its = [fi2, fi1]
    case.label.update(category="hardware", subcategory="accelerator", symptom="training_crash", stage="training",
                      iterations=its, faulty_nodes=[node_label(case.setting, job, bad, lr)] if not restart else
                      ["slurm-%d/rank%d" % (job.jobid, g), "slurm-%d/rank%d" % (job2, g)])
    case.hosts = [h]
    case.ev("e1", "RuntimeError: CUDA error: uncorrectable ECC error encountered")
    case.ev("e2", "NCCL watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered")
    case.label["root_cause"] = "GPU %d of %s hit an uncorrectable (double-bit) ECC memory error%s, which aborted rank %d and hung the collectives of all other ranks." % (lr, h, " in both the original run and the requeued run" if restart else "", g)
    case.label["remediation"] = "Take GPU %d of %s out of service (check nvidia-smi -q -d ECC / row remapping, reset or RMA the GPU) and resume from the last checkpoint elsewhere." % (lr, h)


def f_nvlink(case):
    job, r = case.job, case.rng
    fi = r.randint(300, 900)
    t = healthy_run(case, fi, save_every=250)
    bad = 1
    lr = r.randint(1, 7)
    g = job.grank(bad, lr)
    h = job.nodes[bad]["host"]
    job.add(bad, t + 0.5, "[node-agent] kernel: NVRM: Xid (PCI:0000:%02x:00): 74, pid=%d, name=python3, NVLink: fatal error detected on link 7(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)" % (0x18 + lr * 0x10, 77120 + lr), tag="e1", rank=g)
    job.add(bad, t + 1, "RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution", tag="e2", rank=g)
    job.add(bad, t + 1.001, "CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.", rank=g)
    job.add(bad, t + 1.002, "For debugging consider passing CUDA_LAUNCH_BLOCKING=1.", rank=g)
    for lr2 in range(8):
        if lr2 != lr:
            watchdog_timeout(job, 0 if lr2 % 2 else 1, lr2, t + 1800 + r.uniform(0, 1), fi * 6 + 2, op="_REDUCE_SCATTER_BASE", numel=544997376, timeout_ms=1800000)
    launcher_teardown(job, bad, t + 1805, lr, exitcode=1, script="train_mixtral.py")
    launcher_teardown(job, 0, t + 1806, 0, exitcode=-6, script="train_mixtral.py")
    case.label.update(category="hardware", subcategory="accelerator", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad, lr)])
    case.hosts = [h]
    case.ev("e1", "NVLink: fatal error detected on link")
    case.ev("e2", "uncorrectable NVLink error detected during the execution")
    case.label["root_cause"] = "An NVLink fault on GPU %d of %s (Xid 74) corrupted intra-node traffic and aborted that rank; the others blocked in reduce-scatter until the 30-minute timeout." % (lr, h)
    case.label["remediation"] = "Run nvidia-smi nvlink -e / field diagnostics on %s, replace the faulty GPU or baseboard, and restart the job from the last checkpoint." % h


def f_silent_hang(case):
    """One node stops logging (kernel soft lockup); peers time out. Only evidence: peer timeouts + last-iteration gap."""
    job, r = case.job, case.rng
    fi = r.randint(1500, 4000)
    t = healthy_run(case, fi, save_every=1000)
    bad = r.randint(1, len(job.nodes) - 2)
    h = job.nodes[bad]["host"]
    seq = fi * 3 + 14
    peers_watchdog(case, t + 1800, {bad}, seq, tag="e1")
    for n in range(len(job.nodes)):
        if n != bad:
            launcher_teardown(job, n, t + 1804 + r.uniform(0, 1), 0, exitcode=-6)
    case.label.update(category="hardware", subcategory="node", symptom="abnormal_behavior", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h]
    case.label["accept"] = ["hardware/node", "hardware/network"]
    case.ev("e1", "Watchdog caught collective operation timeout")
    case.label["root_cause"] = "Node %s froze (no further output, no watchdog report of its own) so every other node waited on its all-reduce contribution until the 30-minute NCCL timeout." % h
    case.label["remediation"] = "Check %s's BMC/kernel logs for a soft lockup or hang, drain it, and restart from the last checkpoint; lower the collective timeout to fail faster." % h


def f_thermal_slowdown(case):
    job, r = case.job, case.rng
    s = SETTINGS[case.setting]
    slow = r.randint(800, 1500)
    fi = slow + r.randint(400, 900)
    bad = r.randint(0, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    t = healthy_run(case, fi, save_every=500, slow_from=slow, slow_factor=2.6)
    # periodic node-agent DCGM style lines on all nodes; faulty one shows HW slowdown
    tt = job.t0 + 200
    k = 0
    while tt < t:
        for n in range(len(job.nodes)):
            if n == bad and tt > case.slow_t:
                job.add(n, tt + r.uniform(0, 5), "[gpu-monitor] GPU 5: temp=%dC power=%dW sm_clock=%dMHz clocks_event_reasons: HW Slowdown: Active, HW Thermal Slowdown: Active" % (r.randint(91, 95), r.randint(300, 420), r.randint(900, 1100)), tag="e1")
            elif k % 4 == 0:
                job.add(n, tt + r.uniform(0, 5), "[gpu-monitor] all 8 GPUs nominal: max_temp=%dC sm_clock=1980MHz" % r.randint(60, 72))
        tt += 300
        k += 1
    job.add(0, t + 30, "slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***" % (job.jobid, job.nodes[0]["host"], ts_slurm(t + 30)) if s["kind"] == "console_srun" else
            "W%s 9001 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % ts_glog(t + 30)[1:])
    case.label.update(category="hardware", subcategory="accelerator", symptom="abnormal_behavior", stage="training",
                      iterations=[slow], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h]
    case.ev("e1", "HW Slowdown: Active")
    case.label["root_cause"] = "GPU 5 on %s went into hardware thermal slowdown, making it a straggler that more than doubled the iteration time of the whole synchronous job until the user cancelled it." % h
    case.label["remediation"] = "Inspect cooling and fans of %s (nvidia-smi -q -d PERFORMANCE,TEMPERATURE), exclude it and resume from the last checkpoint." % h


def f_cuda_oom(case):
    job, r = case.job, case.rng
    fi = r.randint(20, 300)
    t = healthy_run(case, fi, save_every=0)
    for n in range(len(job.nodes)):
        for lr in range(0, 8, 3):
            g = job.grank(n, lr)
            tt = t + 2 + r.uniform(0, 0.5)
            job.add(n, tt, "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU %d has a total capacity of 79.10 GiB of which 2.41 GiB is free. Including non-PyTorch memory, this process has 76.68 GiB memory in use. Of the allocated memory 71.90 GiB is allocated by PyTorch, and 3.27 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % lr, tag="e1", rank=g)
        launcher_teardown(job, n, t + 5, 0, exitcode=1, script="train_sft.py")
    case.label.update(category="user", subcategory="configuration", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "torch.OutOfMemoryError: CUDA out of memory.")
    case.label["root_cause"] = "The batch with the longest packed sequences exceeded GPU memory on every rank at the same step: per-device batch size and max sequence length are too large for the model without activation checkpointing."
    case.label["remediation"] = "Reduce per-device batch size or max_seq_length, or enable gradient checkpointing, then relaunch."


def f_driver_old(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    bad = r.randint(0, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    t = job.t0 + 25
    for lr in range(8):
        g = job.grank(bad, lr)
        job.add(bad, t + lr * 0.01, "/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py:129: UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver. (Triggered internally at ../c10/cuda/CUDAFunctions.cpp:108.)", tag="e1", rank=g)
    g = job.grank(bad, 0)
    job.add(bad, t + 1, "[rank%d]: RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver." % g, tag="e2", rank=g)
    launcher_teardown(job, bad, t + 3, 0, exitcode=1, script="train_fsdp.py", others=True)
    for n in range(len(job.nodes)):
        if n != bad:
            job.add(n, t + 1800 + r.uniform(0, 2), "[rank%d]: torch.distributed.DistBackendError: [%d] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout" % (job.grank(n), job.grank(n)), rank=job.grank(n))
    case.label.update(category="platform", subcategory="platform_configuration", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[node_label(case.setting, job, bad)])
    case.label["accept"] = ["platform/platform_configuration", "user/software_incompatibility"]
    case.hosts = [h]
    case.ev("e1", "CUDA initialization: The NVIDIA driver on your system is too old (found version 11040)")
    case.ev("e2", "RuntimeError: The NVIDIA driver on your system is too old")
    case.label["root_cause"] = "The pod landed on %s, a node still on the CUDA 11.4 driver, while the image ships a CUDA 12 PyTorch build, so CUDA could not initialise there and the other workers timed out waiting for it." % h
    case.label["remediation"] = "Upgrade the driver on that node (or pin the job to the upgraded node pool with a node selector) and relaunch."


def f_flash_attn(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    t = job.t0 + 30
    for n in range(len(job.nodes)):
        for lr in (0, 7):
            g = job.grank(n, lr)
            job.add(n, t + r.uniform(0, 1), "[rank%d]: RuntimeError: Failed to import transformers.models.qwen2.modeling_qwen2 because of the following error (look up to see its traceback):" % g, rank=g)
            job.add(n, t + 1.2, "[rank%d]: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol: _ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE" % g, tag="e1", rank=g)
        launcher_teardown(job, n, t + 4, 0, exitcode=1, script="train_sft.py")
    case.label.update(category="user", subcategory="software_incompatibility", symptom="launching_failure", stage="model_loading",
                      iterations=[], faulty_nodes=[])
    case.label["accept"] = ["user/software_incompatibility"]
    case.hosts = []
    case.ev("e1", "flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: undefined symbol")
    case.label["root_cause"] = "The flash-attn wheel in the environment was built against a different PyTorch ABI than the installed torch, so importing the model's attention module failed on every rank."
    case.label["remediation"] = "Reinstall flash-attn built for the installed torch/CUDA version (or pin torch to the version the wheel targets) and relaunch."


def f_ckpt_nospace(case):
    job, r = case.job, case.rng
    fi = r.choice([1000, 1500, 2000, 2500])
    t = healthy_run(case, fi - 1, save_every=500, dt=r.uniform(1.0, 1.6))
    t = case.trainer.run(0, 0, t, fi, fi)
    job.add(0, t + 0.01, "[INFO] [logging.py:96:log_dist] [Rank 0] Saving model checkpoint: /ckpt/mixtral/global_step%d/mp_rank_00_model_states.pt" % fi, rank=0)
    job.add(0, t + 0.02, "[INFO] [torch_checkpoint_engine.py:21:save] [Torch] Saving /ckpt/mixtral/global_step%d/zero_pp_rank_0_mp_rank_00_optim_states.pt..." % fi, rank=0)
    tb = ["Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 628, in save',
          "    _save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)",
          '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 862, in _save',
          "    zip_file.write_record(name, storage, num_bytes)",
          "RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data/%d: file write failed" % r.randint(100, 400),
          "",
          "During handling of the above exception, another exception occurred:",
          "",
          "Traceback (most recent call last):",
          '  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py", line 3264, in _save_zero_checkpoint',
          "    self.checkpoint_engine.save(zero_sd, zero_checkpoint_name)",
          "OSError: [Errno 28] No space left on device: '/ckpt/mixtral/global_step%d/zero_pp_rank_0_mp_rank_00_optim_states.pt'" % fi]
    for i, l in enumerate(tb):
        tag = "e1" if "PytorchStreamWriter failed writing file" in l else ("e2" if "No space left on device" in l else None)
        job.add(0, t + 30 + i * 0.0001, l, rank=0, tag=tag)
    # other ranks also write their zero shards in host_dirs layout
    for lr in (3, 5):
        for l in tb[-1:]:
            job.add(1, t + 31 + lr * 0.01, l.replace("zero_pp_rank_0", "zero_pp_rank_%d" % (8 + lr)), rank=8 + lr, tag="e2")
    launcher_teardown(job, 0, t + 35, 0, exitcode=1, script="train_mixtral.py")
    watchdog_timeout(job, 1, 0, t + 630, fi * 9 + 1, op="ALLGATHER", numel=1)
    launcher_teardown(job, 1, t + 633, 0, exitcode=-6, script="train_mixtral.py")
    case.label.update(category="platform", subcategory="resource_management", symptom="training_crash", stage="checkpoint",
                      iterations=[fi], faulty_nodes=[])
    case.label["accept"] = ["platform/resource_management", "hardware/storage"]
    case.hosts = []
    case.ev("e1", "PytorchStreamWriter failed writing file data/")
    case.ev("e2", "No space left on device")
    case.label["root_cause"] = "The shared checkpoint volume ran out of space while the ZeRO optimizer shards of step %d were being written, so torch.save failed with ENOSPC." % fi
    case.label["remediation"] = "Free space or raise the quota on /ckpt (keep fewer old checkpoints), then resume from the last complete checkpoint."


def f_lustre_io(case):
    job, r = case.job, case.rng
    fi = r.randint(2000, 5000)
    t = healthy_run(case, fi, save_every=1000)
    bad = r.randint(1, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    lr = r.randint(0, 7)
    g = job.grank(bad, lr)
    shard = "/lustre/fs1/datasets/pile_dedup/tokenized/shard_%05d.bin" % r.randint(0, 2000)
    job.add(bad, t + 1, "[node-agent] kernel: LustreError: 11-0: fs1-OST002a-osc-ffff9a53c2e1b000: operation ost_read to node 10.50.1.12@o2ib failed: rc = -5", tag="e1")
    for k in range(2):
        job.add(bad, t + 2 + k, "OSError: [Errno 5] Input/output error: '%s'" % shard, tag="e2", rank=job.grank(bad, (lr + k) % 8))
    job.add(bad, t + 3.5, "[rank%d]: OSError: Caught OSError in DataLoader worker process 3." % g, rank=g)
    for n in range(len(job.nodes)):
        if n != bad:
            watchdog_timeout(job, n, 0, t + 600 + r.uniform(0, 2), fi * 3 + 1)
    case.label.update(category="hardware", subcategory="storage", symptom="training_crash", stage="data_loading",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h]
    case.ev("e1", "LustreError: 11-0:")
    case.ev("e2", "OSError: [Errno 5] Input/output error:")
    case.label["root_cause"] = "The Lustre client on %s lost its OST connection and returned EIO while a dataloader worker read a data shard, crashing that rank." % h
    case.label["remediation"] = "Check the Lustre client and OST health for %s (lctl, dmesg), remount or drain the node, and resume from the last checkpoint." % h


def f_shm_bus(case):
    job, r = case.job, case.rng
    fi = r.randint(1, 40)
    t = healthy_run(case, fi)
    for n in range(len(job.nodes)):
        g = job.grank(n, r.randint(0, 7))
        job.add(n, t + 1 + r.uniform(0, 2), "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).", tag="e1", rank=g)
        job.add(n, t + 4, "RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." % r.randint(200, 900), tag="e2", rank=g)
        launcher_teardown(job, n, t + 6, g % 8, exitcode=1, script="train_fsdp.py")
    case.label.update(category="platform", subcategory="platform_configuration", symptom="training_crash", stage="data_loading",
                      iterations=[fi], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "Unexpected bus error encountered in worker")
    case.ev("e2", "is killed by signal: Bus error")
    case.label["root_cause"] = "The training pods run with the container default 64 MB /dev/shm, too small for the DataLoader workers' shared-memory batches, so workers died with SIGBUS on every pod."
    case.label["remediation"] = "Mount a memory-backed emptyDir at /dev/shm (or raise shm size) in the pod spec, or reduce num_workers, and relaunch."


def f_evicted(case):
    job, r = case.job, case.rng
    fi = r.randint(600, 2000)
    t = healthy_run(case, fi, save_every=200)
    bad = r.randint(1, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    kn = job.nodes[bad]["k8snode"]
    tz = lambda x: _time.strftime("%Y-%m-%dT%H:%M:%SZ", _tm(x))

    def events():
        out = []
        out.append(("LAST SEEN              TYPE      REASON      OBJECT                     MESSAGE", None, "events"))
        for n in range(len(job.nodes)):
            out.append(("%s   Normal    Scheduled   pod/%s   Successfully assigned train/%s to %s" % (tz(job.t0 - 30), job.nodes[n]["host"], job.nodes[n]["host"], job.nodes[n]["k8snode"]), None, "events"))
            out.append(("%s   Normal    Started     pod/%s   Started container pytorch" % (tz(job.t0 - 5), job.nodes[n]["host"]), None, "events"))
        out.append(("%s   Warning   EvictionThresholdMet   node/%s   Attempting to reclaim ephemeral-storage" % (tz(t - 40), kn), None, "events"))
        out.append(("%s   Warning   Evicted     pod/%s   The node was low on resource: ephemeral-storage. Threshold quantity: 21474836480, available: 20127744Ki. Container pytorch was using 187431204Ki, request is 0, has larger consumption of ephemeral-storage." % (tz(t), h), "e1", "events"))
        out.append(("%s   Normal    Killing     pod/%s   Stopping container pytorch" % (tz(t + 1), h), None, "events"))
        for n in range(len(job.nodes)):
            if n != bad:
                out.append(("%s   Normal    Killing     pod/%s   Stopping container pytorch" % (tz(t + 700), job.nodes[n]["host"]), None, "events"))
        return out
    case.extra.append(("events.txt", events))
    for n in range(len(job.nodes)):
        if n != bad:
            watchdog_timeout(job, n, 0, t + 600 + r.uniform(0, 2), fi * 5 + 2, op="_ALLGATHER_BASE", numel=262144000)
            launcher_teardown(job, n, t + 603, 0, exitcode=-6, script="train_fsdp.py")
    case.label.update(category="platform", subcategory="resource_management", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h, kn]
    case.ev("e1", "The node was low on resource: ephemeral-storage")
    case.label["root_cause"] = "Pod %s wrote checkpoints/cache to container ephemeral storage until kubelet on %s evicted it, killing that worker without any error in its own log." % (h, kn)
    case.label["remediation"] = "Write checkpoints and caches to a mounted persistent volume (or set an ephemeral-storage request/limit) and restart from the last checkpoint."


def f_node_failure(case):
    job, r = case.job, case.rng
    fi = r.randint(2000, 4500)
    t = healthy_run(case, fi, save_every=500)
    bad = r.randint(1, len(job.nodes) - 2)
    h = job.nodes[bad]["host"]
    job.add(0, t + 300, "srun: error: Node failure on %s" % h, tag="e1")
    job.add(0, t + 300.1, "srun: error: Node failure on %s" % h, tag="e1")
    job.add(0, t + 300.2, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO NODE FAILURE, SEE SLURMCTLD LOG FOR DETAILS ***" % (job.jobid, job.nodes[0]["host"], ts_slurm(t + 300.2)), tag="e2")
    for n in range(len(job.nodes)):
        if n != bad and n % 3 == 0:
            watchdog_timeout(job, n, 0, t + 299 + r.uniform(0, 1), fi * 3 + 2)
    job.add(0, t + 330, "srun: error: %s: tasks %d-%d: Killed" % (h, job.grank(bad), job.grank(bad, 7)))
    case.label.update(category="hardware", subcategory="node", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h]
    case.ev("e1", "srun: error: Node failure on")
    case.ev("e2", "DUE TO NODE FAILURE")
    case.label["root_cause"] = "Compute node %s went down (slurmd stopped responding), so Slurm cancelled the job step; the node's ranks simply stopped logging." % h
    case.label["remediation"] = "Have the admins inspect %s (BMC/IPMI logs, kernel crash dump), keep it drained, and requeue from the last checkpoint with --exclude." % h


def f_cgroup_oom(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    bad = 0
    h = job.nodes[bad]["host"]
    t = job.t0 + 150
    last = len(job.nodes) - 1
    job.add(last, t - 60, "loading checkpoint from /mnt/ckpt/run-2417 at iteration 12000", rank=case.job.grank(last, 7))
    job.add(bad, t, "slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed." % job.jobid, tag="e1")
    job.add(bad, t + 0.2, "srun: error: %s: task 3: Out Of Memory" % h, tag="e2")
    job.add(bad, t + 0.3, "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.")
    job.add(bad, t + 0.4, "slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***" % (job.jobid, h, ts_slurm(t + 0.4)))
    job.add(bad, t + 34, "srun: error: %s: tasks 0-2,4-7: Terminated" % h)
    case.label.update(category="user", subcategory="configuration", symptom="training_crash", stage="model_loading",
                      iterations=[], faulty_nodes=[node_label(case.setting, job, bad, 3)])
    case.label["accept"] = ["user/configuration", "platform/resource_management"]
    case.hosts = [h]
    case.ev("e1", "oom_kill event in StepId")
    case.ev("e2", "task 3: Out Of Memory")
    case.label["root_cause"] = "While resuming from iteration 12000 all eight ranks on %s loaded the full unsharded checkpoint into host RAM at once, exceeding the job's cgroup memory limit so the kernel OOM-killed task 3." % h
    case.label["remediation"] = "Request more host memory (--mem) or load the checkpoint rank by rank / with mmap, then resubmit."


def f_rdzv_timeout(case):
    job, r = case.job, case.rng
    t = job.t0
    stale = "10.8.0.%d" % r.randint(120, 200)
    for n in range(len(job.nodes)):
        env_dump(job, n, t, "cuda")
        torchrun_banner(job, n, t + 0.1)
    for n in range(len(job.nodes)):
        job.add(n, t + 0.2, "+ torchrun --nnodes=%d --nproc-per-node=8 --rdzv-backend=c10d --rdzv-endpoint=%s:29500 --rdzv-id=qwen7b-sft train_sft.py --config sft.yaml" % (len(job.nodes), stale))
        job.add(n, t + 900, "[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:29500 (errno: 110 - Connection timed out)." % stale)
        job.add(n, t + 900.1, "torch.distributed.DistNetworkError: The client socket has timed out after 900000ms while trying to connect to (%s, 29500)." % stale, tag="e1")
        job.add(n, t + 900.2, "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed. See inner exception for details.", tag="e2")
    case.label.update(category="user", subcategory="misoperation", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[])
    case.label["accept"] = ["user/misoperation", "user/configuration"]
    case.hosts = []
    case.ev("e1", "The client socket has timed out after 900000ms while trying to connect to")
    case.ev("e2", "The connection to the C10d store has failed")
    case.label["root_cause"] = "The launch script was reused with a hard-coded rendezvous endpoint %s from an earlier allocation, a host that is not part of this job, so no node could reach the c10d store." % stale
    case.label["remediation"] = "Derive the rendezvous endpoint from the current allocation (first host of the job) instead of hard-coding it, and relaunch."


def f_socket_ifname(case):
    job, r = case.job, case.rng
    t = job.t0
    for n in range(len(job.nodes)):
        env_dump(job, n, t + r.uniform(0, 2), "cuda", extra="eth0")
    last = len(job.nodes) - 1
    megatron_setup(job, last, job.grank(last, 7), t + 30)
    for n in range(len(job.nodes)):
        h = job.nodes[n]["host"]
        for lr in (0,):
            g = job.grank(n, lr)
            p = 33100 + n
            job.add(n, t + 40, "%s:%d:%d [%d] NCCL INFO NCCL_SOCKET_IFNAME set by environment to eth0" % (h, p, p, lr), rank=g)
            job.add(n, t + 40.01, "%s:%d:%d [%d] misc/socket.cc:484 NCCL WARN Bootstrap : no socket interface found" % (h, p, p, lr), tag="e1", rank=g)
            job.add(n, t + 40.02, "%s:%d:%d [%d] NCCL INFO init.cc:109 -> 5" % (h, p, p, lr), rank=g)
            job.add(n, t + 41, "[rank%d]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, invalid usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5" % g, tag="e2", rank=g)
            job.add(n, t + 41.01, "[rank%d]: ncclInvalidUsage: This usually reflects invalid usage of NCCL library." % g, rank=g)
    slurm_tail(job, t + 44, job.nodes[0]["host"], 0, job.jobid)
    case.label.update(category="platform", subcategory="platform_configuration", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[])
    case.label["accept"] = ["platform/platform_configuration", "user/configuration"]
    case.hosts = []
    case.ev("e1", "NCCL WARN Bootstrap : no socket interface found")
    case.ev("e2", "invalid usage (run with NCCL_DEBUG=WARN for details)")
    case.label["root_cause"] = "The cluster-wide module sets NCCL_SOCKET_IFNAME=eth0 but these nodes name their interfaces bond0/ens*, so NCCL found no bootstrap interface and communicator init failed on every rank."
    case.label["remediation"] = "Set NCCL_SOCKET_IFNAME to the real interface (bond0) or unset it in the cluster module, then resubmit."


def f_nan_sdc(case):
    job, r = case.job, case.rng
    fi = r.randint(3000, 6000)
    t = healthy_run(case, fi, save_every=1000)
    bad = r.randint(0, len(job.nodes) - 1)
    lr = r.randint(0, 7)
    g = job.grank(bad, lr)
    h = job.nodes[bad]["host"]
    nxt = fi + 1
    job.add(bad, t + 1, "ERROR:megatron.core.rerun_state_machine:Unexpected result nan on rank %d at iteration #%d invocation #1 (message='found NaN in local grad norm for bucket #0 in backward pass before data-parallel communication collective')" % (g, nxt), tag="e1", rank=g)
    job.add(bad, t + 9, "ERROR:megatron.core.rerun_state_machine:Rank %d, node %s, device %d, iteration #%d: First rerun: unexpected result is reproducible within the tolerance (nan = nan). Need to rerun on a different GPU to verify correctness" % (g, h, lr, nxt), tag="e2", rank=g)
    for n in range(len(job.nodes)):
        launcher_teardown(job, n, t + 40, 0, exitcode=16, others=False)
    case.label.update(category="hardware", subcategory="accelerator", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad, lr)])
    case.label["accept"] = ["hardware/accelerator"]
    case.hosts = [h]
    case.ev("e1", "found NaN in local grad norm for bucket #0")
    case.ev("e2", "First rerun: unexpected result is reproducible")
    case.label["root_cause"] = "Only GPU %d of %s produced a NaN gradient norm, reproducibly on re-run of the same step while all other ranks were finite, pointing to silent data corruption in that device; Megatron's rerun state machine stopped the job to re-validate on other hardware." % (lr, h)
    case.label["remediation"] = "Quarantine GPU %d of %s, run DCGM diagnostics level 3 on it, and resume from the last checkpoint without it." % (lr, h)


def f_nan_lr(case):
    job, r = case.job, case.rng
    s = SETTINGS[case.setting]
    fi = r.randint(180, 400)
    t = prologue(case.setting, job)
    rn, rr = reporter(case.setting, job)
    tr = Trainer(job, s["fw"], 250000, 1024, r.uniform(2, 4), lr0=0.03)
    case.trainer = tr
    case.rep = (rn, rr)
    t = tr.run(rn, rr, t, 1, fi - 3)
    for k, it in enumerate(range(fi - 2, fi + 1)):
        t += 3
        lossv = [11.7, 23.4, float("nan")][k]
        job.add(rn, t, tr.line(it, 3000, loss=lossv, gn=[41.2, 812.5, float("nan")][k], nan=1 if k == 2 else 0), rank=rr)
    for n in range(len(job.nodes)):
        for lr in (0, 4):
            g = job.grank(n, lr)
            job.add(n, t + 2 + r.uniform(0, 0.2), "[rank%d]: AssertionError: Rank %d: found NaN in local grad norm in backward pass before data-parallel communication collective. Device: %d, node: %s" % (g, g, lr, job.nodes[n]["host"]), tag="e1", rank=g)
    for n in range(len(job.nodes)):
        launcher_teardown(job, n, t + 5, 0, exitcode=1)
    case.label.update(category="user", subcategory="configuration", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "found NaN in local grad norm in backward pass before data-parallel communication collective")
    case.label["root_cause"] = "The learning rate was configured two orders of magnitude too high (peak 3e-2 with a short warmup), so the loss and grad norm exploded and gradients became NaN on every rank."
    case.label["remediation"] = "Fix the learning-rate schedule (e.g. peak 3e-4, longer warmup, grad clipping) and restart from the last good checkpoint."


def f_ds_zero3(case):
    job, r = case.job, case.rng
    fi = r.randint(100, 600)
    t = healthy_run(case, fi)
    for n in range(len(job.nodes)):
        for lr in range(0, 8, 2):
            g = job.grank(n, lr)
            job.add(n, t + 3 + r.uniform(0, 0.1), '  File "/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/zero/partitioned_param_coordinator.py", line 338, in fetch_sub_module', rank=g)
            job.add(n, t + 3.1, "    assert param.ds_status == ZeroParamStatus.AVAILABLE, param.ds_summary()", rank=g)
            job.add(n, t + 3.2, "AssertionError: {'id': %d, 'status': 'NOT_AVAILABLE', 'numel': 0, 'ds_numel': 4194304, 'shape': (0,), 'ds_shape': (4096, 1024), 'requires_grad': True, 'grad_shape': None, 'persist': False, 'active_sub_modules': {%d}, 'ds_tensor.shape': torch.Size([262144])}" % (853 + lr, 7 + lr), tag="e1", rank=g)
        launcher_teardown(job, n, t + 6, 0, exitcode=1, script="train_mixtral.py")
    case.label.update(category="framework", subcategory="framework_bug", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.label["accept"] = ["framework/framework_bug", "user/software_incompatibility"]
    case.hosts = []
    case.ev("e1", "AssertionError: {'id':")
    case.label["root_cause"] = "A DeepSpeed ZeRO-3 parameter-prefetch bug left a parameter partitioned when the MoE router skipped an expert's submodule, tripping the ds_status AVAILABLE assertion on all ranks."
    case.label["remediation"] = "Upgrade DeepSpeed to a release with the ZeRO-3 fix (or mark the MoE experts as ZeRO leaf modules / disable prefetch) and restart from the last checkpoint."


def f_eval_bug(case):
    job, r = case.job, case.rng
    fi = r.choice([1000, 2000])
    t = healthy_run(case, fi)
    job.add(0, t + 1, "[INFO|trainer.py:4226] %s >> ***** Running Evaluation *****" % ts_pyl(t + 1), rank=0)
    for n in range(len(job.nodes)):
        for lr in range(0, 8, 4):
            g = job.grank(n, lr)
            L = ["[rank%d]: Traceback (most recent call last):" % g,
                 '[rank%d]:   File "/workspace/sft/metrics.py", line 41, in compute_metrics' % g,
                 "[rank%d]:     acc = (preds == labels).float().mean().item() / valid.sum().item()" % g,
                 "[rank%d]: ZeroDivisionError: float division by zero" % g]
            for i, l in enumerate(L):
                job.add(n, t + 40 + r.uniform(0, 0.2) + i * 0.0001, l, rank=g, tag="e1" if "ZeroDivisionError" in l else None)
        launcher_teardown(job, n, t + 45, 0, exitcode=1, script="train_sft.py")
    case.label.update(category="user", subcategory="script_bug", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "ZeroDivisionError: float division by zero")
    case.label["root_cause"] = "The user's compute_metrics divides by the count of valid label tokens, which is zero for eval shards that contain only prompt tokens, crashing the first evaluation at step %d." % fi
    case.label["remediation"] = "Guard the division in compute_metrics (skip or mask empty batches), test evaluation on a small run, and resume from the last checkpoint."


def f_ckpt_deleted(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    last = len(job.nodes) - 1
    t = job.t0 + 200
    it = r.choice([12000, 14000, 16000])
    for n in range(len(job.nodes)):
        for lr in (0,):
            g = job.grank(n, lr)
            job.add(n, t - 5, "loading checkpoint from /mnt/ckpt/llama13b at iteration %d" % it, rank=g)
            job.add(n, t + r.uniform(0, 1), "[rank%d]: FileNotFoundError: [Errno 2] No such file or directory: '/mnt/ckpt/llama13b/iter_%07d/mp_rank_%02d_%03d/model_optim_rng.pt'" % (g, it, g % 4, g // 32), tag="e1", rank=g)
        launcher_teardown(job, n, t + 4, 0, exitcode=1)
    case.label.update(category="user", subcategory="misoperation", symptom="launching_failure", stage="model_loading",
                      iterations=[], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "FileNotFoundError: [Errno 2] No such file or directory: '/mnt/ckpt/llama13b/iter_")
    case.label["root_cause"] = "latest_checkpointed_iteration.txt still points to iteration %d, whose checkpoint directory had been deleted by hand during a clean-up, so resuming failed on every rank." % it
    case.label["remediation"] = "Point the tracker file at an existing checkpoint (or restore the deleted directory) and relaunch."


def f_gang_pending(case):
    job, r = case.job, case.rng
    # only first half of pods started
    nstart = len(job.nodes) // 2
    tz = lambda x: _time.strftime("%Y-%m-%dT%H:%M:%SZ", _tm(x))
    t = job.t0
    for n in range(nstart):
        env_dump(job, n, t + r.uniform(0, 2), "cuda")
        torchrun_banner(job, n, t + 3)
        job.add(n, t + 4, "[init] waiting for %d nodes to join rendezvous 'llama8b-ft' (joined: %d)" % (len(job.nodes), nstart))
        job.add(n, t + 904, "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError", tag="e2")
    def events():
        out = [("LAST SEEN              TYPE      REASON             OBJECT                     MESSAGE", None, "events")]
        for n in range(len(job.nodes)):
            if n < nstart:
                out.append(("%s   Normal    Scheduled          pod/%s   Successfully assigned train/%s to %s" % (tz(t - 20), job.nodes[n]["host"], job.nodes[n]["host"], job.nodes[n]["k8snode"]), None, "events"))
            else:
                out.append(("%s   Warning   FailedScheduling   pod/%s   0/%d nodes are available: %d Insufficient nvidia.com/gpu. preemption: 0/%d nodes are available: %d No preemption victims found for incoming pod." % (tz(t - 20 + n), job.nodes[n]["host"], 24, 24, 24, 24), "e1", "events"))
        return out
    case.extra.append(("events.txt", events))
    case.label.update(category="platform", subcategory="scheduling", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[])
    case.label["accept"] = ["platform/scheduling", "platform/resource_management"]
    case.hosts = []
    case.ev("e1", "Insufficient nvidia.com/gpu")
    case.ev("e2", "RendezvousTimeoutError")
    case.label["root_cause"] = "The scheduler started only %d of %d worker pods (no gang scheduling) because the GPU pool was full; the started pods waited in rendezvous until it timed out." % (nstart, len(job.nodes))
    case.label["remediation"] = "Submit with gang scheduling (PodGroup / minMember = %d) or wait for capacity, so that all workers start together." % len(job.nodes)


def f_sizemismatch(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    t = job.t0 + 180
    for n in range(len(job.nodes)):
        g = job.grank(n, 0)
        job.add(n, t - 3, "loading checkpoint from /mnt/ckpt/gpt13b-tp4 at iteration 30000", rank=g)
        job.add(n, t, "[rank%d]: RuntimeError: Error(s) in loading state_dict for GPTModel:" % g, tag="e1", rank=g)
        job.add(n, t + 0.001, "[rank%d]: \tsize mismatch for decoder.layers.0.self_attention.linear_qkv.weight: copying a param with shape torch.Size([3840, 5120]) from checkpoint, the shape in current model is torch.Size([1920, 5120])." % g, tag="e2", rank=g)
        launcher_teardown(job, n, t + 3, 0, exitcode=1)
    case.label.update(category="user", subcategory="configuration", symptom="launching_failure", stage="model_loading",
                      iterations=[], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "Error(s) in loading state_dict for GPTModel")
    case.ev("e2", "size mismatch for decoder.layers.0.self_attention.linear_qkv.weight")
    case.label["root_cause"] = "The job resumes a checkpoint saved with tensor-parallel size 4 but is launched with tensor-parallel size 8, so every rank's shard shapes disagree with the checkpoint."
    case.label["remediation"] = "Launch with the checkpoint's parallel layout (TP=4) or convert the checkpoint to TP=8 before resuming."


# ------------------------------- Ascend ----------------------------------

def asc_teardown(job, n, t, script="pretrain_gpt.py"):
    launcher_teardown(job, n, t, 0, exitcode=1, script=script, binary="/usr/local/python3.10/bin/python3")


def f_asc_linkdown(case):
    job, r = case.job, case.rng
    fi = r.randint(1500, 3500)
    t = healthy_run(case, fi, save_every=1000)
    bad = r.randint(1, len(job.nodes) - 2)
    h = job.nodes[bad]["host"]
    ip = job.nodes[bad]["ip"]
    job.add(bad, t - 3, "[node-agent] kernel: hns3 0000:bd:00.0 eth%d: link down" % 3, tag="e1")
    job.add(bad, t - 2.9, "[node-agent] hccn_tool -i 3 -link -g : link status: DOWN", tag="e2")
    for n in range(len(job.nodes)):
        if n == bad:
            continue
        for lr in (0, 3, 6):
            ascend_ei0002(job, n, lr, t + 1800 + r.uniform(0, 3), loc=("%s/%d" % (ip, 3), t + 5), exc="Error cqe Occurred")
        asc_teardown(job, n, t + 1810)
    case.label.update(category="hardware", subcategory="network", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h, ip]
    case.ev("e1", "link down")
    case.ev("e2", "link status: DOWN")
    case.label["root_cause"] = "The RoCE port of NPU 3 on %s (%s) went down, HCCL saw error CQEs on that link and all other ranks timed out in the all-reduce (EI0002) after HCCL_EXEC_TIMEOUT." % (h, ip)
    case.label["remediation"] = "Check the optical module/cable and switch port of NPU 3 on %s (hccn_tool -link, -optical), replace it, and resume from the last checkpoint." % h


def f_asc_heartbeat(case):
    job, r = case.job, case.rng
    fi = r.randint(800, 2500)
    t = healthy_run(case, fi, save_every=500)
    bad = r.randint(1, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    ip = job.nodes[bad]["ip"]
    for n in range(len(job.nodes)):
        if n == bad:
            continue
        for lr in (0, 5):
            ascend_ei0002(job, n, lr, t + 1800 + r.uniform(0, 3), loc=("%s/%d" % (ip, 0), t + 31), exc="Heartbeat Lost Occurred", tag="e1")
        asc_teardown(job, n, t + 1810)
    case.label.update(category="hardware", subcategory="node", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [ip] + ([h] if SETTINGS[case.setting]["kind"] != "msrun" else [])
    case.label["accept"] = ["hardware/node", "hardware/network"]
    case.ev("e1", "EI0002:")
    case.label["root_cause"] = "Node %s (%s) went down abruptly (its log simply stops); HCCL heartbeats from it were lost and every other rank timed out waiting on it." % (h, ip)
    case.label["remediation"] = "Check %s's BMC and OS logs (power, kernel panic), isolate it, and resume from the last checkpoint." % h


def f_npu_oom(case):
    job, r = case.job, case.rng
    fi = r.randint(1, 6)
    t = healthy_run(case, fi)
    stage_nodes = range(0, max(1, len(job.nodes) // 4))
    for n in stage_nodes:
        for lr in range(0, 8, 2):
            g = job.grank(n, lr)
            job.add(n, t + 3 + r.uniform(0, 0.3), "[rank%d]: RuntimeError: NPU out of memory. Tried to allocate 5.03 GiB (NPU %d; 60.96 GiB total capacity; 49.47 GiB already allocated; 49.47 GiB current active; 1.32 GiB free; 57.55 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation." % (g, lr), tag="e1", rank=g)
        asc_teardown(job, n, t + 6)
    case.label.update(category="user", subcategory="configuration", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "RuntimeError: NPU out of memory.")
    case.label["root_cause"] = "The first pipeline stage holds the embedding plus the most in-flight micro-batch activations; with micro-batch 2, seq 8192 and no recomputation it exceeds the 64 GB HBM of the NPUs on those nodes."
    case.label["remediation"] = "Enable activation recomputation or reduce micro-batch size / sequence length (or rebalance pipeline layers) and relaunch."


def aicore_lines(job, n, lr, t, tag):
    g = job.grank(n, lr)
    L = ["[rank%d]: RuntimeError: synchronize:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:361 NPU function error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(stream()), error code is 507015" % g,
         "[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed" % (ts_ascend(t)[:19], 60000 + g, lr, g),
         "EZ9999: Inner Error!",
         "EZ9999[PID: %d] %s (EZ9999):  The error from device(chipId:%d, dieId:0), serial number is %d, there is an exception of aicore error, core id is %d, error code = 0x800000, dump info: pc start: 0x124200000168, current: 0x124200000308, vec error info: 0, mte error info: 0xbd030000e0, ifu error info: 0x1000000000000, ccu error info: 0, cube error info: 0, biu error info: 0, aic error mask: 0x6500020bd00028c, para base: 0x12c100000080.[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:645]" % (60000 + g, ts_ascend(t), lr, 2500 + g, 18),
         "        TraceBack (most recent call last):",
         "       Kernel task happen error, retCode=0x26, [aicore exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1729]"]
    for i, l in enumerate(L):
        job.add(n, t + i * 0.0001, l, rank=g, tag=(tag if i == 3 else ("e2" if i == 5 else None)))


def f_asc_aicore_hw(case):
    job, r = case.job, case.rng
    fi = r.randint(2000, 5000)
    t = healthy_run(case, fi, save_every=1000)
    bad = r.randint(0, len(job.nodes) - 1)
    lr = r.randint(0, 7)
    h = job.nodes[bad]["host"]
    aicore_lines(job, bad, lr, t + 2, "e1")
    for n in range(len(job.nodes)):
        if n != bad:
            ascend_ei0002(job, n, 0, t + 1800 + r.uniform(0, 3))
    case.label.update(category="hardware", subcategory="accelerator", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[node_label(case.setting, job, bad, lr)])
    case.label["accept"] = ["hardware/accelerator", "framework/framework_bug"]
    case.hosts = [h] if SETTINGS[case.setting]["kind"] != "msrun" else [job.nodes[bad]["ip"]]
    if SETTINGS[case.setting]["kind"] == "msrun":
        case.hosts = []
    case.ev("e1", "there is an exception of aicore error")
    case.ev("e2", "Kernel task happen error, retCode=0x26")
    case.label["root_cause"] = "NPU %d of %s raised an AI Core exception in a kernel that had run thousands of times on every device, pointing to a faulty AI Core on that chip; the remaining ranks then timed out." % (lr, h)
    case.label["remediation"] = "Run the device self-check (npu-smi / ascend-dmi) on NPU %d of %s, isolate it and resume from the last checkpoint." % (lr, h)


def f_asc_framework_bug(case):
    job, r = case.job, case.rng
    fi = r.choice([1000, 1500, 2000])
    t = healthy_run(case, fi)
    for n in range(len(job.nodes)):
        g = job.grank(n, 0)
        L = ["[rank%d]: Traceback (most recent call last):" % g,
             '[rank%d]:   File "/workspace/MindSpeed/mindspeed/core/transformer/moe/token_dispatcher.py", line 412, in token_unpermutation' % g,
             "[rank%d]:     output = self.comm_manager.combine(hidden_states, self.cached_global_input_tokens)" % g,
             "[rank%d]: AttributeError: 'MoEAlltoAllSEQTokenDispatcher' object has no attribute 'cached_global_input_tokens'" % g]
        for i, l in enumerate(L):
            job.add(n, t + 5 + i * 0.0001 + r.uniform(0, 0.01), l, rank=g, tag="e1" if i == 3 else None)
        asc_teardown(job, n, t + 8)
    case.label.update(category="framework", subcategory="framework_bug", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "object has no attribute 'cached_global_input_tokens'")
    case.label["root_cause"] = "MindSpeed's all-to-all-seq MoE token dispatcher skips caching its input tokens when a rank receives no tokens for its local experts, then crashes in token_unpermutation on the first such step."
    case.label["remediation"] = "Upgrade MindSpeed to a version with the dispatcher fix (or switch to the alltoall dispatcher) and resume from the last checkpoint."


def f_asc_cann_mismatch(case):
    job, r = case.job, case.rng
    t = job.t0
    for n in range(len(job.nodes)):
        env_dump(job, n, t + r.uniform(0, 2), "ascend")
        torchrun_banner(job, n, t + 3)
        for lr in (0, 1):
            g = job.grank(n, lr)
            L = ["Traceback (most recent call last):",
                 '  File "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/__init__.py", line 17, in <module>',
                 "    import torch_npu.npu",
                 '  File "/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/__init__.py", line 1, in <module>',
                 "    from torch_npu import _C",
                 "ImportError: /usr/local/python3.10/lib/python3.10/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: MsprofSysCycleTime"]
            for i, l in enumerate(L):
                job.add(n, t + 10 + lr * 0.01 + i * 0.0001, l, rank=g, tag="e1" if i == 5 else None)
        asc_teardown(job, n, t + 14)
    case.label.update(category="user", subcategory="software_incompatibility", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "libtorch_npu.so: undefined symbol: MsprofSysCycleTime")
    case.label["root_cause"] = "The image's torch_npu build requires a newer CANN toolkit than the one installed (set_env.sh points to an old CANN), so importing torch_npu fails with an unresolved symbol."
    case.label["remediation"] = "Install the torch_npu version that matches the installed CANN (or upgrade CANN to the matching release) and relaunch."


def f_asc_socket_timeout(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    bad = r.randint(1, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    bip = job.nodes[bad]["ip"]
    t = job.t0 + 300
    for n in range(len(job.nodes)):
        if n == bad:
            continue
        g = job.grank(n, 0)
        src = job.nodes[n]["ip"]
        L = ["[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:816] [%d][Wait][LinkEstablish]wait socket establish timeout, role[0] rank[%d] timeout[120 s]" % (3977573 + n, ts_ascend(t), 3977663 + n, g),
             "[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:880] [%d][Wait][LinksEstablishCompleted] is failed. ret[9]." % (3977573 + n, ts_ascend(t), 3977663 + n),
             "[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:642] [%d] _________________________LINK_ERROR_INFO___________________________" % (3977573 + n, ts_ascend(t), 3977663 + n),
             "[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:643] [%d] | comm error, device[0]" % (3977573 + n, ts_ascend(t), 3977663 + n),
             "[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:645] [%d] | dest_ip(user_rank) | dest_port | src_ip(user_rank) | src_port | MyRole | Status | TlsStatus |" % (3977573 + n, ts_ascend(t), 3977663 + n),
             "[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:599] [%d] | %s(%d) | 16666 | %s(%d) | 0 | client | time out | DISABLE |" % (3977573 + n, ts_ascend(t), 3977663 + n, bip, job.grank(bad), src, g)]
        for i, l in enumerate(L):
            job.add(n, t + i * 0.001, l, rank=g, tag="e1" if i == 0 else None)
        job.add(n, t + 1, "[rank%d]: RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102 HCCL function error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 9" % g, rank=g)
        job.add(n, t + 1.001, "[ERROR] %s (PID:%d, Device:0, RankID:%d) ERR02200 DIST call hccl api failed." % (ts_ascend(t)[:19], 540989 + n, g), rank=g)
        asc_teardown(job, n, t + 3)
    gb = job.grank(bad, 0)
    asc_teardown(job, bad, t + 5)
    case.label.update(category="platform", subcategory="platform_configuration", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[node_label(case.setting, job, bad)])
    case.label["accept"] = ["platform/platform_configuration", "hardware/network"]
    case.hosts = [bip, h]
    case.ev("e1", "wait socket establish timeout")
    case.label["root_cause"] = "Inbound HCCL connections to %s (%s) on port 16666 were blocked (its host firewall/security group was not opened for the HCCL port range), so every peer timed out building links to it." % (h, bip)
    case.label["remediation"] = "Open the HCCL port range (HCCL_IF_BASE_PORT and following) on %s or fix its security group, verify with hccn_tool/telnet, and relaunch." % h


def f_asc_hccp_busy(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    bad = r.randint(1, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    t = job.t0 + 90
    gb = job.grank(bad, 0)
    L = ["[rank%d]: RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64" % gb,
         "[ERROR] %s (PID:%d, Device:0, RankID:%d) ERR02200 DIST call hccl api failed." % (ts_ascend(t)[:19], 927000, gb),
         "EJ0001: %s Failed to initialize the HCCP process. Reason: Maybe the last training process is running." % ts_ascend(t),
         "        Solution: Wait for 10s after killing the last training process and try again.",
         "        TraceBack (most recent call last):",
         "        tsd client wait response fail, device response code[1]. unknown device error.[FUNC:WaitRsp][FILE:process_mode_manager.cpp][LINE:290]"]
    for i, l in enumerate(L):
        job.add(bad, t + i * 0.0001, l, rank=gb, tag="e1" if i == 2 else None)
    asc_teardown(job, bad, t + 2)
    g0 = job.grank(0, 0)
    tt = t + 720
    connected = ",".join("[%016d]" % k for k in range(job.world()) if k != gb)
    job.add(0, tt, "[ERROR] HCCL(10261,python):%s [topoinfo_exchange_server.cc:113] [57044][Get][Connection]topo exchange server get socket timeout! timeout[720 s]" % ts_ascend(tt), rank=g0, tag="e2")
    job.add(0, tt + 0.001, "[ERROR] HCCL(10261,python):%s [topoinfo_exchange_server.cc:240][57044][TopoInfoExchangeServer][DisplayConnectedRank]total connected num is [%d],line num is [1]" % (ts_ascend(tt), job.world() - 1), rank=g0)
    job.add(0, tt + 0.002, "[ERROR] HCCL(10261,python):%s [topoinfo_exchange_server.cc:253][57044][TopoInfoExchangeServer][DisplayConnectedRank]connected rankinfo[LINE 0]: %s;" % (ts_ascend(tt), connected), rank=g0)
    for n in range(len(job.nodes)):
        if n != bad:
            asc_teardown(job, n, tt + 3)
    case.label.update(category="platform", subcategory="resource_management", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[node_label(case.setting, job, bad)])
    case.label["accept"] = ["platform/resource_management", "user/misoperation"]
    case.hosts = [h]
    case.ev("e1", "EJ0001:")
    case.ev("e2", "topo exchange server get socket timeout!")
    case.label["root_cause"] = "On %s a process of the previous (cancelled) training job still held the NPUs, so HCCP could not initialise there and rank %d never joined the root-info exchange." % (h, gb)
    case.label["remediation"] = "Kill the leftover training processes on %s (npu-smi info to find them), make the platform clean up devices on job exit, and relaunch." % h


def f_asc_msrun_data(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    bad = r.randint(1, len(job.nodes) - 1)
    t = job.t0 + 150
    for lr in range(8):
        g = job.grank(bad, lr)
        job.add(bad, t + lr * 0.01, "- ERROR - FileNotFoundError: [Errno 2] No such file or directory: '/data/wiki_zh/mindrecord/wiki_%02d.mindrecord'" % lr, rank=g, tag="e1")
        job.add(0, t + 0.5 + lr * 0.01, "[ERROR] ME(%d:281473296949264,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:268] Worker process %d exit with exception." % (130371, ts_ascend(t + 0.5), 130673 + g), rank="sched")
    tt = t + 300
    job.add(0, tt, "[WARNING] ME(162078:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:318] There's worker exits with exception, kill all other workers." % ts_ascend(tt), rank="sched")
    job.add(0, tt + 26, "[ERROR] ME(162078:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:331] Scheduler process 162146 exit with exception." % ts_ascend(tt + 26), rank="sched")
    job.add(0, tt + 27, "[ERROR] ME(162078:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:431] Time out nodes are [%s]" % (ts_ascend(tt + 27), ", ".join("'%d'" % job.grank(bad, k) for k in range(8))), rank="sched", tag="e2")
    case.label.update(category="platform", subcategory="platform_configuration", symptom="launching_failure", stage="data_loading",
                      iterations=[], faulty_nodes=[node_label(case.setting, job, bad, k) for k in range(8)])
    case.label["accept"] = ["platform/platform_configuration", "hardware/storage"]
    case.hosts = [job.nodes[bad]["host"]]
    case.ev("e1", "FileNotFoundError: [Errno 2] No such file or directory: '/data/wiki_zh/")
    case.ev("e2", "Time out nodes are [")
    case.label["root_cause"] = "The shared dataset volume was not mounted on %s (its /data is empty), so all eight workers of that host failed to open the MindRecord shards and msrun aborted the job." % job.nodes[bad]["host"]
    case.label["remediation"] = "Fix the node's storage mount (fstab / CSI volume) and add a pre-flight data check to the launch script, then relaunch."


def f_asc_yaml_typo(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    t = job.t0 + 70
    for n in range(len(job.nodes)):
        for lr in range(8):
            g = job.grank(n, lr)
            job.add(n, t + r.uniform(0, 0.5), "- ERROR - TypeError: __init__() got an unexpected keyword argument 'use_flash_atention'", rank=g, tag="e1")
    if True:
        job.add(0, t + 200, "[ERROR] ME(162078:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:268] Worker process %d exit with exception." % (ts_ascend(t + 200), 130673), rank="sched")
    case.label.update(category="user", subcategory="configuration", symptom="launching_failure", stage="model_loading",
                      iterations=[], faulty_nodes=[])
    case.label["accept"] = ["user/configuration", "user/script_bug"]
    case.hosts = []
    case.ev("e1", "got an unexpected keyword argument 'use_flash_atention'")
    case.label["root_cause"] = "The model section of the run YAML misspells use_flash_attention, so building the model config fails with an unexpected keyword on every worker."
    case.label["remediation"] = "Correct the key in the YAML (use_flash_attention) and relaunch."


def f_asc_slow_link(case):
    job, r = case.job, case.rng
    slow = r.randint(1000, 2000)
    fi = slow + r.randint(500, 1000)
    bad = r.randint(0, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    t = healthy_run(case, fi, save_every=1000, slow_from=slow, slow_factor=1.9)
    # flapping link on bad node
    t_slow = job.t0 + 300 + slow * case.trainer.dt
    k = 0
    tt = t_slow
    while tt < t:
        job.add(bad, tt, "[node-agent] kernel: hns3 0000:bd:00.0 eth5: link down", tag="e1")
        job.add(bad, tt + r.uniform(2, 8), "[node-agent] kernel: hns3 0000:bd:00.0 eth5: link up")
        tt += r.uniform(200, 500)
        k += 1
    job.add(case.rep[0], t + 60, "W%s 9001 torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, shutting down workers" % ts_glog(t + 60)[1:])
    case.label.update(category="hardware", subcategory="network", symptom="abnormal_behavior", stage="training",
                      iterations=[slow], faulty_nodes=[node_label(case.setting, job, bad)])
    case.hosts = [h]
    case.ev("e1", "eth5: link down")
    case.label["root_cause"] = "The RoCE port eth5 of %s kept flapping, forcing HCCL retransmissions on every all-reduce and nearly doubling the step time of the whole job until it was stopped." % h
    case.label["remediation"] = "Replace the optical module/cable of eth5 on %s (check hccn_tool -link_stat), and resume from the last checkpoint." % h


def f_asc_imbalance(case):
    job, r = case.job, case.rng
    fi = r.randint(3000, 6000)
    t = healthy_run(case, fi, save_every=1000)
    for n in range(len(job.nodes)):
        if n % 2 == 1:
            job.add(n, t + 1, "[data] rank %d: epoch 0 finished after %d local samples, starting epoch 1" % (job.grank(n), fi * 4 - 3), rank=job.grank(n))
        for lr in (0, 4):
            ascend_ei0002(job, n, lr, t + 1800 + r.uniform(0, 3), tag="e1")
        asc_teardown(job, n, t + 1806)
    case.label.update(category="user", subcategory="script_bug", symptom="abnormal_behavior", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.label["accept"] = ["user/script_bug", "user/configuration"]
    case.hosts = []
    case.ev("e1", "EI0002:")
    case.label["root_cause"] = "The custom distributed sampler does not drop or pad the tail, so half the ranks ran out of samples and entered the next epoch's barrier while the rest were still in a gradient all-reduce; every rank then hung until HCCL_EXEC_TIMEOUT."
    case.label["remediation"] = "Make the sampler give every rank the same number of samples (drop_last or padding) and resume from the last checkpoint."


def f_asc_quota(case):
    job, r = case.job, case.rng
    fi = r.choice([2000, 3000, 4000])
    t = healthy_run(case, fi - 1, save_every=1000)
    t = case.trainer.run(case.rep[0], case.rep[1], t, fi, fi)
    for n in range(len(job.nodes)):
        g = job.grank(n, 0)
        job.add(n, t + 0.1, "saving checkpoint at iteration %7d to /sfs/ckpt/pangu38b" % fi, rank=g)
        job.add(n, t + 20 + r.uniform(0, 3), "[rank%d]: OSError: [Errno 122] Disk quota exceeded: '/sfs/ckpt/pangu38b/iter_%07d/mp_rank_%02d/model_optim_rng.pt'" % (g, fi, n), rank=g, tag="e1")
        asc_teardown(job, n, t + 26)
    case.label.update(category="platform", subcategory="resource_management", symptom="training_crash", stage="checkpoint",
                      iterations=[fi], faulty_nodes=[])
    case.label["accept"] = ["platform/resource_management", "hardware/storage"]
    case.hosts = []
    case.ev("e1", "Disk quota exceeded")
    case.label["root_cause"] = "The team's quota on the SFS checkpoint share was exhausted, so writing the iteration-%d checkpoint failed with EDQUOT on every data-parallel writer." % fi
    case.label["remediation"] = "Raise the SFS quota or delete old checkpoints (keep the last N), then resume from the last complete checkpoint."


def f_asc_devid(case):
    job, r = case.job, case.rng
    prologue(case.setting, job, extra_env=None)
    t = job.t0 + 60
    for n in range(len(job.nodes)):
        for lr in (1, 2):
            g = job.grank(n, lr)
            L = ["[rank%d]: RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102 HCCL function error: hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 15" % g,
                 "[rank%d]: [ERROR] %s (PID:%d, Device:0, RankID:%d) ERR02200 DIST call hccl api failed." % (g, ts_ascend(t)[:19], 540989 + g, g),
                 "[rank%d]: EE9999: Inner Error!" % g,
                 "[rank%d]: EE9999: [PID: %d] %s get error: phyid:0 realDeviceId:0 is err:0x7010003[FUNC:GetDeviceIndexByPhyId][FILE:api_error.cc][LINE:1918]" % (g, 540989 + g, ts_ascend(t)),
                 "[rank%d]:        rtGetDeviceIndexByPhyId execute failed, reason=[device id error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]" % g]
            for i, l in enumerate(L):
                job.add(n, t + i * 0.0001 + lr * 0.01, l, rank=g, tag="e1" if i == 0 else ("e2" if i == 4 else None))
        asc_teardown(job, n, t + 3)
    case.label.update(category="user", subcategory="configuration", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "HCCL function error: hcclCommInitRootInfoConfig")
    case.ev("e2", "reason=[device id error]")
    case.label["root_cause"] = "The launch script exports ASCEND_RT_VISIBLE_DEVICES and also passes physical device ids to set_device, so ranks map to a wrong/duplicate device and HCCL communicator init fails with a device-id error."
    case.label["remediation"] = "Use logical device ids (local rank) with ASCEND_RT_VISIBLE_DEVICES, or drop the variable, and relaunch."


def f_asc_port_conflict(case):
    job, r = case.job, case.rng
    prologue(case.setting, job)
    bad = r.randint(0, len(job.nodes) - 1)
    h = job.nodes[bad]["host"]
    ip = job.nodes[bad]["ip"]
    t = job.t0 + 80
    g = job.grank(bad, 0)
    job.add(bad, t, "[ERROR] HCCL(2717288,python3):%s [hccl_socket.cc:100] [2717288][HcclSocket][Listen] socket type[1], listen on ip[%s] and specific port[16666] fail. Please check the port status and whether the port is been using by other process." % (ts_ascend(t), ip), rank=g, tag="e1")
    job.add(bad, t + 0.001, "[ERROR] HCCL(2717288,python3):%s [hccl_socket_manager.cc:54] [2717288][ServerInit]call trace: hcclRet -> 19" % ts_ascend(t), rank=g)
    job.add(bad, t + 0.002, "[ERROR] HCCL(2717288,python3):%s [hccl_communicator.cc:2307] [2717288][InitNic]call trace: hcclRet -> 19" % ts_ascend(t), rank=g)
    asc_teardown(job, bad, t + 3)
    for n in range(len(job.nodes)):
        if n != bad:
            gg = job.grank(n, 0)
            job.add(n, t + 120, "[ERROR] HCCL(%d,python3):%s [hccl_socket_manager.cc:778] [%d][Wait][LinkEstablish]wait socket establish timeout, role[1] rank[%d] timeout[120]" % (2734000 + n, ts_ascend(t + 120), 2734049 + n, gg), rank=gg)
            asc_teardown(job, n, t + 123)
    case.label.update(category="platform", subcategory="scheduling", symptom="launching_failure", stage="init",
                      iterations=[], faulty_nodes=[node_label(case.setting, job, bad)])
    case.label["accept"] = ["platform/scheduling", "platform/resource_management"]
    case.hosts = [h, ip]
    case.ev("e1", "and specific port[16666] fail")
    case.label["root_cause"] = "The scheduler co-located another HCCL job on %s, which already held listen port 16666, so this job's rank could not bind its HCCL port there." % h
    case.label["remediation"] = "Schedule training jobs exclusively per node (or give jobs distinct HCCL_IF_BASE_PORT ranges) and relaunch."


def f_asc_callback_bug(case):
    job, r = case.job, case.rng
    fi = r.choice([500, 1000])
    t = healthy_run(case, fi)
    g = 0
    L = ["- ERROR - Traceback (most recent call last):",
         '  File "/job/code/callbacks/throughput.py", line 57, in on_train_step_end',
         "    tokens_per_sec = self.tokens_seen / (cb_params.cur_step_time - self.last_time)",
         "ZeroDivisionError: division by zero"]
    for i, l in enumerate(L):
        job.add(0, t + 0.5 + i * 0.0001, l, rank=0, tag="e1" if i == 3 else None)
    job.add(0, t + 0.6, "[ERROR] ME(%d:281473296949264,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:268] Worker process %d exit with exception." % (130371, ts_ascend(t + 0.6), 130673), rank="sched")
    job.add(0, t + 2, "[WARNING] ME(162078:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:318] There's worker exits with exception, kill all other workers." % ts_ascend(t + 2), rank="sched")
    case.label.update(category="user", subcategory="script_bug", symptom="training_crash", stage="training",
                      iterations=[fi], faulty_nodes=[])
    case.hosts = []
    case.ev("e1", "ZeroDivisionError: division by zero")
    case.label["root_cause"] = "The user's throughput callback (run only on rank 0) divides by the step-time delta, which is zero right after a sink-mode checkpoint step, crashing worker 0."
    case.label["remediation"] = "Guard the division in the callback (skip when the delta is zero) and resume from the last checkpoint."


# ---------------------------------------------------------------------------
# case table
# ---------------------------------------------------------------------------

CASES = [
    # id, setting, nodes, fn, kwargs
    ("c01", "llama70b-megatron-cuda-slurm", 16, f_ib_completion, {}),
    ("c02", "gpt13b-megatron-cuda-hostfiles", 8, f_xid79, {}),
    ("c03", "llama8b-fsdp-cuda-k8s", 4, f_ecc, {}),
    ("c04", "mixtral-deepspeed-cuda-hostdirs", 2, f_nvlink, {}),
    ("c05", "gpt13b-megatron-cuda-hostfiles", 12, f_silent_hang, {}),
    ("c06", "llama13b-megatron-cuda-ipfiles", 8, f_thermal_slowdown, {}),
    ("c07", "qwen7b-hf-cuda-torchrun", 2, f_cuda_oom, {}),
    ("c08", "llama8b-fsdp-cuda-k8s", 6, f_driver_old, {}),
    ("c09", "qwen7b-hf-cuda-torchrun", 3, f_flash_attn, {}),
    ("c10", "mixtral-deepspeed-cuda-hostdirs", 2, f_ckpt_nospace, {}),
    ("c11", "llama13b-megatron-cuda-ipfiles", 32, f_lustre_io, {}),
    ("c12", "llama8b-fsdp-cuda-k8s", 4, f_shm_bus, {}),
    ("c13", "llama8b-fsdp-cuda-k8s", 8, f_evicted, {}),
    ("c14", "llama70b-megatron-cuda-slurm", 12, f_node_failure, {}),
    ("c15", "gpt13b-megatron-cuda-hostfiles", 4, f_cgroup_oom, {}),
    ("c16", "qwen7b-hf-cuda-torchrun", 4, f_rdzv_timeout, {}),
    ("c17", "llama70b-megatron-cuda-slurm", 8, f_socket_ifname, {}),
    ("c18", "llama13b-megatron-cuda-ipfiles", 16, f_nan_sdc, {}),
    ("c19", "gpt13b-megatron-cuda-hostfiles", 8, f_nan_lr, {}),
    ("c20", "mixtral-deepspeed-cuda-hostdirs", 4, f_ds_zero3, {}),
    ("c21", "qwen7b-hf-cuda-torchrun", 2, f_eval_bug, {}),
    ("c22", "llama13b-megatron-cuda-ipfiles", 16, f_ckpt_deleted, {}),
    ("c23", "llama8b-fsdp-cuda-k8s", 8, f_gang_pending, {}),
    ("c24", "llama70b-megatron-cuda-slurm", 8, f_ecc, {"restart": True}),
    ("a01", "llama2-70b-mindspeed-ascend-hostfiles", 16, f_asc_linkdown, {}),
    ("a02", "llama2-70b-mindspeed-ascend-hostfiles", 8, f_asc_heartbeat, {}),
    ("a03", "llama2-70b-mindspeed-ascend-hostfiles", 8, f_npu_oom, {}),
    ("a04", "pangu38b-torchnpu-ascend-k8s", 4, f_asc_aicore_hw, {}),
    ("a05", "llama2-70b-mindspeed-ascend-hostfiles", 4, f_asc_framework_bug, {}),
    ("a06", "pangu38b-torchnpu-ascend-k8s", 2, f_asc_cann_mismatch, {}),
    ("a07", "pangu38b-torchnpu-ascend-k8s", 8, f_asc_socket_timeout, {}),
    ("a08", "llama2-70b-mindspeed-ascend-hostfiles", 12, f_asc_hccp_busy, {}),
    ("a09", "qwen14b-mindformers-ascend-msrun", 2, f_asc_msrun_data, {}),
    ("a10", "qwen14b-mindformers-ascend-msrun", 2, f_asc_yaml_typo, {}),
    ("a11", "llama2-70b-mindspeed-ascend-hostfiles", 8, f_asc_slow_link, {}),
    ("a12", "pangu38b-torchnpu-ascend-k8s", 4, f_asc_imbalance, {}),
    ("a13", "pangu38b-torchnpu-ascend-k8s", 4, f_asc_quota, {}),
    ("a14", "pangu38b-torchnpu-ascend-k8s", 2, f_asc_devid, {}),
    ("a15", "llama2-70b-mindspeed-ascend-hostfiles", 4, f_asc_port_conflict, {}),
    ("a16", "qwen14b-mindformers-ascend-msrun", 4, f_asc_callback_bug, {}),
]

GZ_CASES = {"c11", "a08"}  # node logs shipped compressed (*.log.gz)

FAULT_TYPE = {
    "f_ib_completion": "IB completion error (NCCL NET/IB)", "f_xid79": "GPU fell off the bus (Xid 79)",
    "f_ecc": "uncorrectable ECC", "f_nvlink": "NVLink fatal error (Xid 74)", "f_silent_hang": "silent node hang",
    "f_thermal_slowdown": "GPU thermal slowdown straggler", "f_cuda_oom": "CUDA OOM (config)",
    "f_driver_old": "stale GPU driver on one node", "f_flash_attn": "flash-attn ABI mismatch",
    "f_ckpt_nospace": "checkpoint volume full", "f_lustre_io": "Lustre EIO on one node", "f_shm_bus": "pod /dev/shm too small",
    "f_evicted": "pod evicted (ephemeral storage)", "f_node_failure": "Slurm node failure", "f_cgroup_oom": "host cgroup OOM at resume",
    "f_rdzv_timeout": "stale rendezvous endpoint", "f_socket_ifname": "wrong NCCL_SOCKET_IFNAME",
    "f_nan_sdc": "NaN from faulty GPU (SDC)", "f_nan_lr": "NaN from bad learning rate", "f_ds_zero3": "DeepSpeed ZeRO-3 bug",
    "f_eval_bug": "user metric ZeroDivisionError", "f_ckpt_deleted": "resume from deleted checkpoint",
    "f_gang_pending": "partial pod scheduling", "f_sizemismatch": "TP layout mismatch on resume",
    "f_asc_linkdown": "RoCE link down (Ascend)", "f_asc_heartbeat": "node lost (HCCL heartbeat)", "f_npu_oom": "NPU OOM (config)",
    "f_asc_aicore_hw": "AI Core exception on one NPU", "f_asc_framework_bug": "MindSpeed dispatcher bug",
    "f_asc_cann_mismatch": "torch_npu/CANN mismatch", "f_asc_socket_timeout": "HCCL port blocked on one node",
    "f_asc_hccp_busy": "leftover process holds NPUs", "f_asc_msrun_data": "dataset not mounted on one node",
    "f_asc_yaml_typo": "YAML key typo", "f_asc_slow_link": "flapping RoCE port slowdown",
    "f_asc_imbalance": "uneven samples per rank hang", "f_asc_quota": "checkpoint quota exceeded",
    "f_asc_devid": "wrong device ids", "f_asc_port_conflict": "HCCL port conflict (co-scheduled job)",
    "f_asc_callback_bug": "user callback ZeroDivisionError",
}


def build_case(spec, seed, root):
    cid, setting, nn, fn, kw = spec
    case = Case(cid, setting, nn, seed)
    # thermal slowdown needs slow start time -> computed via trainer; patch
    if fn is f_thermal_slowdown:
        orig = Trainer.run

        def run_patch(self, n, rank, t, it0, it1, **k):
            sf = k.get("slow_from")
            if sf is not None:
                case.slow_t = t + (sf - it0) * self.dt
            return orig(self, n, rank, t, it0, it1, **k)
        Trainer.run = run_patch
        try:
            fn(case, **kw)
        finally:
            Trainer.run = orig
    else:
        fn(case, **kw)
    cdir = os.path.join(root, "cases", cid)
    logs = os.path.join(cdir, "logs")
    lay = layout_for(setting, case.job, case.consoles)
    lay["extra"] = case.extra
    lay["gz"] = cid in GZ_CASES
    evmap, written = render(case.job, lay, SETTINGS[setting]["ts"], logs)
    # build fault events
    fe = []
    filemap = {}
    for rel, lines in written:
        for i, (text, tag, nm) in enumerate(lines, 1):
            if tag:
                filemap.setdefault((nm, i), text)
    for eid, key in case.events:
        lines = evmap.get(eid, {})
        assert lines, (cid, eid, "no lines tagged")
        first = None
        for nm in sorted(lines):
            for ln in lines[nm]:
                assert key in filemap[(nm, ln)], (cid, eid, nm, ln, key, filemap[(nm, ln)])
                if first is None:
                    first = filemap[(nm, ln)]
        fe.append(dict(id=eid, text=first, key=key, lines={k: sorted(v) for k, v in sorted(lines.items())}))
    lab = case.label
    lab["fault_events"] = fe
    lab["hosts"] = case.hosts
    lab["fault_type"] = FAULT_TYPE[fn.__name__]
    lab.setdefault("accept", ["%s/%s" % (lab["category"], lab["subcategory"])])
    lab["source"] = "synthetic (blind_h gen.py); message sources in sources.md"
    order = ["schema", "setting", "stack", "category", "subcategory", "accept", "symptom", "faulty_nodes", "hosts", "stage",
             "iterations", "fault_events", "root_cause", "remediation", "fault_type", "source"]
    out = {k: lab[k] for k in order if k in lab}
    with open(os.path.join(cdir, "label.json"), "w") as f:
        json.dump(out, f, indent=2, sort_keys=False)
        f.write("\n")
    return out


def build_normal(setting, idx, seed, root):
    nn = {"llama70b-megatron-cuda-slurm": 8, "gpt13b-megatron-cuda-hostfiles": 8, "llama8b-fsdp-cuda-k8s": 4,
          "mixtral-deepspeed-cuda-hostdirs": 2, "qwen7b-hf-cuda-torchrun": 2, "llama13b-megatron-cuda-ipfiles": 8,
          "llama2-70b-mindspeed-ascend-hostfiles": 8, "qwen14b-mindformers-ascend-msrun": 2, "pangu38b-torchnpu-ascend-k8s": 4}[setting]
    case = Case("normal-%s-%d" % (setting, idx), setting, nn, seed)
    r = case.rng
    total = r.randint(1500, 3000)
    t = healthy_run(case, total, save_every=500)
    job = case.job
    rn, rr = case.rep
    s = SETTINGS[setting]
    if s["fw"] in ("megatron", "mindspeed"):
        job.add(rn, t + 1, "[after training is done] datetime: %s " % _time.strftime("%Y-%m-%d %H:%M:%S", _tm(t + 1)), rank=rr)
        job.add(rn, t + 60, "  successfully saved checkpoint at iteration %7d to /mnt/ckpt/run-2417" % total, rank=rr)
    elif s["fw"] == "hf":
        job.add(0, t + 1, "{'train_runtime': %.1f, 'train_samples_per_second': 41.2, 'train_steps_per_second': 0.64, 'train_loss': 1.4021, 'epoch': 3.0}" % (t - job.t0), rank=0)
    elif s["fw"] == "mindformers":
        job.add(0, t + 1, "- INFO - .........Training Over!.............", rank=0)
    else:
        job.add(0, t + 1, "[train] finished %d steps" % total, rank=0)
    if s["kind"] != "msrun":
        for n in range(len(job.nodes)):
            job.add(n, t + 70, "I%s %d torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully finished. Waiting 300 seconds for other agents to finish." % (ts_glog(t + 70)[1:], 52000 + n))
    jdir = os.path.join(root, "normal", setting, "job%02d" % idx, "logs")
    lay = layout_for(setting, job)
    render(job, lay, s["ts"], jdir)


def verify(root, labels):
    """Re-read files; assert every labeled line holds its event text and hosts occur in the logs."""
    for cid, lab in labels.items():
        logs = os.path.join(root, "cases", cid, "logs")
        files = {}
        for dp, _, fns in os.walk(logs):
            for fn in fns:
                p = os.path.join(dp, fn)
                if fn.endswith(".gz"):
                    with gzip.open(p, "rt", encoding="utf-8") as f:
                        files[os.path.relpath(p, logs)[:-3]] = f.read().split("\n")[:-1]
                else:
                    with open(p, encoding="utf-8") as f:
                        files[os.path.relpath(p, logs)] = f.read().split("\n")[:-1]
        # node name -> file, per CONTRACTS
        stems = {}
        for rel in files:
            b = os.path.basename(rel)
            for e in (".log", ".out", ".txt"):
                if b.endswith(e):
                    b = b[: -len(e)]
                    break
            stems.setdefault(b, []).append(rel)
        node_file = {}
        for b, rels in stems.items():
            if len(rels) == 1:
                node_file[b] = rels[0]
            else:
                for rel in rels:
                    node_file[os.path.basename(os.path.dirname(rel)) + "/" + b] = rel
        consoles = [rel for rel in files if any(l.startswith("[rank") or l[:4].split(":")[0].isdigit() and ": " in l[:6] for l in files[rel][:4000])
                    and SETTINGS[lab["setting"]]["kind"].startswith("console")]
        alltext = "\n".join("\n".join(v) for v in files.values())
        for h in lab["hosts"]:
            assert h in alltext, (cid, "host not in logs", h)
        for ev in lab["fault_events"]:
            found_text = False
            for nm, lns in ev["lines"].items():
                if nm in node_file:
                    rel = node_file[nm]
                else:
                    # virtual console node: rankN or console/rankN
                    if "/" in nm:
                        stem, _ = nm.split("/", 1)
                        rel = [r_ for r_ in consoles if os.path.basename(r_).startswith(stem + ".")][0]
                    else:
                        assert len(consoles) == 1, (cid, nm, consoles)
                        rel = consoles[0]
                for ln in lns:
                    line = files[rel][ln - 1]
                    assert ev["key"] in line, (cid, ev["id"], nm, ln, line)
                    if line == ev["text"]:
                        found_text = True
            assert found_text, (cid, ev["id"], "representative text not found")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    root = a.out
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)
    labels = {}
    for spec in CASES:
        labels[spec[0]] = build_case(spec, a.seed, root)
    for setting in SETTINGS:
        for idx in (1, 2):
            build_normal(setting, idx, a.seed, root)
    verify(root, labels)
    n_ft = len(set(l["fault_type"] for l in labels.values()))
    print("wrote %d cases (%d fault types), normal runs for %d settings to %s" % (len(labels), n_ft, len(SETTINGS), root))


if __name__ == "__main__":
    main()
