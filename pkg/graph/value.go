package graph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Value is a canonical JSON-compatible value: nil, bool, int64, float64,
// string, []Value, map[string]Value, or Unknown. Canonicalize converts
// other Go values into this set.
type Value = any

// Unknown is a value that is known only at apply time: an expression over
// other resources' feedback. Func is one of
//
//   - "attribute" (Args: address, then the attribute path),
//     "operation_output" (address, interface, operation, output, and
//     for an operation of a relationship of the resource at address, the
//     relationship's requirement and index) or
//     "signal" (address, interface, pin): what a resource reported;
//   - "concat", "join" (list, delimiter) or "token" (string, separators,
//     index): TOSCA 1.x's string functions;
//   - "as" (kind, value): value, which an operation may have reported as
//     text, read as the kind of JSON value (integer, float, boolean, list,
//     map) that the TOSCA 2.0 definition of the attribute it reads
//     declares;
//   - "tosca2" (name, then the arguments): a TOSCA 2.0 built-in function
//     of §10.2 evaluated from its arguments ($sum, $equal, $concat,
//     $length, …), by internal/funceval both at compile and apply time;
//   - "function" (name, declaration, [arguments…]): a TOSCA 2.0 custom
//     function (§10.4), which apply evaluates by running the
//     implementation the declaration map names;
//   - "get_property", "get_attribute", "get_artifact",
//     "available_allocation" or "relationship_index" (the call's
//     arguments): a TOSCA 2.0 value only an orchestrator that knows more
//     than the template could give; apply says why it cannot.
//
// Arguments are Values and may themselves be Unknown.
type Unknown struct {
	Func string  `json:"func"`
	Args []Value `json:"args"`
}

// Refs returns the addresses the expression reads, sorted and unique.
func (u Unknown) Refs() []string {
	var out []string
	eachRef(u, func(addr string, _ Unknown) { out = append(out, addr) })
	sort.Strings(out)
	return slices.Compact(out)
}

// eachRef calls fn with every read of another resource's state in v, at
// any depth (an attribute, operation output or signal of the resource at
// addr), in no particular order.
func eachRef(v Value, fn func(addr string, u Unknown)) {
	switch x := v.(type) {
	case Unknown:
		switch x.Func {
		case "attribute", "operation_output", "signal":
			if len(x.Args) > 0 {
				if s, ok := x.Args[0].(string); ok {
					fn(s, x)
				}
			}
		}
		for _, a := range x.Args {
			eachRef(a, fn)
		}
	case []Value:
		for _, e := range x {
			eachRef(e, fn)
		}
	case map[string]Value:
		for _, e := range x {
			eachRef(e, fn)
		}
	}
}

// String renders the expression as a reader sees it in a plan.
func (u Unknown) String() string {
	parts := make([]string, len(u.Args))
	for i, a := range u.Args {
		if s, ok := a.(string); ok {
			parts[i] = s
		} else {
			parts[i] = Render(a)
		}
	}
	return u.Func + "(" + strings.Join(parts, ", ") + ")"
}

// MarshalJSON renders an Unknown as {"$unknown": {"func":…, "args":…}} so
// that plan files keep it distinct from a known map.
func (u Unknown) MarshalJSON() ([]byte, error) {
	type plain Unknown
	return json.Marshal(map[string]plain{"$unknown": plain(u)})
}

// Canonicalize converts a Go value into the canonical Value set: integers
// become int64, floats float64 (integral floats stay float64), slices
// []Value, maps with string keys map[string]Value. It fails on values
// JSON cannot hold (NaN, channels, non-string map keys).
func Canonicalize(v any) (Value, error) {
	switch x := v.(type) {
	case nil, bool, string, int64, Unknown:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return float64(x), nil
		}
		return int64(x), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%v cannot be represented", x)
		}
		return x, nil
	case float32:
		return Canonicalize(float64(x))
	case []Value:
		out := make([]Value, len(x))
		for i, e := range x {
			c, err := Canonicalize(e)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case map[string]Value:
		out := make(map[string]Value, len(x))
		for k, e := range x {
			c, err := Canonicalize(e)
			if err != nil {
				return nil, err
			}
			out[k] = c
		}
		return out, nil
	}
	return canonicalizeReflected(v)
}

