"""Server messages a Korean learner sees are in Korean, or explained in Korean next to them (issue #19,
point 7).

Two kinds of English can reach a Korean notebook's output. Our own messages come from
``mcp_notebook/core/messages``: in a Korean notebook they must be the Korean ones, so no English text of
that catalogue may appear in its outputs. Messages of the protocol, the SDK or a validator (JSON-RPC
error strings such as "Method not found", JSON Schema's "is a required property") stay as the wire
carries them; where a Korean notebook shows one, a markdown cell next to it says in Korean what it means.

The chapters held here are those whose texts are settled for this rule; a chapter joins ``CHAPTERS`` once
the English messages its Korean notebooks show are explained.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook.lessons import _content

ROOT = Path(__file__).parents[2]
CHAPTERS = ("00", "01", "01b", "02", "03", "04", "05", "06", "07", "08", "09", "10", "11")

EXPLAINED: dict[str, tuple[str, ...]] = {
    # English message as the wire or a library shows it -> Korean words, any of which explains it
    "Method not found": ("그런 메서드가 없", "없는 메서드", "메서드 자체가 없"),
    "Invalid params": ("인자가 잘못되었",),
    "Invalid Request": ("요청이 잘못되었", "요청의 꼴부터 틀렸"),
    "Internal error": ("서버 내부 오류", "서버 안에서 뜻밖의 고장"),
    "Parse error": ("JSON으로 읽을 수 없", "JSON으로 읽지 못했"),
    "Session not found": ("세션을 찾을 수 없",),
    "Missing session ID": ("세션 ID가 없",),
    "Unsupported protocol version": ("지원하지 않는 프로토콜 버전",),
    "Invalid or expired requestState": (
        "requestState가 잘못되었거나 만료되었",
        "`requestState`가 잘못되었거나 만료되었",
    ),
    "is missing the required envelope key": ("필수 키가 빠졌",),
    "header does not match the request body": ("헤더가 본문과 맞지 않",),
    "is a required property": ("필수 속성이 빠졌",),
    "is not of type": ("타입이 맞지 않",),
    "is not one of": ("허용된 값이 아니",),
    "Additional properties are not allowed": ("허용되지 않은 속성",),
    "Input validation error": ("입력 검증 오류",),
    "Validation failed": ("검증 실패",),
    # an exported app's OAuth refusals (error_description), chapter 11
    "was not issued for this resource": ("대상이 다른",),
    "the access token has expired": ("만료된 토큰",),
    "the access token lacks the scope": ("스코프가 모자란",),
    "was not issued by the expected authorization server": ("믿는 발급자가 아닌",),
}


def explains(words: tuple[str, ...], text: str) -> bool:
    return any(word in text for word in words)


def korean_notebooks() -> list[Path]:
    return sorted({p for c in CHAPTERS for p in (ROOT / "notebooks" / "ko").glob(f"{c}*.ipynb")})


def output_text(cell: dict[str, Any]) -> str:
    parts: list[str] = []
    for output in cell.get("outputs", []):
        if output["output_type"] == "stream":
            parts.append("".join(output["text"]))
        elif output["output_type"] == "error":
            parts += [output["evalue"], *output.get("traceback", [])]
        else:
            for value in output.get("data", {}).values():
                parts.append("".join(value) if isinstance(value, list) else json.dumps(value))
    return "\n".join(parts)


def unexplained(cells: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(cell index, message) for each listed English message an output shows with no Korean
    explanation in it or in the nearest markdown cell before or after it, or a markdown cell names
    with none."""
    found: list[tuple[int, str]] = []
    for index, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            text = "".join(cell["source"])
            found += [(index, m) for m, words in EXPLAINED.items() if m in text and not explains(words, text)]
            continue
        shown = output_text(cell)
        for message, words in EXPLAINED.items():
            if message not in shown:
                continue
            near = [
                "".join(cells[i]["source"])
                for step in (-1, 1)
                for i in [next_markdown(cells, index, step)]
                if i is not None
            ]
            if not explains(words, shown) and not any(explains(words, text) for text in near):
                found.append((index, message))
    return found


def next_markdown(cells: list[dict[str, Any]], index: int, step: int) -> int | None:
    i = index + step
    while 0 <= i < len(cells):
        if cells[i]["cell_type"] == "markdown":
            return i
        i += step
    return None


def english_catalogue_texts() -> list[str]:
    """The fixed parts (four words or more) of our English messages that the Korean catalogue lacks."""
    messages = ROOT / "mcp_notebook" / "core" / "messages"
    english = tomllib.loads((messages / "en.toml").read_text(encoding="utf-8"))
    korean = "\n".join(tomllib.loads((messages / "ko.toml").read_text(encoding="utf-8")).values())
    texts = {
        piece.strip()
        for message in english.values()
        for piece in re.split(r"\{[^{}]*\}", message)
        if len(piece.strip().split()) >= 4
    }
    return sorted(text for text in texts if text not in korean)


@pytest.mark.parametrize("path", korean_notebooks(), ids=lambda p: p.name)
def test_an_english_server_message_in_a_korean_notebook_is_explained(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    assert unexplained(cells) == [], f"{path.name}: explain these in Korean in the markdown next to them"


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_an_english_server_message_in_a_korean_exercise_text_is_explained(chapter: str) -> None:
    """Questions, options, hints and feedback in Korean that name a listed message say what it means."""
    texts: list[str] = []

    def korean(value: Any) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                texts.append(inner) if key == "ko" and isinstance(inner, str) else korean(inner)
        elif isinstance(value, list):
            for inner in value:
                korean(inner)

    korean(_content.chapter_data(chapter))
    missing = [
        (message, text[:80])
        for text in texts
        for message, words in EXPLAINED.items()
        if message in text and not explains(words, text)
    ]
    assert missing == [], f"ch{chapter}: say in Korean what these mean: {missing}"


@pytest.mark.parametrize("path", korean_notebooks(), ids=lambda p: p.name)
def test_our_own_messages_reach_a_korean_learner_in_korean(path: Path) -> None:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    shown = "\n".join(output_text(cell) for cell in cells)
    english = [text for text in english_catalogue_texts() if text in shown]
    assert english == [], f"{path.name} shows English messages of mcp_notebook: {english[:5]}"


def test_the_check_notices_an_unexplained_message_and_accepts_an_explained_one() -> None:
    """The rule itself: a shown "Method not found" needs its Korean gloss in the markdown beside it."""
    shown = {
        "cell_type": "code",
        "source": ["call()"],
        "outputs": [{"output_type": "stream", "name": "stdout", "text": ["{'message': 'Method not found'}"]}],
    }
    plain = {"cell_type": "markdown", "source": ["호출해 봅니다."]}
    gloss = {"cell_type": "markdown", "source": ["`Method not found`는 그런 메서드가 없다는 뜻입니다."]}
    named = {"cell_type": "markdown", "source": ["오류 -32601(Method not found)이 옵니다."]}
    assert unexplained([plain, shown]) == [(1, "Method not found")]
    assert unexplained([plain, shown, gloss]) == []
    assert unexplained([gloss, shown, plain]) == []
    assert unexplained([named]) == [(0, "Method not found")]
    glossed = {
        **shown,
        "outputs": [{**shown["outputs"][0], "text": ["Method not found (그런 메서드가 없음)"]}],
    }
    assert unexplained([plain, glossed]) == []
    assert english_catalogue_texts(), "the English catalogue was not read"
