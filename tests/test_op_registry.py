"""The op registry: each family file's tuple is the only list of its ops.

From the tuples: every op is exported as ``pyad.<name>``, is a Variable method (unless
it is item access), has a runnable docstring example, and reports itself to the
profiler under its own name.
"""
import importlib.util

import numpy as np
import pytest

import pyad
from pyad import _engine

# The ops exported as pyad.<name> (the namespaced families, pyad.linalg, are checked
# apart below).
ALL_OPS = [op for key, family in _engine.OP_FAMILIES.items()
           if key not in _engine.OP_NAMESPACES for op in family]
NAMES = [op.__name__ for op in ALL_OPS]

# Arguments for ops that the generic attempts below cannot call.
SAMPLE_CALLS = {
    "unfold": lambda op, x: op(pyad.ones(1, 1, 3, 3), 2),
    "fold": lambda op, x: op(pyad.ones(1, 4, 4), (3, 3), 2),
    "addmm": lambda op, x: op(pyad.ones(2), pyad.ones(2, 3), pyad.ones(3, 2)),
    "addmv": lambda op, x: op(pyad.ones(2), pyad.ones(2, 3), pyad.ones(3)),
    "baddbmm": lambda op, x: op(pyad.ones(2), pyad.ones(1, 2, 3), pyad.ones(1, 3, 2)),
    "addbmm": lambda op, x: op(pyad.ones(2), pyad.ones(1, 2, 3), pyad.ones(1, 3, 2)),
    "sum_to": lambda op, x: op(x, ()),
    "cross": lambda op, x: op(pyad.ones(2, 3), pyad.ones(2, 3)),
    "meshgrid": lambda op, x: op(x[0], x[1], indexing="ij"),
    "broadcast_to": lambda op, x: op(x, (2,) + tuple(x.shape)),
    "getitem": lambda op, x: op(x, 0),
    "setitem": lambda op, x: op(x, 0, 1.0),
    "fill_": lambda op, x: op(x, 1.0),
    "where": lambda op, x: op(x > 0.3, x, 0.0),
    "bitwise_not": lambda op, x: op(pyad.tensor([1, 2])),
    "bitwise_and": lambda op, x: op(pyad.tensor([1, 2]), pyad.tensor([3, 3])),
    "bitwise_or": lambda op, x: op(pyad.tensor([1, 2]), pyad.tensor([3, 3])),
    "bitwise_xor": lambda op, x: op(pyad.tensor([1, 2]), pyad.tensor([3, 3])),
    "bitwise_left_shift": lambda op, x: op(pyad.tensor([1, 2]), pyad.tensor([3, 1])),
    "bitwise_right_shift": lambda op, x: op(pyad.tensor([8, 2]), pyad.tensor([3, 1])),
    "bmm": lambda op, x: op(x[None], x[None]),
    "mv": lambda op, x: op(x, x[0]),
    "dot": lambda op, x: op(x[0], x[1]),
    "outer": lambda op, x: op(x[0], x[1]),
    "einsum": lambda op, x: op("ij->j", x),
    "split_with_sizes": lambda op, x: op(x, [1, 1]),
    "unsafe_split_with_sizes": lambda op, x: op(x, [1, 1]),
    "bucketize": lambda op, x: op(x, x[0]),
    "narrow": lambda op, x: op(x, 0, 0, 1),
    "unflatten": lambda op, x: op(x, 1, (2, 1)),
    "gather": lambda op, x: op(x, 1, pyad.tensor([[0], [1]])),
    "pad": lambda op, x: op(x, (1, 1)),
    "masked_select": lambda op, x: op(x, x > 0.3),
    "conv1d": lambda op, x: op(x, x[:, :, None]),
    "conv2d": lambda op, x: op(x[None], x[None, None]),
    "conv_transpose2d": lambda op, x: op(x[None], x[None, None]),
    "max_pool2d": lambda op, x: op(x[None], 2),
    "avg_pool2d": lambda op, x: op(x[None], 2),
    "adaptive_avg_pool2d": lambda op, x: op(x[None], 1),
    "polygamma": lambda op, x: op(1, x),
    "mvlgamma": lambda op, x: op(x + 1, 2),
    "gcd": lambda op, x: op(pyad.tensor([4, 6]), pyad.tensor([6, 4])),
    "lcm": lambda op, x: op(pyad.tensor([4, 6]), pyad.tensor([6, 4])),
}
for _name in ("scatter", "scatter_add", "scatter_", "scatter_add_"):
    # (sources cloned: an in-place form refuses one sharing its target's memory, as torch)
    SAMPLE_CALLS[_name] = lambda op, x: op(x, 1, pyad.tensor([[0], [1]]), x.clone())
