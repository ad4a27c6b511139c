"""The command lines: ``pgflow`` and ``pgflow-worker``.

Modules: ``main`` (the ``pgflow`` group: install, start, status, runs), ``control`` (cancel,
pause, resume, retry, rerun, skip, complete-step, events), ``bulk`` (one verb over many
runs), ``dev`` (``pgflow dev ...``), ``admin`` (check-schema, migrate, schedules),
``worker`` (``pgflow-worker``), ``formatting`` (durations, moments, the tables of
failures, retries and events), ``durations`` (``--deadline``: ``2h``, ``1h30m``, a
timestamp), ``run_limits`` (what start and status say about keys, slots and deadlines),
``util`` (the DSN fallback that starts the dev cluster,
``--dsn``, JSON options, tables). ``python -m pgflow.cli`` runs ``pgflow``.
"""
