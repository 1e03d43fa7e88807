"""Every ``pyad.<name>`` that a string in the package mentions (error messages,
docstrings) names something that exists, so no message sends users to a missing API."""
import importlib
import io
import pathlib
import re
import tokenize

import numpy
import pytest

import pyad

PACKAGE_DIR = pathlib.Path(pyad.__file__).parent
SOURCE_SUFFIXES = {".py", ".pyx", ".pxi", ".pxd"}
NAME = re.compile(r"\bpyad((?:\.[A-Za-z_][A-Za-z0-9_]*)+)")
# A string literal, for sources Python's tokenizer cannot read (it reads Cython so far).
STRING = re.compile(r"""(?s)[rbuRBUfF]{0,2}("{3}.*?"{3}|'{3}.*?'{3}|"(?:\\.|[^"\\\n])*"|"""
                    r"""'(?:\\.|[^'\\\n])*')""")


def _string_literals(text):
    try:
        return [tok.string for tok in tokenize.generate_tokens(io.StringIO(text).readline)
                if tok.type == tokenize.STRING]
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return STRING.findall(text)


def _mentions():
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        for literal in _string_literals(path.read_text(encoding="utf-8")):
            for match in NAME.finditer(literal):
                found.append((path.relative_to(PACKAGE_DIR).as_posix(), "pyad" + match.group(1)))
    return found


def _resolves(dotted):
    obj = pyad
    parts = dotted.split(".")[1:]
    for i, part in enumerate(parts):
        if hasattr(obj, part):
            obj = getattr(obj, part)
            continue
        try:
            obj = importlib.import_module(".".join(["pyad"] + parts[:i + 1]))
        except ImportError:
            return False
    return True


MENTIONS = _mentions()


def test_scan_reads_the_engine_sources():
    # The check must not pass vacuously (e.g. if the .pyx/.pxi were not installed).
    files = {path for path, _ in MENTIONS}
    assert "_engine.pyx" in {p.name for p in PACKAGE_DIR.iterdir()}
    assert any(f.endswith(".pxi") for f in files)
    assert any(f.endswith(".py") for f in files)
    assert len(MENTIONS) >= 20


@pytest.mark.parametrize("path, name", sorted(set(MENTIONS)))
def test_named_attribute_exists(path, name):
    assert _resolves(name), "%s mentions %s, which does not exist" % (path, name)


def test_resolver_rejects_missing_names():
    assert _resolves("pyad.autograd.gradcheck")
    assert _resolves("pyad.nn.functional")
    assert not _resolves("pyad.maximum_that_does_not_exist")
    assert not _resolves("pyad.autograd.no_such_module")


def test_max_of_two_variables_is_the_elementwise_maximum_and_keepdim_is_refused():
    assert pyad.max(pyad.ones(2), pyad.zeros(2)).tolist() == [1.0, 1.0]
    with pytest.raises(TypeError, match=r"^max\(input, other\): keepdim"):
        pyad.max(pyad.ones(2), pyad.ones(2), keepdim=True)


# -- one error format: "<op>(): <what was wrong>" ----------------------------------------
# The first string literal handed to an exception class, in every package source.
RAISED = re.compile(r"""\b(?:[A-Z][A-Za-z]*(?:Error|Exception))\(\s*\(?\s*[rbuRBUfF]{0,2}"""
                    r"""("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')""")
# The old style this format replaced: "name: ..." or "%s: ..." (an op name and a colon).
OLD_STYLE = re.compile(r"^(?:%s|[A-Za-z_][A-Za-z0-9_.]*): ")


def _raised_messages():
    found = []
    for path in sorted(PACKAGE_DIR.rglob("*")):
        if path.suffix not in SOURCE_SUFFIXES:
            continue
        text = path.read_text(encoding="utf-8")
        for match in RAISED.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(("%s:%d" % (path.relative_to(PACKAGE_DIR).as_posix(), line),
                          match.group(1)[1:-1]))
    return found


RAISED_MESSAGES = _raised_messages()


def test_message_scan_reads_the_sources():
    places = {place.split(":")[0] for place, _ in RAISED_MESSAGES}
    assert {"_engine.pyx", "_dlpack.pxi", "_function.pxi", "ops/shape.pxi",
            "_factories.py", "autograd/functional.py"} <= places
    assert sum(text.startswith("%s(): ") for _, text in RAISED_MESSAGES) >= 30
    assert OLD_STYLE.match("from_dlpack: the capsule") and OLD_STYLE.match("%s: bad")
    assert not OLD_STYLE.match("from_dlpack(): the capsule")
    assert not OLD_STYLE.match("Mismatch in shape: grad_output[0]")


# Messages that copy torch's own "Name: ..." text (tests written against torch match it):
# the recurrent layers ("LSTM: Expected input to be 2D or 3D, got 4D instead"),
# ConvTranspose2d's output_size checks, Softmax2d's input check,
# TripletMarginWithDistanceLoss's margin check and StackDataset's argument checks.
TORCH_COLON_TEXT = ("%s: Expected input to be ", "%s: Expected hidden to be ",
                    "ConvTranspose2d: ", "Softmax2d: expected input to be ",
                    "TripletMarginWithDistanceLoss: expected margin ", "StackDataset: ")


