package executor

import (
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/redact"
	"github.com/xosplan/xosplan/pkg/state"
)

// Redactor is the redaction of a run's secrets (pkg/redact), under the
// name the walk, its callers and the drivers' Request know it by.
type Redactor = redact.Redactor

// NewRedactor returns a Redactor that knows secrets (redact.New).
func NewRedactor(secrets ...string) *Redactor { return redact.New(secrets...) }

// NewRedactorFor returns a Redactor that knows the secrets of the
// resources recorded in st and of the configuration g, either of which may
// be nil (redact.NewFor).
func NewRedactorFor(st *state.State, g *graph.Graph) *Redactor { return redact.NewFor(st, g) }
