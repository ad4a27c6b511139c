"""The web dashboard (``pgflow dashboard``): runs, a run in full, actions (``pgflow[dashboard]``).

A small server-rendered app (Starlette, Jinja2 templates, no JavaScript) over the read
layer :mod:`pgflow.observe`. Modules, one job each:

- ``app``: :func:`create_app` (routes, templates, static files, the connection pool);
- ``settings``: :class:`Settings` (database, credentials, redaction);
- ``auth``: who is asking (basic, bearer token, login cookie) and the CSRF checks;
- ``web``: what every handler shares (state, auth gate, rendering, flash messages);
- ``run_query``: the runs list's filters and cursor in the query string;
- ``pages``: the runs list and the run page; ``actions``: the run page's POST actions;
  ``login``: ``/login`` and ``/logout``;
- ``svg_dag`` and ``svg_timeline``: the DAG and the timeline, drawn as inline SVG;
- ``templates/*.html`` and ``static/*.css``.

Importing this package imports Starlette and Jinja2 (the ``dashboard`` extra).
"""

from pgflow.dashboard.app import create_app
from pgflow.dashboard.settings import Settings

__all__ = ["Settings", "create_app"]