def test_no_message_uses_the_old_op_colon_format():
    old = ["%s: %r" % pair for pair in RAISED_MESSAGES if OLD_STYLE.match(pair[1])
           and not pair[1].startswith(TORCH_COLON_TEXT)]
    assert not old, "use the format \"<op>(): <what was wrong>\":\n" + "\n".join(old)


def _raise_message(call):
    with pytest.raises(Exception) as info:
        call()
    return str(info.value)


_x = pyad.ones(2, 3)
MESSAGE_TABLE = [
    ("from_dlpack", lambda: pyad.from_dlpack(3)),
    ("set_default_dtype", lambda: pyad.set_default_dtype(numpy.int32)),
    ("size", lambda: pyad.tensor(1.0).size(0)),
    ("size", lambda: _x.size(5)),
    ("sum", lambda: pyad.sum(_x, 2)),
    ("transpose", lambda: pyad.transpose(_x, 0, 4)),
    ("log_softmax", lambda: pyad.log_softmax(pyad.ones(2, dtype=pyad.int64), 0)),
    ("matmul", lambda: pyad.matmul(_x, _x)),
    ("mm", lambda: pyad.mm(pyad.ones(2), pyad.ones(2))),
    ("add", lambda: pyad.add(_x, pyad.ones(4))),
    ("add_", lambda: pyad.ones(2, requires_grad=True).add_(1)),
    ("add_", lambda: _x.clone().add_(pyad.ones(4))),
    ("expand", lambda: _x.expand(3)),
    ("broadcast_to", lambda: pyad.broadcast_to(_x, (4, 3))),
    ("reshape", lambda: _x.reshape(4)),
    ("tensordot", lambda: pyad.tensordot(_x, _x, ([5], [0]))),
    ("diagonal", lambda: pyad.diagonal(_x, 0, 0, 0)),
    ("linalg.norm", lambda: pyad.linalg.norm(pyad.ones(2, 2, 2), 1)),
    ("linalg.matrix_norm", lambda: pyad.linalg.norm(_x, "fro", (0, 0))),
    ("gather", lambda: pyad.gather(_x, 1, pyad.ones(2, 3))),
    ("__getitem__", lambda: _x[5]),
    ("grad", lambda: pyad.autograd.grad(pyad.ones(1, requires_grad=True).sum(), [3])),
    ("randint", lambda: pyad.randint(10, (2,), generator=object())),
    ("zeros", lambda: pyad.zeros(-1)),
    ("uniform_", lambda: pyad.zeros(2, dtype=pyad.int64).uniform_()),
    ("jacobian", lambda: pyad.autograd.functional.jacobian(lambda v: v, _x, strategy="x")),
    ("glu", lambda: pyad.nn.functional.glu(_x, 5)),
]


def test_glu_dimension_message_is_torchs_after_the_op_prefix():
    # the engine's wording ("Dimension out of range ...", as torch's), not a lowercase one
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError) as theirs:
        torch.nn.functional.glu(torch.ones(2, 3), 5)
    with pytest.raises(IndexError) as ours:
        pyad.nn.functional.glu(_x, 5)
    assert str(ours.value) == "glu(): " + str(theirs.value)


@pytest.mark.parametrize("op, call", MESSAGE_TABLE, ids=[row[0] for row in MESSAGE_TABLE])
def test_message_names_the_op(op, call):
    message = _raise_message(call)
    assert message.startswith(op + "(): "), message


