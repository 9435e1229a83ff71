"""The layered package keeps its public face: no subpackage takes the place of a public name."""

from __future__ import annotations

import subprocess
import sys


def test_importing_every_module_leaves_every_public_name_as_it_was() -> None:
    # A subpackage named like a public function (say `lint`) would replace `mcp_notebook.lint` the
    # moment anything imports it: `mcp_notebook.lint(tool)` would then call a module.
    code = """
import importlib, pkgutil, types
import mcp_notebook
before = {name: getattr(mcp_notebook, name) for name in mcp_notebook.__all__}
for module in pkgutil.walk_packages(mcp_notebook.__path__, "mcp_notebook."):
    if not module.name.endswith(".__main__"):
        importlib.import_module(module.name)
changed = [name for name in mcp_notebook.__all__ if getattr(mcp_notebook, name) is not before[name]]
modules = [name for name in mcp_notebook.__all__ if isinstance(getattr(mcp_notebook, name), types.ModuleType)]
print(changed, modules)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[] []", out.stdout + out.stderr
