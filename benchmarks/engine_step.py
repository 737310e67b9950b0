"""Benchmark: one training step of micrograd's own demo, autograd_viz vs micrograd.

The workload is micrograd's demo.ipynb: MLP(2, [16, 16, 1]) with a linear output
on 100 two-moons points, SVM max-margin loss + 1e-4·L2, then forward, zero_grad,
backward and an SGD update. Each engine runs in its own process (one engine's
garbage slows the other's collections when they share one), the rounds
alternate, and the cyclic garbage collector stays on, as users have it. The
floor is the same forward arithmetic in plain Python floats.

    python benchmarks/engine_step.py            # needs: pip install -e ".[bench]"
    python benchmarks/engine_step.py --rounds 5
    python benchmarks/engine_step.py --baseline /tmp/old  # vs the engine of another checkout

`--baseline DIR` also times the autograd_viz found in DIR (e.g. `git worktree add /tmp/old
<commit>`) in the same alternating rounds, so a refactor's cost is a ratio from one run.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import tracemalloc


def two_moons(n: int = 100, noise: float = 0.1, seed: int = 1337):
    """sklearn's make_moons, rebuilt with numpy so the benchmark needs no sklearn."""
    import numpy as np

    rng = np.random.default_rng(seed)
    n_out, n_in = n // 2, n - n // 2
    t_out, t_in = np.linspace(0, np.pi, n_out), np.linspace(0, np.pi, n_in)
    X = np.vstack(
        [
            np.c_[np.cos(t_out), np.sin(t_out)],
            np.c_[1 - np.cos(t_in), 1 - np.sin(t_in) - 0.5],
        ]
    )
    X += rng.normal(scale=noise, size=X.shape)
    y = np.r_[-np.ones(n_out), np.ones(n_in)]
    return X.tolist(), y.tolist()


def make_model(engine: str):
    if engine == "micrograd":
        import random

        from micrograd.engine import Value
        from micrograd.nn import MLP

        random.seed(1337)
        return Value, MLP(2, [16, 16, 1])
    from autograd_viz import MLP, Value

    return Value, MLP(2, [16, 16, 1], linear_output=True, seed=1337)


def loss(Value, model, X, y):
    inputs = [[Value(a), Value(b)] for a, b in X]
    scores = [model(x) for x in inputs]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    return data_loss + reg_loss


def step(Value, model, X, y, lr: float = 0.5) -> float:
    total = loss(Value, model, X, y)
    model.zero_grad()
    total.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return total.data


def float_forward(weights, X, y) -> float:
    """The same forward arithmetic on plain floats: the floor for any scalar engine."""

    def neuron(w, b, x, relu):
        act = sum((wi * xi for wi, xi in zip(w, x)), b)
        return max(0.0, act) if relu else act

    losses = []
    for (a, b), yi in zip(X, y):
        x = [a, b]
        for li, layer in enumerate(weights):
            x = [neuron(w, bias, x, li < len(weights) - 1) for w, bias in layer]
        losses.append(max(0.0, 1 + -yi * x[0]))
    data_loss = sum(losses) * (1.0 / len(losses))
    flat = [v for layer in weights for w, b in layer for v in (*w, b)]
    return data_loss + 1e-4 * sum(p * p for p in flat)


def run_worker(engine: str, steps: int) -> dict:
    X, y = two_moons()
    if engine == "floats":
        import random

        rng = random.Random(1337)
        sizes = [2, 16, 16, 1]
        weights = [
            [([rng.uniform(-1, 1) for _ in range(sizes[i])], 0.0) for _ in range(sizes[i + 1])]
            for i in range(3)
        ]
        times = []
        for _ in range(steps):
            t0 = time.perf_counter()
            float_forward(weights, X, y)
            times.append(time.perf_counter() - t0)
        return {"times": times}

    Value, model = make_model(engine)
    step(Value, model, X, y)  # warm-up
    times, cpu = [], []
    for _ in range(steps):
        t0, c0 = time.perf_counter(), time.process_time()
        step(Value, model, X, y)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)  # unlike wall time, not the waits of a busy machine

    # bytes per node: memory held by one loss graph, divided by its node count
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    total = loss(Value, model, X, y)
    held = tracemalloc.get_traced_memory()[0] - before
    tracemalloc.stop()
    nodes = count_nodes(total)
    return {"times": times, "cpu": cpu, "bytes_per_node": held / nodes, "nodes": nodes}


