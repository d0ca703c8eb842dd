package sync

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/canonjson"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// EventFeedback: an observation posted to POST
// /v1/resources/{addr}/feedback (an XOS event step) was recorded as
// Address's feedback; Message names the source and the paths it changed,
// never their values.
const EventFeedback = "feedback"

// Limits of an observation (POST /v1/resources/{addr}/feedback).
const (
	// MaxFeedbackBytes bounds the request body.
	MaxFeedbackBytes = 1 << 20
	// MaxFeedbackKeys bounds the attributes and signals of one
	// observation together.
	MaxFeedbackKeys = 256
	// MaxFeedbackNameBytes bounds a key (attribute or signal name) and
	// the source.
	MaxFeedbackNameBytes = 255
	// MaxFeedbackMessageBytes bounds the status message.
	MaxFeedbackMessageBytes = 4096
	// MaxFeedbackDepth bounds the nesting of a value.
	MaxFeedbackDepth = 32
	// MaxPendingObservations bounds the observations waiting for the
	// engine (it records them between two pieces of work).
	MaxPendingObservations = 1000
)

// Observation is what an event step reports about a recorded resource:
// feedback state only (XOS's one-way flow: it never changes the
// declarative spec). Attributes and Signals are merged into the recorded
// ones (a null value removes the key); Status, when given, replaces the
// recorded status as a health check's would: a managed resource
// observed failed is repaired by the next reconcile, and one that was
// converging and is observed active releases its dependents.
type Observation struct {
	// Source names the observer (the event step), for the activity log.
	Source     string
	Status     *state.Status
	Attributes map[string]graph.Value
	Signals    map[string]graph.Value
}

// Errors of Observe.
var (
	// ErrObservationQueueFull: MaxPendingObservations wait already.
	ErrObservationQueueFull = errors.New("too many observations are waiting to be recorded")
)

// A cluster member that does not lead records nothing: ErrNotLeading
// (service.go).

// observation is one queued Observation of addr.
type observation struct {
	addr string
	obs  Observation
}

// Observe queues obs for the recorded resource at addr; the engine
// records it as soon as it is free (before anything else it has to do),
// then asks for the health checks of the resources that depend on addr
// and for a reconcile.
func (e *Engine) Observe(addr string, obs Observation) error {
	if c := e.opts.Cluster; c != nil {
		if st := c.Status(); st.Role != RoleLeader {
			if st.Leader != "" {
				return fmt.Errorf("%w: send the observation to the leader, %s", ErrNotLeading, st.Leader)
			}
			return ErrNotLeading
		}
	}
	e.mu.Lock()
	if !e.records(addr) {
		e.mu.Unlock()
		return ErrUnknownResource
	}
	if len(e.observations) >= MaxPendingObservations {
		e.mu.Unlock()
		return ErrObservationQueueFull
	}
	e.observations = append(e.observations, observation{addr: addr, obs: obs})
	e.mu.Unlock()
	e.signal()
	return nil
}

// recordObservations records the queued observations as the resources'
// feedback, through the refresh-only plan health checks record drift
// with (journal and all), reports each, and wakes what depends on the
// resources they changed: their health checks are due now, and a
// reconcile is asked for.
func (e *Engine) recordObservations(ctx context.Context) {
	e.mu.Lock()
	queued := e.observations
	e.observations = nil
	drivers := e.opts.Drivers
	if e.goal != nil {
		drivers = e.goal.Drivers
	}
	e.mu.Unlock()
	if len(queued) == 0 {
		return
	}
	prior, ok := e.current(ctx)
	if !ok {
		return
	}
	byAddr := map[string][]Observation{}
	var addrs []string
	for _, q := range queued {
		if _, ok := prior.Lookup(q.addr); !ok {
			// Gone since it was queued (a reconcile deleted it).
			e.opts.Logger.Warn("observation dropped: no such resource in the state", "address", q.addr, "source", q.obs.Source)
			continue
		}
		if _, ok := byAddr[q.addr]; !ok {
			addrs = append(addrs, q.addr)
		}
		byAddr[q.addr] = append(byAddr[q.addr], q.obs)
	}
	if len(addrs) == 0 {
		return
	}
	slices.Sort(addrs)
	p, diags := planner.Diff(ctx, nil, prior, planner.Options{RefreshOnly: true, Targets: addrs, Refresher: observed(byAddr)})
	if p == nil || diags.HasErrors() {
		e.opts.Logger.Warn("recording observations failed", "error", diags.Err())
		return
	}
	changed := map[string][]string{}
	for _, d := range p.Drift {
		if r, ok := prior.Lookup(d.Address); ok {
			changed[d.Address] = observedPaths(r, byAddr[d.Address])
		}
	}
	if len(p.Drift) > 0 {
		if drivers == nil {
			drivers = executor.Registry{}
		}
		if _, ok := e.applyDrift(ctx, p, drivers, e.opts.Clock.Now()); !ok {
			return
		}
	}
	for _, addr := range addrs {
		sources := map[string]bool{}
		for _, o := range byAddr[addr] {
			sources[o.Source] = true
		}
		from := strings.Join(slices.Sorted(maps.Keys(sources)), ", ")
		paths := changed[addr]
		msg := "observation from " + from + ": no change"
		if len(paths) > 0 {
			msg = "observation from " + from + " recorded: " + strings.Join(paths, ", ")
			e.wakeDependents(addr)
		}
		e.emit(Event{Type: EventFeedback, Address: addr, Message: msg})
		e.opts.Logger.Info("observation recorded", "address", addr, "source", from, "paths", strings.Join(paths, ","))
	}
}

