package sync

import (
	"time"

	"github.com/xosplan/xosplan/pkg/executor"
)

// Bounds of the history the engine keeps for History.
const (
	maxReconcileHistory = 20
	maxDriftHistory     = 50
	// maxHistorySteps bounds the steps kept of one reconcile.
	maxHistorySteps = 50
)

// ReconcileRecord is one reconcile as History keeps it.
type ReconcileRecord struct {
	Started time.Time `json:"started"`
	// ElapsedSeconds is how long it took.
	ElapsedSeconds float64 `json:"elapsed_seconds"`
	Reason         string  `json:"reason"`
	Outcome        string  `json:"outcome"`
	Error          string  `json:"error,omitempty"`
	// The counts of the apply walk (zero when nothing ran).
	Added     int `json:"added"`
	Changed   int `json:"changed"`
	Destroyed int `json:"destroyed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	// Steps are the walk's steps (the first maxHistorySteps), MoreSteps
	// how many were left out.
	Steps     []ReconcileStep `json:"steps"`
	MoreSteps int             `json:"more_steps,omitempty"`
}

// ReconcileStep is what became of one step of a reconcile.
type ReconcileStep struct {
	Address string `json:"address"`
	Action  string `json:"action"`
	Result  string `json:"result"`
	Error   string `json:"error,omitempty"`
	Cause   string `json:"cause,omitempty"`
}

// DriftRecord is one drift a health or drift check found.
type DriftRecord struct {
	Time    time.Time `json:"time"`
	Address string    `json:"address"`
	Message string    `json:"message"`
}

// History is what the engine did lately, newest first: its last
// reconciles and the drift its checks found.
type History struct {
	Reconciles []ReconcileRecord `json:"reconciles"`
	Drift      []DriftRecord     `json:"drift"`
}

// History returns the engine's recent reconciles and drift, newest first.
func (e *Engine) History() History {
	e.mu.Lock()
	defer e.mu.Unlock()
	h := History{Reconciles: make([]ReconcileRecord, 0, len(e.history.reconciles)), Drift: make([]DriftRecord, 0, len(e.history.drift))}
	for i := len(e.history.reconciles) - 1; i >= 0; i-- {
		h.Reconciles = append(h.Reconciles, e.history.reconciles[i])
	}
	for i := len(e.history.drift) - 1; i >= 0; i-- {
		h.Drift = append(h.Drift, e.history.drift[i])
	}
	return h
}

// history is the engine's bounded record of what it did; guarded by
// Engine.mu.
type history struct {
	reconciles []ReconcileRecord
	drift      []DriftRecord
}

// keep appends v to list, dropping the oldest beyond n.
func keep[T any](list []T, v T, n int) []T {
	if len(list) >= n {
		list = append(list[:0], list[len(list)-n+1:]...)
	}
	return append(list, v)
}

// recordReconcile keeps a reconcile's record; the caller holds e.mu.
func (e *Engine) recordReconcile(start time.Time, elapsed time.Duration, reason, outcome string, rep *executor.Report, err error) {
	r := ReconcileRecord{Started: start.UTC(), ElapsedSeconds: elapsed.Seconds(), Reason: reason, Outcome: outcome, Steps: []ReconcileStep{}}
	if err != nil {
		r.Error = err.Error()
	}
	if rep != nil {
		r.Added, r.Changed, r.Destroyed, r.Failed, r.Skipped = rep.Added, rep.Changed, rep.Destroyed, rep.Failed, rep.Skipped
		for i, s := range rep.Steps {
			if i == maxHistorySteps {
				r.MoreSteps = len(rep.Steps) - i
				break
			}
			r.Steps = append(r.Steps, ReconcileStep{Address: s.Address, Action: s.Action, Result: s.Result, Error: s.Error, Cause: s.Cause})
		}
	}
	e.history.reconciles = keep(e.history.reconciles, r, maxReconcileHistory)
}
