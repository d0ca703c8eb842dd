package sync

import (
	"testing"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestScriptFailuresGoToTheFactorysActivity: a component's failed action
// and a check that finds it failed are in its factory's activity log (the
// check's in the component's too); a resource without a factory, and a
// check that finds it well, add nothing.
func TestScriptFailuresGoToTheFactorysActivity(t *testing.T) {
	e := New(Options{})
	e.recorded = &state.State{Resources: []state.Resource{
		{Address: "A.vm", Driver: graph.Driver{Options: map[string]graph.Value{executor.OptionFactoryAddress: "F.factory"}}},
		{Address: "web"},
	}}
	e.noteApplyFailure(executor.Event{Type: executor.EventErrored, Address: "A.vm", Action: "create", Error: "launch script /launch.sh: exit status 3"})
	e.noteApplyFailure(executor.Event{Type: executor.EventComplete, Address: "A.vm", Action: "create"})
	e.noteApplyFailure(executor.Event{Type: executor.EventErrored, Address: "web", Action: "create", Error: "no"})
	failed := func(addr string, failed bool) planner.ResourceDrift {
		return planner.ResourceDrift{Address: addr, After: map[string]graph.Value{"status": map[string]graph.Value{"failed": failed, "message": "gone"}}}
	}
	e.noteCheckFailure(failed("A.vm", true), "discovery")
	e.noteCheckFailure(failed("A.vm", false), "health check")
	e.noteCheckFailure(failed("web", true), "health check")

	var got []string
	for _, a := range e.tracked["F.factory"].activity {
		got = append(got, a.Type+" "+a.Message)
	}
	want := []string{"script_failed A.vm: create: launch script /launch.sh: exit status 3", "script_failed A.vm: discovery: gone"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("factory activity %q, want %q", got, want)
	}
	if a := e.tracked["A.vm"].activity; len(a) != 1 || a[0].Message != "discovery: gone" {
		t.Errorf("component activity %+v", a)
	}
	if e.tracked["web"] != nil {
		t.Errorf("a resource without a factory got %+v", e.tracked["web"].activity)
	}
}
