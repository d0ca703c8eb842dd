package executor

import (
	"strings"
	"sync"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// lines collects Output lines; safe for concurrent use.
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, s)
}

func (l *lines) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

func (l *lines) text() string { return strings.Join(l.all(), "\n") }

// testOpts are driver options for tests: short timeouts and polls.
func testOpts(root string) DriverOptions {
	return DriverOptions{ScriptRoot: root, Timeout: 20 * time.Second, PollInterval: 20 * time.Millisecond, KillGrace: 200 * time.Millisecond}
}

// scriptedResource is a scripted component with the given scripts.
func scriptedResource(addr string, ops map[string]string, spec map[string]graph.Value) *graph.Resource {
	r := &graph.Resource{
		Address:    addr,
		Type:       "scripted.Component",
		Driver:     graph.Driver{Name: graph.DriverScripted, Operations: map[string]graph.Operation{}, Options: map[string]graph.Value{OptionFactoryAddress: "F.factory"}},
		Spec:       spec,
		Management: graph.Managed,
	}
	for k, v := range ops {
		r.Driver.Operations[k] = graph.Operation{Implementation: v}
	}
	return r
}

// recorded turns a desired resource and an outcome into the recorded
// resource the walk would keep.
func recorded(r *graph.Resource, o Outcome) *state.Resource {
	return &state.Resource{Address: r.Address, Type: r.Type, Driver: r.Driver, Spec: r.Spec, Management: r.Management, Feedback: o.Feedback}
}
