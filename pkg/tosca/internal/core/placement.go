package core

import (
	"errors"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Placement objects (xosplan/placement.yaml in 1.3, the profile
// xosplan.placement:1.0 in 2.0): a node template whose type derives from
// one of the placement node types is run by the placement driver. Both
// generations call PlacementResource on the resource they rendered, which
// sets the driver (with the object's kind as a driver option and the
// health check every placement object has: reading it back), takes the
// management policy, and reports at validate time the names Placement
// would refuse with a 400.

// Placement node types, in both generations.
const (
	placementTraitType    = "xosplan.nodes.placement.CustomTrait"
	placementClassType    = "xosplan.nodes.placement.CustomResourceClass"
	placementProviderType = "xosplan.nodes.placement.ResourceProvider"
)

// placementNameRE is Placement's custom trait and resource class schema
// (^CUSTOM_[A-Z0-9_]+$, at most 255 characters); placementTraitRE is
// that of any trait.
var (
	placementNameRE  = regexp.MustCompile(`^CUSTOM_[A-Z0-9_]+$`)
	placementTraitRE = regexp.MustCompile(`^[A-Z0-9_]+$`)
)

// placementMaxName is the longest trait or resource class name Placement
// accepts.
const placementMaxName = 255

// placementKind returns the graph.PlacementKind* of a type chain, or "".
func placementKind(chain []string) string {
	for _, t := range chain {
		switch t {
		case placementTraitType:
			return graph.PlacementKindTrait
		case placementClassType:
			return graph.PlacementKindResourceClass
		case placementProviderType:
			return graph.PlacementKindProvider
		}
	}
	return ""
}

// PlacementResource makes r, rendered from a node template at path, a
// placement object when its type derives from a placement node type, and
// reports the names Placement would refuse. Other resources are left as
// they are.
func (c *Session) PlacementResource(r *graph.Resource, path string) {
	kind := placementKind(r.TypeChain)
	if kind == "" {
		return
	}
	drv := graph.Driver{Name: graph.DriverPlacement,
		Operations: map[string]graph.Operation{graph.OpHealthCheck: {}},
		Options:    map[string]graph.Value{graph.OptionPlacementKind: kind}}
	if iv, ok := r.Driver.Options[graph.OptionHealthInterval]; ok {
		drv.Options[graph.OptionHealthInterval] = iv
	}
	r.Driver = drv
	props, _ := r.Spec["properties"].(map[string]graph.Value)
	if s, _ := props["management_policy"].(string); s == string(graph.Unmanaged) {
		r.Management = graph.Unmanaged
	}
	filter, _ := props["import_filter"].(map[string]graph.Value)
	name, hasName := props["name"].(string)
	filterName, _ := filter["name"].(string)
	switch {
	case !hasName && filterName == "" && c.errorUnder(path+".properties.name"):
		// The template gives a name that was refused (reported there):
		// its absence here follows from that.
		return
	case r.Management == graph.Unmanaged && filterName == "" && !hasName:
		c.Errorf(r.Range, path+".properties", CodePlacement,
			"unmanaged placement object %q needs import_filter.name (or name) to find it by", r.Address)
		return
	case r.Management == graph.Managed && !hasName && filterName == "":
		c.Errorf(r.Range, path+".properties", CodePlacement,
			"placement object %q needs a name", r.Address)
		return
	}
	if !hasName {
		name = filterName
	}
	switch {
	case kind == graph.PlacementKindProvider:
		c.checkProvider(r.Address, props, r.Range, path)
	case !hasName:
		// A name given is checked by the type's constraints; one taken
		// from the import filter is checked here.
		what := "custom trait"
		if kind == graph.PlacementKindResourceClass {
			what = "custom resource class"
		}
		if err := checkCustomName(name); err != nil {
			c.Errorf(r.Range, path+".properties.import_filter.name", CodePlacement, "%s %q: %v", what, name, err)
		}
	}
}

// checkCustomName says why name is not a custom trait or resource class
// name Placement accepts, or nil.
func checkCustomName(name string) error {
	switch {
	case len(name) > placementMaxName:
		return fmt.Errorf("%d characters, more than Placement's %d", len(name), placementMaxName)
	case !placementNameRE.MatchString(name):
		return errors.New("not ^CUSTOM_[A-Z0-9_]+$, which Placement answers 400 for")
	}
	return nil
}

// checkProvider reports the resource classes and traits of a provider
// that Placement would refuse.
func (c *Session) checkProvider(addr string, props map[string]graph.Value, at diag.Range, path string) {
	invs, _ := props["inventories"].(map[string]graph.Value)
	for _, rc := range slices.Sorted(maps.Keys(invs)) {
		if len(rc) > placementMaxName || !placementTraitRE.MatchString(rc) {
			c.Errorf(at, path+".properties.inventories."+rc, CodePlacement,
				"resource class %q of provider %q: Placement accepts only ^[A-Z0-9_]+$ names of at most %d characters (standard classes, or CUSTOM_ ones)", rc, addr, placementMaxName)
			continue
		}
		inv, _ := invs[rc].(map[string]graph.Value)
		total, _ := inv["total"].(int64)
		reserved, _ := inv["reserved"].(int64)
		minUnit, _ := inv["min_unit"].(int64)
		maxUnit, _ := inv["max_unit"].(int64)
		if reserved > total {
			c.Errorf(at, path+".properties.inventories."+rc, CodePlacement,
				"inventory %s of provider %q: reserved %d is more than total %d (Placement answers 400)", rc, addr, reserved, total)
		}
		if minUnit > 0 && maxUnit > 0 && minUnit > maxUnit {
			c.Errorf(at, path+".properties.inventories."+rc, CodePlacement,
				"inventory %s of provider %q: min_unit %d is more than max_unit %d (Placement answers 400)", rc, addr, minUnit, maxUnit)
		}
	}
}

// errorUnder reports whether an error was reported at the YAML path p or
// below it. It scans the diagnostics, so it is for rare paths only.
func (c *Session) errorUnder(p string) bool {
	for _, d := range c.Diags {
		if d.Severity == diag.Error && (d.Path == p || strings.HasPrefix(d.Path, p+".") || strings.HasPrefix(d.Path, p+"[")) {
			return true
		}
	}
	return false
}
