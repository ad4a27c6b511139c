"""Who is asking: HTTP basic, a bearer token or the login cookie; and the CSRF checks of POSTs.

Secrets are compared with :func:`hmac.compare_digest`. The login cookie holds an HMAC of
the token (never the token), HttpOnly and SameSite=Strict. A POST sent by a browser
(basic auth or the cookie, which the browser adds by itself) must come from a page of the
dashboard: its ``Origin`` (else ``Referer``) names the dashboard's own host, and its
form carries the CSRF token of :func:`csrf_token`, an HMAC of the user under the
credential's secret. A request with ``Authorization: Bearer`` carries its credential
explicitly, which a cross-site form cannot do, so it needs neither.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit

from starlette.requests import Request

from pgflow.dashboard.settings import Settings

#: The login cookie's name.
SESSION_COOKIE: Final = "pgflow_dashboard"


@dataclass(frozen=True)
class Identity:
    """An authenticated caller.

    Attributes:
        user: who, as the actor names it (``dashboard:<user>``).
        method: ``basic``, ``bearer`` or ``cookie``.
    """

    user: str
    method: str

    @property
    def actor(self) -> str:
        """The actor recorded for this caller's actions: ``dashboard:<user>``."""
        return f"dashboard:{self.user}"


def _mac(secret: str, message: str) -> str:
    return hmac.new(secret.encode(), message.encode(), hashlib.sha256).hexdigest()


def _same(given: str, expected: str) -> bool:
    return hmac.compare_digest(given.encode(), expected.encode())


def token_user(settings: Settings) -> str:
    """The user of the token (``--token-user``, else ``token``)."""
    return settings.token_user or "token"


def session_cookie_value(settings: Settings) -> str:
    """The value of the login cookie: an HMAC of a fixed text under the token.

    Raises:
        ValueError: no token is configured.
    """
    if settings.token is None:
        raise ValueError("no token configured")
    return _mac(settings.token, "pgflow-dashboard-session")


def check_token(settings: Settings, given: str) -> bool:
    """True when ``given`` is the configured token (constant-time comparison)."""
    return settings.token is not None and _same(given, settings.token)


def authenticate(request: Request, settings: Settings) -> Identity | None:
    """Return who sent ``request``, or None when it carries no valid credential.

    Looks at ``Authorization: Basic`` (against ``settings.basic_auth``), ``Authorization:
    Bearer`` and the login cookie (against ``settings.token``). A wrong credential counts
    as none.
    """
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    value = value.strip()
    if scheme.lower() == "basic" and settings.basic_auth is not None:
        user, password = _basic_pair(value)
        expected_user, expected_password = settings.basic_auth
        # Both comparisons run whatever the first says.
        user_ok = _same(user, expected_user)
        password_ok = _same(password, expected_password)
        if user_ok and password_ok:
            return Identity(expected_user, "basic")
    if scheme.lower() == "bearer" and check_token(settings, value):
        return Identity(token_user(settings), "bearer")
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie and settings.token is not None and _same(cookie, session_cookie_value(settings)):
        return Identity(token_user(settings), "cookie")
    return None


def _basic_pair(value: str) -> tuple[str, str]:
    """``(user, password)`` of a basic credential; two empty strings when malformed."""
    try:
        decoded = base64.b64decode(value, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        return "", ""
    user, sep, password = decoded.partition(":")
    return (user, password) if sep else ("", "")


def csrf_token(identity: Identity, settings: Settings) -> str:
    """The hidden form token of ``identity``'s forms: an HMAC of its user.

    Keyed by the secret of the credential it authenticated with (the basic-auth password,
    or the token), so it changes when the secret does and cannot be made without it.
    """
    if identity.method == "basic" and settings.basic_auth is not None:
        secret = settings.basic_auth[1]
    else:
        secret = settings.token or ""
    return _mac(secret, f"csrf:{identity.method}:{identity.user}")


def same_origin(request: Request, public_url: str | None = None) -> bool:
    """True when the request's ``Origin`` (else ``Referer``) is the dashboard's own address.

    Its own address: the request's ``Host``, or the origin of ``public_url`` (the address
    browsers use through a proxy that rewrites ``Host``). A request with neither header is
    refused: browsers send ``Origin`` with every form POST.
    """
    host = request.headers.get("host", "").lower()
    source = request.headers.get("origin") or request.headers.get("referer")
    if not source or source == "null":
        return False
    parts = urlsplit(source)
    if host and parts.netloc.lower() == host:
        return True
    if public_url is None:
        return False
    public = urlsplit(public_url)
    return (parts.scheme.lower(), parts.netloc.lower()) == (
        public.scheme.lower(),
        public.netloc.lower(),
    )


def csrf_problem(
    request: Request, form_token: str | None, identity: Identity, settings: Settings
) -> str | None:
    """Why a POST of ``identity`` must be refused as a possible forgery, or None.

    Args:
        request: the POST.
        form_token: the form's ``csrf`` field (None when absent).
        identity: who sent it.
        settings: the dashboard's settings (the secrets).

    Returns:
        None for a bearer request, or when the origin and the form token check out; else
        a short reason.
    """
    if identity.method == "bearer":
        return None
    if not same_origin(request, settings.public_url):
        return "the request does not come from this dashboard (Origin/Referer)"
    if not form_token or not _same(form_token, csrf_token(identity, settings)):
        return "the form's CSRF token is missing or wrong (reload the page)"
    return None
