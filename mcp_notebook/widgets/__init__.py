"""Notebook widgets: the server panel, the catalogue, results (and their MCP Apps), pending calls and question forms.

Widgets show, cores decide: each takes core objects (`ApprovalRequest`, `CallRecord`, results) and
holds no protocol logic. They never import the server: what they need of it at run time (the
handle's tool server, its task manager, its audit log) is passed in. From the server's thread they only set traits, which ipywidgets sends
safely. Importing this package registers its displays with `mcp_notebook.core._ui`, through which
the layers below (results, the server handle, the client) show things without importing widgets,
and a view for each content kind with `mcp_notebook.core._kinds` (a new kind registers its own).
"""

from ..core import _kinds, _ui
from ._app import AppFrame, AppView
from ._badge import follow_server
from ._catalogue import CatalogueView
from ._check import CheckView
from ._connect import ConnectView
from ._content import embedded_view, media_view, text_view
from ._panel import ApprovalPrompt, ServerPanel
from ._pending import PendingCall
from ._questions import CallInProgress, ElicitationForm, SamplingForm
from ._result import CallProgress, ErrorView, ResourceLinkView, ResultView
from ._status import ServerLine
from ._tasks import RunningTasks, TaskCallView
from ._tryit import TryIt

__all__ = [
    "AppFrame",
    "AppView",
    "ApprovalPrompt",
    "CallProgress",
    "CatalogueView",
    "ConnectView",
    "ErrorView",
    "ResultView",
    "RunningTasks",
    "ServerPanel",
    "TaskCallView",
    "TryIt",
]

_ui.register("result_view", ResultView.of)
_ui.register("server_panel", ServerPanel)
_ui.register("pending_call", PendingCall)
_ui.register("elicitation_form", ElicitationForm)
_ui.register("sampling_form", SamplingForm)
_ui.register("call_in_progress", CallInProgress)
_ui.register("task_call", TaskCallView)
_ui.register("check_result", CheckView)
_ui.register("server_status", ServerLine)
_ui.register("waiting_badge", follow_server)
_ui.register("app_view", AppView.of)

_kinds.register_view("text", text_view)
_kinds.register_view("image", media_view)
_kinds.register_view("audio", media_view)
_kinds.register_view("resource_link", ResourceLinkView.of)
_kinds.register_view("resource", embedded_view)
