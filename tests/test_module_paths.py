"""torch's module paths in pyad: a script's imports resolve by changing ``torch`` to
``pyad`` only (``torch.nn.modules.batchnorm._BatchNorm`` -> ``pyad.nn.modules.batchnorm.
_BatchNorm``, ``torch.optim.adam.Adam``, ``torch.distributions.utils.probs_to_logits``,
...), plus subclass tests of the private bases public code derives from, compared with
torch 2.13 on the same inputs."""
import collections
import hashlib
import importlib
import inspect
import os
import pickle
import types

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")


def _resolve(path):
    # the longest importable module prefix, then attributes
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def _kind(obj):
    if isinstance(obj, types.ModuleType):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if callable(obj):
        return "function"
    return "value"


_NN_MODULES = {
    "activation": "Threshold ReLU RReLU Hardtanh ReLU6 Sigmoid Hardsigmoid Tanh SiLU Mish "
                  "Hardswish ELU CELU SELU GLU GELU Hardshrink LeakyReLU LogSigmoid Softplus "
                  "Softshrink MultiheadAttention PReLU Softsign Tanhshrink Softmin Softmax "
                  "Softmax2d LogSoftmax",
    "adaptive": "AdaptiveLogSoftmaxWithLoss",
    "batchnorm": "BatchNorm1d LazyBatchNorm1d BatchNorm2d LazyBatchNorm2d BatchNorm3d "
                 "LazyBatchNorm3d _NormBase _BatchNorm _LazyNormBase",
    "channelshuffle": "ChannelShuffle",
    "container": "Sequential ModuleList ModuleDict ParameterList ParameterDict",
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d "
            "LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d "
            "_ConvNd _ConvTransposeNd",
    "distance": "PairwiseDistance CosineSimilarity",
    "dropout": "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout "
               "_DropoutNd",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
                    "LazyInstanceNorm2d LazyInstanceNorm3d _InstanceNorm",
    "linear": "Bilinear Identity LazyLinear Linear NonDynamicallyQuantizableLinear",
    "loss": "L1Loss NLLLoss NLLLoss2d PoissonNLLLoss GaussianNLLLoss KLDivLoss MSELoss BCELoss "
            "BCEWithLogitsLoss HingeEmbeddingLoss MultiLabelMarginLoss SmoothL1Loss HuberLoss "
            "SoftMarginLoss CrossEntropyLoss MultiLabelSoftMarginLoss CosineEmbeddingLoss "
            "MarginRankingLoss MultiMarginLoss TripletMarginLoss TripletMarginWithDistanceLoss "
            "CTCLoss _Loss _WeightedLoss",
    "module": "Module register_module_forward_pre_hook register_module_forward_hook "
              "register_module_full_backward_pre_hook register_module_full_backward_hook "
              "register_module_backward_hook",
    "normalization": "LocalResponseNorm LayerNorm GroupNorm RMSNorm",
    "padding": "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
               "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d "
               "ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d _ConstantPadNd "
               "_CircularPadNd",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": "MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d AvgPool1d "
               "AvgPool2d AvgPool3d FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d "
               "AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d AdaptiveAvgPool1d "
               "AdaptiveAvgPool2d AdaptiveAvgPool3d _MaxPoolNd _AvgPoolNd _AdaptiveAvgPoolNd "
               "_AdaptiveMaxPoolNd _MaxUnpoolNd _LPPoolNd",
    "rnn": "RNNBase RNN LSTM GRU RNNCellBase RNNCell LSTMCell GRUCell",
    "sparse": "Embedding EmbeddingBag",
    "transformer": "Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer "
                   "TransformerDecoderLayer",
    "upsampling": "Upsample UpsamplingNearest2d UpsamplingBilinear2d",
    "utils": "_single _pair _triple _quadruple _ntuple _reverse_repeat_tuple "
             "_list_with_default consume_prefix_in_state_dict_if_present",
}

