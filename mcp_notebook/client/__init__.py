"""A synchronous client for magics and plain Python: call tools on any MCP server.

Targets: the in-kernel server (default), any Streamable HTTP URL, or a stdio command. What a person
answers when a server asks (elicitation, sampling) comes through callbacks the layers above install;
results know how to show themselves as text and HTML, and as widgets through a display the UI layer
registers. Never imports the server.
"""
