"""The 40 labeled failure cases.  Each function builds one job and returns a
dict with the job, its layout and the label facts."""
import bg
import td
from common import new_job, boot, meg_cfg
from engine import Layout

CASES = []


def case(fn):
    CASES.append(fn)
    return fn


def R(job, layout, setting, cat, sub, symptom, stage, its, faulty, hosts, events, rc, rem, fault, hard,
      accept=None, source=None):
    return dict(job=job, layout=layout, setting=setting, stack=job.stack, category=cat, subcategory=sub,
                symptom=symptom, stage=stage, iterations=its, faulty=faulty, hosts=hosts, events=events,
                root_cause=rc, remediation=rem, fault=fault, hard=hard, accept=accept, source=source)


def pick_mid(rng, n):
    return rng.randint(1, n - 2)


def all_watchdogs(job, t, skip_hosts=(), skip=(), seq=None, timeout=600000, spread=3.0, frames=True, op='ALLREDUCE'):
    rng = job.rng
    seq = seq or rng.randint(20000, 90000)
    for h in job.hosts:
        if h.idx in skip_hosts:
            continue
        for l in range(job.gpn):
            if (h.idx, l) in skip:
                continue
            td.watchdog(job, t + rng.uniform(0, spread), h, l, seq, op=op, timeout=timeout, frames=frames)
    return t + spread + 1


def all_torchrun_fail(job, t, script='pretrain_gpt.py', skip_hosts=(), exitcode=-6, failed=None):
    rng = job.rng
    for h in job.hosts:
        if h.idx in skip_hosts:
            continue
        fl = failed if failed is not None else rng.randint(0, job.gpn - 1)
        td.torchrun_fail(job, t + rng.uniform(1, 6), h, fl, exitcode=exitcode, script=script,
                         sig='Signal 6 (SIGABRT)' if exitcode == -6 else 'Signal 9 (SIGKILL)')


def sigterm_agents(job, t, hosts=None):
    rng = job.rng
    for h in (hosts or job.hosts):
        p0 = job.pid(h)
        tt = t + rng.uniform(0, 1)
        job.E(tt, h, None, '%s %d torch/distributed/elastic/agent/server/api.py:704] Received Signals.SIGTERM death '
                          'signal, shutting down workers' % (job.glog6(tt, 'W'), p0))
        for l in range(job.gpn):
            job.E(tt + 0.01 + l * 0.001, h, None, '%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending '
                  'process %d closing signal SIGTERM' % (job.glog6(tt, 'W'), p0, job.pid(h, l)))
        job.E(tt + 0.5, h, None, 'torch.distributed.elastic.multiprocessing.api.SignalException: Process %d got signal: 15' % p0)


def rank_tb(job, t, h, l, frames, exc_lines, tag=None, tag_idx=None):
    """python traceback for one rank; tag_idx: {index_in_exc_lines: tag}."""
    out = td.pytb(frames, [])
    for i, x in enumerate(out):
        job.E(t + i * 0.0001, h, l, x)
    t2 = t + len(out) * 0.0001
    for i, x in enumerate(exc_lines):
        tg = None
        if tag_idx and i in tag_idx:
            tg = tag_idx[i]
        job.E(t2 + i * 0.0001, h, l, x, tg)
    return t2 + len(exc_lines) * 0.0001


def cuda_async_tail():
    return ['CUDA kernel errors might be asynchronously reported at some other API call, so the stacktrace below might be incorrect.',
            'For debugging consider passing CUDA_LAUNCH_BLOCKING=1',
            'Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.', '']


TITAN_FRAMES = [('/workspace/torchtitan/train.py', 438, '<module>', 'main(config)'),
                ('/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py', 355, 'wrapper', 'return f(*args, **kwargs)'),
                ('/workspace/torchtitan/train.py', 344, 'main', 'loss.backward()'),
                ('/usr/local/lib/python3.10/dist-packages/torch/_tensor.py', 581, 'backward', 'torch.autograd.backward('),
                ('/usr/local/lib/python3.10/dist-packages/torch/autograd/__init__.py', 347, 'backward', '_engine_run_backward('),
                ('/usr/local/lib/python3.10/dist-packages/torch/autograd/graph.py', 825, '_engine_run_backward', 'return Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass')]


# ===========================================================================
# CUDA cases
# ===========================================================================
@case
def c01_ib_port_error(rng, idx):
    job = new_job(rng, idx, 'cuda', 16, 8, 'gpu')
    cfg = meg_cfg('llama2-70b', '/lustre/ckpt/llama2-70b-pt', logi=1, savei=500)
    it0 = 3000
    itf = it0 + rng.randint(700, 1300)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=6.4)
    f = job.hosts[pick_mid(rng, 16)]
    peer = job.hosts[(f.idx + 1) % 16]
    k = rng.randint(0, 7)
    p = job.pid(f, k)
    tid = p + 61
    pre = '%s:%d:%d [%d] ' % (f.name, p, tid, k)
    tt = t + rng.uniform(1, 3)
    for i in range(rng.randint(3, 6)):
        for l in sorted(set([k, (k + 1) % 8])):
            job.E(tt + i * 0.7 + l * 0.001, f, l, '%s:%d:%d [%d] NCCL INFO NET/IB : Got async event : port error' % (
                f.name, job.pid(f, l), job.pid(f, l) + 55, l) if False else
                '%s:%d:%d [%d] NCCL WARN NET/IB : Got async event : port error' % (f.name, job.pid(f, l), job.pid(f, l) + 55, l), 'e1')
    tt += 5
    for i in range(3):
        pp = rng.randint(30000, 60000)
        job.E(tt + i * 0.01, f, k, pre + 'ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer %s<%d> with status=12 '
              'opcode=%d len=%d vendor err 129 (Send) localGid ::ffff:%s remoteGids::ffff:%s'
              % (peer.ip, pp, rng.choice([0, 1, 32616]), rng.choice([0, 65536]), f.ip, peer.ip), 'e2')
        job.block(tt + i * 0.01 + 0.001, f, k, [pre + 'NCCL INFO transport/net.cc:1298 -> 6', pre + 'NCCL INFO proxy.cc:694 -> 6',
                                                 pre + 'NCCL INFO proxy.cc:874 -> 6 [Progress Thread]', ''])
    g = job.g(f, k)
    job.E(tt + 1, f, k, '[%s ProcessGroupNCCL.cpp:1537] [PG 0 Rank %d] Process group watchdog thread terminated with exception: '
          'NCCL error: remote process exited or there was a network error, NCCL version 2.20.5' % (job.glog(tt + 1), g))
    job.E(tt + 1.001, f, k, 'ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.')
    job.E(tt + 1.002, f, k, 'Last error:')
    job.E(tt + 1.003, f, k, 'NET/IB : Got completion from peer %s<%d> with status=12 opcode=0 len=0 vendor err 129 (Send) '
          'localGid ::ffff:%s remoteGids::ffff:%s' % (peer.ip, rng.randint(30000, 60000), f.ip, peer.ip), 'e2')
    td.torchrun_fail(job, tt + 4, f, k)
    t2 = all_watchdogs(job, tt + 600, skip_hosts=(f.idx,))
    all_torchrun_fail(job, t2, skip_hosts=(f.idx,))
    lay = Layout('per_host', prefix='default')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'hardware', 'network', 'training_crash', 'training', [itf],
             [(f.idx, k)], [f.name, f.ip],
             {'e1': 'NCCL WARN NET/IB : Got async event : port error', 'e2': 'NET/IB : Got completion from peer'},
             'The RoCE/IB port behind one HCA on %s flapped, so NCCL transfers from that host failed with '
             'retry-exceeded completion errors and every other rank hung until the watchdog fired.' % f.name,
             'Drain %s, check the HCA port counters, cable and switch port, then resume from the last checkpoint '
             'without that host.' % f.name,
             'IB port flap on one host; peers log watchdog timeouts', 'faulty host has far fewer error lines than the 15 peers',
             source='NVIDIA/nccl#905, NVIDIA/nccl#1405')


@case
def c02_node_crash_silent(rng, idx):
    job = new_job(rng, idx, 'cuda', 8, 8, 'hgx')
    cfg = meg_cfg('llama2-70b', '/mnt/weka/ckpt/llama70b', logi=1, savei=1000)
    it0 = 12000
    itf = it0 + rng.randint(900, 1500)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=13.1)
    f = job.hosts[pick_mid(rng, 8)]
    # host f simply stops: drop nothing, emit nothing more from it
    tt = t + rng.uniform(10, 25)
    for nb in (job.hosts[f.idx - 1], job.hosts[(f.idx + 1) % 8]):
        for l in rng.sample(range(8), 3):
            p = job.pid(nb, l)
            pre = '%s:%d:%d [%d] ' % (nb.name, p, p + 71, l)
            job.E(tt + rng.uniform(0, 1), nb, l, pre + 'ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer %s<%d> '
                  'with status=12 opcode=%d len=0 vendor err 129 (Recv) localGid ::ffff:%s remoteGids::ffff:%s'
                  % (f.ip, rng.randint(30000, 60000), rng.choice([0, 32616]), nb.ip, f.ip), 'e1')
    t2 = all_watchdogs(job, tt + 600, skip_hosts=(f.idx,))
    all_torchrun_fail(job, t2, skip_hosts=(f.idx,))
    lay = Layout('per_host')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'hardware', 'node', 'training_crash', 'training', [itf],
             [(f.idx, 0)], [f.name, f.ip],
             {'e1': 'NCCL WARN NET/IB : Got completion from peer'},
             'Host %s went down abruptly (its log just stops); its neighbours saw their IB queue pairs to %s fail '
             'and every other rank then timed out in the collective.' % (f.name, f.ip),
             'Check the BMC/SEL and kernel crash dump of %s, cordon it, and restart the job from the last checkpoint '
             'on a replacement node.' % f.name,
             'silent node crash', 'faulty node logs nothing at all; only peers name its IP')


@case
def c03_slurm_node_failure(rng, idx):
    job = new_job(rng, idx, 'cuda', 32, 8, 'cn', nccl_debug='WARN')
    cfg = meg_cfg('gpt3-175b', '/gpfs/ckpt/gpt3-175b', logi=1, savei=400)
    jid = rng.randint(100000, 999999)
    it0 = 8400
    itf = it0 + rng.randint(2500, 3500)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=9.8)
    f = job.hosts[pick_mid(rng, 32)]
    tt = t + rng.uniform(60, 200)
    job.E(tt, -1, None, 'srun: error: Node failure on %s' % f.name, 'e1')
    job.E(tt + 0.1, -1, None, 'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
    for h in job.hosts:
        if h is f:
            continue
        p0 = job.pid(h)
        job.E(tt + 0.3 + h.idx * 0.01, h, None, '%s %d torch/distributed/elastic/agent/server/api.py:704] Received '
              'Signals.SIGTERM death signal, shutting down workers' % (job.glog6(tt, 'W'), p0))
    job.E(tt + 1.0, -1, None, 'slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***' % (jid, job.hosts[0].name, job.slurm(tt + 1)))
    for h in job.hosts:
        if h is not f:
            job.E(tt + 33 + h.idx * 0.01, -1, None, 'srun: error: %s: task %d: Killed' % (h.name, h.idx))
    job.E(tt + 34, -1, None, 'srun: Force Terminated StepId=%d.0' % jid)
    lay = Layout('console', path='slurm-%d.out' % jid, prefix='srun', ext='.out')
    return R(job, lay, 'gpt3-175b-megatron-cuda', 'hardware', 'node', 'training_crash', 'training', [itf],
             [(f.idx, 0)], [f.name],
             {'e1': 'srun: error: Node failure on'},
             'Slurm lost contact with node %s mid-training (node failure); the step was aborted and all other '
             'tasks were killed.' % f.name,
             'Have the admins inspect and drain %s, then requeue the job excluding it.' % f.name,
             'slurm node failure in 32-task srun console', 'only Slurm names the node; its task prints nothing')


@case
def c04_ecc_uncorrectable(rng, idx):
    job = new_job(rng, idx, 'cuda', 2, 8, 'aws')
    cfg = dict(mbs=2, gbs=128, train_iters=20000, logi=1, savei=1000, tps=7400, loss0=2.9)
    itf = rng.randint(2300, 3600)
    jid = rng.randint(20000, 90000)
    t = boot(job, 'titan', cfg, it0=0, it_fail=itf, step=1.62)
    f = job.hosts[1]
    k = rng.randint(0, 7)
    g = job.g(f, k)
    tt = t + 0.4
    rank_tb(job, tt, f, k, TITAN_FRAMES, ['RuntimeError: CUDA error: uncorrectable ECC error encountered'] + cuda_async_tail(),
            tag_idx={0: 'e1'})
    job.E(tt + 0.2, f, k, '[%s ProcessGroupNCCL.cpp:1553] [PG 0 Rank %d] Process group watchdog thread terminated with exception: '
          'CUDA error: uncorrectable ECC error encountered' % (job.glog(tt + 0.2), g), 'e2')
    job.block(tt + 0.201, f, k, cuda_async_tail()[:3] + [
        'Exception raised from c10_cuda_check_implementation at ../c10/cuda/CUDAException.cpp:43 (most recent call first):',
        'frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 (%s in %s/libc10.so)' % (td.addr(rng), td.TORCH_LIB),
        'frame #1: c10::cuda::c10_cuda_check_implementation(int, char const*, char const*, int, bool) + 0x118 (%s in %s/libc10_cuda.so)' % (td.addr(rng), td.TORCH_LIB),
        "terminate called after throwing an instance of 'c10::DistBackendError'"])
    td.torchrun_fail(job, tt + 3, f, k, exitcode=-6, script='train.py')
    t2 = all_watchdogs(job, tt + 600, skip_hosts=(1,), frames=False)
    td.torchrun_fail(job, t2, job.hosts[0], rng.randint(0, 7), script='train.py')
    job.E(t2 + 8, -1, None, 'srun: error: %s: task 1: Exited with exit code 1' % f.name)
    job.E(t2 + 9, -1, None, 'srun: error: %s: task 0: Exited with exit code 1' % job.hosts[0].name)
    lay = Layout('console', path='slurm-%d.out' % jid, prefix='rank', ext='.out')
    return R(job, lay, 'llama3-8b-torchtitan-fsdp-cuda', 'hardware', 'accelerator', 'training_crash', 'training', [itf],
             [(1, k)], [f.name],
             {'e1': 'RuntimeError: CUDA error: uncorrectable ECC error encountered',
              'e2': 'Process group watchdog thread terminated with exception: CUDA error: uncorrectable ECC error encountered'},
             'GPU %d on %s (global rank %d) hit an uncorrectable ECC memory error during training.' % (k, f.name, g),
             'Drain %s, run a GPU memory diagnostic / check row-remapping state of GPU %d and replace it if needed, then resume.' % (f.name, k),
             'uncorrectable ECC in a combined torchrun console', 'rank-prefixed console; host must be inferred from NCCL lines',
             source='huggingface/accelerate#1192, kohya-ss/sd-scripts#1434')


@case
def c05_xid79_epilog(rng, idx):
    job = new_job(rng, idx, 'cuda', 8, 8, 'dgx', fname='ip')
    cfg = meg_cfg('llama2-70b', '/mnt/vast/ckpt/llama2-70b', logi=1, savei=250)
    it0 = 500
    itf = it0 + rng.randint(800, 1400)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=13.5)
    f = job.hosts[pick_mid(rng, 8)]
    k = rng.randint(0, 7)
    bus = ['18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db'][k]
    tt = t + 0.5
    rank_tb(job, tt, f, k, td.MEG_TRAIN_FRAMES, ['RuntimeError: CUDA error: unspecified launch failure'] + cuda_async_tail(),
            tag_idx={0: 'e2'})
    td.torchrun_fail(job, tt + 2, f, k)
    t2 = all_watchdogs(job, tt + 600, skip_hosts=(f.idx,))
    all_torchrun_fail(job, t2, skip_hosts=(f.idx,))
    te = t2 + 20
    for h in job.hosts:
        out = ['==== slurm epilog on %s: dmesg -T | grep -i nvrm ====' % h.name,
               '%s NVRM: loading NVIDIA UNIX x86_64 Kernel Module  535.161.08  Tue Mar  5 22:42:15 UTC 2024' % job.dmesg_T(-86400 * 3)]
        job.block(te, h, None, out)
        if h is f:
            x = te + 0.01
            job.E(x, h, None, '%s NVRM: GPU at PCI:0000:%s:00: GPU-%08x-0f5b-c678-9099-59940ccd0641' % (job.dmesg_T(t - 1), bus, rng.randint(0, 0xffffffff)))
            job.E(x + 0.001, h, None, '%s NVRM: Xid (PCI:0000:%s:00): 79, GPU has fallen off the bus.' % (job.dmesg_T(t - 1), bus), 'e1')
            job.E(x + 0.002, h, None, '%s NVRM: GPU 0000:%s:00.0: GPU has fallen off the bus.' % (job.dmesg_T(t - 1), bus), 'e3')
            job.E(x + 0.003, h, None, '==== slurm epilog on %s: nvidia-smi ====' % h.name)
            job.E(x + 0.004, h, None, 'Unable to determine the device handle for GPU0000:%s:00.0: Unknown Error' % bus.upper(), 'e4')
            job.E(x + 0.005, h, None, 'epilog: node %s set to DRAIN (reason: gpu health check failed)' % h.name)
        else:
            job.E(te + 0.01, h, None, '==== slurm epilog on %s: nvidia-smi ====' % h.name)
            job.E(te + 0.02, h, None, 'epilog: gpu health check passed')
    lay = Layout('per_host')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'hardware', 'accelerator', 'training_crash', 'training', [itf],
             [(f.idx, k)], [f.ip, f.name],
             {'e1': '79, GPU has fallen off the bus.', 'e2': 'RuntimeError: CUDA error: unspecified launch failure',
              'e3': ': GPU has fallen off the bus.', 'e4': 'Unable to determine the device handle for GPU'},
             'GPU %d (PCI 0000:%s:00) in %s fell off the PCIe bus (Xid 79), killing its rank.' % (k, bus, f.name),
             'Keep %s drained; reseat or replace the GPU / check its power and PCIe riser before returning it to service.' % f.name,
             'Xid 79 shown only in the epilog dmesg dump', 'files are named by IP; the Xid is after the teardown noise',
             source='NVIDIA/open-gpu-kernel-modules#507, pop-os/pop#3363, NVIDIA/NVSentinel#155')


