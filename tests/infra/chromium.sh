#!/usr/bin/env bash
# The browser of the browser tests: Debian's `chromium` (and `chromium-driver`), never a test tool's own download.
# Installed with apt when missing (needs root, as on CI); prints the executable's path on stdout. Any failure exits
# non-zero and says what is missing: browser tests never skip.
#   SVC_CHROMIUM   use this executable instead (must exist)
set -euo pipefail

log() { printf '[chromium] %s\n' "$*" >&2; }
die() { printf '\n[chromium] FAILED: %s\n' "$*" >&2; exit 1; }

if [[ -n "${SVC_CHROMIUM:-}" ]]; then
  [[ -x "$SVC_CHROMIUM" ]] || die "SVC_CHROMIUM=$SVC_CHROMIUM is not an executable"
  echo "$SVC_CHROMIUM"
  exit 0
fi

bin=/usr/bin/chromium
if [[ ! -x "$bin" ]]; then
  command -v apt-get >/dev/null 2>&1 || die "$bin is missing and apt-get is not available: install Debian's chromium package"
  [[ "$(id -u)" == 0 ]] || die "$bin is missing and installing it needs root: run 'apt-get install chromium chromium-driver' as root"
  log "installing Debian chromium + chromium-driver (apt-get; about a minute)"
  export DEBIAN_FRONTEND=noninteractive
  if ! apt-get install -y -q --no-install-recommends chromium chromium-driver >&2; then
    log "apt-get install failed; refreshing the package lists and trying once more"
    apt-get update -q >&2 || die "apt-get update failed (is the Debian mirror reachable?)"
    apt-get install -y -q --no-install-recommends chromium chromium-driver >&2 || die "apt-get install chromium failed"
  fi
fi
"$bin" --version >&2 || die "$bin does not start"
echo "$bin"
