package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestDefaultScriptRoot: the scripts folder beside the first manifest
// folder that has one, absolute; none when no folder has one.
func TestDefaultScriptRoot(t *testing.T) {
	dir := project(t)
	writeFiles(t, dir, map[string]string{"b/scripts/vm/launch.py": "", "c/scripts/vm/launch.py": "", "a/scripts": "a file"})
	if got, want := DefaultScriptRoot([]string{"a", "b", "c"}), filepath.Join(dir, "b", "scripts"); got != want {
		t.Errorf("DefaultScriptRoot = %q, want %q", got, want)
	}
	if got := DefaultScriptRoot([]string{"a", "missing"}); got != "" {
		t.Errorf("DefaultScriptRoot without scripts = %q", got)
	}
}

// TestExecutorRoot: the configuration root's folders, then those of the
// work folders the state records (their repository, else themselves).
func TestExecutorRoot(t *testing.T) {
	dir := project(t)
	elsewhere, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	prior := &state.State{Resources: []state.Resource{
		{Address: "a", Feedback: state.Feedback{Extra: map[string]graph.Value{executor.ExtraWorkDir: elsewhere}}},
		{Address: "b"},
	}}
	tests := []struct {
		name  string
		root  bool
		prior *state.State
		want  []string
	}{
		{name: "neither"},
		{name: "root", root: true, want: []string{dir}},
		{name: "recorded", prior: prior, want: []string{elsewhere}},
		{name: "both", root: true, prior: prior, want: []string{dir, elsewhere}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := rootOf(t, dir)
			if !tc.root {
				root = nil
			}
			got, err := ExecutorRoot(root, tc.prior)
			if err != nil || !slices.Equal(got, tc.want) {
				t.Errorf("ExecutorRoot = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestFindRoot: the working folder, when it holds the paths and is in no
// repository.
func TestFindRoot(t *testing.T) {
	dir := project(t)
	root, err := FindRoot([]string{"stack.yaml"})
	if err != nil || !slices.Equal(root.ResolvedDirs(), []string{dir}) {
		t.Errorf("FindRoot = %v, %v; want %s", root, err, dir)
	}
}

// TestScriptStateDirBesideStateFile: .xosplan beside a state file, made
// when missing; a database state's in the working folder.
func TestScriptStateDirBesideStateFile(t *testing.T) {
	dir := project(t)
	states := filepath.Join(dir, "states")
	backend, err := state.OpenFile(filepath.Join(states, "prod.json"), state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	got := ScriptStateDir(backend)
	if want := filepath.Join(states, ".xosplan"); got != want {
		t.Errorf("ScriptStateDir = %q, want %q", got, want)
	}
	if fi, err := os.Stat(got); err != nil || !fi.IsDir() {
		t.Errorf("not made: %v", err)
	}
	if got, want := ScriptStateDir(databaseStore{backend}), filepath.Join(dir, ".xosplan"); got != want {
		t.Errorf("ScriptStateDir of a database = %q, want %q", got, want)
	}
}

// databaseStore is a state that is not a file.
type databaseStore struct{ state.Store }

// TestStateIdentityRelative: a state file under the working folder is
// named relative to it, so that a plan file does not depend on where the
// checkout is.
func TestStateIdentityRelative(t *testing.T) {
	dir := project(t)
	for _, tc := range []struct{ path, want string }{
		{filepath.Join(dir, "states", "s.json"), "states/s.json"},
		{filepath.Join(filepath.Dir(dir), "s.json"), filepath.Join(filepath.Dir(dir), "s.json")},
	} {
		backend, err := state.OpenFile(tc.path, state.FileOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got := StateIdentity(backend); got.Path != tc.want || got.Backend != state.BackendFile {
			t.Errorf("StateIdentity(%s) = %+v, want path %s", tc.path, got, tc.want)
		}
		backend.Close()
	}
}

// TestPlacementOptions: placement is off without a source; the demo cloud
// and an inventory file place, and make a placer; an inventory and an API
// at once is a diagnostic; a saved plan's API must be the one given.
func TestPlacementOptions(t *testing.T) {
	ctx := testContext(t)
	if opts, diags := (Placement{}).PlanOptions(ctx, nil); opts != nil || diags != nil {
		t.Errorf("off: %v %v", opts, diags)
	}
	if cl, err := (Placement{}).Placer(ctx, nil); cl != nil || err != nil || ExecutorPlacer(cl) != nil {
		t.Errorf("off: placer %v, %v", cl, err)
	}
	demo := Placement{Providers: DemoProviders}
	opts, diags := demo.PlanOptions(ctx, nil)
	if opts == nil || opts.Model == nil || opts.Source.Inventory != DemoProviders || diags.HasErrors() {
		t.Errorf("demo: %+v %v", opts, diags)
	}
	if cl, err := demo.Placer(ctx, &state.State{Lineage: "l"}); cl == nil || err != nil || ExecutorPlacer(cl) == nil {
		t.Errorf("demo placer: %v, %v", cl, err)
	}
	read := func(_ context.Context, path string) ([]byte, *diag.Diagnostic) {
		return nil, &diag.Diagnostic{Severity: diag.Error, Code: "test.unreadable", Summary: "cannot read " + path}
	}
	_, diags = Placement{Providers: "cloud.yaml", ReadFile: read}.PlanOptions(ctx, nil)
	if len(diags) != 1 || diags[0].Summary != "cannot read cloud.yaml" {
		t.Errorf("inventory read through ReadFile: %v", diags)
	}
	both := Placement{Providers: DemoProviders, URL: "http://127.0.0.1:1"}
	if _, diags := both.PlanOptions(ctx, nil); len(diags) != 1 || diags[0].Code != CodePlacementBackend {
		t.Errorf("both: %v", diags)
	}
	if _, err := both.Placer(ctx, nil); err == nil || !strings.Contains(err.Error(), "cannot be combined") {
		t.Errorf("both placer: %v", err)
	}
	given := Placement{URL: "http://127.0.0.1:1", Token: "t", ReadFile: read}
	if _, err := given.ForSaved(&planner.PlacementSource{API: "http://127.0.0.1:2"}); err == nil || !strings.Contains(err.Error(), "give apply the same --placement-url") {
		t.Errorf("other API: %v", err)
	}
	if p, err := given.ForSaved(&planner.PlacementSource{API: "http://127.0.0.1:1"}); err != nil || p.URL != given.URL || p.Token != "t" || p.Providers != "" {
		t.Errorf("same API: %+v %v", p, err)
	}
	if p, err := given.ForSaved(&planner.PlacementSource{Inventory: "cloud.yaml"}); err != nil || p.Providers != "cloud.yaml" || p.URL != "" || p.ReadFile == nil {
		t.Errorf("inventory: %+v %v", p, err)
	}
	if p, err := given.ForSaved(nil); err != nil || p.Enabled() {
		t.Errorf("no placement: %+v %v", p, err)
	}
}

// TestStateRecovery: an error that is not about the lock, the serial or
// the journal is returned as it is; one that is says what became of the
// operations and what to run next.
func TestStateRecovery(t *testing.T) {
	dir := project(t)
	backend, err := state.OpenFile(filepath.Join(dir, "state.json"), state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	plain := errors.New("disk full")
	if got := StateRecovery(plain, backend, true); got != plain {
		t.Errorf("plain error became %v", got)
	}
	lost := fmt.Errorf("apply: %w", state.ErrLockLost)
	for _, tc := range []struct {
		ran  bool
		want string
	}{
		{false, "nothing was run: check with `xosplan state list`, then plan again"},
		{true, "every operation this run completed is kept in the journal " + backend.JournalLocation()},
	} {
		got := StateRecovery(lost, backend, tc.ran)
		if !errors.Is(got, state.ErrLockLost) || !strings.Contains(got.Error(), tc.want) {
			t.Errorf("ran %v: %v, want it to contain %q", tc.ran, got, tc.want)
		}
	}
}

// TestRefreshOfEmptyState: a refresh of a state that records nothing
// plans nothing and checks nothing.
func TestRefreshOfEmptyState(t *testing.T) {
	dir := project(t)
	backend, err := state.OpenFile(filepath.Join(dir, "state.json"), state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	ctx := testContext(t)
	loaded, err := LoadLocked(ctx, backend)
	if err != nil {
		t.Fatal(err)
	}
	refresh := PlanRefresh(ctx, loaded.State, RefreshOptions{StateDir: ScriptStateDir(backend)})
	if refresh.Plan == nil || refresh.Diags.HasErrors() || len(refresh.Plan.Steps()) != 0 {
		t.Fatalf("refresh plan: %v", refresh.Diags)
	}
	rep, err := refresh.Apply(ctx, backend, executor.Options{})
	if err != nil || rep == nil || rep.Checked != 0 || rep.Changes() {
		t.Errorf("refresh: %+v, %v", rep, err)
	}
}
