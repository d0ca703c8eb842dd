package executor

import (
	"context"
	"errors"
)

// Scripted runs the Tonomi custom-component script protocol.
type Scripted struct{ opts DriverOptions }

// NewScripted returns the scripted driver.
func NewScripted(opts DriverOptions) *Scripted { return &Scripted{opts: opts.withDefaults()} }

// Apply is being written (issue 5); until then it fails cleanly.
func (s *Scripted) Apply(ctx context.Context, req Request) (Outcome, error) {
	return Outcome{}, errors.New("scripted driver: in progress")
}
