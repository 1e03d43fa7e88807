"""Stochastic ops (bernoulli, multinomial, normal) and reinforce (the score-function
estimator).

The REINFORCE gradient of a sample is compared with torch: for the same sample and
reward, pyad's gradient must equal torch's gradient of the surrogate
``-(reward * log_prob(sample)).sum()`` (torch.distributions), which is the estimator
pyad uses (-reward * d log p / d params). Its mean over many samples is compared with
the analytic gradient of the expected reward, with a tolerance of 5 standard errors
computed from the estimator's exact variance.
"""
import numpy as np
import pytest

import pyad
from pyad import autograd


def _leaf(values):
    return pyad.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


# -- sampling, dtypes, reproducibility ----------------------------------------------

def test_samples_are_reproducible_under_manual_seed():
    p = pyad.tensor(np.linspace(0.05, 0.95, 40))
    w = pyad.tensor(np.arange(1.0, 7.0))
    draws = []
    for _ in range(2):
        pyad.manual_seed(123)
        draws.append((pyad.bernoulli(p).data, pyad.multinomial(w, 4).data,
                      pyad.multinomial(w, 20, replacement=True).data,
                      pyad.normal(p, 2.0).data, pyad.normal(0.0, 1.0, size=(3,)).data))
    for a, b in zip(*draws):
        np.testing.assert_array_equal(a, b)


def test_bernoulli_values_dtype_and_frequency():
    pyad.manual_seed(0)
    p = pyad.tensor(np.full((200, 50), 0.3, dtype=np.float32))
    z = pyad.bernoulli(p)
    assert z.dtype == np.float32 and z.shape == (200, 50)
    assert set(np.unique(z.data)) <= {0.0, 1.0}
    # 10000 draws of p = 0.3: standard error 0.0046
    assert abs(z.data.mean() - 0.3) < 5 * np.sqrt(0.3 * 0.7 / 10000)
    np.testing.assert_array_equal(pyad.bernoulli(pyad.tensor([0.0, 1.0])).data, [0.0, 1.0])
    assert not z.requires_grad and z.grad_fn is None
    q = pyad.zeros(1000).bernoulli(0.25)
    assert abs(q.data.mean() - 0.25) < 5 * np.sqrt(0.25 * 0.75 / 1000)


def test_multinomial_shapes_dtype_and_support():
    pyad.manual_seed(1)
    w = pyad.tensor([[0.0, 1.0, 3.0, 0.0], [2.0, 0.0, 0.0, 2.0]])
    k = pyad.multinomial(w, 2)
    assert k.dtype == np.int64 and k.shape == (2, 2)
    assert sorted(k.data[0]) == [1, 2] and sorted(k.data[1]) == [0, 3]
    k = w.multinomial(50, replacement=True)
    assert set(np.unique(k.data[0])) <= {1, 2} and set(np.unique(k.data[1])) <= {0, 3}
    assert pyad.multinomial(pyad.tensor([5.0, 1.0, 1.0]), 3).shape == (3,)
    empty = pyad.multinomial(pyad.zeros((0, 3)), 2)
    assert empty.shape == (0, 2) and empty.dtype == np.int64


def test_multinomial_frequencies_with_replacement():
    pyad.manual_seed(2)
    w = np.array([1.0, 2.0, 7.0])
    k = pyad.multinomial(pyad.tensor(w), 20000, replacement=True).data
    freq = np.bincount(k, minlength=3) / 20000
    p = w / w.sum()
    assert np.all(np.abs(freq - p) < 5 * np.sqrt(p * (1 - p) / 20000))


def test_multinomial_without_replacement_first_draw_and_pairs():
    # P(first = j) = w_j / S; P(second = k | first = j) = w_k / (S - w_j)
    pyad.manual_seed(3)
    w = np.array([1.0, 2.0, 3.0])
    rows = pyad.tensor(np.tile(w, (20000, 1)))
    k = pyad.multinomial(rows, 2).data
    assert np.all(k[:, 0] != k[:, 1])
    p_first = w / w.sum()
    freq = np.bincount(k[:, 0], minlength=3) / 20000
    assert np.all(np.abs(freq - p_first) < 5 * np.sqrt(p_first * (1 - p_first) / 20000))
    p01 = p_first[0] * w[1] / (w.sum() - w[0])
    f01 = np.mean((k[:, 0] == 0) & (k[:, 1] == 1))
    assert abs(f01 - p01) < 5 * np.sqrt(p01 * (1 - p01) / 20000)


