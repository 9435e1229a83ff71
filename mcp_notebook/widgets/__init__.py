"""Notebook widgets: the server panel (approval prompts and the activity log).

Widgets show, cores decide: each takes core objects (`ApprovalRequest`, `CallRecord`) and holds no
protocol logic. From the server's thread they only set traits, which ipywidgets sends safely.
"""

from ._catalogue import CatalogueView
from ._connect import ConnectView
from ._panel import ApprovalPrompt, ServerPanel
from ._result import CallProgress, ErrorView, ResultView
from ._tryit import TryIt

__all__ = [
    "ApprovalPrompt",
    "CallProgress",
    "CatalogueView",
    "ConnectView",
    "ErrorView",
    "ResultView",
    "ServerPanel",
    "TryIt",
]
