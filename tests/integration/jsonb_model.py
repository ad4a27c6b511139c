"""JSON values as PostgreSQL's jsonb sees them, for the model of the property tests.

``dumps`` gives a canonical text, ``json_type`` is ``jsonb_typeof`` and ``jsonb_contains``
is ``@>`` (test_model_property.py checks it against PostgreSQL's).
"""

from __future__ import annotations

import json
from typing import Any


def dumps(value: Any) -> str:
    """Canonical JSON text (sorted keys): equal texts mean equal JSON values."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def json_type(value: Any) -> str:
    """``jsonb_typeof`` of a JSON value (``null`` for JSON null)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _scalar_equal(a: Any, b: Any) -> bool:
    # jsonb compares numbers by value (1 = 1.0) but never a boolean with a number.
    return json_type(a) == json_type(b) and a == b


def _contains(val: Any, tmpl: Any) -> bool:
    if isinstance(tmpl, dict):
        return isinstance(val, dict) and all(
            k in val and _value_contains(val[k], v) for k, v in tmpl.items()
        )
    if isinstance(tmpl, list):
        if not isinstance(val, list):
            return False
        for t in tmpl:
            if isinstance(t, dict | list):
                if not any(type(v) is type(t) and _contains(v, t) for v in val):
                    return False
            elif not any(not isinstance(v, dict | list) and _scalar_equal(v, t) for v in val):
                return False
        return True
    return not isinstance(val, dict | list) and _scalar_equal(val, tmpl)


def _value_contains(val: Any, tmpl: Any) -> bool:
    # An object member: same kind of value; containers compare recursively.
    if isinstance(tmpl, dict | list):
        return type(val) is type(tmpl) and _contains(val, tmpl)
    return not isinstance(val, dict | list) and _scalar_equal(val, tmpl)


def jsonb_contains(val: Any, tmpl: Any) -> bool:
    """PostgreSQL's ``val @> tmpl`` on two JSON values.

    Objects contain objects key by key; arrays contain arrays element by element (order
    and duplicates ignored); at the top level only, an array also contains a scalar that
    is one of its elements.
    """
    if isinstance(val, list) and not isinstance(tmpl, dict | list):
        return any(not isinstance(v, dict | list) and _scalar_equal(v, tmpl) for v in val)
    return _contains(val, tmpl)
