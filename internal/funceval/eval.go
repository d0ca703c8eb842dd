package funceval

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Func is the graph.Unknown function of a call that apply evaluates:
// Unknown{Func: Func, Args: [name, arguments…]} (see Call).
const Func = "tosca2"

// Call is the value of a call of the built-in function name whose
// arguments are not all known yet. The Unknown holds a copy of args,
// which may hold Unknowns.
func Call(name string, args []graph.Value) graph.Unknown {
	out := make([]graph.Value, 0, len(args)+1)
	out = append(out, name)
	return graph.Unknown{Func: Func, Args: append(out, args...)}
}

// Arity gives the number of arguments the function name takes: min and
// max (-1: any). ok is false when name is not a function Eval knows.
func Arity(name string) (lo, hi int, ok bool) {
	f, ok := functions[name]
	return f.min, f.max, ok
}

// A function is a built-in function Eval knows: how many arguments it
// takes (max -1: any) and how it evaluates them, given its name (several
// names share one evaluation); ok is false when the arguments do not fit.
type function struct {
	min, max int
	eval     func(name string, a []graph.Value, ord Ordering) (v graph.Value, ok bool)
}

// functions holds the functions Eval knows, by name.
var functions = map[string]function{
	"and":              {0, -1, evalAnd},
	"or":               {0, -1, evalOr},
	"not":              {1, 1, evalNot},
	"xor":              {2, 2, evalXor},
	"equal":            {2, 2, evalEqual},
	"greater_than":     {2, 2, evalOrder},
	"greater_or_equal": {2, 2, evalOrder},
	"less_than":        {2, 2, evalOrder},
	"less_or_equal":    {2, 2, evalOrder},
	"valid_values":     {2, 2, evalValidValues},
	"matches":          {2, 2, evalMatches},
	"has_suffix":       {2, 2, evalAffix},
	"has_prefix":       {2, 2, evalAffix},
	"contains":         {2, 2, evalContains},
	"has_entry":        {2, 2, evalHasEntries},
	"has_all_entries":  {2, 2, evalHasEntries},
	"has_any_entry":    {2, 2, evalHasEntries},
	"has_key":          {2, 2, evalHasKeys},
	"has_all_keys":     {2, 2, evalHasKeys},
	"has_any_key":      {2, 2, evalHasKeys},
	"length":           {1, 1, evalLength},
	"concat":           {1, -1, evalConcat},
	"join":             {1, 2, evalJoin},
	"token":            {3, 3, evalToken},
	"union":            {1, -1, evalSet},
	"intersection":     {1, -1, evalSet},
	"sum":              {1, -1, evalArith},
	"product":          {1, -1, evalArith},
	"difference":       {2, 2, evalArith},
	"quotient":         {2, 2, evalArith},
	"remainder":        {2, 2, evalArith},
	"round":            {1, 1, evalRound},
	"floor":            {1, 1, evalRound},
	"ceil":             {1, 1, evalRound},
}

// Ordering orders two strings by what they measure (scalar units,
// versions, timestamps); ok is false when it does not apply to them,
// and they are then ordered as text. pkg/tosca passes the type of $value
// in a validation clause; apply, where no type is known, passes nil.
type Ordering interface {
	Order(a, b string) (r int, ok bool)
}

// ArgumentError is the error of a call whose arguments the function does
// not take: their number or kind, a division by zero, a token index out of
// range, a pattern that is not a regular expression.
type ArgumentError struct {
	Name string
	Args []graph.Value
}

func (e *ArgumentError) Error() string {
	if lo, hi, ok := Arity(e.Name); ok && (len(e.Args) < lo || (hi >= 0 && len(e.Args) > hi)) {
		want := fmt.Sprint(lo)
		switch {
		case hi < 0:
			want = "at least " + want
		case hi != lo:
			want += fmt.Sprintf(" to %d", hi)
		}
		return fmt.Sprintf("$%s takes %s argument(s), found %d", e.Name, want, len(e.Args))
	}
	return fmt.Sprintf("$%s cannot be applied to %s", e.Name, Describe(e.Args))
}

// UnknownFunctionError is the error of Eval for a name it does not know.
type UnknownFunctionError struct{ Name string }

