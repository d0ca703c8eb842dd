#!/usr/bin/env bash
# The step of the xosplan GitHub Action (action.yml at the repository's
# root) that runs xosplan. Its inputs arrive as XA_* variables:
#   XA_COMMAND        validate | plan | apply
#   XA_PATH           the configuration (a file or folder)
#   XA_ARGS           more flags for plan and apply (--state, --var, --inputs …), split on spaces
#   XA_VALIDATE_ARGS  more flags for validate, split on spaces
#   XA_PLAN_FILE      apply: the saved plan to apply; empty: plan and apply XA_PATH
#   XA_COMMENT        plan: "true" creates or updates the pull request's comment
#   XA_COMMENT_ID     names this configuration's comment (default: XA_PATH)
#   XA_PR             the pull request's number (empty outside pull requests)
#   XA_OUT            where plan writes plan.bin and plan.md
# and GitHub's own: GITHUB_OUTPUT, GITHUB_REPOSITORY, GH_TOKEN (for gh).
#
# validate prints GitHub annotations (::error file=…,line=…). plan
# validates first (annotations), then plans with --detailed-exitcode and
# sets the outputs has_changes, plan_file and comment_file; on a pull
# request it finds its earlier comment by the marker line
# <!-- xosplan:plan_id=… id=ID --> and edits it, or posts one.
set -uo pipefail

cmd=${XA_COMMAND:-plan}
path=${XA_PATH:-.}
out=${XA_OUT:-${RUNNER_TEMP:-/tmp}/xosplan}
id=${XA_COMMENT_ID:-$path}
# The marker ID: what plan --markdown-id accepts.
id=$(printf '%s' "$id" | tr -c 'A-Za-z0-9._/-' '_' | cut -c1-100)
read -r -a args <<< "${XA_ARGS:-}"
read -r -a vargs <<< "${XA_VALIDATE_ARGS:-}"

output() {
	if [ -n "${GITHUB_OUTPUT:-}" ]; then printf '%s=%s\n' "$1" "$2" >> "$GITHUB_OUTPUT"; fi
}

# comment FILE: edit the pull request's comment that carries this
# configuration's marker, or post a new one.
comment() {
	local repo=${GITHUB_REPOSITORY:?GITHUB_REPOSITORY is not set} existing
	existing=$(gh api --paginate "repos/$repo/issues/$XA_PR/comments" \
		--jq ".[] | select(.body | startswith(\"<!-- xosplan:plan_id=\") and (split(\"\\n\")[0] | endswith(\" id=$id -->\"))) | .id" |
		head -n 1) || return 1
	if [ -n "$existing" ]; then
		gh api -X PATCH "repos/$repo/issues/comments/$existing" -F "body=@$1" > /dev/null
	else
		gh api -X POST "repos/$repo/issues/$XA_PR/comments" -F "body=@$1" > /dev/null
	fi
}

case "$cmd" in
validate)
	xosplan validate --format github "${vargs[@]}" "$path"
	rc=$?
	if [ $rc -eq 0 ]; then output valid true; else output valid false; fi
	exit $rc
	;;
plan)
	mkdir -p "$out" || exit 1
	xosplan validate --format github "${vargs[@]}" "$path" || { output valid false; exit 1; }
	output valid true
	xosplan plan -no-color -detailed-exitcode -out "$out/plan.bin" -markdown-out "$out/plan.md" -markdown-id "$id" "${args[@]}" "$path"
	rc=$?
	case $rc in
	0) output has_changes false ;;
	2) output has_changes true ;;
	*) exit $rc ;;
	esac
	output plan_file "$out/plan.bin"
	output comment_file "$out/plan.md"
	if [ "${XA_COMMENT:-true}" = true ] && [ -n "${XA_PR:-}" ]; then
		comment "$out/plan.md" || { echo "::warning::could not update the pull request's comment (does the token have pull-requests: write?)"; }
	fi
	exit 0
	;;
apply)
	if [ -n "${XA_PLAN_FILE:-}" ]; then
		xosplan apply -no-color "${args[@]}" "$XA_PLAN_FILE"
	else
		xosplan apply -no-color -auto-approve "${args[@]}" "$path"
	fi
	;;
*)
	echo "::error::xosplan action: command must be validate, plan or apply, not \"$cmd\""
	exit 1
	;;
esac
