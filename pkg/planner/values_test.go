package planner

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestAttributeValuesRecordsOnly: a change confined to the attribute
// values a spec assigns ("attributes", "relationships": initial values of
// the object's actual state) is an update in place that runs nothing
// (RecordsOnly), whether or not the driver could update in place; before,
// an exec resource without Standard.configure was replaced, which is what
// a state recorded before 1.x attribute defaults joined the spec would
// have planned on upgrade. A change of anything else too, or a failed
// object, keeps its action; a plan file keeps the mark.
func TestAttributeValuesRecordsOnly(t *testing.T) {
	create := map[string]graph.Operation{"Standard.create": {Implementation: "create.sh", Digest: "sha256:1"}}
	withConfigure := map[string]graph.Operation{"Standard.create": create["Standard.create"], "Standard.configure": {Implementation: "configure.sh", Digest: "sha256:2"}}
	before := map[string]graph.Value{"properties": map[string]graph.Value{"size": int64(1)}, "attributes": map[string]graph.Value{"level": int64(3)}}
	with := func(kv ...any) map[string]graph.Value {
		out := map[string]graph.Value{"properties": before["properties"], "attributes": before["attributes"]}
		for i := 0; i < len(kv); i += 2 {
			out[kv[i].(string)] = kv[i+1]
		}
		return out
	}
	rels := map[string]graph.Value{"db": []graph.Value{map[string]graph.Value{"target": "db", "attributes": map[string]graph.Value{"mode": "tls"}}}}
	tests := []struct {
		name        string
		ops         map[string]graph.Operation
		after       map[string]graph.Value
		afterOps    map[string]graph.Operation
		failed      bool
		action      Action
		reason      Reason
		reasonPaths []string
		recordsOnly bool
	}{
		{"assignment, no configure", create, with("attributes", map[string]graph.Value{"level": int64(4)}), create,
			false, Update, ReasonSpecChanged, []string{"attributes.level"}, true},
		{"relationships gained, no configure", create, with("relationships", rels), create,
			false, Update, ReasonSpecChanged, []string{"relationships"}, true},
		{"assignment, configure", withConfigure, with("attributes", map[string]graph.Value{"level": int64(4)}), withConfigure,
			false, Update, ReasonSpecChanged, []string{"attributes.level"}, true},
		{"assignment and property, no configure", create,
			with("attributes", map[string]graph.Value{"level": int64(4)}, "properties", map[string]graph.Value{"size": int64(2)}), create,
			false, DeleteThenCreate, ReasonCannotUpdate, []string{"attributes.level", "properties.size"}, false},
		{"assignment and configure's script", withConfigure, with("attributes", map[string]graph.Value{"level": int64(4)}),
			map[string]graph.Operation{"Standard.create": create["Standard.create"], "Standard.configure": {Implementation: "configure.sh", Digest: "sha256:9"}},
			false, Update, ReasonSpecChanged, []string{"attributes.level"}, false},
		{"assignment of a failed object", create, with("attributes", map[string]graph.Value{"level": int64(4)}), create,
			true, DeleteThenCreate, ReasonLastApplyFailed, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fb := state.Feedback{BackendCode: state.BackendOK, Enacted: time.Unix(1, 0)}
			if tt.failed {
				fb.BackendCode, fb.LastAttempt = state.BackendError, time.Unix(2, 0)
			}
			checkDecision(t, &graph.Resource{Address: "obj", Type: "t", Management: graph.Managed, Spec: tt.after,
				Driver: graph.Driver{Name: graph.DriverExec, Operations: tt.afterOps}},
				state.Resource{Address: "obj", Type: "t", Management: graph.Managed,
					Spec: before, Driver: graph.Driver{Name: graph.DriverExec, Operations: tt.ops}, Feedback: fb},
				tt.action, tt.reason, tt.reasonPaths, tt.recordsOnly)
		})
	}
}

// checkDecision plans after against a state that records before and
// checks the one change: its action, reason, reason paths and whether it
// records only, also as a plan file reads it back.
func checkDecision(t *testing.T, after *graph.Resource, before state.Resource, action Action, reason Reason, reasonPaths []string, recordsOnly bool) {
	t.Helper()
	g := graph.New()
	if err := g.AddResource(after); err != nil {
		t.Fatal(err)
	}
	p, diags := Diff(context.Background(), g, &state.State{Lineage: "l", Resources: []state.Resource{before}}, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	c := &p.Changes[0]
	if c.Action != action || c.Reason != reason || !slices.Equal(c.ReasonPaths, reasonPaths) || c.RecordsOnly() != recordsOnly {
		t.Errorf("%s %s %q records only %v, want %s %s %q %v", c.Action, c.Reason, c.ReasonPaths, c.RecordsOnly(),
			action, reason, reasonPaths, recordsOnly)
	}
	if got := fileRoundTrip(t, p).Changes[0].RecordsOnly(); got != recordsOnly {
		t.Errorf("read back from a plan file: records only %v", got)
	}
}