// canonicalizeReflected is Canonicalize of the kinds of values its type
// switch does not name: other slices, arrays, maps with string keys,
// integers, strings and booleans.
func canonicalizeReflected(v any) (Value, error) {
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Array:
		out := make([]Value, rv.Len())
		for i := range out {
			c, err := Canonicalize(rv.Index(i).Interface())
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	case reflect.Map:
		if rv.Type().Key().Kind() != reflect.String {
			return nil, fmt.Errorf("map keys must be strings, not %s", rv.Type().Key())
		}
		out := make(map[string]Value, rv.Len())
		it := rv.MapRange()
		for it.Next() {
			c, err := Canonicalize(it.Value().Interface())
			if err != nil {
				return nil, err
			}
			out[it.Key().String()] = c
		}
		return out, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int(), nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return int64(rv.Uint()), nil
	case reflect.String:
		return rv.String(), nil
	case reflect.Bool:
		return rv.Bool(), nil
	}
	return nil, fmt.Errorf("%T is not a JSON-compatible value", v)
}

// Equal reports whether two canonical values are the same. An int64 and a
// float64 of the same number are equal. Unknowns are equal when their
// expressions are.
func Equal(a, b Value) bool {
	switch x := a.(type) {
	case int64:
		if y, ok := b.(int64); ok {
			return x == y
		}
		return equalFloat(float64(x), b)
	case float64:
		return equalFloat(x, b)
	case []Value:
		y, ok := b.([]Value)
		return ok && slices.EqualFunc(x, y, Equal)
	case map[string]Value:
		y, ok := b.(map[string]Value)
		return ok && maps.EqualFunc(x, y, Equal)
	case Unknown:
		y, ok := b.(Unknown)
		return ok && x.Func == y.Func && Equal(x.Args, y.Args)
	}
	return a == b
}

// equalFloat reports whether b is a number equal to f.
func equalFloat(f float64, b Value) bool {
	switch y := b.(type) {
	case float64:
		return f == y
	case int64:
		return f == float64(y)
	}
	return false
}

// HasUnknown reports whether the value is or contains an Unknown.
func HasUnknown(v Value) bool {
	switch x := v.(type) {
	case Unknown:
		return true
	case []Value:
		return slices.ContainsFunc(x, HasUnknown)
	case map[string]Value:
		for _, e := range x {
			if HasUnknown(e) {
				return true
			}
		}
	}
	return false
}

// Render writes a value as compact canonical JSON (sorted keys), Unknowns
// as {"$unknown":…}. The same value always renders to the same bytes.
func Render(v Value) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf("%v", v)
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

// Text renders a known value as TOSCA's concat and join write it: a string
// as it is, null as nothing, an integer or boolean as written, anything
// else (a float, list or map) as its Render form. Whoever evaluates those
// functions, the compiler for values known at compile time or the executor
// for values known only at apply time, uses it, so both give the same text.
func Text(v Value) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return Render(v)
}

// DecodeValue converts a value decoded by encoding/json (with UseNumber or
// plain float64 numbers) back into a canonical Value: integral numbers
// written without a fraction become int64, {"$unknown": {…}} becomes an
// Unknown. It is the inverse of Render for values stored in files.
func DecodeValue(v any) Value { return decodeValue(v, true) }

// DecodePlain converts a value encoding/json decoded with UseNumber into
// a canonical value: integers int64, other numbers float64. Unlike
// DecodeValue it never makes an Unknown (and leaves a float64 as it is):
// what a script or playbook reports is data, not an expression over other
// resources.
func DecodePlain(v any) Value { return decodeValue(v, false) }

// decodeValue is DecodeValue, or DecodePlain when stored is false.
func decodeValue(v any, stored bool) Value {
	switch x := v.(type) {
	case json.Number:
		if i, err := x.Int64(); err == nil {
			return i
		}
		f, _ := x.Float64()
		return f
	case float64:
		if stored && x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x)
		}
		return x
	case []any:
		out := make([]Value, len(x))
		for i, e := range x {
			out[i] = decodeValue(e, stored)
		}
		return out
	case map[string]any:
		if len(x) == 1 && stored {
			if u, ok := x["$unknown"].(map[string]any); ok {
				f, _ := u["func"].(string)
				args, _ := u["args"].([]any)
				dec := make([]Value, len(args))
				for i, a := range args {
					dec[i] = decodeValue(a, stored)
				}
				return Unknown{Func: f, Args: dec}
			}
		}
		out := make(map[string]Value, len(x))
		for k, e := range x {
			out[k] = decodeValue(e, stored)
		}
		return out
	}
	return v
}
