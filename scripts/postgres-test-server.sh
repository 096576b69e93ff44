# A throwaway PostgreSQL server for the run store's tests: sourced by
# scripts/test-integrations.sh (and usable by hand: `source scripts/postgres-test-server.sh;
# pg_test_server_start; ...; pg_test_server_stop`).
#
#   pg_test_server_start  installs Debian's postgresql-15 when its initdb is missing
#                         (apt-get install -y --no-install-recommends postgresql-15), makes a
#                         cluster in a new temporary folder (initdb and pg_ctl run as the
#                         `postgres` user through runuser when this runs as root: initdb refuses
#                         root), listening on a Unix socket in that folder only (no TCP:
#                         listen_addresses=''), creates the database `earlyexit`, and exports
#                         EARLYEXIT_TEST_POSTGRES=postgresql://postgres@/earlyexit?host=FOLDER.
#                         Local connections are trusted, but for the role earlyexit_pw, which
#                         logs in with a password (the wrong-password test).
#   pg_test_server_stop   stops it (fast shutdown) and removes the folder.
# Returns non-zero, saying why, when the server cannot be had.

PG_TEST_BIN=${PG_TEST_BIN:-/usr/lib/postgresql/15/bin}
PG_TEST_DIR=

pg_test_as_owner() {
  if [ "$(id -u)" = 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

pg_test_server_start() {
  if [ ! -x "$PG_TEST_BIN/initdb" ]; then
    echo "postgres-test-server: installing postgresql-15 (Debian)"
    if [ "$(id -u)" != 0 ]; then
      echo "postgres-test-server: $PG_TEST_BIN/initdb is missing and this is not root: apt-get install postgresql-15" >&2
      return 1
    fi
    { DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 ||
      { apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15; }; } >/dev/null ||
      { echo "postgres-test-server: apt-get install postgresql-15 failed" >&2; return 1; }
  fi
  PG_TEST_DIR=$(mktemp -d /tmp/earlyexit-pg.XXXXXX) || return 1
  if [ "$(id -u)" = 0 ]; then chown postgres "$PG_TEST_DIR" || return 1; fi
  pg_test_as_owner "$PG_TEST_BIN/initdb" -D "$PG_TEST_DIR/data" -U postgres --auth=trust -E UTF8 --no-sync \
    >"$PG_TEST_DIR/initdb.log" 2>&1 || { cat "$PG_TEST_DIR/initdb.log" >&2; return 1; }
  pg_test_as_owner sh -c "printf 'local all earlyexit_pw scram-sha-256\n' | cat - '$PG_TEST_DIR/data/pg_hba.conf' >'$PG_TEST_DIR/hba' && mv '$PG_TEST_DIR/hba' '$PG_TEST_DIR/data/pg_hba.conf'" ||
    return 1
  pg_test_as_owner "$PG_TEST_BIN/pg_ctl" -D "$PG_TEST_DIR/data" -l "$PG_TEST_DIR/server.log" -w -s \
    -o "-c listen_addresses='' -k $PG_TEST_DIR -c fsync=off -c max_connections=100" start ||
    { cat "$PG_TEST_DIR/server.log" >&2; return 1; }
  pg_test_as_owner "$PG_TEST_BIN/psql" -h "$PG_TEST_DIR" -U postgres -d postgres -q -c "CREATE DATABASE earlyexit" ||
    return 1
  export EARLYEXIT_TEST_POSTGRES="postgresql://postgres@/earlyexit?host=$PG_TEST_DIR"
  echo "postgres-test-server: PostgreSQL $("$PG_TEST_BIN/postgres" --version | awk '{print $3}') on $PG_TEST_DIR (Unix socket only)"
}

pg_test_server_stop() {
  [ -n "$PG_TEST_DIR" ] || return 0
  pg_test_as_owner "$PG_TEST_BIN/pg_ctl" -D "$PG_TEST_DIR/data" -m fast -w -s stop >/dev/null 2>&1 || true
  rm -rf "$PG_TEST_DIR"
  PG_TEST_DIR=
  unset EARLYEXIT_TEST_POSTGRES
}
