"""Recurrent layers: `RNN`, `LSTM`, `GRU` and their cells, as ``torch.nn``.

Parameter names, shapes, order and initialisation are torch's (``weight_ih_l0``,
``weight_hh_l0_reverse``, ``bias_ih_l1``, ``weight_hr_l0`` with ``proj_size``), so a
torch ``state_dict`` loads. A layer multiplies the whole input sequence by ``weight_ih``
in one product, then runs the time steps; an LSTM step is one fused autograd node
(`_LSTMStep`) whose backward is written on arrays, and which falls back to
differentiable pyad ops when the backward itself is recorded (``create_graph=True``), so
second derivatives work.

>>> import pyad
>>> lstm = pyad.nn.LSTM(input_size=4, hidden_size=3, num_layers=2)
>>> out, (h, c) = lstm(pyad.randn(5, 2, 4))       # (seq, batch, feature)
>>> out.shape, h.shape, c.shape
((5, 2, 3), (2, 2, 3), (2, 2, 3))
"""
import math
import numbers

import numpy as _np

import pyad
from pyad._engine import Variable, matmul
from pyad.autograd import Function
from pyad.nn import functional as F
from pyad.nn import init
from pyad.nn.modules import Module, _factory
from pyad.nn.parameter import Parameter
from pyad.nn.utils.rnn import PackedSequence, _host_ints

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


# -- fused nodes ---------------------------------------------------------------------


def _sigmoid(xp, x):
    return 0.5 * (xp.tanh(0.5 * x) + 1.0)


class _SplitRows(Function):
    """Split ``x`` along dim 0 into pieces of the given sizes; one node whose backward
    concatenates (``Variable.split`` gives one node per piece, each of whose backward
    fills a zero array of the full size)."""

    @staticmethod
    def forward(ctx, x, sizes):
        ctx.sizes = sizes
        out = []
        offset = 0
        data = x.data
        for n in sizes:
            out.append(Variable(data[offset:offset + n]))
            offset += n
        return tuple(out)

    @staticmethod
    def backward(ctx, *grads):
        if pyad.is_grad_enabled():
            return pyad.cat(list(grads), 0), None
        xp = pyad.get_array_module(grads[0].data)
        return Variable(xp.concatenate([g.data for g in grads], 0)), None


def _split_rows(x, sizes):
    if len(sizes) == 1:
        return (x,)
    return _SplitRows.apply(x, tuple(sizes))


def _lstm_pointwise(gates, c):
    """``(h, c')`` of an LSTM step from its pre-activation ``gates`` with pyad ops."""
    i, f, g, o = gates.chunk(4, 1)
    c_next = f.sigmoid() * c + i.sigmoid() * g.tanh()
    return o.sigmoid() * c_next.tanh(), c_next


class _LSTMStep(Function):
    """One LSTM time step ``(xw, h, c, w_hh) -> (h', c')`` with
    ``gates = xw + h @ w_hh.T`` (``xw`` holds ``x @ w_ih.T + b_ih + b_hh``)."""

    @staticmethod
    def forward(ctx, xw, h, c, w_hh):
        xp = pyad.get_array_module(xw.data)
        gates = xw.data + h.data @ w_hh.data.T
        H = c.shape[1]
        i = _sigmoid(xp, gates[:, :H])
        f = _sigmoid(xp, gates[:, H:2 * H])
        g = xp.tanh(gates[:, 2 * H:3 * H])
        o = _sigmoid(xp, gates[:, 3 * H:])
        c_next = f * c.data + i * g
        tc = xp.tanh(c_next)
        ctx.save_for_backward(xw, h, c, w_hh)
        ctx.acts = (i, f, g, o, tc)
        return Variable(o * tc), Variable(c_next)

    @staticmethod
    def backward(ctx, grad_h, grad_c):
        xw, h, c, w_hh = ctx.saved_tensors
        if pyad.is_grad_enabled():
            # create_graph=True: the same derivative written with pyad ops, so that it is
            # recorded and can be differentiated again.
            gates = xw + matmul(h, w_hh.t())
            i, f, g, o = [t for t in gates.chunk(4, 1)]
            i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
            c_next = f * c + i * g
            tc = c_next.tanh()
            dc = grad_c + grad_h * o * (1 - tc * tc)
            dgates = pyad.cat([dc * g * i * (1 - i), dc * c * f * (1 - f),
                               dc * i * (1 - g * g), grad_h * tc * o * (1 - o)], 1)
            return (dgates, matmul(dgates, w_hh), dc * f, matmul(dgates.t(), h))
        xp = pyad.get_array_module(xw.data)
        i, f, g, o, tc = ctx.acts
        gh = grad_h.data
        dc = grad_c.data + gh * o * (1.0 - tc * tc)
        dgates = xp.concatenate([dc * g * i * (1.0 - i), dc * c.data * f * (1.0 - f),
                                 dc * i * (1.0 - g * g), gh * tc * o * (1.0 - o)], 1)
        needs = ctx.needs_input_grad
        return (Variable(dgates),
                Variable(dgates @ w_hh.data) if needs[1] else None,
                Variable(dc * f) if needs[2] else None,
                Variable(dgates.T @ h.data) if needs[3] else None)


