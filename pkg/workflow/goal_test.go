package workflow

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// stack is a TOSCA template whose node runs a script and takes an input.
const stack = `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    size: { type: integer, default: 1 }
  node_templates:
    app:
      type: tosca.nodes.Root
      metadata: { size: { get_input: size } }
      interfaces:
        Standard:
          create: create.sh
`

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// project makes a folder holding stack.yaml and its script, and makes it
// the working folder: a goal names files relative to it.
func project(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, dir, map[string]string{"stack.yaml": stack, "create.sh": "#!/bin/sh\nexit 0\n"})
	t.Chdir(dir)
	return dir
}

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func rootOf(t *testing.T, dir string) *config.Root {
	t.Helper()
	r, err := config.NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMakeGoalDigestsEveryInput: the goal's options name the configuration
// and carry the digests of the file compiled, the script the operation
// runs and the input value given; the operation records its script's
// digest.
func TestMakeGoalDigestsEveryInput(t *testing.T) {
	dir := project(t)
	ctx := testContext(t)
	goal, diags, err := MakeGoal(ctx, Spec{Paths: []string{"stack.yaml"}, Root: rootOf(t, dir),
		Inputs: Inputs{Values: map[string]any{"size": 3}}})
	if err != nil || diags.HasErrors() || goal == nil {
		t.Fatalf("MakeGoal: %v %v", err, diags)
	}
	if got := strings.Join(goal.Options.Configuration, ","); got != "stack.yaml" {
		t.Errorf("Configuration = %q", got)
	}
	if goal.Options.InputSalt == "" {
		t.Error("no input salt")
	}
	for _, key := range []string{"stack.yaml", "create.sh", "var.size"} {
		if goal.Options.InputDigests[key] == "" {
			t.Errorf("no digest of %s in %v", key, goal.Options.InputDigests)
		}
	}
	app, ok := goal.Desired.Resource("app")
	if !ok {
		t.Fatal("no resource app")
	}
	op := app.Driver.Operations["Standard.create"]
	if op.Digest == "" || op.Digest != goal.Options.InputDigests["create.sh"] {
		t.Errorf("operation digest %q, want the script's %q", op.Digest, goal.Options.InputDigests["create.sh"])
	}
}

// TestMakeGoalDigestsNothingOutsideRoot: a script outside the
// configuration root is not read, so its digest cannot give its content
// away; the operation goes without one.
func TestMakeGoalDigestsNothingOutsideRoot(t *testing.T) {
	dir := project(t)
	outside := filepath.Join(t.TempDir(), "secret.sh")
	writeFiles(t, filepath.Dir(outside), map[string]string{"secret.sh": "token"})
	writeFiles(t, dir, map[string]string{"stack.yaml": strings.Replace(stack, "create.sh", outside, 1)})
	goal, diags, err := MakeGoal(testContext(t), Spec{Paths: []string{"stack.yaml"}, Root: rootOf(t, dir)})
	if err != nil || goal == nil {
		t.Fatalf("MakeGoal: %v %v", err, diags)
	}
	for key := range goal.Options.InputDigests {
		if strings.Contains(key, "secret") {
			t.Errorf("digest of %s taken", key)
		}
	}
	app, _ := goal.Desired.Resource("app")
	if d := app.Driver.Operations["Standard.create"].Digest; d != "" {
		t.Errorf("operation digest %q of a file outside the root", d)
	}
}

// TestMakeGoalErrors: a configuration with errors gives no goal and the
// diagnostics; a folder without configuration is warned about unless
// AllowNoFiles (a destroy, which needs none).
func TestMakeGoalErrors(t *testing.T) {
	dir := project(t)
	ctx := testContext(t)
	writeFiles(t, dir, map[string]string{"broken.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    x: { type: no.such.Type }\n"})
	goal, diags, err := MakeGoal(ctx, Spec{Paths: []string{"broken.yaml"}, Root: rootOf(t, dir)})
	if err != nil || goal != nil || !diags.HasErrors() {
		t.Errorf("broken: goal %v, diags %v, err %v", goal, diags, err)
	}
	empty := t.TempDir()
	for _, allow := range []bool{false, true} {
		goal, diags, err := MakeGoal(ctx, Spec{Paths: []string{empty}, Root: rootOf(t, empty), AllowNoFiles: allow,
			Options: planner.Options{Destroy: allow}})
		warned := slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return d.Code == config.CodeNoFiles })
		if err != nil || goal == nil || warned == allow {
			t.Errorf("empty folder, AllowNoFiles %v: goal %v, diags %v, err %v", allow, goal != nil, diags, err)
		}
	}
}

