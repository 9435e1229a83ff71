"""The panel's layout in a real browser, in Korean and English, at 800 px and 1280 px: no pixel diffs.

One JupyterLab serves two notebooks, one per language. Each starts a server whose panel shows a
call waiting for approval (an outside client's, over HTTP with a token of its own), a call in the
activity log, the catalogue with its "try it" forms, and the connect section with MCP Inspector
picked. At each width, for the status header, the approval prompt, the catalogue, the activity log
and the connect section: no box is wider than its container (scrollWidth within 1 px of
clientWidth), no button or label is cut, no Hangul is set in italics, and every copy button puts on
the clipboard exactly the text its block shows. A screenshot of each goes to test-artifacts/.
"""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest

from mcp_notebook.core._text import catalogue as messages
from tests.browser.lab import ARTIFACTS, SECONDS, browsed

pytestmark = pytest.mark.browser

LANGUAGES = ("ko", "en")
WIDTHS = (800, 1280)
SECTIONS = {
    "header": ".mcp-status-header",
    "prompt": ".mcp-prompt",
    "catalogue": ".mcp-catalogue",
    "activity": ".mcp-activity",
    "connect": ".mcp-connect",
}


def cells(language: str) -> list[str]:
    return [
        f"""
        %load_ext mcp_notebook
        import mcp_notebook
        mcp_notebook.set_language({language!r})
        """,
        '''
        from typing import Literal
        from mcp_notebook import tool

        @tool(destructive=True)
        def wipe_table(
            table_name_in_the_sales_database: str,
            mode: Literal["soft", "hard"] | None = None,
            keep_last_days: int = 0,
        ) -> str:
            """표의 모든 행을 지웁니다. Delete every row of a table in the sales database.

            Parameters
            ----------
            table_name_in_the_sales_database:
                지울 표의 이름 (the table's name), e.g. "매출_2024".
            mode:
                "soft" keeps a copy for a week; "hard" deletes at once.
            keep_last_days:
                Rows newer than this many days stay.
            """
            return f"wiped {table_name_in_the_sales_database}"


        @tool(read_only=True)
        def count_words(text: str) -> dict:
            """글의 단어 수를 셉니다. Count the words of a text.

            Parameters
            ----------
            text:
                세어 볼 글 (the text to count).
            """
            return {"words": len(text.split())}
        ''',
        "srv = %mcp_serve --approval-timeout 600",
        '%mcp_call count_words {"text": "모델 컨텍스트 프로토콜을 배웁니다"}',
        # An outside client with a token of its own asks to run the destructive tool: a prompt waits.
        """
        import threading
        outside = srv.add_client("claude-code")
        threading.Thread(
            target=mcp_notebook.call,
            args=("wipe_table", {"table_name_in_the_sales_database": "매출_2024"}),
            kwargs={"token": outside, "timeout": 600},
            daemon=True,
        ).start()
        """,
    ]


# For every box under `root`: is its content wider than the box (a scrollbar, or text cut off)?
# Inline boxes have no width of their own, and form fields scroll their own text by design.
LAYOUT = """(root) => {
  const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string'
      ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  const shown = (el) => el.getClientRects().length > 0;
  const boxes = [root, ...root.querySelectorAll('*')].filter(shown);
  const wide = boxes.filter((el) => !['INPUT', 'SELECT', 'TEXTAREA', 'OPTION', 'STYLE'].includes(el.tagName)
      && getComputedStyle(el).display !== 'inline' && el.scrollWidth > el.clientWidth + 1).map(name);
  const labels = [...root.querySelectorAll('button, .widget-label, .lm-AccordionPanel-title, summary')]
      .filter(shown).filter((el) => el.scrollWidth > el.clientWidth + 1).map(name);
  const hangul = /[\\uac00-\\ud7a3]/;
  const italic = boxes.filter((el) => [...el.childNodes].some((n) => n.nodeType === 3 && hangul.test(n.textContent))
      && getComputedStyle(el).fontStyle !== 'normal').map(name);
  const outer = root.closest('.jp-OutputArea-output');
  const overflow = outer && root.getBoundingClientRect().right > outer.getBoundingClientRect().right + 1;
  return {wide, labels, italic, overflow};
}"""


