"""What one call did, and whether the learner's call did what the model answer's did.

An `Outcome` is one answer seen from the wire: a result (``ok``), a refusal the tool or the schema
made for the model (``refused``: ``isError`` with a message), an exception that was not meant for
the model (``crashed``: ``isError`` whose text starts ``ValueError: ...``), or a JSON-RPC error
(``protocol``, with its code). `Comparison` holds two outcomes of the same input side by side, by
the exercise's `Rules`: the kind first (the error layer), then the structured result field by field
(numbers within a tolerance, lists in order or as sets, fields that are opaque IDs by consistency),
then what the text must say, and the content types.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core._text import clip, t

Kind = Literal["ok", "refused", "crashed", "protocol", "invalid", "unreachable"]

# An exception's type name in front of the message ("ValueError: ..."): what the server sends when a
# tool raises anything but ToolError. A message written for the model has no such prefix.
EXCEPTION_PREFIX = re.compile(r"^\s*[A-Z][A-Za-z0-9_]*(Error|Exception): ")


@dataclass(frozen=True)
class Outcome:
    """One call's answer: its kind, text, structured data, content types and (protocol) error code."""

    kind: Kind
    text: str = ""
    data: Any = None
    types: tuple[str, ...] = ()
    code: int | None = None

    @classmethod
    def of_result(cls, result: Any) -> Outcome:
        """The outcome of a `CallResult`."""
        text = result.text or ""
        types = tuple(str(block.get("type")) for block in result.content if isinstance(block, dict))
        if result.is_error:
            kind: Kind = "crashed" if EXCEPTION_PREFIX.match(text) else "refused"
            return cls(kind, text, None, types)
        return cls("ok", text, result.structured_content, types)

    @classmethod
    def of(cls, make: Callable[[], Any], read: Callable[[Any], Outcome] | None = None) -> Outcome:
        """Run `make` (one request) and read what it answered; a protocol error or a lost connection
        is an outcome too."""
        from mcp_notebook import ClientConnectionError, InvalidResultError, ProtocolError

        try:
            answer = make()
        except ProtocolError as exc:
            return cls("protocol", str(exc.message), None, (), exc.code)
        except InvalidResultError as exc:  # the client refused an answer that breaks the protocol
            return cls("invalid", str(exc))
        except ClientConnectionError as exc:
            return cls("unreachable", str(exc))
        return (read or cls.of_result)(answer)

    def shown(self) -> str:
        """This outcome in a line of feedback."""
        if self.kind == "ok":
            data = self.data if self.data is not None else self.text
            body = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
            return t("lessons.judge.returned", result=clip(" ".join(str(body).split()), 160))
        if self.kind == "protocol":
            return t("lessons.judge.protocol", code=self.code, message=clip(self.text, 120))
        message = clip(" ".join(self.text.split()).rstrip("."), 160)
        return t(f"lessons.judge.{self.kind}", message=message)


@dataclass(frozen=True)
class Rules:
    """How two outcomes of one input are compared (an exercise's ``judge`` table says which apply).

    Attributes
    ----------
    structured:
        Whether structured results are compared (False for a tool whose result is a sentence: its
        ``{"result": "..."}`` is the text, judged by `mentions` and `contains_reference`).
    tolerance:
        Numbers in structured results may differ by this much (absolute), e.g. rounding.
    ids:
        Fields that are opaque IDs the tool makes (``booking_id``): not equal to the model answer's,
        but the same wherever the model answer's is the same, and different wherever it differs.
    unordered:
        Fields holding lists whose order does not matter.
    extra:
        Whether a structured result may carry fields the model answer's does not.
    only:
        The fields of a structured result the task asks for (``{"booking_id": ..., ...}``): only
        these are compared, and any others may be there or not.
    mentions:
        Parameters whose value a successful text result must contain (``name`` in a greeting),
        wherever the model answer's text contains it.
    contains_reference:
        A successful text result must contain the model answer's text (a diary entry).
    exclusive:
        ... and no text the model answer gave for another input (every entry, when asked for one).
    says:
        A function of the chapter that reads a successful text as a person would, given the
        arguments: None when it says what it should, else what is missing (a greeting that greets).
    same:
        Fields or parameters compared through a function of the chapter (a station's name in
        Korean or English) instead of as they are: ``{field: function}``.
    """

    structured: bool = True
    tolerance: float = 0.01
    ids: tuple[str, ...] = ()
    unordered: tuple[str, ...] = ()
    extra: bool = False
    only: tuple[str, ...] = ()
    mentions: tuple[str, ...] = ()
    contains_reference: bool = False
    exclusive: bool = False
    says: Callable[[Mapping[str, Any], str], str | None] | None = None
    same: Mapping[str, Callable[[Any], Any]] = field(default_factory=dict)

    @classmethod
    def from_data(cls, data: Mapping[str, Any], checks: Mapping[str, Any]) -> Rules:
        same = {name: checks[function] for name, function in dict(data.get("same", {})).items()}
        return cls(
            structured=bool(data.get("structured", True)),
            tolerance=float(data.get("tolerance", 0.01)),
            ids=tuple(data.get("ids", ())),
            unordered=tuple(data.get("unordered", ())),
            extra=bool(data.get("extra", False)),
            only=tuple(data.get("only", ())),
            mentions=tuple(data.get("mentions", ())),
            contains_reference=bool(data.get("contains_reference", False)),
            exclusive=bool(data.get("exclusive", False)),
            says=checks[data["says"]] if "says" in data else None,
            same=same,
        )


