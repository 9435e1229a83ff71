"""Attack: turn a connection defence off through the environment, with a value that reads as a number.

``MCP_NOTEBOOK_HEADER_TIMEOUT``, ``..._BODY_TIMEOUT`` and ``..._MAX_CONNECTIONS`` let an operator
tune the deadlines and the cap that keep tokenless sockets from exhausting the kernel. ``inf`` passed
their check ("a number greater than 0"): the header deadline was silently gone, so one slow socket
per file descriptor could fill the kernel again, and ``inf`` (or ``0.5``) for the cap broke the start
with "cannot convert float infinity to integer", naming no setting. Each is refused now at start,
naming the variable, what it must be and what to do; the server never serves with the defence off.
"""

from __future__ import annotations

import pytest

from mcp_notebook import Catalogue, serve

LOOSENED = [
    ("MCP_NOTEBOOK_HEADER_TIMEOUT", "inf"),
    ("MCP_NOTEBOOK_BODY_TIMEOUT", "Infinity"),
    ("MCP_NOTEBOOK_MAX_CONNECTIONS", "inf"),
    ("MCP_NOTEBOOK_MAX_CONNECTIONS", "0.5"),
    ("MCP_NOTEBOOK_HEADER_TIMEOUT", "nan"),
    ("MCP_NOTEBOOK_MAX_REQUEST_BYTES", "inf"),
]


@pytest.mark.parametrize(("variable", "value"), LOOSENED)
def test_a_value_that_turns_a_limit_off_is_refused_naming_the_variable(
    monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue, variable: str, value: str
) -> None:
    monkeypatch.setenv(variable, value)
    with pytest.raises(Exception) as refused:
        serve(catalogue=catalogue).stop()
    message = str(refused.value)
    assert variable in message and repr(value) in message and "greater than 0" in message, message


def test_a_finite_value_is_taken(monkeypatch: pytest.MonkeyPatch, catalogue: Catalogue) -> None:
    monkeypatch.setenv("MCP_NOTEBOOK_HEADER_TIMEOUT", "2.5")
    monkeypatch.setenv("MCP_NOTEBOOK_MAX_CONNECTIONS", "64")
    serve(catalogue=catalogue).stop()