@case
def c06_ds_batch_assert(rng, idx):
    job = new_job(rng, idx, 'cuda', 2, 8, 'gpu', nccl_debug='WARN')
    cfg = dict(mbs=4, gbs=256, gas=8, train_iters=6000, nex=1536000, params=7241732096,
               model_path='/models/Mistral-7B-v0.1', ckpt='/ckpt/mistral-sft')
    t = 0.0
    h0 = job.hosts[0]
    job.block(t, -1, None, ['[%s] [INFO] [runner.py:463:main] Using IP address of %s for node %s' % (job.isoms(t), h0.ip, h0.name),
                            '[%s] [INFO] [multinode_runner.py:80:get_cmd] Running on the following workers: %s'
                            % (job.isoms(t), ','.join(h.name for h in job.hosts)),
                            '[%s] [INFO] [runner.py:568:main] cmd = pdsh -S -f 1024 -w %s export PYTHONPATH=/workspace/sft; '
                            'cd /workspace/sft; /usr/bin/python -u -m deepspeed.launcher.launch --world_info=eyJncHUtYTAxIjogWzAsIDEsIDIsIDMsIDQsIDUsIDYsIDddfQ== '
                            '--node_rank=%%n --master_addr=%s --master_port=%d train.py --deepspeed ds_z3.json'
                            % (job.isoms(t), ','.join(h.name for h in job.hosts), h0.ip, job.port)], dt=0.01)
    t = boot(job, 'hf-ds', cfg, t=1, upto='comm', launcher='none', smi=False)
    tt = t + 5
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 0.5)
            rank_tb(job, x, h, l, [('/workspace/sft/train.py', 211, '<module>', 'main()'),
                                   ('/workspace/sft/train.py', 204, 'main', 'trainer.train()'),
                                   ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 1938, 'train', 'return inner_training_loop('),
                                   ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 2092, '_inner_training_loop', 'model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)'),
                                   ('/usr/local/lib/python3.10/dist-packages/accelerate/accelerator.py', 1907, '_prepare_deepspeed', 'engine, optimizer, _, lr_scheduler = ds_initialize(**kwargs)'),
                                   ('/usr/local/lib/python3.10/dist-packages/deepspeed/__init__.py', 144, 'initialize', 'config_class = DeepSpeedConfig(config, mpu)'),
                                   ('/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/config.py', 796, '__init__', 'self._configure_train_batch_size()'),
                                   ('/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/config.py', 979, '_configure_train_batch_size', 'self._batch_assertion()'),
                                   ('/usr/local/lib/python3.10/dist-packages/deepspeed/runtime/config.py', 927, '_batch_assertion', 'assert train_batch == micro_batch * grad_acc * self.world_size, (')],
                    ['AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * '
                     'gradient_acc_step * world_size 256 != 4 * 8 * 16'], tag_idx={0: 'e1'})
    for h in job.hosts:
        x = tt + 2
        for l in range(8):
            job.E(x + l * 0.01, h, None, '[%s] [INFO] [launch.py:319:sigkill_handler] Killing subprocess %d' % (job.isoms(x), job.pid(h, l)))
        job.E(x + 0.2, h, None, "[%s] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', 'train.py', '--local_rank=7', "
              "'--deepspeed', 'ds_z3.json'] exits with return code = 1" % job.isoms(x + 0.2))
    job.E(tt + 3, -1, None, 'pdsh@%s: %s: ssh exited with exit code 1' % (h0.name, job.hosts[1].name))
    job.E(tt + 3.1, -1, None, 'pdsh@%s: %s: ssh exited with exit code 1' % (h0.name, h0.name))
    lay = Layout('console', path='ds_launch_%s.log' % job.dt(0).strftime('%Y%m%d_%H%M'), prefix='host')
    return R(job, lay, 'mistral-7b-hf-deepspeed-cuda', 'user', 'configuration', 'launching_failure', 'init', [],
             [], [],
             {'e1': 'AssertionError: Check batch related parameters.'},
             'The DeepSpeed config fixes train_batch_size=256 while micro batch 4 x accumulation 8 x 16 GPUs gives 512, '
             'so DeepSpeed rejected the configuration at initialisation.',
             'Set train_batch_size to "auto" (or 512), or reduce gradient_accumulation_steps to 4 for 16 GPUs.',
             'DeepSpeed batch-size assertion', 'pdsh host-prefixed console: all ranks in one node, no rank split',
             source='deepspeedai/DeepSpeed#6914, bigcode-project/starcoder#41')


@case
def c07_flash_attn_symbol(rng, idx):
    job = new_job(rng, idx, 'cuda', 4, 8, 'pod', jobname='qwen72b-sft-%04d' % rng.randint(0, 9999), nccl_debug='WARN')
    cfg = dict(mbs=1, gbs=64, gas=2, train_iters=3000, nex=192000, params=72706203648,
               model_path='/models/Qwen2-72B', ckpt='/ckpt/qwen72b')
    t = boot(job, 'hf-fsdp', cfg, upto='env', smi=True)
    tt = t + 4
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 1.5)
            rank_tb(job, x, h, l, [('/workspace/train_sft.py', 18, '<module>', 'from transformers import AutoModelForCausalLM, Trainer'),
                                   ('/usr/local/lib/python3.10/dist-packages/transformers/models/qwen2/modeling_qwen2.py', 54, '<module>', 'from flash_attn import flash_attn_func, flash_attn_varlen_func'),
                                   ('/usr/local/lib/python3.10/dist-packages/flash_attn/__init__.py', 3, '<module>', 'from flash_attn.flash_attn_interface import ('),
                                   ('/usr/local/lib/python3.10/dist-packages/flash_attn/flash_attn_interface.py', 10, '<module>', 'import flash_attn_2_cuda as flash_attn_cuda')],
                    ['ImportError: /usr/local/lib/python3.10/dist-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: '
                     'undefined symbol: _ZN3c104cuda9SetDeviceEi'], tag_idx={0: 'e1'})
        td.torchrun_fail(job, tt + 3, h, rng.randint(0, 7), exitcode=1, script='train_sft.py')
    lay = Layout('host_dirs', leaf='pytorch')
    return R(job, lay, 'qwen2-72b-hf-fsdp-cuda', 'user', 'software_incompatibility', 'launching_failure', 'init', [],
             [], [],
             {'e1': 'undefined symbol: _ZN3c104cuda9SetDeviceEi'},
             'The flash-attn wheel in the image was built against a different PyTorch ABI than the installed torch, so '
             'importing flash_attn_2_cuda fails on every rank.',
             'Install the flash-attn build matching the torch/CUDA/cxx11abi of the image (or rebuild it from source) and '
             'pin both versions.',
             'flash-attn ABI mismatch', 'every pod fails identically; node naming is pod/container',
             source='Dao-AILab/flash-attention#723, Dao-AILab/flash-attention#853')


