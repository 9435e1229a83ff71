"""The panel's one visual language: a style sheet on JupyterLab's theme variables, and its small parts.

Every colour, border and font comes from JupyterLab's CSS variables (``--jp-ui-font-color1``,
``--jp-layout-color1``, ``--jp-border-color2`` ...), so a light and a dark theme both read well.
Nothing is set in italics: browsers slant Hangul synthetically, which reads badly, so a quiet note
is set in a lighter colour instead. Every rule is scoped to ``.mcp-nb``, the class each of the
package's top-level widgets carries, and ships with it as a hidden HTML widget (`style_sheet`),
since an output cell can only bring its style along with it.

Parts: `code_block` (read-only text with a copy button that copies exactly what is shown),
`human_duration` (``3 ms``, ``20.4 s``) and `esc`.
"""

from __future__ import annotations

import html
from typing import Any, TypeVar

import ipywidgets as widgets

from ..core._text import t

SCOPE = "mcp-nb"
Styled = TypeVar("Styled", bound=widgets.DOMWidget)

CSS = """
.mcp-nb { color: var(--jp-ui-font-color1); font-family: var(--jp-ui-font-family);
  font-size: var(--jp-ui-font-size1); max-width: 100%; min-width: 0; box-sizing: border-box; }
.mcp-nb * { box-sizing: border-box; }
.mcp-nb i, .mcp-nb em { font-style: normal; }
.mcp-nb .widget-html, .mcp-nb .widget-html-content { min-width: 0; max-width: 100%; }
.mcp-nb .widget-html-content { line-height: 1.5; overflow-wrap: anywhere; }
.mcp-nb .widget-box { min-width: 0; max-width: 100%; }
.mcp-nb .jupyter-button { width: auto; max-width: 100%; padding: 0 12px; flex: 0 0 auto; align-self: flex-start; }
.mcp-nb .widget-label { max-width: none; }
.mcp-nb code, .mcp-nb pre { font-family: var(--jp-code-font-family); font-size: var(--jp-code-font-size); }
.mcp-nb pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
.mcp-muted { color: var(--jp-ui-font-color2); }
.mcp-ok { color: var(--jp-success-color1); }
.mcp-error { color: var(--jp-error-color1); }
.mcp-warn { color: var(--jp-warn-color1); }
.mcp-status { display: flex; flex-wrap: wrap; align-items: baseline; gap: 4px 16px;
  padding: 6px 10px; border: 1px solid var(--jp-border-color2); border-radius: 4px;
  background: var(--jp-layout-color1); }
.mcp-status .mcp-title { font-weight: 600; font-size: var(--jp-ui-font-size2); }
.mcp-pill { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: var(--jp-ui-font-size0);
  border: 1px solid currentColor; white-space: nowrap; }
.mcp-fact { display: inline-flex; gap: 4px; align-items: baseline; min-width: 0; flex-wrap: wrap; }
.mcp-fact > span:first-child { color: var(--jp-ui-font-color2); }
.mcp-banner { flex-basis: 100%; }
.mcp-code { border: 1px solid var(--jp-border-color2); border-radius: 4px; background: var(--jp-layout-color2);
  margin: 4px 0; min-width: 0; }
.mcp-code-bar { display: flex; justify-content: space-between; align-items: center; gap: 8px;
  padding: 2px 4px 2px 8px; border-bottom: 1px solid var(--jp-border-color2); color: var(--jp-ui-font-color2); }
.mcp-code pre { padding: 6px 8px; color: var(--jp-content-font-color1); max-height: 24em; overflow-y: auto; }
.mcp-copy { font: inherit; color: var(--jp-ui-font-color1); background: var(--jp-layout-color1);
  border: 1px solid var(--jp-border-color1); border-radius: 3px; padding: 1px 10px; cursor: pointer;
  white-space: nowrap; flex: 0 0 auto; }
.mcp-copy:hover { background: var(--jp-layout-color3); }
.mcp-table { width: 100%; table-layout: fixed; border-collapse: collapse; margin: 4px 0; }
.mcp-table th, .mcp-table td { text-align: left; vertical-align: top; padding: 2px 6px;
  border-bottom: 1px solid var(--jp-border-color2); overflow-wrap: anywhere; }
.mcp-table th { font-weight: 600; color: var(--jp-ui-font-color2); border-bottom-color: var(--jp-border-color1); }
.mcp-nb ul { margin: 2px 0; padding-left: 1.4em; }
.mcp-nb ul.mcp-cards { padding-left: 0; list-style: none; }
.mcp-form .widget-inline-hbox { flex-wrap: wrap; height: auto; row-gap: 2px; }
.mcp-form .widget-inline-hbox > .widget-label { white-space: normal; overflow-wrap: anywhere; height: auto;
  min-height: var(--jp-widgets-inline-height); max-width: 100%; }
.mcp-form .widget-inline-hbox > input, .mcp-form .widget-inline-hbox > select,
.mcp-form .widget-inline-hbox > textarea { flex: 1 1 12em; min-width: 0; }
.mcp-nb .mcp-table-box { container-type: inline-size; }
@container (max-width: 34em) {
  .mcp-table, .mcp-table tbody, .mcp-table tr, .mcp-table td { display: block; width: auto; }
  .mcp-table thead, .mcp-table colgroup { display: none; }
  .mcp-table tr { border-bottom: 1px solid var(--jp-border-color2); padding: 2px 0; }
  .mcp-table td { border: none; padding: 0 6px; }
  .mcp-table td:empty { display: none; }
  .mcp-table td[data-label]:not(:first-child)::before { content: attr(data-label) ": ";
    color: var(--jp-ui-font-color2); }
}
.mcp-section { font-weight: 600; margin: 10px 0 2px 0; }
.mcp-empty { color: var(--jp-ui-font-color2); margin: 2px 0 6px 0; }
.mcp-card { border: 1px solid var(--jp-border-color2); border-radius: 4px; padding: 6px 10px; margin: 4px 0; }
.mcp-prompt { border: 2px solid var(--jp-warn-color1); border-radius: 4px; padding: 6px 10px;
  background: var(--jp-layout-color1); }
.mcp-log-head, .mcp-log-row > summary { display: grid; column-gap: 8px; padding: 2px 6px;
  grid-template-columns: 5.2em minmax(5em, 1.1fr) minmax(6em, 1fr) minmax(6em, 1.5fr) minmax(5em, 1fr)
    4.6em minmax(5em, 1fr); }
.mcp-log-head { font-weight: 600; color: var(--jp-ui-font-color2); border-bottom: 1px solid var(--jp-border-color1); }
.mcp-log-row > summary { cursor: pointer; list-style: none; border-bottom: 1px solid var(--jp-border-color2); }
.mcp-log-row > summary::-webkit-details-marker { display: none; }
.mcp-log-row > summary:hover { background: var(--jp-layout-color2); }
.mcp-log-row[open] > summary { background: var(--jp-layout-color2); }
.mcp-log-row > summary > span { min-width: 0; overflow-wrap: anywhere; }
.mcp-log-row .mcp-num { text-align: right; }
.mcp-log { container-type: inline-size; }
.mcp-log-pages > .mcp-log-page { margin-top: 0; margin-bottom: 0; }  /* one table, though pages */
@container (max-width: 40em) {
  .mcp-log-head { display: none; }
  .mcp-log-row > summary { grid-template-columns: 5.2em minmax(0, 1fr) minmax(0, 1fr); row-gap: 2px; }
  .mcp-log-row > summary > span:nth-child(n+4)::before { content: attr(data-label) ": ";
    color: var(--jp-ui-font-color2); }
}
.mcp-wire { padding: 4px 6px 8px 6px; border-bottom: 1px solid var(--jp-border-color2); }
"""


