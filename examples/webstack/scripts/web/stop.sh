#!/bin/sh
# Standard.stop of the web server.
set -eu
. "$(dirname "$0")/../lib.sh"
rm -f "$WORKDIR/web/running"
log "web server stopped"