@case
def c08_storage_io_ckpt(rng, idx):
    job = new_job(rng, idx, 'cuda', 16, 8, 'gpu')
    cfg = meg_cfg('llama2-70b', '/lustre/fs1/ckpt/llama2-70b-v3', logi=1, savei=500)
    cfg['ckpt_fmt'] = 'torch'
    it0 = 2000
    itf = 3500
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=6.3)
    tt = t + 0.2
    job.E(tt, 0, 0, 'saving checkpoint at iteration %7d to %s in torch format' % (itf, cfg['ckpt']))
    writers = rng.sample(range(32), 5)
    for w in sorted(writers):
        h = w // 8
        l = w % 8
        x = tt + rng.uniform(40, 90)
        mp = 'mp_rank_%02d_%03d' % (w % 8, w // 8)
        rank_tb(job, x, h, l, [('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 652, 'save', '_save(obj, opened_zipfile, pickle_module, pickle_protocol, _disable_byteorder_record)'),
                               ('/usr/local/lib/python3.10/dist-packages/torch/serialization.py', 886, '_save', 'zip_file.write_record(name, storage, num_bytes)')],
                ['RuntimeError: [enforce fail at inline_container.cc:764] . PytorchStreamWriter failed writing file data/%d: file write failed' % rng.randint(10, 900),
                 '', 'During handling of the above exception, another exception occurred:', '',
                 'Traceback (most recent call last):',
                 '  File "/workspace/Megatron-LM/megatron/training/checkpointing.py", line 433, in save_checkpoint',
                 '    ensure_directory_exists(checkpoint_name)',
                 '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 651, in save',
                 '    with _open_zipfile_writer(f) as opened_zipfile:',
                 '  File "/usr/local/lib/python3.10/dist-packages/torch/serialization.py", line 499, in __exit__',
                 '    self.file_like.write_end_of_file()',
                 "OSError: [Errno 5] Input/output error: '%s/iter_%07d/%s/model_optim_rng.pt'" % (cfg['ckpt'], itf, mp)],
                tag_idx={0: 'e1', 11: 'e2'})
    t2 = all_watchdogs(job, tt + 600, skip=set((w // 8, w % 8) for w in writers), op='_ALLGATHER_BASE')
    all_torchrun_fail(job, t2)
    lay = Layout('per_host', prefix='default')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'hardware', 'storage', 'training_crash', 'checkpoint', [itf],
             [], [],
             {'e1': 'PytorchStreamWriter failed writing file', 'e2': 'OSError: [Errno 5] Input/output error'},
             'Writes of the iteration-%d checkpoint to the shared Lustre file system failed with EIO on several writer '
             'ranks, so the save crashed and the rest of the job timed out.' % itf,
             'Check the Lustre OSTs/servers for errors around the save time, then resume from the iteration-3000 '
             'checkpoint once the file system is healthy.',
             'shared-FS EIO during checkpoint', 'errors are on several hosts; the fault is not node-local',
             source='rwth-i6/returnn#1829, hiyouga/LlamaFactory#1223')


@case
def c09_host_oom_kill(rng, idx):
    job = new_job(rng, idx, 'cuda', 8, 8, 'gpu', nccl_debug='WARN')
    cfg = meg_cfg('bloom-176b', '/scratch/ckpt/bloom', logi=1, savei=300)
    jid = rng.randint(100000, 999999)
    it0 = 900
    itf = it0 + rng.randint(1500, 2400)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=7.9)
    f = job.hosts[pick_mid(rng, 8)]
    k = rng.randint(0, 7)
    tt = t + 1
    rank_tb(job, tt, f, k, td.MEG_TRAIN_FRAMES[:3] + [
        ('/workspace/Megatron-DeepSpeed/megatron/training.py', 872, 'train_step', 'loss = model[0].train_batch(data_iter=data_iterator)'),
        ('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 1133, '_try_get_data', 'raise RuntimeError(f\'DataLoader worker (pid(s) {pids_str}) exited unexpectedly\') from e')],
        ['RuntimeError: DataLoader worker (pid %d) is killed by signal: Killed. ' % (job.pid(f, k) + 311)], tag_idx={0: 'e4'})
    p0 = job.pid(f)
    job.E(tt + 3, f, None, '%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -9) local_rank: %d '
          '(pid: %d) of binary: /usr/bin/python' % (job.glog6(tt + 3, 'E'), p0, (k + 3) % 8, job.pid(f, (k + 3) % 8)), 'e3')
    job.E(tt + 4, -1, None, 'slurmstepd: error: Detected 1 oom_kill event in StepId=%d.0. Some of the step tasks have been OOM Killed.' % jid, 'e1')
    job.E(tt + 4.1, -1, None, 'srun: error: %s: task %d: Out Of Memory' % (f.name, f.idx), 'e2')
    job.E(tt + 4.2, -1, None, 'srun: Terminating StepId=%d.0' % jid)
    job.E(tt + 4.3, -1, None, 'slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***' % (jid, job.hosts[0].name, job.slurm(tt + 4)))
    sigterm_agents(job, tt + 4.5, [h for h in job.hosts if h is not f])
    lay = Layout('console', path='slurm-%d.out' % jid, prefix='srun', ext='.out')
    return R(job, lay, 'bloom-176b-megatron-deepspeed-cuda', 'platform', 'resource_management', 'training_crash', 'training', [itf],
             [(f.idx, 0)], [f.name],
             {'e1': 'oom_kill event in StepId', 'e2': 'Out Of Memory', 'e3': 'failed (exitcode: -9)', 'e4': 'is killed by signal: Killed'},
             'Host memory of the Slurm step on %s was exhausted (dataloader workers plus pinned buffers exceeded the cgroup '
             'limit), so the kernel OOM killer killed training processes there.' % f.name,
             'Request more memory per node (--mem) or lower num_workers / prefetch, and check for host-memory growth in the data pipeline.',
             'cgroup OOM kill of one Slurm task', 'evidence split between Slurm lines and one task',
             accept=['platform/resource_management', 'user/configuration'],
             source='nextflow-io/nextflow#5932, chrisknewman/tusas#149')


@case
def c10_thermal_straggler(rng, idx):
    job = new_job(rng, idx, 'cuda', 32, 8, 'dgx', nccl_debug='WARN')
    cfg = meg_cfg('gpt3-175b', '/mnt/ckpt/gpt3', logi=1, savei=1000)
    it0 = 20000
    its = it0 + rng.randint(300, 500)
    ite = its + rng.randint(900, 1300)
    f = job.hosts[pick_mid(rng, 32)]
    k = rng.randint(0, 7)
    state = {'ts': None}

    def on_iter(it, t):
        if it == its:
            state['ts'] = t
        return 1.0 if it < its else rng.uniform(1.55, 1.7)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=ite, step=4.1, on_iter=on_iter)
    # nvidia-smi monitor every 300 s on every host
    t_first = 600.0
    hdr = '[gpu-mon] index, temperature.gpu, clocks.sm [MHz], clocks_throttle_reasons.hw_thermal_slowdown'
    for h in job.hosts:
        job.E(t_first - 1, h, None, hdr)
    x = t_first
    while x < t:
        for h in job.hosts:
            for l in range(8):
                hot = (h is f and l == k and state['ts'] is not None and x >= state['ts'] - 60)
                if hot:
                    job.E(x + h.idx * 0.01 + l * 0.001, h, None, '[gpu-mon] %s %d, %d, %d MHz, Active' % (job.iso(x), l, rng.randint(90, 94), rng.randint(1005, 1260)), 'e1')
                else:
                    job.E(x + h.idx * 0.01 + l * 0.001, h, None, '[gpu-mon] %s %d, %d, %d MHz, Not Active' % (job.iso(x), l, rng.randint(58, 71), 1980))
        x += 300
    sigterm_agents(job, t + 30)
    lay = Layout('per_host', prefix='default')
    return R(job, lay, 'gpt3-175b-megatron-cuda', 'hardware', 'accelerator', 'abnormal_behavior', 'training', [its],
             [(f.idx, k)], [f.name],
             {'e1': ', Active'},
             'GPU %d on %s entered hardware thermal slowdown (clocks ~1.1 GHz at >90C), making it a straggler that slowed '
             'every iteration of the synchronous job by ~60%%.' % (k, f.name),
             'Check cooling/fans and airflow of %s, replace it or exclude it from the allocation, and restart from the latest checkpoint.' % f.name,
             'thermal straggler slowdown', 'no exception at all; 32 hosts; only a monitor column flips to Active')


@case
def c11_cuda_oom(rng, idx):
    job = new_job(rng, idx, 'cuda', 4, 8, 'aws')
    cfg = dict(mbs=2, gbs=64, train_iters=10000, logi=10, savei=500, tps=3400, loss0=3.0)
    jid = rng.randint(20000, 90000)
    t = boot(job, 'titan', cfg, it0=0, it_fail=1, step=3.0)
    tt = t + 9
    for h in job.hosts:
        for l in range(8):
            if rng.random() < 0.8:
                x = tt + rng.uniform(0, 0.8)
                alloc = rng.choice([3.91, 7.83])
                free = rng.uniform(0.5, 3.0)
                rank_tb(job, x, h, l, TITAN_FRAMES[:3] + [('/workspace/torchtitan/torchtitan/models/llama/model.py', 205, 'forward', 'scores = torch.matmul(xq, xk.transpose(2, 3)) / math.sqrt(self.head_dim)')],
                        ['torch.OutOfMemoryError: CUDA out of memory. Tried to allocate %.2f GiB. GPU %d has a total capacity of 79.10 GiB of '
                         'which %.2f GiB is free. Including non-PyTorch memory, this process has %.2f GiB memory in use. Of the allocated '
                         'memory %.2f GiB is allocated by PyTorch, and %.2f GiB is reserved by PyTorch but unallocated. If reserved but '
                         'unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  '
                         'See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)'
                         % (alloc, l, free, 79.1 - free - 0.4, 71.2 + rng.uniform(-1, 1), rng.uniform(2, 5))], tag_idx={0: 'e1'})
    for h in job.hosts:
        td.torchrun_fail(job, tt + 5, h, rng.randint(0, 7), exitcode=1, script='train.py')
        job.E(tt + 9 + h.idx * 0.1, -1, None, 'srun: error: %s: task %d: Exited with exit code 1' % (h.name, h.idx))
    lay = Layout('console', path='slurm-%d.out' % jid, prefix='rank', ext='.out')
    return R(job, lay, 'llama3-8b-torchtitan-fsdp-cuda', 'user', 'configuration', 'training_crash', 'training', [1],
             [], [],
             {'e1': 'torch.OutOfMemoryError: CUDA out of memory.'},
             'The run was launched with a sequence length and local batch size whose activations do not fit in 80 GB '
             'per GPU, so the first step ran out of GPU memory on most ranks.',
             'Reduce local batch size or sequence length, or enable full activation checkpointing before relaunching.',
             'CUDA OOM at first step', 'errors on nearly all ranks; nothing is node-local')


@case
def c12_dev_shm_small(rng, idx):
    job = new_job(rng, idx, 'cuda', 2, 8, 'podw', jobname='mistral-dpo-%05d' % rng.randint(0, 99999))
    cfg = dict(mbs=4, gbs=64, gas=1, train_iters=4000, nex=256000, params=7241732096,
               model_path='/models/Mistral-7B-Instruct-v0.2', ckpt='/ckpt/mistral-dpo')
    t = boot(job, 'hf-ds', cfg, upto='env', smi=True)
    for h in job.hosts:
        job.block(t - 1, h, None, ['+ df -h /dev/shm', 'Filesystem      Size  Used Avail Use% Mounted on',
                                   'shm              64M     0   64M   0% /dev/shm'])
    tt = t + 20
    for h in job.hosts:
        for l in range(8):
            p = job.pid(h, l)
            pre = '%s:%d:%d [%d] ' % (h.name, p, p + 88, l)
            seg = 'nccl-' + ''.join(rng.choice('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ') for _ in range(6))
            x = tt + rng.uniform(0, 1)
            job.E(x, h, l, pre + 'misc/shmutils.cc:88 NCCL WARN Error: failed to extend /dev/shm/%s to 9637892 bytes, error: No space left on device (28)' % seg, 'e1')
            job.E(x + 0.001, h, l, '')
            job.E(x + 0.002, h, l, pre + 'misc/shmutils.cc:132 NCCL WARN Error while creating shared memory segment /dev/shm/%s (size 9637888), error: No space left on device (28)' % seg, 'e2')
            job.block(x + 0.003, h, l, [pre + 'NCCL INFO transport/shm.cc:551 -> 2', pre + 'NCCL INFO transport/shm.cc:493 -> 2',
                                        pre + 'NCCL INFO transport.cc:33 -> 2', pre + 'NCCL INFO init.cc:1358 -> 2', pre + 'NCCL INFO group.cc:65 -> 2 [Async thread]'])
            y = x + 0.3
            rank_tb(job, y, h, l, [('/workspace/dpo/train_dpo.py', 167, '<module>', 'trainer.train()'),
                                   ('/usr/local/lib/python3.10/dist-packages/deepspeed/comm/torch.py', 230, 'broadcast', 'return torch.distributed.broadcast(tensor=tensor, src=src, group=group, async_op=async_op)'),
                                   ('/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py', 2213, 'broadcast', 'work = group.broadcast([tensor], opts)')],
                    ['torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5',
                     'ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ',
                     'Last error:',
                     'Error while creating shared memory segment /dev/shm/%s (size 9637888), error: No space left on device (28)' % seg],
                    tag_idx={0: 'e3', 3: 'e2'})
        td.torchrun_fail(job, tt + 4, h, rng.randint(0, 7), exitcode=1, script='train_dpo.py')
    lay = Layout('per_host')
    return R(job, lay, 'mistral-7b-hf-deepspeed-cuda', 'platform', 'platform_configuration', 'launching_failure', 'init', [],
             [], [],
             {'e1': 'NCCL WARN Error: failed to extend /dev/shm/', 'e2': 'Error while creating shared memory segment',
              'e3': 'unhandled system error'},
             'The pods run with the container default 64 MB /dev/shm, too small for NCCL shared-memory transport '
             'buffers, so communicator init failed on every rank.',
             'Mount a memory-backed emptyDir (several GB) at /dev/shm in the pod spec (or use --ipc=host), then relaunch.',
             '/dev/shm too small in pods', 'init failure on every rank; platform setting not user code',
             accept=['platform/platform_configuration', 'user/configuration'],
             source='pytorch/ci-infra#490, NVIDIA/nccl#1518')


@case
def c13_nan_grad_sdc(rng, idx):
    job = new_job(rng, idx, 'cuda', 16, 8, 'gpu')
    cfg = meg_cfg('llama2-70b', '/lustre/ckpt/llama2-70b-cpt', logi=1, savei=500)
    it0 = 6000
    itf = it0 + rng.randint(800, 1400)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=6.6)
    f = job.hosts[pick_mid(rng, 16)]
    k = rng.randint(0, 7)
    g = job.g(f, k)
    tt = t + 3
    rank_tb(job, tt, f, k, td.MEG_TRAIN_FRAMES + [
        ('/workspace/Megatron-LM/megatron/core/distributed/distributed_data_parallel.py', 391, 'finish_grad_sync', 'bucket_group.finish_grad_sync()'),
        ('/workspace/Megatron-LM/megatron/core/distributed/param_and_grad_buffer.py', 151, 'finish_grad_sync', 'self.start_grad_sync()'),
        ('/workspace/Megatron-LM/megatron/core/distributed/param_and_grad_buffer.py', 114, 'start_grad_sync', 'assert not norm.isnan(), (')],
        ['AssertionError: Rank %d: found NaN in local grad norm in backward pass before data-parallel communication '
         'collective. Device: %d, node: %s' % (g, k, f.name)], tag_idx={0: 'e1'})
    td.torchrun_fail(job, tt + 2, f, k, exitcode=1)
    t2 = all_watchdogs(job, tt + 600, skip=((f.idx, k),), op='_REDUCE_SCATTER_BASE')
    all_torchrun_fail(job, t2, skip_hosts=(f.idx,))
    lay = Layout('per_host')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'hardware', 'accelerator', 'training_crash', 'training', [itf],
             [(f.idx, k)], [f.name],
             {'e1': 'found NaN in local grad norm in backward pass'},
             'Only rank %d (GPU %d on %s) produced a NaN local gradient norm while the loss curve was healthy, pointing '
             'to silent data corruption on that GPU.' % (g, k, f.name),
             'Run DCGM diagnostics level 3 on %s, exclude it, and resume from the last checkpoint; if the NaN follows '
             'the data instead, inspect the batch.' % f.name,
             'NaN grad norm on one rank (SDC)', 'message names host inside the text; category is a judgement call',
             accept=['hardware/accelerator', 'user/configuration'],
             source='Megatron-LM param_and_grad_buffer.py (found via code search)')


@case
def c14_restart_tp_mismatch(rng, idx):
    job = new_job(rng, idx, 'cuda', 16, 8, 'cn', nccl_debug='WARN')
    cfg = meg_cfg('gpt3-175b', '/gpfs/proj/ckpt/gpt3-175b', logi=5, savei=500)
    cfg['ckpt_fmt'] = 'torch'
    j1 = rng.randint(100000, 500000)
    j2 = j1 + rng.randint(3, 40)
    it_save = 4500
    t = boot(job, 'megatron', cfg, it0=3000, it_fail=it_save + rng.randint(100, 400), step=9.5)
    # ends at time limit
    job.E(t + 5, -1, None, 'slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO TIME LIMIT ***' % (j1, job.hosts[0].name, job.slurm(t + 5)))
    job.E(t + 5.1, -1, None, 'slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO TIME LIMIT ***' % (j1, job.hosts[0].name, job.slurm(t + 5)))
    sigterm_agents(job, t + 5.5)
    tsplit = t + 100
    t0 = tsplit + 3600
    cfg2 = dict(cfg)
    cfg2['tp'] = 4
    cfg2['pp'] = 8
    cfg2['load_fail'] = True
    t = boot(job, 'megatron', cfg2, t=t0, it0=it_save, upto='model')
    # replace: the load fails -> emit errors instead of the success lines: we emit after model build
    tt = t + 2
    for h in job.hosts:
        for l in range(8):
            if rng.random() < 0.7:
                x = tt + rng.uniform(0, 3)
                rank_tb(job, x, h, l, [('/workspace/Megatron-LM/pretrain_gpt.py', 302, '<module>', 'pretrain('),
                                       ('/workspace/Megatron-LM/megatron/training/training.py', 312, 'pretrain', 'model, optimizer, opt_param_scheduler = setup_model_and_optimizer('),
                                       ('/workspace/Megatron-LM/megatron/training/training.py', 721, 'setup_model_and_optimizer', 'args.iteration, args.num_floating_point_operations_so_far = load_checkpoint('),
                                       ('/workspace/Megatron-LM/megatron/training/checkpointing.py', 1141, 'load_checkpoint', 'model[0].load_state_dict(state_dict[\'model\'], strict=strict)')],
                        ['RuntimeError: Error(s) in loading state_dict for GPTModel:',
                         '\tsize mismatch for decoder.layers.0.self_attention.linear_qkv.weight: copying a param with shape torch.Size([4608, 12288]) from checkpoint, the shape in current model is torch.Size([9216, 12288]).',
                         '\tsize mismatch for decoder.layers.0.self_attention.linear_proj.weight: copying a param with shape torch.Size([12288, 1536]) from checkpoint, the shape in current model is torch.Size([12288, 3072]).',
                         '\tsize mismatch for decoder.layers.0.mlp.linear_fc1.weight: copying a param with shape torch.Size([6144, 12288]) from checkpoint, the shape in current model is torch.Size([12288, 12288]).'],
                        tag_idx={0: 'e1', 1: 'e2', 2: 'e2', 3: 'e2'})
    for h in job.hosts:
        td.torchrun_fail(job, tt + 8, h, rng.randint(0, 7), exitcode=1)
        job.E(tt + 12 + h.idx * 0.01, -1, None, 'srun: error: %s: task %d: Exited with exit code 1' % (h.name, h.idx))
    segs = [('slurm-%d.out' % j1, -1e9, tsplit), ('slurm-%d.out' % j2, tsplit, 1e12)]
    lay = Layout('console', path='slurm-%d.out' % j2, prefix='srun', ext='.out', segments=segs)
    return R(job, lay, 'gpt3-175b-megatron-cuda', 'user', 'configuration', 'launching_failure', 'model_loading', [it_save],
             [], [],
             {'e1': 'RuntimeError: Error(s) in loading state_dict for GPTModel:', 'e2': 'size mismatch for'},
             'The requeued job changed tensor parallelism from 8 to 4 but resumed from a checkpoint saved with TP=8, '
             'so parameter shapes do not match at load time.',
             'Resume with the original TP=8/PP=8 layout or convert the checkpoint to the new parallel layout (or save in '
             'torch_dist format) before changing it.',
             'restart with TP change', 'two consoles; first ends with an alarming but benign TIME LIMIT cancel')


@case
def c15_driver_too_old(rng, idx):
    job = new_job(rng, idx, 'cuda', 4, 8, 'gpu', fname='ip')
    cfg = dict(mbs=1, gbs=64, gas=2, train_iters=3000, nex=192000, params=72706203648,
               model_path='/models/Qwen2-72B-Instruct', ckpt='/ckpt/qwen72b-sft')
    f = job.hosts[rng.randint(1, 3)]
    t = 0.0
    for h in job.hosts:
        tt = bg.env_dump(job, t + 0.2 * h.idx, h, 'cuda')
        if h is f:
            tt = bg.nvidia_smi_summary(job, tt, h, drv='470.57.02', cuda='11.4')
        else:
            tt = bg.nvidia_smi_summary(job, tt, h)
        bg.torchrun_banner(job, tt + 0.5, h)
    tt = 8
    for l in range(8):
        x = tt + rng.uniform(0, 1)
        rank_tb(job, x, f, l, [('/workspace/sft/train.py', 33, '<module>', 'torch.cuda.set_device(local_rank)'),
                               ('/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py', 399, 'set_device', 'torch._C._cuda_setDevice(device)'),
                               ('/usr/local/lib/python3.10/dist-packages/torch/cuda/__init__.py', 293, '_lazy_init', 'torch._C._cuda_init()')],
                ['RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver by '
                 'downloading and installing a new version from the URL: http://www.nvidia.com/Download/index.aspx Alternatively, go to: '
                 'https://pytorch.org to install a PyTorch version that has been compiled with your version of the CUDA driver.'],
                tag_idx={0: 'e1'})
    td.torchrun_fail(job, tt + 3, f, 0, exitcode=1, script='train.py')
    for h in job.hosts:
        if h is not f:
            bg.nccl_init(job, tt + 2, h)
    t2 = all_watchdogs(job, tt + 1800, skip_hosts=(f.idx,), op='BROADCAST', timeout=1800000, frames=False)
    all_torchrun_fail(job, t2, skip_hosts=(f.idx,), script='train.py')
    lay = Layout('per_host', ext='.txt')
    return R(job, lay, 'qwen2-72b-hf-fsdp-cuda', 'platform', 'platform_configuration', 'launching_failure', 'init', [],
             [(f.idx, 0)], [f.ip],
             {'e1': 'The NVIDIA driver on your system is too old'},
             'Node %s still runs NVIDIA driver 470 (CUDA 11.4) while the image needs a CUDA 12 driver, so every rank '
             'there fails at CUDA init and the other nodes wait until their watchdog fires.' % f.ip,
             'Upgrade the driver on %s (or exclude it / fix the node pool image) and relaunch.' % f.ip,
             'stale driver on one node', 'per-IP files; others log more error lines',
             accept=['platform/platform_configuration', 'user/software_incompatibility'])


@case
def c16_user_scancel(rng, idx):
    job = new_job(rng, idx, 'cuda', 8, 8, 'gpu', nccl_debug='WARN')
    cfg = meg_cfg('bloom-176b', '/scratch/ckpt/bloom-v2', logi=1, savei=400)
    jid = rng.randint(100000, 999999)
    it0 = 1200
    itf = it0 + rng.randint(1600, 2600)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=7.7)
    tt = t + rng.uniform(1, 5)
    job.E(tt, -1, None, 'srun: Job step aborted: Waiting up to 32 seconds for job step to finish.')
    job.E(tt + 0.1, -1, None, 'slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s ***' % (jid, job.hosts[0].name, job.slurm(tt)), 'e1')
    job.E(tt + 0.2, -1, None, 'slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s ***' % (jid, job.hosts[0].name, job.slurm(tt)), 'e1')
    sigterm_agents(job, tt + 0.5)
    for h in job.hosts:
        job.E(tt + 31 + h.idx * 0.01, -1, None, 'srun: error: %s: task %d: Terminated' % (h.name, h.idx))
    job.E(tt + 32, -1, None, 'srun: Force Terminated StepId=%d.0' % jid)
    lay = Layout('console', path='slurm-%d.out' % jid, prefix='srun', ext='.out')
    return R(job, lay, 'bloom-176b-megatron-deepspeed-cuda', 'user', 'misoperation', 'others', 'training', [itf],
             [], [],
             {'e1': 'CANCELLED AT'},
             'The job was cancelled with scancel while training was healthy (no error precedes the cancel).',
             'No infrastructure action needed; resubmit from the latest checkpoint and confirm who cancelled it.',
             'manual scancel', 'no error precedes the cancellation; teardown looks like a crash',
             accept=['user/misoperation', 'platform/scheduling'], source='hafs-community/HAFS#101')


