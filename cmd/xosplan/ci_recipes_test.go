package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// The CI recipes in the repository (action.yml, the GitHub Action, and
// examples/atlantis/atlantis.yaml, an Atlantis custom workflow) are run
// here step by step as GitHub and Atlantis run them, against copies of the
// bundled examples: what users copy into their CI cannot rot unseen.

func parseYAMLFile(t *testing.T, path string) *yamlsrc.Node {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	root, diags := yamlsrc.Parse(path, data, yamlsrc.Limits{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	return root
}

func str(t *testing.T, n *yamlsrc.Node, key string) string {
	t.Helper()
	if n == nil || n.Get(key) == nil {
		return ""
	}
	s, _ := n.Get(key).String()
	return s
}

// copyTree copies the folder src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// fakeGH is a gh that answers the comment listing from the JSON file
// FAKE_GH_COMMENTS through the real jq (gh's --jq is jq's language), and
// records every call in FAKE_GH_LOG and every body it is given in
// FAKE_GH_BODY.
const fakeGH = `#!/usr/bin/env bash
echo "$*" >> "$FAKE_GH_LOG"
jq=""; method=GET; body=""
while [ $# -gt 0 ]; do
	case "$1" in
	--jq) jq=$2; shift ;;
	-X) method=$2; shift ;;
	-F) body=${2#body=@}; shift ;;
	esac
	shift
done
if [ "$method" = GET ]; then jq -r "$jq" < "$FAKE_GH_COMMENTS"; else cp "$body" "$FAKE_GH_BODY"; echo '{}'; fi
`

// actionRun is one run of the action: its inputs and what the steps left.
type actionRun struct {
	inputs map[string]string
	pr     string
	code   int
	log    string
	output string // $GITHUB_OUTPUT
}

// runAction runs action.yml's steps as GitHub runs a composite action:
// each run step with bash -eo pipefail, expressions in env and run
// replaced by the inputs (else their defaults), the PR number and the
// runner's temp folder, GITHUB_PATH honoured between steps. uses steps
// are GitHub's own actions (setup-go, upload-artifact) and are checked,
// not run: Go is here, and the plan file they would upload is checked.
func runAction(t *testing.T, action *yamlsrc.Node, workspace, temp string, env []string, run *actionRun) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	defaults := map[string]string{}
	for _, p := range action.Get("inputs").Pairs() {
		defaults[p.Key.Value] = str(t, p.Value, "default")
	}
	expr := regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)
	expand := func(s string) string {
		return expr.ReplaceAllStringFunc(s, func(m string) string {
			e := expr.FindStringSubmatch(m)[1]
			switch {
			case strings.HasPrefix(e, "inputs."):
				name := strings.TrimPrefix(e, "inputs.")
				if v, ok := run.inputs[name]; ok {
					return v
				}
				if _, ok := defaults[name]; !ok {
					t.Fatalf("action.yml uses an input it does not declare: %s", name)
				}
				return defaults[name]
			case e == "github.event.pull_request.number":
				return run.pr
			case e == "runner.temp":
				return temp
			case e == "github.token":
				return "test-token"
			}
			t.Fatalf("action.yml: expression %q is not one this test knows", e)
			return ""
		})
	}
	ghPath, ghOutput := filepath.Join(temp, "github_path"), filepath.Join(temp, "github_output")
	for _, f := range []string{ghPath, ghOutput} {
		if err := os.WriteFile(f, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var log bytes.Buffer
	run.code = 0
	for _, step := range action.Get("runs").Get("steps").Items() {
		if uses := str(t, step, "uses"); uses != "" {
			continue
		}
		script := expand(str(t, step, "run"))
		stepEnv := append([]string{}, env...)
		extra, _ := os.ReadFile(ghPath)
		path := os.Getenv("PATH")
		for _, dir := range strings.Fields(string(extra)) {
			path = dir + string(os.PathListSeparator) + path
		}
		stepEnv = append(stepEnv, "PATH="+path, "GITHUB_ACTION_PATH="+testutil.ModuleRoot(t), "RUNNER_TEMP="+temp,
			"GITHUB_PATH="+ghPath, "GITHUB_OUTPUT="+ghOutput, "GITHUB_REPOSITORY=owner/repo", "GITHUB_WORKSPACE="+workspace)
		if e := step.Get("env"); e != nil {
			for _, p := range e.Pairs() {
				v, _ := p.Value.String()
				stepEnv = append(stepEnv, p.Key.Value+"="+expand(v))
			}
		}
		cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
		cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = workspace, stepEnv, &log, &log
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				t.Fatalf("the action did not finish in 4 minutes:\n%s", log.String())
			}
			ee, ok := err.(*exec.ExitError)
			if !ok {
				t.Fatal(err)
			}
			run.code = ee.ExitCode()
			break
		}
	}
	out, _ := os.ReadFile(ghOutput)
	run.log, run.output = log.String(), string(out)
}

