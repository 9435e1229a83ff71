"""The wrong variants of a model answer (`_mutations`): one change each, every operator, no repeats,
and a cap that keeps every kind of mistake. Pure: nothing here runs a check."""

from __future__ import annotations

import ast
import functools
from collections import Counter

from mcp_notebook.lessons import _mutations
from mcp_notebook.lessons._mutations import OPERATORS, Example, mutants, serves, spread

ANSWER = '''
from typing import Annotated, Literal, TypedDict

from pydantic import Field

from mcp_notebook import Context, ToolError, tool

CLOSE = 18
LEDGER: dict[str, dict] = {}
COUNT = 0


class Booking(TypedDict):
    room: str
    hours: int


@tool(read_only=False, approval="always", idempotency_key=True)
def book(
    room: Annotated[Literal["A", "B"], "the room"],
    hours: Annotated[int, Field(ge=1, le=3, description="how long")],
    ctx: Context,
) -> Booking:
    """Books a room for some hours, after asking how many people come."""
    global COUNT
    if hours * 2 > CLOSE:
        raise ToolError(f"{hours} hours is too long")
    answer = ctx.elicit("How many people?", {"people": int})
    if not answer.accepted:
        return Booking(room=room, hours=0)
    people = answer.get("people")
    names = [room for _ in range(people)]
    LEDGER[room] = {"room": room, "people": people, "names": [room, "guest"]}
    LEDGER.setdefault("last", {})
    COUNT += 1
    kind = "big" if room == "A" else "small"
    return LEDGER.setdefault(room, Booking(room=kind, hours=hours + len(names)))
'''

EXAMPLE = Example({"room": "A", "hours": 2}, {"room": "big", "hours": 4})


@functools.cache
def every() -> list[_mutations.Mutant]:
    return mutants(ANSWER, example=EXAMPLE)


def diffs(operator: str) -> list[str]:
    return [m.diff for m in every() if m.operator == operator]


def test_every_operator_changes_an_answer_that_has_its_kind_of_code() -> None:
    found = every()
    assert set(Counter(m.operator for m in found)) == set(OPERATORS)


def test_each_mutant_is_one_distinct_change_that_still_compiles() -> None:
    original = ast.unparse(ast.parse(ANSWER))
    found = every()
    sources = [m.source for m in found]
    assert len(set(sources)) == len(sources)
    assert original not in sources
    for mutant in found:
        compile(mutant.source, "<mutant>", "exec")
        assert " → " in mutant.diff and "\n" not in mutant.diff
        assert mutant.line > 0


def test_the_operators_make_the_mistakes_they_are_named_for() -> None:
    assert "if hours * 2 > CLOSE: → if hours * 2 >= CLOSE:" in diffs("compare")
    assert "if hours * 2 > CLOSE: → if hours / 2 > CLOSE:" in diffs("arithmetic")
    assert any("CLOSE = 18 → CLOSE = 19" in d for d in diffs("number"))
    assert any("room == 'B'" in d.split(" → ")[1] for d in diffs("string"))  # the Literal's other value
    assert any("if not answer.accepted: → if True:" in d for d in diffs("branch"))
    assert any("raise ToolError(" in d and "raise ValueError(" in d for d in diffs("raise_type"))
    assert any(d.endswith("→ pass") for d in diffs("raise_removed"))
    assert any(
        "@tool(read_only=False, approval='always', idempotency_key=True) →" in d for d in diffs("decorator")
    )
    options = diffs("decorator_option")
    assert any("read_only=True" in d for d in options)
    assert any("idempotency_key=False" in d for d in options)
    assert any("@tool(read_only=False, idempotency_key=True)" in d for d in options)  # approval dropped
    assert any(
        "if (room, hours) == ('A', 2):" in d and "return {'room': 'big', 'hours': 4}" in d
        for d in diffs("hard_coded")
    )
    assert any("'names': [room]}" in d for d in diffs("list"))
    assert any(d.endswith("for _ in range(people)][:1]") for d in diffs("list"))
    assert any(
        "'people': people" in d.split(" → ")[0] and "'people'" not in d.split(" → ")[1]
        for d in diffs("dict_field")
    )
    assert any("Booking(room=room)" in d for d in diffs("dict_field"))  # a TypedDict's field
    writes = diffs("state_write")
    assert any("LEDGER[room] = " in d and d.endswith("→ pass") for d in writes)
    assert any("COUNT += 1 → pass" in d for d in writes)
    assert any("LEDGER.setdefault('last', {}) → pass" in d for d in writes)
    assert any("return LEDGER.get(room, " in d for d in writes)  # the write skipped, the value kept
    asked = diffs("elicit")
    assert "people = answer.get('people') → people = 1" in asked
    assert "if not answer.accepted: → if answer.accepted:" in asked
    assert any(d.startswith("if not answer.accepted:") and d.endswith("→ pass") for d in asked)
    annotations = diffs("annotation")
    assert any("Literal['A', 'B'] → str" in d or "Annotated[str" in d for d in annotations)
    assert any("Field(le=3" in d for d in annotations) and any(
        "Field(ge=1, description" in d for d in annotations
    )


def test_a_docstring_an_import_and_a_class_are_left_alone() -> None:
    for mutant in every():
        before = mutant.diff.split(" → ")[0]
        assert "Books a room" not in before and "import" not in before and "room: str" not in before


def test_only_an_else_that_compiles_to_nothing_is_equivalent_by_its_code() -> None:
    answer = ANSWER.replace(
        "        return Booking(room=room, hours=0)\n",
        "        return Booking(room=room, hours=0)\n    else:\n        pass\n",
    )
    equivalent = [m for m in mutants(answer) if m.equivalent]
    assert [m.operator for m in equivalent] == ["branch"]
    assert not [m for m in mutants(ANSWER) if m.equivalent]


def test_the_cap_takes_every_operator_in_turn_and_chooses_the_same_each_time() -> None:
    found = [m for m in every() if not m.equivalent]
    chosen = spread(found, 20)
    assert len(chosen) == 20
    assert {m.operator for m in chosen} == set(OPERATORS)
    assert spread(found, 20) == chosen
    assert {m.source for m in spread(found, 1000)} == {m.source for m in found}
    numbers = [m for m in spread(found, 40) if m.operator == "number"]
    assert len({m.site for m in numbers}) == len(numbers), "one place after another, not four of one"


def test_an_answer_serves_when_it_decorates_a_function() -> None:
    assert serves(ANSWER)
    assert serves("from mcp_notebook import prompt\n@prompt\ndef p() -> str:\n    return 'x'\n")
    assert not serves("q2_answer = {'servers': {}}")
    assert not serves("def f(:")
    assert {m.operator for m in _mutations.mutants("x = 1\n")} == {"number"}  # data only
