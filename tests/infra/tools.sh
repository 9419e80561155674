#!/usr/bin/env bash
# Install the pinned deployment tools (helm, skaffold) that tests/deploy runs, built from source through the Go
# module proxy (no release-binary hosts are reachable here), into a cache shared by every checkout:
#   <infra>/tools/<tool>-<version>/<tool>   the binaries, one folder per pinned version
#   <infra>/bin/<tool>                      symlinks to the pinned versions (what goes on PATH)
# where <infra> is ${SVC_INFRA_DIR:-$HOME/.cache/svc-inbox/infra}, the same cache tests/infra/up.sh uses.
# A tool whose pinned version is already built is skipped (a second run takes well under a second).
# On success prints `export ...` lines on stdout (also written to tests/infra/.state/tools.env), so
# `eval "$(tests/infra/tools.sh)"` works; progress goes to stderr. Any failure exits non-zero and says what failed.
#
# Pins (bump here; a bump rebuilds into a new folder and the old one can be deleted):
#   helm      helm.sh/helm/v3                          `go install …/cmd/helm@VERSION` (plain module, no replaces).
#             v3.21.4 is the newest v3 release approved on this machine's Go proxy list (v3.22.0 is served but not
#             approved). helm v4 is not taken yet: skaffold v2.16.1's helm deployer is written against helm 3, and
#             v4 moves the ldflags packages (helm.sh/helm/v4/internal/version) below.
#   skaffold  github.com/GoogleContainerTools/skaffold  its go.mod has `replace` directives, which `go install
#             pkg@version` refuses, so the module is downloaded and `go build` runs inside a writable copy of it.
#             v2.16.1 is the newest release whose checksum the Go checksum database serves here (v2.19.0's lookup
#             returns 404, and checksum verification stays on).
# Env: SVC_INFRA_DIR (cache root), GO (go binary, default `go`), SVC_TOOLS_JOBS (go build -p, default nproc).
set -euo pipefail

HELM_VERSION=v3.21.4
SKAFFOLD_VERSION=v2.16.1
HELM_MODULE=helm.sh/helm/v3
SKAFFOLD_MODULE=github.com/GoogleContainerTools/skaffold/v2

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
STATE_DIR="$SCRIPT_DIR/.state"
ENV_FILE="$STATE_DIR/tools.env"
INFRA_DIR="${SVC_INFRA_DIR:-${HOME:-/root}/.cache/svc-inbox/infra}"
TOOLS_DIR="$INFRA_DIR/tools"
BIN_DIR="$INFRA_DIR/bin"
GO="${GO:-go}"
JOBS="${SVC_TOOLS_JOBS:-$(nproc 2>/dev/null || echo 2)}"

log() { printf '[tools] %s\n' "$*" >&2; }
die() { printf '\n[tools] FAILED: %s\n' "$*" >&2; exit 1; }

show_tail() {
  local file=$1
  printf '[tools] ---- last 40 lines of %s ----\n' "$file" >&2
  tail -n 40 "$file" >&2 || true
  printf '[tools] ---- end ----\n' >&2
}

command -v "$GO" >/dev/null 2>&1 || die "go is not installed (needed to build helm and skaffold from the Go module proxy)"
mkdir -p "$TOOLS_DIR" "$BIN_DIR" "$STATE_DIR" || die "cannot create $TOOLS_DIR (set SVC_INFRA_DIR to a writable place)"

# One run at a time per cache (two CI steps building skaffold at once would only waste the 2 cores).
exec 8>"$TOOLS_DIR/.lock"
flock -w 1800 8 || die "could not get the lock $TOOLS_DIR/.lock within 30 min (another tools.sh running?)"

# Module cache and build cache: Go's own (shared with every other Go build on the machine), unless set.
export GOFLAGS="${GOFLAGS:-} -buildvcs=false"
export CGO_ENABLED=0

