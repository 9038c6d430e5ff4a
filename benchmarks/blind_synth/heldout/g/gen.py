#!/usr/bin/env python3
"""Independent synthetic corpus of labeled failed LLM-training jobs.

    python3 gen.py --seed 11 --out DIR

Writes DIR/cases/<case_id>/{logs/...,label.json} and
DIR/normal/<setting>/<job_id>/logs/... (CONTRACTS "Labeled dataset" layout),
then re-reads everything and asserts every labeled line holds its event text,
every line carrying an event's message type is labeled, and every host alias
occurs in the logs.  Standard library only; deterministic for a given seed.
"""
import argparse
import gzip
import json
import os
import random
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bg  # noqa: E402
import td  # noqa: E402
from common import new_job, boot, meg_cfg  # noqa: E402
from engine import Layout, write_job, locate  # noqa: E402
from cases import CASES  # noqa: E402


# ---------------------------------------------------------------------------
# normal (successful) runs
# ---------------------------------------------------------------------------
def finish_torchrun(job, t, hosts=None):
    for h in (hosts or job.hosts):
        job.E(t + h.idx * 0.01, h, None, '%s %d torch/distributed/elastic/agent/server/api.py:879] [default] worker group '
              'successfully finished. Waiting 300 seconds for other agents to finish.' % (job.glog6(t, 'I'), job.pid(h)))
        job.E(t + 0.5 + h.idx * 0.01, h, None, '%s %d torch/distributed/elastic/agent/server/api.py:932] Local worker group '
              'finished (WorkerState.SUCCEEDED). Waiting 300 seconds for other agents to finish' % (job.glog6(t + 0.5, 'I'), job.pid(h)))
        job.E(t + 1 + h.idx * 0.01, h, None, '%s %d torch/distributed/elastic/agent/server/api.py:946] Done waiting for other '
              'agents. Elapsed: %.4f seconds' % (job.glog6(t + 1, 'I'), job.pid(h), job.rng.uniform(0.001, 0.9)))


def normal_megatron(rng, idx, name, cfgname, stack, n, style, layout, step, fw='megatron', nccl='INFO', jid=None):
    job = new_job(rng, idx, stack, n, 8, style, nccl_debug=nccl)
    cfg = meg_cfg(cfgname, '/ckpt/%s' % name, logi=1, savei=200)
    it0 = rng.choice([0, 1000, 2000])
    n_it = rng.randint(700, 1200)
    cfg['train_iters'] = it0 + n_it
    t = boot(job, fw, cfg, it0=it0, it_fail=it0 + n_it + 1, step=step)
    t = bg.megatron_done(job, t + 1, cfg, it0 + n_it)
    finish_torchrun(job, t + 5)
    return job


def normal_hf(rng, idx, fw, n, style, step, ds):
    job = new_job(rng, idx, 'cuda', n, 8, style, jobname='ft-%04d' % rng.randint(0, 9999))
    n_it = rng.randint(400, 700)
    cfg = dict(mbs=4, gbs=64 * n, gas=2, train_iters=n_it, nex=n_it * 64 * n, params=7241732096,
               model_path='/models/base', ckpt='/ckpt/run', savei=250)
    t = boot(job, fw, cfg, it0=0, it_fail=n_it + 1, step=step)
    h0 = job.hosts[0]
    job.block(t + 1, h0, 0, ['', '', 'Training completed. Do not forget to share your model on huggingface.co/models =)', '',
                             "{'train_runtime': %.4f, 'train_samples_per_second': %.3f, 'train_steps_per_second': %.3f, 'train_loss': %.6f, 'epoch': 1.0}"
                             % (n_it * step, cfg['gbs'] / step, 1 / step, rng.uniform(1.0, 1.4)),
                             'Saving model checkpoint to %s' % cfg['ckpt']], dt=0.5)
    finish_torchrun(job, t + 30)
    return job


def normal_titan(rng, idx, n, style, step):
    job = new_job(rng, idx, 'cuda', n, 8, style)
    n_it = rng.randint(800, 1400)
    cfg = dict(mbs=2, gbs=16 * n, train_iters=n_it, logi=10, savei=500, tps=7000, loss0=3.0)
    t = boot(job, 'titan', cfg, it0=0, it_fail=n_it + 1, step=step)
    job.E(t + 1, 0, 0, '[titan] %s - root - INFO - Sleeping 2 seconds for other ranks to complete' % job.isoms(t + 1))
    job.E(t + 3, 0, 0, '[titan] %s - root - INFO - Training completed' % job.isoms(t + 3))
    finish_torchrun(job, t + 5)
    return job


