"""The drawing options: one frozen `DrawOptions`, checked once in `DrawOptions.check` and handed on
unchanged by `draw`, `to_dot`, `Frames`, `Player` and every export, so an option added here reaches
all of them.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from autograd_viz.core._checks import check_count, is_number
from autograd_viz.view.entry import unknown_option

__all__ = ["COLLAPSE_MODES", "RANKDIRS", "STATES", "DrawOptions", "check_speed"]

RANKDIRS = ("LR", "RL", "TB", "BT")
COLLAPSE_MODES = (None, "neuron", "layer")
STATES = ("pending", "forward", "backward", "active")


@dataclass(frozen=True)
class DrawOptions:
    """How to draw a graph.

    * `rankdir`: "LR" (inputs left, output right), "RL", "TB" or "BT".
    * `fmt`: number format, a spec like ".3f" or a function of a float (default: whole
      numbers in full, else 4 significant digits, with a real minus sign).
    * `font_size`: points (4-96); everything scales with it, e.g. 20 for a projector.
    * `collapse`: None, "neuron" (one box per `nn` neuron) or "layer" (one per layer call).
    * `max_nodes`: above this many values an `nn` graph collapses by itself (with a
      warning and a note under the picture); any other graph raises GraphTooLargeError.
    * `show_grad`: None shows grads once backward() has reached the graph ("grad ?"
      before); True or False decides.
    * `states`: value index -> "pending" | "forward" | "backward" | "active", or several
      ("forward active"): colours for one step of an animation.
    * `legend`: True adds a key below the graph saying what each style it uses means;
      "animation" also explains the four states, for a picture whose colours will change.
    * `timeout`: how many seconds the layout (`dot`) may take.

    >>> DrawOptions.of(font_size=16).font_size
    16
    >>> DrawOptions.of(rankdr="TB")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: DrawOptions.of() got an unknown option 'rankdr' (did you mean rankdir=?); ...
    """

    rankdir: str = "LR"
    fmt: str | Callable[[float], str] | None = None
    font_size: float = 12
    collapse: str | None = None
    max_nodes: int = 500
    show_grad: bool | None = None
    states: Mapping[int, str] | None = None
    legend: bool | str = False
    timeout: float = 120

    @classmethod
    def of(cls, options: DrawOptions | None = None, /, **changes: Any) -> DrawOptions:
        """Options from keywords (on top of `options`, if given), checked."""
        names = [f.name for f in dataclasses.fields(cls)]
        for key in changes:
            if key not in names:  # named as the learner called it: animate(), save_html(), ...
                raise unknown_option(key, names)
        base = options if options is not None else cls()
        if not isinstance(base, DrawOptions):
            raise TypeError(f"options must be DrawOptions, got {type(base).__name__}")
        out = dataclasses.replace(base, **changes) if changes else base
        out.check()
        if type(out.max_nodes) is not int:  # numpy's count, shown as a plain number in advice
            out = dataclasses.replace(out, max_nodes=int(out.max_nodes))
        return out

    def check(self) -> None:
        """Raise a clear error for a value no drawing can use (the states are checked
        against the graph where it is drawn)."""
        if self.rankdir not in RANKDIRS:
            raise ValueError(f"rankdir must be one of {RANKDIRS}, got {self.rankdir!r}")
        if self.collapse not in COLLAPSE_MODES:
            raise ValueError(f"collapse must be None, 'neuron' or 'layer', got {self.collapse!r}")
        size = self.font_size
        if not is_number(size, (int, float)) or not 4 <= size <= 96:
            raise ValueError(f"font_size must be a number of points from 4 to 96, got {size!r}")
        check_count(self.max_nodes, "max_nodes")
        if self.legend not in (False, True, "animation"):
            raise ValueError(f"legend must be True, False or 'animation', got {self.legend!r}")
        if self.show_grad not in (None, True, False):
            raise ValueError(f"show_grad must be None, True or False, got {self.show_grad!r}")
        t = self.timeout
        if not is_number(t, (int, float)) or not t > 0:
            raise ValueError(f"timeout must be a number of seconds > 0, got {t!r}")


SLOWEST = 1 / 60  # steps per second: one step a minute, the longest any player waits


def check_speed(speed: object, error: type[Exception] = ValueError) -> float:
    """A player's `speed` (steps per second) as a float: any real number (numpy's too) from
    one step a minute up; faster than the player can go plays as fast as it goes.

    >>> check_speed(2)
    2.0
    >>> check_speed(1e-320)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: speed is in steps per second, at least 1/60 (one step a minute); got 1e-320...
    """
    usage = "speed is in steps per second, at least 1/60 (one step a minute)"
    if not is_number(speed):
        raise error(f"{usage}; got {type(speed).__name__}: {speed!r}. Pass a number, e.g. speed=2")
    value = float(speed)
    if math.isnan(value) or value < SLOWEST:
        raise error(f"{usage}; got {speed!r}. E.g. speed=0.5 for a step every 2 seconds")
    return value
