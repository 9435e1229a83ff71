# Sourced by scripts/check: Debian's chromium, and CJK fonts for the Korean UI, for the one real-browser
# test. Playwright (pip) drives this system browser; never `playwright install`, which downloads one.
_install_browser() {
  local packages=() sudo=()
  [ -x /usr/bin/chromium ] || packages+=(chromium)
  [ -n "$(fc-list 'Noto Sans CJK KR' 2>/dev/null)" ] || packages+=(fonts-noto-cjk)
  [ "${#packages[@]}" -gt 0 ] || return 0
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "The browser test needs Debian's ${packages[*]} (chromium at /usr/bin/chromium)." >&2
      echo "Install as root: apt-get update && apt-get install -y --no-install-recommends ${packages[*]}" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  echo "== apt-get install ${packages[*]}"
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
}
_install_browser
unset -f _install_browser
