"""Port of MorvanZhou/PyTorch-Tutorial ``tutorial-contents/202_variable.py``:
``Variable(tensor, requires_grad=True)``, the mean of its square and its gradient.

PyTorch-Tutorial is MIT-licensed, Copyright (c) 2017 Morvan Zhou.

Ported by changing the imports (``import pyad as torch``; ``from torch.autograd import
Variable`` is ``Variable = torch.autograd.Variable``). The last line's
``variable.data.numpy()`` is ``variable.detach().numpy()`` (pyad's ``.data`` is the
NumPy array itself; ``data_numpy=True`` runs the verbatim line). ``print`` is ``log``;
``run`` returns what the text prints.

Run it with ``python examples/ported/morvan_202_variable.py``.
"""


def run(torch, data_numpy=False, log=print):
    Variable = torch.autograd.Variable
    out = {}

    # Variable in torch is to build a computational graph,
    # but this graph is dynamic compared with a static graph in Tensorflow or Theano.
    # So torch does not have placeholder, torch can just pass variable to the computational graph.

    tensor = torch.FloatTensor([[1,2],[3,4]])            # build a tensor
    variable = Variable(tensor, requires_grad=True)      # build a variable, usually for compute gradients

    log(tensor)       # [torch.FloatTensor of size 2x2]
    log(variable)     # [torch.FloatTensor of size 2x2]
    out["variable"] = (variable.requires_grad, variable.is_leaf, tensor.requires_grad)

    # till now the tensor and variable seem the same.
    # However, the variable is a part of the graph, it's a part of the auto-gradient.

    t_out = torch.mean(tensor*tensor)       # x^2
    v_out = torch.mean(variable*variable)   # x^2
    log(t_out)
    log(v_out)    # 7.5
    out["t_out"], out["v_out"] = t_out, v_out

    v_out.backward()    # backpropagation from v_out
    # v_out = 1/4 * sum(variable*variable)
    # the gradients w.r.t the variable, d(v_out)/d(variable) = 1/4*2*variable = variable/2
    log(variable.grad)
    '''
     0.5000  1.0000
     1.5000  2.0000
    '''
    out["grad"] = variable.grad

    log(variable)     # this is data in variable format
    log(variable.data)    # this is data in tensor format

    if data_numpy:
        out["numpy"] = variable.data.numpy()    # numpy format
    else:
        out["numpy"] = variable.detach().numpy()    # numpy format
    log(out["numpy"])
    return out


if __name__ == "__main__":
    import pyad as torch
    run(torch)