@case
def c17_preemption(rng, idx):
    job = new_job(rng, idx, 'cuda', 8, 8, 'hgx', nccl_debug='WARN')
    cfg = meg_cfg('llama2-70b', '/mnt/ckpt/llama2-70b-lowpri', logi=1, savei=250)
    jid = rng.randint(100000, 999999)
    it0 = 250
    itf = it0 + rng.randint(1300, 2100)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=13.0)
    tt = t + 2
    job.E(tt, -1, None, 'slurmstepd: error: *** STEP %d.0 ON %s CANCELLED AT %s DUE TO PREEMPTION ***' % (jid, job.hosts[0].name, job.slurm(tt)), 'e1')
    job.E(tt + 0.1, -1, None, 'slurmstepd: error: *** JOB %d ON %s CANCELLED AT %s DUE TO PREEMPTION ***' % (jid, job.hosts[0].name, job.slurm(tt)), 'e1')
    sigterm_agents(job, tt + 0.3)
    for h in job.hosts:
        job.E(tt + 31 + h.idx * 0.01, -1, None, 'srun: error: %s: task %d: Terminated' % (h.name, h.idx))
    lay = Layout('console', path='slurm-%d.out' % jid, prefix='srun', ext='.out')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'platform', 'scheduling', 'others', 'training', [itf],
             [], [],
             {'e1': 'DUE TO PREEMPTION'},
             'The job ran in a preemptible partition and Slurm preempted it for a higher-priority job.',
             'Run in a non-preemptible QoS or enable --requeue with frequent checkpoints.',
             'preemption', 'healthy logs until an abrupt platform cancel')


@case
def c18_nvlink_error(rng, idx):
    job = new_job(rng, idx, 'cuda', 4, 8, 'gpu')
    cfg = dict(mbs=1, gbs=64, train_iters=15000, logi=1, savei=1000, tps=6100, loss0=2.8)
    itf = rng.randint(1800, 2900)
    t = boot(job, 'titan', cfg, it0=0, it_fail=itf, step=2.2)
    f = job.hosts[rng.randint(1, 3)]
    k = rng.randint(0, 7)
    g = job.g(f, k)
    tt = t + 0.3
    rank_tb(job, tt, f, k, TITAN_FRAMES, ['RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution'] + cuda_async_tail(),
            tag_idx={0: 'e1'})
    job.E(tt + 0.1, f, k, '[%s ProcessGroupNCCL.cpp:1553] [PG 0 Rank %d] Process group watchdog thread terminated with exception: '
          'CUDA error: uncorrectable NVLink error detected during the execution' % (job.glog(tt + 0.1), g), 'e2')
    td.torchrun_fail(job, tt + 2, f, k, script='train.py')
    t2 = all_watchdogs(job, tt + 600, skip_hosts=(f.idx,), frames=False)
    all_torchrun_fail(job, t2, skip_hosts=(f.idx,), script='train.py')
    lay = Layout('rank_files', launcher='torchrun')
    return R(job, lay, 'llama3-8b-torchtitan-fsdp-cuda', 'hardware', 'accelerator', 'training_crash', 'training', [itf],
             [(f.idx, k)], [f.name],
             {'e1': 'RuntimeError: CUDA error: uncorrectable NVLink error', 'e2': 'watchdog thread terminated with exception: CUDA error: uncorrectable NVLink error'},
             'An uncorrectable NVLink error on GPU %d of %s aborted rank %d.' % (k, f.name, g),
             'Drain %s, check NVLink/NVSwitch health (nvidia-smi nvlink -e, fabric manager logs) and reset or repair before reuse.' % f.name,
             'NVLink uncorrectable error', 'host folders of per-rank files; nodes are host/rank_N',
             accept=['hardware/accelerator', 'hardware/network'], source='pytorch/pytorch#58155, MIC-DKFZ/nnUNet#1519')


@case
def c19_megatron_ckpt_bug(rng, idx):
    job = new_job(rng, idx, 'cuda', 8, 8, 'gpu')
    cfg = meg_cfg('llama2-70b', '/mnt/ckpt/llama70b-mcore016', logi=1, savei=1000)
    itf = 1000
    t = boot(job, 'megatron', cfg, it0=0, it_fail=itf, step=13.3)
    tt = t + 0.5
    job.E(tt, 0, 0, 'saving checkpoint at iteration %7d to %s in torch_dist format' % (itf, cfg['ckpt']))
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(1, 4)
            rank_tb(job, x, h, l, [('/workspace/Megatron-LM/pretrain_gpt.py', 302, '<module>', 'pretrain('),
                                   ('/workspace/Megatron-LM/megatron/training/training.py', 1405, 'train', 'save_checkpoint_and_time(iteration, model, optimizer,'),
                                   ('/workspace/Megatron-LM/megatron/training/checkpointing.py', 404, 'save_checkpoint', 'state_dict = generate_state_dict(args, model, optimizer, opt_param_scheduler, rng_state,'),
                                   ('/workspace/Megatron-LM/megatron/core/optimizer/distrib_optimizer.py', 1760, 'sharded_state_dict', 'param_state = self.sharded_param_state_fs_model_space('),
                                   ('/workspace/Megatron-LM/megatron/core/dist_checkpointing/mapping.py', 134, 'validate_metadata_integrity', 'raise CheckpointingException(')],
                    ['megatron.core.dist_checkpointing.core.CheckpointingException: ShardedTensor.flattened_range is not supported.'],
                    tag_idx={0: 'e1'})
    all_torchrun_fail(job, tt + 8, exitcode=1)
    lay = Layout('per_host', prefix='default')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'framework', 'framework_bug', 'training_crash', 'checkpoint', [itf],
             [], [],
             {'e1': 'CheckpointingException: ShardedTensor.flattened_range is not supported.'},
             'After upgrading megatron-core, the distributed optimizer still defaults to the fully_sharded_model_space '
             'layout that emits flattened_range, which the same version rejects, so the first checkpoint save crashes.',
             'Save optimizer state with the dp_reshardable sharding (or pin the previous megatron-core) and restart; '
             'report/track the upstream fix.',
             'megatron-core dist checkpoint bug', 'identical crash on all 64 ranks at the first save',
             source='areal-project/AReaL#1341, areal-project/AReaL#1468')


