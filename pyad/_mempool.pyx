# cython: language_level=3
"""A size-bucketed cache of freed array buffers for NumPy (NEP 49 data-allocation handler).

Large host arrays are ``mmap``-ed by glibc and handed back to the OS when freed, so
a program that makes and drops arrays of the same size in a loop (every training
step) page-faults each of them in again, every call. This handler keeps freed blocks
of at least ``_MIN_POOLED`` bytes in a bounded cache, keyed by size rounded up to a
quarter power of two, and hands them out again, as CuPy's memory pool does on the GPU.

It is installed only inside ``pyad.memory_pool()`` (NumPy keeps the handler in a
context variable), so arrays allocated elsewhere are untouched; an array remembers
the handler that allocated it, so it is freed back here wherever it dies. Every
operation takes a lock of its own (NumPy does not hold the GIL in every path that
frees or allocates data), so the cache is safe from any thread.
"""
from cpython.pycapsule cimport PyCapsule_New

cdef extern from *:
    """
    #include <stdlib.h>
    #include <string.h>
    #include <stdint.h>
    #include "pythread.h"
    #define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
    #include "numpy/ndarraytypes.h"
    #if defined(__linux__)
    #include <sys/mman.h>
    #endif

    /* As NumPy's default handler does: ask for transparent huge pages on big blocks
       (fewer page faults and TLB misses where THP is in "madvise" mode). */
    static void pyad_advise_huge(void *p, size_t n) {
    #if defined(__linux__) && defined(MADV_HUGEPAGE)
        if (n >= ((size_t)4 << 20)) {
            uintptr_t start = ((uintptr_t)p + 4095) & ~(uintptr_t)4095;
            uintptr_t end = ((uintptr_t)p + n) & ~(uintptr_t)4095;
            if (end > start) madvise((void *)start, end - start, MADV_HUGEPAGE);
        }
    #endif
    }

    /* Every block carries a 64-byte header (the data stays 64-byte aligned where
       malloc's is, and 16-byte aligned always): its class (0: a plain malloc block,
       never cached; else the bucket index + 1) and its capacity. */
    #define PYAD_HDR 64
    #define PYAD_MIN_POOLED (128u * 1024u)     /* smaller blocks: plain malloc/free */
    #define PYAD_NBUCKETS (64 * 4)
    #define PYAD_MAGIC ((size_t)0x7079616450304f4cULL)

    typedef struct { size_t bucket; size_t capacity; size_t magic; size_t pad[5]; } pyad_hdr;

    static PyThread_type_lock pyad_pool_lock = NULL;
    static void *pyad_pool_heads[PYAD_NBUCKETS];   /* singly linked through the data */
    static size_t pyad_pool_cached = 0;            /* bytes held by the cache */
    static size_t pyad_pool_limit = (size_t)1 << 30;
    static unsigned long long pyad_pool_hits = 0, pyad_pool_misses = 0;
    static size_t pyad_pool_in_use = 0;            /* pooled-class bytes handed out */
    static size_t pyad_pool_peak = 0;

    /* Round up to a quarter power of two: waste under 25%, 4 buckets per octave. */
    static size_t pyad_bucket_of(size_t n, size_t *capacity) {
        int p = 63 - __builtin_clzll((unsigned long long)n);
        size_t step = (size_t)1 << (p - 2);
        size_t cap = (n + step - 1) & ~(step - 1);
        int q = 63 - __builtin_clzll((unsigned long long)cap);
        size_t sub = (cap >> (q - 2)) & 3;
        *capacity = cap;
        return (size_t)q * 4 + sub;
    }

    static void *pyad_pool_take(size_t n, int zero) {
        size_t cap, b;
        void *data = NULL;
        pyad_hdr *h;
        if (n < PYAD_MIN_POOLED || n > ((size_t)1 << 60)) {
            h = (pyad_hdr *)(zero ? calloc(1, n + PYAD_HDR) : malloc(n + PYAD_HDR));
            if (h == NULL) return NULL;
            h->bucket = 0; h->capacity = n; h->magic = PYAD_MAGIC;
            return (char *)h + PYAD_HDR;
        }
        b = pyad_bucket_of(n, &cap);
        PyThread_acquire_lock(pyad_pool_lock, WAIT_LOCK);
        data = pyad_pool_heads[b];
        if (data != NULL) {
            pyad_pool_heads[b] = *(void **)data;
            pyad_pool_cached -= cap;
            pyad_pool_hits++;
        } else {
            pyad_pool_misses++;
        }
        pyad_pool_in_use += cap;
        if (pyad_pool_in_use > pyad_pool_peak) pyad_pool_peak = pyad_pool_in_use;
        PyThread_release_lock(pyad_pool_lock);
        if (data != NULL) {
            if (zero) memset(data, 0, n);
            return data;
        }
        h = (pyad_hdr *)(zero ? calloc(1, cap + PYAD_HDR) : malloc(cap + PYAD_HDR));
        if (h == NULL) {
            PyThread_acquire_lock(pyad_pool_lock, WAIT_LOCK);
            pyad_pool_in_use -= cap;
            PyThread_release_lock(pyad_pool_lock);
            return NULL;
        }
        h->bucket = b + 1; h->capacity = cap; h->magic = PYAD_MAGIC;
        pyad_advise_huge((char *)h + PYAD_HDR, cap);
        return (char *)h + PYAD_HDR;
    }

    static void pyad_pool_give(void *data) {
        pyad_hdr *h;
        size_t b, cap;
        if (data == NULL) return;
        h = (pyad_hdr *)((char *)data - PYAD_HDR);
        b = h->bucket;
        if (b == 0) { free(h); return; }
        cap = h->capacity;
        PyThread_acquire_lock(pyad_pool_lock, WAIT_LOCK);
        pyad_pool_in_use -= cap;
        if (pyad_pool_cached + cap <= pyad_pool_limit) {
            *(void **)data = pyad_pool_heads[b - 1];
            pyad_pool_heads[b - 1] = data;
            pyad_pool_cached += cap;
            h = NULL;
        }
        PyThread_release_lock(pyad_pool_lock);
        if (h != NULL) free(h);
    }

    /* Frees every cached block (outside the lock) until at most `keep` bytes stay. */
    static void pyad_pool_trim(size_t keep) {
        void *list = NULL, *data, *next;
        int b;
        PyThread_acquire_lock(pyad_pool_lock, WAIT_LOCK);
        for (b = PYAD_NBUCKETS - 1; b >= 0 && pyad_pool_cached > keep; b--) {
            while (pyad_pool_heads[b] != NULL && pyad_pool_cached > keep) {
                data = pyad_pool_heads[b];
                pyad_pool_heads[b] = *(void **)data;
                pyad_pool_cached -= ((pyad_hdr *)((char *)data - PYAD_HDR))->capacity;
                *(void **)data = list;
                list = data;
            }
        }
        PyThread_release_lock(pyad_pool_lock);
        for (data = list; data != NULL; data = next) {
            next = *(void **)data;
            free((char *)data - PYAD_HDR);
        }
    }

    static void *pyad_h_malloc(void *ctx, size_t n) { return pyad_pool_take(n, 0); }

    static void *pyad_h_calloc(void *ctx, size_t nelem, size_t elsize) {
        size_t n;
        if (elsize != 0 && nelem > ((size_t)-1 - PYAD_HDR) / elsize) return NULL;
        n = nelem * elsize;
        return pyad_pool_take(n, 1);
    }

    static void *pyad_h_realloc(void *ctx, void *ptr, size_t n) {
        pyad_hdr *h;
        void *fresh;
        size_t old;
        if (ptr == NULL) return pyad_pool_take(n, 0);
        h = (pyad_hdr *)((char *)ptr - PYAD_HDR);
        if (h->bucket == 0 && n < PYAD_MIN_POOLED) {
            h = (pyad_hdr *)realloc(h, n + PYAD_HDR);
            if (h == NULL) return NULL;
            h->capacity = n;
            return (char *)h + PYAD_HDR;
        }
        if (h->bucket != 0 && n <= h->capacity && n >= PYAD_MIN_POOLED) return ptr;
        fresh = pyad_pool_take(n, 0);
        if (fresh == NULL) return NULL;
        old = h->capacity;
        memcpy(fresh, ptr, old < n ? old : n);
        pyad_pool_give(ptr);
        return fresh;
    }

    static void pyad_h_free(void *ctx, void *ptr, size_t size) { pyad_pool_give(ptr); }

    static PyDataMem_Handler pyad_pool_handler = {
        "pyad_memory_pool", 1,
        {NULL, pyad_h_malloc, pyad_h_calloc, pyad_h_realloc, pyad_h_free}
    };

    /* ---- Python's object arenas, kept for reuse (see pyad/memory.py) ----
       pymalloc hands each arena (1 MiB on 64-bit CPython >= 3.10) back to the OS
       as soon as it empties, so a program that builds and frees a big graph every
       step page-faults all of its small objects in again, every step. This wrapper
       of the arena allocator keeps up to `pyad_arena_limit` bytes of freed arenas
       and hands them out again; the pages of a kept arena are marked MADV_FREE, so
       the kernel may still take them under memory pressure (a reuse then faults
       as before), and if it does not, a reuse costs no fault. The same allocator
       also serves the interpreter's frame stack chunks (16 KiB and up): they are
       kept too, by size, in a few classes. Nothing is stored inside a kept block
       (MADV_FREE may zero it at any time). */
    #define PYAD_ARENA_CLASSES 4
    #define PYAD_ARENA_SLOTS 2048
    typedef struct { size_t size, count; void *slots[PYAD_ARENA_SLOTS]; } pyad_arena_class;
    static PyObjectArenaAllocator pyad_arena_prev;
    static int pyad_arena_installed = 0;
    static PyThread_type_lock pyad_arena_lock = NULL;
    static pyad_arena_class pyad_arena_kept[PYAD_ARENA_CLASSES];
    static size_t pyad_arena_cached = 0, pyad_arena_limit = 0;
    static unsigned long long pyad_arena_hits = 0, pyad_arena_misses = 0;

    /* The class that keeps blocks of `size`: the one of that size, else an empty one
       (which takes the size), else NULL. Under the lock. Class 0 is for arenas (256 KiB
       and up: one size per process), so that frame chunks of odd sizes, which hold the
       other classes, can never crowd them out. */
    static pyad_arena_class *pyad_arena_class_of(size_t size, int claim) {
        int i, lo = 1, hi = PYAD_ARENA_CLASSES;
        pyad_arena_class *empty = NULL;
        if (size >= ((size_t)256 << 10)) { lo = 0; hi = 1; }
        for (i = lo; i < hi; i++) {
            if (pyad_arena_kept[i].size == size) return &pyad_arena_kept[i];
            if (empty == NULL && pyad_arena_kept[i].count == 0) empty = &pyad_arena_kept[i];
        }
        if (claim && empty != NULL) empty->size = size;
        return claim ? empty : NULL;
    }

    static void *pyad_arena_alloc(void *ctx, size_t size) {
        void *p = NULL;
        pyad_arena_class *c;
        PyThread_acquire_lock(pyad_arena_lock, WAIT_LOCK);
        c = pyad_arena_class_of(size, 0);
        if (c != NULL && c->count > 0) {
            p = c->slots[--c->count];
            pyad_arena_cached -= size;
            pyad_arena_hits++;
        } else {
            pyad_arena_misses++;
        }
        PyThread_release_lock(pyad_arena_lock);
        return p != NULL ? p : pyad_arena_prev.alloc(pyad_arena_prev.ctx, size);
    }

    static void pyad_arena_free(void *ctx, void *ptr, size_t size) {
        int kept = 0;
        pyad_arena_class *c;
        if (ptr == NULL) return;
        /* Unlocked peek first: the common refusal costs no system call. */
        if (pyad_arena_cached + size > pyad_arena_limit) {
            pyad_arena_prev.free(pyad_arena_prev.ctx, ptr, size);
            return;
        }
        /* Marked before it is published: once kept, another interpreter (with a GIL
           of its own) may take it and write to it at once. Only whole pages, as the
           mmap-ed blocks are: a range sharing a page with other data would lose it. */
    #if defined(__linux__) && defined(MADV_FREE)
        if ((((uintptr_t)ptr | size) & 4095) == 0) madvise(ptr, size, MADV_FREE);
    #endif
        PyThread_acquire_lock(pyad_arena_lock, WAIT_LOCK);
        c = pyad_arena_class_of(size, 1);
        if (c != NULL && c->count < PYAD_ARENA_SLOTS
                && pyad_arena_cached + size <= pyad_arena_limit) {
            c->slots[c->count++] = ptr;
            pyad_arena_cached += size;
            kept = 1;
        }
        PyThread_release_lock(pyad_arena_lock);
        if (!kept) pyad_arena_prev.free(pyad_arena_prev.ctx, ptr, size);
    }

    static void pyad_arena_set_limit(size_t limit) {
        PyThread_acquire_lock(pyad_arena_lock, WAIT_LOCK);
        pyad_arena_limit = limit;
        PyThread_release_lock(pyad_arena_lock);
    }

    /* Hands kept blocks back, biggest class first, until at most `keep` bytes stay. */
    static void pyad_arena_trim(size_t keep) {
        void *p;
        size_t size;
        int i;
        for (;;) {
            p = NULL;
            size = 0;
            PyThread_acquire_lock(pyad_arena_lock, WAIT_LOCK);
            if (pyad_arena_cached > keep) {
                pyad_arena_class *c = NULL;
                for (i = 0; i < PYAD_ARENA_CLASSES; i++)
                    if (pyad_arena_kept[i].count > 0
                            && (c == NULL || pyad_arena_kept[i].size > c->size))
                        c = &pyad_arena_kept[i];
                if (c != NULL) {
                    p = c->slots[--c->count];
                    size = c->size;
                    pyad_arena_cached -= size;
                }
            }
            PyThread_release_lock(pyad_arena_lock);
            if (p == NULL) return;
            pyad_arena_prev.free(pyad_arena_prev.ctx, p, size);
        }
    }

    static PyObjectArenaAllocator pyad_arena_allocator = {
        NULL, pyad_arena_alloc, pyad_arena_free
    };

    static int pyad_arena_install(void) {
        if (pyad_arena_installed) return 0;
        pyad_arena_lock = PyThread_allocate_lock();
        if (pyad_arena_lock == NULL) return -1;
        PyObject_GetArenaAllocator(&pyad_arena_prev);
        PyObject_SetArenaAllocator(&pyad_arena_allocator);
        pyad_arena_installed = 1;
        return 0;
    }

    static int pyad_pool_init(void) {
        if (pyad_pool_lock == NULL) pyad_pool_lock = PyThread_allocate_lock();
        return pyad_pool_lock == NULL ? -1 : 0;
    }

    /* In a child made by fork(): fresh locks. A thread of the parent may have held one
       (NumPy frees some buffers without the GIL) and does not exist in the child, so
       the inherited lock could stay taken for ever. The old locks are left behind. */
    static int pyad_locks_after_fork(void) {
        PyThread_type_lock pool = PyThread_allocate_lock();
        PyThread_type_lock arena = PyThread_allocate_lock();
        if (pool == NULL || arena == NULL) return -1;
        pyad_pool_lock = pool;
        if (pyad_arena_installed) pyad_arena_lock = arena;
        return 0;
    }
    """
    ctypedef struct PyDataMem_Handler:
        pass
    PyDataMem_Handler pyad_pool_handler
    int pyad_pool_init()
    int pyad_locks_after_fork()
    void pyad_pool_trim(size_t keep) nogil
    size_t pyad_pool_cached, pyad_pool_limit, pyad_pool_in_use, pyad_pool_peak
    unsigned long long pyad_pool_hits, pyad_pool_misses
    void *pyad_pool_lock
    int PyThread_acquire_lock(void *lock, int waitflag) nogil
    void PyThread_release_lock(void *lock) nogil
    int WAIT_LOCK
    size_t PYAD_MIN_POOLED
    int pyad_arena_install()
    void pyad_arena_trim(size_t keep)
    void pyad_arena_set_limit(size_t limit)
    size_t pyad_arena_cached, pyad_arena_limit
    unsigned long long pyad_arena_hits, pyad_arena_misses

