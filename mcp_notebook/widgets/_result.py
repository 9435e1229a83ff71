"""Results as widgets: content blocks, structured content, errors labelled by layer, call progress.

    ResultView        a CallResult, ReadResult or PromptResult: one child widget per content block
    ├── ResourceLinkView   a resource_link, with a "Read it" button that shows the contents below
    ├── EmbeddedResourceView  an embedded resource (or one item of a ReadResult): text or blob
    ├── JsonTree / RecordsTable  structuredContent as a collapsible tree, and as a table of records
    └── CallProgress  a progress bar fed by progress notifications, while the call runs
    ErrorView         a ProtocolError, InvalidResultError or ClientConnectionError, with its layer

Widgets show, they do not call: the only request made here is the "Read it" button's, through a
reader callback (`mcp_notebook.read_resource` by default). From other threads only traits are set.
"""

from __future__ import annotations

import base64
import binascii
import html
import json
import threading
from collections.abc import Callable
from typing import Any

import ipywidgets as widgets

from .._errors import ClientConnectionError, InvalidResultError, ProtocolError
from .._text import add_messages, t
from .._views import CallResult, PromptResult, ReadResult

add_messages(
    {
        "view.tool_layer": {
            "en": "Tool-execution layer: the tool ran (or tried to) and reports a problem. The model reads this message and can correct its call.",
            "ko": "도구 실행 계층: 도구가 실행되었거나 실행하려다 문제를 알렸습니다. 모델이 이 메시지를 읽고 호출을 고칠 수 있습니다.",
        },
        "view.protocol_label": {
            "en": "Protocol error (JSON-RPC {code}{name})",
            "ko": "프로토콜 오류 (JSON-RPC {code}{name})",
        },
        "view.protocol_layer": {
            "en": "Protocol layer: the server refused the request itself, so no tool ran and there is no result. Check the method, the name and the shape of the request.",
            "ko": "프로토콜 계층: 서버가 요청 자체를 거절했으므로 도구는 실행되지 않았고 결과도 없습니다. 메서드, 이름, 요청 형식을 확인하세요.",
        },
        "view.invalid_label": {
            "en": "Invalid result (rejected by the client)",
            "ko": "잘못된 결과 (클라이언트가 거부함)",
        },
        "view.invalid_layer": {
            "en": "Protocol layer: the server answered, but the answer breaks the protocol (for example structured content that does not match the output schema), so the client rejected it.",
            "ko": "프로토콜 계층: 서버가 응답했지만 그 응답이 프로토콜을 어겨서(예: 출력 스키마에 맞지 않는 구조화된 내용) 클라이언트가 거부했습니다.",
        },
        "view.connection_label": {"en": "Connection error", "ko": "연결 오류"},
        "view.connection_layer": {
            "en": "Transport layer: the server could not be reached or did not answer in time; the request may never have arrived.",
            "ko": "전송 계층: 서버에 연결하지 못했거나 제때 응답이 없었습니다. 요청이 서버에 닿지 않았을 수도 있습니다.",
        },
        "view.other_layer": {
            "en": "Not an answer from a server: raised in this notebook.",
            "ko": "서버의 응답이 아니라 이 노트북에서 발생한 오류입니다.",
        },
        "view.error_data": {"en": "Error data", "ko": "오류 데이터"},
        "view.structured": {
            "en": "Structured content (structuredContent)",
            "ko": "구조화된 내용 (structuredContent)",
        },
        "view.keys": {"en": "{count} keys", "ko": "키 {count}개"},
        "view.items": {"en": "{count} items", "ko": "항목 {count}개"},
        "view.more": {"en": "… {count} more not shown", "ko": "… 표시하지 않은 {count}개 더"},
        "view.table": {"en": "table: {rows} rows × {columns} columns", "ko": "표: {rows}행 × {columns}열"},
        "view.link": {"en": "Resource link", "ko": "리소스 링크"},
        "view.embedded": {"en": "Embedded resource", "ko": "포함된 리소스"},
        "view.read": {"en": "Read it", "ko": "읽기"},
        "view.reading": {"en": "Reading {uri} …", "ko": "{uri} 읽는 중 …"},
        "view.bytes": {"en": "{size} bytes", "ko": "{size}바이트"},
        "view.blob": {"en": "Binary data, {size} bytes", "ko": "바이너리 데이터, {size}바이트"},
        "view.bad_data": {
            "en": "Could not decode the {kind} data: {error}",
            "ko": "{kind} 데이터를 디코딩하지 못했습니다: {error}",
        },
        "view.unknown_block": {
            "en": "Unknown content type {kind!r}:",
            "ko": "알 수 없는 콘텐츠 유형 {kind!r}:",
        },
        "view.running": {"en": "Running {tool} …", "ko": "{tool} 실행 중 …"},
        "view.progress_of": {"en": "{progress:g} of {total:g}", "ko": "{total:g} 중 {progress:g}"},
        "view.progress_count": {"en": "{progress:g} so far", "ko": "지금까지 {progress:g}"},
        "view.pending_repr": {"en": "<tool call {tool}: {status}>", "ko": "<도구 호출 {tool}: {status}>"},
        "view.waiting": {"en": "waiting for progress", "ko": "진행 상황 기다리는 중"},
        "view.unsupported": {
            "en": "ResultView shows a CallResult, ReadResult, PromptResult or a tools/call result dict, not {what}. For an exception use ErrorView.of(exc).",
            "ko": "ResultView는 CallResult, ReadResult, PromptResult 또는 tools/call 결과 dict를 보여 줍니다. {what}은(는) 보여 줄 수 없습니다. 예외라면 ErrorView.of(exc)를 쓰세요.",
        },
    }
)

