// Package applyview renders an apply as it runs and when it ends: one line
// per started and finished action with its elapsed time (human text, in
// Terraform's wording), or one JSON event per line for machines, then a
// report per resource and Terraform's closing line
// "Apply complete! Resources: X added, Y changed, Z destroyed.". It only
// renders: every decision is in pkg/executor.
package applyview

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/cmd/xosplan/internal/uievent"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/state"
)

// Operation says what the closing line calls the run.
type Operation string

// Operations.
const (
	OpApply   Operation = "apply"
	OpDestroy Operation = "destroy"
	OpRefresh Operation = "refresh"
)

// View is what a command reports to while it applies.
type View interface {
	// Event renders one walk event; it is safe for concurrent use.
	Event(e executor.Event)
	// Report renders the end of the run.
	Report(rep *executor.Report, op Operation) error
	// Outputs renders the configuration's outputs after a successful
	// apply (nothing when there are none); a sensitive one is marked,
	// never shown.
	Outputs(values map[string]executor.Output) error
}

// Text renders for people.
type Text struct {
	mu    sync.Mutex
	w     io.Writer
	color bool
	err   error
}

// NewText returns the human view writing to w; color adds ANSI colours.
func NewText(w io.Writer, color bool) *Text { return &Text{w: w, color: color} }

const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiRed   = "\x1b[31m"
	ansiGreen = "\x1b[32m"
)

func (t *Text) paint(code, s string) string {
	if !t.color {
		return s
	}
	return code + s + ansiReset
}

// verbs gives, per action, the words of the progress lines: the
// continuous form, the noun of a finished action and its error.
var verbs = map[string][2]string{
	executor.ActionCreate: {"Creating...", "Creation"},
	executor.ActionUpdate: {"Modifying...", "Modifications"},
	executor.ActionDelete: {"Destroying...", "Destruction"},
	executor.ActionRead:   {"Reading...", "Read"},
	"forget":              {"Forgetting...", "Forgetting"},
}

func verb(action string) [2]string {
	if v, ok := verbs[action]; ok {
		return v
	}
	return [2]string{action + "...", action}
}

// still is the progress phrase of a long action: "Still creating...".
func still(action string) string {
	v := verb(action)[0]
	return "Still " + strings.ToLower(v[:1]) + v[1:]
}

// Elapsed renders a duration as Terraform does in progress lines: whole
// seconds ("0s", "12s", "1m3s").
func Elapsed(d time.Duration) string {
	return d.Round(time.Second).String()
}

