"""The tool linter: checks each tool's interface against what helps a model call it right.

A server's quality lies in each tool's interface (seeds 003 and 004): a clear name, a description
that says when (and when not) to use the tool, few closed and bounded parameters, no secrets as
input, honest annotations, an output schema. `lint` turns that advice into findings with stable
rule ids (`RULES`). Pure: linting a whole notebook in a real kernel (`lint_notebook`, and
``mcp-notebook lint``) is in `_notebook`; the rules' detection lives in `_rules`, their messages in
the catalogue (``lint.ID`` and ``lint.ID.fix``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from ..core._catalogue import Catalogue, ToolEntry
from ..core._icons import IconsOption, check_icons
from ..core._prompts import PromptEntry
from ..core._resources import ResourceEntry, TemplateEntry
from ..core._text import t
from ._icons import icon_hits
from ._rules import Hit, check

__all__ = [
    "RULES",
    "Finding",
    "Rule",
    "format_findings",
    "lint",
    "lint_icons",
    "summary",
]

Severity = Literal["error", "warning", "info"]
_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}


@dataclass(frozen=True)
class Rule:
    """A lint rule: its stable id, a readable name and how serious a finding is."""

    id: str
    name: str
    severity: Severity


RULES: dict[str, Rule] = {
    rule.id: rule
    for rule in [
        Rule("MCP001", "name-spec", "error"),
        Rule("MCP002", "name-client-chars", "warning"),
        Rule("MCP003", "name-client-length", "warning"),
        Rule("MCP004", "name-prefix-room", "warning"),
        Rule("MCP010", "description-missing", "warning"),
        Rule("MCP011", "description-short", "warning"),
        Rule("MCP012", "description-no-when", "warning"),
        Rule("MCP013", "description-no-when-not", "warning"),
        Rule("MCP020", "parameter-no-description", "warning"),
        Rule("MCP021", "too-many-parameters", "warning"),
        Rule("MCP022", "free-form-string", "warning"),
        Rule("MCP023", "unbounded-number", "info"),
        Rule("MCP024", "open-object", "warning"),
        Rule("MCP025", "pixel-coordinates", "warning"),
        Rule("MCP030", "mutating-not-idempotent", "warning"),
        Rule("MCP031", "destructive-without-approval", "warning"),
        Rule("MCP032", "contradictory-annotations", "error"),
        Rule("MCP040", "structured-without-output-schema", "warning"),
        Rule("MCP041", "empty-output-schema", "info"),
        Rule("MCP050", "secret-parameter", "warning"),
        Rule("MCP060", "async-blocking-call", "warning"),
        Rule("MCP061", "long-call-without-task", "info"),
        Rule("MCP070", "icon-not-fetchable", "warning"),
        Rule("MCP071", "icon-bad-data", "warning"),
        Rule("MCP072", "icon-unknown-type", "warning"),
        Rule("MCP073", "icon-bad-sizes", "warning"),
    ]
}
"""Every rule, by id. Ids never change meaning; retired ids are not reused."""


@dataclass(frozen=True)
class Finding:
    """One problem the linter found in one tool.

    Parameters
    ----------
    rule:
        The rule's stable id, e.g. ``"MCP022"`` (see `RULES`).
    severity:
        ``"error"``, ``"warning"`` or ``"info"``.
    tool:
        The tool's name.
    message:
        What is wrong and why it matters, in the current language.
    fix:
        How to fix it, in the current language.
    field:
        The parameter (a path such as ``cards[].x`` for nested ones), when the finding is about one.
    """

    rule: str
    severity: Severity
    tool: str
    message: str
    fix: str
    field: str | None = None

    def __str__(self) -> str:
        where = f"{self.tool} [{self.field}]" if self.field else self.tool
        return f"{self.rule} {self.severity} {where}: {self.message} → {self.fix}"

    def to_json(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Finding:
        severity = data["severity"]
        if severity not in _RANK:
            raise ValueError(f"unknown severity {severity!r}")
        return cls(data["rule"], severity, data["tool"], data["message"], data["fix"], data.get("field"))


def lint(
    target: ToolEntry | Catalogue | Iterable[ToolEntry],
    *,
    among: Iterable[ToolEntry] = (),
    ignore: Iterable[str] = (),
) -> list[Finding]:
    """Check tools and return what could be better, tool by tool.

    Parameters
    ----------
    target:
        One tool, a catalogue, or any iterable of tools. A catalogue's resources, templates and
        prompts are checked too, for the rules that apply to them (their icons); a finding about
        one names it where a tool's name would be.
    among:
        More tools to compare with for the cross-tool rules (MCP013) without linting them, e.g. the
        rest of the catalogue when one tool has just been defined.
    ignore:
        Rule ids (``"MCP023"``) or names (``"unbounded-number"``) to skip.
    """
    entries = [target] if isinstance(target, ToolEntry) else list(target)
    everyone = entries + [e for e in among if all(e.name != x.name for x in entries)]
    skip = set(ignore)
    findings: list[Finding] = []
    for entry in entries:
        findings += _findings(entry.name, check(entry, everyone), skip)
    if isinstance(target, Catalogue):
        others: list[ResourceEntry | TemplateEntry | PromptEntry] = [
            *target.resources(),
            *target.templates(),
            *target.prompts(),
        ]
        for other in others:
            findings += _findings(other.name, icon_hits(other.icons), skip)
    return findings


def lint_icons(icons: IconsOption, owner: str = "server", *, ignore: Iterable[str] = ()) -> list[Finding]:
    """The icon rules (MCP070-MCP073) on `icons`, e.g. a server's own (``serve(icons=...)``).

    `icons` as the ``icons=`` options take them; `owner` is what the findings name where a tool's
    name would be. Raises ValueError for what is not an icon at all (as the options do).
    """
    return _findings(owner, icon_hits(check_icons(icons, f"{owner} icons")), set(ignore))


def _findings(owner: str, hits: Iterable[Hit], skip: set[str]) -> list[Finding]:
    found = []
    for rule_id, field, values in hits:
        rule = RULES[rule_id]
        if rule.id in skip or rule.name in skip:
            continue
        message, fix = t(f"lint.{rule_id}", **values), t(f"lint.{rule_id}.fix", **values)
        found.append(Finding(rule_id, rule.severity, owner, message, fix, field))
    return found


def format_findings(findings: Iterable[Finding]) -> str:
    """One line per finding (``MCP022 warning card.create [type]: ... → ...``)."""
    return "\n".join(str(finding) for finding in findings)


def summary(findings: Sequence[Finding], tools: int) -> str:
    """``3 tools checked: 1 errors, 2 warnings, 0 notes.`` in the current language."""
    count = {level: sum(f.severity == level for f in findings) for level in _RANK}
    return t(
        "lint.summary", tools=tools, errors=count["error"], warnings=count["warning"], infos=count["info"]
    )
