"""The dashboard served for real (uvicorn in a background thread) and Chromium to drive it.

- :func:`serve_dashboard`: the app of :func:`pgflow.dashboard.create_app` under uvicorn on a
  free port of 127.0.0.1, for the length of a ``with`` block.
- :func:`chromium_path`: Debian's Chromium (``make setup`` installs it), or a failure that
  says so: a browser test must never be skipped for want of it.
- :func:`artifacts_dir`: where screenshots go (``$PGFLOW_TEST_ARTIFACTS`` or
  ``test-artifacts/`` at the repository root, plus ``dashboard/``).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
#: Chromium flags for a headless run in a container, without network chatter of its own.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium_path() -> str:
    """Debian's Chromium; fails the test (never skips it) when it is not installed."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.fail(
            f"{CHROMIUM} is missing: the dashboard's browser tests drive Debian's chromium, "
            "which `make setup` installs (apt package chromium)",
            pytrace=False,
        )
    return CHROMIUM


def artifacts_dir() -> Path:
    """The folder for the dashboard's screenshots (created)."""
    base = Path(os.environ.get("PGFLOW_TEST_ARTIFACTS") or ROOT / "test-artifacts")
    folder = base / "dashboard"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serve_dashboard(dsn: str, **settings: object) -> Iterator[str]:
    """Serve a dashboard on ``dsn`` with ``settings``; yield its base URL.

    uvicorn runs in a daemon thread (it installs no signal handler off the main thread) and
    is asked to stop, then joined, when the block ends.
    """
    import uvicorn

    from pgflow.dashboard import Settings, create_app

    app = create_app(Settings(dsn=dsn, **settings))  # type: ignore[arg-type]
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, name="dashboard", daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            raise RuntimeError("the dashboard did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=20)