class Comparison:
    """Compares the learner's outcomes with the model answer's, input by input, under `rules`.

    It remembers the IDs seen so far (`Rules.ids`): the learner's ``bk_7`` stands for the model
    answer's ``bk_1`` from the first time both appear, and must keep standing for it.
    """

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self._ids: dict[str, Any] = {}
        self._ids_back: dict[str, Any] = {}
        self._texts: list[str] = []  # the model answer's successful texts so far (`Rules.exclusive`)

    def differs(self, arguments: Mapping[str, Any], mine: Outcome, model: Outcome) -> str | None:
        """None when `mine` does what `model` does for `arguments`; else what differs, in a sentence.

        An input the model answer itself fails on with an exception is one the task does not speak
        of (a station ID nobody asked about): whatever the learner's tool does there is fine.
        """
        if model.kind == "crashed":
            return None
        if mine.kind != model.kind:
            raw = EXCEPTION_PREFIX.match(mine.text)
            if mine.kind == "crashed" and model.kind == "refused" and raw is not None:
                return t("lessons.judge.raw_exception", exception=raw.group().strip())
            return t("lessons.judge.kind", mine=mine.shown(), model=model.shown())
        if mine.kind == "protocol" and mine.code != model.code:
            return t("lessons.judge.kind", mine=mine.shown(), model=model.shown())
        if mine.kind != "ok":
            return None
        if set(mine.types) != set(model.types):
            return t("lessons.judge.types", mine=", ".join(mine.types), model=", ".join(model.types))
        if model.data is not None and self.rules.structured:
            if mine.data is None:
                return t("lessons.judge.no_structured", model=model.shown())
            wanted = model.data
            if self.rules.only and isinstance(wanted, Mapping) and isinstance(mine.data, Mapping):
                wanted = {key: value for key, value in wanted.items() if key in self.rules.only}
                problem = self._data({k: v for k, v in mine.data.items() if k in self.rules.only}, wanted, "")
            else:
                problem = self._data(mine.data, wanted, "")
            if problem is not None:
                return problem
        for name in self.rules.mentions:
            value = arguments.get(name)
            if isinstance(value, str) and value and value in model.text and value not in mine.text:
                return t("lessons.judge.mention", param=name, value=value, text=clip(mine.text, 120))
        if self.rules.says is not None and self.rules.says(arguments, model.text) is None:
            missing = self.rules.says(arguments, mine.text)
            if missing is not None:
                return missing
        if self.rules.contains_reference and model.text.strip() not in mine.text:
            return t("lessons.judge.text", mine=clip(mine.text, 120), model=clip(model.text, 120))
        if self.rules.exclusive:
            own = model.text.strip()
            other = next(
                (text for text in self._texts if text not in own and own not in text and text in mine.text),
                None,
            )
            if other is not None:
                return t("lessons.judge.leak", other=clip(other, 60))
            self._texts.append(own)
        return None

    # -- structured results, field by field --------------------------------------------------------
    def _data(self, mine: Any, model: Any, path: str) -> str | None:
        name = path.rsplit(".", 1)[-1].split("[", 1)[0]
        if name in self.rules.same:
            mine, model = self.rules.same[name](mine), self.rules.same[name](model)
        if name in self.rules.ids:
            return self._id(path, mine, model)
        if isinstance(model, Mapping):
            if not isinstance(mine, Mapping):
                return self._field(path, mine, model)
            for key, value in model.items():
                where = f"{path}.{key}" if path else key
                if key not in mine:
                    return t("lessons.judge.missing_field", field=where, model=_json(value))
                problem = self._data(mine[key], value, where)
                if problem is not None:
                    return problem
            extra = [key for key in mine if key not in model]
            if extra and not self.rules.extra:
                where = f"{path}.{extra[0]}" if path else extra[0]
                return t("lessons.judge.extra_field", field=where, value=_json(mine[extra[0]]))
            return None
        if isinstance(model, list):
            if not isinstance(mine, list):
                return self._field(path, mine, model)
            if len(mine) != len(model):
                return t("lessons.judge.length", field=path or "result", mine=len(mine), model=len(model))
            if name in self.rules.unordered:
                mine, model = sorted(mine, key=self._order), sorted(model, key=self._order)
            for index, (a, b) in enumerate(zip(mine, model, strict=True)):
                problem = self._data(a, b, f"{path}[{index}]")
                if problem is not None:
                    return problem
            return None
        if _is_number(model):
            if not _is_number(mine) or not math.isclose(mine, model, abs_tol=self.rules.tolerance):
                return self._field(path, mine, model)
            return None
        return None if mine == model else self._field(path, mine, model)

    def _order(self, item: Any) -> str:
        """How an item of an unordered list sorts: by its fields as `Rules.same` reads them."""

        def normal(value: Any, name: str) -> Any:
            if name in self.rules.same:
                value = self.rules.same[name](value)
            if isinstance(value, Mapping):
                return {key: normal(inner, key) for key, inner in value.items() if key not in self.rules.ids}
            if isinstance(value, list):
                return [normal(inner, name) for inner in value]
            return value

        return json.dumps(normal(item, ""), ensure_ascii=False, sort_keys=True)

    def _field(self, path: str, mine: Any, model: Any) -> str:
        return t("lessons.judge.field", field=path or "result", mine=_json(mine), model=_json(model))

    def _id(self, path: str, mine: Any, model: Any) -> str | None:
        key_mine, key_model = _json(mine), _json(model)
        known = self._ids.get(key_mine)
        if known is None and key_model in self._ids_back:
            return t("lessons.judge.id_new", field=path, mine=key_mine, earlier=self._ids_back[key_model])
        if known is not None and known != key_model:
            return t("lessons.judge.id_reused", field=path, mine=key_mine)
        self._ids[key_mine] = key_model
        self._ids_back[key_model] = key_mine
        return None


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _json(value: Any) -> str:
    return clip(json.dumps(value, ensure_ascii=False, sort_keys=True), 120)
