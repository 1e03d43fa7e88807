# cython: language_level=3
# cython: auto_pickle=False
"""The pyad engine: Variable, the graph node base, grad mode, version counters and
the backward queue.

Reading order: grad mode and the tool switches, version counters, Node and its leaf
sink AccumulateGrad, SavedVariable, Variable, then the backward loop. The op families
(`ops/*.pxi`) are textually included at the end so every op is a direct C call from
the Variable methods and from each other (the uvloop layout).
"""
cimport cython
from cpython.ref cimport Py_REFCNT, Py_DECREF, Py_INCREF, Py_XDECREF
from cpython.mem cimport PyMem_Realloc, PyMem_Free
from cpython.object cimport PyTypeObject, PyObject
from cpython.tuple cimport PyTuple_GET_SIZE
from cpython.contextvars cimport PyContextVar_Set, PyContextVar_Reset
from cpython.unicode cimport PyUnicode_CompareWithASCIIString

cdef extern from "Python.h":
    void PyType_Modified(PyTypeObject* t)

import sys
import heapq
import math
import inspect
import warnings
import weakref
import itertools
import collections.abc as _abc
import copy as _copy_module

import numpy
cimport numpy as cnp
from libc.stdint cimport uint8_t, uint32_t, uint64_t

cnp.import_array()

# Looked up once: `type(x) is numpy.ndarray` would be an attribute lookup per call.
cdef type _NDARRAY = numpy.ndarray
cdef type _NUMPY_SCALAR = numpy.generic


# Metadata of NumPy arrays read from the C struct (attribute lookups cost ~20-40 ns and
# `.shape` builds a tuple); other arrays (CuPy) go through their attributes.

cdef inline object _dtype(object data):
    if type(data) is _NDARRAY:
        return <object>cnp.PyArray_DESCR(<cnp.ndarray>data)
    return data.dtype


cdef inline bint _same_dtype(object a, object b):
    # Built-in dtypes are singletons, so identity settles nearly every comparison.
    return a is b or a == b


cdef inline bint _has_shape(object data, tuple shape) except -1:
    cdef int i, nd
    cdef cnp.npy_intp* dims
    if type(data) is not _NDARRAY:
        return data.shape == shape
    nd = cnp.PyArray_NDIM(<cnp.ndarray>data)
    if nd != len(shape):
        return False
    dims = cnp.PyArray_DIMS(<cnp.ndarray>data)
    for i in range(nd):
        if dims[i] != <cnp.npy_intp>(<Py_ssize_t>shape[i]):
            return False
    return True


cdef inline bint _is_writeable(object data):
    if type(data) is _NDARRAY:
        return cnp.PyArray_ISWRITEABLE(<cnp.ndarray>data)
    return data.flags.writeable


cdef inline char _dtype_kind(object data):
    cdef cnp.dtype descr
    if type(data) is _NDARRAY:
        descr = <cnp.dtype><object>cnp.PyArray_DESCR(<cnp.ndarray>data)
        return descr.kind
    return ord(data.dtype.kind)

try:  # CuPy is optional; without it every array lives on the host.
    import cupy
except Exception:  # pragma: no cover - no GPU stack here
    cupy = None


# --------------------------------------------------------------------------------
# Grad mode (thread-local, a C thread-local int so the per-op test is one load)
# --------------------------------------------------------------------------------

cdef extern from *:
    """
    #if defined(_MSC_VER)
    #define PYAD_TLS __declspec(thread)
    #elif defined(__GNUC__) && defined(__linux__)
    /* initial-exec: a read is one %fs-relative load, not a __tls_get_addr call (these
       flags are read several times per op); the few bytes come from glibc's static
       TLS reserve for dlopen()ed modules. */
    #define PYAD_TLS __thread __attribute__((tls_model("initial-exec")))
    #else
    #define PYAD_TLS __thread
    #endif
    /* Grad mode as the user set it (is_grad_enabled), and whether ops record: not in
       grad mode off, nor in inference mode whatever the grad mode (torch's inference
       mode leaves autograd out even under enable_grad). Kept as one flag, so the ops'
       check stays one load. */
    static PYAD_TLS int pyad_grad_disabled = 0;
    static PYAD_TLS int pyad_no_record = 0;
    static PYAD_TLS int pyad_inference = 0;
    static int pyad_get_grad_disabled(void) { return pyad_grad_disabled; }
    static void pyad_set_grad_disabled(int v) {
        pyad_grad_disabled = v;
        pyad_no_record = v || pyad_inference;
    }
    static int pyad_get_no_record(void) { return pyad_no_record; }
    /* Anomaly mode, per thread as grad mode: bit 0 on, bit 1 "check for NaN". */
    static PYAD_TLS int pyad_anomaly = 0;
    static int pyad_get_anomaly(void) { return pyad_anomaly; }
    static void pyad_set_anomaly(int v) { pyad_anomaly = v; }
    /* Profiler: set by _profiled just before it calls the op's entry point again, so
       that call (and only it) runs the op body instead of re-entering _profiled. */
    /* inference_mode, per thread: views made inside get torch's INFERENCE_MODE
       creation meta (their in-place errors name inference mode). */
    static int pyad_get_inference(void) { return pyad_inference; }
    static void pyad_set_inference(int v) {
        pyad_inference = v;
        pyad_no_record = pyad_grad_disabled || v;
    }
    static PYAD_TLS int pyad_profile_bypass = 0;
    static int pyad_get_profile_bypass(void) { return pyad_profile_bypass; }
    static void pyad_set_profile_bypass(int v) { pyad_profile_bypass = v; }
    /* NumPy's floating-point warnings already off on this thread (_fp_quiet_enter). */
    static PYAD_TLS int pyad_fp_quiet = 0;
    static int pyad_get_fp_quiet(void) { return pyad_fp_quiet; }
    static void pyad_set_fp_quiet(int v) { pyad_fp_quiet = v; }
    """
    int pyad_get_grad_disabled()
    void pyad_set_grad_disabled(int v)
    int pyad_get_no_record()
    int pyad_get_anomaly()
    void pyad_set_anomaly(int v)
    int pyad_get_inference()
    void pyad_set_inference(int v)
    int pyad_get_profile_bypass()
    void pyad_set_profile_bypass(int v)
    int pyad_get_fp_quiet()
    void pyad_set_fp_quiet(int v)


cdef inline bint _grad_enabled():
    # whether ops record: grad mode on and no inference mode (see pyad_no_record)
    return not pyad_get_no_record()


def is_grad_enabled():
    """Return True if operations are currently recorded for differentiation (per thread)."""
    return not pyad_get_grad_disabled()


def _set_grad_enabled(bint mode):
    """Set grad mode for the calling thread; return the previous mode."""
    cdef bint previous = not pyad_get_grad_disabled()
    pyad_set_grad_disabled(not mode)
    return previous


# no_grad / enable_grad as context managers: their __new__, __enter__ and __exit__
# (pyad/autograd/grad_mode.py) are these C functions, so a `with no_grad():` block runs
# no Python frame of its own (0.2 us instead of 0.4 us per block, as often as once per
# optimizer step or per small op in user code).

cdef tuple _EMPTY_TUPLE = ()


def _grad_mode_new(cls, orig_func=None):
    """``__new__`` of no_grad and enable_grad: an instance, or with a function (the
    bare decorator form ``@no_grad``) that function wrapped by a fresh instance."""
    if orig_func is None:
        return (<PyTypeObject*>object).tp_new(cls, <PyObject*>_EMPTY_TUPLE, NULL)
    return cls()(orig_func)


def _grad_mode_enter(self):
    """``__enter__``: switch grad mode to the instance's ``_mode``, keep the previous one."""
    self._previous = not pyad_get_grad_disabled()
    pyad_set_grad_disabled(not self._mode)


def _grad_mode_exit(self, exc_type, exc, tb):
    """``__exit__``: restore the mode saved by ``__enter__``; exceptions propagate."""
    pyad_set_grad_disabled(not self._previous)
    return False


def _set_inference_mode(bint mode):
    """Set the calling thread's inference-mode flag (``pyad.inference_mode`` sets it with
    grad mode); return the previous value."""
    cdef bint previous = pyad_get_inference()
    pyad_set_inference(mode)
    return previous


def _is_inference_mode_enabled():
    """Whether an ``inference_mode()`` block is active on the calling thread."""
    return bool(pyad_get_inference())


# --------------------------------------------------------------------------------
# Floating-point warnings. torch returns inf and nan from log(0), 1/0, sqrt(-1) and
# their gradients without a word; NumPy's ufuncs warn (RuntimeWarning) unless its error
# state says "ignore". pyad runs every backward pass, and the forward ops whose domain
# ends inside the reals (log, sqrt, division...), with NumPy's error state set to ignore
# for the length of the call, through the context variable NumPy keeps it in (a set and
# a reset, no Python-level errstate), so the user's own NumPy calls warn as before.
# --------------------------------------------------------------------------------

cdef object _np_errstate_var = None    # NumPy >= 2: its error state's context variable
cdef object _np_quiet_state = None     # ... and the value that ignores everything
try:
    from numpy._core._multiarray_umath import _extobj_contextvar as _np_errstate_var
    with numpy.errstate(all="ignore"):
        _np_quiet_state = _np_errstate_var.get()
except (ImportError, AttributeError):  # NumPy 1.26: a Python errstate per call
    _np_errstate_var = None


cdef inline object _fp_quiet_enter():
    # Returns the token for _fp_quiet_exit: None when an outer call on this thread (a
    # backward pass, whose formulas call the quiet ops again) already set the state.
    if pyad_get_fp_quiet():
        return None
    if _np_errstate_var is not None:
        token = PyContextVar_Set(_np_errstate_var, _np_quiet_state)
    else:
        token = numpy.errstate(all="ignore")
        token.__enter__()
    pyad_set_fp_quiet(1)
    return token


cdef inline int _fp_quiet_exit(object token) except -1:
    if token is None:
        return 0
    pyad_set_fp_quiet(0)
    if _np_errstate_var is not None:
        return PyContextVar_Reset(_np_errstate_var, token)
    token.__exit__(None, None, None)
    return 0


cdef object _quiet1(object ufunc, object a):
    # ufunc(a) with NumPy's floating-point warnings off (a forward op's domain edge).
    token = _fp_quiet_enter()
    try:
        return ufunc(a)
    finally:
        _fp_quiet_exit(token)


# --------------------------------------------------------------------------------
# Tool switches: the profiler and anomaly mode cost one C flag test each when off.
# The tools themselves (pyad.autograd.profiler, anomaly_mode) are pure Python.
# --------------------------------------------------------------------------------

cdef bint _profiling = False
cdef object _profiler = None       # object with op_begin/op_end/node_begin/node_end
cdef long long _sequence_counter = 0
cdef Node _current_node = None     # the node whose backward is running (anomaly parent)


def _set_profiler(profiler):
    """Install (or with None remove) the profiler callbacks (process-wide: every thread).

    ``profiler.op_begin(name, inputs, next_seq) -> token`` and
    ``profiler.op_end(token, outputs, seq)`` wrap every forward op (``next_seq``: the
    sequence number the next node will get; ``seq``: that of the node the op created,
    -1 if none); ``profiler.node_begin(name, seq) -> token`` and
    ``profiler.node_end(token, grads)`` wrap every backward node (``grads``: the
    gradients it returned, None if it raised). ``op_end``/``node_end`` are
    also called when the op or node raises. Ops called inside ops (and inside backward
    nodes) are reported too, nested in time. Returns the previous profiler.
    """
    global _profiling, _profiler
    previous = _profiler
    _profiler = profiler
    _profiling = profiler is not None
    return previous


cdef extern from *:
    """
    /* The profiler's clock and thread id without a Python call or a system call per
       event: time.perf_counter_ns() reads CLOCK_MONOTONIC on Linux, so the engine reads
       it directly there (elsewhere it calls perf_counter_ns); the native thread id is
       cached per thread (PyThread_get_thread_native_id() is a gettid() system call). */
    #include "pythread.h"
    #if defined(__linux__)
    #include <time.h>
    #define PYAD_DIRECT_CLOCK 1
    static long long pyad_clock_ns(void) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000000000LL + (long long)ts.tv_nsec;
    }
    #else
    #define PYAD_DIRECT_CLOCK 0
    static long long pyad_clock_ns(void) { return 0; }
    #endif
    static PYAD_TLS unsigned long pyad_native_tid = 0;
    static unsigned long pyad_thread_id(void) {
        if (pyad_native_tid == 0) pyad_native_tid = PyThread_get_thread_native_id();
        return pyad_native_tid;
    }
    #if defined(__unix__) || defined(__APPLE__)
    #include <pthread.h>
    static void pyad_forget_tid(void) { pyad_native_tid = 0; }   /* a fork's child */
    static int pyad_tid_atfork(void) { return pthread_atfork(NULL, NULL, pyad_forget_tid); }
    #else
    static int pyad_tid_atfork(void) { return 0; }
    #endif
    """
    int PYAD_DIRECT_CLOCK
    long long pyad_clock_ns()
    unsigned long pyad_thread_id()
    int pyad_tid_atfork()

pyad_tid_atfork()

from time import perf_counter_ns as _perf_counter_ns




cdef struct _Event:
    PyObject* name          # a reference owned by the log
    unsigned long thread
    long long t0
    long long t1
    long long seq
    long kind


@cython.final
cdef class _EventLog:
    """The profiler's fast recorder (pyad.autograd.profiler, CPU times only).

    The engine writes each event into a C array (no Python object per event);
    ``records`` gives them as lists ``[name, thread, t0_ns, t1_ns, seq, kind, None,
    None, None, None]`` (kind 0 op, 1 backward node, 2 user range) in start order.
    """
    cdef _Event* _events
    cdef Py_ssize_t _n
    cdef Py_ssize_t _cap

    def __cinit__(self):
        self._events = NULL
        self._n = 0
        self._cap = 0

    def __dealloc__(self):
        cdef Py_ssize_t i
        for i in range(self._n):
            Py_XDECREF(self._events[i].name)
        PyMem_Free(self._events)

    @property
    def records(self):
        cdef Py_ssize_t i
        cdef _Event* e
        cdef list out = []
        for i in range(self._n):
            e = &self._events[i]
            out.append([<object>e.name, e.thread, e.t0, e.t1, e.seq, e.kind,
                        None, None, None, None])
        return out

    cdef Py_ssize_t begin(self, object name, long kind, long long seq) except -1:
        cdef _Event* grown
        cdef _Event* e
        cdef Py_ssize_t i = self._n
        if i == self._cap:
            grown = <_Event*>PyMem_Realloc(self._events,
                                           (self._cap * 2 + 256) * sizeof(_Event))
            if grown == NULL:
                raise MemoryError()
            self._events = grown
            self._cap = self._cap * 2 + 256
        e = &self._events[i]
        Py_INCREF(name)
        e.name = <PyObject*>name
        e.thread = pyad_thread_id()
        e.t1 = 0
        e.seq = seq
        e.kind = kind
        self._n = i + 1
        e.t0 = pyad_clock_ns() if PYAD_DIRECT_CLOCK else _perf_counter_ns()
        return i

    cdef void drop_last(self, Py_ssize_t i) noexcept:
        # Forget event i, the last one begun (an op that turned out not to be one).
        if i == self._n - 1:
            Py_XDECREF(self._events[i].name)
            self._n = i

    cdef inline void end(self, Py_ssize_t i, long long seq) except *:
        cdef long long t = pyad_clock_ns() if PYAD_DIRECT_CLOCK else _perf_counter_ns()
        self._events[i].t1 = t
        self._events[i].seq = seq

    # The generic protocol (see _set_profiler), for callers outside the engine.
    def op_begin(self, name, args, next_seq):
        return self.begin(name, 0, -1)

    def op_end(self, Py_ssize_t rec, result, long long seq):
        self._check(rec)
        self.end(rec, seq)

    def node_begin(self, name, long long seq):
        return self.begin(name, 1, seq)

    def node_end(self, Py_ssize_t rec, grads):
        self._check(rec)
        self.end(rec, self._events[rec].seq)

    def user_begin(self, name):
        return self.begin(name, 2, -1)

    def user_end(self, Py_ssize_t rec):
        self._check(rec)
        self.end(rec, -1)

    cdef int _check(self, Py_ssize_t rec) except -1:
        if rec < 0 or rec >= self._n:
            raise IndexError("_EventLog(): no event with index %d" % rec)
        return 0


cdef inline bint _profile_enter():
    # Called only when _profiling: False for the one call _profiled makes itself.
    if pyad_get_profile_bypass():
        pyad_set_profile_bypass(0)
        return False
    return True


cdef inline bint _anomaly_on():
    return pyad_get_anomaly() & 1


def _set_anomaly_enabled(bint enabled, bint check_nan=True):
    """Turn anomaly mode on or off for the calling thread; return the previous
    (enabled, check_nan)."""
    cdef int previous = pyad_get_anomaly()
    pyad_set_anomaly((1 if enabled else 0) | (2 if check_nan else 0))
    return (bool(previous & 1), bool(previous & 2) or not previous)


def _is_anomaly_enabled():
    return bool(pyad_get_anomaly() & 1)


def _is_anomaly_check_nan_enabled():
    cdef int state = pyad_get_anomaly()
    return bool(state & 2) or not state       # default (never set): True, as torch


cdef extern from "Python.h":
    ctypedef struct PyFrameObject
    ctypedef struct PyCodeObject
    PyFrameObject* PyEval_GetFrame()                       # borrowed
    PyFrameObject* PyFrame_GetBack(PyFrameObject* frame)   # new reference or NULL
    PyCodeObject* PyFrame_GetCode(PyFrameObject* frame)    # new reference

cdef extern from *:
    """
    /* Where a frame is, cheaply: from Python 3.11 its bytecode offset (the line is
       looked up in the code's line table only when an error is formatted; the lookup
       is most of what PyFrame_GetLineNumber costs); before, the line number itself. */
    #if PY_VERSION_HEX >= 0x030B0000
    #define pyad_frame_position(f) PyFrame_GetLasti(f)
    #define pyad_position_line(code, pos) PyCode_Addr2Line((PyCodeObject *)(code), (pos))
    #else
    #define pyad_frame_position(f) PyFrame_GetLineNumber(f)
    #define pyad_position_line(code, pos) (pos)
    #endif
    """
    int pyad_frame_position(PyFrameObject* frame)
    int pyad_position_line(object code, int position)


cdef list _capture_stack():
    # The user's stack as [code, position, code, position, ...], innermost first:
    # references to code objects and numbers only (a frame would keep its locals alive),
    # walked with the C API; formatting (line numbers, file reads) waits until an error.
    # Cython functions have no frames, so the innermost one is the user's code.
    cdef list frames = []
    cdef PyFrameObject* frame = PyEval_GetFrame()
    cdef PyFrameObject* back
    cdef PyCodeObject* code
    cdef bint owned = False
    while frame != NULL:
        code = PyFrame_GetCode(frame)
        frames.append(<object>code)
        Py_DECREF(<object>code)
        frames.append(pyad_frame_position(frame))
        back = PyFrame_GetBack(frame)
        if owned:
            Py_DECREF(<object>frame)
        frame = back
        owned = True
    return frames


def _format_stack(frames):
    import linecache
    lines = []
    cdef Py_ssize_t i
    for i in range(len(frames) - 2, -1, -2):       # outermost first, as tracebacks read
        code = frames[i]
        lineno = pyad_position_line(code, frames[i + 1])
        filename = code.co_filename
        lines.append('  File "%s", line %d, in %s\n' % (filename, lineno, code.co_name))
        text = linecache.getline(filename, lineno).strip()
        if text:
            lines.append("    %s\n" % text)
    return "".join(lines)


# --------------------------------------------------------------------------------
# Iterative deallocation: a chain of 10^6 nodes must not free itself recursively.
# Each graph object parks its backward references here from __dealloc__ and the
# outermost dealloc drains the list in a loop.
# --------------------------------------------------------------------------------

cdef list _dealloc_pending = []
cdef int _dealloc_depth = 0
cdef int _MAX_DEALLOC_DEPTH = 200


cdef inline bint _enter_dealloc():
    # True: release references now (recursion is still shallow). False: park them.
    global _dealloc_depth
    if _dealloc_depth >= _MAX_DEALLOC_DEPTH:
        return False
    _dealloc_depth += 1
    return True


cdef inline void _leave_dealloc() noexcept:
    global _dealloc_depth
    _dealloc_depth -= 1
    if _dealloc_depth == 0 and _dealloc_pending:
        _drain_pending()


cdef void _drain_pending() noexcept:
    # Runs at depth 0: each pop frees one parked object, whose own releases recurse
    # at most _MAX_DEALLOC_DEPTH levels before parking again.
    global _dealloc_depth
    _dealloc_depth += 1
    try:
        while _dealloc_pending:
            _dealloc_pending.pop()
    finally:
        _dealloc_depth -= 1


# --------------------------------------------------------------------------------
# Array-module helpers (one place that knows about NumPy vs CuPy)
# --------------------------------------------------------------------------------

cdef inline object _xp_of(object data):
    if type(data) is _NDARRAY or cupy is None:
        return numpy
    return cupy.get_array_module(data)


def get_array_module(*args):
    """Return ``numpy`` or ``cupy`` for the given arrays or Variables."""
    for a in args:
        if isinstance(a, Variable):
            a = (<Variable>a)._data
        if cupy is not None and isinstance(a, cupy.ndarray):
            return cupy
    return numpy


cdef inline bint _is_float_dtype(object dtype):
    # (kind 'V': ml_dtypes' bfloat16 and float8 types, floating as torch's are)
    return dtype.kind == 'f' or dtype.kind == 'c' or (dtype.kind == 'V' and
                                                      _is_ml_float(dtype))


cdef bint _is_ml_float(object dtype):
    return dtype.type.__module__ == "ml_dtypes" and "float" in dtype.name


def _is_floating_or_complex(dtype):
    """Whether Variables of ``dtype`` can require grad (floating, complex, and ml_dtypes'
    bfloat16 and float8): the Python modules' check."""
    return _is_float_dtype(numpy.dtype(dtype))


cdef object _default_dtype = numpy.dtype(numpy.float32)


def set_default_dtype(d):
    """Set the floating dtype used for Python floats and factories (float32 default):
    float16, bfloat16 (ml_dtypes' type, the ``ml_dtypes`` extra), float32 or float64."""
    global _default_dtype
    d = numpy.dtype(d)
    # torch takes float16, bfloat16 (ml_dtypes' here), float32 and float64
    if d.kind != 'f' and not (d.kind == 'V' and d.name == "bfloat16" and _is_ml_float(d)):
        raise TypeError("set_default_dtype(): only floating dtypes are supported, got %s" % d)
    _default_dtype = d


cdef object _default_complex():
    """The complex dtype matching the default dtype (complex64 for float32 and float16,
    complex128 for float64), as torch's for Python complex numbers."""
    return numpy.dtype(numpy.complex128 if _default_dtype.itemsize == 8 else numpy.complex64)


def get_default_dtype():
    """Return the floating dtype used for Python floats and factories."""
    return _default_dtype


# pyad.func's per-thread stack of running transforms (registered when pyad.func is
# imported): requires_grad_() and retain_grad() are refused inside one, as torch.func's.
cdef object _transforms = None


def _register_transforms(state):
    global _transforms
    _transforms = state


cdef bint _inside_vmap():
    # Whether a pyad.func.vmap loop is running on this thread: it calls the function once
    # per batch entry, so an autograd.grad there must keep a graph built outside the
    # function for the next entry (torch runs one batched backward instead)
    return _transforms is not None and "vmap" in _transforms.stack


