"""How long the JupyterLite edition takes to its first drawing on a cold start, in Chromium here.

A learner's first visit: a new browser context (empty cache), the start notebook opened from the
site served on 127.0.0.1 with every other host blocked, Run All, until the first new drawing is on
screen. It is the same path `tests/lite/test_lite_site.py` checks for behaviour (the saved drawing
shows first, nothing leaves 127.0.0.1); this script times it, prints the median and range of
`--runs` cold starts, and the machine's load average before and after (the machine is shared: on
2 cores a busy neighbour doubles the figure).

Run: `python benchmarks/lite_cold_start.py` (`--runs N`, default 5; `--site DIR`, default
`_site`, built first with `bash scripts/lite.sh` if it holds no site).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "lite")]

from conftest import CHROMIUM, CHROMIUM_ARGS  # noqa: E402  (the tests' one way to start Chromium)
from static_server import serve  # noqa: E402  (the tests' one static server)
from test_lite_site import _cold_start  # noqa: E402  (the path the test checks, timed here)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "_site")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    if not (args.site / "lab" / "index.html").is_file():
        subprocess.run(["bash", "scripts/lite.sh", "--output", str(args.site)], cwd=ROOT,
                       check=True)  # fmt: skip
    from playwright.sync_api import sync_playwright

    before = os.getloadavg()
    times = []
    with serve(args.site, name="lite-site") as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            for run in range(args.runs):
                seconds, saved, foreign = _cold_start(browser, url)
                times.append(seconds)
                print(f"run {run + 1}: {seconds:.2f} s (saved drawing shown first: {saved}; "
                      f"requests outside 127.0.0.1: {len(foreign)})", flush=True)  # fmt: skip
        finally:
            browser.close()
    after = os.getloadavg()
    print(f"cold start, page opened -> first drawing: median {statistics.median(times):.2f} s "
          f"(range {min(times):.2f}-{max(times):.2f}, {len(times)} runs); load average "
          f"{before[0]:.1f} before, {after[0]:.1f} after")  # fmt: skip


if __name__ == "__main__":
    main()
