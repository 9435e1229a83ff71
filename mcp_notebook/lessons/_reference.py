"""The model answer of a code exercise, run beside the learner's: a namespace and a catalogue of its
own, served by a private server of the kernel (`mcp_notebook.api._serving.serve_privately`).

The chapter's set-up code (``given``: the data and tools the notebook defines before the exercise)
runs first, then the model answer, both with `collecting_into` so nothing lands in the catalogue the
notebook serves. The state the tools change (``state``: names such as ``bookings``) starts from the
same value on both sides: `States` copies the set-up's fresh values into the learner's notebook for
the check, in place, and puts the learner's own back afterwards.
"""

from __future__ import annotations

import contextlib
import copy
import io
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..core._catalogue import Catalogue, collecting_into

PRELUDE = (
    "from typing import Annotated, Literal\n"
    "from pydantic import Field\n"
    "from mcp_notebook import Context, ToolError, prompt, resource, tool\n"
)
"""What a chapter's notebook has imported before its exercises (its first code cells)."""


class Reference:
    """The model answer (`source`) after the chapter's set-up (`given`), defined apart from the notebook;
    `also`: tools the check adds beside them (other tools a model could pick instead).

    Raises
    ------
    RuntimeError
        When the model answer does not run: a fault of the lesson, not of the learner.
    """

    def __init__(
        self, source: str, given: str = "", *, also: str = "", name: str = "lesson-reference"
    ) -> None:
        self.source = source
        self.name = name
        self.catalogue = Catalogue()
        self.namespace: dict[str, Any] = {"__name__": "__lesson_reference__"}
        with collecting_into(self.catalogue), contextlib.redirect_stdout(io.StringIO()):
            try:
                exec(compile(PRELUDE + given, "<set-up>", "exec"), self.namespace)
                exec(compile(source, "<model answer>", "exec"), self.namespace)
                if also:
                    exec(compile(also, "<the check's own tools>", "exec"), self.namespace)
            except Exception as exc:
                raise RuntimeError(f"the model answer does not run: {type(exc).__name__}: {exc}") from exc
        self._server: Any = None

    @contextlib.contextmanager
    def served(self) -> Iterator[Reference]:
        """Serve the model answer's catalogue for the duration of the block."""
        from ..api._serving import serve_privately

        self._server = serve_privately(self.catalogue, name=self.name)
        try:
            yield self
        finally:
            self._server.stop()
            self._server = None

    @property
    def url(self) -> str:
        assert self._server is not None, "serve the model answer first (`with reference.served():`)"
        return str(self._server.url)

    @property
    def token(self) -> str:
        """The kernel's own credential: the private server answers it as the notebook, never asking."""
        from ..runtime._loop import runtime

        return str(runtime.local_secret)

    def definition(self, name: str) -> dict[str, Any] | None:
        """The tool `name` as the private server lists it."""
        from mcp_notebook import list_tools

        return next((d for d in list_tools(url=self.url, token=self.token) if d["name"] == name), None)

    def definitions(self) -> list[dict[str, Any]]:
        from mcp_notebook import list_tools

        return list(list_tools(url=self.url, token=self.token))


class States:
    """The values the tools change, the same on both sides: `names` in the notebook and in `reference`.

    `reset` gives both a fresh copy of the set-up's values (in place, so a function that holds the
    object itself sees the change too); `restore` puts the learner's own values back.
    """

    def __init__(self, names: Sequence[str], notebook: dict[str, Any], reference: Reference) -> None:
        self.names = tuple(names)
        self.notebook = notebook
        self.reference = reference
        self.fresh = {name: copy.deepcopy(reference.namespace[name]) for name in self.names}
        self.missing = [name for name in self.names if name not in notebook]
        self._saved = {name: copy.deepcopy(notebook[name]) for name in self.names if name not in self.missing}

    def reset(self) -> None:
        for name in self.names:
            _assign(self.reference.namespace, name, copy.deepcopy(self.fresh[name]))
            if name not in self.missing:
                _assign(self.notebook, name, copy.deepcopy(self.fresh[name]))

    def restore(self) -> None:
        for name, value in self._saved.items():
            _assign(self.notebook, name, value)


def _assign(namespace: dict[str, Any], name: str, value: Any) -> None:
    """Give `name` the contents of `value`, in the object it names when that can change in place."""
    current = namespace.get(name)
    if isinstance(current, list) and isinstance(value, list):
        current[:] = value
    elif (isinstance(current, dict) and isinstance(value, Mapping)) or (
        isinstance(current, set) and isinstance(value, set)
    ):
        current.clear()
        current.update(value)
    else:
        namespace[name] = value
