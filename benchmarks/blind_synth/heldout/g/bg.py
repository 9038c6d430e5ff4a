"""Healthy-background generators: environment dumps, launcher banners,
communicator init, framework setup, iteration lines, checkpoints and harmless
warnings, for CUDA (Megatron, DeepSpeed, FSDP, HF) and Ascend (MindSpeed /
torch_npu, MindSpore) jobs."""


def hexid(rng, n=12):
    return '0x' + ''.join(rng.choice('0123456789abcdef') for _ in range(n))


# ---------------------------------------------------------------------------
# environment / launcher
# ---------------------------------------------------------------------------
def env_dump(job, t, h, stack, extra=None, style='set-x'):
    rng = job.rng
    master = job.hosts[0]
    if stack == 'cuda':
        kv = [('CUDA_DEVICE_MAX_CONNECTIONS', '1'), ('NCCL_DEBUG', job.nccl_debug),
              ('NCCL_IB_HCA', 'mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7'),
              ('NCCL_SOCKET_IFNAME', job.ifname), ('NCCL_IB_GID_INDEX', '3'),
              ('NCCL_IB_TIMEOUT', '22'), ('TORCH_NCCL_ASYNC_ERROR_HANDLING', '1'),
              ('PYTORCH_CUDA_ALLOC_CONF', 'expandable_segments:True'),
              ('OMP_NUM_THREADS', '8'), ('MASTER_ADDR', master.name), ('MASTER_PORT', str(job.port)),
              ('NNODES', str(len(job.hosts))), ('NODE_RANK', str(h.idx)), ('GPUS_PER_NODE', str(job.gpn)),
              ('NODE_IP', h.ip)]
    else:
        kv = [('ASCEND_HOME_PATH', '/usr/local/Ascend/ascend-toolkit/latest'),
              ('ASCEND_RT_VISIBLE_DEVICES', ','.join(str(i) for i in range(job.gpn))),
              ('HCCL_CONNECT_TIMEOUT', '120'), ('HCCL_EXEC_TIMEOUT', '1800'),
              ('HCCL_IF_IP', h.ip), ('HCCL_SOCKET_IFNAME', job.ifname),
              ('ASCEND_GLOBAL_LOG_LEVEL', '3'), ('ASCEND_SLOG_PRINT_TO_STDOUT', '0'),
              ('TASK_QUEUE_ENABLE', '2'), ('CPU_AFFINITY_CONF', '1'),
              ('PYTORCH_NPU_ALLOC_CONF', 'expandable_segments:True'),
              ('MASTER_ADDR', master.ip), ('MASTER_PORT', str(job.port)),
              ('NNODES', str(len(job.hosts))), ('NODE_RANK', str(h.idx)), ('NPUS_PER_NODE', str(job.gpn))]
    if extra:
        kv += extra
    out = []
    if style == 'set-x':
        out.append('+ hostname')
        out.append(h.name)
        for k, v in kv:
            out.append('+ export %s=%s' % (k, v))
    else:
        out.append('==== job environment (%s) ====' % h.name)
        for k, v in sorted(kv):
            out.append('%s=%s' % (k, v))
        out.append('================================')
    return job.block(t, h, None, out, dt=0.001)


def torchrun_banner(job, t, h, nproc=None):
    p = job.pid(h)
    pre = '%s %d torch/distributed/run.py:793] ' % (job.glog6(t, 'W'), p)
    lines = [pre, pre + '*' * 41,
             pre + 'Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid your '
                   'system being overloaded, please further tune the variable for optimal performance in your '
                   'application as needed. ',
             pre + '*' * 41]
    return job.block(t, h, None, lines, dt=0.0005)


def nvidia_smi_summary(job, t, h, gpu='NVIDIA H100 80GB HBM3', drv='535.161.08', cuda='12.2'):
    rng = job.rng
    out = ['+ nvidia-smi --query-gpu=index,name,driver_version,memory.total,temperature.gpu --format=csv,noheader']
    for i in range(job.gpn):
        out.append('%d, %s, %s, 81559 MiB, %d' % (i, gpu, drv, rng.randint(29, 38)))
    return job.block(t, h, None, out, dt=0.001)


def npu_smi_summary(job, t, h, chip='910B3'):
    rng = job.rng
    out = ['+ npu-smi info -l | grep -E "NPU ID|Health"']
    for i in range(job.gpn):
        out.append('        NPU ID                         : %d' % i)
        out.append('        Health                         : OK')
    return job.block(t, h, None, out, dt=0.001)