// Event writes the progress line of e.
func (t *Text) Event(e executor.Event) {
	var line string
	switch e.Type {
	case executor.EventStart:
		line = e.Address + ": " + verb(e.Action)[0]
		if e.Attempt > 1 {
			line += fmt.Sprintf(" (attempt %d)", e.Attempt)
		}
	case executor.EventProgress:
		line = fmt.Sprintf("%s: %s [%s elapsed]", e.Address, still(e.Action), Elapsed(e.Elapsed))
	case executor.EventComplete:
		line = fmt.Sprintf("%s: %s complete after %s", e.Address, verb(e.Action)[1], Elapsed(e.Elapsed))
		if e.Detail != "" {
			line += " (" + e.Detail + ")"
		}
	case executor.EventErrored:
		line = fmt.Sprintf("%s: %s errored after %s: %s", e.Address, verb(e.Action)[1], Elapsed(e.Elapsed), oneLine(e.Error))
	case executor.EventRetry:
		line = fmt.Sprintf("%s: attempt %d of %s failed: %s; retrying in %s", e.Address, e.Attempt, e.Action, oneLine(e.Error), e.Delay)
	case executor.EventConverging:
		line = fmt.Sprintf("%s: Still converging after %s; waiting for a health check to report it active", e.Address, Elapsed(e.Elapsed))
	case executor.EventSkipped:
		line = fmt.Sprintf("%s: %s skipped: %s", e.Address, e.Action, skipReason(e.Action, e.Cause))
	case executor.EventNotStarted:
		line = fmt.Sprintf("%s: %s not started: the apply stopped", e.Address, e.Action)
	case executor.EventOutput:
		line = fmt.Sprintf("%s (%s): %s", e.Address, e.Action, e.Line)
	case executor.EventLeftover:
		line = leftoverMessage(e)
	default:
		return
	}
	// Addresses, errors and driver output are user text: shown, never
	// obeyed by the terminal.
	line = termsafe.String(line)
	if e.Type == executor.EventErrored {
		line = t.paint(ansiRed, line)
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.err == nil {
		_, t.err = io.WriteString(t.w, line+"\n")
	}
}

// leftoverMessage says which processes of a crashed run were ended.
func leftoverMessage(e executor.Event) string {
	return fmt.Sprintf("%s: ended the processes its interrupted %s left running (%s)", e.Address, e.Action, e.Line)
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// ClosingLine returns Terraform's last line for the run: "Apply complete!
// Resources: X added, Y changed, Z destroyed." (destroy: "Destroy
// complete! Resources: Z destroyed."), or, when some step did not apply,
// "Apply failed! …" with the counts of failed, skipped and not started
// steps.
func ClosingLine(rep *executor.Report, op Operation) string {
	counts := fmt.Sprintf("Resources: %d added, %d changed, %d destroyed", rep.Added, rep.Changed, rep.Destroyed)
	switch op {
	case OpDestroy:
		counts = fmt.Sprintf("Resources: %d destroyed", rep.Destroyed)
	case OpRefresh:
		// Every check counts, not only those that found drift: "0
		// refreshed" after checking everything read as if nothing was.
		counts = fmt.Sprintf("Resources: %d checked, %d changed outside xosplan", rep.Checked, rep.Refreshed)
	}
	if rep.Forgotten > 0 {
		counts += fmt.Sprintf(", %d forgotten", rep.Forgotten)
	}
	name := strings.ToUpper(string(op[:1])) + string(op[1:])
	if rep.OK() {
		return name + " complete! " + counts + "."
	}
	what := "failed"
	if rep.Interrupted {
		what = "interrupted"
	}
	return fmt.Sprintf("%s %s! %s; %d failed, %d skipped, %d not started.", name, what, counts, rep.Failed, rep.Skipped, rep.NotStarted)
}

// Report writes the per-resource report and the closing line. Steps that
// applied are listed only when something else did not, so that a clean
// apply of many resources ends with one line.
func (t *Text) Report(rep *executor.Report, op Operation) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var b bytes.Buffer
	if !rep.OK() {
		b.WriteString("\nApply report:\n")
		for _, s := range rep.Steps {
			label := s.Result
			detail := ""
			switch s.Result {
			case executor.ResultFailed:
				label = t.paint(ansiRed, "failed     ")
				detail = ": " + oneLine(s.Error)
			case executor.ResultSkipped:
				label = "skipped    "
				detail = ": " + strings.TrimPrefix(skipReason(s.Action, s.Cause), "it ")
			case executor.ResultNotStarted:
				label = "not started"
			case executor.ResultApplied:
				label = "applied    "
			}
			fmt.Fprintf(&b, "  %s  %s\n", label, termsafe.String(fmt.Sprintf("%s (%s)%s", s.Address, s.Action, detail)))
		}
	}
	line := ClosingLine(rep, op)
	if rep.OK() {
		line = t.paint(ansiBold+ansiGreen, line)
	} else {
		line = t.paint(ansiBold+ansiRed, line)
	}
	b.WriteString("\n" + line + "\n")
	if t.err != nil {
		return t.err
	}
	_, err := t.w.Write(b.Bytes())
	return err
}

// JSON renders one JSON object per line, in the shape of Terraform's
// machine-readable UI ("@level", "@message", "@module", "@timestamp",
// "type", and a "hook" describing the resource and action).
type JSON struct {
	mu  sync.Mutex
	w   io.Writer
	now func() time.Time
	err error
}

// NewJSON returns the machine view writing to w; now stamps the events.
func NewJSON(w io.Writer, now func() time.Time) *JSON { return &JSON{w: w, now: now} }

func (j *JSON) emit(level, message, typ string, fields map[string]any) error {
	line, err := uievent.Line(j.now(), level, message, typ, fields)
	if err != nil {
		return err
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	_, j.err = j.w.Write(line)
	return j.err
}

// Event writes e as one event line.
func (j *JSON) Event(e executor.Event) {
	hook := map[string]any{"resource": map[string]any{"addr": e.Address}, "action": e.Action}
	if e.Attempt > 0 {
		hook["attempt"] = e.Attempt
	}
	if e.Elapsed > 0 {
		hook["elapsed_seconds"] = e.Elapsed.Seconds()
	}
	level, msg := "info", ""
	switch e.Type {
	case executor.EventStart:
		msg = e.Address + ": " + verb(e.Action)[0]
	case executor.EventProgress:
		msg = fmt.Sprintf("%s: %s [%s elapsed]", e.Address, still(e.Action), Elapsed(e.Elapsed))
	case executor.EventComplete:
		msg = fmt.Sprintf("%s: %s complete after %s", e.Address, verb(e.Action)[1], Elapsed(e.Elapsed))
		if e.Detail != "" {
			hook["detail"] = e.Detail
		}
	case executor.EventErrored:
		level, msg = "error", fmt.Sprintf("%s: %s errored after %s", e.Address, verb(e.Action)[1], Elapsed(e.Elapsed))
		hook["error"] = e.Error
	case executor.EventRetry:
		level, msg = "warn", fmt.Sprintf("%s: attempt %d failed; retrying in %s", e.Address, e.Attempt, e.Delay)
		hook["error"] = e.Error
		hook["delay_seconds"] = e.Delay.Seconds()
	case executor.EventConverging:
		msg = e.Address + ": converging; waiting for a health check"
	case executor.EventSkipped:
		level, msg = "warn", fmt.Sprintf("%s: skipped: %s", e.Address, skipReason(e.Action, e.Cause))
		hook["cause"] = e.Cause
	case executor.EventNotStarted:
		level, msg = "warn", e.Address+": not started"
	case executor.EventOutput:
		msg = fmt.Sprintf("%s (%s): %s", e.Address, e.Action, e.Line)
		hook["output"] = e.Line
	case executor.EventLeftover:
		level, msg = "warn", leftoverMessage(e)
	default:
		return
	}
	_ = j.emit(level, msg, e.Type, map[string]any{"hook": hook})
}

// Report writes an "apply_result" event per step that did not apply and
// the closing "change_summary".
func (j *JSON) Report(rep *executor.Report, op Operation) error {
	for _, s := range rep.Steps {
		if s.Result == executor.ResultApplied {
			continue
		}
		level := "warn"
		if s.Result == executor.ResultFailed {
			level = "error"
		}
		if err := j.emit(level, fmt.Sprintf("%s: %s %s", s.Address, s.Action, strings.ReplaceAll(s.Result, "_", " ")), "apply_result",
			map[string]any{"result": s}); err != nil {
			return err
		}
	}
	level := "info"
	if !rep.OK() {
		level = "error"
	}
	changes := map[string]any{
		"add": rep.Added, "change": rep.Changed, "remove": rep.Destroyed, "read": rep.Read,
		"forget": rep.Forgotten, "refresh": rep.Refreshed, "failed": rep.Failed, "skipped": rep.Skipped,
		"not_started": rep.NotStarted, "operation": string(op),
	}
	if op == OpRefresh {
		changes["checked"] = rep.Checked
	}
	return j.emit(level, ClosingLine(rep, op), "change_summary", map[string]any{"changes": changes})
}

// Outputs writes Terraform's "Outputs:" block: one "name = value" line
// per output, sorted, values as JSON, a sensitive one as
// state.SensitiveMarker (the plan's wording).
func (t *Text) Outputs(values map[string]executor.Output) error {
	if len(values) == 0 {
		return nil
	}
	outs := make(map[string]state.Output, len(values))
	for name, o := range values {
		outs[name] = state.Output(o)
	}
	var b bytes.Buffer
	b.WriteString("\nOutputs:\n\n")
	b.Write(planview.OutputLines(outs, false))
	t.mu.Lock()
	defer t.mu.Unlock()
	_, err := t.w.Write(b.Bytes())
	return err
}

// Outputs writes one "outputs" event holding every output as
// {"sensitive": false, "value": …}, or as Terraform's -json does for a
// sensitive one, {"sensitive": true} without the value.
func (j *JSON) Outputs(values map[string]executor.Output) error {
	if len(values) == 0 {
		return nil
	}
	outs := map[string]any{}
	for name, o := range values {
		if o.Sensitive {
			outs[name] = map[string]any{"sensitive": true}
		} else {
			outs[name] = map[string]any{"sensitive": false, "value": o.Value}
		}
	}
	return j.emit("info", "Outputs: "+fmt.Sprint(len(values)), "outputs", map[string]any{"outputs": outs})
}

// skipReason says why a step was skipped, cause ("ADDRESS (ACTION)") being
// the step whose failure held it up. Deletes run in reverse: a delete
// waits for the deletes of what depends on it, so the failed step is a
// dependent, not a dependency.
func skipReason(action, cause string) string {
	if action == executor.ActionDelete && strings.HasSuffix(cause, " ("+executor.ActionDelete+")") {
		return cause + ", which depends on it, failed"
	}
	return "it depends on " + cause + ", which failed"
}
