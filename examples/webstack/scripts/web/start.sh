#!/bin/sh
# Standard.start of the web server: marks it running.
set -eu
. "$(dirname "$0")/../lib.sh"
test -f "$WORKDIR/web/server.conf" || { log "not configured yet"; exit 1; }
date -u +%Y-%m-%dT%H:%M:%SZ | write_file "$WORKDIR/web/running"
log "web server running"
