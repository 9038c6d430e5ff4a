#!/usr/bin/env python3
"""Independent generator of labeled, failed distributed LLM-training jobs.

Standard library only; deterministic for a given --seed.

    python3 gen.py --out data --seed 7 --cases 40      # write the dataset
    python3 gen.py --out data --verify                 # re-read every file, check labels

Each case is one failed job.  Lines are produced per rank / per node as
(time, order, text, tag) records; a layout writer turns them into files and
records the 1-based physical line number of every tagged (fault-indicating)
line, under the node name the CONTRACTS rules derive from the file name.
"""
import argparse
import datetime as _dt
import json
import os
import random
import re
import shutil
import sys

# --------------------------------------------------------------------------
# small helpers
# --------------------------------------------------------------------------
BASE_DATES = [_dt.datetime(2024, 3, 11, 8, 2, 11), _dt.datetime(2024, 6, 2, 21, 40, 5),
              _dt.datetime(2024, 9, 17, 3, 15, 44), _dt.datetime(2025, 1, 8, 14, 0, 2),
              _dt.datetime(2025, 4, 23, 9, 31, 57), _dt.datetime(2025, 7, 30, 17, 12, 30)]


def esc(s):
    return re.escape(s)


class Job:
    """One attempt of a distributed job: per-rank and per-node line records."""

    def __init__(self, spec, rng, t0=None, start_iter=0, attempt=0):
        self.s = spec
        self.rng = rng
        self.nn = spec['nnodes']
        self.W = self.nn * 8
        self.stack = spec['stack']
        self.fw = spec['fw']
        self.hosts = spec['hosts']
        self.ips = spec['ips']
        self.base = t0 or spec['t0']
        self.skew = spec['skew']
        self.start_iter = start_iter
        self.attempt = attempt
        self.rank = {r: [] for r in range(self.W)}
        self.node = {n: [] for n in range(self.nn)}
        self.ctr = 0
        self.pids = {r: 1000 + rng.randint(2000, 60000) for r in range(self.W)}
        self.agent_pid = {n: 900 + rng.randint(100, 900) for n in range(self.nn)}
        self.dead = set()          # ranks that stopped logging
        self.step_ms = spec['step_ms']
        self.slow = {}             # node -> factor
        self.iter_hook = None
        self.loss_hook = None
        self.cpp_prefix = spec.get('cpp_prefix', False)
        self.agent_ids = set()
        self.fail_load = False

    # ---- record emission
    def R(self, r, t, text, tag=None):
        self.ctr += 1
        self.rank[r].append((t, self.ctr, text, tag))

    def N(self, n, t, text, tag=None, agent=False):
        self.ctr += 1
        self.node[n].append((t, self.ctr, text, tag))
        if agent or getattr(self, '_agent', False) or text.startswith(('srun:', 'slurmstepd:')):
            self.agent_ids.add(self.ctr)

    def RT(self, r, t, block, tag=None, tag_first_only=False, tagline=None):
        """Emit a multi-line block on a rank; optional tag on lines matching tagline."""
        for i, ln in enumerate(block):
            tg = None
            if tag:
                if tagline is not None:
                    tg = tag if re.search(tagline, ln) else None
                elif not tag_first_only or i == 0:
                    tg = tag
            self.R(r, t + i * 1e-4, self.cp(r) + ln, tg)

    def cp(self, r):
        return '[rank%d]: ' % r if self.cpp_prefix else ''

    # ---- clocks
    def dt(self, n, t):
        return self.base + _dt.timedelta(seconds=t + self.skew[n])

    def py(self, n, t):
        d = self.dt(n, t)
        return d.strftime('%Y-%m-%d %H:%M:%S,') + '%03d' % (d.microsecond // 1000)

    def glog(self, n, t, lvl='I', digits=6):
        d = self.dt(n, t)
        frac = ('%06d' % d.microsecond) + ('%03d' % self.rng.randint(0, 999) if digits == 9 else '')
        return '%s%s.%s' % (lvl, d.strftime('%m%d %H:%M:%S'), frac)

    def iso(self, n, t):
        d = self.dt(n, t)
        return d.strftime('%Y-%m-%dT%H:%M:%S.') + '%03dZ' % (d.microsecond // 1000)

    def meg(self, n, t):
        return self.dt(n, t).strftime('[%Y-%m-%d %H:%M:%S]')

    def cann(self, n, t):
        return self.dt(n, t).strftime('%Y-%m-%d-%H:%M:%S')

    def cann_ms(self, n, t):
        d = self.dt(n, t)
        us = d.microsecond
        return d.strftime('%Y-%m-%d-%H:%M:%S.') + '%03d.%03d' % (us // 1000, us % 1000)

    def slurm_ts(self, n, t):
        return self.dt(n, t).strftime('%Y-%m-%dT%H:%M:%S')

    def ms_ts(self, n, t):
        return self.cann_ms(n, t)

    # ---- normal flow -----------------------------------------------------
    def launcher(self, t):
        self._agent = True
        try:
            self._launcher(t)
        finally:
            self._agent = False

    def _launcher(self, t):
        fw = self.fw
        for n in range(self.nn):
            if fw == 'mindspore':
                self.N(n, t, '[INFO] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:224] '
                       'Start worker process with rank id:%d, log file:./output/msrun_log/worker_%d.log. Environment '
                       'variable [RANK_ID=%d] is exported.' % (self.agent_pid[n], 281473000000 + n, self.ms_ts(n, t),
                                                              n * 8, n * 8, n * 8))
                continue
            if self.s['launch'] == 'srun':
                continue
            if self.s['launch'] == 'pdsh' and n == 0:
                self.N(n, t - 2, '[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export '
                       'PYTHONPATH=/workspace/train; cd /workspace/train; /usr/bin/python3 -u -m '
                       'deepspeed.launcher.launch --world_info=eyJ... --node_rank=%%n --master_addr=%s '
                       '--master_port=29500 train.py --deepspeed ds_config.json'
                       % (self.py(n, t - 2), ','.join(self.hosts[:4]) + (',...' if self.nn > 4 else ''), self.ips[0]))
            self.N(n, t, 'W%s %d torch/distributed/run.py:779] ' % (self.glog(n, t)[1:], self.agent_pid[n]))
            self.N(n, t, 'W%s %d torch/distributed/run.py:779] *****************************************'
                   % (self.glog(n, t)[1:], self.agent_pid[n]))
            self.N(n, t, 'W%s %d torch/distributed/run.py:779] Setting OMP_NUM_THREADS environment variable for each '
                   'process to be 1 in default, to avoid your system being overloaded, please further tune the '
                   'variable for optimal performance in your application as needed. ' % (self.glog(n, t)[1:], self.agent_pid[n]))
            self.N(n, t, 'W%s %d torch/distributed/run.py:779] *****************************************'
                   % (self.glog(n, t)[1:], self.agent_pid[n]))

    def env_dump(self, t):
        rng = self.rng
        for n in range(self.nn):
            r = n * 8
            lines = ['==== job environment (%s, node %d/%d) ====' % (self.hosts[n], n, self.nn),
                     'SLURM_JOB_ID=%s' % self.s['jobid'], 'SLURM_NODEID=%d' % n, 'HOSTNAME=%s' % self.hosts[n],
                     'MASTER_ADDR=%s' % self.ips[0], 'MASTER_PORT=29500', 'WORLD_SIZE=%d' % self.W,
                     'NNODES=%d' % self.nn, 'NODE_RANK=%d' % n]
            if self.stack == 'cuda':
                lines += ['CUDA_DEVICE_MAX_CONNECTIONS=1', 'NCCL_IB_HCA=mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_6,mlx5_7,mlx5_8,mlx5_9',
                          'NCCL_IB_GID_INDEX=3', 'NCCL_SOCKET_IFNAME=%s' % self.s['ifname'], 'NCCL_DEBUG=INFO',
                          'NCCL_ASYNC_ERROR_HANDLING=1', 'TORCH_NCCL_TRACE_BUFFER_SIZE=2000',
                          'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True',
                          'torch version: 2.%d.%d+cu12%d' % (rng.choice([3, 4, 5]), rng.randint(0, 1), rng.choice([1, 4])),
                          'NCCL version 2.%d.%d+cuda12.%d' % (rng.choice([20, 21]), rng.randint(3, 5), rng.choice([2, 4])),
                          'Driver Version: 550.%d.%02d    CUDA Version: 12.4' % (rng.randint(54, 127), rng.randint(1, 15)),
                          'GPU 0-7: NVIDIA %s' % self.s['gpu']]
            else:
                lines += ['ASCEND_RT_VISIBLE_DEVICES=0,1,2,3,4,5,6,7', 'HCCL_CONNECT_TIMEOUT=%d' % self.s.get('hccl_ct', 1200),
                          'HCCL_EXEC_TIMEOUT=1800', 'HCCL_IF_IP=%s' % self.ips[n], 'ASCEND_GLOBAL_LOG_LEVEL=3',
                          'TASK_QUEUE_ENABLE=2', 'CPU_AFFINITY_CONF=1', 'MULTI_STREAM_MEMORY_REUSE=1',
                          'CANN version: 8.0.RC%d' % rng.randint(1, 3), 'torch 2.1.0, torch_npu 2.1.0.post%d' % rng.randint(3, 8),
                          'npu-smi: Ascend910B%d x 8, firmware 7.3.0.%d.220' % (rng.choice([2, 3]), rng.randint(1, 9))]
            lines.append('=' * 44)
            for i, ln in enumerate(lines):
                self.N(n, t + i * 0.001, ln)
            if self.stack == 'cuda' and self.fw != 'mindspore':
                for lr in range(8):
                    self.R(n * 8 + lr, t + 0.5 + lr * 0.01,
                           '/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/attention.py:%d: '
                           'FutureWarning: `torch.cuda.amp.autocast(args...)` is deprecated. Please use '
                           '`torch.amp.autocast(\'cuda\', args...)` instead.' % rng.randint(100, 900)
                           if self.fw == 'megatron' else
                           '/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: '
                           'torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 '
                           'we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, '
                           'but if you need to preserve the current default behavior, you can pass use_reentrant=True.')
            elif self.stack == 'ascend':
                for lr in range(8):
                    if self.fw == 'mindspore':
                        self.R(n * 8 + lr, t + 0.5 + lr * 0.01,
                               '[WARNING] ME(%d:%d,MainProcess):%s [mindspore/common/_decorator.py:38] '
                               "'DropoutGenMask' is deprecated from version 2.3 and will be removed in a future version."
                               % (self.pids[n * 8 + lr], 281470000000 + lr, self.ms_ts(n, t + 0.5)))
                    else:
                        self.R(n * 8 + lr, t + 0.5 + lr * 0.01,
                               '/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/storage.py:38: '
                               'UserWarning: TypedStorage is deprecated. It will be removed in the future and '
                               'UntypedStorage will be the only storage class.')
        # a benign connect retry on one node
        n = self.rng.randrange(self.nn)
        if self.fw != 'mindspore':
            for k in range(self.rng.randint(1, 3)):
                self.N(n, t + 1 + k, '[W socket.cpp:697] [c10d] The client socket has failed to connect to '
                       '[%s]:29500 (errno: 111 - Connection refused).' % self.ips[0])

    def dist_init(self, t, skip_nodes=()):
        rng = self.rng
        for r in range(self.W):
            n = r // 8
            if n in skip_nodes:
                continue
            lr = r % 8
            h = self.hosts[n]
            p = self.pids[r]
            tid = p + rng.randint(50, 400)
            tt = t + lr * 0.02 + rng.uniform(0, 0.3)
            if self.stack == 'cuda':
                pre = '%s:%d:%d [%d] NCCL INFO ' % (h, p, p, lr)
                pre2 = '%s:%d:%d [%d] NCCL INFO ' % (h, p, tid, lr)
                out = [pre + 'Bootstrap : Using %s:%s<0>' % (self.s['ifname'], self.ips[n]),
                       pre + 'NET/Plugin: Could not find: libnccl-net.so. Using internal network plugin.',
                       pre + 'cudaDriverVersion 12040',
                       pre + 'NCCL version 2.21.5+cuda12.4' if lr == 0 else None,
                       pre + 'NCCL_IB_HCA set to mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_6,mlx5_7,mlx5_8,mlx5_9',
                       pre + 'NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE [3]mlx5_3:1/RoCE '
                             '[4]mlx5_6:1/RoCE [5]mlx5_7:1/RoCE [6]mlx5_8:1/RoCE [7]mlx5_9:1/RoCE [RO]; OOB %s:%s<0>'
                             % (self.s['ifname'], self.ips[n]),
                       pre + 'Using non-device net plugin version 0',
                       pre + 'Using network IB',
                       pre + 'comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s - Init START'
                             % (0x55d000000000 + rng.randint(0, 1 << 28), r, self.W, lr, lr, self.s['busids'][lr]),
                       pre2 + 'Setting affinity for GPU %d to ffffffff,00000000' % lr,
                       pre2 + 'NVLS multicast support is available on dev %d' % lr,
                       pre2 + 'comm 0x%x rank %d nRanks %d nNodes %d localRanks 8 localRank %d MNNVL 0'
                              % (0x55d000000000 + rng.randint(0, 1 << 28), r, self.W, self.nn, lr),
                       pre2 + 'Trees [0] %d/-1/-1->%d->%d [1] %d/-1/-1->%d->%d' % ((r + 1) % self.W, r, (r - 1) % self.W,
                                                                                (r + 1) % self.W, r, (r - 1) % self.W),
                       pre2 + 'P2P Chunksize set to 524288']
                for c in range(rng.randint(4, 10)):
                    out.append(pre2 + 'Channel %02d/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA'
                               % (c, r, lr, (r + 8) % self.W, lr, c % 8))
                out += [pre2 + 'Connected all rings', pre2 + 'Connected all trees',
                        pre2 + 'threadThresholds 8/8/64 | %d/8/64 | 512 | 512' % (self.W * 8),
                        pre2 + '32 coll channels, 32 collnet channels, 16 nvls channels, 32 p2p channels, 32 p2p channels per peer',
                        pre2 + 'comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %s commId 0x%x - Init COMPLETE'
                        % (0x55d000000000 + rng.randint(0, 1 << 28), r, self.W, lr, lr, self.s['busids'][lr],
                           rng.randint(1 << 60, 1 << 62))]
            else:
                if self.fw == 'mindspore':
                    out = ['[INFO] DEVICE(%d,%x,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/hccl_adapter/hccl_adapter.cc:%d] '
                           'InitHccl] Start init hccl adapter for rank %d, rank table mode: 0' % (p, 0xfffe00000000 + lr, self.ms_ts(n, tt), 500 + lr, r),
                           '[INFO] DISTRIBUTED(%d,%x,python):%s [mindspore/ccsrc/distributed/cluster/cluster_context.cc:%d] '
                           'BuildCluster] Cluster is successfully initialized.' % (p, 0xfffe00000000 + lr, self.ms_ts(n, tt + 1), 280),
                           '[INFO] DEVICE(%d,%x,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/hccl_adapter/hccl_adapter.cc:%d] '
                           'InitHccl] Init hccl adapter success.' % (p, 0xfffe00000000 + lr, self.ms_ts(n, tt + 2), 560)]
                else:
                    out = ['[rank%d] init_process_group backend=hccl world_size=%d' % (r, self.W),
                           '[W compiler_depend.ts:%d] Warning: Device do not support double dtype now, dtype cast '
                           'repalce with float. (function operator())' % rng.choice([51, 623]),
                           '[rank%d] HCCL comm init: rank %d of %d, device %d, server %s' % (r, r, self.W, lr, self.ips[n]),
                           '[rank%d] HCCL comm init: done in %d ms' % (r, rng.randint(800, 4000))]
            for i, ln in enumerate(o for o in out if o):
                self.R(r, tt + i * 0.003, ln)

    def model_build(self, t, ckpt_iter):
        fw = self.fw
        rng = self.rng
        for n in range(self.nn):
            r0 = n * 8
            if fw in ('megatron', 'mindspeed'):
                if n == 0:
                    self.R(0, t, 'building GPT model ...')
                    for k in range(rng.randint(30, 60)):
                        self.R(0, t + 0.001 * k, '  %s %s %s' % (rng.choice(['num_layers', 'hidden_size', 'ffn_hidden_size',
                                                                           'num_attention_heads', 'seq_length', 'micro_batch_size',
                                                                           'global_batch_size', 'lr', 'min_lr', 'clip_grad',
                                                                           'weight_decay', 'adam_beta2', 'bf16', 'use_flash_attn',
                                                                           'sequence_parallel', 'recompute_granularity']),
                                                              '.' * rng.randint(8, 30), rng.choice(['True', 'False', '4096', '80',
                                                                                                     '1e-4', '0.95', 'selective'])))
                for lr in range(8):
                    r = r0 + lr
                    self.R(r, t + 2 + lr * 0.01, ' > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d'
                           % (lr % self.s['tp'], (r // self.s['tp']) % self.s['pp'], 8_654_000_000 // (self.s['tp'] * self.s['pp'])
                              + rng.randint(0, 99999)))
                if ckpt_iter:
                    self.R(r0, t + 5, ' loading release checkpoint from %s' % self.s['ckpt'] if ckpt_iter == -1 else
                           ' loading checkpoint from %s at iteration %d' % (self.s['ckpt'], ckpt_iter))
                    if not self.fail_load:
                        self.R(r0, t + 40, '  successfully loaded checkpoint from %s [ t %d, p %d ] at iteration %d'
                               % (self.s['ckpt'], 0, n % self.s['pp'], max(ckpt_iter, 0)))
            elif fw == 'mindspore':
                for lr in range(8):
                    r = r0 + lr
                    self.R(r, t + lr * 0.01, '[INFO] ME(%d:%d,MainProcess):%s [mindformers/models/llama/llama.py:%d] '
                           'Predict run mode:False' % (self.pids[r], 281470000000 + lr, self.ms_ts(n, t), 120))
                    self.R(r, t + 3 + lr * 0.01, '[INFO] ME(%d:%d,MainProcess):%s [mindformers/trainer/base_trainer.py:%d] '
                           'Network Parameters: %d M.' % (self.pids[r], 281470000000 + lr, self.ms_ts(n, t + 3), 707, 8030))
                    if ckpt_iter:
                        self.R(r, t + 20 + lr * 0.01, '[INFO] ME(%d:%d,MainProcess):%s [mindformers/trainer/utils.py:%d] '
                               '.........Start load checkpoint from checkpoint.........' % (self.pids[r], 281470000000 + lr,
                                                                                        self.ms_ts(n, t + 20), 338))
                        self.R(r, t + 60 + lr * 0.01, '[INFO] ME(%d:%d,MainProcess):%s [mindformers/trainer/utils.py:%d] '
                               'Network load checkpoint done, step %d.' % (self.pids[r], 281470000000 + lr,
                                                                        self.ms_ts(n, t + 60), 358, ckpt_iter))
            else:  # deepspeed / hf / fsdp
                for lr in range(8):
                    r = r0 + lr
                    if fw == 'fsdp':
                        self.R(r, t + lr * 0.01, '%s | INFO | model.py:88 | building %s with FSDP FULL_SHARD, '
                               'mixed precision bf16' % (self.iso(n, t), self.s['model']))
                    else:
                        self.R(r, t + lr * 0.01, '[INFO|modeling_utils.py:3553] %s >> loading weights file %s/model.safetensors.index.json'
                               % (self.py(n, t), self.s['ckpt']))
                        self.R(r, t + 25 + lr * 0.01, 'Loading checkpoint shards: 100%%|##########| %d/%d [00:%02d<00:00,  %.2fit/s]'
                               % (30, 30, rng.randint(15, 40), rng.uniform(0.8, 2.0)))
                if fw == 'deepspeed' and n == 0:
                    self.R(0, t + 30, '[%s] [INFO] [logging.py:128:log_dist] [Rank 0] DeepSpeed info: version=0.14.%d, git-hash=unknown, git-branch=unknown'
                           % (self.py(0, t + 30), rng.randint(0, 4)))
                    self.R(0, t + 31, '[%s] [INFO] [config.py:997:print] DeepSpeedEngine configuration:' % self.py(0, t + 31))
                    for k in ('zero_optimization', 'bf16', 'gradient_accumulation_steps', 'train_micro_batch_size_per_gpu',
                              'gradient_clipping', 'steps_per_print', 'wall_clock_breakdown', 'fp16'):
                        self.R(0, t + 31.01, '[%s] [INFO] [config.py:1001:print]   %-28s %s'
                               % (self.py(0, t + 31), k, rng.choice(['True', 'False', '1', '8', '{"stage": 3}', '10'])))

    def data_build(self, t):
        for n in range(self.nn):
            r = n * 8 + (7 if self.fw in ('megatron', 'mindspeed') else 0)
            if self.fw in ('megatron', 'mindspeed'):
                if n == 0:
                    self.R(0, t, '> building train, validation, and test datasets for GPT ...')
                    self.R(0, t + 0.2, ' > datasets target sizes (minimum size):')
                    self.R(0, t + 0.3, '    train:      %d' % (self.s['train_iters'] * self.s['gbs']))
                    self.R(0, t + 5, '> finished creating GPT datasets ...')
            elif self.fw == 'mindspore':
                self.R(r, t, '[INFO] ME(%d:%d,MainProcess):%s [mindformers/dataset/causal_language_model_dataset.py:%d] '
                       'Now Create Causal Language Model Dataset.' % (self.pids[r], 281470000000, self.ms_ts(n, t), 205))
            else:
                self.R(r, t, 'Map (num_proc=16): 100%%|##########| %d/%d [00:%02d<00:00, %d examples/s]'
                       % (self.s['gbs'] * 100, self.s['gbs'] * 100, self.rng.randint(10, 59), self.rng.randint(3000, 9000)))
            if n == 0 and self.fw == 'hf':
                self.R(0, t + 1, '[INFO|trainer.py:2128] %s >> ***** Running training *****' % self.py(0, t + 1))
                self.R(0, t + 1.01, '[INFO|trainer.py:2129] %s >>   Num examples = %d' % (self.py(0, t + 1), self.s['gbs'] * self.s['train_iters']))
                self.R(0, t + 1.02, '[INFO|trainer.py:2134] %s >>   Total optimization steps = %d' % (self.py(0, t + 1), self.s['train_iters']))

    def primary(self):
        return self.W - 1 if self.fw in ('megatron', 'mindspeed') else 0

    def progress(self, it, t, loss, ms):
        fw = self.fw
        s = self.s
        r = self.primary()
        n = r // 8
        rng = self.rng
        lr = s['lr'] * min(1.0, it / 500.0)
        gn = rng.uniform(0.15, 0.6) + (1.5 if it < 50 else 0)
        if fw in ('megatron', 'mindspeed'):
            self.R(r, t, ' %s iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | '
                   'learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | '
                   'number of skipped iterations:   0 | number of nan iterations:   0 |'
                   % (self.meg(n, t), it, s['train_iters'], it * s['gbs'], ms, lr, s['gbs'], loss, gn))
        elif fw == 'deepspeed':
            self.R(r, t, '[%s] [INFO] [logging.py:128:log_dist] [Rank 0] step=%d, skipped=%d, lr=[%.12f], mom=[(0.9, 0.95)]'
                   % (self.py(n, t), it, s.get('skipped', 0), lr))
            sps = s['gbs'] / (ms / 1000.0)
            self.R(r, t + 0.001, '[%s] [INFO] [timer.py:260:stop] epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.3f, '
                   'CurrSamplesPerSec=%.3f, MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB'
                   % (self.py(n, t), it * s['ga'], it, sps * rng.uniform(0.98, 1.02), sps * rng.uniform(0.9, 1.1),
                      rng.uniform(20, 24), rng.uniform(55, 62)))
            self.R(r, t + 0.002, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}"
                   % (loss, gn, lr, it / float(s['train_iters'])))
        elif fw == 'hf':
            tot = s['train_iters']
            pct = int(100 * it / tot)
            el = int(it * ms / 1000)
            rem = int((tot - it) * ms / 1000)
            self.R(r, t, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}"
                   % (loss, gn, lr, it / float(tot)))
            self.R(r, t + 0.001, ' %2d%%|%-10s| %d/%d [%d:%02d:%02d<%d:%02d:%02d, %.2fs/it]'
                   % (pct, '#' * (pct // 10), it, tot, el // 3600, el // 60 % 60, el % 60, rem // 3600, rem // 60 % 60,
                      rem % 60, ms / 1000.0))
        elif fw == 'fsdp':
            c = s.get('ansi')
            lvl = '\x1b[32mINFO\x1b[0m' if c else 'INFO'
            self.R(r, t, '%s | %s | train.py:412 | step %6d | loss %.4f | lr %.3e | grad_norm %.3f | tok/s/gpu %.0f | mfu %.1f%%'
                   % (self.iso(n, t), lvl, it, loss, lr, gn, 4096 * 2 * 1000.0 / ms * 8 / 8, rng.uniform(38, 44)))
        elif fw == 'mindspore':
            for r in range(self.W):   # every MindFormers worker prints its own step line
                if r in self.dead:
                    continue
                n = r // 8
                tt = t - rng.uniform(0.01, 0.05)
                self.R(r, tt, '[INFO] ME(%d:%d,MainProcess):%s [mindformers/core/callback/callback.py:334] { Epoch:[  1/  1], '
                       'step:[%5d/%5d], loss: %.3f, per_step_time: %dms, lr: %.6e, overflow cond: False, loss_scale: 1.0, '
                       'global_norm: [%.5f], train_throughput_per_npu: %.3fT'
                       % (self.pids[r], 281470000000, self.ms_ts(n, tt), it, s['train_iters'], loss, int(ms), lr, gn,
                          rng.uniform(150, 190)))

    def monitor(self, n, it, t, extra=None):
        rng = self.rng
        if self.stack == 'cuda':
            self.N(n, t, '%s [gpumon] %s step=%d util=%d%% mem_used=%dMiB sm_clock=%dMHz power=%dW temp=%dC'
                   % (self.iso(n, t), self.hosts[n], it, rng.randint(93, 100), rng.randint(61000, 76000),
                      (extra or {}).get('clk', 1980), rng.randint(560, 690), rng.randint(55, 71)))
        else:
            self.N(n, t, '%s [npumon] %s step=%d aicore=%d%% hbm_used=%dMB freq=%dMHz temp=%dC'
                   % (self.iso(n, t), self.hosts[n], it, rng.randint(90, 99), rng.randint(48000, 61000),
                      (extra or {}).get('clk', 1800), rng.randint(50, 66)))

    def save_lines(self, it, t, done=True):
        s = self.s
        if self.fw in ('megatron', 'mindspeed'):
            for n in range(self.nn):
                self.R(n * 8, t, 'saving checkpoint at iteration %8d to %s in torch format' % (it, s['ckpt']))
                if done:
                    self.R(n * 8, t + 30, '  successfully saved checkpoint from iteration %8d to %s' % (it, s['ckpt']))
        elif self.fw == 'deepspeed':
            self.R(0, t, '[%s] [INFO] [logging.py:128:log_dist] [Rank 0] Saving model checkpoint: %s/global_step%d/'
                   'zero_pp_rank_0_mp_rank_00_model_states.pt' % (self.py(0, t), s['ckpt'], it))
            if done:
                self.R(0, t + 20, '[%s] [INFO] [engine.py:3536:_save_zero_checkpoint] zero checkpoint saved %s/global_step%d/'
                       'bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt' % (self.py(0, t + 20), s['ckpt'], it))
        elif self.fw == 'hf':
            self.R(0, t, '[INFO|trainer.py:3478] %s >> Saving model checkpoint to %s/checkpoint-%d'
                   % (self.py(0, t), s['ckpt'], it))
            if done:
                self.R(0, t + 15, '[INFO|modeling_utils.py:2612] %s >> Model weights saved in %s/checkpoint-%d/model.safetensors'
                       % (self.py(0, t + 15), s['ckpt'], it))
        elif self.fw == 'fsdp':
            self.R(0, t, '%s | INFO | ckpt.py:57 | saving sharded state dict to %s/step_%d' % (self.iso(0, t), s['ckpt'], it))
            if done:
                self.R(0, t + 25, '%s | INFO | ckpt.py:71 | checkpoint step_%d committed' % (self.iso(0, t + 25), it))
        else:
            for n in range(self.nn):
                for lr in range(8):
                    r = n * 8 + lr
                    self.R(r, t + lr * 0.01, '[INFO] ME(%d:%d,MainProcess):%s [mindformers/core/callback/callback.py:%d] '
                           '......Saving ckpt......' % (self.pids[r], 281470000000, self.ms_ts(n, t), 921))

    def train(self, t, upto, save_at_end=False):
        """Iterations start_iter+1 .. upto (inclusive).  Returns time after `upto`."""
        s = self.s
        li, si = s['li'], s['si']
        it = self.start_iter
        rng = self.rng
        while it < upto:
            it += 1
            slowest = max([self.slow.get(n, 1.0) for n in range(self.nn)])
            ms = s['step_ms'] * rng.uniform(0.97, 1.03) * slowest
            t += ms / 1000.0
            if self.iter_hook:
                self.iter_hook(self, it, t)
            if it % li == 0:
                loss = self.loss_hook(it) if self.loss_hook else max(1.55, 7.5 * (it + 60) ** -0.18 + rng.uniform(-0.03, 0.03))
                self.progress(it, t, loss, ms)
                for n in range(self.nn):
                    self.monitor(n, it, t + rng.uniform(0, 0.5),
                                 {'clk': 1980 if self.slow.get(n, 1.0) == 1.0 else self.s.get('slow_clk', 780)}
                                 if self.stack == 'cuda' else {'clk': 1800 if self.slow.get(n, 1.0) == 1.0 else 600})
            if it % si == 0 and (it < upto or save_at_end):
                self.save_lines(it, t)
                t += 35
        return t

    def flow(self, until, it_fault=None):
        """Run the normal job up to a point.  until in launch|init|dist|model|data|train|ckpt."""
        t = 0.0
        self.launcher(t)
        if until == 'launch':
            return 3.0
        self.env_dump(2.0)
        if until == 'init':
            return 6.0
        self.dist_init(8.0)
        if until == 'dist':
            return 15.0
        self.model_build(20.0, self.start_iter or self.s['ckpt_iter'])
        if until == 'model':
            return 27.0
        self.data_build(90.0)
        if until == 'data':
            return 95.0
        t = 100.0
        for r in range(self.W):
            if self.fw == 'megatron' and r % 8 == 0:
                self.R(r, t, '[after dataloaders are built] datetime: %s' % self.dt(r // 8, t).strftime('%Y-%m-%d %H:%M:%S'))
        if until == 'train':
            return self.train(t, it_fault - 1)
        if until == 'ckpt':
            t = self.train(t, it_fault, save_at_end=False)
            self.save_lines(it_fault, t + 1, done=False)
            return t + 1
        raise ValueError(until)

    # ---- cascade and teardown ----------------------------------------------
    def cascade_nccl(self, t, ranks, seq, op='ALLREDUCE', numel=None, timeout_ms=600000):
        rng = self.rng
        numel = numel or rng.choice([1, 262144, 466119168, 68124672, 9801523])
        for r in ranks:
            if r in self.dead:
                continue
            n = r // 8
            tt = t + timeout_ms / 1000.0 + rng.uniform(0, 0.6)
            g = lambda x: 'E' + self.glog(n, x)[1:].replace(' ', ' ', 1)
            pre = '[rank%d]:' % r
            self.R(r, tt, '%s[%s ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: '
                   'WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds '
                   'before timing out.' % (pre, g(tt), r, seq, op, numel, numel, timeout_ms, timeout_ms + rng.randint(4, 120)))
            self.R(r, tt + 0.01, '%s[%s ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an '
                   'error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL '
                   'work: %d.' % (pre, g(tt), r, seq, seq + 2, seq - 1))
            self.R(r, tt + 0.02, '%s[%s ProcessGroupNCCL.cpp:1830] [PG ID 0 PG GUID 0(default_pg) Rank %d] Timeout at NCCL '
                   'work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d.' % (pre, g(tt), r, seq, seq + 2, seq - 1))
            self.R(r, tt + 0.03, '%s[%s ProcessGroupNCCL.cpp:630] [Rank %d] Some NCCL operations have failed or timed out. Due '
                   'to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete '
                   'data.' % (pre, g(tt), r))
            self.R(r, tt + 0.04, '%s[%s ProcessGroupNCCL.cpp:636] [Rank %d] To avoid data inconsistency, we are taking the '
                   'entire process down.' % (pre, g(tt), r))
            self.dead.add(r)
        return t + timeout_ms / 1000.0 + 1

    def cascade_hccl(self, t, ranks, remote='unknown', tag='AllReduce_group_name_%d'):
        rng = self.rng
        grp = rng.randint(1, 900)
        for r in ranks:
            if r in self.dead:
                continue
            n = r // 8
            tt = t + 1800 + rng.uniform(0, 2)
            p = self.pids[r]
            cp = self.cp(r)
            if self.fw == 'mindspore':
                self.R(r, tt - 0.01, '[ERROR] DEVICE(%d,%x,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/hardware/'
                       'ge_graph_executor.cc:1154] RunGraphRefMode] Exec graph failed' % (p, 0xfffe00000000 + r % 8, self.ms_ts(n, tt)))
            else:
                self.R(r, tt - 0.01, cp + 'RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 '
                       'NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507048')
                self.R(r, tt - 0.005, cp + '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed'
                       % (self.cann(n, tt), p, r % 8, r))
                self.R(r, tt - 0.004, cp + '[Error]: The execution of the internal task times out. ')
                self.R(r, tt - 0.003, cp + '        Rectify the fault based on the error information in the ascend log.')
            self.R(r, tt, cp + 'EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify '
                   'register has not received the Notify record from remote rank: [%s]. base information: [streamID:[%d], '
                   'taskID[%d], tag[%s], AlgType(level 0-1-2):[fullmesh-ring-NHR]]. task information: []'
                   % (p, self.cann_ms(n, tt), remote, rng.randint(1, 9), rng.randint(10000, 9999999), tag % grp))
            self.R(r, tt + 0.001, cp + '        Possible Cause: 1. An exception occurs during the execution on some NPUs in the '
                   'cluster. As a result, collective communication operation failed.2. The execution speed on some NPU in '
                   'the cluster is too slow to complete a communication operation within the timeout interval. (default '
                   '1800s, You can set the interval by using HCCL_EXEC_TIMEOUT.)')
            self.R(r, tt + 0.002, cp + '        Solution: 1. Check the rank service processes with other errors or no errors in '
                   'the cluster.2. If this error is reported for all NPUs, check whether the time difference between the '
                   'earliest and latest errors is greater than the timeout interval (default 1800s).')
            self.R(r, tt + 0.003, cp + '        TraceBack (most recent call last):')
            self.dead.add(r)
        return t + 1802

    def teardown(self, *a, **k):
        self._agent = True
        try:
            self._teardown(*a, **k)
        finally:
            self._agent = False

    def _teardown(self, t, first_fail, script='pretrain_gpt.py', exitcode=-6, nodes=None, reason=None):
        """Launcher teardown.  first_fail: {node: (local_rank, exitcode)}"""
        rng = self.rng
        launch = self.s['launch']
        nodes = range(self.nn) if nodes is None else nodes
        if launch == 'srun':
            last = t
            for n in nodes:
                lr, ec = first_fail.get(n, (0, exitcode))
                r = n * 8 + lr
                tt = t + rng.uniform(0, 4)
                self.N(0, tt, 'srun: error: %s: task %d: %s' % (self.hosts[n], r,
                                                               'Exited with exit code 1' if ec == 1 else
                                                               'Killed' if ec == -9 else 'Aborted (core dumped)'))
                last = max(last, tt)
            self.N(0, last + 0.5, 'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
            self.N(0, last + 1, 'slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s ***'
                   % (self.s['jobid'], self.hosts[0], self.slurm_ts(0, last + 1)))
            return
        if self.fw == 'mindspore':
            for n in nodes:
                lr, ec = first_fail.get(n, (0, exitcode))
                tt = t + rng.uniform(0.5, 3)
                self.N(n, tt, '[ERROR] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:312] '
                       'Worker process %d exit with exception. Error code: %d.' % (self.agent_pid[n], 281473000000,
                                                                                self.ms_ts(n, tt), self.pids[n * 8 + lr], abs(ec)))
                self.N(n, tt + 0.1, '[WARNING] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:318] '
                       'There\'s worker exits with exception, kill all other workers.' % (self.agent_pid[n], 281473000000,
                                                                                     self.ms_ts(n, tt)))
                self.N(n, tt + 2, '[ERROR] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:331] '
                       'Scheduler process %d exit with exception.' % (self.agent_pid[n], 281473000000, self.ms_ts(n, tt + 2),
                                                                     self.agent_pid[n] + 1) if n == 0 else
                       '[INFO] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:340] '
                       'Analyzing exception log...' % (self.agent_pid[n], 281473000000, self.ms_ts(n, tt + 2)))
            return
        for n in nodes:
            lr, ec = first_fail.get(n, (0, exitcode))
            tt = t + rng.uniform(0.5, 3)
            ap = self.agent_pid[n]
            for k in range(8):
                if k == lr:
                    continue
                self.N(n, tt + k * 0.001, 'W%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d '
                       'closing signal SIGTERM' % (self.glog(n, tt)[1:], ap, self.pids[n * 8 + k]))
            self.N(n, tt + 1, 'E%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: '
                   '%d (pid: %d) of binary: /usr/bin/python3' % (self.glog(n, tt + 1)[1:], ap, ec, lr, self.pids[n * 8 + lr]))
            blk = ['Traceback (most recent call last):', '  File "/usr/local/bin/torchrun", line 8, in <module>',
                   '    sys.exit(main())', '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main',
                   '    run(args)', '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 263, in launch_agent',
                   '    raise ChildFailedError(', 'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ',
                   '=' * 60, '%s FAILED' % script, '-' * 60, 'Failures:', '  <NO_OTHER_FAILURES>', '-' * 60,
                   'Root Cause (first observed failure):', '[0]:',
                   '  time      : %s' % self.dt(n, tt).strftime('%Y-%m-%d_%H:%M:%S'),
                   '  host      : %s' % self.hosts[n], '  rank      : %d (local_rank: %d)' % (n * 8 + lr, lr),
                   '  exitcode  : %d (pid: %d)' % (ec, self.pids[n * 8 + lr]), '  error_file: <N/A>',
                   '  traceback : %s' % ('Signal 6 (SIGABRT) received by PID %d' % self.pids[n * 8 + lr] if ec == -6 else
                                        'Signal 9 (SIGKILL) received by PID %d' % self.pids[n * 8 + lr] if ec == -9 else
                                        'To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html'),
                   '=' * 60]
            for i, ln in enumerate(blk):
                self.N(n, tt + 1.01 + i * 1e-4, ln)

    def py_tb(self, r, t, frames, final, tag=None, tagline=None):
        blk = ['Traceback (most recent call last):']
        for f, ln, fn, code in frames:
            blk.append('  File "%s", line %d, in %s' % (f, ln, fn))
            blk.append('    ' + code)
        blk += final
        self.RT(r, t, blk, tag=tag, tagline=tagline)


# --------------------------------------------------------------------------
# fault catalogue.  Each handler builds the job and returns label parts.
# --------------------------------------------------------------------------
MEG_FRAMES = [('/workspace/Megatron-LM/pretrain_gpt.py', 281, '<module>', 'pretrain('),
              ('/workspace/Megatron-LM/megatron/training/training.py', 349, 'pretrain', 'iteration, num_floating_point_operations_so_far = train('),
              ('/workspace/Megatron-LM/megatron/training/training.py', 1231, 'train', 'train_step(forward_step_func,'),
              ('/workspace/Megatron-LM/megatron/training/training.py', 709, 'train_step', 'losses_reduced = forward_backward_func(')]
HF_FRAMES = [('/workspace/train/sft.py', 212, '<module>', 'main()'),
             ('/workspace/train/sft.py', 198, 'main', 'trainer.train()'),
             ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 1938, 'train', 'return inner_training_loop('),
             ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 2279, '_inner_training_loop', 'tr_loss_step = self.training_step(model, inputs)')]


def frames_for(job):
    return MEG_FRAMES if job.fw in ('megatron', 'mindspeed') else HF_FRAMES


def script_for(job):
    return {'megatron': 'pretrain_gpt.py', 'mindspeed': 'pretrain_gpt.py', 'deepspeed': 'train.py',
            'hf': 'sft.py', 'fsdp': 'train.py', 'mindspore': 'run_mindformer.py'}[job.fw]


def pick_fault_node(job, avoid_primary=True):
    cands = [n for n in range(job.nn) if not (avoid_primary and n == job.primary() // 8)]
    return job.rng.choice(cands or [0])


def others(job, bad_ranks):
    return [r for r in range(job.W) if r not in bad_ranks]


def busid(job, lr):
    return job.s['busids'][lr]


# each handler: (job, it) -> dict(faulty=[ranks or nodes spec], events=[(eid, pattern)], iters=[...])
def f_xid79(job, it):
    n = pick_fault_node(job)
    lr = job.rng.randrange(8)
    r = n * 8 + lr
    t = job.flow('train', it)
    pci = busid(job, lr)
    # the faulty node's GPU vanishes: kernel line captured by the node health hook, one CUDA error
    job.N(n, t + 0.2, '%s [node-health] kernel: NVRM: Xid (PCI:0000:%s:00): 79, pid=\'<unknown>\', name=<unknown>, '
          'GPU has fallen off the bus.' % (job.iso(n, t + 0.2), pci[:2]), 'e1')
    job.N(n, t + 0.21, '%s [node-health] kernel: NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus.'
          % (job.iso(n, t + 0.21), pci[:2]), 'e1')
    job.R(r, t + 0.5, job.cp(r) + 'RuntimeError: CUDA error: unknown error', 'e2')
    job.R(r, t + 0.51, job.cp(r) + 'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.')
    job.dead.update(range(n * 8, n * 8 + 8))   # whole node goes quiet
    t2 = job.cascade_nccl(t, others(job, range(n * 8, n * 8 + 8)), seq=job.rng.randint(4000, 90000))
    job.teardown(t2, {n: (lr, 1)}, script_for(job), nodes=[m for m in range(job.nn) if m != n])
    return dict(faulty_nodes=[n], faulty_ranks=[r],
                events=[('e1', r'NVRM: (Xid \(PCI:[0-9a-f:]+\): 79|GPU [0-9a-f:.]+: GPU has fallen off the bus)'),
                        ('e2', r'RuntimeError: CUDA error: unknown error')], iters=[it])


def f_ecc48(job, it):
    n = pick_fault_node(job)
    lr = job.rng.randrange(8)
    r = n * 8 + lr
    t = job.flow('train', it)
    pci = busid(job, lr)
    job.N(n, t + 0.1, '%s [node-health] kernel: NVRM: Xid (PCI:0000:%s:00): 48, pid=%d, name=python3, An uncorrectable '
          'double bit error (DBE) has been detected on GPU in the framebuffer at partition %d, subpartition %d.'
          % (job.iso(n, t + 0.1), pci[:2], job.pids[r], job.rng.randint(0, 11), job.rng.randint(0, 1)), 'e1')
    job.py_tb(r, t + 0.3, frames_for(job) + [('/usr/local/lib/python3.10/dist-packages/torch/autograd/__init__.py', 266,
                                              'backward', 'Variable._execution_engine.run_backward(')],
              ['RuntimeError: CUDA error: uncorrectable ECC error encountered',
               'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
               'For debugging consider passing CUDA_LAUNCH_BLOCKING=1.',
               'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.'], tag='e2',
              tagline=r'uncorrectable ECC error encountered')
    job.R(r, t + 0.4, '[rank%d]:[%s ProcessGroupNCCL.cpp:1316] [PG ID 0 PG GUID 0(default_pg) Rank %d] NCCL watchdog thread '
          'terminated with exception: CUDA error: uncorrectable ECC error encountered' % (r, 'E' + job.glog(n, t + 0.4)[1:], r), 'e2')
    job.dead.add(r)
    t2 = job.cascade_nccl(t, others(job, [r]), seq=job.rng.randint(4000, 90000), op='_ALLGATHER_BASE')
    job.teardown(t2, {n: (lr, -6)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[r], events=[('e1', r'NVRM: Xid \(PCI:[0-9a-f:]+\): 48,'),
                                                           ('e2', r'uncorrectable ECC error encountered')], iters=[it])


def f_nvlink(job, it):
    n = pick_fault_node(job)
    lr = job.rng.randrange(8)
    r = n * 8 + lr
    t = job.flow('train', it)
    pci = busid(job, lr)
    link = job.rng.randint(0, 17)
    for k in range(2):
        job.N(n, t + 0.1 + k * 0.01, '%s [node-health] kernel: NVRM: Xid (PCI:0000:%s:00): 74, pid=%d, name=python3, NVLink: '
              'fatal error detected on link %d(0x0, 0x0, 0x%x, 0x0, 0x0, 0x0, 0x0)' % (job.iso(n, t + 0.1), pci[:2], job.pids[r],
                                                                                   link + k, 0x10000 << k), 'e1')
    h = job.hosts[n]
    job.R(r, t + 1, '%s:%d:%d [%d] include/alloc.h:%d NCCL WARN Cuda failure 700 \'an illegal memory access was encountered\''
          % (h, job.pids[r], job.pids[r] + 77, lr, 125), 'e2')
    job.R(r, t + 1.1, '%s:%d:%d [%d] NCCL INFO transport/p2p.cc:%d -> 1' % (h, job.pids[r], job.pids[r] + 77, lr, 440))
    job.dead.add(r)
    t2 = job.cascade_nccl(t, others(job, [r]), seq=job.rng.randint(4000, 90000), op='_REDUCE_SCATTER_BASE')
    job.teardown(t2, {n: (lr, -6)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[r], events=[('e1', r'NVLink: fatal error detected on link'),
                                                           ('e2', r'NCCL WARN Cuda failure 700')], iters=[it],
                accept=['hardware/accelerator', 'hardware/network'])


def f_nccl_ib(job, it, persistent_node=None):
    n = pick_fault_node(job) if persistent_node is None else persistent_node
    t = job.flow('train', it)
    rng = job.rng
    h = job.hosts[n]
    peer = (n + 1) % job.nn
    bad = []
    for lr in rng.sample(range(8), rng.randint(1, 3)):
        r = n * 8 + lr
        bad.append(r)
        p = job.pids[r]
        for k in range(rng.randint(1, 3)):
            tt = t + 0.2 + k * 0.05
            job.R(r, tt, '%s:%d:%d [%d] transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with '
                  'status=12 opcode=%d len=0 vendor err 129 (%s) localGid ::ffff:%s remoteGids::ffff:%s'
                  % (h, p, p + 311, lr, job.ips[peer], rng.randint(30000, 60000), rng.choice([0, 1, 32616]),
                     rng.choice(['Recv', 'Send']), job.ips[n], job.ips[peer]), 'e1')
            job.R(r, tt + 0.001, '%s:%d:%d [%d] NCCL INFO transport/net.cc:1302 -> 6' % (h, p, p + 311, lr))
            job.R(r, tt + 0.002, '%s:%d:%d [%d] NCCL INFO proxy.cc:698 -> 6' % (h, p, p + 311, lr))
            job.R(r, tt + 0.003, '%s:%d:%d [%d] NCCL INFO proxy.cc:878 -> 6 [Progress Thread]' % (h, p, p + 311, lr))
    job.N(n, t + 0.1, '%s [node-health] kernel: mlx5_core 0000:%s:00.0: mlx5_port_change:%d: Port %d Link DOWN'
          % (job.iso(n, t + 0.1), rng.choice(['1a', '3c', '5d', '9a']), 1037, 1), 'e2')
    t2 = job.cascade_nccl(t, others(job, []), seq=rng.randint(4000, 90000))
    job.teardown(t2, {n: (bad[0] % 8, -6)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=bad, events=[('e1', r'NCCL WARN NET/IB : Got completion from peer'),
                                                           ('e2', r'mlx5_core .* Link DOWN')], iters=[it])


def f_cuda_oom(job, it):
    # pipeline stage 0 ranks on node 0 run out of memory after a seq-len change
    rng = job.rng
    n = 0 if job.primary() != 0 else min(1, job.nn - 1)
    t = job.flow('train', it)
    bad = [n * 8 + lr for lr in rng.sample(range(8), rng.randint(1, 4))]
    for r in bad:
        job.py_tb(r, t + rng.uniform(0, 0.5), frames_for(job) + [
            ('/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py', 2264, 'softmax', 'ret = input.softmax(dim)')],
            ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.11 GiB '
             'of which %d.%02d MiB is free. Process %d has 79.%02d GiB memory in use. Of the allocated memory %.2f GiB is '
             'allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory '
             'is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See '
             'documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)'
             % (rng.uniform(1, 8), r % 8, rng.randint(10, 900), rng.randint(0, 99), job.pids[r], rng.randint(0, 99),
                rng.uniform(70, 76), rng.uniform(0.5, 2.5))], tag='e1', tagline='CUDA out of memory')
        job.dead.add(r)
    t2 = job.cascade_nccl(t, others(job, bad), seq=rng.randint(4000, 90000))
    job.teardown(t2, {n: (bad[0] % 8, 1)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=bad, events=[('e1', r'CUDA out of memory\. Tried to allocate')], iters=[it],
                accept=['user/configuration', 'platform/resource_management'])


def f_loss_scale(job, it):
    # fp16 DeepSpeed/Megatron: loss scale collapses, run exits
    rng = job.rng
    start = it - rng.randint(16, 24)
    r0 = job.primary()
    n0 = r0 // 8
    state = {'scale': 2.0 ** (it - start)}

    def hook(j, i, t):
        if i <= 4:   # benign start-up overflows
            j.R(r0, t, '[%s] [INFO] [loss_scaler.py:190:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. '
                'Attempted loss scale: %d, but hysteresis is 2. Reducing hysteresis to 1' % (j.py(n0, t), 2 ** 16))
        if i >= start:
            j.R(r0, t, '[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. '
                'Attempted loss scale: %d, reducing to %d' % (j.py(n0, t), state['scale'], state['scale'] / 2), 'e1')
            state['scale'] /= 2

    def lossf(i):
        base = max(1.7, 7.5 * (i + 60) ** -0.18)
        return base if i < start - 40 else base * (1 + (i - start + 40) * 0.03)

    job.iter_hook = hook
    job.loss_hook = lossf
    t = job.flow('train', it)
    job.py_tb(r0, t + 0.2, frames_for(job)[:3] + [
        ('/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/fp16/loss_scaler.py', 175, 'update_scale',
         'raise Exception(')],
        ['Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.'], tag='e2',
        tagline='Current loss scale already at minimum')
    job.dead.add(r0)
    t2 = job.cascade_nccl(t, others(job, [r0]), seq=rng.randint(4000, 90000))
    job.teardown(t2, {n0: (r0 % 8, 1)}, script_for(job))
    return dict(faulty_nodes=[], faulty_ranks=[], events=[('e1', r'OVERFLOW! Rank 0 Skipping step\. Attempted loss scale: [0-9.e+-]+, reducing to'),
                                                         ('e2', r'Current loss scale already at minimum')],
                iters=[it], accept=['user/configuration', 'framework/framework_bug'], overflow_from=start)


def f_ws_mismatch(job, it):
    rng = job.rng
    tp, pp = job.s['tp'], 3
    t = job.flow('init')
    for r in range(job.W):
        n = r // 8
        job.py_tb(r, t + rng.uniform(0, 0.4), [
            ('/workspace/%s/pretrain_gpt.py' % ('MindSpeed-LLM' if job.stack == 'ascend' else 'Megatron-LM'), 281, '<module>', 'pretrain('),
            ('/workspace/Megatron-LM/megatron/training/training.py', 229, 'pretrain', 'initialize_megatron('),
            ('/workspace/Megatron-LM/megatron/training/initialize.py', 74, 'initialize_megatron', 'finish_mpu_init()'),
            ('/workspace/Megatron-LM/megatron/core/parallel_state.py', 461, 'initialize_model_parallel', 'raise RuntimeError(')],
            ['RuntimeError: world_size (%d) is not divisible by tensor_model_parallel_size (%d) x '
             'pipeline_model_parallel_size (%d) x context_parallel_size (1)' % (job.W, tp, pp)], tag='e1',
            tagline='is not divisible by tensor_model_parallel_size')
        job.dead.add(r)
    job.teardown(t + 2, {n: (0, 1) for n in range(job.nn)}, script_for(job), exitcode=1)
    return dict(faulty_nodes=[], faulty_ranks=[], events=[('e1', r'is not divisible by tensor_model_parallel_size')], iters=[],
                override_tp_pp=(tp, pp))


def f_bad_arg(job, it):
    rng = job.rng
    t = job.flow('launch')
    bad = rng.choice(['--use-flash-attn-v3', '--overlap-grad-reduce-bucket', '--lr-warmup-ratio', '--seq-len'])
    sc = script_for(job)
    for r in range(job.W):
        job.R(r, t + rng.uniform(0, 0.5), 'usage: %s [-h] [--num-layers NUM_LAYERS] [--hidden-size HIDDEN_SIZE] ...' % sc)
        job.R(r, t + 0.6 + rng.uniform(0, 0.01), ('%s: error: unrecognized arguments: %s %s' % (sc, bad, rng.choice(['0.03', '8192', '']))).rstrip(),
              'e1')
        job.dead.add(r)
    job.teardown(t + 2, {n: (0, 2) for n in range(job.nn)}, sc, exitcode=2)
    return dict(faulty_nodes=[], faulty_ranks=[], events=[('e1', r'error: unrecognized arguments:')], iters=[])


def f_script_bug(job, it):
    # eval hook at a fixed iteration hits a bug on every rank
    rng = job.rng
    t = job.flow('train', it)
    variant = rng.choice(['key', 'attr', 'type'])
    for r in range(job.W):
        if job.stack == 'ascend' and job.fw == 'mindspore':
            final = ["KeyError: 'input_ids'"]
            frames = [('/workspace/mindformers/run_mindformer.py', 268, '<module>', 'main(config_)'),
                      ('/workspace/mindformers/mindformers/trainer/base_trainer.py', 912, 'training_process', 'model.train('),
                      ('/workspace/custom/eval_callback.py', 57, 'on_train_step_end', "batch = self.eval_ds['input_ids']")]
            pat = r"KeyError: 'input_ids'"
        else:
            frames = frames_for(job)[:2] + [('/workspace/train/callbacks/eval_hook.py', 88, 'run_eval', 'ppl = compute_ppl(model, batch)'),
                                            ('/workspace/train/callbacks/eval_hook.py', 41, 'compute_ppl',
                                             "logits = model(batch['input_ids'], attention_mask=batch['attn_mask']).logits")]
            if variant == 'key':
                final = ["KeyError: 'attn_mask'"]
                pat = r"KeyError: 'attn_mask'"
            elif variant == 'attr':
                final = ["AttributeError: 'NoneType' object has no attribute 'logits'"]
                pat = r"AttributeError: 'NoneType' object has no attribute 'logits'"
            else:
                final = ["TypeError: forward() got an unexpected keyword argument 'attention_mask'"]
                pat = r"TypeError: forward\(\) got an unexpected keyword argument 'attention_mask'"
        job.py_tb(r, t + 3 + rng.uniform(0, 0.3), frames, final, tag='e1', tagline=pat)
        job.dead.add(r)
    job.teardown(t + 5, {n: (0, 1) for n in range(job.nn)}, script_for(job), exitcode=1)
    return dict(faulty_nodes=[], faulty_ranks=[], events=[('e1', pat)], iters=[it])


def f_flash_ver(job, it):
    rng = job.rng
    t = job.flow('launch')
    sym = rng.choice(['_ZN3c104cuda9SetDeviceEi', '_ZN3c105ErrorC2ENS_14SourceLocationENSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE'])
    for r in range(job.W):
        job.py_tb(r, t + rng.uniform(0, 1), [
            ('/workspace/train/%s' % script_for(job), 12, '<module>', 'from flash_attn import flash_attn_varlen_func'),
            ('/usr/local/lib/python3.10/dist-packages/flash_attn/__init__.py', 3, '<module>', 'from flash_attn.flash_attn_interface import ('),
            ('/usr/local/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py', 10, '<module>', 'import flash_attn_2_cuda as flash_attn_cuda')],
            ['ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: '
             'undefined symbol: %s' % sym], tag='e1', tagline='undefined symbol')
        job.dead.add(r)
    job.teardown(t + 3, {n: (0, 1) for n in range(job.nn)}, script_for(job), exitcode=1)
    return dict(faulty_nodes=[], faulty_ranks=[], events=[('e1', r'flash_attn_2_cuda\.cpython-310-x86_64-linux-gnu\.so: undefined symbol')],
                iters=[])


def f_npu_ver(job, it):
    rng = job.rng
    t = job.flow('launch')
    for r in range(job.W):
        job.py_tb(r, t + rng.uniform(0, 1), [
            ('/workspace/MindSpeed-LLM/pretrain_gpt.py', 9, '<module>', 'import mindspeed.megatron_adaptor'),
            ('/workspace/MindSpeed/mindspeed/megatron_adaptor.py', 18, '<module>', 'from mindspeed.ops.npu_rotary_position_embedding import npu_rotary_position_embedding'),
            ('/workspace/MindSpeed/mindspeed/ops/npu_rotary_position_embedding.py', 3, '<module>', 'import torch_npu')],
            ['ImportError: /usr/local/Ascend/ascend-toolkit/latest/lib64/libopapi.so: undefined symbol: '
             'aclnnRotaryPositionEmbeddingGetWorkspaceSize'], tag='e1', tagline='undefined symbol')
        job.dead.add(r)
    job.teardown(t + 3, {n: (0, 1) for n in range(job.nn)}, script_for(job), exitcode=1)
    return dict(faulty_nodes=[], faulty_ranks=[], events=[('e1', r'libopapi\.so: undefined symbol')], iters=[])


def f_disk_full(job, it, node=None):
    rng = job.rng
    n = node if node is not None else rng.randrange(job.nn)
    r = n * 8
    t = job.flow('ckpt', it)
    path = '%s/iter_%07d/mp_rank_%02d_%03d/distrib_optim.pt' % (job.s['local_ckpt'], it, rng.randint(0, 7), n % job.s['pp'])
    job.py_tb(r, t + 5, [('/workspace/Megatron-LM/megatron/training/checkpointing.py', 423, 'save_checkpoint', 'torch.save(state_dict, checkpoint_name)'),
                         ('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 652, 'save',
                          '_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)'),
                         ('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 886, '_save',
                          'zip_file.write_record(name, storage, num_bytes)')],
              ['RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data/%d: '
               'file write failed' % rng.randint(3, 400)], tag='e1', tagline='PytorchStreamWriter failed writing file')
    job.R(r, t + 5.1, '')
    job.R(r, t + 5.2, 'During handling of the above exception, another exception occurred:')
    job.R(r, t + 5.3, '')
    job.R(r, t + 5.4, job.cp(r) + "OSError: [Errno 28] No space left on device: '%s'" % path, 'e2')
    job.N(n, t + 4, '%s [node-health] df %s: 100%% used (3.5T/3.5T)' % (job.iso(n, t + 4), job.s['local_ckpt']), 'e3')
    job.dead.add(r)
    if job.stack == 'cuda':
        t2 = job.cascade_nccl(t, others(job, [r]), seq=rng.randint(4000, 90000), op='BARRIER' if rng.random() < 0.5 else 'ALLREDUCE')
    else:
        t2 = job.cascade_hccl(t, others(job, [r]))
    job.teardown(t2, {n: (0, 1)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[r], events=[('e1', r'PytorchStreamWriter failed writing file'),
                                                           ('e2', r'No space left on device'), ('e3', r'\[node-health\] df .*100% used')],
                iters=[it], accept=['hardware/storage', 'platform/resource_management'])


def f_nfs_stale(job, it):
    rng = job.rng
    n = pick_fault_node(job, avoid_primary=False)
    r = n * 8
    t = job.flow('ckpt', it)
    for k in range(rng.randint(2, 4)):
        job.N(n, t - 200 + k * 30, '%s [node-health] kernel: nfs: server %s not responding, still trying'
              % (job.iso(n, t - 200 + k * 30), job.s['nfs']), 'e1')
    path = '%s/iter_%07d/mp_rank_%02d_%03d/model_optim_rng.pt' % (job.s['ckpt'], it, n % 8, 0)
    job.py_tb(r, t + 40, [('/workspace/Megatron-LM/megatron/training/checkpointing.py', 402, 'save_checkpoint',
                           'ensure_directory_exists(checkpoint_name)'),
                          ('/usr/lib/python3.10/os.py', 225, 'makedirs', 'mkdir(name, mode)')],
              ["OSError: [Errno 116] Stale file handle: '%s'" % os.path.dirname(path)], tag='e2', tagline='Stale file handle')
    job.dead.add(r)
    if job.stack == 'cuda':
        t2 = job.cascade_nccl(t, others(job, [r]), seq=rng.randint(4000, 90000), op='BARRIER')
    else:
        t2 = job.cascade_hccl(t, others(job, [r]))
    job.teardown(t2, {n: (0, 1)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[r], events=[('e1', r'nfs: server \S+ not responding'),
                                                           ('e2', r'Stale file handle')], iters=[it])


def f_dl_killed(job, it):
    rng = job.rng
    n = pick_fault_node(job, avoid_primary=False)
    lr = rng.randrange(8)
    r = n * 8 + lr
    t = job.flow('train', it)
    wpid = job.pids[r] + rng.randint(100, 900)
    job.N(n, t - 1, '%s [node-health] kernel: Out of memory: Killed process %d (pt_data_worker) total-vm:%dkB, '
          'anon-rss:%dkB, file-rss:0kB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0'
          % (job.iso(n, t - 1), wpid, rng.randint(60, 90) * 1048576, rng.randint(30, 60) * 1048576, rng.randint(1, 9) * 1048576,
             rng.randint(100000, 200000)), 'e2')
    job.py_tb(r, t, [('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 1133, '_try_get_data',
                      'data = self._data_queue.get(timeout=timeout)'),
                     ('/usr/lib/python3.10/queue.py', 180, 'get', 'self.not_empty.wait(remaining)'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/signal_handling.py', 67, 'handler',
                      '_error_if_any_worker_fails()')],
              ['RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. ' % wpid], tag='e1',
              tagline='DataLoader worker \\(pid')
    job.RT(r, t + 0.01, ['', 'The above exception was the direct cause of the following exception:', ''])
    job.py_tb(r, t + 0.02, frames_for(job)[:3] + [('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 1294,
                                                   '_get_data', 'success, data = self._try_get_data()')],
              ['RuntimeError: DataLoader worker (pid(s) %d) exited unexpectedly' % wpid], tag='e1', tagline='DataLoader worker \\(pid')
    job.dead.add(r)
    if job.stack == 'cuda':
        t2 = job.cascade_nccl(t, others(job, [r]), seq=rng.randint(4000, 90000))
    else:
        t2 = job.cascade_hccl(t, others(job, [r]))
    job.teardown(t2, {n: (lr, 1)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[r], events=[('e1', r'DataLoader worker \(pid(\(s\))? \d+\)'),
                                                           ('e2', r'Out of memory: Killed process')],
                iters=[it], stage='data_loading', accept=['user/configuration', 'platform/resource_management'])


def f_host_oom(job, it):
    rng = job.rng
    n = pick_fault_node(job, avoid_primary=False)
    t = job.flow('train', it)
    lrs = rng.sample(range(8), rng.randint(1, 3))
    for lr in lrs:
        job.N(n, t + lr * 0.01, '%s [node-health] kernel: Out of memory: Killed process %d (python3) total-vm:%dkB, '
              'anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:0'
              % (job.iso(n, t), job.pids[n * 8 + lr], rng.randint(200, 260) * 1048576, rng.randint(120, 190) * 1048576,
                 rng.randint(100, 900) * 1024, rng.randint(1, 9) * 1048576, rng.randint(300000, 500000)), 'e1')
        job.dead.add(n * 8 + lr)
    if job.s['launch'] == 'srun':
        job.N(0, t + 2, 'slurmstepd: error: Detected %d oom_kill event in StepId=%s.0. Some of the step tasks have been OOM '
              'Killed.' % (len(lrs), job.s['jobid']), None)
    if job.stack == 'cuda':
        t2 = job.cascade_nccl(t, others(job, [n * 8 + l for l in lrs]), seq=rng.randint(4000, 90000))
    else:
        t2 = job.cascade_hccl(t, others(job, [n * 8 + l for l in lrs]))
    if job.s['launch'] == 'srun':
        job.teardown(t2, {n: (lrs[0], -9)}, script_for(job))
    else:
        job.teardown(t + 3, {n: (lrs[0], -9)}, script_for(job), nodes=[n])
        job.teardown(t2, {}, script_for(job), nodes=[m for m in range(job.nn) if m != n])
    return dict(faulty_nodes=[n], faulty_ranks=[n * 8 + l for l in lrs], events=[('e1', r'Out of memory: Killed process')],
                iters=[it], accept=['platform/resource_management', 'user/configuration'])


def f_node_lost(job, it):
    """Faulty node just stops; only its peers name it."""
    rng = job.rng
    n = pick_fault_node(job)
    t = job.flow('train', it)
    job.dead.update(range(n * 8, n * 8 + 8))
    # peers in the ring see the connection drop
    ev = []
    peers = sorted(set([(n - 1) % job.nn, (n + 1) % job.nn]) - {n})
    for m in peers:
        for lr in rng.sample(range(8), rng.randint(2, 5)):
            r = m * 8 + lr
            if job.stack == 'cuda':
                job.R(r, t + 2 + rng.uniform(0, 1), '%s:%d:%d [%d] misc/socket.cc:%d NCCL WARN socketProgress: Connection '
                      'closed by remote peer %s<%d>' % (job.hosts[m], job.pids[r], job.pids[r] + 401, lr, 47,
                                                         job.hosts[n], rng.randint(30000, 60000)), 'e1')
            else:
                job.R(r, t + 2 + rng.uniform(0, 1), job.cp(r) + 'EI0006: [PID: %d] %s Getting socket times out. Reason: '
                      'Remote Rank did not send the data in time. Please check the reason for the rank being stuck. '
                      'remote rank ip: %s' % (job.pids[r], job.cann_ms(m, t + 2), job.ips[n]), 'e1')
    alive = [r for r in range(job.W) if r // 8 != n]
    if job.stack == 'cuda':
        t2 = job.cascade_nccl(t, alive, seq=rng.randint(4000, 90000))
    else:
        t2 = job.cascade_hccl(t, alive, remote=str(n * 8))
    job.teardown(t2, {}, script_for(job), nodes=[m for m in range(job.nn) if m != n])
    pat = (r'Connection closed by remote peer ' + esc(job.hosts[n]) + '<') if job.stack == 'cuda' else \
        (r'EI0006: .*remote rank ip: ' + esc(job.ips[n]) + '$')
    return dict(faulty_nodes=[n], faulty_ranks=list(range(n * 8, n * 8 + 8)), events=[('e1', pat)], iters=[it],
                cascade_only=True)


def f_no_route(job, it):
    """Faulty node cannot reach the master at init; logs almost nothing."""
    rng = job.rng
    n = pick_fault_node(job)
    job.launcher(0.0)
    job.env_dump(2.0)
    # wipe most of the faulty node's env dump: keep only 3 lines
    job.node[n] = job.node[n][:3]
    for r in range(n * 8, n * 8 + 8):
        job.rank[r] = []
    for k in range(rng.randint(3, 6)):
        job.N(n, 5 + k * 60, '[W socket.cpp:697] [c10d] The client socket has failed to connect to [%s]:29500 (errno: 113 - '
              'No route to host).' % job.ips[0], 'e1')
    job.dist_init(8.0, skip_nodes=(n,))
    tt = 1801.0
    blk = ['Traceback (most recent call last):',
           '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/rendezvous.py", line 189, in _create_c10d_store',
           '    return TCPStore(',
           'torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. %d/%d clients joined.'
           % (job.W - 8, job.W)]
    job.RT(0, tt, blk)
    for r in range(job.W):
        job.dead.add(r)
    job.teardown(tt + 1, {0: (0, 1)}, script_for(job), nodes=[m for m in range(job.nn) if m != n])
    return dict(faulty_nodes=[n], faulty_ranks=list(range(n * 8, n * 8 + 8)), events=[('e1', r'errno: 113 - No route to host')],
                iters=[], stage='init', symptom='launching_failure', accept=['hardware/network', 'platform/platform_configuration'])


def f_preempt(job, it):
    rng = job.rng
    t = job.flow('train', it)
    for n in range(job.nn):
        if job.s['launch'] == 'srun':
            break
        job.N(n, t + 0.5, 'slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***'
              % (job.s['jobid'], job.hosts[n], job.slurm_ts(n, t + 0.5)), 'e1')
    if job.s['launch'] == 'srun':
        job.N(0, t + 0.5, 'slurmstepd: error: *** JOB %s ON %s CANCELLED AT %s DUE TO PREEMPTION ***'
              % (job.s['jobid'], job.hosts[0], job.slurm_ts(0, t + 0.5)), 'e1')
    for n in range(job.nn):
        if job.s['launch'] != 'srun' and job.fw != 'mindspore':
            job.N(n, t + 0.6, 'W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death '
                  'signal, shutting down workers' % (job.glog(n, t + 0.6)[1:], job.agent_pid[n]))
    for r in range(job.W):
        job.dead.add(r)
    return dict(faulty_nodes=[], faulty_ranks=[], events=[('e1', r'CANCELLED AT \S+ DUE TO PREEMPTION')], iters=[it])


def f_straggler(job, it):
    rng = job.rng
    n = pick_fault_node(job)
    onset = it
    job.s['slow_clk'] = rng.choice([345, 510, 780])
    marks = {'done': False}

    def hook(j, i, t):
        if i == onset:
            j.slow[n] = rng.uniform(2.2, 3.5)
            lr = rng.randrange(8)
            j.N(n, t, '%s [node-health] GPU %d (00000000:%s:00.0): clocks_event_reasons.hw_slowdown: Active, '
                'hw_thermal_slowdown: Active, temperature %dC' % (j.iso(n, t), lr, busid(j, lr)[:2].upper(), rng.randint(88, 93)), 'e1')
            marks['lr'] = lr

    job.iter_hook = hook
    end = it + rng.randint(150, 400)
    job.s['li'] = job.s['li']
    t = job.flow('train', end)
    # job killed at the time limit / by the user
    tt = t + 60
    if job.s['launch'] in ('srun',):
        job.N(0, tt, 'slurmstepd: error: *** STEP %s.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***'
              % (job.s['jobid'], job.hosts[0], job.slurm_ts(0, tt)))
    else:
        for m in range(job.nn):
            if job.fw != 'mindspore':
                job.N(m, tt, 'W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death '
                      'signal, shutting down workers' % (job.glog(m, tt)[1:], job.agent_pid[m]))
            else:
                job.N(m, tt, '[WARNING] ME(%d:%d,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:290] '
                      'Received SIGTERM, kill all workers.' % (job.agent_pid[m], 281473000000, job.ms_ts(m, tt)))
    for r in range(job.W):
        job.dead.add(r)
    key = 'clocks_event_reasons.hw_slowdown: Active' if job.stack == 'cuda' else None
    return dict(faulty_nodes=[n], faulty_ranks=[], iters=[onset], symptom='abnormal_behavior',
                events=[('e1', r'hw_slowdown: Active' if job.stack == 'cuda' else r'aicore frequency throttled')],
                straggler=(n, onset))


def f_npu_straggler(job, it):
    rng = job.rng
    n = pick_fault_node(job)

    def hook(j, i, t):
        if i == it:
            j.slow[n] = rng.uniform(2.0, 3.0)
            for k in range(rng.randint(1, 3)):
                dev = rng.randrange(8)
                j.N(n, t + k, '%s [node-health] npu-smi: device %d aicore frequency throttled to 600MHz (temperature %dC, '
                    'power capped)' % (j.iso(n, t + k), dev, rng.randint(95, 105)), 'e1')

    job.iter_hook = hook
    t = job.flow('train', it + rng.randint(150, 300))
    for m in range(job.nn):
        job.N(m, t + 60, 'W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death '
              'signal, shutting down workers' % (job.glog(m, t + 60)[1:], job.agent_pid[m]))
    return dict(faulty_nodes=[n], faulty_ranks=[], iters=[it], symptom='abnormal_behavior',
                events=[('e1', r'aicore frequency throttled')])


def f_desync_hang(job, it):
    """Ranks on one node skip a collective: every other rank times out at SeqNum s, they at s-1."""
    rng = job.rng
    n = pick_fault_node(job)
    t = job.flow('train', it)
    seq = rng.randint(4000, 90000)
    bad = list(range(n * 8, n * 8 + 8))
    # the faulty node's ranks time out on a *different* op with a lower SeqNum
    for r in bad:
        tt = t + 600 + rng.uniform(0, 0.5)
        job.R(r, tt, '[rank%d]:[E%s ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: '
              'WorkNCCL(SeqNum=%d, OpType=BROADCAST, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600%03d milliseconds '
              'before timing out.' % (r, job.glog(n, tt)[1:], r, seq, rng.randint(10, 99)), 'e1')
        job.R(r, tt + 0.01, '[rank%d]:[E%s ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an '
              'error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d.'
              % (r, job.glog(n, tt)[1:], r, seq, seq, seq - 1))
        job.dead.add(r)
    t2 = job.cascade_nccl(t, others(job, bad), seq=seq, op='ALLREDUCE')
    job.teardown(t2, {}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=bad, iters=[it], symptom='abnormal_behavior',
                events=[('e1', r'WorkNCCL\(SeqNum=\d+, OpType=BROADCAST')],
                accept=['user/script_bug', 'framework/framework_bug'])


# ---------------- Ascend-specific faults
def f_npu_hbm(job, it, node=None):
    rng = job.rng
    n = pick_fault_node(job) if node is None else node
    lr = rng.randrange(8)
    r = n * 8 + lr
    t = job.flow('train', it)
    cp = job.cp(r)
    job.RT(r, t, ['RuntimeError: ACL stream synchronize failed, error code:507053',
                  '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed' % (job.cann(n, t), job.pids[r], lr, r),
                  '[Error]: The device memory is abnormal. ',
                  '        Rectify the fault based on the error information in the ascend log.',
                  'EZ9999: Inner Error!',
                  'EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, hbm Multi-bit ECC '
                  'error occurred during task execution, stream_id:%d, sq_id:%d, task_id:%d, addr=0x%x.'
                  '[FUNC:ProcessStarsHbmErrorInfo][FILE:device_error_proc.cc][LINE:1529]'
                  % (job.pids[r], job.cann_ms(n, t), lr, rng.randint(1, 40), rng.randint(2, 9), rng.randint(2, 9),
                     rng.randint(100, 30000), rng.randint(1 << 40, 1 << 44)),
                  '        TraceBack (most recent call last):',
                  '        rtStreamSynchronizeWithTimeout execute failed, reason=[device mem error][FUNC:FuncErrorReason]'
                  '[FILE:error_message_manage.cc][LINE:53]'])
    # tag
    recs = job.rank[r]
    for i in range(len(recs) - 8, len(recs)):
        tt, c, txt, tg = recs[i]
        if 'error code:507053' in txt or 'hbm Multi-bit ECC' in txt:
            recs[i] = (tt, c, txt, 'e1')
    job.N(n, t - 0.5, '%s [node-health] npu-smi info -t health -i %d: Health Status: Critical, Error Code: 80E01801 '
          '(HBM multi-bit ECC)' % (job.iso(n, t), lr), 'e2')
    job.dead.add(r)
    t2 = job.cascade_hccl(t, others(job, [r]), remote=str(r))
    job.teardown(t2, {n: (lr, -6)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[r], events=[('e1', r'(error code:507053|hbm Multi-bit ECC error)'),
                                                           ('e2', r'Health Status: Critical')], iters=[it])


def f_hccl_link(job, it):
    rng = job.rng
    n = pick_fault_node(job)
    t = job.flow('train', it)
    devs = rng.sample(range(8), rng.randint(1, 2))
    for k, d in enumerate(devs):
        job.N(n, t - 5 + k, '%s [node-health] hccn_tool -i %d -link -g : link status: DOWN' % (job.iso(n, t - 5), d), 'e1')
        job.N(n, t - 4.5 + k, '%s [node-health] hccn_tool -i %d -link_stat -g : [device %d]link down count: %d'
              % (job.iso(n, t - 4.5), d, d, rng.randint(3, 40)), 'e2')
    for d in devs:
        r = n * 8 + d
        job.R(r, t + 30, job.cp(r) + 'EI0006: [PID: %d] %s Getting socket times out. Reason: Remote Rank did not send the '
              'data in time. Please check the reason for the rank being stuck' % (job.pids[r], job.cann_ms(n, t + 30)))
    t2 = job.cascade_hccl(t, others(job, []), remote=str(n * 8 + devs[0]))
    job.teardown(t2, {n: (devs[0], -6)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[n * 8 + d for d in devs], events=[('e1', r'link status: DOWN'),
                                                                               ('e2', r'link down count')], iters=[it])


def f_hccl_connect(job, it):
    """One node's HCCL_IF_IP points at a wrong interface: socket setup times out at init."""
    rng = job.rng
    n = pick_fault_node(job)
    t = job.flow('init')
    wrong = '192.168.%d.%d' % (rng.randint(0, 9), rng.randint(2, 250))
    job.N(n, t - 3, 'HCCL_IF_IP=%s (overridden by /etc/profile.d/hccl.sh)' % wrong, 'e1')
    job.dist_init(8.0, skip_nodes=(n,))
    for r in range(job.W):
        m = r // 8
        if m == n:
            job.R(r, t + 120 + rng.uniform(0, 1), job.cp(r) + 'HCCL init: bind socket on %s failed, use ifname '
                  'fallback' % wrong, 'e2')
        tt = t + 1200 + rng.uniform(0, 2)
        job.R(r, tt, job.cp(r) + "RuntimeError: create:torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:%d HCCL function error: "
              'HcclGetRootInfo(&hcclID), error code is 7' % 110)
        job.R(r, tt + 0.01, job.cp(r) + '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed.'
              % (job.cann(m, tt), job.pids[r], r % 8, r))
        job.R(r, tt + 0.02, job.cp(r) + 'EI0006: [PID: %d] %s Getting socket times out. Reason: Remote Rank did not send the '
              'data in time. Please check the reason for the rank being stuck' % (job.pids[r], job.cann_ms(m, tt)))
        job.dead.add(r)
    job.teardown(t + 1205, {m: (0, 1) for m in range(job.nn)}, script_for(job), exitcode=1)
    return dict(faulty_nodes=[n], faulty_ranks=list(range(n * 8, n * 8 + 8)), events=[('e1', r'HCCL_IF_IP=.*overridden'),
                                                                                   ('e2', r'HCCL init: bind socket on')],
                iters=[], stage='init', symptom='launching_failure', accept=['platform/platform_configuration', 'hardware/network'])


def f_npu_oom(job, it):
    rng = job.rng
    n = 0 if job.primary() != 0 else min(1, job.nn - 1)
    job.fail_load = True
    if not job.s['ckpt_iter']:
        job.s['ckpt_iter'] = 4000
    t = job.flow('model', it)
    bad = [n * 8 + lr for lr in rng.sample(range(8), rng.randint(1, 3))]
    for r in bad:
        job.py_tb(r, t + rng.uniform(0, 2), [
            ('/workspace/MindSpeed-LLM/megatron/training/checkpointing.py', 1043, 'load_checkpoint', 'model[0].load_state_dict(state_dict["model"], strict=strict)'),
            ('/usr/local/python3.10/lib/python3.10/site-packages/torch/nn/modules/module.py', 2139, 'load_state_dict', 'load(self, state_dict)')],
            ['RuntimeError: NPU out of memory. Tried to allocate %.2f MiB (NPU %d; 60.97 GiB total capacity; %.2f GiB already '
             'allocated; %.2f GiB current active; %.2f MiB free; %.2f GiB reserved in total by PyTorch) If reserved memory is '
             '>> allocated memory try setting max_split_size_mb to avoid fragmentation.'
             % (rng.uniform(200, 900), r % 8, rng.uniform(58, 60), rng.uniform(58, 60), rng.uniform(5, 30), rng.uniform(59.5, 60.5))],
            tag='e1', tagline='NPU out of memory')
        job.dead.add(r)
    t2 = job.cascade_hccl(t, others(job, bad))
    job.teardown(t2, {n: (bad[0] % 8, 1)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=bad, events=[('e1', r'NPU out of memory\. Tried to allocate')], iters=[],
                stage='model_loading', accept=['user/configuration'])


def f_ms_oom(job, it):
    rng = job.rng
    n = rng.randrange(job.nn)
    t = job.flow('train', it)
    bad = [n * 8 + lr for lr in rng.sample(range(8), rng.randint(1, 2))]
    for r in bad:
        job.R(r, t, '[ERROR] PRE_ACT(%d,%x,python):%s [mindspore/ccsrc/backend/common/mem_reuse/mem_dynamic_allocator.cc:392] '
              'AddMemBlockAndMemBufByEagerFree] TotalUsedMemStatistics : %d plus TotalUsedByEventMemStatistics : 0 and plus '
              'alloc size : %d is more than total mem size : 61079552000.' % (job.pids[r], 0xfffbdf600000 + r, job.ms_ts(n, t),
                                                                             rng.randint(55, 60) * 10 ** 9, rng.randint(2, 9) * 10 ** 9), 'e1')
        job.R(r, t + 0.1, 'EL0004: [PID: %d] %s Failed to allocate memory.' % (job.pids[r], job.cann_ms(n, t + 0.1)), 'e2')
        job.R(r, t + 0.11, '        Possible Cause: Available memory is insufficient.')
        job.R(r, t + 0.12, '        Solution: Close applications not in use.')
        job.R(r, t + 0.2, 'RuntimeError: Allocate memory failed')
        job.dead.add(r)
    t2 = job.cascade_hccl(t, others(job, bad))
    job.teardown(t2, {n: (bad[0] % 8, 1)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=bad, events=[('e1', r'is more than total mem size'), ('e2', r'EL0004: .*Failed to allocate memory')],
                iters=[it], accept=['user/configuration'])


def f_aicore(job, it):
    rng = job.rng
    n = rng.randrange(job.nn)
    lr = rng.randrange(8)
    r = n * 8 + lr
    t = job.flow('train', it)
    blk = ['RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function error: '
           'c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035',
           '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed' % (job.cann(n, t), job.pids[r], lr, r),
           '[Error]: The vector core execution is abnormal. ',
           '        Rectify the fault based on the error information in the ascend log.',
           'EZ9999: Inner Error!']
    for k in range(rng.randint(2, 4)):
        blk.append('EZ9999: [PID: %d] %s The error from device(chipId:%d, dieId:0), serial number is %d, there is an aivec '
                   'error exception, core id is %d, error code = 0x800000, dump info: pc start: 0x%x, current: 0x%x, vec error '
                   'info: 0x680000016f, mte error info: 0x200600006b.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1434]'
                   % (job.pids[r], job.cann_ms(n, t), lr, 230 + k, rng.randint(0, 40), 0x124837587968, 0x124837588284 + k * 16))
        blk.append('        The extend info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out of '
                   'range. fixp_error0 info: 0x600006b, fixp_error1 info: 0x20, fsmId:0, tslot:4, thread:0, ctxid:0, blk:%d, '
                   'sublk:0, subErrType:4.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1446]' % (33 + k))
    blk.append('        Kernel task happen error, retCode=0x31, [vector core exception].[FUNC:PreCheckTaskErr]'
               '[FILE:davinci_kernel_task.cc][LINE:1312]')
    blk.append('        [AIC_INFO] node_name:aclnnFlashAttentionScoreGrad_FlashAttentionScoreGrad_FlashAttentionScoreGrad, '
               'node_type:FlashAttentionScoreGrad')
    job.RT(r, t, blk, tag='e1', tagline=r'(error code is 507035|there is an aivec error exception)')
    job.dead.add(r)
    t2 = job.cascade_hccl(t, others(job, [r]), remote=str(r))
    job.teardown(t2, {n: (lr, -6)}, script_for(job))
    return dict(faulty_nodes=[n], faulty_ranks=[r], events=[('e1', r'(error code is 507035|there is an aivec error exception)')],
                iters=[it], accept=['framework/framework_bug', 'user/software_incompatibility'])


FAULTS = {
    # name: (handler, category, subcategory, symptom, stage, stacks)
    'xid79': (f_xid79, 'hardware', 'accelerator', 'training_crash', 'training', ('cuda',)),
    'ecc_xid48': (f_ecc48, 'hardware', 'accelerator', 'training_crash', 'training', ('cuda',)),
    'nvlink_xid74': (f_nvlink, 'hardware', 'accelerator', 'training_crash', 'training', ('cuda',)),
    'nccl_ib_link': (f_nccl_ib, 'hardware', 'network', 'training_crash', 'training', ('cuda',)),
    'cuda_oom': (f_cuda_oom, 'user', 'configuration', 'training_crash', 'training', ('cuda',)),
    'loss_scale_collapse': (f_loss_scale, 'user', 'configuration', 'training_crash', 'training', ('cuda',)),
    'ws_tp_pp_mismatch': (f_ws_mismatch, 'user', 'configuration', 'launching_failure', 'init', ('cuda', 'ascend')),
    'bad_argument': (f_bad_arg, 'user', 'configuration', 'launching_failure', 'init', ('cuda', 'ascend')),
    'script_bug_eval': (f_script_bug, 'user', 'script_bug', 'training_crash', 'training', ('cuda', 'ascend')),
    'flash_attn_abi': (f_flash_ver, 'user', 'software_incompatibility', 'launching_failure', 'init', ('cuda',)),
    'npu_opapi_abi': (f_npu_ver, 'user', 'software_incompatibility', 'launching_failure', 'init', ('ascend',)),
    'ckpt_disk_full': (f_disk_full, 'hardware', 'storage', 'training_crash', 'checkpoint', ('cuda', 'ascend')),
    'ckpt_nfs_stale': (f_nfs_stale, 'hardware', 'storage', 'training_crash', 'checkpoint', ('cuda', 'ascend')),
    'dataloader_killed': (f_dl_killed, 'user', 'configuration', 'training_crash', 'data_loading', ('cuda', 'ascend')),
    'host_oom_killer': (f_host_oom, 'platform', 'resource_management', 'training_crash', 'training', ('cuda', 'ascend')),
    'node_lost': (f_node_lost, 'hardware', 'node', 'training_crash', 'training', ('cuda', 'ascend')),
    'no_route_init': (f_no_route, 'hardware', 'network', 'launching_failure', 'init', ('cuda',)),
    'preemption': (f_preempt, 'platform', 'scheduling', 'training_crash', 'training', ('cuda', 'ascend')),
    'straggler_thermal': (f_straggler, 'hardware', 'accelerator', 'abnormal_behavior', 'training', ('cuda',)),
    'npu_straggler': (f_npu_straggler, 'hardware', 'accelerator', 'abnormal_behavior', 'training', ('ascend',)),
    'collective_desync_hang': (f_desync_hang, 'user', 'script_bug', 'abnormal_behavior', 'training', ('cuda',)),
    'npu_hbm_ecc': (f_npu_hbm, 'hardware', 'accelerator', 'training_crash', 'training', ('ascend',)),
    'hccl_roce_link_down': (f_hccl_link, 'hardware', 'network', 'training_crash', 'training', ('ascend',)),
    'hccl_if_ip_misconfig': (f_hccl_connect, 'platform', 'platform_configuration', 'launching_failure', 'init', ('ascend',)),
    'npu_oom_ckpt_load': (f_npu_oom, 'user', 'configuration', 'training_crash', 'model_loading', ('ascend',)),
    'mindspore_device_oom': (f_ms_oom, 'user', 'configuration', 'training_crash', 'training', ('ascend',)),
    'npu_aicore_exception': (f_aicore, 'framework', 'framework_bug', 'training_crash', 'training', ('ascend',)),
}

ROOT = {
    'xid79': ('GPU {gpu} on {host} dropped off the PCIe bus (Xid 79), killing its rank and stalling every collective.',
              'Drain {host}, reseat or replace the GPU/riser after a cold reboot, and resume from the last checkpoint without it.'),
    'ecc_xid48': ('GPU {gpu} on {host} hit an uncorrectable double-bit ECC error (Xid 48) and its process aborted.',
                  'Take {host} out of the pool, run a GPU memory diagnostic and RMA the card if the DBE repeats, then resume.'),
    'nvlink_xid74': ('An NVLink lane of GPU {gpu} on {host} failed (Xid 74), corrupting peer-to-peer traffic and aborting the rank.',
                     'Cordon {host}, run the NVLink/fabric diagnostics, replace the faulty board and restart from checkpoint.'),
    'nccl_ib_link': ('A RoCE/IB port on {host} went down, so NCCL transfers from that node failed with completion status 12 (retry exceeded).',
                     'Check the cable, transceiver and switch port of {host}, exclude the node until the link is stable, then resume.'),
    'cuda_oom': ('The chosen micro-batch/sequence length does not fit in GPU memory on the first pipeline stage, which ran out of memory.',
                 'Lower the micro-batch size or sequence length, or enable more recomputation / a larger pipeline split, and relaunch.'),
    'loss_scale_collapse': ('fp16 training diverged: gradients overflowed every step until the dynamic loss scale hit its minimum and the run stopped.',
                            'Restart from an earlier checkpoint with a lower learning rate / longer warm-up, or switch to bf16.'),
    'ws_tp_pp_mismatch': ('The world size is not a multiple of tensor x pipeline parallel size, so model-parallel initialisation failed on every rank.',
                          'Pick tensor/pipeline sizes whose product divides the number of devices, or change the node count.'),
    'bad_argument': ('The launch command passes an option that the training script does not recognise, so argument parsing exits on every rank.',
                     'Remove or rename the unsupported option to match the script version and resubmit.'),
    'script_bug_eval': ('A user evaluation hook indexes or calls the model incorrectly, raising the same Python exception on every rank.',
                        'Fix the evaluation code (field names / model call signature), test it on a single node, then resume.'),
    'flash_attn_abi': ('The installed flash-attn wheel was built against a different PyTorch ABI, so its extension fails to load with an undefined symbol.',
                       'Reinstall flash-attn built for the exact torch/CUDA version in the image (or rebuild the image) and relaunch.'),
    'npu_opapi_abi': ('MindSpeed expects a newer CANN operator library than the one installed, so importing its fused rotary op fails.',
                      'Align the CANN toolkit, torch_npu and MindSpeed versions according to the compatibility matrix and relaunch.'),
    'ckpt_disk_full': ('The local checkpoint staging volume on {host} filled up, so writing the checkpoint shard failed.',
                       'Free or enlarge the staging volume on {host}, prune old checkpoints, and resume from the last complete save.'),
    'ckpt_nfs_stale': ('The NFS mount holding checkpoints went stale on {host} while saving, so the save raised a stale file handle error.',
                       'Remount the checkpoint share on {host}, check the NFS server health, and resume from the last complete checkpoint.'),
    'dataloader_killed': ('A data-loader worker on {host} was killed by the kernel OOM killer because the workers used too much host memory.',
                          'Reduce num_workers / prefetch or the in-memory dataset footprint, or request more host memory, then resume.'),
    'host_oom_killer': ('Host memory on {host} was exhausted and the kernel OOM killer terminated training processes.',
                        'Reduce host memory use (pinned buffers, CPU offload, workers) or schedule on nodes with more RAM, then resume.'),
    'node_lost': ('Node {host} stopped responding mid-training (it logged nothing further) and its peers lost their connections to it.',
                  'Check the node\'s BMC/console for a crash or power event, drain it, and restart the job without it.'),
    'no_route_init': ('Node {host} could not reach the rendezvous master (no route to host), so the job never finished initialising.',
                      'Fix the routing / NIC configuration of {host} (or exclude it) and resubmit.'),
    'preemption': ('The scheduler preempted the job for a higher-priority allocation; no component failed.',
                   'Resubmit (or use a non-preemptible partition/QoS) and resume from the last checkpoint.'),
    'straggler_thermal': ('GPU {gpu} on {host} started thermal/hardware slowdown, making every step of the synchronous job about 2-3x slower.',
                          'Check cooling and power of {host}, replace or exclude the throttling GPU, and restart from checkpoint.'),
    'npu_straggler': ('NPUs on {host} were throttled to a low AI-core frequency, slowing every synchronous step of the job.',
                      'Inspect cooling and power capping on {host}, exclude it until fixed, and resume from checkpoint.'),
    'collective_desync_hang': ('Ranks on {host} took a different code path and issued a broadcast while everyone else issued an all-reduce, so the job hung until the watchdog fired.',
                               'Make the collective sequence identical on all ranks (no rank-dependent branches around collectives) and relaunch.'),
    'npu_hbm_ecc': ('NPU {gpu} on {host} hit an uncorrectable multi-bit HBM ECC error and its process aborted.',
                    'Isolate the NPU / node {host}, run the device memory diagnostic, replace the module, and resume from checkpoint.'),
    'hccl_roce_link_down': ('The RoCE link of NPU {gpu} on {host} went down, so HCCL traffic through it stalled and every rank timed out.',
                            'Repair the optical module/cable of that port on {host} (hccn_tool link stats), then resume.'),
    'hccl_if_ip_misconfig': ('A profile script on {host} overrode HCCL_IF_IP with an address of the wrong interface, so HCCL could not connect at init.',
                             'Remove the override so HCCL_IF_IP names the training NIC on {host}, and resubmit.'),
    'npu_oom_ckpt_load': ('Loading the checkpoint on the first pipeline stage exceeded NPU memory.',
                          'Load with a smaller footprint (more pipeline stages, CPU-side loading, or smaller micro-batch) and relaunch.'),
    'mindspore_device_oom': ('The MindSpore graph on {host} needs more device memory than the NPU has, so allocation failed during training.',
                             'Reduce the batch/sequence size or enable recomputation / optimizer parallel in the MindFormers config.'),
    'npu_aicore_exception': ('The FlashAttentionScoreGrad kernel on NPU {gpu} of {host} accessed memory out of range, an operator bug that aborted the rank.',
                             'Upgrade CANN/torch_npu to a release with the fixed operator or disable the fused attention path, then resume.'),
}

# --------------------------------------------------------------------------
# job specs and layouts
# --------------------------------------------------------------------------
SETTINGS = {
    'llama2-70b-megatron-cuda': dict(stack='cuda', fw='megatron', model='llama2-70b', gpu='H100 80GB HBM3', tp=8, pp=4, gbs=1024, step_ms=9800, lr=1.5e-4),
    'gpt-13b-megatron-cuda': dict(stack='cuda', fw='megatron', model='gpt-13b', gpu='A100-SXM4-80GB', tp=4, pp=2, gbs=512, step_ms=4200, lr=2e-4),
    'qwen2-7b-sft-deepspeed-cuda': dict(stack='cuda', fw='deepspeed', model='qwen2-7b', gpu='A800-SXM4-80GB', tp=1, pp=1, gbs=256, step_ms=2900, lr=1e-5),
    'llama3-8b-accelerate-cuda': dict(stack='cuda', fw='hf', model='llama3-8b', gpu='H800', tp=1, pp=1, gbs=128, step_ms=2100, lr=2e-5),
    'mixtral-8x7b-fsdp-cuda': dict(stack='cuda', fw='fsdp', model='mixtral-8x7b', gpu='H100 80GB HBM3', tp=1, pp=1, gbs=512, step_ms=6100, lr=3e-4),
    'qwen-72b-mindspeed-ascend': dict(stack='ascend', fw='mindspeed', model='qwen-72b', tp=8, pp=4, gbs=512, step_ms=11800, lr=1.25e-4),
    'llama2-13b-mindspeed-ascend': dict(stack='ascend', fw='mindspeed', model='llama2-13b', tp=4, pp=2, gbs=256, step_ms=5200, lr=2e-4),
    'glm4-9b-mindformers-ascend': dict(stack='ascend', fw='mindspore', model='glm4-9b', tp=4, pp=1, gbs=256, step_ms=4700, lr=5e-5),
    'baichuan2-13b-deepspeed-npu-ascend': dict(stack='ascend', fw='deepspeed', model='baichuan2-13b', tp=1, pp=1, gbs=256, step_ms=3600, lr=1e-5),
}

# layouts: per_node (file per host), per_node_tr (torchrun [defaultN]: prefixes), k8s_pods, host_rank (host/rank_N.log),
# ms_workers (ip/worker_N.log), srun_console (slurm-<id>.out, srun -l), rank_console ([rankN]: combined),
# pdsh_console (DeepSpeed pdsh: "host: "), ray_console ((RayTrainWorker pid=, ip=)), slurm_restart (two srun consoles)

PLAN = [
    # (fault, setting, layout, nnodes)
    ('xid79', 'llama2-70b-megatron-cuda', 'per_node', 16),
    ('xid79', 'mixtral-8x7b-fsdp-cuda', 'srun_console', 4),
    ('ecc_xid48', 'gpt-13b-megatron-cuda', 'slurm_restart', 4),
    ('ecc_xid48', 'qwen2-7b-sft-deepspeed-cuda', 'pdsh_console', 4),
    ('nvlink_xid74', 'llama2-70b-megatron-cuda', 'per_node_tr', 8),
    ('nccl_ib_link', 'gpt-13b-megatron-cuda', 'per_node', 8),
    ('nccl_ib_link', 'mixtral-8x7b-fsdp-cuda', 'k8s_pods', 6),
    ('cuda_oom', 'llama3-8b-accelerate-cuda', 'rank_console', 2),
    ('cuda_oom', 'gpt-13b-megatron-cuda', 'host_rank', 3),
    ('loss_scale_collapse', 'qwen2-7b-sft-deepspeed-cuda', 'per_node', 4),
    ('ws_tp_pp_mismatch', 'gpt-13b-megatron-cuda', 'srun_console', 4),
    ('bad_argument', 'llama3-8b-accelerate-cuda', 'per_node', 2),
    ('script_bug_eval', 'llama3-8b-accelerate-cuda', 'ray_console', 4),
    ('script_bug_eval', 'mixtral-8x7b-fsdp-cuda', 'per_node_tr', 4),
    ('flash_attn_abi', 'qwen2-7b-sft-deepspeed-cuda', 'k8s_pods', 2),
    ('ckpt_disk_full', 'llama2-70b-megatron-cuda', 'slurm_restart', 8),
    ('ckpt_nfs_stale', 'gpt-13b-megatron-cuda', 'per_node', 6),
    ('dataloader_killed', 'mixtral-8x7b-fsdp-cuda', 'per_node', 4),
    ('host_oom_killer', 'qwen2-7b-sft-deepspeed-cuda', 'srun_console', 3),
    ('node_lost', 'llama2-70b-megatron-cuda', 'per_node', 32),
    ('no_route_init', 'gpt-13b-megatron-cuda', 'per_node', 4),
    ('preemption', 'llama3-8b-accelerate-cuda', 'per_node', 2),
    ('straggler_thermal', 'gpt-13b-megatron-cuda', 'per_node_tr', 8),
    ('collective_desync_hang', 'mixtral-8x7b-fsdp-cuda', 'per_node', 4),
    # ascend (16)
    ('npu_hbm_ecc', 'qwen-72b-mindspeed-ascend', 'per_node', 16),
    ('npu_hbm_ecc', 'glm4-9b-mindformers-ascend', 'ms_workers', 2),
    ('hccl_roce_link_down', 'llama2-13b-mindspeed-ascend', 'per_node', 4),
    ('hccl_roce_link_down', 'qwen-72b-mindspeed-ascend', 'rank_console', 4),
    ('hccl_if_ip_misconfig', 'baichuan2-13b-deepspeed-npu-ascend', 'pdsh_console', 4),
    ('npu_oom_ckpt_load', 'llama2-13b-mindspeed-ascend', 'host_rank', 2),
    ('mindspore_device_oom', 'glm4-9b-mindformers-ascend', 'ms_workers', 2),
    ('npu_aicore_exception', 'llama2-13b-mindspeed-ascend', 'k8s_pods', 4),
    ('npu_opapi_abi', 'qwen-72b-mindspeed-ascend', 'per_node', 8),
    ('ws_tp_pp_mismatch', 'llama2-13b-mindspeed-ascend', 'per_node', 2),
    ('script_bug_eval', 'glm4-9b-mindformers-ascend', 'ms_workers', 2),
    ('ckpt_nfs_stale', 'qwen-72b-mindspeed-ascend', 'per_node', 8),
    ('host_oom_killer', 'baichuan2-13b-deepspeed-npu-ascend', 'per_node', 4),
    ('node_lost', 'llama2-13b-mindspeed-ascend', 'per_node', 6),
    ('npu_straggler', 'baichuan2-13b-deepspeed-npu-ascend', 'per_node', 4),
    ('dataloader_killed', 'baichuan2-13b-deepspeed-npu-ascend', 'srun_console', 2),
]

HOST_SCHEMES = [
    lambda i, r: 'node-%02d' % i, lambda i, r: 'gpu-a%02d' % (i + 11), lambda i, r: 'dgx-b%02d' % (i + 3),
    lambda i, r: 'cn%04d' % (420 + i), lambda i, r: 'ip-10-0-%d-%d' % (12 + i // 5, 7 + 13 * i % 200),
    lambda i, r: 'mj-a800-%02d' % (i + 1), lambda i, r: 'hpc-h100-r%dn%02d' % (i // 8 + 1, i % 8 + 1),
]
ASCEND_SCHEMES = [lambda i, r: 'ascend-910b-%02d' % (i + 1), lambda i, r: 'ks-npu-%03d' % (100 + 3 * i),
                  lambda i, r: 'atlas-%02d' % (i + 5)]


def make_spec(case_id, fault, setting, layout, nnodes, rng):
    st = dict(SETTINGS[setting])
    st['setting'] = setting
    st['nnodes'] = nnodes
    st['layout'] = layout
    schemes = HOST_SCHEMES if st['stack'] == 'cuda' else ASCEND_SCHEMES
    sch = rng.choice(schemes)
    st['hosts'] = [sch(i, rng) for i in range(nnodes)]
    a, b = rng.randint(2, 30), rng.randint(0, 200)
    st['ips'] = ['10.%d.%d.%d' % (a, b + (i * 7 + 3) // 250, (i * 7 + 3) % 250 + 2) for i in range(nnodes)]
    if layout == 'k8s_pods':
        job = rng.choice(['llm-pt', 'sft-run', 'pretrain', 'mtjob'])
        st['hosts'] = ['%s-%s-%d' % (job, 'master' if i == 0 else 'worker', 0 if i == 0 else i - 1) for i in range(nnodes)]
    st['skew'] = [rng.uniform(-2.5, 2.5) for _ in range(nnodes)]
    st['jobid'] = str(rng.randint(300000, 999999))
    st['t0'] = rng.choice(BASE_DATES) + _dt.timedelta(minutes=rng.randint(0, 600))
    st['ifname'] = rng.choice(['eth0', 'bond0', 'ens12f0np0'])
    st['busids'] = ['18000', '2a000', '3a000', '5d000', '9a000', 'ab000', 'ba000', 'db000']
    st['ckpt'] = rng.choice(['/mnt/nfs/ckpt/', '/lustre/proj/ckpt/', '/data/shared/ckpt/']).rstrip('/') + '/' + st['model']
    st['local_ckpt'] = '/local_nvme/ckpt_stage'
    st['nfs'] = rng.choice(['nas01', 'fs-ckpt-02', '10.255.0.10'])
    st['train_iters'] = rng.choice([5000, 20000, 50000, 100000])
    st['li'] = rng.choice([1, 5, 10]) if st['step_ms'] > 8000 else rng.choice([10, 20])
    st['si'] = rng.choice([200, 250, 500])
    st['ga'] = 8
    st['ckpt_iter'] = rng.choice([0, 0, 2000, 8000])
    st['cpp_prefix'] = rng.random() < 0.5
    st['ansi'] = layout == 'k8s_pods' or rng.random() < 0.6
    st['wrap'] = layout == 'k8s_pods' and rng.random() < 0.7
    st['launch'] = {'srun_console': 'srun', 'slurm_restart': 'srun', 'pdsh_console': 'pdsh'}.get(layout, 'torchrun')
    if st['fw'] == 'mindspore':
        st['launch'] = 'msrun'
    st['case_id'] = case_id
    st['fault'] = fault
    return st


def choose_iter(spec, rng, fault):
    si = spec['si']
    start = spec['ckpt_iter']
    if FAULTS[fault][4] == 'checkpoint':
        return start + si * rng.randint(1, 4)
    return start + rng.randint(si // 2, 4 * si if spec['step_ms'] < 6000 else 2 * si)


# --------------------------------------------------------------------------
# layout writers -> list of (relpath, [(text, tag, node_label_name)], console_kind)
# --------------------------------------------------------------------------
def merged(recs):
    return [x for x in sorted(recs, key=lambda x: (x[0], x[1]))]


def strip_ext(name):
    for ext in ('.gz',):
        if name.endswith(ext):
            name = name[:-len(ext)]
    for ext in ('.log', '.txt', '.out'):
        if name.endswith(ext):
            return name[:-len(ext)]
    return name


def wrap(text, width):
    if len(text) <= width:
        return [text]
    return [text[i:i + width] for i in range(0, len(text), width)]


def ansi_decorate(text, rng_bit):
    # colour the level token of python-logging style lines (as rich/coloredlogs consoles do)
    for lvl, col in (('[INFO]', '32'), ('[WARNING]', '33'), ('[ERROR]', '31')):
        if lvl in text[:60]:
            return text.replace(lvl, '\x1b[%sm%s\x1b[0m' % (col, lvl), 1)
    if re.match(r'^[WE]\d{4} ', text):
        return '\x1b[%sm%s\x1b[0m' % ('33' if text[0] == 'W' else '31', text)
    if re.match(r'^(\[rank\d+\]: )?\w*(Error|Exception)\b', text):
        return '\x1b[1;31m%s\x1b[0m' % text
    return text


def layout_files(spec, jobs):
    """jobs: list of Job (one per attempt).  Returns files list."""
    L = spec['layout']
    files = []
    if L in ('per_node', 'per_node_tr', 'k8s_pods'):
        job = jobs[0]
        ext = {'per_node': spec.get('ext', '.log'), 'per_node_tr': '.log', 'k8s_pods': '.log'}[L]
        for n in range(job.nn):
            recs = list(job.node[n])
            for lr in range(8):
                r = n * 8 + lr
                if L == 'per_node_tr':
                    recs += [(t, c, '[default%d]:%s' % (lr, x), g) for (t, c, x, g) in job.rank[r]]
                else:
                    recs += job.rank[r]
            name = job.hosts[n] if spec.get('name_by') != 'ip' else job.ips[n]
            lines = []
            for (t, c, x, g) in merged(recs):
                if spec['ansi'] and L in ('k8s_pods', 'per_node_tr'):
                    x = ansi_decorate(x, 0)
                pieces = wrap(x, 240) if spec['wrap'] else [x]
                for i, p in enumerate(pieces):
                    lines.append((p, g if i == 0 else None))
            files.append((name + ext, lines, None))
    elif L == 'host_rank':
        job = jobs[0]
        for n in range(job.nn):
            files.append(('%s/launcher.log' % job.hosts[n], [(x, g) for (t, c, x, g) in merged(job.node[n])], None))
            for lr in range(8):
                files.append(('%s/rank_%d.log' % (job.hosts[n], lr), [(x, g) for (t, c, x, g) in merged(job.rank[n * 8 + lr])], None))
    elif L == 'ms_workers':
        job = jobs[0]
        for n in range(job.nn):
            for lr in range(8):
                r = n * 8 + lr
                recs = list(job.rank[r]) + (list(job.node[n]) if lr == 0 else [])
                files.append(('%s/worker_%d.log' % (job.ips[n], r), [(x, g) for (t, c, x, g) in merged(recs)], None))
            if n == 0:
                files.append(('%s/scheduler.log' % job.ips[n], [
                    ('[INFO] DISTRIBUTED(%d,%x,python):%s [mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d] '
                     'Register] The new node: %d(role: MS_WORKER), rank id: %d, device id: %d, hostname: %s, ip: %s is registered '
                     'successfully. Currently registered node number: %d, expected node number: %d'
                     % (job.agent_pid[0] + 1, 0xfffe10000000, job.ms_ts(0, 5 + 0.01 * r), 277, r, r, r % 8, job.hosts[r // 8],
                        job.ips[r // 8], r + 1, job.W), None) for r in range(job.W)], None))
    elif L in ('srun_console', 'slurm_restart', 'rank_console'):
        for job in jobs:
            recs = []
            width = len(str(job.W - 1))
            def pref(r, x):
                if L == 'rank_console':
                    return x if x.startswith('[rank%d]:' % r) else '[rank%d]: %s' % (r, x)
                return '%*d: %s' % (width, r, x)
            for r in range(job.W):
                recs += [(t, c, pref(r, x), g, r) for (t, c, x, g) in job.rank[r]]
            for n in range(job.nn):
                # launcher / scheduler lines stay unprefixed; node-side prints come from the node's first task
                recs += [(t, c, x, g, None) if c in job.agent_ids else (t, c, pref(n * 8, x), g, n * 8)
                         for (t, c, x, g) in job.node[n]]
            recs.sort(key=lambda z: (z[0], z[1]))
            name = ('slurm-%s.out' % job.s['jobid']) if L != 'rank_console' else 'train_console.log'
            files.append((name, [(x, g, r) for (t, c, x, g, r) in recs], 'srun' if L != 'rank_console' else 'rankbr'))
    elif L in ('pdsh_console', 'ray_console'):
        job = jobs[0]
        recs = []
        for n in range(job.nn):
            for lr in range(8):
                r = n * 8 + lr
                if L == 'pdsh_console':
                    recs += [(t, c, '%s: %s' % (job.hosts[n], x), g) for (t, c, x, g) in job.rank[r]]
                else:
                    recs += [(t, c, '(RayTrainWorker pid=%d, ip=%s) %s' % (job.pids[r], job.ips[n], x), g) for (t, c, x, g) in job.rank[r]]
            if L == 'pdsh_console':
                recs += [(t, c, x if x.startswith('[') and 'runner.py' in x else '%s: %s' % (job.hosts[n], x), g)
                         for (t, c, x, g) in job.node[n]]
            else:
                recs += [(t, c, x, g) for (t, c, x, g) in job.node[n]]
        name = 'deepspeed_launch.log' if L == 'pdsh_console' else 'ray_driver.out'
        files.append((name, [(x, g) for (t, c, x, g) in merged(recs)], None))
    else:
        raise ValueError(L)
    return files


def node_names(paths):
    """CONTRACTS naming: file name without log extensions, made unique with the parent dir when names collide."""
    stems = {}
    for p in paths:
        stems.setdefault(strip_ext(os.path.basename(p)), []).append(p)
    out = {}
    for st, ps in stems.items():
        for p in ps:
            if len(ps) == 1:
                out[p] = st
            else:
                parent = os.path.basename(os.path.dirname(p))
                out[p] = '%s/%s' % (parent, st) if parent else st
    return out


SRUN_RE = re.compile(r'^\s*(\d+): ')
RANKBR_RE = re.compile(r'^\[rank(\d+)\]:')


def line_node(fname_node, kind, text, multi):
    if kind == 'srun':
        m = SRUN_RE.match(text)
    elif kind == 'rankbr':
        m = RANKBR_RE.match(text)
    else:
        m = None
    if m:
        v = 'rank%d' % int(m.group(1))
        return '%s/%s' % (fname_node, v) if multi else v
    return fname_node


# --------------------------------------------------------------------------
# build one case
# --------------------------------------------------------------------------
def build_case(idx, fault, setting, layout, nnodes, seed, outdir):
    rng = random.Random('%d-%d-%s' % (seed, idx, fault))
    case_id = 'e%02d-%s' % (idx, fault.replace('_', '-'))
    spec = make_spec(case_id, fault, setting, layout, nnodes, rng)
    if layout == 'per_node':
        spec['ext'] = rng.choice(['.log', '.out', '.txt', '.log'])
        spec['name_by'] = 'ip' if rng.random() < 0.3 else 'host'
    handler, cat, sub, symptom, stage, stacks = FAULTS[fault]
    assert spec['stack'] in stacks, (fault, setting)
    if fault == 'loss_scale_collapse':
        spec['fw'] = 'deepspeed'
    it = choose_iter(spec, rng, fault)
    jobs = []
    info_all = []
    if layout == 'slurm_restart':
        # attempt 1 fails; attempt 2 resumes from the last complete checkpoint and hits the same persistent fault
        spec2 = dict(spec)
        j1 = Job(spec, rng)
        if fault == 'ckpt_disk_full':
            node = rng.randrange(nnodes)
            info1 = f_disk_full(j1, it, node=node)
            last_ok = it - spec['si']
            j2_start = last_ok
            spec2 = dict(spec)
            spec2['jobid'] = str(int(spec['jobid']) + rng.randint(3, 40))
            t_restart = j1.base + _dt.timedelta(hours=2, minutes=rng.randint(0, 50))
            j2 = Job(spec2, rng, t0=t_restart, start_iter=j2_start, attempt=1)
            info2 = f_disk_full(j2, it, node=node)
        else:
            info1 = handler(j1, it)
            fn = info1['faulty_nodes'][0]
            fr = info1['faulty_ranks'][0]
            last_ok = (it // spec['si']) * spec['si']
            spec2['jobid'] = str(int(spec['jobid']) + rng.randint(3, 40))
            t_restart = j1.base + _dt.timedelta(hours=1, minutes=rng.randint(0, 50))
            j2 = Job(spec2, rng, t0=t_restart, start_iter=last_ok, attempt=1)
            it2 = last_ok + rng.randint(30, spec['si'] - 10)
            # same GPU fails again
            orig_pick = globals()['pick_fault_node']
            orig_rr = j2.rng.randrange
            globals()['pick_fault_node'] = lambda job, avoid_primary=True: fn
            forced = [fr % 8]

            def forced_rr(k, *a, **kw):
                if k == 8 and not a and not kw and forced:
                    return forced.pop()
                return orig_rr(k, *a, **kw)
            j2.rng.randrange = forced_rr
            try:
                info2 = handler(j2, it2)
            finally:
                globals()['pick_fault_node'] = orig_pick
                del j2.rng.randrange
            assert info2['faulty_nodes'] == info1['faulty_nodes']
        jobs = [j1, j2]
        info = dict(info1)
        info['iters'] = info1['iters'] + info2['iters']
    else:
        j1 = Job(spec, rng)
        info = handler(j1, it)
        jobs = [j1]
    files = layout_files(spec, jobs)
    # write files, track tagged lines per node
    case_dir = os.path.join(outdir, 'cases', case_id)
    logs = os.path.join(case_dir, 'logs')
    os.makedirs(logs, exist_ok=True)
    paths = [f[0] for f in files]
    fnode = node_names(paths)
    consoles = [p for (p, _, k) in files if k]
    multi = len(consoles) > 1
    tagged = {}        # eid -> node -> [line numbers]
    rep = {}
    node_of_rank = {}
    file_meta = []
    for (rel, lines, kind) in files:
        full = os.path.join(logs, rel)
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, 'w', encoding='utf-8', newline='\n') as fh:
            for i, ln in enumerate(lines, 1):
                text, tag = ln[0], ln[1]
                if '\n' in text:
                    raise AssertionError('newline inside record')
                fh.write(text + '\n')
                if tag:
                    node = line_node(fnode[rel], kind, text, multi)
                    tagged.setdefault(tag, {}).setdefault(node, []).append(i)
                    rep.setdefault(tag, text)
                if kind and len(ln) > 2 and ln[2] is not None:
                    node_of_rank.setdefault(ln[2], set()).add(line_node(fnode[rel], kind, text, multi))
        file_meta.append(dict(path=rel, node=fnode[rel], console=kind))
    # faulty node names
    job = jobs[0]
    faulty = set()
    hosts = set()
    for n in info['faulty_nodes']:
        hosts.add(job.hosts[n])
        if layout in ('per_node', 'per_node_tr', 'k8s_pods'):
            name = job.hosts[n] if spec.get('name_by') != 'ip' else job.ips[n]
            faulty.add(name)
            if name != job.hosts[n]:
                hosts.add(job.hosts[n])
        elif layout in ('host_rank', 'ms_workers'):
            # the files of that host that carry fault evidence (for node-wide faults with no evidence: the host's files)
            nodes_with_ev = set()
            for eid, per in tagged.items():
                for nd in per:
                    nodes_with_ev.add(nd)
            host_key = job.hosts[n] if layout == 'host_rank' else job.ips[n]
            for p in paths:
                if p.startswith(host_key + '/') and fnode[p] in nodes_with_ev:
                    faulty.add(fnode[p])
            hosts.add(job.ips[n])
        elif layout in ('srun_console', 'slurm_restart', 'rank_console'):
            rks = set(info['faulty_ranks'] or range(n * 8, n * 8 + 8))
            for eid, per in tagged.items():
                for nd in per:
                    leaf = nd.split('/')[-1]
                    if leaf.startswith('rank') and int(leaf[4:]) // 8 == n:
                        faulty.add(nd)
            if not any(f.split('/')[-1].startswith('rank') and int(f.split('/')[-1][4:]) // 8 == n for f in faulty):
                for r in sorted(rks):
                    faulty.update(node_of_rank.get(r, ()))
            hosts.add(job.ips[n])
        else:   # pdsh / ray consoles: the whole file is one node
            faulty.add(fnode[paths[0]])
            hosts.add(job.ips[n])
    if info.get('cascade_only') and layout in ('per_node', 'per_node_tr', 'k8s_pods'):
        pass
    stage_eff = info.get('stage', stage)
    symptom_eff = info.get('symptom', symptom)
    events = []
    for eid, pat in info['events']:
        if eid not in tagged:
            raise AssertionError('%s: event %s has no lines' % (case_id, eid))
        events.append(dict(id=eid, text=rep[eid], lines={k: sorted(v) for k, v in sorted(tagged[eid].items())}))
    fr = info.get('faulty_ranks') or []
    gpu = str(fr[0] % 8) if fr else '?'
    hname = job.hosts[info['faulty_nodes'][0]] if info['faulty_nodes'] else 'the cluster'
    rc, rem = ROOT[fault]
    label = {
        'schema': 'l4-label/1', 'setting': spec['setting'], 'stack': spec['stack'],
        'category': cat, 'subcategory': sub, 'symptom': symptom_eff,
        'faulty_nodes': sorted(faulty), 'stage': stage_eff,
        'iterations': info['iters'] if stage_eff in ('training', 'checkpoint', 'data_loading') else [],
        'fault_events': events,
        'root_cause': rc.format(host=hname, gpu=gpu), 'remediation': rem.format(host=hname, gpu=gpu),
        'source': 'synthetic: independent generator E (gen.py, seed %d), fault=%s, layout=%s' % (seed, fault, layout),
        'accept': info.get('accept', ['%s/%s' % (cat, sub)]),
    }
    if hosts and info['faulty_nodes']:
        # keep only aliases that literally appear in a file name or in the log text
        blob = '\n'.join(paths)
        for rel, lines, kind in files:
            blob += '\n'.join(l[0] for l in lines)
        present = sorted(h for h in hosts if h in blob)
        if present:
            label['hosts'] = present
    with open(os.path.join(case_dir, 'label.json'), 'w') as fh:
        json.dump(label, fh, indent=2)
    meta = dict(case_id=case_id, fault=fault, layout=layout, nnodes=nnodes, files=file_meta,
                patterns={eid: pat for eid, pat in info['events']}, multi_console=multi)
    return case_id, label, meta


def build_normal(setting, seed, outdir, k):
    rng = random.Random('normal-%d-%s-%d' % (seed, setting, k))
    layout = 'per_node'
    spec = make_spec('normal', 'none', setting, layout, rng.choice([2, 4]), rng)
    spec['ext'] = '.log'
    job = Job(spec, rng)
    t = job.flow('train', spec['ckpt_iter'] + rng.randint(300, 700))
    for n in range(job.nn):
        job.N(n, t + 5, 'I%s %d torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully '
              'finished. Waiting 300 seconds for other agents to finish.' % (job.glog(n, t + 5)[1:], job.agent_pid[n]))
    files = layout_files(spec, [job])
    d = os.path.join(outdir, 'normal', setting, 'job-%s' % spec['jobid'], 'logs')
    os.makedirs(d, exist_ok=True)
    for rel, lines, _ in files:
        with open(os.path.join(d, rel), 'w') as fh:
            for ln in lines:
                fh.write(ln[0] + '\n')


# --------------------------------------------------------------------------
# verification: re-read every file and check labels
# --------------------------------------------------------------------------
def verify(outdir):
    with open(outdir.rstrip('/') + '.manifest.json') as fh:
        manifest = json.load(fh)
    problems = []
    total_lines = 0
    for meta in manifest['cases']:
        cid = meta['case_id']
        cdir = os.path.join(outdir, 'cases', cid)
        with open(os.path.join(cdir, 'label.json')) as fh:
            lab = json.load(fh)
        # independent re-derivation of node names from the files on disk
        paths = []
        for root, _, fs in os.walk(os.path.join(cdir, 'logs')):
            for f in fs:
                paths.append(os.path.relpath(os.path.join(root, f), os.path.join(cdir, 'logs')))
        fnode = node_names(paths)
        kinds = {m['path']: m['console'] for m in meta['files']}
        multi = sum(1 for v in kinds.values() if v) > 1
        node_lines = {}
        for p in paths:
            with open(os.path.join(cdir, 'logs', p), encoding='utf-8') as fh:
                for i, ln in enumerate(fh, 1):
                    ln = ln.rstrip('\n')
                    total_lines += 1
                    nd = line_node(fnode[p], kinds.get(p), ln, multi)
                    node_lines.setdefault(nd, {})[i] = ln
        allnodes = set(node_lines)
        for fnd in lab['faulty_nodes']:
            if fnd not in allnodes:
                problems.append('%s: faulty node %s not derivable from files' % (cid, fnd))
        for h in lab.get('hosts', []):
            found = any(h in p for p in paths) or any(h in t for nl in node_lines.values() for t in nl.values())
            if not found:
                problems.append('%s: host alias %s not present' % (cid, h))
        for ev in lab['fault_events']:
            pat = re.compile(meta['patterns'][ev['id']])
            texts = []
            for nd, nums in ev['lines'].items():
                if nd not in node_lines:
                    problems.append('%s/%s: node %s missing' % (cid, ev['id'], nd))
                    continue
                got = sorted(i for i, t in node_lines[nd].items() if pat.search(t))
                if got != sorted(nums):
                    problems.append('%s/%s: node %s labelled %d lines, pattern finds %d (%s vs %s)'
                                    % (cid, ev['id'], nd, len(nums), len(got), nums[:5], got[:5]))
                for i in nums:
                    texts.append(node_lines[nd].get(i, ''))
            for nd, nl in node_lines.items():
                if nd in ev['lines']:
                    continue
                hits = [i for i, t in nl.items() if pat.search(t)]
                if hits:
                    problems.append('%s/%s: unlabelled node %s has %d matching lines (e.g. %d)' % (cid, ev['id'], nd, len(hits), hits[0]))
            if ev['text'] not in texts:
                problems.append('%s/%s: representative text is not one of the labelled lines' % (cid, ev['id']))
            if not meta.get('cascade_only'):
                off = [nd for nd in ev['lines'] if lab['faulty_nodes'] and nd not in lab['faulty_nodes']]
                if off and lab['faulty_nodes'] and not meta['fault'] == 'node_lost':
                    problems.append('%s/%s: event lines on non-faulty nodes %s' % (cid, ev['id'], off))
    return problems, total_lines


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data'))
    ap.add_argument('--seed', type=int, default=7)
    ap.add_argument('--cases', type=int, default=40)
    ap.add_argument('--verify', action='store_true')
    a = ap.parse_args()
    if a.verify:
        problems, n = verify(a.out)
        for p in problems:
            print('PROBLEM', p)
        print('verified %d physical lines; %d problems' % (n, len(problems)))
        sys.exit(1 if problems else 0)
    if os.path.exists(a.out):
        shutil.rmtree(a.out)
    os.makedirs(a.out)
    metas = []
    plan = PLAN[:a.cases]
    for idx, (fault, setting, layout, nn) in enumerate(plan, 1):
        cid, lab, meta = build_case(idx, fault, setting, layout, nn, a.seed, a.out)
        metas.append(meta)
        print('%-34s %-6s %-10s %-22s nodes=%-3d faulty=%s' % (cid, lab['stack'], lab['category'], layout, nn,
                                                             ','.join(lab['faulty_nodes']) or '[]'))
    settings = sorted(set(p[1] for p in plan))
    for k, st in enumerate(settings):
        if k % 2 == 0:
            for j in range(1 + (k % 4 == 0)):
                build_normal(st, a.seed, a.out, j)
    with open(a.out.rstrip('/') + '.manifest.json', 'w') as fh:
        json.dump(dict(seed=a.seed, cases=metas), fh, indent=1)
    problems, n = verify(a.out)
    for p in problems:
        print('PROBLEM', p)
    print('wrote %d cases; verified %d physical lines; %d problems' % (len(metas), n, len(problems)))


if __name__ == '__main__':
    main()
