package tosca

// Cancellation (the Session's Stopped, internal/core): every loop of the
// compiler whose work grows with the input asks Stopped once per item, so that a compile stops soon after its
// context ends (a signal, a deadline) at any size: the phases return what
// they have, the next ones do nothing, and Compile reports one
// tosca.canceled error, by the context's cause, instead of the problems
// found after the context ended (which the work cut short may have
// caused).

import (
	"context"

	"github.com/xosplan/xosplan/pkg/diag"
)

// reportCanceled replaces the diagnostics found since the compile
// stopped with one error that says why: the context's cause
// ("interrupted" for the CLI's signals) for the compile of file, or the
// value budget of a 2.0 compile, at the value it ran out at.
func (c *compiler) reportCanceled(file string) {
	// A problem found quietly (v2funcdefs.go) may have been dropped since.
	c.DropSinceStop()
	if c.Halt.Spent {
		c.Diags = c.Diags.Errorf(c.Halt.SpentAt, c.Halt.SpentPath, CodeTooComplex, "values take more than %d steps of work to check and evaluate; a template with count evaluates its type's defaults and validation clauses again for each representation", maxValueSteps2)
		c.Diags[len(c.Diags)-1].Sensitive = c.Halt.SpentSecret
		return
	}
	c.errorf(diag.Range{File: file}, "", CodeCanceled, "compilation stopped: %v", context.Cause(c.Ctx))
}
