#!/bin/sh
# Standard.delete of the shop database.
set -eu
. "$(dirname "$0")/../lib.sh"
need db_name
rm -rf "$WORKDIR/dbms/data/$db_name"
log "database $db_name deleted"