@case
def c20_nccl_no_iface(rng, idx):
    job = new_job(rng, idx, 'cuda', 4, 8, 'podw', jobname='mistral-pt-%04d' % rng.randint(0, 9999), nccl_debug='INFO')
    job.ifname = 'ib0'
    cfg = dict(mbs=4, gbs=256, gas=2, train_iters=8000, nex=2048000, params=7241732096,
               model_path='/models/Mistral-7B-v0.1', ckpt='/ckpt/mistral-pt')
    t = boot(job, 'hf-ds', cfg, upto='env', smi=True)
    for h in job.hosts:
        job.block(t - 1, h, None, ['+ ip -o -4 addr show | awk \'{print $2, $4}\'', 'lo 127.0.0.1/8', 'eth0 %s/24' % h.ip,
                                   'net1 192.168.%d.%d/24' % (h.idx + 10, rng.randint(2, 250))])
    tt = t + 15
    for h in job.hosts:
        for l in range(8):
            p = job.pid(h, l)
            pre = '%s:%d:%d [%d] ' % (h.name, p, p, l)
            x = tt + rng.uniform(0, 1)
            job.E(x, h, l, pre + 'NCCL INFO NCCL_SOCKET_IFNAME set by environment to ib0')
            job.E(x + 0.001, h, l, '')
            job.E(x + 0.002, h, l, pre + 'bootstrap.cc:67 NCCL WARN Bootstrap : no socket interface found', 'e1')
            job.E(x + 0.003, h, l, pre + 'NCCL INFO init.cc:1739 -> 3')
            rank_tb(job, x + 0.2, h, l, [('/workspace/pt/train.py', 140, '<module>', 'main()'),
                                         ('/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py', 2213, 'broadcast', 'work = group.broadcast([tensor], opts)')],
                    ['torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, internal error - please report this issue to the NCCL developers, NCCL version 2.20.5',
                     'ncclInternalError: Internal check failed.', 'Last error:', 'Bootstrap : no socket interface found'],
                    tag_idx={0: 'e2', 3: 'e1'})
        td.torchrun_fail(job, tt + 4, h, rng.randint(0, 7), exitcode=1, script='train.py')
    lay = Layout('per_host')
    return R(job, lay, 'mistral-7b-hf-deepspeed-cuda', 'platform', 'platform_configuration', 'launching_failure', 'init', [],
             [], [],
             {'e1': 'Bootstrap : no socket interface found', 'e2': 'internal error - please report this issue to the NCCL developers'},
             'NCCL_SOCKET_IFNAME=ib0 was injected into the pods, but the pods only have eth0/net1, so NCCL found no usable '
             'bootstrap interface on any rank.',
             'Fix the job template/network attachment so NCCL_SOCKET_IFNAME matches an interface present in the pods (e.g. eth0 or net1).',
             'wrong NCCL_SOCKET_IFNAME', 'NCCL says "internal error - please report" which misleads toward a framework bug',
             accept=['platform/platform_configuration', 'user/configuration'], source='NVIDIA/nccl bootstrap.cc (via issues)')


@case
def c21_collate_keyerror(rng, idx):
    job = new_job(rng, idx, 'cuda', 2, 8, 'aws')
    cfg = dict(mbs=1, gbs=32, gas=2, train_iters=5000, nex=160000, params=72706203648,
               model_path='/models/Qwen2-72B', ckpt='/ckpt/qwen72b-chat', savei=1000)
    itf = rng.randint(600, 950)
    jid = rng.randint(20000, 90000)
    t = boot(job, 'hf-fsdp', cfg, it0=0, it_fail=itf, step=9.1)
    h = job.hosts[rng.randint(0, 1)]
    l = rng.randint(0, 7)
    wk = rng.randint(0, 7)
    rank_tb(job, t + 2, h, l, [('/workspace/sft/train.py', 250, '<module>', 'trainer.train()'),
                               ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 2279, '_inner_training_loop', 'for step, inputs in enumerate(epoch_iterator):'),
                               ('/usr/local/lib/python3.10/dist-packages/accelerate/data_loader.py', 454, '__iter__', 'current_batch = next(dataloader_iter)'),
                               ('/usr/local/lib/python3.10/dist-packages/torch/utils/data/dataloader.py', 1465, '_next_data', 'return self._process_data(data)'),
                               ('/usr/local/lib/python3.10/dist-packages/torch/_utils.py', 706, 'reraise', 'raise exception')],
            ['KeyError: Caught KeyError in DataLoader worker process %d.' % wk, 'Original Traceback (most recent call last):',
             '  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/worker.py", line 309, in _worker_loop',
             '    data = fetcher.fetch(index)  # type: ignore[possibly-undefined]',
             '  File "/usr/local/lib/python3.10/dist-packages/torch/utils/data/_utils/fetch.py", line 55, in fetch',
             '    return self.collate_fn(data)',
             '  File "/workspace/sft/data/collator.py", line 41, in __call__',
             '    input_ids = [f["input_ids"] for f in features]',
             '  File "/workspace/sft/data/collator.py", line 41, in <listcomp>',
             '    input_ids = [f["input_ids"] for f in features]',
             "KeyError: 'input_ids'", ''], tag_idx={0: 'e1', 10: 'e2'})
    td.torchrun_fail(job, t + 5, h, l, exitcode=1, script='train.py')
    t2 = all_watchdogs(job, t + 1800, skip=((h.idx, l),), timeout=1800000, frames=False, op='_ALLGATHER_BASE')
    for hh in job.hosts:
        if hh is not h:
            td.torchrun_fail(job, t2, hh, rng.randint(0, 7), script='train.py')
        job.E(t2 + 9 + hh.idx * 0.1, -1, None, 'srun: error: %s: task %d: Exited with exit code 1' % (hh.name, hh.idx))
    lay = Layout('console', path='slurm-%d.out' % jid, prefix='rank', ext='.out')
    return R(job, lay, 'qwen2-72b-hf-fsdp-cuda', 'user', 'script_bug', 'training_crash', 'data_loading', [itf],
             [], [],
             {'e1': 'Caught KeyError in DataLoader worker process', 'e2': "KeyError: 'input_ids'"},
             'The custom collator assumes every sample has an "input_ids" field, but a sample produced by the preprocessing '
             'step lacks it, so one rank crashed mid-epoch and the rest timed out.',
             'Fix the collator/preprocessing to drop or repair samples without input_ids and add a dataset validation pass.',
             'collator KeyError', 'one rank crashes; the others log hundreds of watchdog lines')


@case
def c22_shape_mismatch(rng, idx):
    job = new_job(rng, idx, 'cuda', 2, 8, 'gpu')
    cfg = dict(mbs=2, gbs=32, train_iters=10000, logi=10, savei=500, tps=7000, loss0=3.0)
    t = boot(job, 'titan', cfg, it0=0, it_fail=1, step=2.0)
    tt = t + 4
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 0.5)
            rank_tb(job, x, h, l, TITAN_FRAMES[:3] + [
                ('/workspace/torchtitan/torchtitan/models/llama/model.py', 268, 'forward', 'return self.w2(F.silu(self.w1(x)) * self.w3(x))'),
                ('/usr/local/lib/python3.10/dist-packages/torch/nn/modules/linear.py', 125, 'forward', 'return F.linear(input, self.weight, self.bias)')],
                ['RuntimeError: mat1 and mat2 shapes cannot be multiplied (16384x4096 and 5120x14336)'], tag_idx={0: 'e1'})
        td.torchrun_fail(job, tt + 3, h, rng.randint(0, 7), exitcode=1, script='train.py')
    lay = Layout('per_host')
    return R(job, lay, 'llama3-8b-torchtitan-fsdp-cuda', 'user', 'script_bug', 'training_crash', 'training', [1],
             [], [],
             {'e1': 'RuntimeError: mat1 and mat2 shapes cannot be multiplied'},
             'A local change to the feed-forward block builds w1 with a 5120 input dimension while the model width is '
             '4096, so the first forward pass fails on every rank.',
             'Fix the FFN dimension in the model code/config (dim=4096) and rerun a single-GPU smoke test first.',
             'shape bug in model code', 'all ranks identical at step 1')


@case
def c23_xid119_hang(rng, idx):
    job = new_job(rng, idx, 'cuda', 16, 8, 'dgx')
    cfg = meg_cfg('llama2-70b', '/mnt/ckpt/llama2-70b-long', logi=1, savei=500)
    it0 = 4000
    itf = it0 + rng.randint(900, 1400)
    t = boot(job, 'megatron', cfg, it0=it0, it_fail=itf, step=6.5,
             env_extra=[('TORCH_NCCL_ENABLE_MONITORING', '0'), ('DIST_TIMEOUT_MINUTES', '240')])
    f = job.hosts[pick_mid(rng, 16)]
    k = rng.randint(0, 7)
    bus = ['18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db'][k]
    tc = t + rng.uniform(7000, 9000)
    sigterm_agents(job, tc)
    te = tc + 40
    for h in job.hosts:
        job.block(te, h, None, ['==== epilog on %s: dmesg -T | grep -i -E "nvrm|xid" ====' % h.name,
                                '%s NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024' % job.dmesg_T(-86400 * 5)])
        if h is f:
            job.E(te + 0.005, h, None, '%s NVRM: _kgspLogXid119: ********************************* GSP Timeout **********************************'
                  % job.dmesg_T(t + 2), 'e3')
            for i in range(rng.randint(3, 5)):
                x = t + 2 + i * 7
                job.E(te + 0.01 + i * 0.002, h, None, '%s NVRM: Xid (PCI:0000:%s:00): 119, pid=%d, name=python, Timeout after 6s of waiting for '
                      'RPC response from GPU%d GSP! Expected function 76 (GSP_RM_CONTROL) (0x20801348 0x410).'
                      % (job.dmesg_T(x), bus, job.pid(f, k), k), 'e1')
                job.E(te + 0.011 + i * 0.002, h, None, '%s NVRM: GPU%d GSP RPC buffer contains function 76 (GSP_RM_CONTROL) and data '
                      '0x0000000020801348 0x0000000000000410.' % (job.dmesg_T(x), k), 'e2')
    lay = Layout('per_host')
    return R(job, lay, 'llama2-70b-megatron-cuda', 'hardware', 'accelerator', 'abnormal_behavior', 'training', [itf],
             [(f.idx, k)], [f.name],
             {'e1': ': 119, pid=', 'e2': 'GSP RPC buffer contains function', 'e3': '_kgspLogXid119'},
             'GPU %d on %s stopped answering GSP RPCs (Xid 119), stalling its rank; with long collective timeouts the whole '
             'job hung silently until it was cancelled.' % (k, f.name),
             'Reset or reboot %s (consider disabling GSP firmware via driver option if it recurs), exclude it and resume.' % f.name,
             'silent hang from GSP timeout', 'no exception anywhere; evidence only in one host epilog')


@case
def c24_hf_resume_missing(rng, idx):
    job = new_job(rng, idx, 'cuda', 2, 8, 'gpu', nccl_debug='WARN')
    cfg = dict(mbs=4, gbs=128, gas=2, train_iters=12000, nex=1536000, params=7241732096,
               model_path='/models/Mistral-7B-v0.1', ckpt='/mnt/ckpt/mistral-sft-v2')
    t = boot(job, 'hf-ds', cfg, upto='comm')
    tt = t + 4
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 0.5)
            rank_tb(job, x, h, l, [('/workspace/sft/train.py', 219, '<module>', 'trainer.train(resume_from_checkpoint=args.resume)'),
                                   ('/usr/local/lib/python3.10/dist-packages/transformers/trainer.py', 1876, 'train', 'raise ValueError(f"Can\'t find a valid checkpoint at {resume_from_checkpoint}")')],
                    ["ValueError: Can't find a valid checkpoint at %s/checkpoint-5000" % cfg['ckpt']], tag_idx={0: 'e1'})
        td.torchrun_fail(job, tt + 2, h, rng.randint(0, 7), exitcode=1, script='train.py')
    lay = Layout('per_host', prefix='default')
    return R(job, lay, 'mistral-7b-hf-deepspeed-cuda', 'user', 'misoperation', 'launching_failure', 'model_loading', [5000],
             [], [],
             {'e1': "ValueError: Can't find a valid checkpoint at"},
             'The relaunch asked to resume from checkpoint-5000, which had already been deleted by the save_total_limit '
             'rotation / manual cleanup, so every rank failed to resume.',
             'Resume from an existing checkpoint directory (or from the latest one) and avoid deleting checkpoints referenced by relaunch scripts.',
             'resume from deleted checkpoint', 'config-like error; all ranks',
             accept=['user/misoperation', 'user/configuration'])


# ===========================================================================
# Ascend cases
# ===========================================================================
def hccl_link_setup(job, t, hosts=None):
    """placeholder for symmetry with CUDA; MindSpeed prints nothing for HCCL init."""
    return t