# ---------------------------------------------------------------------------
# NCCL / HCCL init
# ---------------------------------------------------------------------------
def nccl_init(job, t, h, lines_per_rank=True):
    if job.nccl_debug != 'INFO':
        return t
    rng = job.rng
    W = job.world
    for l in range(job.gpn):
        p = job.pid(h, l)
        tid = p + rng.randint(40, 90)
        pre = '%s:%d:%d [%d] ' % (h.name, p, p, l)
        pre2 = '%s:%d:%d [%d] ' % (h.name, p, tid, l)
        g = job.g(h, l)
        out = [pre + 'NCCL INFO Bootstrap : Using %s:%s<0>' % (job.ifname, h.ip),
               pre + 'NCCL INFO NET/Plugin: No plugin found (libnccl-net.so)',
               pre + 'NCCL INFO NET/Plugin: Plugin load returned 2 : libnccl-net.so: cannot open shared object '
                     'file: No such file or directory : when loading libnccl-net.so',
               pre + 'NCCL INFO NET/Plugin: Using internal network plugin.',
               pre + 'NCCL INFO cudaDriverVersion 12020',
               pre + 'NCCL INFO NCCL_SOCKET_IFNAME set by environment to %s' % job.ifname]
        if g == 0:
            out.append('NCCL version 2.20.5+cuda12.4')
        out += [pre2 + 'NCCL INFO NCCL_IB_HCA set to mlx5_0,mlx5_1,mlx5_2,mlx5_3,mlx5_4,mlx5_5,mlx5_6,mlx5_7',
                pre2 + 'NCCL INFO NET/IB : Using [0]mlx5_0:1/RoCE [1]mlx5_1:1/RoCE [2]mlx5_2:1/RoCE [3]mlx5_3:1/RoCE '
                       '[4]mlx5_4:1/RoCE [5]mlx5_5:1/RoCE [6]mlx5_6:1/RoCE [7]mlx5_7:1/RoCE [RO]; OOB %s:%s<0>'
                       % (job.ifname, h.ip),
                pre2 + 'NCCL INFO Using non-device net plugin version 0',
                pre2 + 'NCCL INFO Using network IB',
                pre2 + 'NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init START'
                       % (hexid(rng), g, W, l, l, ['18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db'][l % 8], hexid(rng, 16)),
                pre2 + 'NCCL INFO Setting affinity for GPU %d to ffffffff,00000000,ffffffff' % l,
                pre2 + 'NCCL INFO NVLS multicast support is available on dev %d' % l,
                pre2 + 'NCCL INFO comm %s rank %d nRanks %d nNodes %d localRanks %d localRank %d MNNVL 0'
                       % (hexid(rng), g, W, len(job.hosts), job.gpn, l),
                pre2 + 'NCCL INFO Channel 00/0 : %d[%d] -> %d[%d] [send] via NET/IB/%d/GDRDMA'
                       % (g, l, (g + job.gpn) % W, l, l),
                pre2 + 'NCCL INFO Connected all rings',
                pre2 + 'NCCL INFO Connected all trees',
                pre2 + 'NCCL INFO threadThresholds 8/8/64 | 512/8/64 | 512 | 512',
                pre2 + 'NCCL INFO 24 coll channels, 24 collnet channels, 16 nvls channels, 32 p2p channels, '
                       '32 p2p channels per peer',
                pre2 + 'NCCL INFO comm %s rank %d nranks %d cudaDev %d nvmlDev %d busId %s000 commId %s - Init COMPLETE'
                       % (hexid(rng), g, W, l, l, ['18', '2a', '3a', '5d', '9a', 'ab', 'ba', 'db'][l % 8], hexid(rng, 16))]
        job.block(t + l * 0.013, h, l, out, dt=0.002)
    return t + 0.2


