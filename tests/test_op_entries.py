"""The profiler entry of the ops is written once: ``@profiled_op`` above an op, expanded
by setup.py (tools/op_entries.py) into the op's one-line entry test. These tests check
the expansion itself; tests/test_op_registry.py checks that every op reports itself to
the profiler, and tests/autograd/test_profiler*.py what the profiler records."""
import importlib.util
import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("op_entries", ROOT / "tools" / "op_entries.py")
op_entries = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(op_entries)


def test_no_written_out_prologue_is_left_and_every_marker_expands():
    assert op_entries.check() == []


@pytest.mark.parametrize("family", sorted(p.name for p in (ROOT / "pyad" / "ops").glob("*.pxi")))
def test_the_expansion_keeps_every_body_line_where_it_is(family):
    text = (ROOT / "pyad" / "ops" / family).read_text(encoding="utf-8")
    source = text.split("\n")
    expanded = op_entries.expand(text, family).split("\n")
    # From a marker to the end of the docstring the lines move up one (the marker goes,
    # the entry comes after the docstring); every other line keeps its number.
    moved = set()
    for i, line in enumerate(source):
        if line.startswith("@profiled_op"):
            j = op_entries._header_end(source, i + 1)
            body = j + 1
            while not source[body].strip():
                body += 1
            end = op_entries._docstring_end(source, body)
            if op_entries.OUT_LINE.match(source[end + 1]):
                # an op taking out= writes it first (calling itself without out): the
                # entry comes after that statement, and passes no out on
                end += 1
                depth = source[end].count("(") - source[end].count(")")
                while depth > 0:
                    end += 1
                    depth += source[end].count("(") - source[end].count(")")
                assert not re.search(r"\bout\b", expanded[end]), expanded[end]
            moved.update(range(i, end + 1))
            assert expanded[i:end] == source[i + 1:end + 1]
            assert expanded[end].strip().startswith(
                "if _profiling and _profile_enter(): return _profiled")
    assert moved or family in ("_common.pxi", "_out.pxi"), "no op in %s is marked" % family
    for k, line in enumerate(source):
        if k not in moved:
            assert expanded[k] == line, (family, k + 1)
    assert not any(line.startswith("@profiled_op") for line in expanded)


SIGNATURES = [
    ("cpdef Variable add(object input, object other, object alpha=1):",
     "_profiled(add, (input, other, alpha, ))"),
    ("def reshape(input, *shape):", "_profiled(reshape, (input, ) + shape)"),
    ("def atleast_1d(*tensors):", "_profiled(atleast_1d, tensors)"),
    ("def aminmax(input, *, dim=None, keepdim=False):",
     '_profiled_named("aminmax", lambda input: aminmax(input, dim=dim, keepdim=keepdim), '
     "(input, ))"),
    ("def meshgrid(*tensors, indexing=None):",
     '_profiled_named("meshgrid", lambda *tensors: meshgrid(*tensors, indexing=indexing), '
     "tensors)"),
    ("def pad(input, pad, mode=\"constant\", value=0):",
     "_profiled(_profiled_op_pad, (input, pad, mode, value, ))"),
]


@pytest.mark.parametrize("header, call", SIGNATURES)
def test_the_entry_passes_the_positional_arguments_and_closes_over_the_keywords(header, call):
    text = '@profiled_op\n%s\n    """Doc."""\n    return None\n' % header
    lines = op_entries.expand(text).split("\n")
    assert lines[0] == header
    assert lines[1] == '    """Doc."""'
    assert lines[2] == "    if _profiling and _profile_enter(): return " + call
    assert lines[3] == "    return None"


def test_a_marker_can_name_the_reported_op():
    text = ('@profiled_op("linalg_norm")\ndef _linalg_norm(x, ord=None):\n'
            '    """Doc."""\n    pass\n')
    assert op_entries.expand(text).split("\n")[2].endswith(
        'return _profiled_named("linalg_norm", _linalg_norm, (x, ord, ))')


def test_a_marker_not_above_a_def_is_an_error():
    with pytest.raises(op_entries.EntryError, match="directly above"):
        op_entries.expand("@profiled_op\n\ncpdef f(x):\n    pass\n")


def test_convert_turns_a_written_out_prologue_into_the_marker():
    text = ('cpdef Variable exp2(object input):\n    """Doc."""\n'
            '    if _profiling and _profile_enter():\n'
            '        return _profiled(exp2, (input, ))\n    return input\n')
    converted, n = op_entries.convert(text)
    assert n == 1
    assert converted == ('@profiled_op\ncpdef Variable exp2(object input):\n    """Doc."""\n'
                         '    return input\n')
    # a prologue that does something else is left as written
    odd = text.replace("_profiled(exp2, (input, ))", "_profiled(exp2, (input, 1))")
    assert op_entries.convert(odd) == (odd, 0)
