"""The approval flow of examples/approval.py, served by the e2e tests."""

from examples.approval import flow

__all__ = ["flow"]
