package graph

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Policy is a model policy (XOS): an executable that derives declarative
// state from declarative state ("for every Network there must be at least
// one Interface"). pkg/policy runs it before planning with the resources
// of its targets on stdin and adds what it prints to the graph, each
// derived resource marked with the policy's Name (Resource.DerivedBy).
type Policy struct {
	// Name is stable and unique in a graph: the TOSCA policy name, or the
	// manifest's application name, a ".", and the entry's name.
	Name string `json:"name"`
	// Implementation is the executable, an absolute path checked at
	// compile time to lie inside the configuration root; the runner
	// checks it again before it runs it.
	Implementation string `json:"implementation"`
	// Targets lists, sorted and unique, the addresses of the resources the
	// policy reads (groups expanded to their members).
	Targets []string `json:"targets"`
	// Properties are the policy's own settings, passed to it on stdin.
	Properties map[string]Value `json:"properties,omitempty"`
	// Timeout bounds one run; zero means the runner's default.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Range is where the policy is declared.
	Range diag.Range `json:"-"`
}

// ErrDuplicatePolicy is returned by AddPolicy for a name the graph holds.
var ErrDuplicatePolicy = errors.New("duplicate policy name")

// AddPolicy adds p; its name must be new in the graph.
func (g *Graph) AddPolicy(p Policy) error {
	if _, dup := g.Policy(p.Name); dup {
		return fmt.Errorf("%w: %s", ErrDuplicatePolicy, p.Name)
	}
	g.policies = append(g.policies, p)
	return nil
}

// Policy returns the policy named name.
func (g *Graph) Policy(name string) (Policy, bool) {
	for _, p := range g.policies {
		if p.Name == name {
			return p, true
		}
	}
	return Policy{}, false
}

// Policies returns the graph's policies sorted by name.
func (g *Graph) Policies() []Policy {
	out := slices.Clone(g.policies)
	slices.SortFunc(out, func(a, b Policy) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
