"""gen.py DIR [--no-fail] [--back SECONDS]: the reliability probe's 4-node job (worker-2 raises a CUDA
illegal memory access, the others time out in the NCCL watchdog; correct verdict user/script_bug on worker-2)."""
import datetime as dt
import os
import sys


def make(d: str, nofail: bool = False, back: int = 0) -> None:
    os.makedirs(d, exist_ok=True)
    t0 = dt.datetime(2024, 5, 12, 10, 0, 0)
    for k in range(4):
        out = []
        for i in range(200 if not nofail else 300):
            t = t0 + dt.timedelta(seconds=i) - dt.timedelta(seconds=back if (k == 2 and i >= 100) else 0)
            out.append(f"{t:%Y-%m-%d %H:%M:%S} INFO [train] iteration {1000+i} | loss {2.5-i*0.001:.4f} | lr 1.0E-04 | node worker-{k}")
        if not nofail:
            if k == 2:
                t = t0 + dt.timedelta(seconds=200 - back)
                out.append(f"{t:%Y-%m-%d %H:%M:%S} ERROR RuntimeError: CUDA error: an illegal memory access was encountered")
            else:
                t = t0 + dt.timedelta(seconds=260)
                out.append(f"{t:%Y-%m-%d %H:%M:%S} ERROR [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1234, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.")
        with open(f"{d}/worker-{k}.log", "w") as fh:
            fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    a = sys.argv
    make(a[1], "--no-fail" in a, int(a[a.index("--back") + 1]) if "--back" in a else 0)
