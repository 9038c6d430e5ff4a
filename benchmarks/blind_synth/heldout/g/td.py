"""Failure and teardown snippets (watchdog cascades, launcher teardown,
Python tracebacks).  Message texts follow public logs (see sources.md)."""

TORCH_LIB = '/usr/local/lib/python3.10/dist-packages/torch/lib'


def addr(rng):
    return '0x7f%010x' % rng.randint(0x1000000000, 0xffffffffff)


def pytb(frames, exc):
    out = ['Traceback (most recent call last):']
    for (f, ln, fn, code) in frames:
        out.append('  File "%s", line %d, in %s' % (f, ln, fn))
        if code:
            out.append('    ' + code)
    if isinstance(exc, (list, tuple)):
        out.extend(exc)
    else:
        out.append(exc)
    return out


MEG_TRAIN_FRAMES = [
    ('/workspace/Megatron-LM/pretrain_gpt.py', 302, '<module>', 'pretrain('),
    ('/workspace/Megatron-LM/megatron/training/training.py', 380, 'pretrain', 'iteration, num_floating_point_operations_so_far = train('),
    ('/workspace/Megatron-LM/megatron/training/training.py', 1355, 'train', 'train_step(forward_step_func,'),
    ('/workspace/Megatron-LM/megatron/training/training.py', 741, 'train_step', 'losses_reduced = forward_backward_func('),
    ('/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py', 1388, 'forward_backward_pipelining_without_interleaving', 'output_tensor, num_tokens = forward_step('),
]


def watchdog(job, t, h, l, seq, op='ALLREDUCE', numel=None, timeout=600000, tag=None, newfmt=True, frames=True):
    h = job.hosts[h] if isinstance(h, int) else h
    rng = job.rng
    g = job.g(h, l)
    numel = numel or rng.choice([1, 2, 466119168, 70254592, 134217728])
    ran = timeout + rng.randint(5, 99)
    pre = lambda src: '[%s %s] ' % (job.glog(t), src)
    wl = ('[Rank %d] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=%d, OpType=%s, NumelIn=%d, '
          'NumelOut=%d, Timeout(ms)=%d) ran for %d milliseconds before timing out.' % (g, seq, op, numel, numel, timeout, ran))
    out = [pre('ProcessGroupNCCL.cpp:607') + wl,
           pre('ProcessGroupNCCL.cpp:1664') + '[PG 0 Rank %d] Exception (either an error or timeout) detected by '
           'watchdog at work: %d, last enqueued NCCL work: %d, last completed NCCL work: %d.' % (g, seq, seq + 2, seq - 1),
           pre('ProcessGroupNCCL.cpp:621') + '[Rank %d] Some NCCL operations have failed or timed out. Due to the '
           'asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.' % g,
           pre('ProcessGroupNCCL.cpp:627') + '[Rank %d] To avoid data inconsistency, we are taking the entire process down.' % g,
           pre('ProcessGroupNCCL.cpp:1515') + '[PG 0 Rank %d] Process group watchdog thread terminated with exception: %s' % (g, wl)]
    if frames:
        out += ['Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609 (most recent call first):',
                'frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (%s in %s/libc10.so)' % (addr(rng), TORCH_LIB),
                'frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (%s in %s/libtorch_cuda.so)' % (addr(rng), TORCH_LIB),
                'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (%s in %s/libtorch_cuda.so)' % (addr(rng), TORCH_LIB),
                'frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x10c (%s in %s/libtorch_cuda.so)' % (addr(rng), TORCH_LIB),
                'frame #4: <unknown function> + 0xdc253 (%s in /lib/x86_64-linux-gnu/libstdc++.so.6)' % addr(rng),
                'frame #5: <unknown function> + 0x94ac3 (%s in /lib/x86_64-linux-gnu/libc.so.6)' % addr(rng),
                'frame #6: <unknown function> + 0x126850 (%s in /lib/x86_64-linux-gnu/libc.so.6)' % addr(rng),
                '',
                "terminate called after throwing an instance of 'c10::DistBackendError'"]
    # tag only the first (Watchdog caught...) line when asked
    job.E(t, h, l, out[0], tag)
    return job.block(t + 0.0001, h, l, out[1:])


