"""The command lines: ``pgflow`` and ``pgflow-worker``.

Modules: ``main`` (the ``pgflow`` group: install, start, status, runs), ``dev`` (``pgflow
dev ...``), ``admin`` (check-schema, migrate, schedules), ``worker`` (``pgflow-worker``),
``util`` (the DSN fallback that starts the dev cluster, ``--dsn``, tables). ``python -m
pgflow.cli`` runs ``pgflow``.
"""
