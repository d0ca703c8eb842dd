package values

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Coerce checks a YAML node against a primitive type (any spelling
// IsPrimitive accepts) and returns its canonical graph.Value:
//
//	string                 string
//	integer                int64
//	float                  float64 (integers accepted)
//	boolean                bool
//	null                   nil
//	timestamp              string, RFC 3339 ("2001-12-14T21:59:43.1-05:00")
//	version                string "major.minor[.fix[.qualifier[-build]]]"
//	range                  []graph.Value{int64, int64 or "UNBOUNDED"}
//	scalar-unit.*          string "<number> <unit>" ("1.5 GiB")
//
// The rules for each type are in the package documentation. A null node
// is accepted only by the null type: whether a value may be absent is the
// caller's concern. The error names the value and the type, as in
// `"two" is not an integer`, and never panics, whatever the node.
func Coerce(typ string, n *yamlsrc.Node) (graph.Value, error) {
	return coerce(typ, n, false)
}

// CoerceLenient is Coerce, except that a string accepts any non-null
// scalar as its text (123456789 → "123456789"). tosca-parser converts the
// values of a template's own string properties this way, but not inputs
// or the fields of data types; the compiler chooses where to follow it.
func CoerceLenient(typ string, n *yamlsrc.Node) (graph.Value, error) {
	return coerce(typ, n, true)
}

func coerce(typ string, n *yamlsrc.Node, lenient bool) (graph.Value, error) {
	t := Canonical(typ)
	if n == nil {
		n = &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagNull}
	}
	if t == Null {
		if n.IsNull() {
			return nil, nil
		}
		return nil, notA(n, t)
	}
	if t == Range {
		return coerceRange(n)
	}
	if n.Kind != yamlsrc.Scalar || n.IsNull() {
		if !IsPrimitive(t) {
			return nil, fmt.Errorf("%q is not a primitive type", typ)
		}
		return nil, notA(n, t)
	}
	switch t {
	case String:
		// YAML 1.2, TOSCA's YAML, has no timestamp type: a plain date is text.
		if n.IsString() || n.Tag == yamlsrc.TagTimestamp || lenient {
			return n.Value, nil
		}
	case Integer:
		return coerceInteger(n)
	case Float:
		return coerceFloat(n)
	case Boolean:
		if b, ok := n.Bool(); ok {
			return b, nil
		}
		if !n.Quoted && n.Tag == yamlsrc.TagStr {
			if b, ok := yaml11Bool(n.Value); ok {
				return b, nil
			}
		}
	case Timestamp:
		if n.IsString() || n.Tag == yamlsrc.TagTimestamp {
			ts, err := parseTimestamp(n.Value)
			if err != nil {
				return nil, err
			}
			return formatTimestamp(ts), nil
		}
	case Version:
		// A YAML float (6.5) or integer (2) is a version as written.
		if n.IsString() || (!n.Quoted && (n.Tag == yamlsrc.TagFloat || n.Tag == yamlsrc.TagInt)) {
			v, err := parseVersion(n.Value)
			if err != nil {
				return nil, err
			}
			return v.canonical(), nil
		}
	case ScalarSize, ScalarTime, ScalarFrequency, ScalarBitrate:
		k := scalarKinds[t]
		if n.IsString() {
			v, err := k.parse(n.Value)
			if err != nil {
				return nil, err
			}
			return v.canonical(), nil
		}
		if n.Tag == yamlsrc.TagInt || n.Tag == yamlsrc.TagFloat {
			return nil, fmt.Errorf("%s is not %s: the unit is missing (valid units: %s)", quote(n.Value), article(t), k.unitList())
		}
	default:
		return nil, fmt.Errorf("%q is not a primitive type", typ)
	}
	return nil, notA(n, t)
}

// yaml11Bool reads the YAML 1.1 boolean words that YAML 1.2 reads as text.
func yaml11Bool(s string) (bool, bool) {
	switch s {
	case "yes", "Yes", "YES", "on", "On", "ON":
		return true, true
	case "no", "No", "NO", "off", "Off", "OFF":
		return false, true
	}
	return false, false
}

func coerceInteger(n *yamlsrc.Node) (graph.Value, error) {
	if n.Quoted {
		return nil, notA(n, Integer)
	}
	switch n.Tag {
	case yamlsrc.TagInt:
		if i, ok := n.Int(); ok {
			return i, nil
		}
		return nil, fmt.Errorf("%s is out of the integer range [%d, %d]", quote(n.Value), int64(math.MinInt64), int64(math.MaxInt64))
	case yamlsrc.TagFloat:
		// A whole number too long for a YAML integer is resolved as a float.
		if s := strings.TrimLeft(n.Value, "+-"); s != "" && strings.Trim(s, "0123456789_") == "" {
			return nil, fmt.Errorf("%s is out of the integer range [%d, %d]", quote(n.Value), int64(math.MinInt64), int64(math.MaxInt64))
		}
	}
	return nil, notA(n, Integer)
}