cdef extern from "numpy/arrayobject.h":
    object PyDataMem_SetHandler(object handler)
    object PyDataMem_GetHandler()
    int _import_array() except -1

_import_array()
if pyad_pool_init() != 0:
    raise MemoryError("pyad memory pool: cannot allocate its lock")

def _after_fork_in_child():
    if pyad_locks_after_fork() != 0:
        raise MemoryError("pyad memory pool: cannot allocate its locks after fork")


import os as _os
if hasattr(_os, "register_at_fork"):
    _os.register_at_fork(after_in_child=_after_fork_in_child)

# The capsule NumPy stores in every array the handler allocates (name fixed by NumPy).
handler = PyCapsule_New(<void *>&pyad_pool_handler, b"mem_handler", NULL)
_MIN_POOLED = PYAD_MIN_POOLED


def set_handler(h):
    """Install ``h`` (a ``mem_handler`` capsule) for the current context; return the
    previous one."""
    return PyDataMem_SetHandler(h)


def get_handler():
    return PyDataMem_GetHandler()


def empty(size_t keep=0):
    """Free cached blocks until at most ``keep`` bytes stay cached."""
    with nogil:
        pyad_pool_trim(keep)


def set_limit(size_t limit):
    """Set the most bytes the cache keeps (freeing the excess now); return the old limit."""
    global pyad_pool_limit
    cdef size_t old
    PyThread_acquire_lock(pyad_pool_lock, WAIT_LOCK)
    old = pyad_pool_limit
    pyad_pool_limit = limit
    PyThread_release_lock(pyad_pool_lock)
    empty(limit)
    return old


