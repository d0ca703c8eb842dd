package planview

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
)

// JSONFormatVersion is the version of the JSON plan written by JSON. A
// minor bump only adds fields: 1.1 adds operation_paths and the reasons
// operation_changed, implementation_changed and instance_failed; 1.2
// adds derived_by (the model policy that derives a resource); 1.3 adds
// check_predictions, written only by plan --check (JSONWithPredictions),
// whose plans alone say 1.3: a plan without it is 1.2, as before. A read's
// lookup (its keys, and whether a lookup operation checks it), and a
// create's import_filter, came without a bump: only reads and imports have them, and a reader that does not know it
// ignores it.
const JSONFormatVersion = "1.2"

// JSONPredictionsFormatVersion is the version of a JSON plan that
// carries check_predictions.
const JSONPredictionsFormatVersion = "1.3"

// StateJSONFormatVersion is the version of the JSON state written by
// StateJSON, which 1.1 of the plan left as it was. A minor bump only adds
// fields: 1.1 adds outputs.
const StateJSONFormatVersion = "1.1"

type jsonPlan struct {
	FormatVersion   string            `json:"format_version"`
	PlanID          string            `json:"plan_id"`
	Lineage         string            `json:"lineage"`
	Serial          uint64            `json:"serial"`
	Mode            planner.Mode      `json:"mode"`
	InputDigests    map[string]string `json:"input_digests"`
	Targets         []string          `json:"targets"`
	Excludes        []string          `json:"excludes"`
	Replace         []string          `json:"replace"`
	ResourceChanges []jsonChange      `json:"resource_changes"`
	ResourceDrift   []jsonChange      `json:"resource_drift"`
	Summary         planner.Summary   `json:"summary"`
	Steps           []jsonStep        `json:"apply_order"`
	// Predictions are plan --check's, nil without it.
	Predictions []jsonPrediction `json:"check_predictions,omitempty"`
}

type jsonStep struct {
	Address string `json:"address"`
	Action  string `json:"action"`
}

type jsonChange struct {
	Address      string           `json:"address"`
	Type         string           `json:"type"`
	Management   graph.Management `json:"management,omitempty"`
	Change       jsonChangeBody   `json:"change"`
	ActionReason string           `json:"action_reason,omitempty"`
	ForcedBy     []string         `json:"forced_by,omitempty"`
	// DerivedBy names the model policy that derives the resource.
	DerivedBy string `json:"derived_by,omitempty"`
	// SetByPolicy maps each spec path a model policy set to its name.
	SetByPolicy map[string]string `json:"set_by_policy,omitempty"`
	// Lookup says how a read finds its object; nil for other actions.
	Lookup *jsonLookup `json:"lookup,omitempty"`
	// ImportFilter is, for a create that adopts an existing object, the
	// filter it is found by.
	ImportFilter map[string]graph.Value `json:"import_filter,omitempty"`
	// OperationPaths are the operation paths that changed
	// (planner.ResourceChange.OperationPaths).
	OperationPaths []string                   `json:"operation_paths,omitempty"`
	Dependencies   []string                   `json:"dependencies"`
	Placement      *planner.PlacementDecision `json:"placement,omitempty"`
}

// jsonLookup is how a read finds its object: the keys, and whether a
// lookup operation checks that it exists ("checked": false is a read
// recorded without knowing).
type jsonLookup struct {
	Keys    map[string]graph.Value `json:"keys"`
	Checked bool                   `json:"checked"`
}

type jsonChangeBody struct {
	Actions         []string        `json:"actions"`
	Before          json.RawMessage `json:"before"`
	After           json.RawMessage `json:"after"`
	AfterUnknown    json.RawMessage `json:"after_unknown"`
	BeforeSensitive json.RawMessage `json:"before_sensitive"`
	AfterSensitive  json.RawMessage `json:"after_sensitive"`
	ChangedPaths    []string        `json:"changed_paths"`
	ReplacePaths    [][]any         `json:"replace_paths"`
}

// raw renders a value for the JSON plan as plan files hold it (map keys
// sorted, no HTML escaping, jsonFormat's escapes); anything outside the
// canonical set goes to encoding/json, as the plan file's writer does.
// Values come from plans, which hold only canonical values, so an error
// cannot happen in practice and is kept for the caller to report.
func (j *jsonWriter) raw(v any) json.RawMessage {
	w := canonjson.Writer{Format: jsonFormat, Marshal: json.Marshal}
	w.Value(v)
	if err := w.Err(); err != nil && j.err == nil {
		j.err = err
	}
	return w.Buf
}

type jsonWriter struct{ err error }

