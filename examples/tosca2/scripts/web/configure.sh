#!/bin/sh
# Standard.configure of one web server: where it listens, what it says,
# and the store it records visits in (read through its relationship).
set -eu
. "$(dirname "$0")/../lib.sh"
need index
need port
need greeting
need data_dir
address=${address:-127.0.0.1}
write_file "$WORKDIR/web/$index/site.conf" <<CONF
listen = $address:$port
greeting = $greeting
store = $data_dir
CONF
log "web[$index] listens on $address:$port"
