package driver

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Looking up. An unmanaged resource (TOSCA directives: [select], XOS
// must-exist, Tonomi reference.Service) must exist already: ActionRead
// finds it by its keys (graph.Resource.Lookup: XOS's tosca_key fields, the
// properties a select template assigns, an import filter) through the
// resource's lookup operation (graph.OpLookup: TOSCA's
// xosplan.interfaces.Lookup read), which answers with the object or "not
// found". A driver that runs operations runs it with the keys as the input
// LookupInput (JSON text) and judges what it reports with LookupOutcome; a
// read with no lookup operation answers NotChecked, which never claims the
// object was found.

// LookupInput is the operation input (for exec, the environment variable)
// through which a lookup operation gets the keys to find the object by: a
// JSON object, {"name": "mysite"}.
const LookupInput = "XOSPLAN_LOOKUP"

// Outputs of a lookup operation with a meaning of their own (exec: lines
// in $XOSPLAN_OUTPUTS; ansible: set_stats keys).
const (
	// LookupStatusOutput: "found" (or no status) reports the object found,
	// "missing" reports that no object has the keys.
	LookupStatusOutput = "status"
	// LookupIDOutput is the object's id, recorded as its instance id.
	LookupIDOutput = "id"
	// LookupObjectsOutput is a JSON list of objects (each a JSON object;
	// its "id" field the object's id): the candidates, of which xosplan
	// keeps those whose fields equal every key. A script may list every
	// object it knows and leave the choice to xosplan.
	LookupObjectsOutput = "objects"
)

// ExtraLookup is the Feedback.Extra key of what the last read of an
// unmanaged resource did: a map with "keys" (the lookup keys, when there
// are any), "checked" (true when a lookup operation ran and found the
// object, false when nothing could look it up) and, when found, "id".
const ExtraLookup = "lookup"

// NotCheckedStatus is the backend status of a read that nothing could
// look it up: the resource is recorded (its dependents go on), but
// nothing says it exists.
const NotCheckedStatus = "not checked: nothing can look it up"

// Errors of a lookup; compare with errors.Is.
var (
	// ErrNotFound: no object has the keys.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous: several objects have the keys.
	ErrAmbiguous = errors.New("several objects match")
)

// MaxCandidates bounds the objects a lookup operation may report in
// LookupObjectsOutput; more is a failed lookup.
const MaxCandidates = 10000

// Candidate is one object a lookup reported.
type Candidate struct {
	// ID is the object's id ("" when it reported none).
	ID string
	// Fields are what it reported of the object, its id included.
	Fields map[string]graph.Value
}

// LookupKeys returns the keys req's read looks its object up by.
func LookupKeys(req Request) map[string]graph.Value {
	if req.Resource != nil {
		return req.Resource.Lookup
	}
	return nil
}

// RecordedKeys returns the lookup keys the last read of a resource
// recorded (ExtraLookup), for a read made from the state alone (refresh).
func RecordedKeys(fb state.Feedback) map[string]graph.Value {
	m, _ := fb.Extra[ExtraLookup].(map[string]graph.Value)
	keys, _ := m["keys"].(map[string]graph.Value)
	return keys
}

// KeysText renders lookup keys for people, sorted: `name = "mysite",
// login_base = "ms"` (strings quoted, other values as JSON); "" for none.
func KeysText(keys map[string]graph.Value) string {
	parts := make([]string, 0, len(keys))
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		parts = append(parts, k+" = "+valueText(keys[k], true))
	}
	return strings.Join(parts, ", ")
}

