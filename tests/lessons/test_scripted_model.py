"""The scripted model, row by row from its table (``scripted_model_cases.toml``): tool sets × requests →
the tool it picks, the arguments it fills, how a chain or an error recovery ends. Every tool is real,
defined on an in-kernel server from the table, so the model reads the schemas and the error messages the
server itself writes (both languages)."""

from __future__ import annotations

import json
import random
import tomllib
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook import Catalogue, ToolError, set_language, tool
from mcp_notebook.lessons import _glossary
from mcp_notebook.lessons._agent import Call, Run, ScriptedModel, loop, run_agent
from mcp_notebook.lessons._glossary import concepts_of, terms
from mcp_notebook.lessons._repair import read
from mcp_notebook.lessons._steps import Answer, Step

TABLE = tomllib.loads((Path(__file__).with_name("scripted_model_cases.toml")).read_text(encoding="utf-8"))

STATIONS: dict[str, dict[str, Any]] = {
    "ST-1043": {"ko": "여의나루역 1번출구 앞", "en": "Yeouinaru Station Exit 1", "bikes": 7, "kids": 2},
    "ST-2210": {"ko": "뚝섬유원지역 2번출구", "en": "Ttukseom Resort Station Exit 2", "bikes": 12, "kids": 0},
    "ST-0501": {"ko": "광화문역 5번출구", "en": "Gwanghwamun Station Exit 5", "bikes": 3, "kids": 1},
    "ST-3318": {"ko": "서울숲 3번출입구", "en": "Seoul Forest Gate 3", "bikes": 9, "kids": 4},
}
DISTRICTS = {"영등포구": ["ST-1043", "ST-1100"], "광진구": ["ST-2210"]}
DIARY = {"2026-03-01": "벚꽃이 피기 시작했다.", "2026-03-02": "하루 종일 비."}


# -- what each tool of the table does --------------------------------------------------------------------
def _error(spec: dict[str, Any], key: str, **values: Any) -> ToolError:
    return ToolError(spec.get("messages", {}).get(key, "대여소 ID가 아닙니다.").format(**values))


def count(spec: dict[str, Any], station_id: str, kind: Any = None) -> int:
    if station_id in STATIONS:
        return int(STATIONS[station_id]["kids" if kind is not None and kind == spec.get("kids") else "bikes"])
    if spec.get("errors") == "key_error":
        raise KeyError(station_id)
    near = [key for key, s in STATIONS.items() if station_id in s["ko"] or station_id in s["en"]]
    ids = ", ".join(f"'{key}'" for key in STATIONS)
    named = ", ".join(f"'{key}'({s['ko']})" for key, s in STATIONS.items())
    raise _error(
        spec,
        "name" if near else "unknown",
        id=near[0] if near else "",
        value=station_id,
        ids=ids,
        named=named,
    )


def find(spec: dict[str, Any], name: str) -> dict[str, str]:
    for key, station in STATIONS.items():
        for language in ("ko", "en"):
            if name in station[language]:
                return {"station_id": key, "name": station[language]}
    raise _error(spec, "missing")


def rent(spec: dict[str, Any], station: str, start_hour: int, hours: int) -> dict[str, Any]:
    if station not in ("north", "south", "river"):
        raise _error(spec, "station", station=station)
    if start_hour < 9 or start_hour > 17:
        raise _error(spec, "early", start_hour=start_hour)
    if hours < 1:
        raise _error(spec, "short", hours=hours)
    if start_hour + hours > 18:
        end = start_hour + hours
        raise _error(spec, "late", hours=hours, start_hour=start_hour, end=end, max=18 - start_hour)
    return {"station": station, "start_hour": start_hour, "end_hour": start_hour + hours}


def diary(spec: dict[str, Any], date: str) -> str:
    if date not in DIARY:
        raise _error(spec, "missing", date=date, dates=", ".join(DIARY))
    return DIARY[date]


def district(spec: dict[str, Any], district: str) -> dict[str, Any]:
    stations = DISTRICTS.get(district, [])
    found = [
        {"station_id": key, "name": STATIONS.get(key, {"ko": "당산역 4번출구"})["ko"]} for key in stations
    ]
    return {"result": found}


def reserve(spec: dict[str, Any], station_id: str) -> dict[str, str]:
    if station_id not in STATIONS:
        raise _error(spec, "unknown", value=station_id)
    return {"reserved": station_id}


BEHAVIOURS: dict[str, Any] = {
    "count": count,
    "find": find,
    "rent": rent,
    "diary": diary,
    "district": district,
    "reserve": reserve,
    "fee": lambda spec, hours: f"{1000 * hours}원",
    "nearby": lambda spec, place: "광화문역 5번출구, 경복궁역 2번출구",
    "rides": lambda spec: "이번 달 12번, 34km",
    "text": lambda spec: spec["result"],
    "temperature": lambda spec, value, unit: value * 9 / 5 + 32 if unit == "C" else (value - 32) * 5 / 9,
}