func (e *UnknownFunctionError) Error() string {
	return fmt.Sprintf("$%s is not a TOSCA 2.0 function evaluated from its arguments alone", e.Name)
}

// Eval evaluates the function name with the known arguments args: an
// *UnknownFunctionError when Arity does not know name, an *ArgumentError
// when the arguments do not fit. ord orders strings (nil: as text).
func Eval(name string, args []graph.Value, ord Ordering) (graph.Value, error) {
	f, known := functions[name]
	switch {
	case !known:
		return nil, &UnknownFunctionError{Name: name}
	case len(args) < f.min || (f.max >= 0 && len(args) > f.max):
		return nil, &ArgumentError{Name: name, Args: args}
	}
	v, ok := f.eval(name, args, ord)
	if !ok {
		return nil, &ArgumentError{Name: name, Args: args}
	}
	return v, nil
}

func evalAnd(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	for _, x := range a {
		if b, ok := x.(bool); !ok || !b {
			return false, ok
		}
	}
	return true, true
}

func evalOr(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	for _, x := range a {
		if b, ok := x.(bool); ok && b {
			return true, true
		}
	}
	return false, true
}

func evalNot(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	b, ok := a[0].(bool)
	return !b, ok
}

func evalXor(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	x, ok1 := a[0].(bool)
	y, ok2 := a[1].(bool)
	return x != y, ok1 && ok2
}

func evalEqual(_ string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	r, ok := Compare(a[0], a[1], ord)
	return ok && r == 0, true
}

// evalOrder evaluates greater_than, greater_or_equal, less_than and
// less_or_equal.
func evalOrder(name string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	if isNaN(a[0]) || isNaN(a[1]) {
		return false, true // IEEE 754: NaN is unordered, every comparison is false
	}
	r, ok := Compare(a[0], a[1], ord)
	if !ok {
		return nil, false
	}
	switch name {
	case "greater_than":
		return r > 0, true
	case "greater_or_equal":
		return r >= 0, true
	case "less_than":
		return r < 0, true
	}
	return r <= 0, true
}

func evalValidValues(_ string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	list, ok := a[1].([]graph.Value)
	if !ok {
		return nil, false
	}
	for _, x := range list {
		if r, ok := Compare(a[0], x, ord); ok && r == 0 {
			return true, true
		}
	}
	return false, true
}

func evalMatches(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	s, ok1 := a[0].(string)
	p, ok2 := a[1].(string)
	if !ok1 || !ok2 {
		return nil, false
	}
	// Not anchored: §10.2.2.2.7 has the value match if the pattern
	// matches it, and a pattern that must match the whole string
	// starts with ^ and ends with $ itself.
	re, err := regexp.Compile(p)
	if err != nil {
		return nil, false
	}
	return re.MatchString(s), true
}

func evalAffix(name string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	return hasAffix(name == "has_suffix", a[0], a[1], ord)
}

func evalContains(_ string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	return contains(a[0], a[1], ord)
}

// evalHasEntries evaluates has_entry, has_all_entries and has_any_entry:
// over the items of a list or the values of a map.
func evalHasEntries(name string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	var items []graph.Value
	switch x := a[0].(type) {
	case []graph.Value:
		items = x
	case map[string]graph.Value:
		for _, v := range x {
			items = append(items, v)
		}
	default:
		return nil, false
	}
	return hasMembers(name == "has_entry", name == "has_any_entry", items, a[1], ord)
}

