package planner

import (
	"encoding/json"
	"fmt"
	"maps"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Plan files are written with canonjson rather than encoding/json, whose
// reflection over 10,000 resources' values cost most of the planning time:
// the field names and omission rules of the struct tags (so encoding/json
// reads them back), map keys sorted, no HTML escaping, lists never null.
// Backspace and form feed are \u0008 and \u000c (canonjson.HexControl):
// plan IDs and input digests are hashes of these bytes.

// newWriter returns a writer of plan JSON into buf.
func newWriter(buf []byte) canonjson.Writer {
	return canonjson.Writer{Buf: buf, Format: canonjson.HexControl | canonjson.ListsNeverNull, Marshal: marshalOther}
}

// marshalOther writes a value outside the canonical set as encoding/json
// does.
func marshalOther(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding %T: %w", v, err)
	}
	return b, nil
}

// omitEmpty writes the list field k unless v is empty, as omitempty does.
func omitEmpty(o *canonjson.Object, k string, v []string) {
	if len(v) > 0 {
		o.Field(k).Strings(v)
	}
}

// omitEmptyString writes the string field k unless v is "".
func omitEmptyString(o *canonjson.Object, k, v string) {
	if v != "" {
		o.Field(k).String(v)
	}
}

func writeDriver(w *canonjson.Writer, d *graph.Driver) {
	o := w.BeginObject()
	o.Field("name").String(d.Name)
	if len(d.Operations) > 0 {
		writeOperations(o.Field("operations"), d.Operations)
	}
	if len(d.Options) > 0 {
		canonjson.Map(o.Field("options"), d.Options)
	}
	o.End()
}

// writeOperations writes operations as encoding/json would, sensitive
// input values as null.
func writeOperations(e *canonjson.Writer, operations map[string]graph.Operation) {
	keys := canonjson.PushKeys(e, operations)
	ops := e.BeginObject()
	for _, k := range keys {
		op := operations[k]
		oo := ops.Key(k).BeginObject()
		omitEmptyString(&oo, "implementation", op.Implementation)
		omitEmpty(&oo, "dependencies", op.Dependencies)
		omitEmptyString(&oo, "digest", op.Digest)
		if len(op.Inputs) > 0 {
			canonjson.Map(oo.Field("inputs"), redactInputs(op.Inputs, op.Sensitive))
		}
		omitEmpty(&oo, "sensitive", op.Sensitive)
		if len(op.Outputs) > 0 {
			canonjson.Map(oo.Field("outputs"), op.Outputs)
		}
		if op.Timeout != 0 {
			oo.Field("timeout").Int(int64(op.Timeout))
		}
		oo.End()
	}
	ops.End()
	e.PopKeys(keys)
}

// redactInputs returns inputs with the values of the sensitive names
// replaced by nil, as Redact does for spec paths; inputs itself is not
// modified.
func redactInputs(inputs map[string]graph.Value, sensitive []string) map[string]graph.Value {
	if len(sensitive) == 0 {
		return inputs
	}
	out := maps.Clone(inputs)
	for _, name := range sensitive {
		if _, ok := out[name]; ok {
			out[name] = nil
		}
	}
	return out
}

func writeChange(w *canonjson.Writer, c *ResourceChange) {
	before, after := c.Before, c.After
	if len(c.Sensitive) > 0 {
		before, after = Redact(before, c.Sensitive), Redact(after, c.Sensitive)
	}
	o := w.BeginObject()
	o.Field("address").String(c.Address)
	o.Field("type").String(c.Type)
	omitEmptyString(&o, "prior_type", c.PriorType)
	o.Field("action").String(c.Action.String())
	o.Field("action_reason").String(c.Reason.String())
	omitEmpty(&o, "changed_paths", c.ChangedPaths)
	omitEmpty(&o, "operation_paths", c.OperationPaths)
	omitEmpty(&o, "reason_paths", c.ReasonPaths)
	omitEmpty(&o, "forced_by", c.ForcedBy)
	omitEmptyString(&o, "derived_by", c.DerivedBy)
	if len(c.SetByPolicy) > 0 {
		canonjson.Map(o.Field("set_by_policy"), c.SetByPolicy)
	}
	canonjson.Map(o.Field("before"), before)
	canonjson.Map(o.Field("after"), after)
	omitEmpty(&o, "dependencies", c.Dependencies)
	omitEmpty(&o, "prior_dependencies", c.PriorDependencies)
	if len(c.OperationWaits) > 0 {
		ws := o.Field("operation_waits").BeginArray()
		for _, wt := range c.OperationWaits {
			wo := ws.Next().BeginObject()
			wo.Field("operation").String(wt.Operation)
			wo.Field("address").String(wt.Address)
			wo.Field("after").String(wt.After)
			wo.End()
		}
		ws.End()
	}
	writeDriver(o.Field("driver"), &c.Driver)
	o.Field("management").String(string(c.Management))
	if len(c.Lookup) > 0 {
		canonjson.Map(o.Field("lookup"), c.Lookup)
	}
	if len(c.Import) > 0 {
		canonjson.Map(o.Field("import"), c.Import)
	}
	if len(c.PriorOperations) > 0 {
		writeOperations(o.Field("prior_operations"), c.PriorOperations)
	}
	omitEmpty(&o, "sensitive", c.Sensitive)
	if c.Placement != nil {
		p := o.Field("placement").BeginObject()
		if c.Placement.Allocations == nil {
			p.Field("allocations").Null()
		} else {
			allocs := p.Field("allocations").BeginArray()
			for _, a := range c.Placement.Allocations {
				ao := allocs.Next().BeginObject()
				ao.Field("provider").String(a.Provider)
				canonjson.Map(ao.Field("resources"), a.Resources)
				ao.End()
			}
			allocs.End()
		}
		omitEmptyString(&p, "query", c.Placement.Query)
		if c.Placement.Kept {
			p.Field("kept").Bool(true)
		}
		p.End()
	}
	o.End()
}

