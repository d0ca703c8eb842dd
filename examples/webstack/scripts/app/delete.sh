#!/bin/sh
# Standard.delete of the shop.
set -eu
. "$(dirname "$0")/../lib.sh"
need context_root
rm -rf "$WORKDIR/web/docroot/$context_root"
log "shop removed from /$context_root"