# -- one noun: "Variable" ----------------------------------------------------------------
# pyad's own messages call its arrays "Variable"s. A message may say "tensor" only where
# it copies torch's own text (tests written against torch match these substrings), or
# where the tensor is not a pyad Variable (a DLPack tensor, another library's tensors).
TENSOR_WORD = re.compile(r"(?<![\w.'`])[Tt]ensors?(?![\w'`(])")
TORCH_WORDING = (
    # torch's index_put text (the indexing ports match it)
    "shape mismatch: value tensor of shape",
    # torch's index_copy_ index dtype check (its ports match "long tensor")
    "Expected a long tensor for index",
    # torch's shape-op texts its own tests match (test_view_ops.py, test_shape_ops.py)
    "expects a tensor with <= 2 dimensions",
    "The expanded size of the tensor",
    "start must be an 0-dim integral Tensor",
    # torch.optim's texts (its own tests match them): parameter checks, tensor lr/betas
    "optimizer can only optimize Tensors",
    "can't optimize a non-leaf Tensor",
    "Tensor lr must be 1-element",
    "lr as a Tensor is not supported for capturable=False",
    "betas must be either both floats or both Tensors",
    "as a Tensor is not supported for ",
    "Tensor betas[%d] must be 1-element",
    # GradScaler.scale's ValueError (torch.amp's text)
    "outputs must be a Tensor or an iterable of Tensors",
    # torch's texts for cdist, repeat_interleave, diff, unfold and fold
    "maximum size for tensor at dimension",
    "Expected 3D or 4D (batch mode) tensor",
    "Expected 2D or 3D (batch mode) tensor",
    "tensors used as indices must be long",    # index_put's index dtype check
    "cdist only supports at least 2D tensors",
    "repeats must be 0-dim or 1-dim tensor",
    "diff expects the shape of tensor to prepend or append",
    # torch's texts for pad's non-constant modes
    "is not supported for %dD input tensor",
    "Expected %dD or %dD (batch mode) tensor",
    # nn.init's shape checks (torch's ValueError texts, which user code matches on)
    "Only tensors with 2 or more dimensions are supported",
    "Only tensors with 2 dimensions are supported",
    "Only tensors with 3, 4, or 5 dimensions are supported",
    # the engine (torch.autograd's own messages)
    "element 0 of tensors does not require grad",
    "Deleting tensor data is not allowed",        # del x.data
    "One of the differentiated Tensors",
    "assigned grad expected to be a Tensor or None",
    "to a tensor of size",                        # x.grad = g: torch 2.13's wording
    "to a tensor with grad_dtype",
    "ctx.mark_dirty() received a tensor that was not an input",
    "boundaries tensor",           # torch's searchsorted/bucketize messages
    "A saved tensor pack hook is modifying its input",    # saved_tensors_hooks
    "Output of saved tensor unpack_hook",
    "Calling register_hooks on a saved tensor",           # _raw_saved_<name>
    "gradcheck expects at least one input tensor",
    "Inplace update to inference tensor", "Inference tensors cannot be saved",
    "Inference tensors do not track version counter",     # inference_mode
    # torch's op and layer messages
    "Expected 2D or 3D (batch mode) tensor for input",
    "Only 3D, 4D and 5D input Tensors supported",
    "0D or 1D target tensor expected", "target tensor expects",
    "Fan in and fan out can not be computed for tensor",
    "expected weight to be None or 1D tensor",
    "query should be unbatched 2D or batched 3D tensor",
    "'lengths' argument should be a 1D CPU int64 tensor", "Cannot pack empty tensors",
    "fill_ only supports 0-dimension value tensor", "expected 3-D tensors",
    "1D tensors expected", "inconsistent tensor size", "Supports 1D or 2D tensors",
    "input tensor must have at least 2 dimensions",
    "expected a floating point tensor of probabilities", "probability tensor contains",
    "Expected a floating point or complex tensor", "norm on an empty tensor",
    "The input tensor A must have at least 2", "number of dimensions in the tensor input",
    "Size mismatch between tensors",
    "all input tensors should have the same",    # torch: "All input tensors should have"
    # torch.linalg's and torch.fft's texts (pyad/linalg.py, pyad/fft.py)
    "The input tensor", "tensor of complex type is not supported",
    "expected a tensor with 2 or more dimensions", "expected at least 2 tensors",
    "the first tensor must be", "the last tensor must be", "tensor %d must be 2D",
    "all tensors must have be the same dtype", "tensors %d and %d with shapes",
    "pivots should be a Tensor", "expects a real input tensor",
    "expects a real-valued input tensor",
    "but input tensor only has", "Trying to create tensor with negative dimension",
    # torch.autograd.forward_ad's texts
    "Trying to create a dual Tensor for forward AD",
    "Making a dual Tensor based on a Tensor that already",
    # torch.nn.utils.parametrize's, parametrizations' and stateless' texts
    "must return a Tensor or a Sequence of", "outputs one tensor, it may not change",
    "A parametrization must return a tensor", "should return a tensor. Got",
    "The tensor returned by", "must return a sequence of tensors",
    "returned by `right_inverse` has dtype", "may not change the dtype of the tensor",
    "may not change the shape of the tensor",
    "Got a tensor of", "tensor name can", "leave_parametrized=False`) a tensor",
    # not a pyad Variable
    "the capsule holds no tensor", "from_dlpack(): the tensor has no",
    "other libraries' tensors",
)


def test_messages_say_variable_not_tensor():
    bad = ["%s: %r" % (place, text) for place, text in RAISED_MESSAGES
           if TENSOR_WORD.search(text) and not any(w in text for w in TORCH_WORDING)]
    assert not bad, ("say \"Variable\", not \"tensor\" (unless the message copies torch's "
                     "text; then add it to TORCH_WORDING):\n" + "\n".join(bad))


def test_noun_rule_can_fail():
    assert TENSOR_WORD.search("sum(): expected a 2-D tensor")
    assert TENSOR_WORD.search("Tensors must match")
    assert not TENSOR_WORD.search("broadcast_tensors(): shapes")
    assert not TENSOR_WORD.search("argument 'tensors' must be")
    assert not TENSOR_WORD.search("expected torch.Tensor")
    assert not any(w in "sum(): expected a 2-D tensor" for w in TORCH_WORDING)


def test_torch_wording_entries_are_all_used():
    # a stale entry would let a new message through unnoticed
    texts = [text for _, text in RAISED_MESSAGES]
    unused = [w for w in TORCH_WORDING if not any(w in t for t in texts)]
    assert not unused, unused
