#!/usr/bin/env python3
"""Synthetic corpus of failed distributed LLM-training jobs (blind_i).

usage: python3 gen.py --seed 3 --out DIR
Standard library only; deterministic per seed.
"""
import argparse, gzip, json, os, random, re, shutil, sys, datetime

EPOCH0 = datetime.datetime(2025, 3, 3, 8, 0, 0, tzinfo=datetime.timezone.utc)
LOGEXT = ('.gz', '.log', '.txt', '.out')

# ----------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------

def strip_ext(name):
    changed = True
    while changed:
        changed = False
        for e in LOGEXT:
            if name.endswith(e) and len(name) > len(e):
                name = name[:-len(e)]
                changed = True
    return name


def derive_file_nodes(relpaths):
    """CONTRACTS node naming: base name without log extensions, parent-qualified on clash."""
    base = {p: strip_ext(os.path.basename(p)) for p in relpaths}
    cnt = {}
    for b in base.values():
        cnt[b] = cnt.get(b, 0) + 1
    out = {}
    for p, b in base.items():
        if cnt[b] > 1:
            parent = os.path.basename(os.path.dirname(p))
            out[p] = parent + '/' + b
        else:
            out[p] = b
    return out


PREFIX_RES = [re.compile(r'^(\d+): '), re.compile(r'^\[rank(\d+)\]:'),
              re.compile(r'^\[default(\d+)\]:'), re.compile(r'^\[1,(\d+)\]<std(?:out|err)>:')]


def console_virtual_nodes(lines, kind):
    rx = {'slurm': PREFIX_RES[0], 'torchrun': PREFIX_RES[1], 'mpirun': PREFIX_RES[3]}[kind]
    s = set()
    for ln in lines:
        m = rx.match(ln)
        if m:
            s.add('rank' + m.group(1))
    return s


