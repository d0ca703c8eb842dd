package funceval

import (
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

// TestCost checks the bound Cost gives: the size of the arguments, a
// lookup's items times the values searched, text by TextUnit bytes, and
// max for what would be more.
func TestCost(t *testing.T) {
	list := func(n int) []graph.Value {
		l := make([]graph.Value, n)
		for i := range l {
			l[i] = int64(i)
		}
		return l
	}
	cases := []struct {
		name string
		args []graph.Value
		max  int64
		want int64
	}{
		// The argument list, the list and its 100 items, the value.
		{"valid_values", []graph.Value{int64(1), list(100)}, 1000, 103},
		{"concat", []graph.Value{list(10), list(10)}, 1000, 23},
		// 1 + 11 + 6, and 11 × 6 lookups.
		{"contains", []graph.Value{list(10), list(5)}, 1000, 18 + 66},
		// 23 values (with the lists), and each of the 20 items looked up among them.
		{"union", []graph.Value{list(10), list(10)}, 1000, 23 + 20*23},
		{"length", []graph.Value{strings.Repeat("x", 10*TextUnit)}, 1000, 12},
		{"contains", []graph.Value{list(1000), list(1000)}, 5000, 5000},
		// The argument list, the text (2 units) and the pattern: 4; its
		// program (the concatenation, the class, a{4} 4 × (1 + a): 10)
		// once for the compile and once for each unit of the text.
		{"matches", []graph.Value{strings.Repeat("x", TextUnit), "[a-c]a{4}"}, 1000, 4 + 10 + 10*2},
		{"matches", []graph.Value{"x", "a{2,}"}, 1000, 3 + 6 + 6},
		// A unicode class (hundreds of ranges) repeated 1000 times: the
		// repetition and its class, 1000 times.
		{"matches", []graph.Value{"x", `\pL{1000}`}, 1_000_000, 3 + 2*1000*int64(1+1+patternRanges(`\pL`)/TextUnit)},
	}
	for _, tc := range cases {
		if got := Cost(tc.name, tc.args, tc.max); got != tc.want {
			t.Errorf("Cost(%s, max %d) = %d, want %d", tc.name, tc.max, got, tc.want)
		}
	}
}

// patternRanges is the runes of the class the pattern p is.
func patternRanges(p string) int {
	re, err := syntax.Parse(p, syntax.Perl)
	if err != nil {
		return 0
	}
	return len(re.Rune)
}

// TestCostAllocatesNothing: Cost is counted for every call a validation
// clause makes, for every value checked; it allocated once a call (the
// argument list, boxed for Size's walk, a closure that kept it), about
// 35,000 allocations of a 2.0 compile of 10,000 node templates.
func TestCostAllocatesNothing(t *testing.T) {
	args := []graph.Value{int64(1), []graph.Value{"fast", "safe"}, map[string]graph.Value{"k": 1.5}}
	if n := testing.AllocsPerRun(100, func() { _ = Cost("valid_values", args, 1000) }); n != 0 {
		t.Fatalf("Cost allocates %.1f times a call, want 0", n)
	}
}
