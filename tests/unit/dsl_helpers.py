"""What the pgflow.dsl unit tests (test_dsl_*.py) share: a handler and one that takes no
parameters, the flows their ``flow`` fixtures return (``demo_flow``, ``approval_flow``), and
``assert_rule`` to check a FlowDefinitionError's rule, names and message.
"""

from __future__ import annotations

from pgflow.dsl import Flow


def handler(input, ctx):
    return input


def _no_params():
    return None


def assert_rule(excinfo, rule, flow_slug, step_slug):
    """The error carries the rule and names, and its message shows all three."""
    error = excinfo.value
    assert (error.rule, error.flow_slug, error.step_slug) == (rule, flow_slug, step_slug)
    message = str(error)
    assert f"flow {flow_slug!r}" in message
    assert f"(rule {rule})" in message
    if step_slug is not None:
        assert f"step {step_slug!r}" in message
    else:
        assert "step" not in message.split("(rule")[0]


def demo_flow() -> Flow:
    """A flow with a root step `a`, an array step `b` after it and a single step `c`."""
    flow = Flow("demo")
    flow.step(slug="a")(handler)
    flow.array(slug="b", depends_on=["a"])(handler)
    flow.step(slug="c")(handler)
    return flow


def approval_flow() -> Flow:
    """Flow "approval" with a root step `submit`."""
    flow = Flow("approval")
    flow.step(slug="submit")(handler)
    return flow
