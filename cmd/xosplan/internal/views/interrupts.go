package views

import (
	"io"
	"sync"
)

// Interrupts acknowledges the interrupts of a run on stderr, as Terraform
// does, saying what happens next; it is safe for concurrent use.
type Interrupts struct {
	mu sync.Mutex
	w  io.Writer
}

// NewInterrupts returns the acknowledgements written to stderr.
func NewInterrupts(stderr io.Writer) *Interrupts { return &Interrupts{w: stderr} }

// First acknowledges the first interrupt.
func (v *Interrupts) First() {
	v.write("\nInterrupt received.\nPlease wait for xosplan to exit or data loss may occur.\n" +
		"Gracefully shutting down: nothing new starts, and running scripts get their grace period\n" +
		"(--grace) to finish before they are stopped; interrupt again to stop them now.\n")
}

// Second acknowledges the second interrupt.
func (v *Interrupts) Second() {
	v.write("\nTwo interrupts received. Stopping running scripts now: each one's process group\n" +
		"gets SIGTERM, then SIGKILL; what they did is recorded and the state is saved.\n" +
		"A third interrupt exits at once; the next run repairs what it leaves.\n")
}

func (v *Interrupts) write(s string) {
	v.mu.Lock()
	defer v.mu.Unlock()
	_, _ = io.WriteString(v.w, s)
}