class _LSTMLayer(Function):
    """A whole LSTM layer in one direction, ``(xw, h0, c0, w_hh) -> (out, h_T, c_T)``,
    with ``xw`` of shape ``(T, N, 4H)`` (``x @ w_ih.T + b_ih + b_hh`` for every step).

    The forward and backward loops run on arrays; the backward accumulates the gates'
    gradients of all steps and computes ``w_hh``'s gradient as one matrix product.
    Under ``create_graph=True`` the backward is written with pyad ops instead, so it is
    recorded and can be differentiated again."""

    @staticmethod
    def forward(ctx, xw, h0, c0, w_hh):
        xp = pyad.get_array_module(xw.data)
        X = xw.data
        T, N = X.shape[0], X.shape[1]
        H = c0.shape[1]
        dtype = X.dtype
        hs = xp.empty((T + 1, N, H), dtype)
        cs = xp.empty((T + 1, N, H), dtype)
        acts = xp.empty((T, N, 4 * H), dtype)
        tcs = xp.empty((T, N, H), dtype)
        hs[0] = h0.data
        cs[0] = c0.data
        w_t = w_hh.data.T
        for t in range(T):
            a = acts[t]
            xp.matmul(hs[t], w_t, out=a)
            a += X[t]
            g = xp.tanh(a[:, 2 * H:3 * H])
            a *= 0.5
            xp.tanh(a, out=a)
            a *= 0.5
            a += 0.5
            a[:, 2 * H:3 * H] = g
            c = cs[t + 1]
            xp.multiply(a[:, H:2 * H], cs[t], out=c)
            c += a[:, :H] * g
            tc = tcs[t]
            xp.tanh(c, out=tc)
            xp.multiply(a[:, 3 * H:], tc, out=hs[t + 1])
        ctx.save_for_backward(xw, h0, c0, w_hh)
        ctx.arrays = (hs, cs, acts, tcs)
        return Variable(hs[1:]), Variable(hs[T].copy()), Variable(cs[T].copy())

    @staticmethod
    def backward(ctx, grad_out, grad_h, grad_c):
        xw, h0, c0, w_hh = ctx.saved_tensors
        if pyad.is_grad_enabled():
            return _LSTMLayer._backward_graph(xw, h0, c0, w_hh, grad_out, grad_h, grad_c)
        xp = pyad.get_array_module(xw.data)
        hs, cs, acts, tcs = ctx.arrays
        T, N, H4 = acts.shape
        H = H4 // 4
        dout = grad_out.data
        dh = grad_h.data.copy()
        dc = grad_c.data.copy()
        dG = xp.empty(acts.shape, acts.dtype)
        w = w_hh.data
        for t in range(T - 1, -1, -1):
            dh += dout[t]
            a = acts[t]
            i, f, g, o = a[:, :H], a[:, H:2 * H], a[:, 2 * H:3 * H], a[:, 3 * H:]
            tc = tcs[t]
            dc += dh * o * (1.0 - tc * tc)
            d = dG[t]
            xp.multiply(dc * g, i * (1.0 - i), out=d[:, :H])
            xp.multiply(dc * cs[t], f * (1.0 - f), out=d[:, H:2 * H])
            xp.multiply(dc * i, 1.0 - g * g, out=d[:, 2 * H:3 * H])
            xp.multiply(dh * tc, o * (1.0 - o), out=d[:, 3 * H:])
            dc *= f
            dh = d @ w
        needs = ctx.needs_input_grad
        dw = None
        if needs[3]:
            dw = Variable(dG.reshape(T * N, H4).T @ hs[:-1].reshape(T * N, H))
        return (Variable(dG), Variable(dh) if needs[1] else None,
                Variable(dc) if needs[2] else None, dw)

    @staticmethod
    def _backward_graph(xw, h0, c0, w_hh, grad_out, grad_h, grad_c):
        # Recompute the forward with pyad ops, then run the same reverse loop with them.
        w_t = w_hh.t()
        h, c = h0, c0
        saved = []
        for t in range(xw.shape[0]):
            gates = xw[t] + matmul(h, w_t)
            i, f, g, o = gates.chunk(4, 1)
            i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
            c_prev = c
            c = f * c_prev + i * g
            tc = c.tanh()
            saved.append((h, c_prev, i, f, g, o, tc))
            h = o * tc
        dh, dc = grad_h, grad_c
        dgs = [None] * len(saved)
        dw = None
        for t in range(len(saved) - 1, -1, -1):
            h_prev, c_prev, i, f, g, o, tc = saved[t]
            dh = dh + grad_out[t]
            dc = dc + dh * o * (1 - tc * tc)
            d = pyad.cat([dc * g * i * (1 - i), dc * c_prev * f * (1 - f),
                          dc * i * (1 - g * g), dh * tc * o * (1 - o)], 1)
            dgs[t] = d
            term = matmul(d.t(), h_prev)
            dw = term if dw is None else dw + term
            dc = dc * f
            dh = matmul(d, w_hh)
        return pyad.stack(dgs, 0), dh, dc, dw