// wakeDependents asks for the health checks of what depends on addr,
// directly or not, and for a reconcile, which reads the feedback now
// recorded (a resource observed failed is repaired; one observed active
// releases what waited for it).
func (e *Engine) wakeDependents(addr string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rev := e.reverse
	if rev == nil && e.recorded != nil {
		rev = map[string][]string{}
		for i := range e.recorded.Resources {
			r := &e.recorded.Resources[i]
			for _, d := range r.Dependencies {
				rev[d] = append(rev[d], r.Address)
			}
		}
	}
	seen := map[string]bool{addr: true}
	queue := []string{addr}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		for _, d := range rev[cur] {
			if !seen[d] {
				seen[d] = true
				e.checks[d] = true
				queue = append(queue, d)
			}
		}
	}
	e.reasons["feedback"] = true
}

// observedPaths lists what the observations obs change in r's feedback:
// "status", "attributes.NAME", "signals.NAME", sorted.
func observedPaths(r *state.Resource, obs []Observation) []string {
	set := map[string]bool{}
	fb := r.Feedback
	for _, o := range obs {
		if o.Status != nil && *o.Status != fb.Status {
			set["status"] = true
		}
		for k, v := range o.Attributes {
			if !graph.Equal(fb.Attributes[k], v) {
				set["attributes."+k] = true
			}
		}
		for k, v := range o.Signals {
			if !graph.Equal(fb.Signals[k], v) {
				set["signals."+k] = true
			}
		}
		fb, _ = observed{r.Address: {o}}.Refresh(context.Background(), &state.Resource{Address: r.Address, Feedback: fb})
	}
	return slices.Sorted(maps.Keys(set))
}

// observed is a planner.Refresher that observes, for the addresses it
// holds, the recorded feedback with the observations applied, and the
// recorded feedback of any other.
type observed map[string][]Observation

func (o observed) Refresh(_ context.Context, r *state.Resource) (state.Feedback, error) {
	fb := r.Feedback
	for _, obs := range o[r.Address] {
		if obs.Status != nil {
			fb.Status = *obs.Status
		}
		fb.Attributes = mergeObserved(fb.Attributes, obs.Attributes)
		fb.Signals = mergeObserved(fb.Signals, obs.Signals)
	}
	return fb, nil
}

