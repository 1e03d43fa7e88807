"""The examples in the docstrings of the recurrent, attention and other layers ported
from torch run and print what they show."""
import doctest

import numpy
import pytest

import pyad
import pyad.nn._functional_layers
import pyad.nn._functional_more
import pyad.nn.layers
import pyad.nn.layers_extra
import pyad.nn.rnn
import pyad.nn.transformer
import pyad.nn.utils
import pyad.nn.utils.rnn

MODULES = [pyad.nn.rnn, pyad.nn.layers, pyad.nn.transformer, pyad.nn._functional_layers,
           pyad.nn.utils, pyad.nn.utils.rnn, pyad.nn.layers_extra, pyad.nn._functional_more]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples_run(module):
    globs = dict(vars(module))
    globs.update(numpy=numpy, np=numpy, pyad=pyad)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    tests = [t for t in finder.find(module, globs=globs) if t.examples]
    for test in tests:
        runner.run(test)
    results = runner.summarize(verbose=False)
    assert results.failed == 0
    assert results.attempted >= 3
