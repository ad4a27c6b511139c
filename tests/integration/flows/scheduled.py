"""Flows with and without a pg_cron schedule (tests/integration/test_worker_schedules.py)."""

from __future__ import annotations

from pgflow.dsl import Flow, Job

ticker = Flow("ticker", cron="* * * * *", cron_input={"source": "cron"})


@ticker.step()
def tick(input):
    return {"ticked": input["source"]}


# The same flow after its schedule was removed from the code.
ticker_unscheduled = Flow("ticker")


@ticker_unscheduled.step(slug="tick")
def tick_again(input):
    return {"ticked": input["source"]}


@Job("cleanup_job", cron="*/10 * * * *", cron_input={"older_than_days": 7})
def cleanup_job(input):
    return input["older_than_days"]
