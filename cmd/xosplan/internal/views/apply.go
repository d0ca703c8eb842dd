package views

import (
	"fmt"
	"strings"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/applyview"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/planner"
)

// Apply is the view of `xosplan apply`, `destroy` and `refresh`: the plan
// about to be carried out, the walk as it runs (applyview.View), and its
// end; human text, or (--json) one JSON event per line.
type Apply interface {
	applyview.View
	// Start begins the output, before any work (the JSON version event).
	Start() error
	// Failed renders the diagnostics of a plan that could not be made.
	Failed(diags diag.Diagnostics) error
	// Plan renders the plan about to be carried out (none for nil) and the
	// diagnostics found making it.
	Plan(p *planner.Plan, diags diag.Diagnostics) error
	// Approve asks whether to carry out op, as Terraform does, reading the
	// reply with answer; only "yes" approves. The JSON view has no one to
	// ask and approves nothing (the command requires --auto-approve).
	Approve(op applyview.Operation, answer func() string) bool
	// Cancelled says that op was not approved.
	Cancelled(op applyview.Operation)
	// Error reports the error that stopped the command in the event stream
	// (the JSON view; people read it where the process prints it).
	Error(err error)
	// TornJournal warns that a torn last journal record of bytes bytes
	// was ignored.
	TornJournal(bytes int64)
	// PlacementWarnings warns of what apply did with placements beyond
	// the plan.
	PlacementWarnings(errs []error)
}

// NewApply returns the JSON view (json) or the human one.
func NewApply(json bool, s *Streams) Apply {
	if json {
		return &applyJSON{JSON: applyview.NewJSON(s.Stdout, s.Now), plan: newPlanJSON(s), s: s}
	}
	return &applyText{Text: applyview.NewText(s.Stdout, s.Color(s.Stdout)), plan: planText{s: s, w: s.Stdout}, s: s}
}

// NewRefresh returns the view of `xosplan refresh`: Apply's, except that
// the drift shown is being recorded, not offered as a plan to apply.
func NewRefresh(json bool, s *Streams) Apply {
	v := NewApply(json, s)
	if t, ok := v.(*applyText); ok {
		t.plan.recording = true
	}
	return v
}

type applyText struct {
	*applyview.Text
	plan planText
	s    *Streams
}

func (v *applyText) Start() error { return nil }

func (v *applyText) Failed(diags diag.Diagnostics) error { return v.plan.Failed(diags) }

func (v *applyText) Plan(p *planner.Plan, diags diag.Diagnostics) error {
	if err := v.plan.plan(p); err != nil {
		return err
	}
	return v.s.problems(v.s.Stderr, diags)
}

func (v *applyText) Approve(op applyview.Operation, answer func() string) bool {
	w := v.s.Stdout
	if op == applyview.OpDestroy {
		fmt.Fprint(w, "\nDo you really want to destroy all resources?\n"+
			"  xosplan will destroy all your managed infrastructure, as shown above.\n"+
			"  There is no undo. Only 'yes' will be accepted to confirm.\n\n  Enter a value: ")
	} else {
		fmt.Fprint(w, "\nDo you want to perform these actions?\n"+
			"  xosplan will perform the actions described above.\n"+
			"  Only 'yes' will be accepted to approve.\n\n  Enter a value: ")
	}
	line := answer()
	fmt.Fprintln(w)
	return strings.TrimSpace(line) == "yes"
}

func (v *applyText) Cancelled(op applyview.Operation) {
	fmt.Fprintf(v.s.Stdout, "\n%s cancelled.\n", strings.ToUpper(string(op[:1]))+string(op[1:]))
}

func (v *applyText) Error(error) {}

func (v *applyText) TornJournal(bytes int64) { tornJournal(v.s, bytes) }

func (v *applyText) PlacementWarnings(errs []error) { placementWarnings(v.s, errs) }

type applyJSON struct {
	*applyview.JSON
	plan *planJSON
	s    *Streams
}

func (v *applyJSON) Start() error { return v.plan.Start() }

func (v *applyJSON) Failed(diags diag.Diagnostics) error { return v.plan.Failed(diags) }

func (v *applyJSON) Plan(p *planner.Plan, diags diag.Diagnostics) error {
	return v.plan.Plan(p, diags, nil)
}

func (v *applyJSON) Approve(applyview.Operation, func() string) bool { return false }

func (v *applyJSON) Cancelled(applyview.Operation) {}

// Error writes the error as a diagnostic event, so that a machine reading
// the stream gets the failure there too, not only on stderr.
func (v *applyJSON) Error(err error) {
	_ = v.plan.events.Diagnostics(diag.Diagnostics{{Severity: diag.Error, Code: "apply.failed", Summary: err.Error()}})
}

func (v *applyJSON) TornJournal(bytes int64) { tornJournal(v.s, bytes) }

func (v *applyJSON) PlacementWarnings(errs []error) { placementWarnings(v.s, errs) }

// tornJournal says on stderr, whatever the output format, that a torn last
// journal record was ignored.
func tornJournal(s *Streams, bytes int64) {
	if bytes > 0 {
		s.warn("ignored the torn last record of the apply journal (%d bytes): a crash cut its write short, so it was never acknowledged", bytes)
	}
}

// placementWarnings writes, on stderr whatever the output format, what
// apply did with placements beyond the plan: resources re-placed because
// their pinned hosts no longer fitted, and releases that failed after
// finished deletes (the state is right, the backend may still hold the
// allocation).
func placementWarnings(s *Streams, errs []error) {
	for _, err := range errs {
		s.warn("%v", err)
	}
}
