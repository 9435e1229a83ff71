"""Facts the lessons once got wrong stay right, in Korean and in English (issue #19, point 1).

Each test reads the chapter's data (what the notebooks are made from) or a committed notebook's output,
and fails if the old wording or behaviour comes back.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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


Words = str | tuple[str, ...]
SAYS: dict[str, tuple[str, dict[str, Words], dict[str, Words]]] = {
    # chapter, {language: words that must be there}, {language: words that must not come back};
    # several words in a tuple, and a language left out when the fact is the other language's alone
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
    # issue #32, point 4: the reviewer's slips
    "prompt arguments have a title as well as name, description and required": (
        "03",
        {
            "ko": (
                "`title`(사람에게 보여 줄 이름, 선택)",
                "`name`, `title`(선택), `description`, `required`뿐",
            ),
            "en": (
                "`title` (an optional name for people)",
                "`name`, `title` (optional), `description` and `required`",
            ),
        },
        {
            "ko": ("`required` 세 가지뿐", "정의는 `name`, `description`, `required`뿐"),
            "en": (
                "only three parts",
                "is only `name`, `description` and `required`",
                "by `name`, `description`",
            ),
        },
    ),
    "the 128-character tool-name limit is guidance (SHOULD), not a MUST": (
        "01",
        {
            "ko": ("명세의 권고(SHOULD)는 1~128자", "mcp-notebook은 모든 도구 이름이 이 규칙을 따르게"),
            "en": (
                "guidance (SHOULD, not MUST): 1–128 characters",
                "mcp-notebook holds every tool name to them",
            ),
        },
        {"ko": "겹치지 않는 이름. 1~128자", "en": "A name unique within the server: 1–128 characters"},
    ),
    "x-mcp-header exists in 2026-07-28 only": (
        "05",
        {"ko": "이 표시는 2026-07-28 명세에만 있고", "en": "`x-mcp-header` exists in 2026-07-28 only"},
        {},
    ),
    "a client that supports tasks may call an optional tool as a task: its choice": (
        "08",
        {
            "ko": "태스크로 부를 **수도** 있습니다(MAY)",
            "en": "**may** call an `optional` tool as a task (MAY): the client chooses",
        },
        {"ko": ("**매번**", "매번 태스크로"), "en": ("**every time**", "as a task every time")},
    ),
    "a task's ttlMs counts from its creation; 2025-11-25 names it ttl; a list's ttlMs is another thing": (
        "08",
        {
            "ko": (
                "`ttlMs`는 태스크의 수명을 `createdAt`부터 센 밀리초",
                "`ttl`이라는 이름",
                "이름만 같습니다",
            ),
            "en": (
                "counted from its `createdAt`",
                "the same field is named `ttl`",
                "Only the name is shared",
            ),
        },
        {
            "ko": ("태스크가 끝난 뒤 서버가 결과를 얼마나 보관하는지", "`ttlMs` 동안 보관"),
            "en": ("how long the server keeps the result after the task ends", "keeps it for `ttlMs`"),
        },
    ),
    "2026-07-28 removals named, with their SEP": (
        "08",
        {
            "ko": "`ping`, `logging/setLevel`, `notifications/roots/list_changed`가 빠졌고(SEP-2575)",
            "en": "`ping`, `logging/setLevel` and `notifications/roots/list_changed` are gone too (SEP-2575)",
        },
        {"ko": "`logging/setLevel` 등", "en": "`logging/setLevel` ..."},
    ),
    "2026-07-28 deprecations named, with their SEP": (
        "08",
        {"ko": "roots, sampling, logging(SEP-2577)", "en": "roots, sampling and logging (SEP-2577)"},
        {},
    ),
    "the SEPs behind the big changes, where each is taught": (
        "08",
        {
            "ko": (
                "SEP-2575(핸드셰이크 대신 `_meta`와 `server/discover`)와 SEP-2567(세션 대신 핸들)",
                "HTTP 헤더도 셋이 쓰입니다(SEP-2243)",
                "공식 확장 `io.modelcontextprotocol/tasks`가 되었습니다(SEP-2663)",
            ),
            "en": (
                "SEP-2575 (`_meta` and `server/discover` instead of the handshake) and SEP-2567",
                "Three HTTP headers are used too (SEP-2243)",
                "into an official extension, `io.modelcontextprotocol/tasks` (SEP-2663)",
            ),
        },
        {},
    ),
    "MRTR named with its meaning": (
        "08",
        {
            "ko": "**MRTR**(Multi Round-Trip Requests, 여러 번 오가는 요청)이라 부릅니다(SEP-2322)",
            "en": "**MRTR**, multi round-trip requests (SEP-2322)",
        },
        {},
    ),
    "a task's lifecycle is 수명 주기": ("08", {"ko": "수명 주기가 남습니다"}, {"ko": "한살이"}),
    "pagination takes 을": ("01", {"ko": "페이지네이션을 눈으로"}, {"ko": "페이지네이션를"}),
    "what is the code, not how many days": ("04", {"ko": "`code`는 무엇일까요"}, {"ko": "몇일까요"}),
    "chapter 09 names primitives as the glossary does": (
        "09",
        {"ko": ("기본 요소(primitive)", "다른 기본 요소로")},
        {"ko": "프리미티브"},
    ),
}


@pytest.mark.parametrize("fact", list(SAYS))
@pytest.mark.parametrize("language", ["ko", "en"])
def test_the_lessons_state_the_fact_and_not_the_old_error(fact: str, language: str) -> None:
    chapter, must, must_not = SAYS[fact]
    text = prose(chapter, language)
    for words in _each(must.get(language, ())):
        assert words in text, f"ch{chapter} ({language}) no longer says: {words!r}"
    for words in _each(must_not.get(language, ())):
        assert words not in text, f"ch{chapter} ({language}) says again: {words!r}"


def _each(words: Words) -> tuple[str, ...]:
    return (words,) if isinstance(words, str) else words


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


NOTE = re.compile(r"\b(MCP0\d\d) (?:error|warning|info) (\w+)(?: \[([\w.\[\]{}]+)\])?")


@pytest.mark.parametrize("language", ["ko", "en"])
def test_every_linter_note_chapter_01_shows_is_explained_next_to_it(language: str) -> None:
    """Chapter 01's example tools once raised 13 linter notes and the prose explained the first: now each
    note a cell shows is named, rule and parameter (or tool), in the prose that follows the cell."""
    cells = json.loads((ROOT / f"notebooks/{language}/01_tools.ipynb").read_text(encoding="utf-8"))["cells"]
    shown = 0
    for index, cell in enumerate(cells):
        notes = set(NOTE.findall(json.dumps(cell.get("outputs", []), ensure_ascii=False)))
        if not notes:
            continue
        after = next(c for c in cells[index + 1 :] if c["cell_type"] == "markdown")
        prose_after = "".join(after["source"])
        for rule, tool, parameter in sorted(notes):
            shown += 1
            assert rule in prose_after and f"`{parameter or tool}`" in prose_after, (
                f"cell {index} shows {rule} on {tool} {parameter}; the prose after it does not explain it"
            )
    assert 0 < shown <= 3, shown


def _korean(value: Any) -> list[str]:
    """Every text of a chapter's data but its English ones."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [text for key, item in value.items() if key != "en" for text in _korean(item)]
    if isinstance(value, list):
        return [text for item in value for text in _korean(item)]
    return []


def _closed(syllable: str) -> bool:
    """Whether a Hangul syllable ends in a consonant (받침): it takes 을, not 를, and 과, not 와."""
    return (ord(syllable) - 0xAC00) % 28 != 0


# 과 and 로 are left out: 결과, 초과 and 경로 end in them as words of their own.
PARTICLE = re.compile(r"([\uac00-\ud7a3])(을|를|와)(?![\uac00-\ud7a3])")


@pytest.mark.parametrize("chapter", _content.chapters())
def test_korean_particles_fit_the_word_before_them(chapter: str) -> None:
    """Chapter 01 once wrote "페이지네이션를": 을/를 and 와 follow whether the word ends in a consonant."""
    wrong = []
    for name in ("cells.toml", "exercises.toml"):
        for text in _korean(_content.read(_content.CONTENT / f"ch{chapter}" / name)):
            for found in PARTICLE.finditer(text):
                word, particle = found.groups()
                if _closed(word) != (particle == "을"):
                    wrong.append(text[max(0, found.start() - 12) : found.end() + 4])
    assert not wrong, wrong
