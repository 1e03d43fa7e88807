"""``DataLoader``, as ``torch.utils.data.DataLoader``: batches from a dataset, in the main
process (``num_workers=0``) or in worker processes.

With ``num_workers >= 1`` each worker is a real process (``fork`` on Linux, or the
``multiprocessing_context`` given) that receives batches of indices on its own queue and
sends the collated batches back on a shared one; the main process hands them out in
sampler order, keeping ``prefetch_factor`` batches per worker in flight. Each worker seeds
``random``, NumPy's global generator and pyad's default generator with ``base_seed +
worker_id`` (the base seed drawn from the loader's ``generator``), then runs
``worker_init_fn(worker_id)``; ``get_worker_info()`` tells dataset code which worker it
runs in. An exception in a worker is raised again in the main process, of the same type,
with the worker's id and traceback in its message; breaking out of the loop, an error or
dropping the iterator stops and joins the workers.
"""
import itertools
import multiprocessing
import os
import pickle
import queue
import random
import sys
import traceback
import types
import warnings
import weakref

import numpy

from pyad.utils.data._collate import default_collate, default_convert
from pyad.utils.data.dataset import IterableDataset
from pyad.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "WorkerInfo"]

_STATUS_CHECK_INTERVAL = 1.0        # seconds between checks that the workers are alive


class WorkerInfo:
    """What a worker process knows about itself: ``id``, ``num_workers``, ``seed`` and
    its copy of the ``dataset``."""

    def __init__(self, **kwargs):
        for k, v in kwargs.items():
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_frozen", True)

    def __setattr__(self, key, value):
        raise RuntimeError("Cannot assign attributes to WorkerInfo objects")

    def __repr__(self):
        return "WorkerInfo(id=%d, num_workers=%d, seed=%d, dataset=%r)" % (
            self.id, self.num_workers, self.seed, self.dataset)


_worker_info = None


def get_worker_info():
    """The current worker's `WorkerInfo` inside a DataLoader worker process, else None.

    >>> get_worker_info() is None
    True
    """
    return _worker_info


class _InfiniteConstantSampler(Sampler):
    def __iter__(self):
        while True:
            yield None


class _IterableStop:
    """A worker's iterable dataset is exhausted."""

    def __init__(self, worker_id):
        self.worker_id = worker_id


class _ResumeIteration:
    """Sent to a persistent worker at the start of an epoch: start the dataset's
    stream again; the worker answers with ``(_RESUME, None)``."""


_RESUME = "resume"          # the task number of a worker's answer to _ResumeIteration


class _KeyErrorMessage(str):
    def __repr__(self):
        return self


class _ExceptionWrapper:
    """An exception caught in a worker, sent to the main process with its traceback."""

    def __init__(self, exc_info, where):
        self.exc_type = exc_info[0]
        try:                          # a class defined in a function cannot cross processes
            pickle.dumps(self.exc_type)
        except Exception:
            self.exc_type = RuntimeError
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        msg = "Caught %s %s.\nOriginal %s" % (self.exc_type.__name__, self.where, self.exc_msg)
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)    # KeyError prints repr(message): keep the lines
        try:
            exc = self.exc_type(msg)
        except Exception:
            raise RuntimeError(msg) from None
        raise exc


def _fetch(dataset, indices, auto_collation, collate_fn):
    """A map-style dataset's batch, as torch's fetcher: through the dataset's
    ``__getitems__`` (a batch of indices at once) where it has one."""
    if not auto_collation:
        return collate_fn(dataset[indices])
    getitems = getattr(dataset, "__getitems__", None)
    if getitems:
        return collate_fn(getitems(indices))
    return collate_fn([dataset[i] for i in indices])