// mergeObserved returns recorded with the observed keys set (removed when
// null); recorded itself is not modified.
func mergeObserved(recorded, obs map[string]graph.Value) map[string]graph.Value {
	if len(obs) == 0 {
		return recorded
	}
	out := maps.Clone(recorded)
	if out == nil {
		out = map[string]graph.Value{}
	}
	for k, v := range obs {
		if v == nil {
			delete(out, k)
		} else {
			out[k] = v
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// feedbackError is a refused observation: its HTTP status and a message
// that names what is wrong, never a value.
type feedbackError struct {
	code int
	msg  string
}

func (f *feedbackError) Error() string { return f.msg }

func badObservation(format string, args ...any) *feedbackError {
	return &feedbackError{code: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

// readObservation reads an observation from a request body:
//
//	{"source": "monitor", "status": {"active": true, "converging": false, "failed": false, "message": "…"},
//	 "attributes": {"name": value, …}, "signals": {"interface.pin": value, …}}
//
// within the limits above; every problem is a feedbackError.
func readObservation(body io.Reader) (Observation, error) {
	var obs Observation
	data, err := io.ReadAll(io.LimitReader(body, MaxFeedbackBytes+1))
	if err != nil {
		return obs, badObservation("reading the body: %v", err)
	}
	if len(data) > MaxFeedbackBytes {
		return obs, &feedbackError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("the body is larger than %d bytes", MaxFeedbackBytes)}
	}
	v, err := canonjson.DecodeValue(data)
	if err != nil {
		return obs, badObservation("the body is not one valid JSON value")
	}
	m, ok := v.(map[string]graph.Value)
	if !ok {
		return obs, badObservation("the body must be a JSON object with source, status, attributes or signals")
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		switch k {
		case "source", "status", "attributes", "signals":
		default:
			return obs, badObservation("unknown field %q (an observation has source, status, attributes and signals)", clip(k))
		}
	}
	if obs.Source, err = shortString("source", m["source"], MaxFeedbackNameBytes); err != nil {
		return obs, err
	}
	if obs.Source == "" {
		obs.Source = "api"
	}
	if m["status"] != nil {
		if obs.Status, err = readStatus(m["status"]); err != nil {
			return obs, err
		}
	}
	keys := 0
	for _, f := range []struct {
		name string
		dst  *map[string]graph.Value
	}{{"attributes", &obs.Attributes}, {"signals", &obs.Signals}} {
		if m[f.name] == nil {
			continue
		}
		vals, ok := m[f.name].(map[string]graph.Value)
		if !ok {
			return obs, badObservation("%s must be an object of names to values", f.name)
		}
		for _, k := range slices.Sorted(maps.Keys(vals)) {
			if k == "" || len(k) > MaxFeedbackNameBytes || !utf8.ValidString(k) || strings.ContainsAny(k, "\x00\r\n") {
				return obs, badObservation("%s: a name must be 1 to %d bytes of text on one line", f.name, MaxFeedbackNameBytes)
			}
			if k == executor.AttrDiscovered || k == executor.AttrCommands {
				return obs, badObservation("%s.%s is kept by xosplan itself (discovery, commands)", f.name, k)
			}
			if depth(vals[k]) > MaxFeedbackDepth {
				return obs, badObservation("%s.%s is nested deeper than %d levels", f.name, clip(k), MaxFeedbackDepth)
			}
			if _, unknown := vals[k].(graph.Unknown); unknown {
				return obs, badObservation("%s.%s must be a value, not an unknown", f.name, clip(k))
			}
		}
		keys += len(vals)
		*f.dst = vals
	}
	if keys > MaxFeedbackKeys {
		return obs, badObservation("%d attributes and signals: at most %d in one observation", keys, MaxFeedbackKeys)
	}
	if obs.Status == nil && keys == 0 {
		return obs, badObservation("the observation is empty: give a status, attributes or signals")
	}
	return obs, nil
}

// readStatus reads an observed status: flags (absent ones false) and a
// message.
func readStatus(v graph.Value) (*state.Status, error) {
	m, ok := v.(map[string]graph.Value)
	if !ok {
		return nil, badObservation("status must be an object with active, converging, failed and message")
	}
	st := &state.Status{}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		var flag *bool
		switch k {
		case "active":
			flag = &st.Active
		case "converging":
			flag = &st.Converging
		case "failed":
			flag = &st.Failed
		case "message":
			msg, err := shortString("status.message", m[k], MaxFeedbackMessageBytes)
			if err != nil {
				return nil, err
			}
			st.Message = msg
			continue
		default:
			return nil, badObservation("unknown status field %q (active, converging, failed, message)", clip(k))
		}
		b, ok := m[k].(bool)
		if !ok {
			return nil, badObservation("status.%s must be true or false", k)
		}
		*flag = b
	}
	return st, nil
}

// shortString reads an optional string of at most limit bytes.
func shortString(name string, v graph.Value, limit int) (string, error) {
	if v == nil {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", badObservation("%s must be a string", name)
	}
	if len(s) > limit {
		return "", badObservation("%s is longer than %d bytes", name, limit)
	}
	return s, nil
}

// depth is how deeply v nests lists and maps (a scalar is 0).
func depth(v graph.Value) int {
	d := 0
	switch x := v.(type) {
	case map[string]graph.Value:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	case []graph.Value:
		for _, e := range x {
			d = max(d, depth(e))
		}
		return d + 1
	}
	return 0
}

// clip shortens a name a client sent for a message.
func clip(s string) string {
	if len(s) > 64 {
		s = s[:64] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}

// serveFeedback is POST /v1/resources/{addr}/feedback: it reads an
// observation and queues it (202); the engine records it. It is refused
// without a token (403: an API with none takes no observations), with a
// body that is not a valid observation (400, 413), for a resource the
// state does not record (404), and when the queue is full or this member
// does not lead (503).
func serveFeedback(e *Engine, opts APIOptions) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if opts.Token == "" {
			writeError(w, http.StatusForbidden, "observations need the API token: start sync with --api-token-file, or on a loopback address")
			return
		}
		obs, err := readObservation(r.Body)
		var fe *feedbackError
		if errors.As(err, &fe) {
			writeError(w, fe.code, fe.msg)
			return
		}
		switch err := e.Observe(r.PathValue("addr"), obs); {
		case errors.Is(err, ErrUnknownResource):
			writeError(w, http.StatusNotFound, "no such resource in the state")
		case err != nil:
			writeError(w, http.StatusServiceUnavailable, err.Error())
		default:
			writeJSON(w, http.StatusAccepted, map[string]string{"status": "observation queued"})
		}
	}
}