// TestMakePlanPlansAgainstPrior: a plan of the goal against an empty
// state creates the resource; against the state that recorded it, there
// are no changes.
func TestMakePlanPlansAgainstPrior(t *testing.T) {
	dir := project(t)
	ctx := testContext(t)
	spec := Spec{Paths: []string{"stack.yaml"}, Root: rootOf(t, dir)}
	planned, diags, err := MakePlan(ctx, spec, nil)
	if err != nil || planned == nil {
		t.Fatalf("MakePlan: %v %v", err, diags)
	}
	if !planned.Plan.HasChanges() || len(planned.Plan.Steps()) != 1 {
		t.Fatalf("first plan: %d steps", len(planned.Plan.Steps()))
	}
	prior := &state.State{Version: state.FormatVersion, Serial: 1, Lineage: "l"}
	r, _ := planned.Desired.Resource("app")
	prior.Resources = append(prior.Resources, state.Resource{Address: r.Address, Type: r.Type, Management: r.Management,
		Driver: r.Driver, Spec: r.Spec, Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}})
	again, _, err := MakePlan(ctx, spec, prior)
	if err != nil || again == nil || again.Plan.HasChanges() {
		t.Fatalf("plan against the recorded state: %v, changes %v", err, again != nil && again.Plan.HasChanges())
	}
}

// TestDeriveNamesPolicyPrograms: a model policy's program is an input of
// the plan, named relative to the working folder, and a destroy runs no
// policy.
func TestDeriveNamesPolicyPrograms(t *testing.T) {
	dir := project(t)
	prog := filepath.Join(dir, "policies", "derive.sh")
	writeFiles(t, dir, map[string]string{"policies/derive.sh": "#!/bin/sh\nprintf '{}'\n"})
	g := graph.New()
	if err := g.AddPolicy(graph.Policy{Name: "p", Implementation: prog}); err != nil {
		t.Fatal(err)
	}
	_, files, _ := derive(testContext(t), g, []string{"stack.yaml"}, rootOf(t, dir), nil, false)
	if strings.Join(files, ",") != "policies/derive.sh,stack.yaml" {
		t.Errorf("files = %v", files)
	}
	_, files, _ = derive(testContext(t), g, []string{"stack.yaml"}, rootOf(t, dir), nil, true)
	if strings.Join(files, ",") != "stack.yaml" {
		t.Errorf("skipped: files = %v", files)
	}
}

// TestPolicyFeedbackMasksSecrets: what a model policy that reads
// feedback reads of the state: attributes with their secrets masked, the
// status, and changed_by_step (from the feedback of a record written
// before versions were kept: none).
func TestPolicyFeedbackMasksSecrets(t *testing.T) {
	step := time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
	prior := &state.State{Resources: []state.Resource{
		{Address: "vm", Sensitive: []string{"attributes.token"}, Versions: state.Versions{Updated: step, ChangedByStep: step},
			Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}, InstanceID: "i-1",
				Attributes: map[string]graph.Value{"ip": "10.0.0.1", "token": "s3cret"}}},
		{Address: "old", Feedback: state.Feedback{BackendCode: state.BackendOK}},
	}}
	fb := PolicyFeedback(prior)
	vm := fb["vm"]
	if vm.Attributes["ip"] != "10.0.0.1" || vm.Attributes["token"] == "s3cret" || !vm.Active || vm.InstanceID != "i-1" || !vm.ChangedByStep.Equal(step) {
		t.Errorf("vm: %+v", vm)
	}
	if prior.Resources[0].Feedback.Attributes["token"] != "s3cret" {
		t.Error("PolicyFeedback changed the state it read")
	}
	if old, ok := fb["old"]; !ok || !old.ChangedByStep.IsZero() {
		t.Errorf("old: %+v %v", old, ok)
	}
	if PolicyFeedback(nil) != nil {
		t.Error("no state gives feedback")
	}
}
