"""`autograd_viz.player` lives in `autograd_viz.front.player`; this name keeps old imports
working."""

from autograd_viz.front.player import *  # noqa: F403
from autograd_viz.front.player import __all__  # noqa: F401