_DISTRIBUTIONS = {
    "bernoulli": "Bernoulli", "beta": "Beta", "binomial": "Binomial", "categorical":
    "Categorical", "cauchy": "Cauchy", "chi2": "Chi2", "dirichlet": "Dirichlet",
    "distribution": "Distribution", "exp_family": "ExponentialFamily", "exponential":
    "Exponential", "gamma": "Gamma", "geometric": "Geometric", "gumbel": "Gumbel",
    "half_normal": "HalfNormal", "independent": "Independent", "kl": "kl_divergence "
    "register_kl", "laplace": "Laplace", "log_normal": "LogNormal", "mixture_same_family":
    "MixtureSameFamily", "multivariate_normal": "MultivariateNormal", "normal": "Normal",
    "one_hot_categorical": "OneHotCategorical", "poisson": "Poisson", "relaxed_bernoulli":
    "RelaxedBernoulli", "relaxed_categorical": "RelaxedOneHotCategorical", "studentT":
    "StudentT", "transformed_distribution": "TransformedDistribution", "uniform": "Uniform",
    "utils": "probs_to_logits logits_to_probs broadcast_all clamp_probs lazy_property",
}

_OPTIM = {
    "adadelta": "Adadelta", "adagrad": "Adagrad", "adam": "Adam", "adamax": "Adamax",
    "adamw": "AdamW", "asgd": "ASGD", "lbfgs": "LBFGS", "nadam": "NAdam", "radam": "RAdam",
    "rmsprop": "RMSprop", "rprop": "Rprop", "sgd": "SGD", "optimizer": "Optimizer",
    "lr_scheduler": "LRScheduler StepLR MultiStepLR ConstantLR LinearLR ExponentialLR "
                    "SequentialLR CosineAnnealingLR ChainedScheduler ReduceLROnPlateau "
                    "CyclicLR CosineAnnealingWarmRestarts OneCycleLR PolynomialLR LambdaLR "
                    "MultiplicativeLR",
    "swa_utils": "AveragedModel SWALR",
}

PATHS = (
    ["torch.nn.modules"]
    + ["torch.nn.modules.%s" % m for m in _NN_MODULES]
    + ["torch.nn.modules.%s.%s" % (m, n) for m, ns in _NN_MODULES.items() for n in ns.split()]
    + ["torch.distributions.%s.%s" % (m, n) for m, ns in _DISTRIBUTIONS.items()
       for n in ns.split()]
    + ["torch.optim.%s.%s" % (m, n) for m, ns in _OPTIM.items() for n in ns.split()]
    + ["torch.nn.modules.Conv1d", "torch.nn.modules.BatchNorm1d", "torch.nn.modules.Module",
       "torch.nn.common_types", "torch.nn.common_types._size_2_t",
       "torch.nn._reduction.get_enum", "torch.nn._reduction.legacy_get_string",
       "torch.nn._reduction.legacy_get_enum",
       "torch.nn.init._no_grad_uniform_", "torch.nn.init._no_grad_normal_",
       "torch.nn.init._no_grad_trunc_normal_", "torch.nn.init._no_grad_fill_",
       "torch.nn.init._no_grad_zero_", "torch.nn.init._calculate_correct_fan",
       "torch.nn.init._calculate_fan_in_and_fan_out",
       "torch.nn.utils.clip_grad.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_value_",
       "torch.nn.utils.clip_grad.clip_grad_norm",
       "torch.nn.utils.convert_parameters.parameters_to_vector",
       "torch.nn.utils.convert_parameters.vector_to_parameters",
       "torch.nn.utils.memory_format.convert_conv2d_weight_memory_format",
       "torch.nn.utils.memory_format.convert_conv3d_weight_memory_format",
       "torch.utils.data._utils.collate.default_collate",
       "torch.utils.data._utils.collate.default_convert",
       "torch.autograd.variable.Variable", "torch.types.Number", "torch.types.Device",
       "torch.types._size", "torch.types._TensorOrTensors", "torch.types._dtype",
       "torch.jit.script_method", "torch._C._get_tracing_state",
       "torch.serialization.default_restore_location",
       "torch.hub.load_state_dict_from_url", "torch.hub.download_url_to_file",
       "torch.hub.get_dir", "torch.hub.set_dir", "torch.utils.model_zoo.load_url"]
)


