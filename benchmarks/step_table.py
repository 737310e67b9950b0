"""Benchmark: the player's step table, filled slot by slot where a step changes something,
against every slot of every frame filled (what it did before), in the same run.

A step reveals one value or gradient and touches a few nodes and edges; the table used to fill
all of the layout's slots (each node's classes, each edge, each number's cell) for every step,
so a player cost O(steps × values): `animate(phase="forward")` on MLP(2, [32, 32, 1]) (3,495
values) took 52 s on 2 loaded cores. Now only the slots a step can change are filled again
(`autograd_viz.view.frame_slots.slot_changes`); the tables are the same (tests/test_steptable.py).

For each network (one input, squared error), after one `Frames` (one `dot` run, not timed),
medians of `--repeat` runs, alternating:

* `every slot`: each step's every slot filled (`Frames.slot_values`), the rows and their
  changes worked out from them — the old way, the comparator;
* `table`: `step_table(frames)`, what a player builds.

    python benchmarks/step_table.py               # 3 runs each
    python benchmarks/step_table.py --repeat 5
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import time
import warnings

from autograd_viz import MLP
from autograd_viz.frames import Frames
from autograd_viz.view.steptable import PHASES, step_table


def every_slot(frames: Frames) -> int:
    """The old way: each frame's every slot filled, rows kept, their changes computed."""
    keep = [j for j, s in enumerate(frames.slots) if s[0] != "svg"]
    strings: dict[str, int] = {}
    rows, seen = [], set()
    for phase in PHASES:
        these = frames.for_phase(phase)
        for k, step in enumerate(these.steps):
            values = these.slot_values(k)
            row = tuple(strings.setdefault(values[j], len(strings)) for j in keep)
            if (row, step.text) not in seen:
                seen.add((row, step.text))
                rows.append(row)
    return sum(a != b for before, row in itertools.pairwise(rows) for a, b in zip(before, row))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.repeat}, seconds")
    print(f"{'network':<22}{'values':>7}{'steps':>7}{'every slot':>12}{'table':>8}{'ratio':>8}")
    for sizes in ([4, 4, 1], [8, 8, 1], [16, 16, 1]):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # large graphs are collapsed, and say so
            loss = (MLP(2, sizes, seed=0)([1.0, -1.0]) - 1.0) ** 2
            frames = Frames(loss, max_nodes=10_000)
        old, new = [], []
        for _ in range(args.repeat):
            for times, run in ((old, every_slot), (new, step_table)):
                start = time.perf_counter()
                run(frames)
                times.append(time.perf_counter() - start)
        a, b = statistics.median(old), statistics.median(new)
        name = f"MLP(2, {sizes})"
        print(f"{name:<22}{len(frames.graph):>7}{len(frames.all_steps):>7}"
              f"{a:>12.2f}{b:>8.2f}{a / b:>7.1f}x")  # fmt: skip


if __name__ == "__main__":
    main()
