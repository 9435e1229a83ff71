"""The HTTP face of the server: the gate in front of the SDK's Streamable HTTP app, and its listener."""
