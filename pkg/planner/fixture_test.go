package planner

import (
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner/planfixture"
	"github.com/xosplan/xosplan/pkg/state"
)

// loadCase reads a case folder (planfixture.LoadCase) with its options as
// planner Options.
func loadCase(t testing.TB, dir string) (*graph.Graph, *state.State, Options) {
	t.Helper()
	g, st, o := planfixture.LoadCase(t, dir)
	return g, st, Options{Destroy: o.Destroy, RefreshOnly: o.RefreshOnly, Targets: o.Targets,
		Excludes: o.Excludes, Replace: o.Replace, CreateBeforeDestroy: o.CreateBeforeDestroy}
}
