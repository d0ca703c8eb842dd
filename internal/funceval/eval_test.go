package funceval

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

func list(v ...graph.Value) []graph.Value { return v }

// TestEval evaluates every function of §10.2 that Eval knows, with
// arguments it takes and arguments it does not.
func TestEval(t *testing.T) {
	m := map[string]graph.Value{"a": int64(1), "b": int64(2)}
	tests := []struct {
		name string
		args []graph.Value
		want graph.Value
		// err is part of the message of an *ArgumentError.
		err string
	}{
		{"and", nil, true, ""},
		{"and", list(true, true), true, ""},
		{"and", list(true, false), false, ""},
		{"and", list(true, "yes"), nil, `$and cannot be applied to [true yes]`},
		{"or", list(false, false), false, ""},
		{"or", list(false, true), true, ""},
		{"or", list(int64(1), true), true, ""},
		{"not", list(false), true, ""},
		{"not", list("no"), nil, "cannot be applied"},
		{"xor", list(true, false), true, ""},
		{"xor", list(true, true), false, ""},
		{"xor", list(true, int64(1)), nil, "cannot be applied"},

		{"equal", list(int64(2), 2.0), true, ""},
		{"equal", list("a", "b"), false, ""},
		{"equal", list(list(int64(1)), list(int64(1))), true, ""},
		// Values of different kinds are not equal, whatever they print.
		{"equal", list("1", int64(1)), false, ""},
		{"equal", list("true", true), false, ""},
		{"equal", list(list("1"), list(int64(1))), false, ""},
		{"greater_than", list("b", "a"), true, ""},
		{"greater_than", list(int64(3), 2.5), true, ""},
		{"greater_or_equal", list(int64(2), int64(2)), true, ""},
		{"less_than", list(int64(1), int64(2)), true, ""},
		{"less_or_equal", list(int64(3), int64(2)), false, ""},
		{"greater_than", list("a", int64(1)), nil, `$greater_than cannot be applied to [a 1]`},
		// NaN is unordered (IEEE 754, TOSCA 2.0 §9.1.1.3): every comparison
		// with it is false, equality with itself included; the infinities
		// order as numbers.
		{"greater_than", list(math.NaN(), 1.0), false, ""},
		{"greater_or_equal", list(math.NaN(), math.NaN()), false, ""},
		{"less_than", list(1.0, math.NaN()), false, ""},
		{"less_or_equal", list(math.Inf(-1), math.NaN()), false, ""},
		{"equal", list(math.NaN(), math.NaN()), false, ""},
		{"valid_values", list(math.NaN(), list(math.NaN(), 1.0)), false, ""},
		{"greater_than", list(math.Inf(1), math.MaxFloat64), true, ""},
		{"less_than", list(math.Inf(-1), -math.MaxFloat64), true, ""},
		{"greater_or_equal", list(math.Inf(1), math.Inf(1)), true, ""},
		{"valid_values", list("b", list("a", "b")), true, ""},
		{"valid_values", list(int64(3), list(int64(1), int64(2))), false, ""},
		{"valid_values", list("b", "b"), nil, "cannot be applied"},

		{"matches", list("abc123", "[a-z]+[0-9]+"), true, ""},
		// §10.2.2.2.7: a pattern matching part of the string is a
		// match; ^ and $ ask for the whole string.
		{"matches", list("abc123x", "[a-z]+[0-9]+"), true, ""},
		{"matches", list("abc123x", "^[a-z]+[0-9]+$"), false, ""},
		{"matches", list("x-abc123", "[a-z]+[0-9]+$"), true, ""},
		{"matches", list("x-abc123", "^[a-z]+[0-9]+"), false, ""},
		{"matches", list("ABC", "[a-z]"), false, ""},
		{"matches", list("", ""), true, ""},
		{"matches", list("abc", "("), nil, "cannot be applied"},
		{"has_suffix", list("hello", "llo"), true, ""},
		{"has_suffix", list(list(int64(1), int64(2), int64(3)), list(int64(2), int64(3))), true, ""},
		{"has_suffix", list(list(int64(1)), list(int64(1), int64(2))), false, ""},
		{"has_prefix", list(list(int64(1), int64(2), int64(3)), list(int64(1), int64(2))), true, ""},
		{"has_prefix", list("hello", "lo"), false, ""},
		{"has_prefix", list("hello", int64(1)), nil, "cannot be applied"},
		{"contains", list("hello", "ell"), true, ""},
		{"contains", list(list(int64(1), int64(2), int64(3)), list(int64(2), int64(3))), true, ""},
		{"contains", list(list(int64(1), int64(2), int64(3)), list(int64(3), int64(2))), false, ""},
		{"contains", list(int64(1), int64(1)), nil, "cannot be applied"},
		{"length", list("héllo"), int64(5), ""},
		{"length", list(list(int64(1), int64(2))), int64(2), ""},
		{"length", list(m), int64(2), ""},
		{"length", list(int64(5)), nil, "cannot be applied"},
		{"concat", list("a", int64(1), "b", true, nil, 2.5), "a1btrue2.5", ""},
		{"concat", list("ports: ", list(int64(80), "x")), `ports: [80,"x"]`, ""},
		{"concat", list(list(int64(1)), list(int64(2), int64(3))), list(int64(1), int64(2), int64(3)), ""},
		{"concat", list(list(int64(1)), "x"), nil, "cannot be applied"},
		{"join", list(list("a", "b", int64(3)), "-"), "a-b-3", ""},
		{"join", list(list("a", "b")), "ab", ""},
		{"join", list("ab", "-"), nil, "cannot be applied"},
		{"join", list(list("a"), int64(1)), nil, "cannot be applied"},
		{"token", list("a.b:c", ".:", int64(2)), "c", ""},
		{"token", list("a.b", ".", int64(5)), nil, "cannot be applied"},
		{"token", list("a.b", ".", int64(-1)), nil, "cannot be applied"},

		{"has_entry", list(m, int64(1)), true, ""},
		{"has_entry", list(list("a"), "b"), false, ""},
		{"has_entry", list("a", "a"), nil, "cannot be applied"},
		{"has_all_entries", list(list(int64(1), int64(2)), list(int64(2), int64(1))), true, ""},
		{"has_all_entries", list(list(int64(1)), list()), true, ""},
		{"has_any_entry", list(list(int64(1), int64(2)), list(int64(5), int64(2))), true, ""},
		{"has_any_entry", list(list(int64(1)), list()), false, ""},
		{"has_any_entry", list(list(int64(1)), int64(1)), nil, "cannot be applied"},
		{"has_key", list(m, "b"), true, ""},
		{"has_key", list(m, "c"), false, ""},
		{"has_key", list(list("a"), "a"), nil, "cannot be applied"},
		{"has_all_keys", list(m, list("a", "b")), true, ""},
		{"has_all_keys", list(m, list("a", "c")), false, ""},
		{"has_any_key", list(m, list("c", "a")), true, ""},

		{"union", list(list(int64(1), int64(2)), list(int64(2), int64(3))), list(int64(1), int64(2), int64(3)), ""},
		{"union", list(list(int64(1), int64(1))), list(int64(1)), ""},
		{"intersection", list(list(int64(1), int64(2), int64(3)), list(int64(2), int64(3), int64(4))), list(int64(2), int64(3)), ""},
		{"intersection", list(list(int64(1)), "a"), nil, "cannot be applied"},

		{"sum", list(int64(1), int64(2), int64(3)), int64(6), ""},
		{"sum", list(int64(1), 2.5), 3.5, ""},
		{"sum", list(int64(1), "2"), nil, `$sum cannot be applied to [1 2]`},
		{"difference", list(int64(10), int64(4)), int64(6), ""},
		{"product", list(int64(2), int64(3), int64(4)), int64(24), ""},
		{"quotient", list(int64(7), int64(2)), 3.5, ""},
		{"quotient", list(int64(7), int64(0)), nil, "cannot be applied"},
		{"remainder", list(int64(7), int64(3)), int64(1), ""},
		{"remainder", list(7.5, int64(2)), 1.5, ""},
		{"remainder", list(int64(7), int64(0)), nil, "cannot be applied"},
		{"round", list(2.5), int64(3), ""},
		{"round", list(int64(2)), int64(2), ""},
		{"floor", list(2.7), int64(2), ""},
		{"ceil", list(2.1), int64(3), ""},
		{"ceil", list("2"), nil, "cannot be applied"},

		{"sum", nil, nil, "$sum takes at least 1 argument(s), found 0"},
		{"not", list(true, false), nil, "$not takes 1 argument(s), found 2"},
		{"join", list(list(), "-", "+"), nil, "$join takes 1 to 2 argument(s), found 3"},
	}
	for _, tt := range tests {
		got, err := Eval(tt.name, tt.args, nil)
		if tt.err != "" {
			var ae *ArgumentError
			if !errors.As(err, &ae) || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("$%s %s: error %v, want one with %q", tt.name, Describe(tt.args), err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("$%s %s: %v", tt.name, Describe(tt.args), err)
			continue
		}
		if !graph.Equal(got, tt.want) {
			t.Errorf("$%s %s = %#v, want %#v", tt.name, Describe(tt.args), got, tt.want)
		}
	}
}

// TestEvalUnknownFunction: Eval knows only the functions of Arity; the
// graph queries and $get_input need the template.
func TestEvalUnknownFunction(t *testing.T) {
	for _, name := range []string{"get_attribute", "get_input", "frobnicate", ""} {
		var ue *UnknownFunctionError
		if _, err := Eval(name, nil, nil); !errors.As(err, &ue) {
			t.Errorf("Eval(%q) error = %v, want *UnknownFunctionError", name, err)
		}
	}
}

// byLength orders strings by their length: a stand-in for the scalar,
// version and timestamp types pkg/tosca orders by what they measure.
type byLength struct{}

func (byLength) Order(a, b string) (int, bool) {
	if a == "" || b == "" {
		return 0, false
	}
	return len(a) - len(b), true
}

// TestEvalOrdering: an Ordering decides how strings compare where it
// applies, text order decides elsewhere.
func TestEvalOrdering(t *testing.T) {
	tests := []struct {
		name string
		args []graph.Value
		want bool
	}{
		{"greater_than", list("aa", "b"), true},
		{"less_than", list("", "b"), true},
		{"equal", list("ab", "cd"), true},
		{"valid_values", list("xy", list("a", "zz")), true},
		{"has_entry", list(list("ab"), "cd"), true},
	}
	for _, tt := range tests {
		got, err := Eval(tt.name, tt.args, byLength{})
		if err != nil || got != tt.want {
			t.Errorf("$%s %s = %v, %v, want %v", tt.name, Describe(tt.args), got, err, tt.want)
		}
	}
}

// TestCall: a call left to apply time is tosca2(name, arguments…), with
// its own copy of the arguments.
func TestCall(t *testing.T) {
	args := list(graph.Unknown{Func: "attribute", Args: list("web", "port")}, int64(1))
	u := Call("sum", args)
	args[1] = int64(2)
	want := graph.Unknown{Func: Func, Args: list("sum", graph.Unknown{Func: "attribute", Args: list("web", "port")}, int64(1))}
	if !graph.Equal(u, want) {
		t.Errorf("Call = %s, want %s", u, want)
	}
}

// TestDescribe: values in messages are shortened, strings quoted.
func TestDescribe(t *testing.T) {
	if got := Describe("a"); got != `"a"` {
		t.Errorf("Describe(a) = %s", got)
	}
	if got := Describe(strings.Repeat("x", 100)); len(got) != 80 || !strings.HasSuffix(got, "...") {
		t.Errorf("Describe(long) = %s", got)
	}
}
