"""Port of the PyTorch tutorial "The Fundamentals of Autograd" (pytorch/tutorials
``beginner_source/introyt/autogradyt_tutorial.py``): ``linspace(requires_grad=True)``,
``grad_fn`` and walking ``next_functions``; ``backward`` into a leaf's ``grad``; a tiny
model's gradients and one SGD step, and gradients accumulating without ``zero_grad``;
``requires_grad = False``, ``no_grad`` (as a context and a decorator), ``detach``; the
autograd profiler; ``backward`` of a vector; and the high-level
``autograd.functional`` ``jacobian`` and ``vjp``.

Ported by changing the imports (``import pyad as torch``). The tutorial's ``print`` is
``run``'s ``log`` and ``run`` returns every value it prints or its notebook cells show
(the ``jacobian``/``vjp`` results). Other lines that differ: the ``matplotlib`` plots
(``plt.plot(a.detach(), b.detach())``, of values ``run`` returns) are left out; ``model``
goes through ``init`` (the tests load torch's initial weights); the original's
``while y.data.norm() < 1000`` is written ``while y.detach().norm() < 1000`` (in pyad
``.data`` is the NumPy array), and ``data_norm=True`` runs the original line; the
profiler's table is returned as ``(name, calls)`` pairs too. ``walk="first_node"`` walks
``next_functions`` through the entry that is a node where the text indexes ``[0][0]``
(the same entries in torch).

Run it with ``python examples/ported/autogradyt_tutorial.py``.
"""
import math


