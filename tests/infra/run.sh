#!/usr/bin/env bash
# `npm run test:infra`: the same service and end-to-end suites as `npm test`, on the production parts — a real
# MariaDB and a real Apache Kafka (KRaft) provisioned by tests/infra/up.sh — plus the MySQL-family migration check
# and the Kubernetes packaging rendered with the real (pinned) helm and skaffold (tests/deploy).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"

if ! bash "$here/up.sh" >/dev/null; then
  echo "test:infra: FAILED to provision MariaDB/Kafka (see the messages above); nothing was skipped" >&2
  exit 1
fi
# shellcheck disable=SC1091
. "$here/.state/infra.env"
: "${SVC_TEST_MYSQL_URL:?up.sh did not export SVC_TEST_MYSQL_URL}"
: "${SVC_TEST_KAFKA_BROKERS:?up.sh did not export SVC_TEST_KAFKA_BROKERS}"
export SVC_TEST_MYSQL_URL SVC_TEST_KAFKA_BROKERS
echo "test:infra: MariaDB at ${SVC_TEST_MYSQL_URL%%@*}@… Kafka at $SVC_TEST_KAFKA_BROKERS"

npm run build --silent
MIGRATIONS_MYSQL_URL="${SVC_TEST_MYSQL_URL/mysql:/mariadb:}" npm run migrations:check --silent
npm run test:unit --silent
npm run test:e2e --silent

# The Kubernetes packaging, rendered and validated with the real (pinned) helm and skaffold.
npm run test:deploy --silent