@pytest.mark.parametrize("path", PATHS)
def test_torch_path_resolves_in_pyad(path):
    expected = _resolve(path)
    got = _resolve("pyad" + path[len("torch"):])
    assert _kind(got) == _kind(expected), (path, got)


@pytest.mark.parametrize("path", [
    "torch.nn.modules.lazy.LazyModuleMixin",
    "torch.nn.modules.pooling.LPPool3d",
    "torch.nn.modules.batchnorm.SyncBatchNorm",
    pytest.param("torch.storage.UntypedStorage", marks=pytest.mark.xfail(
        strict=True, reason="python: pyad has no storage type (Variables own arrays)")),
])
def test_torch_path_missing_in_pyad(path):
    expected = _resolve(path)
    got = _resolve("pyad" + path[len("torch"):])
    assert _kind(got) == _kind(expected)


def test_submodules_are_attributes_and_classes_keep_their_module():
    # the attribute walk torch scripts do without importing the submodule
    assert pyad.nn.modules.batchnorm._BatchNorm is pyad.nn.modules._BatchNorm
    assert pyad.nn.modules.conv.Conv2d is pyad.nn.Conv2d
    # where classes are defined is unchanged (pickles name these paths)
    assert pyad.nn.Conv2d.__module__ == "pyad.nn.modules"
    assert pyad.nn.BatchNorm1d.__module__ == "pyad.nn.layers"
    net = pyad.nn.Sequential(pyad.nn.Conv2d(1, 2, 3), pyad.nn.BatchNorm2d(2))
    back = pickle.loads(pickle.dumps(net))
    assert type(back[1]) is pyad.nn.BatchNorm2d
    np.testing.assert_array_equal(back[0].weight.data, net[0].weight.data)


def test_norm_hierarchy_as_torch():
    for name in ("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "InstanceNorm1d",
                 "InstanceNorm2d", "LazyBatchNorm1d"):
        for base in ("_BatchNorm", "_NormBase", "_InstanceNorm"):
            mod = "batchnorm" if base != "_InstanceNorm" else "instancenorm"
            t = issubclass(getattr(torch.nn, name), getattr(_resolve("torch.nn.modules." + mod),
                                                            base))
            p = issubclass(getattr(pyad.nn, name), getattr(_resolve("pyad.nn.modules." + mod),
                                                           base))
            assert p == t, (name, base)
    assert not issubclass(pyad.nn.BatchNorm1d, pyad.nn.BatchNorm2d)
    for name, base in (("ConvTranspose1d", "_ConvTransposeNd"), ("MaxPool3d", "_MaxPoolNd"),
                       ("AvgPool1d", "_AvgPoolNd"), ("AdaptiveAvgPool3d", "_AdaptiveAvgPoolNd"),
                       ("AdaptiveMaxPool1d", "_AdaptiveMaxPoolNd"), ("Dropout", "_DropoutNd"),
                       ("AlphaDropout", "_DropoutNd"), ("L1Loss", "_Loss")):
        mod = {"_ConvTransposeNd": "conv", "_DropoutNd": "dropout", "_Loss": "loss"}.get(
            base, "pooling")
        assert issubclass(getattr(pyad.nn, name),
                          getattr(_resolve("pyad.nn.modules." + mod), base))
        assert issubclass(getattr(torch.nn, name),
                          getattr(_resolve("torch.nn.modules." + mod), base))


def _make_loss(base_mod):
    class PowLoss(base_mod._Loss):
        def forward(self, input, target):
            d = (input - target).abs() ** 1.5
            if self.reduction == "mean":
                return d.mean()
            if self.reduction == "sum":
                return d.sum()
            return d
    return PowLoss


@pytest.mark.filterwarnings("ignore:size_average and reduce")
@pytest.mark.parametrize("kwargs", [{}, {"reduction": "sum"}, {"reduction": "none"},
                                    {"size_average": False}, {"reduce": False}])
