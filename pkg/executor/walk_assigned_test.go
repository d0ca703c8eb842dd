package executor

import (
	"context"
	"maps"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// TestWalkRecordsAssignedAttributes checks that the attribute values a
// spec assigns (a template's assignment or a definition's default: the
// spec's "attributes", and its "relationships" for those of its
// relationships) are recorded when the resource is created, replaced by
// what an operation output sets, and read by a dependent's
// get_attribute and concat, and by an output. Before, they were read as
// null: only what outputs set was recorded.
func TestWalkRecordsAssignedAttributes(t *testing.T) {
	dbSpec := map[string]graph.Value{"properties": map[string]graph.Value{},
		"attributes": map[string]graph.Value{"endpoint": "tcp://db:5432", "level": int64(3)}}
	aSpec := map[string]graph.Value{"properties": map[string]graph.Value{},
		"relationships": map[string]graph.Value{"db": []graph.Value{
			map[string]graph.Value{"target": "db", "attributes": map[string]graph.Value{"mode": "tls", "kind": "plain"}}}}}
	endpoint := graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "endpoint"}}
	level := graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "level"}}
	mode := graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "db", "mode"}}
	kind := graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "db", int64(0), "kind"}}
	url := graph.Unknown{Func: "concat", Args: []graph.Value{endpoint, "/", level}}
	g := buildGraph(t, res{addr: "db", spec: dbSpec}, res{addr: "a", deps: []string{"db"}, spec: aSpec, inputs: map[string]graph.Value{"mode": mode}},
		res{addr: "c", deps: []string{"a"}, inputs: map[string]graph.Value{"url": url, "mode": mode, "kind": kind}})
	g.Outputs = map[string]graph.Value{"url": url, "kind": kind}
	f := newFake()
	// a's operation replaces the relationship's kind.
	f.attrs["a"] = map[string]graph.Value{graph.OutputAttribute{Requirement: "db", Target: "db", Name: "kind"}.String(): "set"}
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	if !rep.OK() {
		t.Fatalf("report: %+v", rep)
	}
	if got := f.requests["a:create"].Inputs["Standard.create"]["mode"]; got != "tls" {
		t.Errorf("a's own relationship attribute before its first apply = %v, want its assignment tls", got)
	}
	in := f.requests["c:create"].Inputs["Standard.create"]
	if in["url"] != "tcp://db:5432/3" || in["mode"] != "tls" || in["kind"] != "set" {
		t.Errorf("c's inputs = %v, want url tcp://db:5432/3, mode tls, kind set", in)
	}
	st := j.state(nil)
	db, _ := st.Lookup("db")
	if !graph.Equal(graph.Value(db.Feedback.Attributes), dbSpec["attributes"]) {
		t.Errorf("db's recorded attributes = %v, want its assigned ones", db.Feedback.Attributes)
	}
	a, _ := st.Lookup("a")
	want := []state.Relationship{{Requirement: "db", Target: "db", Attributes: map[string]graph.Value{"mode": "tls", "kind": "set"}}}
	if !relationshipsEqual(a.Feedback.Relationships, want) {
		t.Errorf("a's relationships = %+v, want %+v", a.Feedback.Relationships, want)
	}
	outs, missing := ResolveOutputs(g, st)
	if outs["url"].Value != "tcp://db:5432/3" || outs["kind"].Value != "set" || len(missing) != 0 {
		t.Errorf("outputs = %v, missing %v", outs, missing)
	}

	// A new assignment replaces a value the old one recorded; a value an
	// output set stays.
	dbSpec2 := map[string]graph.Value{"properties": map[string]graph.Value{}, "name": "db2",
		"attributes": map[string]graph.Value{"endpoint": "tcp://db:6000", "level": int64(3)}}
	aSpec2 := map[string]graph.Value{"properties": map[string]graph.Value{}, "name": "a2",
		"relationships": map[string]graph.Value{"db": []graph.Value{
			map[string]graph.Value{"target": "db", "attributes": map[string]graph.Value{"mode": "mtls", "kind": "plain"}}}}}
	g2 := buildGraph(t, res{addr: "db", spec: dbSpec2, drv: graph.DriverNoop}, res{addr: "a", deps: []string{"db"}, spec: aSpec2, drv: graph.DriverNoop})
	f2 := newFake()
	f2.attrs["db"] = map[string]graph.Value{"endpoint": "tcp://db:5432", "level": int64(3)}
	f2.attrs["a"] = map[string]graph.Value{graph.OutputAttribute{Requirement: "db", Target: "db", Name: "kind"}.String(): "set"}
	rep, j = walkFake(t, f2, planOf(t, g2, st, planner.Options{}), st, fastOpts())
	if !rep.OK() {
		t.Fatalf("second report: %+v", rep)
	}
	st2 := j.state(st)
	db2, _ := st2.Lookup("db")
	if db2.Feedback.Attributes["endpoint"] != "tcp://db:6000" {
		t.Errorf("db's endpoint after the update = %v, want the new assignment", db2.Feedback.Attributes["endpoint"])
	}
	a2, _ := st2.Lookup("a")
	want2 := []state.Relationship{{Requirement: "db", Target: "db", Attributes: map[string]graph.Value{"mode": "mtls", "kind": "set"}}}
	if !relationshipsEqual(a2.Feedback.Relationships, want2) {
		t.Errorf("a's relationships after the update = %+v, want %+v", a2.Feedback.Relationships, want2)
	}
}