// encodePlan writes the plan's canonical JSON (no trailing newline).
func encodePlan(p *Plan) ([]byte, error) {
	if p.Mode != "" && p.Mode != ModeNormal && p.Mode != ModeDestroy && p.Mode != ModeRefreshOnly {
		return nil, fmt.Errorf("invalid plan mode %q", p.Mode)
	}
	for i := range p.Changes {
		if p.Changes[i].Action > Forget || p.Changes[i].Reason > lastReason {
			return nil, fmt.Errorf("invalid action or reason for %s", p.Changes[i].Address)
		}
	}
	w := newWriter(make([]byte, 0, 512*len(p.Changes)+1024))
	o := w.BeginObject()
	o.Field("format_version").String(p.FormatVersion)
	o.Field("plan_id").String(p.PlanID)
	o.Field("lineage").String(p.Lineage)
	o.Field("serial").Uint(p.Serial)
	if id := p.State; id != nil {
		so := o.Field("state").BeginObject()
		so.Field("backend").String(id.Backend)
		omitEmptyString(&so, "path", id.Path)
		omitEmptyString(&so, "database", id.Database)
		omitEmptyString(&so, "schema", id.Schema)
		so.Field("workspace").String(id.Workspace)
		so.End()
	}
	o.Field("mode").String(string(p.Mode))
	if p.Configuration == nil {
		o.Field("configuration").Null()
	} else {
		o.Field("configuration").Strings(p.Configuration)
	}
	canonjson.Map(o.Field("input_digests"), p.InputDigests)
	o.Field("input_salt").String(p.InputSalt)
	omitEmpty(&o, "targets", p.Targets)
	omitEmpty(&o, "excludes", p.Excludes)
	omitEmpty(&o, "replace", p.Replace)
	if p.CreateBeforeDestroy {
		o.Field("create_before_destroy").Bool(true)
	}
	if src := p.PlacementSource; src != nil {
		so := o.Field("placement_source").BeginObject()
		omitEmptyString(&so, "inventory", src.Inventory)
		omitEmptyString(&so, "api", src.API)
		so.End()
	}
	if p.Changes == nil {
		o.Field("resource_changes").Null()
	} else {
		list := o.Field("resource_changes").BeginArray()
		for i := range p.Changes {
			writeChange(list.Next(), &p.Changes[i])
		}
		list.End()
	}
	if p.Drift == nil {
		o.Field("resource_drift").Null()
	} else {
		list := o.Field("resource_drift").BeginArray()
		for _, d := range p.Drift {
			do := list.Next().BeginObject()
			do.Field("address").String(d.Address)
			do.Field("type").String(d.Type)
			if d.Paths == nil {
				do.Field("paths").Null()
			} else {
				do.Field("paths").Strings(d.Paths)
			}
			canonjson.Map(do.Field("before"), d.Before)
			canonjson.Map(do.Field("after"), d.After)
			do.End()
		}
		list.End()
	}
	s := o.Field("summary").BeginObject()
	s.Field("add").Int(int64(p.Summary.Add))
	s.Field("change").Int(int64(p.Summary.Change))
	s.Field("destroy").Int(int64(p.Summary.Destroy))
	s.Field("replace").Int(int64(p.Summary.Replace))
	s.Field("read").Int(int64(p.Summary.Read))
	s.Field("forget").Int(int64(p.Summary.Forget))
	s.Field("no_op").Int(int64(p.Summary.NoOp))
	s.End()
	o.End()
	if err := w.Err(); err != nil {
		return nil, fmt.Errorf("encoding plan: %w", err)
	}
	return w.Buf, nil
}

// appendJSON appends the canonical JSON of a value to dst as plan files
// hold it: map keys sorted, no HTML escaping, Unknowns as
// {"$unknown": …}, backspace and form feed as \u0008 and \u000c: the
// bytes an input value's digest is made of.
func appendJSON(dst []byte, v graph.Value) ([]byte, error) {
	w := newWriter(dst)
	w.Value(v)
	return w.Buf, w.Err()
}
