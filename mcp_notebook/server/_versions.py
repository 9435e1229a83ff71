"""The protocol versions this server speaks: every version of both eras that the SDK knows.

The protocol answers ``server/discover`` with them and the HTTP gate refuses a request naming
another, so they live here, below both: the protocol never imports the HTTP face.
"""

from __future__ import annotations

from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS

SUPPORTED_VERSIONS = (*HANDSHAKE_PROTOCOL_VERSIONS, *MODERN_PROTOCOL_VERSIONS)
