"""The ported PyTorch scripts (examples/ported/) run on torch and on pyad from the same
initial weights and inputs and give the same loss at every step (float32 tolerance).

Each script is ``run(torch, ...)`` of a namespace. The test runs it once with torch,
recording the initial state_dict, then with pyad, loading that state_dict first. Where a
script draws random numbers inside its loop (dropout masks, the VAE's noise), both runs
get them from the same NumPy stream through a thin proxy of the namespace.
"""
import importlib.util
import os
import subprocess
import sys
import types

import numpy as np
import pytest

import pyad

torch = pytest.importorskip("torch")

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PORTED = os.path.join(REPO_ROOT, "examples", "ported")
PYAD_HOME = os.path.dirname(os.path.dirname(os.path.abspath(pyad.__file__)))


def load(name):
    spec = importlib.util.spec_from_file_location("ported_" + name,
                                                  os.path.join(PORTED, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Proxy(types.SimpleNamespace):
    """``lib`` with some attributes replaced (the rest looked up on ``lib``)."""

    def __init__(self, lib, **overrides):
        super().__init__(**overrides)
        self._lib = lib

    def __getattr__(self, name):
        return getattr(self.__dict__["_lib"], name)


def seeded(lib, seed=0):
    """``lib`` whose dropout masks, ``Categorical`` samples and ``randn``/``randn_like``/
    ``randint`` draws come from a NumPy stream: the same numbers for torch and pyad."""
    rng = np.random.default_rng(seed)

    def noise(shape, dtype):
        return lib.tensor(rng.standard_normal(tuple(shape)),
                          dtype=dtype if dtype is not None else lib.get_default_dtype())

    class Dropout(lib.nn.Module):
        def __init__(self, p=0.5, inplace=False):
            super().__init__()
            self.p = p

        def forward(self, x):
            if not self.training or self.p == 0:
                return x
            keep = (rng.random(tuple(x.shape)) >= self.p) / (1.0 - self.p)
            return x * lib.tensor(keep, dtype=x.dtype)

    class Dropout2d(Dropout):
        # torch's feature dropout: one draw per entry of the first two dimensions (a 2-D
        # input, as mnist_rnn's, elementwise)
        def forward(self, x):
            if not self.training or self.p == 0:
                return x
            shape = tuple(x.shape[:2]) + (1,) * (x.dim() - 2)
            keep = (rng.random(shape) >= self.p) / (1.0 - self.p)
            return x * lib.tensor(keep, dtype=x.dtype)

    def dropout(x, p=0.5, training=True, inplace=False):
        return Dropout(p).train(training)(x)

    class Categorical(lib.distributions.Categorical):
        def sample(self, sample_shape=()):
            # the inverse CDF of a shared uniform draw: the same action in both runs
            probs = self.probs.detach().numpy()
            u = rng.random(tuple(sample_shape) + probs.shape[:-1] + (1,))
            index = np.minimum((np.cumsum(probs, -1) < u).sum(-1), probs.shape[-1] - 1)
            return lib.tensor(index, dtype=lib.int64)

    def randint(low, high=None, size=None, **kw):
        if high is None:
            low, high = 0, low
        return lib.tensor(rng.integers(low, high, tuple(size)),
                          dtype=kw.get("dtype") or lib.int64)

    functional = Proxy(lib.nn.functional, dropout=dropout)
    nn = Proxy(lib.nn, Dropout=Dropout, Dropout2d=Dropout2d, functional=functional)
    distributions = Proxy(lib.distributions, Categorical=Categorical)
    return Proxy(lib, nn=nn, distributions=distributions, randint=randint,
                 randn_like=lambda t, **kw: noise(t.shape, kw.get("dtype") or t.dtype),
                 randn=lambda *size, **kw: noise(size[0] if len(size) == 1 and
                                                 isinstance(size[0], (tuple, list))
                                                 else size, kw.get("dtype")))


def twin_runs(module, rtol=2e-4, atol=2e-5, proxy=False, **options):
    """Run ``module.run`` on torch then on pyad (same initial weights); compare losses."""
    state = {}

    def record(model):
        state.update({k: v.detach().numpy().copy() for k, v in model.state_dict().items()})

    def restore(model):
        assert list(model.state_dict()) == list(state), (list(model.state_dict()),
                                                         list(state))
        model.load_state_dict({k: pyad.tensor(v) for k, v in state.items()})

    t_lib = seeded(torch) if proxy else torch
    p_lib = seeded(pyad) if proxy else pyad
    t_losses = module.run(t_lib, init=record, log=lambda *a: None, **options)
    p_losses = module.run(p_lib, init=restore if state else None, log=lambda *a: None,
                          **options)
    assert len(t_losses) == len(p_losses) > 0
    np.testing.assert_allclose(p_losses, t_losses, rtol=rtol, atol=atol)
    return t_losses, p_losses


AGREEMENT = {}


@pytest.fixture(scope="module", autouse=True)
def _report():
    yield
    if AGREEMENT:
        width = max(len(k) for k in AGREEMENT)
        lines = ["%-*s  %3d steps, largest loss difference %.2e (relative %.2e)"
                 % (width, k, n, d, r) for k, (n, d, r) in sorted(AGREEMENT.items())]
        sys.stdout.write("\nported scripts vs torch:\n" + "\n".join(lines) + "\n")


def _agree(name, t, p):
    diff = np.abs(np.subtract(t, p))
    AGREEMENT[name] = (len(t), float(diff.max()), float((diff / np.abs(t)).max()))


@pytest.mark.parametrize("model_type", ["LSTM", "GRU", "RNN_TANH", "Transformer"])
def test_word_language_model(model_type):
    # dropout 0: the recurrent layers' and the Transformer's own dropout draw from each
    # framework's generator, which cannot agree
    t, p = twin_runs(load("word_language_model"), model_type=model_type, dropout=0.0,
                     steps=6)
    _agree("word_language_model " + model_type, t, p)


def test_word_language_model_with_dropout_and_tied_weights():
    t, p = twin_runs(load("word_language_model"), proxy=True, model_type="LSTM",
                     dropout=0.3, nlayers=1, tied=True, steps=4)
    _agree("word_language_model LSTM tied, dropout", t, p)


def test_vae():
    t, p = twin_runs(load("vae"), proxy=True)
    _agree("vae", t, p)


def test_reinforce():
    t, p = twin_runs(load("reinforce"), proxy=True)
    _agree("reinforce", t, p)


def test_regression():
    t, p = twin_runs(load("regression"))
    _agree("regression", t, p)


@pytest.mark.skipif(not hasattr(pyad.optim, "Adadelta"),
                    reason="waits for pyad.optim.Adadelta (another branch)")
def test_mnist():
    t, p = twin_runs(load("mnist"), proxy=True)
    _agree("mnist", t, p)


@pytest.mark.skipif(not hasattr(pyad.optim, "LBFGS"),
                    reason="waits for pyad.optim.LBFGS (another branch)")
def test_time_sequence_prediction():
    t, p = twin_runs(load("time_sequence_prediction"), rtol=1e-7, atol=1e-9)
    _agree("time_sequence_prediction", t, p)


def test_time_sequence_prediction_model_with_sgd():
    # the same Sequence model (two LSTMCells, float64) trained by SGD, which exists on
    # every branch
    t, p = twin_runs(load("time_sequence_prediction"), optimizer="SGD", rtol=1e-7,
                     atol=1e-9)
    _agree("time_sequence_prediction (SGD)", t, p)


@pytest.mark.parametrize("name", ["polynomial_tensor", "polynomial_autograd",
                                  "polynomial_custom_function", "polynomial_nn",
                                  "polynomial_module", "dynamic_net"])
def test_tutorial(name):
    t, p = twin_runs(load(name))
    _agree(name, t, p)


@pytest.mark.skipif(not hasattr(pyad.optim, "RMSprop"),
                    reason="waits for pyad.optim.RMSprop (another branch)")
def test_polynomial_optim():
    t, p = twin_runs(load("polynomial_optim"))
    _agree("polynomial_optim", t, p)


def test_dcgan():
    # BCELoss of the discriminator and generator, BatchNorm2d in training mode, the noise
    # from the shared stream
    t, p = twin_runs(load("dcgan"), proxy=True)
    _agree("dcgan", t, p)


def test_super_resolution():
    t, p = twin_runs(load("super_resolution"))
    _agree("super_resolution", t, p)


def test_actor_critic():
    t, p = twin_runs(load("actor_critic"), proxy=True)
    _agree("actor_critic", t, p)


def test_mnist_forward_forward():
    # the negative labels come from torch.randint: drawn from the shared stream
    t, p = twin_runs(load("mnist_forward_forward"), proxy=True)
    _agree("mnist_forward_forward", t, p)


def test_mnist_rnn():
    # Dropout2d of the LSTM's 2-D output: elementwise masks from the shared stream
    t, p = twin_runs(load("mnist_rnn"), proxy=True)
    _agree("mnist_rnn", t, p)


def test_vision_transformer():
    # dropout 0: nn.MultiheadAttention's own dropout draws from each framework's
    # generator, which cannot agree
    t, p = twin_runs(load("vision_transformer"), dropout=0.0)
    _agree("vision_transformer", t, p)


def test_fast_neural_style():
    t, p = twin_runs(load("fast_neural_style"))
    _agree("fast_neural_style", t, p)


def test_every_ported_script_is_tested():
    # (a leading "_" marks a helper module, as _rl_envs.py, the minimalRL environments)
    scripts = sorted(f[:-3] for f in os.listdir(PORTED)
                     if f.endswith(".py") and not f.startswith("_"))
    assert scripts == sorted([
        "word_language_model", "vae", "regression", "mnist", "time_sequence_prediction",
        "polynomial_tensor", "polynomial_autograd", "polynomial_custom_function",
        "polynomial_nn", "polynomial_optim", "polynomial_module", "dynamic_net", "reinforce",
        "dcgan", "super_resolution", "actor_critic", "mnist_forward_forward", "mnist_rnn",
        "vision_transformer", "fast_neural_style",
        # the second batch, tested in tests/test_ported_examples_2.py
        "gcn", "gat", "mass_spring", "siamese_network", "language_translation",
        # the third batch (pytorch/tutorials), tested in tests/test_ported_examples_3.py
        "cifar10_tutorial", "nn_tutorial", "char_rnn_classification",
        "char_rnn_generation", "seq2seq_translation",
        # the fourth batch (pytorch/tutorials on autograd), tests/test_ported_examples_4.py
        "autograd_tutorial", "autogradqs_tutorial", "forward_ad_usage",
        "custom_function_double_backward", "custom_function_conv_bn",
        "autograd_saved_tensors_hooks",
        # the fifth batch (pytorch/tutorials: torch.func and the nn basics), tested in
        # tests/test_ported_examples_5.py
        "jacobians_hessians", "per_sample_grads", "neural_tangent_kernels", "ensembling",
        "neural_networks_tutorial", "buildmodel_tutorial", "optimization_tutorial",
        "tensorqs_tutorial",
        # the sixth batch (pytorch/tutorials: Deep Learning for NLP with PyTorch), tested
        # in tests/test_ported_examples_6.py
        "nlp_pytorch_tutorial", "deep_learning_tutorial", "word_embeddings_tutorial",
        "sequence_models_tutorial", "advanced_tutorial",
        # the seventh batch (pytorch/tutorials), tested in tests/test_ported_examples_7.py
        "spatial_transformer",
        "saving_loading_models",
        "reinforcement_q_learning",
        "transformer_tutorial",
        # the eighth batch (pytorch/tutorials: Introduction to PyTorch, introyt), tested
        # in tests/test_ported_examples_8.py
        "tensors_deeper_tutorial",
        "autogradyt_tutorial",
        "modelsyt_tutorial",
        "trainingyt",
        "quickstart_tutorial",
        # the ninth batch (pytorch/tutorials: recipes, FGSM, parametrizations), tested in
        # tests/test_ported_examples_9.py
        "defining_a_neural_network",
        "what_is_state_dict",
        "zeroing_out_gradients",
        "saving_and_loading_a_general_checkpoint",
        "saving_multiple_models_in_one_file",
        "warmstarting_model_using_parameters_from_a_different_model",
        "fgsm_tutorial",
        "parametrizations",
        "module_load_state_dict_tips",
        "amp_recipe",
        "knowledge_distillation_tutorial",
        # the tenth batch (karpathy/nanoGPT, makemore, minGPT, llama2.c; MIT), tested in
        # tests/test_ported_examples_10.py
        "nanogpt",
        "makemore",
        "mingpt",
        "llama2c",
        # the fourteenth batch (pytorch/tutorials: leaf tensors, DataParallel, optimizer
        # in backward, scaled dot product attention, chatbot, visualizing gradients, profiler),
        # tested in tests/test_ported_examples_14.py
        "understanding_leaf_vs_nonleaf_tutorial",
        "data_parallel_tutorial",
        "optimizer_step_in_backward_tutorial",
        "scaled_dot_product_attention_tutorial",
        "chatbot_tutorial",
        "visualizing_gradients_tutorial",
        "profiler_recipe",
        # the twelfth batch (pytorch/tutorials: pruning, benchmark), tested in
        # tests/test_ported_examples_12.py
        "pruning_tutorial",
        "benchmark_recipe",
        # the eleventh batch (MIT: yunjey/pytorch-tutorial, MorvanZhou/PyTorch-Tutorial),
        # tested in tests/test_ported_examples_11.py
        "yunjey_pytorch_basics",
        "yunjey_linear_regression",
        "yunjey_logistic_regression",
        "yunjey_feedforward_neural_network",
        "yunjey_convolutional_neural_network",
        "yunjey_deep_residual_network",
        "yunjey_recurrent_neural_network",
        "yunjey_bidirectional_recurrent_neural_network",
        "yunjey_language_model",
        "yunjey_generative_adversarial_network",
        "yunjey_variational_autoencoder",
        "morvan_201_torch_numpy",
        "morvan_202_variable",
        "morvan_203_activation",
        "morvan_301_regression",
        "morvan_302_classification",
        "morvan_303_build_nn_quickly",
        "morvan_304_save_reload",
        "morvan_305_batch_train",
        "morvan_306_optimizer",
        "morvan_401_CNN",
        "morvan_402_RNN_classifier",
        "morvan_403_RNN_regressor",
        "morvan_404_autoencoder",
        "morvan_406_GAN",
        "morvan_406_conditional_GAN",
        "morvan_501_why_torch_dynamic_graph",
        "morvan_503_dropout",
        "morvan_504_batch_normalization",
        # the thirteenth batch (pytorch/examples: hogwild), tests/test_ported_examples_13.py
        "mnist_hogwild",
        # the sixteenth batch (MIT: seungeunrho/minimalRL), tests/test_ported_examples_16.py
        "minimalrl_reinforce",
        "minimalrl_actor_critic",
        "minimalrl_dqn",
        "minimalrl_ppo",
        "minimalrl_ppo_lstm",
        "minimalrl_ddpg",
        "minimalrl_sac",
        "minimalrl_vtrace",
        "minimalrl_acer",
        "minimalrl_a2c",
        # the fifteenth batch (karpathy/nn-zero-to-hero's makemore notebooks; MIT), tested
        # in tests/test_ported_examples_15.py
        "zth_part1_bigrams",
        "zth_part2_mlp",
        "zth_part3_bn",
        "zth_part4_backprop",
        "zth_part5_wavenet",
        "zth_micrograd",
        # the seventeenth batch (MIT: eriklindernoren/PyTorch-GAN, harvardnlp/
        # annotated-transformer), tested in
        # tests/test_ported_examples_17.py
        "pytorch_gan_gan",
        "pytorch_gan_wgan",
        "pytorch_gan_wgan_gp",
        "pytorch_gan_lsgan",
        "pytorch_gan_cgan",
        "pytorch_gan_wgan_div",
        "pytorch_gan_infogan",
        "pytorch_gan_softmax_gan",
        "annotated_transformer",
        # the eighteenth batch (kuangliu/pytorch-cifar), tests/test_ported_examples_18.py
        "pytorch_cifar",
        # the nineteenth batch (MIT: graykode/nlp-tutorial), tests/test_ported_examples_19.py
        "graykode_nnlm",
        "graykode_word2vec_skipgram",
        "graykode_textcnn",
        "graykode_textrnn",
        "graykode_textlstm",
        "graykode_bi_lstm",
        "graykode_seq2seq",
        "graykode_seq2seq_attention",
        "graykode_bi_lstm_attention",
        "graykode_transformer",
        "graykode_transformer_greedy_decoder",
        "graykode_bert",
        # the twentieth batch (MIT: aladdinpersson/Machine-Learning-Collection),
        # tests/test_ported_examples_20.py
        "aladdin_tensorbasics",
        "aladdin_simple_fullynet",
        "aladdin_simple_CNN",
        "aladdin_rnn_gru_lstm",
        "aladdin_init_weights",
        "aladdin_lr_ratescheduler",
        "aladdin_loadsave",
        "aladdin_std_mean",
        "aladdin_wgan_gp",
        "aladdin_cnn_architectures",
        "aladdin_fc_gan",
        "aladdin_tensor_operations",
        # the twenty-second batch (MIT: karpathy/pytorch-made),
        # tests/test_ported_examples_22.py
        "made_run",
        # the twenty-third batch (MIT: karpathy/ng-video-lecture, karpathy/build-nanogpt),
        # tests/test_ported_examples_23.py
        "ngvl_bigram",
        "ngvl_gpt",
        "build_nanogpt",
        # the twenty-first batch (MIT: openai/spinningup), tests/test_ported_examples_21.py
        "spinup_vpg",
        "spinup_ppo",
        "spinup_ddpg",
        "spinup_td3",
        "spinup_sac",
        # the twenty-fourth batch (MIT: bentrevett/pytorch-seq2seq,
        # bentrevett/pytorch-sentiment-analysis), tests/test_ported_examples_24.py
        "bentrevett_seq2seq",
        "bentrevett_gru",
        "bentrevett_attention",
        "bentrevett_packed",
        "bentrevett_convseq2seq",
        "bentrevett_transformer",
        "bentrevett_nbow",
        "bentrevett_lstm",
        "bentrevett_cnn",
        # the twenty-fifth batch (MIT: rasbt/deeplearning-models),
        # tests/test_ported_examples_25.py
        "rasbt_softmax_regression",
        "rasbt_logistic_regression",
        "rasbt_mlp_batchnorm",
        "rasbt_mlp_dropout",
        "rasbt_autoencoder",
        "rasbt_lenet5",
        "rasbt_gan",
        # the twenty-sixth batch (pytorch/examples: distributed/ddp-tutorial-series),
        # tests/test_ported_examples_26.py
        "ddp_tutorial_series",
        # the twenty-seventh batch (MIT: rasbt/machine-learning-book),
        # tests/test_ported_examples_27.py
        "mlbook_xor_modules",
        "mlbook_self_attention",
        "mlbook_char_rnn",
        "mlbook_smile_cnn",
        "mlbook_gan",
        "mlbook_dqn",
        ])


@pytest.mark.parametrize("name,args,expected", [
    ("word_language_model", ["--steps", "2"], "last loss"),
    ("polynomial_autograd", [], "Result: y ="),
    ("reinforce", [], "Episode 20"),
    ("actor_critic", [], "Episode 20"),
    ("dcgan", [], "last Loss_D"),
    ("mnist_rnn", [], "Test set: Average loss"),
    ("vision_transformer", [], "Valid Loss :"),
    ("minimalrl_ppo", [], "last loss"),
    ("minimalrl_a2c", [], "Step # :500")])
def test_scripts_run_as_scripts_on_pyad(name, args, expected):
    env = dict(os.environ, PYTHONPATH=PYAD_HOME, OPENBLAS_NUM_THREADS="1",
               OMP_NUM_THREADS="1")
    proc = subprocess.run([sys.executable, os.path.join(PORTED, name + ".py"), *args],
                          cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert expected in proc.stdout, proc.stdout
