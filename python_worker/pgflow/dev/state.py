"""Where the dev cluster is recorded: the home directory, ``cluster.json`` and its lock."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from pgflow.errors import DevClusterError

#: Environment variable overriding the home directory (default ``./.pgflow``).
HOME_ENV_VAR = "PGFLOW_HOME"
#: The state file in the home directory.
STATE_FILE = "cluster.json"


def home_dir() -> Path:
    """Return the home directory: ``$PGFLOW_HOME`` or ``./.pgflow`` (absolute)."""
    return Path(os.environ.get(HOME_ENV_VAR) or ".pgflow").absolute()


@dataclass(frozen=True)
class ClusterState:
    """What ``cluster.json`` records about the dev cluster.

    Attributes:
        base_dir: the directory holding the data directory and the log (``<home>/postgres``
            or ``$TMPDIR/pgflow-dev-<hash>``).
        data_dir: the PostgreSQL data directory.
        log_file: the server log.
        port: the TCP port on 127.0.0.1 (the last one used when stopped).
    """

    base_dir: Path
    data_dir: Path
    log_file: Path
    port: int

    @property
    def initialized(self) -> bool:
        """True when the data directory holds a cluster (initdb ran)."""
        return (self.data_dir / "PG_VERSION").exists()

    def with_port(self, port: int) -> ClusterState:
        """Return the same state on another port."""
        return replace(self, port=port)

    def to_json(self) -> dict[str, str]:
        """Return the JSON object written to ``cluster.json`` (every value as text)."""
        return {
            "base_dir": str(self.base_dir),
            "data_dir": str(self.data_dir),
            "log_file": str(self.log_file),
            "port": str(self.port),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> ClusterState:
        """Build from the object of ``cluster.json``.

        Raises:
            KeyError: a key is missing.
            ValueError: the port is not a number.
        """
        return cls(
            base_dir=Path(str(data["base_dir"])),
            data_dir=Path(str(data["data_dir"])),
            log_file=Path(str(data["log_file"])),
            port=int(str(data["port"])),
        )


def load_state(home: Path) -> ClusterState | None:
    """Return the recorded state, or None when ``cluster.json`` does not exist.

    Raises:
        DevClusterError: the file cannot be read or is not a state file.
    """
    path = home / STATE_FILE
    try:
        data = json.loads(path.read_text())
        return ClusterState.from_json(data)
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DevClusterError(f"cannot read {path}: {exc}") from exc


def save_state(home: Path, state: ClusterState) -> None:
    """Write ``cluster.json`` atomically (a temporary file renamed over it)."""
    path = home / STATE_FILE
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(state.to_json(), indent=2) + "\n")
    tmp.replace(path)


@contextlib.contextmanager
def locked(home: Path) -> Iterator[None]:
    """Hold an exclusive lock on ``<home>/lock`` (creating the home directory)."""
    home.mkdir(parents=True, exist_ok=True)
    with (home / "lock").open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