// JSON writes the versioned JSON plan: format_version, plan_id, lineage,
// serial, input_digests, resource_changes (in apply order, no-ops
// included) with Terraform's change{actions, before, after, after_unknown,
// before_sensitive, after_sensitive}, resource_drift, summary and the
// apply order. Unknown values are left out of before/after and marked in
// after_unknown; sensitive values are left out and marked in
// *_sensitive, and their paths are listed in changed_paths when they
// changed. Arrays are never null; the same plan always gives the same
// bytes: one line of compact JSON, as Terraform writes it (pipe it to jq).
func JSON(w io.Writer, p *planner.Plan) error { return JSONWithPredictions(w, p, nil) }

// JSONWithPredictions writes the JSON plan as JSON does and, when preds is
// not nil (plan --check ran), check_predictions: for each operation
// checked or not, in plan order, its address, operation, status
// (checked, not_checked, failed), reason, changed_tasks (null when
// unknown) and diff (redacted, at most MaxPredictionDiff bytes, with
// diff_truncated), under format_version 1.3.
func JSONWithPredictions(w io.Writer, p *planner.Plan, preds []Prediction) error {
	out, err := buildJSON(p)
	if err != nil {
		return err
	}
	if preds != nil {
		out.FormatVersion = JSONPredictionsFormatVersion
		out.Predictions = make([]jsonPrediction, 0, len(preds))
		for _, pr := range preds {
			out.Predictions = append(out.Predictions, toJSONPrediction(pr))
		}
	}
	b, err := out.appendJSON(make([]byte, 0, 1024*len(p.Changes)+1024))
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// buildJSON assembles the JSON plan's structure.
func buildJSON(p *planner.Plan) (*jsonPlan, error) {
	out := &jsonPlan{
		FormatVersion:   JSONFormatVersion,
		PlanID:          p.PlanID,
		Lineage:         p.Lineage,
		Serial:          p.Serial,
		Mode:            p.Mode,
		InputDigests:    p.InputDigests,
		Targets:         nonNil(p.Targets),
		Excludes:        nonNil(p.Excludes),
		Replace:         nonNil(p.Replace),
		ResourceChanges: make([]jsonChange, 0, len(p.Changes)),
		ResourceDrift:   make([]jsonChange, 0, len(p.Drift)),
		Summary:         p.Summary,
		Steps:           []jsonStep{},
	}
	var jw jsonWriter
	empty := json.RawMessage("{}")
	if out.InputDigests == nil {
		out.InputDigests = map[string]string{}
	}
	for i := range p.Changes {
		out.ResourceChanges = append(out.ResourceChanges, jw.change(&p.Changes[i]))
	}
	for i := range p.Drift {
		d := &p.Drift[i]
		out.ResourceDrift = append(out.ResourceDrift, jsonChange{
			Address: d.Address,
			Type:    d.Type,
			Change: jsonChangeBody{
				Actions: []string{"update"}, Before: jw.raw(known(d.Before, nil)), After: jw.raw(known(d.After, nil)),
				AfterUnknown: empty, BeforeSensitive: empty, AfterSensitive: empty,
				ChangedPaths: nonNil(d.Paths), ReplacePaths: [][]any{},
			},
			Dependencies: []string{},
		})
	}
	for _, s := range p.Steps() {
		out.Steps = append(out.Steps, jsonStep{Address: s.Address, Action: s.Op.String()})
	}
	return out, jw.err
}

// change is the JSON of the resource change c; jw keeps the first error
// of its values.
func (jw *jsonWriter) change(c *planner.ResourceChange) jsonChange {
	replacePaths := [][]any{}
	if c.Action.IsReplace() && c.Reason != planner.ReasonDependencyReplaced {
		for _, rp := range c.ReasonPaths {
			replacePaths = append(replacePaths, segments(rp, c.After, c.Before))
		}
	}
	before, after := shownValues(c)
	return jsonChange{
		Address:    c.Address,
		Type:       c.Type,
		Management: c.Management,
		Change: jsonChangeBody{
			Actions:         c.Action.Actions(),
			Before:          jw.raw(known(before, c.Sensitive)),
			After:           jw.raw(known(after, c.Sensitive)),
			AfterUnknown:    jw.raw(orEmpty(unknownTree(after))),
			BeforeSensitive: jw.raw(orEmpty(sensitiveTree(before, "", c.Sensitive))),
			AfterSensitive:  jw.raw(orEmpty(sensitiveTree(after, "", c.Sensitive))),
			ChangedPaths:    nonNil(c.ChangedPaths),
			ReplacePaths:    replacePaths,
		},
		ActionReason:   c.Reason.String(),
		ForcedBy:       c.ForcedBy,
		DerivedBy:      c.DerivedBy,
		SetByPolicy:    c.SetByPolicy,
		Lookup:         lookupOf(c),
		ImportFilter:   c.Import,
		OperationPaths: c.OperationPaths,
		Dependencies:   nonNil(c.Dependencies),
		Placement:      c.Placement,
	}
}

// jsonFormat is how the JSON plan writes its strings: as plan files do
// (raw writes its values with it), backspace and form feed as
// \u0008 and \u000c. The parts it has always left to encoding/json (input
// digests, replace paths, placement, summary) have \b and \f instead; both
// read back the same.
const jsonFormat = canonjson.HexControl | canonjson.ListsNeverNull

// appendJSON writes the plan as encoding/json would (struct field order,
// the same omissions, no HTML escaping) without reflection, which cost
// seconds on 100,000 changes; TestJSONMatchesEncodingJSON holds it to that.
func (p *jsonPlan) appendJSON(b []byte) ([]byte, error) {
	w := canonjson.Writer{Buf: b, Format: jsonFormat}
	// marshal writes v as encoding/json with SetEscapeHTML(false) does: a
	// placement query holds "&".
	marshal := func(v any) {
		var m bytes.Buffer
		enc := json.NewEncoder(&m)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			w.Fail(err)
		}
		w.Raw(bytes.TrimSuffix(m.Bytes(), []byte("\n")))
	}
	o := w.BeginObject()
	o.Field("format_version").String(p.FormatVersion)
	o.Field("plan_id").String(p.PlanID)
	o.Field("lineage").String(p.Lineage)
	o.Field("serial").Uint(p.Serial)
	o.Field("mode").String(string(p.Mode))
	w.Format = 0
	canonjson.Map(o.Field("input_digests"), p.InputDigests)
	w.Format = jsonFormat
	o.Field("targets").Strings(p.Targets)
	o.Field("excludes").Strings(p.Excludes)
	o.Field("replace").Strings(p.Replace)
	for _, list := range []struct {
		name    string
		changes []jsonChange
	}{{"resource_changes", p.ResourceChanges}, {"resource_drift", p.ResourceDrift}} {
		changes := o.Field(list.name).BeginArray()
		for i := range list.changes {
			appendChange(changes.Next(), &list.changes[i], marshal)
		}
		changes.End()
	}
	o.Field("summary")
	marshal(p.Summary)
	steps := o.Field("apply_order").BeginArray()
	for _, s := range p.Steps {
		so := steps.Next().BeginObject()
		so.Field("address").String(s.Address)
		so.Field("action").String(s.Action)
		so.End()
	}
	steps.End()
	if p.Predictions != nil {
		appendPredictions(&o, p.Predictions)
	}
	o.End()
	return w.Buf, w.Err()
}

