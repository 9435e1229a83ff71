"""The IPython face: the magics, and what ``%load_ext mcp_notebook`` installs."""
