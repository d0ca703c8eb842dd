package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
)

// xosplanIn runs xosplan in-process with args and returns its exit status,
// stdout and stderr.
func xosplanIn(args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// forgeryStack is a template whose one node runs scripts/create.sh, with
// another script beside it that the template never names.
var forgeryStack = map[string]string{
	"stack.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  inputs:
    size: { type: integer, default: 1 }
  node_templates:
    app:
      type: tosca.nodes.Root
      properties: {}
      interfaces:
        Standard:
          operations:
            create:
              implementation: scripts/create.sh
              inputs:
                size: { get_input: size }
`,
	"scripts/create.sh": `touch "$XOSPLAN_WORKDIR/created"` + "\n",
	"scripts/evil.sh":   `touch "$XOSPLAN_WORKDIR/evil"` + "\n",
}

// A plan file cannot be forged: whatever is edited in it (the scripts
// operations run, a value, the resources, the input digests), and even
// with plan_id recomputed to match, apply makes the plan again from the
// configuration and refuses the file, naming the first difference,
// before anything runs. The unedited file applies.
func TestForgedPlanFileIsRefused(t *testing.T) {
	dir := testutil.Tree(t, forgeryStack)
	t.Chdir(dir)
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XOSPLAN_WORKDIR", work)
	if code, _, stderr := xosplanIn("plan", "--var", "size=3", "--out", "good.plan", "stack.yaml"); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	forge := func(name string, edit func(p *planner.Plan)) string {
		p, err := planner.ReadPlanFile("good.plan")
		if err != nil {
			t.Fatal(err)
		}
		edit(p)
		if p.PlanID, err = planner.ComputeID(p); err != nil {
			t.Fatal(err)
		}
		if err := planner.WritePlanFile(name, p); err != nil {
			t.Fatal(err)
		}
		return name
	}
	setCreate := func(p *planner.Plan, f func(op *graph.Operation)) {
		c, _ := p.Change("app")
		op := c.Driver.Operations["Standard.create"]
		f(&op)
		c.Driver.Operations["Standard.create"] = op
	}
	good, err := os.ReadFile("good.plan")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("bytes.plan", bytes.Replace(good, []byte(`"size":3`), []byte(`"size":4`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, file, want string
		// noVars applies without --var: a file with no input digests
		// asks for none.
		noVars bool
	}{
		{name: "every implementation rewritten and the input digests emptied", noVars: true, file: forge("evil.plan", func(p *planner.Plan) {
			setCreate(p, func(op *graph.Operation) { op.Implementation = filepath.Join(dir, "scripts", "evil.sh") })
			p.InputDigests = map[string]string{}
		}), want: `input file stack.yaml is new since the plan was made`},
		{name: "only the implementation rewritten", file: forge("impl.plan", func(p *planner.Plan) {
			setCreate(p, func(op *graph.Operation) { op.Implementation = "scripts/evil.sh" })
		}), want: `saved plan does not match its configuration: resource "app": driver.operations["Standard.create"].implementation differs; run plan again`},
		{name: "an operation input changed", file: forge("input.plan", func(p *planner.Plan) {
			setCreate(p, func(op *graph.Operation) { op.Inputs = map[string]graph.Value{"size": int64(4)} })
		}), want: `resource "app": driver.operations["Standard.create"].inputs.size differs`},
		{name: "a resource added", file: forge("added.plan", func(p *planner.Plan) {
			c := p.Changes[0]
			c.Address = "extra"
			p.Changes = append(p.Changes, c)
		}), want: `resource "extra" is not in the plan its configuration gives`},
		{name: "edited without a new plan_id", file: "bytes.plan", want: "not a valid plan file: its content does not match its plan_id"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"apply", "--var", "size=3", tc.file}
			if tc.noVars {
				args = []string{"apply", tc.file}
			}
			code, stdout, stderr := xosplanIn(args...)
			if code == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("apply of the forged plan: exit %d, stderr %q; want a refusal naming %q\n%s", code, stderr, tc.want, stdout)
			}
			for _, marker := range []string{"evil", "created"} {
				if _, err := os.Stat(filepath.Join(work, marker)); err == nil {
					t.Fatalf("a script ran (%s) although the plan was forged", marker)
				}
			}
		})
	}
	if code, stdout, stderr := xosplanIn("apply", "--var", "size=3", "good.plan"); code != 0 || !strings.Contains(stdout, "Apply complete! Resources: 1 added") {
		t.Fatalf("the unedited plan: exit %d\n%s%s", code, stdout, stderr)
	}
}

// The same input value digests differently in two plans, and apply still
// notices that the value given to it is not the one planned with.
func TestSameInputValueDigestsDifferentlyInEveryPlan(t *testing.T) {
	dir := testutil.Tree(t, forgeryStack)
	t.Chdir(dir)
	var digests []string
	for _, name := range []string{"a.plan", "b.plan"} {
		if code, _, stderr := xosplanIn("plan", "--var", "size=2024", "--out", name, "stack.yaml"); code != 0 {
			t.Fatalf("plan: exit %d: %s", code, stderr)
		}
		p, err := planner.ReadPlanFile(name)
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, p.InputDigests["var.size"])
	}
	if digests[0] == "" || digests[0] == digests[1] {
		t.Fatalf("the same value digests alike in two plans: %q", digests)
	}
	code, _, stderr := xosplanIn("apply", "--var", "size=2025", "a.plan")
	if code == 0 || !strings.Contains(stderr, "saved plan is stale: input value size changed since the plan was made; run plan again") {
		t.Errorf("apply with another value: exit %d, %s", code, stderr)
	}
}

// A plan file chooses the configuration apply compiles, so it may not
// choose one outside the configuration root: a plan made from a template
// elsewhere on the machine (valid in itself, with matching digests) is
// refused before anything is compiled or run; --root holding it lets it
// through.
func TestPlanFileNamingConfigurationOutsideTheRootIsRefused(t *testing.T) {
	outside := testutil.Tree(t, map[string]string{
		"stack.yaml":        forgeryStack["stack.yaml"],
		"scripts/create.sh": `touch "$XOSPLAN_WORKDIR/evil"` + "\n",
	})
	dir := testutil.Tree(t, forgeryStack)
	work := filepath.Join(dir, "work")
	if err := os.MkdirAll(work, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XOSPLAN_WORKDIR", work)
	t.Chdir(dir)
	planFile := filepath.Join(dir, "elsewhere.plan")
	if code, _, stderr := xosplanIn("plan", "--root", outside, "--out", planFile, filepath.Join(outside, "stack.yaml")); code != 0 {
		t.Fatalf("plan: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := xosplanIn("apply", "elsewhere.plan")
	if code == 0 || !strings.Contains(stderr, "outside the configuration root") {
		t.Errorf("apply of a plan naming configuration outside the root: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	if _, err := os.Stat(filepath.Join(work, "evil")); err == nil {
		t.Fatal("the configuration outside the root was applied")
	}
	if code, stdout, stderr := xosplanIn("apply", "--root", outside, planFile); code != 0 {
		t.Fatalf("with --root holding it: exit %d\n%s%s", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(work, "evil")); err != nil {
		t.Fatal("with --root holding the configuration, the plan was not applied")
	}
}