def test_custom_loss_subclass_matches_torch(kwargs):
    rng = np.random.default_rng(0)
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    tl = _make_loss(torch.nn.modules.loss)(**kwargs)
    pl = _make_loss(pyad.nn.modules.loss)(**kwargs)
    assert pl.reduction == tl.reduction
    ta = torch.tensor(a, requires_grad=True)
    pa = pyad.tensor(a, requires_grad=True)
    tout, pout = tl(ta, torch.tensor(b)), pl(pa, pyad.tensor(b))
    np.testing.assert_allclose(pout.data, tout.detach().numpy(), rtol=1e-12)
    tout.sum().backward()
    pout.sum().backward()
    np.testing.assert_allclose(pa.grad.data, ta.grad.numpy(), rtol=1e-12)


def test_weighted_loss_subclass_registers_weight_buffer():
    w = np.array([1.0, 2.0, 0.5])

    def make(nn_mod, lib):
        class WNLL(nn_mod.modules.loss._WeightedLoss):
            def forward(self, input, target):
                return nn_mod.functional.nll_loss(input, target, weight=self.weight,
                                                  reduction=self.reduction)
        return WNLL(lib.tensor(w), reduction="sum")

    tl, pl = make(torch.nn, torch), make(pyad.nn, pyad)
    assert list(pl.state_dict()) == list(tl.state_dict()) == ["weight"]
    x = np.log(np.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]))
    t = np.array([2, 0])
    np.testing.assert_allclose(pl(pyad.tensor(x), pyad.tensor(t)).data,
                               tl(torch.tensor(x), torch.tensor(t)).numpy(), rtol=1e-12)


def _make_bn(lib):
    class AnyDimBatchNorm(lib.nn.modules.batchnorm._BatchNorm):
        # public code's pattern: a _BatchNorm taking any (N, C, ...) input
        def _check_input_dim(self, input):
            if input.dim() < 2:
                raise ValueError("expected at least 2D input (got {}D input)"
                                 .format(input.dim()))
    return AnyDimBatchNorm


