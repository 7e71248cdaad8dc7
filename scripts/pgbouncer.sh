#!/usr/bin/env bash
# PgBouncer (Debian's, 1.18) in transaction mode on a free 127.0.0.1 port, in front of the machine's
# PostgreSQL (127.0.0.1:5432, trust auth): every database of the server under its own name, all
# state (config, log, pid) in one directory, and the pooler's URL written to "$DIR/env" for the
# caller to source. The topology integration test starts and stops it; so can a person running the
# e2e suites through it (README, "At scale").
#
#   scripts/pgbouncer.sh start DIR   # needs: apt-get install -y --no-install-recommends pgbouncer
#   scripts/pgbouncer.sh stop DIR    # stops PgBouncer and removes DIR
set -euo pipefail
command=${1:-}
C=${2:-}
UPSTREAM_HOST=${PGBOUNCER_UPSTREAM_HOST:-127.0.0.1}
UPSTREAM_PORT=${PGBOUNCER_UPSTREAM_PORT:-5432}
if [[ -z "$command" || -z "$C" ]]; then
  echo "usage: $0 start|stop DIR" >&2
  exit 2
fi

stop() {
  if [[ -f "$C/pgbouncer.pid" ]]; then
    local pid
    pid=$(cat "$C/pgbouncer.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$C"
}

if [[ "$command" == stop ]]; then
  stop
  exit 0
fi
[[ "$command" == start ]] || { echo "unknown command $command" >&2; exit 2; }
PGBOUNCER=$(command -v pgbouncer || echo /usr/sbin/pgbouncer)
[[ -x "$PGBOUNCER" ]] || { echo "pgbouncer is missing: apt-get install -y --no-install-recommends pgbouncer" >&2; exit 1; }

mkdir -p "$C"
# A port the system has just handed out and taken back: free, short of a race with another listener.
PORT=${PGBOUNCER_PORT:-$(node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })')}
echo '"postgres" ""' > "$C/userlist.txt"
cat > "$C/pgbouncer.ini" <<CONF
[databases]
* = host=$UPSTREAM_HOST port=$UPSTREAM_PORT

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = $PORT
unix_socket_dir =
auth_type = trust
auth_file = $C/userlist.txt
admin_users = postgres
pool_mode = transaction
; Server connections per database and user: what the processes behind it share.
default_pool_size = 20
max_client_conn = 1000
; pg sends none of these, but a client library might; the service's own are refused (see data-source-options.ts).
ignore_startup_parameters = extra_float_digits
logfile = $C/pgbouncer.log
pidfile = $C/pgbouncer.pid
CONF

# PgBouncer refuses to run as root: it then runs as postgres, which must read and write the directory.
as_user=()
if [[ $(id -u) == 0 ]]; then
  chown -R postgres "$C"
  as_user=(-u postgres)
fi
"$PGBOUNCER" -d "${as_user[@]}" "$C/pgbouncer.ini"

for _ in $(seq 1 50); do
  if pg_isready -q -h 127.0.0.1 -p "$PORT" -d pgbouncer; then
    echo "export PGBOUNCER_PORT=$PORT PGBOUNCER_URL=postgres://postgres@127.0.0.1:$PORT" > "$C/env"
    exit 0
  fi
  sleep 0.1
done
echo "PgBouncer did not answer on 127.0.0.1:$PORT; its log:" >&2
cat "$C/pgbouncer.log" >&2 || true
stop
exit 1
