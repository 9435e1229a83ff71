"""Exercises of chapter 01 (Tools): the review questions of the tools chapter, pagination,
annotations, and a tool the learner writes, checked through the real server.

>>> from mcp_notebook.lessons.ch01 import q1, q2, q3, q4, q5, q6, q7

Their content is data: ``content/ch01/exercises.toml``.
"""

from __future__ import annotations

from ._content import load_exercises

__all__ = ["q1", "q2", "q3", "q4", "q5", "q6", "q7"]

q1, q2, q3, q4, q5, q6, q7 = load_exercises("01", __all__)
