package planview

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// StateText writes the recorded state as `xosplan show` prints it: per
// resource, its enacted spec (sensitive values masked) and a summary of the
// feedback last observed. No state at all (nil, or no lineage: the file
// does not exist) prints "No state."; a state whose resources were all
// destroyed or removed prints "The state has no resources." with its
// serial and lineage.
func StateText(w io.Writer, st *state.State, opts TextOptions) error {
	st = safeState(st) // control characters as symbols (safe.go)
	r := &renderer{color: opts.Color}
	if st == nil || (st.Lineage == "" && len(st.Resources) == 0) {
		r.line("No state.")
		_, err := w.Write(r.buf.Bytes())
		return err
	}
	if len(st.Resources) == 0 {
		r.line("The state has no resources (serial ", strconv.FormatUint(st.Serial, 10), ", lineage ", st.Lineage, ").")
		r.outputs(st.Outputs)
		_, err := w.Write(r.buf.Bytes())
		return err
	}
	for i := range st.Resources {
		if i > 0 {
			r.line()
		}
		r.stateResource(&st.Resources[i])
	}
	r.outputs(st.Outputs)
	_, err := w.Write(r.buf.Bytes())
	return err
}

// stateResource writes the recorded resource res: its spec as
// configuration, then its feedback as comments.
func (r *renderer) stateResource(res *state.Resource) {
	r.line(r.paint(ansiBold, "# "+res.Address+":"))
	kind := "resource"
	if res.Management == graph.Unmanaged {
		kind = "data"
	}
	r.line(kind, " ", strconv.Quote(res.Type), " ", strconv.Quote(res.Address), " {")
	d := &differ{sensitive: res.Sensitive}
	r.plainMap(d, 4, "", res.Spec)
	fb := &res.Feedback
	r.line()
	r.line("    # backend_code = ", strconv.Itoa(fb.BackendCode), " (", backendWord(fb.BackendCode), ")")
	if fb.BackendStatus != "" {
		r.line("    # backend_status = ", strconv.Quote(fb.BackendStatus))
	}
	r.line("    # status = ", statusWord(fb.Status))
	if fb.InstanceID != "" {
		r.line("    # instance_id = ", strconv.Quote(fb.InstanceID))
	}
	redacted := res.Redacted()
	attrs := redacted.Feedback.Attributes
	for _, k := range slices.Sorted(maps.Keys(attrs)) {
		if d.isSensitive("attributes." + k) {
			r.line("    # attributes.", k, " = ", state.SensitiveMarker)
			continue
		}
		r.line("    # attributes.", k, " = ", scalar(attrs[k]))
	}
	for _, k := range slices.Sorted(maps.Keys(fb.Signals)) {
		r.line("    # signals.", k, " = ", scalar(fb.Signals[k]))
	}
	for _, rel := range redacted.Feedback.Relationships {
		at := "    # relationships." + rel.Requirement + "[" + strconv.Itoa(rel.Index) + "]."
		r.line(at, "target = ", strconv.Quote(rel.Target))
		for _, k := range slices.Sorted(maps.Keys(rel.Attributes)) {
			r.line(at, "attributes.", k, " = ", scalar(rel.Attributes[k]))
		}
	}
	if !fb.Enacted.IsZero() {
		r.line("    # enacted = ", fb.Enacted.UTC().Format(time.RFC3339))
	}
	if len(res.Dependencies) > 0 {
		deps, _ := json.Marshal(res.Dependencies)
		r.line("    # dependencies = ", string(deps))
	}
	r.line("}")
}

// outputs writes the "Outputs:" block of the recorded outputs, sensitive
// ones masked; nothing for none.
func (r *renderer) outputs(outs map[string]state.Output) {
	if len(outs) == 0 {
		return
	}
	r.line()
	r.line("Outputs:")
	r.line()
	r.buf.Write(OutputLines(outs, false))
}

func backendWord(code int) string {
	switch code {
	case state.BackendOK:
		return "ok"
	case state.BackendError:
		return "error"
	}
	return "pending"
}

func statusWord(s state.Status) string {
	word := "inactive"
	switch {
	case s.Failed:
		word = "failed"
	case s.Converging:
		word = "converging"
	case s.Active:
		word = "active"
	}
	if s.Message != "" {
		word += ": " + s.Message
	}
	return word
}

