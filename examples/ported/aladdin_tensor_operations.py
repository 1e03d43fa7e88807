"""Port of aladdinpersson/Machine-Learning-Collection
``ML/Pytorch/linkedin_posts/tensor_operations/*.py``: ``cat_vs_stack.py``,
``torch_matrix_mult.py``, ``transpose_vs_permute.py``, ``bmm_einsum_matmul.py`` (a
``utils.benchmark.Timer`` per method, ``Compare``) and ``float64_float32_float16.py``.

Machine-Learning-Collection is MIT-licensed, Copyright (c) 2020 Aladdin Persson.

Ported by changing the imports (``import pyad as torch``). Each file is a function of the
namespace returning the values it computes; the sizes are keywords (smaller in the
tests: ``torch_matrix_mult``'s 2**10, the benchmark's 10x64x128x32 and its 100 runs);
``benchmark.Compare(results).print()`` prints through ``log``. The benchmark's setup
string imports ``torch``: the port passes the namespace in ``globals`` and leaves the
import out of the string (a timer of pyad would otherwise time torch).
``float64_float32_float16.py`` times with ``torch.cuda.Event`` and
``torch.cuda.synchronize``: CUDA-only, it runs where CUDA is available and is left out
on the CPU (``measure_performance`` is returned for the caller).

Run it with ``python examples/ported/aladdin_tensor_operations.py``.
"""


def cat_vs_stack(torch):
    # ===== USING torch.cat =====
    # torch.cat concatenates tensors along an existing axis.
    t1 = torch.randn(2, 3)
    t2 = torch.randn(2, 3)

    cat_dim0 = torch.cat((t1, t2), dim=0) # shape: (4, 3)
    cat_dim1 = torch.cat((t1, t2), dim=1) # shape: (2, 6)

    # ===== USING torch.stack =====
    # torch.stack concatenates tensors along a new axis, not existing one.
    stack_dim0 = torch.stack((t1, t2), dim=0) # shape: 2x2x3
    stack_dim2 = torch.stack((t1, t2), dim=2) # shape: 2x3x2
    return dict(t1=t1, t2=t2, cat_dim0=cat_dim0, cat_dim1=cat_dim1, stack_dim0=stack_dim0,
                stack_dim2=stack_dim2)


def torch_matrix_mult(torch, size=2**10):
    # Create two random matrices
    a = torch.rand(size, size)
    b = torch.rand(size, size)

    # using mm (note only works for 2D tensors)
    c = torch.mm(a, b)
    c_mm = c

    # using matmul
    c = torch.matmul(a, b)
    c_matmul = c

    # using @ operator (note exact same as matmul)
    c = a @ b
    return dict(a=a, b=b, mm=c_mm, matmul=c_matmul, at=c)


def transpose_vs_permute(torch):
    # Create a 3D tensor with shape (2, 3, 4)
    tensor = torch.rand(2, 3, 4)

    # We'll swap the first and second dimension using torch.transpose
    transposed = tensor.transpose(0, 1)  # shape: 3x2x4

    # Now let's permute the tensor dimensions with torch.permute
    permuted = tensor.permute(2, 0, 1)  # shape: 4x2x3
    permuted_like_transpose = tensor.permute(1, 0, 2) # shape: 3x2x4
    return dict(tensor=tensor, transposed=transposed, permuted=permuted,
                permuted_like_transpose=permuted_like_transpose)


def bmm_einsum_matmul(torch, n_batch=10, n=64, m=128, k=32, num_runs=100, log=print):
    benchmark = torch.utils.benchmark

    # Setup code as a string to be reused across benchmarks
    setup_code = (
        f'x = torch.randn({n_batch}, {n}, {m}); '
        f'y = torch.randn({n_batch}, {m}, {k})')

    # Number of threads from torch, reused in all timers.
    num_threads = torch.get_num_threads()

    # A list of methods and their stmt strings for the benchmark
    methods = [
        ('bmm', 'torch.bmm(x, y)'),
        ('matmul', 'torch.matmul(x, y)'),
        ('einsum', "torch.einsum('bnm,bmk->bnk', x, y)"),
    ]

    # Create benchmark objects and run them, collecting the results.
    results = [
        benchmark.Timer(
            stmt=stmt,
            setup=setup_code,
            globals={"torch": torch},
            num_threads=num_threads,
            label="Batched Matrix Multiplication",
            sub_label=f"Method: {label}",
            description=f"{n_batch}x{n}x{m}x{k}",
        ).timeit(num_runs)
        for label, stmt in methods
    ]

    # Group the results into a Compare object and print the results table.
    compare = benchmark.Compare(results)
    log(str(compare))
    return results


def float64_float32_float16(torch, n=2**11, num_runs=100, log=print):
    device = "cuda" if torch.cuda.is_available() else "cpu"

    def measure_performance(matrix_type, n, device, num_runs=100):
        matrix = torch.randn(n, n, dtype=matrix_type, device=device)
        start_event = torch.cuda.Event(enable_timing=True)
        end_event = torch.cuda.Event(enable_timing=True)

        # Warming up
        for _ in range(5):
            torch.matmul(matrix, matrix)

        # Measure performance
        start_event.record()
        for _ in range(num_runs):
            torch.matmul(matrix, matrix)
        end_event.record()

        # Synchronizes events to ensure the time is measured correctly
        torch.cuda.synchronize()
        return start_event.elapsed_time(end_event) / num_runs

    if device != "cuda":
        return measure_performance

    # Dictionary to store execution time for different data types
    execution_times = {
        'float16': measure_performance(torch.float16, n, device, num_runs),
        'float32': measure_performance(torch.float32, n, device, num_runs),
        'float64': measure_performance(torch.float64, n, device, num_runs),
    }

    log(f'Execution time ({device}):')
    for dtype, time in execution_times.items():
        log(f'{dtype}: {time:.6f} ms')
    return execution_times


def run(torch, size=2**10, n_batch=10, n=64, m=128, k=32, num_runs=100, init=None,
        log=print):
    return dict(cat_vs_stack=cat_vs_stack(torch),
                torch_matrix_mult=torch_matrix_mult(torch, size),
                transpose_vs_permute=transpose_vs_permute(torch),
                bmm_einsum_matmul=bmm_einsum_matmul(torch, n_batch, n, m, k, num_runs, log),
                float64_float32_float16=float64_float32_float16(torch, log=log))


if __name__ == "__main__":
    import pyad as torch
    run(torch, num_runs=10)
