// Package typecmp compares TOSCA type definition files: type names,
// derivations, the effective (inherited and refined) property definitions
// of every type, and the other definitions each type declares (attributes,
// capabilities, requirements, interfaces, operations, valid source and
// target types, members, targets, artifact file kinds). Descriptions are
// left out of every comparison.
//
// The tests that check the embedded type libraries (pkg/tosca/normative,
// pkg/tosca/sol001) against reference copies use it, and the test of the
// XOS types (custom_definitions) reads repeated keys with it; nothing else
// may (internal/layering). It lives beside the type libraries it checks
// rather than as a _test.go file in each: three packages' tests share it.
package typecmp

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// Sections lists the type sections of a TOSCA service template.
func Sections() []string {
	return []string{
		"data_types", "artifact_types", "capability_types", "interface_types",
		"relationship_types", "node_types", "group_types", "policy_types",
	}
}

// Type is what the comparison looks at in one type definition.
type Type struct {
	DerivedFrom string
	// Props holds the property definitions as written, each field
	// normalised to text.
	Props map[string]Prop
	// Members holds the other declarations the type makes itself (not
	// inherited), keyed "attribute <name>", "capability <name>",
	// "requirement <name>", "interface <name>", "artifact <name>",
	// "operation <name>" (operations and notifications) or
	// "field <keyname>", each as canonical JSON without descriptions, or
	// only the type name when the set was read with TypesOnly.
	Members map[string]string
}

// Prop is one property definition, each field normalised to text; a field
// that is not written is absent from the map.
type Prop map[string]string

// Set is all types of a profile: section → type name → definition.
type Set map[string]map[string]Type

// Mode says how much of each member a Set records.
type Mode int

const (
	// Definitions records each member's whole definition.
	Definitions Mode = iota
	// TypesOnly records only the type each attribute, capability and
	// requirement names, and no interfaces, operations or fields.
	TypesOnly
)

// NewSet returns an empty set with every section present.
func NewSet() Set {
	set := Set{}
	for _, sec := range Sections() {
		set[sec] = map[string]Type{}
	}
	return set
}

// Add reads the type sections of one TOSCA file into set. A type defined
// again replaces the earlier definition. It fails when the file does not
// parse.
func (set Set) Add(name string, data []byte, mode Mode) error {
	root, diags := yamlsrc.Parse(name, data, yamlsrc.Limits{})
	if diags.HasErrors() {
		return fmt.Errorf("%s: %v", name, diags)
	}
	for _, sec := range Sections() {
		for _, p := range root.Get(sec).Pairs() {
			set[sec][p.Key.Value] = readType(p.Value, sec, mode)
		}
	}
	return nil
}

// fieldKeys are the type-level keynames compared as "field <keyname>".
func fieldKeys() []string {
	return []string{"valid_source_types", "valid_target_types", "members", "targets", "mime_type", "file_ext", "constraints", "key_schema", "entry_schema"}
}

