"""pgflow.dsl: step handlers: what the decorators return, their forms with and without
parentheses, the calling convention detected (context or not, async or not) and
signatures refused. No database.
"""

from __future__ import annotations

import asyncio
import functools

import pytest

from pgflow.dsl import Flow, FlowDefinitionError
from tests.unit.dsl_helpers import _no_params, assert_rule


@pytest.mark.parametrize("decorator", ["step", "array", "map"])
def test_decorator_returns_the_function_unchanged(decorator):
    flow = Flow("demo")

    def my_handler(input, ctx):
        return {"seen": input}

    decorated = getattr(flow, decorator)()(my_handler)

    assert decorated is my_handler
    assert decorated(1, None) == {"seen": 1}
    assert flow.steps[0].handler is my_handler


def test_decorators_work_without_parentheses():
    flow = Flow("demo")

    @flow.step
    def first(input):
        return [input]

    @flow.map(array="first")
    def each(item):
        return item

    @flow.array
    def listing(input):
        return []

    @flow.map
    def root_items(item):
        return item

    assert first([1]) == [[1]]  # the handler itself is returned
    assert [s.slug for s in flow.steps] == ["first", "each", "listing", "root_items"]
    assert flow.get_step("each").dependencies == ("first",)
    assert flow.get_step("listing").is_array
    bare = Flow("bare")
    bare.step(first)
    with_parentheses = Flow("bare")
    with_parentheses.step()(first)
    assert bare.shape() == with_parentheses.shape()


@pytest.mark.parametrize("decorator", ["step", "array", "map"])
def test_a_positional_option_is_a_clear_type_error(decorator):
    flow = Flow("demo")

    with pytest.raises(TypeError, match=rf"flow\.{decorator}\(\) takes keyword arguments only"):
        getattr(flow, decorator)("first")


def _sync_two(input, ctx):
    return input


def _sync_one(input):
    return input


async def _async_two(input, ctx):
    return input


async def _async_one(input):
    return input


def _optional_ctx(input, ctx=None):
    return input


def _variadic(*args):
    return args


def _keyword_options(input, *, extra=1):
    return input


class _AsyncCallable:
    async def __call__(self, input, ctx):
        return input


class _Handlers:
    def method(self, input):
        return input


@pytest.mark.parametrize(
    ("function", "accepts_context", "is_async"),
    [
        (_sync_two, True, False),
        (_sync_one, False, False),
        (_async_two, True, True),
        (_async_one, False, True),
        (_optional_ctx, True, False),
        (_variadic, True, False),
        (_keyword_options, False, False),
        (_AsyncCallable(), True, True),
        (_Handlers().method, False, False),
        (functools.partial(_async_two, ctx=None), False, True),
    ],
)
def test_handler_calling_convention_is_detected(function, accepts_context, is_async):
    flow = Flow("demo")

    flow.step(slug="s")(function)

    step = flow.steps[0]
    assert (step.accepts_context, step.is_async) == (accepts_context, is_async)


def test_async_handler_stays_a_coroutine_function():
    flow = Flow("demo")

    decorated = flow.step()(_async_two)

    assert asyncio.run(decorated("x", None)) == "x"


def _three_required(input, ctx, other):
    return None


def _required_keyword(input, ctx, *, other):
    return None


@pytest.mark.parametrize("function", [_no_params, _three_required, _required_keyword])
def test_handler_with_an_unusable_signature_is_rejected(function):
    flow = Flow("demo")

    with pytest.raises(FlowDefinitionError) as excinfo:
        flow.step(slug="s")(function)

    assert_rule(excinfo, "handler_signature", "demo", "s")