def test_multinomial_without_replacement_draws_zero_weights_last():
    # torch 2.x: no error for more samples than positive weights; the zero-weight
    # categories come after every positive one (torch's exponential race)
    pyad.manual_seed(5)
    w = np.array([[0.0, 3.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0]])
    k = pyad.multinomial(pyad.tensor(w), 4).data
    for row, weights in zip(k, w):
        assert sorted(row) == [0, 1, 2, 3]
        positive = int((weights > 0).sum())
        assert set(row[:positive]) == set(np.flatnonzero(weights))
    np.testing.assert_array_equal(pyad.multinomial(pyad.tensor([0.0, 0.0, 5.0]), 3).data,
                                  [2, 0, 1])
    with pytest.raises(RuntimeError, match="multinomial.*sum of probabilities"):
        pyad.multinomial(pyad.zeros(3, 0), 2, True)     # no categories (torch's message)


@pytest.mark.parametrize("p", [[0.2, 1.2], [-0.1, 0.5], [0.5, float("nan")]])
def test_bernoulli_in_place_refuses_a_probability_variable_out_of_range(p):
    x = pyad.zeros(2)
    with pytest.raises(RuntimeError, match=r"bernoulli_\(\).*\[0, 1\]"):
        x.bernoulli_(pyad.tensor(p))
    assert x._version == 0


def test_normal_overloads():
    pyad.manual_seed(4)
    mean = pyad.tensor(np.full((100, 100), 3.0))
    x = pyad.normal(mean, 2.0)
    assert x.shape == (100, 100) and x.dtype == np.float64
    assert abs(x.data.mean() - 3.0) < 5 * 2.0 / 100 and abs(x.data.std() - 2.0) < 0.1
    x = pyad.normal(1.0, pyad.tensor(np.full(10000, 0.5, dtype=np.float32)))
    assert x.dtype == np.float32 and abs(x.data.mean() - 1.0) < 5 * 0.5 / 100
    x = pyad.normal(pyad.zeros(3, 1), pyad.ones(4))
    assert x.shape == (3, 4)
    x = pyad.normal(2.0, 3.0, size=(5, 2))
    assert x.shape == (5, 2) and x.dtype == pyad.get_default_dtype()
    assert pyad.normal(0.0, 1.0, size=(2,), dtype=pyad.float64).dtype == np.float64


@pytest.mark.parametrize("call, match", [
    (lambda: pyad.bernoulli(pyad.tensor([0.5, 1.5])), r"bernoulli\(\): .*\[0, 1\]"),
    (lambda: pyad.bernoulli(pyad.tensor([-0.1])), r"bernoulli\(\): .*\[0, 1\]"),
    (lambda: pyad.bernoulli(pyad.tensor([1, 0])), r"bernoulli\(\): .*floating"),
    (lambda: pyad.bernoulli(pyad.ones(2), 2.0), r"bernoulli\(\): expected p in"),
    (lambda: pyad.multinomial(pyad.ones(2, 2, 2), 1), r"multinomial\(\): .*1 or 2 dim"),
    (lambda: pyad.multinomial(pyad.tensor([1, 2]), 1), r"multinomial\(\): .*floating"),
    (lambda: pyad.multinomial(pyad.ones(3), 0), r"multinomial\(\): .*n_sample <= 0"),
    (lambda: pyad.multinomial(pyad.ones(3), 4), r"multinomial\(\): .*without replacement"),
    (lambda: pyad.multinomial(pyad.tensor([1.0, -1.0]), 1), r"multinomial\(\): .*< 0"),
    (lambda: pyad.multinomial(pyad.tensor([1.0, np.nan]), 1), r"multinomial\(\): .*nan"),
    (lambda: pyad.multinomial(pyad.tensor([1.0, np.inf]), 1), r"multinomial\(\): .*inf"),
    (lambda: pyad.multinomial(pyad.zeros(3), 1), r"multinomial\(\): .*sum of prob"),
    (lambda: pyad.multinomial(pyad.tensor([1.0, 0.0, 0.0]), 4),
     r"multinomial\(\): .*n_sample > prob_dist"),
    (lambda: pyad.normal(pyad.ones(2), -1.0), r"normal\(\): .*std >= 0"),
    (lambda: pyad.normal(pyad.ones(2), pyad.ones(3)), r"normal\(\): .*broadcast"),
    (lambda: pyad.normal(pyad.tensor([1, 2]), 1.0), r"normal\(\): .*floating"),
])
def test_bad_input_raises_a_clear_error_naming_the_op(call, match):
    with pytest.raises(RuntimeError, match=match):
        call()