// plainMap writes "key = value" lines, aligned, nested maps as blocks.
func (r *renderer) plainMap(d *differ, indent int, prefix string, m map[string]graph.Value) {
	keys := slices.Sorted(maps.Keys(m))
	label := func(k string) string {
		if prefix != "" {
			return strconv.Quote(k)
		}
		return k
	}
	width := 0
	for _, k := range keys {
		if _, nested := m[k].(map[string]graph.Value); !nested {
			width = max(width, len(label(k)))
		}
	}
	for _, k := range keys {
		path := join(prefix, k)
		key := label(k)
		v := m[k]
		if sub, nested := v.(map[string]graph.Value); nested && !d.isSensitive(path) && len(sub) > 0 {
			r.line(pad(indent), key, " = {")
			r.plainMap(d, indent+4, path, sub)
			r.line(pad(indent), "}")
			continue
		}
		text := scalar(v)
		if graph.HasUnknown(v) {
			text = expression(v)
		}
		// An empty map or list holds no secret, whatever may lie below
		// its path once it has entries.
		if d.isSensitive(path) || (d.hasSensitiveBelow(path) && !isEmptyCollection(v)) {
			text = sensitiveValue
		}
		r.line(pad(indent), key, pad(width-len(key)), " = ", text)
	}
}

// isEmptyCollection reports whether v is a map or list without entries.
func isEmptyCollection(v graph.Value) bool {
	switch x := v.(type) {
	case map[string]graph.Value:
		return len(x) == 0
	case []graph.Value:
		return len(x) == 0
	}
	return false
}

type jsonStateResource struct {
	Address      string           `json:"address"`
	Type         string           `json:"type"`
	Management   graph.Management `json:"management"`
	Dependencies []string         `json:"dependencies"`
	Spec         json.RawMessage  `json:"spec"`
	Sensitive    []string         `json:"sensitive"`
	Feedback     json.RawMessage  `json:"feedback"`
}

// StateJSON writes the recorded state as JSON for `xosplan show --json`:
// format_version, lineage, serial, the resources, with values at
// sensitive paths left out of spec and of the resolved feedback, and the
// outputs (OutputsJSON, sensitive ones without their value).
func StateJSON(w io.Writer, st *state.State) error {
	if st == nil {
		st = &state.State{}
	}
	out := struct {
		FormatVersion string              `json:"format_version"`
		Lineage       string              `json:"lineage"`
		Serial        uint64              `json:"serial"`
		Resources     []jsonStateResource `json:"resources"`
		Outputs       map[string]any      `json:"outputs"`
	}{FormatVersion: StateJSONFormatVersion, Lineage: st.Lineage, Serial: st.Serial, Resources: []jsonStateResource{}, Outputs: OutputsJSON(st.Outputs, false)}
	var jw jsonWriter
	for i := range st.Resources {
		res := &st.Resources[i]
		fb := res.Feedback
		redacted := res.Redacted()
		fb.Attributes, fb.Relationships = redacted.Feedback.Attributes, redacted.Feedback.Relationships
		fb.Resolved = nil
		if res.Feedback.Resolved != nil {
			if m, ok := known(res.Feedback.Resolved, res.Sensitive).(map[string]any); ok {
				fb.Resolved = m
			}
		}
		fbJSON, err := json.Marshal(fb)
		if err != nil {
			return err
		}
		spec := res.Spec
		if spec == nil {
			spec = map[string]graph.Value{}
		}
		out.Resources = append(out.Resources, jsonStateResource{
			Address: res.Address, Type: res.Type, Management: res.Management,
			Dependencies: nonNil(res.Dependencies),
			Spec:         jw.raw(known(spec, res.Sensitive)),
			Sensitive:    nonNil(res.Sensitive),
			Feedback:     fbJSON,
		})
	}
	if jw.err != nil {
		return jw.err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// expression renders a recorded value that holds Unknowns the way it was
// written, since a state shows what was enacted, not what is to come.
func expression(v graph.Value) string {
	switch x := v.(type) {
	case graph.Unknown:
		parts := make([]string, len(x.Args))
		for i, a := range x.Args {
			parts[i] = expression(a)
		}
		return x.Func + "(" + strings.Join(parts, ", ") + ")"
	case []graph.Value:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = expression(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]graph.Value:
		keys := slices.Sorted(maps.Keys(x))
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = strconv.Quote(k) + ": " + expression(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return graph.Render(v)
}