def normal_mindformers(rng, idx, n):
    from cases import msrun_setup
    job = new_job(rng, idx, 'ascend', n, 8, 'asc')
    n_it = rng.randint(400, 700)
    cfg = dict(model='pangu_alpha_38b', gbs=64 * n, train_iters=n_it, logi=1, loss0=3.3)
    cfg['loggers'] = [(h, 0) for h in job.hosts]
    t = msrun_setup(job, 0.0, cfg)
    t = boot(job, 'mindformers', cfg, t=t, it0=0, it_fail=n_it + 1, step=4.0, launcher='none', smi=False)
    for (h, l) in cfg['loggers']:
        job.E(t + 2, h, l, '[INFO] %s - mindformers[mindformers/trainer/base_trainer.py:1098] - .........Training Over!.............' % job.isoms(t + 2))
    for h in job.hosts:
        job.E(t + 10, h, None, '[INFO] ME(%d:281473590168608,MainProcess):%s [mindspore/parallel/cluster/process_entity/_api.py:290] '
              'All workers exited normally.' % (job.pid(h), job.asc(t + 10)))
    return job


NORMALS = [
    ('llama2-70b-megatron-cuda', lambda r, i: (normal_megatron(r, i, 'llama70b', 'llama2-70b', 'cuda', 4, 'gpu', None, 13.0),
                                               Layout('per_host', prefix='default'))),
    ('gpt3-175b-megatron-cuda', lambda r, i: (normal_megatron(r, i, 'gpt3', 'gpt3-175b', 'cuda', 8, 'cn', Layout('console'), 9.6, nccl='WARN'),
                                              Layout('console', path='slurm-%d.out' % r.randint(100000, 999999), prefix='srun', ext='.out'))),
    ('bloom-176b-megatron-deepspeed-cuda', lambda r, i: (normal_megatron(r, i, 'bloom', 'bloom-176b', 'cuda', 8, 'gpu', Layout('console'), 7.8, nccl='WARN'),
                                                         Layout('console', path='slurm-%d.out' % r.randint(100000, 999999), prefix='srun', ext='.out'))),
    ('llama3-8b-torchtitan-fsdp-cuda', lambda r, i: (normal_titan(r, i, 2, 'aws', 1.6),
                                                     Layout('console', path='slurm-%d.out' % r.randint(20000, 90000), prefix='rank', ext='.out'))),
    ('mistral-7b-hf-deepspeed-cuda', lambda r, i: (normal_hf(r, i, 'hf-ds', 2, 'gpu', 2.4, True), Layout('per_host'))),
    ('qwen2-72b-hf-fsdp-cuda', lambda r, i: (normal_hf(r, i, 'hf-fsdp', 2, 'pod', 9.0, False), Layout('host_dirs', leaf='pytorch'))),
    ('llama2-70b-mindspeed-ascend', lambda r, i: (normal_megatron(r, i, 'llama70b', 'llama2-70b', 'ascend', 4, 'asc', None, 14.0, fw='mindspeed'),
                                                  Layout('per_host'))),
    ('qwen2-7b-mindspeed-ascend', lambda r, i: (normal_megatron(r, i, 'qwen7b', 'qwen2-7b', 'ascend', 2, 'devnpu', None, 1.9, fw='mindspeed'),
                                                Layout('per_host', prefix='default'))),
    ('pangu-38b-mindformers-ascend', lambda r, i: (normal_mindformers(r, i, 2),
                                                   Layout('grank_files', rprefix='worker_', launcher='msrun_console'))),
]


# ---------------------------------------------------------------------------
# verification
# ---------------------------------------------------------------------------
def node_file_map(names, consoles, files_order):
    m = {}
    for p in files_order:
        m.setdefault(names[p], p)
    return m


