package pgcluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// wireRequest is an executor.Request as a job carries it: what the
// driver needs, without the walk's callbacks (Output, Started, Redactor),
// which the leader keeps. Recorded resources travel as the state file
// writes them, so that nothing of the feedback is lost; values keep
// their Unknowns ({"$unknown": …}).
type wireRequest struct {
	Action  string `json:"action"`
	Address string `json:"address"`
	// Resource is the desired resource (graph.Resource's JSON).
	Resource json.RawMessage `json:"resource,omitempty"`
	// Records is a state file holding Prior (at the request's address)
	// and Factory (at factoryAddress).
	Records  json.RawMessage                       `json:"records,omitempty"`
	Resolved map[string]json.RawMessage            `json:"resolved,omitempty"`
	Inputs   map[string]map[string]json.RawMessage `json:"inputs,omitempty"`
	// WorkDir and ScriptRoot are relative to the member's working folder
	// when they lie inside the leader's, so that members whose checkouts
	// sit at different places run the same files.
	WorkDir    string        `json:"work_dir,omitempty"`
	ScriptRoot string        `json:"script_root,omitempty"`
	Timeout    time.Duration `json:"timeout,omitempty"`
}

// factoryAddress is where a request's factory travels in its Records (a
// name no resource address has).
const factoryAddress = " factory"

// encodeRequest renders req for a job; wd is the leader's working folder.
func encodeRequest(req executor.Request, wd string) (wireRequest, error) {
	w := wireRequest{Action: req.Action, Address: req.Address, Timeout: req.Timeout,
		WorkDir: relativeTo(wd, req.WorkDir), ScriptRoot: relativeTo(wd, req.ScriptRoot)}
	if req.Resource != nil {
		raw, err := json.Marshal(req.Resource)
		if err != nil {
			return w, fmt.Errorf("encoding the resource of %s: %w", req.Address, err)
		}
		w.Resource = raw
	}
	var records []state.Resource
	if req.Prior != nil {
		p := *req.Prior
		p.Address = req.Address
		records = append(records, p)
	}
	if req.Factory != nil {
		f := *req.Factory
		f.Address = factoryAddress
		records = append(records, f)
	}
	if len(records) > 0 {
		raw, err := state.Encode(&state.State{Version: state.FormatVersion, Lineage: wireLineage, Serial: 1, Resources: records})
		if err != nil {
			return w, fmt.Errorf("encoding the records of %s: %w", req.Address, err)
		}
		w.Records = raw
	}
	var err error
	if w.Resolved, err = encodeValues(req.Resolved); err != nil {
		return w, fmt.Errorf("encoding the values of %s: %w", req.Address, err)
	}
	if len(req.Inputs) > 0 {
		w.Inputs = make(map[string]map[string]json.RawMessage, len(req.Inputs))
		for op, in := range req.Inputs {
			if w.Inputs[op], err = encodeValues(in); err != nil {
				return w, fmt.Errorf("encoding the inputs of %s %s: %w", req.Address, op, err)
			}
		}
	}
	return w, nil
}

// decode rebuilds the request on a member whose working folder is wd.
func (w wireRequest) decode(wd string) (executor.Request, error) {
	req := executor.Request{Action: w.Action, Address: w.Address, Timeout: w.Timeout,
		WorkDir: absoluteIn(wd, w.WorkDir), ScriptRoot: absoluteIn(wd, w.ScriptRoot)}
	if len(w.Resource) > 0 {
		r, err := decodeResource(w.Resource)
		if err != nil {
			return req, fmt.Errorf("the resource of %s: %w", w.Address, err)
		}
		req.Resource = r
	}
	if len(w.Records) > 0 {
		st, err := state.Decode(w.Records)
		if err != nil {
			return req, fmt.Errorf("the records of %s: %w", w.Address, err)
		}
		for i := range st.Resources {
			r := st.Resources[i]
			switch r.Address {
			case factoryAddress:
				req.Factory = &r
			case w.Address:
				req.Prior = &r
			}
		}
	}
	var err error
	if req.Resolved, err = decodeValues(w.Resolved); err != nil {
		return req, fmt.Errorf("the values of %s: %w", w.Address, err)
	}
	if len(w.Inputs) > 0 {
		req.Inputs = make(map[string]map[string]graph.Value, len(w.Inputs))
		for op, in := range w.Inputs {
			if req.Inputs[op], err = decodeValues(in); err != nil {
				return req, fmt.Errorf("the inputs of %s %s: %w", w.Address, op, err)
			}
		}
	}
	return req, nil
}

// wireOutcome is an action's result as a member reports it.
type wireOutcome struct {
	// Records is a state file holding the outcome's feedback (at
	// feedbackAddress) and each discovered instance's (at its index).
	Records    json.RawMessage  `json:"records"`
	Converging bool             `json:"converging,omitempty"`
	Gone       bool             `json:"gone,omitempty"`
	Discovered []wireDiscovered `json:"discovered,omitempty"`
	// Error is the driver's error, if any; NeedsChange and Interrupted
	// keep what errors.Is told of it.
	Error       string `json:"error,omitempty"`
	NeedsChange bool   `json:"needs_change,omitempty"`
	Interrupted bool   `json:"interrupted,omitempty"`
}

