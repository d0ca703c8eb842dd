#!/bin/sh
# Standard.create of one web server (web[index]): its folder.
set -eu
. "$(dirname "$0")/../lib.sh"
need index
mkdir -p "$WORKDIR/web/$index"
log "web[$index] created in $WORKDIR/web/$index"
