"""The dashboard's ASGI app: :func:`create_app` wires routes, templates, static files, the pool.

The pool (psycopg_pool, autocommit connections, at most ``settings.pool_max_size``, idle
ones closed after ``settings.pool_max_idle`` seconds) is opened when the app starts
(ASGI lifespan, or on first use) and closed when it stops. Handlers that read are plain
functions, which Starlette runs in its threadpool; a database that cannot be reached
gives a 503 page.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import jinja2
import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from pgflow.dashboard import actions, attention, login, ops_pages, pages
from pgflow.dashboard.run_query import older_link
from pgflow.dashboard.settings import Settings
from pgflow.dashboard.web import Dashboard, render
from pgflow.observe.run_words import format_age, format_duration, format_time, short_error

HERE = Path(__file__).resolve().parent


def _templates() -> Jinja2Templates:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(HERE / "templates")),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["time"] = lambda value: "" if value is None else format_time(value)
    env.filters["duration"] = lambda value: "" if value is None else format_duration(value)
    env.filters["age"] = lambda value: "" if value is None else format_age(value)
    env.filters["short_error"] = short_error
    env.filters["percent"] = ops_pages.percent
    env.globals["older_link"] = older_link
    return Jinja2Templates(env=env)


def create_app(settings: Settings) -> Starlette:
    """Build the dashboard app for ``settings``.

    Nothing connects until the app starts (lifespan) or serves its first request. Use it
    under uvicorn (``pgflow dashboard``), or in tests with
    ``with starlette.testclient.TestClient(create_app(settings)) as client: ...``.

    Args:
        settings: the configuration (database, credentials, redaction).

    Returns:
        The Starlette app; its state holds a :class:`pgflow.dashboard.web.Dashboard`.
    """
    pool: ConnectionPool[Any] = ConnectionPool(
        settings.dsn,
        min_size=0,
        max_size=settings.pool_max_size,
        max_idle=settings.pool_max_idle,
        timeout=settings.pool_timeout,
        kwargs={"autocommit": True, "application_name": "pgflow-dashboard"},
        # Its reads are small and indexed: JIT compilation would cost more than it saves
        # (the planner over-estimates the error filter's scans).
        configure=_no_jit,
        open=False,
        name="pgflow-dashboard",
    )

    state = Dashboard(settings=settings, pool=pool, templates=_templates())

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        state.open()
        try:
            yield
        finally:
            pool.close()

    routes = [
        Route("/", pages.runs_page, methods=["GET"]),
        Route("/runs/{run_id}", pages.run_page, methods=["GET"]),
        Route("/runs/{run_id}/{verb}", actions.run_action, methods=["POST"]),
        Route("/workers", ops_pages.workers_page, methods=["GET"]),
        Route("/flows", ops_pages.flows_page, methods=["GET"]),
        Route("/flows/{flow}", ops_pages.flow_page, methods=["GET"]),
        Route("/attention", attention.attention_page, methods=["GET"]),
        Route("/attention/act", attention.group_action, methods=["POST"]),
        Route("/metrics", ops_pages.metrics, methods=["GET"]),
        Route("/login", login.login_page, methods=["GET"]),
        Route("/login", login.login_submit, methods=["POST"]),
        Route("/logout", login.logout, methods=["POST"]),
        Mount("/static", app=StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    middleware = []
    if "*" not in settings.allowed_hosts:
        # Against DNS rebinding: a page of another site that resolves its own name to this
        # address gets 400, not the dashboard.
        middleware.append(
            Middleware(TrustedHostMiddleware, allowed_hosts=list(settings.allowed_hosts))
        )
    app = Starlette(
        routes=routes,
        middleware=middleware,
        lifespan=lifespan,
        exception_handlers={
            PoolTimeout: _database_unavailable,
            psycopg.OperationalError: _database_unavailable,
        },
    )
    app.state.dashboard = state
    return app


def _no_jit(conn: psycopg.Connection[Any]) -> None:
    """Turn JIT compilation off on a new pool connection."""
    conn.execute("set jit = off")


def _database_unavailable(request: Request, exc: Exception) -> Response:
    """The 503 page: the database cannot be reached (or no connection came in time)."""
    text = str(exc).strip()
    first = text.splitlines()[0] if text else type(exc).__name__
    context = {
        "title": "Database unavailable",
        "message": f"the database cannot be reached: {first}",
    }
    return render(request, "error.html", context, None, status_code=503)
