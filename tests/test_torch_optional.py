"""PyTorch stays optional: without it the kit imports, draws a Value, and `side_by_side` says
how to install PyTorch. Runs in a fresh interpreter where `import torch` fails, whether or
not torch is installed here."""

from __future__ import annotations

import subprocess
import sys
import textwrap

CODE = textwrap.dedent(
    """
    import sys
    sys.modules["torch"] = None  # `import torch` raises ImportError, as on a machine without it
    import autograd_viz
    from autograd_viz import Value
    from autograd_viz.core.errors import TorchNotInstalledError
    x, y = Value(2.0, label="x"), Value(3.0, label="y")
    z = (x + y) * y
    z.backward()
    print("grad 8" in autograd_viz.draw(z).source)
    try:
        autograd_viz.side_by_side(z)
    except TorchNotInstalledError as err:
        print(err)
    """
)


def test_without_torch_the_kit_draws_and_side_by_side_says_how_to_install_it():
    out = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    drew, message = out.stdout.splitlines()
    assert drew == "True"
    assert message.startswith("PyTorch is not installed") and "pip install torch" in message


def test_importing_the_kit_and_drawing_a_value_never_imports_torch():
    code = (
        "import sys, autograd_viz; from autograd_viz import Value; "
        "autograd_viz.draw(Value(2.0, label='x') * 3); print('torch' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
