"""Exercises of chapter 02 (Resources): who controls what, listing templates, text and blob
contents, what a subscriber does on ``resources/updated``, and a resource template the learner
writes, checked through the real server (``resources/templates/list``, ``resources/read``,
``completion/complete``).

>>> from mcp_notebook.lessons.ch02 import q1, q2, q3, q4, q5
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..core._text import t
from ._answers import Category, Classification, MultipleChoice, ShortAnswer, Vocabulary
from ._exercise import Exercise, NotAttempted
from ._texts import Text
from ._toolcheck import served_catalogue
from ._vocab import PRIMITIVES

__all__ = ["q1", "q2", "q3", "q4", "q5"]

READ_TIMEOUT = 20.0

# -- "write a resource" exercises: checked through the real in-kernel server -----------------------


@dataclass(frozen=True)
class Read:
    """One ``resources/read`` the checker makes: ``expect="ok"`` (passing `accept`) or ``"error"``."""

    uri: str
    expect: Literal["ok", "error"]
    accept: Callable[[Any], bool] | None = None
    advice: Text | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Completion:
    """One ``completion/complete`` for a template variable and the values it must offer (any order)."""

    variable: str
    value: str
    expected: tuple[str, ...]
    advice: Text | None = field(default=None, compare=False)


class ResourceExercise(Exercise):
    """The learner defines a resource template with ``@resource``; the checker lists, reads and
    completes it through the real server, as an application would."""

    def __init__(
        self,
        chapter: str,
        name: str,
        *,
        template: str,
        reads: list[Read],
        completions: list[Completion],
        description_min: int = 15,
        **texts: Any,
    ) -> None:
        super().__init__(chapter, name, variable=None, **texts)
        self.uri_template = template
        self.prefix = template.split("{", 1)[0]
        self.reads = reads
        self.completions = completions
        self.description_min = description_min
        extra = {f"read.{i}": r.advice for i, r in enumerate(reads) if r.advice is not None}
        extra.update({f"completion.{i}": c.advice for i, c in enumerate(completions) if c.advice is not None})
        self._add_texts(extra)

    # -- finding the learner's resource ------------------------------------------------------------
    def how_to_answer(self) -> str:
        return t("lessons.resource.how", template=self.uri_template, name=self.name)

    def find_answer(self) -> Any:
        catalogue = served_catalogue()
        entries = [*catalogue.templates(), *catalogue.resources()]
        exact = [e for e in entries if _uri_of(e) == self.uri_template]
        near = [e for e in entries if _uri_of(e).startswith(self.prefix)]
        if exact or near:
            return (exact or near)[0]
        raise NotAttempted

    def evaluate(self, answer: Any) -> list[str]:
        entry = self._entry(answer)
        if isinstance(entry, str):
            return [entry]
        uri = _uri_of(entry)
        if not hasattr(entry, "uri_template"):
            return [t("lessons.resource.static", uri=uri, template=self.uri_template)]
        if uri != self.uri_template:
            return [t("lessons.resource.wrong_template", given=uri, template=self.uri_template)]
        import mcp_notebook

        started_here = mcp_notebook.current_server() is None
        server = mcp_notebook.serve() if started_here else None
        try:
            listed = mcp_notebook.list_resources()["templates"]
            definition = next((d for d in listed if d.get("uriTemplate") == self.uri_template), None)
            if definition is None:
                return [t("lessons.resource.not_listed", template=self.uri_template)]
            problems = []
            description = (definition.get("description") or "").strip()
            if len(description) < self.description_min:
                problems.append(
                    t(
                        "lessons.resource.no_description",
                        length=len(description),
                        minimum=self.description_min,
                    )
                )
            problems += self._read_problems()
            problems += self._completion_problems()
        finally:
            if server is not None:
                server.stop()
        return problems

    def _entry(self, answer: Any) -> Any:
        """The catalogue entry `answer` names (an entry, a URI, or the decorated function), or a problem."""
        catalogue = served_catalogue()
        entries = [*catalogue.templates(), *catalogue.resources()]
        if isinstance(answer, str):
            found = next((e for e in entries if _uri_of(e) == answer), None)
            return found if found is not None else t("lessons.resource.not_listed", template=answer)
        if callable(answer) and not hasattr(answer, "uri") and not hasattr(answer, "uri_template"):
            found = next((e for e in entries if getattr(e, "fn", getattr(e, "read", None)) is answer), None)
            if found is None:
                return t("lessons.resource.not_a_resource", func=getattr(answer, "__name__", "?"))
            return found
        return answer

    def praise(self) -> list[str]:
        counts = {"reads": len(self.reads), "completions": len(self.completions)}
        return [t("lessons.resource.checked_via", **counts), *super().praise()]

    # -- what resources/read and completion/complete answer ----------------------------------------
    def _read_problems(self) -> list[str]:
        from mcp_notebook import ClientConnectionError, ProtocolError, read_resource

        problems: list[str] = []
        for index, probe in enumerate(self.reads):
            problem = None
            try:
                result = read_resource(probe.uri, timeout=READ_TIMEOUT)
            except ProtocolError as exc:
                if probe.expect == "ok":
                    problem = t(
                        "lessons.resource.read_error", uri=probe.uri, error=f"[{exc.code}] {exc.message}"
                    )
            except ClientConnectionError as exc:
                problems.append(t("lessons.resource.unreachable", uri=probe.uri, error=str(exc)))
                break
            else:
                if probe.expect == "error":
                    problem = t("lessons.resource.should_fail", uri=probe.uri, got=_describe(result))
                elif probe.accept is not None and not probe.accept(result):
                    problem = t("lessons.resource.wrong_read", uri=probe.uri, got=_describe(result))
            if problem:
                problems.append(problem)
                if probe.advice is not None:
                    problems.append(self.text(f"read.{index}"))
        return problems

    def _completion_problems(self) -> list[str]:
        from mcp_notebook import complete

        problems: list[str] = []
        for index, probe in enumerate(self.completions):
            got = complete(self.uri_template, probe.variable, probe.value, timeout=READ_TIMEOUT)
            if sorted(got) != sorted(probe.expected):
                problems.append(
                    t(
                        "lessons.resource.wrong_completion",
                        variable=probe.variable,
                        value=probe.value,
                        got=json.dumps(got, ensure_ascii=False),
                        expected=json.dumps(list(probe.expected), ensure_ascii=False),
                    )
                )
                if probe.advice is not None:
                    problems.append(self.text(f"completion.{index}"))
        return problems


def _uri_of(entry: Any) -> str:
    return str(getattr(entry, "uri_template", None) or getattr(entry, "uri", ""))


def _describe(result: Any) -> str:
    text = result.text if result.text else json.dumps(result.contents, ensure_ascii=False)
    return text if len(text) <= 200 else text[:199] + "…"


def _json_of(result: Any) -> Any:
    item = next((c for c in result.contents if "text" in c), None)
    if item is None or item.get("mimeType") != "application/json":
        return None
    try:
        return json.loads(item["text"])
    except ValueError:
        return None


# -- the exercises -------------------------------------------------------------------------------
q1 = Classification(
    "02",
    "q1",
    title=("장애 대응 서버의 다섯 기능", "Five capabilities of an incident server"),
    question=(
        "장애 대응을 돕는 MCP 서버를 만듭니다. 기능마다 Tool, Resource, Prompt 중 무엇으로 내놓을지 고르세요. "
        "기준은 '누가 그것을 쓰기로 정하는가'입니다.",
        "You are building an MCP server that helps with incidents. For each capability pick whether to offer it "
        "as a Tool, a Resource or a Prompt. The test is who decides to use it.",
    ),
    vocabulary=PRIMITIVES,
    items={
        "log_tail": (
            (
                "서버 로그의 마지막 200줄. 사용자가 채팅 입력창의 첨부 메뉴에서 골라 대화에 붙인다",
                "The last 200 lines of the server log; the user picks it from the chat's attach menu",
            ),
            "resource",
        ),
        "restart_service": (
            (
                "서비스를 재시작한다. 모델이 로그를 읽고 필요하다고 판단하면 실행한다",
                "Restart a service; the model runs it when the logs suggest it is needed",
            ),
            "tool",
        ),
        "incident_report": (
            (
                "사용자가 /incident-report를 입력하면 장애 보고서 양식대로 정리해 달라는 메시지를 만든다",
                "When the user types /incident-report, build a message asking for a write-up in the report format",
            ),
            "prompt",
        ),
        "runbook": (
            (
                "팀의 장애 대응 문서. 호스트가 지금 다루는 서비스에 맞는 문서를 골라 맥락에 미리 넣어 둔다",
                "The team's runbook; the host picks the one for the service at hand and puts it into the context",
            ),
            "resource",
        ),
        "search_tickets": (
            (
                "모델이 질문에 답하려고 필요할 때마다 키워드를 바꿔 가며 티켓을 검색한다",
                "The model searches tickets with changing keywords whenever it needs to, to answer a question",
            ),
            "tool",
        ),
    },
    feedback={
        ("log_tail", "prompt"): (
            "'log_tail': 사용자가 고르긴 했습니다. 그런데 고른 것이 실행할 명령(메시지 틀)인가요, 대화에 붙일 데이터인가요? "
            "첨부 메뉴를 띄우고 고른 내용을 맥락에 넣는 쪽은 누구일까요?",
            "'log_tail': the user does pick it. But is what they pick a command (a message template) or data to "
            "attach? And who shows the attach menu and puts the chosen content into the context?",
        ),
        ("log_tail", "tool"): (
            "'log_tail': 여기서는 모델이 아무것도 부르지 않았습니다. 사람이 고르고 앱이 붙였을 뿐입니다.",
            "'log_tail': the model calls nothing here; a person chose and the app attached it.",
        ),
        ("runbook", "tool"): (
            "'runbook': 모델이 부르지 않아도 호스트가 미리 넣어 둡니다. 모델의 결정이 끼어들 자리가 있나요?",
            "'runbook': the host puts it in without the model asking. Is there any decision of the model here?",
        ),
        ("restart_service", "resource"): (
            "'restart_service': 리소스는 읽기만 하는 데이터입니다. 서비스를 재시작하는 것처럼 무언가를 바꾸는 동작을 "
            "읽을거리로 내놓을 수 있을까요?",
            "'restart_service': a resource is data that is only read. Can an action that changes something, like "
            "restarting a service, be offered as something to read?",
        ),
        ("incident_report", "tool"): (
            "'incident_report': /incident-report를 입력한 것은 모델이 아니라 사람입니다.",
            "'incident_report': it was a person, not the model, who typed /incident-report.",
        ),
    },
    hints=[
        (
            "각 기능에서 '그것을 쓰기로 정한 주체'에 밑줄을 그어 보세요. 모델인가요, 앱(호스트)인가요, 사람인가요?",
            "Underline who decides to use each capability: the model, the application (host), or a person?",
        ),
        (
            "사람이 고르는 것이 두 종류라는 점에 주의하세요. 대화에 붙일 데이터를 고르는 것과, 미리 만든 메시지 틀(명령)을 "
            "고르는 것은 다릅니다.",
            "Note that people pick two kinds of things: data to attach to the conversation, and a prepared message "
            "template (a command). They are not the same.",
        ),
    ],
    explanation=(
        "재시작과 티켓 검색은 모델이 상황을 보고 부르니 Tool입니다(재시작은 무언가를 바꾸니 사람의 승인도 필요합니다). "
        "로그와 runbook은 읽기용 데이터이고, 그것을 맥락에 넣는 일은 애플리케이션이 맡으니 Resource입니다. 첨부 메뉴에서 "
        "사람이 고르든 호스트가 알아서 고르든, 가져다 넣는 것은 앱입니다. /incident-report는 사람이 명령으로 고르는 "
        "메시지 틀이니 Prompt입니다.",
        "Restarting and searching tickets are called by the model when it sees fit: Tools (restarting changes "
        "something, so a person should approve it too). The log and the runbook are data to read that the "
        "application puts into the context: Resources. Whether a person picks them from an attach menu or the "
        "host chooses by itself, the app fetches them. /incident-report is a message template a person picks as a "
        "command: a Prompt.",
    ),
)

q2 = ShortAnswer(
    "02",
    "q2",
    title=("템플릿은 어디에 실리나", "Where templates are listed"),
    question=(
        "고정된 URI를 가진 리소스는 `resources/list`에 실립니다. 그렇다면 `data://sales/{region}`처럼 변수가 든 URI "
        "템플릿은 클라이언트가 어느 JSON-RPC 메서드로 받아 볼까요? 메서드 이름으로 답하세요.",
        "Resources with a fixed URI are listed by `resources/list`. With which JSON-RPC method does a client get "
        "URI templates with variables, such as `data://sales/{region}`? Answer with the method name.",
    ),
    accepted=("resources/templates/list",),
    wrong={
        "resources/list": (
            "`resources/list`에는 지금 바로 읽을 수 있는 고정 URI만 실립니다. 템플릿은 따로 모아 주는 메서드가 있습니다.",
            "`resources/list` shows only fixed URIs that can be read right away. Templates have a method of their "
            "own.",
        ),
        "resources/read": (
            "`resources/read`는 URI를 이미 알 때 내용을 읽는 메서드입니다. 목록을 받는 메서드를 찾아보세요.",
            "`resources/read` reads the contents of a URI you already know. Look for the method that lists.",
        ),
        "templates/list": (
            "거의 맞았습니다. 리소스에 관한 메서드는 모두 같은 접두어로 시작합니다.",
            "Almost: every resource method starts with the same prefix.",
        ),
        "list_resource_templates": (
            "그것은 SDK 클라이언트의 파이썬 메서드 이름입니다. 전선 위에 실리는 JSON-RPC 메서드 이름을 쓰세요.",
            "That is the SDK client's Python method. Write the JSON-RPC method name that goes over the wire.",
        ),
    },
    hints=[
        (
            "MCP의 메서드 이름은 `영역/동작` 모양입니다. 리소스 영역 안에 템플릿을 위한 하위 영역이 하나 더 있습니다.",
            "MCP method names look like `area/action`. Inside the resources area there is one more level for "
            "templates.",
        ),
        (
            "이 장 3절에서 `mcp_notebook.list_resources()`가 두 목록을 돌려줄 때, 두 번째 목록을 어디서 받아 왔는지 다시 "
            "읽어 보세요.",
            "Reread section 3: `mcp_notebook.list_resources()` returns two lists; where did the second come from?",
        ),
    ],
    explanation=(
        "템플릿은 `resources/templates/list`로 받습니다. 응답의 각 항목에는 `uri` 대신 `uriTemplate`(RFC 6570 URI "
        "Template)이 있고, 클라이언트는 변수를 채워 만든 URI로 `resources/read`를 보냅니다. 변수 값 후보는 "
        "`completion/complete`로 물어볼 수 있습니다.",
        "Templates come from `resources/templates/list`. Each entry has a `uriTemplate` (an RFC 6570 URI "
        "Template) instead of a `uri`; the client fills in the variables and sends `resources/read` for the "
        "resulting URI. Candidate values can be asked for with `completion/complete`.",
    ),
)

CONTENT_KINDS = Vocabulary(
    "ch02_contents",
    [
        Category(
            "text",
            ("text(글)", "text"),
            (
                "text로 고르면 내용을 글 그대로 `text` 필드에 담는다는 뜻입니다. 사람이 읽을 수 있는 문자로 된 내용에 "
                "씁니다.",
                "Choosing text means the contents go as they are into the `text` field: for contents made of "
                "readable characters.",
            ),
            ("텍스트", "글", "text contents", "textresourcecontents"),
        ),
        Category(
            "blob",
            ("blob(base64 바이너리)", "blob (base64 binary)"),
            (
                "blob으로 고르면 바이트를 base64로 인코딩해 `blob` 필드에 담는다는 뜻입니다. 글로 옮길 수 없는 바이트에 "
                "씁니다.",
                "Choosing blob means the bytes are base64-encoded into the `blob` field: for bytes that are not "
                "text.",
            ),
            ("binary", "바이너리", "base64", "blob contents", "blobresourcecontents", "이진"),
        ),
    ],
)

q3 = Classification(
    "02",
    "q3",
    title=("text일까 blob일까", "Text or blob?"),
    question=(
        "`resources/read`의 응답에서 내용 하나는 `text` 필드나 `blob` 필드(base64) 중 하나에 담깁니다. 아래 리소스의 "
        "내용은 어느 쪽에 담길까요?",
        "In a `resources/read` response, each item of contents is carried in a `text` field or in a `blob` field "
        "(base64). Where do the contents of each resource below go?",
    ),
    vocabulary=CONTENT_KINDS,
    items={
        "readme": (("`text/markdown`인 README.md", "README.md, `text/markdown`"), "text"),
        "logo": (("`image/png`인 회사 로고", "The company logo, `image/png`"), "blob"),
        "sales_csv": (("`text/csv`로 내보낸 매출 표", "A sales table exported as `text/csv`"), "text"),
        "contract_pdf": (("`application/pdf`인 계약서 파일", "A contract file, `application/pdf`"), "blob"),
        "settings_json": (("`application/json`인 설정 값", "Settings as `application/json`"), "text"),
    },
    feedback={
        ("settings_json", "blob"): (
            "'settings_json': mime 타입이 `application/`으로 시작해도 JSON은 사람이 읽을 수 있는 글자로만 되어 "
            "있습니다. 꼭 base64로 감쌀 필요가 있을까요?",
            "'settings_json': the mime type starts with `application/`, but JSON is made of readable characters "
            "only. Does it need base64 at all?",
        ),
        ("contract_pdf", "text"): (
            "'contract_pdf': PDF 파일을 메모장으로 열어 본 적이 있나요? 그 바이트를 JSON 문자열에 그대로 넣을 수 "
            "있을까요?",
            "'contract_pdf': ever opened a PDF in a text editor? Could those bytes go into a JSON string as they "
            "are?",
        ),
    },
    hints=[
        (
            "mime 타입의 앞부분만 보지 말고 내용이 실제로 무엇으로 되어 있는지 보세요. 글자인가요, 아무 바이트인가요?",
            "Do not go by the first half of the mime type; ask what the contents are made of: characters, or "
            "arbitrary bytes?",
        ),
        (
            "JSON-RPC 메시지 자체가 JSON 글이라서, 글이 아닌 바이트는 글자로 바꿔(base64) 실어야 합니다.",
            "A JSON-RPC message is itself JSON text, so bytes that are not text must be turned into characters "
            "(base64) to travel.",
        ),
    ],
    explanation=(
        "Markdown, CSV, JSON은 모두 글이라 `text`에 그대로 담고 `mimeType`으로 종류를 알립니다. PNG 그림과 PDF는 "
        "글로 옮길 수 없는 바이트라 base64로 인코딩해 `blob`에 담습니다. 어느 쪽이든 `uri`와 `mimeType`이 함께 "
        "옵니다.",
        "Markdown, CSV and JSON are text: they go into `text` as they are, with `mimeType` saying what they are. "
        "A PNG image and a PDF are bytes that are not text: base64-encoded into `blob`. Either way `uri` and "
        "`mimeType` come along.",
    ),
)

q4 = MultipleChoice(
    "02",
    "q4",
    title=("updated 알림을 받으면", "On a resources/updated notification"),
    question=(
        "클라이언트가 `notebook://variables/sales`를 구독해 두었고, 서버에서 `notifications/resources/updated`가 "
        "왔습니다. 맞는 설명은 무엇일까요?",
        "A client subscribed to `notebook://variables/sales`, and the server sent "
        "`notifications/resources/updated`. Which statement is right?",
    ),
    options={
        "A": (
            "알림에 바뀐 내용이 통째로 들어 있으니 그것을 바로 모델에게 넘기면 됩니다.",
            "The notification carries the new contents, so hand them to the model right away.",
        ),
        "B": (
            "알림에는 어느 URI가 바뀌었는지만 있습니다. 새 내용이 필요하면 그 URI로 `resources/read`를 다시 보냅니다.",
            "The notification only says which URI changed. If the new contents are needed, send `resources/read` "
            "for that URI again.",
        ),
        "C": (
            "알림 한 번으로 구독이 끝나므로 `resources/subscribe`를 다시 보내야 다음 변경도 들을 수 있습니다.",
            "One notification ends the subscription, so send `resources/subscribe` again to hear the next change.",
        ),
        "D": (
            "`resources/list`를 다시 받아야 합니다. 목록을 새로 받으면 내용도 함께 바뀝니다.",
            "Fetch `resources/list` again: a fresh list brings the new contents with it.",
        ),
    },
    answer="B",
    wrong={
        "A": (
            "알림은 가볍게 만들어져 있습니다. 표가 몇 MB라면 바뀔 때마다 통째로 밀어 보내는 것이 좋을까요? 알림의 "
            "`params`에 무엇이 있었는지 이 장의 예를 다시 보세요.",
            "Notifications are kept light. If the table were megabytes, should every change push all of it? Look "
            "again at what the notification's `params` held in this chapter.",
        ),
        "C": (
            "구독은 한 번 알리고 끝나지 않습니다. 이 장의 예에서도 같은 구독으로 변경을 계속 들을 수 있습니다.",
            "A subscription does not end after one notification; the same subscription keeps hearing changes.",
        ),
        "D": (
            "`resources/list`는 어떤 리소스가 있는지(이름, URI, 설명)를 줄 뿐, 내용은 주지 않습니다. 목록이 바뀐 것을 "
            "알리는 알림은 따로 있습니다(`list_changed`).",
            "`resources/list` says which resources exist (names, URIs, descriptions), not their contents. A "
            "changed list has a notification of its own (`list_changed`).",
        ),
    },
    hints=[
        (
            "알림(notification)에는 응답이 없고, 보통 '무슨 일이 있었다'는 사실만 짧게 전합니다.",
            "A notification gets no response and usually just says briefly that something happened.",
        ),
        (
            "내용을 가져오는 메서드와 목록을 가져오는 메서드를 구별하세요. 바뀐 것은 목록인가요, 한 리소스의 내용인가요?",
            "Tell apart the method that fetches contents and the one that fetches the list. What changed here: "
            "the list, or one resource's contents?",
        ),
    ],
    explanation=(
        "`notifications/resources/updated`의 `params`에는 `uri`만 있습니다. 클라이언트는 그 리소스가 아직 필요하면 "
        "`resources/read`로 다시 읽습니다. 구독은 취소하기 전까지 이어집니다. 리소스가 생기거나 없어지는 것은 별도의 "
        "`notifications/resources/list_changed`로 알립니다.",
        "The `params` of `notifications/resources/updated` hold just the `uri`. If the client still needs the "
        "resource, it reads it again with `resources/read`. The subscription lasts until cancelled. Resources "
        "appearing or disappearing are announced separately, by `notifications/resources/list_changed`.",
    ),
)

REGION_SALES = {"north": 120, "south": 95, "east": 70, "west": 40}
"""The data of q5 (also in its question): sales per region, in millions of won."""


def _region_total(region: str) -> Callable[[Any], bool]:
    def accept(result: Any) -> bool:
        data = _json_of(result)
        return (
            isinstance(data, dict)
            and data.get("region") == region
            and data.get("total") == REGION_SALES[region]
        )

    return accept


q5 = ResourceExercise(
    "02",
    "q5",
    template="data://sales/{region}",
    title=("지역별 매출 리소스 템플릿 만들기", "Write a sales-by-region resource template"),
    question=(
        "지역별 매출(단위: 백만 원)은 north 120, south 95, east 70, west 40입니다. 이것을 리소스 템플릿 "
        "`data://sales/{region}`으로 내놓으세요.\n"
        '- `data://sales/north`를 읽으면 `{"region": "north", "total": 120}` 모양의 JSON(`application/json`)이 '
        "나옵니다.\n"
        "- 앱이 무엇이 들어 있는지 알 수 있도록 15자 이상의 설명을 씁니다.\n"
        "- 없는 지역(예: `data://sales/atlantis`)을 읽으면 오류가 나야 합니다. 0이나 빈 값을 돌려주면 안 됩니다.\n"
        "- `completion/complete`로 `region`의 후보를 물으면 네 지역을 알려 줍니다(`s`까지 치면 `south`만).\n"
        "채점기는 커널 안의 MCP 서버를 거쳐 `resources/templates/list`로 템플릿을 찾고, 여러 URI를 `resources/read`로 "
        "읽고, 자동 완성을 물어봅니다.",
        "Sales per region (millions of won) are north 120, south 95, east 70, west 40. Offer them as the "
        "resource template `data://sales/{region}`.\n"
        '- Reading `data://sales/north` gives JSON (`application/json`) shaped `{"region": "north", "total": 120}`.\n'
        "- A description of at least 15 characters tells the application what is inside.\n"
        "- Reading a region that does not exist (e.g. `data://sales/atlantis`) must fail, not return 0 or "
        "nothing.\n"
        "- Asked for candidates of `region` with `completion/complete`, it offers the four regions (only "
        "`south` after typing `s`).\n"
        "The checker goes through the in-kernel MCP server: it finds the template with "
        "`resources/templates/list`, reads several URIs with `resources/read` and asks for completions.",
    ),
    reads=[
        Read(
            "data://sales/north",
            "ok",
            accept=_region_total("north"),
            advice=(
                '함수가 `{"region": region, "total": 매출}` 모양의 dict를 돌려주게 하세요. dict는 JSON으로 직렬화되어 '
                "`application/json`으로 나갑니다.",
                'Make the function return a dict shaped `{"region": region, "total": sales}`: a dict is '
                "serialized as `application/json`.",
            ),
        ),
        Read("data://sales/west", "ok", accept=_region_total("west")),
        Read(
            "data://sales/atlantis",
            "error",
            advice=(
                "없는 지역은 예외를 일으켜 알리세요(예: `raise KeyError(...)`). 리소스에는 도구의 `isError` 같은 결과가 "
                "없어서, 읽기가 실패하면 서버가 JSON-RPC 오류로 답합니다.",
                "Signal an unknown region by raising (e.g. `raise KeyError(...)`). Resources have no result like a "
                "tool's `isError`: a failed read becomes a JSON-RPC error.",
            ),
        ),
    ],
    completions=[
        Completion(
            "region",
            "",
            ("north", "south", "east", "west"),
            advice=(
                '후보를 알려 주려면 `@resource(..., completers={"region": [...]})`로 목록을 주거나, 매개변수 타입을 '
                "`Literal[...]`로 적으세요.",
                'To offer candidates, pass `completers={"region": [...]}` to `@resource`, or type the parameter '
                "as `Literal[...]`.",
            ),
        ),
        Completion("region", "s", ("south",)),
    ],
    hints=[
        (
            "URI에서 바뀌는 부분을 `{region}`으로 쓰면 템플릿이 되고, 함수는 같은 이름의 매개변수 `region`을 받습니다.",
            "Writing the changing part of the URI as `{region}` makes a template; the function takes a parameter "
            "of the same name, `region`.",
        ),
        (
            "반환값의 종류가 mime 타입을 정합니다. 문자열은 `text/plain`, dict는 `application/json`이 됩니다.",
            "The kind of return value sets the mime type: a str becomes `text/plain`, a dict `application/json`.",
        ),
        (
            "이 장 8절에서 템플릿 변수의 후보를 어떻게 주었는지 다시 보세요. 목록을 주는 방법과 타입으로 주는 방법이 "
            "있습니다.",
            "Look again at how section 8 offered candidates for a template variable: with a list, or with a type.",
        ),
    ],
    solution=(
        "from mcp_notebook import resource\n\n"
        'REGION_SALES = {"north": 120, "south": 95, "east": 70, "west": 40}\n\n'
        '@resource("data://sales/{region}", completers={"region": list(REGION_SALES)})\n'
        "def sales_by_region(region: str) -> dict:\n"
        '    """한 지역의 매출 합계(단위: 백만 원)입니다. region은 north, south, east, west 중 하나입니다."""\n'
        "    if region not in REGION_SALES:\n"
        "        raise KeyError(f\"{region} 지역은 없습니다. 가능한 지역: {', '.join(REGION_SALES)}\")\n"
        '    return {"region": region, "total": REGION_SALES[region]}',
        "from mcp_notebook import resource\n\n"
        'REGION_SALES = {"north": 120, "south": 95, "east": 70, "west": 40}\n\n'
        '@resource("data://sales/{region}", completers={"region": list(REGION_SALES)})\n'
        "def sales_by_region(region: str) -> dict:\n"
        '    """Total sales of one region (millions of won); region is north, south, east or west."""\n'
        "    if region not in REGION_SALES:\n"
        "        raise KeyError(f\"No region {region}. Regions: {', '.join(REGION_SALES)}\")\n"
        '    return {"region": region, "total": REGION_SALES[region]}',
    ),
    explanation=(
        "`{region}`이 든 URI는 템플릿이 되어 `resources/templates/list`에 실리고, `data://sales/north`를 읽으면 "
        '`region="north"`로 함수가 불립니다. dict는 `application/json` 글로 나가고, 없는 지역에서 일어난 예외는 '
        "JSON-RPC 오류가 되어 앱이 알아챕니다. `completers`(또는 `Literal` 타입)는 `completion/complete`의 후보가 "
        "되어, 앱이 URI를 채우는 입력 칸에서 지역을 골라 줄 수 있습니다.",
        "A URI with `{region}` becomes a template listed by `resources/templates/list`; reading "
        '`data://sales/north` calls the function with `region="north"`. A dict goes out as `application/json` '
        "text, and an exception for an unknown region becomes a JSON-RPC error the application notices. "
        "`completers` (or a `Literal` type) feed `completion/complete`, so the application can offer regions "
        "while the URI is being filled in.",
    ),
)
