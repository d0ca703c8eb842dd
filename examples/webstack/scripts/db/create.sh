#!/bin/sh
# Standard.create of the shop database: a folder in the server's data
# folder and its owner.
set -eu
. "$(dirname "$0")/../lib.sh"
need db_name
need db_user
need db_password
need dbms_port
test -d "$WORKDIR/dbms/data" || { log "the database server is not created"; exit 1; }
mkdir -p "$WORKDIR/dbms/data/$db_name"
umask 077
write_file "$WORKDIR/dbms/data/$db_name/owner" <<OWNER
user = $db_user
password = $db_password
port = $dbms_port
OWNER
log "database $db_name created for $db_user"