# JSON-RPC's own names for its codes (language-neutral: they are what specifications and logs say).
_CODE_NAMES = {
    -32700: "Parse error",
    -32600: "Invalid Request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
    -32002: "Resource not found",
}
MAX_ITEMS = 200  # per JSON container and per table: a huge result must not freeze the browser
MAX_DEPTH = 40
Reader = Callable[[str], Any]

_OK, _TOOL, _PROTOCOL = "#1b6e3a", "#e0a800", "#b3261e"
_PRE = "<pre style='white-space:pre-wrap;margin:0'>{}</pre>"


def _read_with_client(uri: str) -> Any:
    import mcp_notebook

    return mcp_notebook.read_resource(uri)


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _box(colour: str) -> widgets.Layout:
    return widgets.Layout(border=f"1px solid {colour}", padding="4px")


def _decode(data: str) -> bytes:
    return base64.b64decode(data, validate=True)


def _media(kind: str, mime: str, data: str) -> widgets.Widget:
    """An Image or an Audio player for base64 `data`, or a note saying why it cannot be shown."""
    try:
        raw = _decode(data)
    except (binascii.Error, ValueError) as exc:
        return widgets.HTML(f"<i>{_esc(t('view.bad_data', kind=kind, error=exc))}</i>")
    fmt = mime.partition("/")[2] or ("png" if kind == "image" else "wav")
    if kind == "image":
        return widgets.Image(value=raw, format=fmt)
    return widgets.Audio(value=raw, format=fmt, autoplay=False, loop=False, controls=True)


