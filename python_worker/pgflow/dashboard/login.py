"""``/login`` and ``/logout``: the token typed once, kept in an HttpOnly cookie.

The cookie holds an HMAC of the token (:func:`pgflow.dashboard.auth.session_cookie_value`),
never the token, with ``HttpOnly``, ``SameSite=Strict`` and, over HTTPS, ``Secure``. A
login POST must come from the dashboard's own page (Origin/Referer), like every POST.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from pgflow.dashboard.auth import SESSION_COOKIE, check_token, same_origin, session_cookie_value
from pgflow.dashboard.web import dashboard, render, safe_next


def login_page(request: Request) -> Response:
    """``GET /login``: the token form (a note when no token is configured)."""
    settings = dashboard(request).settings
    context = {
        "next": safe_next(request.query_params.get("next")),
        "has_token": settings.token is not None,
        "error": None,
    }
    return render(request, "login.html", context, None)


async def login_submit(request: Request) -> Response:
    """``POST /login``: check the token; on success set the cookie and go to ``next``."""
    settings = dashboard(request).settings
    if settings.token is None:
        return Response(
            "no token is configured (--token)", status_code=403, media_type="text/plain"
        )
    if not same_origin(request, settings.public_url):
        return Response("refused: the request does not come from this dashboard", status_code=403)
    form = await request.form()
    token = form.get("token")
    target = safe_next(str(form.get("next") or "/"))
    if not isinstance(token, str) or not check_token(settings, token):
        context = {"next": target, "has_token": True, "error": "wrong token"}
        return render(request, "login.html", context, None, status_code=401)
    response = RedirectResponse(target, status_code=303)
    response.set_cookie(
        SESSION_COOKIE,
        session_cookie_value(settings),
        path="/",
        httponly=True,
        samesite="strict",
        secure=request.url.scheme == "https",
    )
    return response


async def logout(request: Request) -> Response:
    """``POST /logout``: clear the login cookie (from the dashboard's own page only)."""
    if not same_origin(request, dashboard(request).settings.public_url):
        return Response("refused: the request does not come from this dashboard", status_code=403)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
