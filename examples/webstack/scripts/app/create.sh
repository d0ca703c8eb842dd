#!/bin/sh
# Standard.create of the shop: deploys its page under the web server's
# document root.
set -eu
. "$(dirname "$0")/../lib.sh"
need context_root
greeting=${greeting:-Welcome}
test -d "$WORKDIR/web/docroot" || { log "the web server is not created"; exit 1; }
write_file "$WORKDIR/web/docroot/$context_root/index.html" <<HTML
<!doctype html>
<title>shop</title>
<h1>$greeting</h1>
HTML
log "shop deployed at /$context_root"