func readType(n *yamlsrc.Node, sec string, mode Mode) Type {
	td := Type{Props: map[string]Prop{}, Members: map[string]string{}}
	td.DerivedFrom, _ = n.Get("derived_from").String()
	for _, pp := range n.Get("properties").Pairs() {
		td.Props[pp.Key.Value] = normProp(pp.Value)
	}
	member := func(key string, v *yamlsrc.Node, short string) {
		if mode == TypesOnly {
			td.Members[key] = short
			return
		}
		td.Members[key] = Canonical(v)
	}
	for _, a := range n.Get("attributes").Pairs() {
		member("attribute "+a.Key.Value, a.Value, normProp(a.Value)["type"])
	}
	for _, c := range n.Get("capabilities").Pairs() {
		member("capability "+c.Key.Value, c.Value, normProp(c.Value)["type"])
	}
	for _, item := range n.Get("requirements").Items() {
		for _, r := range item.Pairs() {
			var parts []string
			for _, k := range []string{"capability", "node", "relationship"} {
				v, _ := r.Value.Get(k).String()
				parts = append(parts, v)
			}
			member("requirement "+r.Key.Value, r.Value, strings.Join(parts, "/"))
		}
	}
	if mode == TypesOnly {
		return td
	}
	for _, i := range n.Get("interfaces").Pairs() {
		member("interface "+i.Key.Value, i.Value, "")
	}
	for _, a := range n.Get("artifacts").Pairs() {
		member("artifact "+a.Key.Value, a.Value, "")
	}
	for _, p := range n.Pairs() {
		switch k := p.Key.Value; {
		case k == "operations" || k == "notifications":
			for _, op := range p.Value.Pairs() {
				member("operation "+op.Key.Value, op.Value, "")
			}
		case slices.Contains(fieldKeys(), k):
			member("field "+k, p.Value, "")
		}
	}
	// TOSCA 1.x interface types may list operations directly under the
	// type; every keyname that is not a grammar keyname is one.
	if sec == "interface_types" {
		for _, p := range n.Pairs() {
			switch p.Key.Value {
			case "derived_from", "version", "metadata", "description", "inputs", "operations", "notifications":
			default:
				member("operation "+p.Key.Value, p.Value, "")
			}
		}
	}
	return td
}

// normProp normalises a property definition, accepting the short form
// "name: type".
func normProp(n *yamlsrc.Node) Prop {
	pd := Prop{}
	if n.Kind == yamlsrc.Scalar {
		pd["type"] = n.Value
		return pd
	}
	if s, ok := n.Get("type").String(); ok {
		pd["type"] = s
	}
	if r := n.Get("required"); r != nil {
		if b, ok := r.Bool(); ok {
			pd["required"] = fmt.Sprint(b)
		} else {
			pd["required"] = r.Value
		}
	}
	if d, ok := n.GetPair("default"); ok {
		pd["default"] = Canonical(d.Value)
	}
	for _, f := range []string{"entry_schema", "key_schema"} {
		if es := n.Get(f); es != nil {
			if es.Kind == yamlsrc.Scalar {
				pd[f] = es.Value
			} else if s, ok := es.Get("type").String(); ok {
				pd[f] = s
				if c := es.Get("constraints"); c != nil {
					pd[f] += " " + Canonical(c)
				}
			}
		}
	}
	if c := n.Get("constraints"); c != nil {
		pd["constraints"] = Canonical(c)
	}
	if s, ok := n.Get("status").String(); ok {
		pd["status"] = s
	}
	return pd
}

// Canonical renders a YAML value as JSON with sorted keys and without
// `description: <text>` entries, so that the same definition written
// differently ("[ 4, 6 ]" and "[4, 6]", another description) compares
// equal.
func Canonical(n *yamlsrc.Node) string {
	b, err := json.Marshal(dropDescriptions(n.Interface()))
	if err != nil {
		return fmt.Sprintf("%v", n.Interface())
	}
	return string(b)
}

func dropDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if _, isText := e.(string); k == "description" && isText {
				continue
			}
			out[k] = dropDescriptions(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = dropDescriptions(e)
		}
		return out
	}
	return v
}

// Mismatch is one difference. Key is "section|type|property|field":
// property is "" for the type itself or names a member ("attribute
// state"); field is "derived_from", "missing" (the type or property exists
// in theirs only), "extra" (ours only), "member" or a property field.
type Mismatch struct{ Key, Text string }