cdef int _refuse_in_transform(str op, str call, bint differentiating_only) except -1:
    if _transforms is None:
        return 0
    stack = _transforms.stack
    if not stack:
        return 0
    if differentiating_only and all(api == "vmap" for api in stack):
        return 0
    raise RuntimeError(
        "%s(): You are attempting to call Variable.%s inside of a function being "
        "transformed by a pyad.func transform (%s). This is unsupported, please attempt "
        "to use the pyad.func transforms (e.g. grad, vjp, jacrev, jacfwd, hessian) or call "
        "%s outside of a function being transformed instead."
        % (op, call, stack[len(stack) - 1], call.split(" ")[0]))


cdef inline Node _node_of(Variable v):
    # The node a gradient for `v` flows into: its producer, or its leaf accumulator.
    if v._view_fn is not None:
        _refresh_view(v)
    cdef Node node = v._grad_fn
    if node is None:
        node = v._get_accumulator()
    if node._gc_state == 0:
        _seal_node(node)
    return node


# --------------------------------------------------------------------------------
# Version counters
# --------------------------------------------------------------------------------

# A counter references nothing but its _VersionRare, which holds a private list of
# code objects and positions (anomaly mode): neither can be part of a cycle, so neither
# is a container of the cyclic GC (no GC header). A counter is kept alive by every saved
# value, so its size counts: 32 bytes (issue 19, item 2).
@cython.no_gc
cdef class _VersionRare:
    pass


@cython.no_gc
@cython.freelist(64)
cdef class VersionCounter:
    pass


cdef inline _VersionRare _vc_rare(VersionCounter counter):
    if counter._rare is None:
        counter._rare = _VersionRare.__new__(_VersionRare)
    return counter._rare


cdef inline Py_ssize_t _vc_detaches(VersionCounter counter) noexcept:
    return 0 if counter._rare is None else counter._rare.detaches


cdef inline VersionCounter _vc(Variable v):
    # Counters are created on first need (a save, a view, an in-place op): most
    # intermediate Variables never need one.
    if v._version_counter is None:
        v._version_counter = _new_version_counter(v)
    return v._version_counter


cdef inline void _bump_version(Variable v):
    cdef VersionCounter counter = _vc(v)
    counter.version += 1
    if _anomaly_on():
        # Remember the culprit, so the version error can say where it happened.
        _vc_rare(counter).last_change = _capture_stack()


# --------------------------------------------------------------------------------
# History changes: an in-place op (or a view's replay) gives a Variable a new grad_fn.
# Its retain_grad() follows it, so .grad is the gradient of the newest version (torch);
# hooks registered with register_hook stay with the old node (they saw the old value).
# --------------------------------------------------------------------------------

cdef void _add_retain_grad_hook(Variable v) except *:
    cdef _NodeExtra x = _extra(v._grad_fn)
    if x.retain_grad_hooks is None:
        x.retain_grad_hooks = {}
    x.retain_grad_hooks[v._output_nr] = weakref.ref(v)


cdef void _set_history(Variable v, Node node, Py_ssize_t output_nr) except *:
    cdef Node old = v._grad_fn
    cdef bint moved = v._retains_grad and (old is not node or v._output_nr != output_nr)
    if moved and old is not None and old._x is not None and old._x.retain_grad_hooks:
        ref = old._x.retain_grad_hooks.get(v._output_nr)
        if ref is not None and ref() is v:
            del old._x.retain_grad_hooks[v._output_nr]
    _track_var(v)
    v._grad_fn = node
    v._output_nr = output_nr
    if node is not None:
        v._requires_grad = True
        if moved:
            _add_retain_grad_hook(v)


# --------------------------------------------------------------------------------
# Hook handles
# --------------------------------------------------------------------------------

_handle_ids = itertools.count()


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook."""

    def __init__(self, container, key=None):
        self._container_ref = weakref.ref(container) if container is not None else None
        self._key = key
        self.id = next(_handle_ids)

    def remove(self):
        container = self._container_ref() if self._container_ref is not None else None
        if container is None:
            return
        if self._key is None:
            for i, entry in enumerate(container):
                if entry[0] == self.id:
                    del container[i]
                    return
        else:
            hooks = container.get(self._key)
            if hooks is None:
                return
            for i, entry in enumerate(hooks):
                if entry[0] == self.id:
                    del hooks[i]
                    return

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookList(list):
    # A plain list cannot be weakly referenced; handles must not keep hooks alive.
    __slots__ = ("__weakref__",)


class _HookDict(dict):
    __slots__ = ("__weakref__",)


# --------------------------------------------------------------------------------
# Node: one backward operation
# --------------------------------------------------------------------------------

# An edge entry, one per input of the forward op: None (the input needs no gradient:
# the public pair (None, 0)), the Node the gradient flows into when it is that node's
# output 0 (the common case: no tuple per edge), or a (Node, output_nr) pair for any
# other output. Node.next_functions builds torch's pairs from these on demand.
cdef object _NO_EDGE = None


cdef inline Node _entry_node(object e):
    if e is None:
        return None
    if type(e) is tuple:
        return <Node>(<tuple>e)[0]
    return <Node>e


cdef inline Py_ssize_t _entry_nr(object e):
    if type(e) is tuple:
        return <Py_ssize_t>(<tuple>e)[1]
    return 0


cdef inline object _make_entry(Node node, Py_ssize_t nr):
    if nr == 0 or node is None:
        return node
    return (node, nr)


# Node._ekind: where a node's entries are.
DEF _EK_NONE = 0      # no graph: not made by a forward op (or being freed)
DEF _EK_0 = 1         # no edges (AccumulateGrad)
DEF _EK_1 = 2         # one: _e0
DEF _EK_2 = 3         # two: _e0, _e1
DEF _EK_TUPLE = 4     # three or more: the tuple of entries in _e0

# The operators' fast path (ops/elementwise.pxi, _fast_binop): which op.
DEF _FAST_ADD = 0
DEF _FAST_SUB = 1
DEF _FAST_MUL = 2


cdef inline bint _has_graph(Node node):
    # False: the node was not made by a forward op.
    return node._ekind != _EK_NONE


cdef inline Py_ssize_t _num_edges(Node node):
    cdef unsigned char k = node._ekind
    if k == _EK_TUPLE:
        # (None after the cyclic GC cleared the node)
        return PyTuple_GET_SIZE(node._e0) if node._e0 is not None else 0
    if k == _EK_NONE:
        return 0
    return <Py_ssize_t>k - 1


cdef inline object _edge_at(Node node, Py_ssize_t i):
    # Entry i (0 <= i < _num_edges(node), which the caller checks).
    if node._ekind == _EK_TUPLE:
        return (<tuple>node._e0)[i]
    return node._e0 if i == 0 else node._e1


cdef inline Node _edge_node_at(Node node, Py_ssize_t i):
    return _entry_node(_edge_at(node, i))


cdef tuple _edge_entries(Node node):
    # The node's entries as one tuple (to give another node the same edges).
    cdef unsigned char k = node._ekind
    if k == _EK_TUPLE:
        return node._e0 if node._e0 is not None else ()
    if k == _EK_1:
        return (node._e0,)
    if k == _EK_2:
        return (node._e0, node._e1)
    return ()


cdef class _NodeExtra:
    # (fields in _engine.pxd) Allocated by _extra() the first time one is set.
    pass


cdef inline _NodeExtra _extra(Node node):
    # The node's side object for its rarely set fields, made on first need.
    if node._x is None:
        node._x = _NodeExtra.__new__(_NodeExtra)
    return node._x


cdef extern from "Python.h":
    void Py_SET_TYPE(PyObject* o, PyTypeObject* t)


cdef void _retype_node(object out, object input, type base, type alias) noexcept:
    # torch's node name for an op that pyad records with a node class shared by several
    # ops (t and transpose are permutes, bmm a matmul): `alias` is a static subclass of
    # `base` with no fields of its own (the same layout, checked at import by
    # _check_node_aliases), so the op's new node takes it in place. Nothing happens when
    # the op recorded no new node (its result is its input, or has no history).
    if type(out) is not Variable and not isinstance(out, Variable):
        return
    cdef Node node = (<Variable>out)._grad_fn
    if node is None or not isinstance(node, base) or out is input:
        return
    if isinstance(input, Variable) and (<Variable>input)._grad_fn is node:
        return
    Py_SET_TYPE(<PyObject*>node, <PyTypeObject*>alias)


cdef str _display_name_or(Node node, str name):
    # name(), for a node class whose torch name is fixed but not its class name
    if node._x is not None and node._x.display_name is not None:
        return node._x.display_name
    return name


cdef void _check_node_aliases(tuple aliases) except *:
    for alias in aliases:
        if (<PyTypeObject*>alias).tp_basicsize != \
                (<PyTypeObject*>alias.__base__).tp_basicsize:
            raise ImportError("_check_node_aliases(): node alias %s has fields of its own"
                              % alias.__name__)


def _name_grad_fn(out, input, str name):
    """Give ``out``'s node torch's name for the op that made it (``'MseLossBackward'``
    for mse_loss, whose last recorded op is a mean), unless ``out`` has no node of its
    own (its node is ``input``'s). For ops composed in Python; returns ``out``."""
    cdef Node node
    if isinstance(out, Variable) and out is not input:
        node = (<Variable>out)._grad_fn
        if node is not None and not (isinstance(input, Variable) and
                                     (<Variable>input)._grad_fn is node):
            _extra(node).display_name = name
            _untrack_extra(node)         # (a node already sealed keeps it outside the GC)
    return out


cdef inline bint _has_node_hooks(Node node):
    # Any Variable hook, retain_grad or node pre-hook on `node` (the backward loop's
    # one test before it takes the slow path).
    cdef _NodeExtra x = node._x
    return x is not None and bool(x.tensor_pre_hooks or x.retain_grad_hooks
                                  or x.pre_hooks)


cdef class Node:
    """A node of the backward graph (``grad_fn``), e.g. ``MulBackward``.

    ``next_functions`` holds, for each input of the forward op, the pair
    ``(node, input_nr)`` its gradient flows into (``(None, 0)`` for inputs that do
    not require grad).
    """

    def __dealloc__(self):
        if self._gc_state == 2:
            _unlink_untracked(self)
        elif self._gc_state == 3:
            _unlink_pending(self)
        if self._ekind == _EK_NONE:
            return
        self._ekind = _EK_NONE
        if _enter_dealloc():
            self._e0 = None
            self._e1 = None
            _leave_dealloc()
        else:
            if self._e0 is not None:
                _dealloc_pending.append(self._e0)
                self._e0 = None
            if self._e1 is not None:
                _dealloc_pending.append(self._e1)
                self._e1 = None

    cdef tuple _backward(self, tuple grads):
        raise NotImplementedError("%s has no backward" % self.name())

    cdef void _release_saved(self) noexcept:
        self._released = True

    cdef inline bint _needs_input_grad(self, Py_ssize_t i):
        return _edge_at(self, i) is not None

    def name(self):
        """The node's name, e.g. ``'MulBackward'``: torch's name for the op that made it
        (without torch's overload digit)."""
        if self._x is not None and self._x.display_name is not None:
            return self._x.display_name
        return type(self).__name__

    def __getattr__(self, str name):
        # Only reached when the normal lookup failed: torch's ``_saved_<name>`` (the
        # value a built-in node saved for backward, unpacked) and ``_raw_saved_<name>``
        # (the saved slot itself, whose register_hooks sets a pack/unpack pair).
        if name.startswith("_saved_") or name.startswith("_raw_saved_"):
            return _node_saved_attribute(self, name)
        raise AttributeError("'%s' object has no attribute '%s'" % (type(self).__name__, name))

    @property
    def next_functions(self):
        # A fresh tuple (as torch's): the node's own may be untracked by the cyclic GC
        # and must not end up inside the user's cycles.
        cdef Py_ssize_t i, n = _num_edges(self)
        cdef list pairs = [None] * n
        for i in range(n):
            e = _edge_at(self, i)
            pairs[i] = (_entry_node(e), _entry_nr(e))
        return tuple(pairs)

    @property
    def metadata(self):
        """A dict for user data attached to this node (kept with the graph)."""
        _user_attach(self)
        cdef _NodeExtra x = _extra(self)
        if x.metadata is None:
            x.metadata = {}
        return x.metadata

    def _sequence_nr(self):
        return self._seq

    def _set_sequence_nr(self, sequence_nr):
        """Set this node's priority in the backward pass: of the nodes ready at once,
        the one with the highest sequence number runs first (torch's private API)."""
        if isinstance(sequence_nr, float) or not hasattr(sequence_nr, "__index__"):
            raise TypeError("Node._set_sequence_nr(): an integer is required, got %s"
                            % type(sequence_nr).__name__)
        n = sequence_nr.__index__()
        if n < 0 or n >= _ACCUMULATE_SEQUENCE:
            raise OverflowError("Node._set_sequence_nr(): a sequence number must be in "
                                "[0, 2**62), got %d" % n)
        if self._seq >= _ACCUMULATE_SEQUENCE:
            raise ValueError("Node._set_sequence_nr(): set on a backward node, not an "
                             "accumulator (pyad's run first whenever they are ready)")
        self._seq = n

    def register_hook(self, fn):
        """Register ``fn(grad_inputs, grad_outputs)`` to run after this node's backward.

        It may return a tuple replacing ``grad_inputs``. Returns a removable handle.
        """
        _hook_attach(self)
        cdef _NodeExtra x = _extra(self)
        if x.post_hooks is None:
            x.post_hooks = _HookList()
        handle = RemovableHandle(x.post_hooks)
        x.post_hooks.append((handle.id, fn))
        return handle

    def register_prehook(self, fn):
        """Register ``fn(grad_outputs)`` to run before this node's backward.

        It may return a tuple replacing ``grad_outputs``. Returns a removable handle.
        """
        _hook_attach(self)
        cdef _NodeExtra x = _extra(self)
        if x.pre_hooks is None:
            x.pre_hooks = _HookList()
        handle = RemovableHandle(x.pre_hooks)
        x.pre_hooks.append((handle.id, fn))
        return handle

    cdef object _add_tensor_pre_hook(self, Py_ssize_t output_nr, object fn):
        _hook_attach(self)
        cdef _NodeExtra x = _extra(self)
        if x.tensor_pre_hooks is None:
            x.tensor_pre_hooks = _HookDict()
        hooks = x.tensor_pre_hooks.get(output_nr)
        if hooks is None:
            hooks = x.tensor_pre_hooks[output_nr] = []
        handle = RemovableHandle(x.tensor_pre_hooks, output_nr)
        hooks.append((handle.id, fn))
        return handle

    def __init__(self, *args, **kwargs):
        # Built-in nodes are made by their forward op (through __new__, which skips
        # this); one made from Python would have no graph. A custom Function's node
        # class is instantiated by Function.apply.
        if not isinstance(self, FunctionNode):
            raise TypeError("cannot create '%s' instances: backward nodes are made by the "
                            "forward ops" % type(self).__name__)

    def __call__(self, *grads):
        """Run this node's backward formula on ``grads`` (one per forward output).

        Each gradient is a Variable (or an array) or None, as torch's ``grad_fn(...)``;
        hooks do not run. Returns a tuple, one gradient (or None) per forward input;
        all None in: nothing flows, every result is None.
        """
        # The engine calls _backward directly; this checks what a C-level backward
        # assumes (its count of Variables, its graph) so a Python caller gets an error.
        cdef Py_ssize_t i, n = len(grads)
        cdef list checked
        cdef bint any_grad = False
        if not _has_graph(self):
            raise RuntimeError("%s was not created by a forward op, so it has no graph to "
                               "run backward on" % self.name())
        if n != self._num_outputs:
            raise TypeError("%s expected %d arguments, got %d instead"
                            % (self.name(), self._num_outputs, n))
        checked = list(grads)
        for i in range(n):
            checked[i] = _checked_grad(checked[i], self, i, "argument")
            any_grad = any_grad or checked[i] is not None
        if not any_grad:
            return (None,) * _num_edges(self)
        grads = tuple(checked)
        if self._x is not None and self._x.out_meta is not None:
            grads = _materialize(self, grads)
        return _call_backward(self, grads)

    def __repr__(self):
        return "<%s object at %#x>" % (self.name(), id(self))


cdef object _checked_grad(object g, Node node, Py_ssize_t i, str what):
    # A gradient handed to a node from Python (a call, a hook's result): None, a
    # Variable with data, or an array (wrapped). Backward formulas assume nothing else.
    if g is None:
        return None
    if isinstance(g, Variable):
        if (<Variable>g)._data is None:
            raise TypeError("%s %d given to %s is a Variable without data (made by "
                            "Variable.__new__ and never initialised)" % (what, i, node.name()))
        return g
    if type(g) is _NDARRAY or (cupy is not None and isinstance(g, cupy.ndarray)):
        return _wrap(g)
    raise TypeError("%s %d given to %s is not a Variable (got %s)"
                    % (what, i, node.name(), type(g).__name__))


cdef inline int _init_node(Node node, tuple edges, Py_ssize_t num_outputs) except -1:
    # edges: the node's entries, one per forward input (see _NO_EDGE).
    cdef Py_ssize_t k = len(edges)
    if k == 1:
        _init_node1(node, edges[0], num_outputs)
    elif k == 2:
        _init_node2(node, edges[0], edges[1], num_outputs)
    elif k == 0:
        node._e0 = None
        node._e1 = None
        node._ekind = _EK_0
        _init_node_seq(node, num_outputs)
    else:
        node._e0 = edges
        node._e1 = None
        node._ekind = _EK_TUPLE
        _init_node_seq(node, num_outputs)
    return 0


cdef inline int _init_node1(Node node, object e0, Py_ssize_t num_outputs) except -1:
    # A one-input op's node (no tuple for its edge).
    node._e0 = e0
    node._e1 = None
    node._ekind = _EK_1
    return _init_node_seq(node, num_outputs)


cdef inline int _init_node2(Node node, object e0, object e1, Py_ssize_t num_outputs) except -1:
    node._e0 = e0
    node._e1 = e1
    node._ekind = _EK_2
    return _init_node_seq(node, num_outputs)


cdef inline int _init_node_seq(Node node, Py_ssize_t num_outputs) except -1:
    # (an int result, not void: Cython checks a void function's error with a call to
    # PyErr_Occurred after each use, an int one by its value)
    global _sequence_counter
    node._num_outputs = num_outputs
    node._seq = _sequence_counter
    _sequence_counter += 1
    if _anomaly_on():
        _init_node_anomaly(node)
    return 0


cdef void _init_node_anomaly(Node node) except *:
    cdef _NodeExtra x = _extra(node)
    x.creation_stack = _capture_stack()
    x.parent_node = _current_node


cdef inline object _edge(Variable v):
    # v's edge entry (see _NO_EDGE).
    if v._view_fn is not None:
        _refresh_view(v)
    if not v._requires_grad:
        return _NO_EDGE
    cdef Node node = v._grad_fn
    if node is None:
        node = v._get_accumulator()
    if node._gc_state == 0:
        _seal_node(node)        # its op has returned: untrack it if it can hold no cycle
    if v._grad_fn is None or v._output_nr == 0:
        return node
    return (node, v._output_nr)


cdef long long _ACCUMULATE_SEQUENCE = 1LL << 62
cdef long long _accumulator_counter = 0


cdef class AccumulateGrad(Node):
    """The sink of a leaf Variable: adds incoming gradients into ``leaf.grad``."""

    @property
    def variable(self):
        return self._variable_ref() if self._variable_ref is not None else None

    cdef tuple _backward(self, tuple grads):
        cdef Variable leaf = self._variable_ref()
        if leaf is None:
            return ()
        _accumulate_grad(leaf, <Variable>grads[0])
        if self._post_accumulate_hooks:
            for _, hook in list(self._post_accumulate_hooks):
                if hook(leaf) is not None:
                    raise RuntimeError("Variable post accumulate grad hooks should return "
                                       "None.")
        return ()


cdef AccumulateGrad _new_accumulator(Variable leaf):
    global _accumulator_counter
    cdef AccumulateGrad acc = AccumulateGrad.__new__(AccumulateGrad)
    acc._ekind = _EK_0
    acc._num_outputs = 1
    # Sinks run first when ready: it frees the gradient and lets hooks see it early.
    # They count on their own, so an op's node gets the number the op saw next
    # (emit_nvtx announces it before the op runs, as torch does).
    acc._seq = _ACCUMULATE_SEQUENCE + _accumulator_counter
    _accumulator_counter += 1
    acc._variable_ref = weakref.ref(leaf)
    return acc


cdef bint _owned_by(Variable grad):
    # True when nothing but `grad` can reach its array (nor the array's base), so
    # .grad may take the buffer instead of copying it (torch steals the same way).
    # The engine drops its own extra references before a sink runs, leaving exactly:
    # grad <- the grads tuple, the sink's argument temp and this argument (3);
    # data <- grad._data and the two callers' locals (3). Anything more (a second
    # sink, a hook, the user's own gradient) means shared: copy.
    data = grad._data
    if Py_REFCNT(grad) > 3 or Py_REFCNT(data) > 3 or grad._grad_fn is not None:
        return False
    if type(data) is not _NDARRAY:
        return data.base is None
    # Only a plain writable contiguous buffer may become .grad (never a broadcast view).
    if not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>data) or \
            not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>data):
        return False
    base = data.base
    if base is None:
        return True
    return type(base) is _NDARRAY and base.base is None and Py_REFCNT(base) <= 2


cdef bint _dense_not_c_order(object a):
    # A NumPy array that is non-overlapping and dense (its elements fill one block of
    # memory, positive strides) but not C-contiguous: channels_last-like layouts.
    if type(a) is not _NDARRAY or cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>a):
        return False                  # (the common case, from the array struct)
    pairs = sorted((s, n) for s, n in zip(a.strides, a.shape) if n != 1)
    cdef Py_ssize_t expected = a.itemsize
    for s, n in pairs:
        if s != expected:
            return False
        expected *= n
    return True


cdef void _accumulate_grad(Variable leaf, Variable grad) except *:
    cdef Variable existing = leaf._grad
    cdef object data = grad._data
    if existing is None:
        if _grad_enabled():
            # create_graph: .grad keeps its history so it can be differentiated again.
            leaf._grad = grad
        elif (_dense_not_c_order(leaf._data) and _has_shape(data, leaf._data.shape)
                and data.strides != leaf._data.strides):
            # torch: the .grad of a non-overlapping, dense leaf has the leaf's layout
            # (strides); any other leaf gets a row-major .grad
            out = numpy.empty_like(leaf._data)      # order 'K': the leaf's strides
            out[...] = data
            leaf._grad = _wrap(out)
        else:
            leaf._grad = _wrap(data if _owned_by(grad) else data.copy())
        return
    if _grad_enabled():
        leaf._grad = existing + grad
    # Without create_graph, torch adds into the existing .grad in place even when it
    # requires grad itself (left by an earlier create_graph backward): same object.
    else:
        edata = existing._data
        if _is_writeable(edata) and _has_shape(data, edata.shape):
            edata += data
            _bump_version(existing)
        else:
            leaf._grad = _wrap(edata + data)


# --------------------------------------------------------------------------------
# SavedVariable: a value a node keeps for its backward, with the version it had
# --------------------------------------------------------------------------------

cdef object _freed_error(Node owner):
    return RuntimeError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed) in %s. Saved intermediate values of "
        "the graph are freed when you call .backward() or autograd.grad(). Specify "
        "retain_graph=True if you need to backward through the graph a second time or if "
        "you need to access saved tensors after calling backward." % owner.name())


