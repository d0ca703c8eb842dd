package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Placement objects depend on each other by name, as ORC's objects do:
// a provider on the custom traits and custom resource classes it names
// and on its parent provider. The names live in the objects' specs, in
// whichever file of the configuration declares them, so the edges are
// added once the units are merged. A name no object of the configuration
// declares is left to the service (a trait created outside xosplan, a
// provider another stack keeps); the placement driver checks it there.

// placementEdges adds the by-name dependencies of g's placement objects
// to g and reports the edges it could not add.
func placementEdges(g *graph.Graph) diag.Diagnostics {
	type key struct{ kind, name string }
	named := map[key]string{}
	var providers []*graph.Resource
	for _, r := range g.Resources() {
		if r.Driver.Name != graph.DriverPlacement {
			continue
		}
		kind, _ := r.Driver.Options[graph.OptionPlacementKind].(string)
		name := placementName(r)
		if name != "" {
			if _, dup := named[key{kind, name}]; !dup {
				named[key{kind, name}] = r.Address
			}
		}
		if kind == graph.PlacementKindProvider {
			providers = append(providers, r)
		}
	}
	if len(providers) == 0 {
		return nil
	}
	// Merge may run twice on one unit's graph: an edge is added once.
	have := map[[3]string]bool{}
	for _, e := range g.Edges() {
		have[[3]string{e.Source, e.Target, e.Name}] = true
	}
	var diags diag.Diagnostics
	add := func(r *graph.Resource, kind, name, why string) {
		target, ok := named[key{kind, name}]
		if !ok || target == r.Address || have[[3]string{r.Address, target, why}] {
			return
		}
		have[[3]string{r.Address, target, why}] = true
		if err := g.AddEdge(graph.Edge{Source: r.Address, Target: target, Kind: graph.DependsOn, Name: why, Range: r.Range}); err != nil {
			diags = diags.Errorf(r.Range, "", CodeInternal, "cannot add the dependency of %s on %s: %v", r.Address, target, err)
		}
	}
	for _, r := range providers {
		props, _ := r.Spec["properties"].(map[string]graph.Value)
		if parent, _ := props["parent"].(string); parent != "" {
			add(r, graph.PlacementKindProvider, parent, "parent")
		}
		traits, _ := props["traits"].([]graph.Value)
		for _, t := range traits {
			if s, _ := t.(string); strings.HasPrefix(s, "CUSTOM_") {
				add(r, graph.PlacementKindTrait, s, "traits")
			}
		}
		invs, _ := props["inventories"].(map[string]graph.Value)
		for _, rc := range slices.Sorted(maps.Keys(invs)) {
			if strings.HasPrefix(rc, "CUSTOM_") {
				add(r, graph.PlacementKindResourceClass, rc, "inventories")
			}
		}
	}
	return diags
}

// placementName is the name of a placement object: its name property, or
// its import filter's name.
func placementName(r *graph.Resource) string {
	props, _ := r.Spec["properties"].(map[string]graph.Value)
	if n, _ := props["name"].(string); n != "" {
		return n
	}
	filter, _ := props["import_filter"].(map[string]graph.Value)
	n, _ := filter["name"].(string)
	return n
}
