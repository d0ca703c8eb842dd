#!/bin/sh
# Standard.create of the host, which is the machine running xosplan. It
# reports the addresses that dependents read with get_attribute, by the
# executor's outputs convention: name=value lines appended to the file
# named by $XOSPLAN_OUTPUTS become attributes of the same name.
set -eu
. "$(dirname "$0")/../lib.sh"
mkdir -p "$WORKDIR"
if [ -n "${XOSPLAN_OUTPUTS:-}" ]; then
	printf 'private_address=127.0.0.1\npublic_address=127.0.0.1\n' >>"$XOSPLAN_OUTPUTS"
fi
log "host ready at 127.0.0.1"
