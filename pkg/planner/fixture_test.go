package planner

import (
	"flag"
	"testing"

	"github.com/xosplan/xosplan/internal/planfixture"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

var update = flag.Bool("update", false, "rewrite golden files")

// loadCase reads a case folder (planfixture.LoadCase) with its options as
// planner Options.
func loadCase(t testing.TB, dir string) (*graph.Graph, *state.State, Options) {
	t.Helper()
	g, st, o := planfixture.LoadCase(t, dir)
	return g, st, Options{Destroy: o.Destroy, RefreshOnly: o.RefreshOnly, Targets: o.Targets,
		Excludes: o.Excludes, Replace: o.Replace, CreateBeforeDestroy: o.CreateBeforeDestroy}
}

// golden compares got with the file, or rewrites it with -update
// (testutil.Golden).
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	testutil.Golden(t, path, got, *update)
}
