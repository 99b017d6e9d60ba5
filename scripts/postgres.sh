#!/usr/bin/env bash
# PostgreSQL 15 + pgvector for the tests, CI and developers: installs the server, builds pgvector,
# and starts or stops a throwaway cluster in a directory of its own.
#
#   scripts/postgres.sh setup [--force | --build-only]
#   scripts/postgres.sh start [dir]    (dir defaults to a new `mktemp -d`)
#   scripts/postgres.sh stop <dir>     (stops it and deletes the directory)
#   scripts/postgres.sh replica <primary-dir> [dir]
#                                      (a hot standby of a cluster that `start` made, on a port of
#                                       its own; stop it with `stop <dir>` like any other)
#   scripts/postgres.sh dev            (npm run postgres:dev: setup, start .quiver/postgres, and
#                                       print `export QUIVER_TEST_POSTGRES_URL=…`)
#
# `start` prints the connection URL as the last line on stdout (progress goes to stderr), so
# `url=$(scripts/postgres.sh start "$dir")` captures just the URL. The cluster directory holds:
#   data/     the cluster (initdb), owned by the user the server runs as
#   log       the server's log
#   url       the connection URL, one line
#   state     url=…, port=…, data=… (what `stop` reads)
#   initdb.log, psql.log   kept only when a step failed
#   .s.PGSQL.<port>   the Unix socket (psql -h <dir> -p <port> -U postgres)
# Authentication is `trust` for the socket and 127.0.0.1 only: a test cluster, never exposed.
# fsync, synchronous_commit and full_page_writes are off: a crash loses the cluster, which is
# thrown away anyway, and writes get several times faster.
#
# pgvector: `start` runs CREATE EXTENSION vector in template1 (so every database created later has
# it already) and in `postgres`. The test harness (src/store/postgres/_test-database.ts) still runs
# `CREATE EXTENSION IF NOT EXISTS vector` in each database it creates, so it also works against a
# server that this script did not start.
#
# PostgreSQL refuses to run as root: as root the server runs as the `postgres` user (runuser) and
# the directory is handed to it, so that user must be able to reach the directory (every parent
# traversable, as /tmp and the checkout are).
set -euo pipefail

PG_MAJOR=15
PG_BIN=/usr/lib/postgresql/$PG_MAJOR/bin
PG_CONFIG=$PG_BIN/pg_config
FIRST_PORT=54329 # the dev cluster's port; a taken port is skipped, up to FIRST_PORT + PORT_TRIES - 1
PORT_TRIES=100

say() { echo "postgres.sh: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

# Runs a command as root (directly, or through sudo for a developer), for apt-get and `make install`.
as_root() {
  if [ "$(id -u)" = 0 ]; then
    "$@"
  elif command -v sudo >/dev/null; then
    sudo "$@"
  else
    die "need root for: $* (run as root, or install it yourself)"
  fi
}

# Runs a command as the user the server runs as: `postgres` when we are root, else ourselves.
as_server_user() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# apt-get quietly, its output kept in a log that is shown only when it fails.
# Temp files and dirs to delete when the script exits, however it exits.
CLEANUP=()
trap 'rm -rf "${CLEANUP[@]}"' EXIT
APT_LOG=$(mktemp -t quiver-apt.XXXXXX)
CLEANUP+=("$APT_LOG")
apt_quiet() {
  if ! DEBIAN_FRONTEND=noninteractive as_root apt-get -y -q "$@" >"$APT_LOG" 2>&1; then
    tail -n 20 "$APT_LOG" >&2
    die "apt-get $* failed"
  fi
}
APT_UPDATED=0
apt_update_once() {
  [ "$APT_UPDATED" = 1 ] && return
  say "apt-get update"
  apt_quiet update
  APT_UPDATED=1
}

# The Debian mirror this machine already uses, so the private source list below fetches from the
# same place (a local mirror or proxy keeps working). Read from the deb822 *.sources files
# (`URIs:` of a stanza whose `Suites:` has a suite that is not -security) or the one-line format
# (`deb [options] URI suite …`); falls back to deb.debian.org.
debian_mirror() {
  local uri=""
  if compgen -G '/etc/apt/sources.list.d/*.sources' >/dev/null; then
    # awk: stanzas end at a blank line or a file's end; print the first stanza's URI that is a
    # …/debian path, with a suite that is not -security, and not `Enabled: no`.
    uri=$(awk '
      function flush() { if (ok && !off && u != "" && !done) { print u; done = 1 }; u = ""; ok = off = 0 }
      done { exit }
      FNR == 1 || /^[ \t]*$/ { flush() }
      /^Enabled:[ \t]*no/ { off = 1 }
      /^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /\/debian\/?$/) { u = $i; break } }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i !~ /-security$/) ok = 1 }
      END { flush() }' /etc/apt/sources.list.d/*.sources)
  fi
  if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
    # Drop an optional `[ … ]` options block, then take the URI of the first non-security line.
    uri=$(sed -E -n 's/^deb(-src)?[ \t]+(\[[^]]*\][ \t]+)?([^ \t]+)[ \t]+([^ \t]+).*/\3 \4/p' \
      /etc/apt/sources.list | awk '$2 !~ /-security$/ && $1 ~ /\/debian\/?$/ { print $1; exit }')
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

