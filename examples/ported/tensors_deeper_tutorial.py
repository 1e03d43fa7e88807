"""Port of the PyTorch tutorial "Introduction to PyTorch Tensors" (pytorch/tutorials
``beginner_source/introyt/tensors_deeper_tutorial.py``): ``empty``/``zeros``/``ones``/
``rand`` and ``manual_seed``; the ``*_like`` factories; ``tensor`` of nested lists and
tuples; dtypes and ``.to``; arithmetic with scalars and tensors; broadcasting; common,
trigonometric, bitwise, comparison, reduction and linear-algebra functions (``cross``,
``svd``); in-place ops (``torch.sin_``, ``add_``, ``mul_``); ``out=``; copying, ``clone``
and ``detach``; devices; ``squeeze``/``unsqueeze`` (and in place); ``reshape``; and the
NumPy bridge both ways (shared memory).

Ported by changing the imports (``import pyad as torch``). The tutorial's ``print`` is
``run``'s ``log``, and ``run`` returns every value it prints (and the asserts it makes
are kept). Its random tensors come from the namespace's ``rand``, so the tests can give
torch and pyad the same numbers. The cells the tutorial shows but does not run (the
ones that raise on purpose) are left out, as the text leaves them out.

pyad's ``matmul`` and ``rand`` take no ``out=`` keyword yet, so the lines
``d = torch.matmul(a, b, out=c)`` and ``torch.rand(2, 2, out=c)`` raise TypeError on
pyad: they are kept as written, and running the file (as the tests) passes a namespace
proxy whose ``matmul``/``rand`` write the result into ``out``.

Run it with ``python examples/ported/tensors_deeper_tutorial.py``.
"""
import math


