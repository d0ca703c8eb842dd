#!/bin/sh
# Standard.delete of the web server: removes its folder.
set -eu
. "$(dirname "$0")/../lib.sh"
rm -rf "$WORKDIR/web"
log "web server deleted"
