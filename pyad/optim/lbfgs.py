"""L-BFGS, as ``torch.optim.LBFGS`` (with the optional strong-Wolfe line search)."""
import math

import numpy

from pyad._engine import Variable
from pyad.autograd.grad_mode import enable_grad, no_grad
from pyad.optim._functional import check_hyperparameters, real, xp_of
from pyad.optim.optimizer import Optimizer

__all__ = ["LBFGS"]


def _array(value):
    return value.data if isinstance(value, Variable) else value


def _arrays(values):
    return None if values is None else [_array(v) for v in values]


def _variable(value):
    return None if value is None or isinstance(value, Variable) else Variable(value)


def _variables(values):
    return None if values is None else [_variable(v) for v in values]


def _float(value):
    return value.item() if isinstance(value, Variable) else value


def _floats(values):
    return None if values is None else [_float(v) for v in values]


def _num(value):
    # a 0-d Variable as a NumPy scalar of its dtype: torch keeps ro, al, H_diag, gtd and
    # the curvature products as 0-d tensors, so a float32 run rounds them to float32
    return value.data[()] if isinstance(value, Variable) else value


def _nums(values):
    return None if values is None else [_num(v) for v in values]


def _dot(a, b):
    r = a.dot(b)
    # a NumPy scalar of the arrays' dtype (CuPy gives a 0-d array)
    return r if isinstance(r, numpy.generic) else numpy.dtype(r.dtype).type(r.item())


def _amax(a):
    r = abs(a).max()
    return r if isinstance(r, numpy.generic) else numpy.dtype(r.dtype).type(r.item())


def _scalar(value, dtype):
    return Variable(numpy.asarray(value, dtype=dtype))


def _scalars(values, dtype):
    return None if values is None else [None if v is None else _scalar(_float(v), dtype)
                                        for v in values]


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through two points with values and slopes, clamped."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = numpy.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, lo), hi)
    return (lo + hi) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step ``t`` along ``d`` meeting the strong Wolfe conditions (bracket, then zoom)."""
    d_norm = _amax(d)
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = _dot(g_new, d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket = bracket_f = bracket_g = bracket_gtd = None
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket until a point meets the conditions
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # keep away from the bracket's ends when progress stalls
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = _dot(g_new, d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """L-BFGS, as torch's (after minFunc): one parameter group; ``step(closure)`` runs up
    to ``max_iter`` iterations, re-evaluating ``closure`` (which must zero the gradients,
    compute the loss, call ``backward`` and return the loss).

    ``line_search_fn`` is None (fixed step ``lr``) or ``"strong_wolfe"``. The state
    (``d``, ``t``, ``old_dirs``, ``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``,
    ``prev_loss``, ``n_iter``, ``func_evals``) lives under the first parameter, as torch.

    >>> import pyad
    >>> w = pyad.nn.Parameter(pyad.tensor([3.0, -2.0]))
    >>> opt = pyad.optim.LBFGS([w], line_search_fn="strong_wolfe")
    >>> def closure():
    ...     opt.zero_grad()
    ...     loss = ((w - 1.0) ** 2).sum()
    ...     loss.backward()
    ...     return loss
    >>> _ = opt.step(closure)
    >>> w.detach().round(decimals=4)
    tensor([1., 1.])
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        check_hyperparameters(lr=lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    def _gather_flat_grad(self):
        # complex parameters count as their real and imaginary parts, as torch
        xp = xp_of(self._params[0].data)
        views = [xp.zeros(p.numel() * (2 if p.dtype.kind == "c" else 1),
                          dtype=p.data.real.dtype) if p.grad is None
                 else real(p.grad.data).reshape(-1) for p in self._params]
        return xp.concatenate(views, 0)

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            n = p.numel() * (2 if p.dtype.kind == "c" else 1)
            chunk = update[offset:offset + n]
            if p.dtype.kind == "c":
                chunk = chunk.view(p.dtype)
            p.add_(Variable(step_size * chunk.reshape(p.shape)))
            offset += n

    def _clone_param(self):
        return [p.data.copy() for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            p.copy_(Variable(data))

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure):
        """Run up to ``max_iter`` L-BFGS iterations; return the first evaluation's loss."""
        with no_grad():
            return self._step(closure)

    def _step(self, closure):
        def evaluate():
            with enable_grad():
                return closure()

        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        # a Variable lr (torch allows a tensor) is used as its value; the step size t
        # is then a tensor in torch's state (of lr's dtype after the first iteration)
        lr_dtype = lr.dtype if isinstance(lr, Variable) else None
        lr = _float(lr)
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = evaluate()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        xp = xp_of(flat_grad)
        if float(xp.abs(flat_grad).max()) <= tolerance_grad:
            return orig_loss

        # the state holds Variables (as torch's holds tensors); work on their arrays
        d, t = _array(state.get("d")), _float(state.get("t"))
        t_is_tensor, t_dtype = isinstance(state.get("t"), Variable), None
        if t_is_tensor:
            t_dtype = state["t"].dtype
        old_dirs, old_stps = _arrays(state.get("old_dirs")), _arrays(state.get("old_stps"))
        ro, H_diag = _nums(state.get("ro")), _num(state.get("H_diag"))
        if "al" in state:
            state["al"] = _nums(state["al"])
        prev_flat_grad, prev_loss = _array(state.get("prev_flat_grad")), state.get("prev_loss")

        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                # update the curvature pairs, then the two-loop recursion for the direction
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = _dot(y, s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / _dot(y, y)
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = _dot(old_stps[i], q) * ro[i]
                    q = q + (-al[i]) * old_dirs[i]
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = _dot(old_dirs[i], r) * ro[i]
                    r += (al[i] - be_i) * old_stps[i]
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            t_dtype = flat_grad.dtype
            if state["n_iter"] == 1:
                # a zero gradient (tolerance_grad < 0) gives an infinite bound, as torch's
                # 1.0 / tensor(0.)
                total = float(xp.abs(flat_grad).sum())
                bound = 1.0 / total if total != 0 else math.inf
                # torch's min(1., tensor) * lr: a tensor where the bound is the smaller
                t_is_tensor = bound < 1.0 or lr_dtype is not None
                t = min(1.0, bound) * lr
            else:
                t_is_tensor = lr_dtype is not None
                t_dtype = lr_dtype
                t = lr
            gtd = _dot(flat_grad, d)
            if gtd > -tolerance_change:
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(evaluate, x, t, d)

                t_start = t
                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                t_is_tensor = t_is_tensor and t == t_start
                self._add_grad(t, d)
                opt_cond = float(xp.abs(flat_grad).max()) <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(evaluate())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = float(xp.abs(flat_grad).max()) <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if float(xp.abs(d * t).max()) <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        # torch keeps ro, al, H_diag (and a first step size computed from the gradient)
        # as 0-d tensors: the state holds 0-d Variables of the gradient's dtype there
        dtype = flat_grad.dtype
        if "al" in state:
            state["al"] = _scalars(state["al"], dtype)
        if isinstance(t, numpy.generic):
            t = t if t_is_tensor else float(t)
        state.update(d=_variable(d), t=_scalar(t, t_dtype) if t_is_tensor else t,
                     old_dirs=_variables(old_dirs), old_stps=_variables(old_stps),
                     ro=_scalars(ro, dtype),
                     H_diag=H_diag if isinstance(H_diag, int) else _scalar(H_diag, dtype),
                     prev_flat_grad=_variable(prev_flat_grad), prev_loss=prev_loss)
        return orig_loss
