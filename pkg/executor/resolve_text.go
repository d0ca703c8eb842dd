package executor

import (
	"fmt"
	"math"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// joinValues is join(list, [delimiter]) with its arguments resolved
// (args): the text of the list's elements joined by the delimiter.
func joinValues(u graph.Unknown, args []graph.Value) (graph.Value, error) {
	if len(args) < 1 || len(args) > 2 {
		return nil, fmt.Errorf("%w: %s takes a list and an optional delimiter", ErrUnresolved, u)
	}
	list, ok := args[0].([]graph.Value)
	if !ok {
		return nil, fmt.Errorf("%w: %s: the first argument is not a list", ErrUnresolved, u)
	}
	delim := ""
	if len(args) == 2 {
		delim = graph.Text(args[1])
	}
	parts := make([]string, len(list))
	for i, e := range list {
		parts[i] = graph.Text(e)
	}
	return strings.Join(parts, delim), nil
}

// tokenOf is token(string, separators, index) with its arguments resolved
// (args): the index-th token of the string split at any of the separators.
func tokenOf(u graph.Unknown, args []graph.Value) (graph.Value, error) {
	if len(args) != 3 {
		return nil, fmt.Errorf("%w: %s takes a string, separators and an index", ErrUnresolved, u)
	}
	s, seps := graph.Text(args[0]), graph.Text(args[1])
	idx, ok := args[2].(int64)
	if !ok {
		if f, isF := args[2].(float64); isF && f == math.Trunc(f) {
			idx, ok = int64(f), true
		}
	}
	if !ok || idx < 0 {
		return nil, fmt.Errorf("%w: %s: the index is not a non-negative integer", ErrUnresolved, u)
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
	if idx >= int64(len(parts)) {
		return nil, fmt.Errorf("%w: %s: %q has %d tokens, no token %d", ErrUnresolved, u, s, len(parts), idx)
	}
	return parts[idx], nil
}
