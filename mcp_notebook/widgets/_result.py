"""Results as widgets: a call's result, its progress while it runs, and errors labelled by layer.

    ResultView    a CallResult, ReadResult or PromptResult: one child widget per content block
                  (see `_content`), structuredContent as a tree and a table, the app of a tool
                  bound to one (`_app`, through `core._ui`), or a running call
    CallProgress  a progress bar fed by progress notifications (thread-safe: only sets traits)
    ErrorView     a ProtocolError, InvalidResultError or ClientConnectionError, with its layer

A tool execution error (``isError: true``) is a result the model can act on, shown by `ResultView`
in amber; an `ErrorView` (red) is a request that produced no result at all.
"""

from __future__ import annotations

import json
import threading
from typing import Any

import ipywidgets as widgets

from ..client._results import CallResult, PromptResult, ReadResult, app_line
from ..core import _ui
from ..core._errors import ClientConnectionError, InvalidResultError, ProtocolError
from ..core._kinds import Block, ViewContext, kind_of_block, kinds_of_result, view_of
from ..core._text import t
from ._content import PRE, EmbeddedResourceView, JsonTree, Reader, RecordsTable, esc, records_of

# JSON-RPC's own names for its codes (language-neutral: they are what specifications and logs say).
_CODE_NAMES = {
    -32700: "Parse error",
    -32600: "Invalid Request",
    -32601: "Method not found",
    -32602: "Invalid params",
    -32603: "Internal error",
    -32002: "Resource not found",
}
_OK, _TOOL, _PROTOCOL = "#1b6e3a", "#e0a800", "#b3261e"


def _box(colour: str) -> widgets.Layout:
    return widgets.Layout(border=f"1px solid {colour}", padding="4px")