def stats():
    cdef dict d
    PyThread_acquire_lock(pyad_pool_lock, WAIT_LOCK)
    d = {"cached_bytes": pyad_pool_cached, "limit_bytes": pyad_pool_limit,
         "in_use_bytes": pyad_pool_in_use, "peak_in_use_bytes": pyad_pool_peak,
         "hits": pyad_pool_hits, "misses": pyad_pool_misses}
    PyThread_release_lock(pyad_pool_lock)
    return d


def reset_peak():
    global pyad_pool_peak
    PyThread_acquire_lock(pyad_pool_lock, WAIT_LOCK)
    pyad_pool_peak = pyad_pool_in_use
    PyThread_release_lock(pyad_pool_lock)



# Python's object arenas: the wrapper is installed once, when pyad is imported, and
# keeps freed arenas up to the limit (see pyad.memory.set_arena_cache_limit).
if pyad_arena_install() != 0:
    raise MemoryError("pyad arena cache: cannot allocate its lock")
ARENA_LIMIT_DEFAULT = 256 << 20
pyad_arena_set_limit(ARENA_LIMIT_DEFAULT)


def arena_empty(size_t keep=0):
    """Hand kept arenas back to the system until at most ``keep`` bytes stay."""
    pyad_arena_trim(keep)


def arena_set_limit(size_t limit):
    """Set the most bytes of freed arenas kept (handing back the excess now); return
    the old limit."""
    old = pyad_arena_limit
    pyad_arena_set_limit(limit)
    pyad_arena_trim(limit)
    return old


def arena_stats():
    return {"arena_cached_bytes": pyad_arena_cached,
            "arena_limit_bytes": pyad_arena_limit,
            "arena_hits": pyad_arena_hits, "arena_misses": pyad_arena_misses}
