"""Split a docstring into the text a model reads about a tool and per-parameter descriptions."""

from __future__ import annotations

import inspect

import docstring_parser


def parse_docstring(doc: str | None) -> tuple[str | None, dict[str, str]]:
    """Read a Google, numpy or reST docstring.

    Parameters
    ----------
    doc:
        The docstring, or ``None``.

    Returns
    -------
    tuple
        The summary and body with every section (parameters, returns, raises, examples...) removed,
        or ``None`` when nothing is left; and the description of each documented parameter or
        attribute, by name.
    """
    if not doc or not doc.strip():
        return None, {}
    try:
        parsed = docstring_parser.parse(doc)
    except docstring_parser.ParseError:
        # A docstring that fits no style is still a good description; it just documents no parameter.
        return inspect.cleandoc(doc) or None, {}
    parts = [parsed.short_description, parsed.long_description]
    gap = "\n\n" if parsed.blank_after_short_description else "\n"
    # docstring_parser has already dedented the text; cleandoc again would flatten indented blocks.
    text = gap.join(part.strip() for part in parts if part and part.strip())
    params = {
        param.arg_name: param.description.strip()
        for param in parsed.params
        if param.description and param.description.strip()
    }
    return text or None, params