for _name in ("index_add", "index_copy", "index_add_", "index_copy_"):
    SAMPLE_CALLS[_name] = lambda op, x: op(x, 0, pyad.tensor([0]), x[:1].clone())
for _name in ("index_fill", "index_fill_"):
    SAMPLE_CALLS[_name] = lambda op, x: op(x, 0, pyad.tensor([0]), 1.0)
for _name in ("put", "put_"):
    SAMPLE_CALLS[_name] = lambda op, x: op(x, pyad.tensor([0]), x.reshape(-1)[:1].clone())
for _name in ("masked_fill", "masked_fill_"):
    SAMPLE_CALLS[_name] = lambda op, x: op(x, x > 0.3, 0.0)
SAMPLE_CALLS["masked_scatter"] = lambda op, x: op(x, x > 0.3, x)
SAMPLE_CALLS["imag"] = lambda op, x: op(x * 1j)
SAMPLE_CALLS["lerp"] = lambda op, x: op(x, x * 2, 0.5)     # (torch: one dtype for all)
# the in-place forms (pyad/ops/inplace.pxi, INPLACE_FORMS)
SAMPLE_CALLS["addmm_"] = lambda op, x: op(x, x, x)
SAMPLE_CALLS["addmv_"] = lambda op, x: op(x[0], x, x[1])
SAMPLE_CALLS["addbmm_"] = lambda op, x: op(x, x[None], x[None])
SAMPLE_CALLS["baddbmm_"] = lambda op, x: op(x[None], x[None], x[None])
SAMPLE_CALLS["addcmul_"] = lambda op, x: op(x, x, x)
SAMPLE_CALLS["addcdiv_"] = lambda op, x: op(x, x, x)
SAMPLE_CALLS["lerp_"] = lambda op, x: op(x, x, 0.5)
SAMPLE_CALLS["masked_scatter_"] = lambda op, x: op(x, x > 0.3, x)
for _name in ("logical_and_", "logical_or_", "logical_xor_"):
    SAMPLE_CALLS[_name] = lambda op, x: op(x > 0.3, x > 0.6)
for _name in ("bitwise_and_", "bitwise_or_", "bitwise_xor_", "bitwise_left_shift_",
              "bitwise_right_shift_"):
    SAMPLE_CALLS[_name] = lambda op, x: op(pyad.tensor([1, 2]), pyad.tensor([3, 3]))
SAMPLE_CALLS["bitwise_not_"] = lambda op, x: op(pyad.tensor([1, 2]))
SAMPLE_CALLS["float_power_"] = lambda op, x: op(x, 2)
SAMPLE_CALLS["unsqueeze_"] = lambda op, x: op(x, 0)
SAMPLE_CALLS["geometric_"] = lambda op, x: op(x, 0.5)
SAMPLE_CALLS["select_scatter"] = lambda op, x: op(x, x[0], 0, 1)
SAMPLE_CALLS["slice_scatter"] = lambda op, x: op(x, x[:1], 0, 0, 1)
SAMPLE_CALLS["diagonal_scatter"] = lambda op, x: op(x, x[0])
for _name in ("index_put", "index_put_"):
    SAMPLE_CALLS[_name] = lambda op, x: op(x, (pyad.tensor([1]),), x[0].clone())
SAMPLE_CALLS["vdot"] = lambda op, x: op(x[0], x[1])
SAMPLE_CALLS["view_as_real"] = lambda op, x: op(x * 1j)


def _sample_input():
    return pyad.Variable(np.array([[0.5, 0.25], [0.75, 0.125]]))


def _call(op):
    """Call ``op`` on small float64 inputs: the sample above, or the first generic form
    that it accepts."""
    if op.__name__ in SAMPLE_CALLS:
        return SAMPLE_CALLS[op.__name__](op, _sample_input())
    attempts = (lambda x: op(x), lambda x: op(x, x), lambda x: op(x, 1), lambda x: op(x, 0),
                lambda x: op(x, 2, 2), lambda x: op(x, 0, 1), lambda x: op([x, x]),
                lambda x: op(x, 1.0, 2.0))
    errors = []
    for attempt in attempts:
        try:
            return attempt(_sample_input())
        except Exception as exc:       # noqa: BLE001 - trying signatures
            errors.append("%s: %s" % (type(exc).__name__, exc))
    pytest.fail("%s: no sample call works; add one to SAMPLE_CALLS (%s)"
                % (op.__name__, "; ".join(errors)))


def test_family_names_are_unique():
    assert len(NAMES) == len(set(NAMES))


@pytest.mark.parametrize("op", ALL_OPS, ids=NAMES)
def test_every_op_is_exported_by_pyad(op):
    assert getattr(pyad, op.__name__, None) is op


