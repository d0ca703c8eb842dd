package executor

import (
	"cmp"
	"slices"
	"time"
)

// Outcome kinds of a step in a Report.
const (
	// ResultApplied: the action succeeded (a converging resource became
	// active).
	ResultApplied = "applied"
	// ResultFailed: the action failed after every retry.
	ResultFailed = "failed"
	// ResultSkipped: a dependency failed, so the action was not run.
	ResultSkipped = "skipped"
	// ResultNotStarted: the apply stopped (interrupt, --fail-fast) before
	// the action could start.
	ResultNotStarted = "not_started"
)

// StepResult is what became of one step of the plan.
type StepResult struct {
	Address string `json:"address"`
	// Action is the step's operation: "create", "update", "delete",
	// "read" or "forget"; a replacement has two steps.
	Action string `json:"action"`
	// Result is one of the Result* constants.
	Result string `json:"result"`
	// Attempts counts the driver calls made (retries and health checks
	// that followed a converging launch are not counted as attempts).
	Attempts int `json:"attempts,omitempty"`
	// Error says why a failed step failed.
	Error string `json:"error,omitempty"`
	// Cause is, for a skipped step, the address and action of the failed
	// step that held it ("db (create)"); only the root failure is named.
	Cause string `json:"cause,omitempty"`
	// Err is the failure of a failed step, for errors.Is (ErrNeedsChange,
	// ErrTimeout); Error is its text.
	Err error `json:"-"`
	// Elapsed is the time from the first driver call to the end.
	Elapsed time.Duration `json:"elapsed_ns,omitempty"`
}

// Report is the result of an apply: one entry per step, in plan order,
// and the counts of Terraform's closing line.
type Report struct {
	Steps []StepResult `json:"steps"`
	// Added counts successful creates (with the new half of replacements),
	// Changed successful updates, Destroyed successful deletes (with the
	// old half of replacements), Read successful reads, Forgotten the
	// unmanaged resources dropped from state.
	Added     int `json:"added"`
	Changed   int `json:"changed"`
	Destroyed int `json:"destroyed"`
	Read      int `json:"read"`
	Forgotten int `json:"forgotten"`
	// Refreshed counts the resources whose observed feedback a
	// refresh-only plan recorded.
	Refreshed int `json:"refreshed"`
	// Checked counts the resources whose real object a refresh checked
	// without error. The checks run while the refresh-only plan is made
	// (planner.Options.Refresher), so whoever ran them sets it; Apply
	// leaves it zero.
	Checked int `json:"checked,omitempty"`
	// Failed, Skipped and NotStarted count the steps that did not apply.
	Failed     int `json:"failed"`
	Skipped    int `json:"skipped"`
	NotStarted int `json:"not_started"`
	// Interrupted is set when the context ended before the walk did.
	Interrupted bool `json:"interrupted,omitempty"`
	// MaxInFlight is the largest number of driver calls that ran at once.
	MaxInFlight int `json:"max_in_flight"`
	// Elapsed is the wall time of the walk.
	Elapsed time.Duration `json:"elapsed_ns"`
}

// OK reports whether every step applied.
func (r *Report) OK() bool { return r.Failed == 0 && r.Skipped == 0 && r.NotStarted == 0 }

// Changes reports whether anything was added, changed, destroyed,
// forgotten or refreshed.
func (r *Report) Changes() bool { return r.Added+r.Changed+r.Destroyed+r.Forgotten+r.Refreshed > 0 }

// ByResult returns the steps with the given result, sorted by address.
func (r *Report) ByResult(result string) []StepResult {
	var out []StepResult
	for _, s := range r.Steps {
		if s.Result == result {
			out = append(out, s)
		}
	}
	slices.SortStableFunc(out, func(a, b StepResult) int { return cmp.Compare(a.Address, b.Address) })
	return out
}

func (r *Report) count(s StepResult) {
	switch s.Result {
	case ResultFailed:
		r.Failed++
		return
	case ResultSkipped:
		r.Skipped++
		return
	case ResultNotStarted:
		r.NotStarted++
		return
	}
	switch s.Action {
	case ActionCreate:
		r.Added++
	case ActionUpdate:
		r.Changed++
	case ActionDelete:
		r.Destroyed++
	case ActionRead:
		r.Read++
	case stepForget:
		r.Forgotten++
	}
}

// Event kinds passed to Options.Events.
const (
	// EventStart: a driver call is about to run (Attempt counts from 1).
	EventStart = "apply_start"
	// EventProgress: the driver call is still running (every
	// Options.ProgressInterval); Elapsed says for how long.
	EventProgress = "apply_progress"
	// EventOutput: a line the driver reported while running.
	EventOutput = "apply_output"
	// EventRetry: an attempt failed; the next starts after Delay.
	EventRetry = "apply_retry"
	// EventConverging: the resource is converging; dependents wait for a
	// health check to report it active. Waiting is not an error.
	EventConverging = "apply_converging"
	// EventComplete: the step applied.
	EventComplete = "apply_complete"
	// EventErrored: the step failed for good.
	EventErrored = "apply_errored"
	// EventSkipped: the step will not run because Cause failed.
	EventSkipped = "apply_skipped"
	// EventNotStarted: the apply stopped before the step started.
	EventNotStarted = "apply_not_started"
	// EventLeftover: processes that Action of Address started in a run
	// that died were still running and were ended before anything new
	// ran; Line names the process group.
	EventLeftover = "apply_leftover_ended"
)

// Event is one progress report of the walk. Events are delivered one at a
// time (never concurrently), in the order they happened.
type Event struct {
	Type    string
	Address string
	Action  string
	Attempt int
	// Elapsed is the time since the step's first driver call.
	Elapsed time.Duration
	// Delay is, for EventRetry, the wait before the next attempt.
	Delay time.Duration
	// Line is, for EventOutput, the output line; for EventLeftover, the
	// process group ended.
	Line string
	// Error is the failure of EventRetry and EventErrored.
	Error string
	// Cause names the failed step of EventSkipped.
	Cause string
	// Detail is, for the EventComplete of a read, what the read found
	// out: "found with name = \"mysite\"", or driver.NotCheckedStatus;
	// for that of a create that adopts an object by its import filter,
	// "imported ID by filter …".
	Detail string
	// Time is when the event happened.
	Time time.Time
}
