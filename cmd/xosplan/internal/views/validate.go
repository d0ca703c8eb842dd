package views

import (
	"github.com/xosplan/xosplan/cmd/xosplan/internal/diagview"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Validate is the view of `xosplan validate`. Its one implementation
// renders in the format --format names (diagview: text, json, sarif,
// github), on stdout.
type Validate interface {
	// Diagnostics renders everything validate found, how many files a
	// folder walk skipped (neither TOSCA nor a manifest), and the verdict.
	Diagnostics(diags diag.Diagnostics, skipped int) error
}

// NewValidate returns the view rendering in format; strict counts
// warnings as errors in the verdict.
func NewValidate(format diagview.Format, strict bool, s *Streams) Validate {
	return &validateView{s: s, format: format, strict: strict}
}

type validateView struct {
	s      *Streams
	format diagview.Format
	strict bool
}

func (v *validateView) Diagnostics(diags diag.Diagnostics, skipped int) error {
	return diagview.Render(v.s.Stdout, v.format, diags, v.s.renderOptions(v.s.Stdout, v.strict, skipped))
}
