"""JupyterHub for one class on one machine (The Littlest JupyterHub style), with mcp-notebook.

On The Littlest JupyterHub (TLJH), copy this file to /opt/tljh/config/jupyterhub_config.d/mcp_notebook.py
and run `sudo tljh-config reload`: TLJH keeps its own authenticator, spawner (systemd, one system user
per student, which enforces the memory and CPU limits below) and HTTPS. On a plain JupyterHub, run
`jupyterhub -f jupyterhub_config.py`. Set the addresses in CLASS_* below (or in the environment), and
see classroom/README.md for the whole set-up.

What it adds for a class that uses mcp-notebook:
- every student's server opens the lessons, pulled from the repository by nbgitpuller on each login
  (their own changes are kept), in Korean;
- the hub knows its public address, so `srv.client_config(...)` in a notebook gives a desktop AI
  client this student's URL on the hub (the Jupyter server extension serves it);
- the class's progress service (instructors and hub admins see students × exercises);
- idle servers culled after an hour, and limits measured for lessons (see the README).
"""

import os
import sys

c = get_config()  # type: ignore[name-defined]  # noqa: F821 - provided by JupyterHub when it loads this file

# -- where the class lives -----------------------------------------------------------------------------
PUBLIC_URL = os.environ.get("CLASS_PUBLIC_URL", "https://hub.example.org")
LESSONS_REPO = os.environ.get("CLASS_LESSONS_REPO", "https://github.com/mcp-notebook/mcp-notebook")
LESSONS_BRANCH = os.environ.get("CLASS_LESSONS_BRANCH", "main")
INSTRUCTORS = [name for name in os.environ.get("CLASS_INSTRUCTORS", "teacher").split(",") if name]
PROGRESS_PORT = int(os.environ.get("CLASS_PROGRESS_PORT", "10101"))

# The public address, handed to every server as JUPYTERHUB_PUBLIC_URL: client configurations use it.
c.JupyterHub.public_url = PUBLIC_URL

# -- what a student's server opens --------------------------------------------------------------------
folder = LESSONS_REPO.rstrip("/").rsplit("/", 1)[-1]
c.Spawner.default_url = (
    f"/git-pull?repo={LESSONS_REPO}&branch={LESSONS_BRANCH}"
    f"&urlpath=lab/tree/{folder}/notebooks/ko/00_getting_started.ipynb"
)
c.Spawner.environment = {
    "MCP_NOTEBOOK_LANG": "ko",
    # Where the kernels send exercise checks (the service below, on this machine).
    "MCP_NOTEBOOK_PROGRESS_URL": f"http://127.0.0.1:{PROGRESS_PORT}/services/mcp-progress/",
}

# -- limits, measured for lessons (classroom/README.md, "Capacity") -------------------------------------
# One student: the Jupyter server (~140 MiB) and a lesson kernel with %mcp_serve, pandas and
# matplotlib (~200 MiB). 1 GiB leaves room for a second notebook; the guarantee is what TLJH's
# systemd spawner reserves.
c.Spawner.mem_limit = "1G"
c.Spawner.mem_guarantee = "512M"
c.Spawner.cpu_limit = 1.0
c.Spawner.cpu_guarantee = 0.05

# -- culling: a lesson is 50-90 minutes; a server idle for an hour is gone ------------------------------
# Requests from an AI client through the hub count as activity, so a notebook in use by a client stays.
# TLJH runs its own culler: there, set it with `sudo tljh-config set services.cull.timeout 3600`.
ON_TLJH = os.path.isdir("/opt/tljh")
c.JupyterHub.load_roles = [
    # The progress service asks the hub whether a reader is an admin or an instructor.
    {"name": "mcp-progress", "scopes": ["read:users"], "services": ["mcp-progress"]},
]
c.JupyterHub.services = [
    {
        "name": "mcp-progress",
        "url": f"http://127.0.0.1:{PROGRESS_PORT}",
        "command": [sys.executable, "-m", "mcp_notebook.jupyter.progress_service"],
        "oauth_no_confirm": True,  # instructors log in to the hub once; no second "authorize" page
        "environment": {
            "MCP_NOTEBOOK_PROGRESS_GROUP": "instructors",
            "MCP_NOTEBOOK_PROGRESS_DB": "/srv/mcp-progress/progress.sqlite3",
        },
    },
]

if not ON_TLJH:
    c.JupyterHub.load_roles.append(
        {
            "name": "idle-culler",
            "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"],
            "services": ["idle-culler"],
        }
    )
    c.JupyterHub.services.append(
        {
            "name": "idle-culler",
            "command": [sys.executable, "-m", "jupyterhub_idle_culler", "--timeout=3600", "--cull-every=300"],
        }
    )

# -- who teaches ----------------------------------------------------------------------------------------
# The progress table is shown to hub admins and to the members of this group only.
c.JupyterHub.load_groups = {"instructors": {"users": INSTRUCTORS}}
c.Authenticator.admin_users = set(INSTRUCTORS)
