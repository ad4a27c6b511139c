"""One verb over many runs (``pgflow retry --flow F ...``): select, then one guarded call each.

The selection is a read (:meth:`pgflow.Client.list_runs`: runs of a flow in one status,
optionally with an error of one step or containing a text). Each selected run then gets
its own call of the verb, in its own transaction, with ``expected_status`` = the status it
was selected in: a run that moved on meanwhile (a worker finished it, someone else acted
first) is left alone and counted, never acted on in a status nobody looked at.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from pgflow.client import Client, RunControlResult
from pgflow.errors import RunNotFound, RunStateError

#: What a bulk command does to one run: ``(run_id, expected_status) -> result``.
Verb = Callable[[str, str], RunControlResult]


@dataclass(frozen=True)
class Selection:
    """Which runs a bulk command acts on.

    Attributes:
        flow_slug: runs of this flow.
        status: in this status (also the ``expected_status`` of each call).
        step_slug: whose step ``step_slug`` failed or failed an attempt (None: any run).
        error_contains: with an error (of ``step_slug``) containing this text,
            case-insensitive (None: any run).
        limit: at most this many runs, the newest first.
    """

    flow_slug: str
    status: str
    step_slug: str | None = None
    error_contains: str | None = None
    limit: int = 500


@dataclass
class BulkReport:
    """What a bulk command did.

    Attributes:
        selected: runs selected.
        moved: runs the verb acted on (``changed``).
        moved_on: runs that had left the selected status by their call (``changed`` false,
            or deleted meanwhile): nothing done.
        refused: runs the verb refused in their status (SQLSTATE 55000): nothing done.
    """

    selected: int = 0
    moved: int = 0
    moved_on: int = 0
    refused: int = 0

    def summary(self, verb: str) -> str:
        """One line: ``retry_run: 2 moved, 1 had already moved on, 0 refused (3 selected)``."""
        return (
            f"{verb}: {self.moved} moved, {self.moved_on} had already moved on, "
            f"{self.refused} refused ({self.selected} selected)"
        )


def select_runs(client: Client, selection: Selection) -> list[str]:
    """Return the ids of the runs ``selection`` names (a read; nothing is changed)."""
    runs = client.list_runs(
        flow_slug=selection.flow_slug,
        status=selection.status,
        limit=selection.limit,
        step_slug=selection.step_slug,
        error_contains=selection.error_contains,
    )
    return [run.run_id for run in runs]


def act_on_runs(
    run_ids: list[str],
    status: str,
    verb: Verb,
    note: Callable[[str], None],
    report: BulkReport | None = None,
) -> BulkReport:
    """Call ``verb`` once per run, guarded by ``status``, and count what happened.

    Args:
        run_ids: the selected runs.
        status: the status they were selected in (each call's ``expected_status``).
        verb: the call, e.g. ``lambda run_id, expected: client.retry_run(run_id, ...,
            expected_status=expected)``.
        note: receives one line per run (``<run_id>: moved (now started)``).
        report: the report to count in (a new one when None), so that a caller whose call
            raised still has the counts so far.

    Returns:
        The counts. Other errors (no privilege, the connection lost) propagate at once;
        the runs acted on before stay acted on.
    """
    if report is None:
        report = BulkReport()
    report.selected = len(run_ids)
    for run_id in run_ids:
        try:
            result = verb(run_id, status)
        except RunStateError as exc:
            report.refused += 1
            note(f"{run_id}: refused ({exc})")
            continue
        except RunNotFound:
            report.moved_on += 1
            note(f"{run_id}: gone (deleted meanwhile)")
            continue
        if result.changed:
            report.moved += 1
            note(f"{run_id}: moved (now {result.status})")
        else:
            report.moved_on += 1
            note(f"{run_id}: already moved on ({result.detail})")
    return report
