package tosca

// Phase 6 (2.0) — the last step of rendering: a TOSCA 2.0 float may be
// infinite or not-a-number (§9.1.1.3), but the graph's values are
// JSON-compatible (graph.Value) and JSON has no such numbers. Values are
// checked and compared as floats while compiling (validation clauses see
// the float); the graph then carries each one as its YAML 1.2 spelling:
// ".inf", "-.inf" or ".nan".

import (
	"math"

	"github.com/xosplan/xosplan/pkg/graph"
)

// finiteGraph2 replaces the non-finite floats of every value the graph
// holds by their YAML text.
func finiteGraph2(g *graph.Graph) {
	for _, r := range g.Resources() {
		finiteMap2(r.Spec)
		finiteMap2(r.Lookup)
		finiteMap2(r.Driver.Options)
		for k, op := range r.Driver.Operations {
			finiteMap2(op.Inputs)
			r.Driver.Operations[k] = op
		}
	}
	finiteMap2(g.Outputs)
	for i, v := range g.Secrets {
		g.Secrets[i] = finiteValue2(v)
	}
}

func finiteMap2(m map[string]graph.Value) {
	for k, v := range m {
		m[k] = finiteValue2(v)
	}
}

// finiteValue2 is v with its non-finite floats written as YAML text;
// lists and maps are updated in place.
func finiteValue2(v graph.Value) graph.Value {
	switch x := v.(type) {
	case float64:
		switch {
		case math.IsNaN(x):
			return ".nan"
		case math.IsInf(x, 1):
			return ".inf"
		case math.IsInf(x, -1):
			return "-.inf"
		}
	case []graph.Value:
		for i, e := range x {
			x[i] = finiteValue2(e)
		}
	case map[string]graph.Value:
		finiteMap2(x)
	case graph.Unknown:
		for i, e := range x.Args {
			x.Args[i] = finiteValue2(e)
		}
	}
	return v
}
