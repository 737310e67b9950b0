"""`autograd_viz.player` lives in `autograd_viz.viz.player`; this name keeps old imports working."""

from autograd_viz.viz.player import *  # noqa: F403
from autograd_viz.viz.player import __all__  # noqa: F401
