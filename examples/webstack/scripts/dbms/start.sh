#!/bin/sh
# Standard.start of the database server: marks it running.
set -eu
. "$(dirname "$0")/../lib.sh"
test -f "$WORKDIR/dbms/dbms.conf" || { log "not created yet"; exit 1; }
date -u +%Y-%m-%dT%H:%M:%SZ | write_file "$WORKDIR/dbms/running"
log "database server running"
