package workflow

import (
	"maps"
	"slices"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// CodeDriverUnavailable is the warning of resources whose driver cannot
// run on this machine (ansible without ansible-playbook).
const CodeDriverUnavailable = "driver.unavailable"

// DriverDiagnostics warns, at validate and plan, of what the drivers of
// this machine cannot run: for each driver of reg that says it is missing
// something (driver.Prerequisite), one warning at the first of its
// resources, naming how many need it.
func DriverDiagnostics(graphs []*graph.Graph, reg driver.Registry) diag.Diagnostics {
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
		diags = diags.Warnf(at, "", CodeDriverUnavailable, "%d resource(s) use the %s driver (%s first), which apply cannot run here: %v", count[name], name, r.Address, err)
	}
	return diags
}
