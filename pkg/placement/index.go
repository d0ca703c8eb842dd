package placement

import "sort"

// index is the query-time view of the model's structure: sorted providers,
// trees and sharing anchors. It is rebuilt only when the structure changes
// (providers, traits, aggregates, inventories), not on every allocation,
// so that placing many consumers in a row stays linear.
type index struct {
	all   []*provider            // sorted by name
	roots []string               // sorted root names
	trees map[string][]*provider // root -> members, by depth then name
	// sharedInto lists, for a root, the sharing providers of OTHER trees
	// that anchor to it (they share an aggregate with some provider of the
	// tree; Placement anchors a sharing provider to the ROOTS of every
	// provider it shares an aggregate with).
	sharedInto map[string][]*provider
}

func (m *Model) index() *index {
	if m.idx != nil {
		return m.idx
	}
	ix := &index{trees: map[string][]*provider{}, sharedInto: map[string][]*provider{}}
	depth := map[*provider]int{}
	var depthOf func(p *provider) int
	depthOf = func(p *provider) int {
		if p.parent == nil {
			return 0
		}
		if d, ok := depth[p]; ok {
			return d
		}
		d := depthOf(p.parent) + 1
		depth[p] = d
		return d
	}
	aggMembers := map[string][]*provider{}
	for _, p := range m.providers {
		ix.all = append(ix.all, p)
		for a := range p.aggs {
			aggMembers[a] = append(aggMembers[a], p)
		}
	}
	sort.Slice(ix.all, func(i, j int) bool { return ix.all[i].name < ix.all[j].name })
	for _, p := range ix.all {
		r := p.root.name
		if p.parent == nil {
			ix.roots = append(ix.roots, r)
		}
		ix.trees[r] = append(ix.trees[r], p)
	}
	for _, members := range ix.trees {
		sort.SliceStable(members, func(i, j int) bool { return depthOf(members[i]) < depthOf(members[j]) })
	}
	for _, s := range ix.all {
		if !s.traits[SharesViaAggregate] {
			continue
		}
		anchors := map[string]bool{}
		for a := range s.aggs {
			for _, p := range aggMembers[a] {
				anchors[p.root.name] = true
			}
		}
		for r := range anchors {
			if r != s.root.name {
				ix.sharedInto[r] = append(ix.sharedInto[r], s)
			}
		}
	}
	for _, l := range ix.sharedInto {
		sort.Slice(l, func(i, j int) bool { return l[i].name < l[j].name })
	}
	m.idx = ix
	return ix
}
