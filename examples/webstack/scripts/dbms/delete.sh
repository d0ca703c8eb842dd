#!/bin/sh
# Standard.delete of the database server: removes its folder and data.
set -eu
. "$(dirname "$0")/../lib.sh"
rm -rf "$WORKDIR/dbms"
log "database server deleted"
