"""How a dashboard is configured: :class:`Settings`, built by ``pgflow dashboard``'s options."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Settings:
    """The configuration of one dashboard app (:func:`pgflow.dashboard.create_app`).

    Without ``token`` or ``basic_auth`` the dashboard is read-only: it shows no action form
    and answers every POST with 403. With either, every page but ``/metrics``, ``/login``
    and the static files asks for the credential, and actions are recorded with actor
    ``dashboard:<user>``.

    Attributes:
        dsn: the database to read (libpq string or URL).
        token: a shared secret: sent as ``Authorization: Bearer <token>``, or typed once
            into ``/login``, which sets a cookie holding an HMAC of it. None: no token.
        token_user: the user named in the actor of actions done with the token
            (``dashboard:<token_user>``); None: ``dashboard:token``.
        basic_auth: ``(user, password)`` for HTTP basic authentication; None: none. The
            user names the actor (``dashboard:<user>``).
        redact: hide payloads: run input and output, step and task outputs, signal
            payloads (error texts stay).
        page_size: runs per page of the runs list.
        pool_max_size: at most this many database connections.
        pool_max_idle: seconds after which an idle connection is closed.
        pool_timeout: seconds a request waits for a connection before it fails (503).
        metrics_timeout: seconds a ``/metrics`` scrape waits for a connection before it
            answers ``pgflow_up 0``.
        metrics_deadline: seconds after which a ``/metrics`` scrape answers ``pgflow_up 0``
            whatever the database does (a frozen server holds a query forever).
        public_url: the dashboard's address as browsers reach it through a proxy (e.g.
            ``https://pgflow.example.com``): POSTs from that origin are accepted, and its
            host is an allowed ``Host``. None: only the address the request names.
        allowed_hosts: the ``Host`` headers answered (others get 400, against DNS
            rebinding); ``("*",)`` answers any. Set by ``pgflow dashboard`` from ``--host``,
            ``--public-url`` and ``--allowed-host``.
    """

    dsn: str
    token: str | None = None
    token_user: str | None = None
    basic_auth: tuple[str, str] | None = None
    redact: bool = False
    page_size: int = 50
    pool_max_size: int = 4
    pool_max_idle: float = 60.0
    pool_timeout: float = 5.0
    metrics_timeout: float = 3.0
    metrics_deadline: float = 5.0
    public_url: str | None = None
    allowed_hosts: tuple[str, ...] = ("*",)

    def __post_init__(self) -> None:
        """Refuse empty secrets, which would let anyone in.

        Raises:
            ValueError: ``token`` is empty, the basic-auth user or password is empty or
                the user holds a colon, or ``page_size`` is below 1.
        """
        if self.token is not None and not self.token:
            raise ValueError("the dashboard token must not be empty")
        if self.basic_auth is not None:
            user, password = self.basic_auth
            if not user or not password or ":" in user:
                raise ValueError(
                    "basic auth needs USER:PASSWORD, both non-empty (no colon in USER)"
                )
        if self.page_size < 1:
            raise ValueError(f"page_size must be at least 1, not {self.page_size}")

    @property
    def can_act(self) -> bool:
        """True when a credential is configured (actions allowed once authenticated)."""
        return self.token is not None or self.basic_auth is not None
