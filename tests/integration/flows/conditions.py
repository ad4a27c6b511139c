"""Conditions evaluated by SQL on the worker's outputs."""

from __future__ import annotations

from pgflow.dsl import Flow

conditions = Flow("conditions")


@conditions.step()
def route(input):
    return {"lang": input["lang"]}


@conditions.step(depends_on=["route"], if_={"route": {"lang": "de"}})
def german(input):
    return "hallo"


@conditions.step(depends_on=["route"], if_not={"route": {"lang": "de"}})
def other(input):
    return "hello"


@conditions.step(depends_on=["german", "other"])
def final(input):
    return sorted(input)
