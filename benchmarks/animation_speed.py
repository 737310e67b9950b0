"""Benchmark: building a whole backprop animation vs one `draw()` of the same graph.

The issue's budget: a ~20-step animation may cost at most 1.5× one drawing, because
every frame comes from ONE graphviz layout. Measured, as medians of several runs:

* `draw`: `draw(root).svg()` — one DOT build and one `dot` run (the unit);
* `frames`: `Frames(root)` plus every frame's SVG (`frame_svgs()`);
* `player`: `Player(root)` — frames plus the widgets (HTML per frame, Stack, controls,
  jslinks), i.e. everything `z.animate()` does before the notebook shows it;
* `naive`: one `draw()` per step with that step's states — what the animation would
  cost without a shared layout (and nodes could jump between frames), for scale.

The graphs: a 2-input neuron with a squared-error loss (23 steps, the ~20-step case the
budget is about) and a small MLP(2, [3, 1]) on one input (66 steps).

    python benchmarks/animation_speed.py              # 7 runs each
    python benchmarks/animation_speed.py --repeat 15 --check   # exit 1 if frames > 1.5×
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable

from autograd_viz import MLP, Neuron, Value
from autograd_viz.api import draw
from autograd_viz.frames import Frames
from autograd_viz.player import Player

BUDGET = 1.5


def neuron_loss() -> Value:
    """A ReLU neuron on two inputs, and the squared error to a target of 1."""
    neuron = Neuron(2, seed=0)
    out = neuron([Value(1.0, label="x1"), Value(-2.0, label="x2")])
    loss = (out - Value(1.0, label="y")) ** 2
    loss.label = "L"
    return loss


def small_mlp() -> Value:
    """MLP(2, [3, 1]) on one input point."""
    return MLP(2, [3, 1], seed=0)([1.0, -2.0])


def median_seconds(works: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """Median wall time of each piece of work; rounds interleave them, so a busy machine
    slows every contender alike instead of whichever happened to run at the time."""
    for work in works.values():
        work()  # warm-up: imports, caches
    times: dict[str, list[float]] = {name: [] for name in works}
    for _ in range(repeat):
        for name, work in works.items():
            start = time.perf_counter()
            work()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def naive(root: Value) -> None:
    frames = Frames(root)  # only for each step's states; its own layout is not reused
    for k in range(len(frames)):
        draw(root, states=frames.states(k)).svg()


def measure(name: str, root: Value, repeat: int) -> list[tuple[str, float]]:
    steps = len(Frames(root))
    values = len(root.topological_order())
    t = median_seconds(
        {
            "draw": lambda: draw(root).svg(),
            "frames": lambda: Frames(root).frame_svgs(),
            "player": lambda: Player(root),
        },
        repeat,
    )
    t_draw, t_frames, t_player = t["draw"], t["frames"], t["player"]
    t_naive = median_seconds({"naive": lambda: naive(root)}, max(3, repeat // 3))["naive"]
    print(f"\n{name}: {values} values, {steps} steps (phase='both')")
    print(f"  {'one draw().svg()':<34}{t_draw * 1e3:9.1f} ms   1.00×")
    rows = [
        ("Frames + every frame's SVG", t_frames),
        ("Player(root), widgets included", t_player),
        ("naive: one draw() per step", t_naive),
    ]
    for label, t in rows:
        print(f"  {label:<34}{t * 1e3:9.1f} ms  {t / t_draw:5.2f}×")
    return [(f"{name}: {label}", t / t_draw) for label, t in rows[:2]]


def control_models() -> int:
    """How many widget models a Player makes besides its frames (one per step + placeholder)."""
    from ipywidgets.widgets.widget import _instances

    before = len(_instances)
    player = Player(neuron_loss())
    made = len(_instances) - before - (player.n_frames + 1)
    player.close()
    return made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7, help="runs per measurement (median)")
    parser.add_argument(
        "--check", action="store_true", help=f"exit 1 if the frames' ratio is over {BUDGET}"
    )
    args = parser.parse_args(argv)
    print(f"median of {args.repeat} runs; budget: animation ≤ {BUDGET}× one draw()")
    (_, frames), (_, player) = measure("neuron + squared error", neuron_loss(), args.repeat)
    measure("MLP(2, [3, 1])", small_mlp(), args.repeat)
    fixed = control_models()
    print(
        f"\n~20-step animation: frames {frames:.2f}× one draw() "
        f"({'within' if frames <= BUDGET else 'OVER'} the {BUDGET}× budget); "
        f"the whole Player {player:.2f}×: besides one model per frame it makes {fixed} "
        "control models (Play, slider, buttons, links, their layouts), whatever the graph."
    )
    return 1 if args.check and frames > BUDGET else 0


if __name__ == "__main__":
    sys.exit(main())
