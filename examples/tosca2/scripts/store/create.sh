#!/bin/sh
# Standard.create of the key-value store: its folder, reported as the
# data_dir attribute that each web server reads through its relationship.
set -eu
. "$(dirname "$0")/../lib.sh"
need capacity
mkdir -p "$WORKDIR/store"
printf 'capacity = %s\n' "$capacity" | write_file "$WORKDIR/store/store.conf"
report data_dir "$WORKDIR/store"
log "store created in $WORKDIR/store ($capacity)"
