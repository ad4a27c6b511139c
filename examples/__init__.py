"""Example flows run by ``make demo`` (``python -m examples.demo``) and documented in README."""
