package values

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// Compare orders two canonical values of a primitive type: numbers
// numerically (int64 and float64 mixed), scalar units by magnitude,
// versions by components, timestamps by instant, strings lexically by
// bytes. It returns -1, 0 or +1, or an error when the type has no order
// (boolean, null, range) or a value is not of the type.
func Compare(typ string, a, b graph.Value) (int, error) {
	t := Canonical(typ)
	if !isOrdered(t) {
		return 0, fmt.Errorf("values of type %s cannot be ordered", typ)
	}
	ka, err := orderKey(t, a)
	if err != nil {
		return 0, err
	}
	kb, err := orderKey(t, b)
	if err != nil {
		return 0, err
	}
	return ka.compare(kb), nil
}

// key is a value reduced to what ordering it needs, computed once per
// constraint argument and once per checked value.
type key struct {
	num   float64 // integer, float, scalar units (magnitude)
	i     int64   // integer values, exact; timestamps: Unix seconds
	isInt bool
	ns    int      // timestamps: nanoseconds within the second
	str   string   // string
	ver   *version // version
	kind  byte     // 'n' number, 's' string, 't' timestamp, 'v' version
}

func (k key) compare(o key) int {
	switch {
	case k.kind == 'v':
		return compareVersions(*k.ver, *o.ver)
	case k.kind == 's':
		return strings.Compare(k.str, o.str)
	case k.kind == 't':
		return cmp.Or(cmp.Compare(k.i, o.i), cmp.Compare(k.ns, o.ns))
	case k.isInt && o.isInt:
		return cmp.Compare(k.i, o.i)
	}
	return cmp.Compare(k.num, o.num)
}

// orderKey reduces a canonical value of the canonical type t to its key.
func orderKey(t string, v graph.Value) (key, error) {
	switch t {
	case Integer, Float:
		switch x := v.(type) {
		case int64:
			return key{kind: 'n', num: float64(x), i: x, isInt: true}, nil
		case float64:
			if math.IsNaN(x) {
				return key{}, fmt.Errorf("NaN cannot be ordered")
			}
			return key{kind: 'n', num: x}, nil
		case int:
			return key{kind: 'n', num: float64(x), i: int64(x), isInt: true}, nil
		}
	case String:
		if s, ok := v.(string); ok {
			return key{kind: 's', str: s}, nil
		}
	case Timestamp:
		if s, ok := v.(string); ok {
			sec, ns, err := timestampInstant(s)
			if err != nil {
				return key{}, err
			}
			return key{kind: 't', i: sec, ns: ns}, nil
		}
	case Version:
		if s, ok := v.(string); ok {
			ver, err := parseVersion(s)
			if err != nil {
				return key{}, err
			}
			return key{kind: 'v', ver: &ver}, nil
		}
	case ScalarSize, ScalarTime, ScalarFrequency, ScalarBitrate:
		if s, ok := v.(string); ok {
			sv, err := scalarKinds[t].parse(s)
			if err != nil {
				return key{}, err
			}
			return key{kind: 'n', num: sv.magnitude}, nil
		}
	}
	return key{}, fmt.Errorf("%s is not %s", graph.Render(v), article(t))
}

// dynamicCompare orders two plain values whose type is unknown, by what
// they hold: numbers numerically; strings that are scalar units of one
// kind by magnitude, timestamps by instant, versions by components, other
// strings lexically. Other pairs, such as a size and a plain word, are not
// comparable.
func dynamicCompare(a, b graph.Value) (int, error) {
	switch x := a.(type) {
	case int64, float64:
		ka, errA := orderKey(Float, a)
		kb, errB := orderKey(Float, b)
		if errA == nil && errB == nil {
			return ka.compare(kb), nil
		}
	case string:
		y, ok := b.(string)
		if !ok {
			break
		}
		tx, ty := specialType(x), specialType(y)
		switch {
		case tx == "" && ty == "":
			return strings.Compare(x, y), nil
		case tx == ty:
			return Compare(tx, x, y)
		}
	}
	return 0, fmt.Errorf("%s and %s cannot be compared", shown(a), shown(b))
}

// dynamicEqual is equality for plain values whose type is unknown:
// scalar units, timestamps and versions by meaning, the rest structurally.
func dynamicEqual(a, b graph.Value) bool {
	x, okA := a.(string)
	y, okB := b.(string)
	if okA && okB {
		if t := specialType(x); t != "" && t == specialType(y) {
			c, err := Compare(t, x, y)
			return err == nil && c == 0
		}
	}
	return graph.Equal(a, b)
}

// specialType names the special type a string is written in — a
// scalar-unit kind, timestamp, or a version with at least major.minor — or
// "" for a plain string.
func specialType(s string) string {
	for _, k := range []*scalarKind{sizeKind, timeKind, frequencyKind, bitrateKind} {
		if _, err := k.parse(s); err == nil {
			return k.typ
		}
	}
	if _, _, err := timestampInstant(s); err == nil {
		return Timestamp
	}
	if _, err := parseVersion(s); err == nil && strings.Contains(s, ".") {
		return Version
	}
	return ""
}