def _serialize(idx, data, worker_id):
    """Pickle a result in the worker, so that a batch that cannot be pickled becomes an
    error in the main process instead of a batch that never arrives."""
    try:
        return pickle.dumps((idx, data), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:
        wrapped = _ExceptionWrapper(sys.exc_info(), "in DataLoader worker process %d"
                                    % worker_id)
        return pickle.dumps((idx, wrapped), protocol=pickle.HIGHEST_PROTOCOL)


def _worker_loop(dataset, iterable, index_queue, result_queue, done_flag, auto_collation,
                 collate_fn, drop_last, batch_size, seed, init_fn, worker_id, num_workers,
                 parent_pid):
    global _worker_info
    try:
        import pyad
        random.seed(seed)
        numpy.random.seed(seed % (2 ** 32))
        pyad.manual_seed(seed)
        _worker_info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed,
                                  dataset=dataset)
        init_error = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            stream = iter(dataset) if iterable else None
        except Exception:
            init_error = _ExceptionWrapper(sys.exc_info(),
                                           "in DataLoader worker process %d" % worker_id)
        exhausted = False
        while not done_flag.value:
            try:
                task = index_queue.get(timeout=_STATUS_CHECK_INTERVAL)
            except queue.Empty:
                if os.getppid() != parent_pid:        # the main process died
                    break
                continue
            if task is None:
                break
            if isinstance(task, _ResumeIteration):        # a new epoch (persistent workers)
                if init_error is None and iterable:
                    try:
                        stream = iter(dataset)
                    except Exception:
                        init_error = _ExceptionWrapper(
                            sys.exc_info(), "in DataLoader worker process %d" % worker_id)
                exhausted = False
                result_queue.put(_serialize(_RESUME, None, worker_id))
                continue
            idx, indices = task
            if init_error is not None:
                result_queue.put(_serialize(idx, init_error, worker_id))
                init_error = None
                exhausted = iterable
                continue
            if exhausted:
                result_queue.put(_serialize(idx, _IterableStop(worker_id), worker_id))
                continue
            try:
                if iterable:
                    if auto_collation:
                        items = list(itertools.islice(stream, batch_size))
                        if not items or (drop_last and len(items) < batch_size):
                            raise StopIteration
                        data = collate_fn(items)
                    else:
                        data = collate_fn(next(stream))
                else:
                    data = _fetch(dataset, indices, auto_collation, collate_fn)
            except StopIteration:
                exhausted = True
                data = _IterableStop(worker_id)
            except Exception:
                data = _ExceptionWrapper(sys.exc_info(),
                                         "in DataLoader worker process %d" % worker_id)
            result_queue.put(_serialize(idx, data, worker_id))
            del data
    except KeyboardInterrupt:
        pass
    finally:
        result_queue.cancel_join_thread()
        result_queue.close()


def _check_iterable_length(loader, len_called, num_yielded, num_workers):
    # torch's check: more batches than len(dataset) reported by len(loader) warns
    if loader._iterable and len_called is not None and num_yielded > len_called:
        msg = ("Length of IterableDataset %s was reported to be %d(when accessing "
               "len(dataloader)), but %d samples have been fetched. "
               % (loader.dataset, len_called, num_yielded))
        if num_workers > 0:
            msg += ("For multiprocessing data-loading, this could be caused by not properly "
                    "configuring the IterableDataset replica at each worker. Please see "
                    "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset "
                    "for examples.")
        warnings.warn(msg, stacklevel=3)


class _SingleProcessDataLoaderIter:
    def __init__(self, loader):
        self._loader = loader
        self._len_called = loader._IterableDataset_len_called
        self._sampler_iter = iter(loader._index_sampler)
        self._stream = iter(loader.dataset) if loader._iterable else None
        self._num_yielded = 0

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader)

    def __next__(self):
        loader = self._loader
        if loader._iterable:
            if loader._auto_collation:
                items = list(itertools.islice(self._stream, loader.batch_size))
                if not items or (loader.drop_last and len(items) < loader.batch_size):
                    raise StopIteration
                data = loader.collate_fn(items)
            else:
                data = loader.collate_fn(next(self._stream))
        else:
            indices = next(self._sampler_iter)
            data = _fetch(loader.dataset, indices, loader._auto_collation, loader.collate_fn)
        self._num_yielded += 1
        _check_iterable_length(self._loader, self._len_called, self._num_yielded, 0)
        return data


