# Sourced by the scripts in this folder: create or refresh .venv with the project installed.
# A stamp of pyproject.toml's hash decides whether the install must run again.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$ROOT/.venv"
EXTRAS="${1:-dev}"
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
  echo "mcp-notebook needs Python 3.11 or newer as '$PY' (set PYTHON=/path/to/python3.11)." >&2
  exit 1
fi
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
STAMP="$VENV/.installed-$EXTRAS-$(sha256sum "$ROOT/pyproject.toml" | cut -c1-16)"
if [ ! -e "$STAMP" ]; then
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -e "$ROOT[$EXTRAS]"
  touch "$STAMP"
fi
export PATH="$VENV/bin:$PATH"
cd "$ROOT"
