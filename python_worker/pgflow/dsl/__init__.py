"""Define flows in Python: steps are decorated handler functions.

A :class:`Flow` is a DAG of steps. Each decorator registers the function below it as a
step and returns the function unchanged, so it stays callable and testable::

    from pgflow.dsl import Flow, Job

    flow = Flow("analyze", max_attempts=3, base_delay=1, timeout=30)

    @flow.step()                                  # root step: gets the run input
    def fetch(input, ctx): ...

    @flow.array(depends_on=["fetch"])             # a step whose output is a JSON array
    def list_files(input, ctx): ...               # input == {"fetch": <fetch output>}

    @flow.map(array="list_files", timeout=5)     # one task per element of that array
    def parse(item): ...                          # handlers may omit ctx

    @flow.step(depends_on=["fetch"], if_={"fetch": {"lang": "de"}}, when_unmet="skip")
    async def translate(input, ctx): ...          # runs only if fetch returned lang "de"

    @Job("send_email", timeout=10)                # a flow of one step called "send_email"
    def send_email(input, ctx): ...               # send_email is now a Job (a Flow)

Waiting for the outside world (no worker is held while a step waits)::

    flow = Flow("expense")

    @flow.step()
    def submit(input, ctx): ...

    flow.wait("approved", depends_on=["submit"], timeout=86400)   # output: the payload
    flow.sleep("cool_off", seconds=3600, depends_on=["approved"])  # a timer

    @flow.step(depends_on=["cool_off"], wait_for="paid", signal_match={"currency": "EUR"})
    def book(input, ctx): ...                     # runs once a matching "paid" came: ctx.signal

Decorators:

- ``flow.step(depends_on=[...])`` a single step (one task per run). Without dependencies
  it gets the run input; otherwise a dict of its dependencies' outputs by slug.
- ``flow.array(depends_on=[...])`` the same, for a step that returns an array (stored as
  a single step; the type only documents intent and lets a map consume it).
- ``flow.map(array="slug")`` one task per element of that step's output array; without
  ``array`` the map runs over the run input, which must be an array.
- ``Job(slug)`` decorates the one handler of a single-step flow.

A single step (``step`` / ``array``) may wait for a signal first: ``wait_for="name"`` with
``wait_timeout`` (seconds), ``on_timeout`` (``"fail"``, ``"skip"``, ``"skip-cascade"``,
``"continue"``) and ``signal_match`` (a JSON object the payload must contain). Steps
without handler, which the database completes and no worker runs:

- ``flow.wait(slug, signal=None, depends_on=[...], timeout=, on_timeout=, match=)``
  waits for the signal (named like the step unless given); its output is the payload.
- ``flow.sleep(slug, seconds=N)`` / ``flow.sleep(slug, until="input.key")`` a timer that
  completes N seconds after the step is ready, or at the timestamp read at that path (the
  run input, or ``"<dependency>.key"``). Both return the :class:`Step`; their waits are
  :class:`Wait` records (``Step.wait``).

Every decorator takes ``slug`` (default: the function's name) and the step options
``max_attempts``, ``base_delay`` (seconds), ``timeout`` (seconds), ``start_delay``
(seconds), ``max_in_flight`` (at most that many of its tasks started at once, across runs
and workers), conditions ``if_`` / ``if_not`` (JSON containment patterns matched against the
step input), ``when_unmet`` and ``when_exhausted`` (``"fail"``, ``"skip"``,
``"skip-cascade"``). Steps must be defined after their dependencies.

A definition that breaks a rule raises :class:`FlowDefinitionError` as soon as the
decorator runs, i.e. when the module is imported; the message names the flow, the step
and the rule. ``flow.shape()`` gives the JSON that ``pgflow.ensure_flow_compiled``
expects, and ``flow.to_sql()`` an equivalent ``create_flow`` / ``add_step`` script.
"""

from pgflow.dsl.flow import DEFAULT_TIMEOUT_SECONDS, Flow
from pgflow.dsl.job import Job
from pgflow.dsl.step import Handler, Step
from pgflow.dsl.wait import Wait
from pgflow.errors import FlowDefinitionError

__all__ = [
    "DEFAULT_TIMEOUT_SECONDS",
    "Flow",
    "FlowDefinitionError",
    "Handler",
    "Job",
    "Step",
    "Wait",
]
