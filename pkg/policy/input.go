package policy

import (
	"time"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
)

// InputFormatVersion is the format_version of the document a policy reads.
const InputFormatVersion = "1.0"

// inputOf returns the resources and edges policy p reads in g: its
// targets, every resource whose type is or derives from one of the
// types in its "types" property, and the edges between them.
func inputOf(g *graph.Graph, p graph.Policy) ([]*graph.Resource, []graph.Edge) {
	types := typesOf(p)
	in := map[string]bool{}
	for _, a := range p.Targets {
		in[a] = true
	}
	var rs []*graph.Resource
	for _, r := range g.Resources() {
		if in[r.Address] || readsType(r, types) {
			in[r.Address] = true
			rs = append(rs, r)
		}
	}
	var es []graph.Edge
	for _, e := range g.Edges() {
		if in[e.Source] && in[e.Target] {
			es = append(es, e)
		}
	}
	return rs, es
}

// typesOf returns the type names of p's "types" property (TOSCA
// compiles it checked: a list of strings).
func typesOf(p graph.Policy) []string {
	list, _ := p.Properties["types"].([]graph.Value)
	out := make([]string, 0, len(list))
	for _, v := range list {
		if s, ok := v.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func readsType(r *graph.Resource, types []string) bool {
	for _, t := range types {
		if r.DerivesFrom(t) {
			return true
		}
	}
	return false
}

// encodeInput writes the document policy p reads: canonical JSON, so
// that the same graph gives the same bytes, holding declarative state
// only.
//
//	{"format_version": "1.0",
//	 "policy": {"name": …, "address_prefix": "<name>.", "properties": {…}},
//	 "resources": [{"address", "type", "type_chain", "management", "spec", "derived_by"}…],
//	 "edges": [{"source", "target", "kind", "name"}…]}
//
// Resources are sorted by address, edges by source, target, kind and
// name; spec leaves out "attributes" (TOSCA attribute values are runtime
// state) and holds null at the resource's sensitive paths, so that no
// secret reaches a policy, nor through it a derived resource that a plan
// would show; a value known only at apply time is {"$unknown": …}.
func encodeInput(p graph.Policy, rs []*graph.Resource, es []graph.Edge, feedback map[string]Feedback) ([]byte, error) {
	w := &canonjson.Writer{Format: canonjson.ListsNeverNull}
	o := w.BeginObject()
	o.Key("format_version").String(InputFormatVersion)
	po := o.Key("policy").BeginObject()
	po.Key("name").String(p.Name)
	po.Key("address_prefix").String(p.Name + ".")
	props := p.Properties
	if props == nil {
		props = map[string]graph.Value{}
	}
	canonjson.Map(po.Key("properties"), props)
	po.End()
	ra := o.Key("resources").BeginArray()
	for _, r := range rs {
		ro := ra.Next().BeginObject()
		ro.Key("address").String(r.Address)
		ro.Key("type").String(r.Type)
		chain := r.TypeChain
		if chain == nil {
			chain = []string{r.Type}
		}
		ro.Key("type_chain").Strings(chain)
		ro.Key("management").String(string(r.Management))
		spec := make(map[string]graph.Value, len(r.Spec))
		for k, v := range planner.Redact(r.Spec, r.Sensitive) {
			if k != "attributes" {
				spec[k] = v
			}
		}
		canonjson.Map(ro.Key("spec"), spec)
		ro.Key("derived_by").String(r.DerivedBy)
		if len(r.SetByPolicy) > 0 {
			canonjson.Map(ro.Key("set_by_policy"), r.SetByPolicy)
		}
		if feedback != nil {
			writeFeedback(ro.Key("feedback"), feedback, r.Address)
		}
		ro.End()
	}
	ra.End()
	ea := o.Key("edges").BeginArray()
	for _, e := range es {
		eo := ea.Next().BeginObject()
		eo.Key("source").String(e.Source)
		eo.Key("target").String(e.Target)
		eo.Key("kind").String(string(e.Kind))
		eo.Key("name").String(e.Name)
		eo.End()
	}
	ea.End()
	o.End()
	w.Buf = append(w.Buf, '\n')
	return w.Buf, w.Err()
}

// writeFeedback writes what feedback holds of the resource at addr for a
// policy that reads feedback (XOS: a policy runs again when a step
// changed the model): its attributes and signals (secrets masked by the
// caller), instance id, status flags, backend code and changed_by_step
// version ("" when none); null when the state does not record it.
//
//	{"attributes": {…}, "signals": {…}, "instance_id": "…",
//	 "status": {"active", "converging", "failed"}, "backend_code": 1,
//	 "changed_by_step": "2026-…Z"}
func writeFeedback(w *canonjson.Writer, feedback map[string]Feedback, addr string) {
	fb, ok := feedback[addr]
	if !ok {
		w.Null()
		return
	}
	o := w.BeginObject()
	canonjson.Map(o.Key("attributes"), orEmpty(fb.Attributes))
	canonjson.Map(o.Key("signals"), orEmpty(fb.Signals))
	o.Key("instance_id").String(fb.InstanceID)
	st := o.Key("status").BeginObject()
	st.Key("active").Bool(fb.Active)
	st.Key("converging").Bool(fb.Converging)
	st.Key("failed").Bool(fb.Failed)
	st.End()
	o.Key("backend_code").Int(int64(fb.BackendCode))
	step := ""
	if !fb.ChangedByStep.IsZero() {
		step = fb.ChangedByStep.UTC().Format(time.RFC3339Nano)
	}
	o.Key("changed_by_step").String(step)
	o.End()
}

func orEmpty(m map[string]graph.Value) map[string]graph.Value {
	if m == nil {
		return map[string]graph.Value{}
	}
	return m
}
