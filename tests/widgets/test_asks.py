"""A server the notebook calls asks for input: a person answers in a form, in both protocol eras."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import mcp_notebook
from mcp_notebook.widgets._questions import CallInProgress, ElicitationForm, SamplingForm

SERVERS = Path(__file__).parents[1] / "servers"
# 2025-11-25 pushes requests to the client (the SDK's MCPServer); 2026-07-28 answers input_required.
ERAS = [("legacy", SERVERS / "asking.py"), ("2026-07-28", SERVERS / "asking_modern.py")]


def ask(server: Path, mode: str, tool: str, arguments: dict[str, str] | None = None) -> CallInProgress:
    pending = mcp_notebook.call(tool, arguments, stdio=f'"{sys.executable}" "{server}"', mode=mode)
    assert isinstance(pending, CallInProgress), pending  # the cell stopped waiting: a person must answer
    return pending


@pytest.mark.parametrize(("mode", "server"), ERAS)
def test_elicitation_form_is_generated_from_the_schema(mode: str, server: Path) -> None:
    pending = ask(server, mode, "book_table")
    form = pending.children[0]
    assert isinstance(form, ElicitationForm)
    assert "Which day would you like?" in form.children[0].value
    assert set(form.fields) == {"day", "guests"} and form.fields["guests"].value == 2
    form.fields["day"].value = "Friday"
    form.fields["guests"].value = 4
    form.buttons.children[0].click()  # Send
    assert pending.result(30).text == "booked Friday for 4"
    assert "answered: accept" in form.status.value


@pytest.mark.parametrize(("mode", "server"), ERAS)
def test_declining_is_sent_back(mode: str, server: Path) -> None:
    pending = ask(server, mode, "book_table")
    pending.children[0].buttons.children[1].click()  # Decline
    assert pending.result(30).text == "not booked (decline)"


@pytest.mark.parametrize(("mode", "server"), ERAS)
def test_sampling_request_is_answered_by_the_person(mode: str, server: Path) -> None:
    pending = ask(server, mode, "write_poem", {"topic": "rain"})
    form = pending.children[0]
    assert isinstance(form, SamplingForm) and "A poem about rain" in form.children[0].value
    form.reply.value = "Rain taps the roof."
    form.buttons.children[0].click()
    assert pending.result(30).text == "poem: Rain taps the roof."


def test_rejecting_a_sampling_request(tmp_path: Path) -> None:
    pending = ask(SERVERS / "asking.py", "legacy", "write_poem", {"topic": "rain"})
    pending.children[0].reject()
    # The SDK's server turns the refusal into a JSON-RPC error: the protocol layer, with its code.
    with pytest.raises(mcp_notebook.ProtocolError, match="rejected"):
        pending.result(30)
    assert repr(pending) == "<call to write_poem waiting for input>"


@pytest.mark.kernel
def test_a_person_answers_in_a_real_kernel_while_no_cell_waits() -> None:
    from tests.kernel import Kernel

    kernel = Kernel()
    try:
        command = f'"{sys.executable}" "{SERVERS / "asking.py"}"'
        cell = kernel.run(
            f"%load_ext mcp_notebook\npending = %mcp_call book_table --stdio '{command}' --mode legacy\npending"
        )
        cell.raise_for_error()  # the cell finished: it did not wait for the answer
        assert "<call to book_table waiting for input>" in cell.text
        # The form was made while the cell ran: its widgets are in the cell's messages (complete by then).
        decline = cell.comm(
            lambda state: state.get("_model_name") == "ButtonModel" and state.get("description") == "Decline"
        )["comm_id"]
        kernel.click(decline)
        out = kernel.run("print(pending.result(30).text)")
        out.raise_for_error()
        assert out.stdout.strip() == "not booked (decline)"
    finally:
        kernel.shutdown()


def test_progress_notifications_reach_the_caller_and_the_magic_shows_a_bar(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    command = f'"{sys.executable}" "{SERVERS / "asking.py"}"'
    seen: list[tuple[float, float | None, str | None]] = []
    result = mcp_notebook.call(
        "count", {"n": 3}, stdio=command, mode="legacy", on_progress=lambda *a: seen.append(a)
    )
    assert result.text == "counted to 3"
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mcp_notebook")
    try:
        shown = shell.run_line_magic("mcp_call", f"count n=2 --stdio '{command}' --mode legacy")
        assert shown.text == "counted to 2"
        assert "count" in capsys.readouterr().out  # the progress bar's text form, shown under the cell
    finally:
        shell.run_line_magic("unload_ext", "mcp_notebook")