@cython.freelist(64)
cdef class SavedVariable:

    def __dealloc__(self):
        if self._grad_fn is None:
            return
        if _enter_dealloc():
            self._grad_fn = None
            _leave_dealloc()
        else:
            _dealloc_pending.append(self._grad_fn)
            self._grad_fn = None

    cdef object data(self, Node owner):
        # The saved array, after the same checks as unpack (fast backward paths).
        if self._released:
            raise _freed_error(owner)
        if self._hooked:
            return self._unpack_hooked(owner)._data
        if _sv_stale(self):
            raise RuntimeError(self._version_error(owner))
        return self._data

    cdef str _version_error(self, Node owner):
        if <unsigned short>_vc_detaches(self._version_counter) != self._saved_detaches:
            return ("Trying to use a saved tensor that has been detached in-place, i.e. with "
                    ".detach_(). This is not supported, please use out-of-place `.detach()` "
                    "instead (saved by %s)." % owner.name())
        if self._is_output:
            which = "output %d of %s" % (self._output_nr, owner.name())
        else:
            which = ("input %d" % self._input_nr if self._input_nr >= 0 else "an input")
            which += " of %s" % owner.name()
            if self._grad_fn is not None and not isinstance(self._grad_fn, AccumulateGrad):
                which += " (output %d of %s)" % (self._output_nr, self._grad_fn.name())
            elif self._grad_fn is not None:
                which += " (a leaf)"
        message = ("one of the variables needed for gradient computation has been modified "
                   "by an inplace operation: [%s %s], which is %s, is at version %d; "
                   "expected version %d instead. "
                   % (self._data.dtype, _shape_str(self._data.shape), which,
                      self._version_counter.version, self._saved_version))
        cdef _VersionRare rare = self._version_counter._rare
        if rare is not None and rare.last_change is not None:
            message += ("The last in-place change was made here:\n%s"
                        % _format_stack(rare.last_change))
        else:
            message += ("Hint: the saved value was modified in place after the forward op "
                        "ran; make a copy (.clone()) before modifying it, or enable anomaly "
                        "detection to see where it was modified.")
        return message

    cdef Variable _unpack_hooked(self, Node owner):
        # The value a saved_tensors_hooks pair packed, from its unpack hook (called at
        # each use, as torch). As in torch, there is no version check (the hooks own the
        # value) and the result takes the saved value's history.
        cdef Variable v
        packed, unpack_hook = self._data
        result = unpack_hook(packed)
        if not isinstance(result, Variable):
            raise TypeError("Output of saved tensor unpack_hook expected to be a Variable but "
                            "got result of type %s" % type(result).__name__)
        if not self._requires_grad and not (<Variable>result)._requires_grad:
            return <Variable>result     # nothing to attach: the hook's own object (torch)
        v = Variable.__new__(Variable)
        v._data = (<Variable>result)._data
        v._version_counter = _vc(<Variable>result)
        self._attach_history(v, owner)
        return v

    cdef Variable unpack(self, Node owner):
        cdef Variable v
        if self._hooked and not self._released:
            return self._unpack_hooked(owner)
        self.data(owner)
        v = Variable.__new__(Variable)
        v._data = self._data
        v._version_counter = self._version_counter
        self._attach_history(v, owner)
        return v

    cdef void _attach_history(self, Variable v, Node owner) except *:
        if self._requires_grad:
            v._requires_grad = True
            v._grad_fn = owner if self._is_output else self._grad_fn
            v._output_nr = self._output_nr
            if self._is_output and owner._x is not None and owner._x.metadata is not None:
                _attach_to_group(v, owner)

    cdef void release(self) noexcept:
        self._released = True
        self._data = None
        if self._grad_fn is not None:
            if _enter_dealloc():
                self._grad_fn = None
                _leave_dealloc()
            else:
                _dealloc_pending.append(self._grad_fn)
                self._grad_fn = None


# A node that is one part of a multi-output node (reduction.pxi's _GroupBackward) keeps
# (weakref to the group, output index) under this key of its _metadata: an output it
# saved must come back attached to the group, the node its Variable really has, or a
# create_graph backward would reach the part both through the group and on its own.
cdef object _GROUP_KEY = object()


cdef void _attach_to_group(Variable v, Node part):
    entry = part._x.metadata.get(_GROUP_KEY)
    if entry is None:
        return
    group = entry[0]()
    if group is not None:
        v._grad_fn = group
        v._output_nr = entry[1]


cdef inline void _sv_stamp(SavedVariable s) noexcept:
    # Remember the counter's state, to tell at unpack whether the value changed since.
    s._saved_version = <unsigned int>s._version_counter.version
    s._saved_detaches = <unsigned short>_vc_detaches(s._version_counter)


cdef inline bint _sv_stale(SavedVariable s) noexcept:
    return (<unsigned int>s._version_counter.version != s._saved_version or
            <unsigned short>_vc_detaches(s._version_counter) != s._saved_detaches)


cdef inline SavedVariable _save(Variable v, bint is_output, Py_ssize_t input_nr=-1):
    cdef SavedVariable s
    if v._is_inference and not pyad_get_inference():
        raise RuntimeError(
            "Inference tensors cannot be saved for backward. Please do not use Variables "
            "created in inference mode in computation tracked by autograd. To work around "
            "this, you can make a clone to get a normal Variable and use it in autograd, or "
            "use `pyad.no_grad()` instead of `pyad.inference_mode()`.")
    s = SavedVariable.__new__(SavedVariable)
    s._input_nr = input_nr if input_nr <= 32767 else -1
    s._data = v._data
    s._version_counter = _vc(v)
    _sv_stamp(s)
    s._output_nr = v._output_nr
    s._is_output = is_output
    if v._requires_grad:
        s._requires_grad = True
        # No strong reference to any Variable: an output is re-attached to its owner
        # node at unpack, and a leaf is reached through its accumulator (which holds
        # the leaf weakly), so create_graph cannot make leaf -> .grad -> node -> leaf
        # cycles.
        if not is_output:
            s._grad_fn = _node_of(v)
    if _saved_hooks_on:
        _pack_saved(s, v)
    return s


# -- saved_tensors_hooks (pyad.autograd.graph) ---------------------------------------------
#
# The innermost (pack_hook, unpack_hook) pair of the open saved_tensors_hooks contexts
# packs every value saved for a backward (built-in ops and custom Functions alike); the
# SavedVariable then keeps (packed, unpack_hook) in place of the array, and each use of
# the value calls the unpack hook. One C flag tests for hooks per save.

cdef list _saved_hooks = []
cdef bint _saved_hooks_on = False
cdef object _saved_hooks_disabled = None     # disable_saved_tensors_hooks' message


def _push_saved_tensors_hooks(pack_hook, unpack_hook):
    global _saved_hooks_on
    if _saved_hooks_disabled is not None:
        raise RuntimeError(_saved_hooks_disabled)
    if not callable(pack_hook) or not callable(unpack_hook):
        raise TypeError("saved_tensors_hooks(): pack_hook and unpack_hook must be callable")
    _saved_hooks.append((pack_hook, unpack_hook))
    _saved_hooks_on = True


def _pop_saved_tensors_hooks():
    global _saved_hooks_on
    if _saved_hooks:
        _saved_hooks.pop()
    _saved_hooks_on = len(_saved_hooks) > 0


def _saved_tensors_hooks_disabled_message():
    return _saved_hooks_disabled


def _set_saved_tensors_hooks_disabled(message):
    global _saved_hooks_disabled
    _saved_hooks_disabled = None if message is None else str(message)
    if _saved_hooks_disabled is not None and _saved_hooks:
        # torch: disabling while a pair of hooks is set fails with the same message
        raise RuntimeError(_saved_hooks_disabled)


cdef void _pack_saved(SavedVariable s, Variable v) except *:
    global _saved_hooks_on
    pack_hook, unpack_hook = _saved_hooks[len(_saved_hooks) - 1]
    version = _vc(v).version
    _saved_hooks_on = False                    # the hook's own ops save plainly
    try:
        packed = pack_hook(v)
    finally:
        _saved_hooks_on = len(_saved_hooks) > 0
    if _vc(v).version != version:
        raise RuntimeError("A saved tensor pack hook is modifying its input in place. Tensors "
                           "provided as input to pack hook can not be modified by in-place "
                           "operations as this can lead to unexpected side-effects. Please "
                           "open an issue if you need to perform in-place operations on the "
                           "input to a pack hook.")
    s._data = (packed, unpack_hook)
    s._hooked = True


# torch.set_warn_always: warnings torch gives once per process are given every time.
cdef bint _warn_always = False
cdef set _warned_once = set()    # keys of the once-per-process warnings given


def _set_warn_always(value):
    global _warn_always
    _warn_always = bool(value)


def _is_warn_always_enabled():
    return _warn_always


cdef void _warn_once(str key, str message) except *:
    # torch's TORCH_WARN_ONCE: a UserWarning once per process unless warn_always
    # (stacklevel 1: compiled code has no frame, so it points at the user's line).
    if key in _warned_once and not _warn_always:
        return
    _warned_once.add(key)
    warnings.warn(message, UserWarning, stacklevel=1)


# float() of a Variable that requires grad, with grad mode on (torch's text, which user
# code filters on)
cdef str _SCALAR_CONVERSION_WARNING = (
    "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
    "behavior.\nConsider using tensor.detach() first.")
# backward(create_graph=True) accumulates into .grad a gradient whose graph holds the
# parameter (grad() does not warn: it accumulates nothing)
cdef str _CREATE_GRAPH_BACKWARD_WARNING = (
    "Using backward() with create_graph=True will create a reference cycle between the "
    "parameter and its gradient which can cause a memory leak. We recommend using "
    "autograd.grad when creating the graph to avoid this. If you have to use this "
    "function, make sure to reset the .grad fields of your parameters to None after use "
    "to break the cycle and avoid the leak.")


cdef str _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


include "_memory_format.pxi"


# --------------------------------------------------------------------------------
# Devices
# --------------------------------------------------------------------------------

class device:
    """Where a Variable's data lives: ``device('cpu')`` or ``device('cuda', 0)``."""

    def __init__(self, type, index=None):
        if isinstance(type, device):
            type, index = type.type, type.index
        elif isinstance(type, int) and not isinstance(type, bool):
            # torch: a bare index names the accelerator's device
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            if cupy is None:
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        elif isinstance(type, str) and ":" in type:
            name, _, idx = type.partition(":")
            # torch's grammar: a decimal index without sign, spaces or leading zeros
            if not (idx.isdigit() and idx.isascii()) or (len(idx) > 1 and idx[0] == "0"):
                raise RuntimeError("Invalid device string: %r" % (type,))
            type, index = name, int(idx)
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError("device(): argument 'index' (position 2) must be int, not %s"
                                % builtins.type(index).__name__)
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        if type not in ("cpu", "cuda"):
            raise RuntimeError("Expected one of cpu, cuda device type, got %r" % (type,))
        if type == "cuda" and index is None:
            index = 0
        self.type = type
        self.index = index

    def __eq__(self, other):
        # torch: a device equals only a device (device('cpu') == 'cpu' is False)
        if not isinstance(other, device):
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)

    def __repr__(self):
        if self.index is None:
            return "device(type=%r)" % self.type
        return "device(type=%r, index=%d)" % (self.type, self.index)

    # As torch 2's: ``with pyad.device("cuda"):`` makes it the default device of
    # factories and new modules inside the block (set_default_device), restored after.
    def __enter__(self):
        from pyad import _factories
        self.__dict__.setdefault("_outer_defaults", []).append(_factories.get_default_device())
        _factories.set_default_device(self)
        return self

    def __exit__(self, *exc_info):
        from pyad import _factories
        _factories.set_default_device(self.__dict__["_outer_defaults"].pop())
        return False


_CPU = device("cpu")


cdef object _device_of(object data):
    if type(data) is _NDARRAY:
        return _CPU
    if cupy is not None and isinstance(data, cupy.ndarray):
        return device("cuda", data.device.id)
    return _CPU


cdef object _require_cupy(what):
    if cupy is None:
        raise RuntimeError(
            "%s(): device 'cuda' needs CuPy and an NVIDIA GPU; install pyad[cuda]" % what)
    return cupy


def _move_to_device(data, dev, what="to"):
    """Return ``data`` on device ``dev`` (no copy if it is already there)."""
    if dev is None:
        return data
    dev = device(dev)
    if dev.type == "cpu":
        if type(data) is _NDARRAY:
            return data
        return data.get()
    cp = _require_cupy(what)
    if isinstance(data, cp.ndarray) and data.device.id == dev.index:
        return data
    with cp.cuda.Device(dev.index):
        return cp.asarray(data)


cdef object _full_on_device(tuple shape, object value, object dtype, object dev):
    """An array of ``shape`` filled with ``value``, made on ``dev`` itself (no host array
    copied over)."""
    if dev is None or device(dev).type == "cpu":
        return numpy.full(shape, value, dtype=dtype)
    dev = device(dev)
    cp = _require_cupy("full")
    with cp.cuda.Device(dev.index):
        return cp.full(shape, value, dtype=dtype)


# --------------------------------------------------------------------------------
# Converting user data to arrays
# --------------------------------------------------------------------------------

def _array_of(data, what):
    """``data`` as an array, its dtype inferred as ``pyad.tensor`` infers it (a list of
    ints is int64): what the factories build on, where ``Variable(list)`` follows torch's
    legacy constructor (the default float dtype)."""
    return _to_array(data, None, what)


cdef object _to_array(object data, object dtype, str what):
    """The ndarray for `data` without copying arrays; Python floats use the default dtype."""
    cdef object arr
    if isinstance(data, Variable):
        arr = (<Variable>data)._data
    elif type(data) is _NDARRAY or (cupy is not None and isinstance(data, cupy.ndarray)):
        arr = data
    elif isinstance(data, (str, bytes)) or data is None:
        raise TypeError("%s(): data must be an array, a number or a (nested) sequence of "
                        "numbers, got %s" % (what, type(data).__name__))
    elif isinstance(data, _NUMPY_SCALAR):      # before float: numpy.float64 is a float
        arr = numpy.asarray(data)
    elif isinstance(data, bool):
        arr = numpy.asarray(data)
    elif isinstance(data, int):
        arr = numpy.asarray(data, dtype=numpy.int64)
    elif isinstance(data, float):
        arr = numpy.asarray(data, dtype=_default_dtype if dtype is None else dtype)
    elif isinstance(data, complex):
        arr = numpy.asarray(data, dtype=_default_complex() if dtype is None else dtype)
    elif hasattr(data, "__dlpack__"):
        # Any other array library: share its memory through DLPack. If it refuses
        # (torch does for tensors that require grad), fall back to __array__ below.
        try:
            arr = _array_from_dlpack(data)
        except (BufferError, RuntimeError, TypeError, ValueError):
            if not hasattr(data, "__array__"):
                raise
            arr = _to_array(numpy.asarray(data), dtype, what)
    else:
        try:
            arr = numpy.asarray(data)
        except Exception as exc:
            raise TypeError("%s(): could not convert %s to an array: %s"
                            % (what, type(data).__name__, exc)) from None
        if arr.dtype.kind in "fc" and dtype is None and not isinstance(data, numpy.ndarray) \
                and not hasattr(data, "dtype"):
            # Python floats and complex numbers in sequences follow the default dtype;
            # NumPy scalars, arrays and Variables in them keep theirs (torch's inference)
            target = _sequence_dtype(data)
            if target is None:
                target = _default_dtype if arr.dtype.kind == "f" else _default_complex()
            if arr.dtype != target:
                arr = arr.astype(target)
    if _dtype_kind(arr) not in b"biufc" and arr.dtype.type.__module__ != "ml_dtypes":
        # Arrays handed over as they are (NumPy, CuPy, DLPack) can hold strings, objects,
        # dates...: refused as torch refuses them (ml_dtypes' bfloat16 and float8 are
        # numbers NumPy computes with).
        raise TypeError("%s(): data must be numeric (bool, integer, floating point or "
                        "complex), got an array of dtype %s" % (what, arr.dtype))
    if dtype is not None:
        dtype = numpy.dtype(dtype)
        if arr.dtype != dtype:
            arr = arr.astype(dtype)
    return arr


cdef object _INT64_DTYPE = numpy.dtype(numpy.int64)
cdef object _BOOL_DTYPE = numpy.dtype(numpy.bool_)


cdef object _sequence_dtype(object obj):
    # torch's dtype for a (nested) sequence: each Python float the default dtype, int
    # int64, complex the default complex; NumPy scalars, arrays and Variables their own;
    # all promoted as torch promotes ([1, numpy.float64(2)] is float64, [1, 2.5]
    # float32). None for anything else (NumPy's answer stands).
    cdef type t = type(obj)
    if t is float:
        return _default_dtype
    if t is int:
        return _INT64_DTYPE
    if t is bool:
        return _BOOL_DTYPE
    if t is complex:
        return _default_complex()
    if isinstance(obj, Variable):
        return (<Variable>obj)._data.dtype
    if isinstance(obj, (_NDARRAY, _NUMPY_SCALAR)):
        return obj.dtype
    if t is list or t is tuple:
        result = None
        for item in obj:
            d = _sequence_dtype(item)
            if d is None:
                return None
            if result is None:
                result = d
            elif d is not result:
                result = _promote_pair(result, d)
        return result
    return None