func coerceFloat(n *yamlsrc.Node) (graph.Value, error) {
	if n.Quoted {
		return nil, notA(n, Float)
	}
	switch n.Tag {
	case yamlsrc.TagInt:
		if i, ok := n.Int(); ok {
			return float64(i), nil
		}
	case yamlsrc.TagFloat:
		f, ok := n.Float()
		if ok && !math.IsNaN(f) && !math.IsInf(f, 0) {
			return f, nil
		}
		if ok {
			return nil, fmt.Errorf("%s is not a finite float", quote(n.Value))
		}
	case yamlsrc.TagStr:
		// YAML resolves a float beyond float64's range as text.
		if _, err := strconv.ParseFloat(strings.ReplaceAll(n.Value, "_", ""), 64); err != nil {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return nil, fmt.Errorf("%s is out of the float range", quote(n.Value))
			}
		}
	}
	return nil, notA(n, Float)
}

func coerceRange(n *yamlsrc.Node) (graph.Value, error) {
	items := n.Items()
	if n.Kind != yamlsrc.Sequence || len(items) != 2 {
		return nil, fmt.Errorf("%s is not a valid range: expected [lower, upper]", display(n))
	}
	lower, ok := items[0].Int()
	if !ok {
		return nil, fmt.Errorf("%s is not a valid range: the lower bound %s is not an integer", display(n), display(items[0]))
	}
	if items[1].IsString() && items[1].Value == Unbounded {
		return []graph.Value{lower, Unbounded}, nil
	}
	upper, ok := items[1].Int()
	if !ok {
		return nil, fmt.Errorf("%s is not a valid range: the upper bound %s is neither an integer nor UNBOUNDED", display(n), display(items[1]))
	}
	if lower > upper {
		return nil, fmt.Errorf("%s is not a valid range: the lower bound is greater than the upper bound", display(n))
	}
	return []graph.Value{lower, upper}, nil
}

// notA builds the standard mismatch error: `"two" is not an integer`.
func notA(n *yamlsrc.Node, typ string) error {
	return fmt.Errorf("%s is not %s", display(n), article(typ))
}

// maxShown bounds how much of a value a message repeats.
const maxShown = 80

// quote renders a text for a message, shortened if long.
func quote(s string) string {
	if utf8.RuneCountInString(s) > maxShown {
		r := []rune(s)
		s = string(r[:maxShown]) + "…"
	}
	return strconv.Quote(s)
}

// display renders a node for a message: scalars as quoted text, null as
// null, collections as the YAML they hold (shortened).
func display(n *yamlsrc.Node) string {
	switch {
	case n.IsNull():
		return "null"
	case n.Kind == yamlsrc.Scalar:
		return quote(n.Value)
	}
	return quote(writtenYAML(n))
}

// writtenYAML renders a node in YAML flow style, close to how it was
// written: "[1, 65535]", "{a: b}", quoted scalars in single quotes.
func writtenYAML(n *yamlsrc.Node) string {
	var b strings.Builder
	writeYAML(&b, n, 0)
	return b.String()
}

// maxRender bounds the text writtenYAML produces for a huge node.
const maxRender = 4096

func writeYAML(b *strings.Builder, n *yamlsrc.Node, depth int) {
	if b.Len() > maxRender {
		return
	}
	switch {
	case n == nil || n.IsNull() && n.Value == "":
		b.WriteString("null")
	case n.Kind == yamlsrc.Scalar:
		if n.Quoted || n.Value == "" {
			b.WriteString("'" + strings.ReplaceAll(n.Value, "'", "''") + "'")
		} else {
			b.WriteString(n.Value)
		}
	case depth > 32:
		b.WriteString("…")
	case n.Kind == yamlsrc.Sequence:
		b.WriteString("[")
		for i, c := range n.Content {
			if i > 0 {
				b.WriteString(", ")
			}
			writeYAML(b, c, depth+1)
		}
		b.WriteString("]")
	case n.Kind == yamlsrc.Mapping:
		b.WriteString("{")
		for i := 0; i+1 < len(n.Content); i += 2 {
			if i > 0 {
				b.WriteString(", ")
			}
			writeYAML(b, n.Content[i], depth+1)
			b.WriteString(": ")
			writeYAML(b, n.Content[i+1], depth+1)
		}
		b.WriteString("}")
	}
}
