"""Core engine: jobs, timestamps, layouts, rendering, labels.

Standard library only.  Everything is driven by a random.Random instance so
output is byte-for-byte deterministic for a given seed.
"""
import datetime
import gzip
import json
import os

LOG_EXTS = ('.log', '.txt', '.out')


def strip_exts(base):
    if base.endswith('.gz'):
        base = base[:-3]
    for e in LOG_EXTS:
        if base.endswith(e):
            return base[:-len(e)]
    return base


class Host(object):
    def __init__(self, idx, name, ip, fname=None):
        self.idx = idx
        self.name = name
        self.ip = ip
        self.fname = fname or name  # per-host file / dir name


class Job(object):
    """Collects timestamped lines; a layout renders them into files."""

    def __init__(self, rng, base, hosts, gpn, world=None):
        self.rng = rng
        self.base = base
        self.hosts = hosts
        self.gpn = gpn
        self.world = world or len(hosts) * gpn
        self.lines = []  # (t, seq, host, lrank, text, tag, dest)
        self.seq = 0
        self.pids = {}
        for h in hosts:
            p0 = rng.randint(20000, 480000)
            p = p0 + 6
            for l in range(gpn):
                p += rng.randint(1, 3)
                self.pids[(h.idx, l)] = p
            self.pids[(h.idx, None)] = p0

    # ---- emission -------------------------------------------------------
    def E(self, t, h, l, text, tag=None, dest=None):
        hi = h.idx if isinstance(h, Host) else h
        self.lines.append((t, self.seq, hi, l, text, tag, dest))
        self.seq += 1

    def block(self, t, h, l, texts, tag=None, dt=0.0001, dest=None, tagfirst=False):
        for i, x in enumerate(texts):
            tg = tag if (not tagfirst or i == 0) else None
            self.E(t + i * dt, h, l, x, tg, dest)
        return t + len(texts) * dt

    def g(self, h, l):
        hi = h.idx if isinstance(h, Host) else h
        return hi * self.gpn + l

    def pid(self, h, l=None):
        hi = h.idx if isinstance(h, Host) else h
        return self.pids[(hi, l)]

    # ---- timestamps -----------------------------------------------------
    def dt(self, t):
        return self.base + datetime.timedelta(seconds=t)

    def iso(self, t):
        return self.dt(t).strftime('%Y-%m-%d %H:%M:%S')

    def isoms(self, t):  # 2024-05-02 11:20:03,123
        d = self.dt(t)
        return d.strftime('%Y-%m-%d %H:%M:%S') + ',%03d' % (d.microsecond // 1000)

    def glog(self, t, lvl='E'):  # E0502 11:20:03.123456789
        d = self.dt(t)
        return '%s%s %s.%06d%03d' % (lvl, d.strftime('%m%d'), d.strftime('%H:%M:%S'), d.microsecond,
                                     int(t * 1000) % 1000)

    def glog6(self, t, lvl='W'):  # W0502 11:20:03.123000
        d = self.dt(t)
        return '%s%s %s.%06d' % (lvl, d.strftime('%m%d'), d.strftime('%H:%M:%S'), (d.microsecond // 1000) * 1000)

    def asc(self, t):  # 2024-05-02-11:20:03.123.456
        d = self.dt(t)
        return '%s.%03d.%03d' % (d.strftime('%Y-%m-%d-%H:%M:%S'), d.microsecond // 1000, d.microsecond % 1000)

    def asc_s(self, t):  # 2024-05-02-11:20:03
        return self.dt(t).strftime('%Y-%m-%d-%H:%M:%S')

    def slurm(self, t):  # 2024-05-02T11:20:03
        return self.dt(t).strftime('%Y-%m-%dT%H:%M:%S')

    def ctime(self, t):  # Thu May  2 11:20:03 2024
        d = self.dt(t)
        return d.strftime('%a %b ') + ('%2d' % d.day) + d.strftime(' %H:%M:%S %Y')

    def dmesg_T(self, t):  # [Thu May  2 11:20:03 2024]
        return '[' + self.ctime(t) + ']'

    def k8s(self, t):
        return self.dt(t).strftime('%Y-%m-%dT%H:%M:%SZ')


# ---------------------------------------------------------------------------
# Layouts
# ---------------------------------------------------------------------------
class Layout(object):
    """kind:
      per_host   : one file per host: <dir>/<fname><ext>; rank lines get optional prefix
      host_dirs  : <fname>/<leaf><ext> per host (k8s pod dirs)
      rank_files : <fname>/rank_<l>.log per local rank + <fname>/launcher.log
      grank_files: <fname>/<prefix><global><ext> (unique names) + <fname>/launcher.log
      console    : list of console files; prefix style rank/default/srun/none
    """

    def __init__(self, kind, **kw):
        self.kind = kind
        self.kw = kw


def _prefix(style, g, host_idx):
    if style == 'rank':
        return '[rank%d]:' % g
    if style == 'default':
        return '[default%d]:' % g
    if style == 'srun':
        return '%d: ' % host_idx
    return ''


def render(job, layout):
    """Return ordered dict path -> list of (text, tag, locator) and a function
    locator->node name; plus list of console paths."""
    files = {}
    order = []
    consoles = []
    kw = layout.kw
    ext = kw.get('ext', '.log') + ('.gz' if kw.get('gz') else '')

    def add(path, text, tag, loc):
        if path not in files:
            files[path] = []
            order.append(path)
        files[path].append((text, tag, loc))

    lines = sorted(job.lines, key=lambda x: (x[0], x[1]))
    segments = kw.get('segments')  # for console restarts: list of (path, t_from, t_to)
    for (t, seq, hi, l, text, tag, dest) in lines:
        if dest is not None:
            add(dest, text, tag, ('file', dest))
            continue
        k = layout.kind
        if (hi is None or hi < 0) and k != 'console':
            raise ValueError('job-level line without dest in layout %s: %s' % (k, text[:60]))
        if k == 'per_host':
            h = job.hosts[hi]
            path = kw.get('dir', '') + h.fname + ext
            pfx = ''
            if l is not None and kw.get('prefix'):
                pfx = _prefix(kw['prefix'], l, hi)
            add(path, pfx + text, tag, ('file', path))
        elif k == 'host_dirs':
            h = job.hosts[hi]
            path = h.fname + '/' + kw.get('leaf', 'pytorch') + ext
            pfx = ''
            if l is not None and kw.get('prefix'):
                pfx = _prefix(kw['prefix'], l, hi)
            add(path, pfx + text, tag, ('file', path))
        elif k == 'rank_files':
            h = job.hosts[hi]
            if l is None:
                path = h.fname + '/' + kw.get('launcher', 'launcher') + ext
            else:
                path = h.fname + '/rank_%d' % l + ext
            add(path, text, tag, ('file', path))
        elif k == 'grank_files':
            h = job.hosts[hi]
            if l is None:
                path = h.fname + '/' + kw.get('launcher', 'launcher') + ext
            else:
                path = h.fname + '/' + kw.get('rprefix', 'worker_') + str(job.g(hi, l)) + ext
            add(path, text, tag, ('file', path))
        elif k == 'console':
            path = kw['path']
            if segments:
                for (p, a, b) in segments:
                    if a <= t < b:
                        path = p
                        break
            style = kw.get('prefix', 'rank')
            if hi is None or hi < 0:
                add(path, text, tag, ('file', path))
                continue
            if style == 'srun':
                add(path, _prefix('srun', 0, hi) + text, tag, ('rank', path, hi))
            elif style == 'host':
                add(path, job.hosts[hi].name + ': ' + text, tag, ('file', path))
            elif style in ('rank', 'default') and l is not None:
                g = job.g(hi, l)
                add(path, _prefix(style, g, hi) + text, tag, ('rank', path, g))
            else:
                add(path, text, tag, ('file', path))
        else:
            raise ValueError(k)
    if layout.kind == 'console':
        consoles = [p for p in order]
    return files, order, consoles


def node_names(order, consoles):
    """file path -> node name per CONTRACTS (for non-split files)."""
    bases = {}
    for p in order:
        b = strip_exts(os.path.basename(p))
        bases.setdefault(b, []).append(p)
    names = {}
    for p in order:
        b = strip_exts(os.path.basename(p))
        if len(bases[b]) > 1:
            parent = os.path.basename(os.path.dirname(p))
            names[p] = (parent + '/' + b) if parent else b
        else:
            names[p] = b
    return names


def resolve(loc, names, consoles):
    if loc[0] == 'file':
        return names[loc[1]]
    _, path, n = loc
    if len(consoles) > 1:
        return names[path] + '/rank%d' % n
    return 'rank%d' % n


def write_job(job, layout, outdir):
    """Writes files under outdir/logs and returns (event_lines, names, consoles, files)."""
    files, order, consoles = render(job, layout)
    names = node_names(order, consoles)
    events = {}
    text_of = {}
    for p in order:
        full = os.path.join(outdir, 'logs', p)
        d = os.path.dirname(full)
        if not os.path.isdir(d):
            os.makedirs(d)
        data = ''.join(text + '\n' for (text, tag, loc) in files[p]).encode('utf-8')
        if p.endswith('.gz'):
            with open(full, 'wb') as raw:
                with gzip.GzipFile(filename='', mode='wb', fileobj=raw, mtime=0, compresslevel=6) as gz:
                    gz.write(data)
        else:
            with open(full, 'wb') as raw:
                raw.write(data)
        if True:
            for i, (text, tag, loc) in enumerate(files[p]):
                if tag:
                    node = resolve(loc, names, consoles)
                    events.setdefault(tag, {}).setdefault(node, []).append(i + 1)
                    if tag not in text_of:
                        text_of[tag] = text
    return events, text_of, names, consoles, files, order


def locate(job, layout, names, consoles, h, l):
    """node name for host h / local rank l under layout (used for faulty_nodes)."""
    kw = layout.kw
    ext = kw.get('ext', '.log') + ('.gz' if kw.get('gz') else '')
    hh = job.hosts[h]
    k = layout.kind
    if k == 'per_host':
        return names[kw.get('dir', '') + hh.fname + ext]
    if k == 'host_dirs':
        return names[hh.fname + '/' + kw.get('leaf', 'pytorch') + ext]
    if k == 'rank_files':
        return names[hh.fname + '/rank_%d' % l + ext]
    if k == 'grank_files':
        return names[hh.fname + '/' + kw.get('rprefix', 'worker_') + str(job.g(h, l)) + ext]
    if k == 'console':
        style = kw.get('prefix', 'rank')
        path = consoles[-1]
        n = h if style == 'srun' else job.g(h, l)
        if style in ('none', 'host'):
            return names[path]
        return resolve(('rank', path, n), names, consoles)
    raise ValueError(k)