@pytest.mark.parametrize("shape", [(4, 3), (4, 3, 5), (2, 3, 2, 2), (2, 3, 2, 1, 2)])
def test_batchnorm_subclass_with_own_check_input_dim_matches_torch(shape):
    x = np.random.default_rng(1).standard_normal(shape)
    tb = _make_bn(torch)(3, momentum=None).double()
    pb = _make_bn(pyad)(3, momentum=None, dtype=pyad.float64)
    for _ in range(2):
        tout = tb(torch.tensor(x))
        pout = pb(pyad.tensor(x))
    np.testing.assert_allclose(pout.data, tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pb.running_mean.data, tb.running_mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(pb.running_var.data, tb.running_var.numpy(), rtol=1e-10)
    assert int(pb.num_batches_tracked) == int(tb.num_batches_tracked) == 2
    pb.eval()
    tb.eval()
    np.testing.assert_allclose(pb(pyad.tensor(x)).data, tb(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)
    assert list(pb.state_dict()) == list(tb.state_dict())
    with pytest.raises(ValueError, match="expected at least 2D input"):
        pb(pyad.tensor(x.reshape(-1)[:3]))


@pytest.mark.parametrize("name,shape,bad", [("BatchNorm1d", (4, 3, 2), (4, 3, 2, 2)),
                                            ("BatchNorm2d", (2, 3, 2, 2), (4, 3)),
                                            ("BatchNorm3d", (2, 3, 2, 1, 2), (2, 3, 2, 2)),
                                            ("LazyBatchNorm3d", (2, 3, 2, 1, 2), (2, 3))])
def test_builtin_batchnorms_after_rebase_match_torch(name, shape, bad):
    x = np.random.default_rng(5).standard_normal(shape)
    args = () if name.startswith("Lazy") else (3,)
    tb = getattr(torch.nn, name)(*args).double()
    pb = getattr(pyad.nn, name)(*args, dtype=pyad.float64)
    tout, pout = tb(torch.tensor(x)), pb(pyad.tensor(x))
    np.testing.assert_allclose(pout.data, tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pb.running_var.data, tb.running_var.numpy(), rtol=1e-10)
    with pytest.raises(ValueError, match="expected"):
        tb(torch.zeros(bad, dtype=torch.float64))
    with pytest.raises(ValueError, match="expected"):
        pb(pyad.zeros(bad, dtype=pyad.float64))


def test_norm_base_check_input_dim_is_abstract():
    for lib in (torch, pyad):
        bn = lib.nn.modules.batchnorm._BatchNorm(3)
        with pytest.raises(NotImplementedError):
            bn(lib.ones(2, 3))


def _make_std_conv(lib, F):
    class StdConv2d(lib.nn.Conv2d):
        # weight standardisation (timm's StdConv2d): a Conv2d subclass that passes its own
        # weight to _conv_forward
        def forward(self, x):
            w = self.weight
            mean = w.mean(dim=(1, 2, 3), keepdim=True)
            var = ((w - mean) ** 2).mean(dim=(1, 2, 3), keepdim=True)
            return self._conv_forward(x, (w - mean) / (var + 1e-5).sqrt(), self.bias)
    return StdConv2d


@pytest.mark.parametrize("padding_mode", ["zeros", "reflect"])
def test_conv_subclass_calling_conv_forward_matches_torch(padding_mode):
    rng = np.random.default_rng(2)
    w, b = rng.standard_normal((4, 2, 3, 3)), rng.standard_normal(4)
    x = rng.standard_normal((2, 2, 5, 5))
    tc = _make_std_conv(torch, None)(2, 4, 3, padding=1, padding_mode=padding_mode).double()
    pc = _make_std_conv(pyad, None)(2, 4, 3, padding=1, padding_mode=padding_mode,
                                    dtype=pyad.float64)
    tc.load_state_dict({"weight": torch.tensor(w), "bias": torch.tensor(b)})
    pc.load_state_dict({"weight": pyad.tensor(w), "bias": pyad.tensor(b)})
    tx, px = torch.tensor(x, requires_grad=True), pyad.tensor(x, requires_grad=True)
    tout, pout = tc(tx), pc(px)
    np.testing.assert_allclose(pout.data, tout.detach().numpy(), rtol=1e-10, atol=1e-12)
    tout.square().sum().backward()
    pout.square().sum().backward()
    np.testing.assert_allclose(px.grad.data, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pc.weight.grad.data, tc.weight.grad.numpy(), rtol=1e-10,
                               atol=1e-12)


def test_conv1d_and_conv3d_conv_forward_match_torch():
    rng = np.random.default_rng(3)
    for n, shape in ((1, (1, 2, 6)), (3, (1, 2, 3, 3, 3))):
        x = rng.standard_normal(shape)
        tconv = getattr(torch.nn, "Conv%dd" % n)(2, 3, 2).double()
        pconv = getattr(pyad.nn, "Conv%dd" % n)(2, 3, 2, dtype=pyad.float64)
        w = rng.standard_normal(tuple(tconv.weight.shape))
        tout = tconv._conv_forward(torch.tensor(x), torch.tensor(w), None)
        pout = pconv._conv_forward(pyad.tensor(x), pyad.tensor(w), None)
        np.testing.assert_allclose(pout.data, tout.numpy(), rtol=1e-10, atol=1e-12)


def test_convnd_direct_subclass_matches_torch():
    def make(lib):
        utils = lib.nn.modules.utils

        class MyConv(lib.nn.modules.conv._ConvNd):
            def __init__(self, cin, cout, k):
                super().__init__(cin, cout, utils._pair(k), utils._pair(1), utils._pair(0),
                                 utils._pair(1), False, utils._pair(0), 1, True, "zeros",
                                 dtype=lib.float64)

            def forward(self, x):
                return lib.nn.functional.conv2d(x, self.weight, self.bias, self.stride,
                                                self.padding, self.dilation, self.groups)
        return MyConv(2, 3, 2)

    tc, pc = make(torch), make(pyad)
    assert tuple(pc.weight.shape) == tuple(tc.weight.shape)
    assert repr(pc) == repr(tc)
    pc.load_state_dict({k: pyad.tensor(v.detach().numpy()) for k, v in
                        tc.state_dict().items()})
    x = np.random.default_rng(4).standard_normal((1, 2, 4, 4))
    np.testing.assert_allclose(pc(pyad.tensor(x)).data, tc(torch.tensor(x)).detach().numpy(),
                               rtol=1e-10, atol=1e-12)


def test_pool_and_dropout_bases_as_torch():
    tp = torch.nn.modules.pooling._MaxPoolNd(3)
    pp = pyad.nn.modules.pooling._MaxPoolNd(3)
    assert (pp.kernel_size, pp.stride, pp.padding, pp.dilation, pp.return_indices,
            pp.ceil_mode) == (tp.kernel_size, tp.stride, tp.padding, tp.dilation,
                              tp.return_indices, tp.ceil_mode)
    assert pp.extra_repr() == tp.extra_repr()
    for cls in ("_AdaptiveAvgPoolNd", "_AdaptiveMaxPoolNd"):
        t = getattr(torch.nn.modules.pooling, cls)((2, 3))
        p = getattr(pyad.nn.modules.pooling, cls)((2, 3))
        assert p.extra_repr() == t.extra_repr() and p.output_size == t.output_size
    assert (pyad.nn.modules.dropout._DropoutNd(0.3).extra_repr()
            == torch.nn.modules.dropout._DropoutNd(0.3).extra_repr())
    with pytest.raises(ValueError, match="dropout probability"):
        pyad.nn.modules.dropout._DropoutNd(1.5)
    assert repr(pyad.nn.MaxPool1d(2)) == repr(torch.nn.MaxPool1d(2))
    assert repr(pyad.nn.AdaptiveAvgPool3d(2)) == repr(torch.nn.AdaptiveAvgPool3d(2))
    assert repr(pyad.nn.AvgPool3d(2)) == repr(torch.nn.AvgPool3d(2))


def test_modules_utils_match_torch():
    tu, pu = torch.nn.modules.utils, pyad.nn.modules.utils
    for name, arg in (("_single", 3), ("_pair", 3), ("_pair", (1, 2)), ("_triple", 2),
                      ("_quadruple", 1), ("_pair", [4, 5])):
        assert getattr(pu, name)(arg) == getattr(tu, name)(arg)
    assert pu._ntuple(5, "five")(2) == tu._ntuple(5, "five")(2)
    assert pu._ntuple(5, "five").__name__ == "five"
    assert pu._reverse_repeat_tuple((1, 2, 3), 2) == tu._reverse_repeat_tuple((1, 2, 3), 2)
    assert pu._list_with_default([None, 3], [8, 9, 10]) == tu._list_with_default(
        [None, 3], [8, 9, 10])
    sd_t = collections.OrderedDict([("module.a", 1), ("module.b.c", 2), ("d", 3)])
    sd_t._metadata = {"": {}, "module": {}, "module.b": {}}
    sd_p = collections.OrderedDict(sd_t)
    sd_p._metadata = dict(sd_t._metadata)
    tu.consume_prefix_in_state_dict_if_present(sd_t, "module.")
    pu.consume_prefix_in_state_dict_if_present(sd_p, "module.")
    assert list(sd_p.items()) == list(sd_t.items())
    assert sd_p._metadata == sd_t._metadata


def test_reduction_helpers_match_torch():
    tr, pr = torch.nn._reduction, pyad.nn._reduction
    for r in ("none", "mean", "sum"):
        assert pr.get_enum(r) == tr.get_enum(r)
    with pytest.raises(ValueError, match="not a valid value for reduction"):
        pr.get_enum("max")
    for sa in (None, True, False):
        for red in (None, True, False):
            assert (pr.legacy_get_string(sa, red, False)
                    == tr.legacy_get_string(sa, red, False))
            assert pr.legacy_get_enum(sa, red, False) == tr.legacy_get_enum(sa, red, False)
    with pytest.warns(UserWarning, match="size_average and reduce"):
        pr.legacy_get_string(False, True)


def test_init_private_helpers():
    p = pyad.nn.Parameter(pyad.zeros(200))
    assert pyad.nn.init._no_grad_uniform_(p, -0.5, 0.5) is p
    assert p.grad_fn is None and p.is_leaf
    assert p.data.min() >= -0.5 and p.data.max() < 0.5
    pyad.nn.init._no_grad_trunc_normal_(p, 0.0, 1.0, -0.1, 0.1)
    assert np.abs(p.data).max() <= 0.1 and p.grad_fn is None
    pyad.nn.init._no_grad_normal_(p, 5.0, 1e-3)
    assert abs(p.data.mean() - 5.0) < 0.01
    pyad.nn.init._no_grad_fill_(p, 2.5)
    assert p.data.min() == p.data.max() == 2.5
    pyad.nn.init._no_grad_zero_(p)
    assert np.abs(p.data).max() == 0.0 and p.grad_fn is None
    w = np.zeros((6, 4, 3, 3))
    for mode in ("fan_in", "fan_out"):
        assert (pyad.nn.init._calculate_correct_fan(pyad.tensor(w), mode)
                == torch.nn.init._calculate_correct_fan(torch.tensor(w), mode))


def test_optim_module_paths_are_the_same_classes():
    from pyad.optim.adam import Adam
    from pyad.optim.adamw import AdamW
    from pyad.optim.sgd import SGD
    assert (Adam, AdamW, SGD) == (pyad.optim.Adam, pyad.optim.AdamW, pyad.optim.SGD)


def test_distributions_utils_match_torch():
    tu, pu = torch.distributions.utils, pyad.distributions.utils
    p = np.array([[0.1, 0.6, 0.3], [0.0, 0.5, 0.5]])
    logits = np.array([[0.3, -1.0, 2.0]])
    for binary in (False, True):
        np.testing.assert_allclose(pu.probs_to_logits(pyad.tensor(p), binary).data,
                                   tu.probs_to_logits(torch.tensor(p), binary).numpy(),
                                   rtol=1e-12)
        np.testing.assert_allclose(pu.logits_to_probs(pyad.tensor(logits), binary).data,
                                   tu.logits_to_probs(torch.tensor(logits), binary).numpy(),
                                   rtol=1e-12)
    np.testing.assert_array_equal(pu.clamp_probs(pyad.tensor(p)).data,
                                  tu.clamp_probs(torch.tensor(p)).numpy())
    a, b = pu.broadcast_all(pyad.tensor([1.0, 2.0]), 3.0)
    assert a.shape == b.shape == (2,) and float(b[1]) == 3.0

    calls = []

    def make(lib, util):
        class D:
            def __init__(self, x):
                self.x = x

            @util.lazy_property
            def sq(self):
                calls.append(1)
                return self.x * self.x
        return D

    d = make(pyad, pu)(pyad.tensor(3.0, requires_grad=True))
    assert float(d.sq.data) == 9.0 and float(d.sq.data) == 9.0 and len(calls) == 1
    assert d.sq.requires_grad
    assert isinstance(make(pyad, pu).sq, property)


def _make_expfam(lib):
    class Exp(lib.distributions.exp_family.ExponentialFamily):
        # the exponential distribution as an exponential family (torch's own form)
        def __init__(self, rate):
            self.rate = rate
            super().__init__(batch_shape=tuple(rate.shape), validate_args=False)

        @property
        def _natural_params(self):
            return (-self.rate,)

        def _log_normalizer(self, x):
            return -lib.log(-x)

        @property
        def _mean_carrier_measure(self):
            return 0
    return Exp


def test_exponential_family_entropy_matches_torch():
    rate = np.array([0.5, 1.0, 3.0])
    te = _make_expfam(torch)(torch.tensor(rate)).entropy()
    pe = _make_expfam(pyad)(pyad.tensor(rate)).entropy()
    np.testing.assert_allclose(pe.data, te.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(pe.data, 1 - np.log(rate), rtol=1e-12)   # hand math


def test_default_collate_path_matches_torch():
    from pyad.utils.data._utils.collate import default_collate
    batch = [(np.array([1.0, 2.0]), 3), (np.array([4.0, 5.0]), 6)]
    p = default_collate(batch)
    t = torch.utils.data._utils.collate.default_collate(batch)
    np.testing.assert_array_equal(p[0].data, t[0].numpy())
    np.testing.assert_array_equal(p[1].data, t[1].numpy())


def test_small_aliases():
    assert pyad.autograd.variable.Variable is pyad.Variable
    assert isinstance(2, pyad.types.Number) and isinstance(2.5, pyad.types.Number)
    assert not isinstance("2", pyad.types.Number)
    f = lambda x: x  # noqa: E731
    assert pyad.jit.script_method(f) is f
    assert pyad._C._get_tracing_state() is None


def test_default_restore_location_in_map_location(tmp_path):
    path = str(tmp_path / "sd.pt")
    pyad.save({"w": pyad.tensor([1.0, 2.0])}, path)
    from pyad.serialization import default_restore_location
    sd = pyad.load(path, map_location=lambda s, loc: default_restore_location(s, "cpu"))
    np.testing.assert_array_equal(sd["w"].data, [1.0, 2.0])
    assert str(sd["w"].device) == "cpu"


def _checkpoint(tmp_path, name):
    src = tmp_path / "src"
    src.mkdir(exist_ok=True)
    sd = pyad.nn.Linear(3, 2).state_dict()
    raw = str(src / "raw.pt")
    pyad.save(sd, raw)
    digest = hashlib.sha256(open(raw, "rb").read()).hexdigest()
    path = src / name.format(digest[:8])
    os.replace(raw, path)
    return sd, path, digest


def test_load_state_dict_from_url_file_url_and_cache(tmp_path):
    sd, path, _ = _checkpoint(tmp_path, "linear-{}.pt")
    cache = tmp_path / "cache"
    got = pyad.hub.load_state_dict_from_url(path.as_uri(), model_dir=str(cache),
                                            check_hash=True, progress=False)
    assert list(got) == list(sd)
    np.testing.assert_array_equal(got["weight"].data, sd["weight"].data)
    assert sorted(os.listdir(cache)) == [path.name]   # no partial file left behind
    os.remove(path)                                    # the second load uses the cache
    again = pyad.utils.model_zoo.load_url(path.as_uri(), model_dir=str(cache),
                                          progress=False)
    np.testing.assert_array_equal(again["bias"].data, sd["bias"].data)


def test_load_state_dict_from_url_hub_dir_and_file_name(tmp_path):
    sd, path, _ = _checkpoint(tmp_path, "plain{}.pt")
    old = pyad.hub.get_dir()
    try:
        pyad.hub.set_dir(str(tmp_path / "hub"))
        assert pyad.hub.get_dir() == str(tmp_path / "hub")
        got = pyad.hub.load_state_dict_from_url(path.as_uri(), file_name="mine.pt",
                                                progress=False)
    finally:
        pyad.hub.set_dir(old)
    assert os.listdir(tmp_path / "hub" / "checkpoints") == ["mine.pt"]
    np.testing.assert_array_equal(got["weight"].data, sd["weight"].data)


def test_load_state_dict_from_url_bad_hash_leaves_no_file(tmp_path):
    _, path, digest = _checkpoint(tmp_path, "linear-{}.pt")
    bad = path.with_name("linear-%s.pt" % ("0" * 8 if not digest.startswith("0" * 8)
                                           else "1" * 8))
    os.replace(path, bad)
    cache = tmp_path / "cache"
    with pytest.raises(RuntimeError, match="invalid hash value"):
        pyad.hub.load_state_dict_from_url(bad.as_uri(), model_dir=str(cache),
                                          check_hash=True, progress=False)
    assert os.listdir(cache) == []
    # without check_hash the same file loads
    pyad.hub.load_state_dict_from_url(bad.as_uri(), model_dir=str(cache), progress=False)
    assert os.listdir(cache) == [bad.name]
