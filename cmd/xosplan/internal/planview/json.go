package planview

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
)

// JSONFormatVersion is the version of the JSON plan written by JSON. A
// minor bump only adds fields.
const JSONFormatVersion = "1.0"

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
}

type jsonStep struct {
	Address string `json:"address"`
	Action  string `json:"action"`
}

type jsonChange struct {
	Address      string                     `json:"address"`
	Type         string                     `json:"type"`
	Management   graph.Management           `json:"management,omitempty"`
	Change       jsonChangeBody             `json:"change"`
	ActionReason string                     `json:"action_reason,omitempty"`
	ForcedBy     []string                   `json:"forced_by,omitempty"`
	Dependencies []string                   `json:"dependencies"`
	Placement    *planner.PlacementDecision `json:"placement,omitempty"`
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

// raw renders a value for the JSON plan; values come from plans, which
// hold only canonical values, so an error cannot happen in practice and
// is kept for the caller to report.
func (j *jsonWriter) raw(v any) json.RawMessage {
	b, err := planner.AppendJSON(nil, v)
	if err != nil && j.err == nil {
		j.err = err
	}
	return b
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
func JSON(w io.Writer, p *planner.Plan) error {
	out := jsonPlan{
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
		c := &p.Changes[i]
		replacePaths := [][]any{}
		if c.Action.IsReplace() && c.Reason != planner.ReasonDependencyReplaced {
			for _, rp := range c.ReasonPaths {
				replacePaths = append(replacePaths, segments(rp, c.After, c.Before))
			}
		}
		before, after := c.Before, c.After
		switch c.Action {
		case planner.Create:
			before = nil
		case planner.Delete, planner.Forget:
			after = nil
		}
		out.ResourceChanges = append(out.ResourceChanges, jsonChange{
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
			ActionReason: c.Reason.String(),
			ForcedBy:     c.ForcedBy,
			Dependencies: nonNil(c.Dependencies),
			Placement:    c.Placement,
		})
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
	switch x := v.(type) {
	case graph.Unknown:
		return true
	case map[string]graph.Value:
		var out map[string]any
		for k, e := range x {
			if t := unknownTree(e); t != nil {
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
			out[i] = unknownTree(e)
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
	switch x := v.(type) {
	case map[string]graph.Value:
		var out map[string]any
		for k, e := range x {
			if t := sensitiveTree(e, join(path, k), sensitive); t != nil {
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
			out[i] = sensitiveTree(e, join(path, strconv.Itoa(i)), sensitive)
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