// TestGitHubAction runs the action's validate, plan and apply as a
// workflow would: validate reports annotations and fails on a broken
// template; plan on a pull request posts the comment with its marker, and
// a second plan edits that comment instead of posting another (and leaves
// another configuration's comment alone); apply applies the saved plan.
func TestGitHubAction(t *testing.T) {
	for _, tool := range []string{"bash", "jq", "sh"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed (make test-deps installs jq): the action's steps need it", tool)
		}
	}
	action := parseYAMLFile(t, filepath.Join(testutil.ModuleRoot(t), "action.yml"))
	var uses []string
	for _, step := range action.Get("runs").Get("steps").Items() {
		if u := str(t, step, "uses"); u != "" {
			uses = append(uses, u)
		}
	}
	if len(uses) != 2 || !strings.HasPrefix(uses[0], "actions/setup-go@") || !strings.HasPrefix(uses[1], "actions/upload-artifact@") {
		t.Fatalf("action.yml uses %v: the test knows setup-go and upload-artifact", uses)
	}

	workspace, temp, fake := t.TempDir(), t.TempDir(), t.TempDir()
	copyTree(t, filepath.Join(testutil.ModuleRoot(t), "examples", "webstack"), filepath.Join(workspace, "webstack"))
	copyTree(t, filepath.Join(testutil.ModuleRoot(t), "examples", "broken"), filepath.Join(workspace, "broken"))
	if err := os.WriteFile(filepath.Join(fake, "gh"), []byte(fakeGH), 0o755); err != nil {
		t.Fatal(err)
	}
	comments, ghLog, body := filepath.Join(fake, "comments.json"), filepath.Join(fake, "gh.log"), filepath.Join(fake, "body.md")
	env := append(os.Environ(), "FAKE_GH_COMMENTS="+comments, "FAKE_GH_LOG="+ghLog, "FAKE_GH_BODY="+body)
	env = append(env, "PATH="+fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The fake gh must come first on PATH for every step: the steps'
	// PATH is built from this process's, so put it there too.
	t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
	state := "--state " + filepath.Join(workspace, "state.json")

	broken := &actionRun{inputs: map[string]string{"command": "validate", "path": "broken"}}
	runAction(t, action, workspace, temp, env, broken)
	if broken.code != 1 || !strings.Contains(broken.log, "::error file=") || !strings.Contains(broken.output, "valid=false") {
		t.Fatalf("validate of a broken template: exit %d, output %q\n%s", broken.code, broken.output, broken.log)
	}

	other := `{"id": 5, "body": "<!-- xosplan:plan_id=sha256:0 id=elsewhere -->\nanother configuration"}`
	if err := os.WriteFile(comments, []byte("["+other+"]"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan := &actionRun{inputs: map[string]string{"command": "plan", "path": "webstack", "args": state}, pr: "12"}
	runAction(t, action, workspace, temp, env, plan)
	if plan.code != 0 || !strings.Contains(plan.output, "has_changes=true") || !strings.Contains(plan.output, "plan_file="+filepath.Join(temp, "xosplan", "plan.bin")) {
		t.Fatalf("plan: exit %d, output %q\n%s", plan.code, plan.output, plan.log)
	}
	calls, _ := os.ReadFile(ghLog)
	posted, _ := os.ReadFile(body)
	if !strings.Contains(string(calls), "-X POST repos/owner/repo/issues/12/comments") || !strings.HasPrefix(string(posted), "<!-- xosplan:plan_id=") ||
		!strings.Contains(strings.SplitN(string(posted), "\n", 2)[0], " id=webstack -->") {
		t.Fatalf("the first plan did not post its comment; gh calls:\n%s\nbody:\n%s", calls, posted)
	}

	// The comment is now there: the next plan edits it.
	mine, err := json.Marshal(string(posted))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(comments, []byte("["+other+`, {"id": 77, "body": `+string(mine)+"}]"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(ghLog); err != nil {
		t.Fatal(err)
	}
	again := &actionRun{inputs: map[string]string{"command": "plan", "path": "webstack", "args": state}, pr: "12"}
	runAction(t, action, workspace, temp, env, again)
	calls, _ = os.ReadFile(ghLog)
	if again.code != 0 || !strings.Contains(string(calls), "-X PATCH repos/owner/repo/issues/comments/77") || strings.Contains(string(calls), "POST") {
		t.Fatalf("the second plan did not edit comment 77: exit %d; gh calls:\n%s\n%s", again.code, calls, again.log)
	}

	apply := &actionRun{inputs: map[string]string{"command": "apply", "path": "webstack", "args": state,
		"plan-file": filepath.Join(temp, "xosplan", "plan.bin")}}
	runAction(t, action, workspace, temp, env, apply)
	if apply.code != 0 || !strings.Contains(apply.log, "Apply complete!") {
		t.Fatalf("apply of the saved plan: exit %d\n%s", apply.code, apply.log)
	}
}

// TestAtlantisWorkflow runs examples/atlantis/atlantis.yaml's custom
// workflow as Atlantis does for its project: each plan step with sh -c in
// the project's folder, with $PLANFILE, $DIR and $WORKSPACE set, then each
// apply step; the state is the one XOSPLAN_STATE names, as the file
// advises. The apply must apply the saved plan, and a second autoplan
// must find nothing to do.
func TestAtlantisWorkflow(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("sh is not installed")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cfg := parseYAMLFile(t, filepath.Join(testutil.ModuleRoot(t), "examples", "atlantis", "atlantis.yaml"))
	bin := t.TempDir()
	buildXosplan(ctx, t, bin)
	repo := t.TempDir()
	projects := cfg.Get("projects").Items()
	if len(projects) == 0 {
		t.Fatal("atlantis.yaml has no project")
	}
	for _, project := range projects {
		dir := str(t, project, "dir")
		copyTree(t, filepath.Join(testutil.ModuleRoot(t), filepath.FromSlash(dir)), filepath.Join(repo, filepath.FromSlash(dir)))
		wf := cfg.Get("workflows").Get(str(t, project, "workflow"))
		if wf == nil {
			t.Fatalf("project %s names workflow %q, which atlantis.yaml lacks", dir, str(t, project, "workflow"))
		}
		data := t.TempDir()
		env := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
			"PLANFILE="+filepath.Join(data, "default.tfplan"), "DIR="+filepath.Join(repo, dir), "WORKSPACE=default",
			"PROJECT_NAME="+str(t, project, "name"), "XOSPLAN_STATE="+filepath.Join(data, "state.json"))
		steps := func(stage string) string {
			var log bytes.Buffer
			for _, step := range wf.Get(stage).Get("steps").Items() {
				cmd := exec.CommandContext(ctx, "sh", "-c", str(t, step, "run"))
				cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = filepath.Join(repo, dir), env, &log, &log
				if err := cmd.Run(); err != nil {
					t.Fatalf("%s %s step %q: %v\n%s", dir, stage, str(t, step, "run"), err, log.String())
				}
			}
			return log.String()
		}
		if out := steps("plan"); !strings.Contains(out, "to add") {
			t.Errorf("%s: the plan shows no changes:\n%s", dir, out)
		}
		if out := steps("apply"); !strings.Contains(out, "Apply complete!") {
			t.Errorf("%s: apply:\n%s", dir, out)
		}
		if out := steps("plan"); !strings.Contains(out, "No changes.") {
			t.Errorf("%s: the plan after the apply is not empty:\n%s", dir, out)
		}
	}
}
