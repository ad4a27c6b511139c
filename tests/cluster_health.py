"""Is a test cluster still up? Its postmaster, and the end of its server log when it is not.

tests/conftest.py checks the session cluster before and after every test that uses it, so
a cluster that died mid-run (a PANIC, a kill, its files taken away) stops the suite at once
with the server's last words instead of a cascade of connection errors or a hang.
"""

from __future__ import annotations

import os
from pathlib import Path

#: Lines of the server log quoted when the cluster is down.
LOG_LINES = 25


class ClusterDied(RuntimeError):
    """The test cluster's postmaster is gone; the message ends with its log's last lines."""


def postmaster_pid(datadir: str | Path) -> int | None:
    """Return the pid of the running postmaster of ``datadir``, or None when none runs.

    Reads the first line of ``postmaster.pid``; a missing or unreadable file, or a pid
    that is not running (dead, or a zombie nobody reaped), means no postmaster.
    """
    try:
        pid = int((Path(datadir) / "postmaster.pid").read_text().split("\n", 1)[0])
    except (OSError, ValueError):
        return None
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return _signal_check(pid)
    return None if state in ("Z", "X") else pid


def _signal_check(pid: int) -> int | None:
    """Without /proc: signal 0 tells whether the pid exists."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return None
    except PermissionError:
        return pid
    return pid


def log_tail(logfile: str | Path, lines: int = LOG_LINES) -> str:
    """The last ``lines`` lines of ``logfile``, or a note saying why there are none."""
    try:
        text = Path(logfile).read_text(errors="replace")
    except OSError as exc:
        return f"(no server log: {exc})"
    return "\n".join(text.rstrip("\n").split("\n")[-lines:]) or "(the server log is empty)"


def check_running(datadir: str | Path, logfile: str | Path) -> None:
    """Raise :class:`ClusterDied` unless the postmaster of ``datadir`` runs.

    Raises:
        ClusterDied: with the data directory, the log's path and its last lines.
    """
    if postmaster_pid(datadir) is None:
        raise ClusterDied(
            f"the test cluster is not running any more (data directory {datadir}); "
            f"the last lines of its server log {logfile}:\n{log_tail(logfile)}"
        )
