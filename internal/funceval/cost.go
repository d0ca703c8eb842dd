package funceval

import (
	"regexp/syntax"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TextUnit is how many bytes of a string weigh as much as one value in
// Size and Cost: copying, comparing or matching a string takes time in
// proportion to its bytes.
const TextUnit = 64

// Cost is an upper bound of the work Eval(name, args) does, in values
// (a value is a scalar, list or map, and TextUnit bytes of a string)
// read, compared or copied, stopping at max: the size of the arguments
// for the functions that go over them once, that size times the items
// looked for in the functions that look each one up in a list ($contains,
// $has_all_entries, $union …), and for $matches the size of the program
// its pattern compiles to (repetitions expanded), and that times the
// text. A caller that bounds the work of the calls it evaluates adds
// it up before it calls Eval.
func Cost(name string, args []graph.Value, max int64) int64 {
	total := Size(args, max)
	switch name {
	case "matches":
		// The pattern is compiled for each call, and matched in time
		// the text times its program.
		if p, ok := args[1].(string); ok && len(args) == 2 {
			prog := patternSize(p, max)
			total = add(total, add(prog, times(prog, Size(args[0], max), max), max), max)
		}
	case "contains", "has_all_entries", "has_any_entry", "has_all_keys", "has_any_key", "has_entry", "has_key":
		if len(args) == 2 {
			total = add(total, times(Size(args[0], max), Size(args[1], max), max), max)
		}
	case "union", "intersection":
		// Each item is looked up in the items kept so far.
		var items int64
		for _, a := range args {
			if l, ok := a.([]graph.Value); ok {
				items += int64(len(l))
			}
		}
		total = add(total, times(items, total, max), max)
	}
	return total
}

// Size counts the values of v (TextUnit bytes of a string count as one
// more), stopping once it has counted max.
func Size(v graph.Value, max int64) int64 {
	var n int64
	size(v, &n, max)
	return min(n, max)
}

// size adds the values of v to *n (Size). A function rather than a
// closure, so that Size allocates nothing: validation clauses call it for
// every value they check.
func size(v graph.Value, n *int64, max int64) {
	if *n >= max {
		return
	}
	*n++
	switch x := v.(type) {
	case string:
		*n += int64(len(x) / TextUnit)
	case []graph.Value:
		for _, e := range x {
			size(e, n, max)
		}
	case map[string]graph.Value:
		for k, e := range x {
			*n += int64(len(k) / TextUnit)
			size(e, n, max)
		}
	case graph.Unknown:
		for _, e := range x.Args {
			size(e, n, max)
		}
	}
}

// times is a×b, or max when that is more.
func times(a, b, max int64) int64 {
	if a != 0 && b > max/a {
		return max
	}
	return min(a*b, max)
}

// add is a+b, or max when that is more.
func add(a, b, max int64) int64 {
	return min(a+b, max)
}

// patternSize is about the size of the program the regular expression p
// compiles to, in instructions (a literal or class with TextUnit runes
// weighing one more) and a repetition its count times what it repeats,
// stopping at max; 1 for a pattern that does
// not parse (compiling it fails as soon).
func patternSize(p string, max int64) int64 {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 1
	}
	var size func(*syntax.Regexp) int64
	size = func(re *syntax.Regexp) int64 {
		// A class is one instruction that holds its ranges.
		n := int64(1 + len(re.Rune)/TextUnit)
		for _, sub := range re.Sub {
			n = add(n, size(sub), max)
		}
		if re.Op == syntax.OpRepeat {
			count := re.Max
			if count < 0 {
				count = re.Min + 1
			}
			n = times(int64(count), n, max)
		}
		return n
	}
	return size(re)
}
