"""The run page's actions: cancel, pause, resume, retry, rerun, skip a step, send a signal.

``POST /runs/<run_id>/<verb>`` with a form holding ``reason`` (required), ``csrf`` and
``expected_status`` (the status the operator saw: a run that has moved on since is left
alone, and the page says so), plus ``step`` for ``skip`` and ``signal_name`` / ``payload``
(JSON) for ``signal``, and ``seen_reruns`` for ``rerun``: how many reruns of the run the
page showed (a run rerun since is not rerun again: ``"already rerun as 1a2b3c4d"``, so a
second click or a resubmitted form does not start a second new run). Each action goes
through :class:`pgflow.Client` (the run-control and signal functions of the SQL API) with
actor ``dashboard:<user>``, then redirects to the run page with the real outcome in a
flash message (``"cancelled"``, ``"already moved on: now completed"``, ``"not done:
..."``). Without a configured credential every POST is answered 403 (read-only dashboard).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import psycopg
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from pgflow.client import RUN_STATUSES, Client, RunControlResult
from pgflow.dashboard.auth import Identity, csrf_problem
from pgflow.dashboard.web import Dashboard, dashboard, gate, redirect_with_flash
from pgflow.errors import PgflowError
from pgflow.observe.run_history import rerun_ids

#: The verbs of ``POST /runs/<run_id>/<verb>`` and the client method each calls.
VERBS: Final = {
    "cancel": "cancel_run",
    "pause": "pause_run",
    "resume": "resume_run",
    "retry": "retry_run",
    "rerun": "rerun",
    "skip": "skip_step",
}

#: What a verb that changed the run says.
DONE: Final = {
    "cancel": "cancelled",
    "pause": "paused",
    "resume": "resumed: now {status}",
    "retry": "retried: now {status}",
    "skip": "skipped step {step}: run now {status}",
}


@dataclass(frozen=True)
class Outcome:
    """What an action did, as the flash message says it.

    Attributes:
        text: the sentence.
        kind: ``ok`` (done), ``info`` (nothing changed) or ``error`` (refused).
        link: a page to go on to (the new run of a rerun), or None.
    """

    text: str
    kind: str = "ok"
    link: str | None = None


def refuse(status_code: int, message: str) -> Response:
    """A plain-text refusal of a POST."""
    return Response(message, status_code=status_code, media_type="text/plain")


async def checked_form(request: Request) -> tuple[Identity, Mapping[str, str]] | Response:
    """Authenticate a POST and check it against forgery; return the caller and the form.

    Returns:
        ``(identity, form fields)``, or the response to send: 403 in read-only mode or
        for a forged-looking request (wrong Origin/Referer, missing or wrong CSRF token),
        401 without a valid credential.
    """
    dash = dashboard(request)
    if not dash.settings.can_act:
        return refuse(403, "read-only dashboard: start it with --token or --basic-auth to act")
    identity = gate(request)
    if isinstance(identity, Response):
        return identity
    assert identity is not None  # can_act: gate returns an identity or a response
    form = await request.form()
    fields = {key: value for key, value in form.items() if isinstance(value, str)}
    problem = csrf_problem(request, fields.get("csrf"), identity, dash.settings)
    if problem is not None:
        return refuse(403, f"refused: {problem}")
    return identity, fields


async def run_action(request: Request) -> Response:
    """``POST /runs/<run_id>/<verb>``: do the action and redirect to the run page."""
    checked = await checked_form(request)
    if isinstance(checked, Response):
        return checked
    identity, form = checked
    verb = request.path_params["verb"]
    try:
        run_id = str(uuid.UUID(request.path_params["run_id"]))
    except ValueError:
        return refuse(404, "not a run id")
    if verb not in VERBS and verb != "signal":
        return refuse(404, f"unknown action {verb!r}")
    reason = form.get("reason", "").strip()
    if not reason:
        outcome = Outcome("not done: a reason is required", "error")
    else:
        outcome = await run_in_threadpool(
            act, dashboard(request), identity, verb, run_id, reason, form
        )
    return redirect_with_flash(f"/runs/{run_id}", outcome.text, outcome.kind, outcome.link)


def act(
    dash: Dashboard,
    identity: Identity,
    verb: str,
    run_id: str,
    reason: str,
    form: Mapping[str, str],
) -> Outcome:
    """Do one action on one run and say what came of it (never raises for a refusal).

    Args:
        dash: the app's state (its pool).
        identity: who acts (the actor is ``dashboard:<user>``).
        verb: a key of :data:`VERBS`, or ``signal``.
        run_id: the run (canonical uuid text).
        reason: why (not blank).
        form: the form, for ``expected_status``, ``step``, ``signal_name``, ``payload``.

    Returns:
        The outcome; an ``error`` one when the verb refused (the run is in another
        status, the step cannot be skipped, the JSON is malformed, no privilege...).
    """
    try:
        with dash.connection() as conn:
            client = Client(connection=conn)
            if verb == "signal":
                return _signal(client, identity, run_id, reason, form)
            expected = form.get("expected_status", "").strip()
            if expected not in RUN_STATUSES:
                return Outcome("not done: the form did not say which status you saw", "error")
            kwargs: dict[str, Any] = {
                "actor": identity.actor,
                "reason": reason,
                "expected_status": expected,
            }
            if verb == "skip":
                step = form.get("step", "").strip()
                if not step:
                    return Outcome("not done: choose the step to skip", "error")
                result = client.skip_step(run_id, step, **kwargs)
            elif verb == "rerun":
                refused = rerun_refusal(conn, run_id, form.get("seen_reruns", ""))
                if refused is not None:
                    return refused
                result = client.rerun(run_id, **kwargs)
            else:
                result = getattr(client, VERBS[verb])(run_id, **kwargs)
            return said(verb, result, form.get("step", ""))
    except (PgflowError, psycopg.Error) as exc:
        return Outcome(f"not done: {_message(exc)}", "error")


def rerun_refusal(conn: psycopg.Connection[Any], run_id: str, seen: str) -> Outcome | None:
    """Refuse a rerun when the run's reruns changed since the page was shown.

    Check, then act: two posts at the same moment can both pass this check and start two
    new runs (``pgflow.rerun_flow`` takes no idempotency key), so it stops a second click
    or a resubmitted form, not a race.

    Args:
        conn: an open connection.
        run_id: the run to rerun.
        seen: the form's ``seen_reruns``: how many reruns of the run the page showed.

    Returns:
        The refusal (``"already rerun as <short id>"``, linking to the newest rerun), or
        None when the count is the one the page showed.
    """
    if not seen.strip().isdigit():
        return Outcome("not done: the form did not say how many reruns you saw", "error")
    reruns = rerun_ids(conn, run_id)
    if len(reruns) == int(seen):
        return None
    if not reruns:  # the form said more than there are
        return Outcome("not done: the run's reruns changed since the page was shown", "info")
    return Outcome(f"already rerun as {reruns[-1][:8]}", "info", link=f"/runs/{reruns[-1]}")


def said(verb: str, result: RunControlResult, step: str = "") -> Outcome:
    """The flash message of a run-control result.

    ``changed`` False (the run was no longer in the status the page showed) says
    ``already moved on: now <status>``.
    """
    if not result.changed:
        return Outcome(f"already moved on: now {result.status}", "info")
    if verb == "rerun":
        return Outcome(
            f"rerun started: new run {result.run_id} is {result.status}",
            link=f"/runs/{result.run_id}",
        )
    return Outcome(DONE[verb].format(status=result.status, step=step))


def _signal(
    client: Client, identity: Identity, run_id: str, reason: str, form: Mapping[str, str]
) -> Outcome:
    name = form.get("signal_name", "").strip()
    if not name:
        return Outcome("not done: the signal needs a name", "error")
    text = form.get("payload", "").strip() or "null"
    try:
        payload = json.loads(text, parse_constant=_no_constant)
    except ValueError as exc:
        return Outcome(f"not done: the payload is not JSON ({exc})", "error")
    sent = client.send_signal(run_id, name, payload, actor=identity.actor, reason=reason)
    if sent.duplicate:
        return Outcome(f"signal {name} was already sent (same key): nothing new", "info")
    if sent.status == "taken":
        return Outcome(f"signal {name} sent: taken by step {sent.taken_by_step}")
    return Outcome(f"signal {name} sent: pending (no step waits for it yet)")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _message(exc: BaseException) -> str:
    """The first line of an error's message (PL/pgSQL context lines left out)."""
    diag = getattr(exc, "diag", None)
    primary = getattr(diag, "message_primary", None)
    text = primary or str(exc)
    return text.strip().splitlines()[0] if text.strip() else type(exc).__name__
