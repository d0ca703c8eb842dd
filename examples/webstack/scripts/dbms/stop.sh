#!/bin/sh
# Standard.stop of the database server.
set -eu
. "$(dirname "$0")/../lib.sh"
rm -f "$WORKDIR/dbms/running"
log "database server stopped"
