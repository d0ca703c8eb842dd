package driver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Helpers every driver needs alike: they keep what drivers report the
// same shape whichever one reports it.

// ResourceDriver returns the driver of the desired resource, or on a delete
// of a resource no longer configured the recorded one.
func ResourceDriver(req Request) (graph.Driver, error) {
	switch {
	case req.Resource != nil:
		return req.Resource.Driver, nil
	case req.Prior != nil:
		return req.Prior.Driver, nil
	}
	return graph.Driver{}, fmt.Errorf("%s: neither a desired nor a recorded resource", req.Address)
}

// Failed returns the outcome of a failed action: fb (or an empty
// feedback) marked failed, with err as backend status.
func Failed(req Request, fb *state.Feedback, err error) (Outcome, error) {
	var f state.Feedback
	if fb != nil {
		f = *fb
	}
	if len(f.Attributes) == 0 {
		f.Attributes = nil
	}
	f.BackendCode = state.BackendError
	f.BackendStatus = err.Error()
	f.Status.Active, f.Status.Converging, f.Status.Failed = false, false, true
	f.Status.Message = Truncate(err.Error(), 1024)
	return Outcome{Feedback: f}, err
}

// JoinTails joins the output tails of several runs, keeping the last
// maxBytes of them.
func JoinTails(tails []string, maxBytes int) string {
	s := strings.Join(tails, "\n")
	if len(s) > maxBytes {
		s = "…" + strings.ToValidUTF8(s[len(s)-maxBytes:], "")
	}
	return s
}

// FirstPositive returns the first positive duration of ds (a timeout:
// the operation's, the request's, the driver's), or 0.
func FirstPositive(ds ...time.Duration) time.Duration {
	for _, d := range ds {
		if d > 0 {
			return d
		}
	}
	return 0
}

// Truncate cuts s to n bytes, on a UTF-8 boundary, marking the cut.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:n], "") + "…"
}

// InstanceID returns the stable instance id xosplan gives the resource at
// addr: the same address always gets the same id, so that a repeated
// launch is recognised by idempotent scripts (the scripted driver's
// instanceId, Feedback.Extra[ExtraInstanceID]).
func InstanceID(addr string) string {
	sum := sha256.Sum256([]byte("xosplan instance\x00" + addr))
	return hex.EncodeToString(sum[:12])
}

// Every calls fn every interval, on a goroutine of its own, until the
// returned function is called, which waits for that goroutine to end.
func Every(interval time.Duration, fn func()) (stop func()) {
	done := make(chan struct{})
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				fn()
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}

// HealthOutcome is the outcome of a health check that reported status
// (active or empty, converging, failed, missing) and message, fb holding
// the rest of what it reported: the one reading of a check's report that
// every driver running checks shares.
func HealthOutcome(req Request, fb state.Feedback, status, message string) (Outcome, error) {
	suffix := ""
	if message != "" {
		suffix = ": " + message
	}
	switch status {
	case "", "active":
		fb.BackendCode, fb.BackendStatus = state.BackendOK, "ok"
		fb.Status = state.Status{Active: true, Message: message}
		return Outcome{Feedback: fb}, nil
	case "converging":
		fb.BackendCode, fb.BackendStatus = state.BackendOK, "converging"+suffix
		fb.Status = state.Status{Converging: true, Message: message}
		return Outcome{Feedback: fb, Converging: true}, nil
	case "failed":
		return Failed(req, &fb, fmt.Errorf("the health check reports the object failed%s", suffix))
	case "missing":
		return Failed(req, &fb, fmt.Errorf("the health check reports the object missing (deleted outside xosplan?)%s", suffix))
	}
	return Failed(req, &fb, fmt.Errorf("the health check reported status %q, which is none of active, converging, failed and missing", Truncate(status, 80)))
}

// RanCheck records in fb the output tail of a run of the check-like
// operation key (a health check, a lookup) and, when the run failed with
// err, returns the failed outcome, naming the operation what; failed is
// false when the run succeeded and its outputs are to be judged.
func RanCheck(req Request, fb *state.Feedback, key, what string, op graph.Operation, tail string, maxOutput int, err error) (out Outcome, ferr error, failed bool) {
	if tail != "" {
		fb.Output = JoinTails([]string{"[" + key + "]\n" + strings.TrimSuffix(tail, "\n")}, maxOutput)
	}
	if err == nil {
		return Outcome{}, nil, false
	}
	out, ferr = Failed(req, fb, fmt.Errorf("%s (%s): %w", what, op.Implementation, err))
	return out, ferr, true
}

// Observe answers a read or a health action of a driver whose health
// check and lookup are operations. A health action runs check when drv
// has a health check implementation, else it answers the recorded
// feedback, active. A read runs lookup (with LookupInputs) when drv has a
// lookup implementation, else it answers NotChecked.
func Observe(ctx context.Context, req Request, drv graph.Driver,
	check, lookup func(context.Context, Request, graph.Operation, state.Feedback) (Outcome, error)) (Outcome, error) {
	var fb state.Feedback
	if req.Prior != nil {
		fb = req.Prior.Feedback
	}
	if req.Action == ActionRead {
		op, ok := drv.Operations[graph.OpLookup]
		if !ok || op.Implementation == "" {
			return NotChecked(req, fb), nil
		}
		lreq, err := LookupInputs(req, op)
		if err != nil {
			return Failed(req, &fb, err)
		}
		return lookup(ctx, lreq, op, fb)
	}
	if op, ok := drv.Operations[graph.OpHealthCheck]; ok && op.Implementation != "" {
		return check(ctx, req, op, fb)
	}
	fb.BackendCode, fb.BackendStatus = state.BackendOK, "ok"
	fb.Status = state.Status{Active: true}
	return Outcome{Feedback: fb}, nil
}

// NodeArtifacts returns the files of a node's artifacts, sorted by
// artifact name, as written (relative to the folder of the node
// template's file): the driver option graph.OptionArtifacts (every
// artifact of the node, its type's too) when the front end wrote it,
// else the spec's "artifacts" (a template's own, as recorded before the
// option existed). URLs and empty names are left out: nothing is fetched.
// The ansible driver puts these files beside a playbook as it runs, and
// the plan's digest of its operations covers them.
func NodeArtifacts(drv graph.Driver, spec map[string]graph.Value) []string {
	arts, ok := drv.Options[graph.OptionArtifacts].(map[string]graph.Value)
	if !ok {
		arts, _ = spec["artifacts"].(map[string]graph.Value)
	}
	var out []string
	for _, name := range slices.Sorted(maps.Keys(arts)) {
		if f, ok := arts[name].(string); ok && f != "" && !strings.Contains(f, "://") {
			out = append(out, f)
		}
	}
	return out
}