@case
def c25_ej0002_port_down(rng, idx):
    job = new_job(rng, idx, 'ascend', 8, 8, 'asc')
    cfg = meg_cfg('llama2-70b', '/home/ma-user/ckpt/llama2-70b', logi=1, savei=500)
    t = boot(job, 'mindspeed', cfg, upto='comm')
    f = job.hosts[pick_mid(rng, 8)]
    k = rng.randint(0, 7)
    g = job.g(f, k)
    tt = t + 3
    rank_tb(job, tt, f, k, [('/home/ma-user/MindSpeed-LLM/pretrain_gpt.py', 256, '<module>', 'main()'),
                            ('/home/ma-user/Megatron-LM/megatron/training/initialize.py', 109, 'finish_mpu_init', '_initialize_distributed()'),
                            ('/usr/local/python3.10/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py', 3439, 'barrier', 'work = default_pg.barrier(opts=opts)')],
            ['RuntimeError: EJ0002: [PID: %d] %s The network port is down.' % (job.pid(f, k), job.asc(tt)),
             '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed.' % (job.asc_s(tt), job.pid(f, k), k, g),
             '        TraceBack (most recent call last):',
             '        ra hdc message process failed ret(-67) phy_id(%d)' % k], tag_idx={0: 'e1'})
    td.torchrun_fail(job, tt + 3, f, k, exitcode=1)
    for h in job.hosts:
        for l in range(8):
            if (h is f) and l == k:
                continue
            td.ei0006(job, tt + 120 + rng.uniform(0, 5), h, l)
        if h is not f:
            td.torchrun_fail(job, tt + 130, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('grank_files', rprefix='train_rank', launcher='launcher')
    return R(job, lay, 'llama2-70b-mindspeed-ascend', 'hardware', 'network', 'launching_failure', 'init', [],
             [(f.idx, k)], [f.ip],
             {'e1': 'The network port is down.'},
             'The RoCE port of NPU %d on %s was down, so HCCL could not build its links; all other ranks then timed out '
             'waiting for sockets.' % (k, f.name),
             'Check the NPU network port with hccn_tool (-link -g / -net_health), fix the optical module/cable or switch '
             'port, then relaunch.',
             'NPU RoCE port down at HCCL init', '63 ranks log EI0006 timeouts; the culprit logs one short traceback',
             source='vllm-project/vllm-ascend#1815, vllm-project/vllm-ascend#486')


@case
def c26_hccl_hang_stuck_rank(rng, idx):
    job = new_job(rng, idx, 'ascend', 16, 8, 'nodex')
    cfg = meg_cfg('llama2-70b', '/cache/ckpt/llama2-70b', logi=1, savei=1000)
    it0 = 2000
    itf = it0 + rng.randint(700, 1200)
    t = boot(job, 'mindspeed', cfg, it0=it0, it_fail=itf, step=7.2)
    f = job.hosts[pick_mid(rng, 16)]
    k = rng.randint(0, 7)
    gf = job.g(f, k)
    tt = t + 1800 + rng.uniform(1, 5)
    for h in job.hosts:
        for l in range(8):
            if h is f and l == k:
                continue
            g = job.g(h, l)
            neigh = abs(g - gf) in (1, 8)
            td.hccl_hang_ei0002(job, tt + rng.uniform(0, 3), h, l, str(gf) if neigh else 'unknown', tag='e1')
    for h in job.hosts:
        td.torchrun_fail(job, tt + 10, h, (k + 1) % 8 if h is f else rng.randint(0, 7), exitcode=1)
    lay = Layout('per_host')
    return R(job, lay, 'llama2-70b-mindspeed-ascend', 'hardware', 'accelerator', 'abnormal_behavior', 'training', [itf],
             [(f.idx, k)], [f.name],
             {'e1': 'The wait execution of the Notify register times out'},
             'NPU %d on %s (rank %d) stopped making progress, so every other rank waited in the collective until the '
             '1800 s HCCL execution timeout fired.' % (k, f.name, gf),
             'Collect the device plog/npu-smi status of %s device %d, reset or replace the NPU, and resume from the last checkpoint.' % (f.name, k),
             'stuck NPU hang with HCCL EI0002', 'the faulty rank is the only one that logs nothing; 127 ranks report EI0002',
             source='InternLM/lmdeploy#3354, vllm-project/vllm-ascend#1443')


@case
def c27_npu_oom(rng, idx):
    job = new_job(rng, idx, 'ascend', 2, 8, 'devnpu')
    cfg = meg_cfg('qwen2-7b', '/data/ckpt/qwen2-7b', logi=1, savei=500)
    cfg['seq'] = 32768
    jid = rng.randint(10000, 99999)
    t = boot(job, 'mindspeed', cfg, it0=0, it_fail=1, step=3.0)
    tt = t + 20
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 1)
            rank_tb(job, x, h, l, td.MEG_TRAIN_FRAMES + [('/home/ma-user/MindSpeed/mindspeed/core/fusions/fused_softmax.py', 58, 'forward', 'return torch_npu.npu_scaled_masked_softmax(x, mask, self.scale, False)')],
                    ['RuntimeError: NPU out of memory. Tried to allocate %.2f GiB (NPU %d; 60.96 GiB total capacity; %.2f GiB already '
                     'allocated; %.2f GiB current active; %.2f GiB free; %.2f GiB reserved in total by PyTorch) If reserved memory '
                     'is >> allocated memory try setting max_split_size_mb to avoid fragmentation.'
                     % (8.0, l, 49.47, 49.47, rng.uniform(0.5, 1.5), 57.55)], tag_idx={0: 'e1'})
        td.torchrun_fail(job, tt + 4, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('console', path='train_%d.log' % jid, prefix='rank')
    return R(job, lay, 'qwen2-7b-mindspeed-ascend', 'user', 'configuration', 'training_crash', 'training', [1],
             [], [],
             {'e1': 'RuntimeError: NPU out of memory.'},
             'Sequence length was raised to 32k without context parallelism or recomputation, so the attention softmax '
             'needs more HBM than the 64 GB NPUs have.',
             'Enable recompute / context parallel or reduce seq_length or micro batch size.',
             'NPU OOM', 'combined console with [rankN] prefixes')


@case
def c28_torch_npu_symbol(rng, idx):
    job = new_job(rng, idx, 'ascend', 4, 8, 'pod', jobname='qwen2-7b-pt-%04d' % rng.randint(0, 9999))
    t = boot(job, 'mindspeed', meg_cfg('qwen2-7b', '/ckpt/q'), upto='env')
    tt = t + 3
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 1)
            rank_tb(job, x, h, l, [('/home/ma-user/MindSpeed-LLM/pretrain_gpt.py', 6, '<module>', 'import mindspeed.megatron_adaptor'),
                                   ('/home/ma-user/MindSpeed/mindspeed/megatron_adaptor.py', 10, '<module>', 'import torch_npu'),
                                   ('/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/__init__.py', 17, '<module>', 'import torch_npu.npu'),
                                   ('/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/npu/__init__.py', 114, '<module>', 'from torch_npu.utils import _should_print_warning'),
                                   ('/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/__init__.py', 1, '<module>', 'from torch_npu import _C')],
                    ['ImportError: /usr/local/python3.10/lib/python3.10/site-packages/torch_npu/lib/libtorch_npu.so: undefined symbol: MsprofSysCycleTime'],
                    tag_idx={0: 'e1'})
        td.torchrun_fail(job, tt + 2, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('host_dirs', leaf='main')
    return R(job, lay, 'qwen2-7b-mindspeed-ascend', 'user', 'software_incompatibility', 'launching_failure', 'init', [],
             [], [],
             {'e1': 'undefined symbol: MsprofSysCycleTime'},
             'The image pairs torch_npu 2.7.1 with an older CANN toolkit that does not export MsprofSysCycleTime, so '
             'importing torch_npu fails everywhere.',
             'Use the CANN version that matches the torch_npu release (or the matching torch_npu post release) in the image.',
             'torch_npu/CANN mismatch', 'pod dirs with identical leaf names',
             source='triton-lang/triton-ascend#328, vllm-project/vllm-ascend#117')


def msrun_setup(job, t, cfg):
    h0 = job.hosts[0]
    sched = h0.fname + '/scheduler.log'
    p = job.pid(h0) + 3
    W = job.world
    job.E(t, -1, None, '[WARNING] DISTRIBUTED(%d,ffff8f5e0020,python):%s [mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d] '
          'Start] Meta server node is starting, listening on %s:%d' % (p, job.asc(t), 92, h0.ip, job.port), dest=sched)
    for i in range(W):
        h = job.hosts[i // job.gpn]
        job.E(t + 1 + i * 0.01, -1, None, '[WARNING] DISTRIBUTED(%d,ffff8f5e0020,python):%s [mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d] '
              'ReassignNodeRank] Assign rank id of node id: %d, role: MS_WORKER, with host ip: %s, old rank id: %d, new rank id: %d'
              % (p, job.asc(t + 1), 1101, i, h.ip, i, i), dest=sched)
    for h in job.hosts:
        job.E(t, h, None, 'Start scheduler process, log file:%s/scheduler.log' % '/job/output/msrun_log' if h.idx == 0 else
              '[WARNING] ME(%d:281473445,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:190] Start worker '
              'processes on node %s' % (job.pid(h), job.asc(t), h.ip))
        for l in range(job.gpn):
            g = job.g(h, l)
            job.E(t + 0.1 + l * 0.01, h, None, 'Start worker process with rank id:%d, log file:/job/output/msrun_log/worker_%d.log. '
                  'Environment variable [RANK_ID=%d] is exported.' % (g, g, g))
    return t + 2


def msrun_fail(job, t, h, bad_pid):
    p = job.pid(h)
    out = ['[ERROR] ME(%d:281473296949264,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:268] Worker process %d exit with exception.' % (p, job.asc(t), bad_pid),
           "[WARNING] ME(%d:281473296949264,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:318] There's worker exits with exception, kill all other workers." % (p, job.asc(t))]
    return job.block(t, h, None, out, dt=0.01)


@case
def c29_mindspore_oom(rng, idx):
    job = new_job(rng, idx, 'ascend', 2, 8, 'asc')
    cfg = dict(model='pangu_alpha_38b', gbs=128, train_iters=30000, logi=1, loss0=3.4)
    t = msrun_setup(job, 0.0, cfg)
    t = boot(job, 'mindformers', cfg, t=t, upto='model', launcher='none', smi=False)
    tt = t + 240
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 4)
            p = job.pid(h, l)
            job.E(x, h, l, '[ERROR] PRE_ACT(%d,fffbdf67f120,python):%s [mindspore/ccsrc/backend/common/mem_reuse/mem_dynamic_allocator.cc:392] '
                  'AddMemBlockAndMemBufByEagerFree] TotalUsedMemStatistics : %d plus TotalUsedByEventMemStatistics : 0 and plus alloc '
                  'size : %d is more than total mem size : 61079552000.' % (p, job.asc(x), 24725382656 + rng.randint(0, 99999999), 40554577920), 'e2')
            rank_tb(job, x + 0.1, h, l, [('/job/code/mindformers/run_mindformer.py', 268, '<module>', 'main(config_)'),
                                         ('/usr/local/python3.9/lib/python3.9/site-packages/mindspore/train/model.py', 1082, 'train', 'self._train(epoch,'),
                                         ('/usr/local/python3.9/lib/python3.9/site-packages/mindspore/nn/cell.py', 482, '_run_construct', 'output = self.construct(*cast_inputs, **kwargs)')],
                    ['RuntimeError: Malloc for kernel output failed, Memory isn\'t enough, node:Default/network-MFPipelineWithLossScaleCell/'
                     'network-_VirtualDatasetCell/_backbone-PanguAlphaWithLoss/network-PanguAlphaModel/Cast-op%d' % rng.randint(400, 900), '',
                     '----------------------------------------------------', '- C++ Call Stack: (For framework developers)',
                     '----------------------------------------------------',
                     'mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1012 Run'], tag_idx={0: 'e1'})
        msrun_fail(job, tt + 8, h, job.pid(h, rng.randint(0, 7)))
    lay = Layout('grank_files', rprefix='worker_', launcher='msrun_console')
    return R(job, lay, 'pangu-38b-mindformers-ascend', 'user', 'configuration', 'training_crash', 'training', [1],
             [], [],
             {'e1': "Malloc for kernel output failed, Memory isn't enough", 'e2': 'is more than total mem size'},
             'The parallel strategy (too little model parallelism for 38B with this micro batch) needs more device '
             'memory than available, so graph execution failed to allocate kernel outputs on every worker.',
             'Increase model/pipeline parallelism or enable recompute, or reduce micro batch / sequence length.',
             'MindSpore device OOM', 'msrun layout: worker_N files, scheduler and launcher consoles',
             source='mindspore-lab/mindone#465, mindspore-lab/mindone#820')


@case
def c30_msrun_host_crash(rng, idx):
    job = new_job(rng, idx, 'ascend', 4, 8, 'asc')
    cfg = dict(model='pangu_alpha_38b', gbs=256, train_iters=30000, logi=1, loss0=3.4)
    it0 = 0
    itf = rng.randint(1100, 1700)
    f = job.hosts[rng.randint(1, 3)]
    cfg['loggers'] = [(h, l) for h in job.hosts for l in (0,)]
    t = msrun_setup(job, 0.0, cfg)
    t = boot(job, 'mindformers', cfg, t=t, it0=it0, it_fail=itf, step=4.4, launcher='none', smi=False)
    h0 = job.hosts[0]
    sched = h0.fname + '/scheduler.log'
    p = job.pid(h0) + 3
    tt = t + 30 + rng.uniform(0, 10)
    ids = [job.g(f, l) for l in range(8)]
    for n, i in enumerate(ids):
        job.E(tt + n * 0.001, -1, None, '[ERROR] DISTRIBUTED(%d,ffff8f5e0020,python):%s [mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d] '
              "UpdateTopoState] The node: %d is timed out. It may exit with exception, please check this node's log." % (p, job.asc(tt), 741, i), 'e1', dest=sched)
    job.E(tt + 0.02, -1, None, '[EXCEPTION] DISTRIBUTED(%d,ffff8f5e0020,python):%s [mindspore/ccsrc/distributed/cluster/topology/meta_server_node.cc:%d] '
          'UpdateTopoState] The total number of timed out node is 8. Timed out node list is: [%s], worker %d is the first one timed out, please check its log.'
          % (p, job.asc(tt), 747, ', '.join(str(i) for i in ids), ids[0]), 'e2', dest=sched)
    for h in job.hosts:
        if h is f:
            continue
        x = tt + rng.uniform(1, 5)
        msrun_fail(job, x, h, job.pid(h, 0))
        job.E(x + 2, h, None, '[ERROR] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:331] Scheduler process %d exit with exception.' % (job.pid(h), job.asc(x + 2), p) if h is h0 else
              '[WARNING] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:334] Analyzing exception log...' % (job.pid(h), job.asc(x + 2)))
        if h is h0:
            job.E(x + 3, h, None, '[WARNING] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:334] Analyzing exception log...' % (job.pid(h), job.asc(x + 3)))
            job.E(x + 4, h, None, "[ERROR] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:431] Time out nodes are ['%s']"
                  % (job.pid(h), job.asc(x + 4), "', '".join(str(i) for i in ids)), 'e3')
        for l in range(8):
            y = x + rng.uniform(0.1, 1)
            job.E(y, h, l, 'RuntimeError: The total number of timed out node is 8. Timed out node list is: [%s], worker %d is the first one timed out, please check its log.'
                  % (', '.join(str(i) for i in ids), ids[0]), 'e2')
    lay = Layout('grank_files', rprefix='worker_', launcher='msrun_console')
    return R(job, lay, 'pangu-38b-mindformers-ascend', 'hardware', 'node', 'training_crash', 'training', [itf],
             [(f.idx, l) for l in range(8)], [f.ip],
             {'e1': 'is timed out. It may exit with exception', 'e2': 'The total number of timed out node is',
              'e3': 'Time out nodes are'},
             'Host %s (workers %d-%d) went down: all eight of its workers stopped heartbeating at the same moment and '
             'their logs end without an error.' % (f.ip, ids[0], ids[-1]),
             'Check the server %s (BMC, power, kernel panic), replace or isolate it, and restart from the last checkpoint.' % f.ip,
             'whole host lost under msrun', 'eight silent worker files; only the scheduler names them by id',
             source='mindspore meta_server_node.cc (code search), candle-org/MindAct#1983')


@case
def c31_hccp_busy(rng, idx):
    job = new_job(rng, idx, 'ascend', 8, 8, 'asc')
    cfg = meg_cfg('llama2-70b', '/mnt/sfs/ckpt/llama70b', logi=1, savei=500)
    f = job.hosts[pick_mid(rng, 8)]
    t = boot(job, 'mindspeed', cfg, upto='env')
    job.block(t - 0.5, f, None, ['+ npu-smi info | grep -i python',
                                 '| 0       0                 | %d        | python3          | 61034                   |' % rng.randint(100000, 999999),
                                 '| 4       0                 | %d        | python3          | 61034                   |' % rng.randint(100000, 999999)])
    t = boot(job, 'mindspeed', cfg, t=t, upto='comm', host_filter=lambda h: False)
    tt = t + 2
    for l in range(8):
        x = tt + rng.uniform(0, 1)
        g = job.g(f, l)
        rank_tb(job, x, f, l, [('/home/ma-user/MindSpeed-LLM/pretrain_gpt.py', 256, '<module>', 'main()'),
                               ('/usr/local/python3.10/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py', 3439, 'barrier', 'work = default_pg.barrier(opts=opts)')],
                ['RuntimeError: [ERROR] HCCL error in: torch_npu/csrc/distributed/ProcessGroupHCCL.cpp:64',
                 '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed.' % (job.asc_s(x), job.pid(f, l), l, g),
                 'EJ0001: %s Failed to initialize the HCCP process. Reason: Maybe the last training process is running.' % job.asc(x),
                 '        Solution: Wait for 10s after killing the last training process and try again.',
                 '        TraceBack (most recent call last):',
                 '        tsd client wait response fail, device response code[1]. unknown device error.[FUNC:WaitRsp][FILE:process_mode_manager.cpp][LINE:290]'],
                tag_idx={2: 'e1'})
    td.torchrun_fail(job, tt + 3, f, 0, exitcode=1)
    for h in job.hosts:
        if h is f:
            continue
        for l in range(8):
            td.ei0006(job, tt + 120 + rng.uniform(0, 5), h, l)
        td.torchrun_fail(job, tt + 130, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('per_host')
    return R(job, lay, 'llama2-70b-mindspeed-ascend', 'user', 'misoperation', 'launching_failure', 'init', [],
             [(f.idx, 0)], [f.name],
             {'e1': 'Failed to initialize the HCCP process'},
             'A previous training process was still holding the NPUs on %s, so HCCP could not start there and the other '
             'nodes timed out waiting for it.' % f.name,
             'Kill the leftover python3 processes on %s (npu-smi info shows them), wait ~10 s and relaunch.' % f.name,
             'leftover process blocks HCCP', 'culprit has 8 short tracebacks vs 56 ranks of EI0006 noise',
             accept=['user/misoperation', 'platform/resource_management'], source='hiyouga/LlamaFactory#3839')


@case
def c32_k8s_eviction(rng, idx):
    job = new_job(rng, idx, 'ascend', 8, 8, 'podw', jobname='llama70b-mindspeed-%05d' % rng.randint(0, 99999))
    cfg = meg_cfg('llama2-70b', '/mnt/pvc/ckpt/llama70b', logi=1, savei=500)
    it0 = 1000
    itf = it0 + rng.randint(600, 1000)
    t0 = 0.0
    ev = 'events.log'
    job.E(-5, -1, None, 'LAST SEEN   TYPE      REASON       OBJECT                                   MESSAGE', dest=ev)
    for h in job.hosts:
        job.E(-4 + h.idx * 0.01, -1, None, '%s   Normal    Scheduled    pod/%s   Successfully assigned default/%s to worker-node-%02d'
              % (job.k8s(-4), h.name, h.name, h.idx + 3), dest=ev)
        job.E(-3 + h.idx * 0.01, -1, None, '%s   Normal    Pulled       pod/%s   Container image "swr.cn-southwest-2.myhuaweicloud.com/ascend/mindspeed:2.0.0-910b" already present on machine'
              % (job.k8s(-3), h.name), dest=ev)
        job.E(-2 + h.idx * 0.01, -1, None, '%s   Normal    Started      pod/%s   Started container pytorch' % (job.k8s(-2), h.name), dest=ev)
    t = boot(job, 'mindspeed', cfg, t=t0, it0=it0, it_fail=itf, step=7.0)
    f = job.hosts[pick_mid(rng, 8)]
    tt = t + rng.uniform(0.5, 3)
    job.E(tt, -1, None, '%s   Warning   Evicted      pod/%s   The node was low on resource: ephemeral-storage. Threshold quantity: '
          '21474836480, available: %dKi. Container pytorch was using %dKi, request is 0, has larger consumption of ephemeral-storage.'
          % (job.k8s(tt), f.name, rng.randint(18000000, 20900000), rng.randint(150000000, 190000000)), 'e1', dest=ev)
    job.E(tt + 0.1, -1, None, '%s   Normal    Killing      pod/%s   Stopping container pytorch' % (job.k8s(tt), f.name), dest=ev)
    sigterm_agents(job, tt + 0.3, [f])
    t2 = tt + 1800 + rng.uniform(0, 5)
    for h in job.hosts:
        if h is f:
            continue
        for l in range(8):
            td.hccl_hang_ei0002(job, t2 + rng.uniform(0, 3), h, l, 'unknown')
        td.torchrun_fail(job, t2 + 10, h, rng.randint(0, 7), exitcode=1)
    job.E(t2 + 20, -1, None, '%s   Warning   JobFailed    pytorchjob/%s   PyTorchJob %s is failed because 1 Worker replica(s) failed.'
          % (job.k8s(t2 + 20), f.name.rsplit('-worker-', 1)[0], f.name.rsplit('-worker-', 1)[0]), dest=ev)
    lay = Layout('per_host')
    return R(job, lay, 'llama2-70b-mindspeed-ascend', 'platform', 'resource_management', 'training_crash', 'training', [itf],
             [(f.idx, 0)], [f.name],
             {'e1': 'The node was low on resource: ephemeral-storage'},
             'Kubelet evicted pod %s because the node ran low on ephemeral storage (the container wrote ~170 GB to its '
             'writable layer), which killed one worker and hung the rest.' % f.name,
             'Move large local writes (dumps, caches) to a PVC/emptyDir with a size limit, set ephemeral-storage requests, and relaunch.',
             'pod eviction on disk pressure', 'the reason is only in events.log; the pod log shows a plain SIGTERM',
             source='kubernetes/kubernetes#91600, cloud-ark/kubeplus#1382')


@case
def c33_aicore_op_bug(rng, idx):
    job = new_job(rng, idx, 'ascend', 4, 8, 'asc')
    cfg = meg_cfg('qwen2-7b', '/data/ckpt/qwen2-7b-cpt', logi=1, savei=500)
    t = boot(job, 'mindspeed', cfg, it0=0, it_fail=1, step=3.2)
    tt = t + 15
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 2)
            g = job.g(h, l)
            sn = rng.randint(100, 900)
            rank_tb(job, x, h, l, td.MEG_TRAIN_FRAMES + [('/home/ma-user/MindSpeed/mindspeed/ops/npu_rotary_position_embedding.py', 31, 'npu_rotary_position_embedding', 'return torch_npu.npu_rotary_mul(x, cos, sin)')],
                    ['RuntimeError: operator():build/CMakeFiles/torch_npu.dir/compiler_depend.ts:47 NPU function error: '
                     'c10_npu::acl::AclrtSynchronizeStreamWithTimeout(copy_stream), error code is 507015',
                     '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR00100 PTA call acl api failed' % (job.asc_s(x), job.pid(h, l), l, g),
                     '[Error]: The aicore execution is abnormal. ',
                     '        Rectify the fault based on the error information in the ascend log.',
                     'EZ9999: Inner Error!',
                     'EZ9999[PID: %d] %s (EZ9999):  The error from device(chipId:%d, dieId:0), serial number is %d, there is an exception of '
                     'fftsplus aivector error, core id is %d, error code = 0x800000, dump info: pc start: 0x124837587968, current: '
                     '0x124837588284, vec error info: 0x680000016f, mte error info: 0x200600006b, ifu error info: 0x2000111ee30c0, ccu '
                     'error info: 0x8a6d50d07a800075, cube error info: 0, biu error info: 0, aic error mask: 0x6500020bd000288, para '
                     'base: 0x124100433000.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1434]'
                     % (job.pid(h, l), job.asc(x), l, sn, rng.randint(0, 47)),
                     '        The extend info: errcode:(0x800000, 0, 0) errorStr: The DDR address of the MTE instruction is out of '
                     'range. fixp_error0 info: 0x600006b, fixp_error1 info: 0x20, fsmId:0, tslot:4, thread:0, ctxid:0, blk:33, '
                     'sublk:0, subErrType:4.[FUNC:ProcessStarsCoreErrorInfo][FILE:device_error_proc.cc][LINE:1446]'],
                    tag_idx={0: 'e1', 2: 'e2', 6: 'e3'})
        td.torchrun_fail(job, tt + 5, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('per_host', prefix='default')
    return R(job, lay, 'qwen2-7b-mindspeed-ascend', 'framework', 'framework_bug', 'training_crash', 'training', [1],
             [], [],
             {'e1': 'error code is 507015', 'e2': 'The aicore execution is abnormal.',
              'e3': 'The DDR address of the MTE instruction is out of range.'},
             'The fused rotary-embedding operator shipped with the upgraded MindSpeed/torch_npu reads out of range on '
             'the device (aivector MTE address error) for this shape, crashing every rank at the first step.',
             'Disable the fused rotary op (fall back to the eager implementation) or roll back to the previous '
             'MindSpeed/torch_npu pair, and report the operator bug.',
             'Ascend operator bug (aicore exception)', 'looks like hardware (aicore exception) but hits all ranks',
             accept=['framework/framework_bug', 'user/software_incompatibility'],
             source='tile-ai/tilelang-ascend#159, bitsandbytes-foundation/bitsandbytes#1695')


@case
def c34_data_path_missing(rng, idx):
    job = new_job(rng, idx, 'ascend', 4, 8, 'devnpu')
    cfg = meg_cfg('llama2-70b', '/home/ma-user/work/ckpt/llama2-70b', logi=1, savei=500)
    jid = rng.randint(10000, 99999)
    t = boot(job, 'mindspeed', cfg, upto='model', it0=0)
    tt = t + 3
    rank_tb(job, tt, 0, 0, [('/home/ma-user/MindSpeed-LLM/pretrain_gpt.py', 256, '<module>', 'main()'),
                            ('/home/ma-user/Megatron-LM/megatron/training/training.py', 330, 'pretrain', '= build_train_valid_test_data_iterators('),
                            ('/home/ma-user/Megatron-LM/megatron/core/datasets/indexed_dataset.py', 392, '__init__', 'self.initialize(path_prefix, multimodal, mmap)'),
                            ('/home/ma-user/Megatron-LM/megatron/core/datasets/indexed_dataset.py', 412, 'initialize', 'self.index = _IndexReader(get_idx_path(self.path_prefix), self.multimodal)'),
                            ('/home/ma-user/Megatron-LM/megatron/core/datasets/indexed_dataset.py', 245, '__init__', 'with open(idx_path, "rb") as stream:')],
            ["FileNotFoundError: [Errno 2] No such file or directory: '/data/corpus/merged_text_document.idx'"], tag_idx={0: 'e1'})
    td.torchrun_fail(job, tt + 2, job.hosts[0], 0, exitcode=1)
    t2 = tt + 1800 + rng.uniform(0, 3)
    for h in job.hosts[1:]:
        for l in range(8):
            td.hccl_hang_ei0002(job, t2 + rng.uniform(0, 2), h, l, 'unknown')
        td.torchrun_fail(job, t2 + 10, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('console', path='mindspeed_%d.log' % jid, prefix='rank')
    return R(job, lay, 'llama2-70b-mindspeed-ascend', 'user', 'configuration', 'launching_failure', 'data_loading', [],
             [], [],
             {'e1': 'FileNotFoundError: [Errno 2] No such file or directory'},
             'The --data-path prefix points to /data/corpus/merged_text_document, but the preprocessed .idx/.bin files were not '
             'present there, so dataset building failed on rank 0 and the other ranks hung in a barrier.',
             'Point --data-path at the preprocessed prefix (without extension) that exists on every node, or mount the dataset volume.',
             'missing dataset files', 'root error on rank0 only; 24 ranks later log scary HCCL EI0002 timeouts')


@case
def c35_sdma_error(rng, idx):
    job = new_job(rng, idx, 'ascend', 16, 8, 'nodex')
    cfg = meg_cfg('llama2-70b', '/cache/ckpt/llama2-70b-sft', logi=1, savei=500)
    it0 = 500
    itf = it0 + rng.randint(800, 1300)
    t = boot(job, 'mindspeed', cfg, it0=it0, it_fail=itf, step=7.0)
    f = job.hosts[pick_mid(rng, 16)]
    k = rng.randint(0, 7)
    tt = t + 1
    out = ['[W compiler_depend.ts:409] Warning: NPU warning, error code is 507013[Error]: ',
           '[Error]: System Direct Memory Access (DMA) hardware execution error. ',
           '        Rectify the fault based on the error information in the ascend log.',
           'EH9999: Inner Error!',
           '        rtDeviceSynchronize execute failed, reason=[sdma copy error][FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]',
           'EH9999: %s  wait for compute device to finish failed, runtime result = 507013.[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:161]' % job.asc(tt),
           '        TraceBack (most recent call last):',
           ' (function npuSynchronizeUsedDevices)']
    for rep in range(2):
        x = tt + rep * 0.5
        job.E(x, f, k, out[0], 'e1')
        job.E(x + 0.0001, f, k, out[1], 'e2')
        job.block(x + 0.0002, f, k, out[2:4])
        job.E(x + 0.001, f, k, out[4], 'e3')
        job.block(x + 0.0011, f, k, out[5:])
    rank_tb(job, tt + 2, f, k, td.MEG_TRAIN_FRAMES, ['RuntimeError: npuSynchronizeDevice:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:467 NPU function error: AclrtSynchronizeDeviceWithTimeout, error code is 507013'],
            tag_idx={0: 'e4'})
    td.torchrun_fail(job, tt + 4, f, k, exitcode=1)
    t2 = tt + 1800 + rng.uniform(0, 3)
    for h in job.hosts:
        if h is f:
            continue
        for l in range(8):
            td.hccl_hang_ei0002(job, t2 + rng.uniform(0, 2), h, l, 'unknown')
        td.torchrun_fail(job, t2 + 10, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('per_host', prefix='default', gz=True)
    return R(job, lay, 'llama2-70b-mindspeed-ascend', 'hardware', 'accelerator', 'training_crash', 'training', [itf],
             [(f.idx, k)], [f.name],
             {'e1': 'NPU warning, error code is 507013', 'e2': 'System Direct Memory Access (DMA) hardware execution error.',
              'e3': 'reason=[sdma copy error]', 'e4': 'AclrtSynchronizeDeviceWithTimeout, error code is 507013'},
             'The SDMA engine of NPU %d on %s failed (507013 sdma copy error), killing that rank; the remaining 127 ranks '
             'later hit the HCCL execution timeout.' % (k, f.name),
             'Isolate %s, run the NPU hardware diagnostics for device %d and replace it if the SDMA fault reproduces.' % (f.name, k),
             'NPU SDMA hardware error', '127 ranks log EI0002 minutes later', source='Ascend/pytorch#49, vllm-project/vllm-ascend#1993')


@case
def c36_ascend_storage_ckpt(rng, idx):
    job = new_job(rng, idx, 'ascend', 4, 8, 'asc', fname='ip')
    cfg = meg_cfg('qwen2-7b', '/mnt/sfs_turbo/ckpt/qwen2-7b', logi=1, savei=2000)
    cfg['ckpt_fmt'] = 'torch'
    it0 = 2000
    itf = 4000
    t = boot(job, 'mindspeed', cfg, it0=it0, it_fail=itf, step=1.9)
    tt = t + 0.3
    job.E(tt, 0, 0, 'saving checkpoint at iteration %7d to %s in torch format' % (itf, cfg['ckpt']))
    writers = [(0, 0), (0, 1)]
    for (h, l) in writers:
        x = tt + rng.uniform(20, 50)
        rank_tb(job, x, h, l, [('/home/ma-user/Megatron-LM/megatron/training/checkpointing.py', 433, 'save_checkpoint', 'torch.save(state_dict, checkpoint_name)'),
                               ('/usr/local/python3.10/lib/python3.10/site-packages/torch/serialization.py', 651, 'save', 'with _open_zipfile_writer(f) as opened_zipfile:')],
                ["OSError: [Errno 5] Input/output error: '%s/iter_%07d/mp_rank_%02d/model_optim_rng.pt'" % (cfg['ckpt'], itf, l)],
                tag_idx={0: 'e1'})
        td.torchrun_fail(job, x + 2, h, l, exitcode=1) if l == 0 else None
    t2 = tt + 1800 + rng.uniform(0, 3)
    for h in job.hosts[1:]:
        for l in range(8):
            td.hccl_hang_ei0002(job, t2 + rng.uniform(0, 2), h, l, 'unknown')
        td.torchrun_fail(job, t2 + 10, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('per_host', ext='.txt')
    return R(job, lay, 'qwen2-7b-mindspeed-ascend', 'hardware', 'storage', 'training_crash', 'checkpoint', [itf],
             [], [],
             {'e1': 'OSError: [Errno 5] Input/output error'},
             'Writing the iteration-%d checkpoint to the shared SFS Turbo mount failed with EIO on the saving ranks.' % itf,
             'Check the SFS/NFS mount health and server side logs, then resume from the iteration-2000 checkpoint.',
             'shared storage EIO on Ascend', 'other nodes fail 30 min later with HCCL timeouts')


@case
def c37_npu_resource_busy(rng, idx):
    job = new_job(rng, idx, 'ascend', 4, 8, 'asc')
    cfg = meg_cfg('qwen2-7b', '/data/ckpt/qwen2-7b-it', logi=1, savei=500)
    f = job.hosts[rng.randint(1, 3)]
    t = boot(job, 'mindspeed', cfg, upto='env')
    tt = t + 2
    for l in range(8):
        x = tt + rng.uniform(0, 1)
        rank_tb(job, x, f, l, [('/home/ma-user/MindSpeed-LLM/pretrain_gpt.py', 256, '<module>', 'main()'),
                               ('/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/npu/utils.py', 58, 'set_device', 'torch_npu._C._npu_setDevice(device_id)')],
                ['RuntimeError: Initialize: error code is 507899',
                 '[ERROR] %s (PID:%d, Device:%d, RankID:-1) ERR00100 PTA call acl api failed' % (job.asc_s(x), job.pid(f, l), l),
                 '[Error]: An internal error occurs in the Driver module. ',
                 '        Rectify the fault based on the error information in the ascend log.',
                 'Resource_Busy(EL0005): The resources are busy.'], tag_idx={0: 'e1', 4: 'e2'})
    td.torchrun_fail(job, tt + 3, f, 0, exitcode=1)
    for h in job.hosts:
        if h is f:
            continue
        for l in range(8):
            td.ei0006(job, tt + 125 + rng.uniform(0, 5), h, l)
        td.torchrun_fail(job, tt + 140, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('per_host')
    return R(job, lay, 'qwen2-7b-mindspeed-ascend', 'platform', 'scheduling', 'launching_failure', 'init', [],
             [(f.idx, 0)], [f.name],
             {'e1': 'error code is 507899', 'e2': 'Resource_Busy(EL0005)'},
             'The scheduler placed this job on %s while another container still held its NPUs, so device '
             'initialisation returned resource-busy on all eight ranks there.' % f.name,
             'Fix the device-plugin/scheduler accounting for %s (find the container holding the NPUs), then relaunch.' % f.name,
             'NPUs held by another container', 'other hosts produce more error lines (EI0006)',
             accept=['platform/scheduling', 'platform/resource_management'])


@case
def c38_loss_nan(rng, idx):
    job = new_job(rng, idx, 'ascend', 2, 8, 'asc')
    cfg = dict(model='pangu_alpha_38b', gbs=64, train_iters=20000, logi=1, loss0=3.2)
    it_nan = rng.randint(700, 1100)
    it_end = it_nan + rng.randint(300, 500)
    cfg['loggers'] = [(job.hosts[0], 0), (job.hosts[1], 0)]
    t = msrun_setup(job, 0.0, cfg)
    t = boot(job, 'mindformers', cfg, t=t, it0=0, it_fail=it_nan, step=3.6, launcher='none', smi=False)
    it = it_nan
    while it < it_end:
        t += 3.6 * rng.uniform(0.98, 1.02)
        for (h, l) in cfg['loggers']:
            job.E(t + 0.001 * l, h, l, '[INFO] %s - mindformers[mindformers/core/callback/callback.py:334] - { Epoch:[  1/  1], '
                  'step:[%5d/%5d], loss: nan, per_step_time: %dms, lr: %.6e, overflow cond: False, loss_scale: 1.0, global_norm: [nan], '
                  'train_throughput_per_npu: %.1fT' % (job.isoms(t), it, cfg['train_iters'], rng.randint(3500, 3700), 3e-3, 158.0), 'e1')
        it += 1
    for h in job.hosts:
        job.E(t + 60, h, None, '[WARNING] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:216] '
              'msrun received signal SIGTERM, killing all worker processes.' % (job.pid(h), job.asc(t + 60)))
    lay = Layout('grank_files', rprefix='worker_', launcher='msrun_console')
    return R(job, lay, 'pangu-38b-mindformers-ascend', 'user', 'configuration', 'abnormal_behavior', 'training', [it_nan],
             [], [],
             {'e1': 'loss: nan'},
             'The learning rate was set to 3e-3 (10x the recipe), so training diverged and the loss became NaN on every '
             'rank while the job kept running until the user stopped it.',
             'Restart from the last good checkpoint with the recipe learning rate (3e-4) and warmup; add a NaN guard that stops the job.',
             'loss divergence to NaN', 'no exception; the failure is in iteration lines',
             accept=['user/configuration'])


@case
def c39_hccl_port_conflict(rng, idx):
    job = new_job(rng, idx, 'ascend', 2, 8, 'devnpu', fname='ip')
    cfg = meg_cfg('qwen2-7b', '/data/ckpt/qwen2-7b-dpo', logi=1, savei=500)
    f = job.hosts[1]
    t = boot(job, 'mindspeed', cfg, upto='comm', env_extra=[('ASCEND_SLOG_PRINT_TO_STDOUT', '1')])
    tt = t + 2
    for l in range(8):
        x = tt + rng.uniform(0, 1)
        p = job.pid(f, l)
        job.E(x, f, l, '[ERROR] HCCL(%d,python):%s [hccl_socket.cc:100] [%d][HcclSocket][Listen] socket type[1], listen on ip[%s] and '
              'specific port[%d] fail. Please check the port status and whether the port is been using by other process.'
              % (p, job.asc(x), p, f.ip, 16666 + l), 'e1')
        job.E(x + 0.001, f, l, '[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:54] [%d][ServerInit]call trace: hcclRet -> 19' % (p, job.asc(x), p))
        job.E(x + 0.002, f, l, '[ERROR] HCCL(%d,python):%s [hccl_communicator.cc:2307] [%d][InitNic]call trace: hcclRet -> 19' % (p, job.asc(x), p))
        rank_tb(job, x + 0.1, f, l, [('/home/ma-user/MindSpeed-LLM/pretrain_gpt.py', 256, '<module>', 'main()'),
                                     ('/usr/local/python3.10/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py', 3439, 'barrier', 'work = default_pg.barrier(opts=opts)')],
                ['RuntimeError: create_config:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:102 HCCL function error: '
                 'hcclCommInitRootInfoConfig(numRanks, &rootInfo, rank, config, &(comm->hcclComm_)), error code is 19'],
                tag_idx={0: 'e2'})
    td.torchrun_fail(job, tt + 3, f, 0, exitcode=1)
    h0 = job.hosts[0]
    for l in range(8):
        p = job.pid(h0, l)
        x = tt + 120 + rng.uniform(0, 1)
        job.E(x, h0, l, '[ERROR] HCCL(%d,python):%s [hccl_socket_manager.cc:778] [%d][Wait][LinkEstablish]wait socket establish timeout, '
              'role[1] rank[%d] timeout[120]' % (p, job.asc(x), p + 17, 8 + l))
        td.ei0006(job, x + 0.5, h0, l)
    td.torchrun_fail(job, tt + 130, h0, 0, exitcode=1)
    lay = Layout('per_host')
    return R(job, lay, 'qwen2-7b-mindspeed-ascend', 'platform', 'scheduling', 'launching_failure', 'init', [],
             [(1, 0)], [f.ip],
             {'e1': 'Please check the port status and whether the port is been using by other process.',
              'e2': 'hcclCommInitRootInfoConfig'},
             'Another job co-scheduled on %s already listened on the HCCL ports 16666+, so HCCL on that node could not '
             'bind its sockets and initialisation failed.' % f.ip,
             'Avoid co-scheduling two HCCL jobs on one node (exclusive node allocation) or give jobs distinct HCCL port ranges, then relaunch.',
             'HCCL port already in use', 'plog lines printed to stdout; the peer logs a link-timeout',
             accept=['platform/scheduling', 'user/misoperation'], source='vllm-project/vllm-ascend#1955')


@case
def c40_ascend_script_bug(rng, idx):
    job = new_job(rng, idx, 'ascend', 2, 8, 'pod', jobname='qwen2-7b-rm-%04d' % rng.randint(0, 9999))
    cfg = meg_cfg('qwen2-7b', '/ckpt/qwen2-7b-rm', logi=1, savei=500)
    t = boot(job, 'mindspeed', cfg, it0=0, it_fail=1, step=3.0)
    tt = t + 6
    for h in job.hosts:
        for l in range(8):
            x = tt + rng.uniform(0, 1)
            rank_tb(job, x, h, l, td.MEG_TRAIN_FRAMES + [('/home/ma-user/rm/reward_loss.py', 77, 'pairwise_loss', 'diff = chosen_rewards - rejected_rewards')],
                    ['RuntimeError: The size of tensor a (4096) must match the size of tensor b (8192) at non-singleton dimension 1'],
                    tag_idx={0: 'e1'})
        td.torchrun_fail(job, tt + 3, h, rng.randint(0, 7), exitcode=1)
    lay = Layout('host_dirs', leaf='main')
    return R(job, lay, 'qwen2-7b-mindspeed-ascend', 'user', 'script_bug', 'training_crash', 'training', [1],
             [], [],
             {'e1': 'The size of tensor a (4096) must match the size of tensor b (8192)'},
             'The custom reward-model loss subtracts rewards of the chosen and rejected halves without splitting the packed '
             'batch correctly, so tensor shapes do not match in the first step.',
             'Fix the chosen/rejected split in reward_loss.py (split along the batch dim before computing the difference).',
             'shape bug in custom loss', 'all ranks identical at step 1')
