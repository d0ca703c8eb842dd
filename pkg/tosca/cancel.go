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

// reportCanceled replaces the diagnostics found since the context ended
// with one error that says the compile of file stopped, and why: the
// context's cause ("interrupted" for the CLI's signals).
func (c *compiler) reportCanceled(file string) {
	c.diags = c.diags[:c.halt.at]
	maps.DeleteFunc(c.followOns, func(at, _ int) bool { return at >= c.halt.at })
	c.errorf(diag.Range{File: file}, "", CodeCanceled, "compilation stopped: %v", context.Cause(c.ctx))
}