def words(language: str, key: str) -> str:
    return messages(language)[key]  # type: ignore[arg-type]


def open_sections(outputs: Any, language: str) -> None:
    """Open the catalogue, activity and connect sections, a "try it" form, and pick MCP Inspector."""
    for key in ("panel.catalogue", "panel.activity", "panel.connect"):
        outputs.get_by_text(words(language, key), exact=True).first.click()
    try_it = words(language, "catalogue.try").format(tool="wipe_table")
    outputs.get_by_text(try_it, exact=True).click()
    outputs.get_by_label(words(language, "connect.client")).select_option("inspector")
    outputs.locator(".mcp-connect .mcp-code pre").filter(has_text="--config").wait_for(timeout=30 * SECONDS)
    outputs.locator(".mcp-activity details.mcp-activity-row").first.wait_for(timeout=30 * SECONDS)


def check_copy_buttons(page: Any, outputs: Any, language: str) -> int:
    """Click every copy button of the header and the connect section; the clipboard holds what is shown."""
    blocks = outputs.locator(".mcp-status-header .mcp-code, .mcp-connect .mcp-code")
    for index in range(blocks.count()):
        block = blocks.nth(index)
        block.locator("button.mcp-copy").click()
        block.locator("button.mcp-copy", has_text=words(language, "style.copied")).wait_for(
            timeout=10 * SECONDS
        )
        shown = block.locator("pre").inner_text()
        copied = page.evaluate("() => navigator.clipboard.readText()")
        assert copied == shown, (copied, shown)
    return blocks.count()


def check_layout(page: Any, outputs: Any, language: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1400})  # tall: most sections show whole
    for section, selector in SECTIONS.items():
        element = outputs.locator(selector).first
        element.scroll_into_view_if_needed()
        found = element.evaluate(LAYOUT)
        element.screenshot(path=ARTIFACTS / f"layout-{language}-{width}-{section}.png")
        where = f"{section} in {language} at {width} px"
        assert not found["wide"], f"{where}: wider than their boxes: {found['wide']}"
        assert not found["labels"], f"{where}: cut labels: {found['labels']}"
        assert not found["italic"], f"{where}: Hangul in italics: {found['italic']}"
        assert not found["overflow"], f"{where}: wider than the output area"


@pytest.mark.timeout(600)
def test_the_panel_fits_800_and_1280_px_in_both_languages_and_copies_what_it_shows(tmp_path: Path) -> None:
    for old in ARTIFACTS.glob("layout-*"):  # a report of this run only
        old.unlink()
    notebooks = {f"layout-{language}.ipynb": cells(language) for language in LANGUAGES}
    with browsed(
        tmp_path,
        notebooks,
        "layout",
        viewport={"width": WIDTHS[-1], "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    ) as lab:
        page = lab.page
        for language in LANGUAGES:
            outputs = lab.run_all(f"layout-{language}.ipynb")
            outputs.locator(".mcp-prompt").wait_for(timeout=120 * SECONDS)  # the outside call waits
            open_sections(outputs, language)
            for width in WIDTHS:
                check_layout(page, outputs, language, width)
            assert check_copy_buttons(page, outputs, language) == 3  # the URL, the file, the command
            # Empty sections say so, in the notebook's language.
            catalogue = outputs.locator(".mcp-catalogue").first.inner_text()
            assert words(language, "catalogue.no_prompts") in catalogue
            # "Save as" writes the file the command reads, for its owner only.
            outputs.locator(".mcp-connect button", has_text=words(language, "connect.save")).click()
            saved = tmp_path / "notebook-mcp.json"
            outputs.locator(".mcp-connect .mcp-ok").wait_for(timeout=30 * SECONDS)
            assert stat.S_IMODE(saved.stat().st_mode) == 0o600
            shown = outputs.locator(".mcp-connect .mcp-code pre").first.inner_text()
            assert saved.read_text().strip() == shown.strip()
            saved.unlink()
