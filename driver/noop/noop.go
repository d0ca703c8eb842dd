package noop

import (
	"context"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/state"
)

// Driver is the driver of resources with nothing to run: every action
// succeeds at once, the resource is recorded as active (BackendCode OK),
// and a delete reports it gone. A read (of an unmanaged resource) has
// nothing to look the object up with: it is recorded "not checked"
// (driver.NotChecked), never "ok".
type Driver struct{}

// Apply records the resource; it never fails.
func (Driver) Apply(ctx context.Context, req driver.Request) (driver.Outcome, error) {
	if req.Action == driver.ActionDelete {
		return driver.Outcome{Gone: true, Feedback: state.Feedback{BackendCode: state.BackendOK, BackendStatus: "deleted"}}, nil
	}
	if req.Action == driver.ActionRead {
		// Nothing can look the object up: never "ok".
		var fb state.Feedback
		if req.Prior != nil {
			fb = req.Prior.Feedback
		}
		return driver.NotChecked(req, fb), nil
	}
	fb := state.Feedback{
		Status:        state.Status{Active: true},
		BackendCode:   state.BackendOK,
		BackendStatus: "ok",
	}
	if req.Prior != nil {
		// Reads and health checks of a noop resource keep what was recorded.
		fb.Attributes = req.Prior.Feedback.Attributes
		fb.Signals = req.Prior.Feedback.Signals
		fb.InstanceID = req.Prior.Feedback.InstanceID
	}
	return driver.Outcome{Feedback: fb}, nil
}
