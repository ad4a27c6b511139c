"""The pgflow schema in a database: install it, upgrade it, check it.

Modules, one job each:

- ``install``: :func:`~pgflow.schema.install.install` puts pgmq and pgflow into a database
  (``pgflow install``);
- ``migrate``: :func:`~pgflow.schema.migrate.migrate` upgrades an installed schema
  (``pgflow migrate``);
- ``check``: :func:`~pgflow.schema.check.check_schema` compares a database with the
  contract manifest (``pgflow check-schema``; the worker runs it before serving);
- ``catalog``: reads the contract and its environment out of the catalog;
- ``diff``: compares a contract read from a database with the manifest's;
- ``environment``: checks what pgflow runs on (pgmq, the flows' queues and NOTIFY
  triggers, the pg_cron job);
- ``report``: the findings and the report of a check;
- ``upstream``: finds a database that upstream pgflow installed and says how to adopt it.

The main entry points are exported as ``pgflow.install``, ``pgflow.migrate`` and
``pgflow.check_schema``.
"""