class _GRULayer(Function):
    """A whole GRU layer in one direction, ``(xw, h0, w_hh, b_hh) -> (out, h_T)``, with
    ``xw`` of shape ``(T, N, 3H)`` (``x @ w_ih.T + b_ih`` for every step); ``b_hh`` may be
    None. Loops on arrays as `_LSTMLayer`, with the same ``create_graph`` fallback."""

    @staticmethod
    def forward(ctx, xw, h0, w_hh, b_hh):
        xp = pyad.get_array_module(xw.data)
        X = xw.data
        T, N = X.shape[0], X.shape[1]
        H = h0.shape[1]
        dtype = X.dtype
        hs = xp.empty((T + 1, N, H), dtype)
        rz = xp.empty((T, N, 2 * H), dtype)
        ns = xp.empty((T, N, H), dtype)
        ghn = xp.empty((T, N, H), dtype)
        hs[0] = h0.data
        w_t = w_hh.data.T
        b = None if b_hh is None else b_hh.data
        for t in range(T):
            gh = hs[t] @ w_t
            if b is not None:
                gh += b
            a = rz[t]
            xp.add(X[t, :, :2 * H], gh[:, :2 * H], out=a)
            a *= 0.5
            xp.tanh(a, out=a)
            a *= 0.5
            a += 0.5
            ghn[t] = gh[:, 2 * H:]
            n = ns[t]
            xp.multiply(a[:, :H], ghn[t], out=n)
            n += X[t, :, 2 * H:]
            xp.tanh(n, out=n)
            z = a[:, H:]
            xp.subtract(hs[t], n, out=hs[t + 1])
            hs[t + 1] *= z
            hs[t + 1] += n
        ctx.save_for_backward(xw, h0, w_hh, b_hh)
        ctx.arrays = (hs, rz, ns, ghn)
        return Variable(hs[1:]), Variable(hs[T].copy())

    @staticmethod
    def backward(ctx, grad_out, grad_h):
        xw, h0, w_hh, b_hh = ctx.saved_tensors
        if pyad.is_grad_enabled():
            return _GRULayer._backward_graph(xw, h0, w_hh, b_hh, grad_out, grad_h)
        xp = pyad.get_array_module(xw.data)
        hs, rz, ns, ghn = ctx.arrays
        T, N, H = ns.shape
        dout = grad_out.data
        dh = grad_h.data.copy()
        dX = xp.empty((T, N, 3 * H), ns.dtype)
        dGH = xp.empty((T, N, 3 * H), ns.dtype)
        w = w_hh.data
        for t in range(T - 1, -1, -1):
            dh += dout[t]
            r, z, n = rz[t, :, :H], rz[t, :, H:], ns[t]
            dn = dh * (1.0 - z) * (1.0 - n * n)
            dz = dh * (hs[t] - n) * z * (1.0 - z)
            dr = dn * ghn[t] * r * (1.0 - r)
            dX[t, :, :H] = dr
            dX[t, :, H:2 * H] = dz
            dX[t, :, 2 * H:] = dn
            dGH[t, :, :2 * H] = dX[t, :, :2 * H]
            xp.multiply(dn, r, out=dGH[t, :, 2 * H:])
            dh = dh * z + dGH[t] @ w
        needs = ctx.needs_input_grad
        flat = dGH.reshape(T * N, 3 * H)
        dw = Variable(flat.T @ hs[:-1].reshape(T * N, H)) if needs[2] else None
        db = Variable(flat.sum(0)) if b_hh is not None and needs[3] else None
        return Variable(dX), Variable(dh) if needs[1] else None, dw, db

    @staticmethod
    def _backward_graph(xw, h0, w_hh, b_hh, grad_out, grad_h):
        w_t = w_hh.t()
        h = h0
        saved = []
        for t in range(xw.shape[0]):
            gh = matmul(h, w_t)
            if b_hh is not None:
                gh = gh + b_hh
            xr, xz, xn = xw[t].chunk(3, 1)
            hr, hz, hn = gh.chunk(3, 1)
            r = (xr + hr).sigmoid()
            z = (xz + hz).sigmoid()
            n = (xn + r * hn).tanh()
            saved.append((h, r, z, n, hn))
            h = n + z * (h - n)
        dh = grad_h
        dxs = [None] * len(saved)
        dw = db = None
        for t in range(len(saved) - 1, -1, -1):
            h_prev, r, z, n, hn = saved[t]
            dh = dh + grad_out[t]
            dn = dh * (1 - z) * (1 - n * n)
            dz = dh * (h_prev - n) * z * (1 - z)
            dr = dn * hn * r * (1 - r)
            dxs[t] = pyad.cat([dr, dz, dn], 1)
            dgh = pyad.cat([dr, dz, dn * r], 1)
            term = matmul(dgh.t(), h_prev)
            dw = term if dw is None else dw + term
            if b_hh is not None:
                s = dgh.sum(0)
                db = s if db is None else db + s
            dh = dh * z + matmul(dgh, w_hh)
        return pyad.stack(dxs, 0), dh, dw, db


