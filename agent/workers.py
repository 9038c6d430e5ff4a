"""The worker processes that read a large job in parallel, and how they end.

Workers must never outlive the command or talk over it: Ctrl-C reaches the whole process
group, so workers ignore SIGINT and the parent alone prints one line; a SIGTERM to the
parent (``kill PID``, a supervisor, ``Popen.terminate()``) becomes an exit that stops the
workers first; and on Linux each worker asks the kernel for SIGTERM when its parent dies,
so even a SIGKILLed parent leaves no worker blocked forever on its queue.
"""

from __future__ import annotations

import contextlib
import ctypes
import signal
import sys
import threading
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor

_PR_SET_PDEATHSIG = 1


def _init_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM))


def exit_on_sigterm(signum: int, frame: object) -> None:
    """A SIGTERM handler: exit 143 through the normal unwinding (finally blocks run)."""
    raise SystemExit(128 + signum)


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool whose workers end with the parent, however it ends."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_init_worker)
    in_main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if in_main else None
    if in_main:
        signal.signal(signal.SIGTERM, exit_on_sigterm)
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        # The executor has no public way to stop a busy worker; its process table does.
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            process.terminate()
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        if in_main:
            signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