def verify_case(outdir, label, files, order, names, consoles, keys):
    logs = os.path.join(outdir, 'logs')
    content = {}
    for p in order:
        fp = os.path.join(logs, p)
        if p.endswith('.gz'):
            with gzip.open(fp, 'rt', encoding='utf-8') as f:
                content[p] = f.read().split('\n')[:-1]
        else:
            with open(fp, encoding='utf-8') as f:
                content[p] = f.read().split('\n')[:-1]
    alltext = '\n'.join('\n'.join(v) for v in content.values())
    # node -> path
    def path_of(node):
        for p in order:
            if names[p] == node:
                return p
        if '/rank' in node or node.startswith('rank'):
            if len(consoles) > 1:
                base = node.rsplit('/rank', 1)[0]
                for p in consoles:
                    if names[p] == base:
                        return p
            return consoles[-1] if consoles else None
        return None
    labeled = set()
    for ev in label['fault_events']:
        key = keys[ev['id']]
        assert ev['lines'], (label, ev['id'])
        first_seen = False
        for node, lines in ev['lines'].items():
            p = path_of(node)
            assert p is not None, ('no file for node', node)
            for ln in lines:
                line = content[p][ln - 1]
                assert key in line, ('event text missing', ev['id'], node, ln, line[:120])
                if line == ev['text']:
                    first_seen = True
                labeled.add((p, ln, ev['id']))
        assert first_seen, ('representative text not found', ev['id'])
    # completeness: every line containing an event key is labeled with that event
    for ev in label['fault_events']:
        key = keys[ev['id']]
        for p in order:
            for i, line in enumerate(content[p]):
                if key in line:
                    assert (p, i + 1, ev['id']) in labeled, ('unlabeled occurrence', ev['id'], p, i + 1, line[:120])
    for h in label['hosts']:
        assert h in alltext, ('host alias not in logs', h)
    for n in label['faulty_nodes']:
        assert path_of(n) is not None, ('faulty node has no file', n)


def build(seed, out):
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(os.path.join(out, 'cases'))
    os.makedirs(os.path.join(out, 'normal'))
    master = random.Random(seed)
    perm = list(range(len(CASES)))
    master.shuffle(perm)
    summary = []
    for idx, fn in enumerate(CASES):
        rng = random.Random(seed * 7919 + idx * 104729 + 17)
        c = fn(rng, idx)
        cid = 'g%02d' % (perm[idx] + 1)
        cdir = os.path.join(out, 'cases', cid)
        events, text_of, names, consoles, files, order = write_job(c['job'], c['layout'], cdir)
        faulty = []
        for (h, l) in c['faulty']:
            n = locate(c['job'], c['layout'], names, consoles, h, l)
            if n not in faulty:
                faulty.append(n)
        fevents = []
        for eid in sorted(c['events']):
            assert eid in events, ('event never emitted', fn.__name__, eid)
            fevents.append({'id': eid, 'text': text_of[eid],
                            'lines': {k: v for k, v in sorted(events[eid].items())}})
        for eid in events:
            assert eid in c['events'], ('tag without key', fn.__name__, eid)
        label = {'schema': 'l4-label/1', 'setting': c['setting'], 'stack': c['stack'],
                 'category': c['category'], 'subcategory': c['subcategory'], 'symptom': c['symptom'],
                 'faulty_nodes': faulty, 'stage': c['stage'], 'iterations': c['iterations'],
                 'fault_events': fevents, 'root_cause': c['root_cause'], 'remediation': c['remediation'],
                 'hosts': list(c['hosts'])}
        if c.get('accept'):
            label['accept'] = c['accept']
        if c.get('source'):
            label['source'] = c['source']
        with open(os.path.join(cdir, 'label.json'), 'w', encoding='utf-8', newline='\n') as f:
            json.dump(label, f, indent=2, sort_keys=False)
            f.write('\n')
        verify_case(cdir, label, files, order, names, consoles, c['events'])
        summary.append((cid, fn.__name__, c['stack'], c['setting'], len(c['job'].hosts), faulty, c['fault'], c['hard'], c['layout'].kind))
    # normal runs: two per setting
    for si, (setting, mk) in enumerate(NORMALS):
        for k in range(2):
            rng = random.Random(seed * 31337 + si * 1009 + k * 7 + 3)
            job, lay = mk(rng, 100 + si * 2 + k)
            jdir = os.path.join(out, 'normal', setting, 'ok-%02d' % (k + 1))
            write_job(job, lay, jdir)
    return summary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--seed', type=int, default=11)
    ap.add_argument('--out', required=True)
    ap.add_argument('--summary', action='store_true', help='print a case table (for NOTES.md)')
    a = ap.parse_args()
    summary = build(a.seed, a.out)
    if a.summary:
        for row in sorted(summary):
            print('\t'.join(str(x) for x in row))
    print('wrote %d cases to %s' % (len(summary), a.out))


if __name__ == '__main__':
    main()
