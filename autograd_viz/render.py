"""`autograd_viz.render` lives in `autograd_viz.viz.render`; this name keeps old imports working."""

from autograd_viz.viz.render import *  # noqa: F403
from autograd_viz.viz.render import __all__  # noqa: F401
