#!/usr/bin/env bash
# Stop the MariaDB and Kafka started by tests/infra/up.sh (by their pid files; a server whose pid
# file is lost is still found by its exact config path in /proc). Idempotent. Keeps the caches
# (Kafka jars, MariaDB install, datadirs) so the next up.sh is fast.
#   --purge   also delete the MariaDB datadir and Kafka data/logs (jars and apt install stay).
set -euo pipefail

SCRIPT_DIR="$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)"
USE_STATE_ENV=1
# shellcheck source=lib.sh
source "$SCRIPT_DIR/lib.sh"

PURGE=0
case "${1:-}" in
  "") ;;
  --purge) PURGE=1 ;;
  *) die "usage: $0 [--purge]" ;;
esac

if [[ ! -d "$INFRA_DIR" ]]; then
  log "nothing to stop: $INFRA_DIR does not exist"
  rm -f "$ENV_FILE"
  exit 0
fi

exec 9>"$INFRA_DIR/.lock"
flock -w 600 9 || die "could not get the lock $INFRA_DIR/.lock within 600s (another up.sh/down.sh running?)"

stop_server() {
  local name=$1 pidfile=$2 needle=$3 grace=$4 pid pids=()
  if pid=$(pid_from_file "$pidfile" "$needle"); then pids+=("$pid"); fi
  while read -r pid; do
    [[ -n "$pid" && " ${pids[*]} " != *" $pid "* ]] && pids+=("$pid")
  done < <(find_pids "$needle")
  if ((${#pids[@]} == 0)); then
    log "$name: not running"
  fi
  for pid in "${pids[@]}"; do
    stop_pid "$pid" "$grace" "$name" || die "$name: pid $pid would not die"
  done
  rm -f "$pidfile"
}

stop_server kafka "$KAFKA_PID" "$KAFKA_NEEDLE" 60
stop_server mariadb "$MY_PID" "$MY_NEEDLE" 60
rm -f "$MY_SOCK" "$MY_SOCK.lock" "$ENV_FILE"

if ((PURGE)); then
  log "purging data: $MY_DATA $KAFKA_DATA $KAFKA_LOGS (keeping $KAFKA_LIB_ROOT)"
  rm -rf "$MY_DATA" "$MY_LOG" "$KAFKA_DATA" "$KAFKA_LOGS"
fi
log "down (caches kept under $INFRA_DIR)"
