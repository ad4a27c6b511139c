"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

from pgflow.cli import worker as worker_cli
from pgflow.worker.config import WorkerConfig


@pytest.fixture
def fake_worker(monkeypatch) -> list[WorkerConfig]:
    """Replace ``pgflow-worker``'s Worker by one that records its config and runs nothing."""
    configs: list[WorkerConfig] = []

    class FakeWorker:
        def __init__(self, flows, config: WorkerConfig) -> None:
            configs.append(config)

        def run(self) -> int:
            return 0

    monkeypatch.setattr(worker_cli, "Worker", FakeWorker)
    monkeypatch.setattr(worker_cli, "configure_logging", lambda *args: None)
    return configs
