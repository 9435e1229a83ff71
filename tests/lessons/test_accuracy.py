"""Facts the lessons once got wrong stay right, in Korean and in English (issue #19, point 1).

Each test reads the chapter's data (what the notebooks are made from) or a committed notebook's output,
and fails if the old wording or behaviour comes back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_notebook.lessons import _content

ROOT = Path(__file__).parents[2]


def prose(chapter: str, language: str) -> str:
    """Every markdown and code text of a chapter's notebooks, and its exercises' texts, in `language`."""
    parts: list[str] = []
    for notebook in _content.cells_data(chapter)["notebook"]:
        for cell in notebook["cell"]:
            for kind in ("markdown", "code"):
                value = cell.get(kind)
                if isinstance(value, dict):
                    parts.append(value[language])
                elif isinstance(value, str):
                    parts.append(value)
    parts.append(json.dumps(_content.chapter_data(chapter), ensure_ascii=False))
    return "\n".join(parts)


def output_of(path: str, source_part: str) -> str:
    cells = json.loads((ROOT / path).read_text(encoding="utf-8"))["cells"]
    cell = next(c for c in cells if source_part in "".join(c["source"]))
    return json.dumps(cell.get("outputs", []), ensure_ascii=False)


SAYS = {
    # chapter, {language: words that must be there}, {language: words that must not come back}
    "sessions are optional in 2025-11-25": (
        "08",
        {"ko": "세션은 선택 사항", "en": "sessions are optional"},
        {"ko": "세션 없는 요청은 성립하지 않습니다", "en": "a request without a session cannot"},
    ),
    "control models are design intent, not enforced": (
        "00",
        {"ko": "설계 의도", "en": "design intent"},
        {"ko": "직접 고를 때만 쓰입니다", "en": "only when the user picks"},
    ),
    "who calls a tool is design intent too, not the model on its own": (
        "00",
        {"ko": "대화를 보고 부르도록(모델 제어)", "en": "designed to be called by the model"},
        {"ko": "알아서 부르고", "en": "called by the model on its own"},
    ),
    "primitive named as the glossary names it": (
        "00",
        {"ko": "기본 요소(primitive)", "en": "primitives"},
        {"ko": "기능(primitive)", "en": "\u0000"},
    ),
    "SEP-1303 clarified an ambiguity": (
        "04",
        {"ko": "모호함을 푼 것", "en": "a clarification rather than a new rule"},
        {"ko": "이 선을 옮겼습니다", "en": "moved this line"},
    ),
    "an exception in a tool: the tool ran and failed": (
        "04",
        {"ko": "도구가 실행되었다가 실패한 것", "en": "The tool ran and failed"},
        {"ko": "\u0000", "en": "\u0000"},
    ),
    "resources are read-only by design, the application decides": (
        "02",
        {"ko": "리소스는 설계상 읽기 전용", "en": "Resources are read-only by design"},
        {
            "ko": "모델이 직접 `resources/read`를 보내지는 않습니다",
            "en": "the model never sends resources/read",
        },
    ),
    "which era %mcp_read speaks": (
        "02",
        {"ko": "2026-07-28로 말하므로", "en": "speak the newer era, 2026-07-28"},
        {},
    ),
    "resource_link vs embedded resource": (
        "02",
        {
            "ko": "링크가 `resources/list`에 실려 있을 필요도 없습니다",
            "en": "a link need not appear in `resources/list`",
        },
        {},
    ),
    "tool names are case-sensitive": (
        "01",
        {"ko": "대소문자를 구별합니다", "en": "Names are case-sensitive"},
        {},
    ),
    "an input schema may name draft-07 with $schema": (
        "01",
        {"ko": "http://json-schema.org/draft-07/schema#", "en": "http://json-schema.org/draft-07/schema#"},
        {},
    ),
    "x-mcp-header never on a secret": (
        "05",
        {"ko": "`x-mcp-header`를 붙이지 말라고", "en": "never to put `x-mcp-header`"},
        {},
    ),
    "handles are bound to the identity a token proves, not a claimed name": (
        "05",
        {"ko": "토큰이 증명하는 신원", "en": "the identity the token proves"},
        {},
    ),
}


@pytest.mark.parametrize("fact", list(SAYS))
@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_lessons_state_the_fact_and_not_the_old_error(fact: str, language: str) -> None:
    chapter, must, must_not = SAYS[fact]
    text = prose(chapter, language)
    assert must[language] in text, f"ch{chapter} ({language}) no longer says: {must[language]!r}"
    if must_not:
        assert must_not[language] not in text, f"ch{chapter} ({language}) says again: {must_not[language]!r}"


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_read_only_query_tool_refuses_a_delete_and_shows_it(language: str) -> None:
    """Chapter 03's `execute_query` claims read-only: the notebook shows a DELETE refused with isError."""
    shown = output_of(f"notebooks/{language}/03_prompts.ipynb", '"DELETE FROM orders"')
    assert "SELECT" in shown and ("isError" in shown or "오류" in shown or "error" in shown.lower()), shown[
        :300
    ]


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_result_missing_an_output_field_says_field_not_argument(language: str) -> None:
    shown = output_of(f"notebooks/{language}/01_tools.ipynb", "def broken_weather")
    assert {"ko": "필수 필드", "en": "required field"}[language] in shown, shown[:400]
    assert {"ko": "필수 인자", "en": "required argument"}[language] not in shown


@pytest.mark.parametrize("language", ["ko", "en"])
def test_a_handle_is_shown_refused_to_another_client_honest_or_posing(language: str) -> None:
    """05 §6 shows, live, another client's token refused both under its own name and under the owner's."""
    shown = output_of(f"notebooks/{language}/05b_tool_design_2.ipynb", "async def view_as")
    assert shown.count("isError: True") == 2, shown[:600]
    claim = {"ko": "other-app (스스로 notebook이라고 밝힘)", "en": "other-app (claims to be notebook)"}
    assert claim[language] in shown and "'items': ['apple']" in shown, shown[:600]


def test_q4_asks_whom_a_handle_is_bound_to() -> None:
    """The right answer binds to the token's identity; binding to a claimed name, a session id or nothing
    are offered and refused."""
    q4 = _content.chapter_data("05")["q4"]
    options = {label: option["en"] for label, option in q4["options"].items()}
    assert "current_client()" in options[q4["answer"]]
    wrong = " ".join(text for label, text in options.items() if label != q4["answer"])
    assert all(word in wrong for word in ("clientInfo.name", "Mcp-Session-Id", "Nothing")), wrong
    refused = {r["answer"].strip("{}") for r in q4["refuses"]}
    assert refused == set(options) - {q4["answer"]}
