package main

import (
	"maps"
	"slices"

	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/executor/driver/ansible"
	"github.com/xosplan/xosplan/pkg/graph"
)

// newDrivers returns the registry of every driver the commands use: the
// executor's own (exec, scripted, noop) and the Ansible driver, all
// configured by opts.
func newDrivers(opts executor.DriverOptions) executor.Registry {
	reg := executor.NewRegistry(opts)
	reg[graph.DriverAnsible] = ansible.New(opts)
	return reg
}

// codeNoAnsible is the warning of playbook implementations on a machine
// without ansible-playbook.
const codeNoAnsible = "driver.no_ansible"

// driverDiagnostics warns, at validate and plan, of what the drivers of
// this machine cannot run: the Ansible driver's resources when
// ansible-playbook is not installed (one warning, at the first playbook,
// naming how many resources need it). available is ansible.Available.
func driverDiagnostics(graphs []*graph.Graph, available func() error) diag.Diagnostics {
	var first *graph.Resource
	n := 0
	for _, g := range graphs {
		if g == nil {
			continue
		}
		for _, r := range g.Resources() {
			if r.Driver.Name == graph.DriverAnsible {
				if first == nil {
					first = r
				}
				n++
			}
		}
	}
	if n == 0 {
		return nil
	}
	err := available()
	if err == nil {
		return nil
	}
	at := first.Range
	for _, k := range slices.Sorted(maps.Keys(first.Driver.Operations)) {
		if op := first.Driver.Operations[k]; op.Implementation != "" && op.Range.File != "" {
			at = op.Range
			break
		}
	}
	var diags diag.Diagnostics
	return diags.Warnf(at, "", codeNoAnsible, "%d resource(s) run Ansible playbooks (%s first), which apply cannot run here: %v", n, first.Address, err)
}

// unitGraphs lists the graphs of the units res compiled.
func unitGraphs(res config.Result) []*graph.Graph {
	out := make([]*graph.Graph, 0, len(res.Units))
	for _, u := range res.Units {
		out = append(out, u.Graph)
	}
	return out
}