class _MultiProcessingDataLoaderIter:
    def __init__(self, loader):
        if loader.prefetch_factor is not None and loader.prefetch_factor <= 0:
            raise AssertionError("prefetch_factor must be greater than 0 for "
                                 "MultiProcessingDataLoaderIter")
        self._persistent = loader.persistent_workers
        # A persistent iterator is kept by its loader: it holds the loader weakly, so that
        # deleting the loader deletes the iterator at once and shuts its workers down.
        self._loader = weakref.ref(loader) if self._persistent else (lambda: loader)
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux")
                                              else None)
        elif isinstance(ctx, str):
            ctx = multiprocessing.get_context(ctx)
        from pyad._factories import _rng_for
        gen = _rng_for(numpy, loader.generator, "DataLoader")
        base_seed = int(gen.integers(0, 2 ** 62))
        # A lock-free shared byte, not a multiprocessing.Event: a worker killed while it
        # holds the Event's lock (is_set takes it) would make the main process's set()
        # wait forever during shutdown.
        self._done_flag = ctx.RawValue("b", 0)
        self._result_queue = ctx.Queue()
        self._index_queues = []
        self._workers = []
        self._shutdown = False
        try:
            for wid in range(self._num_workers):
                iq = ctx.Queue()
                iq.cancel_join_thread()
                w = ctx.Process(target=_worker_loop, args=(
                    loader.dataset, loader._iterable, iq, self._result_queue,
                    self._done_flag, loader._auto_collation, loader.collate_fn,
                    loader.drop_last, loader.batch_size, base_seed + wid,
                    loader.worker_init_fn, wid, self._num_workers, os.getpid()))
                w.daemon = True
                w.start()
                self._index_queues.append(iq)
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        self._prefetch = loader.prefetch_factor if loader.prefetch_factor is not None else 2
        self._reset(loader, first_epoch=True)

    def _reset(self, loader, first_epoch=False):
        """Start an epoch: a new pass of the sampler; persistent workers, kept from the
        epoch before, first drop what they still had and start their streams again."""
        self._sampler_iter = iter(loader._index_sampler)
        self._len_called = loader._IterableDataset_len_called
        self._num_yielded = 0
        self._iterable = loader._iterable
        self._dataset = loader.dataset
        self._worker_active = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        self._send_idx = 0          # next task number to send
        self._rcvd_idx = 0          # next task number to hand out
        self._task_info = {}        # task -> (worker,) while pending, (worker, data) once in
        self._tasks_outstanding = 0
        if not first_epoch:
            for q in self._index_queues:
                q.put(_ResumeIteration())
            waiting = self._num_workers
            while waiting:                  # results of the last epoch's tasks are dropped
                idx, _ = self._get_data()
                if idx == _RESUME:
                    waiting -= 1
        for _ in range(self._prefetch * self._num_workers):
            self._try_put_index()

    def __iter__(self):
        return self

    def __len__(self):
        return len(self._loader())

    def _try_put_index(self):
        if self._tasks_outstanding >= self._prefetch * self._num_workers:
            return
        try:
            indices = next(self._sampler_iter)
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wid = next(self._worker_cycle)
            if self._worker_active[wid]:
                break
        else:
            return
        self._index_queues[wid].put((self._send_idx, indices))
        self._task_info[self._send_idx] = (wid,)
        self._tasks_outstanding += 1
        self._send_idx += 1

    def _get_data(self):
        waited = 0.0
        while True:
            try:
                return pickle.loads(self._result_queue.get(timeout=_STATUS_CHECK_INTERVAL))
            except queue.Empty:
                waited += _STATUS_CHECK_INTERVAL
                dead = [w for w in self._workers if not w.is_alive()]
                if dead:
                    pids = ", ".join(str(w.pid) for w in dead)
                    self._shutdown_workers()
                    raise RuntimeError("DataLoader worker (pid(s) %s) exited unexpectedly"
                                       % pids) from None
                if self._timeout > 0 and waited >= self._timeout:
                    self._shutdown_workers()
                    raise RuntimeError("DataLoader timed out after %s seconds"
                                       % self._timeout) from None

    def __next__(self):
        if self._shutdown:
            raise StopIteration
        try:
            while True:
                # the next task to hand out, skipping those of exhausted workers
                while self._rcvd_idx < self._send_idx:
                    info = self._task_info.get(self._rcvd_idx)
                    if info:
                        if len(info) == 2 or self._worker_active[info[0]]:
                            break
                        del self._task_info[self._rcvd_idx]
                    self._rcvd_idx += 1
                else:
                    if not self._persistent:
                        self._shutdown_workers()
                    raise StopIteration
                if len(self._task_info[self._rcvd_idx]) == 2:
                    _, data = self._task_info.pop(self._rcvd_idx)
                    self._rcvd_idx += 1
                    return self._process(data)
                idx, data = self._get_data()
                self._tasks_outstanding -= 1
                if isinstance(data, _IterableStop):
                    self._worker_active[data.worker_id] = False
                    self._try_put_index()
                    continue
                if idx != self._rcvd_idx:
                    self._task_info[idx] += (data,)     # early: keep it until its turn
                    continue
                del self._task_info[idx]
                self._rcvd_idx += 1
                return self._process(data)
        except StopIteration:
            raise
        except BaseException:
            self._shutdown_workers()
            raise

    def _process(self, data):
        self._try_put_index()
        if isinstance(data, _ExceptionWrapper):
            self._shutdown_workers()
            data.reraise()
        self._num_yielded += 1
        if self._iterable and self._len_called is not None \
                and self._num_yielded > self._len_called:
            _check_iterable_length(_LengthView(self._dataset), self._len_called,
                                   self._num_yielded, self._num_workers)
        return data

    def _shutdown_workers(self):
        if self._shutdown:
            return
        self._shutdown = True
        self._done_flag.value = 1
        for q in self._index_queues:
            try:
                q.put(None)
            except Exception:
                pass
        for w in self._workers:
            w.join(timeout=5.0)
        for w in self._workers:
            if w.is_alive():
                w.terminate()
                w.join()
        for q in self._index_queues:
            q.cancel_join_thread()
            q.close()
        self._result_queue.cancel_join_thread()
        self._result_queue.close()

    def __del__(self):
        try:
            self._shutdown_workers()
        except Exception:
            pass