cdef object _resize_storage(object data):
    # torch's storage seen from a Variable's first element, as 1-d: the rest of the
    # C-contiguous buffer that owns the memory when the data starts inside it (so a
    # shrunk Variable grows back over its old elements), else a C-order copy.
    root = data
    while isinstance(root.base, type(data)):
        root = root.base
    if type(data) is _NDARRAY and root.flags.c_contiguous and root.size and data.size:
        offset = data.__array_interface__["data"][0] - root.__array_interface__["data"][0]
        if offset >= 0 and offset % data.itemsize == 0 and root.dtype == data.dtype:
            return root.reshape(-1)[offset // data.itemsize:]
    return data.reshape(-1) if data.flags.c_contiguous else data.copy().reshape(-1)


cdef void _check_one_element(Variable v) except *:
    # float(), int() and complex() of a Variable refuse with torch's type (ValueError;
    # item() says RuntimeError)
    if v._data.size != 1:
        raise ValueError("only one element Variables can be converted to Python scalars")


cdef inline Variable _wrap(object data):
    cdef Variable v = Variable.__new__(Variable)
    v._data = data
    return v


cdef inline void _track_var(Variable v) noexcept:
    # A Variable made by an op that records nothing starts outside the cyclic
    # collector's lists (_plain): all it holds is a NumPy array, None and its version
    # counter, none of which a cycle can pass through. It joins the lists here, before
    # any assignment that gives it something a cycle could pass through: a grad,
    # grad_fn, view base or replay function, accumulator, name or non-NumPy data.
    # Every such assignment to an existing Variable calls this first
    # (tests/autograd/test_gc_plain_variables.py). A leaf that gradients accumulate into
    # was tracked when its accumulator was made (_get_accumulator), so _accumulate_grad,
    # on the backward's path, need not.
    __pyad_track(<PyObject*>v)             # (_gctrack.pxi: tracks it if it is not)


cdef inline Variable _as_variable(object x, str what):
    # `what` names the op in the error for data that is not array-like.
    if isinstance(x, Variable):
        return <Variable>x
    return _wrap(_to_array(x, None, what))


cdef inline void _check_can_require_grad(object dtype, str what) except *:
    if not _is_float_dtype(dtype):
        raise RuntimeError("%s(): only Variables of floating point dtype can require "
                           "gradients, got %s" % (what, dtype))


# --------------------------------------------------------------------------------
# Variable
# --------------------------------------------------------------------------------

cdef object _NO_DATA = object()     # Variable() without data (None is refused, not empty)


cdef tuple _empty_strides(tuple shape):
    # torch's strides of a contiguous Variable with no elements (each at least 1 wide:
    # (5, 0, 3) -> (3, 3, 1)); NumPy gives an empty array zero strides
    cdef list strides = []
    cdef Py_ssize_t step = 1
    for n in reversed(shape):
        strides.append(step)
        step *= n if n > 1 else 1
    strides.reverse()
    return tuple(strides)


cdef object _map_operand(Variable self, object t, str name, str what):
    # an operand of map_/map2_: a Variable of self's dtype that does not require grad,
    # broadcast to self's shape (as torch's)
    if not isinstance(t, Variable):
        raise TypeError("%s(): argument '%s' must be a Variable, not %s"
                        % (what, name, type(t).__name__))
    if (<Variable>t)._requires_grad:
        raise RuntimeError("%s(): Can't call %s() on Variable that requires grad. Use "
                           "var.detach().%s() instead." % (what, what, what))
    if (<Variable>t)._data.dtype != self._data.dtype:
        raise TypeError("%s(): expected %s for argument '%s' (got %s)"
                        % (what, self._data.dtype, name, (<Variable>t)._data.dtype))
    try:
        return numpy.broadcast_to((<Variable>t)._data, self._data.shape)
    except ValueError:
        raise RuntimeError("%s(): the size of %s cannot be broadcast to %s"
                           % (what, _shape_str(t.shape), _shape_str(self._data.shape))) \
            from None


cdef object _mapped_number(object value, str what):
    # what apply_/map_/map2_'s callable returned, checked: a number (torch: TypeError)
    if isinstance(value, (bool, int, float, complex, numpy.number, numpy.bool_)):
        return value
    raise TypeError("%s(): the callable must return a number, got %s"
                    % (what, type(value).__name__))


cdef void _set_complex_part(Variable x, object value, bint real_part) except *:
    # x.real = value / x.imag = value: torch writes through the part's view. NumPy's
    # .real/.imag of a complex array are writable views too; with history to record,
    # the whole Variable is written as the complex number of the new part and the kept one.
    what = "real" if real_part else "imag"
    if _dtype_kind(x._data) != b'c':
        if real_part:
            copy_(x, value)
            return
        raise RuntimeError("imag(): imag is not implemented for Variables with non-complex "
                           "dtypes.")
    if _grad_enabled() and (_requires_grad_now(x) or _operand_requires_grad(value)):
        part = broadcast_to(value if isinstance(value, Variable) else
                            _wrap(_xp_of(x._data).asarray(value)), x._data.shape)
        whole = (add(part, mul(imag(x), 1j)) if real_part else
                 add(real(x), mul(part, 1j)))
        copy_(x, whole)
        return
    _refuse_overlap_with(x._data, value, what)
    target = x._data.real if real_part else x._data.imag
    if not _is_writeable(target):
        raise _unwritable_error(x, what)
    try:
        target[...] = _operand_data(value, what)
    except ValueError:
        raise _broadcast_error(what, x, value) from None
    _bump_version(x)


cdef tuple _legacy_alpha_form(str what, object alpha, tuple rest, object given_alpha):
    # torch's deprecated overload add(Number alpha, Tensor other) (and sub, add_, sub_):
    # the old optimizers' p.data.add_(-lr, grad); returns (other, alpha)
    if len(rest) != 1 or _scalar_category(alpha) < 0 or given_alpha != 1:
        raise TypeError("%s() received an invalid combination of arguments: expected "
                        "(Variable other, *, Number alpha=1) or, deprecated, (Number alpha, "
                        "Variable other)" % what)
    warnings.warn("This overload of %s is deprecated:\n\t%s(Number alpha, Tensor other)\n"
                  "Consider using one of the following signatures instead:\n\t%s(Tensor "
                  "other, *, Number alpha = 1)" % (what, what, what), UserWarning)
    return rest[0], alpha


def _rebuild_variable(cls, data, requires_grad, is_volatile, name):
    """Unpickle a Variable: a leaf with the pickled data and flags (see __reduce_ex__)."""
    cdef Variable v = Variable.__new__(cls)
    v._data = _to_array(data, None, "Variable")
    v._volatile = bool(is_volatile)
    if requires_grad and not v._volatile:
        _check_can_require_grad(v._data.dtype, "Variable")
        v._requires_grad = True
    v._name = name
    return v


# (No @cython.freelist: a Variable's memory comes from the engine's allocator, which
# can also hand out a Variable outside the collector's lists; _nodealloc.pxi, _plain.)
cdef int _check_assigned_grad(Variable g, Variable leaf) except -1:
    # x.grad = g: g matches x in shape, dtype and device. torch 2.13's wording, then the
    # older torch's in parentheses (code matching either keeps working).
    if g._data.shape != leaf._data.shape:
        raise RuntimeError(
            "attempting to assign a gradient of size '%s' to a tensor of size '%s'. "
            "Please ensure that the gradient and the tensor are the same size "
            "(assigned grad has data of a different size)"
            % (_shape_str(g._data.shape), _shape_str(leaf._data.shape)))
    if g._data.dtype != leaf._data.dtype:
        raise RuntimeError(
            "attempting to assign a gradient with dtype '%s' to a tensor with grad_dtype "
            "'%s'. The gradient must match the tensor's grad_dtype (defaults to the "
            "tensor's dtype) (assigned grad has data of a different type)"
            % (g._data.dtype, leaf._data.dtype))
    if _device_of(g._data) != _device_of(leaf._data):
        raise RuntimeError("assigned grad has data located on a different device")
    return 0


cdef inline bint _is_int_or_bool(object data):
    cdef char kind = _dtype_kind(data)
    return kind == b'i' or kind == b'u' or kind == b'b'


cdef object _zeros_of_sizes(tuple sizes):
    for n in sizes:
        if n < 0:
            raise RuntimeError("Variable(): Trying to create tensor with negative dimension "
                               "%d: %s" % (n, list(sizes)))
    _checked_sizes(sizes, numpy.dtype(_default_dtype).itemsize, "Variable")
    return numpy.zeros(sizes, dtype=_default_dtype)


cdef class Variable:
    """An array that records the operations applied to it (``pyad.Tensor`` is the same).

    >>> x = Variable(numpy.ones((2, 2)), requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([[2., 2.],
            [2., 2.]], dtype=float64)
    """

    # `volatile` is a keyword of Cython's C syntax, so that argument goes through
    # **kwargs and the property is added to the type after its definition.
    def __init__(self, data=_NO_DATA, requires_grad=False, *args, **kwargs):
        is_volatile = args[0] if args else kwargs.pop("volatile", False)
        if kwargs:
            raise TypeError("Variable() got an unexpected keyword argument %r"
                            % next(iter(kwargs)))
        if data is _NO_DATA:                  # Variable() is empty, as torch.Tensor()
            data = numpy.empty((0,), dtype=_default_dtype)
        elif type(data) is int and type(requires_grad) is int and not kwargs and \
                all(type(a) is int for a in args):
            # Tensor(2, 3): sizes, as torch's legacy constructor (no Variable call passes
            # an int for requires_grad); the values are zeros (torch leaves them unset)
            self._data = _zeros_of_sizes((data, requires_grad) + tuple(args))
            self._is_inference = pyad_get_inference()
            return
        self._data = _to_array(data, None, "Variable")
        if (type(data) is list or type(data) is tuple) and _is_int_or_bool(self._data):
            # Tensor([0, 1]) is float, as torch's legacy constructor (the default float
            # dtype); pyad.tensor([0, 1]) infers int64, as torch.tensor
            self._data = self._data.astype(_default_dtype)
        self._volatile = bool(is_volatile)
        self._is_inference = pyad_get_inference()
        if requires_grad and not self._volatile:
            _check_can_require_grad(self._data.dtype, "Variable")
            self._requires_grad = True

    def __dealloc__(self):
        if self._grad_fn is None and self._view_base is None and self._grad is None:
            return
        if _enter_dealloc():
            self._grad_fn = None
            self._view_base = None
            self._grad = None
            _leave_dealloc()
        else:
            _dealloc_pending.append((self._grad_fn, self._view_base, self._grad))
            self._grad_fn = None
            self._view_base = None
            self._grad = None

    cdef AccumulateGrad _get_accumulator(self):
        if self._accumulator is None:
            _track_var(self)
            self._accumulator = _new_accumulator(self)
        return self._accumulator

    # -- storage and metadata ------------------------------------------------------

    @property
    def data(self):
        """The underlying ndarray (NumPy or CuPy). Assigning replaces it, no history."""
        return self._data

    @data.setter
    def data(self, value):
        arr = _to_array(value, None, "Variable.data")
        if self._requires_grad and not _is_float_dtype(arr.dtype):
            raise RuntimeError("data set to a Variable that requires gradients must be "
                               "floating point or complex dtype (got %s)" % arr.dtype)
        # The version counter is kept (torch's set_data): views and saved values of this
        # Variable keep seeing its in-place history.
        _track_var(self)
        self._data = arr

    @data.deleter
    def data(self):
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    @property
    def grad(self):
        """The accumulated gradient (a Variable) or None."""
        if self._grad is None and self._grad_fn is not None and not self._retains_grad:
            warnings.warn(
                "The .grad attribute of a Variable that is not a leaf Variable is being "
                "accessed. Its .grad attribute won't be populated during backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Variable, use "
                ".retain_grad() on the non-leaf Variable. If you access the non-leaf "
                "Variable by mistake, make sure you access the leaf Variable instead.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        cdef Variable g
        if value is None:
            self._grad = None
            return
        if not isinstance(value, Variable):
            raise TypeError("assigned grad expected to be a Tensor or None (a Variable) but got "
                            "grad of type %s" % type(value).__name__)
        g = <Variable>value
        if g is self:
            raise RuntimeError("can't assign Variable as its own grad")
        if not (type(g._data) is _NDARRAY and type(self._data) is _NDARRAY and
                _same_layout(g._data, self._data) and
                _same_dtype(_dtype(g._data), _dtype(self._data))):
            # (the common case above is read from the arrays' structs)
            _check_assigned_grad(g, self)
        _track_var(self)
        self._grad = g

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def requires_grad(self):
        """Whether operations on this Variable are recorded for differentiation.

        Settable on leaves only (see `requires_grad_`).
        """
        return _requires_grad_now(self)

    @requires_grad.setter
    def requires_grad(self, value):
        if self._grad_fn is not None:
            # torch refuses the assignment on a non-leaf whatever the value (only
            # requires_grad_(True) is a no-op there)
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables." + (
                    "" if value else " If you want to use a computed variable in a subgraph "
                    "that doesn't require differentiation use var_no_grad = var.detach()."))
        self._mark_requires_grad(value)     # (allowed inside a pyad.func transform)

    @requires_grad.deleter
    def requires_grad(self):
        raise RuntimeError("requires_grad must be a bool")

    def requires_grad_(self, requires_grad=True):
        """Set ``requires_grad`` in place on a leaf and return self.

        Refused inside a function being transformed by `pyad.func` (as torch.func
        refuses it): the transform decides what is differentiated.
        """
        _refuse_in_transform("requires_grad_", "requires_grad_() (or perhaps using "
                             "pyad.autograd.functional.* APIs)", False)
        return self._mark_requires_grad(requires_grad)

    def _mark_requires_grad(self, requires_grad=True):
        # requires_grad_() without the check for a running pyad.func transform: pyad's
        # own code (factories, Parameter, the transforms themselves) sets the flag on
        # Variables it makes, inside a transformed function too.
        if self._grad_fn is not None and requires_grad:
            return self                      # already requires grad, as every non-leaf
        if self._grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to "
                "use a computed variable in a subgraph that doesn't require differentiation "
                "use var_no_grad = var.detach().")
        if requires_grad:
            _check_can_require_grad(self._data.dtype, "requires_grad_")
            if self._is_inference and not pyad_get_inference():
                raise RuntimeError("Setting requires_grad=True on inference Variable outside "
                                   "InferenceMode is not allowed.")
        self._requires_grad = bool(requires_grad)
        return self

    def is_inference(self):
        """True for a Variable made inside ``inference_mode`` (torch's inference tensor),
        other than a view of a normal Variable. Outside the mode it may not be changed
        in place, start requiring grad, or be saved for backward.

        >>> with pyad.inference_mode():
        ...     made = pyad.ones(2) * 2
        >>> made.is_inference(), pyad.ones(2).is_inference()
        (True, False)
        """
        return self._is_inference


    @property
    def is_leaf(self):
        """True for Variables not produced by a recorded op (their ``grad_fn`` is None).

        Only leaves accumulate ``.grad`` by default.
        """
        if self._view_fn is not None:
            _check_inference_view_history(self)
            _refresh_view(self)
        return self._grad_fn is None

    @property
    def grad_fn(self):
        """The graph node that produced this Variable, or None for a leaf."""
        if self._view_fn is not None:
            _check_inference_view_history(self)
            _refresh_view(self)
        return self._grad_fn

    @property
    def creator(self):
        """The node that produced this Variable (old name of ``grad_fn``)."""
        return self.grad_fn

    @property
    def output_nr(self):
        """Which output of its ``grad_fn`` this Variable is (0 for single-output ops)."""
        return self._output_nr

    @property
    def retains_grad(self):
        """True when `retain_grad` was called on this non-leaf Variable."""
        return self._retains_grad

    @property
    def _version(self):
        if self._is_inference:
            # torch's inference tensors have no version counter to show
            raise RuntimeError("Inference tensors do not track version counter.")
        return _vc(self).version

    @property
    def _base(self):
        return self._view_base

    @property
    def is_view(self):
        """True when this Variable is a view of another and shares its memory and version counter."""
        return self._is_view

    @property
    def name(self):
        """An optional name (str or None), shown by debugging tools."""
        return self._name

    @name.setter
    def name(self, value):
        _track_var(self)
        self._name = value

    @property
    def shape(self):
        """The shape of the data, a tuple of ints."""
        return self._data.shape

    @property
    def dtype(self):
        """The NumPy dtype of the data."""
        return self._data.dtype

    @property
    def device(self):
        """Where the data lives, a `pyad.device` (``cpu`` or ``cuda:N``)."""
        return _device_of(self._data)

    @property
    def is_cuda(self):
        """True when the data is a CuPy array on a GPU."""
        return type(self._data) is not _NDARRAY

    @property
    def ndim(self):
        """The number of dimensions."""
        return self._data.ndim

    def size(self, dim=None):
        """The shape, or the length of dimension ``dim``."""
        if dim is None:
            return self._data.shape
        if self._data.ndim == 0:
            # _normalize_dim lets a 0-d Variable take dim 0 (reductions do); a size does not.
            raise IndexError("size(): dimension specified as %s but the Variable has no "
                             "dimensions" % (dim,))
        return self._data.shape[_normalize_dim(dim, self._data.ndim, "size")]

    def numel(self):
        """Return the number of elements.

        Returns
        -------
        int
            The product of the sizes.

        Examples
        --------
        >>> pyad.zeros(2, 3).numel()
        6
        """
        return int(self._data.size)

    def nelement(self):
        """Return the number of elements (alias of `numel`).

        Returns
        -------
        int
            The product of the sizes.
        """
        return int(self._data.size)

    def dim(self):
        """Return the number of dimensions (as ``ndim``).

        Returns
        -------
        int
            The number of dimensions.
        """
        return self._data.ndim

    def ndimension(self):
        """Return the number of dimensions (torch's older spelling of ``dim()``).

        Returns
        -------
        int
            The number of dimensions.
        """
        return self._data.ndim

    def unfold(self, dimension, size, step):
        """Return every slice of length ``size`` along ``dimension``, ``step`` apart, as a
        new last dimension (torch's ``Tensor.unfold``; a differentiable copy here, where
        torch gives a view).

        >>> Variable(numpy.arange(5.)).unfold(0, 2, 2).tolist()
        [[0.0, 1.0], [2.0, 3.0]]

        Returns
        -------
        Variable
            Shape: ``dimension`` becomes the number of slices, ``size`` appended.
        """
        return _sliding_windows(self, dimension, size, step)

    def sum_to_size(self, *size):
        """Return the sum of this Variable down to ``size`` (a shape it broadcasts to).

        Returns
        -------
        Variable
            Summed over the broadcast dimensions, keeping them as size 1.
        """
        shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) \
            else tuple(size)
        return sum_to(self, shape)

    def pin_memory(self):
        """Return self: host memory needs no pinning for NumPy (torch pins it for faster
        transfers to a GPU; CuPy transfers from any host array).

        Returns
        -------
        Variable
            Self.
        """
        return self

    def is_pinned(self):
        """Return False: pyad never pins host memory (see `pin_memory`).

        Returns
        -------
        bool
            False.
        """
        return False

    def element_size(self):
        """Return the size of one element in bytes.

        Returns
        -------
        int
            The dtype's item size.
        """
        return self._data.itemsize

    @property
    def nbytes(self):
        """Bytes of the elements (``numel() * element_size()``)."""
        return int(self._data.nbytes)

    def stride(self, dim=None):
        """Strides in elements (torch's unit; NumPy's ``strides`` are in bytes).

        >>> Variable(numpy.zeros((2, 3))).stride()
        (3, 1)
        """
        itemsize = self._data.itemsize
        if self._data.size == 0 and not any(self._data.strides):
            strides = _empty_strides(self._data.shape)      # (NumPy's zeros for an empty)
        else:
            strides = tuple(s // itemsize for s in self._data.strides)
        if dim is None:
            return strides
        if self._data.ndim == 0:
            raise IndexError("stride(): dimension specified as %s but the Variable has no "
                             "dimensions" % (dim,))
        return strides[_normalize_dim(dim, self._data.ndim, "stride")]

    def is_contiguous(self, *, memory_format=contiguous_format):
        """True when the elements are laid out without gaps in C order, or in the order
        ``memory_format`` names (:data:`pyad.channels_last`: NHWC memory of a 4-d
        Variable; False for another rank, as torch)."""
        if memory_format is contiguous_format or memory_format is preserve_format:
            return bool(self._data.flags.c_contiguous)
        if not isinstance(memory_format, _MemoryFormat):
            _format_permutation(memory_format, 0, "is_contiguous", False)   # TypeError
        permutation = (<object>memory_format)._permutation
        return len(permutation) == self._data.ndim and _has_layout(self._data, permutation)

    def is_floating_point(self):
        """True if the dtype is a floating point type (float16, float32, float64, and
        ml_dtypes' bfloat16 and float8 types)."""
        return _is_float_dtype(self._data.dtype) and self._data.dtype.kind != "c"

    def is_complex(self):
        """True if the dtype is a complex type."""
        return self._data.dtype.kind == "c"

    @property
    def real(self):
        """The real part (differentiable; a real Variable itself), as :func:`pyad.real`.
        Assigning writes into it in place (``x.real = 0``), as torch's ``copy_``."""
        return real(self)

    @real.setter
    def real(self, value):
        _set_complex_part(self, value, True)

    @property
    def imag(self):
        """The imaginary part (differentiable; complex only), as :func:`pyad.imag`.
        Assigning writes into it in place (``x.imag = 0``)."""
        return imag(self)

    @imag.setter
    def imag(self, value):
        _set_complex_part(self, value, False)

    def type_as(self, other):
        """This Variable converted to ``other``'s dtype (differentiable)."""
        return _convert(self, None, (<Variable>_as_variable(other, "type_as"))._data.dtype, False)

    # -- resizing (torch's resize_ family) ------------------------------------------

    def resize_(self, *sizes, memory_format=None):
        """Resize in place to ``sizes`` (ints, or one tuple or list), as torch's
        ``resize_``: the memory is read as C-contiguous from this Variable's first
        element; a smaller size keeps the leading elements (and the memory after them, so
        growing back within it shows them again), a larger one adds uninitialised
        elements. Bumps the version counter (not for the size it already has, as torch).
        Refused on a Variable that requires grad. A ``memory_format``
        (:data:`pyad.channels_last`) reads the memory in that order instead (and restrides
        a Variable of the same size, as torch's).

        >>> x = pyad.tensor([[1., 2., 3.], [4., 5., 6.]])
        >>> x.resize_(2, 2)
        tensor([[1., 2.],
                [3., 4.]])
        """
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        for n in sizes:
            if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)):
                raise TypeError("resize_(): argument 'size' must be tuple of ints, not %s"
                                % type(n).__name__)
        shape = tuple(int(n) for n in sizes)
        if any(n < 0 for n in shape):
            raise RuntimeError("resize_(): Trying to create a Variable with negative dimension "
                               "%d: %s" % (min(shape), list(shape)))
        layout = _format_permutation(memory_format, len(shape), "resize_")
        if _requires_grad_now(self):
            raise RuntimeError("cannot resize variables that require grad")
        if self._is_inference and not pyad_get_inference():
            raise RuntimeError(
                "resize_(): Inplace update to inference tensor outside InferenceMode is "
                "not allowed.You can make a clone to get a normal Variable before doing "
                "inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details.")
        if shape == self._data.shape and (layout is None or _has_layout(self._data, layout)):
            return self          # torch: the same size changes nothing (no version bump)
        _checked_sizes(shape, self._data.dtype.itemsize, "resize_")
        numel = 1
        for n in shape:
            numel *= n
        storage = _resize_storage(self._data)
        if storage.size < numel:
            grown = _xp_of(storage).empty(numel, dtype=storage.dtype)
            grown[:storage.size] = storage
            storage = grown
        if layout is None:
            layout = tuple(builtins.range(len(shape)))
        inverse = [0] * len(layout)
        for position, d in enumerate(layout):
            inverse[d] = position
        data = storage[:numel].reshape([shape[d] for d in layout]).transpose(inverse)
        _track_var(self)
        self._data = data
        # no longer a view with the base's layout (torch keeps the storage shared)
        self._view_fn = None
        _bump_version(self)
        return self

    def resize_as_(self, other, *, memory_format=None):
        """Resize in place to ``other``'s shape (see `resize_`); with
        :data:`pyad.preserve_format`, in ``other``'s layout when that is channels-last.

        >>> pyad.zeros(4).resize_as_(pyad.ones(2, 2)).shape
        (2, 2)
        """
        cdef Variable o = _as_variable(other, "resize_as_")
        if memory_format is preserve_format:
            order = _channels_last_order(o._data.ndim)
            memory_format = None
            if order is not None and _strides_like(o._data, order):
                memory_format = channels_last if o._data.ndim == 4 else channels_last_3d
        return self.resize_(tuple(o._data.shape), memory_format=memory_format)

    def resize(self, *sizes):
        """Deprecated (as in torch, with its UserWarning): a differentiable reshape to
        ``sizes``, which must keep the number of elements."""
        warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
        if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
            sizes = tuple(sizes[0])
        numel = 1
        for n in sizes:
            numel *= n
        if numel != self._data.size:
            raise RuntimeError(
                "requested resize to %s (%d elements in total), but the given Variable has a "
                "size of %s (%d elements). autograd's resize can only change the shape of a "
                "given Variable, while preserving the number of elements. "
                % ("x".join(str(n) for n in sizes), numel,
                   "x".join(str(n) for n in self._data.shape), self._data.size))
        return reshape(self.contiguous(), tuple(sizes))

    def resize_as(self, other):
        """Deprecated (as in torch, with its UserWarning): `resize` to ``other``'s shape."""
        warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return self.resize(tuple((<Variable>_as_variable(other, "resize_as"))._data.shape))

    # -- new_* factories: the same dtype and device as this Variable by default ------

    def new(self, *args, size=None, device=None):
        """torch's legacy constructor: ``new(*size)`` or ``new(size=...)``
        (uninitialised), ``new()`` (empty), ``new(data)`` (a copy of a nested sequence or
        array), ``new(other)`` (a Variable sharing ``other``'s memory, without its
        history; ``other`` must have this dtype), with this Variable's dtype and device.
        A tuple of ints is a size here (``Variable.size()`` is a tuple in pyad, so
        ``x.new(x.size())`` keeps torch's meaning)."""
        from pyad import _factories
        dev = self.device if device is None else device
        if size is not None:
            if args:
                raise TypeError("new(): give the size either positionally or as size=, "
                                "not both")
            args = (tuple(size),)
        if len(args) == 1 and isinstance(args[0], Variable):
            other = <Variable>args[0]
            if _dtype(other._data) != _dtype(self._data):
                raise TypeError("new(): expected a Variable of dtype %s, got %s"
                                % (_dtype(self._data), _dtype(other._data)))
            return Variable(other._data)
        if len(args) == 1 and (isinstance(args[0], (list, _NDARRAY)) or (
                isinstance(args[0], tuple) and
                not all(isinstance(a, int) and not isinstance(a, bool) for a in args[0]))):
            return _factories.tensor(args[0], dtype=self._data.dtype, device=dev)
        if len(args) == 1 and isinstance(args[0], tuple):
            args = args[0]
        if not args:
            args = (0,)
        for a in args:
            if not isinstance(a, int) or isinstance(a, bool):
                raise TypeError("new(): size must be ints, got %s" % type(a).__name__)
        return _factories.empty(*args, dtype=self._data.dtype, device=dev)

    def new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
        """Zeros of ``size`` with this Variable's dtype and device (unless given).

        >>> Variable(numpy.ones(2, dtype=numpy.float64)).new_zeros(3)
        tensor([0., 0., 0.], dtype=float64)
        """
        from pyad import _factories
        return _factories.zeros(*size, dtype=self._data.dtype if dtype is None else dtype,
                                device=self.device if device is None else device,
                                requires_grad=requires_grad)

    def new_ones(self, *size, dtype=None, device=None, requires_grad=False):
        """Ones of ``size`` with this Variable's dtype and device (unless given)."""
        from pyad import _factories
        return _factories.ones(*size, dtype=self._data.dtype if dtype is None else dtype,
                               device=self.device if device is None else device,
                               requires_grad=requires_grad)

    def new_empty(self, *size, dtype=None, device=None, requires_grad=False):
        """An uninitialised Variable of ``size`` with this Variable's dtype and device."""
        from pyad import _factories
        return _factories.empty(*size, dtype=self._data.dtype if dtype is None else dtype,
                                device=self.device if device is None else device,
                                requires_grad=requires_grad)

    def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
        """``size`` filled with ``fill_value``, with this Variable's dtype and device."""
        from pyad import _factories
        return _factories.full(size, fill_value,
                               dtype=self._data.dtype if dtype is None else dtype,
                               device=self.device if device is None else device,
                               requires_grad=requires_grad)

    def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
        """A copy of ``data`` with this Variable's dtype and device (unless given)."""
        from pyad import _factories
        return _factories.tensor(data, dtype=self._data.dtype if dtype is None else dtype,
                                 device=self.device if device is None else device,
                                 requires_grad=requires_grad)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d Variable")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d Variable")
        return (self[i] for i in range(self._data.shape[0]))

    def __hash__(self):
        return id(self)

    def item(self):
        """The value of a one-element Variable as a Python number."""
        if self._data.size != 1:
            raise RuntimeError("a Variable with %d elements cannot be converted to Scalar"
                               % self._data.size)
        return self._data.item() if type(self._data) is _NDARRAY else self._data.get().item()

    def tolist(self):
        """Return the data as (nested) Python lists of Python scalars.

        Returns
        -------
        list or scalar
            As ``ndarray.tolist``.

        Examples
        --------
        >>> pyad.tensor([1.0, 2.0]).tolist()
        [1.0, 2.0]
        """
        return self._host_data().tolist()

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Variable with more than one value is ambiguous")
        return bool(self.item())

    def __float__(self):
        _check_one_element(self)
        if self._data.dtype.kind == "c":
            raise RuntimeError("float(): value cannot be converted to type double without "
                               "overflow (a complex Variable)")
        if self._requires_grad and _grad_enabled():
            _warn_once("scalar conversion", _SCALAR_CONVERSION_WARNING)
        return float(self.item())

    def __int__(self):
        _check_one_element(self)
        if self._data.dtype.kind == "c":
            raise RuntimeError("int(): value cannot be converted to type int64_t without "
                               "overflow (a complex Variable)")
        return int(self.item())

    def __complex__(self):
        _check_one_element(self)
        return complex(self.item())

    def __index__(self):
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer Variables of a single element can be converted "
                            "to an index")
        return int(self.item())


    cdef object _host_data(self):
        if type(self._data) is _NDARRAY:
            return self._data
        return self._data.get()

    def numpy(self, force=False):
        """The NumPy array (shared memory). Refuses a Variable that requires grad while
        grad mode is on, as torch does (under ``no_grad``, e.g. in a custom Function's
        forward, no graph can be dropped)."""
        if self._requires_grad and not force and _grad_enabled():
            raise RuntimeError("Can't call numpy() on Variable that requires grad. "
                               "Use var.detach().numpy() (or var.data) instead.")
        if type(self._data) is not _NDARRAY:
            if not force:
                raise TypeError("can't convert cuda Variable to numpy. Use .cpu() first.")
            return self._data.get()
        return self._data

    def __array__(self, dtype=None, copy=None):
        """Return the data as a NumPy array (the NumPy array protocol).

        Parameters
        ----------
        dtype : dtype, optional
            Convert to this dtype.
        copy : bool, optional
            Always copy when True; never when False.

        Returns
        -------
        numpy.ndarray
            The data, on the CPU.
        """
        if self._requires_grad and _grad_enabled():
            raise RuntimeError("Can't convert a Variable that requires grad to a NumPy array "
                               "(the graph would be silently dropped). Use var.detach() or "
                               "var.data instead.")
        arr = self._host_data()
        if dtype is not None and arr.dtype != dtype:
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    # -- device and dtype conversion (differentiable copies) -------------------------

    def to(self, *args, device=None, dtype=None, non_blocking=False, copy=False,
           memory_format=preserve_format):
        """Return a Variable on ``device`` and/or with ``dtype`` (self if nothing changes).

        torch's forms: ``to(dtype)``, ``to(device, dtype)``, ``to(other)``, each optionally
        followed by ``non_blocking`` and ``copy``. A string is a device or a dtype name.
        ``memory_format`` (:data:`pyad.channels_last`...) lays the result out in that
        order (a copy when it is not already).
        """
        device_type = globals()["device"]
        flags = []
        for a in args:
            if isinstance(a, bool):
                flags.append(a)
            elif isinstance(a, Variable):
                device, dtype = a.device, a.dtype
            elif isinstance(a, device_type):
                device = a
            elif isinstance(a, str):
                try:
                    device = device_type(a)
                except (RuntimeError, ValueError):
                    try:
                        dtype = numpy.dtype(a)
                    except TypeError:
                        raise RuntimeError(
                            "to(): %r is neither a device pyad supports (cpu, cuda, cuda:N) "
                            "nor a dtype" % (a,)) from None
            elif a is None:
                raise TypeError("to(): expected a dtype, a device or a Variable, got None")
            else:
                dtype = a
        if len(flags) > 2:
            raise TypeError("to(): too many positional arguments")
        if len(flags) == 2:
            copy = flags[1]
        if dtype is not None:
            try:
                dtype = numpy.dtype(dtype)
            except TypeError:
                raise TypeError("to(): expected a dtype, a device or a Variable, got %r"
                                % (dtype,)) from None
            if dtype.kind not in "biufc" and dtype.type.__module__ != "ml_dtypes":
                # (ml_dtypes' bfloat16 and float8 are numbers: the optional extra)
                raise TypeError("to(): dtype must be numeric (bool, integer, floating point "
                                "or complex), got %s" % dtype)
        return _convert(self, device, dtype, copy,
                        _format_permutation(memory_format, self._data.ndim, "to"))

    def cpu(self, *, memory_format=preserve_format):
        """Return this Variable with its data on the CPU (self when it already is).

        Returns
        -------
        Variable
            A differentiable copy, or self.
        """
        return _convert(self, "cpu", None, False,
                        _format_permutation(memory_format, self._data.ndim, "cpu"))

    def cuda(self, device=None, non_blocking=False, *, memory_format=preserve_format):
        """Return this Variable with its data on a GPU (requires CuPy).

        Parameters
        ----------
        device : int or device, optional
            The GPU; the current one when omitted.
        non_blocking : bool, default False
            Accepted for torch compatibility.

        Returns
        -------
        Variable
            A differentiable copy, or self.
        """
        if device is None:
            device = "cuda"
        elif isinstance(device, int):
            device = "cuda:%d" % device
        return _convert(self, device, None, False,
                        _format_permutation(memory_format, self._data.ndim, "cuda"))

    def type(self, dtype=None, non_blocking=False, **kwargs):
        """Return torch's type string, or convert to another type.

        Parameters
        ----------
        dtype : dtype, str or legacy type, optional
            Convert to this dtype, type string (``'torch.DoubleTensor'``,
            ``'torch.cuda.FloatTensor'``) or legacy type (``pyad.DoubleTensor``);
            without it, return the type string.

        Returns
        -------
        str or Variable
            The type string (``'torch.FloatTensor'``, ``'torch.cuda.LongTensor'``, as
            torch's), or the converted Variable.
        """
        from pyad import _tensor_types
        cdef bint on_gpu = cupy is not None and isinstance(self._data, cupy.ndarray)
        if dtype is None:
            return _tensor_types.type_name(self._data, on_gpu)
        parsed = _tensor_types.parse(dtype)
        if parsed is None:
            return _convert(self, None, dtype, False)
        converted = _convert(self, None, parsed[0], False)
        if parsed[1] and not on_gpu:
            return converted.cuda()
        if on_gpu and not parsed[1]:
            return converted.cpu()
        return converted

    def float(self, *, memory_format=preserve_format):
        """Return the Variable converted to float32 (differentiable).

        Returns
        -------
        Variable
            Self if already float32.
        """
        return _convert(self, None, numpy.float32, False,
                        _format_permutation(memory_format, self._data.ndim, "float"))

    def double(self, *, memory_format=preserve_format):
        """Return the Variable converted to float64 (differentiable).

        Returns
        -------
        Variable
            Self if already float64.
        """
        return _convert(self, None, numpy.float64, False,
                        _format_permutation(memory_format, self._data.ndim, "double"))

    def half(self, *, memory_format=preserve_format):
        """Return the Variable converted to float16 (differentiable).

        Returns
        -------
        Variable
            Self if already float16.
        """
        return _convert(self, None, numpy.float16, False,
                        _format_permutation(memory_format, self._data.ndim, "half"))

    def long(self, *, memory_format=preserve_format):
        """Return the Variable converted to int64 (not differentiable).

        Returns
        -------
        Variable
            Self if already int64.
        """
        return _convert(self, None, numpy.int64, False,
                        _format_permutation(memory_format, self._data.ndim, "long"))

    def int(self, *, memory_format=preserve_format):
        """Return the Variable converted to int32 (not differentiable).

        Returns
        -------
        Variable
            Self if already int32.
        """
        return _convert(self, None, numpy.int32, False,
                        _format_permutation(memory_format, self._data.ndim, "int"))

    def byte(self, *, memory_format=preserve_format):
        """Return the Variable converted to uint8 (not differentiable).

        Returns
        -------
        Variable
            Self if already uint8.
        """
        return _convert(self, None, numpy.uint8, False,
                        _format_permutation(memory_format, self._data.ndim, "byte"))

    def char(self, *, memory_format=preserve_format):
        """Return the Variable converted to int8 (not differentiable).

        Returns
        -------
        Variable
            Self if already int8.
        """
        return _convert(self, None, numpy.int8, False,
                        _format_permutation(memory_format, self._data.ndim, "char"))

    def short(self, *, memory_format=preserve_format):
        """Return the Variable converted to int16 (not differentiable).

        Returns
        -------
        Variable
            Self if already int16.
        """
        return _convert(self, None, numpy.int16, False,
                        _format_permutation(memory_format, self._data.ndim, "short"))

    def bool(self, *, memory_format=preserve_format):
        """Return the Variable converted to bool (not differentiable).

        Returns
        -------
        Variable
            Self if already bool.
        """
        return _convert(self, None, numpy.bool_, False,
                        _format_permutation(memory_format, self._data.ndim, "bool"))

    def clone(self, *, memory_format=preserve_format):
        """A differentiable copy with its own memory, laid out as this Variable is
        (dense in its dimension order, as torch's preserve_format) or as
        ``memory_format`` asks."""
        return _cloned(self, _copy_in_format(self._data, memory_format, "clone"))

    def contiguous(self, *, memory_format=contiguous_format):
        """Return a Variable dense in C order (or in ``memory_format``'s order,
        :data:`pyad.channels_last`): self if it already is, else a differentiable copy.

        Returns
        -------
        Variable
            Contiguous data.
        """
        if memory_format is contiguous_format:
            return _dense(self)
        if memory_format is preserve_format:
            if self._data.flags.c_contiguous:
                return self
            raise RuntimeError("contiguous(): preserve memory format is unsupported by the "
                               "contiguous operator")
        layout = _format_permutation(memory_format, self._data.ndim, "contiguous", False)
        if _has_layout(self._data, layout):
            return self
        return _cloned(self, _in_layout(self._data, layout))

    # -- pickling and copying --------------------------------------------------------
    #
    # As torch: pickle and copy.copy give a leaf with the data, requires_grad (and the
    # volatile flag and name), never graph objects or .grad; copy.copy shares the array.
    # deepcopy copies a leaf with its .grad and refuses a non-leaf.

    def __reduce_ex__(self, protocol):
        """Support pickling: the data, ``requires_grad`` and the legacy flags (not ``.grad``, as torch).

        Parameters
        ----------
        protocol : int
            The pickle protocol.
        """
        args = (type(self), self._data, self._requires_grad, self._volatile, self._name)
        state = getattr(self, "__dict__", None)      # a Python subclass's attributes
        if state:
            return (_rebuild_variable, args, state)
        return (_rebuild_variable, args)

    def __reduce__(self):
        """Support pickling (see `__reduce_ex__`)."""
        return self.__reduce_ex__(2)

    def __deepcopy__(self, memo):
        """Return a deep copy of a leaf: new data, same flags, ``.grad`` copied too (as torch).

        Parameters
        ----------
        memo : dict
            The ``copy.deepcopy`` memo.
        """
        cdef Variable new
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Variables created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment. Use .detach() (or .clone()) first, or "
                "copy the leaves the graph was built from.")
        new = Variable.__new__(type(self))
        memo[id(self)] = new
        new._data = _copy_module.deepcopy(self._data, memo)
        new._requires_grad = self._requires_grad
        new._volatile = self._volatile
        new._name = self._name
        if self._grad is not None:
            grad = self._grad if self._grad._grad_fn is None else self._grad.detach()
            new._grad = _copy_module.deepcopy(grad, memo)
        state = getattr(self, "__dict__", None)
        if state:
            new.__dict__.update(_copy_module.deepcopy(state, memo))
        return new

    # -- autograd ------------------------------------------------------------------

    def backward(self, gradient=None, retain_graph=None, create_graph=False,
                 retain_variables=None, inputs=None):
        """Accumulate the gradient of this Variable w.r.t. the graph leaves into ``.grad``.

        ``gradient`` is required when this Variable is not a scalar; ``retain_graph``
        (old name ``retain_variables``) keeps saved values for another backward;
        ``create_graph`` records the backward pass for higher-order derivatives;
        ``inputs`` limits accumulation to the given Variables.
        """
        _run_backward((self,), None if gradient is None else (gradient,),
                      retain_variables if retain_graph is None else retain_graph,
                      create_graph, inputs)

    def detach(self):
        """A Variable sharing this one's data (and version counter) with no history."""
        cdef Variable v = Variable.__new__(Variable)
        v._is_inference = self._is_inference
        v._data = self._data
        v._version_counter = _vc(self)
        v._volatile = self._volatile
        return v

    def detach_(self):
        """Detach this Variable from the graph that created it, making it a leaf."""
        cdef VersionCounter counter
        cdef _VersionRare rare
        if self._is_view and self._view_base is not None and self._view_base._requires_grad:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        if self._grad_fn is not None:
            # Values saved from this Variable would now unpack without their history:
            # backward refuses them (saved values compare this count, as versions).
            counter = _vc(self)
            rare = _vc_rare(counter)
            rare.detaches += 1
        _set_history(self, None, 0)
        self._retains_grad = False
        self._requires_grad = False
        return self

    def register_hook(self, hook):
        """Register ``hook(grad) -> Variable or None`` called with this Variable's gradient.

        Returning a Variable replaces the gradient. Returns a handle with ``remove()``.
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a variable that doesn't require "
                               "gradient")
        # The node without sealing it (_node_of would): a hook on the newest output
        # then only pins its node, with no re-track of the graph (_gctrack.pxi).
        if self._view_fn is not None:
            _refresh_view(self)
        node = self._grad_fn if self._grad_fn is not None else self._get_accumulator()
        return (<Node>node)._add_tensor_pre_hook(self._output_nr, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Register ``hook(variable)`` on a leaf, called after ``.grad`` was updated."""
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a variable that doesn't require "
                               "gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        acc = self._get_accumulator()
        _hook_attach(acc)
        if acc._post_accumulate_hooks is None:
            acc._post_accumulate_hooks = _HookList()
        handle = RemovableHandle(acc._post_accumulate_hooks)
        acc._post_accumulate_hooks.append((handle.id, hook))
        return handle

    def reinforce(self, reward):
        """Register a reward on the sample of a stochastic op (``bernoulli``,
        ``multinomial``, ``normal``): backward then sends
        ``-reward * d log p(sample) / d params`` to the distribution's parameters.

        ``reward`` has the sample's shape (or is a scalar); it is used by one backward
        (kept with ``retain_graph=True``). See docs/stochastic.md.
        """
        _reinforce(self, reward)

    def retain_grad(self):
        """Keep ``.grad`` for this non-leaf Variable after backward (refused inside a
        function being differentiated by a `pyad.func` transform, as torch.func does)."""
        if self._view_fn is not None:
            _refresh_view(self)
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Variable that has requires_grad=False")
        _refuse_in_transform("retain_grad", "retain_grad()", True)
        if self._grad_fn is None or self._retains_grad:
            return
        _add_retain_grad_hook(self)
        self._retains_grad = True

    # -- DLPack --------------------------------------------------------------------

    def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
        """Export the data through DLPack (zero copy), delegating to the array library."""
        return _dlpack_export(self, stream, max_version, dl_device, copy)

    def __dlpack_device__(self):
        """Return the DLPack ``(device_type, device_id)`` of the data.

        Returns
        -------
        tuple of int
            ``(1, 0)`` on the CPU, ``(2, id)`` on a CUDA GPU.
        """
        return _dlpack_device(self)

    # -- printing ------------------------------------------------------------------

    def __repr__(self):
        return _format_variable(self)

    def __str__(self):
        return _format_variable(self)

    def __format__(self, spec):
        """Format a 0-d Variable as its Python scalar (with an empty spec too, so
        ``f"{loss}"`` prints ``0.6931...`` as torch's does); others as ``str(self)``.

        Parameters
        ----------
        spec : str
            The format spec.
        """
        if not isinstance(spec, str):       # format() would raise SystemError
            raise TypeError("format spec must be a str, not %s" % type(spec).__name__)
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Variable.__format__")
        return str(self)

    # -- operators -----------------------------------------------------------------
    #
    # An operand of a type no op takes (a list, a string, None...) gives NotImplemented,
    # as in torch, so Python tries the other operand before raising TypeError.

    def __add__(self, other):
        r = _fast_binop(self, other, _FAST_ADD, False)
        if r is not None:
            return r
        if not _operator_accepts(other):
            return NotImplemented
        return add(self, other)

    def __radd__(self, other):
        r = _fast_binop(self, other, _FAST_ADD, True)
        if r is not None:
            return r
        if not _operator_accepts(other):
            return NotImplemented
        if not isinstance(other, Variable) and _dtype_kind(self._data) != b'c':
            return add(self, other)         # torch's order: the Variable first
        return add(other, self)

    def __sub__(self, other):
        r = _fast_binop(self, other, _FAST_SUB, False)
        if r is not None:
            return r
        if not _operator_accepts(other):
            return NotImplemented
        return sub(self, other)

    def __rsub__(self, other):
        r = _fast_binop(self, other, _FAST_SUB, True)
        if r is not None:
            return r
        if not _operator_accepts(other):
            return NotImplemented
        return _as_rsub_of_number(sub(other, self), self, other, 1)

    def __mul__(self, other):
        r = _fast_binop(self, other, _FAST_MUL, False)
        if r is not None:
            return r
        if not _operator_accepts(other):
            return NotImplemented
        return mul(self, other)

    def __rmul__(self, other):
        r = _fast_binop(self, other, _FAST_MUL, True)
        if r is not None:
            return r
        if not _operator_accepts(other):
            return NotImplemented
        if not isinstance(other, Variable) and _dtype_kind(self._data) != b'c':
            return mul(self, other)         # torch's order: the Variable first
        return mul(other, self)

    def __truediv__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return div(self, other)

    def __rtruediv__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        if isinstance(other, (int, float, complex)):
            return mul(reciprocal(self), other)     # torch's order: 0 / 1e-310 is nan
        return div(other, self)

    def __pow__(self, other, modulo=None):
        if not _operator_accepts(other):
            return NotImplemented
        return pow(self, other)

    def __rpow__(self, other, modulo=None):
        if not _operator_accepts(other):
            return NotImplemented
        return pow(other, self)

    def __floordiv__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return floor_divide(self, other)

    def __rfloordiv__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return floor_divide(other, self)

    def __mod__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return remainder(self, other)

    def __rmod__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return remainder(other, self)

    def __and__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_and(self, other)

    def __rand__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_and(other, self)

    def __or__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_or(self, other)

    def __ror__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_or(other, self)

    def __xor__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_xor(self, other)

    def __rxor__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_xor(other, self)

    def __lshift__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_left_shift(self, other)

    def __rlshift__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_left_shift(other, self)

    def __rshift__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_right_shift(self, other)

    def __rrshift__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return bitwise_right_shift(other, self)

    def __invert__(self):
        if _dtype_kind(self._data) not in b'biu':
            # torch: TypeError for the operator (bitwise_not itself: NotImplementedError)
            raise TypeError("bitwise_not(): ~ (operator.invert) is only implemented on "
                            "integer and Boolean-type Variables")
        return bitwise_not(self)

    def __matmul__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return matmul(self, other)

    def __rmatmul__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return matmul(other, self)

    def __neg__(self):
        return neg(self)

    def __pos__(self):
        return self

    def __abs__(self):
        return abs(self)

    def __round__(self, ndigits=None):
        return round(self, 0 if ndigits is None else ndigits)

    def __iadd__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return add_(self, other)

    def __isub__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return sub_(self, other)

    def __imul__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return mul_(self, other)

    def __itruediv__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return div_(self, other)

    # The other augmented assignments work in place too, as torch's do (views see the
    # change, the version counter moves, a leaf that requires grad refuses).

    def __ifloordiv__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.floor_divide_(other)

    def __imod__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.remainder_(other)

    def __ipow__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.pow_(other)

    def __iand__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.bitwise_and_(other)

    def __ior__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.bitwise_or_(other)

    def __ixor__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.bitwise_xor_(other)

    def __ilshift__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.bitwise_left_shift_(other)

    def __irshift__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return self.bitwise_right_shift_(other)

    def __contains__(self, element):
        # torch: (element == self).any(), for a Variable or a number only
        if isinstance(element, (Variable, int, float, bool, complex, _NUMPY_SCALAR)):
            return bool((self == element).any())
        raise RuntimeError("Variable.__contains__ only supports a Variable or a number, but "
                           "you passed in a %s." % type(element).__name__)

    def __reversed__(self):
        # torch: the Variable flipped along dim 0 (a 0-d one as it is)
        if self._data.ndim == 0:
            return self
        return flip(self, 0)

    def __getitem__(self, key):
        return getitem(self, key)

    def __setitem__(self, key, value):
        setitem(self, key, value)

    def __delitem__(self, key):
        # (without it Cython's slot raises NotImplementedError; torch: TypeError)
        raise TypeError("Variable does not support deleting items")

    def __lt__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return _compare(self, other, 0)

    def __le__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return _compare(self, other, 1)

    def __eq__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return _compare(self, other, 2)

    def __ne__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return _compare(self, other, 3)

    def __gt__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return _compare(self, other, 4)

    def __ge__(self, other):
        if not _operator_accepts(other):
            return NotImplemented
        return _compare(self, other, 5)

    # -- methods whose signature differs from their op (the others are installed from
    # the family tuples by _install_methods at the end of this module) -----------------

    def polygamma(self, n):
        """``polygamma(n, self)``: the n-th derivative of digamma (torch's method takes
        the order as its argument, the function takes it first).

        >>> Variable(numpy.array([1., 2.])).polygamma(1)
        tensor([1.6449, 0.6449], dtype=float64)
        """
        return polygamma(n, self)

    def add(self, other, *legacy, alpha=1):
        """Return ``self + alpha * other`` (differentiable).

        Parameters
        ----------
        other : Variable, array or scalar
            The second operand (broadcast against this one).
        alpha : scalar, default 1
            Multiplier of ``other``.

        Returns
        -------
        Variable
            The sum.

        Examples
        --------
        >>> pyad.tensor([1.0, 2.0]).add(pyad.tensor([1.0, 1.0]), alpha=2)
        tensor([3., 4.])
        """
        if legacy:
            other, alpha = _legacy_alpha_form("add", other, legacy, alpha)
        return add(self, other, alpha)

    def sub(self, other, *legacy, alpha=1):
        """Return ``self - alpha * other`` (differentiable).

        Parameters
        ----------
        other : Variable, array or scalar
            The second operand (broadcast against this one).
        alpha : scalar, default 1
            Multiplier of ``other``.

        Returns
        -------
        Variable
            The difference.
        """
        if legacy:
            other, alpha = _legacy_alpha_form("sub", other, legacy, alpha)
        return sub(self, other, alpha)

    def view_as(self, other):
        """Return ``self.view(other.shape)``.

        Parameters
        ----------
        other : Variable
            The Variable whose shape to take.

        Returns
        -------
        Variable
            The view.
        """
        return view(self, other.shape)

    def reshape_as(self, other):
        """Return ``self.reshape(other.shape)``.

        Parameters
        ----------
        other : Variable
            The Variable whose shape to take.

        Returns
        -------
        Variable
            The reshaped Variable.
        """
        return reshape(self, other.shape)

    def swapaxes(self, axis0, axis1):
        """Return a view with two dimensions swapped (NumPy's name for `transpose`).

        Parameters
        ----------
        axis0 : int
            The first dimension.
        axis1 : int
            The second dimension.

        Returns
        -------
        Variable
            The view.
        """
        return transpose(self, axis0, axis1)

    @property
    def T(self):
        """The Variable with all dimensions reversed (``permute(n-1, ..., 0)``)."""
        return permute(self, tuple(range(self._data.ndim))[::-1])

    @property
    def mT(self):
        """The Variable with its last two dimensions swapped (a batched matrix transpose)."""
        if self._data.ndim == 0:
            # torch 2.x: deprecated on 0-d, where it is the identity (the Variable itself)
            _warn_once("mT 0-d", "Tensor.mT is deprecated on 0-D tensors. This function is "
                                 "the identity in these cases.")
            return self
        if self._data.ndim < 2:
            raise RuntimeError("Variable.mT is only supported on matrices or batches of "
                               "matrices. Got %d-D Variable." % self._data.ndim)
        return transpose(self, -2, -1)

    def where(self, condition, other):
        """``self`` where ``condition`` is true, ``other`` elsewhere (torch's argument
        order: ``x.where(cond, y)`` is ``pyad.where(cond, x, y)``)."""
        return where(condition, self, other)

    def expand_as(self, other):
        """Return ``self.expand(other.shape)``.

        Parameters
        ----------
        other : Variable
            The Variable whose shape to take.

        Returns
        -------
        Variable
            The view.
        """
        shape = tuple(other.shape)
        if shape == self._data.shape:
            return _same_shape_expand(self)      # a new view, as torch's
        return broadcast_to(self, shape)

    def add_(self, other, *legacy, alpha=1):
        """Add ``alpha * other`` in place and return self (recorded; bumps the version).

        Parameters
        ----------
        other : Variable, array or scalar
            The second operand (broadcast against this one).
        alpha : scalar, default 1
            Multiplier of ``other``.

        Returns
        -------
        Variable
            self.
        """
        if legacy:
            other, alpha = _legacy_alpha_form("add_", other, legacy, alpha)
        return add_(self, other if alpha == 1 else mul(other, alpha))

    def sub_(self, other, *legacy, alpha=1):
        """Subtract ``alpha * other`` in place and return self (recorded; bumps the version).

        Parameters
        ----------
        other : Variable, array or scalar
            The second operand (broadcast against this one).
        alpha : scalar, default 1
            Multiplier of ``other``.

        Returns
        -------
        Variable
            self.
        """
        if legacy:
            other, alpha = _legacy_alpha_form("sub_", other, legacy, alpha)
        return sub_(self, other if alpha == 1 else mul(other, alpha))

    # -- torch.Tensor's plumbing: memory, storage and flags ------------------------

    def data_ptr(self):
        """The address of the first element (0 for a Variable with no elements).

        Returns
        -------
        int
            The address, as torch's ``data_ptr()``.
        """
        if self._data.size == 0:
            return 0
        if type(self._data) is _NDARRAY:
            return self._data.__array_interface__["data"][0]
        return self._data.data.ptr

    def storage_offset(self):
        """The offset of the first element in the memory it shares with the array that
        owns it, in elements (0 for a Variable that owns its memory).

        Returns
        -------
        int
            The offset, as torch's ``storage_offset()``.
        """
        root = _root_array(self._data)
        if root is self._data:
            return 0
        return (_array_address(self._data) - _array_address(root)) // self._data.itemsize

    def set_(self, source=None, storage_offset=None, size=None, stride=None):
        """Make this Variable share ``source``'s memory, shape and strides, in place, as
        torch's ``set_(source)``: writes through either show in the other; ``set_()``
        makes it an empty 1-d Variable. With ``storage_offset``, ``size`` and ``stride``
        it views that strided window of the memory ``source`` lives in (the offset counts
        from ``source``'s first element, as torch's; every element must lie inside that
        memory).

        The dtype must match. Bumps the version counter; the Variable is no longer a
        view of what it viewed, and a leaf gets a new gradient accumulator (so a graph
        built before no longer reaches it, as torch's). In grad mode a leaf that
        requires grad is refused (wrap the call in ``no_grad()``, as for
        `nn.Parameter` surgery); a ``source`` that requires grad gives a result whose
        backward raises (torch has no derivative for ``set_``).

        >>> x = pyad.zeros(3)
        >>> _ = x.set_(pyad.arange(4.))
        >>> x
        tensor([0., 1., 2., 3.])
        """
        cdef Variable src = None
        _inplace_target(self, "set_")
        if source is None:
            if storage_offset is not None or size is not None or stride is not None:
                raise TypeError("set_(): storage_offset, size and stride need a source "
                                "Variable")
            data = _xp_of(self._data).empty((0,), dtype=self._data.dtype)
        else:
            if not isinstance(source, Variable):
                raise TypeError("set_(): argument 'source' must be a Variable, not %s"
                                % type(source).__name__)
            src = <Variable>source
            if _dtype(src._data) != _dtype(self._data):
                raise RuntimeError("set_(): Could not set Variable of type %s to a Variable "
                                   "of type %s" % (_torch_dtype_name(_dtype(src._data)).lower(),
                                                   _torch_dtype_name(_dtype(self._data)).lower()))
            if _xp_of(src._data) is not _xp_of(self._data):
                raise RuntimeError("set_(): the source Variable is on another device (%s, "
                                   "this one is on %s)" % (src.device, self.device))
            data = src._data
            if storage_offset is not None or size is not None or stride is not None:
                if size is None or storage_offset is None:
                    raise TypeError("set_(): a strided window needs a storage_offset and a "
                                    "size (and optionally a stride)")
                if type(data) is not _NDARRAY:
                    raise NotImplementedError("set_(): storage_offset, size and stride are "
                                              "supported for CPU Variables only")
                from pyad._compat import _strided_view    # (checks every element's place)
                data = _strided_view(data, size, stride, storage_offset)
        if not pyad_get_grad_disabled():
            _check_inplace_allowed(self, source, "set_")
        _track_var(self)
        self._data = data
        self._is_view = False          # no longer a view of what it viewed: its history
        self._view_base = None         # and writes are its own from here on
        self._view_fn = None
        self._accumulator = None       # a leaf's new accumulator (torch resets it too)
        _bump_version(self)
        if not pyad_get_grad_disabled() and _is_float_dtype(data.dtype) and (
                self._requires_grad or (src is not None and src._requires_grad)):
            # torch records set_ on a Variable or from a source that requires grad with a
            # node whose backward raises (it has no derivative): the old history (of the
            # old shape) must not be reached through the new data
            result = <Variable>_delayed_error((_wrap(data),), (src, self),
                                              "set_(): the derivative for 'set_' is not "
                                              "implemented")[0]
            _set_history(self, result._grad_fn, result._output_nr)
        return self

    def is_set_to(self, tensor):
        """True when both Variables view the same memory with the same offset, shape
        and strides (torch's ``is_set_to``).

        Parameters
        ----------
        tensor : Variable
            The other Variable.

        Returns
        -------
        bool
        """
        if not isinstance(tensor, Variable):
            raise TypeError("is_set_to(): argument 'tensor' must be a Variable, not %s"
                            % type(tensor).__name__)
        other = (<Variable>tensor)._data
        return (type(other) is type(self._data) and other.dtype == self._data.dtype
                and other.shape == self._data.shape and other.strides == self._data.strides
                and _root_array(other) is _root_array(self._data)
                and _array_address(other) == _array_address(self._data))

    @property
    def itemsize(self):
        """Bytes per element (``element_size()``)."""
        return self._data.itemsize

    @property
    def is_cpu(self):
        """True when the data is a NumPy array."""
        return type(self._data) is _NDARRAY

    def get_device(self):
        """The GPU index of a CUDA Variable, -1 for a CPU one (torch's ``get_device``).

        Returns
        -------
        int
        """
        if type(self._data) is _NDARRAY:
            return -1
        return self._data.device.id

    def is_signed(self):
        """True for signed integer, floating and complex dtypes (False for bool and
        unsigned integers).

        Returns
        -------
        bool
        """
        return self._data.dtype.kind in "ifc"

    def is_shared(self):
        """True when the data lives in shared memory (after `share_memory_`).

        Returns
        -------
        bool
        """
        import mmap
        owner = _root_array(self._data).base
        if isinstance(owner, memoryview):
            owner = owner.obj
        return isinstance(owner, mmap.mmap)

    def share_memory_(self):
        """Move the data into shared memory (an anonymous shared mapping that child
        processes made with ``fork`` see) and return self; a no-op on a GPU Variable or
        one already shared. Unlike torch, Variables that already view the old memory keep
        it.

        Returns
        -------
        Variable
            self.
        """
        import mmap
        if type(self._data) is not _NDARRAY or self.is_shared():
            return self
        buffer = mmap.mmap(-1, self._data.nbytes or 1)
        data = numpy.frombuffer(buffer, dtype=self._data.dtype,
                                count=self._data.size).reshape(self._data.shape)
        data[...] = self._data
        _track_var(self)
        self._data = data
        return self

    def is_conj(self):
        """False: pyad conjugates eagerly (torch's lazy conjugate bit is never set).

        Returns
        -------
        bool
        """
        return False

    def is_neg(self):
        """False: pyad negates eagerly (torch's lazy negative bit is never set).

        Returns
        -------
        bool
        """
        return False

    def resolve_conj(self):
        """Self (pyad has no lazily conjugated Variables).

        Returns
        -------
        Variable
        """
        return self

    def resolve_neg(self):
        """Self (pyad has no lazily negated Variables).

        Returns
        -------
        Variable
        """
        return self

    def new_empty_strided(self, size, stride, *, dtype=None, device=None,
                          requires_grad=False):
        """An uninitialised Variable of ``size`` and ``stride`` (in elements), with this
        Variable's dtype and device unless given.

        Returns
        -------
        Variable
        """
        from pyad import _factories
        size, stride = tuple(size), tuple(stride)
        if len(size) != len(stride):
            raise RuntimeError("new_empty_strided(): dimensionality of sizes (%d) must match "
                               "dimensionality of strides (%d)" % (len(size), len(stride)))
        extent = 1
        for n, st in zip(size, stride):
            if n < 0 or st < 0:
                raise RuntimeError("new_empty_strided(): sizes and strides must be "
                                   "non-negative, got %s and %s" % (size, stride))
            if n == 0:
                extent = 0
                break
            extent += (n - 1) * st
        flat = _factories.empty(extent, dtype=self._data.dtype if dtype is None else dtype,
                                device=self.device if device is None else device)
        d = (<Variable>flat)._data
        # (with no elements, the view of the empty buffer keeps the strides asked for)
        data = _xp_of(d).lib.stride_tricks.as_strided(
            d, size, tuple(st * d.itemsize for st in stride))
        out = _wrap(data)
        if requires_grad:
            out._mark_requires_grad(True)
        return out

    def apply_(self, callable):
        """Replace each element ``v`` by ``callable(v)`` (CPU only, element by element in
        Python, not recorded: as torch's ``apply_``).

        Returns
        -------
        Variable
            self.
        """
        self._check_map("apply_")
        for index in numpy.ndindex(self._data.shape):
            self._data[index] = _mapped_number(callable(self._data[index].item()), "apply_")
        return self

    def map_(self, tensor, callable):
        """Replace each element ``v`` by ``callable(v, w)``, ``w`` the element of
        ``tensor`` (broadcast to this shape) at the same place (CPU only, not recorded).

        Returns
        -------
        Variable
            self.
        """
        self._check_map("map_")
        other = _map_operand(self, tensor, "tensor", "map_")
        for index in numpy.ndindex(self._data.shape):
            self._data[index] = _mapped_number(
                callable(self._data[index].item(), other[index].item()), "map_")
        return self

    def map2_(self, x, y, callable):
        """Replace each element ``v`` by ``callable(v, a, b)``, ``a`` and ``b`` the
        elements of ``x`` and ``y`` (broadcast to this shape) at the same place (CPU
        only, not recorded: as torch's ``map2_``).

        Returns
        -------
        Variable
            self.
        """
        self._check_map("map2_")
        a = _map_operand(self, x, "x", "map2_")
        b = _map_operand(self, y, "y", "map2_")
        for index in numpy.ndindex(self._data.shape):
            self._data[index] = _mapped_number(
                callable(self._data[index].item(), a[index].item(), b[index].item()), "map2_")
        return self

    def _check_map(self, str what):
        if type(self._data) is not _NDARRAY:
            raise TypeError("%s(): %s is only implemented on CPU Variables" % (what, what))
        if self._requires_grad:
            raise RuntimeError("%s(): Can't call %s() on Variable that requires grad. Use "
                               "var.detach().%s() instead." % (what, what, what))
        if not _is_writeable(self._data):
            raise _unwritable_error(self, what)
        _bump_version(self)

    @property
    def mH(self):
        """The conjugate transpose of the last two dimensions (`adjoint`)."""
        if self._data.ndim == 0:
            # torch 2.x: deprecated on 0-d, where it conjugates
            _warn_once("mH 0-d", "Tensor.mH is deprecated on 0-D tensors. Consider using "
                                 "x.conj().")
        elif self._data.ndim < 2:
            raise RuntimeError("Variable.mH is only supported on matrices or batches of "
                               "matrices. Got %d-D Variable." % self._data.ndim)
        return adjoint(self)

    @property
    def H(self):
        """The conjugate transpose of a matrix (2-D only; `mH` for batches)."""
        if self._data.ndim != 0 and self._data.ndim != 2:
            raise RuntimeError("Variable.H is only supported on matrices (2-D Variables). Got "
                               "%d-D Variable.%s" % (self._data.ndim, " For batches of matrices, "
                                                     "consider using Variable.mH"
                                                     if self._data.ndim > 2 else ""))
        return adjoint(self)

