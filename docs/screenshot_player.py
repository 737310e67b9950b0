"""Take the README's picture of the player: a real screenshot from JupyterLab in headless Chromium.

Starts `scripts/lab.sh` the way the smoke test does (random port and token, isolated
settings, notebooks never saved), runs notebook 03 (z = (x + y)·y), steps its player into the
backward pass with the Next button and screenshots the player alone.

    .venv/bin/python docs/screenshot_player.py                 # writes docs/img/player.png
    .venv/bin/python docs/screenshot_player.py --notebook notebooks/00_start_here.ipynb --next 3
    .venv/bin/python docs/screenshot_player.py --code "..." --out docs/img/player_projector.png
    .venv/bin/python docs/screenshot_player.py --element .avz-side-by-side --code "..." \
        --out docs/img/side_by_side.png      # another output: no player to step
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "smoke"))

import test_lab_smoke as smoke  # noqa: E402  (the smoke test's server and browser helpers)

sys.path.insert(0, str(ROOT / "tests"))
from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the one way tests start Chromium)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--notebook", default="notebooks/03_backprop_by_hand.ipynb")
    parser.add_argument("--next", type=int, default=6, help="Next clicks before the shot")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "img" / "player.png")
    parser.add_argument("--code", help="run this in a scratch notebook instead of --notebook")
    parser.add_argument("--width", type=int, default=1280, help="browser window width (px)")
    parser.add_argument("--element", default=".avz-player", help="CSS selector of the output")
    args = parser.parse_args()

    from playwright.sync_api import sync_playwright

    home = Path(tempfile.mkdtemp(prefix="avz-shot-"))
    if args.code:  # a scratch notebook on its own server: nothing is written into the repo
        import nbformat

        root = home / "scratch"
        root.mkdir()
        nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(args.code)])
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nbformat.write(nb, root / "shot.ipynb")
        jupyter = Path(sys.executable).with_name("jupyter")
        cmd = [str(jupyter), "lab", "--allow-root", f"--ServerApp.root_dir={root}"]
        cwd, args.notebook = root, "shot.ipynb"
    else:
        cmd, cwd = ["bash", str(ROOT / "scripts" / "lab.sh")], ROOT
    server = smoke.start_lab(cmd, cwd, home)
    try:
        smoke.start_session(server, args.notebook)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
            )
            page = browser.new_page(viewport={"width": args.width, "height": 1000},
                                    device_scale_factor=2)
            page.goto(f"{server.url}/lab/tree/{args.notebook}?reset&token={server.token}")
            page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=120_000)
            smoke._wait_for_connected_kernel(server, page, 120)
            smoke._run_all(page)
            shown = page.locator(args.element).first
            shown.wait_for(timeout=120_000)
            page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle']",
                                   state="attached", timeout=120_000)
            if args.element == ".avz-player":
                shown.locator(".avz-graph svg").wait_for(timeout=120_000)
                nxt = shown.get_by_role("button", name="Next")
                for step in range(2, args.next + 2):
                    nxt.click()
                    page.wait_for_selector(f".avz-player[data-step='{step}']", timeout=30_000)
                shown.locator(".avz-eq .katex").wait_for(timeout=60_000)  # the maths typeset
            shown.scroll_into_view_if_needed()
            page.evaluate("() => new Promise((r) => requestAnimationFrame(() => "
                          "requestAnimationFrame(r)))")  # fmt: skip
            args.out.parent.mkdir(parents=True, exist_ok=True)
            shown.screenshot(path=str(args.out))
            browser.close()
    finally:
        smoke.stop_lab(server)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
