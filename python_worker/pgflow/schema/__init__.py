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
- ``report``: the findings and the report of a check.

The main entry points are exported as ``pgflow.install``, ``pgflow.migrate`` and
``pgflow.check_schema``.
"""