Tensor = Variable


cdef object _root_array(object data):
    # The array that owns the memory data views (data itself if it owns it).
    root = data
    while isinstance(root.base, type(data)):
        root = root.base
    return root


cdef object _array_address(object data):
    if type(data) is _NDARRAY:
        return data.__array_interface__["data"][0]
    return data.data.ptr


# torch's other names for ops (Variable methods; pyad/__init__.py exports the functions)
_METHOD_ALIASES = (("multiply", "mul"), ("subtract", "sub"), ("divide", "div"),
                   ("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"),
                   ("less_equal", "le"), ("not_equal", "ne"), ("negative", "neg"))

# Methods whose functions live in pyad/_compat.py (pure Python, torch's older linear
# algebra spellings and deg2rad/rad2deg).
_COMPAT_METHODS = ("det", "logdet", "slogdet", "inverse", "pinverse", "cholesky",
                   "cholesky_solve", "cholesky_inverse", "qr", "svd", "triangular_solve",
                   "deg2rad", "rad2deg")


def _alias_method(str alias, object target):
    def method(self, *args, **kwargs):
        return target(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = alias
    method.__doc__ = "torch's other name for :meth:`Variable.%s`." % target.__name__
    method.__signature__ = inspect.signature(target)
    return method


def _compat_method(str name):
    def method(self, *args, **kwargs):
        from pyad import _compat
        return getattr(_compat, name)(self, *args, **kwargs)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = ("Method form of :func:`pyad.%s`, with this Variable as the first "
                      "argument." % name)
    return method


def _get_volatile(Variable self):
    """Legacy inference flag: any volatile input makes an op's output volatile."""
    # torch removed the flag (and warns on every read); pyad keeps its old meaning
    # but warns too, pointing at its replacement.
    warnings.warn("volatile is a legacy flag (torch removed it, where Variable.volatile is "
                  "always False); use `with pyad.no_grad():` instead", UserWarning,
                  stacklevel=2)
    return self._volatile


def _set_volatile(Variable self, value):
    if self._grad_fn is not None:
        raise RuntimeError("volatile can only be set on leaf variables")
    self._volatile = bool(value)
    if self._volatile:
        self._requires_grad = False


cdef _add_class_attribute(type cls, str name, object value):
    # Extension types are immutable from Python; add the attribute to the type's dict
    # through the C API and invalidate the attribute cache.
    (<dict>(<PyTypeObject*>cls).tp_dict)[name] = value
    PyType_Modified(<PyTypeObject*>cls)


def _add_variable_methods(dict methods):
    """Make each function of ``methods`` a Variable method under its key: the ops written
    in Python on top of the engine's (``pyad/_statistics.py``) that torch also has as
    Tensor methods. A name the type already has is refused."""
    cdef dict type_dict = <dict>(<PyTypeObject*>Variable).tp_dict
    for name, fn in methods.items():
        if name in type_dict:
            raise ValueError("Variable already has an attribute %r" % (name,))
        _add_class_attribute(Variable, name, fn)


_add_class_attribute(Variable, "volatile", property(_get_volatile, _set_volatile,
                                                    doc=_get_volatile.__doc__))
# An ndarray on the left of an operator defers to the Variable.
_add_class_attribute(Variable, "__array_priority__", 1000)


def _variable_is_view(Variable self):
    """torch's ``Tensor._is_view()``: True for a view of another Variable."""
    return self._is_view


_add_class_attribute(Variable, "_is_view", _variable_is_view)


# --------------------------------------------------------------------------------
# The backward queue
#
# One pass counts, for every node reachable from the roots, how many edges point
# at it. A node runs once its count reaches zero, i.e. after every gradient flowing
# into it has been summed into its buffer. Ready nodes run most recently created
# first (a heap on -sequence number), which frees memory early. No recursion.
# --------------------------------------------------------------------------------

cdef class _GraphRoot(Node):
    # A virtual node whose "gradients" are the ones the user passed for the roots.
    cdef tuple _grads

    cdef tuple _backward(self, tuple grads):
        return self._grads


@cython.final
cdef class _GraphTask:
    # Dependency counts and gradient buffers of one backward pass. The algorithms
    # (count_dependencies, take_buffer, take_grads, add_grad, release_dependency) are
    # written once against one storage interface, the primitives _start, _reach, _get,
    # _put, _pop, _sum and _release: the only methods that look at `in_fields`. The
    # outermost pass stores in the nodes' own fields (no hashing); a nested pass, which
    # may cross the same nodes, stores in dicts, so the two never collide.
    cdef bint in_fields
    cdef dict deps
    cdef dict buffers
    cdef list visited
    cdef dict captures        # node -> [(output slot, index in `captured`)] (inputs=)
    cdef set needed           # nodes that must run (None: all)
    cdef list captured        # the gradients returned by grad()
    # In the outermost pass, which nodes must run and which are captured are flags in
    # the nodes' _in_task byte (_MARK_*), not sets: `marks` says `needed` is there.
    cdef bint marks

    # -- the storage interface --------------------------------------------------------

    cdef inline void _start(self, Node root) except *:
        # A new pass from `root`: empty counts and buffers.
        if self.in_fields:
            root._in_task = True
            self.visited = [root]
        else:
            self.deps = {}
            self.buffers = {}

    cdef inline bint _reach(self, Node node) except -1:
        # One more edge points at `node`: count it; True the first time it is reached.
        if self.in_fields:
            if node._in_task:
                node._deps += 1
                return False
            node._in_task = True
            node._deps = 1
            self.visited.append(node)
            return True
        count = self.deps.get(node)
        if count is None:
            self.deps[node] = 1
            return True
        self.deps[node] = count + 1
        return False

    cdef inline bint _release(self, Node node) except -1:
        # One count of `node` done; True when it was the last.
        cdef Py_ssize_t count
        if self.in_fields:
            node._deps -= 1
            return node._deps == 0
        count = self.deps[node] - 1
        if count == 0:
            del self.deps[node]
            return True
        self.deps[node] = count
        return False

    cdef inline object _get(self, Node node):
        return node._buffer if self.in_fields else self.buffers.get(node)

    cdef inline int _put(self, Node node, object buf) except -1:
        if self.in_fields:
            node._buffer = buf
        else:
            self.buffers[node] = buf
        return 0

    cdef inline object _pop(self, Node node):
        if self.in_fields:
            buf = node._buffer
            node._buffer = None
            return buf
        return self.buffers.pop(node, None)

    cdef inline object _sum(self, object buf, object g):
        # buf + g; with the buffer in the node's field, into buf's own array when nothing
        # else can see it (_add_into counts the field's reference).
        if self.in_fields and _add_into(<Variable>buf, <Variable>g):
            return buf
        return buf + g

    # -- the algorithms ---------------------------------------------------------------

    cdef void count_dependencies(self, Node root) except *:
        cdef list stack = [root]
        cdef Node node
        cdef Node nxt
        cdef Py_ssize_t i
        self._start(root)
        while stack:
            node = stack.pop()
            for i in range(_num_edges(node)):
                nxt = _edge_node_at(node, i)
                if nxt is not None and self._reach(nxt):
                    stack.append(nxt)

    cdef inline list take_buffer(self, Node node):
        # The gradients summed for `node`, one slot per output, as a list.
        buf = self._pop(node)
        if buf is None:
            return [None] * node._num_outputs
        if node._num_outputs == 1:
            return [buf]
        return <list>buf

    cdef inline tuple take_grads(self, Node node):
        # As take_buffer, but straight to the tuple a backward receives.
        if node._num_outputs != 1:
            return tuple(self.take_buffer(node))
        return (self._pop(node),)

    cdef inline int add_grad(self, Node node, Py_ssize_t nr, object g) except -1:
        cdef object buf = self._get(node)
        if node._num_outputs == 1:
            self._put(node, g if buf is None else self._sum(buf, g))
            return 0
        if buf is None:
            buf = [None] * node._num_outputs
            self._put(node, buf)
        (<list>buf)[nr] = g if (<list>buf)[nr] is None else (<list>buf)[nr] + g
        return 0

    cdef inline bint release_dependency(self, Node node) except -1:
        # One more producer of `node`'s gradient has run; True when it was the last.
        return self._release(node)

    cdef void finish(self):
        cdef Node node
        if self.visited is not None:
            for node in self.visited:
                node._in_task = False
                node._deps = 0
                node._buffer = None
            self.visited = None


cdef bint _add_into(Variable acc, Variable g) except -1:
    # Sum g into the buffered gradient's own array when nothing else can see it: only
    # the node's buffer field and our caller's local hold `acc`, and only acc holds its
    # array. Saves a temporary per extra consumer of a value (big arrays page-fault).
    if _grad_enabled() or Py_REFCNT(acc) > 2:
        return False
    data = acc._data
    if type(data) is not _NDARRAY or Py_REFCNT(data) > 2 or \
            not cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>data) or \
            not cnp.PyArray_ISWRITEABLE(<cnp.ndarray>data) or data.base is not None:
        return False
    other = g._data
    if other.shape != data.shape or other.dtype != data.dtype:
        return False
    _ufunc2(_LOOP_ADD, data, other, data)
    return True


