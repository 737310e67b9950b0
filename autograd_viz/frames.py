"""`autograd_viz.frames` lives in `autograd_viz.viz.frames`; this name keeps old imports working."""

from autograd_viz.viz.frames import *  # noqa: F403
from autograd_viz.viz.frames import __all__  # noqa: F401
