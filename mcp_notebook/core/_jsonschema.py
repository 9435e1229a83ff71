"""jsonschema, imported without the second its optional IRI checker takes to import.

jsonschema registers the ``iri`` and ``iri-reference`` format checks from rfc3987-syntax when that
package is installed (JupyterLab installs it, through jupyter-events), and rfc3987-syntax builds its
Lark grammar as it is imported: one to three seconds of CPU in every kernel, ``mcp-notebook serve``
and exported app, paid by the first call whose arguments are checked, while its client waits.

`load_jsonschema` imports jsonschema with a stand-in for rfc3987-syntax whose check imports the real
package on first use: both format checks work as before, and only a schema that uses them pays for
the grammar. The stand-in is in `sys.modules` only while jsonschema is imported, and it passes any
other name on to the real package, so other code importing rfc3987-syntax meanwhile gets it whole.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import threading
import types
from typing import Any

_NAME = "rfc3987_syntax"
_lock = threading.Lock()


def load_jsonschema() -> types.ModuleType:
    """The `jsonschema` module, imported (once) without building rfc3987-syntax's grammar."""
    if "jsonschema" not in sys.modules:
        with _lock:
            # Someone may have imported either already (then it is paid for), or it may not be installed.
            if (
                "jsonschema" not in sys.modules
                and _NAME not in sys.modules
                and importlib.util.find_spec(_NAME)
            ):
                stand_in = _StandIn(_NAME)
                sys.modules[_NAME] = stand_in
                try:
                    import jsonschema
                finally:
                    if sys.modules.get(_NAME) is stand_in:
                        del sys.modules[_NAME]
    import jsonschema  # the import system's lock: never a module half imported by another thread

    module: types.ModuleType = jsonschema
    return module


def _real() -> types.ModuleType:
    module = sys.modules.get(_NAME)
    if isinstance(module, _StandIn):  # asked for while jsonschema is being imported
        del sys.modules[_NAME]
    return importlib.import_module(_NAME)


def is_valid_syntax(term: str, value: str) -> bool:
    """rfc3987-syntax's check, its grammar built on the first call."""
    return bool(_real().is_valid_syntax(term, value))


class _StandIn(types.ModuleType):
    is_valid_syntax = staticmethod(is_valid_syntax)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # the import system asks for `__path__` and such: not a name it imports
            raise AttributeError(name)
        return getattr(_real(), name)