def esc(value: Any) -> str:
    """`value` as text safe inside HTML elements and quoted attributes."""
    return html.escape(str(value), quote=True)


def style_sheet() -> widgets.HTML:
    """The style sheet as a hidden widget: a widget that carries it styles itself wherever it is shown."""
    return widgets.HTML(f"<style>{CSS}</style>", layout=widgets.Layout(display="none"))


def scoped(widget: Styled) -> Styled:
    """Mark `widget` as the root of the package's styling (``.mcp-nb``); returns it."""
    widget.add_class(SCOPE)
    return widget


# Runs in the browser: copies the text of the block's <pre> (what the person sees), with the older
# selection-and-execCommand way where the clipboard API is refused (a page not served from a secure
# origin), then says so on the button. The text is read from the page, never written into the script.
_COPY = (
    "(b=>{const p=b.closest('.mcp-code').querySelector('pre');const d=()=>{b.textContent=b.dataset.done};"
    "const f=()=>{const r=document.createRange();r.selectNodeContents(p);const s=getSelection();"
    "s.removeAllRanges();s.addRange(r);document.execCommand('copy');s.removeAllRanges();d()};"
    "navigator.clipboard?navigator.clipboard.writeText(p.textContent).then(d,f):f()})(this)"
)


def code_block(text: str, label: str = "") -> str:
    """Read-only `text` (a configuration, a command) in a box with a label and a copy button."""
    return (
        f"<div class='mcp-code'><div class='mcp-code-bar'><span>{esc(label)}</span>"
        f"<button class='mcp-copy' type='button' title='{esc(t('style.copy_title'))}'"
        f" data-done='{esc(t('style.copied'))}' onclick=\"{_COPY}\">{esc(t('style.copy'))}</button></div>"
        f"<pre>{esc(text)}</pre></div>"
    )


class CodeBlock(widgets.VBox):
    """`code_block` as a widget; its `value` is the text it shows (and its button copies), as a text box's is."""

    def __init__(self, value: str = "", label: str = "") -> None:
        self.label = label
        self.view = widgets.HTML("")
        super().__init__([self.view])
        self.value = value

    @property
    def value(self) -> str:
        return self._value

    @value.setter
    def value(self, value: str) -> None:
        self._value = value
        self.view.value = code_block(value, self.label) if value else ""


def human_duration(seconds: float) -> str:
    """A duration as a person reads it: ``0.4 ms``, ``3 ms``, ``250 ms``, ``20.4 s``, ``2 min 5 s``."""
    if seconds < 0.001:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 1:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s"