// TestWalkRedactsRelationshipSecrets checks that a relationship attribute
// that the source's sensitive paths name (graph.RelationshipPath), which
// an operation output sets, is a secret: the walk masks it from then on, state.Resource.Redacted
// masks it, a Redactor built from the state knows it, and an output and
// a dependent's input that read it are sensitive. So is an attribute an
// output sets on a relationship's target that the target declares
// sensitive. Before, sensitivity covered node attributes only.
func TestWalkRedactsRelationshipSecrets(t *testing.T) {
	const secret, targetSecret = "R3L-s3cret-4711", "T4RGET-s3cret-99"
	link := graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "db", "secret"}}
	g := buildGraph(t, res{addr: "db"}, res{addr: "a", deps: []string{"db"}},
		res{addr: "c", deps: []string{"a"}, inputs: map[string]graph.Value{"link": link}})
	a, _ := g.Resource("a")
	a.Sensitive = []string{"relationships.db.0.attributes.secret"}
	db, _ := g.Resource("db")
	db.Sensitive = []string{"attributes.peer"}
	g.Outputs = map[string]graph.Value{"link": link}
	f := newFake()
	f.attrs["a"] = map[string]graph.Value{
		graph.OutputAttribute{Requirement: "db", Target: "db", Name: "secret"}.String(): secret,
		graph.OutputAttribute{Target: "db", Name: "peer"}.String():                      targetSecret,
	}
	opts := fastOpts()
	opts.Desired = g
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, opts)
	if !rep.OK() {
		t.Fatalf("report: %+v", rep)
	}
	if got := f.requests["c:create"].Inputs["Standard.create"]["link"]; got != secret {
		t.Fatalf("c's input link = %v, want the relationship's attribute", got)
	}
	// The walk knows them as secrets from a's outcome on: what c's
	// scripts print is masked.
	for _, s := range []string{secret, targetSecret} {
		if got := f.requests["c:create"].Redactor.String("got " + s); strings.Contains(got, s) {
			t.Errorf("the walk's Redactor does not know %q after a's create: %s", s, got)
		}
	}
	st := j.state(nil)
	ra, _ := st.Lookup("a")
	red := ra.Redacted()
	if got := red.Feedback.Relationships[0].Attributes["secret"]; got != state.SensitiveMarker {
		t.Errorf("a's redacted relationship attribute = %v, want %q", got, state.SensitiveMarker)
	}
	if got := ra.Feedback.Relationships[0].Attributes["secret"]; got != secret {
		t.Errorf("a's recorded relationship attribute = %v: the state must keep it", got)
	}
	r := NewRedactorFor(st, nil)
	for _, s := range []string{secret, targetSecret} {
		if got := r.String("got " + s); strings.Contains(got, s) {
			t.Errorf("a Redactor of the state does not know %q: %s", s, got)
		}
	}
	outs, _ := ResolveOutputs(g, st)
	if !outs["link"].Sensitive {
		t.Errorf("output link reads a sensitive relationship attribute but is not sensitive")
	}
	cr, _ := g.Resource("c")
	if !graph.ReadsSensitive(cr.Driver.Operations["Standard.create"].Inputs, func(addr string) []string {
		r, _ := g.Resource(addr)
		return r.Sensitive
	}) {
		t.Errorf("c's input reads a sensitive relationship attribute, graph.ReadsSensitive says not")
	}
}

// orderedDriver runs a's operations as the exec driver does: each with
// the request ForOperation returns after the outputs of those before it
// (reported), and keeps the inputs each got.
type orderedDriver struct {
	got map[string]map[string]graph.Value
}

func (d *orderedDriver) Apply(ctx context.Context, req Request) (Outcome, error) {
	reported := map[string]graph.Value{}
	for _, step := range []struct {
		key     string
		outputs map[string]graph.Value
	}{
		{"Standard.create", map[string]graph.Value{"addr": "10.0.0.1"}},
		{"Configure.pre_configure_source", map[string]graph.Value{
			graph.OutputAttribute{Requirement: "db", Target: "db", Name: "link_id"}.String(): "L-1",
			graph.OutputAttribute{Target: "db", Name: "client"}.String():                     "a",
		}},
		{"Standard.configure", nil},
	} {
		opReq, err := req.ForOperation(ctx, step.key, reported)
		if err != nil {
			return Outcome{}, err
		}
		if req.Address == "a" {
			d.got[step.key] = opReq.Inputs[step.key]
		}
		maps.Copy(reported, step.outputs)
	}
	if req.Address != "a" {
		reported = nil
	}
	return Outcome{Feedback: state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}, Attributes: reported}}, nil
}

