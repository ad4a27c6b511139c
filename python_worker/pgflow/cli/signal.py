"""``pgflow signal RUN_ID NAME``: send a signal to a run (``pgflow.send_signal``).

A step waiting for a signal of that name takes it at once (its handler's task is queued,
or a ``flow.wait`` step completes with the payload); otherwise it is stored pending until
a step waits for it. Registered on the ``pgflow`` group by :mod:`pgflow.cli.main`. The
database role needs ``pgflow_client`` or ``pgflow_operator``. Exit codes: 0 when the
signal was stored (or was a duplicate of one stored before), 1 when the run is unknown or
finished or the database refused it, 2 for usage errors (``--payload`` not JSON: nothing
is sent).

``--payload`` is sent as the JSON text given (:class:`~pgflow.client.signal_records.RawJson`),
never parsed into Python and written again, so jsonb stores its numbers exactly
(``1.10``, ``1e400``, 30-digit decimals).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from pathlib import Path

import click
import psycopg

from pgflow.cli.control import actor_options
from pgflow.cli.util import click_dsn, db_error_message
from pgflow.client import Client, RunWait, SignalResult
from pgflow.client.signal_plans import check_json_text
from pgflow.client.signal_records import RawJson
from pgflow.errors import InvalidControlArgument, PgflowError

#: Why a signal is pending when the run's status and waits could not be read.
UNKNOWN_WHY = (
    "no waiting step took it (none waits for that name yet, its payload does not match, "
    "or the run is paused)"
)


def pending_why(name: str, run_status: str | None, waits: Sequence[RunWait] | None) -> str:
    """Why a pending signal was not taken, from the run's status and waits read after it.

    Args:
        name: the signal's name.
        run_status: the run's status now (None: unknown).
        waits: the run's ``get_run_waits`` rows now (None: unknown).

    Returns:
        ``the run is paused ...``, ``step approve waits for approved but the payload does
        not match its signal_match``, ``no step waits for approved yet``, ``the run is
        completed ...``; :data:`UNKNOWN_WHY` when ``run_status`` or ``waits`` is None.
    """
    if run_status is None or waits is None:
        return UNKNOWN_WHY
    if run_status == "paused":
        return (
            f"the run is paused (a step waiting for {name} takes it when the run is "
            "resumed, if the payload matches its signal_match)"
        )
    if run_status != "started":
        return f"the run is {run_status}: no step will take it"
    takers = [
        w.step_slug for w in waits if w.waiting and w.kind == "signal" and w.signal_name == name
    ]
    if len(takers) == 1:
        return f"step {takers[0]} waits for {name} but the payload does not match its signal_match"
    if takers:
        return (
            f"steps {', '.join(takers)} wait for {name} but the payload matches none of "
            "their signal_match"
        )
    return f"no step waits for {name} yet"


def describe(result: SignalResult, why_pending: str = UNKNOWN_WHY) -> str:
    """The line ``pgflow signal`` prints about the stored signal.

    ``signal 7 approved of run <id>: taken by step approve`` or ``...: pending: <why>``
    (``why_pending``, see :func:`pending_why`), with ``(duplicate: already sent with
    idempotency key K, nothing new stored)`` for a duplicate.
    """
    line = f"signal {result.signal_id} {result.signal_name} of run {result.run_id}: "
    if result.status == "taken":
        line += f"taken by step {result.taken_by_step}"
    else:
        line += f"{result.status}: {why_pending}"
    if result.duplicate:
        line += (
            f" (duplicate: already sent with idempotency key {result.idempotency_key}, "
            "nothing new stored)"
        )
    return line


def payload_option(text: str) -> RawJson:
    """The ``--payload`` value as JSON text to send unchanged: the text, or ``@FILE``'s.

    Raises:
        click.BadParameter: the file cannot be read (or is not UTF-8), or the text is not
            JSON PostgreSQL accepts (:func:`~pgflow.client.signal_plans.check_json_text`:
            NaN and Infinity, which Python's parser takes, are refused too). Exit code 2.
    """
    source = "--payload"
    if text.startswith("@"):
        source = text[1:]
        try:
            text = Path(source).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise click.BadParameter(
                f"cannot read {source}: {exc}", param_hint="--payload"
            ) from exc
    try:
        return RawJson(check_json_text(text))
    except InvalidControlArgument as exc:
        raise click.BadParameter(f"{source} is not JSON: {exc}", param_hint="--payload") from exc


def _pending_why(client: Client, result: SignalResult) -> str:
    """:func:`pending_why` from the run read now; :data:`UNKNOWN_WHY` if it cannot be read."""
    try:
        run_status = client.get_run(result.run_id).status
        waits = client.get_run_waits(result.run_id)
    except (PgflowError, psycopg.Error):
        return UNKNOWN_WHY
    return pending_why(result.signal_name, run_status, waits)


@click.command("signal")
@click.argument("run_id", type=click.UUID)
@click.argument("name")
@click.option(
    "--payload",
    "payload_text",
    help="The signal's payload as JSON, or @FILE to read it from a file (default: none, "
    "stored as JSON null). Stored exactly as written (numbers keep their digits).",
)
@click.option(
    "--idempotency-key",
    help="Send at most once per key and run: a second send with the same key stores "
    "nothing and prints the first signal as a duplicate.",
)
@actor_options
def signal_command(
    run_id: uuid.UUID,
    name: str,
    payload_text: str | None,
    idempotency_key: str | None,
    actor: str,
    reason: str | None,
    dsn: str | None,
) -> None:
    """Send signal NAME to run RUN_ID (send_signal); print the stored signal.

    A step of the run waiting for NAME takes it at once; otherwise it stays pending until
    a step waits for it. Prints its id, whether it was taken (and by which step) or is
    pending and why (no step waits for NAME yet, the payload does not match the waiting
    step's signal_match, or the run is paused), and whether it was a duplicate of an
    earlier send with --idempotency-key.
    """
    payload = None if payload_text is None else payload_option(payload_text)
    with Client(click_dsn(dsn)) as client:
        try:
            result = client.send_signal(
                run_id,
                name,
                payload,
                idempotency_key=idempotency_key,
                actor=actor,
                reason=reason,
            )
        except (PgflowError, psycopg.Error) as exc:
            message = db_error_message(exc) if isinstance(exc, psycopg.Error) else str(exc)
            raise click.ClickException(message) from exc
        why = _pending_why(client, result) if result.status == "pending" else UNKNOWN_WHY
    click.echo(describe(result, why))
