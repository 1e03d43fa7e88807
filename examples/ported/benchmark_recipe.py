"""Port of the PyTorch recipe "PyTorch Benchmark" (pytorch/tutorials
``recipes_source/recipes/benchmark.py``): batched dot products timed with
``timeit.Timer`` and with ``torch.utils.benchmark.Timer`` (``timeit``, labels and
``num_threads``, ``blocked_autorange``), a ``Compare`` table over input sizes and thread
counts (trimmed and colorized), and an A/B test through ``pickle`` with ``env``.

Ported by changing the imports (``import pyad as torch``,
``benchmark = torch.utils.benchmark``). Other changes: the statements' setup
``from __main__ import batched_dot_mul_sum`` becomes a ``globals`` entry (the functions
live inside ``run``, not in ``__main__``); the CUDA sections, the ``Fuzzer`` sections
(pyad has no fuzzers) and the Callgrind section are left out; the input sizes, thread
counts and ``min_run_time`` are parameters (the text's values are the defaults, section
4 uses ``min_run_time / 5``, the text's default 0.2 s; the
tests and the script use small ones). Each ``print`` is ``log``; ``run`` returns the
Measurements and the printed tables.

Run it with ``python examples/ported/benchmark_recipe.py``.
"""
import pickle
import timeit
from itertools import product


def run(torch, log=print, n=10000, sizes=(1, 64, 1024, 10000), threads=(1, 4, 16, 32),
        min_run_time=1, ab_shapes=((1, 1), (1024, 10000), (10000, 1)), number=100):
    """Return ``{"timeit", "timer", "threaded", "blocked", "results", "compare",
    "compare_trimmed", "ab_results", "ab_compare"}``."""
    benchmark = torch.utils.benchmark
    out = {}

    # 1. Defining functions to benchmark
    def batched_dot_mul_sum(a, b):
        '''Computes batched dot by multiplying and summing'''
        return a.mul(b).sum(-1)

    def batched_dot_bmm(a, b):
        '''Computes batched dot by reducing to ``bmm``'''
        a = a.reshape(-1, 1, a.shape[-1])
        b = b.reshape(-1, b.shape[-1], 1)
        return torch.bmm(a, b).flatten(-3)

    # Input for benchmarking
    x = torch.randn(n, 64)

    # Ensure that both functions compute the same output
    assert batched_dot_mul_sum(x, x).allclose(batched_dot_bmm(x, x))

    # 2. Benchmarking with timeit.Timer
    t0 = timeit.Timer(
        stmt='batched_dot_mul_sum(x, x)',
        globals={'x': x, 'batched_dot_mul_sum': batched_dot_mul_sum})
    t1 = timeit.Timer(
        stmt='batched_dot_bmm(x, x)',
        globals={'x': x, 'batched_dot_bmm': batched_dot_bmm})
    out["timeit"] = [t0.timeit(number) / number, t1.timeit(number) / number]
    log(f'mul_sum(x, x):  {out["timeit"][0] * 1e6:>5.1f} us')
    log(f'bmm(x, x):      {out["timeit"][1] * 1e6:>5.1f} us')

    # 3. Benchmarking with torch.utils.benchmark.Timer
    t0 = benchmark.Timer(
        stmt='batched_dot_mul_sum(x, x)',
        globals={'x': x, 'batched_dot_mul_sum': batched_dot_mul_sum})
    t1 = benchmark.Timer(
        stmt='batched_dot_bmm(x, x)',
        globals={'x': x, 'batched_dot_bmm': batched_dot_bmm})
    out["timer"] = [t0.timeit(number), t1.timeit(number)]
    log(out["timer"][0])
    log(out["timer"][1])

    num_threads = torch.get_num_threads()
    log(f'Benchmarking on {num_threads} threads')
    t0 = benchmark.Timer(
        stmt='batched_dot_mul_sum(x, x)',
        globals={'x': x, 'batched_dot_mul_sum': batched_dot_mul_sum},
        num_threads=num_threads,
        label='Multithreaded batch dot',
        sub_label='Implemented using mul and sum')
    t1 = benchmark.Timer(
        stmt='batched_dot_bmm(x, x)',
        globals={'x': x, 'batched_dot_bmm': batched_dot_bmm},
        num_threads=num_threads,
        label='Multithreaded batch dot',
        sub_label='Implemented using bmm')
    out["threaded"] = [t0.timeit(number), t1.timeit(number)]
    log(out["threaded"][0])
    log(out["threaded"][1])

    # 4. Benchmarking with Blocked Autorange
    m0 = t0.blocked_autorange(min_run_time=min_run_time / 5)
    m1 = t1.blocked_autorange(min_run_time=min_run_time / 5)
    log(m0)
    log(m1)
    log(f"Mean:   {m0.mean * 1e6:6.2f} us")
    log(f"Median: {m0.median * 1e6:6.2f} us")
    out["blocked"] = [m0, m1]

    # 5. Comparing benchmark results
    results = []
    for b, n in product(sizes, sizes):
        # label and sub_label are the rows
        # description is the column
        label = 'Batched dot'
        sub_label = f'[{b}, {n}]'
        x = torch.ones((b, n))
        for num_threads in threads:
            results.append(benchmark.Timer(
                stmt='batched_dot_mul_sum(x, x)',
                globals={'x': x, 'batched_dot_mul_sum': batched_dot_mul_sum},
                num_threads=num_threads,
                label=label,
                sub_label=sub_label,
                description='mul/sum',
            ).blocked_autorange(min_run_time=min_run_time))
            results.append(benchmark.Timer(
                stmt='batched_dot_bmm(x, x)',
                globals={'x': x, 'batched_dot_bmm': batched_dot_bmm},
                num_threads=num_threads,
                label=label,
                sub_label=sub_label,
                description='bmm',
            ).blocked_autorange(min_run_time=min_run_time))
    out["results"] = results

    compare = benchmark.Compare(results)
    compare.print()
    out["compare"] = str(compare)

    compare.trim_significant_figures()
    compare.colorize()
    compare.print()
    out["compare_trimmed"] = str(compare)

    # 6. Saving/Loading benchmark results
    ab_test_results = []
    for env in ('environment A: mul/sum', 'environment B: bmm'):
        for b, n in ab_shapes:
            x = torch.ones((b, n))
            dot_fn = (batched_dot_mul_sum if env == 'environment A: mul/sum'
                      else batched_dot_bmm)
            m = benchmark.Timer(
                stmt='batched_dot(x, x)',
                globals={'x': x, 'batched_dot': dot_fn},
                num_threads=1,
                label='Batched dot',
                description=f'[{b}, {n}]',
                env=env,
            ).blocked_autorange(min_run_time=min_run_time)
            ab_test_results.append(pickle.dumps(m))

    ab_results = [pickle.loads(i) for i in ab_test_results]
    compare = benchmark.Compare(ab_results)
    compare.trim_significant_figures()
    compare.colorize()
    compare.print()
    out["ab_results"] = ab_results
    out["ab_compare"] = str(compare)

    # And just to show that we can round trip all of the results from earlier:
    round_tripped_results = pickle.loads(pickle.dumps(results))
    assert(str(benchmark.Compare(results)) == str(benchmark.Compare(round_tripped_results)))
    return out


if __name__ == "__main__":
    import pyad as torch
    run(torch, n=1000, sizes=(1, 64), threads=(1, 2), min_run_time=0.05,
        ab_shapes=((1, 1), (64, 100)))
