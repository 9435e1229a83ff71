"""The categories lessons classify into, shared by every chapter (``content/vocabularies.toml``).

Each category's ``meaning`` is what the learner's *choice* implies; wrong answers are explained
with it ("you chose Resource: a Resource is ... — is that what happens here?"), so feedback
never names the right answer. A chapter's own vocabularies are in its ``exercises.toml``.
"""

from __future__ import annotations

from ._content import shared_vocabularies

_SHARED = shared_vocabularies()

ROLES = _SHARED["roles"]
CONTROLLERS = _SHARED["controllers"]
PRIMITIVES = _SHARED["primitives"]
ERROR_LAYERS = _SHARED["error_layers"]
