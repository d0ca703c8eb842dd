package executor

import (
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestWalkRecordsRelationshipOutputs checks that operation outputs mapped
// onto a relationship's attribute (TOSCA SELF in a relationship's
// operation) are recorded with the relationship, in the source's
// feedback, and those mapped onto its target (TARGET) in the target's;
// that a dependent, an output and the source's own next apply read them
// (get_attribute(src, RELATIONSHIP, requirement, [index,] name)); and
// that they are kept across an apply whose operations set none. Before,
// a relationship attribute could not be resolved ("this TOSCA 2.0 path
// leads where xosplan records no state") and such outputs were recorded
// as attributes of the source node.
func TestWalkRecordsRelationshipOutputs(t *testing.T) {
	rel := func(name string) string {
		return graph.OutputAttribute{Requirement: "db", Index: 0, Target: "db", Name: name}.String()
	}
	link := graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "db", "link_id"}}
	linkAt0 := graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "db", int64(0), "tags", int64(1)}}
	seen := graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "seen_by"}}
	g := buildGraph(t, res{addr: "db"}, res{addr: "a", deps: []string{"db"}, inputs: map[string]graph.Value{"link": link}},
		res{addr: "c", deps: []string{"a"}, inputs: map[string]graph.Value{"link": link, "tag": linkAt0, "seen": seen}})
	g.Outputs = map[string]graph.Value{"link": link, "none": graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "other", "x"}}}
	f := newFake()
	f.attrs["a"] = map[string]graph.Value{
		rel("link_id"): "L-1", rel("tags"): []graph.Value{"x", "y"},
		graph.OutputAttribute{Target: "db", Name: "seen_by"}.String(): "a",
		"plain": "p",
	}
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	if !rep.OK() {
		t.Fatalf("report: %+v", rep)
	}
	if in := f.requests["a:create"].Inputs["Standard.create"]; in["link"] != nil {
		t.Errorf("a's own relationship attribute before its first apply = %v, want null", in["link"])
	}
	in := f.requests["c:create"].Inputs["Standard.create"]
	if in["link"] != "L-1" || in["tag"] != "y" || in["seen"] != "a" {
		t.Errorf("c's inputs = %v, want link L-1, tag y, seen a", in)
	}
	st := j.state(nil)
	a, _ := st.Lookup("a")
	want := []state.Relationship{{Requirement: "db", Index: 0, Target: "db",
		Attributes: map[string]graph.Value{"link_id": "L-1", "tags": []graph.Value{"x", "y"}}}}
	if !relationshipsEqual(a.Feedback.Relationships, want) {
		t.Errorf("a's relationships = %+v, want %+v", a.Feedback.Relationships, want)
	}
	if !graph.Equal(graph.Value(a.Feedback.Attributes), graph.Value(map[string]graph.Value{"plain": "p"})) {
		t.Errorf("a's attributes = %v, want only plain", a.Feedback.Attributes)
	}
	if db, _ := st.Lookup("db"); db.Feedback.Attributes["seen_by"] != "a" || !db.Succeeded() {
		t.Errorf("db's record = %+v, want attribute seen_by a, still succeeded", db.Feedback)
	}
	outs, missing := ResolveOutputs(g, st)
	if outs["link"].Value != "L-1" || outs["none"].Value != nil || len(missing) != 0 {
		t.Errorf("outputs = %v, missing %v", outs, missing)
	}

	// An update whose operations set no relationship attribute keeps
	// them, and a's operation now reads its relationship's attribute.
	g2 := buildGraph(t, res{addr: "db"}, res{addr: "a", deps: []string{"db"}, drv: graph.DriverNoop,
		spec: map[string]graph.Value{"name": "a2"}, inputs: map[string]graph.Value{"link": link}})
	f2 := newFake()
	rep, j = walkFake(t, f2, planOf(t, g2, st, planner.Options{}), st, fastOpts())
	if !rep.OK() {
		t.Fatalf("second report: %+v", rep)
	}
	if got := f2.requests["a:update"].Inputs["Standard.create"]["link"]; got != "L-1" {
		t.Errorf("a's own relationship attribute on update = %v, want L-1 (calls %v)", got, f2.callList())
	}
	a2, _ := j.state(st).Lookup("a")
	if !relationshipsEqual(a2.Feedback.Relationships, want) {
		t.Errorf("a's relationships after the update = %+v, want %+v", a2.Feedback.Relationships, want)
	}
}

func relationshipsEqual(a, b []state.Relationship) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Requirement != b[i].Requirement || a[i].Index != b[i].Index || a[i].Target != b[i].Target ||
			!graph.Equal(graph.Value(a[i].Attributes), graph.Value(b[i].Attributes)) {
			return false
		}
	}
	return true
}
