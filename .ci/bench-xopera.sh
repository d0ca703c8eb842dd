#!/bin/sh
# bench-xopera: deploy time of xosplan beside xOpera's on the same stacks,
# generated here: "hello" (one node, one playbook writing a file, as
# xOpera's examples/hello) and "concurrency" (four independent nodes, each
# a playbook of a 2 s pause and a file write). Each stack is deployed and
# undeployed RUNS times (default 3) by each tool, on the local connection;
# the wall time of each deploy is printed, one line per run.
#
#   XOPERA=/path/to/opera make bench-xopera     (an `opera` command)
#   make bench-xopera                           (uses /tmp/xopera/opera if it exists)
#
# Without xOpera, or without ansible-playbook, it says so and times what it
# can (xosplan alone needs ansible-playbook too). xOpera's own flags are
# the documented ones of its CLI (opera deploy, opera undeploy); its
# --workers is left at its default unless XOPERA_WORKERS is set.
set -eu
XOSPLAN=${XOSPLAN:-bin/xosplan}
RUNS=${RUNS:-3}
PARALLELISM=${PARALLELISM:-10}
if [ -z "${XOPERA:-}" ] && [ -x /tmp/xopera/opera ]; then XOPERA=/tmp/xopera/opera; fi
if ! command -v ansible-playbook >/dev/null 2>&1; then
	echo "bench-xopera: skipped: ansible-playbook is not installed (make test-deps installs ansible-core)"
	exit 0
fi
XOSPLAN=$(cd "$(dirname "$XOSPLAN")" && pwd)/$(basename "$XOSPLAN")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# stack NAME NODES PAUSE writes a stack of NODES independent nodes whose
# create playbook pauses PAUSE seconds (0: none) and writes a file.
stack() {
	d="$work/$1"
	mkdir -p "$d/playbooks" "$d/out"
	{
		echo "tosca_definitions_version: tosca_simple_yaml_1_3"
		echo "node_types:"
		echo "  bench.nodes.Hello:"
		echo "    derived_from: tosca.nodes.Root"
		echo "    properties:"
		echo "      path: { type: string }"
		echo "    interfaces:"
		echo "      Standard:"
		echo "        operations:"
		echo "          create:"
		echo "            implementation: playbooks/create.yaml"
		echo "            inputs:"
		echo "              path: { get_property: [ SELF, path ] }"
		echo "          delete:"
		echo "            implementation: playbooks/delete.yaml"
		echo "            inputs:"
		echo "              path: { get_property: [ SELF, path ] }"
		echo "topology_template:"
		echo "  node_templates:"
		i=1
		while [ "$i" -le "$2" ]; do
			echo "    hello$i:"
			echo "      type: bench.nodes.Hello"
			echo "      properties: { path: $d/out/hello$i.txt }"
			i=$((i + 1))
		done
	} >"$d/service.yaml"
	{
		echo "- hosts: all"
		echo "  gather_facts: false"
		echo "  tasks:"
		if [ "$3" != 0 ]; then
			echo "    - pause: { seconds: $3 }"
		fi
		echo "    - copy: { dest: \"{{ path }}\", content: \"hello\\n\" }"
	} >"$d/playbooks/create.yaml"
	printf '%s\n' "- hosts: all" "  gather_facts: false" "  tasks:" "    - file: { path: \"{{ path }}\", state: absent }" >"$d/playbooks/delete.yaml"
}

# timed LABEL CMD... runs CMD in the case's folder and prints its wall time.
timed() {
	label=$1
	shift
	start=$(date +%s.%N)
	if ! (cd "$d" && "$@" >"$work/last.log" 2>&1); then
		echo "bench-xopera: $label failed:" >&2
		tail -20 "$work/last.log" >&2
		exit 1
	fi
	end=$(date +%s.%N)
	echo "$label $(echo "$end - $start" | bc) s"
}

export HOME="$work/home" ANSIBLE_LOCAL_TEMP="$work/home/.ansible/tmp"
mkdir -p "$HOME"
for case in "hello 1 0" "concurrency 4 2"; do
	set -- $case
	stack "$1" "$2" "$3"
	r=1
	while [ "$r" -le "$RUNS" ]; do
		timed "$1 xosplan-apply" "$XOSPLAN" apply --auto-approve --parallelism "$PARALLELISM" service.yaml
		(cd "$d" && "$XOSPLAN" destroy --auto-approve service.yaml >/dev/null 2>&1)
		if [ -n "${XOPERA:-}" ]; then
			timed "$1 opera-deploy" "$XOPERA" deploy ${XOPERA_WORKERS:+--workers "$XOPERA_WORKERS"} --clean-state service.yaml
			(cd "$d" && "$XOPERA" undeploy >/dev/null 2>&1) || true
		fi
		r=$((r + 1))
	done
done
if [ -z "${XOPERA:-}" ]; then
	echo "bench-xopera: xOpera skipped: set XOPERA to an opera command (or put one at /tmp/xopera/opera); xosplan was timed alone"
fi
