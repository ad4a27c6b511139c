"""A module whose flow breaks a rule at import (timeout 0), for the worker's command line."""

from __future__ import annotations

from pgflow.dsl import Flow

broken = Flow("broken", timeout=0)
