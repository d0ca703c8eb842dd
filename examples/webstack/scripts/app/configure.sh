#!/bin/sh
# Standard.configure of the shop: its database connection.
set -eu
. "$(dirname "$0")/../lib.sh"
need context_root
need db_port
need db_name
need db_user
db_host=${db_host:-127.0.0.1}
write_file "$WORKDIR/web/docroot/$context_root/database.conf" <<CONF
url = db://$db_user@$db_host:$db_port/$db_name
CONF
log "shop connects to $db_name on $db_host:$db_port"