def test_bad_input_errors_agree_with_torch():
    torch = pytest.importorskip("torch")
    for bad in ([1.0, -1.0], [0.0, 0.0]):
        with pytest.raises(RuntimeError):
            torch.multinomial(torch.tensor(bad), 1)
        with pytest.raises(RuntimeError):
            pyad.multinomial(pyad.tensor(bad), 1)
    with pytest.raises(RuntimeError):
        torch.multinomial(torch.ones(3), 4)
    with pytest.raises(RuntimeError):
        torch.bernoulli(torch.tensor([1.5]))
    with pytest.raises(RuntimeError):
        torch.normal(torch.ones(2), -1.0)


class _Recorder:
    """A profiler that records the names of the ops it is told of."""

    def __init__(self):
        self.names = []

    def op_begin(self, name, args, next_seq):
        self.names.append(name)

    def op_end(self, token, result, seq):
        pass

    def node_begin(self, name, seq):
        pass

    def node_end(self, token, grads):
        pass


def test_ops_keep_their_arguments_under_the_profiler():
    from pyad import _engine
    recorder = _Recorder()
    names = recorder.names
    _engine._set_profiler(recorder)
    try:
        x = pyad.normal(0.0, 1.0, size=(2,), dtype=pyad.float64)
        k = pyad.multinomial(pyad.ones(3), 3, replacement=True)
        z = pyad.bernoulli(pyad.ones(2), 0.0)
    finally:
        _engine._set_profiler(None)
    assert x.dtype == np.float64 and k.shape == (3,) and z.data.sum() == 0
    assert {"normal", "multinomial", "bernoulli"} <= set(names)


def test_normal_with_number_mean_and_std_needs_size():
    with pytest.raises(TypeError, match=r"normal\(\): .*size="):
        pyad.normal(0.0, 1.0)


# -- the stochastic graph -----------------------------------------------------------

def test_samples_carry_a_stochastic_grad_fn():
    p = _leaf([0.3, 0.6])
    z = pyad.bernoulli(p)
    assert type(z.grad_fn).__name__ == "BernoulliBackward" and z.requires_grad
    k = pyad.multinomial(p, 1)
    assert type(k.grad_fn).__name__ == "MultinomialBackward"
    assert not k.requires_grad          # an integer sample never requires grad
    x = pyad.normal(p, 1.0)
    assert type(x.grad_fn).__name__ == "NormalBackward"
    assert x.grad_fn.next_functions[0][0] is not None
    with pyad.no_grad():
        assert pyad.bernoulli(p).grad_fn is None


def test_backward_without_a_reward_raises_clearly():
    p = _leaf([0.3, 0.6])
    z = pyad.bernoulli(p)
    with pytest.raises(RuntimeError, match="BernoulliBackward.*requires a reward.*reinforce"):
        z.backward()
    x = pyad.normal(p, 1.0)
    with pytest.raises(RuntimeError, match="NormalBackward.*reinforce"):
        (x * 2).sum().backward()
    k = pyad.multinomial(p, 1)
    with pytest.raises(RuntimeError, match="MultinomialBackward.*reinforce"):
        k.backward()


def test_reinforce_checks_the_reward():
    p = _leaf([0.3, 0.6])
    z = pyad.bernoulli(p)
    with pytest.raises(RuntimeError, match=r"reinforce\(\): .*shape"):
        z.reinforce(np.ones(3))
    with pytest.raises(RuntimeError, match="reinforce.*stochastic"):
        (p * 2).reinforce(np.ones(2))
    with pytest.raises(RuntimeError, match="reinforce.*stochastic"):
        pyad.bernoulli(p.detach()).reinforce(np.ones(2))