@pytest.mark.parametrize("op", ALL_OPS, ids=NAMES)
def test_every_op_is_a_variable_method_unless_item_access(op):
    if op.__name__ in _engine.FUNCTION_ONLY:
        # (Variable.unfold is torch's Tensor.unfold, sliding windows along one dimension,
        # a different function from F.unfold, the op)
        assert op.__name__ not in vars(pyad.Variable) or op.__name__ == "unfold"
        return
    method = getattr(pyad.Variable, op.__name__)
    # Either the op itself, or a class method whose signature differs (add(alpha=)).
    assert method is op or op.__name__ in vars(pyad.Variable)


@pytest.mark.parametrize("op", ALL_OPS, ids=NAMES)
def test_every_op_has_a_docstring_example(op):
    assert op.__doc__ and ">>>" in op.__doc__, op.__name__


class _Recorder:
    def __init__(self):
        self.names = []         # ops that began outside any other op
        self.depth = 0

    def op_begin(self, name, args, next_seq):
        if self.depth == 0:
            self.names.append(name)
        self.depth += 1
        return name

    def op_end(self, token, outputs, seq):
        self.depth -= 1

    def node_begin(self, name, seq):
        return None

    def node_end(self, token, grads):
        pass


@pytest.mark.parametrize("op", ALL_OPS, ids=NAMES)
def test_every_op_reports_itself_to_the_profiler(op):
    recorder = _Recorder()
    previous = _engine._set_profiler(recorder)
    try:
        _call(op)
    finally:
        _engine._set_profiler(previous)
    # The sample may call other ops to build its arguments; the op itself comes last
    # among the top-level ones (ops it calls itself nest inside it).
    assert recorder.names and recorder.names[-1] == op.__name__, recorder.names
    assert recorder.depth == 0


# pyad.linalg: functions only (no Variable methods), held to the same rules.
LINALG_NAMES = list(pyad.linalg.__all__)
LINALG_CALLS = {
    "inv": lambda f: f(_sample_input()),
    "solve": lambda f: f(_sample_input(), _sample_input()),
    "vector_norm": lambda f: f(_sample_input(), 3, 1),
    "norm": lambda f: f(_sample_input(), 1),
    "matrix_norm": lambda f: f(_sample_input(), 2),
    "cholesky": lambda f: f(pyad.Variable(np.array([[2.0, 1.0], [1.0, 2.0]]))),
    "cross": lambda f: f(pyad.ones(2, 3), pyad.ones(2, 3)),
    "matrix_power": lambda f: f(_sample_input(), 2),
    # the rest of torch.linalg (pyad/linalg.py, Python functions)
    "matmul": lambda f: f(_sample_input(), _sample_input()),
    "lstsq": lambda f: f(_sample_input(), _sample_input()),
    "solve_triangular": lambda f: f(_sample_input(), _sample_input(), upper=True),
    "multi_dot": lambda f: f([_sample_input(), _sample_input()]),
    "lu_solve": lambda f: f(*pyad.linalg.lu_factor(_sample_input()), _sample_input()),
    "ldl_solve": lambda f: f(*pyad.linalg.ldl_factor(_sample_input()), _sample_input()),
    "vecdot": lambda f: f(_sample_input(), _sample_input()),
    "solve_ex": lambda f: f(_sample_input(), _sample_input()),
    "tensorinv": lambda f: f(_sample_input(), 1),
    "tensorsolve": lambda f: f(_sample_input(), pyad.ones(2, dtype=pyad.float64)),
    "householder_product": lambda f: f(_sample_input(), pyad.ones(2, dtype=pyad.float64)),
}


def test_linalg_namespace_covers_the_family_tuple():
    assert {op.__name__ for op in _engine.LINALG_NAMESPACE_OPS} <= set(LINALG_NAMES)
    assert _engine.OP_FAMILIES["linalg_namespace"] is _engine.LINALG_NAMESPACE_OPS
    assert _engine.OP_NAMESPACES["linalg_namespace"] == "linalg"
    for op in _engine.LINALG_NAMESPACE_OPS:
        # the op, or a Python wrapper of it adding torch's keyword arguments / dtype checks
        public = getattr(pyad.linalg, op.__name__)
        assert public is op or getattr(public, "_engine_op", None) is op
        # a namespaced op is neither pyad.<name> nor a Variable method
        assert getattr(pyad, op.__name__, None) is not op
        assert op.__name__ not in vars(pyad.Variable) or \
            getattr(pyad.Variable, op.__name__) is not op


@pytest.mark.parametrize("name", LINALG_NAMES)
def test_every_linalg_function_has_a_docstring_example(name):
    f = getattr(pyad.linalg, name)
    assert f.__doc__ and ">>>" in f.__doc__, name


