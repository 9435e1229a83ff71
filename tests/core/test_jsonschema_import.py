"""The first call whose arguments are checked does not build rfc3987-syntax's grammar (seconds of CPU).

Each check runs in a fresh interpreter: what is imported is the point, and this process has imported
everything already.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("rfc3987_syntax") is None,
    reason="rfc3987-syntax is not installed: nothing to defer",
)


def fresh(code: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_checking_arguments_leaves_the_iri_grammar_unbuilt_until_a_schema_asks_for_iris():
    seen = fresh(
        """
        import importlib, json, sys
        from mcp_notebook.core._arguments import compile_validator
        stamp = {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}}
        wrong = [e.message for e in compile_validator(stamp).iter_errors({"when": "tuesday"})]
        before = "lark" in sys.modules
        link = {"type": "object", "properties": {"at": {"type": "string", "format": "iri"}}}
        iri = compile_validator(link)
        bad = [e.message for e in iri.iter_errors({"at": "http://ex ample.org/ü"})]
        good = [e.message for e in iri.iter_errors({"at": "http://example.org/ü"})]
        import jsonschema, jsonschema._format, rfc3987_syntax
        deferred = sorted(jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers)
        importlib.reload(jsonschema._format)  # as a plain import of jsonschema registers them
        plain = sorted(jsonschema._format.draft202012_format_checker.checkers)
        print(json.dumps({"wrong": wrong, "before": before, "bad": bad, "good": good, "after": "lark" in sys.modules,
                          "whole": hasattr(rfc3987_syntax, "RFC3987_SYNTAX_TERMS"), "deferred": deferred,
                          "plain": plain}))
        """
    )
    assert seen["wrong"] == ["'tuesday' is not a 'date-time'"]
    assert seen["before"] is False, "the date-time check built the IRI grammar"
    # The IRI checks still run, with rfc3987-syntax's own answer, once a schema uses them.
    assert seen["bad"] == ["'http://ex ample.org/ü' is not a 'iri'"]
    assert seen["good"] == []
    assert seen["after"] is True
    assert seen["whole"] is True, "code importing rfc3987-syntax afterwards did not get the real package"
    # The same formats are checked as with a plain import.
    assert seen["deferred"] == seen["plain"]
    assert {"iri", "iri-reference"} <= set(seen["deferred"])