class CallProgress(widgets.VBox):
    """A progress bar for a running call; `update_progress` is safe from any thread (it only sets traits)."""

    def __init__(self, tool: str = "") -> None:
        self.tool = tool
        self.progress: float | None = None
        self.total: float | None = None
        self.message: str | None = None
        self.done = False
        self._lock = threading.Lock()
        self.bar = widgets.FloatProgress(value=0.0, min=0.0, max=1.0, bar_style="info")
        self.label = widgets.HTML(
            f"<span style='color:var(--jp-ui-font-color2)'>{esc(t('view.running', tool=tool))}</span>"
        )
        super().__init__([self.label, self.bar])

    def update_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Show one progress notification (``progress``, optional ``total`` and ``message``)."""
        with self._lock:  # two notifications set bar and label together, never interleaved
            if self.done:  # a notification that arrives after the result changes nothing
                return
            self.progress, self.total, self.message = progress, total, message
            if total is not None and total > 0:
                self.bar.max = float(total)
                self.bar.value = min(float(progress), float(total))
            self.label.value = f"<span style='color:var(--jp-ui-font-color2)'>{esc(t('view.running', tool=self.tool))}</span> {esc(self.status())}"

    def status(self) -> str:
        if self.progress is None:
            return t("view.waiting")
        if self.total:
            text = t("view.progress_of", progress=self.progress, total=self.total)
        else:
            text = t("view.progress_count", progress=self.progress)
        return f"{text} · {self.message}" if self.message else text

    def finish(self, ok: bool = True) -> None:
        """The call ended: a full green bar, or a red one; later notifications are ignored."""
        with self._lock:
            self.done = True
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
            f"<b style='color:{_PROTOCOL}'>⛔ {esc(self.label)}</b>"
            f"<div>{esc(self.message)}</div><div><span style='color:var(--jp-ui-font-color2)'>{esc(note)}</span></div>"
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
        The tool's name, for a running call or a result dict (which does not carry it).
    read:
        How a resource_link's "Read it" button reads. By default a link is read from the server the
        result came from (its `Origin`); a result that does not say where it came from offers no
        button: reading it from some other server would show that server's data as the link's.
    """

    def __init__(self, result: Any = None, *, tool: str = "", read: Reader | None = None) -> None:
        self._reader = read
        self._given_reader = read is not None
        self.result: Any = None
        self.error_view: ErrorView | None = None
        self.blocks: list[widgets.Widget] = []
        self.parts: list[widgets.Widget] = []  # views of kinds a whole result holds (its _meta ...)
        self.tree: JsonTree | None = None
        self.table: RecordsTable | None = None
        self.layer: str | None = None
        self.app_view: Any = None  # the result's MCP App (`_app.AppView`), when its tool has one
        self.tool = tool
        # Only a running call has a progress bar: a finished result costs no extra widgets.
        self.progress = CallProgress(tool) if result is None else None
        super().__init__([self.progress] if self.progress is not None else [])
        if result is not None:
            self.show(result)

    @classmethod
    def of(cls, result: Any, *, tool: str = "", read: Reader | None = None) -> ResultView:
        """The view of a CallResult, ReadResult, PromptResult, or a ``tools/call`` result dict."""
        return cls(result, tool=tool, read=read)

    @classmethod
    def pending(cls, tool: str, *, read: Reader | None = None) -> ResultView:
        """A view for a call still running: feed `update_progress`, then `show` or `show_error`."""
        return cls(None, tool=tool, read=read)

    def update_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Show a progress notification (thread-safe: only sets traits; ignored once finished)."""
        if self.progress is not None:
            self.progress.update_progress(progress, total, message)

    def show(self, result: Any) -> None:
        """Replace the progress bar by `result` (safe from the thread the call finished on)."""
        self.blocks, self.parts, self.tree, self.table, self.layer = [], [], None, None, None
        origin = getattr(result, "origin", None)
        if not self._given_reader:
            self._reader = origin.read if origin is not None else None
        if isinstance(result, dict) and isinstance(result.get("content"), list):
            result = CallResult(
                tool=self.tool,
                content=result["content"],
                structured_content=result.get("structuredContent"),
                is_error=bool(result.get("isError")),
                raw=result,
            )
        if isinstance(result, CallResult):
            children = self._call(result)
        elif isinstance(result, ReadResult):
            header = f"<b>{esc(t('result.resource_label'))}</b>: <code>{esc(result.uri)}</code>"
            self.blocks = [EmbeddedResourceView(item) for item in result.contents]
            children = [widgets.HTML(header), *self.blocks]
        elif isinstance(result, PromptResult):
            children = self._prompt(result)
        else:
            raise TypeError(t("view.unsupported", what=type(result).__name__))
        self.result = result
        if self.progress is not None:
            self.progress.finish(ok=not getattr(result, "is_error", False))
        self.children = tuple(children)

    def show_error(self, error: BaseException) -> None:
        """Replace the progress bar by the error the call raised."""
        self.error_view = ErrorView.of(error)
        self.layer = self.error_view.layer
        if self.progress is not None:
            self.progress.finish(ok=False)
        self.children = (self.error_view,)

    def _call(self, result: CallResult) -> list[widgets.Widget]:
        self.blocks = [block_widget(block, self._reader, result) for block in result.content]
        if result.is_error:
            self.layer = "tool"
            head = (
                f"<b style='color:#8a5a00'>⚠ {esc(t('result.error_label'))}</b>: <code>{esc(result.tool)}</code>"
                f"<div><span style='color:var(--jp-ui-font-color2)'>{esc(t('view.tool_layer'))}</span></div>"
            )
        else:
            head = (
                f"<b style='color:{_OK}'>✔ {esc(t('result.ok_label'))}</b>: <code>{esc(result.tool)}</code>"
            )
        children: list[widgets.Widget] = [widgets.HTML(head)]
        # The app first, the plain result (what a client without Apps gets) under it.
        app = result.app
        if app is not None and app.error is None:
            self.app_view = _ui.make("app_view", result)
            children.append(self.app_view)
        elif app is not None:  # bound to an app its server could not serve: say so, show the rest
            children.append(widgets.HTML(f"<i>{esc(app_line(app))}</i>"))
        children.extend(self.blocks)
        if result.structured_content is not None:
            records = records_of(result.structured_content)
            self.table = RecordsTable(records) if records is not None else None
            self.tree = JsonTree(result.structured_content, t("view.structured"))
            children.extend(widget for widget in (self.table, self.tree) if widget is not None)
        self.parts = [
            view(result.raw, ViewContext(read=self._reader, result=result))
            for view in (view_of(kind) for kind in kinds_of_result(result.raw))
            if view is not None
        ]
        children.extend(self.parts)
        if result.is_error:
            # The whole result sits in one amber box: a tool's complaint, not a refused request.
            return [widgets.VBox(children, layout=_box(_TOOL))]
        return children

    def _prompt(self, result: PromptResult) -> list[widgets.Widget]:
        header = f"<b>{esc(t('result.prompt_label'))}</b>: <code>{esc(result.name)}</code>"
        if result.description:
            header += f"<div>{esc(result.description)}</div>"
        children: list[widgets.Widget] = [widgets.HTML(header)]
        for message in result.messages:
            content = message.get("content", [])
            items = content if isinstance(content, list) else [content]
            blocks = [block_widget(block, self._reader, result) for block in items]
            self.blocks.extend(blocks)
            children.extend([widgets.HTML(f"<b>[{esc(message.get('role', '?'))}]</b>"), *blocks])
        return children

    def __repr__(self) -> str:
        # The result's own text/plain: a notebook that shows `result.view()` instead of `result`
        # keeps the outputs nbval compares.
        if self.error_view is not None:
            return repr(self.error_view)
        if self.result is not None:
            return repr(self.result)
        return repr(self.progress)


class ResourceLinkView(widgets.VBox):
    """A ``resource_link``: URI, name, type and size, and a button that reads it and shows the contents.

    `read` reads from the server the link came from; without it there is no button, only a note.
    """

    def __init__(self, block: dict[str, Any], read: Reader | None = None) -> None:
        self.block = block
        self.uri = str(block.get("uri", ""))
        self._read = read
        self.read_result: Any = None
        self.read_error: BaseException | None = None
        name = block.get("title") or block.get("name") or ""
        facts = [str(block["mimeType"])] if block.get("mimeType") else []
        if isinstance(block.get("size"), int):
            facts.append(t("view.bytes", size=f"{block['size']:,}"))
        self.header = widgets.HTML(
            f"🔗 <b>{esc(t('view.link'))}</b>: <code>{esc(self.uri)}</code> {esc(name)}"
            + (
                f" <span style='color:var(--jp-ui-font-color2)'>({esc(' · '.join(facts))})</span>"
                if facts
                else ""
            )
            + (f"<div>{esc(block['description'])}</div>" if block.get("description") else "")
        )
        self.read_button = widgets.Button(description=t("view.read"), icon="book", disabled=read is None)
        self.status = widgets.HTML(
            ""
            if read is not None
            else f"<span style='color:var(--jp-ui-font-color2)'>{esc(t('view.link_no_origin'))}</span>"
        )
        self.contents = widgets.VBox([])
        # A click runs on the kernel's main thread or a subshell thread. Reading through the
        # in-kernel server is safe there (the server has its own thread); failures are shown, not raised.
        self.read_button.on_click(lambda _: self.read())
        row = [self.read_button, self.status] if read is not None else [self.status]
        super().__init__([self.header, widgets.HBox(row), self.contents])

    def read(self) -> Any:
        """Read the linked resource now, from where the link came from, and show its contents below;
        returns them (None on failure, or when the link's server is not known)."""
        if self._read is None:
            return None
        self.read_button.disabled = True
        self.status.value = (
            f"<span style='color:var(--jp-ui-font-color2)'>{esc(t('view.reading', uri=self.uri))}</span>"
        )
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

    @classmethod
    def of(cls, block: Block, context: ViewContext) -> ResourceLinkView:
        """The view of a ``resource_link`` block, read from where its result came from."""
        return cls(dict(block), context.read)


def block_widget(block: Any, read: Reader | None = None, result: Any = None) -> widgets.Widget:
    """The widget for one content block: the view registered for its kind (`core._kinds`).

    `result` is the result the block belongs to, for views that show it with the block.
    """
    kind = kind_of_block(block)
    view = view_of(kind) if kind is not None else None
    if view is not None:
        shown: widgets.Widget = view(block, ViewContext(read=read, result=result))
        return shown
    what = block.get("type") if isinstance(block, dict) else type(block).__name__
    listed = json.dumps(block, ensure_ascii=False, indent=2, default=str)
    return widgets.HTML(
        f"<span style='color:var(--jp-ui-font-color2)'>{esc(t('view.unknown_block', kind=what))}</span>{PRE.format(esc(listed))}"
    )
