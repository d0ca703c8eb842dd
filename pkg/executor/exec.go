package executor

import (
	"context"
	"errors"
)

// Exec runs TOSCA interface operations as subprocesses.
type Exec struct{ opts DriverOptions }

// NewExec returns the exec driver.
func NewExec(opts DriverOptions) *Exec { return &Exec{opts: opts.withDefaults()} }

// Apply is being written (issue 5); until then it fails cleanly.
func (e *Exec) Apply(ctx context.Context, req Request) (Outcome, error) {
	return Outcome{}, errors.New("exec driver: in progress")
}
