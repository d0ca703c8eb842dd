package core

// Cancellation: every loop of a compiler whose work grows with the input
// asks Stopped once per item, so that a compile stops soon after its
// context ends (a signal, a deadline) at any size: the phases return what
// they have, the next ones do nothing, and the compile reports one error,
// by the context's cause, instead of the problems found after the context
// ended (which the work cut short may have caused).

import (
	"maps"

	"github.com/xosplan/xosplan/pkg/diag"
)

// checkEvery is how many calls of Stopped look at the context once: it
// costs an atomic load and an interface call, and items cost far more.
const checkEvery = 64

// Halt is a compile's cancellation state.
type Halt struct {
	pulse uint32
	// Done is set once the context was seen ended, or the value work ran
	// out (Spend); At is how many diagnostics were found before.
	Done bool
	At   int
	// Spent is set when a compile stopped because its value work ran out,
	// not its context; SpentAt and SpentPath are where, SpentSecret tells
	// whether the value was a secret's.
	Spent        bool
	SpentAt      diag.Range
	SpentPath    string
	SpentSecret  bool
	SpentMessage string
}

// Stopped reports whether the compile's context has ended, looking at it
// every checkEvery calls. Once true it stays true.
func (c *Session) Stopped() bool {
	if c.Halt.Done {
		return true
	}
	c.Halt.pulse++
	if c.Halt.pulse%checkEvery != 0 {
		return false
	}
	return c.StoppedNow()
}

// StoppedNow is Stopped looking at the context now.
func (c *Session) StoppedNow() bool {
	if !c.Halt.Done && c.Ctx.Err() != nil {
		c.Halt.Done, c.Halt.At = true, len(c.Diags)
	}
	return c.Halt.Done
}

// Spend stops the compile because its value work ran out at the value at
// r, path (a secret's when secret), which ReportCanceled reports with
// message: Stopped is true from now on.
func (c *Session) Spend(r diag.Range, path string, secret bool, message string) {
	c.Halt.Done, c.Halt.At, c.Halt.Spent = true, len(c.Diags), true
	c.Halt.SpentAt, c.Halt.SpentPath, c.Halt.SpentSecret, c.Halt.SpentMessage = r, path, secret, message
}

// DropSinceStop drops the diagnostics found since the compile stopped,
// with their follow-on counts, for the one error that says why.
func (c *Session) DropSinceStop() {
	// A problem found quietly may have been dropped since.
	at := min(c.Halt.At, len(c.Diags))
	c.Diags = c.Diags[:at]
	maps.DeleteFunc(c.FollowOns, func(i, _ int) bool { return i >= at })
}