// TestWalkResolvesInputsPerOperation checks that a driver running several
// operations in one request gets each one's inputs resolved after the
// outputs of those before it (Request.ForOperation): its own attribute
// create set, its relationship's and its target's that a relationship
// operation set, in this run. Before, every input was resolved once,
// before the first operation, and read null (or the previous apply's
// value).
func TestWalkResolvesInputsPerOperation(t *testing.T) {
	g := graph.New()
	selfAddr := graph.Unknown{Func: "attribute", Args: []graph.Value{"a", "addr"}}
	ops := map[string]graph.Operation{
		"Standard.create":                {Implementation: "x"},
		"Configure.pre_configure_source": {Implementation: "x", Inputs: map[string]graph.Value{"addr": selfAddr}},
		"Standard.configure": {Implementation: "x", Inputs: map[string]graph.Value{
			"addr":   selfAddr,
			"link":   graph.Unknown{Func: "get_attribute", Args: []graph.Value{"a", "RELATIONSHIP", "db", "link_id"}},
			"client": graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "client"}},
		}},
	}
	for _, r := range []*graph.Resource{
		{Address: "db", Type: "test.T", Driver: graph.Driver{Name: fakeName}, Spec: map[string]graph.Value{}, Management: graph.Managed},
		{Address: "a", Type: "test.T", Driver: graph.Driver{Name: fakeName, Operations: ops}, Spec: map[string]graph.Value{}, Management: graph.Managed},
	} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddEdge(graph.Edge{Source: "a", Target: "db", Kind: graph.ConnectsTo}); err != nil {
		t.Fatal(err)
	}
	d := &orderedDriver{got: map[string]map[string]graph.Value{}}
	opts := fastOpts()
	opts.Desired = g
	rep, err := Walk(context.Background(), planOf(t, g, nil, planner.Options{}), nil, &memJournal{}, Registry{fakeName: d}, opts)
	if err != nil || !rep.OK() {
		t.Fatalf("walk: %v, report %+v", err, rep)
	}
	if got := d.got["Configure.pre_configure_source"]["addr"]; got != "10.0.0.1" {
		t.Errorf("pre_configure_source's addr = %v, want create's output 10.0.0.1", got)
	}
	want := map[string]graph.Value{"addr": "10.0.0.1", "link": "L-1", "client": "a"}
	if got := d.got["Standard.configure"]; !graph.Equal(graph.Value(got), graph.Value(want)) {
		t.Errorf("configure's inputs = %v, want %v", got, want)
	}
}

// TestWalkRecordsChangedAssignment checks that an update confined to the
// attribute values a spec assigns (planner RecordsOnly) calls no driver
// and records the new spec, resolved, and the new value, over one an
// output did not set; one an output set stays.
func TestWalkRecordsChangedAssignment(t *testing.T) {
	spec := func(level, endpoint int64) map[string]graph.Value {
		return map[string]graph.Value{"properties": map[string]graph.Value{},
			"attributes": map[string]graph.Value{"level": level, "endpoint": endpoint}}
	}
	g := buildGraph(t, res{addr: "db", spec: spec(3, 1)})
	f := newFake()
	f.attrs["db"] = map[string]graph.Value{"endpoint": "set by create"}
	rep, j := walkFake(t, f, planOf(t, g, nil, planner.Options{}), nil, fastOpts())
	if !rep.OK() {
		t.Fatalf("report: %+v", rep)
	}
	st := j.state(nil)
	g2 := buildGraph(t, res{addr: "db", spec: spec(4, 2)})
	p := planOf(t, g2, st, planner.Options{})
	if c := p.Changes[0]; !c.RecordsOnly() {
		t.Fatalf("change %s %s %v: want an update that records only", c.Action, c.Reason, c.ChangedPaths)
	}
	f2 := newFake()
	opts := fastOpts()
	opts.Desired = g2
	rep, j = walkFake(t, f2, p, st, opts)
	if !rep.OK() || len(f2.callList()) != 0 {
		t.Fatalf("report %+v, calls %v: want no driver call", rep, f2.callList())
	}
	db, _ := j.state(st).Lookup("db")
	want := map[string]graph.Value{"level": int64(4), "endpoint": "set by create"}
	if !graph.Equal(graph.Value(db.Feedback.Attributes), graph.Value(want)) || !graph.Equal(graph.Value(db.Spec), graph.Value(spec(4, 2))) ||
		!graph.Equal(graph.Value(db.Feedback.Resolved), graph.Value(spec(4, 2))) {
		t.Errorf("db's record: attributes %v (want %v), spec %v, resolved %v", db.Feedback.Attributes, want, db.Spec, db.Feedback.Resolved)
	}
	if p := planOf(t, g2, j.state(st), planner.Options{}); p.Changes[0].Action != planner.NoOp {
		t.Errorf("plan after: %s %s", p.Changes[0].Action, p.Changes[0].Reason)
	}
}