cdef int _backward_depth = 0


cdef set _nodes_to_execute(Node root, set targets, set exec_targets):
    # Post-order walk: a node must run if it is an execution target or if any of its
    # next functions must run or is a capture target.
    # (Two parallel stacks, nodes and their next edge's index: no tuple per step.)
    cdef set needed = set()
    cdef set visited = {root}
    cdef list stack = [root]
    cdef list positions = [0]
    cdef Node node
    cdef Py_ssize_t i, n, top
    cdef bint any_exec = len(exec_targets) != 0
    while stack:
        top = len(stack) - 1
        node = stack[top]
        i = positions[top]
        n = _num_edges(node)
        if i < n:
            positions[top] = i + 1
            nxt = _edge_node_at(node, i)
            if nxt is not None and nxt not in visited:
                visited.add(nxt)
                stack.append(nxt)
                positions.append(0)
        else:
            stack.pop()
            positions.pop()
            if any_exec and node in exec_targets:
                needed.add(node)
                continue
            for i in range(n):
                nxt = _edge_node_at(node, i)
                if nxt is not None and (nxt in needed or nxt in targets):
                    needed.add(node)
                    break
    return needed


cdef tuple _call_hooks_on_grads(Node node, list buffer, bint create_graph,
                                bint run_pre_hooks):
    # Variable hooks (per output slot), then retain_grad, then node pre-hooks.
    cdef Py_ssize_t nr
    cdef Variable var, g
    cdef _NodeExtra x = _extra(node)
    if x.tensor_pre_hooks:
        for nr, hooks in x.tensor_pre_hooks.items():
            for _, hook in list(hooks):
                # A slot no gradient reached is passed as None (torch's undefined
                # gradient): the hook may return one for it.
                result = hook(buffer[nr])
                if result is not None:
                    buffer[nr] = _check_hook_result(result, buffer[nr], node, hook)
    if x.retain_grad_hooks:
        for nr, ref in x.retain_grad_hooks.items():
            var = ref()
            if var is None or buffer[nr] is None:
                continue
            g = <Variable>buffer[nr]
            _track_var(var)
            if var._grad is None:
                var._grad = g if create_graph else _wrap(g._data.copy())
            else:
                var._grad = var._grad + g
    grads = tuple(buffer)
    if run_pre_hooks and x.pre_hooks:
        for _, hook in list(x.pre_hooks):
            result = hook(grads)
            if result is not None:
                grads = _check_node_hook_result(node, hook, result, grads)
    return grads


cdef Variable _check_hook_result(object result, object old, Node node, object hook=None):
    cdef Variable new = _as_variable(result, "hook")
    if old is not None and new._data.shape != (<Variable>old)._data.shape:
        raise RuntimeError("hook on %s returned a gradient of shape %s, expected %s"
                           % (node.name(), _shape_str(new._data.shape),
                              _shape_str((<Variable>old)._data.shape)))
    if old is not None and new._data.dtype != (<Variable>old)._data.dtype:
        # torch's check (a leaf's .grad would otherwise take the hook's dtype)
        raise RuntimeError("hook '%s' has changed the type of value (was %s got %s)"
                           % (getattr(hook, "__name__", repr(hook)),
                              (<Variable>old)._data.dtype, new._data.dtype))
    return new


