"""Every user-facing message exists in English and Korean, with the same placeholders.

The messages are read from the catalogue files themselves (``mcp_notebook/core/messages/*.toml``), so
no module needs importing to find them; and importing every module must not touch the catalogue.
"""

from __future__ import annotations

import ast
import re
import string
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Literal

import annotated_types as at
import pytest

import mcp_notebook
from mcp_notebook import ToolDefinitionError, prompt, set_language, tool
from mcp_notebook.core import _text
from mcp_notebook.core._arguments import argument_problems
from mcp_notebook.core._catalogue import Catalogue
from mcp_notebook.core._particles import PARTICLES, with_particle

PACKAGE = Path(mcp_notebook.__file__).parent
FILES = {language: PACKAGE / "core" / "messages" / f"{language}.toml" for language in ("en", "ko")}
CATALOGUE = {language: tomllib.loads(path.read_text(encoding="utf-8")) for language, path in FILES.items()}
KEYS = sorted(CATALOGUE["en"].keys() | CATALOGUE["ko"].keys())
# `을(를)`, `이(가)`, `(으)로`, `(이)라는` ...: a particle left for the reader to choose.
REGISTRARS = ("add_messages", "register_literal")  # how modules used to register messages at import
ALTERNATIVE = re.compile(
    r"을\(를\)|를\(을\)|이\(가\)|가\(이\)|은\(는\)|는\(은\)|과\(와\)|와\(과\)|\((으|이)\)"
)


