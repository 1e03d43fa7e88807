"""pyad.autograd.graph: the DOT text is parsed back into nodes and edges and checked
against graphs whose shape is known."""
import collections
import doctest
import importlib.util
import re
import shutil
import sys

import numpy as np
import pytest

import pyad
from pyad.autograd import Function
from pyad.autograd import graph as G

NODE = re.compile(r'^\s*(\w+) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
EDGE = re.compile(r"^\s*(\w+) -> (\w+)( \[style=dashed\])?;$")


def parse(dot):
    """DOT text -> ({id: [label lines]}, Counter of (source label, target label), styles)."""
    lines = dot.splitlines()
    assert lines[0] == "digraph autograd {" and lines[-1] == "}"
    labels, styles, edges = {}, {}, []
    for line in lines[1:-1]:
        if line.strip().startswith("node ["):
            continue
        node, edge = NODE.match(line), EDGE.match(line)
        assert node or edge, "unparsed DOT line: %r" % line
        if node:
            assert node.group(1) not in labels, "node declared twice: %s" % node.group(1)
            text = node.group(2).replace('\\"', '"').replace("\\\\", "\\")
            labels[node.group(1)] = text.split("\\n")
            styles[node.group(1)] = node.group(3)
        else:
            edges.append((edge.group(1), edge.group(2), bool(edge.group(3))))
    for source, target, _ in edges:
        assert source in labels and target in labels   # every edge joins declared nodes
    return labels, edges, styles


def labelled_edges(labels, edges):
    return collections.Counter((labels[s][0], labels[t][0]) for s, t, _ in edges)


def tutorial():
    x = pyad.Variable(np.ones((2, 2)), requires_grad=True)
    y = x + 2
    z = y * y * 3
    out = z.mean()
    return x, out


def test_tutorial_graph_nodes_and_edges():
    x, out = tutorial()
    labels, edges, styles = parse(G.to_dot(out, params={"x": x}))
    assert sorted(label[0] for label in labels.values()) == sorted(
        ["output 0", "MeanBackward", "MulBackward", "MulBackward", "AddBackward", "x"])
    assert labels["output0"] == ["output 0", "() float64"]
    (leaf,) = [key for key, label in labels.items() if label[0] == "x"]
    assert labels[leaf] == ["x", "(2, 2) float64"]
    assert "lightblue" in styles[leaf] and "darkolivegreen1" in styles["output0"]
    # Forward direction: x -> add -> (y * y) -> (* 3) -> mean -> output; y used twice.
    assert labelled_edges(labels, edges) == collections.Counter({
        ("x", "AddBackward"): 1, ("AddBackward", "MulBackward"): 2,
        ("MulBackward", "MulBackward"): 1, ("MulBackward", "MeanBackward"): 1,
        ("MeanBackward", "output 0"): 1})
    (square,) = [t for s, t, _ in edges if labels[s][0] == "AddBackward"][:1]
    assert [labels[t][0] for s, t, _ in edges if s == square] == ["MulBackward"]
    assert len(edges) == 6 and not any(dashed for _, _, dashed in edges)


def test_leaf_without_params_is_labelled_by_shape_and_dtype():
    x = pyad.Variable(np.ones(3, dtype=np.float32), requires_grad=True)
    labels, _, _ = parse(G.to_dot((x * x).sum()))
    assert ["(3,) float32"] in labels.values()


def test_shared_subgraph_is_drawn_once_for_several_outputs():
    x = pyad.Variable(np.ones(2), requires_grad=True)
    w = pyad.Variable(np.ones(2), requires_grad=True)
    h = (x * w).tanh()
    labels, edges, _ = parse(G.to_dot([h.sum(), h.mean()], params={"x": x, "w": w}))
    names = collections.Counter(label[0] for label in labels.values())
    assert names == collections.Counter({"output 0": 1, "output 1": 1, "SumBackward": 1,
                                         "MeanBackward": 1, "TanhBackward": 1,
                                         "MulBackward": 1, "x": 1, "w": 1})
    assert labelled_edges(labels, edges)[("TanhBackward", "SumBackward")] == 1
    assert labelled_edges(labels, edges)[("TanhBackward", "MeanBackward")] == 1


def test_outputs_without_graph_or_leaf_outputs():
    x = pyad.Variable(np.ones(2), requires_grad=True)
    labels, edges, _ = parse(G.to_dot([pyad.Variable(np.zeros(3)), x], params={"x": x}))
    assert labels == {"output0": ["output 0", "(3,) float64"],
                      "output1": ["output 1", "x", "(2,) float64"]}
    assert edges == []


class Scale(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return a * b

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad * b, grad * a


def test_show_saved_lists_saved_tensors_of_custom_functions():
    a = pyad.Variable(np.ones((2, 3)), requires_grad=True)
    b = pyad.Variable(np.ones(3, dtype=np.float32))
    out = Scale.apply(a, b).exp().sum()
    assert "saved" not in G.to_dot(out)
    labels, edges, styles = parse(G.to_dot(out, params={"a": a}, show_saved=True))
    saved = {key: label for key, label in labels.items() if key.startswith("saved")}
    assert sorted(saved.values()) == [["saved 0", "a (2, 3) float64"],
                                      ["saved 1", "(3,) float32"]]
    assert all("orange" in styles[key] for key in saved)
    dashed = [(labels[s][0], labels[t][0]) for s, t, d in edges if d]
    assert dashed == [("saved 0", "ScaleBackward"), ("saved 1", "ScaleBackward")]
    # Built-in nodes expose no saved values: only the custom Function has some.
    assert len(saved) == 2

    out.backward()          # frees the saved values: the picture says so
    labels, _, _ = parse(G.to_dot(out, show_saved=True))
    saved = [label for key, label in labels.items() if key.startswith("saved")]
    assert len(saved) == 1 and saved[0][0] == "saved values"
    assert "freed" in saved[0][1] or "backward" in saved[0][1]


def test_names_with_quotes_and_backslashes_are_escaped():
    x = pyad.Variable(np.ones(2), requires_grad=True)
    labels, _, _ = parse(G.to_dot(x.sum(), params={'say "hi" \\': x}))
    assert ['say "hi" \\', "(2,) float64"] in labels.values()


def test_deep_chain_is_walked_without_recursion():
    x = pyad.Variable(np.ones(1), requires_grad=True)
    y = x
    for _ in range(max(20000, sys.getrecursionlimit() * 5)):
        y = y * 1.0
    dot = G.to_dot(y)
    assert dot.count("MulBackward") == max(20000, sys.getrecursionlimit() * 5)


def test_bad_arguments_raise_type_errors():
    x = pyad.Variable(np.ones(2), requires_grad=True)
    with pytest.raises(TypeError, match=r"^to_dot\(\): outputs must be a Variable"):
        G.to_dot([x, np.ones(2)])
    with pytest.raises(TypeError, match=r"^to_dot\(\): params must map names to Variables"):
        G.to_dot(x.sum(), params={"x": np.ones(2)})


def test_render_without_graphviz_package_says_what_to_install(monkeypatch, tmp_path):
    monkeypatch.setitem(sys.modules, "graphviz", None)
    x, out = tutorial()
    with pytest.raises(ImportError, match=r"pip install 'pyad\[viz\]'"):
        G.render(out, str(tmp_path / "g.svg"))


def test_render_without_dot_program_says_what_to_install(monkeypatch, tmp_path):
    if importlib.util.find_spec("graphviz") is None:
        pytest.skip("the graphviz package is not installed")
    monkeypatch.setattr(shutil, "which", lambda name: None)
    x, out = tutorial()
    with pytest.raises(RuntimeError, match="needs Graphviz's 'dot' program"):
        G.render(out, str(tmp_path / "g.svg"))


def test_render_writes_an_svg(tmp_path):
    if importlib.util.find_spec("graphviz") is None or shutil.which("dot") is None:
        pytest.skip("graphviz (package and dot program) is not installed")
    x, out = tutorial()
    path = G.render(out, str(tmp_path / "g.svg"), params={"x": x})
    text = open(path, encoding="utf-8").read()
    assert "<svg" in text and "MeanBackward" in text and ">x<" in text


def test_docstring_examples_run():
    globs = dict(vars(G), numpy=np, np=np, pyad=pyad)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in doctest.DocTestFinder().find(G, globs=globs):
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0 and results.attempted >= 3