cdef tuple _check_node_hook_result(Node node, object hook, object result, tuple old):
    # A node hook's replacement for `old` (its gradients in or out): the same count,
    # each None or a Variable of the old one's shape (torch's checks), since the
    # backward formulas and the engine take them as they are.
    cdef Py_ssize_t i
    cdef list new
    name = getattr(hook, "__name__", repr(hook))
    if not isinstance(result, (tuple, list)):
        raise TypeError("hook '%s' on %s: expected a tuple, but hook returned '%s'"
                        % (name, node.name(), type(result).__name__))
    if len(result) != len(old):
        raise RuntimeError("hook '%s' on %s has returned an incorrect number of values "
                           "(got %d, but expected %d)"
                           % (name, node.name(), len(result), len(old)))
    new = list(result)
    for i in range(len(new)):
        if old[i] is None and new[i] is not None:
            # torch's rule: a hook may drop a gradient, never invent one (the slot of an
            # input that needs none, a constant operand of x * 3)
            raise RuntimeError("hook '%s' on %s can't replace a None gradient with a "
                               "non-None value (value %d)" % (name, node.name(), i))
        new[i] = _checked_grad(new[i], node, i, "hook '%s' value" % name)
        if new[i] is not None and old[i] is not None and \
                (<Variable>new[i])._data.shape != (<Variable>old[i])._data.shape:
            raise RuntimeError("hook '%s' on %s has changed the size of value %d (from %s "
                               "to %s)" % (name, node.name(), i,
                                           _shape_str((<Variable>old[i])._data.shape),
                                           _shape_str((<Variable>new[i])._data.shape)))
    return tuple(new)


cdef tuple _materialize(Node node, tuple grads):
    # Fill missing gradients of a multi-output node with zeros of the right shape.
    cdef list out
    cdef Py_ssize_t i
    for g in grads:
        if g is None:
            break
    else:
        return grads                                # (none missing: nothing to build)
    out = list(grads)
    for i in range(len(out)):
        meta = node._x.out_meta[i]
        if out[i] is None and meta is not None:     # (None meta: not a Variable output)
            shape, dtype, xp = meta
            out[i] = _wrap(_np_zeros(shape, dtype) if xp is numpy
                           else xp.zeros(shape, dtype=dtype))
    return tuple(out)


cdef object _np_zeros = numpy.zeros


cdef tuple _run_node(Node node, tuple grads, bint keep_graph):
    if _profiling:
        return _run_node_profiled(node, grads, keep_graph)
    return _run_node_body(node, grads, keep_graph)


cdef tuple _run_node_profiled(Node node, tuple grads, bint keep_graph):
    cdef long long seq = node._seq if node._seq < _ACCUMULATE_SEQUENCE else -1
    cdef bint fast
    profiler = _profiler
    if profiler is None:
        return _run_node_body(node, grads, keep_graph)
    cdef Py_ssize_t index = 0
    fast = type(profiler) is _EventLog
    token = None
    if fast:
        index = (<_EventLog>profiler).begin(type(node).__name__, 1, seq)
    else:
        token = profiler.node_begin(type(node).__name__, seq)
    outs = None
    try:
        outs = _run_node_body(node, grads, keep_graph)
    finally:
        if fast:
            (<_EventLog>profiler).end(index, seq)
        else:
            profiler.node_end(token, outs)
    return outs


cdef inline tuple _run_node_body(Node node, tuple grads, bint keep_graph):
    cdef tuple outs
    if node._x is not None and node._x.out_meta is not None:
        grads = _materialize(node, grads)
    if _gc_audit:
        _gc_audit_node(node)
    # Anomaly mode is read once per node (a thread-local read); off, the backward runs
    # without the try block that maintains the anomaly parent and forward trace.
    if _anomaly_on():
        outs = _call_backward_anomaly(node, grads)
    else:
        outs = _call_backward(node, grads)
    if node._x is not None and node._x.post_hooks:
        for _, hook in list(node._x.post_hooks):
            result = hook(outs, grads)
            if result is not None:
                outs = _check_node_hook_result(node, hook, result, outs)
    if pyad_get_anomaly() == 3:                 # on, and checking for NaN
        _check_nan(node, outs)
    if not keep_graph:
        node._release_saved()
    return outs


cdef tuple _call_backward_anomaly(Node node, tuple grads):
    # _call_backward in anomaly mode: nodes recorded meanwhile get `node` as their
    # parent, and an error gets the forward traceback of the node that raised.
    global _current_node
    cdef Node previous = _current_node
    _current_node = node
    try:
        return _call_backward(node, grads)
    except Exception as exc:
        _warn_forward_trace(node)
        if node._x is not None and node._x.creation_stack is not None:
            _add_forward_trace(exc, node)
        raise
    finally:
        _current_node = previous


cdef void _warn_forward_trace(Node node) except *:
    # torch's anomaly-mode warnings for a node whose backward raised: where its forward
    # op ran, then one warning per parent node (the backward that recorded it), or that
    # the forward ran without anomaly mode. Warnings turned into errors are written to
    # stderr instead, and the original error goes on.
    cdef list texts = []
    if node._x is None or node._x.creation_stack is None:
        texts.append("Error detected in %s. No forward pass information available. Enable "
                     "detect anomaly during forward pass for more information." % node.name())
    else:
        texts.append("Error detected in %s. Traceback of forward call that caused the "
                     "error:\n%s" % (node.name(), _format_stack(node._x.creation_stack)))
        parent = node._x.parent_node
        while parent is not None and parent._x is not None and \
                parent._x.creation_stack is not None:
            texts.append("\n\nPrevious calculation was induced by %s. Traceback of forward "
                         "call that induced the previous calculation:\n%s"
                         % (parent.name(), _format_stack(parent._x.creation_stack)))
            parent = parent._x.parent_node
    for text in texts:
        try:
            warnings.warn(text, UserWarning, stacklevel=2)
        except Exception:
            sys.stderr.write("Warning: %s\n" % text)


cdef void _add_forward_trace(object exc, Node node) except *:
    text = ("\n\nError detected in %s. Traceback of forward call that caused the error:\n%s"
            % (node.name(), _format_stack(node._x.creation_stack)))
    parent = node._x.parent_node
    while parent is not None and parent._x is not None and \
            parent._x.creation_stack is not None:
        text += ("\nPrevious calculation was induced by %s. Traceback of forward call that "
                 "induced the previous calculation:\n%s"
                 % (parent.name(), _format_stack(parent._x.creation_stack)))
        parent = parent._x.parent_node
    if exc.args and isinstance(exc.args[0], str):
        exc.args = (exc.args[0] + text,) + exc.args[1:]
    else:
        exc.args = exc.args + (text,)


cdef bint _has_nan(object data) except -1:
    # A contiguous float32/float64 NumPy array is scanned in C (a ufunc reduction costs
    # about a microsecond of dispatch, most of the check on small arrays). Otherwise a
    # NaN anywhere makes the sum NaN, so one reduction settles the common case (no
    # NaN); only a NaN sum (NaNs, or inf - inf) pays for the elementwise test.
    cdef char kind = _dtype_kind(data)
    if kind != b'f' and kind != b'c':
        return False
    cdef Py_ssize_t i, n
    cdef int type_num
    cdef double* d64
    cdef float* d32
    if type(data) is _NDARRAY and cnp.PyArray_IS_C_CONTIGUOUS(<cnp.ndarray>data) and \
            cnp.PyArray_ISNOTSWAPPED(<cnp.ndarray>data):
        n = cnp.PyArray_SIZE(<cnp.ndarray>data)
        type_num = cnp.PyArray_TYPE(<cnp.ndarray>data)
        if type_num == cnp.NPY_FLOAT64:
            d64 = <double*>cnp.PyArray_DATA(<cnp.ndarray>data)
            for i in range(n):
                if d64[i] != d64[i]:
                    return True
            return False
        if type_num == cnp.NPY_FLOAT32:
            d32 = <float*>cnp.PyArray_DATA(<cnp.ndarray>data)
            for i in range(n):
                if d32[i] != d32[i]:
                    return True
            return False
    total = _sum_data(data, None, False)
    if total == total:
        return False
    return bool(_xp_of(data).isnan(data).any())


cdef void _check_nan(Node node, tuple outs) except *:
    cdef Py_ssize_t i
    for i in range(len(outs)):
        g = outs[i]
        if g is None:
            continue
        if _has_nan((<Variable>g)._data):
            msg = "Function '%s' returned nan values in its %dth output." % (node.name(), i)
            if node._x is not None and node._x.creation_stack is not None:
                msg += ("\nTraceback of forward call that caused the error:\n%s"
                        % _format_stack(node._x.creation_stack))
            _warn_forward_trace(node)            # torch warns as for any backward error
            raise RuntimeError(msg)


# A backward called from inside a backward (a custom Function's backward, a hook)
# nests on the C stack. Every _REENTRANT_THREAD_DEPTH levels the nested pass moves to
# a fresh thread (the caller waits for it), which starts with a fresh C stack and
# Python recursion budget: any nesting depth works, as torch's reentrant backward
# does with its thread pool.
cdef int _REENTRANT_THREAD_DEPTH = 32


cdef list _execute(tuple roots, tuple root_grads, bint keep_graph, bint create_graph,
                   tuple inputs, bint accumulate, bint only_inputs=True):
    # A backward pass runs with the saved_tensors_hooks stack it started with and
    # leaves it so: a hook that enters or exits a context during backward (an unpack
    # hook calling __enter__) changes nothing after it, as torch's engine restores its
    # thread-local hook state (and nothing it pushed stays alive).
    cdef list hooks_before = list(_saved_hooks) if _saved_hooks else None
    cdef Py_ssize_t depth = len(_final_callbacks)
    _final_callbacks.append(None)               # (a list once a callback is queued)
    _passes_run_every_node.append(inputs is None)
    try:
        result = _execute_with_hooks_as_is(roots, root_grads, keep_graph, create_graph,
                                           inputs, accumulate, only_inputs)
        # Callbacks queued during this pass (Variable._execution_engine.queue_callback)
        # run once it is done, in order; a callback may queue more.
        callbacks = _final_callbacks[depth]
        while callbacks:
            (<list>callbacks).pop(0)()
        return result
    finally:
        _final_callbacks.pop()
        _passes_run_every_node.pop()
        if hooks_before is not None or _saved_hooks:
            _restore_saved_hooks(hooks_before)


# Per running backward pass, innermost last: None, or the list of its queued final
# callbacks.
cdef list _final_callbacks = []
# Per running backward pass, innermost last: whether it runs every node it reaches
# (backward() without inputs=), or only those leading to given inputs (grad(),
# backward(inputs=...)).
cdef list _passes_run_every_node = []


def _wrap_dim(dim, Py_ssize_t ndim, str what, bint scalar_has_dim=True):
    """torch's maybe_wrap_dim for ops written in Python: ``dim`` in ``[-ndim, ndim)`` as
    a non-negative int, with the engine's errors. A 0-d input takes dim 0 or -1, unless
    ``scalar_has_dim`` is False (ops that index the shape with the dim)."""
    if scalar_has_dim:
        return _normalize_dim(dim, ndim, what)
    return _normalize_dim_sized(dim, ndim, what)


def _is_checkpoint_valid():
    """torch's ``torch.autograd._is_checkpoint_valid()``: False while the innermost
    running backward pass is a ``grad()`` or ``backward(inputs=...)`` (a reentrant
    checkpoint's nested backward cannot give it the gradients it captures)."""
    return not _passes_run_every_node or _passes_run_every_node[len(_passes_run_every_node) - 1]


class _ExecutionEngine:
    """``Variable._execution_engine``: the backward engine's Python handle."""

    def queue_callback(self, callback):
        """Run ``callback()`` when the backward pass now running has finished."""
        if not _final_callbacks:
            raise RuntimeError("Final callbacks can only be installed during backward pass.")
        if not callable(callback):
            raise TypeError("queue_callback(): callback must be callable")
        cdef Py_ssize_t last = len(_final_callbacks) - 1
        if _final_callbacks[last] is None:
            _final_callbacks[last] = []
        (<list>_final_callbacks[last]).append(callback)


_add_class_attribute(Variable, "_execution_engine", _ExecutionEngine())


def _increment_version(Variable v):
    """Bump ``v``'s version counter (shared with its views), as an in-place op would."""
    cdef VersionCounter counter = _vc(v)
    counter.version += 1


cdef inline void _restore_saved_hooks(list before):
    global _saved_hooks_on
    if before is None:
        if _saved_hooks:
            del _saved_hooks[:]
    elif len(_saved_hooks) != len(before) or any(
            a is not b for a, b in zip(_saved_hooks, before)):
        _saved_hooks[:] = before
    _saved_hooks_on = len(_saved_hooks) > 0


cdef list _execute_with_hooks_as_is(tuple roots, tuple root_grads, bint keep_graph,
                                    bint create_graph, tuple inputs, bint accumulate,
                                    bint only_inputs):
    if _backward_depth == 0 or _backward_depth % _REENTRANT_THREAD_DEPTH != 0:
        return _execute_here(roots, root_grads, keep_graph, create_graph, inputs,
                             accumulate, only_inputs)
    import threading
    box = [None, None]
    worker = threading.Thread(
        target=_execute_in_thread, name="pyad-reentrant-backward",
        args=(box, pyad_get_grad_disabled(), pyad_get_anomaly(),
              (roots, root_grads, keep_graph, create_graph, inputs, accumulate,
               only_inputs)))
    worker.start()
    worker.join()
    if box[1] is not None:
        raise box[1]
    return box[0]


def _execute_in_thread(list box, int grad_disabled, int anomaly, tuple args):
    pyad_set_grad_disabled(grad_disabled)       # grad mode and anomaly mode are per thread
    pyad_set_anomaly(anomaly)
    try:
        box[0] = _execute_here(args[0], args[1], args[2], args[3], args[4], args[5],
                               args[6])
    except BaseException as exc:
        box[1] = exc


@cython.final
cdef class _ReadyQueue:
    # Nodes whose incoming gradients are complete. One is held directly (a chain never
    # needs more, and then no heap entry is built); more go to a heap, newest first.
    cdef Node single
    cdef list heap
    cdef long long pushed          # heap entries' tie-break: nodes never get compared

    cdef inline bint empty(self):
        return self.single is None and not self.heap

    cdef inline int push(self, Node node) except -1:
        if self.single is None and not self.heap:
            self.single = node
            return 0
        if self.single is not None:
            self.pushed += 1
            _heappush(self.heap, (-self.single._seq, self.pushed, self.single))
            self.single = None
        self.pushed += 1
        _heappush(self.heap, (-node._seq, self.pushed, node))
        return 0

    cdef inline Node pop(self):
        cdef Node node = self.single
        if node is not None:
            self.single = None
            return node
        return (<tuple>(self.heap.pop() if len(self.heap) == 1 else _heappop(self.heap)))[2]


cdef list _execute_here(tuple roots, tuple root_grads, bint keep_graph, bint create_graph,
                        tuple inputs, bint accumulate, bint only_inputs=True):
    """Run backward from `roots`.

    inputs is None: every node runs and leaves accumulate (``backward()``).
    accumulate=True with inputs: only the inputs' sinks accumulate (``backward(inputs=)``).
    accumulate=False: gradients for `inputs` are captured and returned (``grad()``).
    """
    global _backward_depth, _spare_task, _spare_queue
    cdef _GraphRoot root = _make_root(roots, root_grads)
    cdef _GraphTask task
    cdef _ReadyQueue queue
    cdef Node node
    cdef tuple grads, outs
    cdef list captured
    # The task and queue objects of the last pass are reused (taken while in use, so a
    # reentrant or concurrent pass makes its own).
    if _spare_task is not None:
        task = _spare_task
        _spare_task = None
    else:
        task = _GraphTask.__new__(_GraphTask)
    if _spare_queue is not None:
        queue = _spare_queue
        _spare_queue = None
    else:
        queue = _ReadyQueue.__new__(_ReadyQueue)
        queue.heap = []
    task.in_fields = _backward_depth == 0
    queue.single = root
    previous_mode = pyad_get_grad_disabled()
    fp_token = _fp_quiet_enter()       # the formulas' inf and nan come without warnings
    _backward_depth += 1
    try:
        task.count_dependencies(root)
        if inputs is not None:
            # (after the count: the outermost pass marks only nodes the count reached)
            _plan_inputs(task, root, inputs, accumulate, only_inputs)
        pyad_set_grad_disabled(not create_graph)
        while not queue.empty():
            node = queue.pop()
            # Drop the previous node's references so a leaf's sink can tell, from
            # reference counts, whether it is the only holder of its gradient.
            outs = grads = None
            if node is root:
                grads = root_grads
            else:
                grads = _incoming_grads(task, node, create_graph)
                if grads is None:
                    # Skipped (nothing flowed in, or not needed): its next nodes still
                    # count it as done, or gradients from other paths would wait forever.
                    _propagate(task, queue, node, None)
                    continue
            outs = _run_node(node, grads, keep_graph)
            _propagate(task, queue, node, outs)
    finally:
        _backward_depth -= 1
        task.finish()
        pyad_set_grad_disabled(previous_mode)
        captured = task.captured
        task.deps = task.buffers = task.captures = None
        task.needed = None
        task.marks = False
        task.captured = None
        queue.single = None
        if queue.heap:
            del queue.heap[:]        # (an error left nodes in it)
        _spare_task = task
        _spare_queue = queue
        _release_root(root)
        _fp_quiet_exit(fp_token)
    return captured


cdef _GraphTask _spare_task = None
cdef _ReadyQueue _spare_queue = None


cdef inline object _root_edge(object o):
    if type(o) is GradientEdge:
        return _make_entry((<tuple>o)[0], (<tuple>o)[1])
    cdef Variable v = <Variable>o
    if v._requires_grad or v._grad_fn is None:
        return _edge(v)
    return _make_entry(v._grad_fn, v._output_nr)


cdef _GraphRoot _spare_root = None


cdef inline void _release_root(_GraphRoot root):
    # Keep the finished pass's root for the next pass (one GC-tracked object less per
    # call); it lets go of the graph and the root gradients now.
    global _spare_root
    root._e0 = None
    root._e1 = None
    root._grads = None
    root._x = None
    _spare_root = root


cdef _GraphRoot _make_root(tuple roots, tuple root_grads):
    global _spare_root
    cdef _GraphRoot root = _spare_root
    if root is not None:
        _spare_root = None
    else:
        root = _GraphRoot.__new__(_GraphRoot)
    if len(roots) == 1:
        _init_node(root, (_root_edge(roots[0]),), 1)
    else:
        _init_node(root, tuple([_root_edge(v) for v in roots]), len(roots))
    root._seq = -1
    root._grads = root_grads
    return root


cdef void _plan_inputs(_GraphTask task, Node root, tuple inputs, bint accumulate,
                       bint only_inputs) except *:
    # Which nodes' incoming gradients are captured (grad(), non-leaf inputs of
    # backward(inputs=)), and which nodes need to run at all.
    # The outermost pass (in_fields) runs after count_dependencies and keeps both in
    # flags of the nodes the count reached (_MARK_*; a node it did not reach never runs).
    cdef Variable v
    cdef Node node
    cdef Py_ssize_t i, nr
    cdef bint in_fields = task.in_fields
    cdef set targets = None
    cdef set exec_targets = None
    cdef unsigned char mark
    cdef bint run_all = not accumulate and not only_inputs
    task.captures = {}
    task.captured = [None] * len(inputs)
    if not in_fields:
        targets = set()
        exec_targets = set()
    for i in range(len(inputs)):
        if isinstance(inputs[i], Variable):
            v = inputs[i]
            node = _node_of(v)
            nr = v._output_nr if v._grad_fn is not None else 0
            if accumulate and v._grad_fn is not None:
                # backward(inputs=[non-leaf]): torch retains its grad and runs its node
                # (hooks and all); what that node returns goes nowhere.
                v.retain_grad()
        else:
            # a GradientEdge (checked by _as_inputs): its node and the output it names;
            # with accumulate, a leaf's accumulator accumulates and any other node runs
            node = <Node>(<tuple>inputs[i])[0]
            nr = (<tuple>inputs[i])[1]
            if node._gc_state == 0:
                _seal_node(node)
        if accumulate:
            mark = _MARK_TARGET | _MARK_EXEC
        else:
            task.captures.setdefault(node, []).append((nr, i))
            mark = _MARK_TARGET | _MARK_CAPTURED
        if in_fields:
            if node._in_task:
                node._in_task |= mark
        else:
            targets.add(node)
            if mark & _MARK_EXEC:
                exec_targets.add(node)
    if run_all:
        task.needed = None                   # grad(only_inputs=False): other leaves too
    elif in_fields:
        _mark_needed(root)
        task.marks = True
    else:
        task.needed = _nodes_to_execute(root, targets, exec_targets)


# Flags in Node._in_task during the outermost pass (bit 0: reached by the count).
cdef enum:
    _MARK_SEEN = 2          # visited by _mark_needed
    _MARK_NEEDED = 4        # must run (leads to an input)
    _MARK_TARGET = 8        # an input's node (captured or accumulated)
    _MARK_EXEC = 16         # an input's node that runs (backward(inputs=))
    _MARK_CAPTURED = 32     # an input's node whose incoming gradient grad() returns


# _mark_needed's stack: borrowed node pointers and edge positions in one C buffer,
# grown on need and kept (no Python list operations, no int objects per step).
cdef struct _MarkFrame:
    PyObject* node
    Py_ssize_t pos

cdef _MarkFrame* _mark_frames = NULL
cdef Py_ssize_t _mark_cap = 0


cdef int _mark_needed(Node root) except -1:
    # _nodes_to_execute on the flags: post-order walk, a node must run if it is an
    # execution target or if any of its next functions must run or is a target.
    # The pointers are borrowed: the root holds the graph, and the walk calls no Python
    # code (so nothing is freed meanwhile, and no other walk starts while it runs).
    global _mark_frames, _mark_cap
    cdef Node node, nxt
    cdef Py_ssize_t i, n, top = 0
    cdef _MarkFrame* grown
    if _mark_cap == 0:
        _mark_frames = <_MarkFrame*>PyMem_Realloc(NULL, 64 * sizeof(_MarkFrame))
        if _mark_frames == NULL:
            raise MemoryError()
        _mark_cap = 64
    root._in_task |= _MARK_SEEN
    _mark_frames[0].node = <PyObject*>root
    _mark_frames[0].pos = 0
    while top >= 0:
        node = <Node>_mark_frames[top].node
        i = _mark_frames[top].pos
        n = _num_edges(node)
        if i < n:
            _mark_frames[top].pos = i + 1
            nxt = _edge_node_at(node, i)
            if nxt is not None and not (nxt._in_task & _MARK_SEEN):
                nxt._in_task |= _MARK_SEEN
                if top + 1 == _mark_cap:
                    grown = <_MarkFrame*>PyMem_Realloc(_mark_frames,
                                                       2 * _mark_cap * sizeof(_MarkFrame))
                    if grown == NULL:
                        raise MemoryError()
                    _mark_frames = grown
                    _mark_cap *= 2
                top += 1
                _mark_frames[top].node = <PyObject*>nxt
                _mark_frames[top].pos = 0
        else:
            top -= 1
            if node._in_task & _MARK_EXEC:
                node._in_task |= _MARK_NEEDED
                continue
            for i in range(n):
                nxt = _edge_node_at(node, i)
                if nxt is not None and (nxt._in_task & (_MARK_NEEDED | _MARK_TARGET)):
                    node._in_task |= _MARK_NEEDED
                    break
    return 0


