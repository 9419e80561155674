# shellcheck shell=bash disable=SC2034  # variables are used by the scripts that source this
# Shared settings and helpers for tests/infra/{up,down,check}.sh. Not executable on its own.
# Callers set SCRIPT_DIR (the tests/infra dir) before sourcing.

STATE_DIR="$SCRIPT_DIR/.state"
ENV_FILE="$STATE_DIR/infra.env"

# down.sh / check.sh (which set USE_STATE_ENV=1) act on whatever up.sh started: they take its
# infra dir from the env file when the caller did not set SVC_INFRA_DIR. up.sh never does.
if [[ "${USE_STATE_ENV:-0}" == 1 && -z "${SVC_INFRA_DIR:-}" && -f "$ENV_FILE" ]]; then
  # shellcheck disable=SC1090
  SVC_INFRA_DIR="$(unset SVC_INFRA_DIR; . "$ENV_FILE" >/dev/null 2>&1; echo "${SVC_INFRA_DIR:-}")"
fi

INFRA_DIR="${SVC_INFRA_DIR:-${HOME:-/root}/.cache/svc-inbox/infra}"
MYSQL_PORT="${SVC_MYSQL_PORT:-33306}"
KAFKA_PORT="${SVC_KAFKA_PORT:-39092}"
KAFKA_CONTROLLER_PORT="${SVC_KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 1))}"
INFRA_TIMEOUT="${SVC_INFRA_TIMEOUT:-180}"   # seconds, per server

MARIADB_DIR="$INFRA_DIR/mariadb"
MY_CNF="$MARIADB_DIR/my.cnf"
MY_DATA="$MARIADB_DIR/data"
MY_SOCK="$MARIADB_DIR/mariadbd.sock"
MY_PID="$MARIADB_DIR/mariadbd.pid"
MY_LOG="$MARIADB_DIR/mariadbd.log"
MY_NEEDLE="--defaults-file=$MY_CNF"          # identifies our mariadbd in /proc/*/cmdline

KAFKA_DIR="$INFRA_DIR/kafka"
KAFKA_PROPS="$KAFKA_DIR/server.properties"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_LOGS="$KAFKA_DIR/logs"
KAFKA_PID="$KAFKA_DIR/kafka.pid"
KAFKA_STDOUT="$KAFKA_LOGS/stdout.log"
KAFKA_NEEDLE="kafka.Kafka $KAFKA_PROPS"      # identifies our broker in /proc/*/cmdline
KAFKA_LIB_ROOT="$INFRA_DIR/kafka-lib"
KAFKA_POM="$SCRIPT_DIR/kafka/pom.xml"
# JVM flags for the short-lived CLI tools (TopicCommand, console producer/consumer): start fast.
KAFKA_TOOL_JAVA_OPTS=(-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
  "-Dlog4j.configuration=file:$KAFKA_DIR/tools-log4j.properties")

log()  { printf '[infra] %s\n' "$*" >&2; }
die()  { printf '\n[infra] FAILED: %s\n' "$*" >&2; exit 1; }

# Print the last lines of a log file to stderr, under a header naming it.
show_tail() {
  local file=$1 n=${2:-40}
  if [[ -f "$file" ]]; then
    printf '[infra] ---- last %s lines of %s ----\n' "$n" "$file" >&2
    tail -n "$n" "$file" >&2 || true
    printf '[infra] ---- end of %s ----\n' "$file" >&2
  else
    printf '[infra] (no log file at %s)\n' "$file" >&2
  fi
}

# The full command line of a pid, args joined by spaces ('' if the process is gone).
cmdline_of() {
  local -a args=()
  [[ -r "/proc/$1/cmdline" ]] || return 0
  mapfile -d '' args < "/proc/$1/cmdline" 2>/dev/null || return 0
  printf '%s' "${args[*]}"
}

# Pids whose command line contains the exact substring $1 (never this shell itself).
find_pids() {
  local needle=$1 d pid cmd
  for d in /proc/[0-9]*; do
    pid=${d#/proc/}
    [[ "$pid" == "$$" || "$pid" == "${BASHPID:-}" ]] && continue
    cmd=$(cmdline_of "$pid")
    [[ -n "$cmd" && "$cmd" == *"$needle"* ]] && echo "$pid"
  done
  return 0
}

# Pid from a pid file, only if that process is alive and is really ours (matches needle).
pid_from_file() {
  local file=$1 needle=$2 pid
  [[ -s "$file" ]] || return 1
  pid=$(tr -dc '0-9' < "$file")
  [[ -n "$pid" ]] || return 1
  [[ "$(cmdline_of "$pid")" == *"$needle"* ]] || return 1
  echo "$pid"
}

# Our running server's pid: pid file first, else a /proc scan (pid file lost or stale).
our_pid() {
  local file=$1 needle=$2 pid
  if pid=$(pid_from_file "$file" "$needle"); then echo "$pid"; return 0; fi
  pid=$(find_pids "$needle" | head -n1)
  [[ -n "$pid" ]] && { echo "$pid"; return 0; }
  return 1
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# Human-readable description of whoever listens on 127.0.0.1:$1.
port_holder() {
  if command -v ss >/dev/null 2>&1; then
    ss -Hltnp "sport = :$1" 2>/dev/null || true
  else
    echo "(ss not available to tell which process)"
  fi
}

# Stop a pid: SIGTERM, wait up to $2 seconds, then SIGKILL. Only ever called with our own pids.
stop_pid() {
  local pid=$1 grace=${2:-30} name=${3:-process} deadline
  kill -0 "$pid" 2>/dev/null || return 0
  log "stopping $name (pid $pid)"
  kill -TERM "$pid" 2>/dev/null || true
  kill -CONT "$pid" 2>/dev/null || true   # in case it is stopped (SIGSTOP/^Z): let it see the TERM
  deadline=$((SECONDS + grace))
  while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name (pid $pid) still alive after ${grace}s, sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
    deadline=$((SECONDS + 10))
    while kill -0 "$pid" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.2; done
  fi
  ! kill -0 "$pid" 2>/dev/null
}

# Start "$@" detached: own session, stdin /dev/null, stdout+stderr appended to $1, and none of the
# caller's other file descriptors (a daemon holding e.g. a CI step's output pipe or our lock fd open
# would hang that step / block the next up.sh). Sets DAEMON_PID (same pid as the final program).
spawn_daemon() {
  local logfile=$1; shift
  (
    for fd in /proc/self/fd/*; do
      fd=${fd##*/}
      if [[ "$fd" =~ ^[0-9]+$ ]] && ((fd > 2)); then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
    exec setsid "$@" </dev/null >>"$logfile" 2>&1
  ) &
  DAEMON_PID=$!
}

find_bin() {  # first of the given names found on PATH or in the sbin dirs
  local name dir
  for name in "$@"; do
    if command -v "$name" >/dev/null 2>&1; then command -v "$name"; return 0; fi
    for dir in /usr/sbin /sbin /usr/local/sbin; do
      [[ -x "$dir/$name" ]] && { echo "$dir/$name"; return 0; }
    done
  done
  return 1
}

# Kafka version from the POM, and the cache dir of its jars (keyed by the POM's hash, so any
# edit of the POM gets a fresh, complete download).
kafka_version() { sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$KAFKA_POM" | head -n1; }
kafka_lib_dir() {
  local h
  h=$(sha256sum "$KAFKA_POM" | cut -c1-12)
  echo "$KAFKA_LIB_ROOT/$(kafka_version)-$h"
}
