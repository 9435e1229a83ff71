"""An exported app as an OAuth 2.1 resource server: access tokens from an authorization server.

Spec 2025-11-25 basic/authorization: the MCP server is a resource server. It publishes its
protected-resource metadata (RFC 9728) at ``/.well-known/oauth-protected-resource/mcp``, naming
the authorization server, built with the SDK's `create_protected_resource_routes`. It accepts a
bearer token only if the token was signed by that server (a key of its JWKS), is unexpired, names
this app as its audience (RFC 8707: no token meant for another service is ever accepted, and none
is passed on) and holds the required scopes. A request without a valid token gets 401 with
``WWW-Authenticate: Bearer ... resource_metadata="..."`` so a client can find where to get one;
a valid token without a required scope gets 403 ``error="insufficient_scope"`` naming the scopes
(the spec's scope challenge).

The identity of a token's requests is ``oauth:`` and its subject (``sub``, else its client), so
what it leaves behind (handles, idempotency keys, kept results, rate limits) is its own, and no
token can claim a reserved identity (``notebook``, ``owner``) or a static client's name.

Anyone can send a token, so what a token says about itself decides nothing that costs: its
algorithm, issuer, audience and expiry are checked before its key is looked up, and the key
lookup (`_jwks.SigningKeys`) lets no stranger hold up valid tokens or drive fetches of the keys.
"""

from __future__ import annotations

import hashlib
import logging
import time
from dataclasses import dataclass
from typing import Any

import jwt
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
from pydantic import AnyHttpUrl

from ...core._identity import Identity
from .._service_config import OAuthSettings
from ._jwks import KeyUnavailable, SigningKeys

logger = logging.getLogger(__name__)

PREFIX = "oauth:"
_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]
_NAME_MAX = 128


@dataclass(frozen=True)
class Refusal:
    """Why a request gets no identity: the status and the ``WWW-Authenticate`` challenge to send."""

    status: int
    challenge: str
    description: str


class OAuthResource:
    """Verifies access tokens (the SDK's `TokenVerifier` protocol) and answers for this resource.

    Parameters
    ----------
    settings:
        The issuer, its JWKS URL, this resource's URL and audience, the required scopes.
    keys:
        The issuer's signing keys, instead of ones fetched from ``settings.jwks_url`` (tests).
    """

    def __init__(self, settings: OAuthSettings, *, keys: SigningKeys | None = None) -> None:
        self.settings = settings
        self.metadata_url = str(build_resource_metadata_url(AnyHttpUrl(settings.resource)))
        self.keys = keys if keys is not None else SigningKeys(settings.jwks_url)

    def routes(self) -> list[Any]:
        """The protected-resource metadata route (RFC 9728), as the SDK builds it."""
        return create_protected_resource_routes(
            resource_url=AnyHttpUrl(self.settings.resource),
            authorization_servers=[AnyHttpUrl(self.settings.issuer)],
            scopes_supported=list(self.settings.scopes) or None,
        )

    def is_metadata(self, path: str) -> bool:
        return path.startswith("/.well-known/oauth-protected-resource")

    async def verify_token(self, token: str) -> AccessToken | None:
        """The SDK's `TokenVerifier`: the token's `AccessToken`, or None if it is not valid here."""
        checked = await self.check(token)
        return checked if isinstance(checked, AccessToken) else None

    async def check(self, token: str) -> AccessToken | str:
        """The token's `AccessToken`, or why it is refused (for ``error_description``)."""
        try:
            header = jwt.get_unverified_header(token)
            if header.get("alg") not in _ALGORITHMS:
                return "the access token is not signed with an algorithm this resource accepts"
            kid = header.get("kid")
            if not isinstance(kid, str) or not kid:
                return "the access token names no signing key (kid)"
            # Unverified, only to refuse a token meant for someone else before its key is looked up:
            # such a token must not make us fetch keys. The claims count after the signature check.
            jwt.decode(
                token,
                options={
                    "verify_signature": False,
                    "verify_exp": True,
                    "verify_aud": True,
                    "verify_iss": True,
                    "require": ["exp", "iss", "aud"],
                },
                audience=self.settings.audience,
                issuer=self.settings.issuer,
            )
            key = await self.keys.key(kid)
            claims = jwt.decode(
                token,
                key.key,
                algorithms=_ALGORITHMS,
                audience=self.settings.audience,
                issuer=self.settings.issuer,
                options={"require": ["exp", "iss", "aud"]},
            )
        except jwt.ExpiredSignatureError:
            return "the access token has expired"
        except jwt.InvalidAudienceError:
            return "the access token was not issued for this resource (audience)"
        except jwt.InvalidIssuerError:
            return "the access token was not issued by the expected authorization server"
        except jwt.InvalidSignatureError:
            return "the access token's signature does not verify"
        except KeyUnavailable as exc:
            return f"the access token's signing key is unknown ({exc})"
        except jwt.InvalidTokenError as exc:
            return f"the access token is not valid ({exc})"
        scope = claims.get("scope", claims.get("scp", ""))
        scopes = scope.split() if isinstance(scope, str) else [s for s in scope if isinstance(s, str)]
        client = claims.get("client_id") or claims.get("azp") or claims.get("sub") or ""
        subject = claims.get("sub")
        if not isinstance(client, str) or not client:
            return "the access token names neither a subject nor a client"
        expires = claims.get("exp")
        return AccessToken(
            token=token,
            client_id=client,
            scopes=scopes,
            expires_at=int(expires) if isinstance(expires, int | float) else None,
            resource=self.settings.resource,
            subject=subject if isinstance(subject, str) else None,
            claims=claims,
        )

    async def identify(self, credential: bytes | None) -> Identity | Refusal:
        """The identity a bearer `credential` proves, or the refusal to send (401, or 403 for scope)."""
        if not credential:
            return self._refuse(401, None, "no access token")
        checked = await self.check(credential.decode("latin-1"))
        if isinstance(checked, str):
            return self._refuse(401, "invalid_token", checked)
        if checked.expires_at is not None and checked.expires_at < time.time():
            return self._refuse(401, "invalid_token", "the access token has expired")
        missing = [scope for scope in self.settings.scopes if scope not in checked.scopes]
        if missing:
            return self._refuse(
                403, "insufficient_scope", f"the access token lacks the scope {' '.join(missing)}"
            )
        return Identity(identity_name(checked.subject or checked.client_id))

    def _refuse(self, status: int, error: str | None, description: str) -> Refusal:
        parts = []
        if error is not None:
            parts += [f'error="{error}"', f'error_description="{_quoted(description)}"']
        if self.settings.scopes:
            parts.append(f'scope="{" ".join(self.settings.scopes)}"')
        parts.append(f'resource_metadata="{self.metadata_url}"')
        return Refusal(status, "Bearer " + ", ".join(parts), description)


def identity_name(subject: str) -> str:
    """``oauth:<subject>``; a subject too long or not printable is replaced by its digest."""
    if len(subject) > _NAME_MAX or not subject.isprintable():
        subject = "sha256-" + hashlib.sha256(subject.encode("utf-8", "surrogatepass")).hexdigest()[:32]
    return PREFIX + subject


def _quoted(text: str) -> str:
    """`text` fit for a quoted-string of a header (RFC 9110): no quotes, backslashes or controls."""
    return "".join(ch if ch.isprintable() and ch not in '"\\' else " " for ch in text)[:200]