def run(torch, log=print):
    """Return a dict of every value the tutorial prints."""
    r = {}

    x = torch.empty(3, 4)
    log(type(x))
    log(x)
    r["empty_is_Tensor"] = type(x) is torch.Tensor
    r["empty_shape"] = tuple(x.shape)
    r["empty_dtype"] = str(x.dtype).split(".")[-1]

    zeros = torch.zeros(2, 3)
    log(zeros)

    ones = torch.ones(2, 3)
    log(ones)

    torch.manual_seed(1729)
    random = torch.rand(2, 3)
    log(random)
    r.update(zeros=zeros, ones=ones, random=random)

    torch.manual_seed(1729)
    random1 = torch.rand(2, 3)
    log(random1)

    random2 = torch.rand(2, 3)
    log(random2)

    torch.manual_seed(1729)
    random3 = torch.rand(2, 3)
    log(random3)

    random4 = torch.rand(2, 3)
    log(random4)
    r.update(random1=random1, random2=random2, random3=random3, random4=random4)

    x = torch.empty(2, 2, 3)
    log(x.shape)
    log(x)

    empty_like_x = torch.empty_like(x)
    log(empty_like_x.shape)
    log(empty_like_x)

    zeros_like_x = torch.zeros_like(x)
    log(zeros_like_x.shape)
    log(zeros_like_x)

    ones_like_x = torch.ones_like(x)
    log(ones_like_x.shape)
    log(ones_like_x)

    rand_like_x = torch.rand_like(x)
    log(rand_like_x.shape)
    log(rand_like_x)
    r.update(x_shape=tuple(x.shape), empty_like_x_shape=tuple(empty_like_x.shape),
             empty_like_x_dtype=str(empty_like_x.dtype).split(".")[-1],
             zeros_like_x=zeros_like_x, ones_like_x=ones_like_x, rand_like_x=rand_like_x)

    some_constants = torch.tensor([[3.1415926, 2.71828], [1.61803, 0.0072897]])
    log(some_constants)

    some_integers = torch.tensor((2, 3, 5, 7, 11, 13, 17, 19))
    log(some_integers)

    more_integers = torch.tensor(((2, 4, 6), [3, 6, 9]))
    log(more_integers)
    r.update(some_constants=some_constants, some_integers=some_integers,
             more_integers=more_integers)

    a = torch.ones((2, 3), dtype=torch.int16)
    log(a)

    b = torch.rand((2, 3), dtype=torch.float64) * 20.
    log(b)

    c = b.to(torch.int32)
    log(c)
    r.update(int16_ones=a, float64_rand=b, to_int32=c)

    ones = torch.zeros(2, 2) + 1
    twos = torch.ones(2, 2) * 2
    threes = (torch.ones(2, 2) * 7 - 1) / 2
    fours = twos ** 2
    sqrt2s = twos ** 0.5

    log(ones)
    log(twos)
    log(threes)
    log(fours)
    log(sqrt2s)
    r.update(ones2=ones, twos=twos, threes=threes, fours=fours, sqrt2s=sqrt2s)

    powers2 = twos ** torch.tensor([[1, 2], [3, 4]])
    log(powers2)

    fives = ones + fours
    log(fives)

    dozens = threes * fours
    log(dozens)
    r.update(powers2=powers2, fives=fives, dozens=dozens)

    rand = torch.rand(2, 4)
    doubled = rand * (torch.ones(1, 4) * 2)

    log(rand)
    log(doubled)
    r.update(rand=rand, doubled=doubled)

    a =     torch.ones(4, 3, 2)

    b = a * torch.rand(   3, 2) # 3rd & 2nd dims identical to a, dim 1 absent
    log(b)

    c = a * torch.rand(   3, 1) # 3rd dim = 1, 2nd dim identical to a
    log(c)

    d = a * torch.rand(   1, 2) # 3rd dim identical to a, 2nd dim = 1
    log(d)
    r.update(broadcast_b=b, broadcast_c=c, broadcast_d=d)

    # common functions
    a = torch.rand(2, 4) * 2 - 1
    log('Common functions:')
    log(torch.abs(a))
    log(torch.ceil(a))
    log(torch.floor(a))
    log(torch.clamp(a, -0.5, 0.5))
    r.update(common_a=a, abs=torch.abs(a), ceil=torch.ceil(a), floor=torch.floor(a),
             clamp=torch.clamp(a, -0.5, 0.5))

    # trigonometric functions and their inverses
    angles = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    sines = torch.sin(angles)
    inverses = torch.asin(sines)
    log('\nSine and arcsine:')
    log(angles)
    log(sines)
    log(inverses)
    r.update(angles=angles, sines=sines, inverses=inverses)

    # bitwise operations
    log('\nBitwise XOR:')
    b = torch.tensor([1, 5, 11])
    c = torch.tensor([2, 7, 10])
    log(torch.bitwise_xor(b, c))
    r["bitwise_xor"] = torch.bitwise_xor(b, c)

    # comparisons:
    log('\nBroadcasted, element-wise equality comparison:')
    d = torch.tensor([[1., 2.], [3., 4.]])
    e = torch.ones(1, 2)  # many comparison ops support broadcasting!
    log(torch.eq(d, e)) # returns a tensor of type bool
    r["eq"] = torch.eq(d, e)

    # reductions:
    log('\nReduction ops:')
    log(torch.max(d))        # returns a single-element tensor
    log(torch.max(d).item()) # extracts the value from the returned tensor
    log(torch.mean(d))       # average
    log(torch.std(d))        # standard deviation
    log(torch.prod(d))       # product of all numbers
    log(torch.unique(torch.tensor([1, 2, 1, 2, 1, 2]))) # filter unique elements
    r.update(max=torch.max(d), max_item=torch.max(d).item(), mean=torch.mean(d),
             std=torch.std(d), prod=torch.prod(d),
             unique=torch.unique(torch.tensor([1, 2, 1, 2, 1, 2])))

    # vector and linear algebra operations
    v1 = torch.tensor([1., 0., 0.])         # x unit vector
    v2 = torch.tensor([0., 1., 0.])         # y unit vector
    m1 = torch.rand(2, 2)                   # random matrix
    m2 = torch.tensor([[3., 0.], [0., 3.]]) # three times identity matrix

    log('\nVectors & Matrices:')
    log(torch.cross(v2, v1)) # negative of z unit vector (v1 x v2 == -v2 x v1)
    log(m1)
    m3 = torch.matmul(m1, m2)
    log(m3)                  # 3 times m1
    log(torch.svd(m3))       # singular value decomposition
    r.update(cross=torch.cross(v2, v1), m1=m1, m3=m3, svd=tuple(torch.svd(m3)))

    a = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    log('a:')
    log(a)
    log(torch.sin(a))   # this operation creates a new tensor in memory
    log(a)              # a has not changed
    r.update(sin_a=torch.sin(a), a_unchanged=a)

    b = torch.tensor([0, math.pi / 4, math.pi / 2, 3 * math.pi / 4])
    log('\nb:')
    log(b)
    log(torch.sin_(b))  # note the underscore
    log(b)              # b has changed
    r["sin__b"] = b.clone()

    a = torch.ones(2, 2)
    b = torch.rand(2, 2)

    log('Before:')
    log(a)
    log(b)
    r["before_b"] = b.clone()
    log('\nAfter adding:')
    log(a.add_(b))
    log(a)
    log(b)
    r["after_add_a"] = a.clone()
    log('\nAfter multiplying')
    log(b.mul_(b))
    log(b)
    r["after_mul_b"] = b.clone()

    a = torch.rand(2, 2)
    b = torch.rand(2, 2)
    c = torch.zeros(2, 2)
    old_id = id(c)

    log(c)
    d = torch.matmul(a, b, out=c)
    log(c)                # contents of c have changed
    r["out_matmul"] = c.clone()

    assert c is d           # test c & d are same object, not just containing equal values
    assert id(c) == old_id  # make sure that our new c is the same object as the old one

    torch.rand(2, 2, out=c) # works for creation too!
    log(c)                # c has changed again
    assert id(c) == old_id  # still the same object!
    r["out_rand"] = c.clone()

    a = torch.ones(2, 2)
    b = a

    a[0][1] = 561  # we change a...
    log(b)       # ...and b is also altered
    r["label_b"] = b.clone()

    a = torch.ones(2, 2)
    b = a.clone()

    assert b is not a      # different objects in memory...
    log(torch.eq(a, b))  # ...but still with the same contents!
    r["clone_eq"] = torch.eq(a, b)

    a[0][1] = 561          # a changes...
    log(b)               # ...but b is still all ones
    r["clone_b"] = b

    a = torch.rand(2, 2, requires_grad=True) # turn on autograd
    log(a)

    b = a.clone()
    log(b)

    c = a.detach().clone()
    log(c)

    log(a)
    r.update(grad_a=a, grad_b=b, grad_c=c,
             requires_grad=(a.requires_grad, b.requires_grad, c.requires_grad),
             is_leaf=(a.is_leaf, b.is_leaf, c.is_leaf),
             has_grad_fn=(a.grad_fn is not None, b.grad_fn is not None,
                          c.grad_fn is not None))

    if torch.cuda.is_available():
        log('We have a GPU!')
    else:
        log('Sorry, CPU only.')

    if torch.cuda.is_available():
        gpu_rand = torch.rand(2, 2, device='cuda')
        log(gpu_rand)
    else:
        log('Sorry, CPU only.')

    if torch.cuda.is_available():
        my_device = torch.device('cuda')
    else:
        my_device = torch.device('cpu')
    log('Device: {}'.format(my_device))
    r["my_device"] = 'Device: {}'.format(my_device)

    x = torch.rand(2, 2, device=my_device)
    log(x)

    y = torch.rand(2, 2)
    y = y.to(my_device)
    r.update(device_x=x, device_y=y, device_y_type=str(y.device))

    a = torch.rand(3, 226, 226)
    b = a.unsqueeze(0)

    log(a.shape)
    log(b.shape)
    r.update(unsqueeze_a_shape=tuple(a.shape), unsqueeze_b_shape=tuple(b.shape))
    r["unsqueeze_b"] = b

    c = torch.rand(1, 1, 1, 1, 1)
    log(c)
    r["rand_11111"] = c

    a = torch.rand(1, 20)
    log(a.shape)
    log(a)

    b = a.squeeze(0)
    log(b.shape)
    log(b)

    c = torch.rand(2, 2)
    log(c.shape)

    d = c.squeeze(0)
    log(d.shape)
    r.update(squeeze_a=a, squeeze_b=b, squeeze_shapes=(tuple(a.shape), tuple(b.shape),
                                                       tuple(c.shape), tuple(d.shape)))

    a = torch.ones(4, 3, 2)
    b = torch.rand(   3)     # trying to multiply a * b will give a runtime error
    c = b.unsqueeze(1)       # change to a 2-dimensional tensor, adding new dim at the end
    log(c.shape)
    log(a * c)             # broadcasting works again!
    r.update(unsqueeze_c_shape=tuple(c.shape), a_times_c=a * c)

    batch_me = torch.rand(3, 226, 226)
    log(batch_me.shape)
    batch_me.unsqueeze_(0)
    log(batch_me.shape)
    r["batch_me"] = batch_me

    output3d = torch.rand(6, 20, 20)
    log(output3d.shape)

    input1d = output3d.reshape(6 * 20 * 20)
    log(input1d.shape)

    # can also call it as a method on the torch module:
    log(torch.reshape(output3d, (6 * 20 * 20,)).shape)
    r.update(input1d=input1d, reshape_shape=tuple(torch.reshape(output3d,
                                                                (6 * 20 * 20,)).shape))

    import numpy as np

    numpy_array = np.ones((2, 3))
    log(numpy_array)

    pytorch_tensor = torch.from_numpy(numpy_array)
    log(pytorch_tensor)
    r["from_numpy"] = pytorch_tensor.clone()

    pytorch_rand = torch.rand(2, 3)
    log(pytorch_rand)

    numpy_rand = pytorch_rand.numpy()
    log(numpy_rand)
    r["numpy_rand"] = numpy_rand.copy()

    numpy_array[1, 1] = 23
    log(pytorch_tensor)
    r["bridge_tensor"] = pytorch_tensor

    pytorch_rand[1, 1] = 17
    log(numpy_rand)
    r["bridge_numpy"] = numpy_rand
    return r


if __name__ == "__main__":
    import pyad as torch
    import types

    def _with_out(op):
        # torch's out=: the result written into the given tensor, which is returned
        def call(*args, out=None, **kwargs):
            result = op(*args, **kwargs)
            if out is None:
                return result
            with torch.no_grad():
                return out.copy_(result)
        return call

    class _Out(types.SimpleNamespace):
        def __getattr__(self, name):
            return getattr(torch, name)

    run(_Out(matmul=_with_out(torch.matmul), rand=_with_out(torch.rand)))
