package views

import (
	"github.com/xosplan/xosplan/cmd/xosplan/internal/planview"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// Show is the view of `xosplan show`: a saved plan or the recorded state,
// as people read them, or (--json) as the JSON plan and the masked state.
type Show interface {
	Plan(p *planner.Plan) error
	State(st *state.State) error
}

// NewShow returns the JSON view (json) or the human one.
func NewShow(json bool, s *Streams) Show {
	if json {
		return &showJSON{s: s}
	}
	return &showText{s: s}
}

type showText struct{ s *Streams }

func (v *showText) Plan(p *planner.Plan) error {
	return planview.Text(v.s.Stdout, p, planview.TextOptions{Color: v.s.Color(v.s.Stdout)})
}

func (v *showText) State(st *state.State) error {
	return planview.StateText(v.s.Stdout, st, planview.TextOptions{Color: v.s.Color(v.s.Stdout)})
}

type showJSON struct{ s *Streams }

func (v *showJSON) Plan(p *planner.Plan) error { return planview.JSON(v.s.Stdout, p) }

func (v *showJSON) State(st *state.State) error { return planview.StateJSON(v.s.Stdout, st) }
