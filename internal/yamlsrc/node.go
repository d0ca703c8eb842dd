package yamlsrc

import (
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Kind is the kind of a Node.
type Kind int

const (
	// Scalar is a string, number, boolean, null or timestamp.
	Scalar Kind = iota + 1
	// Mapping holds key/value pairs in Content (k0, v0, k1, v1, …).
	Mapping
	// Sequence holds items in Content.
	Sequence
)

// String names the kind as a user reads it in a diagnostic.
func (k Kind) String() string {
	switch k {
	case Scalar:
		return "scalar"
	case Mapping:
		return "map"
	case Sequence:
		return "list"
	}
	return "nothing"
}

// Standard resolved tags.
const (
	TagStr       = "!!str"
	TagInt       = "!!int"
	TagFloat     = "!!float"
	TagBool      = "!!bool"
	TagNull      = "!!null"
	TagTimestamp = "!!timestamp"
	TagMap       = "!!map"
	TagSeq       = "!!seq"
	TagBinary    = "!!binary"
)

// Node is one YAML node with its source range. Nodes reached through an
// alias are shared with the anchor: treat the tree as read-only.
type Node struct {
	Kind Kind
	// Tag is the resolved short tag ("!!str", "!!int", …, or a custom tag).
	Tag string
	// Value is the scalar's text as written (after unquoting).
	Value string
	// Quoted is true for a scalar written in quotes or block style: it is
	// a string whatever it looks like.
	Quoted bool
	// Tagged is true for a node whose tag is written (!!timestamp
	// 2001-12-14, !!str 5) rather than resolved from how it looks.
	Tagged bool
	// Anchor is the name of the anchor (&name) written on the node, "" for
	// none: TOSCA 2.0's dsl_definitions exist to hold anchors.
	Anchor string
	// Content holds the pairs of a mapping (key, value, key, value, …)
	// or the items of a sequence.
	Content []*Node
	// Range is where the node is written.
	Range diag.Range
}

// Pair is one key/value entry of a mapping.
type Pair struct {
	Key, Value *Node
}

// IsNull reports whether the node is absent or an explicit null.
func (n *Node) IsNull() bool {
	return n == nil || (n.Kind == Scalar && n.Tag == TagNull)
}

// Describe names what the node holds, for messages such as
// "expected a map, found a list".
func (n *Node) Describe() string {
	switch {
	case n == nil:
		return "nothing"
	case n.Kind != Scalar:
		return "a " + n.Kind.String()
	}
	switch n.Tag {
	case TagNull:
		return "null"
	case TagInt:
		return "an integer"
	case TagFloat:
		return "a float"
	case TagBool:
		return "a boolean"
	case TagTimestamp:
		return "a timestamp"
	}
	return "a string"
}

// Pairs returns the entries of a mapping in source order (nil for other kinds).
func (n *Node) Pairs() []Pair {
	if n == nil || n.Kind != Mapping {
		return nil
	}
	out := make([]Pair, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		out = append(out, Pair{n.Content[i], n.Content[i+1]})
	}
	return out
}

// Items returns the items of a sequence (nil for other kinds).
func (n *Node) Items() []*Node {
	if n == nil || n.Kind != Sequence {
		return nil
	}
	return n.Content
}

// Get returns the value of the last entry whose key is the scalar key, or
// nil. The last one wins, as in most YAML loaders.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != Mapping {
		return nil
	}
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		k := n.Content[i]
		if k.Kind == Scalar && k.Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// GetPair is Get returning the key node as well, for diagnostics that
// point at the key.
func (n *Node) GetPair(key string) (Pair, bool) {
	if n == nil || n.Kind != Mapping {
		return Pair{}, false
	}
	for i := len(n.Content) - 2; i >= 0; i -= 2 {
		k := n.Content[i]
		if k.Kind == Scalar && k.Value == key {
			return Pair{k, n.Content[i+1]}, true
		}
	}
	return Pair{}, false
}

