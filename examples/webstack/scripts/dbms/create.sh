#!/bin/sh
# Standard.create of the database server: its data folder and settings.
set -eu
. "$(dirname "$0")/../lib.sh"
need port
mkdir -p "$WORKDIR/dbms/data"
write_file "$WORKDIR/dbms/dbms.conf" <<CONF
port = $port
data = $WORKDIR/dbms/data
CONF
log "database server created in $WORKDIR/dbms (port $port)"
