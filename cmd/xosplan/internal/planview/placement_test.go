package planview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

func TestPlacementViews(t *testing.T) {
	p := &planner.Plan{FormatVersion: planner.FormatVersion, Mode: planner.ModeNormal, Changes: []planner.ResourceChange{
		{Address: "web", Type: "tosca.nodes.Compute", Action: planner.Create, Reason: planner.ReasonNotInState,
			Placement: &planner.PlacementDecision{Allocations: []state.Allocation{{Provider: "compute-2", Resources: map[string]int64{"VCPU": 2, "MEMORY_MB": 2048}}}}},
		{Address: "database", Type: "tosca.nodes.Compute", Action: planner.NoOp,
			Placement: &planner.PlacementDecision{Kept: true, Allocations: []state.Allocation{{Provider: "compute-3", Resources: map[string]int64{"VCPU": 4}}}}},
	}}
	p.Summary.Add, p.Summary.NoOp = 1, 1
	var text bytes.Buffer
	if err := Text(&text, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Placement:\n  database  -> compute-3 (VCPU=4) (kept)\n  web       -> compute-2 (MEMORY_MB=2048, VCPU=2)\n\nPlan: 1 to add",
		"  # (placed on compute-2: MEMORY_MB=2048, VCPU=2)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text plan lacks %q:\n%s", want, text.String())
		}
	}
	md := Markdown(p, MarkdownOptions{})
	want := "#### Placement (2)\n\n| resource | provider | resources |\n|---|---|---|\n| `database` | compute-3 (kept) | VCPU=4 |\n| `web` | compute-2 | MEMORY_MB=2048, VCPU=2 |\n"
	if !strings.Contains(md, want) {
		t.Errorf("markdown lacks the placement table:\n%s", md)
	}
}

// TestPlacementJSON: the placement object is written as encoding/json
// writes it without HTML escaping ("&" in the query stays "&").
func TestPlacementJSON(t *testing.T) {
	p := &planner.Plan{FormatVersion: planner.FormatVersion, Mode: planner.ModeNormal, Changes: []planner.ResourceChange{
		{Address: "web", Type: "tosca.nodes.Compute", Action: planner.Create, Reason: planner.ReasonNotInState,
			Placement: &planner.PlacementDecision{Query: "resources=VCPU:2&required=HW_ARCH_X86_64",
				Allocations: []state.Allocation{{Provider: "compute-2", Resources: map[string]int64{"VCPU": 2}}}}},
	}}
	var got bytes.Buffer
	if err := JSON(&got, p); err != nil {
		t.Fatal(err)
	}
	want := `"placement":{"allocations":[{"provider":"compute-2","resources":{"VCPU":2}}],"query":"resources=VCPU:2&required=HW_ARCH_X86_64"}`
	if !strings.Contains(got.String(), want) {
		t.Errorf("JSON plan lacks %s:\n%s", want, got.String())
	}
}
