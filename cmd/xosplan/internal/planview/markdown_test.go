package planview

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// A plan far larger than a comment keeps its head (marker, summary,
// warning, lists) and a well-formed, truncated details block.
func TestMarkdownLimit(t *testing.T) {
	g := graph.New()
	st := &state.State{Version: 1, Serial: 1, Lineage: "l"}
	for i := range 3000 {
		addr := fmt.Sprintf("res%04d", i)
		_ = g.AddResource(&graph.Resource{Address: addr, Type: "t", Driver: graph.Driver{Name: graph.DriverNoop},
			Spec: map[string]graph.Value{"text": strings.Repeat("line ```\n", 5), "n": int64(i)}, Management: graph.Managed})
		if i%3 == 0 {
			st.Resources = append(st.Resources, state.Resource{Address: "old" + addr, Type: "t", Management: graph.Managed,
				Spec: map[string]graph.Value{"n": int64(i)}, Feedback: state.Feedback{BackendCode: 1}})
		}
	}
	p, diags := planner.Diff(context.Background(), g, st, planner.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	for _, limit := range []int{0, 20_000} {
		md := Markdown(p, MarkdownOptions{Limit: limit, Title: "prod"})
		max := limit
		if max == 0 {
			max = MaxMarkdown
		}
		if len(md) > max {
			t.Errorf("limit %d: %d bytes", max, len(md))
		}
		for _, want := range []string{"<!-- xosplan:plan_id=" + p.PlanID + " -->", "## :warning: prod:", "**Plan: 3000 to add, 0 to change, 1000 to destroy.**",
			"> [!WARNING]", "> - … and 900 more", "#### Create (3000)", "- … and 2900 more"} {
			if !strings.Contains(md, want) {
				t.Errorf("limit %d: lacks %q", max, want)
			}
		}
		if limit == 0 && (!strings.Contains(md, "The plan was truncated after") || !strings.Contains(md, "````diff\n") || !strings.Contains(md, "\n````\n\n</details>\n")) {
			t.Errorf("details block not truncated cleanly:\n%s", md[len(md)-500:])
		}
	}
	small := Markdown(p, MarkdownOptions{Limit: 500})
	if len(small) > 500 || !strings.HasPrefix(small, "<!-- xosplan:plan_id=") {
		t.Errorf("tiny limit: %d bytes %q", len(small), small)
	}
}

// The comment's marker names the configuration when an ID is given, still
// within the limit, and only IDs that cannot end the HTML comment or break
// a bot's match are valid.
func TestMarkdownID(t *testing.T) {
	g := graph.New()
	_ = g.AddResource(&graph.Resource{Address: "a", Type: "t", Driver: graph.Driver{Name: graph.DriverNoop}, Management: graph.Managed})
	p, diags := planner.Diff(context.Background(), g, &state.State{Version: 1, Lineage: "l"}, planner.Options{})
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	md := Markdown(p, MarkdownOptions{ID: "infra/prod", Limit: 300})
	if !strings.HasPrefix(md, "<!-- xosplan:plan_id="+p.PlanID+" id=infra/prod -->\n") || len(md) > 300 {
		t.Errorf("marker: %q", md)
	}
	for id, want := range map[string]bool{"infra/prod": true, "a.b_c-1": true, "": false, "a -->": false, "a\nb": false, strings.Repeat("x", 101): false, "é": false} {
		if ValidMarkdownID(id) != want {
			t.Errorf("ValidMarkdownID(%q) = %v", id, !want)
		}
	}
}
