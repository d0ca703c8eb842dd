package config

import (
	"errors"
	"maps"
	"slices"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Diagnostic codes of merging; the package documentation explains each.
const (
	CodeDuplicateAddress = "plan.duplicate_address"
	CodeDanglingEdge     = "load.dangling_edge"
	CodeDuplicateOutput  = "plan.duplicate_output"
)

// Merge joins the compiled units into the one graph a plan covers: every
// unit's resources, edges, model policies, outputs and secrets. It returns that graph (never nil),
// every file it was compiled from (the units' own files and the files they
// imported, sorted; a CSAR archive once, for all its members), and a
// diagnostic for every part it could not join.
//
// Two units defining the same address are an error (CodeDuplicateAddress,
// at the second definition), since a plan would not know which one is
// meant; the first definition is kept, and the second one's edges are left
// out with it. An edge that names a resource the merged graph does not
// hold is an error too (CodeDanglingEdge), and so is an output that two
// units declare (CodeDuplicateOutput, the first kept): nothing a unit
// compiled is dropped without a diagnostic.
func (r Result) Merge() (*graph.Graph, []string, diag.Diagnostics) {
	if len(r.Units) == 1 && r.Units[0].Graph != nil {
		g := r.Units[0].Graph
		return g, unionFiles(r.Units[0].Files, g.Sources), placementEdges(g)
	}
	var diags diag.Diagnostics
	g := graph.New()
	var files []string
	// owner maps each address to the first file of the unit it was taken
	// from.
	owner := map[string]string{}
	// outputOwner maps each output name to the first file of the unit
	// that declared it.
	outputOwner := map[string]string{}
	for _, u := range r.Units {
		files = unionFiles(files, u.Files)
		if u.Graph == nil {
			continue
		}
		unit := u.Files[0]
		files = unionFiles(files, u.Graph.Sources)
		g.Secrets = append(g.Secrets, u.Graph.Secrets...)
		diags = diags.Extend(mergeOutputs(g, u, outputOwner))
		for _, res := range u.Graph.Resources() {
			if prev, dup := owner[res.Address]; dup {
				diags = diags.Errorf(res.Range, "", CodeDuplicateAddress,
					"resource %s is defined in both %s and %s; plan one of them, or rename one", res.Address, prev, unit)
				continue
			}
			if err := g.AddResource(res); err != nil {
				diags = diags.Errorf(res.Range, "", CodeInternal, "cannot add resource %s of %s to the configuration's graph: %v", res.Address, unit, err)
				continue
			}
			owner[res.Address] = unit
		}
		for _, p := range u.Graph.Policies() {
			if err := g.AddPolicy(p); err != nil {
				diags = diags.Errorf(p.Range, "", CodeDuplicateAddress,
					"model policy %s is defined in two files; the addresses it derives start with its name, which must be unique", p.Name)
			}
		}
		for _, e := range u.Graph.Edges() {
			if isOthers(owner, e.Source, unit) || isOthers(owner, e.Target, unit) {
				// An end is another unit's definition of an address this
				// unit defines too: reported as a duplicate above.
				continue
			}
			if err := g.AddEdge(e); err != nil {
				diags = diags.Append(edgeProblem(u, e, err))
			}
		}
	}
	g.Sources = files
	return g, files, diags.Extend(placementEdges(g))
}

// mergeOutputs adds the outputs of u to g, and reports each that another
// unit declared first: which value `xosplan output` shows must not depend
// on the order the files were found in.
func mergeOutputs(g *graph.Graph, u Unit, owner map[string]string) diag.Diagnostics {
	var diags diag.Diagnostics
	unit := u.Files[0]
	for _, name := range slices.Sorted(maps.Keys(u.Graph.Outputs)) {
		if prev, dup := owner[name]; dup {
			diags = diags.Errorf(fileStart(unit), "", CodeDuplicateOutput,
				"output %s is declared in both %s and %s; rename one of them", name, prev, unit)
			continue
		}
		if g.Outputs == nil {
			g.Outputs = map[string]graph.Value{}
		}
		g.Outputs[name] = u.Graph.Outputs[name]
		owner[name] = unit
		if slices.Contains(u.Graph.SensitiveOutputs, name) {
			g.SensitiveOutputs = append(g.SensitiveOutputs, name)
		}
	}
	slices.Sort(g.SensitiveOutputs)
	return diags
}

// isOthers reports whether addr was taken from another unit than unit.
func isOthers(owner map[string]string, addr, unit string) bool {
	o, ok := owner[addr]
	return ok && o != unit
}

// edgeProblem is the diagnostic of an edge of u that the merged graph
// refused, at its source resource.
func edgeProblem(u Unit, e graph.Edge, err error) diag.Diagnostic {
	at := fileStart(u.Files[0])
	if res, ok := u.Graph.Resource(e.Source); ok && !res.Range.IsZero() {
		at = res.Range
	}
	code := CodeInternal
	if errors.Is(err, graph.ErrUnknownResource) {
		code = CodeDanglingEdge
	}
	return diag.Diagnostic{Severity: diag.Error, Code: code, Range: at,
		Summary: "the dependency of " + e.Source + " on " + e.Target + " cannot be kept: " + err.Error()}
}

// unionFiles returns the files of a and b, sorted, each once; the members
// of an archive are the archive's file.
func unionFiles(a, b []string) []string {
	out := append(slices.Clone(a), b...)
	for i, f := range out {
		if archive, _, ok := diag.SplitMember(f); ok {
			out[i] = archive
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