# Builds pgvector from Debian trixie's source package (bookworm has none) and installs it into
# $PG_CONFIG's directories unless $1 is "no-install". The private source list and apt state live in
# a temp dir, so the machine's own apt configuration never sees trixie. OPTFLAGS="" drops
# pgvector's default -march=native, so the library runs on any x86-64 machine, not only this CPU.
build_pgvector() {
  local install=$1 mirror tmp src
  apt_update_once
  say "installing postgresql-server-dev-$PG_MAJOR and build tools"
  apt_quiet install --no-install-recommends "postgresql-server-dev-$PG_MAJOR" build-essential dpkg-dev
  mirror=$(debian_mirror)
  tmp=$(mktemp -d -t quiver-pgvector.XXXXXX)
  CLEANUP+=("$tmp")
  mkdir -p "$tmp/lists/partial" "$tmp/cache/archives/partial"
  echo "deb-src $mirror trixie main" >"$tmp/sources.list"
  # Dir::Cache keeps apt's package cache (which would list trixie's sources) out of /var/cache;
  # APT::Sandbox::User=root because the _apt user cannot write into a private 0700 temp dir.
  local apt_private=(-o "Dir::Etc::SourceList=$tmp/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$tmp/lists" -o "Dir::Cache=$tmp/cache" -o APT::Sandbox::User=root)
  say "fetching pgvector's source package from $mirror trixie"
  apt_quiet "${apt_private[@]}" update
  (cd "$tmp" && apt_quiet "${apt_private[@]}" source --download-only pgvector)
  local dsc
  dsc=$(find "$tmp" -maxdepth 1 -name 'pgvector_*.dsc' | head -n 1)
  [ -n "$dsc" ] || die "apt-get source pgvector downloaded no .dsc"
  (cd "$tmp" && dpkg-source -q -x "$dsc" src >/dev/null 2>&1) || die "dpkg-source -x $dsc failed"
  src=$tmp/src
  say "building $(basename "$dsc" .dsc)"
  if ! make -C "$src" PG_CONFIG="$PG_CONFIG" OPTFLAGS="" >"$tmp/make.log" 2>&1; then
    tail -n 20 "$tmp/make.log" >&2
    die "building pgvector failed"
  fi
  if [ "$install" = no-install ]; then
    say "built vector.so from $(basename "$dsc" .dsc) (--build-only: not installed)"
    return
  fi
  if ! as_root make -C "$src" PG_CONFIG="$PG_CONFIG" install >"$tmp/install.log" 2>&1; then
    tail -n 20 "$tmp/install.log" >&2
    die "installing pgvector failed"
  fi
  say "installed pgvector into $("$PG_CONFIG" --pkglibdir)"
}

# setup: the server binaries from Debian, then pgvector unless it is installed already.
# --force rebuilds and reinstalls pgvector; --build-only rebuilds it in a temp dir and installs
# nothing (to check the build on a machine that has it).
cmd_setup() {
  local mode=${1:-}
  case "$mode" in "" | --force | --build-only) ;; *) die "setup: unknown option $mode" ;; esac
  if [ ! -x "$PG_BIN/postgres" ] || [ ! -x "$PG_CONFIG" ]; then
    apt_update_once
    say "installing postgresql-$PG_MAJOR"
    apt_quiet install --no-install-recommends "postgresql-$PG_MAJOR"
  fi
  [ -x "$PG_BIN/postgres" ] || die "no PostgreSQL $PG_MAJOR server at $PG_BIN after installing it"
  say "PostgreSQL: $("$PG_BIN/postgres" --version)"
  local so
  so="$("$PG_CONFIG" --pkglibdir)/vector.so"
  if [ -f "$so" ] && [ -z "$mode" ]; then
    say "pgvector: $so"
  elif [ "$mode" = --build-only ]; then
    build_pgvector no-install
  else
    build_pgvector install
  fi
}

