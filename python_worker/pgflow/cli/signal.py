"""``pgflow signal RUN_ID NAME``: send a signal to a run (``pgflow.send_signal``).

A step waiting for a signal of that name takes it at once (its handler's task is queued,
or a ``flow.wait`` step completes with the payload); otherwise it is stored pending until
a step waits for it. Registered on the ``pgflow`` group by :mod:`pgflow.cli.main`. The
database role needs ``pgflow_client`` or ``pgflow_operator``. Exit codes: 0 when the
signal was stored (or was a duplicate of one stored before), 1 when the run is unknown or
finished or the database refused it, 2 for usage errors (``--payload`` not JSON: nothing
is sent).
"""

from __future__ import annotations

import uuid

import click
import psycopg

from pgflow.cli.control import actor_options
from pgflow.cli.util import click_dsn, db_error_message, parse_json_option
from pgflow.client import Client, SignalResult
from pgflow.errors import PgflowError


def describe(result: SignalResult) -> str:
    """The line ``pgflow signal`` prints about the stored signal.

    ``signal 7 approved of run <id>: taken by step approve`` or ``...: pending (no step
    waits for it yet)``, with ``(duplicate: already sent with idempotency key K, nothing
    new stored)`` for a duplicate.
    """
    line = f"signal {result.signal_id} {result.signal_name} of run {result.run_id}: "
    if result.status == "taken":
        line += f"taken by step {result.taken_by_step}"
    else:
        line += f"{result.status} (no step waits for it yet)"
    if result.duplicate:
        line += (
            f" (duplicate: already sent with idempotency key {result.idempotency_key}, "
            "nothing new stored)"
        )
    return line


@click.command("signal")
@click.argument("run_id", type=click.UUID)
@click.argument("name")
@click.option(
    "--payload",
    "payload_text",
    help="The signal's payload as JSON, or @FILE to read it from a file (default: none, "
    "stored as JSON null).",
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
    pending, and whether it was a duplicate of an earlier send with --idempotency-key.
    """
    payload = None if payload_text is None else parse_json_option(payload_text, "--payload")
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
    click.echo(describe(result))