class _LengthView:
    def __init__(self, dataset):
        self.dataset = dataset
        self._iterable = True


# torch's names for the two iterators
_SingleProcessIter = _SingleProcessDataLoaderIter
_MultiProcessIter = _MultiProcessingDataLoaderIter


class DataLoader:
    """Batches of a dataset, as ``torch.utils.data.DataLoader`` (same arguments and
    defaults). ``pin_memory``, ``pin_memory_device`` and ``in_order`` are accepted:
    pinned memory does not apply to NumPy arrays. Workers are started afresh for every
    epoch, unless ``persistent_workers=True``: then the loader keeps its workers from one
    epoch to the next, and they stop when the loader is deleted.

    >>> import pyad
    >>> from pyad.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(pyad.arange(5.0), pyad.arange(5))
    >>> [y.tolist() for x, y in DataLoader(ds, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    _frozen = False
    __class_getitem__ = classmethod(types.GenericAlias)    # DataLoader[T], as torch's

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device="",
                 in_order=True):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 "
                             "to disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in "
                             "multiprocessing.let num_workers > 0 to enable multiprocessing, "
                             "otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self._IterableDataset_len_called = None
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.in_order = in_order
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in {False, None}:
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 "option, but got shuffle=%s" % (shuffle,))
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 "option, but got sampler=%s" % (sampler,))
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 "batch_sampler option, but got batch_sampler=%s"
                                 % (batch_sampler,))
        else:
            shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        if multiprocessing_context is not None:
            if num_workers > 0:
                if isinstance(multiprocessing_context, str):
                    methods = multiprocessing.get_all_start_methods()
                    if multiprocessing_context not in methods:
                        raise ValueError("multiprocessing_context option should specify a "
                                         "valid start method in %r, but got "
                                         "multiprocessing_context=%r"
                                         % (methods, multiprocessing_context))
                    multiprocessing_context = multiprocessing.get_context(
                        multiprocessing_context)
                if not isinstance(multiprocessing_context,
                                  multiprocessing.context.BaseContext):
                    raise TypeError("multiprocessing_context option should be a valid context "
                                    "object or a string specifying the start method, but got "
                                    "multiprocessing_context=%s" % (multiprocessing_context,))
            else:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 "loading (num_workers > 0), but got num_workers=%s"
                                 % (num_workers,))
        self.multiprocessing_context = multiprocessing_context
        self.persistent_workers = persistent_workers
        if pin_memory:
            from pyad import cuda
            if not cuda.is_available():
                warnings.warn("'pin_memory' argument is set as true but no accelerator is "
                              "found, then device pinned memory won't be used.")
        self._frozen = True
        self.check_worker_number_rationality()

    def __setattr__(self, attr, val):
        if self._frozen and attr in ("batch_size", "batch_sampler", "sampler", "drop_last",
                                     "dataset", "persistent_workers"):
            raise ValueError("%s attribute should not be set after %s is initialized"
                             % (attr, type(self).__name__))
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self):
        if self.num_workers == 0:
            return _SingleProcessDataLoaderIter(self)
        self.check_worker_number_rationality()
        if self.persistent_workers:
            it = self.__dict__.get("_iterator")
            if it is None or it._shutdown:
                it = _MultiProcessingDataLoaderIter(self)
                object.__setattr__(self, "_iterator", it)
            else:
                it._reset(self)
            return it
        return _MultiProcessingDataLoaderIter(self)

    def check_worker_number_rationality(self):
        """Warn, as torch, when ``num_workers`` is more than the CPUs this process may
        run on."""
        if not self.num_workers:
            return
        cpuset_checked = hasattr(os, "sched_getaffinity")
        try:
            suggest = len(os.sched_getaffinity(0)) if cpuset_checked else os.cpu_count()
        except OSError:
            suggest = os.cpu_count()
        if suggest is None or self.num_workers > suggest:
            if suggest is not None:
                detail = ("Our suggested max number of worker in current system is %d%s, which "
                          "is smaller than what this DataLoader is going to create."
                          % (suggest, "" if cpuset_checked
                             else " (`cpuset` is not taken into account)"))
            else:
                detail = ("DataLoader is not able to compute a suggested max number of worker "
                          "in current system.")
            warnings.warn("This DataLoader will create %d worker processes in total. %s Please "
                          "be aware that excessive worker creation might get DataLoader running "
                          "slow or even freeze, lower the worker number to avoid potential "
                          "slowness/freeze if necessary." % (self.num_workers, detail),
                          stacklevel=3)

    def __len__(self):
        if self._iterable:
            length = len(self.dataset)
            object.__setattr__(self, "_IterableDataset_len_called", length)
            if self.batch_size is not None:
                if self.drop_last:
                    length = length // self.batch_size
                else:
                    length = -(-length // self.batch_size)
            return length
        return len(self._index_sampler)
