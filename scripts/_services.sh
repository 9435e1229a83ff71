# Sourced by scripts/check: Debian's redis-server and haproxy, which the service tests start on
# 127.0.0.1 themselves (the Redis store's contract, replicas behind a load balancer), and nginx,
# whose configuration snippet in deploy/ is checked with `nginx -t`. Installed when missing; none
# is started as a system service.
_install_services() {
  local packages=() sudo=()
  command -v redis-server >/dev/null 2>&1 || packages+=(redis-server)
  command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ] || packages+=(haproxy)
  command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || packages+=(nginx-light)
  [ "${#packages[@]}" -gt 0 ] || return 0
  if [ "$(id -u)" != 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
      echo "The service tests need Debian's ${packages[*]}." >&2
      echo "Install as root: apt-get update && apt-get install -y --no-install-recommends ${packages[*]}" >&2
      return 1
    fi
    sudo=(sudo)
  fi
  echo "== apt-get install ${packages[*]}"
  "${sudo[@]}" apt-get update -qq
  # RUNLEVEL=1: the packages' scripts do not start redis, haproxy or nginx as services (the tests
  # start their own, on ports the OS picks).
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive RUNLEVEL=1 \
    apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
}
_install_services
unset -f _install_services
