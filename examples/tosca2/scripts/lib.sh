# Shared by the tosca2 example's scripts (sourced, not run). Every script is
# idempotent: running an operation twice leaves the same result.

# WORKDIR is where the stack lives: $XOSPLAN_WORKDIR, or a folder under
# $TMPDIR. Nothing is written outside it.
WORKDIR=${XOSPLAN_WORKDIR:-${TMPDIR:-/tmp}/xosplan-tosca2}

# log MESSAGE: a line on stderr naming the script (web/configure.sh …).
log() {
	_dir=${0%/*}
	printf '%s/%s: %s\n' "${_dir##*/}" "${0##*/}" "$*" >&2
}

# need NAME: fail with a clear message when the operation input NAME is
# missing from the environment.
need() {
	eval "_v=\${$1-}"
	if [ -z "$_v" ]; then
		log "operation input $1 is not set"
		exit 2
	fi
}

# report NAME VALUE: an attribute for dependents' $get_attribute, by the
# executor's outputs convention (name=value lines in $XOSPLAN_OUTPUTS).
report() {
	if [ -n "${XOSPLAN_OUTPUTS:-}" ]; then
		printf '%s=%s\n' "$1" "$2" >>"$XOSPLAN_OUTPUTS"
	fi
}

# write_file PATH: replace PATH with stdin atomically, so that a killed
# script never leaves half a file.
write_file() {
	mkdir -p "$(dirname "$1")"
	cat >"$1.tmp.$$"
	mv -f "$1.tmp.$$" "$1"
}
