package state

import (
	"fmt"
	"time"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
)

// The state file format is written with canonjson rather than
// encoding/json, whose reflection and second indentation pass make
// writing the state of 10,000 resources too slow. The output is
// byte-for-byte what encoding/json produces with SetEscapeHTML(false) and
// SetIndent("", "  ") (and, inside Unknowns, whose MarshalJSON uses
// json.Marshal, HTML escaping); TestEncoderMatchesJSON holds it to that
// for every field of the model.

// newWriter returns a writer of the state's values into buf, indented for
// the state file or compact for journal lines.
func newWriter(buf []byte, indent bool) canonjson.Writer {
	return canonjson.Writer{Buf: buf, Indent: indent, Format: canonjson.EscapeHTMLInUnknowns}
}

func writeTime(w *canonjson.Writer, t time.Time) {
	if y := t.Year(); y < 0 || y > 9999 {
		w.Fail(fmt.Errorf("time %v: year outside of range [0,9999]", t))
		return
	}
	w.Buf = append(w.Buf, '"')
	w.Buf = t.AppendFormat(w.Buf, time.RFC3339Nano)
	w.Buf = append(w.Buf, '"')
}

func writeResource(w *canonjson.Writer, r *Resource) {
	o := w.BeginObject()
	o.Field("address").String(r.Address)
	o.Field("type").String(r.Type)
	if len(r.TypeChain) > 0 {
		o.Field("type_chain").Strings(r.TypeChain)
	}
	o.Field("management").String(string(r.Management))
	writeDriver(o.Field("driver"), &r.Driver)
	if len(r.Dependencies) > 0 {
		o.Field("dependencies").Strings(r.Dependencies)
	}
	canonjson.Map(o.Field("spec"), r.Spec)
	if len(r.Sensitive) > 0 {
		o.Field("sensitive").Strings(r.Sensitive)
	}
	if r.DerivedBy != "" {
		o.Field("derived_by").String(r.DerivedBy)
	}
	if len(r.SetByPolicy) > 0 {
		canonjson.Map(o.Field("set_by_policy"), r.SetByPolicy)
	}
	if !r.Versions.IsZero() {
		writeVersions(o.Field("versions"), &r.Versions)
	}
	writeFeedback(o.Field("feedback"), &r.Feedback)
	o.End()
}

// encodeTail renders the members of the state object that follow the
// resources, outputs then sync (",\n  \"outputs\": {…}" without the
// leading comma), or nil when there are none: a state without them is
// written as before they were recorded.
func encodeTail(s *State) ([]byte, error) {
	if len(s.Outputs) == 0 && s.Sync == nil {
		return nil, nil
	}
	w := newWriter(nil, true)
	// The members are written inside an object of their own, so that the
	// writer indents them as the state object's members; the braces are
	// cut off.
	top := w.BeginObject()
	if len(s.Outputs) > 0 {
		e := top.Field("outputs")
		keys := canonjson.PushKeys(e, s.Outputs)
		o := e.BeginObject()
		for _, k := range keys {
			out := s.Outputs[k]
			ow := o.Key(k).BeginObject()
			ow.Field("value").Value(out.Value)
			if out.Sensitive {
				ow.Field("sensitive").Bool(true)
			}
			ow.End()
		}
		o.End()
		e.PopKeys(keys)
	}
	if s.Sync != nil {
		o := top.Field("sync").BeginObject()
		writeTime(o.Field("last_resync"), s.Sync.LastResync.UTC())
		o.End()
	}
	top.End()
	if err := w.Err(); err != nil {
		return nil, fmt.Errorf("encoding state outputs: %w", err)
	}
	return w.Buf[1 : len(w.Buf)-2], nil
}

func writeDriver(w *canonjson.Writer, d *graph.Driver) {
	o := w.BeginObject()
	o.Field("name").String(d.Name)
	if len(d.Operations) > 0 {
		e := o.Field("operations")
		keys := canonjson.PushKeys(e, d.Operations)
		ops := e.BeginObject()
		for _, k := range keys {
			writeOperation(ops.Key(k), d.Operations[k])
		}
		ops.End()
		e.PopKeys(keys)
	}
	if len(d.Options) > 0 {
		canonjson.Map(o.Field("options"), d.Options)
	}
	o.End()
}

