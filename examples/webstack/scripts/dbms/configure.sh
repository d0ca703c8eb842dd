#!/bin/sh
# Standard.configure of the database server: the administrator password,
# readable by the owner only.
set -eu
. "$(dirname "$0")/../lib.sh"
need root_password
umask 077
printf '%s\n' "$root_password" | write_file "$WORKDIR/dbms/root_password"
log "database server configured"