def torchrun_fail(job, t, h, failed, exitcode=-6, script='pretrain_gpt.py', sig='Signal 6 (SIGABRT)', others=True):
    """torchrun agent teardown on host h; failed = local rank that failed first."""
    h = job.hosts[h] if isinstance(h, int) else h
    rng = job.rng
    p0 = job.pid(h)
    out = []
    if others:
        for l in range(job.gpn):
            if l != failed:
                out.append('%s %d torch/distributed/elastic/multiprocessing/api.py:897] Sending process %d closing signal SIGTERM'
                           % (job.glog6(t, 'W'), p0, job.pid(h, l)))
    fp = job.pid(h, failed)
    out.append('%s %d torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: %d) local_rank: %d (pid: %d) of binary: /usr/bin/python'
               % (job.glog6(t + 2, 'E'), p0, exitcode, failed, fp))
    out += pytb([('/usr/local/bin/torchrun', 8, '<module>', 'sys.exit(main())'),
                 ('/usr/local/lib/python3.10/dist-packages/torch/distributed/elastic/multiprocessing/errors/__init__.py', 355, 'wrapper', 'return f(*args, **kwargs)'),
                 ('/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py', 919, 'main', 'run(args)'),
                 ('/usr/local/lib/python3.10/dist-packages/torch/distributed/run.py', 910, 'run', 'elastic_launch('),
                 ('/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py', 138, '__call__', 'return launch_agent(self._config, self._entrypoint, list(args))'),
                 ('/usr/local/lib/python3.10/dist-packages/torch/distributed/launcher/api.py', 269, 'launch_agent', 'raise ChildFailedError(')],
                'torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ')
    tb = ('%s received by PID %d' % (sig, fp)) if exitcode < 0 else 'To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html'
    out += ['=' * 60, '%s FAILED' % script, '-' * 60, 'Failures:', '  <NO_OTHER_FAILURES>', '-' * 60,
            'Root Cause (first observed failure):', '[0]:',
            '  time      : %s' % job.dt(t + 2).strftime('%Y-%m-%d_%H:%M:%S'),
            '  host      : %s' % h.name,
            '  rank      : %d (local_rank: %d)' % (job.g(h, failed), failed),
            '  exitcode  : %d (pid: %d)' % (exitcode, fp),
            '  error_file: <N/A>',
            '  traceback : %s' % tb,
            '=' * 60]
    return job.block(t, h, None, out, dt=0.001)


def hccl_hang_ei0002(job, t, h, l, remote, tag=None, group='hccl_world_group'):
    h = job.hosts[h] if isinstance(h, int) else h
    g = job.g(h, l)
    out = ['[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR02200 DIST call hccl api failed.' % (job.asc_s(t), job.pid(h, l), l, g),
           'EI0002: [PID: %d] %s The wait execution of the Notify register times out. Reason: The Notify register '
           'has not received the Notify record from remote rank: [%s]. base information: [streamID:[%d], '
           'taskID[%d], tag[AllReduce_%s], AlgType(level 0-1-2):[fullmesh-ring-NHR].]. task information: []. '
           'group information: [group:[%s], user define information[], rankSize[%d], rankId[%d].]'
           % (job.pid(h, l), job.asc(t), remote, job.rng.randint(2, 9), job.rng.randint(100000, 9000000), group, group, job.world, g),
           '        Possible Cause: 1. An exception occurs during the execution on some NPUs in the cluster. As a '
           'result, collective communication operation failed.2. The execution speed on some NPU in the cluster is '
           'too slow to complete a communication operation within the timeout interval. (default 1800s, You can set '
           'the interval by using HCCL_EXEC_TIMEOUT.)3. The number of training samples of each NPU is inconsistent.'
           '4. Packet loss or other connectivity problems occur on the communication link.',
           '        Solution: 1. If this error is reported on part of these ranks, check other ranks to see whether '
           'other errors have been reported earlier.2. If this error is reported for all ranks, check whether the '
           'error reporting time is consistent (the maximum difference must not exceed 1800s). If not, locate the '
           'cause or adjust the locate the cause or set the HCCL_EXEC_TIMEOUT environment variable to a larger value.',
           '        TraceBack (most recent call last):']
    job.E(t, h, l, out[0])
    job.E(t + 0.0001, h, l, out[1], tag)
    return job.block(t + 0.0002, h, l, out[2:])


def ei0006(job, t, h, l, tag=None):
    h = job.hosts[h] if isinstance(h, int) else h
    g = job.g(h, l)
    out = ['RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function error: '
           'HcclAllreduce, error code is 6',
           '[ERROR] %s (PID:%d, Device:%d, RankID:%d) ERR01100 OPS call acl api failed.' % (job.asc_s(t), job.pid(h, l), l, g),
           'EI0006: [PID: %d] %s Getting socket times out. Reason: Remote Rank did not send the data in time. '
           'Please check the reason for the rank being stuck' % (job.pid(h, l), job.asc(t)),
           '        Solution: 1. Check the rank service processes with other errors or no errors in the cluster.2. '
           'If this error is reported for all NPUs, check whether the time difference between the earliest and '
           'latest errors is greater than the connect timeout interval (120s by default). If so, adjust the timeout '
           'interval by using the HCCL_CONNECT_TIMEOUT environment variable.3. Check the connectivity of the '
           'communication link between nodes.',
           '        TraceBack (most recent call last):']
    job.E(t, h, l, out[0])
    job.E(t + 0.0001, h, l, out[1])
    job.E(t + 0.0002, h, l, out[2], tag)
    return job.block(t + 0.0003, h, l, out[3:])
