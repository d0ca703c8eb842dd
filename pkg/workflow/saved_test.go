package workflow

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// savedPlan plans stack.yaml in dir against the state file there, with
// the input values given, and returns the plan as a plan file holds it,
// and the state backend.
func savedPlan(t *testing.T, dir string, inputs Inputs) (*planner.Plan, state.Store) {
	t.Helper()
	backend, err := state.OpenFile(filepath.Join(dir, "state.json"), state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { backend.Close() })
	id := StateIdentity(backend)
	planned, diags, err := MakePlan(testContext(t), Spec{Paths: []string{"stack.yaml"}, Root: rootOf(t, dir), Inputs: inputs,
		Options: planner.Options{State: &id}}, nil)
	if err != nil || planned == nil {
		t.Fatalf("MakePlan: %v %v", err, diags)
	}
	path := filepath.Join(t.TempDir(), "plan.bin")
	if err := planner.WritePlanFile(path, planned.Plan); err != nil {
		t.Fatal(err)
	}
	saved, err := planner.ReadPlanFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return saved, backend
}

// TestRemakeSaved: a saved plan is made again and applied as made; each
// reason to refuse one is an error saying it, before anything runs.
func TestRemakeSaved(t *testing.T) {
	size := Inputs{Values: map[string]any{"size": 3}}
	tests := []struct {
		name   string
		inputs Inputs // given to apply
		change func(t *testing.T, dir string, saved *planner.Plan) *config.Root
		want   string // "" = the plan is made again
		is     error
	}{
		{name: "same", inputs: size},
		{name: "input value missing", want: "the plan was made with input values for size: pass the same --var and --inputs"},
		{name: "input value changed", inputs: Inputs{Values: map[string]any{"size": 4}}, want: "input value size changed", is: planner.ErrStalePlan},
		{name: "file edited", inputs: size, change: func(t *testing.T, dir string, _ *planner.Plan) *config.Root {
			writeFiles(t, dir, map[string]string{"stack.yaml": stack + "# edited\n"})
			return nil
		}, want: "input file stack.yaml changed since the plan was made; run plan again", is: planner.ErrStalePlan},
		{name: "script edited", inputs: size, change: func(t *testing.T, dir string, _ *planner.Plan) *config.Root {
			writeFiles(t, dir, map[string]string{"create.sh": "#!/bin/sh\nexit 1\n"})
			return nil
		}, want: "create.sh changed", is: planner.ErrStalePlan},
		{name: "another folder", inputs: size, change: func(t *testing.T, dir string, _ *planner.Plan) *config.Root {
			t.Chdir(t.TempDir())
			return nil
		}, want: "the plan was made in another folder: its input stack.yaml is not in this one"},
		{name: "root elsewhere", inputs: size, change: func(t *testing.T, dir string, _ *planner.Plan) *config.Root {
			return rootOf(t, t.TempDir())
		}, want: "it names configuration stack.yaml outside the configuration root", is: planner.ErrBadPlanFile},
		{name: "no configuration", inputs: size, change: func(t *testing.T, dir string, saved *planner.Plan) *config.Root {
			saved.Configuration = nil
			return nil
		}, want: "it names no configuration to make it again from", is: planner.ErrBadPlanFile},
		{name: "state changed", inputs: size, change: func(t *testing.T, dir string, _ *planner.Plan) *config.Root {
			writeFiles(t, dir, map[string]string{"state.json": `{"version": 1, "serial": 1, "lineage": "other", "resources": []}`})
			return nil
		}, want: "saved plan is stale", is: planner.ErrStalePlan},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := project(t)
			saved, backend := savedPlan(t, dir, size)
			root := rootOf(t, dir)
			if tc.change != nil {
				if r := tc.change(t, dir, saved); r != nil {
					root = r
				}
			}
			prior, err := backend.Read(testContext(t))
			if err != nil {
				t.Fatal(err)
			}
			asked := false
			planned, diags, err := RemakeSaved(testContext(t), saved, backend, prior, SavedOptions{Inputs: tc.inputs,
				Root: func() (*config.Root, error) { asked = true; return root, nil }})
			if tc.want == "" {
				if err != nil || planned == nil || diags.HasErrors() {
					t.Fatalf("RemakeSaved: %v %v", err, diags)
				}
				if got := len(planned.Plan.Steps()); got != 1 {
					t.Errorf("made again with %d steps, want the saved plan's 1", got)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("RemakeSaved: %v, want an error containing %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
			if planned != nil {
				t.Error("a refused plan was made again")
			}
			if asked && !strings.Contains(tc.want, "outside the configuration root") && !strings.Contains(tc.want, "changed") {
				t.Error("the root was asked for before the checks that need none")
			}
		})
	}
}

// TestRemakeSavedRootError: an error finding the root is the error.
func TestRemakeSavedRootError(t *testing.T) {
	dir := project(t)
	saved, backend := savedPlan(t, dir, Inputs{})
	want := errors.New("no root")
	_, _, err := RemakeSaved(testContext(t), saved, backend, nil, SavedOptions{Root: func() (*config.Root, error) { return nil, want }})
	if !errors.Is(err, want) {
		t.Errorf("err = %v", err)
	}
}

// TestCheckPlanStateRefusesAnotherState: a plan made against one state
// file is refused for another.
func TestCheckPlanStateRefusesAnotherState(t *testing.T) {
	dir := project(t)
	saved, _ := savedPlan(t, dir, Inputs{})
	other, err := state.OpenFile(filepath.Join(dir, "other.json"), state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	err = CheckPlanState(saved, other)
	if !errors.Is(err, planner.ErrWrongState) || !strings.Contains(err.Error(), "apply it to that state (--state, --workspace)") {
		t.Errorf("err = %v", err)
	}
}

// TestRefuseArchives: a CSAR file among the paths is refused, naming how
// to unpack it; folders and YAML files pass.
func TestRefuseArchives(t *testing.T) {
	dir := project(t)
	writeFiles(t, dir, map[string]string{"app.csar": "PK", "sub/stack.yaml": stack})
	if err := RefuseArchives([]string{"stack.yaml", "sub", "missing.csar"}); err != nil {
		t.Errorf("refused: %v", err)
	}
	err := RefuseArchives([]string{"stack.yaml", "app.csar"})
	if err == nil || !strings.Contains(err.Error(), "app.csar is a CSAR archive") || !strings.Contains(err.Error(), "unzip app.csar -d DIR") {
		t.Errorf("err = %v", err)
	}
}

// TestCheckConfigured: an apply that finds no configuration is refused
// when the state records resources, and allowed on an empty state.
func TestCheckConfigured(t *testing.T) {
	empty := config.Result{}
	recorded := &state.State{Resources: []state.Resource{{Address: "a"}, {Address: "b"}}}
	if err := CheckConfigured(empty, &state.State{}, []string{"."}); err != nil {
		t.Errorf("empty state: %v", err)
	}
	err := CheckConfigured(empty, recorded, []string{"x", "y"})
	if err == nil || !strings.Contains(err.Error(), "no configuration found in x, y, but the state records 2 resources") {
		t.Errorf("err = %v", err)
	}
}

// TestPlainError: a path error loses its path, which messages name
// already; other errors are kept.
func TestPlainError(t *testing.T) {
	_, err := os.Open(filepath.Join(t.TempDir(), "missing"))
	if got := PlainError(err); !errors.Is(got, os.ErrNotExist) || strings.Contains(got.Error(), "missing") {
		t.Errorf("PlainError(%v) = %v", err, got)
	}
	other := errors.New("other")
	if PlainError(other) != other {
		t.Error("PlainError changed a plain error")
	}
}