def _torch_surrogate_grad(torch, dist_fn, params, sample, reward):
    tp = [torch.tensor(np.asarray(v), dtype=torch.float64, requires_grad=True) for v in params]
    logp = dist_fn(*tp).log_prob(torch.tensor(sample))
    (-(torch.tensor(reward) * logp).sum()).backward()
    return [t.grad.numpy() for t in tp]


def test_bernoulli_reinforce_gradient_matches_torch_score_function():
    torch = pytest.importorskip("torch")
    pyad.manual_seed(5)
    pv = np.array([[0.1, 0.5, 0.9], [0.0, 1.0, 0.3]])
    p = _leaf(pv)
    z = pyad.bernoulli(p)
    reward = np.array([[1.0, -2.0, 0.5], [3.0, 1.5, -1.0]])
    z.reinforce(reward)
    z.backward()
    # p = 0 or 1 makes torch's log_prob infinite at the impossible outcome; compare the
    # interior exactly and the boundary with the closed form -r * (s/p - (1-s)/(1-p)).
    (expected,) = _torch_surrogate_grad(
        torch, lambda q: torch.distributions.Bernoulli(probs=q), [pv[0]], z.data[0],
        reward[0])
    np.testing.assert_allclose(p.grad.data[0], expected, rtol=1e-12)
    s = z.data[1]
    assert s[0] == 0.0 and s[1] == 1.0
    np.testing.assert_allclose(p.grad.data[1, :2], [3.0 * 1.0, -1.5 / 1.0])


def test_normal_reinforce_gradient_matches_torch_score_function():
    torch = pytest.importorskip("torch")
    pyad.manual_seed(6)
    mv, sv = np.array([[0.0, 1.0, -2.0]]), np.array([0.5, 1.0, 2.0])
    mean, std = _leaf(mv), _leaf(sv)
    x = pyad.normal(mean, std)
    reward = np.array([[1.0, -0.5, 2.0]])
    x.reinforce(reward)
    x.backward()
    gm, gs = _torch_surrogate_grad(torch, torch.distributions.Normal, [mv, sv], x.data,
                                   reward)
    np.testing.assert_allclose(mean.grad.data, gm, rtol=1e-12)
    np.testing.assert_allclose(std.grad.data, gs, rtol=1e-12)
    # mean only, std a number
    mean2 = _leaf(mv)
    y = pyad.normal(mean2, 0.5)
    y.reinforce(reward)
    y.backward()
    (gm2,) = _torch_surrogate_grad(torch, lambda m: torch.distributions.Normal(m, 0.5),
                                   [mv], y.data, reward)
    np.testing.assert_allclose(mean2.grad.data, gm2, rtol=1e-12)