# The Go module's go.mod path after download (fails loudly with Go's own message).
download_module() {
  local module=$1 version=$2 json err
  json=$("$GO" mod download -json "$module@$version" 2>&1) || true
  err=$(printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Error": "\(.*\)",\{0,1\}$/\1/p')
  [[ -z "$err" ]] || die "go mod download $module@$version: $err"
  printf '%s\n' "$json" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p'
}

# True when $1 exists and `$1 version` output contains the pinned version.
is_pinned() {
  local bin=$1 version=$2
  [[ -x "$bin" ]] && "$bin" version 2>/dev/null | grep -qF -- "$version"
}

link_bin() {
  local name=$1 target=$2
  ln -sfn "$target" "$BIN_DIR/$name.tmp" && mv -fT "$BIN_DIR/$name.tmp" "$BIN_DIR/$name"
}

install_helm() {
  local dest="$TOOLS_DIR/helm-$HELM_VERSION" dir client_go minor ldflags buildlog t0=$SECONDS
  if is_pinned "$dest/helm" "$HELM_VERSION"; then
    log "helm $HELM_VERSION: cached ($dest/helm)"
  else
    log "helm $HELM_VERSION: building from $HELM_MODULE (go install; about a minute on 2 cores)"
    dir=$(download_module "$HELM_MODULE" "$HELM_VERSION")
    # The Makefile's ldflags: the full version (the source only carries the minor version, e.g. "v3.21"), and the Kubernetes version that
    # `helm template`/`helm lint` assume without a cluster (client-go v0.N → 1.N), instead of the 1.20 fallback.
    client_go=$(sed -n 's/^[[:space:]]*k8s.io\/client-go v0\.\([0-9]*\)\..*/\1/p' "$dir/go.mod" | head -n1)
    [[ -n "$client_go" ]] || die "cannot read the k8s.io/client-go version from $dir/go.mod"
    minor=$client_go
    ldflags="-s -w -X helm.sh/helm/v3/internal/version.version=$HELM_VERSION"
    ldflags+=" -X helm.sh/helm/v3/internal/version.gitTreeState=clean"
    ldflags+=" -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/chartutil.k8sVersionMinor=$minor"
    ldflags+=" -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMajor=1 -X helm.sh/helm/v3/pkg/lint/rules.k8sVersionMinor=$minor"
    mkdir -p "$dest.partial"
    buildlog="$TOOLS_DIR/helm-$HELM_VERSION.build.log"
    if ! GOBIN="$dest.partial" "$GO" install -p "$JOBS" -trimpath -ldflags "$ldflags" \
      "$HELM_MODULE/cmd/helm@$HELM_VERSION" >"$buildlog" 2>&1; then
      show_tail "$buildlog"
      die "go install $HELM_MODULE/cmd/helm@$HELM_VERSION failed (log: $buildlog)"
    fi
    rm -rf "$dest" && mv "$dest.partial" "$dest"
    is_pinned "$dest/helm" "$HELM_VERSION" || die "built helm does not report version $HELM_VERSION: $("$dest/helm" version 2>&1)"
    log "helm $HELM_VERSION: built in $((SECONDS - t0))s"
  fi
  link_bin helm "$dest/helm"
}

install_skaffold() {
  local dest="$TOOLS_DIR/skaffold-$SKAFFOLD_VERSION" dir src ldflags buildlog t0=$SECONDS
  if is_pinned "$dest/skaffold" "$SKAFFOLD_VERSION"; then
    log "skaffold $SKAFFOLD_VERSION: cached ($dest/skaffold)"
  else
    log "skaffold $SKAFFOLD_VERSION: building from $SKAFFOLD_MODULE (go build in the module; several minutes on 2 cores)"
    dir=$(download_module "$SKAFFOLD_MODULE" "$SKAFFOLD_VERSION")
    # The module cache is read-only and `go build` may update go.sum under -mod=mod: build in a copy.
    src="$TOOLS_DIR/skaffold-$SKAFFOLD_VERSION.src"
    rm -rf "$src" && cp -R "$dir" "$src" && chmod -R u+w "$src" || die "cannot copy $dir to $src"
    ldflags="-s -w -X $SKAFFOLD_MODULE/pkg/skaffold/version.version=$SKAFFOLD_VERSION"
    ldflags+=" -X $SKAFFOLD_MODULE/pkg/skaffold/version.buildDate=1970-01-01T00:00:00Z"
    mkdir -p "$dest.partial"
    buildlog="$TOOLS_DIR/skaffold-$SKAFFOLD_VERSION.build.log"
    if ! (cd "$src" && GOFLAGS="$GOFLAGS -mod=mod" "$GO" build -p "$JOBS" -trimpath \
      -tags "timetzdata osusergo netgo" -ldflags "$ldflags" -o "$dest.partial/skaffold" ./cmd/skaffold) >"$buildlog" 2>&1; then
      show_tail "$buildlog"
      die "go build of $SKAFFOLD_MODULE@$SKAFFOLD_VERSION ./cmd/skaffold failed (log: $buildlog)"
    fi
    rm -rf "$dest" && mv "$dest.partial" "$dest" && rm -rf "$src"
    is_pinned "$dest/skaffold" "$SKAFFOLD_VERSION" \
      || die "built skaffold does not report version $SKAFFOLD_VERSION: $("$dest/skaffold" version 2>&1)"
    log "skaffold $SKAFFOLD_VERSION: built in $((SECONDS - t0))s"
  fi
  link_bin skaffold "$dest/skaffold"
}

install_helm
install_skaffold

{
  printf 'export PATH=%q:"$PATH"\n' "$BIN_DIR"
  printf 'export HELM_BIN=%q\n' "$BIN_DIR/helm"
  printf 'export SKAFFOLD_BIN=%q\n' "$BIN_DIR/skaffold"
} >"$ENV_FILE.tmp" && mv -f "$ENV_FILE.tmp" "$ENV_FILE"
cat "$ENV_FILE"