def _scalar(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _tree_html(value: Any, label: str, depth: int) -> str:
    if isinstance(value, dict | list) and value and depth < MAX_DEPTH:
        pairs = list(value.items()) if isinstance(value, dict) else list(enumerate(value))
        count = t("view.keys" if isinstance(value, dict) else "view.items", count=len(value))
        brackets = "{…}" if isinstance(value, dict) else "[…]"
        inner = "".join(
            _tree_html(item, f"<b>{_esc(key)}</b>: ", depth + 1) for key, item in pairs[:MAX_ITEMS]
        )
        if len(pairs) > MAX_ITEMS:
            inner += f"<div><i>{_esc(t('view.more', count=len(pairs) - MAX_ITEMS))}</i></div>"
        opened = " open" if depth < 2 else ""
        return (
            f"<details{opened}><summary>{label}{brackets} <i>{_esc(count)}</i></summary>"
            f"<div style='margin-left:1.4em'>{inner}</div></details>"
        )
    shown = json.dumps(value, ensure_ascii=False)
    return f"<div>{label}<code>{_esc(shown)}</code></div>"


class JsonTree(widgets.HTML):
    """Any JSON value as nested, collapsible ``<details>`` (two levels open)."""

    def __init__(self, value: Any, title: str = "") -> None:
        self.data = value
        label = f"<b>{_esc(title)}</b> " if title else ""
        super().__init__(_tree_html(value, label, 0))

    def __repr__(self) -> str:
        if isinstance(self.data, dict):
            return f"<JSON object: {t('view.keys', count=len(self.data))}>"
        if isinstance(self.data, list):
            return f"<JSON array: {t('view.items', count=len(self.data))}>"
        return f"<JSON: {json.dumps(self.data, ensure_ascii=False)[:80]}>"


def records_of(value: Any) -> list[dict[str, Any]] | None:
    """The records in `value` (a non-empty list of objects, or ``{"result": [...]}``), else None."""
    if isinstance(value, dict) and list(value) == ["result"]:
        value = value["result"]
    if isinstance(value, list) and value and all(isinstance(row, dict) for row in value):
        return value
    return None


class RecordsTable(widgets.HTML):
    """A list of records as an HTML table: one column per key, in the order keys first appear."""

    def __init__(self, records: list[dict[str, Any]]) -> None:
        self.records = records
        self.columns = list(dict.fromkeys(key for row in records for key in row))
        head = "".join(f"<th>{_esc(column)}</th>" for column in self.columns)
        body = "".join(
            "<tr>"
            + "".join(f"<td>{_esc(_scalar(row[c])) if c in row else ''}</td>" for c in self.columns)
            + "</tr>"
            for row in records[:MAX_ITEMS]
        )
        more = len(records) - MAX_ITEMS
        note = f"<div><i>{_esc(t('view.more', count=more))}</i></div>" if more > 0 else ""
        super().__init__(f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>{note}")

    def __repr__(self) -> str:
        shape = t("view.table", rows=len(self.records), columns=len(self.columns))
        return f"<{shape} ({', '.join(self.columns)})>"


class EmbeddedResourceView(widgets.VBox):
    """One resource's contents (an embedded ``resource`` block, or an item of a ReadResult)."""

    def __init__(self, contents: dict[str, Any], title: str | None = None) -> None:
        self.contents = contents
        self.uri = str(contents.get("uri", ""))
        mime = str(contents.get("mimeType", ""))
        head = f"<b>{_esc(title)}</b>: " if title else ""
        self.header = widgets.HTML(f"{head}<code>{_esc(self.uri)}</code> <i>{_esc(mime)}</i>")
        if "text" in contents:
            self.body: widgets.Widget = widgets.HTML(_PRE.format(_esc(contents["text"])))
        elif mime.startswith(("image/", "audio/")):
            self.body = _media(mime.partition("/")[0], mime, str(contents.get("blob", "")))
        else:
            size = len(str(contents.get("blob", ""))) * 3 // 4
            self.body = widgets.HTML(f"<i>{_esc(t('view.blob', size=f'{size:,}'))}</i>")
        super().__init__([self.header, self.body])

    def __repr__(self) -> str:
        return f"[resource {self.uri}]"


class ResourceLinkView(widgets.VBox):
    """A ``resource_link``: URI, name, type and size, and a button that reads it and shows the contents."""

    def __init__(self, block: dict[str, Any], read: Reader | None = None) -> None:
        self.block = block
        self.uri = str(block.get("uri", ""))
        self._read = read or _read_with_client
        self.read_result: Any = None
        self.read_error: BaseException | None = None
        name = block.get("title") or block.get("name") or ""
        facts = [str(block["mimeType"])] if block.get("mimeType") else []
        if isinstance(block.get("size"), int):
            facts.append(t("view.bytes", size=f"{block['size']:,}"))
        self.header = widgets.HTML(
            f"🔗 <b>{_esc(t('view.link'))}</b>: <code>{_esc(self.uri)}</code> {_esc(name)}"
            + (f" <i>({_esc(' · '.join(facts))})</i>" if facts else "")
            + (f"<div>{_esc(block['description'])}</div>" if block.get("description") else "")
        )
        self.read_button = widgets.Button(description=t("view.read"), icon="book")
        self.status = widgets.HTML("")
        self.contents = widgets.VBox([])
        # A click runs on the kernel's main thread or a subshell thread. Reading through the
        # in-kernel server is safe there (the server has its own thread); failures are shown, not raised.
        self.read_button.on_click(lambda _: self.read())
        super().__init__([self.header, widgets.HBox([self.read_button, self.status]), self.contents])

    def read(self) -> Any:
        """Read the linked resource now and show its contents below; returns them (None on failure)."""
        self.read_button.disabled = True
        self.status.value = f"<i>{_esc(t('view.reading', uri=self.uri))}</i>"
        try:
            result = self._read(self.uri)
            shown: widgets.Widget = ResultView.of(result, read=self._read)
            self.read_result, self.read_error = result, None
        except Exception as exc:  # the person sees what failed; nothing escapes into a random cell
            self.read_result, self.read_error = None, exc
            shown = ErrorView.of(exc)
        finally:
            self.status.value = ""
            self.read_button.disabled = False
        self.contents.children = (shown,)
        return self.read_result

    def __repr__(self) -> str:
        return f"[resource_link] {self.uri} ({self.block.get('mimeType', '')})"


def block_widget(block: dict[str, Any], read: Reader | None = None) -> widgets.Widget:
    """The widget for one content block: text, image, audio, resource_link or embedded resource."""
    kind = block.get("type")
    if kind == "text":
        return widgets.HTML(_PRE.format(_esc(block.get("text", ""))))
    if kind in ("image", "audio"):
        return _media(str(kind), str(block.get("mimeType", "")), str(block.get("data", "")))
    if kind == "resource_link":
        return ResourceLinkView(block, read)
    if kind == "resource":
        return EmbeddedResourceView(block.get("resource", {}), t("view.embedded"))
    shown = json.dumps(block, ensure_ascii=False, indent=2)
    return widgets.HTML(f"<i>{_esc(t('view.unknown_block', kind=kind))}</i>{_PRE.format(_esc(shown))}")


class CallProgress(widgets.VBox):
    """A progress bar for a running call; `update_progress` is safe from any thread (it only sets traits)."""

    def __init__(self, tool: str = "") -> None:
        self.tool = tool
        self.progress: float | None = None
        self.total: float | None = None
        self.message: str | None = None
        self._lock = threading.Lock()
        self.bar = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, bar_style="info")
        self.label = widgets.HTML(f"<i>{_esc(t('view.running', tool=tool))}</i>")
        super().__init__([self.label, self.bar])

    def update_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Show one progress notification (``progress``, optional ``total`` and ``message``)."""
        with self._lock:  # two notifications set bar and label together, never interleaved
            self.progress, self.total, self.message = progress, total, message
            if total is not None and total > 0:
                self.bar.max = float(total)
                self.bar.value = min(float(progress), float(total))
            self.label.value = f"<i>{_esc(t('view.running', tool=self.tool))}</i> {_esc(self.status())}"

    def status(self) -> str:
        if self.progress is None:
            return t("view.waiting")
        if self.total:
            text = t("view.progress_of", progress=self.progress, total=self.total)
        else:
            text = t("view.progress_count", progress=self.progress)
        return f"{text} · {self.message}" if self.message else text

    def finish(self, ok: bool = True) -> None:
        with self._lock:
            if ok:
                self.bar.value = self.bar.max
            self.bar.bar_style = "success" if ok else "danger"

    def __repr__(self) -> str:
        return t("view.pending_repr", tool=self.tool, status=self.status())


class ErrorView(widgets.VBox):
    """An error raised instead of a result, labelled with its layer (protocol, transport, notebook).

    A tool execution error (``isError: true``) is a result, shown by `ResultView` with its own label.
    """

    def __init__(self, error: BaseException) -> None:
        self.error = error
        self.data: Any = None
        if isinstance(error, ProtocolError):
            self.layer = "protocol"
            name = _CODE_NAMES.get(error.code)
            self.label = t("view.protocol_label", code=error.code, name=f" {name}" if name else "")
            self.message, self.data, note = error.message, error.data, t("view.protocol_layer")
        elif isinstance(error, InvalidResultError):
            self.layer, self.label, note = "protocol", t("view.invalid_label"), t("view.invalid_layer")
            self.message = str(error)
        elif isinstance(error, ClientConnectionError):
            self.layer, self.label = "transport", t("view.connection_label")
            self.message, note = str(error), t("view.connection_layer")
        else:
            self.layer, self.label = "notebook", type(error).__name__
            self.message, note = str(error), t("view.other_layer")
        self.header = widgets.HTML(
            f"<b style='color:{_PROTOCOL}'>⛔ {_esc(self.label)}</b>"
            f"<div>{_esc(self.message)}</div><div><i>{_esc(note)}</i></div>"
        )
        children: list[widgets.Widget] = [self.header]
        if self.data is not None:
            children.append(JsonTree(self.data, t("view.error_data")))
        super().__init__(children, layout=_box(_PROTOCOL))

    @classmethod
    def of(cls, error: BaseException) -> ErrorView:
        """The view of `error` (a ProtocolError, InvalidResultError, ClientConnectionError, or any other)."""
        return cls(error)

    def __repr__(self) -> str:
        return f"{self.label}: {self.message}"


class ResultView(widgets.VBox):
    """A result as widgets, or a running call (with progress) that shows its result when it arrives.

    Parameters
    ----------
    result:
        A `CallResult`, `ReadResult` or `PromptResult`; None for a call still running.
    tool:
        The tool's name, for a running call.
    read:
        How a resource_link's "Read it" button reads (default ``mcp_notebook.read_resource``).
    """

    def __init__(self, result: Any = None, *, tool: str = "", read: Reader | None = None) -> None:
        self._reader = read
        self.result: Any = None
        self.error_view: ErrorView | None = None
        self.blocks: list[widgets.Widget] = []
        self.tree: JsonTree | None = None
        self.table: RecordsTable | None = None
        self.layer: str | None = None
        self.progress = CallProgress(tool)
        super().__init__([self.progress])
        if result is not None:
            self.show(result)

    @classmethod
    def of(cls, result: Any, *, read: Reader | None = None) -> ResultView:
        """The view of a CallResult, ReadResult, PromptResult, or a ``tools/call`` result dict."""
        return cls(result, read=read)

    @classmethod
    def pending(cls, tool: str, *, read: Reader | None = None) -> ResultView:
        """A view for a call still running: feed `update_progress`, then `show` or `show_error`."""
        return cls(None, tool=tool, read=read)

    def update_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Show a progress notification (thread-safe: only sets traits)."""
        self.progress.update_progress(progress, total, message)

    def show(self, result: Any) -> None:
        """Replace the progress bar by `result` (safe from the thread the call finished on)."""
        self.blocks, self.tree, self.table, self.layer = [], None, None, None
        if isinstance(result, dict) and isinstance(result.get("content"), list):
            result = CallResult(
                tool=str(result.get("tool", self.progress.tool)),
                content=result["content"],
                structured_content=result.get("structuredContent"),
                is_error=bool(result.get("isError")),
                raw=result,
            )
        if isinstance(result, CallResult):
            children = self._call(result)
        elif isinstance(result, ReadResult):
            header = f"<b>{_esc(t('result.resource_label'))}</b>: <code>{_esc(result.uri)}</code>"
            self.blocks = [EmbeddedResourceView(item) for item in result.contents]
            children = [widgets.HTML(header), *self.blocks]
        elif isinstance(result, PromptResult):
            children = self._prompt(result)
        else:
            raise TypeError(t("view.unsupported", what=type(result).__name__))
        self.result = result
        self.progress.finish(ok=not getattr(result, "is_error", False))
        self.children = tuple(children)

    def show_error(self, error: BaseException) -> None:
        """Replace the progress bar by the error the call raised."""
        self.error_view = ErrorView.of(error)
        self.layer = self.error_view.layer
        self.progress.finish(ok=False)
        self.children = (self.error_view,)

    def _call(self, result: CallResult) -> list[widgets.Widget]:
        self.blocks = [block_widget(block, self._reader) for block in result.content]
        if result.is_error:
            self.layer = "tool"
            head = (
                f"<b style='color:#8a5a00'>⚠ {_esc(t('result.error_label'))}</b>: <code>{_esc(result.tool)}</code>"
                f"<div><i>{_esc(t('view.tool_layer'))}</i></div>"
            )
        else:
            head = (
                f"<b style='color:{_OK}'>✔ {_esc(t('result.ok_label'))}</b>: <code>{_esc(result.tool)}</code>"
            )
        children: list[widgets.Widget] = [widgets.HTML(head), *self.blocks]
        if result.structured_content is not None:
            records = records_of(result.structured_content)
            self.table = RecordsTable(records) if records is not None else None
            self.tree = JsonTree(result.structured_content, t("view.structured"))
            children.extend(widget for widget in (self.table, self.tree) if widget is not None)
        if result.is_error:
            # The whole result sits in one amber box: a tool's complaint, not a refused request.
            return [widgets.VBox(children, layout=_box(_TOOL))]
        return children

    def _prompt(self, result: PromptResult) -> list[widgets.Widget]:
        header = f"<b>{_esc(t('result.prompt_label'))}</b>: <code>{_esc(result.name)}</code>"
        if result.description:
            header += f"<div>{_esc(result.description)}</div>"
        children: list[widgets.Widget] = [widgets.HTML(header)]
        for message in result.messages:
            content = message.get("content", [])
            items = content if isinstance(content, list) else [content]
            blocks = [block_widget(block, self._reader) for block in items]
            self.blocks.extend(blocks)
            children.extend([widgets.HTML(f"<b>[{_esc(message.get('role', '?'))}]</b>"), *blocks])
        return children

    def __repr__(self) -> str:
        # The result's own text/plain: a notebook that shows `result.view()` instead of `result`
        # keeps the outputs nbval compares.
        if self.error_view is not None:
            return repr(self.error_view)
        if self.result is not None:
            return repr(self.result)
        return repr(self.progress)