// appendChange writes the resource change (or drift) c with w, the
// writer of an array element; marshal writes what encoding/json writes.
func appendChange(w *canonjson.Writer, c *jsonChange, marshal func(any)) {
	co := w.BeginObject()
	co.Field("address").String(c.Address)
	co.Field("type").String(c.Type)
	if c.Management != "" {
		co.Field("management").String(string(c.Management))
	}
	body := co.Field("change").BeginObject()
	body.Field("actions").Strings(c.Change.Actions)
	body.Field("before").Raw(c.Change.Before)
	body.Field("after").Raw(c.Change.After)
	body.Field("after_unknown").Raw(c.Change.AfterUnknown)
	body.Field("before_sensitive").Raw(c.Change.BeforeSensitive)
	body.Field("after_sensitive").Raw(c.Change.AfterSensitive)
	body.Field("changed_paths").Strings(c.Change.ChangedPaths)
	w.Format = 0
	paths := body.Field("replace_paths").BeginArray()
	for _, segments := range c.Change.ReplacePaths {
		paths.Next().Value(segments)
	}
	paths.End()
	w.Format = jsonFormat
	body.End()
	if c.ActionReason != "" {
		co.Field("action_reason").String(c.ActionReason)
	}
	if len(c.ForcedBy) > 0 {
		co.Field("forced_by").Strings(c.ForcedBy)
	}
	if c.DerivedBy != "" {
		co.Field("derived_by").String(c.DerivedBy)
	}
	if len(c.SetByPolicy) > 0 {
		canonjson.Map(co.Field("set_by_policy"), c.SetByPolicy)
	}
	if c.Lookup != nil {
		lo := co.Field("lookup").BeginObject()
		canonjson.Map(lo.Field("keys"), c.Lookup.Keys)
		lo.Field("checked").Bool(c.Lookup.Checked)
		lo.End()
	}
	if len(c.ImportFilter) > 0 {
		canonjson.Map(co.Field("import_filter"), c.ImportFilter)
	}
	if len(c.OperationPaths) > 0 {
		co.Field("operation_paths").Strings(c.OperationPaths)
	}
	co.Field("dependencies").Strings(c.Dependencies)
	if c.Placement != nil {
		co.Field("placement")
		marshal(c.Placement)
	}
	co.End()
}

