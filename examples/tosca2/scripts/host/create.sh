#!/bin/sh
# Standard.create of the host, which is the machine running xosplan: it
# reports the address the web servers listen on.
set -eu
. "$(dirname "$0")/../lib.sh"
mkdir -p "$WORKDIR"
report private_address 127.0.0.1
log "host ready at 127.0.0.1"
