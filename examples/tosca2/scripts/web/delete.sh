#!/bin/sh
# Standard.delete of one web server.
set -eu
. "$(dirname "$0")/../lib.sh"
need index
rm -rf "$WORKDIR/web/$index"
log "web[$index] deleted"