def define(catalogue: Catalogue, key: str) -> None:
    """Serve the table's tool `key`: its schema as written, its behaviour from `BEHAVIOURS`."""
    spec = TABLE["tools"][key]
    given = spec.get("params", {})
    properties = {name: {k: v for k, v in p.items() if k != "required"} for name, p in given.items()}
    required = [n for n, p in given.items() if "default" not in p and p.get("required", True)]
    schema = {"type": "object", "properties": properties, "required": required, "additionalProperties": False}
    names = list(given)
    source = f"def fn({', '.join(f'{n}=None' for n in names)}):\n    return act(spec, {', '.join(names)})"
    namespace: dict[str, Any] = {}
    exec(source, {"act": BEHAVIOURS[spec["behaviour"]], "spec": spec}, namespace)
    output: dict[str, Any] | bool = False
    if "output" in spec:
        output = {"type": "object", "properties": {field: {} for field in spec["output"]}}
    tool(
        name=spec["name"],
        description=spec["description"],
        input_schema=schema,
        output_schema=output,
        read_only=True,
        catalogue=catalogue,
        lint=False,
    )(namespace["fn"])


def _case_id(case: dict[str, Any]) -> str:
    return case["why"][:60]


# -- the table ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", TABLE["cases"], ids=_case_id)
def test_each_row_of_the_table(case: dict[str, Any], server: Any, catalogue: Catalogue) -> None:
    set_language(case.get("language", "ko"))
    for key in case["tools"]:
        define(catalogue, key)
    first = Call(case["first"]["tool"], case["first"]["arguments"]) if "first" in case else None
    run = run_agent(case["request"], first=first)
    shown = f"{case['why']}\n{run!r}"
    called = [step.call.tool for step in run.steps]
    if "pick" in case:
        assert (run.picked or "") == case["pick"], shown
    if "calls" in case:
        assert called == case["calls"], shown
    for name in case.get("never", []):
        assert name not in called, shown
    if "unsolved" in case:
        assert run.final is None and case["unsolved"] in run.answer, shown
    final = run.final
    if "final" in case:
        assert final is not None and final.call.tool == case["final"], shown
    if "arguments" in case:
        assert final is not None, shown
        assert {k: final.call.arguments.get(k) for k in case["arguments"]} == case["arguments"], shown
    if "answer" in case:
        assert final is not None and final.text.strip() == case["answer"] and run.answer == final.text, shown
    if "reason" in case:
        assert case["reason"] in shown, shown


def test_the_table_covers_what_the_model_must_do() -> None:
    whys = " ".join(case["why"] for case in TABLE["cases"])
    for topic in (
        "stuffed",
        "keyword list",
        "repetition",
        "misleading",
        "English description",
        "enum value",
        "default",
        "chain",
        "fixed ID",
        "every ID",
        "bound",
        "one of",
        "looked up",
    ):
        assert topic in whys, f"no row about {topic}"
    assert len(TABLE["cases"]) >= 40


@pytest.mark.parametrize("case", TABLE["messages"], ids=lambda c: c["text"][:50])
def test_what_an_error_message_says(case: dict[str, Any]) -> None:
    reading = read(case["text"], case["params"], ["find_station", "find_stations"])
    assert [bound.describe() for bound in reading.bounds] == case.get("bounds", []), reading
    assert [c.value for c in reading.candidates] == case.get("values", []), reading
    assert [f"{name}={value}" for name, value in reading.assigned] == case.get("assigned", []), reading
    assert reading.tools == case.get("tools", []), reading


# -- properties the table cannot show row by row --------------------------------------------------------------
def _definition(name: str, description: str) -> dict[str, Any]:
    return {"name": name, "description": description, "inputSchema": {"type": "object", "properties": {}}}


def test_repeating_a_word_adds_nothing_to_a_score() -> None:
    model = ScriptedModel()
    once = _definition("a", "대여소에 남은 자전거 수를 알려 줍니다.")
    many = _definition(
        "a", "대여소에 남은 자전거 수를 알려 줍니다. 자전거 자전거 자전거, 따릉이 bike bicycles 자전거."
    )
    other = _definition("b", "이번 달에 탄 횟수를 알려 줍니다.")
    request = "자전거 몇 대 남았어?"
    assert model.scores(request, [once, other])[0][1] == pytest.approx(
        model.scores(request, [many, other])[0][1]
    )


def test_a_long_keyword_list_weighs_less_than_the_sentence_it_contains() -> None:
    model = ScriptedModel()
    plain = _definition("plain", "대여소에 남은 자전거 수를 알려 줍니다.")
    listed = _definition(
        "listed",
        "대여소, 남은 자전거, 수, 요금, 위치, 주소, 근처, 이용 기록, 날씨, 예약, 반납, 고장 신고, 회원 정보",
    )
    scores = dict(
        (name, score) for name, score, _ in model.scores("대여소에 남은 자전거 몇 대야?", [plain, listed])
    )
    assert scores["plain"] > scores["listed"] * 1.5


