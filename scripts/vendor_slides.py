"""Refresh the copies of reveal.js and KaTeX that `autograd_viz.exports.slides` writes into decks.

    python scripts/vendor_slides.py        # needs npm and the npm registry; maintainers only

The versions and their registry integrity hashes are pinned here: `npm pack` fetches each
tarball, the script checks its sha512 against the pin (a mismatch stops it), and copies
only the files a deck needs, with each project's licence, into autograd_viz/front/vendor/.
Those files are committed, so installing or using autograd_viz never touches the network.
"""

from __future__ import annotations

import base64
import hashlib
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VENDOR = ROOT / "autograd_viz" / "front" / "vendor"

PINS = {
    "reveal.js": (
        "5.2.1",
        "sha512-r7//6mIM5p34hFiDMvYfXgyjXqGRta+/psd9YtytsgRlrpRzFv4RbH76TXd2qD+7ZPZEbpBDhdRhJaFgfQ7zNQ==",
        "reveal",
        {"dist/reveal.js": "reveal.js", "dist/reveal.css": "reveal.css", "LICENSE": "LICENSE"},
    ),
    "katex": (
        "0.16.22",
        "sha512-XCHRdUw4lf3SKBaJe4EvgqIuWwkPSo9XoeO8GjQW94Bp7TWv9hNhzZjZ+OH9yf1UmLygb7DIT5GSFQiyt16zYg==",
        "katex",
        {
            "dist/katex.min.js": "katex.min.js",
            "dist/katex.min.css": "katex.min.css",
            "dist/contrib/auto-render.min.js": "auto-render.min.js",
            "LICENSE": "LICENSE",
            "dist/fonts/*.woff2": "fonts/",
        },
    ),
}


def _integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def vendor(name: str, version: str, integrity: str, folder: str, files: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            ["npm", "pack", f"{name}@{version}", "--silent"], cwd=tmp, check=True,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        )  # fmt: skip
        (tarball,) = Path(tmp).glob("*.tgz")
        got = _integrity(tarball)
        if got != integrity:
            sys.exit(f"{name}@{version}: integrity {got} does not match the pin {integrity}")
        with tarfile.open(tarball) as tar:
            tar.extractall(tmp, filter="data")
        package, target = Path(tmp) / "package", VENDOR / folder
        shutil.rmtree(target, ignore_errors=True)
        for source, dest in files.items():
            for path in sorted(package.glob(source)):
                out = target / dest / path.name if dest.endswith("/") else target / dest
                out.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(path, out)
        (target / "VERSION").write_text(f"{name} {version} {integrity}\n", encoding="utf-8")
    print(f"vendored {name}@{version} into {target.relative_to(ROOT)}")


if __name__ == "__main__":
    for package_name, pin in PINS.items():
        vendor(package_name, *pin)
