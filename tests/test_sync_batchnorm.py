"""pyad.nn.SyncBatchNorm without a process group (torch 2.13's falls back to batch_norm
on CPU the same way), convert_sync_batchnorm, and pyad.cuda.Event / Stream.

The synchronised path runs under MPI in tests/distributed/test_mpi.py
(mpi_sync_batchnorm.py). Expected values come from torch on the same inputs.
"""
import numpy as np
import pytest

import pyad
from pyad import nn

torch = pytest.importorskip("torch")


def _pair(channels, **options):
    p = nn.SyncBatchNorm(channels, dtype=pyad.float64, **options)
    t = torch.nn.SyncBatchNorm(channels, dtype=torch.float64, **options)
    rng = np.random.default_rng(0)
    if p.affine:
        w, b = rng.standard_normal(channels), rng.standard_normal(channels)
        with pyad.no_grad():
            p.weight.copy_(pyad.tensor(w))
            if p.bias is not None:
                p.bias.copy_(pyad.tensor(b))
        with torch.no_grad():
            t.weight.copy_(torch.tensor(w))
            if t.bias is not None:
                t.bias.copy_(torch.tensor(b))
    return p, t


@pytest.mark.parametrize("shape", [(6, 3), (5, 3, 4), (4, 3, 2, 3), (3, 3, 2, 2, 2)])
@pytest.mark.parametrize("options", [{}, {"momentum": None}, {"track_running_stats": False},
                                     {"affine": False}, {"bias": False}],
                         ids=["default", "momentum None", "no running stats", "affine False",
                              "bias False"])
