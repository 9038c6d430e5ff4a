"""Job construction and boot sequences shared by cases and normal runs."""
import datetime

from engine import Host, Job
import bg

LETTERS = 'abcdefghjkmnpqrstuvwxyz'


def make_hosts(rng, n, style, jobname='job'):
    a, b = rng.randint(1, 250), rng.randint(0, 250)
    start = rng.randint(1, 60)
    letter = rng.choice(LETTERS)
    hosts = []
    used = set()
    for i in range(n):
        c = start + i * rng.choice([1, 1, 1, 2])
        while c in used:
            c += 1
        used.add(c)
        ip = '10.%d.%d.%d' % (a, b + c // 250, c % 250 + 2)
        if style == 'gpu':
            name = 'gpu-%s%02d' % (letter, start + i)
        elif style == 'aws':
            name = 'ip-' + ip.replace('.', '-')
        elif style == 'dgx':
            name = 'dgx-h100-%03d' % (start * 3 + i)
        elif style == 'cn':
            name = 'cn%04d' % (start * 10 + i)
        elif style == 'hgx':
            name = 'hgx-%s%02d-r%d' % (letter, start + i, (start + i) % 4 + 1)
        elif style == 'pod':
            name = '%s-master-0' % jobname if i == 0 else '%s-worker-%d' % (jobname, i - 1)
        elif style == 'podw':
            name = '%s-worker-%d' % (jobname, i)
        elif style == 'asc':
            name = 'ascend-910b-%02d' % (start + i)
        elif style == 'nodex':
            name = 'node-%d-%d' % (start // 4 + 10, start + i)
        elif style == 'devnpu':
            name = 'dev-npu-%s%03d' % (letter, start * 2 + i)
        else:
            raise ValueError(style)
        hosts.append(Host(i, name, ip))
    return hosts


def new_job(rng, idx, stack, n, gpn, style, jobname='job', nccl_debug='INFO', fname='name', port=None):
    base = datetime.datetime(2024, 1, 8, 0, 0, 0) + datetime.timedelta(days=idx * 4 + rng.randint(0, 3),
                                                                       seconds=rng.randint(0, 86000))
    hosts = make_hosts(rng, n, style, jobname)
    for h in hosts:
        if fname == 'ip':
            h.fname = h.ip
        elif fname == 'name':
            h.fname = h.name
        else:
            h.fname = fname % h.idx if '%' in fname else fname
    job = Job(rng, base, hosts, gpn)
    job.stack = stack
    job.nccl_debug = nccl_debug
    job.ifname = 'bond0' if stack == 'cuda' else 'enp189s0f0'
    job.port = port or rng.choice([29500, 29400, 6000, 23456, 60000])
    return job


MEG_CFGS = {
    'llama2-70b': dict(hid=8192, ffn=28672, heads=64, layers=80, seq=4096, tp=8, pp=4, mbs=1, gbs=1024,
                       params=2182049792, loss0=2.4),
    'gpt3-175b': dict(hid=12288, ffn=49152, heads=96, layers=96, seq=2048, tp=8, pp=8, mbs=1, gbs=1536,
                      params=2734714880, loss0=2.7),
    'llama2-13b': dict(hid=5120, ffn=13824, heads=40, layers=40, seq=4096, tp=4, pp=2, mbs=1, gbs=512,
                       params=1645348864, loss0=2.3),
    'qwen2-7b': dict(hid=3584, ffn=18944, heads=28, layers=28, seq=4096, tp=2, pp=1, mbs=1, gbs=256,
                     params=3807825408, loss0=2.2),
    'bloom-176b': dict(hid=14336, ffn=57344, heads=112, layers=70, seq=2048, tp=4, pp=8, mbs=2, gbs=2048,
                       params=2730848256, loss0=2.9),
}


def meg_cfg(name, ckpt, logi=1, savei=500, train_iters=50000):
    c = dict(MEG_CFGS[name])
    c.update(ckpt=ckpt, logi=logi, savei=savei, train_iters=train_iters)
    return c


def boot(job, fw, cfg, t=0.0, env_style='set-x', smi=True, launcher='torchrun', it0=0, upto='train',
         it_fail=None, step=2.0, on_iter=None, env_extra=None, host_filter=None):
    """Boot a job and train until iteration it_fail starts.  Returns t."""
    stack = job.stack
    hosts = [h for h in job.hosts if host_filter is None or host_filter(h)]
    for h in hosts:
        tt = t + 0.2 * h.idx
        tt = bg.env_dump(job, tt, h, stack, extra=env_extra, style=env_style)
        if smi:
            if stack == 'cuda':
                tt = bg.nvidia_smi_summary(job, tt, h)
            else:
                tt = bg.npu_smi_summary(job, tt, h)
        if launcher == 'torchrun':
            bg.torchrun_banner(job, tt + 0.5, h)
    t += 3 + 0.2 * len(job.hosts)
    if upto == 'env':
        return t
    if fw in ('megatron', 'mindspeed'):
        t = bg.megatron_setup(job, t, cfg, stack)
        if stack == 'cuda':
            for h in hosts:
                bg.nccl_init(job, t + 1 + 0.05 * h.idx, h)
        else:
            for h in hosts:
                for l in range(job.gpn):
                    if job.rng.random() < 0.5:
                        bg.warnings(job, t + 0.5 + 0.01 * l, h, l, stack, k=1)
        t += 5
        if upto == 'comm':
            return t
        t = bg.megatron_model(job, t, cfg, stack, it0)
        if upto == 'model':
            return t
        return bg.megatron_train(job, t, cfg, stack, it0, it_fail, step, on_iter=on_iter)
    if fw in ('hf-ds', 'hf-fsdp'):
        h0 = job.hosts[0]
        t = job.block(t, h0, 0, ['[INFO|configuration_utils.py:733] %s >> loading configuration file %s/config.json'
                                 % (job.isoms(t), cfg['model_path']),
                                 '[INFO|modeling_utils.py:3553] %s >> loading weights file %s/model.safetensors.index.json'
                                 % (job.isoms(t), cfg['model_path'])], dt=0.1)
        if fw == 'hf-ds':
            t = bg.deepspeed_setup(job, t + 1, cfg)
        for h in hosts:
            bg.nccl_init(job, t + 0.5 + 0.05 * h.idx, h)
        t += 3
        for h in hosts:
            for l in range(job.gpn):
                if job.rng.random() < 0.3:
                    bg.warnings(job, t + 0.01 * l, h, l, stack, k=1)
        if upto in ('comm', 'model'):
            return t
        t = bg.hf_train_header(job, t + 20, cfg)
        return bg.hf_train(job, t, cfg, it0, it_fail, step, ds=(fw == 'hf-ds'), on_iter=on_iter)
    if fw == 'titan':
        h0 = job.hosts[0]
        out = ['[titan] %s - root - INFO - Starting job: Llama 3 8B training' % job.isoms(t),
               '[titan] %s - root - INFO - Building 1-D device mesh with [\'dp_shard\'], [%d]' % (job.isoms(t), job.world),
               '[titan] %s - root - INFO - Building tokenizer from ./assets/tokenizer/original/tokenizer.model' % job.isoms(t),
               '[titan] %s - root - INFO - Preparing c4 dataset from allenai/c4' % job.isoms(t),
               '[titan] %s - root - INFO - Building llama3 8B with ModelArgs(dim=4096, n_layers=32, n_heads=32, n_kv_heads=8, vocab_size=128256, multiple_of=1024, ffn_dim_multiplier=1.3, norm_eps=1e-05, rope_theta=500000, max_seq_len=8192, depth_init=True, norm_type=\'rmsnorm\')' % job.isoms(t),
               '[titan] %s - root - INFO - Model llama3 8B size: 8,030,261,248 total parameters' % job.isoms(t),
               '[titan] %s - root - INFO - Applied selective activation checkpointing to the model' % job.isoms(t),
               '[titan] %s - root - INFO - Applied FSDP to the model' % job.isoms(t),
               '[titan] %s - root - INFO - CUDA memory usage for model: 3.81GiB(4.01%%)' % job.isoms(t)]
        t = job.block(t, h0, 0, out, dt=0.3)
        for h in hosts:
            bg.nccl_init(job, t + 0.5 + 0.05 * h.idx, h)
        t += 3
        if upto in ('comm', 'model'):
            return t
        job.E(t, h0, 0, '[titan] %s - root - INFO - Training starts at step %d, with local batch size %d, global batch '
                        'size %d, sequence length 8192, total steps %d (warmup 200)'
              % (job.isoms(t), it0 + 1, cfg['mbs'], cfg['gbs'], cfg['train_iters']))
        for h in hosts:
            for l in range(job.gpn):
                if job.rng.random() < 0.3:
                    bg.warnings(job, t + 1 + 0.01 * l, h, l, stack, k=1)
        return bg.titan_train(job, t + 2, cfg, it0, it_fail, step, on_iter=on_iter)
    if fw == 'mindformers':
        for h in hosts:
            for l in range(job.gpn):
                bg.mindformers_setup(job, t + 0.02 * l, h, l, cfg)
        t += 8
        if upto in ('comm', 'model'):
            return t
        t += 120  # graph compile
        return bg.mindformers_train(job, t, cfg, it0, it_fail, step, on_iter=on_iter,
                                    hosts_log=cfg.get('loggers'))
    raise ValueError(fw)
