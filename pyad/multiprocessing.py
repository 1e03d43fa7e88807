"""``pyad.multiprocessing``: Python's ``multiprocessing`` with torch's additions: `spawn`
(run a function in ``nprocs`` processes, each given its index, and re-raise a child's
exception in the parent) and the sharing-strategy functions.

Variables pickle as their data and ``requires_grad`` (never their graph), so they pass
through queues and arguments as copies; NumPy arrays have no shared-memory handles as
torch's CPU tensors do, so "sharing" a Variable between processes copies it.

>>> import pyad.multiprocessing as mp
>>> mp.get_sharing_strategy()
'file_system'
"""
import multiprocessing
import multiprocessing.connection
import signal
import traceback
from multiprocessing import *  # noqa: F401,F403  (as torch.multiprocessing)

__all__ = ["spawn", "start_processes", "ProcessContext", "ProcessException",
           "ProcessRaisedException", "ProcessExitedException", "set_sharing_strategy",
           "get_sharing_strategy", "get_all_sharing_strategies"] + [
    name for name in multiprocessing.__all__]

_STRATEGIES = {"file_system"}
_strategy = "file_system"


def get_all_sharing_strategies():
    """The strategies `set_sharing_strategy` accepts (pyad's Variables are copied)."""
    return set(_STRATEGIES)


def get_sharing_strategy():
    """The current sharing strategy."""
    return _strategy


def set_sharing_strategy(new_strategy):
    """Set the sharing strategy (one of `get_all_sharing_strategies`)."""
    global _strategy
    if new_strategy not in _STRATEGIES:
        raise AssertionError("set_sharing_strategy(): unknown strategy %r" % (new_strategy,))
    _strategy = new_strategy


class ProcessException(Exception):
    """A process started by `spawn` failed."""

    def __init__(self, msg, error_index, pid):
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.pid = pid

    def __reduce__(self):
        return type(self), (self.msg, self.error_index, self.pid)


class ProcessRaisedException(ProcessException):
    """A process started by `spawn` raised: the message carries its traceback."""


class ProcessExitedException(ProcessException):
    """A process started by `spawn` exited with a nonzero code or a signal."""

    def __init__(self, msg, error_index, error_pid, exit_code, signal_name=None):
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self):
        return (type(self), (self.msg, self.error_index, self.pid, self.exit_code,
                             self.signal_name))


def _wrap(fn, index, args, error_queue):
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass
    except Exception:
        error_queue.put(traceback.format_exc())
        raise SystemExit(1)


class ProcessContext:
    """The processes of one `spawn` call; `join` waits for them."""

    def __init__(self, processes, error_queues):
        self.processes = processes
        self.error_queues = error_queues

    def pids(self):
        return [int(p.pid) for p in self.processes]

    def join(self, timeout=None):
        """Wait for every process; True when all ended. When one fails, the others are
        terminated and its exception is raised here (fail fast, never hang)."""
        pending = list(self.processes)
        while pending:
            multiprocessing.connection.wait([p.sentinel for p in pending], timeout=timeout)
            failed = next((p for p in self.processes
                           if p.exitcode is not None and p.exitcode != 0), None)
            if failed is not None:
                self._fail(self.processes.index(failed))
            done = [p for p in pending if p.exitcode is not None]
            if not done and timeout is not None:
                return False
            pending = [p for p in pending if p.exitcode is None]
        for p in self.processes:
            p.join()
        return True

    def _fail(self, index):
        for p in self.processes:
            if p.is_alive():
                p.terminate()
            p.join()
        failed = self.processes[index]
        queue = self.error_queues[index]
        if not queue.empty():
            raise ProcessRaisedException(
                "\n\n-- Process %d terminated with the following error:\n%s"
                % (index, queue.get()), index, failed.pid)
        code = failed.exitcode
        if code < 0:
            name = signal.Signals(-code).name
            raise ProcessExitedException("process %d terminated with signal %s"
                                         % (index, name), index, failed.pid, code, name)
        raise ProcessExitedException("process %d terminated with exit code %d"
                                     % (index, code), index, failed.pid, code)


def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """Start ``nprocs`` processes running ``fn(i, *args)``; join them (raising the first
    failure) or return their `ProcessContext`."""
    context = multiprocessing.get_context(start_method)
    processes, queues = [], []
    for index in range(nprocs):
        queue = context.SimpleQueue()
        process = context.Process(target=_wrap, args=(fn, index, args, queue),
                                  daemon=daemon)
        process.start()
        processes.append(process)
        queues.append(queue)
    result = ProcessContext(processes, queues)
    if not join:
        return result
    while not result.join():
        pass


def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
    """torch.multiprocessing.spawn: `start_processes` with the "spawn" start method."""
    return start_processes(fn, args, nprocs, join, daemon, start_method)
