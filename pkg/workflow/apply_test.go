package workflow

import (
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestApplyRunsThePlanAndRecordsIt: a plan made by MakePlan is applied
// with its script, confined to the root, and the state records it; with
// an inventory that cannot be read nothing runs.
func TestApplyRunsThePlanAndRecordsIt(t *testing.T) {
	dir := project(t)
	ctx := testContext(t)
	backend, err := state.OpenFile(filepath.Join(dir, "state.json"), state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	held, err := backend.Lock(ctx, state.LockInfo{Operation: "apply"})
	if err != nil {
		t.Fatal(err)
	}
	defer held.Unlock()
	planned, diags, err := MakePlan(ctx, Spec{Paths: []string{"stack.yaml"}, Root: rootOf(t, dir)}, nil)
	if err != nil || planned == nil {
		t.Fatalf("MakePlan: %v %v", err, diags)
	}

	_, err = Apply(ctx, planned.Plan, planned.Desired, backend, nil, ApplyOptions{Placement: Placement{Providers: "missing.yaml"}})
	if err == nil {
		t.Error("applied with an inventory that cannot be read")
	}

	applied, err := Apply(ctx, planned.Plan, planned.Desired, backend, nil, ApplyOptions{Root: []string{dir},
		Executor: executor.Options{ScriptRoot: planned.ScriptRoot}})
	if err != nil || applied == nil || applied.Report == nil {
		t.Fatalf("Apply: %+v, %v", applied, err)
	}
	if !applied.Report.OK() || !applied.Report.Changes() || applied.PlacementErrors != nil {
		t.Errorf("report %+v, placement errors %v", applied.Report, applied.PlacementErrors)
	}
	st, err := backend.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Resources) != 1 || st.Resources[0].Address != "app" || st.Resources[0].Feedback.BackendCode != state.BackendOK {
		t.Errorf("state records %+v", st.Resources)
	}
}
