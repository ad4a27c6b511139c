# Sourced by tools/*.sh: start a private, throwaway PostgreSQL cluster for one script.
#   source tools/throwaway_cluster.sh; start_throwaway_cluster DBNAME
# initdb runs as the postgres OS user when we are root (initdb refuses root); pg_cron is
# preloaded with cron.database_name = DBNAME; fsync is off. Exports PGHOST, PGPORT, PGUSER,
# PGDATABASE for psql, creates DBNAME, and stops and deletes the cluster on exit.

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start_throwaway_cluster() {
  local db=$1 bin port
  bin=$(pg_config --bindir)
  CLUSTER_DIR=$(mktemp -d /tmp/pgflow-cluster.XXXXXX)
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  [ "$(id -u)" = 0 ] && chown postgres "$CLUSTER_DIR"
  chmod 755 "$CLUSTER_DIR"
  CLUSTER_BIN=$bin
  trap stop_throwaway_cluster EXIT
  (cd / && as_pg "$bin/initdb" -D "$CLUSTER_DIR/data" -U postgres --auth=trust >/dev/null)
  cat >>"$CLUSTER_DIR/data/postgresql.conf" <<CONF
port = $port
listen_addresses = '127.0.0.1'
unix_socket_directories = '$CLUSTER_DIR'
shared_preload_libraries = 'pg_cron'
cron.database_name = '$db'
fsync = off
synchronous_commit = off
full_page_writes = off
CONF
  (cd / && as_pg "$bin/pg_ctl" -D "$CLUSTER_DIR/data" -l "$CLUSTER_DIR/log" -w start >/dev/null)
  export PGHOST=127.0.0.1 PGPORT=$port PGUSER=postgres PGDATABASE=$db
  psql -X -q -d postgres -c "create database \"$db\"" >/dev/null
}

stop_throwaway_cluster() {
  (cd / && as_pg "$CLUSTER_BIN/pg_ctl" -D "$CLUSTER_DIR/data" -m immediate stop >/dev/null 2>&1) || true
  rm -rf "$CLUSTER_DIR"
}
