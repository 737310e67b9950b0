"""`autograd_viz.render` lives in `autograd_viz.viz.render` (a picture of an opened graph) and
`autograd_viz.viz.api` (`draw`, `to_dot` and `roles`, which open it); this name keeps old imports
working."""

from autograd_viz.viz import render as _render
from autograd_viz.viz.api import draw, roles, to_dot
from autograd_viz.viz.render import *  # noqa: F403

__all__ = [*_render.__all__, "draw", "roles", "to_dot"]
