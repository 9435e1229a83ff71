"""The one background loop of a kernel, and where tool functions run on it.

`Runtime` owns the anyio blocking portal (a daemon thread with its own event loop) on which the
in-kernel server and the client connections run; `ToolRunner` runs tool functions on worker
threads or on the kernel's own thread between cells.
"""
