"""Small flows served by real ``pgflow-worker`` processes in tests/integration/test_worker_*.py.

Each module defines flows importable as ``tests.integration.flows.<module>:<attr>``.
"""