type wireDiscovered struct {
	NaturalID string `json:"natural_id"`
	Name      string `json:"name,omitempty"`
}

// feedbackAddress is where an outcome's feedback travels in its Records.
const feedbackAddress = " outcome"

// feedbackHolder is a recorded resource that carries fb through the state
// codec.
func feedbackHolder(addr string, fb state.Feedback) state.Resource {
	return state.Resource{Address: addr, Type: "xosplan.wire", Driver: graph.Driver{Name: graph.DriverNoop}, Feedback: fb}
}

func encodeOutcome(out executor.Outcome, err error) ([]byte, error) {
	w := wireOutcome{Converging: out.Converging, Gone: out.Gone}
	records := []state.Resource{feedbackHolder(feedbackAddress, out.Feedback)}
	for i, d := range out.Discovered {
		w.Discovered = append(w.Discovered, wireDiscovered{NaturalID: d.NaturalID, Name: d.Name})
		records = append(records, feedbackHolder(fmt.Sprintf(" discovered %d", i), d.Feedback))
	}
	raw, encErr := state.Encode(&state.State{Version: state.FormatVersion, Lineage: wireLineage, Serial: 1, Resources: records})
	if encErr != nil {
		return nil, fmt.Errorf("encoding an outcome: %w", encErr)
	}
	w.Records = raw
	if err != nil {
		w.Error = err.Error()
		w.NeedsChange = errors.Is(err, executor.ErrNeedsChange)
		w.Interrupted = errors.Is(err, executor.ErrInterrupted)
	}
	return json.Marshal(w)
}

func decodeOutcome(data []byte) (executor.Outcome, error, error) {
	var w wireOutcome
	if err := json.Unmarshal(data, &w); err != nil {
		return executor.Outcome{}, nil, fmt.Errorf("a member's result does not decode: %w", err)
	}
	out := executor.Outcome{Converging: w.Converging, Gone: w.Gone}
	st, err := state.Decode(w.Records)
	if err != nil {
		return out, nil, fmt.Errorf("a member's result does not decode: %w", err)
	}
	byAddr := map[string]state.Feedback{}
	for _, r := range st.Resources {
		byAddr[r.Address] = r.Feedback
	}
	out.Feedback = byAddr[feedbackAddress]
	for i, d := range w.Discovered {
		out.Discovered = append(out.Discovered, executor.Discovered{NaturalID: d.NaturalID, Name: d.Name,
			Feedback: byAddr[fmt.Sprintf(" discovered %d", i)]})
	}
	var actionErr error
	if w.Error != "" {
		actionErr = &remoteError{msg: w.Error, needsChange: w.NeedsChange, interrupted: w.Interrupted}
	}
	return out, actionErr, nil
}

// remoteError is a driver's error as a member reported it: its text, and
// what errors.Is told of it there.
type remoteError struct {
	msg                      string
	needsChange, interrupted bool
}

func (e *remoteError) Error() string { return e.msg }

func (e *remoteError) Unwrap() []error {
	var out []error
	if e.needsChange {
		out = append(out, executor.ErrNeedsChange)
	}
	if e.interrupted {
		out = append(out, executor.ErrInterrupted)
	}
	return out
}

func encodeValues(m map[string]graph.Value) (map[string]json.RawMessage, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		raw, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = raw
	}
	return out, nil
}

func decodeValues(m map[string]json.RawMessage) (map[string]graph.Value, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]graph.Value, len(m))
	for k, raw := range m {
		v, err := decodeValue(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = v
	}
	return out, nil
}

// decodeValue reads one canonical value: integers stay int64, and
// {"$unknown": …} is an Unknown again.
func decodeValue(raw []byte) (graph.Value, error) { return canonjson.DecodeValue(raw) }

// decodeResource reads a graph.Resource, its values canonical.
func decodeResource(raw []byte) (*graph.Resource, error) {
	var r graph.Resource
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	canon := func(m map[string]graph.Value) {
		for k, v := range m {
			m[k] = graph.DecodeValue(v)
		}
	}
	canon(r.Spec)
	canon(r.Lookup)
	canon(r.Import)
	canon(r.Driver.Options)
	for k, op := range r.Driver.Operations {
		canon(op.Inputs)
		r.Driver.Operations[k] = op
	}
	return &r, nil
}

// relativeTo returns p relative to wd when it lies inside it, else p.
func relativeTo(wd, p string) string {
	if p == "" || wd == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(wd, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return p
}

// absoluteIn returns p joined to wd when it is relative.
func absoluteIn(wd, p string) string {
	if p == "" || wd == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(wd, p)
}

// wireLineage is the lineage of the state files requests and outcomes
// carry records in (the state codec wants one).
const wireLineage = "xosplan-wire"