// Compare lists the differences between ours and theirs in a stable order.
// A property difference inherited unchanged from the parent is reported at
// the parent only.
func Compare(ours, theirs Set) []Mismatch {
	var out []Mismatch
	for _, sec := range Sections() {
		for _, tn := range union(ours[sec], theirs[sec]) {
			o, inOurs := ours[sec][tn]
			r, inTheirs := theirs[sec][tn]
			base := sec + "|" + tn + "|"
			switch {
			case !inOurs:
				out = append(out, Mismatch{base + "|missing", "type defined by the reference only"})
				continue
			case !inTheirs:
				out = append(out, Mismatch{base + "|extra", "type defined by us only"})
				continue
			}
			if o.DerivedFrom != r.DerivedFrom {
				out = append(out, Mismatch{base + "|derived_from", fmt.Sprintf("ours %q, reference %q", o.DerivedFrom, r.DerivedFrom)})
			}
			for _, m := range union(o.Members, r.Members) {
				a, inA := o.Members[m]
				b, inB := r.Members[m]
				if inA != inB || a != b {
					out = append(out, Mismatch{base + m + "|member", fmt.Sprintf("ours %s (%v), reference %s (%v)", a, inA, b, inB)})
				}
			}
			out = append(out, compareProps(ours, theirs, sec, tn, base)...)
		}
	}
	return out
}

func compareProps(ours, theirs Set, sec, tn, base string) []Mismatch {
	o, r := ours[sec][tn], theirs[sec][tn]
	op, rp := Effective(ours, sec, tn), Effective(theirs, sec, tn)
	var pop, prp map[string]Prop
	if o.DerivedFrom != "" && o.DerivedFrom == r.DerivedFrom {
		pop, prp = Effective(ours, sec, o.DerivedFrom), Effective(theirs, sec, r.DerivedFrom)
	}
	var out []Mismatch
	for _, pn := range union(op, rp) {
		a, inA := op[pn]
		b, inB := rp[pn]
		pa, inPA := pop[pn]
		pb, inPB := prp[pn]
		if inA == inPA && inB == inPB && equalProp(a, pa) && equalProp(b, pb) {
			continue
		}
		switch {
		case !inA:
			out = append(out, Mismatch{base + pn + "|missing", "property defined by the reference only"})
			continue
		case !inB:
			out = append(out, Mismatch{base + pn + "|extra", "property defined by us only"})
			continue
		}
		for _, f := range []string{"type", "required", "default", "entry_schema", "key_schema", "constraints", "status"} {
			if a[f] != b[f] {
				out = append(out, Mismatch{base + pn + "|" + f, fmt.Sprintf("ours %q, reference %q", a[f], b[f])})
			}
		}
	}
	return out
}

func equalProp(a, b Prop) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// Effective returns the property definitions of a type with those of its
// ancestors, a refinement overriding only the fields it writes, and
// "required" defaulting to true as the specification says.
func Effective(set Set, sec, name string) map[string]Prop {
	var chain []Type
	seen := map[string]bool{}
	for n := name; n != "" && !seen[n]; {
		seen[n] = true
		td, ok := set[sec][n]
		if !ok {
			break
		}
		chain = append(chain, td)
		n = td.DerivedFrom
	}
	out := map[string]Prop{}
	for i := len(chain) - 1; i >= 0; i-- {
		for pn, pd := range chain[i].Props {
			merged := Prop{}
			for k, v := range out[pn] {
				merged[k] = v
			}
			for k, v := range pd {
				merged[k] = v
			}
			out[pn] = merged
		}
	}
	for _, pd := range out {
		if _, ok := pd["required"]; !ok {
			pd["required"] = "true"
		}
	}
	return out
}

// union returns the keys of two maps, sorted.
func union[V any](a, b map[string]V) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	out := make([]string, 0, len(keys))
	for k := range keys {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// RepeatedKeys lists every repeated mapping key anywhere under n (the later
// occurrences), in document order: embedded type files must load in strict
// TOSCA processors, which reject them.
func RepeatedKeys(n *yamlsrc.Node) []yamlsrc.Pair {
	if n == nil {
		return nil
	}
	var out []yamlsrc.Pair
	if n.Kind == yamlsrc.Mapping {
		out = append(out, n.DuplicateKeys()...)
	}
	for _, c := range n.Content {
		out = append(out, RepeatedKeys(c)...)
	}
	return out
}
