"""Exercises of chapter 00 (시작하기): roles, who controls what, which primitive, a first tool.

>>> from mcp_notebook.lessons.ch00 import q1, q2, q3, q4, q5

Their content is data: ``content/ch00/exercises.toml``.
"""

from __future__ import annotations

from ._content import load_exercises

__all__ = ["q1", "q2", "q3", "q4", "q5"]

q1, q2, q3, q4, q5 = load_exercises("00", __all__)