@pytest.mark.parametrize("replacement", [True, False])
@pytest.mark.parametrize("one_d", [True, False])
def test_multinomial_reinforce_gradient_matches_torch_score_function(replacement, one_d):
    torch = pytest.importorskip("torch")
    pyad.manual_seed(7)
    # positive weights: torch's Categorical clamps a zero probability, which cuts the
    # normalisation's gradient to that weight (see the zero-weight test below)
    wv = np.array([[1.0, 2.0, 3.0, 4.0], [0.5, 0.25, 2.0, 1.5]])
    if one_d:
        wv = wv[0]
    w = _leaf(wv)
    k = pyad.multinomial(w, 3, replacement=replacement)
    reward = np.arange(1.0, 1.0 + k.data.size).reshape(k.shape) * np.array([1, -1, 0.5])
    k.reinforce(reward)
    k.backward()
    tw = torch.tensor(wv, requires_grad=True)
    rows_w = tw if not one_d else tw.unsqueeze(0)
    rows_k = torch.tensor(k.data).reshape(rows_w.shape[0], -1)
    rows_r = torch.tensor(reward).reshape(rows_k.shape)
    total = 0
    for r in range(rows_w.shape[0]):
        left = rows_w[r]
        for i in range(rows_k.shape[1]):
            # each draw: log of a categorical over what is left (torch normalises probs)
            logp = torch.distributions.Categorical(probs=left).log_prob(rows_k[r, i])
            total = total - rows_r[r, i] * logp
            if not replacement:
                left = left * (torch.arange(left.shape[0]) != rows_k[r, i])
    total.backward()
    np.testing.assert_allclose(w.grad.data, tw.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_multinomial_gradient_for_a_zero_weight_is_the_normalisation_term():
    # log p(k_i | k_<i) = log w[k_i] - log(S - sum of earlier draws): a weight never
    # drawn gets +sum_i reward_i / left_i (independent values worked by hand).
    pyad.manual_seed(7)
    w = _leaf([0.5, 0.0, 2.0, 1.5])
    k = pyad.multinomial(w, 3)
    assert sorted(k.data) == [0, 2, 3]
    reward = np.array([4.0, -5.0, 3.0])
    k.reinforce(reward)
    k.backward()
    wv = np.array([0.5, 0.0, 2.0, 1.5])
    left = 4.0 - np.concatenate([[0.0], np.cumsum(wv[k.data])[:-1]])
    assert w.grad.data[1] == pytest.approx(np.sum(reward / left), rel=1e-12)


def test_reinforce_second_derivative_matches_torch():
    torch = pytest.importorskip("torch")
    pyad.manual_seed(8)
    pv = np.array([0.2, 0.7, 0.4])
    p = _leaf(pv)
    z = pyad.bernoulli(p)
    reward = np.array([1.0, 2.0, -1.0])
    z.reinforce(reward)
    (g,) = autograd.grad(z, p, create_graph=True)
    (gg,) = autograd.grad((g * g).sum(), p)
    tp = torch.tensor(pv, requires_grad=True)
    logp = torch.distributions.Bernoulli(probs=tp).log_prob(torch.tensor(z.data))
    (tg,) = torch.autograd.grad(-(torch.tensor(reward) * logp).sum(), tp, create_graph=True)
    (tgg,) = torch.autograd.grad((tg * tg).sum(), tp)
    np.testing.assert_allclose(g.data, tg.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(gg.data, tgg.numpy(), rtol=1e-12)


# -- the estimator's mean against the analytic gradient -----------------------------

def test_bernoulli_estimator_mean_matches_analytic_gradient():
    # f(x) = (x - c)^2, E[f] = p f(1) + (1 - p) f(0), so d/dp E[f] = f(1) - f(0).
    # One sample of the estimator, g = -f(x) * score, has E[g] = -(f(1) - f(0)) and
    # E[g^2] = f(1)^2 / p + f(0)^2 / (1 - p).
    pyad.manual_seed(9)
    n = 40000
    pv = np.array([0.2, 0.5, 0.8])
    c = np.array([0.3, -1.0, 2.0])
    p = _leaf(pv)
    z = pyad.bernoulli(p.expand(n, 3))
    z.reinforce((z.data - c) ** 2)
    z.backward()
    f1, f0 = (1 - c) ** 2, c ** 2
    mean = -(f1 - f0)
    var = f1 ** 2 / pv + f0 ** 2 / (1 - pv) - mean ** 2
    assert np.all(np.abs(p.grad.data / n - mean) < 5 * np.sqrt(var / n))


def test_categorical_estimator_mean_matches_analytic_gradient():
    # E[f(k)] = sum_k w_k f(k) / S; at S = 1, dE/dw_j = f(j) - E[f]. One sample of the
    # estimator for w_j is g_j = -f(k) (1[j = k] / w_k - 1).
    pyad.manual_seed(10)
    n = 40000
    wv = np.array([0.1, 0.2, 0.3, 0.4])
    f = np.array([1.0, -2.0, 0.5, 3.0])
    w = _leaf(wv)
    k = pyad.multinomial(w.expand(n, 4), 1, replacement=True)
    k.reinforce(f[k.data])
    k.backward()
    mean = -(f - np.dot(wv, f))
    second = np.array([sum(wv[m] * f[m] ** 2 * ((j == m) / wv[m] - 1) ** 2
                           for m in range(4)) for j in range(4)])
    var = second - mean ** 2
    assert np.all(np.abs(w.grad.data / n - mean) < 5 * np.sqrt(var / n))


# -- graphs through samples ---------------------------------------------------------

def test_loss_through_a_sample_reaches_its_reward_and_other_leaves():
    pyad.manual_seed(11)
    x = _leaf(np.random.default_rng(0).standard_normal((2, 5)))
    y = _leaf(np.random.default_rng(1).standard_normal((2, 5)))
    z = pyad.normal(x + 2, 2.0)
    o = z + y
    reward = np.random.default_rng(2).standard_normal((2, 5))
    z.reinforce(reward)
    o.sum().backward()
    np.testing.assert_array_equal(y.grad.data, np.ones((2, 5)))
    # the gradient arriving at z is discarded; the reward's term reaches x
    np.testing.assert_allclose(x.grad.data, -reward * (z.data - x.data - 2) / 4.0)


def test_a_sample_of_samples_needs_no_reward_of_its_own():
    # n2's parameters depend on the leaves only through the sample b, whose gradient
    # is discarded: n2 needs no reward, b's reward still reaches x.
    pyad.manual_seed(12)
    x = _leaf([0.2, 0.5, 0.8])
    b = x.bernoulli()
    n1 = pyad.normal(b, x)
    n2 = pyad.normal(n1, 2.0)
    b.reinforce(np.array([1.0, 2.0, 3.0]))
    n1.reinforce(np.array([0.5, 0.5, 0.5]))
    n2.sum().backward()
    assert np.abs(x.grad.data).sum() > 0


def test_reward_is_used_once_unless_the_graph_is_retained():
    pyad.manual_seed(13)
    p = _leaf([0.4, 0.6])
    z = pyad.bernoulli(p)
    z.reinforce(np.ones(2))
    z.backward(retain_graph=True)
    first = p.grad.data.copy()
    z.backward()
    np.testing.assert_allclose(p.grad.data, 2 * first)
    with pytest.raises(RuntimeError):
        z.backward()


def test_autograd_backward_takes_several_samples_with_none_gradients():
    pyad.manual_seed(14)
    w = _leaf([[1.0, 2.0, 3.0]])
    k = pyad.multinomial(w, 2)
    x = pyad.normal(w, 1.0)
    k.reinforce(np.ones((1, 2)))
    x.reinforce(np.ones((1, 3)))
    autograd.backward([k, x], [None, None])
    assert w.grad is not None and np.isfinite(w.grad.data).all()


def test_normal_of_numbers_takes_a_device():
    pyad.manual_seed(3)
    a = pyad.normal(1.0, 2.0, (4,), device="cpu")
    pyad.manual_seed(3)
    b = pyad.normal(1.0, 2.0, (4,))
    assert isinstance(a.data, np.ndarray)
    np.testing.assert_array_equal(a.data, b.data)


def test_normal_device_needs_a_gpu_or_says_so():
    try:
        import cupy  # noqa: F401
        pytest.skip("CuPy is installed: the GPU test covers device='cuda'")
    except ImportError:
        pass
    with pytest.raises(RuntimeError, match=r"normal\(\): device 'cuda' needs CuPy"):
        pyad.normal(0.0, 1.0, (2,), device="cuda")


def test_normal_device_is_refused_with_variable_parameters():
    with pytest.raises(TypeError, match=r"normal\(\): device= is only taken"):
        pyad.normal(pyad.zeros(2), 1.0, device="cpu")


# -- generator= (torch's keyword on every random op) ----------------------------------

GENERATOR_DRAWS = {
    "bernoulli": lambda g: pyad.bernoulli(pyad.tensor(np.linspace(0.0, 1.0, 50)), generator=g),
    "bernoulli_p": lambda g: pyad.bernoulli(pyad.zeros(50, dtype=pyad.float64), 0.5,
                                            generator=g),
    "bernoulli_method": lambda g: pyad.tensor(np.full(50, 0.5)).bernoulli(generator=g),
    "multinomial": lambda g: pyad.multinomial(pyad.tensor(np.arange(1.0, 9.0)), 5,
                                              generator=g),
    "multinomial_replacement": lambda g: pyad.multinomial(
        pyad.tensor(np.ones((3, 4))), 6, replacement=True, generator=g),
    "normal_numbers": lambda g: pyad.normal(2.0, 3.0, size=(20,), generator=g),
    "normal_variables": lambda g: pyad.normal(pyad.zeros(20, dtype=pyad.float64),
                                              pyad.ones(20, dtype=pyad.float64), generator=g),
    "uniform_": lambda g: pyad.zeros(20, dtype=pyad.float64).uniform_(-1.0, 1.0, generator=g),
    "uniform_function": lambda g: pyad.uniform_(pyad.zeros(20, dtype=pyad.float64),
                                                generator=g),
    "normal_": lambda g: pyad.zeros(20, dtype=pyad.float64).normal_(0.0, 1.0, generator=g),
}


@pytest.mark.parametrize("name", list(GENERATOR_DRAWS))
def test_a_generator_drives_the_draw_and_leaves_the_global_stream_alone(name):
    draw = GENERATOR_DRAWS[name]
    pyad.manual_seed(5)
    expected_global = pyad.rand(8).data            # the global stream's next numbers
    pyad.manual_seed(5)
    first = draw(pyad.Generator().manual_seed(11)).data
    second = draw(pyad.Generator().manual_seed(11)).data
    np.testing.assert_array_equal(first, second)   # same seed, same stream
    # the global stream did not advance
    np.testing.assert_array_equal(pyad.rand(8).data, expected_global)
    g = pyad.Generator().manual_seed(11)
    draws = [draw(g).data for _ in range(4)]       # the generator's stream moves on
    np.testing.assert_array_equal(draws[0], first)
    assert any(not np.array_equal(d, first) for d in draws[1:])
    # and a generator seeded otherwise gives other numbers
    others = [draw(pyad.Generator().manual_seed(s)).data for s in (12, 13, 14, 15)]
    assert any(not np.array_equal(o, first) for o in others)


@pytest.mark.parametrize("name", list(GENERATOR_DRAWS))
def test_a_generator_draw_matches_the_global_draw_under_the_same_seed(name):
    draw = GENERATOR_DRAWS[name]
    pyad.manual_seed(21)
    from_global = draw(None).data
    np.testing.assert_array_equal(draw(pyad.Generator().manual_seed(21)).data, from_global)


@pytest.mark.parametrize("call", [
    lambda: pyad.bernoulli(pyad.ones(2), generator=3),
    lambda: pyad.normal(0.0, 1.0, size=(2,), generator="g"),
    lambda: pyad.zeros(2).uniform_(generator=object()),
])
def test_a_generator_that_is_not_a_generator_is_refused(call):
    with pytest.raises(TypeError, match=r"^\w+\(\): generator must be a pyad.Generator"):
        call()


def test_the_generator_keyword_matches_torch_signatures():
    torch = pytest.importorskip("torch")
    g = torch.Generator().manual_seed(0)
    # torch takes generator= as a keyword on each of these; so does pyad
    torch.bernoulli(torch.ones(2), generator=g)
    torch.multinomial(torch.ones(3), 2, generator=g)
    torch.normal(0.0, 1.0, size=(2,), generator=g)
    torch.zeros(2).uniform_(generator=g).normal_(generator=g)
    pg = pyad.Generator().manual_seed(0)
    pyad.bernoulli(pyad.ones(2), generator=pg)
    pyad.multinomial(pyad.ones(3), 2, generator=pg)
    pyad.normal(0.0, 1.0, size=(2,), generator=pg)
    pyad.zeros(2).uniform_(generator=pg).normal_(generator=pg)
    with pytest.raises(TypeError):       # keyword-only, as in torch
        pyad.zeros(2).uniform_(0.0, 1.0, pg)


def test_a_generator_draw_keeps_its_generator_under_the_profiler():
    from pyad import _engine
    expected = {name: draw(pyad.Generator().manual_seed(3)).data
                for name, draw in GENERATOR_DRAWS.items()}
    recorder = _Recorder()
    _engine._set_profiler(recorder)
    try:
        got = {name: draw(pyad.Generator().manual_seed(3)).data
               for name, draw in GENERATOR_DRAWS.items()}
    finally:
        _engine._set_profiler(None)
    for name in expected:
        np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
    assert {"bernoulli", "multinomial", "normal", "uniform_", "normal_"} <= set(recorder.names)
