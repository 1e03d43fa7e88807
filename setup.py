"""Build the Cython core.

Release builds turn bounds and wraparound checks off and carry no debug information
(``-g0`` overrides the ``-g`` in Python's own CFLAGS: the debug sections more than
doubled the shared object and add compile time). Set PYAD_DEBUG=1 to build
with bounds checks, wraparound, line tracing (for coverage, py-spy and
line_profiler) and an HTML annotation (`cython -a`) next to each .pyx.
"""
import importlib.util
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("PYAD_DEBUG", "") not in ("", "0")

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "nonecheck": False,
    "cdivision": True,
    "embedsignature": True,
    "linetrace": DEBUG,
    "profile": DEBUG,
}
macros = [("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")]
if DEBUG:
    macros += [("CYTHON_TRACE", "1"), ("CYTHON_TRACE_NOGIL", "1")]

if sys.platform == "win32":
    compile_args = []
elif DEBUG:
    compile_args = ["-O0", "-g"]
elif os.environ.get("PYAD_FAST_BUILD", "") not in ("", "0"):
    # Development only: -O0 compiles the 390k lines of generated C in about 30 s
    # instead of three minutes; the engine runs slower, so never benchmark this build.
    compile_args = ["-O0", "-g0"]
else:
    compile_args = ["-O2", "-g0"]
    if sys.platform.startswith("linux"):
        # Calls into libpython and NumPy through the GOT instead of PLT stubs: one jump
        # less per call, and the engine makes several per op (about 1% on the per-op
        # rows of benchmarks/bench_core.py; Linux distributions build with it too).
        compile_args.append("-fno-plt")
if sys.platform != "win32":
    # GCC 14 makes this an error by default; make it one everywhere so it cannot creep in.
    compile_args.append("-Werror=incompatible-pointer-types")

# Every public op carries the marker ``@profiled_op``, which Cython cannot compile:
# tools/op_entries.py writes a copy of the engine's sources with each marker expanded
# into the op's one-line profiler entry (see docs/internals.md), and that copy is what
# Cython compiles. It is compiled from inside the copy, so the generated code names the
# files as usual (pyad/ops/shape.pxi: tracebacks show the real source, whose body lines
# keep their numbers in the copy).
HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("_op_entries",
                                               os.path.join(HERE, "tools", "op_entries.py"))
_op_entries = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_op_entries)
EXPANDED = os.path.join(HERE, "build", "pyad-src")
_op_entries.expanded_tree(EXPANDED)


def _cythonize(extensions, cwd):
    previous = os.getcwd()
    os.chdir(cwd)
    try:
        modules = cythonize(
            extensions,
            compiler_directives=directives,
            annotate=DEBUG,
            # The op families are textually included into _engine.pyx (uvloop style),
            # so a change to any .pxi must rebuild the module.
            depfile=False,
        )
    finally:
        os.chdir(previous)
    for module in modules:
        module.sources = [os.path.relpath(os.path.join(cwd, s), previous)
                          for s in module.sources]
    return modules


engine = Extension(
    "pyad._engine",
    ["pyad/_engine.pyx"],
    include_dirs=[numpy.get_include()],
    define_macros=macros,
    extra_compile_args=compile_args,
)
# The NEP 49 buffer cache behind pyad.memory_pool(): a separate small module.
mempool = Extension(
    "pyad._mempool",
    ["pyad/_mempool.pyx"],
    include_dirs=[numpy.get_include()],
    define_macros=macros,
    extra_compile_args=compile_args,
)

setup(ext_modules=_cythonize([engine], EXPANDED) + _cythonize([mempool], HERE))
