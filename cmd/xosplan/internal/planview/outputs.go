package planview

import (
	"bytes"
	"fmt"
	"maps"
	"slices"

	"github.com/xosplan/xosplan/cmd/xosplan/internal/termsafe"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// OutputLines renders outputs as Terraform's "name = value" lines, sorted
// by name, each value as JSON (graph.Render, which escapes control
// characters); a sensitive one reads state.SensitiveMarker unless show.
func OutputLines(outs map[string]state.Output, show bool) []byte {
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(outs)) {
		fmt.Fprintf(&b, "%s = %s\n", termsafe.String(name), OutputValue(outs[name], show))
	}
	return b.Bytes()
}

// OutputValue is one output's value as OutputLines shows it.
func OutputValue(o state.Output, show bool) string {
	if o.Sensitive && !show {
		return state.SensitiveMarker
	}
	return graph.Render(o.Value)
}

// OutputsJSON is Terraform's `output -json` object of outputs: for each,
// {"sensitive", "type", "value"}; a sensitive one is {"sensitive": true}
// alone unless show, since its type could tell the shape of a secret.
func OutputsJSON(outs map[string]state.Output, show bool) map[string]any {
	out := make(map[string]any, len(outs))
	for name, o := range outs {
		if o.Sensitive && !show {
			out[name] = map[string]any{"sensitive": true}
			continue
		}
		out[name] = map[string]any{"sensitive": o.Sensitive, "type": OutputType(o.Value), "value": o.Value}
	}
	return out
}

// OutputType is the type of a value in Terraform's JSON notation:
// "string", "number", "bool", ["tuple", [types…]] for a list, ["object",
// {name: type}] for a map, and "dynamic" for null.
func OutputType(v graph.Value) any {
	switch x := v.(type) {
	case string:
		return "string"
	case int64, float64:
		return "number"
	case bool:
		return "bool"
	case []graph.Value:
		elems := make([]any, len(x))
		for i, e := range x {
			elems[i] = OutputType(e)
		}
		return []any{"tuple", elems}
	case map[string]graph.Value:
		attrs := make(map[string]any, len(x))
		for k, e := range x {
			attrs[k] = OutputType(e)
		}
		return []any{"object", attrs}
	}
	return "dynamic"
}