// String returns the scalar text and whether the node is a scalar that is
// not null.
func (n *Node) String() (string, bool) {
	if n == nil || n.Kind != Scalar || n.Tag == TagNull {
		return "", false
	}
	return n.Value, true
}

// IsString reports whether the node is a scalar that YAML resolves to a
// string (quoted, or plain text that is not a number, boolean, null or
// timestamp).
func (n *Node) IsString() bool {
	return n != nil && n.Kind == Scalar && (n.Quoted || n.Tag == TagStr)
}

// Int returns the value of an integer scalar.
func (n *Node) Int() (int64, bool) {
	if n == nil || n.Kind != Scalar || n.Quoted || n.Tag != TagInt {
		return 0, false
	}
	return parseInt(n.Value)
}

// Float returns the value of a float or integer scalar.
func (n *Node) Float() (float64, bool) {
	if n == nil || n.Kind != Scalar || n.Quoted {
		return 0, false
	}
	switch n.Tag {
	case TagInt:
		i, ok := parseInt(n.Value)
		return float64(i), ok
	case TagFloat:
		return parseFloat(n.Value)
	}
	return 0, false
}

// Bool returns the value of a boolean scalar (true/false in any case).
func (n *Node) Bool() (bool, bool) {
	if n == nil || n.Kind != Scalar || n.Quoted || n.Tag != TagBool {
		return false, false
	}
	return strings.EqualFold(n.Value, "true"), true
}

// Interface converts the node to plain Go values: map[string]any (keys
// rendered as text), []any, string, int64, float64, bool or nil. Timestamps
// and other tagged scalars become their text.
func (n *Node) Interface() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case Mapping:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			m[n.Content[i].Value] = n.Content[i+1].Interface()
		}
		return m
	case Sequence:
		s := make([]any, len(n.Content))
		for i, c := range n.Content {
			s[i] = c.Interface()
		}
		return s
	}
	if n.Quoted {
		return n.Value
	}
	switch n.Tag {
	case TagNull:
		return nil
	case TagBool:
		b, _ := n.Bool()
		return b
	case TagInt:
		if i, ok := parseInt(n.Value); ok {
			return i
		}
	case TagFloat:
		if f, ok := parseFloat(n.Value); ok {
			return f
		}
	}
	return n.Value
}

// DuplicateKeys returns the later entries of a mapping whose scalar key
// repeats an earlier one, in source order.
func (n *Node) DuplicateKeys() []Pair {
	if n == nil || n.Kind != Mapping {
		return nil
	}
	seen := make(map[string]bool, len(n.Content)/2)
	var dups []Pair
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != Scalar {
			continue
		}
		if seen[k.Value] {
			dups = append(dups, Pair{k, n.Content[i+1]})
		}
		seen[k.Value] = true
	}
	return dups
}

func parseInt(s string) (int64, bool) {
	s = strings.ReplaceAll(s, "_", "")
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	var v uint64
	var err error
	switch {
	case strings.HasPrefix(s, "0x"), strings.HasPrefix(s, "0X"):
		v, err = strconv.ParseUint(s[2:], 16, 64)
	case strings.HasPrefix(s, "0o"), strings.HasPrefix(s, "0O"):
		v, err = strconv.ParseUint(s[2:], 8, 64)
	case strings.HasPrefix(s, "0b"), strings.HasPrefix(s, "0B"):
		v, err = strconv.ParseUint(s[2:], 2, 64)
	default:
		v, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil || v > 1<<63 || (!neg && v == 1<<63) {
		return 0, false
	}
	if neg {
		return -int64(v), true
	}
	return int64(v), true
}

func parseFloat(s string) (float64, bool) {
	switch strings.ToLower(s) {
	case ".inf", "+.inf":
		return inf(1), true
	case "-.inf":
		return inf(-1), true
	case ".nan":
		return nan(), true
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(s, "_", ""), 64)
	return f, err == nil
}
