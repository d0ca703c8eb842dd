package placement

import (
	"fmt"
	"maps"
	"slices"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
	pl "github.com/xosplan/xosplan/pkg/placement"
)

// object is a Placement object as the spec declares it.
type object struct {
	kind string
	// name is the object's name: its name property, or its import
	// filter's name.
	name string
	// uuid, parent: a provider's given UUID and parent provider name.
	uuid, parent string
	managed      bool
	// inventories, traits, aggregates are reconciled only when given.
	inventories                     map[string]pl.Inventory
	traits, aggregates              []string
	hasInv, hasTraits, hasAggregate bool
}

// specOf returns the spec the request acts on: the resolved desired one,
// or on a delete the recorded one.
func specOf(req driver.Request) map[string]graph.Value {
	switch {
	case req.Resolved != nil:
		return req.Resolved
	case req.Resource != nil:
		return req.Resource.Spec
	case req.Prior != nil && req.Prior.Feedback.Resolved != nil:
		return req.Prior.Feedback.Resolved
	case req.Prior != nil:
		return req.Prior.Spec
	}
	return nil
}

// parseObject reads the object of a request.
func parseObject(req driver.Request) (object, error) {
	drv, err := driver.ResourceDriver(req)
	if err != nil {
		return object{}, err
	}
	o := object{managed: true}
	o.kind, _ = drv.Options[graph.OptionPlacementKind].(string)
	switch o.kind {
	case graph.PlacementKindTrait, graph.PlacementKindResourceClass, graph.PlacementKindProvider:
	default:
		return o, driver.NeedsChange(fmt.Errorf("%s: not a placement object (driver option %s is %q)", req.Address, graph.OptionPlacementKind, o.kind))
	}
	switch {
	case req.Resource != nil:
		o.managed = req.Resource.Management != graph.Unmanaged
	case req.Prior != nil:
		o.managed = req.Prior.Management != graph.Unmanaged
	}
	props, _ := specOf(req)["properties"].(map[string]graph.Value)
	o.name, _ = props["name"].(string)
	if o.name == "" {
		filter, _ := props["import_filter"].(map[string]graph.Value)
		o.name, _ = filter["name"].(string)
	}
	if o.name == "" {
		return o, driver.NeedsChange(fmt.Errorf("%s: a placement object needs a name or an import filter name", req.Address))
	}
	if o.kind != graph.PlacementKindProvider {
		if !pl.IsValidCustomTrait(o.name) {
			return o, driver.NeedsChange(fmt.Errorf("%s: %q is no custom name Placement accepts (^CUSTOM_[A-Z0-9_]+$, at most %d characters)", req.Address, o.name, pl.MaxNameLength))
		}
		return o, nil
	}
	o.uuid, _ = props["uuid"].(string)
	o.parent, _ = props["parent"].(string)
	if v, ok := props["inventories"].(map[string]graph.Value); ok {
		o.hasInv = true
		o.inventories = map[string]pl.Inventory{}
		for _, rc := range slices.Sorted(maps.Keys(v)) {
			m, _ := v[rc].(map[string]graph.Value)
			inv := pl.DefaultInventory(intOf(m["total"], 0))
			inv.Reserved = intOf(m["reserved"], 0)
			inv.MinUnit = intOf(m["min_unit"], 1)
			inv.MaxUnit = intOf(m["max_unit"], pl.MaxInt)
			inv.StepSize = intOf(m["step_size"], 1)
			inv.AllocationRatio = floatOf(m["allocation_ratio"], 1)
			o.inventories[rc] = inv
		}
	}
	o.traits, o.hasTraits = stringsOf(props["traits"])
	o.aggregates, o.hasAggregate = stringsOf(props["aggregates"])
	return o, nil
}

func intOf(v graph.Value, def int64) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case float64:
		return int64(n)
	}
	return def
}

func floatOf(v graph.Value, def float64) float64 {
	switch n := v.(type) {
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return def
}

// stringsOf returns a list property's strings, sorted without
// duplicates, and whether the property was given.
func stringsOf(v graph.Value) ([]string, bool) {
	l, ok := v.([]graph.Value)
	if !ok {
		return nil, false
	}
	out := make([]string, 0, len(l))
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), true
}

// status turns what Placement reports of a provider into attributes.
func status(rec *pl.ProviderRecord) map[string]graph.Value {
	invs := map[string]graph.Value{}
	for rc, inv := range rec.Inventories {
		invs[rc] = map[string]graph.Value{
			"total": inv.Total, "reserved": inv.Reserved, "min_unit": inv.MinUnit,
			"max_unit": inv.MaxUnit, "step_size": inv.StepSize, "allocation_ratio": inv.AllocationRatio,
		}
	}
	list := func(l []string) []graph.Value {
		out := make([]graph.Value, 0, len(l))
		for _, s := range l {
			out = append(out, s)
		}
		return out
	}
	return map[string]graph.Value{
		"uuid": rec.UUID, "name": rec.Name, "generation": rec.Generation,
		"parent_provider_uuid": rec.Parent, "root_provider_uuid": rec.Root,
		"inventories": invs, "traits": list(rec.Traits), "aggregates": list(rec.Aggregates),
	}
}

// drift lists how the provider rec differs from what o declares (the
// fields o gives), one phrase each; parentUUID is the UUID o's parent
// has now ("" for none).
func drift(o object, rec *pl.ProviderRecord, parentUUID string) []string {
	var out []string
	if rec.Name != o.name {
		out = append(out, fmt.Sprintf("name is %q", rec.Name))
	}
	if o.parent != "" && rec.Parent != parentUUID {
		out = append(out, fmt.Sprintf("parent is %q, not %s", rec.Parent, o.parent))
	}
	if o.hasTraits {
		missing, extra := setDiff(o.traits, rec.Traits)
		if len(missing) > 0 {
			out = append(out, fmt.Sprintf("traits %v missing", missing))
		}
		if len(extra) > 0 {
			out = append(out, fmt.Sprintf("traits %v not declared", extra))
		}
	}
	if o.hasAggregate {
		missing, extra := setDiff(pl.AggregateUUIDs(o.aggregates), rec.Aggregates)
		if len(missing)+len(extra) > 0 {
			out = append(out, fmt.Sprintf("aggregates differ (%d missing, %d not declared)", len(missing), len(extra)))
		}
	}
	if o.hasInv {
		for _, rc := range slices.Sorted(maps.Keys(o.inventories)) {
			got, ok := rec.Inventories[rc]
			switch {
			case !ok:
				out = append(out, fmt.Sprintf("inventory %s missing", rc))
			case got != o.inventories[rc]:
				out = append(out, fmt.Sprintf("inventory %s is %+v", rc, got))
			}
		}
		for _, rc := range slices.Sorted(maps.Keys(rec.Inventories)) {
			if _, ok := o.inventories[rc]; !ok {
				out = append(out, fmt.Sprintf("inventory %s not declared", rc))
			}
		}
	}
	return out
}

// setDiff returns the elements of want not in have, and of have not in
// want, both sorted.
func setDiff(want, have []string) (missing, extra []string) {
	for _, w := range want {
		if !slices.Contains(have, w) {
			missing = append(missing, w)
		}
	}
	for _, h := range have {
		if !slices.Contains(want, h) {
			extra = append(extra, h)
		}
	}
	slices.Sort(missing)
	slices.Sort(extra)
	return missing, extra
}
