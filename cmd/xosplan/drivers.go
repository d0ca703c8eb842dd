package main

import (
	"maps"
	"slices"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// codeDriverUnavailable is the warning of resources whose driver cannot
// run on this machine (ansible without ansible-playbook).
const codeDriverUnavailable = "driver.unavailable"

// driverDiagnostics warns, at validate and plan, of what the drivers of
// this machine cannot run: for each driver of reg that says it is missing
// something (driver.Prerequisite), one warning at the first of its
// resources, naming how many need it.
func driverDiagnostics(graphs []*graph.Graph, reg driver.Registry) diag.Diagnostics {
	first := map[string]*graph.Resource{}
	count := map[string]int{}
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, r := range g.Resources() {
			if _, ok := reg[r.Driver.Name].(driver.Prerequisite); !ok {
				continue
			}
			if first[r.Driver.Name] == nil {
				first[r.Driver.Name] = r
			}
			count[r.Driver.Name]++
		}
	}
	var diags diag.Diagnostics
	for _, name := range slices.Sorted(maps.Keys(first)) {
		err := reg[name].(driver.Prerequisite).Missing()
		if err == nil {
			continue
		}
		r := first[name]
		at := r.Range
		for _, k := range slices.Sorted(maps.Keys(r.Driver.Operations)) {
			if op := r.Driver.Operations[k]; op.Implementation != "" && op.Range.File != "" {
				at = op.Range
				break
			}
		}
		diags = diags.Warnf(at, "", codeDriverUnavailable, "%d resource(s) use the %s driver (%s first), which apply cannot run here: %v", count[name], name, r.Address, err)
	}
	return diags
}

// unitGraphs lists the graphs of the units res compiled.
func unitGraphs(res config.Result) []*graph.Graph {
	out := make([]*graph.Graph, 0, len(res.Units))
	for _, u := range res.Units {
		out = append(out, u.Graph)
	}
	return out
}
