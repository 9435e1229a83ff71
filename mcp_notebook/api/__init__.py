"""The in-kernel server as the notebook holds it: `serve()`, `stop()`, `current_server()` and the handle.

Joins the server and the client (a connection check, client configurations) for the user; the
panel a handle shows is registered by the UI layer.
"""
