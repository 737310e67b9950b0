"""`autograd_viz.export` lives in `autograd_viz.viz.export`; this name keeps old imports working."""

from autograd_viz.viz.export import *  # noqa: F403
from autograd_viz.viz.export import __all__  # noqa: F401