cdef tuple _incoming_grads(_GraphTask task, Node node, bint create_graph):
    # The gradients `node` runs on, after hooks and captures; None: do not run it.
    # With inputs= (grad, backward(inputs=)) a node runs only if it leads to an input.
    # A captured node that need not run still runs its Variable hooks (they change
    # what is captured) but not its node pre-hooks; any other node that need not run
    # is skipped, hooks and all (torch).
    cdef bint is_needed, is_captured
    if task.marks:
        is_needed = (node._in_task & _MARK_NEEDED) != 0
    else:
        is_needed = task.needed is None or node in task.needed
    if task.captures is None:
        is_captured = False
    elif task.in_fields:
        is_captured = (node._in_task & _MARK_CAPTURED) != 0
    else:
        is_captured = node in task.captures
    cdef tuple grads
    cdef Py_ssize_t nr, i
    if not is_needed and not is_captured:
        return None
    cdef list buffer
    cdef _NodeExtra x = node._x
    if x is not None and (x.tensor_pre_hooks or x.retain_grad_hooks
                          or (is_needed and x.pre_hooks)):
        buffer = task.take_buffer(node)
        if is_captured and is_needed:
            # A node that runs gives grad() what flowed into it, before its hooks
            # (torch captures before calling the function's hooks).
            for nr, i in task.captures[node]:
                task.captured[i] = buffer[nr]
        grads = _call_hooks_on_grads(node, buffer, create_graph, is_needed)
    else:
        grads = task.take_grads(node)
    if is_captured:
        if not is_needed or not _has_node_hooks(node):
            for nr, i in task.captures[node]:
                task.captured[i] = grads[nr]
        if not is_needed or isinstance(node, AccumulateGrad):
            return None
    for g in grads:
        if g is not None:
            return grads
    if x is not None and x.out_meta is not None:
        # A custom Function that materialises missing gradients runs on zeros even when
        # none flowed in (torch calls every node; its PyNode fills the zeros in)
        return grads
    return None                              # nothing flowed in: nothing to propagate


cdef int _propagate(_GraphTask task, _ReadyQueue queue, Node node, tuple outs) except -1:
    # Add each gradient `node` returned (outs None: none) into the buffer of the node
    # it flows to; a node whose last producer has now run becomes ready.
    cdef Node nxt
    cdef Py_ssize_t i, n = _num_edges(node)
    if outs is None:
        for i in range(n):
            nxt = _edge_node_at(node, i)
            if nxt is not None and task.release_dependency(nxt):
                queue.push(nxt)
        return 0
    if len(outs) != n:
        raise RuntimeError("%s returned %d gradients, expected %d"
                           % (node.name(), len(outs), n))
    for i in range(n):
        edge = _edge_at(node, i)
        if edge is None:
            continue
        nxt = _entry_node(edge)
        g = outs[i]
        if g is not None:
            task.add_grad(nxt, _entry_nr(edge), g)
        if task.release_dependency(nxt):
            queue.push(nxt)
    return 0


cdef object _heappush = heapq.heappush
cdef object _heappop = heapq.heappop


cdef tuple _as_tuple(object x):
    if isinstance(x, Variable) or isinstance(x, GradientEdge):
        return (x,)
    if x is None:
        return ()
    return tuple(x)


# torch.autograd.graph.GradientEdge: a named (node, output_nr) pair that grad() and
# backward(inputs=...) take in place of a Variable (the gradient flowing into that
# output of that node). Defined here because the engine tells it apart from a plain
# tuple; pyad.autograd.graph exports it.
import collections as _collections


class GradientEdge(_collections.namedtuple("GradientEdge", ("node", "output_nr"))):
    """An edge of the backward graph: the gradient that flows into output
    ``output_nr`` of ``node``. ``pyad.autograd.graph.get_gradient_edge(v)`` gives the one
    ``v``'s gradient flows into; ``grad()`` and ``backward()`` take it in place of a
    Variable, as an input (``inputs=``) or as an output to differentiate, so a gradient
    can be asked for after the Variable itself is gone."""
    # (no __slots__: an edge from get_gradient_edge keeps its Variable's shape, dtype and
    # array module in _meta, which an output edge's implicit and checked gradient needs;
    # nodes do not record their outputs' metadata)


GradientEdge.__module__ = "pyad.autograd.graph"


def _gradient_edge(Variable tensor):
    """``get_gradient_edge(tensor)``: the node and output number ``tensor``'s gradient
    flows into (its ``grad_fn``, or a leaf's ``AccumulateGrad``)."""
    if not _requires_grad_now(tensor):
        raise RuntimeError("get_gradient_edge(): it is not possible to get the gradient "
                           "edge for a Variable that does not require gradients")
    cdef Node node = _node_of(tensor)
    edge = GradientEdge(node, tensor._output_nr if tensor._grad_fn is not None else 0)
    edge._meta = (tuple(tensor._data.shape), tensor._data.dtype, _xp_of(tensor._data))
    return edge


cdef void _check_edge(object v, str what) except *:
    # A GradientEdge's output_nr indexes its node's incoming gradients in C: guarded.
    if not isinstance((<tuple>v)[0], Node):
        raise TypeError("%s(): a GradientEdge's node must be a Node, got %s"
                        % (what, type((<tuple>v)[0]).__name__))
    nr = (<tuple>v)[1]
    cdef Node node = <Node>(<tuple>v)[0]
    if not isinstance(nr, int) or isinstance(nr, bool) or \
            not 0 <= nr < node._num_outputs:
        raise RuntimeError("%s(): GradientEdge output_nr %r is out of range for %s "
                           "with %d output(s)" % (what, nr, node.name(), node._num_outputs))


cdef int _check_implicit_root(tuple shape, object dtype, Py_ssize_t i) except -1:
    # backward()/grad() without a gradient for output i: only a one-element real output
    # has an implicit one (torch).
    cdef Py_ssize_t n = 1
    for d in shape:
        n *= d
    if n != 1:
        raise RuntimeError("grad can be implicitly created only for scalar outputs "
                           "(output %d has shape %s); pass a gradient"
                           % (i, _shape_str(shape)))
    if dtype.kind == "c":
        raise RuntimeError("grad can be implicitly created only for real scalar "
                           "outputs but got %s" % dtype)
    return 0


cdef Variable _fit_root_grad(Variable g, tuple shape, object dtype, Py_ssize_t i,
                             bint create_graph):
    # The gradient given for output i, checked against the output's shape and dtype:
    # another real dtype is cast to the output's (as torch's engine casts every
    # gradient), a complex/real mismatch is an error; detached unless create_graph.
    if tuple(g._data.shape) != shape:
        raise RuntimeError("Mismatch in shape: grad_output[%d] has a shape of %s and "
                           "output[%d] has a shape of %s."
                           % (i, str(tuple(g._data.shape)), i, str(shape)))
    if g._data.dtype != dtype:
        if (_dtype_kind(g._data) == b'c') != (dtype.kind == "c"):
            raise RuntimeError("For complex Variables, both grad_output and output "
                               "are required to have the same dtype. Mismatch in "
                               "dtype: grad_output[%d] has a dtype of %s and "
                               "output[%d] has a dtype of %s."
                               % (i, g._data.dtype, i, dtype))
        g = _wrap(g._data.astype(dtype))
    if not create_graph and g._grad_fn is not None:
        g = g.detach()
    return g


cdef Variable _edge_root_grad(object edge, object grad, Py_ssize_t i, bint create_graph,
                              str what):
    # The gradient a GradientEdge output starts with: given (checked against the shape
    # and dtype of the Variable the edge came from, where get_gradient_edge recorded
    # them), or implicitly 1 for a one-element real output.
    _check_edge(edge, what)
    meta = getattr(edge, "_meta", None)
    if grad is None:
        if meta is None:
            raise RuntimeError("grad can be implicitly created only for scalar outputs: "
                               "pass a gradient for the GradientEdge output %d (one built "
                               "by hand carries no shape)" % i)
        shape, dtype, xp = meta
        _check_implicit_root(shape, dtype, i)
        return _wrap(xp.ones(shape, dtype=dtype))
    cdef Variable g = _as_variable(grad, what)
    if meta is None:
        if not create_graph and g._grad_fn is not None:
            g = g.detach()
        return g
    shape, dtype, xp = meta
    return _fit_root_grad(g, shape, dtype, i, create_graph)


cdef tuple _as_inputs(object x, str what):
    # The inputs= of grad() and backward(): Variables and GradientEdges, checked (an
    # edge's output_nr indexes the node's incoming gradients in C: guarded here).
    cdef tuple ins
    cdef Node node
    if isinstance(x, (Variable, GradientEdge)):
        ins = (x,)
    elif x is None:
        ins = ()
    else:
        ins = tuple(x)
    for v in ins:
        if isinstance(v, Variable):
            continue
        if not isinstance(v, GradientEdge):
            raise TypeError("%s(): inputs must be Variables or GradientEdges, got %s"
                            % (what, type(v).__name__))
        _check_edge(v, what)
    return ins


cdef tuple _make_root_grads(tuple outputs, object grads, bint create_graph, bint is_grad):
    # -> (the outputs that require grad, their gradients)
    cdef list result = []
    cdef Variable out, g
    cdef Py_ssize_t i
    if grads is None:
        grads = (None,) * len(outputs)
    else:
        grads = (grads,) if isinstance(grads, _NDARRAY) else _as_tuple(grads)
    if len(grads) != len(outputs):
        raise RuntimeError("grad can be implicitly created only for scalar outputs"
                           if len(grads) == 0 else
                           "got %d gradients for %d outputs" % (len(grads), len(outputs)))
    cdef list kept = []
    for i in range(len(outputs)):
        if not isinstance(outputs[i], Variable):
            if isinstance(outputs[i], GradientEdge):
                # start the pass at the edge's node (torch 2.x)
                result.append(_edge_root_grad(outputs[i], grads[i], i, create_graph,
                                              "grad" if is_grad else "backward"))
                kept.append(outputs[i])
                continue
            raise TypeError("%s(): outputs must be Variables or GradientEdges, got %s"
                            % ("grad" if is_grad else "backward", type(outputs[i]).__name__))
        out = outputs[i]
        stochastic = isinstance(out._grad_fn, _StochasticNode)
        if not _requires_grad_now(out) and not stochastic:
            # An output that does not require grad contributes nothing; it is
            # skipped (an error only when no output requires grad, below), as the
            # contract says (torch raises when one of several roots is constant). The
            # integer sample of a stochastic op (multinomial) is a root without
            # requiring grad.
            continue
        kept.append(out)
        if grads[i] is None and stochastic:
            # A sample ignores the gradient it receives (its reward replaces it).
            g = _wrap(_xp_of(out._data).zeros(out._data.shape, dtype=(<_StochasticNode>
                                              out._grad_fn)._reward_dtype()))
        elif grads[i] is None:
            _check_implicit_root(out._data.shape, out._data.dtype, i)
            g = _wrap(_ones_data(out._data))
        else:
            g = _as_variable(grads[i], "grad" if is_grad else "backward")
            if type(g._data) is _NDARRAY and type(out._data) is _NDARRAY:
                # NumPy on both sides (the common case): shape and dtype from the
                # array structs, no device objects compared
                if _has_shape(g._data, <tuple>out._data.shape) and \
                        _same_dtype(_dtype(g._data), _dtype(out._data)):
                    if not create_graph and g._grad_fn is not None:
                        g = g.detach()
                    result.append(g)
                    continue
            if tuple(g._data.shape) == tuple(out._data.shape) and \
                    _device_of(g._data) != _device_of(out._data):
                raise RuntimeError("grad_output[%d] is on %s but output[%d] is on %s"
                                   % (i, g.device, i, out.device))
            g = _fit_root_grad(g, tuple(out._data.shape), out._data.dtype, i, create_graph)
        result.append(g)
    if not kept:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a "
                           "grad_fn")
    return outputs if len(kept) == len(outputs) else tuple(kept), tuple(result)


def backward(tensors=None, grad_tensors=None, retain_graph=None, create_graph=False,
             grad_variables=None, retain_variables=None, inputs=None, variables=None):
    """Accumulate gradients of ``tensors`` w.r.t. the graph leaves into their ``.grad``.

    ``grad_tensors`` (old name ``grad_variables``) gives the gradient of each tensor;
    ``None`` is accepted for scalars. ``retain_graph`` (old name ``retain_variables``)
    defaults to ``create_graph``. ``inputs`` restricts accumulation to those Variables.

    >>> x = Variable(numpy.array([1., 2.]), requires_grad=True)
    >>> backward([(x * x).sum()])
    >>> x.grad
    tensor([2., 4.], dtype=float64)
    """
    if tensors is None:
        tensors = variables
    if tensors is None:
        raise TypeError("backward() missing required argument 'tensors'")
    if grad_tensors is None:
        grad_tensors = grad_variables
    if retain_graph is None:
        retain_graph = retain_variables
    _run_backward(_as_tuple(tensors), grad_tensors, retain_graph, create_graph, inputs)


cdef _run_backward(tuple outputs, object grad_tensors, object retain_graph,
                   object create_graph, object inputs):
    # backward() and Variable.backward() (a C call: no keyword arguments to parse)
    cdef bint create = bool(create_graph)
    cdef bint keep = create if retain_graph is None else bool(retain_graph)
    outputs, roots = _make_root_grads(outputs, grad_tensors, create, False)
    cdef tuple ins = None
    if inputs is not None:
        ins = _as_inputs(inputs, "backward")
        if len(ins) == 0:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        for v in ins:
            if isinstance(v, Variable) and not (<Variable>v)._requires_grad:
                raise RuntimeError("backward(): every Variable in inputs= must require grad")
    if create:
        _warn_once("create_graph backward", _CREATE_GRAPH_BACKWARD_WARNING)
    captured = _execute(outputs, roots, keep, create, ins, True)
    if ins is not None:
        # Non-leaf inputs were captured; they receive .grad like retain_grad would.
        # (A GradientEdge has no Variable to receive it: its node runs, as torch's.)
        for i in range(len(ins)):
            v = ins[i]
            g = captured[i]
            if not isinstance(v, Variable) or (<Variable>v)._grad_fn is None or \
                    g is None or (<Variable>v)._retains_grad:
                continue                     # (retain_grad's hook already stored it)
            if not create:
                g = _wrap((<Variable>g)._data.copy())
            _track_var(<Variable>v)
            (<Variable>v)._grad = g if (<Variable>v)._grad is None else (<Variable>v)._grad + g


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False):
    """Return the gradients of ``outputs`` w.r.t. ``inputs`` (without touching ``.grad``).

    >>> x = Variable(numpy.array([1., 2.]), requires_grad=True)
    >>> grad((x ** 3).sum(), x)
    (tensor([ 3., 12.], dtype=float64),)

    With ``create_graph=True`` the result has history, so it can be differentiated
    again. ``allow_unused`` returns None for inputs the outputs do not depend on
    (zeros with ``materialize_grads``). ``only_inputs=False`` also accumulates into the
    ``.grad`` of the other leaves. ``is_grads_batched`` reads the first dimension of
    each grad_output as a batch of vectors, and each gradient gets it too (one backward
    pass per row here; torch uses vmap).
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if not only_inputs:
        # torch deprecates the argument with a FutureWarning (and ignores it); pyad keeps
        # the older API's meaning (SPEC), and warns in the same category
        warnings.warn("only_inputs argument is deprecated (torch ignores it now); pyad "
                      "keeps its older meaning: the other leaves' .grad accumulate too. "
                      "Use pyad.autograd.backward to accumulate gradients.",
                      FutureWarning, stacklevel=1)
    if allow_unused is None:
        allow_unused = materialize_grads
    cdef tuple outs = _as_tuple(outputs)
    cdef tuple ins = _as_inputs(inputs, "grad")
    cdef bint create = bool(create_graph)
    cdef bint keep = (create or _inside_vmap()) if retain_graph is None else bool(retain_graph)
    if len(ins) == 0:
        raise RuntimeError("grad requires non-empty inputs: the `inputs` argument to "
                           "`grad()` cannot be empty.")
    for i in range(len(ins)):
        v = ins[i]
        if isinstance(v, Variable) and not _requires_grad_now(<Variable>v):
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if is_grads_batched:                      # (the inputs are checked Variables now)
        return _grad_batched(outs, ins, grad_outputs, retain_graph, create_graph,
                             only_inputs, bool(allow_unused), bool(materialize_grads))
    outs, roots = _make_root_grads(outs, grad_outputs, create, True)
    captured = _execute(outs, roots, keep, create, ins, False, bool(only_inputs))
    result = []
    for i in range(len(ins)):
        g = captured[i]
        if g is None:
            if not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is "
                                   "the desired behavior.")
            if materialize_grads:
                if not isinstance(ins[i], Variable):
                    raise RuntimeError("materialize_grads cannot be used when the given "
                                       "input is a GradientEdge")
                # Zeros; under create_graph a leaf that requires grad, as torch's, so
                # that it takes part in the next differentiation like any other gradient.
                d = (<Variable>ins[i])._data
                g = _wrap(_xp_of(d).zeros_like(d))
                (<Variable>g)._requires_grad = create
        elif not create and (<Variable>g)._grad_fn is not None:
            g = g.detach()
        result.append(g)
    return tuple(result)


cdef tuple _grad_batched(tuple outs, tuple ins, object grad_outputs, object retain_graph,
                         object create_graph, object only_inputs, bint allow_unused,
                         bint materialize_grads):
    # grad(is_grads_batched=True): the first dimension of each grad_output is a batch of
    # vectors, and each input's gradient gets the same leading dimension. torch runs the
    # vector-Jacobian product once under vmap; pyad runs it once per batch entry on the
    # same graph (kept until the last) and stacks the results.
    cdef Py_ssize_t i, k, batch = -1
    if grad_outputs is None:
        raise RuntimeError("grad(): is_grads_batched=True needs grad_outputs, whose first "
                           "dimension is the batch dimension")
    gos = (grad_outputs,) if isinstance(grad_outputs, (Variable, numpy.ndarray)) \
        else tuple(grad_outputs)
    if len(gos) != len(outs):
        raise RuntimeError("grad(): got %d gradients for %d outputs" % (len(gos), len(outs)))
    batched = []
    for i in range(len(outs)):
        if not isinstance(outs[i], Variable):
            raise TypeError("grad(): outputs must be Variables, got %s"
                            % type(outs[i]).__name__)
        go = _as_variable(gos[i], "grad")
        shape = (<Variable>outs[i])._data.shape
        if go._data.ndim == 0 or go._data.shape[1:] != shape:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                "are expected to match the shape of corresponding output, but a mismatch "
                "was detected: grad_output[%d] has a shape of %s and output[%d] has a shape "
                "of %s." % (i, _shape_str(go._data.shape), i, _shape_str(shape)))
        if batch >= 0 and go._data.shape[0] != batch:
            raise RuntimeError("grad(): every grad_output needs the same batch size with "
                               "is_grads_batched=True, got %d and %d"
                               % (batch, go._data.shape[0]))
        batch = go._data.shape[0]
        batched.append(go)
    create = bool(create_graph)
    keep = create if retain_graph is None else bool(retain_graph)
    rows = []
    for k in range(batch):
        rows.append(grad(outs, ins, [go[k] for go in batched],
                         retain_graph=True if k + 1 < batch else keep,
                         create_graph=create, only_inputs=only_inputs,
                         allow_unused=allow_unused or materialize_grads))
    result = []
    for i in range(len(ins)):
        column = [row[i] for row in rows]
        if not isinstance(ins[i], Variable) and (batch == 0 or (
                column[0] is None and materialize_grads)):
            raise RuntimeError("grad(): is_grads_batched cannot make the gradient of a "
                               "GradientEdge input that no row reached (its shape is "
                               "not known); pass the Variable instead")
        d = (<Variable>ins[i])._data if isinstance(ins[i], Variable) else None
        if batch == 0:
            g = _wrap(_xp_of(d).zeros((0,) + d.shape, dtype=d.dtype))
        elif column[0] is None:
            g = None
            if materialize_grads:
                # torch's zeros here have the input's shape, without the batch dimension
                g = _wrap(_xp_of(d).zeros_like(d))
                (<Variable>g)._requires_grad = create
        else:
            g = stack(column)
        result.append(g)
    return tuple(result)


include "_loops.pxi"
include "ops/_common.pxi"
include "ops/_out.pxi"
include "ops/elementwise.pxi"
include "ops/reduction.pxi"
include "ops/linalg.pxi"
include "ops/shape.pxi"
include "ops/nn.pxi"
include "ops/conv.pxi"
include "ops/random.pxi"
include "ops/special.pxi"
include "ops/inplace.pxi"
include "ops/complex.pxi"
include "_function.pxi"
include "_dlpack.pxi"
include "_bridge.pxi"
include "_format.pxi"
include "_gctrack.pxi"
include "_saved_attrs.pxi"
include "_nodealloc.pxi"


# --------------------------------------------------------------------------------
# The op registry: each family file ends with the tuple of its public ops, the only
# list of their names. Each op becomes a Variable method here (a Cython function
# binds like a Python one, with no bound-method object per call), unless the class
# defines that name itself (operators, and methods whose signature differs from the
# function's, such as add(other, *, alpha)).
# --------------------------------------------------------------------------------

OP_FAMILIES = {
    "elementwise": ELEMENTWISE_OPS,
    "reduction": REDUCTION_OPS,
    "linalg": LINALG_OPS,
    "shape": SHAPE_OPS,
    "nn": NN_OPS,
    "conv": CONV_OPS,
    "random": RANDOM_OPS,
    "inplace": INPLACE_OPS,
    "complex": COMPLEX_OPS,
    "special": SPECIAL_OPS,
    "linalg_namespace": LINALG_NAMESPACE_OPS,
    "special_namespace": SPECIAL_NAMESPACE_OPS,
}

# Each family's heading in docs/op-reference.md (the <FAMILY>_TITLE of its file).
OP_FAMILY_TITLES = {
    "elementwise": ELEMENTWISE_TITLE,
    "reduction": REDUCTION_TITLE,
    "linalg": LINALG_TITLE,
    "shape": SHAPE_TITLE,
    "nn": NN_TITLE,
    "conv": CONV_TITLE,
    "random": RANDOM_TITLE,
    "inplace": INPLACE_TITLE,
    "complex": COMPLEX_TITLE,
    "special": SPECIAL_TITLE,
    "linalg_namespace": LINALG_NAMESPACE_TITLE,
    "special_namespace": SPECIAL_NAMESPACE_TITLE,
}

# Families whose ops live in a submodule (pyad.<namespace>.<name>) rather than as
# pyad.<name> and Variable methods.
OP_NAMESPACES = {"linalg_namespace": LINALG_NAMESPACE_MODULE,
                 "special_namespace": SPECIAL_NAMESPACE_MODULE}

# Public as pyad.<name> but not as Variable methods (each family file says which of its
# ops, and why, in its <FAMILY>_FUNCTION_ONLY).
FUNCTION_ONLY = frozenset(ELEMENTWISE_FUNCTION_ONLY + REDUCTION_FUNCTION_ONLY
                          + LINALG_FUNCTION_ONLY + SHAPE_FUNCTION_ONLY + NN_FUNCTION_ONLY
                          + CONV_FUNCTION_ONLY + RANDOM_FUNCTION_ONLY
                          + INPLACE_FUNCTION_ONLY + COMPLEX_FUNCTION_ONLY
                          + SPECIAL_FUNCTION_ONLY)


cdef void _install_methods() except *:
    cdef dict class_dict = <dict>(<PyTypeObject*>Variable).tp_dict
    for key, family in OP_FAMILIES.items():
        if key in OP_NAMESPACES:
            continue
        for op in family:
            name = op.__name__
            if name not in class_dict and name not in FUNCTION_ONLY:
                _add_class_attribute(Variable, name, op)
    for alias, name in _METHOD_ALIASES:
        _add_class_attribute(Variable, alias, _alias_method(alias, class_dict[name]))
    for name in _COMPAT_METHODS:
        _add_class_attribute(Variable, name, _compat_method(name))


_install_methods()