@pytest.mark.parametrize("name", LINALG_NAMES)
def test_every_linalg_function_reports_itself_to_the_profiler(name):
    if name.startswith("ldl_") and importlib.util.find_spec("scipy") is None:
        pytest.skip("pyad.linalg's ldl_* call LAPACK through SciPy, not installed")
    f = getattr(pyad.linalg, name)
    recorder = _Recorder()
    previous = _engine._set_profiler(recorder)
    try:
        LINALG_CALLS.get(name, lambda f: f(_sample_input()))(f)
    finally:
        _engine._set_profiler(previous)
    # linalg.norm / linalg.cross report themselves as linalg_norm / linalg_cross, apart
    # from the functions norm / cross
    expected = {"norm": "linalg_norm", "cross": "linalg_cross"}.get(name, f.__name__)
    assert recorder.names and recorder.names[-1] == expected, recorder.names


def test_in_place_twins_come_from_one_factory():
    twins = {t.__name__ for t in _engine._UNARY_TWINS}
    assert {"exp_", "log_", "sqrt_", "tanh_", "sigmoid_", "relu_", "neg_", "pow_"} <= twins
    # each twin's extra arguments: those of its docstring example (pow_(2), copysign_(-1.))
    extra = {op.__name__ + "_": eval("(%s,)" % example) if example else ()
             for op, example in _engine.ELEMENTWISE_INPLACE_TWINS + _engine.SPECIAL_INPLACE_TWINS}
    for twin in _engine._UNARY_TWINS:
        out_of_place = getattr(pyad, twin.__name__[:-1])
        x = pyad.Variable(np.array([0.5, 2.0]))
        args = extra[twin.__name__]
        with np.errstate(invalid="ignore"):
            expected = out_of_place(x, *args)
            result = getattr(x, twin.__name__)(*args)
        assert result is x
        np.testing.assert_array_equal(x.data, expected.data)


def test_op_reference_page_is_up_to_date():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "tools", "gen_op_reference.py")
    spec = importlib.util.spec_from_file_location("gen_op_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--check"]) == 0, "run python tools/gen_op_reference.py"


# -- the family tuples are the only list of op names ---------------------------------------
# Everything below is generated or computed from the tuples; these tests say what a new
# tuple entry still needs (a regenerated file), and that nothing is exported as an op
# without a tuple entry. (tests/test_op_recipe.py, with PYAD_SLOW_TESTS=1, adds an op to
# a copy of the tree and checks that nothing else needs editing.)
import os                       # noqa: E402
import re                       # noqa: E402
import importlib.util           # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tool(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "tools", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def test_every_family_has_a_title_and_its_function_only_names_are_its_own():
    assert set(_engine.OP_FAMILY_TITLES) == set(_engine.OP_FAMILIES)
    assert set(_engine.OP_NAMESPACES) <= set(_engine.OP_FAMILIES)
    assert _engine.FUNCTION_ONLY <= set(NAMES)


def test_init_op_names_are_generated_from_the_tuples():
    init = _read("pyad", "__init__.py")
    assert init == _tool("gen_stubs").init_text(), \
        "pyad/__init__.py's op names are out of date: run python tools/gen_stubs.py"


@pytest.mark.parametrize("name", NAMES)
def test_every_op_is_in_all(name):
    assert name in pyad.__all__


@pytest.mark.parametrize("name", NAMES)
def test_every_op_is_in_the_stub(name):
    stub = _read("pyad", "_engine.pyi")
    assert re.search(r"^def %s\(" % re.escape(name), stub, re.M), \
        "rebuild, then run python tools/gen_stubs.py"


@pytest.mark.parametrize("op", [op for family in _engine.OP_FAMILIES.values() for op in family],
                         ids=lambda op: op.__name__)
def test_every_op_is_in_the_op_reference(op):
    page = _read("docs", "op-reference.md")
    assert re.search(r"^### `pyad\.((linalg|special)\.)?%s\(" % re.escape(op.__name__), page,
                     re.M)


# Functions of pyad._engine that pyad exports but that are not ops (no tuple entry).
NOT_OPS = {"backward", "grad", "from_dlpack", "to_dlpack", "get_default_dtype",
           "set_default_dtype", "get_array_module", "broadcast_shapes",
           # the grad-mode and anomaly switches' queries (re-exported by pyad.autograd)
           "is_grad_enabled", "is_anomaly_enabled", "is_anomaly_check_nan_enabled"}


def test_every_exported_engine_function_is_in_a_tuple():
    ops = {id(op) for op in ALL_OPS}
    stray = [name for name in pyad.__all__
             if callable(getattr(pyad, name)) and not isinstance(getattr(pyad, name), type)
             and getattr(getattr(pyad, name), "__module__", None) == "pyad._engine"
             and id(getattr(pyad, name)) not in ops and name not in NOT_OPS]
    assert not stray, "add these to their family's tuple: %s" % stray
    assert NOT_OPS <= set(pyad.__all__)
