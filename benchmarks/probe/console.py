"""console.py FILE BAD_RANK KIND T0: the probe's torchrun --tee console log, 4 ranks, [rankN]: prefixes."""
import sys


def make(path: str, bad: int, kind: str, t0: int) -> None:
    out = ["srun: job 1234 queued and waiting for resources", "launching torchrun ..."]
    for i in range(150):
        for r in range(4):
            s = t0 + i
            out.append(f"[rank{r}]: 2024-05-12 11:{(s//60)%60:02d}:{s%60:02d} INFO iteration {100+i} | loss {2.5-i*0.001:.4f} | rank {r}")
    s = t0 + 150
    ts = f"2024-05-12 11:{(s//60)%60:02d}:{s%60:02d}"
    for r in range(4):
        if r == bad:
            msg = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB." if kind == "oom"
                   else "RuntimeError: CUDA error: an illegal memory access was encountered")
            out.append(f"[rank{r}]: {ts} ERROR {msg}")
        else:
            out.append(f"[rank{r}]: {ts} ERROR [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, OpType=ALLREDUCE) ran for 600000 milliseconds before timing out.")
    with open(path, "w") as fh:
        fh.write("\n".join(out) + "\n")


if __name__ == "__main__":
    make(sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4]))