# ---------------------------------------------------------------------------
# harmless warnings (appear in normal jobs too)
# ---------------------------------------------------------------------------
CUDA_WARNINGS = [
    '/usr/local/lib/python3.10/dist-packages/torch/utils/checkpoint.py:1399: FutureWarning: `torch.cpu.amp.autocast(args...)` is deprecated. Please use `torch.amp.autocast(\'cpu\', args...)` instead.',
    '/usr/local/lib/python3.10/dist-packages/transformer_engine/pytorch/attention.py:4826: UserWarning: window_size should be (-1, -1) or (>=0, >=0) for attn_mask_type=causal',
    '[W ProcessGroupNCCL.cpp:1969] Warning: TORCH_NCCL_AVOID_RECORD_STREAMS=1 has no effect for point-to-point collectives. (function operator())',
    '/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py:3490: UserWarning: torch.distributed._all_gather_base is a private function and will be deprecated. Please use torch.distributed.all_gather_into_tensor instead.',
]
ASCEND_WARNINGS = [
    '/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/utils/path_manager.py:82: UserWarning: Warning: The /usr/local/Ascend/ascend-toolkit/latest owner does not match the current user.',
    '/usr/local/python3.10/lib/python3.10/site-packages/torch_npu/contrib/transfer_to_npu.py:301: ImportWarning: The torch.Tensor.cuda and torch.nn.Module.cuda are replaced with torch.Tensor.npu and torch.nn.Module.npu now..',
    '[W compiler_depend.ts:133] Warning: Warning: Device do not support double dtype now, dtype cast repalce with float. (function operator())',
    '/usr/local/python3.10/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py:3490: UserWarning: torch.distributed._reduce_scatter_base is a private function and will be deprecated. Please use torch.distributed.reduce_scatter_tensor instead.',
]


def warnings(job, t, h, l, stack, k=2):
    rng = job.rng
    pool = CUDA_WARNINGS if stack == 'cuda' else ASCEND_WARNINGS
    picks = rng.sample(pool, k)
    for i, w in enumerate(picks):
        job.E(t + i * 0.003, h, l, w)
        if w.startswith('/'):
            job.E(t + i * 0.003 + 0.0005, h, l, '  warnings.warn(')
    return t + 0.02


# ---------------------------------------------------------------------------
# Megatron / MindSpeed
# ---------------------------------------------------------------------------
MEG_ARGS = [
    ('accumulate_allreduce_grads_in_fp32', 'False'), ('adam_beta1', '0.9'), ('adam_beta2', '0.95'),
    ('adam_eps', '1e-08'), ('apply_query_key_layer_scaling', 'False'), ('attention_dropout', '0.0'),
    ('bf16', 'True'), ('clip_grad', '1.0'), ('data_path', "['/data/corpus/merged_text_document']"),
    ('dataloader_type', 'single'), ('distributed_backend', '%BACKEND%'), ('eval_interval', '1000'),
    ('eval_iters', '10'), ('ffn_hidden_size', '%FFN%'), ('global_batch_size', '%GBS%'),
    ('hidden_dropout', '0.0'), ('hidden_size', '%HID%'), ('init_method_std', '0.02'),
    ('load', '%CKPT%'), ('log_interval', '%LOGI%'), ('lr', '0.00015'), ('lr_decay_style', 'cosine'),
    ('lr_warmup_iters', '2000'), ('max_position_embeddings', '%SEQ%'), ('micro_batch_size', '%MBS%'),
    ('min_lr', '1.5e-05'), ('normalization', 'RMSNorm'), ('num_attention_heads', '%HEADS%'),
    ('num_layers', '%LAYERS%'), ('num_query_groups', '8'), ('optimizer', 'adam'),
    ('overlap_grad_reduce', 'True'), ('overlap_param_gather', 'True'), ('pipeline_model_parallel_size', '%PP%'),
    ('position_embedding_type', 'rope'), ('save', '%CKPT%'), ('save_interval', '%SAVEI%'),
    ('seq_length', '%SEQ%'), ('sequence_parallel', 'True'), ('swiglu', 'True'),
    ('tensor_model_parallel_size', '%TP%'), ('tokenizer_type', 'Llama2Tokenizer'),
    ('train_iters', '%TRAINI%'), ('untie_embeddings_and_output_weights', 'True'),
    ('use_distributed_optimizer', 'True'), ('use_flash_attn', 'True'), ('use_mcore_models', 'True'),
    ('weight_decay', '0.1'), ('world_size', '%WORLD%'),
]


