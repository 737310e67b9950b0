"""The player in real JupyterLab 4 and Chromium: run the notebook, click Next, press keys,
switch the phase, and drive it from the kernel (`player.step = 3`) — with `step` and `phase`
synced both ways, KaTeX typesetting the equation, and no request leaving the machine."""

from __future__ import annotations

import json
import time

import pytest
from player_page import BLUE, ORANGE, VERMILION, demo_notebook, read_player, wait_for_step

pytestmark = pytest.mark.browser

PLAYER = ".jp-OutputArea .avz-player"


class Kernel:
    """Runs code in the notebook's kernel as a learner does: a new cell at the end, typed in
    and run with Shift+Enter; `value` reads what the cell printed."""

    def __init__(self, page: object) -> None:
        self.page = page

    def run(self, code: str) -> str:
        p = self.page
        cells = p.locator(".jp-Notebook .jp-Cell")
        before = cells.count()
        cells.last.locator(".jp-InputPrompt").click()  # select the last cell, command mode
        p.keyboard.press("Escape")
        p.keyboard.press("b")  # a new cell below
        cells.nth(before).wait_for()
        p.keyboard.press("Enter")
        p.keyboard.type(code)
        p.keyboard.press("Shift+Enter")
        out = cells.nth(before).locator(".jp-OutputArea-output")
        p.wait_for_function(
            "(i) => !/\\*/.test(document.querySelectorAll('.jp-Notebook .jp-Cell')[i]"
            ".querySelector('.jp-InputPrompt').textContent)",
            arg=before,
            timeout=60_000,
        )
        return " ".join(out.all_inner_texts())

    def value(self, expression: str) -> object:
        """Run `print(json.dumps(expression))` in the kernel; its value."""
        return json.loads(self.run(f"import json; print(json.dumps({expression}))").strip())

    def settled_value(self, expression: str, expected: object, ceiling_s: float = 60) -> object:
        """The expression's value once it equals `expected` (the widget tells the kernel after
        the frame, so it may take a moment), or its last value when the ceiling is reached."""
        deadline = time.monotonic() + ceiling_s
        while (got := self.value(expression)) != expected and time.monotonic() < deadline:
            time.sleep(0.2)
        return got


def test_next_keys_phase_and_the_kernel_drive_the_player_in_jupyterlab(jupyterlab, page):
    p = page.page
    jupyterlab.open_notebook(p, "player_demo.ipynb", demo_notebook())
    jupyterlab.run_all(p, "player_demo.ipynb", f"{PLAYER}[data-step]")
    kernel = Kernel(p)
    first = wait_for_step(p, 1, PLAYER)
    assert first.frames == 1  # one drawing; a step only restyles it
    n = int(first.caption.split(" of ")[1].split()[0])
    assert first.caption.startswith(f"step 1 of {n}") and "forward" in first.caption
    assert "x = 2" in first.equation
    assert first.active_value()[1:] == (ORANGE, VERMILION)  # computed: orange, thick border

    p.locator(f"{PLAYER} button.avz-next").click()  # in the browser, no kernel needed
    second = wait_for_step(p, 2, PLAYER)
    assert "2 + 3 = 5" in second.equation and second.active != first.active
    assert kernel.settled_value("player.step", 2) == 2  # ... and the kernel hears of it

    kernel.run("player.step = 3")  # from the kernel: the view moves
    third = wait_for_step(p, 3, PLAYER)
    assert third.equation not in (first.equation, second.equation)

    root = p.locator(PLAYER).first
    root.locator(".avz-graph").click()  # focus: then a remote's keys step it
    p.keyboard.press("PageDown")
    assert wait_for_step(p, 4, PLAYER).step == 4
    p.keyboard.press("ArrowLeft")
    assert wait_for_step(p, 3, PLAYER).step == 3
    p.keyboard.press("End")
    last = wait_for_step(p, n, PLAYER)
    assert last.equation.endswith("= 8")  # ∂z/∂y = 5 + 3 = 8, the blog's accumulation
    assert last.active_value()[1:] == (BLUE, VERMILION)  # y's gradient is final: blue
    p.wait_for_function(
        "(s) => !!document.querySelector(s + ' .avz-eq .katex')", arg=PLAYER, timeout=30_000
    )
    assert read_player(p, PLAYER).typeset, "KaTeX (sent by the kernel) typeset the equation"

    root.locator("button.avz-phase[data-phase='backward']").click()  # in the browser
    back = wait_for_step(p, 1, PLAYER)
    assert "backward pass · the seed" in back.caption and "∂z/∂z = 1" in back.equation
    assert back.active_value()[1:] == (BLUE, VERMILION)  # the seed: z's own gradient
    expected = ["backward", 1, int(back.caption.split(" of ")[1].split()[0])]
    assert kernel.settled_value("[player.phase, player.step, player.n_frames]", expected) == (
        expected
    )
    kernel.run("player.phase = 'forward'")
    fwd = wait_for_step(p, 1, PLAYER)
    p.locator(f"{PLAYER}[data-phase='forward']").wait_for()
    assert "forward" in read_player(p, PLAYER).caption and fwd.step == 1

    root.locator("button.avz-play").focus()
    p.keyboard.press("Space")  # a focused ▶ plays (a button's own Space)
    p.locator(f"{PLAYER}[data-step='2']").wait_for(timeout=10_000)
    assert page.foreign_requests() == []
    assert not [e for e in page.console_errors if "Error" in e], page.console_errors
