"""The MCP server: both protocol eras over a catalogue, on the SDK's low-level `Server`.

The protocol handlers, the one ``tools/call`` pipeline (lookup, arguments, rate limit, approval,
run, result, audit), resources and prompts, approvals, guardrails, the audit and activity logs;
`http` holds the HTTP face (the gate, framing, sessions, the uvicorn listener) and sits above the
protocol: the protocol modules never import it, and `_assembly` is the one module that joins the
two. Never imports the client, the widgets or IPython.
"""
