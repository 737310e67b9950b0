"""`autograd_viz.frames` lives in `autograd_viz.view.frames`; this name keeps old imports
working."""

from autograd_viz.view.frames import *  # noqa: F403
from autograd_viz.view.frames import __all__  # noqa: F401
