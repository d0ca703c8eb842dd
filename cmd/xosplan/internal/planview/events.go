package planview

import (
	"io"
	"time"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/uievent"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/planner"
)

// UIVersion is the version of the machine-readable event stream.
const UIVersion = "1.0"

// Events writes the machine-readable UI: one JSON object per line with
// "@level", "@message", "@module", "@timestamp" and "type", in the shape of
// Terraform's -json output. Now supplies timestamps so tests can fix them.
type Events struct {
	w   io.Writer
	now func() time.Time
}

// NewEvents returns an event writer; now is time.Now in production.
func NewEvents(w io.Writer, now func() time.Time) *Events {
	return &Events{w: w, now: now}
}

func (e *Events) emit(level, message, typ string, fields map[string]any) error {
	line, err := uievent.Line(e.now(), level, message, typ, fields)
	if err != nil {
		return err
	}
	_, err = e.w.Write(line)
	return err
}

// Version writes the "version" event that starts a stream.
func (e *Events) Version(xosplanVersion string) error {
	return e.emit("info", "xosplan "+xosplanVersion, "version", map[string]any{"xosplan": xosplanVersion, "ui": UIVersion})
}

type jsonDiag struct {
	Severity string      `json:"severity"`
	Code     string      `json:"code,omitempty"`
	Summary  string      `json:"summary"`
	Detail   string      `json:"detail"`
	Range    *diag.Range `json:"range,omitempty"`
	Path     string      `json:"path,omitempty"`
}

// Diagnostics writes one "diagnostic" event per diagnostic.
func (e *Events) Diagnostics(ds diag.Diagnostics) error {
	for _, d := range ds {
		jd := jsonDiag{Severity: d.Severity.String(), Code: d.Code, Summary: d.Summary, Detail: d.Detail, Path: d.Path}
		if !d.Range.IsZero() {
			r := d.Range
			jd.Range = &r
		}
		prefix := "Error: "
		if d.Severity == diag.Warning {
			prefix = "Warning: "
		}
		if err := e.emit(d.Severity.String(), prefix+d.Summary, "diagnostic", map[string]any{"diagnostic": jd}); err != nil {
			return err
		}
	}
	return nil
}

func eventMessage(c *planner.ResourceChange) string {
	switch c.Action {
	case planner.Read:
		return c.Address + ": Plan to read"
	case planner.Forget:
		return c.Address + ": Plan to forget"
	}
	return c.Address + ": Plan to " + actionWord(c.Action)
}

// Plan writes a "resource_drift" event per drifted resource, a
// "planned_change" event per change that is not a no-op (in apply order),
// and the closing "change_summary".
func (e *Events) Plan(p *planner.Plan) error {
	for i := range p.Drift {
		d := &p.Drift[i]
		if err := e.emit("info", d.Address+": Drift detected (update)", "resource_drift", map[string]any{
			"change": map[string]any{"resource": resource(d.Address, d.Type), "action": "update", "paths": nonNil(d.Paths)},
		}); err != nil {
			return err
		}
	}
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Action == planner.NoOp {
			continue
		}
		change := map[string]any{"resource": resource(c.Address, c.Type), "action": actionWord(c.Action)}
		if c.Reason != planner.ReasonNone {
			change["reason"] = c.Reason.String()
		}
		if len(c.ForcedBy) > 0 {
			change["forced_by"] = c.ForcedBy
		}
		if c.DerivedBy != "" {
			change["derived_by"] = c.DerivedBy
		}
		if len(c.OperationPaths) > 0 {
			change["operation_paths"] = c.OperationPaths
		}
		if err := e.emit("info", eventMessage(c), "planned_change", map[string]any{"change": change}); err != nil {
			return err
		}
	}
	s := p.Summary
	return e.emit("info", SummaryLine(p), "change_summary", map[string]any{"changes": map[string]any{
		"add": s.Add, "change": s.Change, "remove": s.Destroy, "replace": s.Replace, "read": s.Read,
		"forget": s.Forget, "operation": "plan",
	}, "plan_id": p.PlanID})
}

func resource(addr, typ string) map[string]any {
	return map[string]any{"addr": addr, "resource_type": typ}
}