// valueText is v as text: a string as it is (quoted when quote is set),
// anything else as JSON.
func valueText(v graph.Value, quote bool) string {
	if s, ok := v.(string); ok {
		if quote {
			return strconv.Quote(s)
		}
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// keysJSON is the value of LookupInput for keys.
func keysJSON(keys map[string]graph.Value) (string, error) {
	if keys == nil {
		keys = map[string]graph.Value{}
	}
	b, err := json.Marshal(keys)
	if err != nil {
		return "", fmt.Errorf("the lookup keys: %w", err)
	}
	return string(b), nil
}

// LookupInputs returns the inputs of the lookup operation op of req: its
// resolved inputs (or its declared ones) with LookupInput added.
func LookupInputs(req Request, op graph.Operation) (Request, error) {
	keys, err := keysJSON(LookupKeys(req))
	if err != nil {
		return req, err
	}
	in, ok := req.Inputs[graph.OpLookup]
	if !ok {
		in = op.Inputs
	}
	in = maps.Clone(in)
	if in == nil {
		in = map[string]graph.Value{}
	}
	in[LookupInput] = keys
	req.Inputs = maps.Clone(req.Inputs)
	if req.Inputs == nil {
		req.Inputs = map[string]map[string]graph.Value{}
	}
	req.Inputs[graph.OpLookup] = in
	return req, nil
}

// NotChecked is the outcome of a read that nothing can do: fb (the
// recorded feedback) recorded as active, so that dependents go on, with
// NotCheckedStatus as its backend status and status message, never "ok".
func NotChecked(req Request, fb state.Feedback) Outcome {
	fb.BackendCode, fb.BackendStatus = state.BackendOK, NotCheckedStatus
	fb.Status = state.Status{Active: true, Message: NotCheckedStatus}
	fb.Extra = withLookup(fb.Extra, LookupKeys(req), false, "")
	return Outcome{Feedback: fb}
}

// withLookup returns extra with ExtraLookup set; extra is not modified.
func withLookup(extra map[string]graph.Value, keys map[string]graph.Value, checked bool, id string) map[string]graph.Value {
	extra = maps.Clone(extra)
	if extra == nil {
		extra = map[string]graph.Value{}
	}
	m := map[string]graph.Value{"checked": checked}
	if len(keys) > 0 {
		m["keys"] = maps.Clone(keys)
	}
	if id != "" {
		m["id"] = id
	}
	extra[ExtraLookup] = m
	return extra
}

// LookupOutcome judges what the lookup operation of req reported, its
// outputs over the recorded feedback fb (attributes named by attr): the
// object found, or a failure wrapping ErrNotFound or ErrAmbiguous that
// names the keys. Outcome.Candidates lists the objects that have the
// keys, so that a caller can show them.
func LookupOutcome(req Request, fb state.Feedback, outputs map[string]graph.Value, attr func(string) string) (Outcome, error) {
	keys := LookupKeys(req)
	what := "object"
	if req.Resource != nil && req.Resource.Type != "" {
		what = req.Resource.Type
	}
	by := ""
	if len(keys) > 0 {
		by = " with " + KeysText(keys)
	}
	status, _ := outputs[LookupStatusOutput].(string)
	var found []Candidate
	switch status {
	case "missing":
	case "", "found":
		cands, err := candidates(outputs)
		if err != nil {
			return Failed(req, &fb, fmt.Errorf("the lookup: %w", err))
		}
		for _, c := range cands {
			if matchesKeys(c.Fields, keys, len(cands) == 1 && outputs[LookupObjectsOutput] == nil) {
				found = append(found, c)
			}
		}
	default:
		return Failed(req, &fb, fmt.Errorf("the lookup reported status %q, which is neither found nor missing", Truncate(status, 80)))
	}
	switch len(found) {
	case 0:
		seen := ""
		if cands, _ := candidates(outputs); outputs[LookupObjectsOutput] != nil && len(cands) > 0 {
			seen = "; the lookup reported " + idList(cands)
		}
		out, err := Failed(req, &fb, fmt.Errorf("%w: no %s%s%s", ErrNotFound, what, by, seen))
		out.Feedback.Extra = withLookup(fb.Extra, keys, false, "")
		return out, err
	case 1:
	default:
		out, err := Failed(req, &fb, fmt.Errorf("%w: %d objects%s: %s", ErrAmbiguous, len(found), by, idList(found)))
		out.Candidates = found
		return out, err
	}
	obj := found[0]
	attrs := maps.Clone(fb.Attributes)
	for name, v := range obj.Fields {
		if name == LookupIDOutput {
			continue
		}
		if attrs == nil {
			attrs = map[string]graph.Value{}
		}
		attrs[attr(name)] = v
	}
	fb.Attributes = attrs
	if obj.ID != "" {
		fb.InstanceID = obj.ID
	}
	fb.BackendCode, fb.BackendStatus = state.BackendOK, "found"+by
	fb.Status = state.Status{Active: true}
	fb.Extra = withLookup(fb.Extra, keys, true, obj.ID)
	return Outcome{Feedback: fb, Candidates: found}, nil
}

// idList names objects for a message by their ids, at most ten.
func idList(list []Candidate) string {
	var ids []string
	for i, c := range list {
		if i == 10 {
			ids = append(ids, fmt.Sprintf("and %d more", len(list)-i))
			break
		}
		ids = append(ids, strconv.Quote(c.ID))
	}
	return strings.Join(ids, ", ")
}

// candidates returns the objects outputs report: each entry of
// LookupObjectsOutput, or the outputs themselves (status left out) as one
// object.
func candidates(outputs map[string]graph.Value) ([]Candidate, error) {
	raw, ok := outputs[LookupObjectsOutput]
	if !ok {
		fields := maps.Clone(outputs)
		delete(fields, LookupStatusOutput)
		id, _ := fields[LookupIDOutput].(string)
		return []Candidate{{ID: id, Fields: fields}}, nil
	}
	var list []any
	switch v := raw.(type) {
	case string:
		dec := json.NewDecoder(strings.NewReader(v))
		dec.UseNumber()
		if err := dec.Decode(&list); err != nil {
			return nil, fmt.Errorf("%s is not a JSON list: %w", LookupObjectsOutput, err)
		}
	case []graph.Value:
		list = v
	default:
		return nil, fmt.Errorf("%s is not a list", LookupObjectsOutput)
	}
	if len(list) > MaxCandidates {
		return nil, fmt.Errorf("%s lists %d objects, more than %d", LookupObjectsOutput, len(list), MaxCandidates)
	}
	out := make([]Candidate, 0, len(list))
	for i, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s[%d] is not an object", LookupObjectsOutput, i)
		}
		fields := make(map[string]graph.Value, len(m))
		for k, v := range m {
			fields[k] = graph.DecodePlain(v)
		}
		out = append(out, Candidate{ID: idText(fields[LookupIDOutput]), Fields: fields})
	}
	slices.SortStableFunc(out, func(a, b Candidate) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// idText is an object's id as text ("" for none).
func idText(v graph.Value) string {
	if v == nil {
		return ""
	}
	return valueText(v, false)
}

// Matches reports whether an object's fields have every key's value
// (compared as text, so that a script's "8" is the key 8); a key the
// object lacks does not match.
func Matches(fields, keys map[string]graph.Value) bool { return matchesKeys(fields, keys, false) }

// matchesKeys reports whether an object's fields have every key's value
// (compared as text, so that a script's "8" is the key 8). With
// trusting, a key the object does not report counts as matched: a
// script that answers one object was given the keys and found it by
// them.
func matchesKeys(fields, keys map[string]graph.Value, trusting bool) bool {
	for k, want := range keys {
		got, ok := fields[k]
		if !ok {
			if trusting {
				continue
			}
			return false
		}
		if valueText(got, false) != valueText(want, false) {
			return false
		}
	}
	return true
}
