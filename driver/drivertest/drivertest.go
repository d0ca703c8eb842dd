// Package drivertest holds what the drivers' tests share: driver options
// with short timeouts, a collector of output lines, the record the walk
// would keep of an outcome. Only tests import it.
package drivertest

import (
	"strings"
	"sync"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// Lines collects Output lines; safe for concurrent use.
type Lines struct {
	mu sync.Mutex
	l  []string
}

// Add is a driver.Request.Output.
func (l *Lines) Add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, s)
}

// All returns the lines so far.
func (l *Lines) All() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

// Text returns the lines so far, joined.
func (l *Lines) Text() string { return strings.Join(l.All(), "\n") }

// Options are driver options for tests: short timeouts and polls, and
// root as the script root.
func Options(root string) driver.Options {
	return driver.Options{ScriptRoot: root, Timeout: 20 * time.Second, PollInterval: 20 * time.Millisecond, KillGrace: 200 * time.Millisecond}
}

// Recorded turns a desired resource and an outcome into the recorded
// resource the walk would keep.
func Recorded(r *graph.Resource, o driver.Outcome) *state.Resource {
	return &state.Resource{Address: r.Address, Type: r.Type, Driver: r.Driver, Spec: r.Spec, Management: r.Management, Feedback: o.Feedback}
}