class Job:
    def __init__(self, rnd, setting, nnodes, case_id, jobno):
        st = SETTINGS[setting]
        self.rnd = rnd
        self.setting = setting
        self.S = st
        self.stack = st['stack']
        self.layout = st['layout']
        self.nn = nnodes
        self.gpn = st['gpn']
        self.world = nnodes * self.gpn
        self.case_id = case_id
        self.jobid = 200000 + jobno * 37 + rnd.randint(0, 30)
        self.t = (jobno * 1931 + rnd.randint(0, 900)) * 60.0 + rnd.random()
        self.E = []   # (t, kind, who, text, tag)
        hs = st['hostfmt']
        self.hosts = [hs(i, rnd) for i in range(nnodes)]
        base = rnd.choice([10, 172])
        b2 = rnd.randint(16, 30) if base == 172 else rnd.randint(0, 200)
        b3 = rnd.randint(0, 200)
        self.ips = ['%d.%d.%d.%d' % (base, b2, b3 + (i // 200), 10 + i % 200) for i in range(nnodes)]
        self.pids = [[rnd.randint(20000, 290000) for _ in range(self.gpn)] for _ in range(nnodes)]
        self.skew = {}
        self.ts_style = st.get('ts', 'iso')
        self.ansi = st.get('ansi', False)
        self.wrap = st.get('wrap', 0)
        self.consoles = 1
        self.console_names = None
        self.run_idx = 0
        self.steps_total = st.get('steps', 5000)
        self.loss0 = 10.5 + rnd.random()
        self.loss = self.loss0

    # --- time -----------------------------------------------------------
    def adv(self, dt):
        self.t += dt

    def dt(self, node=None):
        t = self.t + (self.skew.get(node, 0) if node is not None else 0)
        return EPOCH0 + datetime.timedelta(seconds=t)

    def stamp(self, node=None, style=None):
        d = self.dt(node)
        style = style or self.ts_style
        if style == 'iso':
            s = d.strftime('%Y-%m-%d %H:%M:%S') + ',%03d' % (d.microsecond // 1000)
        elif style == 'bracket':
            s = '[' + d.strftime('%Y-%m-%d %H:%M:%S') + ']'
        elif style == 'slash':
            s = d.strftime('%m/%d/%Y %H:%M:%S')
        elif style == 'none':
            return ''
        else:
            s = d.strftime('%Y-%m-%dT%H:%M:%S')
        if self.ansi:
            s = '\x1b[32m' + s + '\x1b[0m'
        return s

    def glog(self, lvl, node=None):
        d = self.dt(node)
        return '%s%s %s.%06d' % (lvl, d.strftime('%m%d'), d.strftime('%H:%M:%S'), d.microsecond)

    def cann_ts(self, node=None):
        d = self.dt(node)
        return d.strftime('%Y-%m-%d-%H:%M:%S')

    def cann_ts_ms(self, node=None):
        d = self.dt(node)
        return d.strftime('%Y-%m-%d-%H:%M:%S') + '.%03d.%03d' % (d.microsecond // 1000, d.microsecond % 1000)

    def iso(self, node=None):
        return self.dt(node).strftime('%Y-%m-%dT%H:%M:%S')

    # --- emit -----------------------------------------------------------
    def node_of(self, g):
        return g // self.gpn

    def r(self, g, text, tag=None, ts=False, lvl='INFO'):
        """line printed by global rank g (python / c++ stdout)."""
        if ts:
            st = self.stamp(self.node_of(g))
            if st:
                text = st + ' ' + ('[%s] ' % lvl if self.ts_style != 'bracket' else '') + text
        self.E.append((self.t, 'r', g, text, tag))
        self.t += self.rnd.uniform(0.0002, 0.004)

    def rl(self, g, lines, tag_first=None, tags=None):
        for i, ln in enumerate(lines):
            tg = None
            if tags and i in tags:
                tg = tags[i]
            elif i == 0:
                tg = tag_first
            self.r(g, ln, tg)

    def n(self, k, text, tag=None):
        """node-level line (launcher agent on node k, kernel log captured on node k)."""
        self.E.append((self.t, 'n', k, text, tag))
        self.t += self.rnd.uniform(0.0002, 0.004)

    def c(self, text, tag=None):
        """job-level line (scheduler / srun / msrun scheduler / launcher on master)."""
        self.E.append((self.t, 'c', None, text, tag))
        self.t += self.rnd.uniform(0.0002, 0.004)

    def new_run(self):
        """a restart: later lines go to a second console."""
        self.run_idx += 1
        self.E.append((self.t, 'run', None, None, None))

    # --- naming ---------------------------------------------------------
    def lr(self, g):
        return g % self.gpn

    def apid(self, k):
        return self.pids[k][0] - 31

    def pid(self, g):
        return self.pids[self.node_of(g)][self.lr(g)]

    def nccl(self, g, msg, tid_off=57):
        k = self.node_of(g)
        return '%s:%d:%d [%d] %s' % (self.hosts[k], self.pid(g), self.pid(g) + tid_off, self.lr(g), msg)


# ----------------------------------------------------------------------------
# layouts
# ----------------------------------------------------------------------------

ERR_STARTS = ('Traceback', '  File', '    ', 'KeyError', 'RuntimeError', 'torch.', 'Original', '[rank',
              'terminate called', '  what()', 'Exception raised', 'frame #', 'CUDA kernel errors', 'For debugging',
              'Compile with', 'During handling', 'ERROR')


def render(J):
    """returns files: relpath -> list of (text, tag); meta dict."""
    L = J.layout
    files = {}
    kinds = {}   # relpath -> console kind or None

    def add(p, text, tag, kind=None):
        files.setdefault(p, []).append((text, tag))
        if p not in kinds:
            kinds[p] = kind
    run = 0
    for (t, kind, who, text, tag) in J.E:
        if kind == 'run':
            run += 1
            continue
        if kind == 'x':
            add(text[0], text[1], tag, None)
            continue
        if L in ('slurm', 'torchrun', 'mpirun', 'pdsh'):
            if L == 'slurm':
                names = J.console_names or ['slurm-%d.out' % J.jobid]
                p = names[min(run, len(names) - 1)]
                if kind == 'r':
                    line = '%d: %s' % (J.node_of(who), text)
                elif kind == 'n':
                    line = '%d: %s' % (who, text)
                else:
                    line = text
                add(p, line, tag, 'slurm')
            elif L == 'torchrun':
                p = J.S.get('console', 'train_console.log')
                if kind == 'r':
                    line = ('[rank%d]:' % who) + text if not text.startswith('[rank%d]:' % who) else text
                else:
                    line = text
                add(p, line, tag, 'torchrun')
            elif L == 'mpirun':
                p = J.S.get('console', 'mpirun-%d.log' % J.jobid)
                if kind == 'r':
                    err = tag is not None or text.startswith(ERR_STARTS) or 'NCCL WARN' in text
                    line = '[1,%d]<%s>:%s' % (who, 'stderr' if err else 'stdout', text)
                else:
                    line = text
                add(p, line, tag, 'mpirun')
            else:
                p = J.S.get('console', 'pdsh_launch.log')
                if kind == 'r':
                    line = '%s: %s' % (J.hosts[J.node_of(who)], text)
                elif kind == 'n':
                    line = '%s: %s' % (J.hosts[who], text)
                else:
                    line = text
                add(p, line, tag, None)
        elif L in ('pernode', 'k8s'):
            k = J.node_of(who) if kind == 'r' else (who if kind == 'n' else 0)
            p = J.S['nodefile'](J, k)
            line = text
            if kind == 'r' and J.S.get('default_prefix'):
                line = '[default%d]:%s' % (J.lr(who), text)
            if L == 'k8s':
                d = EPOCH0 + datetime.timedelta(seconds=t + J.skew.get(k, 0))
                line = d.strftime('%Y-%m-%dT%H:%M:%S') + '.%06dZ ' % d.microsecond + line
            add(p, line, tag, None)
        elif L == 'hostdirs':
            if kind == 'r':
                k = J.node_of(who)
                p = '%s/rank_%d.log' % (J.hosts[k], J.lr(who))
            else:
                k = who if kind == 'n' else 0
                p = '%s/launcher.log' % J.hosts[k]
            add(p, text, tag, None)
        elif L == 'msrun':
            if kind == 'r':
                p = 'msrun_log/worker_%d.log' % who
            elif kind == 'n':
                p = 'msrun_log/scheduler.log' if who == 0 else 'msrun_log/launch_node%d.txt' % who
            else:
                p = 'msrun_log/scheduler.log'
            add(p, text, tag, None)
    # wrapping
    if J.wrap:
        W = J.wrap
        for p in list(files):
            out = []
            for (text, tag) in files[p]:
                if len(text) <= W or (kinds[p] is not None):
                    out.append((text, tag))
                    continue
                chunks = [text[i:i + W] for i in range(0, len(text), W)]
                if tag is not None:
                    key = TAGKEYS[tag]
                    idx = [i for i, ch in enumerate(chunks) if key in ch]
                    if not idx:
                        out.append((text, tag))
                        continue
                    for i, ch in enumerate(chunks):
                        out.append((ch, tag if i == idx[0] else None))
                else:
                    for ch in chunks:
                        out.append((ch, None))
            files[p] = out
    return files, kinds


# ----------------------------------------------------------------------------
# progress formats
# ----------------------------------------------------------------------------

def progress(J, step, dt_iter):
    st = J.S['progress']
    J.loss = 2.1 + (J.loss0 - 2.1) * (2.718281828 ** (-step / 700.0)) + 0.04 * (J.rnd.random() - 0.5)
    loss = J.loss
    lr = 3e-4 * min(1.0, step / 200.0)
    M = J.steps_total
    last = J.world - 1
    if st == 'megatron':
        gbs = J.S.get('gbs', 1024)
        J.r(last, ' [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | '
            'learning rate: %.6E | global batch size: %5d | lm loss: %.6E | loss scale: 1.0 | grad norm: %.3f | '
            'number of skipped iterations:   0 | number of nan iterations:   0 |' % (
                J.dt(J.node_of(last)).strftime('%Y-%m-%d %H:%M:%S'), step, M, step * gbs, dt_iter * 1000, lr, gbs,
                loss, 0.8 + J.rnd.random()))
    elif st == 'deepspeed':
        J.r(0, '[%s] [INFO] [logging.py:96:log_dist] [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]' % (
            J.dt(0).strftime('%Y-%m-%d %H:%M:%S,') + '%03d' % J.rnd.randint(0, 999), step, lr))
        J.r(0, 'steps: %d loss: %.4f iter time (s): %.3f samples/sec: %.3f' % (step, loss, dt_iter, 512 / dt_iter))
    elif st == 'hf':
        if step % 10 == 0:
            J.r(0, "{'loss': %.4f, 'grad_norm': %.4f, 'learning_rate': %.4e, 'epoch': %.2f}" % (
                loss, 0.3 + J.rnd.random(), lr, step / float(M)))
        pct = int(100 * step / M)
        el = int(step * dt_iter)
        rem = int((M - step) * dt_iter)
        J.r(0, '%3d%%|%-10s| %d/%d [%02d:%02d:%02d<%02d:%02d:%02d, %.2fs/it]' % (
            pct, '\u2588' * (pct // 10), step, M, el // 3600, el // 60 % 60, el % 60, rem // 3600, rem // 60 % 60,
            rem % 60, dt_iter))
    elif st == 'mindformers':
        g = J.world - 1
        d = J.dt(J.node_of(g))
        J.r(g, '%s - [mindformers/core/callback/callback.py:529] - INFO - { Epoch:[  1/  1], step:[%5d/%5d], '
               'loss: %.3f, per_step_time: %dms, lr: %s, overflow cond: False, loss_scale: 1.0, global_norm: [%.5f], '
               'train_throughput_per_npu: %.3fT' % (
                   d.strftime('%Y-%m-%d %H:%M:%S') + ',%03d' % (d.microsecond // 1000), step, M, loss,
                   int(dt_iter * 1000), '%.6e' % lr, 0.5 + J.rnd.random(), 120.0 / dt_iter))
    elif st == 'titan':
        J.r(0, '%s [INFO] step: %5d  loss: %7.4f  memory: %5.2fGiB(%.2f%%)  tps: %s  mfu: %.2f%%' % (
            J.stamp(0, 'bracket'), step, loss, 61.2 + J.rnd.random(), 77.5 + J.rnd.random(),
            format(int(3400 / dt_iter * 1.1), ','), 38 + 4 * J.rnd.random()))
    elif st == 'custom':
        J.r(0, '| train | step %06d | loss %.4f | ppl %.2f | tok/s %d | %.2f s/step' % (
            step, loss, 2.718 ** min(loss, 12), int(250000 / dt_iter), dt_iter))
    J.adv(dt_iter)


def last_progress_rank(J):
    return J.world - 1 if J.S['progress'] in ('megatron', 'mindformers') else 0


def train(J, start, stop, dt_iter=1.2, slow=None, every=1, hook=None):
    """train steps start..stop inclusive; returns last printed step."""
    last = None
    for s in range(start, stop + 1):
        d = dt_iter * (0.97 + 0.06 * J.rnd.random())
        if slow and s >= slow[0]:
            d *= slow[1]
        if s % every == 0:
            progress(J, s, d)
            last = s
        else:
            J.adv(d)
        if hook:
            hook(s)
    return last


# ----------------------------------------------------------------------------
# common phases (identical in normal and failed jobs)
# ----------------------------------------------------------------------------

def cuda_init(J):
    fw = J.S['fw']
    launcher = J.S.get('launcher', 'torchrun')
    if J.layout == 'slurm':
        J.c('+ srun -l --kill-on-bad-exit=1 bash -c "torchrun --nnodes %d --nproc_per_node %d --rdzv_backend c10d '
            '--rdzv_endpoint %s:29500 %s"' % (J.nn, J.gpn, J.hosts[0], J.S['script']))
    if J.layout == 'mpirun':
        J.c('+ mpirun --allow-run-as-root -np %d -H %s -bind-to none -map-by slot -x NCCL_DEBUG=INFO -x '
            'LD_LIBRARY_PATH -x PATH -mca pml ob1 -mca btl ^openib python -u %s' % (
                J.world, ','.join('%s:%d' % (h, J.gpn) for h in J.hosts), J.S['script']))
    if launcher == 'torchrun':
        for k in range(J.nn):
            J.n(k, '%s %d torch/distributed/run.py:793] ' % (J.glog('W', k), J.apid(k)))
            J.n(k, '%s %d torch/distributed/run.py:793] *****************************************' % (J.glog('W', k), J.apid(k)))
            J.n(k, '%s %d torch/distributed/run.py:793] Setting OMP_NUM_THREADS environment variable for each process '
                   'to be 1 in default, to avoid your system being overloaded, please further tune the variable '
                   'for optimal performance in your application as needed. ' % (J.glog('W', k), J.apid(k)))
            J.n(k, '%s %d torch/distributed/run.py:793] *****************************************' % (J.glog('W', k), J.apid(k)))
    elif launcher == 'deepspeed':
        J.c('[%s] [INFO] [runner.py:568:main] cmd = /usr/bin/python -u -m deepspeed.launcher.launch '
            '--world_info=eyJ... --master_addr=%s --master_port=29500 %s' % (
                J.dt().strftime('%Y-%m-%d %H:%M:%S,%f')[:-3], J.ips[0], J.S['script']))
    J.adv(4.0)
    for g in range(J.world):
        if fw in ('megatron', 'deepspeed', 'fsdp', 'hf', 'titan'):
            J.r(g, '/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/attention.py:4972: '
                   'UserWarning: flash-attn v3 may provide important optimizations and features for Hopper '
                   'GPUs. Install flash-attn v3 ...' if fw == 'megatron' else
                '/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:464: UserWarning: '
                'torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.4 '
                'we will raise an exception if use_reentrant is not passed. use_reentrant=False is recommended, '
                'but if you need to preserve the current default behavior, you can pass use_reentrant=True. '
                'Refer to docs for more details on the differences between the two variants.')
    J.adv(2.0)
    J.r(0, J.nccl(0, 'NCCL INFO NCCL version 2.21.5+cuda12.4', 0))
    for k in range(J.nn):
        g = k * J.gpn
        J.r(g, J.nccl(g, 'NCCL INFO Bootstrap : Using %s:%s<0>' % (J.S.get('ifname', 'eth0'), J.ips[k]), 0))
        J.r(g, J.nccl(g, 'NCCL INFO NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.', 0))
        J.r(g, J.nccl(g, 'NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_3:1/IB [2]mlx5_4:1/IB [3]mlx5_5:1/IB '
                         '[RO]; OOB %s:%s<0>' % (J.S.get('ifname', 'eth0'), J.ips[k])))
    J.adv(3.0)
    for g in range(J.world):
        if g % J.gpn == 0 or J.world <= 32:
            J.r(g, J.nccl(g, 'NCCL INFO comm 0x%x rank %d nranks %d cudaDev %d nvmlDev %d busId %x0 commId '
                             '0x5c1e9a2f07b3d411 - Init COMPLETE' % (0x55d0c0e0000 + g * 4096, g, J.world,
                                                                      J.lr(g), J.lr(g), 0x18 + J.lr(g) * 16)))
    J.adv(1.0)
    for g in range(J.world):
        if J.lr(g) == 0:
            J.r(g, '%s ProcessGroupNCCL.cpp:4115] [PG ID 0 PG GUID 0 Rank %d]  using GPU %d to perform barrier as '
                   'devices used by this process are currently unknown. This can potentially cause a hang if this '
                   'rank to GPU mapping is incorrect.Specify device_ids in barrier() to force use of a particular '
                   'device,or call init_process_group() with a device_id.' % (J.glog('W', J.node_of(g)), g, J.lr(g)))


def cuda_model(J):
    fw = J.S['fw']
    if fw == 'megatron':
        J.r(0, 'building GPT model ...')
        J.r(0, ' > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d' % (
            1_300_000_000 + J.rnd.randint(0, 99999)))
        J.r(0, '> learning rate decay style: cosine')
        J.r(0, ' loading release checkpoint from %s' % J.S.get('ckpt', '/lustre/ckpt/gpt'))
        J.adv(40)
        J.r(0, ' successfully loaded checkpoint from %s [ t 1/8, p 1/4 ] at iteration 0' % J.S.get('ckpt', '/lustre/ckpt/gpt'))
        J.r(0, '> building train, validation, and test datasets ...')
        J.r(0, ' > datasets target sizes (minimum size):')
        J.r(0, '    train:      %d' % (J.steps_total * 1024))
        J.adv(12)
        J.r(0, '[after dataloaders are built] datetime: %s ' % J.dt().strftime('%Y-%m-%d %H:%M:%S'))
        J.r(0, 'training ...')
    elif fw == 'deepspeed':
        J.r(0, '[%s] [INFO] [config.py:1000:print] DeepSpeedEngine configuration:' % J.dt().strftime('%Y-%m-%d %H:%M:%S,000'))
        J.r(0, '[%s] [INFO] [config.py:1004:print]   zero_optimization_stage ...... 3' % J.dt().strftime('%Y-%m-%d %H:%M:%S,000'))
        J.adv(30)
        J.r(0, '[%s] [WARNING] [stage3.py:2069:step] 1 pytorch allocator cache flushes since last step. this happens '
               'when there is high memory pressure and is detrimental to performance. if this is happening '
               'frequently consider adjusting settings to reduce memory consumption. If you are unable to make the '
               'cache flushes go away consider adding get_accelerator().empty_cache() calls in your training loop to '
               'ensure that all ranks flush their caches at the same time' % J.dt().strftime('%Y-%m-%d %H:%M:%S,000'))
    elif fw == 'hf':
        J.r(0, 'Loading checkpoint shards: 100%%|%s| 4/4 [00:%02d<00:00,  2.11s/it]' % ('\u2588' * 10, 8))
        J.r(0, '***** Running training *****')
        J.r(0, '  Num examples = %s' % format(J.steps_total * 256, ','))
        J.r(0, '  Total optimization steps = %d' % J.steps_total)
        J.adv(25)
    else:
        J.r(0, '%s [INFO] Building llama3 8B with ModelArgs(dim=4096, n_layers=32, n_heads=32)' % J.stamp(0, 'bracket'))
        J.r(0, '%s [INFO] Applied FSDP to the model' % J.stamp(0, 'bracket'))
        J.r(0, '%s [INFO] Training starts at step 1, with local batch size 2, global batch size %d, sequence length 8192' % (
            J.stamp(0, 'bracket'), 2 * J.world))
        J.adv(20)


def npu_init(J):
    fw = J.S['fw']
    if J.layout == 'msrun':
        for k in range(J.nn):
            J.n(k, '[INFO] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:224] '
                   'Start scheduler process, log file:./msrun_log/scheduler.log. Environment variable [RANK_ID] is '
                   'exported.' % (J.pids[k][0] - 60, J.cann_ts_ms(k)) if k == 0 else
                '[INFO] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:260] '
                'Start worker processes on node %d, log dir: ./msrun_log.' % (J.pids[k][0] - 60, J.cann_ts_ms(k), k))
    J.adv(3)
    for g in range(J.world):
        if fw in ('mindspeed', 'torch_npu'):
            J.r(g, '/usr/local/python3.10.5/lib/python3.10/site-packages/torch_npu/utils/path_manager.py:79: '
                   'UserWarning: Warning: The /usr/local/Ascend/ascend-toolkit/latest owner does not match the '
                   'current user.')
            J.r(g, '  warnings.warn(f"Warning: The {path} owner does not match the current user.")')
        else:
            J.r(g, '[WARNING] ME(%d:281473590168608,MainProcess):%s [mindspore/context.py:1402] For '
                   "'context.set_context', the parameter 'device_target' will be deprecated and removed in a future "
                   "version. Please use the api mindspore.set_device() instead." % (J.pid(g), J.cann_ts_ms(J.node_of(g))))
    J.adv(2)
    for g in range(J.world):
        if fw in ('mindspeed', 'torch_npu'):
            if J.lr(g) == 0:
                J.r(g, '[rank%d]:[W%s compiler_depend.ts:877] Warning: The HCCL execution timeout was set to never '
                       'timeout, so it is bigger than watchdog timeout 1800000ms which is set by init_process_group! '
                       'The plog may not be recorded. You can disable watchdog by \'export HCCL_ASYNC_ERROR_HANDLING=0\'. '
                       '(function ProcessGroupHCCL)' % (g, J.glog('', J.node_of(g)).strip()))
        else:
            J.r(g, '[WARNING] DISTRIBUTED(%d,ffffb85d0c80,python):%s [mindspore/ccsrc/distributed/cluster/topology/'
                   'compute_graph_node.cc:173] Register] Failed to connect to the meta server node url: %s:8118, '
                   'retry after 3 seconds.' % (J.pid(g), J.cann_ts_ms(J.node_of(g)), J.ips[0]))
            J.r(g, '[INFO] DISTRIBUTED(%d,ffffb85d0c80,python):%s [mindspore/ccsrc/distributed/cluster/cluster_context.cc:271] '
                   'BuildCluster] Cluster is successfully initialized.' % (J.pid(g), J.cann_ts_ms(J.node_of(g))))
    J.adv(5)


def npu_model(J):
    fw = J.S['fw']
    if fw == 'mindspeed':
        J.r(0, 'building GPT model ...')
        J.r(0, ' > number of parameters on (tensor, pipeline) model parallel rank (0, 0): %d' % (
            870_000_000 + J.rnd.randint(0, 99999)))
        J.adv(60)
        J.r(0, '> building train, validation, and test datasets ...')
        J.adv(10)
        J.r(0, 'training ...')
    elif fw == 'mindformers':
        g = J.world - 1
        J.r(g, '%s - mindformers - INFO - .........Build Network From Config..........' % J.stamp(J.node_of(g), 'iso'))
        J.r(g, '%s - mindformers - INFO - Network Parameters: %d M.' % (J.stamp(J.node_of(g), 'iso'), 7000 + J.rnd.randint(0, 99)))
        J.adv(120)
        J.r(g, '%s - mindformers - INFO - .........Starting Training Model..........' % J.stamp(J.node_of(g), 'iso'))
    else:
        J.r(0, '%s - INFO - ***** Running training *****' % J.stamp(0, 'iso'))
        J.adv(30)


# ----------------------------------------------------------------------------
# cascades
# ----------------------------------------------------------------------------

def nccl_watchdog(J, ranks, seq, op='ALLREDUCE', numel=None, tag=None, take_down=True):
    numel = numel or J.rnd.choice([1, 32, 466119168, 160672064])
    J.rnd.shuffle(ranks)
    for g in ranks:
        k = J.node_of(g)
        J.r(g, '[rank%d]:[%s ProcessGroupNCCL.cpp:616] [Rank %d] Watchdog caught collective operation timeout: '
               'WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, NumelOut=%d, Timeout(ms)=600000) ran for %d milliseconds '
               'before timing out.' % (g, J.glog('E', k), g, seq, op, numel, numel, 600000 + J.rnd.randint(3, 99)), tag)
    for g in ranks:
        k = J.node_of(g)
        J.r(g, '[rank%d]:[%s ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either '
               'an error or timeout) detected by watchdog at work: %d, last enqueued NCCL work: %d, last completed '
               'NCCL work: %d.' % (g, J.glog('E', k), g, seq, seq + 2, seq - 1))
        if take_down:
            J.r(g, '[rank%d]:[%s ProcessGroupNCCL.cpp:630] [Rank %d] Some NCCL operations have failed or timed out. '
                   'Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on '
                   'corrupted/incomplete data.' % (g, J.glog('E', k), g))
            J.r(g, '[rank%d]:[%s ProcessGroupNCCL.cpp:636] [Rank %d] To avoid data inconsistency, we are taking the '
                   'entire process down.' % (g, J.glog('E', k), g))
    J.adv(1.5)
    for g in ranks[: max(1, len(ranks) // 3)]:
        J.r(g, "terminate called after throwing an instance of 'c10::DistBackendError'")
        J.r(g, '  what():  [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog thread terminated with '
               'exception: [Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, '
               'NumelIn=%d, NumelOut=%d, Timeout(ms)=600000) ran for 600%03d milliseconds before timing out.' % (
                   g, g, seq, op, numel, numel, J.rnd.randint(3, 99)), tag)
        J.r(g, 'Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most '
               'recent call first):')
        J.r(g, 'frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (0x7fa84b4b9446 in '
               '/usr/local/lib/python3.10/dist-packages/torch/lib/libc10.so)')


def torchrun_fail(J, k, failed_lr, exitcode, others_sigterm=True, root_host=None):
    """torchrun agent on node k reports child failure with ChildFailedError block."""
    if others_sigterm:
        for l in range(J.gpn):
            if l != failed_lr:
                J.n(k, '%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing '
                       'signal SIGTERM' % (J.glog('W', k), J.apid(k), J.pids[k][l]))
    J.adv(2)
    J.n(k, '%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: '
           '%d) of binary: /usr/bin/python' % (J.glog('E', k), J.apid(k), exitcode, failed_lr, J.pids[k][failed_lr]))
    for ln in ['Traceback (most recent call last):', '  File "/usr/local/bin/torchrun", line 8, in <module>',
               '    sys.exit(main())',
               '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py", line 355, in wrapper',
               '    return f(*args, **kwargs)',
               '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py", line 919, in main',
               '    run(args)',
               '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py", line 269, in launch_agent',
               '    raise ChildFailedError(',
               'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ',
               '============================================================',
               '%s FAILED' % J.S['script'].split()[0],
               '------------------------------------------------------------',
               'Failures:', '  <NO_OTHER_FAILURES>',
               '------------------------------------------------------------',
               'Root Cause (first observed failure):', '[0]:',
               '  time      : %s' % J.dt(k).strftime('%Y-%m-%d_%H:%M:%S'),
               '  host      : %s' % (root_host or J.hosts[k]),
               '  rank      : %d (local_rank: %d)' % (k * J.gpn + failed_lr, failed_lr),
               '  exitcode  : %d (pid: %d)' % (exitcode, J.pids[k][failed_lr]),
               '  error_file: <N/A>',
               '  traceback : %s' % ('Signal %d (SIG%s) received by PID %d' % (
                   -exitcode, {6: 'ABRT', 9: 'KILL', 15: 'TERM', 7: 'BUS'}.get(-exitcode, 'ABRT'),
                   J.pids[k][failed_lr]) if exitcode < 0 else
                                     'To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html'),
               '============================================================']:
        J.n(k, ln)


def slurm_end(J, failing_nodes, code='Exited with exit code 1', cancel=True, reason=''):
    J.adv(3)
    for k in failing_nodes:
        J.c('srun: error: %s: task %d: %s' % (J.hosts[k], k, code))
    if cancel:
        J.c('srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
        J.adv(1)
        for k in range(J.nn):
            if k not in failing_nodes and J.rnd.random() < 0.5:
                J.c('slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s%s ***' % (J.jobid, J.hosts[k], J.iso(), reason))
        others = [k for k in range(J.nn) if k not in failing_nodes]
        J.rnd.shuffle(others)
        for k in others[: max(1, len(others) // 2)]:
            J.c('srun: error: %s: task %d: Terminated' % (J.hosts[k], k))
        J.c('srun: Terminating StepId=%d.0' % J.jobid)


def interleave(J, per_rank):
    """print several ranks' multi-line output at once, randomly interleaved (per-rank order kept)."""
    queues = [list(v) for v in per_rank.values() if v]
    while queues:
        q = J.rnd.choice(queues)
        g, ln, tg = q.pop(0)
        J.r(g, ln, tg)
        if not q:
            queues.remove(q)


def py_tb(J, g, frames, exc_lines, tag=None, tagkey_line=None, emit=True):
    lines = ['Traceback (most recent call last):']
    for f, ln, fn, code in frames:
        lines.append('  File "%s", line %d, in %s' % (f, ln, fn))
        lines.append('    ' + code)
    for i, e in enumerate(exc_lines):
        lines.append(e)
    out = [(g, ln, tag if (tagkey_line is not None and ln == tagkey_line) else None) for ln in lines]
    if not emit:
        return out
    for g_, ln, tg in out:
        J.r(g_, ln, tg)


MEG_FRAMES = [('/workspace/Megatron-LM/pretrain_gpt.py', 247, '<module>', 'pretrain('),
              ('/workspace/Megatron-LM/megatron/training/training.py', 366, 'pretrain', 'iteration, num_floating_point_operations_so_far = train('),
              ('/workspace/Megatron-LM/megatron/training/training.py', 1297, 'train', 'train_step(forward_step_func,'),
              ('/workspace/Megatron-LM/megatron/training/training.py', 734, 'train_step', 'losses_reduced = forward_backward_func(')]
MEG_CKPT_FRAMES = [('/workspace/Megatron-LM/pretrain_gpt.py', 247, '<module>', 'pretrain('),
                   ('/workspace/Megatron-LM/megatron/training/training.py', 366, 'pretrain', 'iteration, num_floating_point_operations_so_far = train('),
                   ('/workspace/Megatron-LM/megatron/training/training.py', 1386, 'train', 'save_checkpoint_and_time(iteration, model, optimizer,'),
                   ('/workspace/Megatron-LM/megatron/training/checkpointing.py', 395, 'save_checkpoint', 'torch.save(state_dict, checkpoint_name)'),
                   ('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 850, 'save', 'with _open_zipfile_writer(f) as opened_zipfile:'),
                   ('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 690, '__exit__', 'self.file_like.write_end_of_file()')]
HF_FRAMES = [('/app/train_sft.py', 211, '<module>', 'main()'),
             ('/app/train_sft.py', 198, 'main', 'trainer.train(resume_from_checkpoint=args.resume)'),
             ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 2123, 'train', 'return inner_training_loop('),
             ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 2481, '_inner_training_loop', 'tr_loss_step = self.training_step(model, inputs, num_items_in_batch)')]
NPU_FRAMES = [('/home/ma-user/work/MindSpeed-LLM/pretrain_gpt.py', 268, '<module>', 'main()'),
              ('/home/ma-user/work/MindSpeed-LLM/pretrain_gpt.py', 257, 'main', 'pretrain('),
              ('/home/ma-user/work/MindSpeed-LLM/mindspeed_llm/training/training.py', 336, 'pretrain', 'iteration, num_floating_point_operations_so_far = train('),
              ('/home/ma-user/work/MindSpeed-LLM/mindspeed_llm/training/training.py', 641, 'train', 'train_step(forward_step_func,')]


def ei0002(J, g, remote, group_size, tag):
    k = J.node_of(g)
    J.r(g, '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed.' % (
        J.cann_ts(k), J.pid(g), J.lr(g), g))
    J.r(g, 'EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register '
           'has not received the Notify record from remote rank: [%s]. base information: [streamID:[%d], taskID[%d], '
           'taskType[Notify Wait], tag[AllReduce_group_name_%d], AlgType(level 0-1-2):[ring-NHR-NHR].]. task '
           'information: [notify id:[0x%016x], stage:[0], remote rank:[%s]]. group information: [group:[group_name_%d], '
           'user define information[Unspecified], rankSize[%d], rankId[%d]]' % (
               J.pid(g), J.cann_ts_ms(k), remote, 100 + J.lr(g), 38 + g, 1654, 0x213 + g, remote, 1654, group_size,
               g % group_size), tag)
    J.r(g, '        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a '
           'result, collective communication operation failed.2. The execution speed on some NPU in the cluster is '
           'too slow to complete a communication operation within the timeout interval. (default 1800s, You can '
           'set the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is '
           'inconsistent.4. Packet loss or other connectivity problems occur on the communication link.')
    J.r(g, '        Solution: 1. If this error is reported on part of these ranks, check other ranks to see whether '
           'other errors have been reported earlier.2. If this error is reported for all ranks, check whether the '
           'error reporting time is consistent (the maximum difference must not exceed 1800s). If not, locate the '
           'cause or adjust the locate the cause or set the HCCL_EXEC_TIMEOUT environment variable to a larger value.')
    J.r(g, '        TraceBack (most recent call last):')


def ei0006(J, g, dst_rank, dst_ip, tag, local_ip=None):
    k = J.node_of(g)
    J.r(g, '[ERROR] %s (PID:%d, Device:%d, RankID:-1) ERR02200 DIST call hccl api failed.' % (J.cann_ts(k), J.pid(g), J.lr(g)))
    J.r(g, 'EI0006: [PID: %d] %s Getting socket times out. Reason: Remote Rank did not send the data in time. Please '
           'check the reason for the rank being stuck' % (J.pid(g), J.cann_ts_ms(k)), tag)
    J.r(g, "        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. If "
           "this error is reported for all NPUs, check whether the time difference between the earliest and latest "
           "errors is greater than the connect timeout interval (120s by default). If so, adjust the timeout interval "
           "by using the HCCL_CONNECT_TIMEOUT environment variable.3. Check the connectivity of the communication link "
           "between nodes. (For example, run the 'hccn_tool -i $devid -tls -g' command to check the TLS status of each NPU).")
    J.r(g, '        TraceBack (most recent call last):')
    J.r(g, '        Transport init error. Reason: [Create][DestLink]Create Dest error! createLink para:rank[%d]-'
           'localUserrank[%d]-localIpAddr[%s], dst_rank[%d]-remoteUserrank[%d]-remote_ip_addr[%s]' % (
               g, g, local_ip or J.ips[k], dst_rank, dst_rank, dst_ip))


def msrun_fail(J, worker, code=1, timeout_nodes=None):
    J.c("[WARNING] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:318] "
        "There's worker exits with exception, kill all other workers." % (J.pids[0][0] - 60, J.cann_ts_ms(0)))
    J.adv(20)
    J.c('[ERROR] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:331] '
        'Scheduler process %d exit with exception.' % (J.pids[0][0] - 60, J.cann_ts_ms(0), J.pids[0][0] - 40))
    J.c('[WARNING] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:334] '
        'Analyzing exception log...' % (J.pids[0][0] - 60, J.cann_ts_ms(0)))
    if timeout_nodes is not None:
        J.c("[ERROR] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:431] "
            "Time out nodes are %s" % (J.pids[0][0] - 60, J.cann_ts_ms(0), repr([str(x) for x in timeout_nodes])))


# ----------------------------------------------------------------------------
# settings
# ----------------------------------------------------------------------------

def _aws(i, r):
    return 'gpu-st-p4d-24xlarge-%d' % (i + 3)


def _hgx(i, r):
    return 'hgx-h100-r%02dn%02d' % (3 + i // 8, i % 8 + 1)


def _node3(i, r):
    return 'node%03d' % (i + 1)


def _dgx(i, r):
    return 'dgx-a100-%02d' % (i + 11)


def _cn(i, r):
    return 'cn-%04d' % (i + 1)


def _ip(i, r):
    return 'ip-10-1-%d-%d' % (40 + i // 100, 12 + i % 100 * 2)


def _ascend(i, r):
    return 'ascend-%02d' % (i + 1)


def _atlas(i, r):
    return 'atlas900-a%02d' % (i + 1)


def _b910(i, r):
    return '910b-rack2-%02d' % (i + 1)


def _pod(prefix):
    def f(i, r):
        return '%s-%s-%d' % (prefix, 'master' if i == 0 else 'worker', 0 if i == 0 else i - 1)
    return f


def nf_host(J, k):
    return '%s.log' % J.hosts[k]


def nf_ip(J, k):
    return '%s.log' % J.ips[k]


def nf_nodeN(J, k):
    return 'node-%d.log' % k


def nf_pod(J, k):
    return 'pods/%s.log' % J.hosts[k]


SETTINGS = {
    'gpt175b-megatron-slurm': dict(stack='cuda', fw='megatron', layout='slurm', gpn=8, progress='megatron',
                                   hostfmt=_aws, ts='none', steps=30000, gbs=1536,
                                   script='pretrain_gpt.py --tensor-model-parallel-size 8 --pipeline-model-parallel-size 8'),
    'llama70b-megatron-pernode': dict(stack='cuda', fw='megatron', layout='pernode', gpn=8, progress='megatron',
                                      hostfmt=_hgx, ts='iso', nodefile=nf_host, default_prefix=True, steps=20000,
                                      script='pretrain_gpt.py --tensor-model-parallel-size 8'),
    'llama8b-fsdp-torchrun': dict(stack='cuda', fw='titan', layout='torchrun', gpn=4, progress='titan', hostfmt=_node3,
                                  ts='bracket', ansi=True, steps=3000, console='torchrun_stdout.log',
                                  script='torchtitan/train.py --job.config_file llama3_8b.toml'),
    'mistral7b-deepspeed-mpirun': dict(stack='cuda', fw='deepspeed', layout='mpirun', gpn=4, progress='deepspeed',
                                       hostfmt=_dgx, ts='iso', launcher='mpirun', steps=8000,
                                       script='train_ds.py --deepspeed ds_zero3.json'),
    'qwen14b-hf-k8s': dict(stack='cuda', fw='hf', layout='k8s', gpn=8, progress='hf', hostfmt=_pod('qwen14b-sft'),
                           ts='none', nodefile=nf_pod, steps=1200, script='train_sft.py --model Qwen/Qwen2.5-14B'),
    'llama13b-deepspeed-pdsh': dict(stack='cuda', fw='deepspeed', layout='pdsh', gpn=8, progress='deepspeed', hostfmt=_cn,
                                    ts='iso', launcher='deepspeed', steps=10000, console='pdsh_launch.log',
                                    script='pretrain_llama.py --deepspeed_config ds_config.json'),
    'gpt20b-custom-hostdirs': dict(stack='cuda', fw='fsdp', layout='hostdirs', gpn=8, progress='custom', hostfmt=_ip,
                                   ts='iso', wrap=240, steps=50000, script='trainer/main.py --cfg gpt20b.yaml'),
    'llama8b-titan-ipfiles': dict(stack='cuda', fw='titan', layout='pernode', gpn=8, progress='titan', hostfmt=_node3,
                                  ts='bracket', nodefile=nf_ip, steps=6000, gzip=True,
                                  script='torchtitan/train.py --job.config_file llama3_8b.toml'),
    'pangu38b-mindformers-msrun': dict(stack='ascend', fw='mindformers', layout='msrun', gpn=8, progress='mindformers',
                                       hostfmt=_ascend, ts='iso', steps=4000, script='run_mindformer.py --config pangu_38b.yaml'),
    'llama2-70b-mindspeed-pernode': dict(stack='ascend', fw='mindspeed', layout='pernode', gpn=8, progress='megatron',
                                         hostfmt=_atlas, ts='none', nodefile=nf_nodeN, steps=5000, gbs=512,
                                         script='pretrain_gpt.py --tensor-model-parallel-size 8'),
    'qwen7b-torchnpu-k8s': dict(stack='ascend', fw='torch_npu', layout='k8s', gpn=8, progress='hf',
                                hostfmt=_pod('qwen7b-npu-ft'), ts='none', nodefile=nf_pod, steps=900,
                                script='train_sft.py --model Qwen/Qwen2-7B --device npu'),
    'deepseek16b-mindspeed-hostdirs': dict(stack='ascend', fw='mindspeed', layout='hostdirs', gpn=8, progress='megatron',
                                           hostfmt=_b910, ts='iso', steps=6000, gbs=256,
                                           script='pretrain_gpt.py --expert-model-parallel-size 8'),
    'glm-mindformers-slurm': dict(stack='ascend', fw='mindformers', layout='slurm', gpn=8, progress='mindformers',
                                  hostfmt=_ascend, ts='iso', steps=8000, script='run_mindformer.py --config glm4_9b.yaml'),
}


# ----------------------------------------------------------------------------
# naming of nodes (as CONTRACTS derives them)
# ----------------------------------------------------------------------------

def node_relpath(J, k=None, g=None):
    L = J.layout
    if L == 'pdsh':
        return J.S.get('console', 'pdsh_launch.log')
    if L in ('pernode', 'k8s'):
        return J.S['nodefile'](J, k if k is not None else J.node_of(g))
    if L == 'hostdirs':
        if g is None:
            return '%s/launcher.log' % J.hosts[k]
        return '%s/rank_%d.log' % (J.hosts[J.node_of(g)], J.lr(g))
    if L == 'msrun':
        return 'msrun_log/worker_%d.log' % g
    raise ValueError(L)


def nodename(J, k=None, g=None):
    L = J.layout
    if L == 'slurm':
        base = ''
        if J.console_names and len(J.console_names) > 1:
            base = strip_ext(J.console_names[J.run_idx]) + '/'
        return base + 'rank%d' % (k if k is not None else J.node_of(g))
    if L in ('torchrun', 'mpirun'):
        return 'rank%d' % g
    return 'FILE:' + node_relpath(J, k, g)


TAGKEYS = {}


def ev(J, eid, key):
    t = '%s:%s' % (J.case_id, eid)
    TAGKEYS[t] = key
    return t


def start(J):
    if J.layout == 'k8s':
        for k in range(J.nn):
            J.n(k, '[entrypoint] hostname=%s NODE_RANK=%d MASTER_ADDR=%s WORLD_SIZE=%d NPROC_PER_NODE=%d' % (
                J.hosts[k], k, J.hosts[0], J.nn, J.gpn))
    if J.layout == 'hostdirs':
        for k in range(J.nn):
            J.n(k, '[launcher %s] %s: starting %d local ranks (node_rank=%d, master=%s:29500)' % (
                J.stamp(k, 'iso'), J.hosts[k], J.gpn, k, J.ips[0]))
    if J.stack == 'cuda':
        cuda_init(J)
    else:
        npu_init(J)


def model(J):
    if J.stack == 'cuda':
        cuda_model(J)
    else:
        npu_model(J)


def finish_ok(J):
    """successful end of a job."""
    fw = J.S['fw']
    if fw in ('megatron', 'mindspeed'):
        J.r(0, 'saving checkpoint at iteration %7d to %s' % (J.steps_total, J.S.get('ckpt', '/lustre/ckpt/run')))
        J.adv(30)
        J.r(0, '  successfully saved checkpoint at iteration %7d to %s' % (J.steps_total, J.S.get('ckpt', '/lustre/ckpt/run')))
        J.r(0, '[after training is done] datetime: %s ' % J.dt().strftime('%Y-%m-%d %H:%M:%S'))
    elif fw == 'hf' or fw == 'torch_npu':
        J.r(0, "{'train_runtime': %.1f, 'train_samples_per_second': 41.2, 'train_steps_per_second': 0.161, "
               "'train_loss': %.4f, 'epoch': 1.0}" % (J.steps_total * 6.2, J.loss + 0.3))
    elif fw == 'mindformers':
        J.r(J.world - 1, '%s - mindformers - INFO - .........Training Over!.............' % J.stamp(J.nn - 1, 'iso'))
    else:
        J.r(0, '%s [INFO] Training completed' % J.stamp(0, 'bracket'))
    if J.layout == 'msrun':
        for g in range(J.world):
            J.r(g, '[WARNING] DISTRIBUTED(%d,ffffb85d0c80,python):%s [mindspore/ccsrc/distributed/cluster/'
                   'cluster_context.cc:153] Finalize] This log means the cluster is successfully created. Retry to '
                   'finalize the node and exit cluster...' % (J.pid(g), J.cann_ts_ms(J.node_of(g))))
        J.c('[INFO] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:347] '
            'Worker process exit successfully.' % (J.pids[0][0] - 60, J.cann_ts_ms(0)))
    if J.layout in ('mpirun',):
        pass
    if J.S.get('launcher', 'torchrun') == 'torchrun' and J.stack == 'cuda':
        for k in range(J.nn):
            J.n(k, '%s %d torch/distributed/elastic/agent/server/api.py:879] [default] worker group successfully '
                   'finished. Waiting 300 seconds for other agents to finish.' % (J.glog('I', k), J.apid(k)))



# ----------------------------------------------------------------------------
# failure cases
# ----------------------------------------------------------------------------

def R(**kw):
    return kw


def pick_node(J, lo=1):
    return J.rnd.randint(lo, J.nn - 1)


def c_ib_peer(J):
    """IB completion error printed by a peer, naming the faulty node only by IP."""
    start(J); model(J)
    fail = J.rnd.randint(120, 260) * 10
    last = train(J, 1, fail, 3.1, every=10)
    X = pick_node(J, 2)
    Y = (X + 1) % J.nn if (X + 1) % J.nn != 0 else X - 1
    e1 = ev(J, 'e1', 'NCCL WARN NET/IB : Got completion from peer')
    J.adv(40)
    for l in J.rnd.sample(range(J.gpn), 3):
        g = Y * J.gpn + l
        J.r(g, J.nccl(g, 'transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 '
                         'opcode=%d len=%d vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s' % (
                             J.ips[X], J.rnd.randint(30000, 60000), J.rnd.choice([0, 129, 32616]), 0, J.ips[Y], J.ips[X]), 210), e1)
        J.r(g, J.nccl(g, 'NCCL INFO transport/net.cc:1298 -> 6', 210))
        J.r(g, J.nccl(g, 'NCCL INFO proxy.cc:694 -> 6', 210))
        J.r(g, J.nccl(g, 'NCCL INFO proxy.cc:874 -> 6 [Progress Thread]', 210))
    J.adv(600)
    ranks = [g for g in range(J.world) if J.node_of(g) != X]
    nccl_watchdog(J, J.rnd.sample(ranks, min(len(ranks), 48)), seq=last * 6 + 3, op='_ALLGATHER_BASE')
    slurm_end(J, [Y], code='Exited with exit code 1')
    return R(cat='hardware', sub='network', sym='training_crash', stage='training', faulty=[nodename(J, k=X)],
             hosts=[J.ips[X]], iters=[last], source='NVIDIA/nccl#1814; NVIDIA/nccl#1405; NVIDIA/Megatron-LM#1207',
             fault='IB completion error (status=12 retry exceeded) towards one node, reported only by its peer',
             rc='The InfiniBand path to node %s (%s) stopped completing work requests (transport retry exceeded), so '
                'its peer reported completion errors naming that IP and every other rank timed out in NCCL.' % (J.hosts[X], J.ips[X]),
             rem='Drain %s, check its HCA ports/cables and switch port counters (ibstat, ibdiagnet), then resume from '
                 'the last checkpoint without it.' % J.hosts[X])


def c_xid79(J):
    start(J); model(J)
    fail = J.rnd.randint(60, 140) * 10
    last = train(J, 1, fail, 4.4, every=10)
    X = pick_node(J, 1)
    J.adv(600)
    ranks = [g for g in range(J.world) if J.node_of(g) != X]
    nccl_watchdog(J, J.rnd.sample(ranks, min(len(ranks), 64)), seq=last * 4 + 1)
    others = J.rnd.sample([k for k in range(J.nn) if k != X], 3)
    slurm_end(J, others, code='Exited with exit code 1', cancel=False)
    J.c('srun: error: %s: task %d: Killed' % (J.hosts[X], X))
    J.c('srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
    J.c('srun: Terminating StepId=%d.0' % J.jobid)
    e1 = ev(J, 'e1', 'GPU has fallen off the bus')
    J.adv(40)
    J.c('[epilog %s] health check: nvidia-smi failed on %s: Unable to determine the device handle for GPU0000:%02X:00.0: Unknown Error' % (
        J.iso(), J.hosts[X], 0x10 + 16 * J.rnd.randint(0, 7)))
    J.c('[epilog %s] %s kernel: NVRM: Xid (PCI:0000:%02x:00): 79, pid=\'<unknown>\', name=<unknown>, GPU has fallen off the bus.' % (
        J.iso(), J.hosts[X], 0x10 + 16 * J.rnd.randint(0, 7)), e1)
    J.c('[epilog %s] draining node %s: Reason=gpu_xid_79' % (J.iso(), J.hosts[X]))
    return R(cat='hardware', sub='accelerator', sym='training_crash', stage='training', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[last], source='leptonai/gpud#1209; NVIDIA/open-gpu-kernel-modules#507',
             fault='GPU fell off the bus (Xid 79); the node goes silent and peers time out',
             rc='A GPU on %s dropped off the PCIe bus (Xid 79); its ranks stopped participating, all others hit the '
                'NCCL watchdog and Slurm killed the step.' % J.hosts[X],
             rem='Keep %s drained, reseat/replace the GPU (check power and thermals), and restart from the latest checkpoint.' % J.hosts[X])


def c_xid94_ecc(J):
    start(J); model(J)
    X = pick_node(J, 1)
    J.skew[X] = 37.0
    fail = J.rnd.randint(30, 90) * 10
    last = train(J, 1, fail, 5.8, every=10)
    l = J.rnd.randint(0, J.gpn - 1)
    g = X * J.gpn + l
    e1 = ev(J, 'e1', 'Contained ECC error')
    e2 = ev(J, 'e2', 'uncorrectable ECC error encountered')
    J.adv(2)
    J.n(X, '[%s] [%12.6f] NVRM: Xid (PCI:0000:%02x:00): 94, pid=%d, name=python3, Contained ECC error' % (
        J.stamp(X, 'iso'), 812345.0 + J.t % 1000, 0x1b + l * 16, J.pid(g)), e1)
    py_tb(J, g, MEG_FRAMES + [('/usr/local/lib/python3.10/dist-packages/torch/autograd/__init__.py', 347, 'backward',
                               '_engine_run_backward(')],
          ['RuntimeError: CUDA error: uncorrectable ECC error encountered',
           'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
           'For debugging consider passing CUDA_LAUNCH_BLOCKING=1',
           'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.'], e2,
          'RuntimeError: CUDA error: uncorrectable ECC error encountered')
    J.r(g, '[rank%d]:[%s ProcessGroupNCCL.cpp:1595] [PG ID 0 PG GUID 0(default_pg) Rank %d] Process group watchdog '
           'thread terminated with exception: CUDA error: uncorrectable ECC error encountered' % (g, J.glog('E', X), g), e2)
    torchrun_fail(J, X, l, -6)
    J.adv(600)
    ranks = [h for h in range(J.world) if J.node_of(h) != X]
    nccl_watchdog(J, J.rnd.sample(ranks, min(len(ranks), 40)), seq=last * 5 + 2)
    return R(cat='hardware', sub='accelerator', sym='training_crash', stage='training', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[last], source='leptonai/gpud#1174 (Xid 94 line); jade-hpc-gpu/jade-hpc-gpu.github.io#194',
             fault='uncorrectable (contained) ECC error on one GPU; node clock skewed +37s',
             rc='GPU %d on %s reported a contained uncorrectable ECC error (Xid 94); the CUDA context of rank %d was '
                'killed and the remaining ranks timed out in NCCL.' % (l, J.hosts[X], g),
             rem='Reset the GPU to apply row remapping (nvidia-smi -r / reboot), check remapped-rows counters, and '
                 'replace it if remapping failed; resume from the checkpoint.')


def c_oom_cfg(J):
    start(J); model(J)
    last = train(J, 1, 2, 9.5)
    e1 = ev(J, 'e1', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate')
    victims = J.rnd.sample(range(J.world), 3)
    per = {}
    for g in victims:
        per[g] = py_tb(J, g, [('/workspace/torchtitan/torchtitan/train.py', 418, '<module>', 'main(config)'),
                     ('/workspace/torchtitan/torchtitan/train.py', 312, 'main', 'loss.backward()'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/_tensor.py', 581, 'backward', 'torch.autograd.backward(')],
              ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.15 GiB '
               'of which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the '
               'allocated memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If '
               'reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to '
               'avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)' % (
                   3.91, J.lr(g), 1.02 + J.rnd.random(), 78.1, 71.3 + J.rnd.random(), 5.2)], e1, None, emit=False)
    interleave(J, per)
    # tag the exception lines
    J.E[:] = [(t, k, w, x, (e1 if x.startswith('torch.OutOfMemoryError') else tg)) for (t, k, w, x, tg) in J.E]
    for g in victims:
        torchrun_fail(J, J.node_of(g), J.lr(g), 1)
    return R(cat='user', sub='configuration', sym='training_crash', stage='training', faulty=[], hosts=[], iters=[last],
             source='pytorch/pytorch torch.OutOfMemoryError message format (c10/cuda/CUDACachingAllocator.cpp)',
             fault='CUDA OOM after sequence length raised to 16k without activation checkpointing',
             rc='The run configuration (sequence length 16384 with local batch 2 and no activation checkpointing) '
                'needs more than 80 GiB per GPU, so several ranks ran out of memory in the first backward passes.',
             rem='Lower the local batch or sequence length, or enable activation checkpointing / higher FSDP sharding, '
                 'then relaunch.')


def c_script_keyerror(J):
    start(J); model(J)
    fail = J.rnd.randint(40, 90) * 10
    last = train(J, 1, fail, 1.7, every=10)
    e1 = ev(J, 'e1', "KeyError: 'labels'")
    per = {}
    for g in J.rnd.sample(range(J.world), J.world // 2 + 1):
        per[g] = py_tb(J, g, [('/work/train_ds.py', 402, '<module>', 'main()'),
                     ('/work/train_ds.py', 371, 'main', 'for step, batch in enumerate(train_loader):'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 701, '__next__', 'data = self._next_data()'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 1465, '_next_data', 'return self._process_data(data)'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 1491, '_process_data', 'data.reraise()'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/_utils.py', 715, 'reraise', 'raise exception')],
              ['KeyError: Caught KeyError in DataLoader worker process 1.', 'Original Traceback (most recent call last):',
               '  File "/work/data/collate.py", line 58, in __call__',
               "    labels = [torch.tensor(ex['labels']) for ex in batch]", "KeyError: 'labels'"], e1, "KeyError: 'labels'",
                       emit=False)
    interleave(J, per)
    J.c('--------------------------------------------------------------------------')
    J.c('Primary job  terminated normally, but 1 process returned')
    J.c('a non-zero exit code. Per user-direction, the job has been aborted.')
    J.c('--------------------------------------------------------------------------')
    J.c('--------------------------------------------------------------------------')
    J.c('mpirun detected that one or more processes exited with non-zero status, thus causing')
    J.c('the job to be terminated. The first process to do so was:')
    J.c('')
    J.c('  Process name: [[%d,1],%d]' % (J.rnd.randint(10000, 60000), J.rnd.randint(0, J.world - 1)))
    J.c('  Exit code:    1')
    J.c('--------------------------------------------------------------------------')
    return R(cat='user', sub='script_bug', sym='training_crash', stage='data_loading', faulty=[], hosts=[], iters=[last],
             accept=['user/script_bug', 'user/configuration'],
             source='pytorch DataLoader worker re-raise format; open-mpi mpirun abort banner (NVIDIA/nccl-tests#322)',
             fault="custom collate function assumes every sample has 'labels'",
             rc="The custom collate function indexes ex['labels'], but the newly mixed-in data source has no labels "
                "field, so DataLoader workers on most ranks raised KeyError.",
             rem="Fix the collate function / dataset preprocessing to produce 'labels' for every source, validate the "
                 "mixture offline, and restart from the last checkpoint.")


def c_flashattn_abi(J):
    start(J)
    e1 = ev(J, 'e1', 'undefined symbol: _ZN3c104cuda9SetDeviceEi')
    for g in range(J.world):
        py_tb(J, g, [('/app/train_sft.py', 14, '<module>', 'from transformers import AutoModelForCausalLM, Trainer'),
                     ('/usr/local/lib/python3.10/dist-packages/transformers/modeling_flash_attention_utils.py', 27, '<module>',
                      'from flash_attn.bert_padding import index_first_axis, pad_input, unpad_input  # noqa'),
                     ('/usr/local/lib/python3.10/dist-packages/flash_attn/__init__.py', 3, '<module>',
                      'from flash_attn.flash_attn_interface import ('),
                     ('/usr/local/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py', 15, '<module>',
                      'import flash_attn_2_cuda as flash_attn_gpu')],
              ['ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: '
               'undefined symbol: _ZN3c104cuda9SetDeviceEi'], e1,
              'ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: '
              'undefined symbol: _ZN3c104cuda9SetDeviceEi')
        if J.lr(g) == J.gpn - 1:
            torchrun_fail(J, J.node_of(g), 0, 1, others_sigterm=False)
    return R(cat='user', sub='software_incompatibility', sym='launching_failure', stage='init', faulty=[], hosts=[],
             iters=[], source='Dao-AILab/flash-attention issues (undefined symbol after torch upgrade)',
             fault='flash-attn wheel built against another torch version',
             rc='The image upgraded torch but kept a flash-attn binary compiled against the old torch ABI, so '
                'importing flash_attn_2_cuda fails with an undefined c10 symbol on every rank.',
             rem='Rebuild or reinstall flash-attn against the installed torch/CUDA (pip install flash-attn '
                 '--no-build-isolation) and pin matching versions in the image.')


def c_ifname(J):
    X = pick_node(J, 1)
    J.S = dict(J.S)
    start(J)
    e1 = ev(J, 'e1', 'NCCL WARN Bootstrap : no socket interface found')
    for l in range(J.gpn):
        g = X * J.gpn + l
        J.r(g, J.nccl(g, 'misc/socket.cc:365 NCCL WARN Bootstrap : no socket interface found', 0), e1)
        J.r(g, J.nccl(g, 'NCCL INFO init.cc:97 -> 3', 0))
        J.r(g, J.nccl(g, 'NCCL INFO init.cc:1356 -> 3', 0))
    g = X * J.gpn
    py_tb(J, g, [('/work/pretrain_llama.py', 88, '<module>', 'deepspeed.init_distributed(dist_backend="nccl")'),
                 ('/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py', 4203, 'barrier',
                  'work = group.barrier(opts=opts)')],
          ['torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, internal '
           'error - please report this issue to the NCCL developers, NCCL version 2.21.5',
           "ncclInternalError: Internal check failed.", 'Last error:',
           'Bootstrap : no socket interface found'], None)
    J.adv(1800)
    ranks = [h for h in range(J.world) if J.node_of(h) != X]
    for h in J.rnd.sample(ranks, 12):
        J.r(h, "[rank%d]:[%s ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank %d] Exception (either an error "
               "or timeout) detected by watchdog at work: 1, last enqueued NCCL work: 1, last completed NCCL work: -1." % (
                   h, J.glog('E', J.node_of(h)), h))
    J.n(X, 'pdsh@%s: %s: ssh exited with exit code 1' % (J.hosts[0], J.hosts[X]))
    return R(cat='platform', sub='platform_configuration', sym='launching_failure', stage='init',
             faulty=[nodename(J, k=X)], hosts=[J.hosts[X]], iters=[],
             accept=['platform/platform_configuration', 'user/configuration'],
             source='NVIDIA/nccl bootstrap (misc/socket.cc) WARN text; NVIDIA/nccl#952',
             fault='NCCL_SOCKET_IFNAME=eth0 but one node names its NIC ens1f0np0',
             rc='The job exports NCCL_SOCKET_IFNAME=eth0, but %s was re-imaged with predictable NIC names and has no '
                'eth0, so NCCL bootstrap found no interface there and the others waited until the timeout.' % J.hosts[X],
             rem='Make interface naming consistent across the pool (or use NCCL_SOCKET_IFNAME=^lo,docker) and '
                 'return %s to service only after the node image check passes.' % J.hosts[X])


def c_scancel(J):
    start(J); model(J)
    stop = J.rnd.randint(30, 80) * 10
    last = train(J, 1, stop, 3.0, every=10)
    e1 = ev(J, 'e1', 'CANCELLED AT')
    J.adv(5)
    J.c('slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***' % (J.jobid, J.hosts[0], J.iso()), e1)
    J.c('srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
    for k in range(J.nn):
        J.c('slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***' % (J.jobid, J.hosts[k], J.iso()), e1)
    for k in range(J.nn):
        J.r(k * J.gpn, 'W%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, '
                       'shutting down workers' % (J.glog('', k).strip(), J.apid(k)))
    return R(cat='user', sub='misoperation', sym='others', stage='training', faulty=[], hosts=[], iters=[last],
             source='slurm slurmstepd cancel banner (ZettaAI/zetta_utils#671 shows the format)',
             fault='job cancelled by its owner (scancel) while healthy',
             rc='Training was progressing normally; the job was cancelled by a user (scancel) with no failure before it.',
             rem='Confirm the cancellation with sacct (State=CANCELLED by uid) and resubmit from the latest checkpoint if it was unintended.')


def c_thermal_slow(J):
    start(J); model(J)
    X = pick_node(J, 1)
    slow = J.rnd.randint(20, 40) * 10
    stop = slow + 300
    e1 = ev(J, 'e1', 'temperature above threshold, cpu clock throttled')

    def hook(s):
        if s >= slow and s % 37 == 0:
            cpu = J.rnd.randint(0, 95)
            J.n(X, '[%s] mce: CPU%d: Package temperature above threshold, cpu clock throttled (total events = %d)' % (
                J.stamp(X, 'iso'), cpu, 1000 + s * 3), e1)
            J.n(X, '[%s] mce: CPU%d: Core temperature above threshold, cpu clock throttled (total events = %d)' % (
                J.stamp(X, 'iso'), cpu, 900 + s * 2), e1)
    last = train(J, 1, stop, 6.1, slow=(slow, 3.4), every=10, hook=hook)
    e2 = ev(J, 'e2', 'DUE TO TIME LIMIT')
    J.n(0, 'slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***' % (J.jobid, J.hosts[0], J.iso()), e2)
    for k in range(J.nn):
        J.n(k, '%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death signal, '
               'shutting down workers' % (J.glog('W', k), J.apid(k)))
    return R(cat='hardware', sub='node', sym='abnormal_behavior', stage='training', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[slow, last], source='Linux mce thermal throttling messages (arch/x86/kernel/cpu/mce/therm_throt.c)',
             fault='one node thermally throttled, whole job slowed ~3.4x until wall-time limit',
             rc='From iteration %d the CPUs of %s were thermally throttled (cooling fault), making its ranks stragglers; '
                'step time rose ~3.4x for the whole job and it hit the wall-time limit.' % (slow, J.hosts[X]),
             rem='Drain %s for a cooling/fan inspection, resume from the latest checkpoint on healthy nodes and '
                 'alert on step-time regressions.' % J.hosts[X])


def c_pod_oomkilled(J):
    start(J); model(J)
    X = pick_node(J, 1)
    fail = J.rnd.randint(20, 60) * 10
    last = train(J, 1, fail, 6.0, every=1)
    l = J.rnd.randint(0, J.gpn - 1)
    torchrun_fail(J, X, l, -9)
    J.adv(600)
    ranks = [h for h in range(J.world) if J.node_of(h) != X]
    nccl_watchdog(J, J.rnd.sample(ranks, 16), seq=fail * 3 + 1)
    e1 = ev(J, 'e1', 'Memory cgroup out of memory: Killed process')
    ln = ('Warning  OOMKilling  node/gpu-node-%d  Memory cgroup out of memory: Killed process %d (python) total-vm:%dkB, '
          'anon-rss:%dkB, file-rss:%dkB, shmem-rss:%dkB, UID:0 pgtables:%dkB oom_score_adj:%d' % (
              J.rnd.randint(10, 99), J.pids[X][l], 312345678, 251234567, 81234, 4096, 512340, 999))
    J.E.append((J.t, 'x', None, ('kubectl_events.txt', 'LAST SEEN   TYPE      REASON       OBJECT                               MESSAGE'), None))
    J.E.append((J.t, 'x', None, ('kubectl_events.txt', '12m         ' + ln), e1))
    J.E.append((J.t, 'x', None, ('kubectl_events.txt', '12m         Normal    Killing      pod/%s   Stopping container pytorch' % J.hosts[X]), None))
    return R(cat='platform', sub='resource_management', sym='training_crash', stage='training',
             faulty=[nodename(J, k=X)], hosts=[J.hosts[X]], iters=[last],
             accept=['platform/resource_management', 'user/configuration'],
             source='Linux memcg OOM killer message format; torchrun exitcode -9 block (lmzpai/roboMamba#10)',
             fault='host-memory cgroup OOM kill of one pod (limit 256Gi too small for 16 loader workers x 8 ranks)',
             rc='The container memory limit of pod %s was exhausted by dataloader workers, the kernel memcg OOM killer '
                'SIGKILLed local rank %d (exitcode -9), and peers timed out.' % (J.hosts[X], l),
             rem='Raise the pod memory limit or reduce num_workers / prefetch, and restart from the checkpoint.')


def c_node_crash_silent(J):
    start(J); model(J)
    X = pick_node(J, 1)
    fail = J.rnd.randint(80, 200) * 10
    last = train(J, 1, fail, 2.2, every=10)
    # node X goes silent; peers see socket closed, naming X only by IP
    e1 = ev(J, 'e1', 'NCCL WARN socketProgress: Connection closed by remote peer')
    J.adv(3)
    peers = J.rnd.sample([k for k in range(J.nn) if k != X], min(3, J.nn - 1))
    for k in peers:
        g = k * J.gpn + J.rnd.randint(0, J.gpn - 1)
        J.r(g, J.nccl(g, 'misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote peer %s<%d>' % (
            J.ips[X], J.rnd.randint(40000, 60000)), 300), e1)
        J.r(g, J.nccl(g, 'NCCL INFO misc/socket.cc:749 -> 6', 300))
        J.r(g, J.nccl(g, 'NCCL INFO transport/net_socket.cc:474 -> 6', 300))
    J.adv(600)
    ranks = [h for h in range(J.world) if J.node_of(h) != X]
    nccl_watchdog(J, J.rnd.sample(ranks, min(len(ranks), 40)), seq=last * 2 + 1, op='_REDUCE_SCATTER_BASE')
    for k in peers[:1]:
        torchrun_fail(J, k, 0, -6)
    return R(cat='hardware', sub='node', sym='training_crash', stage='training', faulty=[nodename(J, k=X)],
             hosts=[J.ips[X]], iters=[last], source='NVIDIA/nccl#1232; NVIDIA/nccl#1486 (socketProgress WARN text)',
             fault='node rebooted (kernel panic); its log just stops, peers name its IP',
             rc='Node %s (%s) crashed and rebooted mid-step: its log stops without an error, peers saw their NCCL '
                'connections to that IP closed and then timed out.' % (J.hosts[X], J.ips[X]),
             rem='Pull the BMC/kdump logs of %s, keep it drained until diagnosed, and restart without it.' % J.ips[X])


def c_ckpt_disk_full(J):
    start(J); model(J)
    save = J.rnd.choice([1000, 1500, 2000])
    last = train(J, 1, save, 1.9, every=25)
    e1 = ev(J, 'e1', 'unexpected pos')
    e2 = ev(J, 'e2', 'PytorchStreamWriter failed writing file')
    J.r(0, '%s [INFO] saving checkpoint shard set at step %d -> /fsx/ckpt/gpt20b/step_%07d' % (J.stamp(0, 'iso'), save, save))
    J.adv(95)
    for g in J.rnd.sample(range(J.world), 5):
        py_tb(J, g, [('/opt/trainer/trainer/main.py', 233, '<module>', 'run(cfg)'),
                     ('/opt/trainer/trainer/loop.py', 418, 'run', 'ckpt.save(step, model, optim)'),
                     ('/opt/trainer/trainer/ckpt.py', 77, 'save', 'torch.save(shard, path)'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 849, 'save', '_save('),
                     ('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 1114, '_save',
                      'zip_file.write_record(name, storage, num_bytes)')],
              ['RuntimeError: [enforce fail at inline_container.cc:778] . PytorchStreamWriter failed writing file data/%d: file write failed' % J.rnd.randint(3, 90),
               '', 'During handling of the above exception, another exception occurred:', '',
               'Traceback (most recent call last):',
               '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 690, in __exit__',
               '    self.file_like.write_end_of_file()',
               'RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos %d vs %d' % (
                   2387758464 + g * 64, 2387758376 + g * 64)], None)
    J.E[:] = [(t, k, w, x, (e1 if (x.startswith('RuntimeError') and 'unexpected pos' in x) else
                             e2 if (x.startswith('RuntimeError') and 'PytorchStreamWriter' in x) else tg))
              for (t, k, w, x, tg) in J.E]
    J.n(0, '[%s] launcher: df -h /fsx: Filesystem 1.2P 1.2P 0 100%% /fsx' % J.stamp(0, 'iso'))
    return R(cat='platform', sub='resource_management', sym='training_crash', stage='checkpoint', faulty=[], hosts=[],
             iters=[save], accept=['platform/resource_management', 'hardware/storage'],
             source='verl-project/verl#3346; hkust-nlp/simpleRL-reason#19 (inline_container.cc messages)',
             fault='shared file system full during checkpoint save',
             rc='The shared /fsx file system ran out of space while ranks were writing the step-%d checkpoint shards, '
                'so torch.save failed with short writes on several ranks.' % save,
             rem='Free or expand /fsx (or enforce checkpoint retention), verify the previous checkpoint is intact, and resume.')


def c_restart_ecc(J):
    J.console_names = ['slurm-%d.out' % J.jobid, 'slurm-%d.out' % (J.jobid + 16)]
    start(J); model(J)
    X = pick_node(J, 1)
    fail = J.rnd.randint(40, 120) * 10
    last = train(J, 1, fail, 3.5, every=10)
    J.adv(600)
    ranks = [h for h in range(J.world) if J.node_of(h) != X]
    nccl_watchdog(J, J.rnd.sample(ranks, 24), seq=last * 4 + 3)
    slurm_end(J, J.rnd.sample([k for k in range(J.nn) if k != X], 2))
    first = nodename(J, k=X)
    J.new_run(); J.run_idx = 1
    J.adv(900)
    start(J)
    e1 = ev(J, 'e1', 'uncorrectable ECC error encountered')
    l = J.rnd.randint(0, J.gpn - 1)
    g = X * J.gpn + l
    py_tb(J, g, [('/workspace/Megatron-LM/pretrain_gpt.py', 247, '<module>', 'pretrain('),
                 ('/workspace/Megatron-LM/megatron/training/training.py', 271, 'pretrain', 'initialize_megatron('),
                 ('/workspace/Megatron-LM/megatron/training/initialize.py', 330, '_initialize_distributed',
                  'torch.cuda.set_device(device)')],
          ['RuntimeError: CUDA error: uncorrectable ECC error encountered',
           'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
           'For debugging consider passing CUDA_LAUNCH_BLOCKING=1'], e1, 'RuntimeError: CUDA error: uncorrectable ECC error encountered')
    torchrun_fail(J, X, l, 1)
    slurm_end(J, [X])
    return R(cat='hardware', sub='accelerator', sym='training_crash', stage='training', faulty=[first, nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[last], source='jade-hpc-gpu/jade-hpc-gpu.github.io#194 (ECC text); slurm srun error lines',
             fault='first run hangs (NCCL timeout) on a GPU with a latent ECC fault; the automatic restart fails at init on the same node',
             rc='A GPU on %s developed an uncorrectable ECC fault: the first run stalled in a collective and timed out, '
                'and the automatic restart on the same allocation failed immediately on that GPU.' % J.hosts[X],
             rem='Exclude %s (sbatch --exclude) and have it RMA-checked, then resubmit from the latest checkpoint.' % J.hosts[X])


def c_nfs_hang(J):
    start(J); model(J)
    stop = J.rnd.randint(30, 70) * 10
    last = train(J, 1, stop, 2.4, every=10)
    e1 = ev(J, 'e1', 'not responding, still trying')
    nfs = '10.%d.0.5' % J.rnd.randint(1, 9)
    for rep in range(6):
        J.adv(300)
        for k in J.rnd.sample(range(J.nn), J.nn // 2 + 1):
            J.n(k, '[%s] nfs: server %s not responding, still trying' % (J.stamp(k, 'iso'), nfs), e1)
    J.adv(1200)
    J.c('^C')
    J.c('pdsh@%s: interrupt (one more within 1 sec to abort)' % J.hosts[0])
    J.c('pdsh@%s:  (^Z within 1 sec to cancel pending threads)' % J.hosts[0])
    J.c('^Cpdsh@%s: interrupt (one more within 1 sec to abort)' % J.hosts[0])
    J.c('sending SIGTERM to ssh %s' % ','.join(J.hosts[:3]) + ',...')
    return R(cat='hardware', sub='storage', sym='abnormal_behavior', stage='data_loading', faulty=[], hosts=[],
             iters=[last], source='Linux NFS client kernel message ("nfs: server ... not responding, still trying"); pdsh interrupt text',
             fault='NFS server holding the dataset stopped responding; all ranks hang in data loading',
             rc='The NFS server %s holding the tokenized dataset stopped responding, dataloader reads blocked on all '
                'nodes and training hung after iteration %d until the operator interrupted it.' % (nfs, last),
             rem='Restore the NFS server (or fail over), consider staging data on local NVMe, then resume from the checkpoint.')


def c_rdzv_firewall(J):
    e1 = ev(J, 'e1', 'The client socket has timed out after')
    J.c('[%s] [INFO] [runner.py:607:main] cmd = mpirun -n %d -hostfile /job/hostfile -x NCCL_DEBUG=WARN python -u %s' % (
        J.dt().strftime('%Y-%m-%d %H:%M:%S,000'), J.world, J.S['script']))
    J.adv(3)
    for g in range(J.world):
        J.r(g, '[%s] [INFO] [comm.py:652:init_distributed] cdb=None' % J.dt().strftime('%Y-%m-%d %H:%M:%S,000'))
    J.r(0, '[%s] [INFO] [comm.py:683:init_distributed] Initializing TorchBackend in DeepSpeed with backend nccl' %
        J.dt().strftime('%Y-%m-%d %H:%M:%S,000'))
    J.adv(1800)
    for g in range(J.gpn, J.world):
        py_tb(J, g, [('/work/train_ds.py', 61, '<module>', 'deepspeed.init_distributed()'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/distributed/rendezvous.py', 274, '_create_c10d_store',
                      'return TCPStore(')],
              ['torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to '
               'connect to (%s, 29500).' % J.ips[0]], e1,
              'torch.distributed.DistNetworkError: The client socket has timed out after 1800000ms while trying to '
              'connect to (%s, 29500).' % J.ips[0])
    J.c('--------------------------------------------------------------------------')
    J.c('mpirun detected that one or more processes exited with non-zero status, thus causing')
    J.c('the job to be terminated. The first process to do so was:')
    J.c('')
    J.c('  Process name: [[%d,1],%d]' % (J.rnd.randint(10000, 60000), J.gpn))
    J.c('  Exit code:    1')
    J.c('--------------------------------------------------------------------------')
    return R(cat='platform', sub='platform_configuration', sym='launching_failure', stage='init', faulty=[], hosts=[],
             iters=[], accept=['platform/platform_configuration', 'user/configuration'],
             source='pytorch/pytorch TCPStore DistNetworkError text',
             fault='TCP port 29500 on the master blocked by the host firewall (new security group)',
             rc='Workers on other nodes could not reach the rendezvous TCPStore at %s:29500 (blocked by the new '
                'firewall / security-group rules), so init timed out after 30 minutes.' % J.ips[0],
             rem='Open the rendezvous port range between training nodes (or use an allowed MASTER_PORT) and relaunch.')


def c_dcp_bug(J):
    start(J); model(J)
    save = J.rnd.choice([500, 1000])
    last = train(J, 1, save, 2.6, every=10)
    J.r(0, '%s [INFO] Saving a checkpoint at step %d.' % (J.stamp(0, 'bracket'), save))
    e1 = ev(J, 'e1', 'CheckpointException ranks:')
    bad = sorted(J.rnd.sample(range(J.world), 2))
    for g in range(0, J.world, J.gpn):
        py_tb(J, g, [('/workspace/torchtitan/torchtitan/train.py', 418, '<module>', 'main(config)'),
                     ('/workspace/torchtitan/torchtitan/components/checkpoint.py', 402, 'save', 'dcp.save(states, checkpoint_id=checkpoint_id)'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/distributed/checkpoint/utils.py', 211, 'all_reduce',
                      'raise CheckpointException(step, node_failures)')],
              ['torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys(%r)' % bad,
               'Traceback: (RANK %d)' % bad[0],
               '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/checkpoint/default_planner.py", line 302, in create_local_plan',
               '    plan = create_default_local_save_plan(self.state_dict, self.is_coordinator)',
               "AttributeError: 'NonDynamicallyQuantizableLinear' object has no attribute '_local_tensor'"], e1,
              'torch.distributed.checkpoint.api.CheckpointException: CheckpointException ranks:dict_keys(%r)' % bad)
        torchrun_fail(J, J.node_of(g), 0, 1)
    return R(cat='framework', sub='framework_bug', sym='training_crash', stage='checkpoint', faulty=[], hosts=[],
             iters=[save], accept=['framework/framework_bug', 'user/software_incompatibility'],
             source='pytorch/pytorch torch.distributed.checkpoint CheckpointException format',
             fault='DCP save planner bug with FSDP2 + nn.MultiheadAttention out_proj',
             rc='torch.distributed.checkpoint failed to plan the save for an FSDP2-sharded MultiheadAttention '
                'out_proj (a known framework bug in this torch build), aborting the step-%d checkpoint on all ranks.' % save,
             rem='Upgrade torch to a release with the DCP/FSDP2 fix (or save with full_state_dict as a workaround) and resume.')


def c_failedscheduling(J):
    missing = J.nn - 1
    J.hosts_present = J.nn - 1
    for k in range(J.nn - 1):
        J.n(k, '[%s] INFO Starting elastic_operator with launch configs:' % J.stamp(k, 'iso'))
        J.n(k, '  entrypoint       : train_sft.py')
        J.n(k, '  min_nodes        : %d' % J.nn)
        J.n(k, '  rdzv_backend     : c10d')
        J.n(k, '  rdzv_endpoint    : %s:29400' % J.hosts[0])
    J.adv(900)
    e1 = ev(J, 'e1', 'RendezvousTimeoutError')
    for k in range(J.nn - 1):
        for ln in ['Traceback (most recent call last):',
                   '  File "/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/agent/server/api.py", line 489, in _rendezvous',
                   '    rdzv_info = spec.rdzv_handler.next_rendezvous()',
                   'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError']:
            J.n(k, ln, e1 if ln.endswith('RendezvousTimeoutError') else None)
    e2 = ev(J, 'e2', 'FailedScheduling')
    J.E.append((J.t, 'x', None, ('kubectl_events.txt', 'LAST SEEN   TYPE      REASON             OBJECT                         MESSAGE'), None))
    for m in (15, 10, 5):
        J.E.append((J.t, 'x', None, ('kubectl_events.txt',
                                     '%dm         Warning   FailedScheduling   pod/%s   0/48 nodes are available: 6 Insufficient '
                                     'nvidia.com/gpu, 42 node(s) didn\'t match Pod\'s node affinity/selector. preemption: 0/48 '
                                     'nodes are available: 6 No preemption victims found for incoming pod, 42 Preemption is not '
                                     'helpful for scheduling.' % (m, J.hosts[missing])), e2))
    return R(cat='platform', sub='scheduling', sym='launching_failure', stage='init', faulty=[], hosts=[], iters=[],
             source='kubernetes scheduler FailedScheduling message; torch elastic RendezvousTimeoutError',
             fault='one worker pod never scheduled (not enough free GPUs) -> rendezvous timeout',
             rc='Pod %s stayed Pending because no node had 8 free GPUs matching the affinity, so the other pods '
                'waited in the c10d rendezvous until it timed out.' % J.hosts[missing],
             rem='Use gang scheduling (Volcano/Kueue) or request capacity first so all pods start together, then resubmit.')


def c_ib_port_down(J):
    start(J); model(J)
    X = pick_node(J, 1)
    fail = J.rnd.randint(50, 150) * 10
    last = train(J, 1, fail, 5.1, every=10)
    e1 = ev(J, 'e1', 'Link DOWN')
    e2 = ev(J, 'e2', 'Got async event : port error')
    J.n(X, '[%s] mlx5_core 0000:%02x:00.0 mlx5_%d: Port: 1 Link DOWN' % (J.stamp(X, 'iso'), 0xab, 5), e1)
    for l in J.rnd.sample(range(J.gpn), 2):
        g = X * J.gpn + l
        J.r(g, J.nccl(g, 'transport/net_ib.cc:112 NCCL WARN NET/IB : mlx5_5:1 Got async event : port error', 20), e2)
    J.adv(2)
    e3 = ev(J, 'e3', 'NCCL WARN NET/IB : Got completion from peer')
    for k in J.rnd.sample([k for k in range(J.nn) if k != X], 4):
        g = k * J.gpn + 5
        J.r(g, J.nccl(g, 'transport/net_ib.cc:1696 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 '
                         'opcode=0 len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s' % (
                             J.ips[X], J.rnd.randint(30000, 60000), J.ips[k], J.ips[X]), 210), e3)
    J.adv(8)
    J.n(X, '[%s] mlx5_core 0000:%02x:00.0 mlx5_%d: Port: 1 Link ACTIVE' % (J.stamp(X, 'iso'), 0xab, 5))
    J.adv(600)
    nccl_watchdog(J, J.rnd.sample(range(J.world), 40), seq=last * 3 + 2)
    return R(cat='hardware', sub='network', sym='training_crash', stage='training', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X], J.ips[X]], iters=[last], source='leptonai/gpud#1209 (mlx5 Link lines); NVIDIA/nccl#1814',
             fault='IB port flap (Link DOWN/ACTIVE) on one HCA',
             rc='Port 1 of mlx5_5 on %s went down for several seconds; in-flight RDMA transfers failed, peers saw '
                'completion errors naming %s and the job timed out.' % (J.hosts[X], J.ips[X]),
             rem='Replace/reseat the cable or transceiver of mlx5_5 on %s, check the switch port, then restart.' % J.hosts[X])


def c_nvme_io(J):
    start(J); model(J)
    X = pick_node(J, 1)
    fail = J.rnd.randint(100, 300) * 10
    last = train(J, 1, fail, 0.9, every=50)
    e1 = ev(J, 'e1', 'blk_update_request: I/O error')
    e2 = ev(J, 'e2', 'OSError: [Errno 5] Input/output error')
    for i in range(3):
        J.n(X, '[%s] blk_update_request: I/O error, dev nvme1n1, sector %d op 0x0:(READ) flags 0x80700 phys_seg 1 prio class 0' % (
            J.stamp(X, 'iso'), 88123456 + i * 8), e1)
    l = J.rnd.randint(0, J.gpn - 1)
    g = X * J.gpn + l
    py_tb(J, g, [('/opt/trainer/trainer/main.py', 233, '<module>', 'run(cfg)'),
                 ('/opt/trainer/trainer/loop.py', 355, 'run', 'batch = next(data_iter)'),
                 ('/opt/trainer/trainer/data/indexed.py', 142, '__getitem__', 'buf = np.frombuffer(self._mm[off:off + n], dtype=np.uint16)')],
          ['OSError: [Errno 5] Input/output error'], e2, 'OSError: [Errno 5] Input/output error')
    J.n(X, '%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: %d (pid: %d) '
           'of binary: /usr/bin/python3' % (J.glog('E', X), J.apid(X), l, J.pid(g)))
    J.adv(600)
    nccl_watchdog(J, J.rnd.sample([h for h in range(J.world) if J.node_of(h) != X], 12), seq=fail * 2 + 1)
    return R(cat='hardware', sub='storage', sym='training_crash', stage='data_loading',
             faulty=[nodename(J, g=g), nodename(J, k=X)], hosts=[J.hosts[X]], iters=[last],
             source='Linux block layer error format (blk_update_request); Python OSError errno 5',
             fault='local NVMe holding the data cache returns read errors on one node',
             rc='The local NVMe (nvme1n1) of %s returned media read errors while rank %d read its data shard, so that '
                'rank crashed with EIO and the rest timed out.' % (J.hosts[X], g),
             rem='Replace or re-format the NVMe on %s, re-stage the data cache, and resume from the checkpoint.' % J.hosts[X])


def c_store_timeout_loading(J):
    start(J)
    J.r(0, '%s [INFO] Loading the checkpoint from s3://llm-ckpt/llama3-8b/step-12000 (18 shards)' % J.stamp(0, 'bracket'))
    J.adv(1800)
    e1 = ev(J, 'e1', "store->get('0') got error: Socket Timeout")
    for g in J.rnd.sample(range(1, J.world), 10):
        J.r(g, "[rank%d]: torch.distributed.DistBackendError: [%d] is setting up NCCL communicator and retrieving "
               "ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout" % (g, g), e1)
        J.r(g, "[rank%d]: Exception raised from recvBytes at ../torch/csrc/distributed/c10d/Utils.hpp:672 (most recent call first):" % g)
    J.r(0, '%s [INFO] Loaded 7/18 checkpoint shards in 1803.2 s' % J.stamp(0, 'bracket'))
    for k in range(1, J.nn):
        J.n(k, '%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: %d) '
               'of binary: /usr/bin/python' % (J.glog('E', k), J.apid(k), J.pids[k][0]))
    return R(cat='user', sub='configuration', sym='training_crash', stage='model_loading', faulty=[], hosts=[], iters=[],
             accept=['user/configuration', 'hardware/storage'],
             source='pytorch/pytorch ProcessGroupNCCL "retrieving ncclUniqueId ... Socket Timeout" text',
             fault='rank 0 alone streams a large checkpoint from S3; others hit the 30-min store timeout',
             rc='Only rank 0 loads the checkpoint from object storage before creating the NCCL communicator; the '
                'slow download exceeded the 30-minute process-group timeout and all other ranks failed.',
             rem='Load sharded checkpoints on all ranks (or pre-stage to local disk) and raise the init timeout.')


def c_fused_adam_ima(J):
    start(J); model(J)
    fail = J.rnd.randint(30, 80) * 10
    last = train(J, 1, fail, 2.3, every=10)
    e1 = ev(J, 'e1', "Cuda failure 'an illegal memory access was encountered'")
    g0 = J.rnd.randint(0, J.world - 1)
    J.r(g0, J.nccl(g0, "misc/strongstream.cc:343 NCCL WARN Cuda failure 'an illegal memory access was encountered'", 0), e1)
    py_tb(J, g0, [('/work/train_ds.py', 377, 'main', 'model_engine.step()'),
                  ('/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/engine.py', 2213, 'step', 'self._take_model_step(lr_kwargs)'),
                  ('/usr/local/lib/python3.10/dist-packages/deepspeed/ops/adam/fused_adam.py', 191, 'step',
                   'multi_tensor_applier(self.multi_tensor_adam, self._dummy_overflow_buf, [g_32, p_32, m_32, v_32],')],
          ['RuntimeError: CUDA error: an illegal memory access was encountered',
           'CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.'],
          None)
    J.adv(600)
    nccl_watchdog(J, [h for h in range(J.world) if h != g0], seq=last * 2 + 7)
    J.c('--------------------------------------------------------------------------')
    J.c('mpirun noticed that process rank %d with PID %d on node %s exited on signal 6 (Aborted).' % (
        g0, J.pid(g0), J.hosts[J.node_of(g0)]))
    J.c('--------------------------------------------------------------------------')
    return R(cat='framework', sub='framework_bug', sym='training_crash', stage='training', faulty=[], hosts=[],
             iters=[last], accept=['framework/framework_bug', 'user/software_incompatibility'],
             source='NVIDIA/TensorRT-LLM#448 (strongstream NCCL WARN text); vllm-project/vllm#4108',
             fault='illegal memory access inside DeepSpeed FusedAdam multi-tensor kernel with >2^31-element groups',
             rc='DeepSpeed FusedAdam multi_tensor_apply overflowed its index for a >2^31-element parameter group, '
                'causing an illegal memory access on one rank; the others then timed out.',
             rem='Upgrade DeepSpeed to a release with the multi-tensor index fix or split parameter groups, then resume.')


def c_ssh_down(J):
    X = pick_node(J, 1)
    e1 = ev(J, 'e1', 'ssh exited with exit code 255')
    J.c('[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s' % (
        J.dt().strftime('%Y-%m-%d %H:%M:%S,000'), ','.join(J.hosts)))
    J.c('[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/work; cd /work; '
        '/usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJ... --node_rank=%%n --master_addr=%s '
        '--master_port=29500 %s' % (J.dt().strftime('%Y-%m-%d %H:%M:%S,000'), ','.join(J.hosts), J.ips[0], J.S['script']))
    for k in range(J.nn):
        if k == X:
            continue
        J.n(k, '[%s] [INFO] [launch.py:146:main] WORLD INFO DICT: {%s}' % (J.dt(k).strftime('%Y-%m-%d %H:%M:%S,000'),
                                                                              ', '.join("'%s': [0, 1, 2, 3, 4, 5, 6, 7]" % h for h in J.hosts[:3]) + ', ...'))
        J.n(k, '[%s] [INFO] [launch.py:164:main] dist_world_size=%d' % (J.dt(k).strftime('%Y-%m-%d %H:%M:%S,000'), J.world))
    J.adv(120)
    J.n(X, 'ssh: connect to host %s port 22: Connection timed out' % J.hosts[X])
    J.c('pdsh@%s: %s: ssh exited with exit code 255' % (J.hosts[0], J.hosts[X]), e1)
    J.adv(1800)
    for k in J.rnd.sample([k for k in range(J.nn) if k != X], 3):
        g = k * J.gpn
        J.r(g, "[rank%d]: torch.distributed.DistBackendError: [%d] is setting up NCCL communicator and retrieving "
               "ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout" % (g, g))
    return R(cat='hardware', sub='node', sym='launching_failure', stage='init', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[], accept=['hardware/node', 'platform/resource_management'],
             source='pdsh "ssh exited with exit code 255" text; OpenSSH connect timeout text',
             fault='one host in the static hostfile is down (unreachable over ssh)',
             rc='%s in the hostfile was down/unreachable, pdsh could not start its workers, and the other ranks '
                'waited at NCCL init until the store timed out.' % J.hosts[X],
             rem='Remove %s from the hostfile (or fix it via BMC), validate hosts with a pre-flight ssh check, relaunch.' % J.hosts[X])


def c_no_ib(J):
    X = pick_node(J, 1)
    start(J)
    e1 = ev(J, 'e1', 'NCCL WARN Error: network IB not found.')
    for l in range(J.gpn):
        g = X * J.gpn + l
        J.r(g, J.nccl(g, 'NCCL INFO NET/IB : No device found.', 0))
        J.r(g, J.nccl(g, 'net.cc:732 NCCL WARN Error: network IB not found.', 0), e1)
        J.r(g, J.nccl(g, 'NCCL INFO init.cc:1437 -> 2', 0))
    g = X * J.gpn
    py_tb(J, g, HF_FRAMES[:2] + [('/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py', 4179,
                                  'barrier', 'work = group.barrier(opts=opts)')],
          ['torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:317, invalid '
           'usage (run with NCCL_DEBUG=WARN for details), NCCL version 2.21.5',
           'ncclInvalidUsage: This usually reflects invalid usage of NCCL library.', 'Last error:',
           'Error: network IB not found.'], None)
    torchrun_fail(J, X, 0, 1)
    return R(cat='platform', sub='platform_configuration', sym='launching_failure', stage='init',
             faulty=[nodename(J, k=X)], hosts=[J.hosts[X]], iters=[],
             accept=['platform/platform_configuration', 'hardware/network'],
             source='NVIDIA/nccl#952 ("NET/IB : No device found"); NCCL net.cc "network IB not found" WARN',
             fault='RDMA device plugin did not inject IB devices into one pod while NCCL_NET=IB is forced',
             rc='Pod %s was started without the RDMA devices (device-plugin resource missing on its node), so '
                'NCCL_NET=IB found no IB device there and communicator init failed.' % J.hosts[X],
             rem='Fix the rdma/hca device-plugin on that node (or add the resource request), then resubmit.')


def c_shm_bus(J):
    start(J); model(J)
    X = J.nn - 1
    fail = J.rnd.randint(3, 9) * 10
    last = train(J, 1, fail, 3.3, every=10)
    e1 = ev(J, 'e1', 'ERROR: Unexpected bus error encountered in worker')
    e2 = ev(J, 'e2', 'is killed by signal: Bus error')
    vict = [X * J.gpn + 1, X * J.gpn + 2]
    for g in vict:
        J.r(g, 'ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).', e1)
    for g in vict:
        py_tb(J, g, [('/workspace/torchtitan/torchtitan/train.py', 298, 'main', 'batch = next(data_iterator)'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 1284, '_try_get_data',
                      "raise RuntimeError(f'DataLoader worker (pid(s) {pids_str}) exited unexpectedly') from e")],
              ['RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader\'s '
               'workers are out of shared memory. Please try to raise your shared memory limit.' % (J.pid(g) + 77)], e2,
              'RuntimeError: DataLoader worker (pid %d) is killed by signal: Bus error. It is possible that dataloader\'s '
              'workers are out of shared memory. Please try to raise your shared memory limit.' % (J.pid(g) + 77))
    torchrun_fail(J, X, 1, 1)
    return R(cat='platform', sub='platform_configuration', sym='training_crash', stage='data_loading',
             faulty=[nodename(J, g=g) for g in vict], hosts=[J.hosts[X]], iters=[last],
             accept=['platform/platform_configuration', 'user/configuration'],
             source='pytorch DataLoader bus-error messages (torch/utils/data/_utils/signal_handling)',
             fault='/dev/shm is 64 MiB (container default) on one host; dataloader workers die with SIGBUS',
             rc='%s runs the container with the default 64 MiB /dev/shm, so DataLoader workers of its ranks died with '
                'SIGBUS when passing batches through shared memory.' % J.hosts[X],
             rem='Give the container a larger /dev/shm (--shm-size / emptyDir medium: Memory) on every node and relaunch.')


def c_nan_abort(J):
    start(J); model(J)
    spike = J.rnd.randint(30, 60) * 10
    e1 = ev(J, 'e1', 'Rank 0 Skipping step. Attempted loss scale')
    e2 = ev(J, 'e2', 'FloatingPointError: loss is NaN')

    def hook(s):
        if s >= spike and s % 10 == 0:
            J.r(0, '[%s] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted '
                   'loss scale: %d, reducing to %d' % (J.dt().strftime('%Y-%m-%d %H:%M:%S,000'), 2 ** max(1, 16 - (s - spike) // 10),
                                                       2 ** max(0, 15 - (s - spike) // 10)), e1)
    last = train(J, 1, spike + 150, 4.0, every=10, hook=hook)
    J.r(0, 'steps: %d loss: nan iter time (s): 4.012 samples/sec: 127.6' % (last + 1))
    py_tb(J, 0, [('/work/pretrain_llama.py', 512, 'train', 'raise FloatingPointError(f"loss is NaN at step {step}, aborting")')],
          ['FloatingPointError: loss is NaN at step %d, aborting' % (last + 1)], e2,
          'FloatingPointError: loss is NaN at step %d, aborting' % (last + 1))
    return R(cat='user', sub='configuration', sym='training_crash', stage='training', faulty=[], hosts=[], iters=[last + 1, spike],
             accept=['user/configuration', 'user/script_bug'],
             source='microsoft/LMOps#130 (DeepSpeed OVERFLOW line format)',
             fault='fp16 loss-scale collapse after LR warmup to too high peak LR',
             rc='With fp16 and a peak learning rate of 6e-4 the loss diverged after iteration %d: DeepSpeed kept '
                'skipping steps and shrinking the loss scale until the loss became NaN and the script aborted.' % spike,
             rem='Lower the peak LR / lengthen warmup or switch to bf16, and restart from a checkpoint before the divergence.')


def c_megatron_ckpt_shape(J):
    start(J)
    J.r(0, 'building GPT model ...')
    J.r(0, ' loading checkpoint from /lustre/ckpt/llama70b-sft at iteration 4000')
    J.adv(80)
    e1 = ev(J, 'e1', 'size mismatch for')
    for g in J.rnd.sample(range(J.world), 6):
        py_tb(J, g, [('/workspace/Megatron-LM/megatron/training/checkpointing.py', 1123, 'load_checkpoint',
                      'model[0].load_state_dict(state_dict[\'model\'], strict=strict)'),
                     ('/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py', 2215, 'load_state_dict',
                      "raise RuntimeError('Error(s) in loading state_dict for {}:\\n\\t{}'.format(")],
              ['RuntimeError: Error(s) in loading state_dict for GPTModel:',
               '\tsize mismatch for embedding.word_embeddings.weight: copying a param with shape torch.Size([16032, 8192]) '
               'from checkpoint, the shape in current model is torch.Size([16000, 8192]).'], None)
    J.E[:] = [(t, k, w, x, (e1 if x.startswith('\tsize mismatch for') else tg)) for (t, k, w, x, tg) in J.E]
    return R(cat='user', sub='configuration', sym='training_crash', stage='model_loading', faulty=[], hosts=[], iters=[],
             source='pytorch nn.Module.load_state_dict size-mismatch message',
             fault='checkpoint saved with a different padded vocab (make-vocab-size-divisible-by)',
             rc='The checkpoint was produced with a different --make-vocab-size-divisible-by/tokenizer, so the embedding '
                'shape does not match the model built by this run.',
             rem='Use the same tokenizer and vocab padding arguments as the run that produced the checkpoint (or convert it).')


# ---------------------------- Ascend -------------------------------------

def a_ei0002_aicore(J):
    start(J); model(J)
    fail = J.rnd.randint(40, 120) * 10
    last = train(J, 1, fail, 4.8, every=10)
    X = J.rnd.randint(J.gpn, J.world - 1)
    e1 = ev(J, 'e1', 'aicore timeout')
    k = J.node_of(X)
    J.r(X, '[ERROR] DEVICE(%d,fffe3c7ff0e0,python):%s [mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_kernel_runtime.cc:1023] '
           'TaskFailCallback] Execute TaskFailCallback failed. task_id: %d, stream_id: %d' % (J.pid(X), J.cann_ts_ms(k), 3821, 5))
    J.r(X, 'EH9999: Inner Error!')
    J.r(X, '        rtStreamSynchronize execute failed, reason=[aicore timeout][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]', e1)
    J.r(X, '        TraceBack (most recent call last):')
    J.adv(1800)
    e2 = ev(J, 'e2', 'EI0002')
    peers = J.rnd.sample([g for g in range(J.world) if g != X], min(12, J.world - 1))
    for g in peers:
        ei0002(J, g, X, J.world, e2)
    J.r(peers[0], 'RuntimeError: Sync stream failed:Ascend_0')
    msrun_fail(J, X, timeout_nodes=[X])
    return R(cat='hardware', sub='accelerator', sym='training_crash', stage='training', faulty=[nodename(J, g=X)],
             hosts=[], iters=[last], accept=['hardware/accelerator', 'framework/framework_bug'],
             source='vllm-project/vllm-ascend#4972 (aicore timeout); vllm-project/vllm-ascend#3413 (EI0002 text); candle-org/MindAct#1983 (msrun _api lines)',
             fault='AI Core hang on one NPU (aicore timeout); others report EI0002 naming it as remote rank',
             rc='The NPU of worker %d hung in an AI Core task (aicore timeout); collectives waiting for it timed out on '
                'the other workers with EI0002 naming remote rank %d.' % (X, X),
             rem='Isolate the node hosting rank %d, run npu-smi/hccn diagnostics on that device, and resume from the checkpoint.' % X)


def a_npu_oom(J):
    start(J); model(J)
    last = train(J, 1, 1, 14.0)
    e1 = ev(J, 'e1', 'NPU out of memory. Tried to allocate')
    vict = [g for g in range(J.world) if J.node_of(g) < J.nn // 2 and J.lr(g) in (0, 3, 5)]
    per = {}
    for g in vict:
        per[g] = py_tb(J, g, NPU_FRAMES + [('/usr/local/python3.10.5/lib/python3.10/site-packages/torch/autograd/__init__.py', 266,
                                   'backward', 'Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass')],
              ['RuntimeError: NPU out of memory. Tried to allocate 5.03 GiB (NPU %d; 60.96 GiB total capacity; 49.47 GiB '
               'already allocated; 49.47 GiB current active; 1.32 GiB free; 57.55 GiB reserved in total by PyTorch) If '
               'reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.' % J.lr(g)],
              None, emit=False)
    interleave(J, per)
    J.E[:] = [(t, k, w, x, (e1 if x.startswith('RuntimeError: NPU out of memory') else tg)) for (t, k, w, x, tg) in J.E]
    return R(cat='user', sub='configuration', sym='training_crash', stage='training', faulty=[], hosts=[], iters=[last],
             source='xingchensong/TouchNet#100; vllm-project/vllm-ascend#19 (torch_npu OOM text)',
             fault='NPU OOM on first pipeline stages after raising seq-length to 8192 with micro-batch 2',
             rc='The new sequence length 8192 with micro-batch-size 2 and no recomputation exceeds the 64 GB HBM on the '
                'first pipeline stages, which hold the most in-flight activations.',
             rem='Enable --recompute-granularity full (or reduce micro-batch size / seq length) and relaunch.')


def a_ej0001_leftover(J):
    X = pick_node(J, 1)
    start(J)
    e1 = ev(J, 'e1', 'EJ0001')
    for l in J.rnd.sample(range(J.gpn), 3):
        g = X * J.gpn + l
        J.r(g, 'RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64')
        J.r(g, '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed.' % (J.cann_ts(X), J.pid(g), J.lr(g), g))
        J.r(g, 'EJ0001: %s Failed to initialize the HCCP process. Reason: Maybe the last training process is running.' % J.cann_ts_ms(X), e1)
        J.r(g, '        Solution: Wait for 10s after killing the last training process and try again.')
        J.r(g, '        TraceBack (most recent call last):')
        J.r(g, '        tsd client wait response fail, device response code[1]. unknown device error.[FUNC:WaitRsp][FILE:process_mode_manager.cpp][LINE:290]')
    J.adv(120)
    e2 = ev(J, 'e2', 'EI0006')
    for g in J.rnd.sample([h for h in range(J.world) if J.node_of(h) != X], 6):
        d = X * J.gpn + J.rnd.randint(0, J.gpn - 1)
        ei0006(J, g, d, '29.%d.%d.%d' % (X, d % J.gpn, 10 + d), e2)
    return R(cat='user', sub='misoperation', sym='launching_failure', stage='init', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[], accept=['user/misoperation', 'platform/resource_management'],
             source='hiyouga/LlamaFactory#3839 (ERR02200/EJ0001 text); vllm-project/vllm-ascend (EI0006 text)',
             fault='a previous run started by hand with docker exec still holds the NPUs of one pod',
             rc='A training process left running by hand from an earlier debugging session still occupied the NPUs '
                'of %s, so HCCP could not initialize there (EJ0001) and the other pods timed out building links.' % J.hosts[X],
             rem='Kill the stale process on %s (npu-smi info to find it), wait ~10 s, and relaunch; avoid manual runs on scheduled nodes.' % J.hosts[X])


def a_ei0006_link(J):
    X = pick_node(J, 1)
    J.skew[X] = -94.0
    start(J)
    dev = J.rnd.randint(0, J.gpn - 1)
    dip = '29.%d.%d.%d' % (J.rnd.randint(10, 90), X, 100 + dev)
    e1 = ev(J, 'e1', 'EI0006')
    for g in J.rnd.sample([h for h in range(J.world) if J.node_of(h) != X], min(9, J.world - J.gpn)):
        ei0006(J, g, X * J.gpn + dev, dip, e1, local_ip='29.%s.%d.%d' % (dip.split('.')[1], J.node_of(g), 100 + J.lr(g)))
    e2 = ev(J, 'e2', 'link status: DOWN')
    J.n(X, '[health-check %s] hccn_tool -i %d -link -g' % (J.stamp(X, 'iso'), dev))
    J.n(X, 'link status: DOWN', e2)
    J.n(X, '[health-check %s] hccn_tool -i %d -ip -g' % (J.stamp(X, 'iso'), dev))
    J.n(X, 'ipaddr:%s' % dip)
    J.n(X, 'netmask:255.255.0.0')
    return R(cat='hardware', sub='network', sym='launching_failure', stage='init',
             faulty=[nodename(J, k=X)], hosts=[J.hosts[X], dip], iters=[],
             source='vllm-project/vllm-ascend (EI0006 "Transport init error ... Create Dest error" block); hccn_tool link output',
             fault='RoCE port of NPU %d on one node down; peers time out creating links to its IP (node clock skewed -94s)' % dev,
             rc='The RoCE link of NPU %d on %s (%s) was down, so HCCL peers could not create transport links to that '
                'address and all failed with EI0006 during communicator init.' % (dev, J.hosts[X], dip),
             rem='Fix the NPU network port/optics on %s (hccn_tool -i %d -link -g must report UP) before relaunching.' % (J.hosts[X], dev))


def a_node_failure_slurm(J):
    start(J); model(J)
    fail = J.rnd.randint(30, 90) * 10
    last = train(J, 1, fail, 7.5, every=10)
    X = pick_node(J, 1)
    e1 = ev(J, 'e1', 'Node failure on')
    J.adv(45)
    J.c('srun: error: Node failure on %s' % J.hosts[X], e1)
    J.adv(1800)
    for g in J.rnd.sample([h for h in range(J.world) if J.node_of(h) != X], 10):
        ei0002(J, g, X * J.gpn + J.rnd.randint(0, J.gpn - 1), J.world, None)
    J.c('srun: error: %s: task %d: Killed' % (J.hosts[X], X))
    J.c('srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
    J.c('slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***' % (J.jobid, J.hosts[0], J.iso()))
    return R(cat='hardware', sub='node', sym='training_crash', stage='training', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[last], source='slurm srun "Node failure on" message; vllm-project/vllm-ascend#3413 (EI0002)',
             fault='whole node lost (power/BMC reset); only Slurm names it, peers print EI0002 naming remote ranks',
             rc='Node %s went down (Slurm reported a node failure); its workers vanished silently and the others '
                'failed with HCCL notify-wait timeouts.' % J.hosts[X],
             rem='Check the BMC/SEL of %s, keep it drained, and resubmit excluding it.' % J.hosts[X])


def a_getnext_timeout(J):
    start(J); model(J)
    stall = J.rnd.randint(20, 60) * 10
    last = train(J, 1, stall, 3.2, every=10)
    e1 = ev(J, 'e1', 'Bad performance attention')
    e2 = ev(J, 'e2', 'E39999')
    for g in range(J.world):
        J.r(g, '[WARNING] MD(%d,fffe1e7fc0e0,python):%s [mindspore/ccsrc/minddata/dataset/engine/datasetops/'
               'data_queue_op.cc:903] DetectPerBatchTime] Bad performance attention, it takes more than 25 seconds to '
               'fetch a batch of data from dataset pipeline, which might result `GetNext` timeout problem. You may test '
               'dataset processing performance(with creating dataset iterator) and optimize it.' % (
                   J.pid(g), J.cann_ts_ms(J.node_of(g))), e1)
    J.adv(1900)
    for g in J.rnd.sample(range(J.world), 4):
        J.r(g, 'E39999: Inner Error!', e2)
        J.r(g, 'E39999: %s  Aicpu kernel execute failed, device_id=%d, stream_id=%d, task_id=%d, fault '
               'so_name=libaicpu_kernels.so, fault kernel_name=GetNext, fault op_name=Default/GetNext-op1.' % (
                   J.cann_ts_ms(J.node_of(g)), J.lr(g), 2, 41), e2)
        J.r(g, 'RuntimeError: Run graph failed.')
    msrun_fail(J, 0)
    return R(cat='user', sub='configuration', sym='training_crash', stage='data_loading', faulty=[], hosts=[],
             iters=[last], accept=['user/configuration', 'hardware/storage'],
             source='mindspore-ai/mindspore fault table (vm_id_3, E39999 GetNext timeout); MindSpore data_queue_op DetectPerBatchTime warning',
             fault='dataset map pipeline with on-the-fly tokenization too slow (num_parallel_workers=1) -> GetNext timeout',
             rc='The dataset pipeline (on-the-fly tokenization with a single parallel worker) could not deliver '
                'batches fast enough in sink mode, and the device GetNext op timed out on the workers.',
             rem='Pre-tokenize the data or raise num_parallel_workers/prefetch, or disable dataset sink mode, then resume.')


def a_ei0004_ranktable(J):
    start(J)
    e1 = ev(J, 'e1', 'EI0004')
    for g in range(J.world):
        k = J.node_of(g)
        J.r(g, 'RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64')
        J.r(g, '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed.' % (J.cann_ts(k), J.pid(g), J.lr(g), g))
        J.r(g, 'EI0004: %s The ranktable or rank is invalid,Reason:[The ranktable config devId is inconsistent with '
               'the local devId.]. Please check the configured ranktable. [{"server_count":"%d","server_list":[...]}]' % (
                   J.cann_ts_ms(k), J.nn), e1)
    return R(cat='user', sub='configuration', sym='launching_failure', stage='init', faulty=[], hosts=[], iters=[],
             source='mindspore-ai/mindspore fault table (vm_id_4, EI0004 ranktable error)',
             fault='rank table file generated for another device layout (device_id order) ',
             rc='The rank table handed to the job lists device ids in a different order than the local NPUs, so HCCL '
                'rejected it (EI0004) on every rank.',
             rem='Regenerate the rank table (hccl_tools.py) for the allocated devices or use the scheduler-provided one.')


def a_version_mismatch(J):
    e1 = ev(J, 'e1', 'does not match, the version of software package expect one of')
    e2 = ev(J, 'e2', 'errNo[0x0000000005010001]')
    npu_init(J)
    for g in range(J.world):
        J.r(g, "[WARNING] ME(%d:281473590168608,MainProcess):%s [mindspore/run_check/_check_version.py:366] MindSpore "
               "version 2.4.1 and Ascend AI software package (Ascend Data Center Solution)version 7.3 does not match, "
               "the version of software package expect one of ['7.5']. Please refer to the match info on: "
               "https://www.mindspore.cn/install" % (J.pid(g), J.cann_ts_ms(J.node_of(g))), e1)
    J.adv(30)
    for g in range(J.world):
        J.r(g, '[ERROR] GE(%d,python):%s [hcom_ops_kernel_info_store.cc:238]%d HCCL init failed, errNo[0x0000000005010001]' % (
            J.pid(g), J.cann_ts_ms(J.node_of(g)), J.pid(g)), e2)
        J.r(g, 'RuntimeError: Ascend kernel runtime initialization failed. The details refer to \'Ascend Error Message\'.')
    msrun_fail(J, 0)
    return R(cat='user', sub='software_incompatibility', sym='launching_failure', stage='init', faulty=[], hosts=[],
             iters=[], source='mindspore-ai/mindspore fault table (vm_id_12, errNo[0x0000000005010001] version mismatch)',
             fault='MindSpore 2.4.1 wheel in a CANN 7.3 image',
             rc='The image pairs MindSpore 2.4.1 with an older CANN toolkit; MindSpore warned about the mismatch and '
                'HCCL initialization then failed on every worker.',
             rem='Use a CANN version matching the MindSpore release (see the install compatibility table) and rebuild the image.')


def a_quota_ckpt(J):
    start(J); model(J)
    save = J.rnd.choice([300, 400, 500])
    last = train(J, 1, save, 5.5, every=1)
    J.r(0, 'Saving model checkpoint to /data/output/qwen7b-ft/checkpoint-%d' % save)
    e1 = ev(J, 'e1', 'Disk quota exceeded')
    py_tb(J, 0, HF_FRAMES[:3] + [('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 3113, '_save_checkpoint',
                                  'self._save_optimizer_and_scheduler(output_dir)'),
                                 ('/usr/local/python3.10.5/lib/python3.10/site-packages/torch/serialization.py', 850, 'save',
                                  'with _open_zipfile_writer(f) as opened_zipfile:')],
          ['RuntimeError: [enforce fail at inline_container.cc:595] . unexpected pos 2387758464 vs 2387758376',
           '', 'During handling of the above exception, another exception occurred:', '',
           "OSError: [Errno 122] Disk quota exceeded: '/data/output/qwen7b-ft/checkpoint-%d/optimizer.pt'" % save], e1,
          "OSError: [Errno 122] Disk quota exceeded: '/data/output/qwen7b-ft/checkpoint-%d/optimizer.pt'" % save)
    J.adv(1800)
    for g in J.rnd.sample(range(1, J.world), 6):
        ei0002(J, g, 0, J.world, None)
    return R(cat='platform', sub='resource_management', sym='training_crash', stage='checkpoint', faulty=[], hosts=[],
             iters=[save], accept=['platform/resource_management', 'hardware/storage'],
             source='verl-project/verl#3346 (inline_container unexpected pos); Python OSError errno 122',
             fault='PVC quota exhausted while rank 0 writes optimizer states',
             rc='The persistent-volume quota of /data was exhausted while rank 0 wrote checkpoint-%d (optimizer state), '
                'so saving failed and the other ranks later timed out in HCCL.' % save,
             rem='Increase the PVC quota or set save_total_limit, delete stale checkpoints, and resume.')


def a_hang_silent(J):
    start(J); model(J)
    fail = J.rnd.randint(40, 100) * 10
    last = train(J, 1, fail, 6.6, every=10)
    X = J.rnd.randint(J.gpn, J.world - 1)
    J.adv(1800)
    e1 = ev(J, 'e1', 'EI0002')
    for g in J.rnd.sample([h for h in range(J.world) if h != X], min(16, J.world - 1)):
        ei0002(J, g, X, J.world, e1)
    return R(cat='unknown', sub='unknown', sym='abnormal_behavior', stage='training', faulty=[nodename(J, g=X)],
             hosts=[], iters=[last], accept=['unknown/unknown', 'hardware/accelerator'],
             source='lmdeploy InternLM/lmdeploy#3354; vllm-project/vllm-ascend#3413 (EI0002 text)',
             fault='one NPU process stuck without any error (hang); 30 min later peers report EI0002 naming it',
             rc='Rank %d stopped making progress without logging anything (device hang); after the 1800 s HCCL '
                'execution timeout every peer reported EI0002 naming remote rank %d.' % (X, X),
             rem='Collect the device plog / npu-smi state of the NPU running rank %d, isolate it, and resume from the checkpoint.' % X)


def a_time_limit(J):
    start(J); model(J)
    stop = J.rnd.randint(80, 160) * 10
    last = train(J, 1, stop, 11.0, every=10)
    e1 = ev(J, 'e1', 'DUE TO TIME LIMIT')
    J.c('slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***' % (J.jobid, J.hosts[0], J.iso()), e1)
    J.c('srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
    for k in J.rnd.sample(range(J.nn), J.nn // 2):
        J.c('slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***' % (J.jobid, J.hosts[k], J.iso()), e1)
    return R(cat='user', sub='configuration', sym='others', stage='training', faulty=[], hosts=[], iters=[last],
             accept=['user/configuration', 'platform/scheduling'],
             source='slurm slurmstepd TIME LIMIT banner (Nextomics/NextDenovo#114; ZettaAI/zetta_utils#671)',
             fault='wall-time limit shorter than the planned run, no checkpoint interval aligned to it',
             rc='Training was healthy but the job requested less wall time than needed; Slurm cancelled it at the time limit.',
             rem='Request enough wall time or checkpoint before the limit and chain jobs with --dependency.')


def a_ascend_ckpt_local(J):
    start(J); model(J)
    X = pick_node(J, 1)
    save = J.rnd.choice([1000, 2000])
    last = train(J, 1, save, 4.1, every=10)
    e1 = ev(J, 'e1', 'Failed to save the checkpoint file')
    for l in range(J.gpn):
        g = X * J.gpn + l
        J.r(g, '%s - mindformers - ERROR - RuntimeError: Failed to save the checkpoint file /cache/ckpt/rank_%d/glm4_rank_%d-%d_1.ckpt. '
               'Maybe don\'t have the permission to write files, or the disk space is insufficient or the file is '
               'occupied.' % (J.stamp(X, 'iso'), g, g, save), e1)
    J.adv(1800)
    for g in J.rnd.sample([h for h in range(J.world) if J.node_of(h) != X], 8):
        ei0002(J, g, X * J.gpn, J.world, None)
    slurm_end(J, [X])
    return R(cat='hardware', sub='storage', sym='training_crash', stage='checkpoint', faulty=[nodename(J, k=X)],
             hosts=[J.hosts[X]], iters=[save], accept=['hardware/storage', 'platform/resource_management'],
             source='MindSpore checkpoint save error text (mindspore/train/serialization.py)',
             fault='local /cache disk full on one node',
             rc='The local /cache volume of %s was full (leftover data from an earlier job), so all 8 ranks there failed '
                'to write their checkpoint shards at step %d.' % (J.hosts[X], save),
             rem='Clean /cache on %s (and add a prolog that checks free space) then resume from the previous checkpoint.' % J.hosts[X])


def a_megatron_import(J):
    start(J)
    e1 = ev(J, 'e1', "cannot import name 'get_num_microbatches'")
    for g in range(J.world):
        py_tb(J, g, [('/home/ma-user/work/MindSpeed-LLM/pretrain_gpt.py', 11, '<module>', 'from mindspeed_llm import megatron_adaptor'),
                     ('/home/ma-user/work/MindSpeed-LLM/mindspeed_llm/training/__init__.py', 4, '<module>',
                      'from megatron.training import get_num_microbatches')],
              ["ImportError: cannot import name 'get_num_microbatches' from 'megatron.training' "
               "(/home/ma-user/work/Megatron-LM/megatron/training/__init__.py)"], e1,
              "ImportError: cannot import name 'get_num_microbatches' from 'megatron.training' "
              "(/home/ma-user/work/Megatron-LM/megatron/training/__init__.py)")
    return R(cat='user', sub='software_incompatibility', sym='launching_failure', stage='init', faulty=[], hosts=[], iters=[],
             source='NVIDIA/Megatron-LM move of get_num_microbatches to megatron.core.num_microbatches_calculator',
             fault='MindSpeed-LLM pinned to core_r0.6 used with a newer Megatron-LM checkout',
             rc='The Megatron-LM checkout is newer than the one MindSpeed-LLM supports; get_num_microbatches moved to '
                'megatron.core, so the adaptor import fails on every rank.',
             rem='Check out the Megatron-LM commit/branch required by the MindSpeed-LLM release and relaunch.')


def a_vector_core(J):
    start(J); model(J)
    fail = J.rnd.randint(20, 70) * 10
    last = train(J, 1, fail, 8.2, every=10)
    X = pick_node(J, 1)
    l = J.rnd.randint(0, J.gpn - 1)
    g = X * J.gpn + l
    e1 = ev(J, 'e1', 'error code is 507035')
    e2 = ev(J, 'e2', 'The vector core execution is abnormal.')
    py_tb(J, g, NPU_FRAMES, ['RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:25 NPU function '
                             'error: c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507035',
                             '[ERROR] %s (PID:%d, Device:%d, RankID:-1) ERR00100 PTA call acl api failed' % (J.cann_ts(X), J.pid(g), l),
                             '[Error]: The vector core execution is abnormal.',
                             '        Rectify the fault based on the error information in the ascend log.'], None)
    J.E[:] = [(t, k, w, x, (e1 if x.startswith('RuntimeError: operator()') else e2 if x.startswith('[Error]: The vector core') else tg))
              for (t, k, w, x, tg) in J.E]
    J.adv(1800)
    for h in J.rnd.sample([h for h in range(J.world) if J.node_of(h) != X], 12):
        ei0002(J, h, g, J.world, None)
    return R(cat='hardware', sub='accelerator', sym='training_crash', stage='training', faulty=[nodename(J, k=X)],
             hosts=[], iters=[last], accept=['hardware/accelerator', 'framework/framework_bug'],
             source='Ascend/pytorch#66 (507035 vector core execution abnormal)',
             fault='vector-core exception on one NPU (device fault); others time out with EI0002',
             rc='NPU %d on node-%d raised a vector-core execution exception (507035) during training; the remaining '
                'ranks then timed out in HCCL.' % (l, X),
             rem='Run the NPU hardware diagnostics on that device, replace it if errors repeat, and resume from the checkpoint.',
             _node='node-%d' % X)


def a_aclnn_index(J):
    start(J); model(J)
    fail = J.rnd.randint(5, 40) * 10
    last = train(J, 1, fail, 5.0, every=1)
    e1 = ev(J, 'e1', 'call aclnnIndex failed, detail:EZ9999: Inner Error!')
    for g in J.rnd.sample(range(J.world), 5):
        py_tb(J, g, HF_FRAMES + [('/app/modeling/rope_ext.py', 93, 'forward', 'pos = self.cache[position_ids]')],
              ['RuntimeError: call aclnnIndex failed, detail:EZ9999: Inner Error!',
               'EZ9999: [PID: %d] %s The value of input indices exceeds the range of self. [FUNC:IndexCheck]' % (
                   J.pid(g), J.cann_ts_ms(J.node_of(g)))], e1, 'RuntimeError: call aclnnIndex failed, detail:EZ9999: Inner Error!')
    return R(cat='user', sub='script_bug', sym='training_crash', stage='training', faulty=[], hosts=[], iters=[last],
             accept=['user/script_bug', 'framework/framework_bug'],
             source='modelscope/ms-swift#2517 (aclnnIndex EZ9999 text)',
             fault='user RoPE extension indexes a position cache shorter than the packed sequence',
             rc='The custom RoPE module indexes its position cache with position ids beyond its length for long packed '
                'samples, which the NPU index kernel reports as EZ9999.',
             rem='Size the position cache to max_position_embeddings (or clamp position ids) and rerun.')


def a_el0004(J):
    start(J); model(J)
    e1 = ev(J, 'e1', 'EL0004')
    for g in J.rnd.sample(range(J.world), 8):
        J.r(g, '[rank%d]:[E%s compiler_depend.ts:429] operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:128 '
               'NPU function error: call aclnnMoeDistributeDispatchV2 failed, error code is 207001' % (g, J.glog('', J.node_of(g)).strip()))
        J.r(g, '[ERROR] %s (PID:%d, Device:%d, RankID:-1) ERR00100 PTA call acl api failed' % (J.cann_ts(J.node_of(g)), J.pid(g), J.lr(g)))
        J.r(g, '[Error]: Failed to apply for memory.')
        J.r(g, 'EL0004: [PID: %d] %s Failed to allocate memory.' % (J.pid(g), J.cann_ts_ms(J.node_of(g))), e1)
        J.r(g, '        Possible Cause: Available memory is insufficient.')
        J.r(g, '        Solution: Close applications not in use.')
        J.r(g, '        TraceBack (most recent call last):')
        J.r(g, '        Failed to allocate resource[DeviceMemory] with info [size:2147483648]. Reason: Memory resources are exhausted.')
    return R(cat='user', sub='configuration', sym='training_crash', stage='training', faulty=[], hosts=[], iters=[],
             accept=['user/configuration', 'platform/resource_management'],
             source='vllm-project/vllm-ascend#3141 (EL0004 block)',
             fault='HCCL_BUFFSIZE=2048 plus large MoE dispatch buffers leave no HBM for the first all-to-all',
             rc='The job sets HCCL_BUFFSIZE to 2 GB per communicator and many MoE communication groups, so the first MoE '
                'dispatch could not allocate device memory (EL0004) before any step completed.',
             rem='Reduce HCCL_BUFFSIZE (e.g. 200-400 MB) or the number of communication groups and relaunch.')


# ----------------------------------------------------------------------------
# case table
# ----------------------------------------------------------------------------

CASES = [
    ('c01', c_ib_peer, 'gpt175b-megatron-slurm', 32),
    ('c02', c_xid79, 'gpt175b-megatron-slurm', 64),
    ('c03', c_xid94_ecc, 'llama70b-megatron-pernode', 16),
    ('c04', c_oom_cfg, 'llama8b-fsdp-torchrun', 4),
    ('c05', c_script_keyerror, 'mistral7b-deepspeed-mpirun', 4),
    ('c06', c_flashattn_abi, 'qwen14b-hf-k8s', 4),
    ('c07', c_ifname, 'llama13b-deepspeed-pdsh', 16),
    ('c08', c_store_timeout_loading, 'llama8b-titan-ipfiles', 8),
    ('c09', c_thermal_slow, 'llama70b-megatron-pernode', 16),
    ('c10', c_pod_oomkilled, 'qwen14b-hf-k8s', 8),
    ('c11', c_node_crash_silent, 'llama8b-titan-ipfiles', 8),
    ('c12', c_ckpt_disk_full, 'gpt20b-custom-hostdirs', 4),
    ('c13', c_restart_ecc, 'gpt175b-megatron-slurm', 16),
    ('c14', c_nfs_hang, 'llama13b-deepspeed-pdsh', 8),
    ('c15', c_fused_adam_ima, 'mistral7b-deepspeed-mpirun', 2),
    ('c16', c_dcp_bug, 'llama8b-fsdp-torchrun', 4),
    ('c17', c_failedscheduling, 'qwen14b-hf-k8s', 8),
    ('c18', c_ib_port_down, 'llama70b-megatron-pernode', 16),
    ('c19', c_nvme_io, 'gpt20b-custom-hostdirs', 4),
    ('c20', c_ssh_down, 'llama13b-deepspeed-pdsh', 12),
    ('c21', c_no_ib, 'qwen14b-hf-k8s', 16),
    ('c22', c_shm_bus, 'llama8b-fsdp-torchrun', 3),
    ('c23', c_nan_abort, 'mistral7b-deepspeed-mpirun', 4),
    ('c24', c_megatron_ckpt_shape, 'llama70b-megatron-pernode', 8),
    ('a01', a_ei0002_aicore, 'pangu38b-mindformers-msrun', 4),
    ('a02', a_npu_oom, 'llama2-70b-mindspeed-pernode', 8),
    ('a03', a_ej0001_leftover, 'qwen7b-torchnpu-k8s', 4),
    ('a04', a_ei0006_link, 'deepseek16b-mindspeed-hostdirs', 4),
    ('a05', a_node_failure_slurm, 'glm-mindformers-slurm', 16),
    ('a06', a_getnext_timeout, 'pangu38b-mindformers-msrun', 2),
    ('a07', a_ei0004_ranktable, 'llama2-70b-mindspeed-pernode', 4),
    ('a08', a_version_mismatch, 'pangu38b-mindformers-msrun', 2),
    ('a09', a_quota_ckpt, 'qwen7b-torchnpu-k8s', 8),
    ('a10', a_hang_silent, 'deepseek16b-mindspeed-hostdirs', 8),
    ('a11', a_time_limit, 'glm-mindformers-slurm', 32),
    ('a12', a_ascend_ckpt_local, 'glm-mindformers-slurm', 4),
    ('a13', a_megatron_import, 'llama2-70b-mindspeed-pernode', 16),
    ('a14', a_vector_core, 'llama2-70b-mindspeed-pernode', 8),
    ('a15', a_aclnn_index, 'qwen7b-torchnpu-k8s', 4),
    ('a16', a_el0004, 'deepseek16b-mindspeed-hostdirs', 2),
]

NORMAL_NODES = {'gpt175b-megatron-slurm': 16, 'llama70b-megatron-pernode': 8, 'llama8b-fsdp-torchrun': 4,
                'mistral7b-deepspeed-mpirun': 4, 'qwen14b-hf-k8s': 4, 'llama13b-deepspeed-pdsh': 8,
                'gpt20b-custom-hostdirs': 4, 'llama8b-titan-ipfiles': 8, 'pangu38b-mindformers-msrun': 2,
                'llama2-70b-mindspeed-pernode': 8, 'qwen7b-torchnpu-k8s': 4, 'deepseek16b-mindspeed-hostdirs': 4,
                'glm-mindformers-slurm': 8}


# ----------------------------------------------------------------------------
# writing and checking
# ----------------------------------------------------------------------------

def write_files(root, files, gz=False):
    for rel, lines in files.items():
        p = os.path.join(root, rel)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        data = ''.join(text.replace('\n', ' ') + '\n' for (text, tag) in lines).encode('utf-8')
        if gz and rel.endswith('.log'):
            with open(p + '.gz', 'wb') as f:
                f.write(gzip.compress(data, mtime=0))
        else:
            with open(p, 'wb') as f:
                f.write(data)


def all_nodes(files, kinds):
    fn = derive_file_nodes(list(files))
    nodes = set()
    consoles = [p for p in files if kinds.get(p)]
    for p in files:
        if kinds.get(p):
            vs = console_virtual_nodes([t for t, _ in files[p]], kinds[p])
            if len(consoles) > 1:
                vs = set(fn[p] + '/' + v for v in vs)
            nodes |= vs
            nodes.add(fn[p])
        else:
            nodes.add(fn[p])
    return nodes, fn


def build_case(rnd, cid, func, setting, nn, jobno):
    J = Job(rnd, setting, nn, cid, jobno)
    lab = func(J)
    files, kinds = render(J)
    nodes, fn = all_nodes(files, kinds)
    lab['faulty'] = [fn[x[5:]] if x.startswith('FILE:') else x for x in lab['faulty']]
    evs = {}
    order = []
    for p in sorted(files):
        for i, (text, tag) in enumerate(files[p]):
            if tag is None:
                continue
            if tag not in evs:
                evs[tag] = {'id': tag.split(':')[1], 'text': text, 'lines': {}}
                order.append(tag)
            evs[tag]['lines'].setdefault(fn[p], []).append(i + 1)
    fe = [evs[t] for t in sorted(order, key=lambda t: evs[t]['id'])]
    label = {
        'schema': 'l4-label/1', 'setting': setting, 'stack': J.stack,
        'category': lab['cat'], 'subcategory': lab['sub'], 'symptom': lab['sym'],
        'faulty_nodes': lab['faulty'], 'stage': lab['stage'], 'iterations': lab['iters'],
        'fault_events': fe, 'root_cause': lab['rc'], 'remediation': lab['rem'],
        'hosts': lab['hosts'], 'source': lab['source'],
    }
    if 'accept' in lab:
        label['accept'] = lab['accept']
    meta = {'nodes': nn, 'world': J.world, 'layout': J.layout, 'fault': lab['fault'], 'n_node_names': len(nodes)}
    return files, kinds, label, meta


def build_normal(rnd, setting, idx, jobno):
    nn = NORMAL_NODES[setting]
    J = Job(rnd, setting, nn, 'n%s%d' % (setting[:6], idx), jobno)
    J.steps_total = rnd.randint(30, 60) * 10 if SETTINGS[setting]['progress'] != 'hf' else rnd.randint(150, 300)
    start(J); model(J)
    every = 1 if SETTINGS[setting]['progress'] == 'hf' else 10
    train(J, 1, J.steps_total, 2.0, every=every)
    finish_ok(J)
    files, kinds = render(J)
    return files


def verify(out, summary):
    for cid, (label, nodeset) in summary.items():
        root = os.path.join(out, 'cases', cid, 'logs')
        texts = {}
        rels = []
        for dp, dn, fns in os.walk(root):
            for f in fns:
                rel = os.path.relpath(os.path.join(dp, f), root)
                rels.append(rel)
                with open(os.path.join(dp, f), 'rb') as fh:
                    raw = fh.read()
                if f.endswith('.gz'):
                    raw = gzip.decompress(raw)
                texts[rel] = raw.decode('utf-8').split('\n')[:-1]
        fn = derive_file_nodes(rels)
        byname = {}
        for rel, n in fn.items():
            byname[n] = rel
        alltext = '\n'.join('\n'.join(v) for v in texts.values())
        for fnode in label['faulty_nodes']:
            assert fnode in nodeset, (cid, fnode, sorted(nodeset)[:20])
        for h in label['hosts']:
            assert h in alltext, (cid, h)
        for e in label['fault_events']:
            key = TAGKEYS['%s:%s' % (cid, e['id'])]
            assert key in e['text'], (cid, e['id'])
            cnt = 0
            for node, lines in e['lines'].items():
                rel = byname[node]
                for ln in lines:
                    assert key in texts[rel][ln - 1], (cid, e['id'], node, ln, texts[rel][ln - 1][:120])
                    cnt += 1
                # every occurrence is labelled
                occ = [i + 1 for i, t in enumerate(texts[rel]) if key in t]
                assert occ == lines, (cid, e['id'], node, occ[:5], lines[:5])
            for rel, tl in texts.items():
                if fn[rel] not in e['lines']:
                    assert not any(key in t for t in tl), (cid, e['id'], rel)
            assert cnt > 0
        assert label['category'] + '/' + label['subcategory'] in VOCAB, cid
        assert label['stage'] in STAGES and label['symptom'] in SYMPTOMS, cid
        if 'accept' in label:
            assert label['accept'][0] == label['category'] + '/' + label['subcategory']


VOCAB = {'hardware/network', 'hardware/accelerator', 'hardware/node', 'hardware/storage', 'user/configuration',
         'user/script_bug', 'user/software_incompatibility', 'user/misoperation', 'framework/framework_bug',
         'platform/resource_management', 'platform/scheduling', 'platform/platform_configuration', 'unknown/unknown'}
STAGES = {'init', 'model_loading', 'data_loading', 'training', 'checkpoint', 'unknown'}
SYMPTOMS = {'launching_failure', 'training_crash', 'abnormal_behavior', 'others', 'unknown'}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=3)
    ap.add_argument('--out', required=True)
    ap.add_argument('--table', default=None, help='optional: write a TSV case table to this file')
    a = ap.parse_args()
    out = a.out
    if os.path.exists(os.path.join(out, 'cases')):
        shutil.rmtree(os.path.join(out, 'cases'))
    if os.path.exists(os.path.join(out, 'normal')):
        shutil.rmtree(os.path.join(out, 'normal'))
    summary = {}
    table = []
    used = []
    for i, (cid, func, setting, nn) in enumerate(CASES):
        rnd = random.Random('%d/%s' % (a.seed, cid))
        files, kinds, label, meta = build_case(rnd, cid, func, setting, nn, i + 1)
        root = os.path.join(out, 'cases', cid)
        write_files(os.path.join(root, 'logs'), files, gz=SETTINGS[setting].get('gzip', False))
        with open(os.path.join(root, 'label.json'), 'w') as f:
            json.dump(label, f, indent=1, ensure_ascii=False)
            f.write('\n')
        nodes, _ = all_nodes(files, kinds)
        summary[cid] = (label, nodes)
        table.append((cid, setting, meta, label))
        if setting not in used:
            used.append(setting)
    for si, setting in enumerate(used):
        for idx in range(2):
            rnd = random.Random('%d/normal/%s/%d' % (a.seed, setting, idx))
            files = build_normal(rnd, setting, idx, 100 + si * 2 + idx)
            write_files(os.path.join(out, 'normal', setting, 'ok-%d' % (idx + 1), 'logs'), files,
                        gz=SETTINGS[setting].get('gzip', False))
    verify(out, summary)
    if a.table:
        with open(a.table, 'w') as f:
            f.write('id\tsetting\tnodes\tlayout\tcategory\tsymptom\tstage\tfaulty_nodes\thosts\titerations\tfault\n')
            for cid, setting, meta, label in table:
                f.write('%s\t%s\t%d\t%s\t%s/%s\t%s\t%s\t%s\t%s\t%s\t%s\n' % (
                    cid, setting, meta['nodes'], meta['layout'], label['category'], label['subcategory'],
                    label['symptom'], label['stage'], ','.join(label['faulty_nodes']) or '-',
                    ','.join(label['hosts']) or '-', label['iterations'], meta['fault']))
    nf = sum(1 for _, _, _, lb in table if lb['faulty_nodes'])
    nh = sum(1 for _, _, _, lb in table if lb['hosts'])
    print('wrote %d cases (%d with faulty nodes, %d naming a host), %d settings x 2 normal jobs to %s' % (
        len(table), nf, nh, len(used), out))


if __name__ == '__main__':
    main()
