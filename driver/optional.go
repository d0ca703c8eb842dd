package driver

import (
	"context"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Optional parts of the contract that the commands (not the walk) ask a
// driver for through the registry, so that they name no driver.

// Prerequisite is implemented by drivers that need a program of this
// machine (ansible: ansible-playbook). Missing returns why the driver
// cannot run here, nil when it can; validate and plan warn of it for the
// resources that use the driver.
type Prerequisite interface {
	Missing() error
}

// FileLister is implemented by drivers whose implementations use files
// beyond those an operation names (a playbook's roles and the files it
// includes). IncludedFiles returns those of the implementation file
// impl, reading through read (which confines to the configuration root
// and bounds sizes, and fails for what may not be read): the plan digests
// them too, so that a change to one is implementation_changed.
type FileLister interface {
	IncludedFiles(ctx context.Context, impl string, read func(path string) ([]byte, error)) []string
}

// Predictor is implemented by drivers that can predict what an action
// would change without changing anything (ansible: check mode), for
// `plan --check`. PredictedOperations lists, in order, the operations of
// drv the action (ActionCreate, ActionUpdate) would run; Predict runs one
// of them as the action would, changing nothing.
type Predictor interface {
	PredictedOperations(action string, drv graph.Driver) []string
	Predict(ctx context.Context, req Request, key string) (Prediction, error)
}

// Prediction is what one operation would change, predicted.
type Prediction struct {
	// Operation is the operation key ("Standard.configure").
	Operation string
	// Changed is the number of changes predicted; -1 when unknown.
	Changed int
	// Output is the end of what the prediction printed (the diffs among
	// it), redacted.
	Output string
	// Skipped says why the operation was not run ("" when it was).
	Skipped string
}