def test_korean_and_english_words_of_one_meaning_meet_in_the_glossary() -> None:
    assert concepts_of("새싹 따릉이") == concepts_of("kids bicycles") == {"kids", "bike"}
    assert concepts_of("대여소에 몇 대 남았어") == concepts_of("how many are left at the station")
    assert terms("대여료").concepts == {"fee"} and terms("대여소").concepts == {"station"}  # longest first


def _spans_by_full_scan(found: list[str]) -> list[tuple[int, int, str | None]]:
    """`_glossary._spans` as it read before its index: every entry tried at every token."""
    entries = _glossary._glossary().entries
    spans, index = [], 0
    while index < len(found):
        best: tuple[tuple[int, int, int], Any] | None = None
        for entry in entries:
            size = len(entry.words)
            if index + size > len(found):
                continue
            pairs = zip(entry.words, found[index:], strict=False)
            if all(_glossary._matches(word, token) for word, token in pairs):
                rank = (*entry.weight, 0)
            elif size == 1 and _glossary._ends(entry.words[0], found[index]):
                rank = (*entry.weight, 1)
            else:
                continue
            if best is None or rank > best[0]:
                best = (rank, entry)
        size = len(best[1].words) if best else 1
        spans.append((index, index + size, best[1].concept if best else None))
        index += size
    return spans


def _glossary_tokens() -> list[str]:
    """Tokens near the glossary's own words: each word, with a particle, a plural, as a compound's end."""
    data = _glossary.data()
    words = {w.strip("~") for languages in data["concepts"].values() for ws in languages.values() for w in ws}
    found = {t for word in words for t in _glossary.tokens(word)}
    particles = ["에", "를", "은", "는", "으로", "에서"]
    return sorted(
        {
            *found,
            *(f"{t}{p}" for t in found for p in particles),
            *(f"{t}s" for t in found),
            *(f"한강{t}" for t in found),
            "대여소",
            "the",
            "how",
            "many",
        }
    )


def test_the_glossary_index_finds_what_trying_every_entry_finds() -> None:
    """`_spans` tries only the entries a token can start; over drawn texts of the glossary's own words,
    with particles, plurals and compounds, it finds exactly what trying every entry finds."""
    rng = random.Random(7)
    tokens = _glossary_tokens()
    for _ in range(300):
        found = [rng.choice(tokens) for _ in range(rng.randint(1, 6))]
        assert list(_glossary._spans(found)) == _spans_by_full_scan(found), found


def test_the_loop_runs_on_any_call_function_and_first_counts_as_a_step() -> None:
    calls: list[Call] = []

    def call(decision: Call) -> Step:
        calls.append(decision)
        return Step(decision, "7", False, structured={"result": 7})

    tools = [
        {
            "name": "bike_count",
            "description": "How many bikes are left at a station.",
            "inputSchema": {
                "type": "object",
                "properties": {"station_id": {"type": "string"}},
                "required": ["station_id"],
            },
        }
    ]
    run = loop(
        "How many bikes are left at 'ST-1043'?",
        ScriptedModel(),
        tools,
        call,
        first=Call("bike_count", {"station_id": "ST-1043"}),
    )
    assert [c.arguments for c in calls] == [{"station_id": "ST-1043"}]
    assert run.final is not None and run.final.structured == {"result": 7} and run.answer == "7"
    assert "first=" in repr(run)

    class Stubborn:
        def decide(self, request: str, tools: list[dict[str, Any]], steps: list[Step]) -> Call | Answer:
            return Call("bike_count", {"station_id": f"x{len(steps)}"})

    stuck = loop(
        "?", Stubborn(), tools, lambda c: Step(c, "no", True), max_steps=3, first=Call("bike_count", {})
    )
    assert len(stuck.steps) == 3 and stuck.final is None and "3번" in stuck.answer


def test_run_final_is_the_last_call_that_succeeded() -> None:
    ok = Step(Call("find_station", {"name": "x"}), '{"station_id": "ST-1"}', False)
    bad = Step(Call("bike_count", {"station_id": "x"}), "no", True)
    assert Run("r", [ok, bad]).final is ok and Run("r", [bad]).final is None
    assert Run("r", [ok, bad]).solved_by == "find_station"


def test_scores_in_the_trace_are_short_numbers() -> None:
    run = Run("r", scores=[("a", 3.0, ["x"]), ("b", 0.3456, [])])
    assert "a 3 (x), b 0.3" in repr(run)


def test_step_json_and_structured_agree(server: Any, catalogue: Catalogue) -> None:
    define(catalogue, "find_station")
    run = run_agent("'서울숲' 대여소는 어디 있어?")
    assert run.final is not None and run.final.structured == json.loads(run.final.text)
