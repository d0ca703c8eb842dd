#!/bin/sh
# Standard.configure of the web server: where it listens.
set -eu
. "$(dirname "$0")/../lib.sh"
need port
address=${address:-127.0.0.1}
write_file "$WORKDIR/web/server.conf" <<CONF
listen = $address:$port
docroot = $WORKDIR/web/docroot
CONF
log "web server configured to listen on $address:$port"
