package tosca

// Cancellation: every loop of the compiler whose work grows with the
// input asks stopped once per item, so that a compile stops soon after its
// context ends (a signal, a deadline) at any size: the phases return what
// they have, the next ones do nothing, and Compile reports one
// tosca.canceled error, by the context's cause, instead of the problems
// found after the context ended (which the work cut short may have
// caused).

import (
	"context"
	"maps"

	"github.com/xosplan/xosplan/pkg/diag"
)

// checkEvery is how many calls of stopped look at the context once: it
// costs an atomic load and an interface call, and items cost far more.
const checkEvery = 64

// halt is the compile's cancellation state.
type halt struct {
	pulse uint32
	// done is set once the context was seen ended; at is how many
	// diagnostics were found before.
	done bool
	at   int
	// spent is set when a 2.0 compile stopped because its value work ran
	// out (spend2), not its context; spentAt and spentPath are where.
	spent     bool
	spentAt   diag.Range
	spentPath string
	// spentSecret tells whether the value was a secret's.
	spentSecret bool
}

// stopped reports whether the compile's context has ended, looking at it
// every checkEvery calls. Once true it stays true.
func (c *compiler) stopped() bool {
	if c.halt.done {
		return true
	}
	c.halt.pulse++
	if c.halt.pulse%checkEvery != 0 {
		return false
	}
	return c.stoppedNow()
}

// stoppedNow is stopped looking at the context now.
func (c *compiler) stoppedNow() bool {
	if !c.halt.done && c.ctx.Err() != nil {
		c.halt.done, c.halt.at = true, len(c.diags)
	}
	return c.halt.done
}

// reportCanceled replaces the diagnostics found since the compile
// stopped with one error that says why: the context's cause
// ("interrupted" for the CLI's signals) for the compile of file, or the
// value budget of a 2.0 compile, at the value it ran out at.
func (c *compiler) reportCanceled(file string) {
	// A problem found quietly (v2funcdefs.go) may have been dropped since.
	at := min(c.halt.at, len(c.diags))
	c.diags = c.diags[:at]
	maps.DeleteFunc(c.followOns, func(i, _ int) bool { return i >= at })
	if c.halt.spent {
		c.diags = c.diags.Errorf(c.halt.spentAt, c.halt.spentPath, CodeTooComplex, "values take more than %d steps of work to check and evaluate; a template with count evaluates its type's defaults and validation clauses again for each representation", maxValueSteps2)
		c.diags[len(c.diags)-1].Sensitive = c.halt.spentSecret
		return
	}
	c.errorf(diag.Range{File: file}, "", CodeCanceled, "compilation stopped: %v", context.Cause(c.ctx))
}