def fields(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def specs(template: str) -> set[str]:
    return {spec for _, name, spec, _ in string.Formatter().parse(template) if name and spec}


@pytest.fixture
def korean() -> Iterator[None]:
    before = _text.get_language()
    set_language("ko")
    try:
        yield
    finally:
        set_language(before)


@pytest.mark.parametrize("key", KEYS)
def test_each_message_has_both_languages_with_the_same_fields(key: str) -> None:
    english, korean = CATALOGUE["en"].get(key), CATALOGUE["ko"].get(key)
    assert english is not None, f"{key} is missing from en.toml"
    assert korean is not None, f"{key} is missing from ko.toml"
    assert english.strip() and korean.strip()
    assert fields(english) == fields(korean)
    assert any("\uac00" <= ch <= "\ud7a3" for ch in korean) or key.startswith("name.")


def test_korean_messages_choose_their_particles() -> None:
    left = {
        key: ALTERNATIVE.findall(text) for key, text in CATALOGUE["ko"].items() if ALTERNATIVE.search(text)
    }
    assert left == {}, "write the particle that fits the word, or {field:을/를} after a field"
    # A particle after a field names one of the known pairs; English has none.
    unknown = {
        (key, spec)
        for key, text in CATALOGUE["ko"].items()
        for spec in specs(text)
        if re.search("[가-힣]", spec) and spec not in PARTICLES
    }
    assert unknown == set()
    assert not [key for key, text in CATALOGUE["en"].items() if any(s in PARTICLES for s in specs(text))]


def test_the_catalogue_is_what_the_package_reads() -> None:
    for language in ("en", "ko"):
        assert dict(_text.catalogue(language)) == CATALOGUE[language]


def test_no_module_registers_messages_or_reads_the_catalogue_at_import() -> None:
    code = (
        "import importlib, pkgutil, mcp_notebook\n"
        "from mcp_notebook.core import _text\n"
        "for module in pkgutil.walk_packages(mcp_notebook.__path__, 'mcp_notebook.'):\n"
        "    if not module.name.endswith('.__main__'):  # `python -m mcp_notebook.cli` runs the command\n"
        "        importlib.import_module(module.name)\n"
        "print(sorted(_text._catalogues))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"  # nothing read, so nothing added: the files are the catalogue


def test_no_module_of_the_package_registers_messages() -> None:
    registering = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in REGISTRARS:
                registering.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert registering == [], "move them into the catalogue: python scripts/messages.py move"


def test_language_switch_reaches_definition_errors(korean: None) -> None:
    with pytest.raises(ToolDefinitionError, match="도구 이름"):
        tool(name="bad name", catalogue=Catalogue())(lambda: None)


def test_unknown_language_is_refused() -> None:
    with pytest.raises(ValueError, match="'en' or 'ko'"):
        set_language("fr")  # type: ignore[arg-type]


def test_constraint_problems_are_korean_in_korean_and_in_english_the_validators_words_with_bounds(
    korean: None,
) -> None:
    catalogue = Catalogue()

    @tool(catalogue=catalogue)
    def plan(
        unit: Literal["C", "F"],
        days: Annotated[int, at.Ge(1), at.Le(7)],
        city: Annotated[str, at.MinLen(2)],
        tags: list[str] | None = None,
    ) -> str:
        """Plan a trip."""
        return city

    validator = catalogue.get("plan").validator  # type: ignore[union-attr]
    wrong = {"unit": "K", "days": 9, "city": "X", "tags": 3}
    assert argument_problems(validator, wrong) == [
        "city: 'X'는 너무 짧습니다(최소 2자)",
        "days: 9는 최댓값 7보다 큽니다",
        "tags: 3은 'array'(배열) 또는 'null' 타입이 아닙니다",
        "unit: 'K'는 ['C', 'F'] 중 하나가 아닙니다",
    ]
    set_language("en")
    assert argument_problems(validator, wrong) == [
        "city: 'X' is too short (at least 2 characters)",
        "days: 9 is greater than the maximum of 7",
        "tags: 3 is not of type 'array', 'null'",
        "unit: 'K' is not one of ['C', 'F']",
    ]


def test_prompt_argument_problems_are_korean_in_korean(korean: None) -> None:
    catalogue = Catalogue()

    @prompt(catalogue=catalogue)
    def review(code: str, style: Literal["short", "long"] = "short", depth: int = 1) -> str:
        """Review code."""
        return code

    entry = catalogue.get_prompt("review")
    assert entry is not None
    assert entry.problems({"code": "x", "style": "medium"}) == [
        "프롬프트 'review'의 인자 'style': 'medium'은 ['short', 'long'] 중 하나가 아닙니다."
    ]
    with pytest.raises(ValueError, match="'deep'은 'integer'\\(정수\\) 타입이 아닙니다"):
        entry.convert({"code": "x", "depth": "deep"})


DIGITS = "영일이삼사오육칠팔구"  # how each digit is read; the particle follows that reading


@pytest.mark.parametrize("digit", "0123456789")
def test_a_number_takes_the_particle_of_its_korean_reading(digit: str) -> None:
    reading = DIGITS[int(digit)]
    for pair in PARTICLES:
        assert with_particle(digit, pair) == digit + with_particle(reading, pair)[len(reading) :], pair


@pytest.mark.parametrize(
    ("word", "particle", "expected"),
    [
        # Hangul: the last syllable's final consonant, and ㄹ takes 로
        ("노트북", "이/가", "노트북이"),
        ("바다", "이/가", "바다가"),
        ("책", "을/를", "책을"),
        ("사과", "을/를", "사과를"),
        ("커널", "은/는", "커널은"),
        ("서버", "은/는", "서버는"),
        ("파일", "과/와", "파일과"),
        ("도구", "과/와", "도구와"),
        ("서울", "으로/로", "서울로"),
        ("문자열", "으로/로", "문자열로"),
        ("집", "으로/로", "집으로"),
        ("바다", "으로/로", "바다로"),
        ("책", "이라는/라는", "책이라는"),
        ("도구", "이라는/라는", "도구라는"),
        ("문자열", "이어야/여야", "문자열이어야"),
        ("정수", "이어야/여야", "정수여야"),
        # numbers: as read aloud
        ("10", "으로/로", "10으로"),  # 십
        ("100", "을/를", "100을"),  # 백
        ("2.5", "이/가", "2.5가"),  # 이 점 오
        ("404", "으로/로", "404로"),  # 사백사
        ("8080", "을/를", "8080을"),  # 팔천팔십
        ("student-7", "이/가", "student-7이"),  # 칠
        ("v1", "으로/로", "v1로"),  # 일
        # English words, read as loanwords
        ("json", "을/를", "json을"),  # 제이슨
        ("json", "으로/로", "json으로"),
        ("notebook", "을/를", "notebook을"),  # 노트북
        ("claude-code", "을/를", "claude-code를"),  # 클로드 코드
        ("file", "으로/로", "file로"),  # 파일
        ("name", "이/가", "name이"),  # 네임
        ("line", "은/는", "line은"),  # 라인
        ("string", "이/가", "string이"),  # 스트링
        ("magic", "을/를", "magic을"),  # 매직
        ("sync", "을/를", "sync를"),  # 싱크
        ("map", "이/가", "map이"),  # 맵
        ("help", "이/가", "help가"),  # 헬프
        ("chat", "은/는", "chat은"),  # 챗
        ("test", "은/는", "test는"),  # 테스트
        ("desk", "과/와", "desk와"),  # 데스크
        ("user", "이/가", "user가"),  # 유저
        ("python", "으로/로", "python으로"),  # 파이선
        ("alice", "이라고/라고", "alice라고"),
        ("bob", "이라는/라는", "bob이라는"),
        # acronyms and letters, read letter by letter
        ("GPT", "이/가", "GPT가"),  # 지피티
        ("HTML", "은/는", "HTML은"),  # 엘
        ("URL", "으로/로", "URL로"),  # 엘: ㄹ takes 로
        ("API", "을/를", "API를"),  # 아이
        ("MCP", "은/는", "MCP는"),  # 피
        ("JSON", "으로/로", "JSON으로"),  # 엔
        ("getURL", "이/가", "getURL이"),
        ("csv", "을/를", "csv를"),  # 씨에스브이
        ("npm", "으로/로", "npm으로"),  # 엠
        ("sql", "으로/로", "sql로"),  # 엘
        ("x", "이/가", "x가"),  # 엑스
        ("n", "이/가", "n이"),  # 엔
        # quotes, paths, markup and asides are not read aloud
        ("'abc'", "을/를", "'abc'를"),  # 에이비씨
        ("'delete_row'", "을/를", "'delete_row'를"),
        ('"quote"', "이/가", '"quote"가'),
        ("'K'", "은/는", "'K'는"),
        ("data/report.json", "으로/로", "data/report.json으로"),
        ("notebooks/sales.csv", "을/를", "notebooks/sales.csv를"),
        ("README.md", "이/가", "README.md가"),  # 엠디
        ("<code>send_mail</code>", "을/를", "<code>send_mail</code>을"),  # 메일
        ("mallory <i>(스스로 밝힘)</i>", "이/가", "mallory <i>(스스로 밝힘)</i>가"),  # an aside is skipped
        ("reserve()", "은/는", "reserve()는"),
        ("Tool(도구)", "으로/로", "Tool(도구)로"),  # 툴
        ("사람의 승인", "으로/로", "사람의 승인으로"),
        # nothing to read: the form after a vowel
        ("", "을/를", "를"),
        ("''", "이/가", "''가"),
        ("→", "은/는", "→는"),
    ],
)
def test_korean_particles_follow_the_word(word: str, particle: str, expected: str) -> None:
    assert with_particle(word, particle) == expected


def test_a_message_picks_the_particle_from_its_values(korean: None) -> None:
    assert _text.t("call.missing", field="city") == "필수 인자 'city'가 없습니다"
    assert _text.t("call.missing", field="name") == "필수 인자 'name'이 없습니다"
    assert _text.t("serve.port_in_use", host="127.0.0.1", port=8080).startswith(
        "127.0.0.1의 포트 8080을 이미 다른 프로그램이 쓰고 있어"
    )
    assert _text.t("serve.port_in_use", host="127.0.0.1", port=8002).startswith("127.0.0.1의 포트 8002를 ")
    assert _text.t("identity.case_clash", name="Alice", existing="alice").startswith(
        "'Alice'는 이미 있는 클라이언트 'alice'와 대소문자만 달라"
    )
    assert _text.t("identity.case_clash", name="Bob", existing="bob").startswith(
        "'Bob'은 이미 있는 클라이언트 'bob'과 대소문자만 달라"
    )
    assert _text.t("lessons.items.wrong", item="x", given="사람의 승인", meaning="").startswith(
        "'x': 사람의 승인으로 골랐습니다."
    )
    assert _text.t("lessons.items.wrong", item="x", given="Tool(도구)", meaning="").startswith(
        "'x': Tool(도구)로 골랐습니다."
    )
    both = _text.both("call.missing", field="alice")
    assert both == {"en": "missing required argument 'alice'", "ko": "필수 인자 'alice'가 없습니다"}


# -- every constraint message names its bound ---------------------------------------------------------

# keyword -> (the field's schema, a value that breaks it, the bound as the message must show it)
BOUNDS: dict[str, tuple[dict[str, object], object, str]] = {
    "type": ({"type": "integer"}, "x", "integer"),
    "enum": ({"enum": ["C", "F"]}, "K", "['C', 'F']"),
    "const": ({"const": "yes"}, "no", "'yes'"),
    "minimum": ({"minimum": 3}, 1, "3"),
    "maximum": ({"maximum": 7}, 9, "7"),
    "exclusiveMinimum": ({"exclusiveMinimum": 3}, 3, "3"),
    "exclusiveMaximum": ({"exclusiveMaximum": 7}, 7, "7"),
    "multipleOf": ({"multipleOf": 5}, 7, "5"),
    "minLength": ({"minLength": 16}, "abc", "16"),
    "maxLength": ({"maxLength": 4}, "abcdef", "4"),
    "pattern": ({"pattern": "^[a-z]+$"}, "A1", "^[a-z]+$"),
    "format": ({"format": "date"}, "someday", "date"),
    "minItems": ({"minItems": 2}, [1], "2"),
    "maxItems": ({"maxItems": 1}, [1, 2, 3], "1"),
    "minProperties": ({"minProperties": 2}, {"a": 1}, "2"),
    "maxProperties": ({"maxProperties": 1}, {"a": 1, "b": 2}, "1"),
    "minContains": ({"contains": {"const": 1}, "minContains": 2}, [1], "2"),
    "maxContains": ({"contains": {"const": 1}, "maxContains": 1}, [1, 1], "1"),
}
# Keywords with no bound to name: they compose schemas, name fields, or say "each item once".
UNBOUNDED = {
    "$ref", "$dynamicRef", "additionalProperties", "allOf", "anyOf", "oneOf", "not", "if", "then",
    "else", "items", "prefixItems", "contains", "properties", "patternProperties", "propertyNames",
    "required", "dependentRequired", "dependentSchemas", "unevaluatedItems", "unevaluatedProperties",
    "uniqueItems",
}  # fmt: skip


def test_every_keyword_of_the_validator_is_either_bounded_or_known_to_have_no_bound() -> None:
    import jsonschema

    keywords = set(jsonschema.Draft202012Validator.VALIDATORS)
    assert keywords - set(BOUNDS) - UNBOUNDED == set(), "a new keyword: add it to BOUNDS or UNBOUNDED"


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("keyword", sorted(BOUNDS))
def test_every_constraint_message_names_its_bound(keyword: str, language: str) -> None:
    from mcp_notebook.core._arguments import compile_validator

    schema, value, bound = BOUNDS[keyword]
    validator = compile_validator({"type": "object", "properties": {"field": schema}})
    set_language(language)  # type: ignore[arg-type]
    try:
        (problem,) = argument_problems(validator, {"field": value})
    finally:
        set_language("en")
    assert problem.startswith("field: ") and bound in problem, problem
