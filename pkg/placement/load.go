package placement

import (
	_ "embed"
	"fmt"
	"math"
	"strconv"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes of inventory files.
const (
	CodeInvalidFile      = "placement.invalid_file"
	CodeInvalidProvider  = "placement.invalid_provider"
	CodeDuplicate        = "placement.duplicate_provider"
	CodeUnknownParent    = "placement.unknown_parent"
	CodeParentCycle      = "placement.parent_cycle"
	CodeInvalidInventory = "placement.invalid_inventory"
	CodeUnknownTrait     = "placement.unknown_trait"
	CodeInvalidClass     = "placement.invalid_resource_class"
	CodeInvalidUsage     = "placement.invalid_usage"
	CodeUnknownField     = "placement.unknown_field"
)

//go:embed demo_providers.yaml
var demoProviders string

// DemoProviders returns the embedded demo inventory (a small cloud of two
// racks with compute hosts, a GPU host and shared storage) as YAML text.
func DemoProviders() []byte { return []byte(demoProviders) }

// LoadProviders reads a provider inventory: a YAML mapping with a
// `providers:` list in the shape of the corpus scenarios. Each provider has
// `name` (required), optional `uuid`, `parent` (a provider named anywhere in
// the file), `inventories` (resource class -> the six fields, or just a
// total; omitted fields take the REST API defaults: reserved 0, min_unit 1,
// max_unit 2147483647, step_size 1, allocation_ratio 1.0), `traits`
// (standard traits, or CUSTOM_ traits which are created), `aggregates`, and
// `usages` (class -> amount already used by consumers the model does not
// know). Names (name, uuid, parent, aggregates) are 1 to MaxNameLength
// bytes without control characters (placement.invalid_provider); traits and
// resource classes have their own grammar, at most 255 characters as well.
// Every problem is a diagnostic with file:line:col; the returned
// model holds every provider that was valid (a partial result on errors).
func LoadProviders(file string, data []byte) (*Model, diag.Diagnostics) {
	m := NewModel()
	root, diags := yamlsrc.Parse(file, data, yamlsrc.Limits{})
	if diags.HasErrors() {
		return m, diags
	}
	if root == nil {
		return m, diags.Errorf(diag.Range{File: file}, "", CodeInvalidFile, "empty inventory file: expected a mapping with a providers list")
	}
	if root.Kind != yamlsrc.Mapping {
		return m, diags.Errorf(root.Range, "", CodeInvalidFile, "expected a mapping with a providers list, found %s", root.Describe())
	}
	for _, pair := range root.Pairs() {
		if pair.Key.Value != "providers" {
			diags = diags.Warnf(pair.Key.Range, pair.Key.Value, CodeUnknownField, "unknown top-level field %q (expected providers)", pair.Key.Value)
		}
	}
	list := root.Get("providers")
	if list == nil {
		return m, diags.Errorf(root.Range, "", CodeInvalidFile, "missing providers list")
	}
	return m, diags.Extend(addProviders(m, list, "providers"))
}

// providerNode is one provider as read, before it is added in parent order.
type providerNode struct {
	spec       ProviderSpec
	node       *yamlsrc.Node
	parentNode *yamlsrc.Node
	path       string
}

// isProviderField accepts the corpus shape; usage_allocations (how a usage
// split between consumers) is informational and ignored.
func isProviderField(k string) bool {
	switch k {
	case "name", "uuid", "parent", "inventories", "traits", "aggregates", "usages", "usage_allocations":
		return true
	}
	return false
}

func isInventoryField(k string) bool {
	switch k {
	case "total", "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio":
		return true
	}
	return false
}

func addProviders(m *Model, list *yamlsrc.Node, path string) diag.Diagnostics {
	var diags diag.Diagnostics
	if list.IsNull() {
		return diags
	}
	if list.Kind != yamlsrc.Sequence {
		return diags.Errorf(list.Range, path, CodeInvalidFile, "providers must be a list, found %s", list.Describe())
	}
	var nodes []*providerNode
	byName := map[string]*providerNode{}
	for i, n := range list.Items() {
		pn, d := readProvider(m, n, fmt.Sprintf("%s[%d]", path, i))
		diags = diags.Extend(d)
		if pn == nil {
			continue
		}
		if prev, dup := byName[pn.spec.Name]; dup {
			diags = diags.Errorf(n.Get("name").Range, pn.path+".name", CodeDuplicate, "provider %q is already defined at %s", pn.spec.Name, prev.node.Range)
			continue
		}
		byName[pn.spec.Name] = pn
		nodes = append(nodes, pn)
	}
	// Add parents first, whatever the file order; what is left is either
	// under an unknown parent or in a cycle.
	added := map[string]bool{}
	for progress := true; progress; {
		progress = false
		for _, pn := range nodes {
			if added[pn.spec.Name] || (pn.spec.Parent != "" && !added[pn.spec.Parent]) {
				continue
			}
			added[pn.spec.Name] = true
			progress = true
			if err := m.AddProvider(pn.spec); err != nil {
				diags = diags.Errorf(pn.node.Range, pn.path, CodeInvalidProvider, "provider %q: %v", pn.spec.Name, err)
			}
		}
	}
	for _, pn := range nodes {
		if added[pn.spec.Name] {
			continue
		}
		if _, ok := byName[pn.spec.Parent]; !ok {
			diags = diags.Errorf(pn.parentNode.Range, pn.path+".parent", CodeUnknownParent, "provider %q has unknown parent %q", pn.spec.Name, pn.spec.Parent)
		} else {
			diags = diags.Errorf(pn.parentNode.Range, pn.path+".parent", CodeParentCycle, "provider %q is its own ancestor (parent %q)", pn.spec.Name, pn.spec.Parent)
		}
	}
	return diags
}

func readProvider(m *Model, n *yamlsrc.Node, path string) (*providerNode, diag.Diagnostics) {
	var diags diag.Diagnostics
	if n.Kind != yamlsrc.Mapping {
		return nil, diags.Errorf(n.Range, path, CodeInvalidProvider, "a provider must be a mapping, found %s", n.Describe())
	}
	for _, d := range n.DuplicateKeys() {
		diags = diags.Errorf(d.Key.Range, path+"."+d.Key.Value, CodeInvalidProvider, "field %q is repeated", d.Key.Value)
	}
	for _, pair := range n.Pairs() {
		if !isProviderField(pair.Key.Value) {
			diags = diags.Warnf(pair.Key.Range, path+"."+pair.Key.Value, CodeUnknownField, "unknown provider field %q", pair.Key.Value)
		}
	}
	pn := &providerNode{node: n, path: path, spec: ProviderSpec{Inventories: map[string]Inventory{}, Usages: map[string]int64{}}}
	name, ok := nameOf(n.Get("name"))
	if !ok {
		r := n.Range
		if v := n.Get("name"); v != nil {
			r = v.Range
		}
		return nil, diags.Errorf(r, path+".name", CodeInvalidProvider, "a provider needs a name: a string of 1 to %d characters without control characters", MaxNameLength)
	}
	pn.spec.Name = name
	if v := n.Get("uuid"); !v.IsNull() {
		if s, ok := nameOf(v); ok {
			pn.spec.UUID = s
		} else {
			diags = diags.Errorf(v.Range, path+".uuid", CodeInvalidProvider, "uuid must be a string, found %s", v.Describe())
		}
	}
	if v := n.Get("parent"); !v.IsNull() {
		pn.parentNode = v
		if s, ok := nameOf(v); ok {
			pn.spec.Parent = s
		} else {
			diags = diags.Errorf(v.Range, path+".parent", CodeInvalidProvider, "parent must be a provider name (1 to %d characters without control characters), found %s", MaxNameLength, v.Describe())
		}
	}
	diags = diags.Extend(pn.readInventories(m, n.Get("inventories")))
	diags = diags.Extend(pn.readTraits(m, n))
	diags = diags.Extend(pn.readUsages(m, n.Get("usages")))
	return pn, diags
}

// readInventories reads a provider's inventories (v may be nil).
func (pn *providerNode) readInventories(m *Model, v *yamlsrc.Node) diag.Diagnostics {
	var diags diag.Diagnostics
	if v.IsNull() {
		return nil
	}
	if v.Kind != yamlsrc.Mapping {
		diags = diags.Errorf(v.Range, pn.path+".inventories", CodeInvalidInventory, "inventories must be a mapping of resource class to inventory, found %s", v.Describe())
	}
	for _, pair := range v.Pairs() {
		rc := pair.Key.Value
		p := pn.path + ".inventories." + rc
		if !validClass(m, rc) {
			diags = diags.Errorf(pair.Key.Range, p, CodeInvalidClass, "unknown resource class %q: use a standard class or CUSTOM_[A-Z0-9_]+", rc)
			continue
		}
		inv, d := readInventory(pair.Value, p)
		diags = diags.Extend(d)
		if d.HasErrors() {
			continue
		}
		if err := validateInventory(pn.spec.Name, rc, inv, true); err != nil {
			diags = diags.Errorf(pair.Value.Range, p, CodeInvalidInventory, "%s", err.(*Error).Detail)
			continue
		}
		pn.spec.Inventories[rc] = inv
	}
	return diags
}

// readTraits reads a provider's traits and aggregates.
func (pn *providerNode) readTraits(m *Model, n *yamlsrc.Node) diag.Diagnostics {
	var diags diag.Diagnostics
	for i, t := range stringList(n.Get("traits"), pn.path+".traits", &diags) {
		if !m.TraitExists(t.value) && !IsValidCustomTrait(t.value) {
			diags = diags.Errorf(t.node.Range, fmt.Sprintf("%s.traits[%d]", pn.path, i), CodeUnknownTrait, "unknown trait %q: not a standard trait of os-traits and not CUSTOM_[A-Z0-9_]+ (at most 255 characters)", t.value)
			continue
		}
		pn.spec.Traits = append(pn.spec.Traits, t.value)
	}
	for _, a := range stringList(n.Get("aggregates"), pn.path+".aggregates", &diags) {
		pn.spec.Aggregates = append(pn.spec.Aggregates, a.value)
	}
	return diags
}

// readUsages reads a provider's usages (v may be nil).
func (pn *providerNode) readUsages(m *Model, v *yamlsrc.Node) diag.Diagnostics {
	var diags diag.Diagnostics
	if v.IsNull() {
		return nil
	}
	if v.Kind != yamlsrc.Mapping {
		diags = diags.Errorf(v.Range, pn.path+".usages", CodeInvalidUsage, "usages must be a mapping of resource class to amount, found %s", v.Describe())
	}
	for _, pair := range v.Pairs() {
		rc := pair.Key.Value
		p := pn.path + ".usages." + rc
		u, ok := pair.Value.Int()
		switch {
		case !validClass(m, rc):
			diags = diags.Errorf(pair.Key.Range, p, CodeInvalidClass, "unknown resource class %q", rc)
		case !ok || u < 0 || u > MaxInt:
			diags = diags.Errorf(pair.Value.Range, p, CodeInvalidUsage, "usage must be an integer from 0 to %d, found %s", MaxInt, found(pair.Value))
		default:
			pn.spec.Usages[rc] = u
		}
	}
	return diags
}

func validClass(m *Model, rc string) bool {
	return IsStandardResourceClass(rc) || IsValidCustomResourceClass(rc)
}

// nameOf reads a name: a non-empty string of at most MaxNameLength bytes
// (as the API's model) that passes yamlsrc.NameProblem (no control
// character: provider names and aggregates are printed in plans).
func nameOf(n *yamlsrc.Node) (string, bool) {
	if n == nil || n.Kind != yamlsrc.Scalar || n.IsNull() {
		return "", false
	}
	s := n.Value
	return s, s != "" && len(s) <= MaxNameLength && yamlsrc.NameProblem("", s) == ""
}

type located struct {
	value string
	node  *yamlsrc.Node
}

func stringList(n *yamlsrc.Node, path string, diags *diag.Diagnostics) []located {
	if n.IsNull() {
		return nil
	}
	if n.Kind != yamlsrc.Sequence {
		*diags = diags.Errorf(n.Range, path, CodeInvalidProvider, "expected a list of names, found %s", n.Describe())
		return nil
	}
	var out []located
	for i, it := range n.Items() {
		s, ok := nameOf(it)
		if !ok {
			*diags = diags.Errorf(it.Range, fmt.Sprintf("%s[%d]", path, i), CodeInvalidProvider, "expected a name of 1 to %d characters without control characters, found %s", MaxNameLength, it.Describe())
			continue
		}
		out = append(out, located{s, it})
	}
	return out
}

func readInventory(n *yamlsrc.Node, path string) (Inventory, diag.Diagnostics) {
	var diags diag.Diagnostics
	if total, ok := n.Int(); ok {
		inv := DefaultInventory(total)
		return inv, diags
	}
	if n.Kind != yamlsrc.Mapping {
		return Inventory{}, diags.Errorf(n.Range, path, CodeInvalidInventory, "an inventory is a total or a mapping of total, reserved, min_unit, max_unit, step_size, allocation_ratio; found %s", n.Describe())
	}
	for _, pair := range n.Pairs() {
		if !isInventoryField(pair.Key.Value) {
			diags = diags.Errorf(pair.Key.Range, path+"."+pair.Key.Value, CodeInvalidInventory, "unknown inventory field %q", pair.Key.Value)
		}
	}
	inv := DefaultInventory(0)
	intField := func(key string, dst *int64, min int64, required bool) {
		v := n.Get(key)
		if v == nil {
			if required {
				diags = diags.Errorf(n.Range, path+"."+key, CodeInvalidInventory, "inventory needs %s", key)
			}
			return
		}
		x, ok := v.Int()
		if !ok || x < min || x > MaxInt {
			diags = diags.Errorf(v.Range, path+"."+key, CodeInvalidInventory, "%s must be an integer from %d to %d, found %s", key, min, MaxInt, found(v))
			return
		}
		*dst = x
	}
	intField("total", &inv.Total, 1, true)
	intField("reserved", &inv.Reserved, 0, false)
	intField("min_unit", &inv.MinUnit, 1, false)
	intField("max_unit", &inv.MaxUnit, 1, false)
	intField("step_size", &inv.StepSize, 1, false)
	if v := n.Get("allocation_ratio"); v != nil {
		f, ok := v.Float()
		if !ok || !(f > 0) || f > 3.40282e+38 || math.IsInf(f, 0) {
			diags = diags.Errorf(v.Range, path+".allocation_ratio", CodeInvalidInventory, "allocation_ratio must be a positive number, found %s", v.Describe())
		} else {
			inv.AllocationRatio = f
		}
	}
	return inv, diags
}

// found names what a user wrote where a number was expected: the text of a
// scalar (so an out-of-range -3 reads as -3), or the kind of anything else.
func found(v *yamlsrc.Node) string {
	if s, ok := v.String(); ok {
		return strconv.Quote(s)
	}
	return v.Describe()
}
