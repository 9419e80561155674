#!/usr/bin/env bash
# The deploy suite (`bash tests/deploy/run.sh`): installs the pinned helm and skaffold (tests/infra/tools.sh, cached
# after the first run), compiles the tests workspace, then runs tests/dist/deploy/*.test.js with mocha:
# helm lint, helm template with default / production / dev values validated against the Kubernetes schemas, wrong
# values rejected, every deployable's Dockerfile + values block + probes + NetworkPolicy, skaffold render --offline.
# Needs no cluster, registry or Docker engine. Set SVC_DEPLOY_NO_BUILD=1 to skip `tsc -b tests` (already built).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"

if ! bash tests/infra/tools.sh >/dev/null; then
  echo "test:deploy: FAILED to install helm/skaffold (see the messages above); nothing was skipped" >&2
  exit 1
fi
# shellcheck disable=SC1091
. tests/infra/.state/tools.env
export HELM_BIN SKAFFOLD_BIN

if [[ "${SVC_DEPLOY_NO_BUILD:-0}" != 1 ]]; then
  npx tsc -b tests
fi
exec npx mocha --timeout 180000 'tests/dist/deploy/**/*.test.js'
