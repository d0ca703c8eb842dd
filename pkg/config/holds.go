package config

import (
	"maps"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// Held is what the errors of a configuration hold in a synchronizer
// (ORC: a missing or broken dependency is a wait, per object, never an
// error for the others): the resources each error belongs to, or, when
// some error belongs to no resource xosplan can name, everything.
type Held struct {
	// All: an error could not be given to resources (a file that does
	// not parse, a path that cannot be read, a problem of the whole
	// configuration): nothing may be reconciled.
	All bool
	// Resources maps each held address to the errors that hold it. The
	// resources that depend on them wait too; the caller finds those
	// through the graph's edges.
	Resources map[string]diag.Diagnostics
}

// templatePaths are the YAML paths under which each front end declares
// the templates a resource is compiled from: TOSCA 1.x (XOS recipes too),
// TOSCA 2.0, Tonomi manifests.
var templatePaths = []string{"topology_template.node_templates.", "service_template.node_templates.", "application.components."}

// Holds gives each error of diags to the resources of desired (the merged
// graph of r) it belongs to:
//
//   - an error inside a template (its YAML path is under the template, in
//     the unit's own file: an unresolved reference, a bad property, a
//     value of the wrong type) holds the resources compiled from that
//     template (a TOSCA 2.0 template with a count, all of its
//     representations);
//   - an error placed at a resource's declaration (a duplicate address,
//     a dependency the merge could not keep), or that names it as
//     related (a spec value over its limit), holds that resource;
//   - any other error in a file of a unit that compiled (a type
//     definition, an input, an output, a template the compiler could not
//     build at all, so that what depends on it is unknown) holds every
//     resource of the units that read that file;
//   - an error in no file, in a file no unit read, or in a unit that did
//     not compile (a file that does not parse) holds everything (All).
//
// Warnings hold nothing.
func (r Result) Holds(diags diag.Diagnostics, desired *graph.Graph) Held {
	held := Held{Resources: map[string]diag.Diagnostics{}}
	hold := func(addr string, d diag.Diagnostic) {
		held.Resources[addr] = append(held.Resources[addr], d)
	}
	for _, d := range diags {
		if d.Severity != diag.Error {
			continue
		}
		units := r.unitsReading(d.Range.File)
		if len(units) == 0 || slices.ContainsFunc(units, func(u Unit) bool { return u.Graph == nil }) || desired == nil {
			return Held{All: true}
		}
		if addrs := declaredAt(units, d, desired); len(addrs) > 0 {
			for _, a := range addrs {
				hold(a, d)
			}
			continue
		}
		for _, u := range units {
			for _, a := range u.Graph.Addresses() {
				if _, ok := desired.Resource(a); ok {
					hold(a, d)
				}
			}
		}
	}
	return held
}

// declares reports whether at is the declaration of res.
func declares(res *graph.Resource, at diag.Range) bool {
	return !at.Start.IsZero() && res.Range.File == at.File && res.Range.Start == at.Start
}

// unitsReading returns the units that compiled file: as one of their own
// files or as a file they imported.
func (r Result) unitsReading(file string) []Unit {
	if file == "" {
		return nil
	}
	var out []Unit
	for _, u := range r.Units {
		if slices.Contains(u.Files, file) || (u.Graph != nil && slices.Contains(u.Graph.Sources, file)) {
			out = append(out, u)
		}
	}
	return out
}

// declaredAt returns the addresses of desired whose template holds d (its
// path under a template of one of the units' own files), or whose
// declaration d is placed at; nil when d belongs to no resource the units
// compiled.
func declaredAt(units []Unit, d diag.Diagnostic, desired *graph.Graph) []string {
	var inFile []*graph.Resource
	for _, u := range units {
		if !slices.Contains(u.Files, d.Range.File) {
			continue
		}
		for _, res := range u.Graph.Resources() {
			if res.Range.File == d.Range.File {
				if _, ok := desired.Resource(res.Address); ok {
					inFile = append(inFile, res)
				}
			}
		}
	}
	for _, res := range inFile {
		if declares(res, d.Range) || slices.ContainsFunc(d.Related, func(rel diag.Related) bool { return declares(res, rel.Range) }) {
			return []string{res.Address}
		}
	}
	for _, prefix := range templatePaths {
		rest, ok := strings.CutPrefix(d.Path, prefix)
		if !ok {
			continue
		}
		return templateResources(inFile, rest)
	}
	return nil
}

// templateResources returns the addresses of the resources compiled from
// the template whose name starts rest (a YAML path below the templates'
// section, whose keys are not quoted: the longest name that is a
// template's wins). A resource is compiled from the template NAME when
// its address is NAME, ends with ".NAME" (a manifest's APP.NAME), or is a
// representation NAME[i] of a TOSCA 2.0 count; all the representations
// share the declaration. nil when no resource was compiled from it.
func templateResources(inFile []*graph.Resource, rest string) []string {
	for end := len(rest); end > 0; end-- {
		if end < len(rest) && rest[end] != '.' && rest[end] != '[' {
			continue
		}
		name := rest[:end]
		found := map[string]bool{}
		var decl diag.Range
		for _, res := range inFile {
			if res.Address == name || strings.HasSuffix(res.Address, "."+name) || representationOf(res.Address, name) {
				found[res.Address] = true
				decl = res.Range
			}
		}
		if len(found) == 0 {
			continue
		}
		for _, res := range inFile {
			if res.Range == decl {
				found[res.Address] = true
			}
		}
		return slices.Sorted(maps.Keys(found))
	}
	return nil
}

// representationOf reports whether addr is NAME[i], a representation of
// the TOSCA 2.0 template name with a count.
func representationOf(addr, name string) bool {
	rest, ok := strings.CutPrefix(addr, name+"[")
	return ok && strings.HasSuffix(rest, "]")
}
