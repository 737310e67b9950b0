"""The one static-file server of the tests and benchmarks: a folder served on 127.0.0.1.

The browser tests, the JupyterLite tests and the playground benchmark each need a folder on
a local port (the machine has no network): `serve(folder)` starts a ThreadingHTTPServer on a
free port in a daemon thread and yields its base URL (no trailing slash), then shuts it down
and closes its socket. It logs nothing (not even a browser dropping a download), names the
types a browser is strict about (WebAssembly must be `application/wasm` to compile streaming;
a module script must be JavaScript) and sends the extra headers a caller asks for (a
`Cache-Control` of its own, say).

    with serve(site, headers={"Cache-Control": "no-store"}) as url:
        page.goto(url + "/playground/")

Callers outside tests/ put this folder on `sys.path` first (see benchmarks/playground.py).
"""

from __future__ import annotations

import functools
import http.server
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import ClassVar

# the types a browser checks (Python's table guesses .mjs and .whl wrong, or not at all)
TYPES = {
    ".wasm": "application/wasm",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".whl": "application/octet-stream",
    ".zip": "application/octet-stream",
}


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Files from one folder, quietly, with the types above and the caller's headers."""

    extensions_map: ClassVar[dict[str, str]] = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        **TYPES,
    }
    extra_headers: ClassVar[Mapping[str, str]] = {}

    def end_headers(self) -> None:
        for name, value in self.extra_headers.items():
            self.send_header(name, value)
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass  # a test's output shows what failed, not every file a page loaded


class _Server(http.server.ThreadingHTTPServer):
    """Says nothing when a browser drops a request it no longer needs (a page closed while a
    large file was on its way): the client's choice, not a failure of the server."""

    def handle_error(self, request: object, client_address: object) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):  # BrokenPipe, ConnectionReset, ...
            return
        super().handle_error(request, client_address)


@contextmanager
def serve(
    folder: Path | str, *, headers: Mapping[str, str] | None = None, name: str = "static-server"
) -> Iterator[str]:
    """Serve `folder` on 127.0.0.1 (a free port) while the block runs; yields the base URL.

    `headers` go on every answer (e.g. `{"Cache-Control": "no-store"}`). The server is shut
    down, its socket closed and its thread joined when the block ends, even by an exception.
    """
    handler_class = type("Handler", (_Handler,), {"extra_headers": dict(headers or {})})
    handler = functools.partial(handler_class, directory=str(folder))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