// evalHasKeys evaluates has_key, has_all_keys and has_any_key.
func evalHasKeys(name string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	m, ok := a[0].(map[string]graph.Value)
	if !ok {
		return nil, false
	}
	keys := make([]graph.Value, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return hasMembers(name == "has_key", name == "has_any_key", keys, a[1], ord)
}

func evalLength(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	n, ok := Length(a[0])
	return n, ok
}

func evalConcat(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	return concat(a)
}

func evalJoin(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	l, ok := a[0].([]graph.Value)
	if !ok {
		return nil, false
	}
	sep := ""
	if len(a) > 1 {
		if sep, ok = a[1].(string); !ok {
			return nil, false
		}
	}
	parts := make([]string, len(l))
	for i, x := range l {
		parts[i] = graph.Text(x)
	}
	return strings.Join(parts, sep), true
}

func evalToken(_ string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	s, ok1 := a[0].(string)
	seps, ok2 := a[1].(string)
	i, ok3 := a[2].(int64)
	if !ok1 || !ok2 || !ok3 {
		return nil, false
	}
	parts := strings.FieldsFunc(s, func(r rune) bool { return strings.ContainsRune(seps, r) })
	if i < 0 || i >= int64(len(parts)) {
		return nil, false
	}
	return parts[i], true
}

func evalSet(name string, a []graph.Value, ord Ordering) (graph.Value, bool) {
	return setOf(name == "union", a, ord)
}

func evalArith(name string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	return arith(name, a)
}

// evalRound evaluates round, floor and ceil.
func evalRound(name string, a []graph.Value, _ Ordering) (graph.Value, bool) {
	f, ok := ToFloat(a[0])
	if !ok {
		return nil, false
	}
	switch name {
	case "round":
		return int64(math.Round(f)), true
	case "floor":
		return int64(math.Floor(f)), true
	}
	return int64(math.Ceil(f)), true
}

// hasAffix evaluates $has_suffix (suffix) and $has_prefix: of a string by
// a string, or of a list by a list of items.
func hasAffix(suffix bool, whole, part graph.Value, ord Ordering) (graph.Value, bool) {
	s, ok1 := whole.(string)
	x, ok2 := part.(string)
	if ok1 && ok2 {
		if suffix {
			return strings.HasSuffix(s, x), true
		}
		return strings.HasPrefix(s, x), true
	}
	l1, ok1 := whole.([]graph.Value)
	l2, ok2 := part.([]graph.Value)
	if !ok1 || !ok2 || len(l2) > len(l1) {
		return false, ok1 && ok2
	}
	off := 0
	if suffix {
		off = len(l1) - len(l2)
	}
	return sameItems(l1[off:], l2, ord), true
}

// contains evaluates $contains: a string in a string, or a list as a run
// of items of a list.
func contains(whole, part graph.Value, ord Ordering) (graph.Value, bool) {
	if s, ok := whole.(string); ok {
		x, ok := part.(string)
		return strings.Contains(s, x), ok
	}
	l1, ok1 := whole.([]graph.Value)
	l2, ok2 := part.([]graph.Value)
	if !ok1 || !ok2 {
		return nil, false
	}
	for i := 0; i+len(l2) <= len(l1); i++ {
		if sameItems(l1[i:], l2, ord) {
			return true, true
		}
	}
	return false, true
}

// sameItems reports whether list starts with the items of want.
func sameItems(list, want []graph.Value, ord Ordering) bool {
	for i, x := range want {
		if r, ok := Compare(list[i], x, ord); !ok || r != 0 {
			return false
		}
	}
	return true
}

// hasMembers evaluates the $has_*_entries and $has_*_keys functions over
// items (a list's or map's entries, a map's keys): whether want is one of
// them (one), or all or any of the list want holds (anyOf).
func hasMembers(one, anyOf bool, items []graph.Value, want graph.Value, ord Ordering) (graph.Value, bool) {
	if one {
		return member(items, want, ord), true
	}
	l, ok := want.([]graph.Value)
	if !ok {
		return nil, false
	}
	for _, w := range l {
		found := member(items, w, ord)
		if anyOf && found {
			return true, true
		}
		if !anyOf && !found {
			return false, true
		}
	}
	return !anyOf, true
}

// member reports whether want is one of items.
func member(items []graph.Value, want graph.Value, ord Ordering) bool {
	return slices.ContainsFunc(items, func(x graph.Value) bool {
		r, ok := Compare(x, want, ord)
		return ok && r == 0
	})
}

// Length is what $length measures (§10.2.3.1): the Unicode characters of
// a string, the entries of a list or map; ok is false for another value.
func Length(v graph.Value) (int64, bool) {
	switch x := v.(type) {
	case string:
		return int64(utf8.RuneCountInString(x)), true
	case []graph.Value:
		return int64(len(x)), true
	case map[string]graph.Value:
		return int64(len(x)), true
	}
	return 0, false
}

// concat evaluates $concat: strings (and the text of the scalars that
// follow a first string, as graph.Text writes them) or lists, joined.
func concat(a []graph.Value) (graph.Value, bool) {
	if s, ok := a[0].(string); ok {
		var b strings.Builder
		b.WriteString(s)
		for _, x := range a[1:] {
			b.WriteString(graph.Text(x))
		}
		return b.String(), true
	}
	var out []graph.Value
	for _, x := range a {
		l, ok := x.([]graph.Value)
		if !ok {
			return nil, false
		}
		out = append(out, l...)
	}
	return out, true
}

// setOf evaluates $union (union) and $intersection of lists: the items in
// the order they first appear, each once.
func setOf(union bool, a []graph.Value, ord Ordering) (graph.Value, bool) {
	var out []graph.Value
	for i, x := range a {
		l, ok := x.([]graph.Value)
		if !ok {
			return nil, false
		}
		if i == 0 || union {
			for _, y := range l {
				if !member(out, y, ord) {
					out = append(out, y)
				}
			}
			continue
		}
		out = slices.DeleteFunc(out, func(y graph.Value) bool { return !member(l, y, ord) })
	}
	return out, true
}

// ToFloat is the number v holds; ok is false when it holds none.
func ToFloat(v graph.Value) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// arith evaluates the arithmetic functions: in integers when every
// argument is one (but $quotient, which is a float), else in floats.
func arith(name string, a []graph.Value) (graph.Value, bool) {
	ints := make([]int64, 0, len(a))
	floats := make([]float64, 0, len(a))
	for _, x := range a {
		f, ok := ToFloat(x)
		if !ok {
			return nil, false
		}
		floats = append(floats, f)
		if i, isInt := x.(int64); isInt {
			ints = append(ints, i)
		}
	}
	if len(ints) == len(a) && name != "quotient" {
		return fold(name, ints, func(x, y int64) int64 { return x % y })
	}
	return fold(name, floats, math.Mod)
}

// fold applies an arithmetic function to its arguments left to right;
// false for a division by zero.
func fold[T int64 | float64](name string, a []T, rem func(T, T) T) (graph.Value, bool) {
	acc := a[0]
	for _, y := range a[1:] {
		switch name {
		case "sum":
			acc += y
		case "product":
			acc *= y
		case "difference":
			acc -= y
		case "quotient", "remainder":
			if y == 0 {
				return nil, false
			}
			if name == "quotient" {
				acc /= y
			} else {
				acc = rem(acc, y)
			}
		}
	}
	return acc, true
}

// Compare orders two values: numbers by value, two strings by ord when it
// orders them and else as text, booleans and other values of one kind by
// equality (0 when equal). ok is false when the values cannot be ordered:
// then only their inequality is known.
func Compare(a, b graph.Value, ord Ordering) (int, bool) {
	if x, ok := ToFloat(a); ok {
		if y, ok := ToFloat(b); ok {
			switch {
			case math.IsNaN(x) || math.IsNaN(y):
				return 1, false // unordered, and equal to nothing, itself included

			case x < y:
				return -1, true
			case x > y:
				return 1, true
			}
			return 0, true
		}
	}
	sa, okA := a.(string)
	sb, okB := b.(string)
	if okA && okB {
		if ord != nil {
			if r, ok := ord.Order(sa, sb); ok {
				return r, true
			}
		}
		return strings.Compare(sa, sb), true
	}
	if ba, ok := a.(bool); ok {
		if bb, ok := b.(bool); ok && ba == bb {
			return 0, true
		}
		return 1, true
	}
	// Values of different kinds are never equal (§10.2.2.2.1: "1" is not
	// 1); lists and maps are equal item by item.
	if graph.Equal(a, b) {
		return 0, true
	}
	return 1, false
}

// isNaN reports whether v is the float not-a-number.
func isNaN(v graph.Value) bool {
	f, ok := v.(float64)
	return ok && math.IsNaN(f)
}

// Describe renders a value for a message, shortened to 80 characters; a
// string is quoted.
func Describe(v graph.Value) string {
	s := fmt.Sprintf("%v", v)
	if x, ok := v.(string); ok {
		s = `"` + x + `"`
	}
	if len(s) > 80 {
		s = s[:77] + "..."
	}
	return s
}