def megatron_setup(job, t, cfg, stack):
    """rank0 argument dump and model build; returns t."""
    h0 = job.hosts[0]
    rep = {'%BACKEND%': 'nccl' if stack == 'cuda' else 'hccl', '%FFN%': str(cfg['ffn']), '%GBS%': str(cfg['gbs']),
           '%HID%': str(cfg['hid']), '%CKPT%': cfg['ckpt'], '%LOGI%': str(cfg['logi']), '%SEQ%': str(cfg['seq']),
           '%MBS%': str(cfg['mbs']), '%HEADS%': str(cfg['heads']), '%LAYERS%': str(cfg['layers']),
           '%PP%': str(cfg['pp']), '%SAVEI%': str(cfg['savei']), '%TP%': str(cfg['tp']),
           '%TRAINI%': str(cfg['train_iters']), '%WORLD%': str(job.world)}
    out = ['using world size: %d, data-parallel size: %d, context-parallel size: 1, tensor-model-parallel size: %d, '
           'pipeline-model-parallel size: %d ' % (job.world, job.world // (cfg['tp'] * cfg['pp']), cfg['tp'], cfg['pp']),
           'using torch.bfloat16 for parameters ...',
           '------------------------ arguments ------------------------']
    for k, v in MEG_ARGS:
        v = rep.get(v, v)
        out.append('  %s %s %s' % (k, '.' * max(3, 47 - len(k)), v))
    out += ['-------------------- end of arguments ---------------------',
            'setting number of micro-batches to constant %d' % (cfg['gbs'] // (cfg['mbs'] * max(1, job.world // (cfg['tp'] * cfg['pp'])))),
            '> building %s tokenizer ...' % 'Llama2Tokenizer',
            ' > padded vocab (size: 32000) with 0 dummy tokens (new size: 32000)',
            '> initializing torch distributed ...',
            '> initialized tensor model parallel with size %d' % cfg['tp'],
            '> initialized pipeline model parallel with size %d' % cfg['pp'],
            '> setting random seeds to 1234 ...',
            '> compiling dataset index builder ...',
            "make: Entering directory '/workspace/Megatron-LM/megatron/core/datasets'",
            "make: Nothing to be done for 'default'.",
            "make: Leaving directory '/workspace/Megatron-LM/megatron/core/datasets'",
            '>>> done with dataset index builder. Compilation time: 0.061 seconds',
            '> compiling and loading fused kernels ...',
            '>>> done with compiling and loading fused kernels. Compilation time: 1.874 seconds']
    return job.block(t, h0, 0, out, dt=0.002)


def megatron_model(job, t, cfg, stack, it0):
    h0 = job.hosts[0]
    rng = job.rng
    out = ['time to initialize megatron (seconds): %.3f' % rng.uniform(20, 60),
           '[after megatron is initialized] datetime: %s ' % job.iso(t),
           'building GPT model ...']
    t = job.block(t, h0, 0, out, dt=0.01)
    # parameter counts per (tp, pp) on dp-rank 0
    for p in range(cfg['pp']):
        for r in range(cfg['tp']):
            g = p * (job.world // cfg['pp']) + r
            hh = g // job.gpn
            ll = g % job.gpn
            if hh < len(job.hosts):
                job.E(t + 0.05 + r * 0.001, hh, ll,
                      ' > number of parameters on (tensor, pipeline) model parallel rank (%d, %d): %d'
                      % (r, p, cfg['params'] + rng.randint(-99999, 99999)))
    t += 0.5
    if cfg.get('load_fail'):
        return job.block(t, h0, 0, [' loading checkpoint from %s at iteration %d' % (cfg['ckpt'], it0)], dt=0.01) + 1
    if it0 > 0:
        out = [' loading checkpoint from %s at iteration %d' % (cfg['ckpt'], it0),
               ' checkpoint version 3.0',
               '  successfully loaded checkpoint from %s [ t %d/%d, p %d/%d ] at iteration %d'
               % (cfg['ckpt'], 1, cfg['tp'], 1, cfg['pp'], it0)]
    else:
        out = ['WARNING: could not find the metadata file %s/latest_checkpointed_iteration.txt ' % cfg['ckpt'],
               '    will not load any checkpoints and will start from random']
    out += ['(min, max) time across ranks (ms):',
            '    load-checkpoint ................................: (%.2f, %.2f)' % (rng.uniform(1000, 5000), rng.uniform(5000, 9000)),
            '[after model, optimizer, and learning rate scheduler are built] datetime: %s ' % job.iso(t + 30),
            '> building train, validation, and test datasets ...',
            ' > datasets target sizes (minimum size):',
            '    train:      %d' % (cfg['train_iters'] * cfg['gbs']),
            '    validation: %d' % (cfg['gbs'] * 10 * 50),
            '    test:       %d' % (cfg['gbs'] * 10),
            '> building train, validation, and test datasets for GPT ...',
            '> finished creating GPT datasets ...',
            '[after dataloaders are built] datetime: %s ' % job.iso(t + 60),
            'done with setup ...',
            '(min, max) time across ranks (ms):',
            '    model-and-optimizer-setup ......................: (%.2f, %.2f)' % (rng.uniform(9000, 20000), rng.uniform(20000, 30000)),
            '    train/valid/test-data-iterators-setup ..........: (%.2f, %.2f)' % (rng.uniform(500, 2000), rng.uniform(2000, 4000)),
            'training ...',
            '[before the start of training step] datetime: %s ' % job.iso(t + 61)]
    return job.block(t + 30, h0, 0, out, dt=1.0) + 2


def lr_at(it, cfg, peak=1.5e-4, warm=2000):
    import math
    if it < warm:
        return peak * it / float(warm)
    frac = min(1.0, (it - warm) / float(max(1, cfg['train_iters'] - warm)))
    return 1.5e-5 + (peak - 1.5e-5) * 0.5 * (1 + math.cos(math.pi * frac))


def megatron_iter_line(job, t, it, cfg, ms, loss, gn, nan_iters=0, skipped=0, extra=''):
    return (' [%s] iteration %8d/%8d | consumed samples: %12d | elapsed time per iteration (ms): %.1f | '
            'learning rate: %.6E | global batch size: %5d | lm loss: %s | loss scale: 1.0 | grad norm: %s | '
            'number of skipped iterations: %3d | number of nan iterations: %3d |%s'
            % (job.iso(t), it, cfg['train_iters'], it * cfg['gbs'], ms, lr_at(it, cfg),
               cfg['gbs'], loss, gn, skipped, nan_iters, extra))


def megatron_train(job, t, cfg, stack, it0, it_end, step_s, on_iter=None, log_host=None):
    """Emit iteration lines from it0+1 .. it_end-1 (it_end is the failing/hanging
    iteration, not logged).  Returns t at which iteration it_end starts."""
    rng = job.rng
    lh = job.hosts[-1] if log_host is None else log_host
    ll = job.gpn - 1
    loss = cfg.get('loss0', 2.6)
    it = it0 + 1
    # alarming-looking but harmless: an IB GID-table-change async event on one host
    gid_at = None
    if stack == 'cuda' and rng.random() < 0.6 and it_end - it0 > 50:
        gid_at = rng.randint(it0 + 10, it_end - 20)
        gh = rng.choice(job.hosts)
        gl = rng.randint(0, job.gpn - 1)
    while it < it_end:
        ms = step_s * 1000 * rng.uniform(0.985, 1.02)
        if on_iter is not None:
            r = on_iter(it, t)
            if r:
                ms *= r
        t += ms / 1000.0
        loss = max(1.2, loss - rng.uniform(0.0, 0.0009) + rng.uniform(-0.01, 0.01) * 0.3)
        if gid_at is not None and it == gid_at:
            p = job.pid(gh, gl)
            job.E(t - 0.3, gh, gl, '%s:%d:%d [%d] NCCL WARN NET/IB : Got async event : GID table change' % (gh.name, p, p + 58, gl))
        if (it % cfg['logi']) == 0:
            job.E(t, lh, ll, megatron_iter_line(job, t, it, cfg, ms, '%.6E' % loss, '%.3f' % rng.uniform(0.15, 0.4)))
        if it == it0 + 1:
            for hh in job.hosts:
                for l2 in range(job.gpn):
                    if rng.random() < 0.25:
                        warnings(job, t - 0.5, hh, l2, stack, k=1)
        if it % cfg['savei'] == 0:
            t = megatron_save(job, t, cfg, it)
        it += 1
    return t


def megatron_save(job, t, cfg, it, fmt=None):
    fmt = fmt or cfg.get('ckpt_fmt', 'torch_dist')
    h0 = job.hosts[0]
    job.E(t + 0.01, h0, 0, 'saving checkpoint at iteration %7d to %s in %s format' % (it, cfg['ckpt'], fmt))
    dur = job.rng.uniform(20, 60)
    job.E(t + dur, h0, 0, '  successfully saved checkpoint from iteration %7d to %s [ t %d/%d, p %d/%d ]'
          % (it, cfg['ckpt'], 1, cfg['tp'], 1, cfg['pp']))
    job.E(t + dur + 0.01, h0, 0, '(min, max) time across ranks (ms):')
    job.E(t + dur + 0.02, h0, 0, '    save-checkpoint ................................: (%.2f, %.2f)'
          % (dur * 1000 - 900, dur * 1000))
    return t + dur + 0.1


def megatron_done(job, t, cfg, it):
    h0 = job.hosts[0]
    out = ['[after training is done] datetime: %s ' % job.iso(t),
           'saving checkpoint at iteration %7d to %s in torch_dist format' % (it, cfg['ckpt']),
           '  successfully saved checkpoint from iteration %7d to %s [ t %d/%d, p %d/%d ]'
           % (it, cfg['ckpt'], 1, cfg['tp'], 1, cfg['pp'])]
    return job.block(t, h0, 0, out, dt=5)


# ---------------------------------------------------------------------------
# DeepSpeed / HF / FSDP
# ---------------------------------------------------------------------------
def ds_prefix(job, t, lvl='INFO', src='logging.py:96:log_dist'):
    return '[%s] [%s] [%s]' % (job.isoms(t), lvl, src)


def deepspeed_setup(job, t, cfg):
    h0 = job.hosts[0]
    out = [ds_prefix(job, t, src='comm.py:637:init_distributed') + ' cdb=None',
           ds_prefix(job, t, src='comm.py:668:init_distributed') + ' Initializing TorchBackend in DeepSpeed with backend nccl',
           ds_prefix(job, t) + ' [Rank 0] DeepSpeed info: version=0.14.4, git-hash=unknown, git-branch=unknown',
           ds_prefix(job, t, src='engine.py:1470:_configure_optimizer') + ' Using DeepSpeed Optimizer param name adamw as basic optimizer',
           ds_prefix(job, t, src='stage3.py:130:__init__') + ' Reduce bucket size 500,000,000',
           ds_prefix(job, t, src='stage3.py:131:__init__') + ' Prefetch bucket size 50,000,000',
           ds_prefix(job, t, src='config.py:997:print') + ' DeepSpeedEngine configuration:',
           ds_prefix(job, t, src='config.py:1001:print') + '   activation_checkpointing_config  {',
           '    "partition_activations": false, ',
           '    "contiguous_memory_optimization": false, ',
           '    "cpu_checkpointing": false, ',
           '    "number_checkpoints": null, ',
           '    "synchronize_checkpoint_boundary": false, ',
           '    "profile": false',
           '}',
           ds_prefix(job, t, src='config.py:1001:print') + '   bf16_enabled ................. True',
           ds_prefix(job, t, src='config.py:1001:print') + '   gradient_accumulation_steps .. %d' % cfg['gas'],
           ds_prefix(job, t, src='config.py:1001:print') + '   gradient_clipping ............ 1.0',
           ds_prefix(job, t, src='config.py:1001:print') + '   train_batch_size ............. %d' % cfg['gbs'],
           ds_prefix(job, t, src='config.py:1001:print') + '   train_micro_batch_size_per_gpu  %d' % cfg['mbs'],
           ds_prefix(job, t, src='config.py:1001:print') + '   world_size ................... %d' % job.world,
           ds_prefix(job, t, src='config.py:1001:print') + '   zero_enabled ................. True',
           ds_prefix(job, t, src='config.py:1001:print') + '   zero_optimization_stage ...... 3']
    return job.block(t, h0, 0, out, dt=0.01)


def hf_train_header(job, t, cfg):
    h0 = job.hosts[0]
    out = ['***** Running training *****',
           '  Num examples = %s' % format(cfg['nex'], ','),
           '  Num Epochs = 1',
           '  Instantaneous batch size per device = %d' % cfg['mbs'],
           '  Total train batch size (w. parallel, distributed & accumulation) = %d' % cfg['gbs'],
           '  Gradient Accumulation steps = %d' % cfg['gas'],
           '  Total optimization steps = %s' % format(cfg['train_iters'], ','),
           '  Number of trainable parameters = %s' % format(cfg['params'], ',')]
    return job.block(t, h0, 0, out, dt=0.01)


def hf_train(job, t, cfg, it0, it_end, step_s, ds=False, on_iter=None):
    rng = job.rng
    h0 = job.hosts[0]
    loss = cfg.get('loss0', 1.9)
    it = it0 + 1
    N = cfg['train_iters']
    job.E(t + 0.5, h0, 0, '`use_cache=True` is incompatible with gradient checkpointing. Setting `use_cache=False`.')
    while it < it_end:
        s = step_s * rng.uniform(0.98, 1.03)
        if on_iter is not None:
            r = on_iter(it, t)
            if r:
                s *= r
        t += s
        loss = max(0.6, loss - rng.uniform(0, 0.0015) + rng.uniform(-0.02, 0.02))
        if ds and it % 10 == 0:
            job.E(t - 0.01, h0, 0, ds_prefix(job, t) + ' [Rank 0] step=%d, skipped=0, lr=[%.6e], mom=[(0.9, 0.95)]'
                  % (it, 2e-5 * min(1, it / 300.0)))
            job.E(t - 0.005, h0, 0, ds_prefix(job, t, src='timer.py:259:stop') +
                  ' epoch=0/micro_step=%d/global_step=%d, RunningAvgSamplesPerSec=%.2f, CurrSamplesPerSec=%.2f, '
                  'MemAllocated=%.2fGB, MaxMemAllocated=%.2fGB'
                  % (it * cfg['gas'], it, cfg['gbs'] / step_s, cfg['gbs'] / s, rng.uniform(30, 32), 61.4))
        if it % 10 == 0:
            job.E(t, h0, 0, "{'loss': %.4f, 'grad_norm': %.6f, 'learning_rate': %.6e, 'epoch': %.2f}"
                  % (loss, rng.uniform(0.3, 1.2), 2e-5 * min(1, it / 300.0), it / float(N)))
        if True:
            el = it * step_s
            rem = (N - it) * step_s
            pct = int(100 * it / N)
            job.E(t + 0.001, h0, 0, '%3d%%|%s| %d/%d [%s<%s, %5.2fs/it]'
                  % (pct, ('\u2588' * (pct // 10)).ljust(10), it, N, hms(el), hms(rem), s))
        if cfg.get('savei') and it % cfg['savei'] == 0:
            job.E(t + 0.1, h0, 0, 'Saving model checkpoint to %s/checkpoint-%d' % (cfg['ckpt'], it))
            t += rng.uniform(30, 80)
            job.E(t, h0, 0, 'Model weights saved in %s/checkpoint-%d/model.safetensors' % (cfg['ckpt'], it))
        it += 1
    return t


def hms(s):
    s = int(s)
    h, r = divmod(s, 3600)
    m, sec = divmod(r, 60)
    if h:
        return '%d:%02d:%02d' % (h, m, sec)
    return '%02d:%02d' % (m, sec)


def titan_train(job, t, cfg, it0, it_end, step_s, on_iter=None):
    rng = job.rng
    h0 = job.hosts[0]
    loss = cfg.get('loss0', 3.2)
    it = it0 + 1
    while it < it_end:
        s = step_s * rng.uniform(0.98, 1.03)
        if on_iter is not None:
            r = on_iter(it, t)
            if r:
                s *= r
        t += s
        loss = max(1.5, loss - rng.uniform(0, 0.001) + rng.uniform(-0.02, 0.02))
        if it % cfg['logi'] == 0:
            job.E(t, h0, 0, '[titan] %s - root - INFO - step: %d  loss: %7.4f  memory: %.2fGiB(%.2f%%)  tps: %s  '
                  'tflops: %.2f  mfu: %.2f%%' % (job.isoms(t), it, loss, 61.2 + rng.uniform(-0.2, 0.2), 77.4,
                                                  format(int(cfg['tps'] / s * step_s), ','), 402.3 * step_s / s,
                                                  40.7 * step_s / s))
        if cfg.get('savei') and it % cfg['savei'] == 0:
            job.E(t + 0.1, h0, 0, '[titan] %s - root - INFO - Saving a full checkpoint at last step, step %d.'
                  % (job.isoms(t), it))
            t += rng.uniform(10, 30)
            job.E(t, h0, 0, '[titan] %s - root - INFO - Finished saving the checkpoint (or staging if async is '
                            'enabled)in %.2f seconds.' % (job.isoms(t), rng.uniform(10, 30)))
        it += 1
    return t


# ---------------------------------------------------------------------------
# MindSpore / MindFormers (msrun)
# ---------------------------------------------------------------------------
def ms_prefix(job, t, h, l, lvl='WARNING', mod='ME', src='mindspore/run_check/_check_version.py:375'):
    p = job.pid(h, l) if l is not None else job.pid(h)
    return '[%s] %s(%d:%d,MainProcess):%s [%s]' % (lvl, mod, p, 281473000000000 + p, job.asc(t), src)


def mindformers_setup(job, t, h, l, cfg):
    out = [ms_prefix(job, t, h, l) + ' MindSpore version 2.3.1 and Ascend AI software package (Ascend Data Center '
           'Solution)version 7.5 does not match, the version of software package expect one of [\'7.3\']. Please '
           'refer to the match info on: https://www.mindspore.cn/install',
           '[INFO] %s - mindformers[mindformers/tools/utils.py:167] - set output path to \'/job/output\'' % '%TS%',
           '[INFO] %s - mindformers[mindformers/core/parallel_config.py:44] - initial moe_config from dict: '
           '{\'expert_num\': 1, \'capacity_factor\': 1.05}' % '%TS%',
           '[INFO] %s - mindformers[mindformers/core/context/build_context.py:106] - full_batch will be forced to '
           'True in semi_auto_parallel mode' % '%TS%',
           '[INFO] %s - mindformers[mindformers/trainer/base_trainer.py:90] - Now Running Task is: text_generation, '
           'Model is: %s' % ('%TS%', cfg['model']),
           '[INFO] %s - mindformers[mindformers/trainer/base_trainer.py:222] - The current parallel mode is '
           'semi_auto_parallel, full batch is True,so global batch size will be changed: global_batch_size = '
           'batch_size * data_parallel * micro_batch_num * micro_batch_interleave_num = %d'
           % ('%TS%', cfg['gbs']),
           '[INFO] %s - mindformers[mindformers/models/modeling_utils.py:1480] - model built, but weights is '
           'unloaded, since the config has no checkpoint_name_or_path attribute or checkpoint_name_or_path is None.'
           % '%TS%',
           '[INFO] %s - mindformers[mindformers/trainer/base_trainer.py:1027] - .........Build Running Wrapper '
           'From Config For Train..........' % '%TS%',
           '[INFO] %s - mindformers[mindformers/trainer/base_trainer.py:1080] - .........Starting Training Model..'
           '........' % '%TS%',
           '[INFO] %s - mindformers[mindformers/trainer/base_trainer.py:1082] - .........Model Compiling, Please '
           'Wait a Moment...........' % '%TS%']
    tt = t
    for i, x in enumerate(out):
        tt += job.rng.uniform(0.05, 3.0) if i else 0.0
        job.E(tt, h, l, x.replace('%TS%', job.isoms(tt)))
    return tt


def mindformers_step(job, t, cfg, it, ms, loss, gn, overflow=False):
    return ('[INFO] %s - mindformers[mindformers/core/callback/callback.py:334] - { Epoch:[  1/  1], step:[%5d/%5d], '
            'loss: %.3f, per_step_time: %dms, lr: %.6e, overflow cond: %s, loss_scale: 1.0, global_norm: [%.3f], '
            'train_throughput_per_npu: %.1fT' % (job.isoms(t), it, cfg['train_iters'], loss, int(ms),
                                                  3e-4 * min(1, it / 1000.0), overflow, gn, 160.0 * 2000 / ms))


def mindformers_train(job, t, cfg, it0, it_end, step_s, hosts_log=None, on_iter=None):
    """every worker prints step lines (MindFormers logs on each rank)."""
    rng = job.rng
    loss = cfg.get('loss0', 3.1)
    it = it0 + 1
    loggers = hosts_log or [(job.hosts[0], 0), (job.hosts[-1], job.gpn - 1)]
    while it < it_end:
        ms = step_s * 1000 * rng.uniform(0.985, 1.02)
        if on_iter is not None:
            r = on_iter(it, t)
            if r:
                ms *= r
        t += ms / 1000.0
        loss = max(1.2, loss - rng.uniform(0, 0.001) + rng.uniform(-0.01, 0.01))
        if it % cfg['logi'] == 0:
            for (h, l) in loggers:
                job.E(t + 0.001 * l, h, l, mindformers_step(job, t, cfg, it, ms, loss, rng.uniform(0.3, 0.9)))
        it += 1
    return t
