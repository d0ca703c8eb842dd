package planview

import (
	"bytes"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// escAddress retitles a terminal (OSC 0) if printed raw.
const escAddress = "web\x1b]0;pwned\x07"

// escPlan holds escape sequences in an address, a type, a key, a value, a
// multi-line value, a dependency and a provider name, and in the address,
// provider and resource class of a placed no-op.
func escPlan() *planner.Plan {
	return &planner.Plan{
		Changes: []planner.ResourceChange{
			{Address: "db", Type: "t", Action: planner.NoOp},
			{Address: "cache\x1b[1m", Type: "t", Action: planner.NoOp,
				Placement: &planner.PlacementDecision{Kept: true, Allocations: []state.Allocation{
					{Provider: "cn\x1b[6m", Resources: map[string]int64{"VCPU\x1b[7m": 1}}}}},
			{Address: escAddress, Type: "t\x1b[2J", Action: planner.Update, Reason: planner.ReasonDependencyReplaced,
				ForcedBy: []string{"dep\x1b[31m"}, ChangedPaths: []string{"name\x1b[1m", "script"},
				Before: map[string]graph.Value{"name\x1b[1m": "old", "script": "one\ntwo\n", "same": "x"},
				After:  map[string]graph.Value{"name\x1b[1m": "v\x1b[2J", "script": "one\x1b[2J\ntwo\n", "same": "x"},
				Placement: &planner.PlacementDecision{Allocations: []state.Allocation{
					{Provider: "cn\x1b[5m", Resources: map[string]int64{"VCPU": 1}}}}},
		},
		Summary: planner.Summary{Change: 1, NoOp: 2},
	}
}

// checkShown fails when out holds a control character other than a line
// feed, a tab or the view's own colours, or lacks one of want.
func checkShown(t *testing.T, what, out string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, out)
		}
	}
	for _, own := range []string{ansiReset, ansiBold, ansiRed, ansiGreen, ansiYellow, ansiCyan} {
		out = strings.ReplaceAll(out, own, "")
	}
	if i := strings.IndexFunc(out, func(r rune) bool { return r != '\n' && termsafe.IsControl(r) }); i >= 0 {
		t.Errorf("%s holds control character %q:\n%s", what, out[i], out)
	}
}

// TestControlCharactersShown renders plans and a state whose addresses
// and values hold escape sequences: the text (plain and coloured), the
// markdown and the state show them as symbols.
func TestControlCharactersShown(t *testing.T) {
	p := escPlan()
	for _, color := range []bool{false, true} {
		var b bytes.Buffer
		if err := Text(&b, p, TextOptions{Color: color}); err != nil {
			t.Fatal(err)
		}
		checkShown(t, "text", b.String(), "web␛]0;pwned␇ will be updated in-place", `"t␛[2J"`,
			"dep␛[31m", "name␛[1m", `"v␛[2J"`, "one␛[2J", "cn␛[5m", "cache␛[1m", "cn␛[6m", "VCPU␛[7m=1")
	}
	checkShown(t, "markdown", Markdown(p, MarkdownOptions{}), "web␛]0;pwned␇", "`cache␛[1m` | cn␛[6m (kept)")
	st := &state.State{Lineage: "l\x1b[2J", Serial: 1, Resources: []state.Resource{{
		Address: escAddress, Type: "t", Dependencies: []string{"dep\x1b[31m"},
		Spec:     map[string]graph.Value{"k\x1b[1m": "v\x1b[2J"},
		Feedback: state.Feedback{Attributes: map[string]graph.Value{"a\x1b[1m": "x"}},
	}}}
	var b bytes.Buffer
	if err := StateText(&b, st, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	checkShown(t, "state", b.String(), "# web␛]0;pwned␇:", "k␛[1m", "attributes.a␛[1m")
	b.Reset()
	if err := StateText(&b, &state.State{Lineage: "l\x1b[2J"}, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	checkShown(t, "empty state", b.String(), "l␛[2J")
	g := graph.New()
	if err := g.AddResource(&graph.Resource{Address: escAddress, Type: "t\x1b[2J"}); err != nil {
		t.Fatal(err)
	}
	for name, render := range map[string]func(*bytes.Buffer) error{
		"dot":     func(b *bytes.Buffer) error { return DOT(b, g) },
		"mermaid": func(b *bytes.Buffer) error { return Mermaid(b, g) },
	} {
		b.Reset()
		if err := render(&b); err != nil {
			t.Fatal(err)
		}
		checkShown(t, name, b.String(), "web␛]0;pwned␇", "t␛[2J")
	}
}

// TestSafeCopiesOnlyWhenNeeded checks that a plan or state without control
// characters is rendered as it is (no copy), and that the copy of one with
// them leaves the original untouched.
func TestSafeCopiesOnlyWhenNeeded(t *testing.T) {
	clean := &planner.Plan{Changes: []planner.ResourceChange{{Address: "web", After: map[string]graph.Value{"k": []graph.Value{"v", graph.Unknown{Func: "get_attribute", Args: []graph.Value{"db", "ip"}}}}}}}
	if safePlan(clean) != clean {
		t.Error("a clean plan was copied")
	}
	// Nothing of a no-op but a placement is printed, so its values are
	// neither converted nor a reason to copy.
	unprinted := &planner.Plan{Changes: []planner.ResourceChange{{Address: "web", Action: planner.NoOp,
		Before: map[string]graph.Value{"k": "v\x1b[2J"}, After: map[string]graph.Value{"k": "v\x1b[2J"}}}}
	if safePlan(unprinted) != unprinted {
		t.Error("a plan whose only control characters are in the values of a no-op was copied")
	}
	st := &state.State{Resources: []state.Resource{{Address: "web", Spec: map[string]graph.Value{"k": "v"}}}}
	if safeState(st) != st {
		t.Error("a clean state was copied")
	}
	p := escPlan()
	q := safePlan(p)
	if q == p || p.Changes[2].Address != escAddress || p.Changes[2].After["name\x1b[1m"] != "v\x1b[2J" {
		t.Errorf("the original plan changed or was not copied: %+v", p.Changes[2])
	}
	if q.Changes[0].Address != "db" || q.Changes[2].Before["same"] != "x" {
		t.Errorf("clean parts of the copy differ: %+v", q.Changes)
	}
	u, changed := safeValue(graph.Unknown{Func: "get_attribute", Args: []graph.Value{"x\x1b", "ip"}})
	if !changed || u.(graph.Unknown).Args[0] != "x␛" {
		t.Errorf("unknown not converted: %#v", u)
	}
}