func writeOperation(w *canonjson.Writer, op graph.Operation) {
	o := w.BeginObject()
	if op.Implementation != "" {
		o.Field("implementation").String(op.Implementation)
	}
	if len(op.Dependencies) > 0 {
		o.Field("dependencies").Strings(op.Dependencies)
	}
	if op.Digest != "" {
		o.Field("digest").String(op.Digest)
	}
	if len(op.Inputs) > 0 {
		canonjson.Map(o.Field("inputs"), op.Inputs)
	}
	if len(op.Sensitive) > 0 {
		o.Field("sensitive").Strings(op.Sensitive)
	}
	if len(op.Outputs) > 0 {
		canonjson.Map(o.Field("outputs"), op.Outputs)
	}
	if op.Timeout != 0 {
		o.Field("timeout").Int(int64(op.Timeout))
	}
	o.End()
}

func writeVersions(w *canonjson.Writer, v *Versions) {
	o := w.BeginObject()
	for _, f := range []struct {
		name string
		t    time.Time
	}{{"updated", v.Updated}, {"enacted", v.Enacted}, {"policed", v.Policed}, {"changed_by_step", v.ChangedByStep}, {"changed_by_policy", v.ChangedByPolicy}} {
		if !f.t.IsZero() {
			writeTime(o.Field(f.name), f.t)
		}
	}
	o.End()
}

func writeFeedback(w *canonjson.Writer, f *Feedback) {
	o := w.BeginObject()
	if len(f.Resolved) > 0 {
		canonjson.Map(o.Field("resolved"), f.Resolved)
	}
	if len(f.Attributes) > 0 {
		canonjson.Map(o.Field("attributes"), f.Attributes)
	}
	if len(f.Signals) > 0 {
		canonjson.Map(o.Field("signals"), f.Signals)
	}
	if len(f.Relationships) > 0 {
		list := o.Field("relationships").BeginArray()
		for _, r := range f.Relationships {
			ro := list.Next().BeginObject()
			ro.Field("requirement").String(r.Requirement)
			ro.Field("index").Int(int64(r.Index))
			ro.Field("target").String(r.Target)
			if len(r.Attributes) > 0 {
				canonjson.Map(ro.Field("attributes"), r.Attributes)
			}
			ro.End()
		}
		list.End()
	}
	if f.InstanceID != "" {
		o.Field("instance_id").String(f.InstanceID)
	}
	st := o.Field("status").BeginObject()
	st.Field("active").Bool(f.Status.Active)
	st.Field("converging").Bool(f.Status.Converging)
	st.Field("failed").Bool(f.Status.Failed)
	if f.Status.Message != "" {
		st.Field("message").String(f.Status.Message)
	}
	st.End()
	o.Field("backend_code").Int(int64(f.BackendCode))
	if f.BackendStatus != "" {
		o.Field("backend_status").String(f.BackendStatus)
	}
	if f.Attempts != 0 {
		o.Field("attempts").Int(int64(f.Attempts))
	}
	if f.Output != "" {
		o.Field("output").String(f.Output)
	}
	if len(f.Allocations) > 0 {
		list := o.Field("allocations").BeginArray()
		for _, a := range f.Allocations {
			ao := list.Next().BeginObject()
			ao.Field("provider").String(a.Provider)
			canonjson.Map(ao.Field("resources"), a.Resources)
			ao.End()
		}
		list.End()
	}
	if len(f.Extra) > 0 {
		canonjson.Map(o.Field("extra"), f.Extra)
	}
	if !f.Created.IsZero() {
		writeTime(o.Field("created"), f.Created)
	}
	if !f.Enacted.IsZero() {
		writeTime(o.Field("enacted"), f.Enacted)
	}
	if !f.LastAttempt.IsZero() {
		writeTime(o.Field("last_attempt"), f.LastAttempt)
	}
	o.End()
}
