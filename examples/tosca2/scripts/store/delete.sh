#!/bin/sh
# Standard.delete of the key-value store.
set -eu
. "$(dirname "$0")/../lib.sh"
rm -rf "$WORKDIR/store"
log "store deleted"
