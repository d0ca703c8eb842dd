package views

import (
	"fmt"
	"io"
	"strings"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/planner"
)

// Plan is the view of `xosplan plan`: the human plan, or (--json) one
// JSON event per line.
type Plan interface {
	// Start begins the output, before any work (the JSON version event).
	Start() error
	// Failed renders the diagnostics of a plan that could not be made.
	Failed(diags diag.Diagnostics) error
	// Plan renders the plan made with the diagnostics found making it, and
	// where the plan file was saved (nil when it was not).
	Plan(p *planner.Plan, diags diag.Diagnostics, saved *SavedPlan) error
	// Predictions renders plan --check's predictions, after the plan.
	Predictions(preds []planview.Prediction) error
}

// SavedPlan is a plan file plan wrote, and how to apply it.
type SavedPlan struct {
	// Path is the plan file.
	Path string
	// ApplyArgs are the arguments of the `xosplan apply` that applies it
	// (the state and workspace flags it needs, then the file), each quoted
	// for a POSIX shell where needed.
	ApplyArgs []string
}

// NewPlan returns the JSON view (json) or the human one, which writes the
// plan to human (stdout, or stderr when stdout carries the JSON plan) and
// diagnostics to stderr.
func NewPlan(json bool, human io.Writer, s *Streams) Plan {
	if json {
		return newPlanJSON(s)
	}
	return &planText{s: s, w: human}
}

// planText renders plans for people: the plan on w, diagnostics on stderr.
type planText struct {
	s *Streams
	w io.Writer
	// recording: the command records a refresh-only plan's drift itself
	// (planview.TextOptions.Recording).
	recording bool
}

func (v *planText) Start() error { return nil }

func (v *planText) Failed(diags diag.Diagnostics) error {
	return v.s.problems(v.s.Stderr, diags.Sort())
}

func (v *planText) Plan(p *planner.Plan, diags diag.Diagnostics, saved *SavedPlan) error {
	if err := v.plan(p); err != nil {
		return err
	}
	if saved != nil {
		fmt.Fprintf(v.w, "\nSaved the plan to: %s\n\nTo perform exactly these actions, run:\n    xosplan apply %s\n", saved.Path, strings.Join(saved.ApplyArgs, " "))
	}
	return v.s.problems(v.s.Stderr, diags)
}

func (v *planText) Predictions(preds []planview.Prediction) error {
	return planview.PredictionsText(v.w, preds)
}

// plan writes p (nothing for nil).
func (v *planText) plan(p *planner.Plan) error {
	if p == nil {
		return nil
	}
	return planview.Text(v.w, p, planview.TextOptions{Color: v.s.Color(v.w), Recording: v.recording})
}

// planJSON renders plans as JSON event lines on stdout.
type planJSON struct {
	s      *Streams
	events *planview.Events
}

func newPlanJSON(s *Streams) *planJSON {
	return &planJSON{s: s, events: planview.NewEvents(s.Stdout, s.Now)}
}

func (v *planJSON) Start() error { return v.events.Version(v.s.Version) }

func (v *planJSON) Failed(diags diag.Diagnostics) error { return v.events.Diagnostics(diags.Sort()) }

func (v *planJSON) Plan(p *planner.Plan, diags diag.Diagnostics, _ *SavedPlan) error {
	if err := v.events.Diagnostics(diags); err != nil {
		return err
	}
	if p == nil {
		return nil
	}
	return v.events.Plan(p)
}

func (v *planJSON) Predictions(preds []planview.Prediction) error { return v.events.Predictions(preds) }
