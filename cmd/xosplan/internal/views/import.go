package views

import (
	"fmt"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/state"
)

// Import is the view of `xosplan import`: its progress and result as
// text, the configuration's diagnostics on stderr.
type Import interface {
	// Failed renders the diagnostics of a configuration that could not be
	// compiled.
	Failed(diags diag.Diagnostics) error
	// Diagnostics renders the warnings found compiling it.
	Diagnostics(diags diag.Diagnostics) error
	// Importing says which object is being confirmed.
	Importing(addr, id string)
	// Finding says by which filter the object is being looked for.
	Finding(addr, filter string)
	// Imported confirms what was recorded.
	Imported(rec *state.Resource) error
}

// NewImport returns the view of import.
func NewImport(s *Streams) Import { return importText{s} }

type importText struct{ s *Streams }

func (v importText) Failed(diags diag.Diagnostics) error {
	return v.s.problems(v.s.Stderr, diags.Sort())
}

func (v importText) Diagnostics(diags diag.Diagnostics) error { return v.s.problems(v.s.Stderr, diags) }

func (v importText) Importing(addr, id string) {
	fmt.Fprintf(v.s.Stdout, "%s: Importing from ID %q...\n", termsafe.String(addr), termsafe.String(id))
}

func (v importText) Finding(addr, filter string) {
	fmt.Fprintf(v.s.Stdout, "%s: Importing the object with %s...\n", termsafe.String(addr), termsafe.String(filter))
}

func (v importText) Imported(rec *state.Resource) error {
	addr := termsafe.String(rec.Address)
	_, err := fmt.Fprintf(v.s.Stdout, "%s: Import complete: %s\n\nImport successful!\n\n"+
		"%s is recorded in the state as managed, with its configured spec as enacted: the next\n"+
		"plan changes it only where the configuration does, and destroy deletes it.\n",
		addr, termsafe.String(rec.StatusText()), addr)
	return err
}
