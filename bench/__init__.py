"""pgflow-py benchmark harness (``make bench``, ``python -m bench.run``).

Measures the engine on one PostgreSQL cluster (the embedded one under ``.pgflow-bench/``
or ``--dsn``) against a raw-pgmq ceiling measured in the same run, and writes
``bench/results/results.json``, ``results.md`` and ``chart.png``.

Modules: :mod:`bench.run` (CLI and orchestration), :mod:`bench.cluster` (server, template
and per-workload databases), :mod:`bench.flows` (the no-op flows), :mod:`bench.procs`
(``pgflow-worker`` subprocesses), :mod:`bench.ceiling` (raw pgmq), :mod:`bench.workloads`
(W1-W4, start throughput, P), :mod:`bench.latency` (L1), :mod:`bench.history` (S1),
:mod:`bench.peers` (Procrastinate, DBOS), :mod:`bench.report` (JSON, markdown, PNG).
"""