# A loopback port nothing answers on. Bash's /dev/tcp connect succeeds only if something listens.
# Another process can still take it before the server binds, so `start` retries on a bind failure.
port_is_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

cmd_start() {
  local dir=${1:-} created=0
  [ -x "$PG_BIN/initdb" ] || die "no PostgreSQL $PG_MAJOR at $PG_BIN (run: scripts/postgres.sh setup)"
  [ -f "$("$PG_CONFIG" --pkglibdir)/vector.so" ] \
    || die "pgvector is not installed (run: scripts/postgres.sh setup)"
  if [ -z "$dir" ]; then
    dir=$(mktemp -d -t quiver-postgres.XXXXXX)
    created=1
  fi
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  # pg_ctl hands the server's options to a shell, where the dir is single-quoted below.
  case "$dir" in *"'"*) die "start: the directory's path must not contain a single quote: $dir" ;; esac
  local data=$dir/data
  # Already running from an earlier `start` (npm run postgres:dev twice): print its URL again.
  if [ -f "$dir/url" ] && [ -f "$data/postmaster.pid" ] \
    && as_server_user "$PG_BIN/pg_ctl" -D "$data" status >/dev/null 2>&1; then
    say "already running in $dir"
    cat "$dir/url"
    return
  fi
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  if [ ! -f "$data/PG_VERSION" ]; then
    say "initdb in $data"
    # --no-sync: initdb's own fsync of the new cluster, pointless for a throwaway one.
    (cd "$dir" && as_server_user "$PG_BIN/initdb" -D "$data" -U postgres --auth=trust \
      --encoding=UTF8 --locale=C.UTF-8 --no-sync >"$dir/initdb.log" 2>&1) \
      || {
        tail -n 20 "$dir/initdb.log" >&2
        die "initdb failed (is $dir reachable by the server's user?)"
      }
  fi
  # -k: the Unix socket goes in the cluster dir (its path must stay under the kernel's 107 bytes,
  # so a very deep dir fails here with "path is too long" in the log).
  local port
  port=$(start_on_free_port "$dir" "$data" "$FIRST_PORT" "the server" \
    "-k '$dir' -c fsync=off -c synchronous_commit=off -c full_page_writes=off") || exit 1
  local url="postgres://postgres@127.0.0.1:$port/postgres"
  for db in template1 postgres; do
    "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -h "$dir" -p "$port" -U postgres -d "$db" \
      -c 'CREATE EXTENSION IF NOT EXISTS vector' >/dev/null 2>"$dir/psql.log" \
      || {
        cat "$dir/psql.log" >&2
        die "CREATE EXTENSION vector failed in $db (cluster left running in $dir)"
      }
  done
  rm -f "$dir/initdb.log" "$dir/psql.log"
  echo "$url" >"$dir/url"
  printf 'url=%s\nport=%s\ndata=%s\n' "$url" "$port" "$data" >"$dir/state"
  say "started in $dir (port $port, socket $dir/.s.PGSQL.$port)$([ "$created" = 1 ] && echo "; stop with: scripts/postgres.sh stop $dir")"
  echo "$url"
}

cmd_stop() {
  local dir=${1:-}
  [ -n "$dir" ] || die "stop: which cluster? pass the directory given to (or made by) start"
  [ -d "$dir" ] || die "stop: no directory $dir"
  dir=$(cd "$dir" && pwd)
  # Removing the directory is the point, so make sure it is one of ours first.
  [ -f "$dir/state" ] || [ -f "$dir/data/PG_VERSION" ] \
    || die "stop: $dir does not look like a cluster made by start (no state or data/PG_VERSION); not removing it"
  if [ -f "$dir/data/postmaster.pid" ]; then
    # -m fast: roll back open transactions and disconnect clients instead of waiting for them.
    as_server_user "$PG_BIN/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >/dev/null 2>&1 \
      || say "warning: pg_ctl stop failed (was it running?)"
  fi
  rm -rf "$dir"
  say "stopped and removed $dir"
}

