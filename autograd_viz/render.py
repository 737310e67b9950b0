"""`autograd_viz.render` lives in `autograd_viz.view.render` (a picture of an opened graph) and
`autograd_viz.api` (`draw`, `to_dot` and `roles`, which open it); this name keeps old imports
working."""

from autograd_viz.api import draw, roles, to_dot
from autograd_viz.view import render as _render
from autograd_viz.view.render import *  # noqa: F403

__all__ = [*_render.__all__, "draw", "roles", "to_dot"]
