#!/usr/bin/env bash
# Smoke check of what tests/infra/up.sh started, using the env it wrote:
#   MariaDB: SELECT VERSION() as svc over TCP, plus create/use/drop a database (grants, utf8mb4).
#   Kafka:   create a topic, produce one message and consume it back with Kafka's own CLI classes.
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
USE_STATE_ENV=1
# shellcheck source=lib.sh
source "$SCRIPT_DIR/lib.sh"

[[ -f "$ENV_FILE" ]] || die "no $ENV_FILE: run tests/infra/up.sh first"
# shellcheck disable=SC1090
source "$ENV_FILE"
T0=$SECONDS

# ---- MariaDB ----------------------------------------------------------------------------------
[[ "$SVC_TEST_MYSQL_URL" =~ ^mysql://([^:]+):([^@]*)@([^:/]+):([0-9]+)/?$ ]] \
  || die "cannot parse SVC_TEST_MYSQL_URL='$SVC_TEST_MYSQL_URL'"
DB_USER=${BASH_REMATCH[1]} DB_PASS=${BASH_REMATCH[2]} DB_HOST=${BASH_REMATCH[3]} DB_PORT=${BASH_REMATCH[4]}
MYSQL_CLIENT=$(find_bin mariadb mysql) || die "MariaDB client (mariadb) not found: run tests/infra/up.sh"
sql() { "$MYSQL_CLIENT" --no-defaults --protocol=TCP -h"$DB_HOST" -P"$DB_PORT" -u"$DB_USER" -p"$DB_PASS" \
          --default-character-set=utf8mb4 --connect-timeout=5 -N -s "$@"; }

version=$(sql -e 'SELECT VERSION()') || die "MariaDB: SELECT VERSION() as $DB_USER@$DB_HOST:$DB_PORT failed"
db="svc_test_check_$$_$RANDOM"
trap 'sql -e "DROP DATABASE IF EXISTS \`$db\`" >/dev/null 2>&1 || true' EXIT
got=$(sql -e "CREATE DATABASE \`$db\`;
  CREATE TABLE \`$db\`.t (s VARCHAR(16)) ;
  INSERT INTO \`$db\`.t VALUES ('ok-✓-😀');
  SELECT CONCAT_WS(' ', s, @@character_set_server, @@collation_server, @@max_connections) FROM \`$db\`.t;
  DROP DATABASE \`$db\`;") || die "MariaDB: create/insert/drop database $db as $DB_USER failed"
[[ "$got" == "ok-✓-😀 utf8mb4 utf8mb4_unicode_ci 500" ]] || die "MariaDB: unexpected round trip/settings: '$got'"
log "MariaDB OK: VERSION()=$version; utf8mb4 round trip + CREATE/DROP DATABASE as $DB_USER"

# ---- Kafka ------------------------------------------------------------------------------------
KAFKA_LIB=$(kafka_lib_dir)
[[ -f "$KAFKA_LIB/.complete" ]] || die "Kafka jars not found in $KAFKA_LIB: run tests/infra/up.sh"
command -v java >/dev/null 2>&1 || die "java not found"
kt() { timeout 90 java "${KAFKA_TOOL_JAVA_OPTS[@]}" -cp "$KAFKA_LIB/*" "$@"; }
BROKERS=$SVC_TEST_KAFKA_BROKERS
topic="svc-infra-check-$(date +%s)-$RANDOM"
msg="hello-from-check-$$-$RANDOM"
out=$(mktemp); trap 'rm -f "$out"' EXIT   # (the database is already dropped)

kt org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKERS" --command-config "$KAFKA_DIR/admin.properties" \
   --create --topic "$topic" --partitions 3 --replication-factor 1 >"$out" 2>&1 \
  || { cat "$out" >&2; die "Kafka: creating topic $topic failed"; }
printf '%s\n' "$msg" | kt kafka.tools.ConsoleProducer --bootstrap-server "$BROKERS" --topic "$topic" \
   --producer-property acks=all >"$out" 2>&1 \
  || { cat "$out" >&2; die "Kafka: producing to $topic failed"; }
got=$(kt org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$BROKERS" --topic "$topic" \
   --from-beginning --max-messages 1 --timeout-ms 30000 2>"$out") \
  || { cat "$out" >&2; die "Kafka: consuming from $topic failed"; }
[[ "$got" == "$msg" ]] || { cat "$out" >&2; die "Kafka: consumed '$got', expected '$msg'"; }
kt org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKERS" --command-config "$KAFKA_DIR/admin.properties" \
   --delete --topic "$topic" >"$out" 2>&1 \
  || { cat "$out" >&2; die "Kafka: deleting topic $topic failed"; }
log "Kafka OK: created $topic, produced + consumed '$msg', deleted it ($BROKERS)"
log "check passed in $((SECONDS - T0))s"