# start_on_free_port <dir> <data> <first-port> <what> <server options>: start the cluster in <data>
# on 127.0.0.1 at the first free port from <first-port> up to FIRST_PORT + PORT_TRIES - 1, with its
# log in <dir>/log; prints the port. pg_ctl -w returns once the server accepts connections. A port
# taken between the check and the bind is skipped; any other failure is final.
start_on_free_port() {
  local dir=$1 data=$2 port=$3 what=$4 options=$5 last=$((FIRST_PORT + PORT_TRIES - 1))
  while [ "$port" -le "$last" ]; do
    if port_is_free "$port"; then
      rm -f "$dir/log" # the server's user must create it; and a stale bind error must not linger
      if (cd "$dir" && as_server_user "$PG_BIN/pg_ctl" -D "$data" -l "$dir/log" -w -t 60 \
        -o "-p $port -c listen_addresses=127.0.0.1 $options" start >/dev/null 2>&1); then
        echo "$port"
        return
      fi
      grep -q 'could not bind\|Address already in use' "$dir/log" 2>/dev/null \
        || {
          tail -n 20 "$dir/log" >&2 2>/dev/null || true
          die "$what did not start (log: $dir/log)"
        }
    fi
    port=$((port + 1))
  done
  die "no free port for $what up to $last"
}

# replica: a hot standby of the running cluster in <primary-dir> (made by `start`): pg_basebackup
# -R (streaming replication, primary_conninfo pointing at the primary's socket) into [dir]/data,
# started on the next free port. A cluster from `start` can be a primary as it is: PostgreSQL 15
# defaults to wal_level=replica and 10 WAL senders, and initdb's trust rules include replication
# connections over the socket. Prints the standby's URL last, like `start`; its directory has the
# same files (url, state, log), so `stop` stops it.
cmd_replica() {
  local primary=${1:-} dir=${2:-}
  [ -n "$primary" ] && [ -f "$primary/state" ] \
    || die "replica: pass the directory of a cluster made by start (no ${primary:-<primary-dir>}/state)"
  primary=$(cd "$primary" && pwd)
  local primary_port
  primary_port=$(sed -n 's/^port=//p' "$primary/state")
  [ -n "$dir" ] || dir=$(mktemp -d -t quiver-postgres-replica.XXXXXX)
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  [ ! -e "$dir/data" ] || die "replica: $dir/data exists already"
  [ "$(id -u)" = 0 ] && chown postgres: "$dir"
  say "pg_basebackup of $primary (port $primary_port) into $dir/data"
  # -X stream: WAL streamed alongside, so the copy is consistent; -c fast: an immediate checkpoint.
  (cd "$dir" && as_server_user "$PG_BIN/pg_basebackup" -D "$dir/data" -h "$primary" -p "$primary_port" \
    -U postgres -R -X stream -c fast --no-sync >"$dir/basebackup.log" 2>&1) \
    || {
      tail -n 20 "$dir/basebackup.log" >&2
      die "pg_basebackup failed"
    }
  local port
  port=$(start_on_free_port "$dir" "$dir/data" $((primary_port + 1)) "the standby" \
    "-k $dir -c fsync=off -c hot_standby=on") || exit 1
  local url="postgres://postgres@127.0.0.1:$port/postgres"
  echo "$url" >"$dir/url"
  printf 'url=%s\nport=%s\ndata=%s\nprimary=%s\n' "$url" "$port" "$dir/data" "$primary" >"$dir/state"
  say "standby of $primary started in $dir (port $port)"
  echo "$url"
}

# dev: setup, then a cluster in .quiver/postgres (ignored by git, kept between runs), and the line
# that points the tests at it.
cmd_dev() {
  local root url
  root=$(cd "$(dirname "$0")/.." && pwd)
  cmd_setup
  url=$(cmd_start "$root/.quiver/postgres")
  say "stop it (and delete its data) with: scripts/postgres.sh stop .quiver/postgres"
  echo "export QUIVER_TEST_POSTGRES_URL=$url"
}

case "${1:-}" in
  setup) cmd_setup "${2:-}" ;;
  start) cmd_start "${2:-}" ;;
  stop) cmd_stop "${2:-}" ;;
  replica) cmd_replica "${2:-}" "${3:-}" ;;
  dev) cmd_dev ;;
  *)
    echo "usage: scripts/postgres.sh setup [--force|--build-only] | start [dir] | stop <dir> | replica <primary-dir> [dir] | dev" >&2
    exit 2
    ;;
esac