# -- layers --------------------------------------------------------------------------


_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _state_variable(state):
    # torch's detach idiom `h = h.data` hands pyad the array itself (Variable.data is the
    # NumPy or CuPy array): taken as a Variable without history, as torch's .data is
    if not isinstance(state, Variable) and (hasattr(state, "__array_interface__") or
                                            hasattr(state, "__cuda_array_interface__")):
        return Variable(state)
    return state


class RNNBase(Module):
    """The shared machinery of `RNN`, `LSTM` and `GRU` (torch's ``nn.RNNBase``)."""

    def __setstate__(self, state):
        # torch's RNNBase.__setstate__: a module pickled before torch 1.8 has no proj_size
        self.__dict__.update(state)
        if "proj_size" not in state:
            self.proj_size = 0

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        name = type(self).__name__
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if (not isinstance(dropout, numbers.Number) or isinstance(dropout, bool)
                or not 0 <= dropout <= 1):
            raise ValueError("%s(): dropout should be a number in range [0, 1] representing "
                             "the probability of an element being zeroed" % name)
        if dropout > 0 and num_layers == 1:
            import warnings
            warnings.warn("dropout option adds dropout after all but last recurrent layer, "
                          "so non-zero dropout expects num_layers greater than 1, but got "
                          "dropout=%s and num_layers=%s" % (dropout, num_layers))
        if not isinstance(bias, bool):
            raise TypeError("%s(): bias should be of type bool, got: %s"
                            % (name, type(bias).__name__))
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError("%s(): hidden_size should be of type int, got: %s"
                            % (name, type(hidden_size).__name__))
        if hidden_size <= 0:
            raise ValueError("%s(): hidden_size must be greater than zero" % name)
        if not isinstance(num_layers, int) or isinstance(num_layers, bool) or num_layers <= 0:
            raise ValueError("%s(): num_layers must be greater than zero" % name)
        if proj_size < 0:
            raise ValueError("%s(): proj_size should be a positive integer or zero to "
                             "disable projections" % name)
        if proj_size >= hidden_size:
            raise ValueError("%s(): proj_size has to be smaller than hidden_size" % name)
        if proj_size and mode != "LSTM":
            raise ValueError("%s(): proj_size argument is only supported for LSTM, not RNN "
                             "or GRU" % name)
        if mode not in _GATES:
            raise ValueError("%s(): Unrecognized RNN mode: %s" % (name, mode))
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_in = input_size if layer == 0 else real_hidden * num_directions
                suffix = "_reverse" if direction == 1 else ""
                params = [("weight_ih_l%d%s", (gate_size, layer_in)),
                          ("weight_hh_l%d%s", (gate_size, real_hidden))]
                if bias:
                    params += [("bias_ih_l%d%s", (gate_size,)),
                               ("bias_hh_l%d%s", (gate_size,))]
                if proj_size > 0:
                    params.append(("weight_hr_l%d%s", (proj_size, hidden_size)))
                names = []
                for fmt, shape in params:
                    pname = fmt % (layer, suffix)
                    setattr(self, pname, Parameter(_factory(shape, device, dtype)))
                    names.append(pname)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters, one list per layer and direction, in torch's order."""
        return [[getattr(self, n) for n in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op (cuDNN's weight layout does not apply here); kept for torch scripts."""

    def reset_parameters(self):
        """Redraw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "%d, %d" % (self.input_size, self.hidden_size)
        if self.proj_size != 0:
            s += ", proj_size=%d" % self.proj_size
        if self.num_layers != 1:
            s += ", num_layers=%d" % self.num_layers
        if self.bias is not True:
            s += ", bias=%s" % self.bias
        if self.batch_first is not False:
            s += ", batch_first=%s" % self.batch_first
        if self.dropout != 0:
            s += ", dropout=%s" % self.dropout
        if self.bidirectional is not False:
            s += ", bidirectional=%s" % self.bidirectional
        return s

    # -- forward ---------------------------------------------------------------------

    def _real_hidden(self):
        return self.proj_size if self.proj_size > 0 else self.hidden_size

    def _check_hidden(self, hx, expected, what):
        if tuple(hx.shape) != expected:
            raise RuntimeError("%s(): Expected %s size %s, got %s"
                               % (type(self).__name__, what, expected, list(hx.shape)))

    def forward(self, input, hx=None):
        name = type(self).__name__
        is_lstm = self.mode == "LSTM"
        num_directions = 2 if self.bidirectional else 1
        real_hidden = self._real_hidden()
        packed = isinstance(input, PackedSequence)
        unbatched = False
        if packed:
            data = input.data
            batch_sizes = [int(b) for b in _host_ints(input.batch_sizes, name)]
            batch = batch_sizes[0]
            sorted_indices = input.sorted_indices
            if data.dim() != 2:
                raise RuntimeError("%s(): packed input must have 2 dimensions, got %d"
                                   % (name, data.dim()))
        else:
            if not isinstance(input, Variable):
                raise TypeError("%s(): input must be a Variable or a PackedSequence, got %s"
                                % (name, type(input).__name__))
            if input.dim() not in (2, 3):
                raise ValueError("%s(): Expected input to be 2D or 3D, got %dD instead"
                                 % (name, input.dim()))
            sorted_indices = None
            if input.dim() == 2:
                unbatched = True
                input = input.unsqueeze(1)
            elif self.batch_first:
                input = input.transpose(0, 1)
            steps, batch = input.shape[0], input.shape[1]
            data = input.reshape(steps * batch, input.shape[2])
            batch_sizes = [batch] * steps
        if not batch_sizes:
            raise RuntimeError("%s(): Expected sequence length to be larger than 0 in RNN"
                               % name)
        if data.shape[-1] != self.input_size:
            raise RuntimeError("%s(): input.size(-1) must be equal to input_size. Expected "
                               "%d, got %d" % (name, self.input_size, data.shape[-1]))
        if not data.dtype.kind == "f":
            raise RuntimeError("%s(): expected a floating-point input, got %s"
                               % (name, data.dtype))
        w_dtype = getattr(self, self._flat_weights_names[0]).dtype
        if data.dtype != w_dtype:
            raise ValueError("%s(): RNN input dtype (%s) does not match weight dtype (%s). "
                             "Convert input: input.to(%s), or convert model: model.to(%s)"
                             % (name, data.dtype, w_dtype, w_dtype, data.dtype))
        h_shape = (self.num_layers * num_directions, batch, real_hidden)
        c_shape = (self.num_layers * num_directions, batch, self.hidden_size)
        if hx is None:
            h0 = pyad.zeros(*h_shape, dtype=data.dtype, device=data.device)
            c0 = (pyad.zeros(*c_shape, dtype=data.dtype, device=data.device)
                  if is_lstm else None)
        else:
            if is_lstm:
                if not isinstance(hx, (tuple, list)) or len(hx) != 2:
                    raise RuntimeError("%s(): hx must be a tuple (h_0, c_0) for LSTM" % name)
                h0, c0 = (_state_variable(v) for v in hx)
            else:
                hx = _state_variable(hx)
                if not isinstance(hx, Variable):
                    raise RuntimeError("%s(): hx must be a Variable, got %s"
                                       % (name, type(hx).__name__))
                h0, c0 = hx, None
            if unbatched:
                for v, what in ((h0, "h_0"), (c0, "c_0")):
                    if v is not None and v.dim() != 2:
                        raise RuntimeError("%s(): For unbatched 2-D input, %s should also be "
                                           "2-D but got %d-D tensor" % (name, what, v.dim()))
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            elif not packed:
                for v, what in ((h0, "h_0"), (c0, "c_0")):
                    if v is not None and v.dim() != 3:
                        raise RuntimeError("%s(): For batched 3-D input, %s should also be "
                                           "3-D but got %d-D tensor" % (name, what, v.dim()))
            if sorted_indices is not None:
                h0 = h0.index_select(1, sorted_indices)
                c0 = c0.index_select(1, sorted_indices) if c0 is not None else None
            self._check_hidden(h0, h_shape, "hidden" if not is_lstm else "hidden[0]")
            if c0 is not None:
                self._check_hidden(c0, c_shape, "hidden[1]")
        h_n, c_n = [], []
        layer_input = data
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(num_directions):
                k = layer * num_directions + direction
                params = [getattr(self, n) for n in self._all_weights[k]]
                out, h_last, c_last = self._run_direction(
                    layer_input, batch_sizes, params, h0[k], c0[k] if is_lstm else None,
                    reverse=direction == 1)
                outputs.append(out)
                h_n.append(h_last)
                c_n.append(c_last)
            layer_input = outputs[0] if num_directions == 1 else pyad.cat(outputs, 1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, True)
        h_n = pyad.stack(h_n, 0)
        c_n = pyad.stack(c_n, 0) if is_lstm else None
        if packed:
            output = PackedSequence(layer_input, input.batch_sizes, input.sorted_indices,
                                    input.unsorted_indices)
            if input.unsorted_indices is not None:
                h_n = h_n.index_select(1, input.unsorted_indices)
                c_n = c_n.index_select(1, input.unsorted_indices) if is_lstm else None
        else:
            output = layer_input.reshape(len(batch_sizes), batch, layer_input.shape[1])
            if unbatched:
                output = output.squeeze(1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if is_lstm else None
            elif self.batch_first:
                output = output.transpose(0, 1)
        return (output, (h_n, c_n)) if is_lstm else (output, h_n)

    def _run_direction(self, data, batch_sizes, params, h0, c0, reverse):
        """Run one layer in one direction over the rows ``data`` (time steps stacked along
        dim 0, ``batch_sizes[t]`` rows each); return its output rows in the same layout
        and the final ``h`` (and ``c``) of every sequence."""
        mode = self.mode
        w_ih, w_hh = params[0], params[1]
        b_ih = b_hh = w_hr = None
        if self.bias:
            b_ih, b_hh = params[2], params[3]
        if self.proj_size > 0:
            w_hr = params[-1]
        xw = matmul(data, w_ih.t())
        T = len(batch_sizes)
        if (mode == "LSTM" and w_hr is None and type(self)._fused and T > 0
                and batch_sizes[-1] == batch_sizes[0] and h0.shape[0] == batch_sizes[0]):
            # every sequence runs all T steps: the whole layer is one fused node
            if b_ih is not None:
                xw = xw + (b_ih + b_hh)
            xw = xw.reshape(T, batch_sizes[0], xw.shape[1])
            if reverse:
                xw = pyad.flip(xw, (0,))
            out, h, c = _LSTMLayer.apply(xw, h0, c0, w_hh)
            if reverse:
                out = pyad.flip(out, (0,))
            return out.reshape(T * batch_sizes[0], out.shape[2]), h, c
        if (mode == "GRU" and type(self)._fused and T > 0
                and batch_sizes[-1] == batch_sizes[0] and h0.shape[0] == batch_sizes[0]):
            if b_ih is not None:
                xw = xw + b_ih
            xw = xw.reshape(T, batch_sizes[0], xw.shape[1])
            if reverse:
                xw = pyad.flip(xw, (0,))
            out, h = _GRULayer.apply(xw, h0, w_hh, b_hh)
            if reverse:
                out = pyad.flip(out, (0,))
            return out.reshape(T * batch_sizes[0], out.shape[2]), h, None
        if mode == "GRU":
            if b_ih is not None:
                xw = xw + b_ih
        elif b_ih is not None:
            xw = xw + (b_ih + b_hh)
        steps = _split_rows(xw, batch_sizes)
        order = range(T - 1, -1, -1) if reverse else range(T)
        outs = [None] * T
        full = batch_sizes[0] if T else h0.shape[0]
        if reverse:
            cur = batch_sizes[-1] if T else full
            h = h0[:cur] if cur < full else h0
            c = (c0[:cur] if cur < full else c0) if c0 is not None else None
        else:
            cur = full
            h, c = h0, c0
        done_h, done_c = [], []
        w_hh_t = w_hh.t()
        for t in order:
            b = batch_sizes[t]
            if b != cur:
                if reverse:   # more sequences start here
                    h = pyad.cat([h, h0[cur:b]], 0)
                    if c is not None:
                        c = pyad.cat([c, c0[cur:b]], 0)
                else:         # some sequences ended at the previous step
                    done_h.append(h[b:])
                    h = h[:b]
                    if c is not None:
                        done_c.append(c[b:])
                        c = c[:b]
                cur = b
            x = steps[t]
            if mode == "LSTM":
                if w_hr is None and type(self)._fused:
                    h, c = _LSTMStep.apply(x, h, c, w_hh)
                else:
                    gates = x + matmul(h, w_hh_t)
                    h, c = _lstm_pointwise(gates, c)
                if w_hr is not None:
                    h = matmul(h, w_hr.t())
            elif mode == "GRU":
                gh = matmul(h, w_hh_t)
                if b_hh is not None:
                    gh = gh + b_hh
                xr, xz, xn = x.chunk(3, 1)
                hr, hz, hn = gh.chunk(3, 1)
                r = (xr + hr).sigmoid()
                z = (xz + hz).sigmoid()
                n = (xn + r * hn).tanh()
                h = n + z * (h - n)
            else:
                pre = x + matmul(h, w_hh_t)
                h = pre.tanh() if mode == "RNN_TANH" else F.relu(pre)
            outs[t] = h
        if not reverse and done_h:
            done_h.append(h)
            h = pyad.cat(done_h[::-1], 0)
            if c is not None:
                done_c.append(c)
                c = pyad.cat(done_c[::-1], 0)
        return (outs[0] if T == 1 else pyad.cat(outs, 0)), h, c

    _fused = True


class RNN(RNNBase):
    """Elman RNN: ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)`` (or ``relu``
    with ``nonlinearity='relu'``), over ``num_layers`` stacked layers.

    Call it as ``output, h_n = rnn(input, h_0)`` with ``input`` of shape ``(L, N, H_in)``
    (``(N, L, H_in)`` with ``batch_first``, ``(L, H_in)`` unbatched) or a
    `~pyad.nn.utils.rnn.PackedSequence`.

    >>> import pyad
    >>> rnn = pyad.nn.RNN(3, 5, batch_first=True, bidirectional=True)
    >>> out, h = rnn(pyad.randn(2, 7, 3))
    >>> out.shape, h.shape
    ((2, 7, 10), (2, 2, 5))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh",
                 bias=True, batch_first=False, dropout=0.0, bidirectional=False, device=None,
                 dtype=None, proj_size=0):
        _check_no_projection(proj_size)
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError("RNN(): Unknown nonlinearity '%s'. Select from 'tanh' or 'relu'."
                             % (nonlinearity,))
        self.nonlinearity = nonlinearity
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory over ``num_layers`` stacked layers, as ``torch.nn.LSTM``
    (gates in torch's order i, f, g, o; ``proj_size`` projects ``h`` by ``weight_hr``).

    Call it as ``output, (h_n, c_n) = lstm(input, (h_0, c_0))``.

    >>> import pyad
    >>> lstm = pyad.nn.LSTM(3, 6, proj_size=2)
    >>> [name for name, _ in lstm.named_parameters()]
    ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_hr_l0']
    >>> out, (h, c) = lstm(pyad.randn(4, 1, 3))
    >>> out.shape, h.shape, c.shape
    ((4, 1, 2), (1, 1, 2), (1, 1, 6))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, proj_size, device, dtype)


class GRU(RNNBase):
    """Gated recurrent unit over ``num_layers`` stacked layers, as ``torch.nn.GRU``
    (gates in torch's order r, z, n; ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``).

    >>> import pyad
    >>> gru = pyad.nn.GRU(3, 4, num_layers=2)
    >>> out, h = gru(pyad.randn(5, 3))           # unbatched (L, H_in)
    >>> out.shape, h.shape
    ((5, 4), (2, 4))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None, proj_size=0):
        _check_no_projection(proj_size)
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first,
                         dropout, bidirectional, 0, device, dtype)


def _check_no_projection(proj_size):
    # torch's RNN and GRU take proj_size only to refuse it
    if proj_size:
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")


# -- cells ---------------------------------------------------------------------------


class RNNCellBase(Module):
    """The shared parameters of the cells: ``weight_ih`` ``(G*H, H_in)``, ``weight_hh``
    ``(G*H, H)``, ``bias_ih`` and ``bias_hh`` ``(G*H,)``, U(-1/sqrt(H), 1/sqrt(H))."""

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(_factory((num_chunks * hidden_size, input_size), device,
                                            dtype))
        self.weight_hh = Parameter(_factory((num_chunks * hidden_size, hidden_size), device,
                                            dtype))
        if bias:
            self.bias_ih = Parameter(_factory((num_chunks * hidden_size,), device, dtype))
            self.bias_hh = Parameter(_factory((num_chunks * hidden_size,), device, dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Redraw every parameter from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def extra_repr(self):
        s = "%d, %d" % (self.input_size, self.hidden_size)
        if self.bias is not True:
            s += ", bias=%s" % self.bias
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += ", nonlinearity=%s" % self.nonlinearity
        return s

    def _prepare(self, input, hx, n_states):
        name = type(self).__name__
        if not isinstance(input, Variable):
            raise TypeError("%s(): input must be a Variable, got %s"
                            % (name, type(input).__name__))
        if input.dim() not in (1, 2):
            raise ValueError("%s(): Expected input to be 1D or 2D, got %dD instead"
                             % (name, input.dim()))
        if input.shape[-1] != self.input_size:
            raise RuntimeError("%s(): input has inconsistent input_size: got %d expected %d"
                               % (name, input.shape[-1], self.input_size))
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        batch = input.shape[0]
        if hx is None:
            states = [pyad.zeros(batch, self.hidden_size, dtype=input.dtype,
                                 device=input.device) for _ in range(n_states)]
        else:
            states = list(hx) if n_states == 2 else [hx]
            if n_states == 2 and len(states) != 2:
                raise RuntimeError("%s(): hx must be a tuple (h_0, c_0)" % name)
            for k, s in enumerate(states):
                if s.dim() not in (1, 2):
                    # torch: a ValueError before the batched/unbatched check
                    raise ValueError("%s(): Expected %s to be 1D or 2D, got %dD instead"
                                     % (name, "hidden" if n_states == 1 else "hx[%d]" % k,
                                        s.dim()))
                if batched and s.dim() != 2:
                    raise RuntimeError("%s(): Expected hidden to be 2D, got %dD instead"
                                       % (name, s.dim()))
                if not batched:
                    if s.dim() != 1:
                        raise RuntimeError("%s(): Expected hidden to be 1D, got %dD instead"
                                           % (name, s.dim()))
                    s = s.unsqueeze(0)
                if tuple(s.shape) != (batch, self.hidden_size):
                    what = "hidden" if n_states == 1 else "hx[%d]" % k
                    if s.shape[0] != batch:
                        raise RuntimeError("%s(): Input batch size %d doesn't match %s batch "
                                           "size %d" % (name, batch, what, s.shape[0]))
                    raise RuntimeError("%s(): %s has inconsistent hidden_size: got %d, "
                                       "expected %d" % (name, what, s.shape[1],
                                                        self.hidden_size))
                states[k] = s
        return input, states, batched

    def _xw(self, input):
        xw = matmul(input, self.weight_ih.t())
        if self.bias_ih is not None:
            xw = xw + self.bias_ih
        return xw

    def _hw(self, h):
        hw = matmul(h, self.weight_hh.t())
        if self.bias_hh is not None:
            hw = hw + self.bias_hh
        return hw


class RNNCell(RNNCellBase):
    """One Elman RNN step: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu).

    >>> import pyad
    >>> cell = pyad.nn.RNNCell(3, 2)
    >>> cell(pyad.randn(4, 3)).shape
    (4, 2)
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError("RNNCell(): Unknown nonlinearity: %s" % (nonlinearity,))
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        pre = self._xw(input) + self._hw(h)
        out = pre.tanh() if self.nonlinearity == "tanh" else F.relu(pre)
        return out if batched else out.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step: ``(h', c') = cell(x, (h, c))`` (gates i, f, g, o as torch's).

    >>> import pyad
    >>> cell = pyad.nn.LSTMCell(3, 2)
    >>> h, c = cell(pyad.randn(4, 3))
    >>> h.shape, c.shape
    ((4, 2), (4, 2))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        input, (h, c), batched = self._prepare(input, hx, 2)
        xw = matmul(input, self.weight_ih.t())
        if self.bias_ih is not None:
            xw = xw + (self.bias_ih + self.bias_hh)
        h, c = _LSTMStep.apply(xw, h, c, self.weight_hh)
        if not batched:
            h, c = h.squeeze(0), c.squeeze(0)
        return h, c


class GRUCell(RNNCellBase):
    """One GRU step: ``h' = cell(x, h)`` (gates r, z, n as torch's).

    >>> import pyad
    >>> cell = pyad.nn.GRUCell(3, 2)
    >>> cell(pyad.randn(3), pyad.zeros(2)).shape
    (2,)
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, (h,), batched = self._prepare(input, hx, 1)
        xr, xz, xn = self._xw(input).chunk(3, 1)
        hr, hz, hn = self._hw(h).chunk(3, 1)
        r = (xr + hr).sigmoid()
        z = (xz + hz).sigmoid()
        n = (xn + r * hn).tanh()
        out = n + z * (h - n)
        return out if batched else out.squeeze(0)
