"""The catalogue view: tools, resources and prompts side by side, each with who controls it.

A first, read-only view (the "try it" forms come later): every tool with its description, its
annotations marked as the server's unverified claims, and the linter's findings; it follows the
catalogue live.
"""

from __future__ import annotations

import html
import json
from typing import Any

import ipywidgets as widgets

from ..core._catalogue import Catalogue
from ..core._text import t
from ..linter._lint import lint
from ._icon_cell import icon_cell
from ._tryit import TryIt


class CatalogueView(widgets.VBox):
    """What a catalogue offers, grouped by who controls each primitive; refreshed on every change."""

    def __init__(self, catalogue: Catalogue) -> None:
        self.catalogue = catalogue
        self.body = widgets.HTML(self._render())
        self.forms = widgets.Accordion([])
        super().__init__([self.body, self.forms])
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
            f"<li>{icon_cell(item.icons)}<code>{html.escape(item.uri)}</code> {html.escape(item.description or '')}</li>"
            for item in self.catalogue.resources()
        ) + "".join(
            f"<li>{icon_cell(item.icons)}<code>{html.escape(item.uri_template)}</code> "
            f"{html.escape(item.description or '')}</li>"
            for item in self.catalogue.templates()
        )
        prompts = "".join(
            f"<li>{icon_cell(item.icons)}<code>{html.escape(item.name)}</code> {html.escape(item.description or '')}</li>"
            for item in self.catalogue.prompts()
        )
        return (
            f"<b>{html.escape(t('catalogue.tools'))}</b><ul>{tools}</ul>"
            f"<b>{html.escape(t('catalogue.resources'))}</b><ul>{resources}</ul>"
            f"<b>{html.escape(t('catalogue.prompts'))}</b><ul>{prompts}</ul>"
        )

    @staticmethod
    def _tool(entry: Any, findings: list[Any]) -> str:
        claims = ", ".join(f"{key}={value}" for key, value in entry.annotations.items())
        hidden = f" <i>({html.escape(t('catalogue.hidden'))})</i>" if not entry.expose else ""
        notes = "".join(f"<li><code>{html.escape(str(finding))}</code></li>" for finding in findings)
        output = ""
        if entry.output_schema is not None:
            shown = html.escape(json.dumps(entry.output_schema, ensure_ascii=False, indent=2))
            output = f"<details><summary>{html.escape(t('catalogue.output'))}</summary><pre>{shown}</pre></details>"
        return (
            f"<li>{icon_cell(entry.icons)}<b>{html.escape(entry.name)}</b>{hidden}"
            + (f" — {html.escape(entry.title)}" if entry.title else "")
            + f"<div>{html.escape(entry.description or '')}</div>"
            + _parameter_table(entry.input_schema)
            + output
            + f"<div><i>{html.escape(t('catalogue.task'))}</i>: {html.escape(t('catalogue.task.' + entry.task))}</div>"
            + (
                f"<div><i>{html.escape(t('catalogue.claims'))}</i>: <code>{html.escape(claims)}</code></div>"
                if claims
                else ""
            )
            + (
                f"<details><summary>{len(findings)} × lint</summary><ul>{notes}</ul></details>"
                if findings
                else ""
            )
            + "</li>"
        )

    def __repr__(self) -> str:
        counts = (len(self.catalogue.tools()), len(self.catalogue.uris()), len(self.catalogue.prompts()))
        return f"<MCP catalogue: {counts[0]} tools, {counts[1]} resources, {counts[2]} prompts>"


def _parameter_table(schema: dict[str, Any]) -> str:
    """The parameters as a table a person can read: type, required, default, allowed values, description."""
    properties = schema.get("properties", {})
    if not properties:
        return ""
    required = set(schema.get("required", []))
    head = "".join(f"<th>{html.escape(h)}</th>" for h in t("catalogue.parameters").split("|"))
    rows = []
    for name, prop in properties.items():
        kind = prop.get("type") or ("union" if "anyOf" in prop else "object" if "$ref" in prop else "")
        allowed = prop.get("enum") or [
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
        cells = [
            f"<code>{html.escape(name)}</code>",
            html.escape(str(kind)),
            "✔" if name in required else "",
            html.escape(json.dumps(prop["default"], ensure_ascii=False)) if "default" in prop else "",
            html.escape(", ".join(str(a) for a in allowed)),
            html.escape(prop.get("description", "")),
        ]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"
