"""What an app may reach, decided before its frame is drawn (`core._app_frame`)."""

from __future__ import annotations

import pytest

from mcp_notebook.core._app_frame import (
    SANDBOX,
    allow_attribute,
    app_visible,
    domain_ok,
    link_ok,
    policy,
    requested_permissions,
    resource_uri,
    srcdoc,
)


def directives(text: str) -> dict[str, str]:
    parsed = {}
    for directive in text.split(";"):
        name, _, sources = directive.strip().partition(" ")
        assert name not in parsed, f"{name} twice in {text!r}"
        parsed[name] = sources
    return parsed


def test_without_a_csp_the_app_reaches_no_network() -> None:
    parsed = directives(policy(None).text)
    assert parsed["default-src"] == "'none'"
    assert parsed["connect-src"] == "'none'"
    assert parsed["frame-src"] == "'none'"
    assert parsed["script-src"] == parsed["style-src"] == "'unsafe-inline'"
    assert parsed["img-src"] == "data: blob:"
    assert parsed["object-src"] == parsed["base-uri"] == parsed["form-action"] == "'none'"


def test_declared_domains_reach_their_directives_only() -> None:
    parsed = directives(
        policy(
            {
                "connectDomains": ["https://api.example.com", "wss://live.example.com"],
                "resourceDomains": ["https://*.cdn.example"],
                "frameDomains": ["https://www.youtube.com"],
                "baseUriDomains": ["https://base.example"],
            }
        ).text
    )
    assert parsed["connect-src"] == "https://api.example.com wss://live.example.com"
    assert parsed["script-src"] == "'unsafe-inline' https://*.cdn.example"
    assert parsed["img-src"] == "data: blob: https://*.cdn.example"
    assert parsed["frame-src"] == "https://www.youtube.com"
    assert parsed["base-uri"] == "https://base.example"


@pytest.mark.parametrize(
    "value",
    [
        "https://api.example.com",
        "http://localhost:8080",
        "wss://*.example.com",
        "https://cdn.example.com/npm/",
    ],
)
def test_plain_sources_are_accepted(value: str) -> None:
    assert domain_ok(value)


@pytest.mark.parametrize(
    "value",
    [
        "*",
        "https://*",
        "https:",
        "data:",
        "'unsafe-eval'",
        "'self'",
        "https://a.example 'unsafe-eval'",
        "https://a.example; script-src *",
        "https://a.example,https://b.example",
        "example.com",
        "javascript:alert(1)",
        "https://*.*.example",
        'https://a.example/"',
        "https://a.example\n",
        42,
        None,
    ],
)
def test_sources_that_would_open_more_are_refused(value: object) -> None:
    assert not domain_ok(value)


def test_refused_sources_are_listed_and_a_list_that_is_not_one_is_refused() -> None:
    found = policy({"connectDomains": "https://a.example", "resourceDomains": ["*", "https://b.example"]})
    assert set(found.refused) == {"connectDomains: https://a.example", "resourceDomains: *"}
    assert directives(found.text)["connect-src"] == "'none'"


def test_the_policy_is_the_first_thing_of_the_document() -> None:
    document = "<!DOCTYPE html><html lang='en'><head><title>x</title></head><body>hi</body></html>"
    made = srcdoc(document, policy(None))
    assert made.startswith('<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="')
    assert made.endswith(document)
    assert "&#x27;none&#x27;" in made  # quoted for the attribute


def test_permissions_are_known_features_only() -> None:
    asked = requested_permissions({"camera": {}, "clipboardWrite": {}, "usb": {}})
    assert asked == ["camera", "clipboard-write"]
    assert allow_attribute(asked) == "camera; clipboard-write"
    assert allow_attribute(["camera", "usb; autoplay *"]) == "camera"
    assert requested_permissions(None) == []


@pytest.mark.parametrize(
    ("url", "ok"),
    [
        ("https://example.com/a?b=c", True),
        ("http://example.com", True),
        ("javascript:alert(1)", False),
        ("data:text/html,<script>1</script>", False),
        ("file:///etc/passwd", False),
        ("https://example.com/a b", False),
        ('https://example.com/"onclick=', False),
        (" https://example.com", False),
        (None, False),
    ],
)
def test_links_are_plain_web_addresses(url: object, ok: bool) -> None:
    assert (link_ok(url) is not None) is ok


def test_resource_uri_and_visibility_of_a_definition() -> None:
    tool = {"name": "t", "_meta": {"ui": {"resourceUri": "ui://a/b.html"}}}
    assert resource_uri(tool) == "ui://a/b.html"
    assert resource_uri({"_meta": {"ui/resourceUri": "ui://old/x"}}) == "ui://old/x"
    assert resource_uri({"_meta": {"ui": {"resourceUri": "https://x"}}}) is None
    assert resource_uri(None) is None
    assert app_visible(tool)  # visibility defaults to model and app
    assert app_visible({"_meta": {"ui": {"visibility": ["app"]}}})
    assert not app_visible({"_meta": {"ui": {"visibility": ["model"]}}})
    assert not app_visible({"_meta": {"ui": {"visibility": "app"}}})
    assert not app_visible(None)  # a tool the server does not list


def test_the_sandbox_is_scripts_alone() -> None:
    assert SANDBOX == "allow-scripts"
