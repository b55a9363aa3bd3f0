"""Validation feedback for structured-output roles and tool calls: what to tell a model whose JSON reply or tool
arguments were rejected.

Shape (keys in this order), sent back to the model as the next message before a retry::

    {"result": "validation_failed",
     "issues": {"invalid": [{"field", "provided", "problem", "requirement"}],
                "missing": [{"field", "requirement"}],
                "unknown": ["..."]},
     "issue_count": N,
     "action": "Call <tool> again with corrected data. Unknown fields may be typos."}

A tool's result (``llm.conversation``) uses the whole enum: ``accepted`` (:func:`accepted`), ``validation_failed``
(:func:`feedback`, :func:`problems`) or ``tool_error`` (:func:`tool_error`); ``action`` names the tool to call
again.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ValidationError

MAX_PROVIDED = 80


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(reply)"


def _requirement(schema: type[BaseModel], loc: tuple[Any, ...]) -> str:
    """The field's description and type, from the pydantic schema, for the deepest named field in ``loc``."""
    model: Any = schema
    info = None
    for part in loc:
        if isinstance(part, int) or model is None or not hasattr(model, "model_fields"):
            continue
        info = model.model_fields.get(part)
        if info is None:
            break
        annotation = info.annotation
        inner = getattr(annotation, "__args__", (annotation,))
        model = next((a for a in inner if isinstance(a, type) and issubclass(a, BaseModel)), None)
    if info is None:
        return f"a JSON object matching the {schema.__name__} schema"
    kind = _type_name(info.annotation)
    choices = getattr(info.annotation, "__members__", None)
    text = f"{kind}" + (f", one of {', '.join(choices)}" if choices else "")
    return f"{info.description}; {text}" if info.description else text


def _type_name(annotation: Any) -> str:
    args = getattr(annotation, "__args__", None)
    origin = getattr(annotation, "__origin__", None)
    if origin is not None and args:
        return f"{getattr(origin, '__name__', str(origin))}[{', '.join(_type_name(a) for a in args)}]"
    return getattr(annotation, "__name__", str(annotation).replace("typing.", ""))


def _shorten(value: Any) -> Any:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= MAX_PROVIDED else text[:MAX_PROVIDED] + "..."


def feedback(schema: type[BaseModel], reply: str, tool: str | None = None) -> dict[str, Any] | None:
    """Feedback for ``reply`` against ``schema``, or None when it validates. ``tool`` names what to call again
    (default: the schema's name)."""
    invalid: list[dict[str, Any]] = []
    missing: list[dict[str, Any]] = []
    unknown: list[str] = []
    try:
        schema.model_validate_json(reply)
        return None
    except ValidationError as exc:
        for err in exc.errors():
            loc = tuple(err["loc"])
            if err["type"] == "json_invalid" or (not reply.strip()):
                problem = "the reply is empty" if not reply.strip() else f"not valid JSON ({err['msg']})"
                invalid.append({"field": "(reply)", "provided": _shorten(reply), "problem": problem,
                                "requirement": f"a single JSON object matching the {schema.__name__} schema"})
                break
            if err["type"] == "missing":
                missing.append({"field": _path(loc), "requirement": _requirement(schema, loc)})
            elif err["type"] == "extra_forbidden":
                unknown.append(_path(loc))
            else:
                invalid.append({"field": _path(loc), "provided": _shorten(err.get("input")), "problem": err["msg"],
                                "requirement": _requirement(schema, loc)})
    return problems(invalid, missing, unknown, tool or schema.__name__)


def problems(invalid: list[dict[str, Any]], missing: list[dict[str, Any]], unknown: list[str],
             tool: str) -> dict[str, Any]:
    """The ``validation_failed`` result for issues found (by a schema, or by a validator of the caller's)."""
    return {
        "result": "validation_failed",
        "issues": {"invalid": invalid, "missing": missing, "unknown": unknown},
        "issue_count": len(invalid) + len(missing) + len(unknown),
        "action": f"Call {tool} again with corrected data. Unknown fields may be typos.",
    }


def accepted(tool: str, detail: str = "") -> dict[str, Any]:
    """A tool call that worked."""
    return {"result": "accepted", "tool": tool, "detail": detail}


def tool_error(tool: str, error: str, call: str | None = None) -> dict[str, Any]:
    """A call of ``tool`` that could not run (not a validation problem: a tool not offered now, or a failure);
    ``call`` names the tool to call instead (default: ``tool`` again)."""
    return {"result": "tool_error", "tool": tool, "error": error[:300], "action": f"Call {call or tool}."}