// lookupOf is the lookup of a read change, nil for other actions. Its
// keys are never sensitive: the front ends leave sensitive values out.
func lookupOf(c *planner.ResourceChange) *jsonLookup {
	if c.Action != planner.Read {
		return nil
	}
	keys := c.Lookup
	if keys == nil {
		keys = map[string]graph.Value{}
	}
	return &jsonLookup{Keys: keys, Checked: c.Checked()}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmpty(v any) any {
	if v == nil {
		return map[string]any{}
	}
	return v
}

// known returns the value with unknowns and sensitive values left out of
// maps (null inside lists); nil stays nil.
func known(m map[string]graph.Value, sensitive []string) any {
	if m == nil {
		return nil
	}
	d := &differ{sensitive: sensitive}
	return knownValue(m, "", d)
}

func knownValue(v graph.Value, path string, d *differ) any {
	switch x := v.(type) {
	case graph.Unknown:
		return nil
	case map[string]graph.Value:
		out := make(map[string]any, len(x))
		for k, e := range x {
			p := join(path, k)
			if _, unknown := e.(graph.Unknown); unknown || d.isSensitive(p) {
				continue
			}
			out[k] = knownValue(e, p, d)
		}
		return out
	case []graph.Value:
		out := make([]any, len(x))
		for i, e := range x {
			p := join(path, strconv.Itoa(i))
			if d.isSensitive(p) {
				continue
			}
			out[i] = knownValue(e, p, d)
		}
		return out
	}
	return v
}

// unknownTree mirrors the value with true where it is unknown, leaving
// out what is known (Terraform's after_unknown); nil when nothing is.
func unknownTree(v graph.Value) any {
	if _, ok := v.(graph.Unknown); ok {
		return true
	}
	return markTree(v, func(_ string, e graph.Value) any { return unknownTree(e) })
}

// sensitiveTree mirrors the value with true at sensitive paths; nil when
// nothing is sensitive.
func sensitiveTree(v graph.Value, path string, sensitive []string) any {
	if len(sensitive) == 0 || v == nil && path == "" {
		return nil
	}
	d := &differ{sensitive: sensitive}
	if path != "" && d.isSensitive(path) {
		return true
	}
	if path != "" && !d.hasSensitiveBelow(path) {
		return nil
	}
	return markTree(v, func(seg string, e graph.Value) any { return sensitiveTree(e, join(path, seg), sensitive) })
}

// markTree is the walk that unknownTree and sensitiveTree share: the
// mirror of a map or list whose elements are mark(segment, element), a
// segment being the map key or the list index. A map keeps only its marked
// keys; a list keeps every place, false where unmarked, so that indices
// still line up. Nil when nothing below is marked, and for any other value.
func markTree(v graph.Value, mark func(seg string, e graph.Value) any) any {
	switch x := v.(type) {
	case map[string]graph.Value:
		var out map[string]any
		for k, e := range x {
			if t := mark(k, e); t != nil {
				if out == nil {
					out = map[string]any{}
				}
				out[k] = t
			}
		}
		if out == nil {
			return nil
		}
		return out
	case []graph.Value:
		out := make([]any, len(x))
		some := false
		for i, e := range x {
			out[i] = mark(strconv.Itoa(i), e)
			if out[i] == nil {
				out[i] = false
			} else {
				some = true
			}
		}
		if !some {
			return nil
		}
		return out
	}
	return nil
}

// actionWord is the verb of the machine UI and the markdown lists.
func actionWord(a planner.Action) string {
	switch {
	case a.IsReplace():
		return "replace"
	case a == planner.NoOp:
		return "noop"
	}
	return strings.ReplaceAll(a.String(), "-", "_")
}

// segments turns a dot path into Terraform's path form: map keys as
// strings, list indices as numbers, read off the value the path walks
// (after, or before when after lacks it).
func segments(path string, values ...map[string]graph.Value) []any {
	parts := strings.Split(path, ".")
	plain := func() []any {
		out := make([]any, len(parts))
		for i, p := range parts {
			out[i] = p
		}
		return out
	}
	for _, m := range values {
		out := plain()
		var cur graph.Value = m
		ok := m != nil
		for i, p := range parts {
			if !ok {
				break
			}
			switch x := cur.(type) {
			case map[string]graph.Value:
				cur, ok = x[p]
			case []graph.Value:
				n, err := strconv.Atoi(p)
				if err != nil || n < 0 || n >= len(x) {
					ok = false
					break
				}
				out[i] = n
				cur = x[n]
			default:
				ok = false
			}
		}
		if ok {
			return out
		}
	}
	return plain()
}
