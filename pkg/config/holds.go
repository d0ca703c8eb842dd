package config

import (
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
// Warnings hold nothing. The cost grows with the errors plus the
// resources, not their product: the resources are indexed once.
func (r Result) Holds(diags diag.Diagnostics, desired *graph.Graph) Held {
	held := Held{Resources: map[string]diag.Diagnostics{}}
	if !diags.HasErrors() {
		return held
	}
	if desired == nil {
		return Held{All: true}
	}
	x := r.indexHolds(desired)
	hold := func(addrs []string, d diag.Diagnostic) {
		for _, a := range addrs {
			held.Resources[a] = append(held.Resources[a], d)
		}
	}
	for _, d := range diags {
		if d.Severity != diag.Error {
			continue
		}
		units := x.readers[d.Range.File]
		if d.Range.File == "" || len(units) == 0 || slices.ContainsFunc(units, func(u int) bool { return r.Units[u].Graph == nil }) {
			return Held{All: true}
		}
		if addrs := x.declaredAt(d); len(addrs) > 0 {
			hold(addrs, d)
			continue
		}
		for _, u := range units {
			hold(x.unitAddrs[u], d)
		}
	}
	return held
}

// holdIndex is what Holds looks errors up in.
type holdIndex struct {
	// readers maps each file to the units that compiled it (their own
	// file or an import); unitAddrs lists each unit's addresses that the
	// merged graph holds.
	readers   map[string][]int
	unitAddrs [][]string
	// own maps each unit's own file to its resources declared there by
	// declaration position and by the names they may be written as in
	// a template path (byName: the address, each part after a ".", and
	// NAME of a representation NAME[i]).
	own map[string]*fileResources
}

type fileResources struct {
	byStart map[diag.Pos]string
	byName  map[string][]*graph.Resource
}

func (r Result) indexHolds(desired *graph.Graph) *holdIndex {
	x := &holdIndex{readers: map[string][]int{}, unitAddrs: make([][]string, len(r.Units)), own: map[string]*fileResources{}}
	for i, u := range r.Units {
		files := slices.Clone(u.Files)
		if u.Graph != nil {
			files = append(files, u.Graph.Sources...)
		}
		slices.Sort(files)
		for _, f := range slices.Compact(files) {
			x.readers[f] = append(x.readers[f], i)
		}
		if u.Graph == nil {
			continue
		}
		for _, res := range u.Graph.Resources() {
			if _, ok := desired.Resource(res.Address); !ok {
				continue
			}
			x.unitAddrs[i] = append(x.unitAddrs[i], res.Address)
			if !slices.Contains(u.Files, res.Range.File) {
				continue
			}
			fr := x.own[res.Range.File]
			if fr == nil {
				fr = &fileResources{byStart: map[diag.Pos]string{}, byName: map[string][]*graph.Resource{}}
				x.own[res.Range.File] = fr
			}
			if !res.Range.Start.IsZero() {
				fr.byStart[res.Range.Start] = res.Address
			}
			for _, name := range templateNames(res.Address) {
				fr.byName[name] = append(fr.byName[name], res)
			}
		}
	}
	return x
}

// templateNames are the names a template path may give the resource at
// addr: the address, each part after a "." (a manifest's APP.NAME), and
// NAME of a TOSCA 2.0 representation NAME[i].
func templateNames(addr string) []string {
	names := []string{addr}
	for i := range len(addr) {
		if addr[i] == '.' {
			names = append(names, addr[i+1:])
		}
	}
	if base, rest, ok := strings.Cut(addr, "["); ok && strings.HasSuffix(rest, "]") && base != "" {
		names = append(names, base)
	}
	return names
}

// declaredAt returns the addresses whose template holds d (its path
// under a template of a unit's own file), or whose declaration d is
// placed at or relates; nil when d belongs to no resource compiled from
// that file.
func (x *holdIndex) declaredAt(d diag.Diagnostic) []string {
	fr := x.own[d.Range.File]
	if fr == nil {
		return nil
	}
	if a, ok := fr.byStart[d.Range.Start]; ok && !d.Range.Start.IsZero() {
		return []string{a}
	}
	for _, rel := range d.Related {
		if rfr := x.own[rel.Range.File]; rfr != nil && !rel.Range.Start.IsZero() {
			if a, ok := rfr.byStart[rel.Range.Start]; ok {
				return []string{a}
			}
		}
	}
	for _, prefix := range templatePaths {
		if rest, ok := strings.CutPrefix(d.Path, prefix); ok {
			return fr.template(rest)
		}
	}
	return nil
}

// template returns the addresses of the resources compiled from the
// template whose name starts rest (a YAML path below the templates'
// section, whose keys are not quoted: the longest name that is a
// template's wins), every representation of a count included; nil when
// none was compiled from it.
func (fr *fileResources) template(rest string) []string {
	for end := len(rest); end > 0; end-- {
		if end < len(rest) && rest[end] != '.' && rest[end] != '[' {
			continue
		}
		found := fr.byName[rest[:end]]
		if len(found) == 0 {
			continue
		}
		out := make([]string, 0, len(found))
		for _, res := range found {
			out = append(out, res.Address)
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return nil
}
