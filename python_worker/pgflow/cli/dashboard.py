"""``pgflow dashboard``: serve the web dashboard (:mod:`pgflow.dashboard`) with uvicorn.

Starlette, Jinja2 and uvicorn come with the ``dashboard`` extra; they are imported only when
the command runs, so the rest of the CLI works without them and this command says how to
install them.
"""

from __future__ import annotations

import importlib.util
import socket
from urllib.parse import urlsplit

import click

from pgflow.cli.util import click_dsn, dsn_option

#: The modules the dashboard needs (the ``dashboard`` extra).
NEEDED = ("starlette", "jinja2", "uvicorn", "multipart")
INSTALL_HINT = "pip install 'pgflow[dashboard]'"


def missing_modules() -> list[str]:
    """The modules of the ``dashboard`` extra that cannot be imported here."""
    return [name for name in NEEDED if importlib.util.find_spec(name) is None]


def parse_basic_auth(
    ctx: click.Context, param: click.Parameter, value: str | None
) -> tuple[str, str] | None:
    """Click callback: ``USER:PASSWORD`` into ``(user, password)``.

    Raises:
        click.BadParameter: no colon, or an empty user or password (exit 2).
    """
    if value is None:
        return None
    user, sep, password = value.partition(":")
    if not sep or not user or not password:
        raise click.BadParameter("expected USER:PASSWORD, both non-empty")
    return user, password


def parse_public_url(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """Check ``--public-url``: an http(s) URL with a host (its path is ignored)."""
    if value is None:
        return None
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise click.BadParameter(f"{value!r} is not an http(s) URL with a host")
    return f"{parts.scheme}://{parts.netloc}"


def host_allow_list(host: str, public_url: str | None, extra: tuple[str, ...]) -> tuple[str, ...]:
    """The ``Host`` headers the dashboard answers (``("*",)``: any).

    Listening on one address: that address, ``localhost``, ``127.0.0.1``, ``::1``, the
    ``--public-url`` host and every ``--allowed-host``. Listening on every address
    (``0.0.0.0``, ``::``) with neither option: any Host (the network decides who reaches
    it); with either, only those.
    """
    named = [*extra]
    if public_url is not None:
        named.append(urlsplit(public_url).hostname or "")
    if host in ("0.0.0.0", "::", ""):
        return tuple(named) if named else ("*",)
    return tuple(dict.fromkeys([host, "localhost", "127.0.0.1", "::1", *named]))


@click.command("dashboard")
@dsn_option
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", type=click.IntRange(0, 65535), default=8080, show_default=True)
@click.option(
    "--token",
    envvar="PGFLOW_DASHBOARD_TOKEN",
    help="Allow actions to holders of this token (Authorization: Bearer, or the /login "
    "form). Env: PGFLOW_DASHBOARD_TOKEN.",
)
@click.option(
    "--token-user",
    help="The user named in the actor of token actions (dashboard:USER; default: token).",
)
@click.option(
    "--basic-auth",
    metavar="USER:PASSWORD",
    envvar="PGFLOW_DASHBOARD_BASIC_AUTH",
    callback=parse_basic_auth,
    help="Allow actions to this HTTP basic user (actor dashboard:USER). "
    "Env: PGFLOW_DASHBOARD_BASIC_AUTH.",
)
@click.option(
    "--redact",
    is_flag=True,
    help="Hide run inputs and outputs, step and task outputs and signal payloads.",
)
@click.option(
    "--public-url",
    callback=parse_public_url,
    help="The address browsers use through a proxy that rewrites Host, e.g. "
    "https://pgflow.example.com: its origin may POST, its host is allowed.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    help="A Host header to answer besides the listening address and localhost (repeatable; "
    "*.example.com matches every subdomain, at any depth). Others get 400 (DNS rebinding).",
)
def dashboard_command(
    dsn: str | None,
    host: str,
    port: int,
    token: str | None,
    token_user: str | None,
    basic_auth: tuple[str, str] | None,
    redact: bool,
    public_url: str | None,
    allowed_hosts: tuple[str, ...],
) -> None:
    """Serve the web dashboard: runs, a run in full, workers, flows, what needs attention.

    Without --token or --basic-auth the dashboard is read-only (no action forms, POST
    answers 403). With either, every page asks for the credential (except /metrics) and
    actions (cancel, pause, resume, retry, rerun, skip a step, send a signal) are recorded
    with actor dashboard:USER and the reason typed. Binds to 127.0.0.1 unless --host says
    otherwise: put a TLS proxy in front before exposing it.
    """
    missing = missing_modules()
    if missing:
        raise click.ClickException(f"the dashboard needs {', '.join(missing)}: {INSTALL_HINT}")
    if token is not None and not token:
        raise click.BadParameter("must not be empty", param_hint="--token")

    import uvicorn

    from pgflow.dashboard import Settings, create_app

    settings = Settings(
        dsn=click_dsn(dsn),
        token=token,
        token_user=token_user,
        basic_auth=basic_auth,
        redact=redact,
        public_url=public_url,
        allowed_hosts=host_allow_list(host, public_url, allowed_hosts),
    )
    # Bound here, so that --port 0 can say which port it got.
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise click.ClickException(f"cannot listen on {host}:{port}: {exc}") from exc
    bound = sock.getsockname()[1]
    mode = "actions allowed (authenticated)" if settings.can_act else "read-only"
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"pgflow dashboard on http://{shown}:{bound}/ ({mode})", err=True)
    server = uvicorn.Server(uvicorn.Config(create_app(settings), log_level="warning"))
    server.run(sockets=[sock])
