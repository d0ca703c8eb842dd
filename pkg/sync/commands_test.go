package sync

import (
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestCommandResultsAreNoDrift: the paths of a check's drift that are
// command invocations are split from the rest, and each invocation that
// got a result becomes an EventCommand saying what; the API lists them.
func TestCommandResultsAreNoDrift(t *testing.T) {
	cmds, rest := commandPaths([]string{"attributes.commands.c1.status", "signals.compute.ip", "attributes.commandsx"})
	if !reflect.DeepEqual(cmds, []string{"attributes.commands.c1.status"}) || !reflect.DeepEqual(rest, []string{"signals.compute.ip", "attributes.commandsx"}) {
		t.Errorf("split %q / %q", cmds, rest)
	}
	record := func(invs ...executor.Invocation) map[string]graph.Value {
		return map[string]graph.Value{"attributes": map[string]graph.Value{executor.AttrCommands: invsValue(invs)}}
	}
	pending := executor.Invocation{ID: "c1", Command: "control.backup", Status: executor.InvocationPending}
	progress := pending
	progress.Intermediate = []map[string]graph.Value{{"state": "copying"}}
	done := progress
	done.Status, done.Result = executor.InvocationCompleted, map[string]graph.Value{"size": int64(42)}
	other := executor.Invocation{ID: "c2", Command: "control.x", Status: executor.InvocationPending}

	evs := commandEvents(planner.ResourceDrift{Address: "DB.db", Before: record(pending, other), After: record(done, other)})
	if len(evs) != 1 || evs[0].Type != EventCommand || evs[0].Message != `control.backup (c1) completed: {"size":42}` {
		t.Errorf("completed: %+v", evs)
	}
	evs = commandEvents(planner.ResourceDrift{Address: "DB.db", Before: record(pending), After: record(progress)})
	if len(evs) != 1 || evs[0].Message != `control.backup (c1) is pending: {"state":"copying"}` {
		t.Errorf("intermediate: %+v", evs)
	}

	v, err := graph.Canonicalize(record(done)["attributes"])
	if err != nil {
		t.Fatal(err)
	}
	cs := commandsOf(&state.Resource{Feedback: state.Feedback{Attributes: v.(map[string]graph.Value)}})
	if len(cs) != 1 || cs[0].Status != executor.InvocationCompleted || cs[0].Result["size"] != int64(42) || len(cs[0].Intermediate) != 1 {
		t.Errorf("API: %+v", cs)
	}
}

func invsValue(invs []executor.Invocation) graph.Value {
	m := map[string]graph.Value{}
	for _, inv := range invs {
		m[inv.ID] = inv.Value()
	}
	return m
}
