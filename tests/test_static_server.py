"""tests/static_server.py: the one static-file server of the tests and benchmarks."""

from __future__ import annotations

import os
import socket
import struct
import threading
import urllib.error
import urllib.request
from email.message import Message
from pathlib import Path

import pytest
from static_server import serve

ROOT = Path(__file__).resolve().parents[1]
SERVER_WORDS = ("HTTPServer", "SimpleHTTPRequestHandler", "http.server", "socketserver")


def _get(url: str) -> tuple[bytes, Message]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read(), response.headers  # names read case-blind


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    for name in ("a.wasm", "a.js", "a.mjs", "a.whl", "a.zip", "index.html"):
        (tmp_path / name).write_bytes(b"\x00asm" if name.endswith(".wasm") else b"x")
    return tmp_path


@pytest.mark.parametrize(
    ("name", "mime"),
    [("a.wasm", "application/wasm"), ("a.js", "text/javascript"), ("a.mjs", "text/javascript"),
     ("a.whl", "application/octet-stream"), ("a.zip", "application/octet-stream"),
     ("index.html", "text/html")],
)  # fmt: skip
def test_serves_the_folder_with_the_types_a_browser_checks(folder: Path, name: str, mime: str):
    with serve(folder) as url:
        assert url.startswith("http://127.0.0.1:") and not url.endswith("/")
        body, headers = _get(f"{url}/{name}")
    assert body == (folder / name).read_bytes()
    assert headers["Content-Type"] == mime


def test_sends_the_callers_headers_and_none_by_default(folder: Path):
    with serve(folder, headers={"Cache-Control": "no-store"}) as url:
        assert _get(f"{url}/a.js")[1]["Cache-Control"] == "no-store"
    with serve(folder) as url:
        assert "Cache-Control" not in _get(f"{url}/a.js")[1]


def test_logs_nothing_and_shuts_down_cleanly(folder: Path, capfd: pytest.CaptureFixture[str]):
    before = set(threading.enumerate())
    with serve(folder, name="test-static") as url:
        _get(f"{url}/index.html")
        with pytest.raises(urllib.error.HTTPError):
            _get(f"{url}/missing.txt")
    assert capfd.readouterr().err == ""  # no request log, not even for the 404
    assert [t for t in threading.enumerate() if t not in before and t.name == "test-static"] == []
    with pytest.raises(urllib.error.URLError):  # the socket is closed
        _get(f"{url}/index.html")


def test_a_client_that_hangs_up_mid_download_is_not_logged(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
):
    """A browser closing a page while a large file is on its way (the site's wheels, ~10 MB)
    broke the server's pipe, and socketserver printed the traceback into CI's log."""
    (tmp_path / "big.bin").write_bytes(b"x" * 50_000_000)
    with serve(tmp_path) as url:
        host, port = url.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as client:
            client.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
            client.recv(1024)  # the answer has begun
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        (tmp_path / "small.txt").write_text("x")
        assert _get(f"{url}/small.txt")[0] == b"x"  # served on after the hang-up
    assert capfd.readouterr().err == ""


def test_no_other_copy_of_the_server_under_tests_or_benchmarks():
    """One server: every test and benchmark serving files goes through tests/static_server.py."""
    allowed = {ROOT / "tests" / "static_server.py", Path(__file__).resolve()}
    copies = []
    for folder in ("tests", "benchmarks"):
        for where, dirs, files in os.walk(ROOT / folder):
            dirs[:] = [d for d in dirs if d != "node_modules" and not d.startswith(".")]
            for path in (Path(where) / f for f in files if f.endswith(".py")):
                text = path.read_text(encoding="utf-8")
                if path not in allowed and any(word in text for word in SERVER_WORDS):
                    copies.append(str(path.relative_to(ROOT)))
    assert copies == [], f"serve a folder with tests/static_server.py's serve(), not: {copies}"
