"""What every page handler shares: the app's state, the auth gate, rendering and flash messages.

:class:`Dashboard` (on ``app.state.dashboard``) holds the settings, the connection pool and
the templates. :func:`gate` lets a request through or answers it (401 with a basic-auth
challenge, or a redirect to ``/login``). :func:`render` renders a template with what every
page needs (who is logged in, whether actions are allowed, the CSRF token, the flash
message of the action just done). A flash message travels from a POST to the page it
redirects to in a short-lived HttpOnly cookie, read and cleared by that page.
"""

from __future__ import annotations

import base64
import binascii
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final
from urllib.parse import quote

import psycopg
from psycopg_pool import ConnectionPool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from pgflow.dashboard.auth import Identity, authenticate, csrf_token
from pgflow.dashboard.settings import Settings

FLASH_COOKIE: Final = "pgflow_flash"
#: Sent with every page: no framing (the action forms cannot be clickjacked), nothing loaded
#: or posted anywhere but the dashboard itself, no script at all.
SECURITY_HEADERS: Final = {
    "Content-Security-Policy": (
        "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self';"
        " frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


@dataclass
class Dashboard:
    """The state of one dashboard app.

    Attributes:
        settings: its configuration.
        pool: its database connections (autocommit).
        templates: its Jinja2 templates (autoescaped).
    """

    settings: Settings
    pool: ConnectionPool[Any]
    templates: Jinja2Templates
    _opening: threading.Lock = field(default_factory=threading.Lock)
    _opened: bool = False

    def open(self) -> None:
        """Open the pool, once (the app's startup, or the first request without one)."""
        with self._opening:
            if not self._opened:
                self._opened = True
                self.pool.open(wait=False)

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """Borrow a connection from the pool (opened on first use).

        Raises:
            psycopg_pool.PoolTimeout: none free within ``settings.pool_timeout`` seconds.
            psycopg_pool.PoolClosed: the app has stopped.
        """
        self.open()
        with self.pool.connection() as conn:
            yield conn

    @contextmanager
    def scrape_connection(self) -> Iterator[psycopg.Connection[Any]]:
        """Borrow a connection for a ``/metrics`` scrape: wait at most ``metrics_timeout``.

        Shorter than a page's wait, so that a database that refuses connections gives
        ``pgflow_up 0`` well within Prometheus' scrape timeout (10 s by default).

        Raises:
            psycopg_pool.PoolTimeout: none free within ``settings.metrics_timeout`` seconds.
        """
        self.open()
        with self.pool.connection(timeout=self.settings.metrics_timeout) as conn:
            yield conn


def dashboard(request: Request) -> Dashboard:
    """The :class:`Dashboard` of the app serving ``request``."""
    state: Dashboard = request.app.state.dashboard
    return state


def gate(request: Request) -> Identity | Response | None:
    """Let a request in, or answer it when a credential is configured and missing.

    Returns:
        The caller's :class:`Identity`; None in read-only mode (no credential
        configured: everyone reads, nobody acts); or the response to send instead (401
        with ``WWW-Authenticate: Basic`` when basic auth is configured, else a redirect
        to ``/login`` for a GET and 401 for anything else).
    """
    settings = dashboard(request).settings
    if not settings.can_act:
        return None
    identity = authenticate(request, settings)
    if identity is not None:
        return identity
    if settings.basic_auth is not None:
        return Response(
            "authentication required",
            status_code=401,
            headers={"WWW-Authenticate": 'Basic realm="pgflow dashboard", charset="UTF-8"'},
            media_type="text/plain",
        )
    if request.method == "GET":
        target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return RedirectResponse("/login?next=" + quote(target, safe=""), status_code=303)
    return Response("authentication required", status_code=401, media_type="text/plain")


def render(
    request: Request,
    name: str,
    context: dict[str, Any],
    identity: Identity | None,
    *,
    status_code: int = 200,
) -> Response:
    """Render template ``name`` with ``context`` and what every page needs.

    Adds ``user`` (the identity or None), ``can_act`` (actions allowed: authenticated),
    ``read_only`` (no credential configured), ``csrf`` (the form token), ``redact`` and
    ``flash`` (the message of the action just done, which is then cleared).
    """
    dash = dashboard(request)
    flash = read_flash(request)
    page = {
        "user": identity,
        "can_act": identity is not None,
        "read_only": not dash.settings.can_act,
        "csrf": csrf_token(identity, dash.settings) if identity is not None else "",
        "redact": dash.settings.redact,
        "flash": flash,
        "path": request.url.path,
        **context,
    }
    response = dash.templates.TemplateResponse(request, name, page, status_code=status_code)
    response.headers.update(SECURITY_HEADERS)
    if flash is not None:
        response.delete_cookie(FLASH_COOKIE, path="/")
    return response


def redirect_with_flash(
    url: str, text: str, kind: str = "ok", link: str | None = None
) -> RedirectResponse:
    """A 303 redirect to ``url`` that shows ``text`` there once.

    Args:
        url: a local path.
        text: the message.
        kind: ``ok`` (done), ``info`` (nothing changed) or ``error`` (refused).
        link: a local path the message links to (e.g. the new run of a rerun), or None.
    """
    response = RedirectResponse(url, status_code=303)
    data = json.dumps({"text": text, "kind": kind, "link": link}).encode()
    value = base64.urlsafe_b64encode(data).decode().rstrip("=")
    response.set_cookie(FLASH_COOKIE, value, path="/", httponly=True, samesite="strict")
    return response


def read_flash(request: Request) -> dict[str, Any] | None:
    """The flash message the request carries, or None (a malformed cookie counts as none)."""
    value = request.cookies.get(FLASH_COOKIE)
    if not value:
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (binascii.Error, ValueError):
        return None
    if not isinstance(data, dict) or not isinstance(data.get("text"), str):
        return None
    link = data.get("link")
    return {
        "text": data["text"],
        "kind": data.get("kind") if data.get("kind") in ("ok", "info", "error") else "info",
        "link": link
        if isinstance(link, str) and link.startswith("/") and not link.startswith("//")
        else None,
    }


def safe_next(target: str | None) -> str:
    """A local path to go to after login: ``target`` if it is one, else ``/``."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return "/"
