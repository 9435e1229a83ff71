# JupyterLab's server settings for `scripts/lab` (first on JUPYTER_CONFIG_PATH, for that process only).
#
# Kernel websockets keep jupyter_server's own ping settings: a ping every 30 s, and the connection
# closed only when no pong came for 90 s. A timeout equal to the interval closes nearly every
# connection at its next ping, since the last pong is then a few milliseconds more than 30 s old.
#
# Those defaults make tornado >= 6.5 log one line at the first websocket: it caps a ping timeout
# longer than the interval (for its own pings, which jupyter_server leaves off). The cap changes
# nothing jupyter_server does, so that one line is dropped here rather than shown to a newcomer as a
# warning; every other tornado message still shows.
import logging


class _PingTimeoutCapNotice(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return "cannot be longer than the websocket_ping_interval" not in record.getMessage()


logging.getLogger("tornado.general").addFilter(_PingTimeoutCapNotice())
