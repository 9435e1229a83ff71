"""The catalogue view: tools, resources and prompts side by side, each with who controls it.

Every tool with its description, its parameters in a table whose columns are the same for every
tool, its annotations marked as the server's unverified claims, and the linter's findings; then a
"try it" form per tool. A section with nothing in it says so. It follows the catalogue live.
"""

from __future__ import annotations

import json
from typing import Any

import ipywidgets as widgets

from ..core._catalogue import Catalogue
from ..core._text import t
from ..linter._lint import lint
from ._icon_cell import icon_cell
from ._style import esc, scoped, style_sheet
from ._tryit import TryIt


class CatalogueView(widgets.VBox):
    """What a catalogue offers, grouped by who controls each primitive; refreshed on every change."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.body = widgets.HTML(self._render())
        self.forms = widgets.Accordion([])
        super().__init__([style_sheet(), self.body, self.forms])
        scoped(self).add_class("mcp-catalogue")
        self._build_forms()
        # From whatever thread changed the catalogue: setting traits (and making widgets) is safe.
        self._unsubscribe = catalogue.subscribe(lambda kind: self.refresh(kind))

    def refresh(self, kind: str = "tools") -> None:
        self.body.value = self._render()
        if kind == "tools":
            self._build_forms()

    def _build_forms(self) -> None:
        tools = self.catalogue.tools()
        self.tryit = {entry.name: TryIt(entry) for entry in tools}
        self.forms.children = list(self.tryit.values())
        self.forms.titles = tuple(t("catalogue.try", tool=entry.name) for entry in tools)

    def close(self) -> None:
        self._unsubscribe()
        super().close()

    def _render(self) -> str:
        findings: dict[str, list[Any]] = {}
        for finding in lint(self.catalogue):
            if finding.severity in ("error", "warning"):
                findings.setdefault(finding.tool, []).append(finding)
        tools = "".join(self._tool(entry, findings.get(entry.name, [])) for entry in self.catalogue.tools())
        resources = "".join(
            f"<li>{icon_cell(item.icons)}<code>{esc(item.uri)}</code> {esc(item.description or '')}</li>"
            for item in self.catalogue.resources()
        ) + "".join(
            f"<li>{icon_cell(item.icons)}<code>{esc(item.uri_template)}</code> {esc(item.description or '')}</li>"
            for item in self.catalogue.templates()
        )
        prompts = "".join(
            f"<li>{icon_cell(item.icons)}<code>{esc(item.name)}</code> {esc(item.description or '')}</li>"
            for item in self.catalogue.prompts()
        )
        return (
            _section("catalogue.tools", tools and f"<ul class='mcp-cards'>{tools}</ul>", "catalogue.no_tools")
            + _section("catalogue.resources", resources and f"<ul>{resources}</ul>", "catalogue.no_resources")
            + _section("catalogue.prompts", prompts and f"<ul>{prompts}</ul>", "catalogue.no_prompts")
        )

    @staticmethod
    def _tool(entry: Any, findings: list[Any]) -> str:
        claims = ", ".join(f"{key}={value}" for key, value in entry.annotations.items())
        hidden = f" <span class='mcp-muted'>({esc(t('catalogue.hidden'))})</span>" if not entry.expose else ""
        notes = "".join(f"<li><code>{esc(finding)}</code></li>" for finding in findings)
        output = ""
        if entry.output_schema is not None:
            shown = esc(json.dumps(entry.output_schema, ensure_ascii=False, indent=2))
            output = f"<details><summary>{esc(t('catalogue.output'))}</summary><pre>{shown}</pre></details>"
        task = f"<span class='mcp-muted'>{esc(t('catalogue.task'))}:</span> {esc(t('catalogue.task.' + entry.task))}"
        return (
            f"<li class='mcp-card'>{icon_cell(entry.icons)}<b>{esc(entry.name)}</b>{hidden}"
            + (f" — {esc(entry.title)}" if entry.title else "")
            + f"<div>{esc(entry.description or '')}</div>"
            + _parameter_table(entry.input_schema)
            + output
            + f"<div>{task}</div>"
            + (
                f"<div><span class='mcp-muted'>{esc(t('catalogue.claims'))}:</span> <code>{esc(claims)}</code></div>"
                if claims
                else ""
            )
            + (
                f"<details><summary>{esc(t('catalogue.lint', count=len(findings)))}</summary><ul>{notes}</ul></details>"
                if findings
                else ""
            )
            + "</li>"
        )

    def __repr__(self) -> str:
        counts = (len(self.catalogue.tools()), len(self.catalogue.uris()), len(self.catalogue.prompts()))
        return f"<MCP catalogue: {counts[0]} tools, {counts[1]} resources, {counts[2]} prompts>"


def _section(title: str, body: str, empty: str) -> str:
    """A heading and its list, or the heading and a line saying there is nothing yet."""
    shown = body or f"<div class='mcp-empty'>{esc(t(empty))}</div>"
    return f"<div class='mcp-section'>{esc(t(title))}</div>{shown}"


# One width per column, the same for every tool: the columns do not move from table to table.
COLUMNS = ("17%", "11%", "10%", "11%", "18%", "33%")


def _parameter_table(schema: dict[str, Any]) -> str:
    """The parameters as a table a person can read: type, required, default, allowed values, description."""
    properties = schema.get("properties", {})
    if not properties:
        return f"<div class='mcp-muted'>{esc(t('catalogue.no_parameters'))}</div>"
    required = set(schema.get("required", []))
    names = t("catalogue.parameters").split("|")
    head = "".join(f"<th>{esc(h)}</th>" for h in names)
    rows = []
    for name, prop in properties.items():
        branches = [b for b in prop.get("anyOf", []) if isinstance(b, dict)]
        kind = prop.get("type") or (
            " | ".join(str(b.get("type") or "object") for b in branches)
            if branches
            else "object"
            if "$ref" in prop
            else ""
        )
        enums = [value for b in branches for value in b.get("enum", [])]
        allowed = (
            prop.get("enum")
            or enums
            or [
                f"{key}={prop[key]}"
                for key in (
                    "minimum",
                    "exclusiveMinimum",
                    "maximum",
                    "exclusiveMaximum",
                    "minLength",
                    "maxLength",
                    "pattern",
                )
                if key in prop
            ]
        )
        cells = [
            f"<code>{esc(name)}</code>",
            esc(kind),
            "✔" if name in required else "",
            esc(json.dumps(prop["default"], ensure_ascii=False)) if "default" in prop else "",
            esc(", ".join(str(a) for a in allowed)),
            esc(prop.get("description", "")),
        ]
        # Each cell names its column too: in a narrow output a row is shown as a card of "name: value" lines.
        rows.append(
            "<tr>"
            + "".join(f"<td data-label='{esc(h)}'>{cell}</td>" for h, cell in zip(names, cells, strict=False))
            + "</tr>"
        )
    columns = "".join(f"<col style='width:{width}'>" for width in COLUMNS)
    return (
        f"<div class='mcp-table-box'><table class='mcp-table'><colgroup>{columns}</colgroup>"
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )
