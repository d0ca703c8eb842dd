#!/bin/sh
# Standard.create of the web server: its document root.
set -eu
. "$(dirname "$0")/../lib.sh"
mkdir -p "$WORKDIR/web/docroot"
log "web server created in $WORKDIR/web"
