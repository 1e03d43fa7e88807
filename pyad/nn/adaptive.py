"""``AdaptiveLogSoftmaxWithLoss``: torch's efficient softmax approximation (Grave et al.,
"Efficient softmax approximation for GPUs", https://arxiv.org/abs/1609.04309).

The classes are split at ``cutoffs`` into a shortlist, scored by the ``head`` linear
layer together with one logit per tail cluster, and clusters, each scored by a
two-layer projection in ``tail`` whose hidden size shrinks by ``div_value`` per cluster.
Submodule and parameter names (``head.weight``, ``tail.0.0.weight``, ...) are torch's,
so a torch state_dict of the same shapes loads as it is.

>>> import pyad
>>> asm = pyad.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7])
>>> out = asm(pyad.randn(5, 8), pyad.tensor([0, 3, 5, 8, 9]))
>>> out.output.shape, out.loss.shape, asm.log_prob(pyad.randn(2, 8)).shape
((5,), (), (2, 10))
"""
import itertools
from collections import namedtuple

from pyad._engine import argmax
from pyad.nn import functional as F
from pyad.nn.modules import Linear, Module, ModuleList, Sequential

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Efficient softmax approximation, as ``torch.nn.AdaptiveLogSoftmaxWithLoss``.

    ``forward(input, target)`` returns the named tuple ``(output, loss)``: ``output`` the
    log-probability of each target (shape ``(N,)``, or ``()`` for a 1-D input and a 0-D
    target) and ``loss`` the mean negative log-likelihood. ``log_prob(input)`` gives the
    full ``(N, n_classes)`` log-probabilities and ``predict(input)`` the most likely
    class per row.

    ``cutoffs`` must be sorted unique integers in ``[1, n_classes - 1]``; the head has
    ``cutoffs[0] + len(cutoffs)`` outputs (bias only with ``head_bias=True``) and tail
    cluster ``i`` is ``Sequential(Linear(in_features, in_features // div_value ** (i+1),
    bias=False), Linear(hidden, size_i, bias=False))``.
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        if (cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > (n_classes - 1) or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers "
                             "sorted in an increasing order, where each value is between "
                             "1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(self.in_features, self.head_size, bias=self.head_bias,
                           device=device, dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hsz = int(self.in_features // (self.div_value ** (i + 1)))
            osz = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(self.in_features, hsz, bias=False, device=device, dtype=dtype),
                Linear(hsz, osz, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        """Redraw the head's and every tail layer's parameters."""
        self.head.reset_parameters()
        for i2h, h2o in self.tail:
            i2h.reset_parameters()
            h2o.reset_parameters()

    def forward(self, input_, target_):
        targ_dim = target_.dim()
        if targ_dim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   "inputs with size %s" % (tuple(input_.shape),))
        elif targ_dim == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   "inputs with size %s" % (tuple(input_.shape),))
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")

        is_batched = targ_dim > 0
        input = input_ if is_batched else input_.unsqueeze(0)
        target = target_ if is_batched else target_.unsqueeze(0)

        used_rows = 0
        batch_size = target.shape[0]
        output = input.new_zeros(batch_size)
        gather_inds = target.new_empty(batch_size)

        cutoff_values = [0] + self.cutoffs
        for i in range(len(cutoff_values) - 1):
            low_idx = cutoff_values[i]
            high_idx = cutoff_values[i + 1]
            target_mask = (target >= low_idx) & (target < high_idx)
            row_indices = target_mask.nonzero().squeeze()
            if row_indices.numel() == 0:
                continue
            if i == 0:
                gather_inds.index_copy_(0, row_indices, target[target_mask])
            else:
                relative_target = target[target_mask] - low_idx
                input_subset = input.index_select(0, row_indices)
                cluster_output = self.tail[i - 1](input_subset)
                cluster_index = self.shortlist_size + i - 1
                gather_inds.index_fill_(0, row_indices, cluster_index)
                cluster_logprob = F.log_softmax(cluster_output, dim=1)
                local_logprob = cluster_logprob.gather(1, relative_target.unsqueeze(1))
                output.index_copy_(0, row_indices, local_logprob.squeeze(1))
            used_rows += row_indices.numel()

        if used_rows != batch_size:
            raise RuntimeError("Target values should be in [0, %d], but values in range "
                               "[%s, %s] were found. " % (self.n_classes - 1,
                                                          target.min().item(),
                                                          target.max().item()))

        head_output = self.head(input)
        head_logprob = F.log_softmax(head_output, dim=1)
        output = output + head_logprob.gather(1, gather_inds.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        if not is_batched:
            output = output.squeeze(0)
        return _ASMoutput(output, loss)

    def _get_full_log_prob(self, input, head_output):
        out = input.new_empty((head_output.shape[0], self.n_classes))
        head_logprob = F.log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head_logprob[:, :self.shortlist_size]
        for i, (start_idx, stop_idx) in enumerate(itertools.pairwise(self.cutoffs)):
            cluster_output = self.tail[i](input)
            cluster_logprob = F.log_softmax(cluster_output, dim=1)
            output_logprob = cluster_logprob + head_logprob[:, self.shortlist_size + i
                                                            ].unsqueeze(1)
            out[:, start_idx:stop_idx] = output_logprob
        return out

    def log_prob(self, input):
        """The ``(N, n_classes)`` log-probabilities of every class for ``input``
        ``(N, in_features)``."""
        head_output = self.head(input)
        return self._get_full_log_prob(input, head_output)

    def predict(self, input):
        """The most likely class of each row of ``input`` ``(N, in_features)``: the head's
        argmax when it is in the shortlist, else the argmax of the full log-probabilities
        (computed only for the rows that need it), as torch's."""
        head_output = self.head(input)
        output = argmax(head_output, dim=1)
        not_in_shortlist = output >= self.shortlist_size
        all_in_shortlist = not bool(not_in_shortlist.any())
        if all_in_shortlist:
            return output
        if bool(not_in_shortlist.all()):
            log_prob = self._get_full_log_prob(input, head_output)
            return argmax(log_prob, dim=1)
        log_prob = self._get_full_log_prob(input[not_in_shortlist],
                                           head_output[not_in_shortlist])
        output[not_in_shortlist] = argmax(log_prob, dim=1)
        return output

    def extra_repr(self):
        return ""