def run(torch, init=None, data_norm=False, walk="index", log=print):
    """Return a dict of every value the tutorial prints."""
    r = {}

    def node_name(node):
        return None if node is None else type(node).__name__.rstrip("0123456789")

    def names(next_functions):
        return tuple((node_name(f), i) for f, i in next_functions)

    def first(next_functions):
        if walk == "index":
            return next_functions[0][0]
        return next(f for f, _ in next_functions if f is not None)

    a = torch.linspace(0., 2. * math.pi, steps=25, requires_grad=True)
    log(a)
    r["a"] = a

    b = torch.sin(a)

    log(b)
    r["b"] = b

    c = 2 * b
    log(c)

    d = c + 1
    log(d)
    r.update(c=c, d=d)

    out = d.sum()
    log(out)
    r["out"] = out

    log('d:')
    log(d.grad_fn)
    log(d.grad_fn.next_functions)
    log(first(d.grad_fn.next_functions).next_functions)
    log(first(first(d.grad_fn.next_functions).next_functions).next_functions)
    log(first(first(first(d.grad_fn.next_functions).next_functions).next_functions)
        .next_functions)
    log('\nc:')
    log(c.grad_fn)
    log('\nb:')
    log(b.grad_fn)
    log('\na:')
    log(a.grad_fn)
    r["graph"] = (
        node_name(d.grad_fn), names(d.grad_fn.next_functions),
        names(first(d.grad_fn.next_functions).next_functions),
        names(first(first(d.grad_fn.next_functions).next_functions).next_functions),
        names(first(first(first(d.grad_fn.next_functions).next_functions).next_functions)
              .next_functions),
        node_name(c.grad_fn), node_name(b.grad_fn), node_name(a.grad_fn))

    out.backward()
    log(a.grad)
    r["a_grad"] = a.grad

    BATCH_SIZE = 16
    DIM_IN = 1000
    HIDDEN_SIZE = 100
    DIM_OUT = 10

    class TinyModel(torch.nn.Module):

        def __init__(self):
            super(TinyModel, self).__init__()

            self.layer1 = torch.nn.Linear(1000, 100)
            self.relu = torch.nn.ReLU()
            self.layer2 = torch.nn.Linear(100, 10)

        def forward(self, x):
            x = self.layer1(x)
            x = self.relu(x)
            x = self.layer2(x)
            return x

    some_input = torch.randn(BATCH_SIZE, DIM_IN, requires_grad=False)
    ideal_output = torch.randn(BATCH_SIZE, DIM_OUT, requires_grad=False)

    model = TinyModel()
    if init is not None:
        init(model)

    log(model.layer2.weight[0][0:10]) # just a small slice
    log(model.layer2.weight.grad)
    r["weight_before"] = model.layer2.weight[0][0:10]
    r["grad_before_is_None"] = model.layer2.weight.grad is None

    optimizer = torch.optim.SGD(model.parameters(), lr=0.001)

    prediction = model(some_input)

    loss = (ideal_output - prediction).pow(2).sum()
    log(loss)
    r["loss"] = loss

    loss.backward()
    log(model.layer2.weight[0][0:10])
    log(model.layer2.weight.grad[0][0:10])
    r["weight_after_backward"] = model.layer2.weight[0][0:10]
    r["grad_after_backward"] = model.layer2.weight.grad[0][0:10].clone()

    optimizer.step()
    log(model.layer2.weight[0][0:10])
    log(model.layer2.weight.grad[0][0:10])
    r["weight_after_step"] = model.layer2.weight[0][0:10]
    r["grad_after_step"] = model.layer2.weight.grad[0][0:10].clone()

    log(model.layer2.weight.grad[0][0:10])

    losses = []
    for i in range(0, 5):
        prediction = model(some_input)
        loss = (ideal_output - prediction).pow(2).sum()
        loss.backward()
        losses.append(loss)

    log(model.layer2.weight.grad[0][0:10])
    r["accumulated_losses"] = losses
    r["accumulated_grad"] = model.layer2.weight.grad[0][0:10].clone()

    optimizer.zero_grad(set_to_none=False)

    log(model.layer2.weight.grad[0][0:10])
    r["grad_after_zero_grad"] = model.layer2.weight.grad[0][0:10]

    a = torch.ones(2, 3, requires_grad=True)
    log(a)

    b1 = 2 * a
    log(b1)

    a.requires_grad = False
    b2 = 2 * a
    log(b2)
    r.update(b1=b1, b2=b2, b1_requires_grad=b1.requires_grad,
             b2_requires_grad=b2.requires_grad)

    a = torch.ones(2, 3, requires_grad=True) * 2
    b = torch.ones(2, 3, requires_grad=True) * 3

    c1 = a + b
    log(c1)

    with torch.no_grad():
        c2 = a + b

    log(c2)

    c3 = a * b
    log(c3)
    r.update(no_grad_c=(c1, c2, c3),
             no_grad_c_requires_grad=(c1.requires_grad, c2.requires_grad,
                                      c3.requires_grad))

    def add_tensors1(x, y):
        return x + y

    @torch.no_grad()
    def add_tensors2(x, y):
        return x + y

    a = torch.ones(2, 3, requires_grad=True) * 2
    b = torch.ones(2, 3, requires_grad=True) * 3

    c1 = add_tensors1(a, b)
    log(c1)

    c2 = add_tensors2(a, b)
    log(c2)
    r.update(decorator_c=(c1, c2),
             decorator_c_requires_grad=(c1.requires_grad, c2.requires_grad))

    x = torch.rand(5, requires_grad=True)
    y = x.detach()

    log(x)
    log(y)
    r.update(detach_x=x, detach_y=y, detach_requires_grad=(x.requires_grad,
                                                           y.requires_grad))

    device = torch.device('cpu')
    run_on_gpu = False
    if torch.cuda.is_available():
        device = torch.device('cuda')
        run_on_gpu = True

    x = torch.randn(2, 3, requires_grad=True)
    y = torch.rand(2, 3, requires_grad=True)
    z = torch.ones(2, 3, requires_grad=True)

    with torch.autograd.profiler.profile(use_cuda=run_on_gpu) as prf:
        for _ in range(1000):
            z = (z / x) * y

    log(prf.key_averages().table(sort_by='self_cpu_time_total'))
    r["profiled_z"] = z
    r["profile"] = sorted((e.key.split("::")[-1], e.count) for e in prf.key_averages())

    x = torch.randn(3, requires_grad=True)

    y = x * 2
    if data_norm:
        while y.data.norm() < 1000:
            y = y * 2
    else:
        while y.detach().norm() < 1000:
            y = y * 2

    log(y)
    r["doubled_y"] = y

    v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float) # stand-in for gradients
    y.backward(v)

    log(x.grad)
    r["doubled_x_grad"] = x.grad

    def exp_adder(x, y):
        return 2 * x.exp() + 3 * y

    inputs = (torch.rand(1), torch.rand(1)) # arguments for the function
    log(inputs)
    r["jacobian_1"] = (inputs, torch.autograd.functional.jacobian(exp_adder, inputs))

    inputs = (torch.rand(3), torch.rand(3)) # arguments for the function
    log(inputs)
    r["jacobian_3"] = (inputs, torch.autograd.functional.jacobian(exp_adder, inputs))

    def do_some_doubling(x):
        y = x * 2
        if data_norm:
            while y.data.norm() < 1000:
                y = y * 2
        else:
            while y.detach().norm() < 1000:
                y = y * 2
        return y

    inputs = torch.randn(3)
    my_gradients = torch.tensor([0.1, 1.0, 0.0001])
    r["vjp"] = (inputs, torch.autograd.functional.vjp(do_some_doubling, inputs,
                                                      v=my_gradients))
    return r


if __name__ == "__main__":
    import pyad as torch
    run(torch, walk="first_node")