def test_without_a_process_group_it_is_batch_norm_as_torch(shape, options):
    assert not pyad.distributed.is_initialized()
    p, t = _pair(shape[1], **options)
    rng = np.random.default_rng(1)
    for step, scale in enumerate((1.0, 2.0, 0.5)):
        if step == 2:
            p.eval()
            t.eval()
        x = rng.standard_normal(shape) * scale + 0.3
        g = rng.standard_normal(shape)
        xp, xt = pyad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        yp, yt = p(xp), t(xt)
        (yp * pyad.tensor(g)).sum().backward()
        (yt * torch.tensor(g)).sum().backward()
        np.testing.assert_allclose(yp.detach().numpy(), yt.detach().numpy(), rtol=1e-12,
                                   atol=1e-12)
        np.testing.assert_allclose(xp.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
        for name in ("weight", "bias"):
            if getattr(t, name) is not None:
                np.testing.assert_allclose(getattr(p, name).grad.numpy(),
                                           getattr(t, name).grad.numpy(), rtol=1e-10,
                                           atol=1e-12)
            else:
                assert getattr(p, name) is None
        for name in ("running_mean", "running_var"):
            if getattr(t, name) is None:
                assert getattr(p, name) is None
            else:
                np.testing.assert_allclose(getattr(p, name).numpy(),
                                           getattr(t, name).numpy(), rtol=1e-12)
        if t.num_batches_tracked is not None:
            assert int(p.num_batches_tracked.item()) == int(t.num_batches_tracked)


def test_input_checks_as_torch():
    m = nn.SyncBatchNorm(3)
    with pytest.raises(ValueError, match=r"^SyncBatchNorm\(\): expected at least 2D input "
                                         r"\(got 1D input\)$"):
        m(pyad.ones(3))
    with pytest.raises(ValueError, match=r"^SyncBatchNorm\(\): number of input channels "
                                         r"should be non-zero$"):
        nn.SyncBatchNorm(0)(pyad.ones(2, 0))
    # torch's messages, for the same inputs
    with pytest.raises(ValueError, match="expected at least 2D input"):
        torch.nn.SyncBatchNorm(3)(torch.ones(3))
    with pytest.raises(ValueError, match="number of input channels should be non-zero"):
        torch.nn.SyncBatchNorm(0)(torch.ones(2, 0))


def test_constructor_repr_and_state_dict_as_torch():
    group = object()
    p = nn.SyncBatchNorm(4, eps=1e-3, momentum=0.2, process_group=group)
    t = torch.nn.SyncBatchNorm(4, eps=1e-3, momentum=0.2)
    assert p.process_group is group
    assert repr(p) == repr(t)
    assert list(p.state_dict()) == list(t.state_dict())
    assert isinstance(p, pyad.nn.modules.batchnorm._BatchNorm)
    assert pyad.nn.modules.batchnorm.SyncBatchNorm is nn.SyncBatchNorm


def _tree(torch_or_pyad):
    n = torch_or_pyad.nn
    inner = n.Sequential(n.Conv2d(2, 3, 1), n.BatchNorm2d(3, momentum=None))
    return n.Sequential(n.Linear(4, 4), n.BatchNorm1d(4, affine=False),
                        n.Sequential(inner, n.BatchNorm3d(3, track_running_stats=False)))


def test_convert_sync_batchnorm_as_torch():
    p, t = _tree(pyad), _tree(torch)
    p[2][0][1].eval()
    t[2][0][1].eval()
    p[2][0][1].qconfig = "q"
    t[2][0][1].qconfig = "q"
    bn = p[2][0][1]
    weight, mean, count = bn.weight, bn.running_mean, bn.num_batches_tracked
    group = object()
    out_p = nn.SyncBatchNorm.convert_sync_batchnorm(p, group)
    out_t = torch.nn.SyncBatchNorm.convert_sync_batchnorm(t)
    assert out_p is p and out_t is t
    assert repr(out_p) == repr(out_t)
    converted = out_p[2][0][1]
    assert type(converted) is nn.SyncBatchNorm and converted.process_group is group
    assert converted.weight is weight and converted.running_mean is mean
    assert converted.num_batches_tracked is count
    assert converted.training is False and converted.qconfig == "q"
    assert [m.training for m in out_p.modules()] == [m.training for m in out_t.modules()]
    assert out_p[1].weight is None and out_p[1].running_mean is not None
    assert out_p[2][1].running_mean is None
    assert list(out_p.state_dict()) == list(out_t.state_dict())
    # a bare batch norm: a new layer is returned
    bare = nn.BatchNorm1d(3)
    new = nn.SyncBatchNorm.convert_sync_batchnorm(bare)
    assert type(new) is nn.SyncBatchNorm and new is not bare and new.bias is bare.bias
    # no batch norm inside: the same module, unchanged
    lin = nn.Linear(2, 2)
    assert nn.SyncBatchNorm.convert_sync_batchnorm(lin) is lin


def _has_gpu():
    return pyad.cuda.is_available()


@pytest.mark.skipif(_has_gpu(), reason="checks the build without a GPU")
@pytest.mark.parametrize("cls", ["Event", "Stream"])
def test_cuda_event_and_stream_raise_without_cupy(cls):
    with pytest.raises(RuntimeError, match=r"^pyad\.cuda\.%s\(\): Tried to instantiate "
                                           r"dummy base class %s: no GPU" % (cls, cls)):
        getattr(pyad.cuda, cls)()
    with pytest.raises(RuntimeError, match=r"pip install 'pyad\[cuda\]'"):
        getattr(pyad.cuda, cls)()


@pytest.mark.skipif(_has_gpu(), reason="checks the build without a GPU")
def test_cuda_streams_without_cupy():
    with pytest.raises(RuntimeError, match=r"^pyad\.cuda\.current_stream\(\): no GPU"):
        pyad.cuda.current_stream()
    # torch.cuda.stream(None) is a no-op context on a CPU build: so is pyad's
    with pyad.cuda.stream(None) as s:
        assert s is None
    with torch.cuda.stream(None):
        pass


@pytest.mark.skipif(not _has_gpu(), reason="needs CuPy and a GPU")
def test_cuda_event_timing_and_stream_on_a_gpu():
    import cupy
    s = pyad.cuda.Stream()
    start = pyad.cuda.Event(enable_timing=True)
    end = pyad.cuda.Event(enable_timing=True)
    with pyad.cuda.stream(s):
        assert pyad.cuda.current_stream() == s
        start.record()
        a = cupy.ones((512, 512))
        b = a @ a
        end.record()
    end.synchronize()
    assert start.query() and end.query()
    assert start.elapsed_time(end) >= 0.0
    assert float(b[0, 0]) == 512.0
    other = pyad.cuda.Stream()
    other.wait_event(end)
    other.wait_stream(s)
    end.wait(other)
    other.synchronize()
    assert other.query()
    assert pyad.cuda.current_stream() != s
    assert isinstance(pyad.cuda.default_stream(), pyad.cuda.Stream)
    with pytest.raises(RuntimeError, match="enable_timing"):
        pyad.cuda.Event().elapsed_time(pyad.cuda.Event())