def count_nodes(root) -> int:
    seen, stack = set(), [root]
    while stack:
        v = stack.pop()
        if id(v) not in seen:
            seen.add(id(v))
            stack.extend(v.parents if hasattr(v, "parents") else v._prev)
    return len(seen)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per engine")
    parser.add_argument("--steps", type=int, default=3, help="timed steps per round")
    parser.add_argument("--worker", choices=["autograd_viz", "micrograd", "floats"])
    parser.add_argument("--baseline", metavar="DIR", help="also time the autograd_viz in DIR")
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(run_worker(args.worker, args.steps)))
        return

    # the baseline runs right after this checkout in each round, so both see the same load
    engines = ["autograd_viz", *(["baseline"] if args.baseline else []), "micrograd", "floats"]
    if args.baseline and not os.path.isfile(f"{args.baseline}/autograd_viz/engine.py"):
        parser.error(f"--baseline {args.baseline!r} holds no autograd_viz/engine.py")
    results: dict[str, dict] = {e: {"times": []} for e in engines}
    for r in range(args.rounds):
        for engine in results:
            env = dict(os.environ)
            if engine == "baseline":  # the other checkout's package comes first on the path
                env["PYTHONPATH"] = args.baseline
            worker = "autograd_viz" if engine == "baseline" else engine
            out = subprocess.run(
                [sys.executable, __file__, "--worker", worker, "--steps", str(args.steps)],
                check=True,
                capture_output=True,
                text=True,
                env=env,
            )
            data = json.loads(out.stdout)
            results[engine]["times"] += data["times"]
            if "cpu" in data:
                results[engine].setdefault("cpu", []).append(statistics.median(data["cpu"]))
            for key in ("bytes_per_node", "nodes"):
                if key in data:
                    results[engine][key] = data[key]
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)

    med = {e: statistics.median(d["times"]) for e, d in results.items()}
    print("micrograd demo step: MLP(2,[16,16,1]), 100 two-moons points, SVM loss + L2, GC on")
    print(f"{'engine':<14}{'median step':>14}{'bytes/node':>12}{'nodes':>8}")
    for e, d in results.items():
        bpn = f"{d['bytes_per_node']:.0f}" if "bytes_per_node" in d else "-"
        print(f"{e:<14}{med[e] * 1e3:>11.1f} ms{bpn:>12}{d.get('nodes', '-'):>8}")
    speedup = med["micrograd"] / med["autograd_viz"]
    floor = med["autograd_viz"] / med["floats"]
    print(f"speed-up over micrograd: {speedup:.1f}x (target >= 10x)")
    print(f"bytes per node: {results['autograd_viz']['bytes_per_node']:.0f} (target <= 300)")
    print(f"step / plain-float forward (floor): {floor:.1f}x")
    if args.baseline:  # CPU time, paired by round: the same load on both halves of a pair
        ours, theirs = results["autograd_viz"]["cpu"], results["baseline"]["cpu"]
        ratios = sorted(a / b for a, b in zip(ours, theirs))
        wall = med["autograd_viz"] / med["baseline"]
        print(
            f"this checkout / baseline ({args.baseline}): {statistics.median(ratios):.3f}x "
            f"the CPU time of a step (median of {len(ratios)} rounds, "
            f"{ratios[0]:.3f}-{ratios[-1]:.3f}; wall time {wall:.3f}x)"
        )


if __name__ == "__main__":
    main()
