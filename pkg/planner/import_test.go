package planner

import (
	"context"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestImportFilterAdoptsInsteadOfCreating: a managed resource with an
// import filter is adopted (create because import_by_filter, the filter
// carried in the change and the plan file) while it is not recorded, or
// its adoption never succeeded; once adopted it is an ordinary resource.
// A read carries its lookup keys the same way.
func TestImportFilterAdoptsInsteadOfCreating(t *testing.T) {
	filter := map[string]graph.Value{"name": "orders"}
	g := graph.New()
	for _, r := range []*graph.Resource{
		{Address: "db", Type: "db", Management: graph.Managed, Spec: map[string]graph.Value{}, Import: filter},
		{Address: "failed", Type: "db", Management: graph.Managed, Spec: map[string]graph.Value{}, Import: filter},
		{Address: "adopted", Type: "db", Management: graph.Managed, Spec: map[string]graph.Value{}, Import: filter},
		{Address: "site", Type: "site", Management: graph.Unmanaged, Spec: map[string]graph.Value{}, Lookup: map[string]graph.Value{"name": "s", "slot": int64(3), "open": true}},
	} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	prior := &state.State{Lineage: "l", Resources: []state.Resource{
		{Address: "adopted", Type: "db", Management: graph.Managed, Spec: map[string]graph.Value{},
			Feedback: state.Feedback{BackendCode: state.BackendOK, Enacted: time.Unix(1, 0)}},
		{Address: "failed", Type: "db", Management: graph.Managed, Spec: map[string]graph.Value{},
			Feedback: state.Feedback{BackendCode: state.BackendError}},
	}}
	p, diags := Diff(context.Background(), g, prior, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	want := map[string]string{"db": "create import_by_filter", "failed": "create import_by_filter", "adopted": "no-op ", "site": "read read_because_unmanaged"}
	for _, c := range p.Changes {
		if got := c.Action.String() + " " + c.Reason.String(); got != want[c.Address] {
			t.Errorf("%s: %s, want %s", c.Address, got, want[c.Address])
		}
		if c.Imports() != (c.Reason == ReasonImportFilter) || c.Imports() && c.Import["name"] != "orders" {
			t.Errorf("%s: Imports %v, filter %v", c.Address, c.Imports(), c.Import)
		}
	}
	back := readBack(t, p)
	for _, c := range back.Changes {
		if c.Address == "db" && c.Import["name"] != "orders" || c.Address == "site" && (c.Lookup["name"] != "s" || c.Lookup["slot"] != int64(3) || c.Lookup["open"] != true) {
			t.Errorf("the plan file lost the filter or keys: %+v", c)
		}
	}
}
