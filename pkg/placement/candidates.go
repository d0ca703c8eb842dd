package placement

import (
	"context"
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// DefaultMaxCombinations is the default cap on the combinations one
// Candidates call examines (combinations of providers inside the
// unsuffixed group plus combinations of group candidates across groups).
// When the cap is reached, generation stops: the candidates found so far
// are returned — a prefix of the documented order — and Truncated is set.
// 200,000 keeps the worst case well under a second while leaving room for
// every candidate of a 10,000-host cloud.
const DefaultMaxCombinations = 200_000

// Amount is what one provider gives of one resource class.
type Amount struct {
	Provider string
	Class    string
	Amount   int64
}

// GroupMapping names the providers that serve one request group.
type GroupMapping struct {
	Suffix    string
	Providers []string // sorted
}

// AllocationRequest is one candidate: what each provider would give, and
// which providers serve which request group. It is kept as small slices,
// not maps, because a query can return tens of thousands of candidates;
// Allocations and MappingsMap give the map forms.
type AllocationRequest struct {
	// Resources has one entry per provider and class, sorted by provider
	// then class.
	Resources []Amount
	// Mappings has one entry per request group, in query group order.
	Mappings []GroupMapping
	// Anchor is the root of the tree the candidate was built for ("" for a
	// candidate read from a real service).
	Anchor string
	// used lists the providers of the candidate (for summaries).
	used []*provider
}

// Allocations returns the candidate as provider -> class -> amount, the
// shape Claim takes.
func (r AllocationRequest) Allocations() Allocations {
	out := make(Allocations)
	for _, a := range r.Resources {
		if out[a.Provider] == nil {
			out[a.Provider] = map[string]int64{}
		}
		out[a.Provider][a.Class] += a.Amount
	}
	return out
}

// MappingsMap returns the mappings as suffix -> providers.
func (r AllocationRequest) MappingsMap() map[string][]string {
	out := make(map[string][]string, len(r.Mappings))
	for _, m := range r.Mappings {
		out[m.Suffix] = m.Providers
	}
	return out
}

// NewAllocationRequest builds a normalised request from map forms (as a
// client reads them from a service): resources sorted, mappings sorted by
// suffix, provider lists sorted.
func NewAllocationRequest(allocs Allocations, mappings map[string][]string) AllocationRequest {
	var r AllocationRequest
	for _, p := range slices.Sorted(maps.Keys(allocs)) {
		for _, rc := range slices.Sorted(maps.Keys(allocs[p])) {
			r.Resources = append(r.Resources, Amount{p, rc, allocs[p][rc]})
		}
	}
	for _, sfx := range slices.Sorted(maps.Keys(mappings)) {
		l := append([]string(nil), mappings[sfx]...)
		sort.Strings(l)
		r.Mappings = append(r.Mappings, GroupMapping{sfx, l})
	}
	return r
}

// ResourceSummary is the capacity and usage of one class on one provider.
type ResourceSummary struct {
	Capacity int64 `json:"capacity"`
	Used     int64 `json:"used"`
}

// ProviderSummary describes a provider of a candidate's tree.
type ProviderSummary struct {
	Resources map[string]ResourceSummary
	Traits    []string
	Parent    string // "" for a root
	Root      string
}

// Candidates is the answer to a Query.
type Candidates struct {
	// Requests are in the documented order: anchor trees by root name;
	// within a tree, group by group in query order, each group's choices
	// by provider depth then name (and, in the unsuffixed group, resource
	// classes in name order). Duplicates (the same allocations and mappings
	// reached from two anchors) appear once, at their first position.
	Requests []AllocationRequest
	// Summaries cover every provider of every tree that a returned
	// candidate uses (microversion >= 1.29), or only the providers used
	// (before 1.29).
	Summaries map[string]ProviderSummary
	// Truncated is true when the combination cap stopped generation.
	Truncated bool
	// Examined counts the combinations examined.
	Examined int
}

type item struct {
	p   *provider
	rc  string
	amt int64
}

type groupCand struct {
	items     []item
	providers []*provider
}

type search struct {
	ctx       context.Context
	q         Query
	max       int
	examined  int
	truncated bool
	err       error
	seen      map[string]bool
	out       []AllocationRequest
	// stack holds the items of the groups chosen so far, for the merged
	// capacity check (a provider serving several groups).
	stack   []item
	chosen  []*groupCand
	isoUsed map[*provider]bool
	rcs     [][]string // per group, its resource classes sorted
	options [][]*provider
	// Scratch reused from tree to tree, so that examining a provider
	// allocates nothing: the eligible providers, each group's candidates
	// in this tree, and the unsuffixed group's pick of a provider per class.
	eligible []*provider
	perGroup [][]*groupCand
	pick     []*provider
	// slabs hand out small slices from big blocks: a candidate's items,
	// providers and names are a few elements each, and thousands of them
	// would otherwise be thousands of allocations.
	itemSlab   slab[item]
	candSlab   slab[groupCand]
	provSlab   slab[*provider]
	strSlab    slab[string]
	amountSlab slab[Amount]
	mapSlab    slab[GroupMapping]
	// dedupeAll: before 1.34 mappings are not part of a candidate, so two
	// groups swapping providers give the same answer and must be merged.
	dedupeAll bool
}

// Candidates answers an allocation-candidates query against the model's
// current usage. Unknown traits or resource classes are 400 errors; an
// unknown in_tree provider or aggregate simply matches nothing. The
// combination cap (DefaultMaxCombinations or SetMaxCombinations) bounds the
// work; ctx is checked while combining.
func (m *Model) Candidates(ctx context.Context, q Query) (*Candidates, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if q.Version == (Version{}) {
		q.Version = Latest()
	}
	if err := m.checkNames(q); err != nil {
		return nil, err
	}
	s := &search{ctx: ctx, q: q, max: m.maxCombinations, seen: map[string]bool{},
		isoUsed: map[*provider]bool{}, dedupeAll: !q.Version.AtLeast(34) && len(q.Groups) > 1}
	for _, g := range q.Groups {
		s.rcs = append(s.rcs, slices.Sorted(maps.Keys(g.Resources)))
	}
	if s.max <= 0 {
		s.max = DefaultMaxCombinations
	}
	ix := m.index()
	inTree := make([]*provider, len(q.Groups))
	for i, g := range q.Groups {
		if g.InTree == "" {
			continue
		}
		p, ok := m.providers[g.InTree]
		if !ok {
			return m.summarize(s, ix), nil
		}
		inTree[i] = p.root
	}
	for _, root := range ix.roots {
		if s.done() {
			break
		}
		r := m.providers[root]
		if !rootTraitsOK(r, q) {
			continue
		}
		eligible := ix.trees[root]
		if shared := ix.sharedInto[root]; len(shared) > 0 {
			s.eligible = append(append(s.eligible[:0], eligible...), shared...)
			eligible = s.eligible
		}
		for len(s.perGroup) < len(q.Groups) {
			s.perGroup = append(s.perGroup, nil)
		}
		perGroup := s.perGroup[:len(q.Groups)]
		ok := true
		for i, g := range q.Groups {
			if g.Suffix == "" {
				perGroup[i] = s.unsuffixed(perGroup[i][:0], g, s.rcs[i], r, eligible, inTree[i])
			} else {
				perGroup[i] = s.singleProvider(perGroup[i][:0], g, s.rcs[i], eligible, inTree[i])
			}
			if len(perGroup[i]) == 0 {
				ok = false
				break
			}
		}
		if ok {
			s.combine(perGroup, 0, root)
		}
	}
	return m.summarize(s, ix), s.err
}

func (s *search) done() bool {
	if s.err != nil || s.truncated {
		return true
	}
	return s.q.Limit > 0 && len(s.out) >= s.q.Limit
}

// count records one examined combination and reports whether to go on.
func (s *search) count() bool {
	s.examined++
	if s.examined > s.max {
		s.truncated = true
		return false
	}
	if s.examined&1023 == 0 {
		if err := s.ctx.Err(); err != nil {
			s.err = err
			return false
		}
	}
	return true
}

func (m *Model) checkNames(q Query) error {
	var unknown []string
	seen := map[string]bool{}
	check := func(t string) {
		if !m.traitExists(t) && !seen[t] {
			seen[t] = true
			unknown = append(unknown, t)
		}
	}
	for _, g := range q.Groups {
		for _, any := range g.RequiredAnyOf {
			for _, t := range any {
				check(t)
			}
		}
		for _, t := range g.Forbidden {
			check(t)
		}
	}
	for _, t := range q.RootRequired {
		check(t)
	}
	for _, t := range q.RootForbidden {
		check(t)
	}
	if len(unknown) > 0 {
		return badRequest("No such trait(s): %s.", strings.Join(unknown, ", "))
	}
	for _, g := range q.Groups {
		for _, rc := range slices.Sorted(maps.Keys(g.Resources)) {
			if !m.classExists(rc) {
				key := "resources" + g.Suffix
				return badRequest("Invalid resource class in %s parameter: No such resource class %s.", key, rc)
			}
		}
	}
	return nil
}

func rootTraitsOK(r *provider, q Query) bool {
	for _, t := range q.RootRequired {
		if !r.traits[t] {
			return false
		}
	}
	for _, t := range q.RootForbidden {
		if r.traits[t] {
			return false
		}
	}
	return true
}

func anyOfOK(have func(string) bool, anyOf [][]string) bool {
	for _, any := range anyOf {
		ok := false
		for _, x := range any {
			if have(x) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// aggsOK applies member_of and forbidden aggregates, as Placement does.
// Every member_of list must be met by the provider's own aggregates or,
// when memberRoot is given, entirely by memberRoot's; no forbidden
// aggregate may be on the provider or on forbidRoot. In the unsuffixed
// group both roots are the tree's root for a provider of the tree; a
// sharing provider from another tree must itself be in the member_of
// aggregates, while a forbidden aggregate on the anchor root still
// excludes it.
func aggsOK(p *provider, g RequestGroup, memberRoot, forbidRoot *provider) bool {
	own := func(a string) bool { return p.aggs[a] }
	if !anyOfOK(own, g.MemberOfAnyOf) {
		if memberRoot == nil || !anyOfOK(func(a string) bool { return memberRoot.aggs[a] }, g.MemberOfAnyOf) {
			return false
		}
	}
	for _, a := range g.ForbiddenAggs {
		if p.aggs[a] || (forbidRoot != nil && forbidRoot.aggs[a]) {
			return false
		}
	}
	return true
}

// unsuffixedAggsOK is aggsOK with the unsuffixed group's roots.
func unsuffixedAggsOK(p *provider, g RequestGroup, anchor *provider) bool {
	if p.root == anchor {
		return aggsOK(p, g, anchor, anchor)
	}
	return aggsOK(p, g, nil, anchor)
}

func forbiddenOK(p *provider, forbidden []string) bool {
	for _, t := range forbidden {
		if p.traits[t] {
			return false
		}
	}
	return true
}

// singleProvider appends to out the providers that alone satisfy a
// suffixed group.
func (s *search) singleProvider(out []*groupCand, g RequestGroup, rcs []string, eligible []*provider, inTree *provider) []*groupCand {
	for _, p := range eligible {
		if inTree != nil && p.root != inTree {
			continue
		}
		if !forbiddenOK(p, g.Forbidden) || !anyOfOK(func(t string) bool { return p.traits[t] }, g.RequiredAnyOf) || !aggsOK(p, g, nil, nil) {
			continue
		}
		c := &s.candSlab.take(1)[0]
		*c = groupCand{providers: s.provSlab.take(1), items: s.itemSlab.take(len(rcs))[:0]}
		c.providers[0] = p
		fits := true
		for _, rc := range rcs {
			if !p.fits(rc, g.Resources[rc], 0) {
				fits = false
				break
			}
			c.items = append(c.items, item{p, rc, g.Resources[rc]})
		}
		if fits {
			out = append(out, c)
		}
	}
	return out
}

// unsuffixed appends to out the ways the unsuffixed group can be met in
// one tree (plus the sharing providers anchored to it): each class from
// one provider; required traits met by the providers together.
func (s *search) unsuffixed(out []*groupCand, g RequestGroup, rcs []string, anchor *provider, eligible []*provider, inTree *provider) []*groupCand {
	// With in_tree, Placement does not anchor sharing providers to other
	// trees: the group is met inside that one tree.
	if inTree != nil && anchor != inTree {
		return out
	}
	options := s.unsuffixedOptions(g, rcs, anchor, eligible, inTree)
	if options == nil {
		return out
	}
	if cap(s.pick) < len(rcs) {
		s.pick = make([]*provider, len(rcs))
	}
	return s.walkUnsuffixed(out, 0, g, rcs, options, s.pick[:len(rcs)])
}

// walkUnsuffixed tries every pick of a provider per class from class i on
// (depth first, in the options' order) and appends the candidates to out.
func (s *search) walkUnsuffixed(out []*groupCand, i int, g RequestGroup, rcs []string, options [][]*provider, pick []*provider) []*groupCand {
	if s.truncated || s.err != nil {
		return out
	}
	if i == len(rcs) {
		if !s.count() {
			return out
		}
		if c := s.unsuffixedCand(g, rcs, pick); c != nil {
			out = append(out, c)
		}
		return out
	}
	for _, p := range options[i] {
		pick[i] = p
		out = s.walkUnsuffixed(out, i+1, g, rcs, options, pick)
	}
	return out
}

// unsuffixedOptions lists, for each class of rcs, the eligible providers
// (of inTree, when given) that can serve it in the unsuffixed group; nil
// when a class has none. The lists are scratch buffers reused across
// trees: a tree's group candidates copy what they need out of them.
func (s *search) unsuffixedOptions(g RequestGroup, rcs []string, anchor *provider, eligible []*provider, inTree *provider) [][]*provider {
	for len(s.options) < len(rcs) {
		s.options = append(s.options, nil)
	}
	options := s.options[:len(rcs)]
	for i, rc := range rcs {
		options[i] = options[i][:0]
		for _, p := range eligible {
			if inTree != nil && p.root != inTree {
				continue
			}
			if p.fits(rc, g.Resources[rc], 0) && forbiddenOK(p, g.Forbidden) && unsuffixedAggsOK(p, g, anchor) {
				options[i] = append(options[i], p)
			}
		}
		if len(options[i]) == 0 {
			return nil
		}
	}
	return options
}

// unsuffixedCand makes the group candidate of one pick of a provider per
// class, or nil when the providers together lack a required trait.
func (s *search) unsuffixedCand(g RequestGroup, rcs []string, pick []*provider) *groupCand {
	// The traits are checked on the pick before anything is taken from the
	// slabs, so that a pick that fails costs nothing.
	if len(g.RequiredAnyOf) > 0 && !anyOfOK(func(t string) bool {
		for _, p := range pick {
			if p.traits[t] {
				return true
			}
		}
		return false
	}, g.RequiredAnyOf) {
		return nil
	}
	c := &s.candSlab.take(1)[0]
	*c = groupCand{items: s.itemSlab.take(len(rcs)), providers: s.provSlab.take(len(rcs))[:0]}
	for j, rc := range rcs {
		c.items[j] = item{pick[j], rc, g.Resources[rc]}
		if !slices.Contains(c.providers, pick[j]) {
			c.providers = append(c.providers, pick[j])
		}
	}
	if len(c.providers) > 1 {
		sort.Slice(c.providers, func(a, b int) bool { return c.providers[a].name < c.providers[b].name })
	}
	return c
}

// slab hands out slices carved from shared blocks; a slice is never
// handed out twice, so callers own what they get.
// Blocks start small (a limit=1 query needs a handful) and double up to
// 1024 elements.
type slab[T any] struct {
	buf   []T
	block int
}

func (s *slab[T]) take(n int) []T {
	if len(s.buf) < n {
		s.block = min(max(2*s.block, 16), 1024)
		s.buf = make([]T, max(n, s.block))
	}
	out := s.buf[:n:n]
	s.buf = s.buf[n:]
	return out
}

// combine picks one candidate per group, depth first, pruning on merged
// capacity and max_unit and on group_policy=isolate as it goes.
func (s *search) combine(perGroup [][]*groupCand, i int, anchor string) {
	if s.done() {
		return
	}
	if i == len(perGroup) {
		if !s.count() {
			return
		}
		s.emit(anchor)
		return
	}
	suffixed := s.q.Groups[i].Suffix != ""
	isolate := suffixed && s.q.GroupPolicy == "isolate"
	for _, c := range perGroup[i] {
		if isolate && s.isoConflict(c) {
			continue
		}
		if !s.fitsMerged(c) {
			continue
		}
		mark := len(s.stack)
		s.stack = append(s.stack, c.items...)
		if isolate {
			for _, p := range c.providers {
				s.isoUsed[p] = true
			}
		}
		s.chosen = append(s.chosen, c)
		s.combine(perGroup, i+1, anchor)
		s.chosen = s.chosen[:len(s.chosen)-1]
		if isolate {
			for _, p := range c.providers {
				delete(s.isoUsed, p)
			}
		}
		s.stack = s.stack[:mark]
		if s.done() {
			return
		}
	}
}

func (s *search) isoConflict(c *groupCand) bool {
	for _, p := range c.providers {
		if s.isoUsed[p] {
			return true
		}
	}
	return false
}

// fitsMerged checks the sum of every group's amounts on a provider against
// its free capacity and max_unit; min_unit and step_size were checked per
// group, as Placement does.
func (s *search) fitsMerged(c *groupCand) bool {
	for _, it := range c.items {
		var already int64
		for _, prev := range s.stack {
			if prev.p == it.p && prev.rc == it.rc {
				already += prev.amt
			}
		}
		if already == 0 {
			continue
		}
		inv := it.p.inv[it.rc]
		total := already + it.amt
		if total > inv.MaxUnit || it.p.used[it.rc]+total > inv.Capacity() {
			return false
		}
	}
	return true
}

func (s *search) emit(anchor string) {
	used, sharing := s.usedProviders()
	if !s.sameSubtreeOK() {
		return
	}
	if !s.q.Version.AtLeast(29) && !oneEachPerTree(used) {
		return
	}
	req := AllocationRequest{Resources: s.amounts(), Mappings: s.mappings(), Anchor: anchor}
	req.used = used
	if sharing || s.dedupeAll {
		key := requestKey(req, s.q.Version.AtLeast(34))
		if s.seen[key] {
			return
		}
		s.seen[key] = true
	}
	s.out = append(s.out, req)
}

// usedProviders lists the providers of the chosen group candidates, once
// each, and whether one of them is a sharing provider.
func (s *search) usedProviders() ([]*provider, bool) {
	n := 0
	for _, c := range s.chosen {
		n += len(c.providers)
	}
	used := s.provSlab.take(n)[:0]
	sharing := false
	for _, c := range s.chosen {
		for _, p := range c.providers {
			if !slices.Contains(used, p) {
				used = append(used, p)
				sharing = sharing || p.traits[SharesViaAggregate]
			}
		}
	}
	return used, sharing
}

// oneEachPerTree reports whether no two providers share a tree, as
// Placement requires before microversion 1.29.
func oneEachPerTree(used []*provider) bool {
	for i, p := range used {
		for _, q := range used[:i] {
			if q.root == p.root {
				return false
			}
		}
	}
	return true
}

// amounts sums the chosen items by provider and class, sorted.
func (s *search) amounts() []Amount {
	k := 0
	for _, c := range s.chosen {
		k += len(c.items)
	}
	res := s.amountSlab.take(k)[:0]
	for _, c := range s.chosen {
	items:
		for _, it := range c.items {
			for i := range res {
				if res[i].Provider == it.p.name && res[i].Class == it.rc {
					res[i].Amount += it.amt
					continue items
				}
			}
			res = append(res, Amount{it.p.name, it.rc, it.amt})
		}
	}
	// Insertion sort: a handful of entries, and no allocation.
	for i := 1; i < len(res); i++ {
		for j := i; j > 0 && amountLess(res[j], res[j-1]); j-- {
			res[j], res[j-1] = res[j-1], res[j]
		}
	}
	return res
}

// mappings names, for each group, the providers of its chosen candidate.
func (s *search) mappings() []GroupMapping {
	maps := s.mapSlab.take(len(s.chosen))
	for gi, c := range s.chosen {
		names := s.strSlab.take(len(c.providers))
		for i, p := range c.providers {
			names[i] = p.name
		}
		maps[gi] = GroupMapping{Suffix: s.q.Groups[gi].Suffix, Providers: names}
	}
	return maps
}

// sameSubtreeOK: for every same_subtree set, one of the providers serving
// those groups must be an ancestor (or itself) of all the others.
func (s *search) sameSubtreeOK() bool {
	for _, set := range s.q.SameSubtree {
		var ps []*provider
		for gi, c := range s.chosen {
			for _, x := range set {
				if s.q.Groups[gi].Suffix == x {
					ps = append(ps, c.providers...)
				}
			}
		}
		found := false
		for _, top := range ps {
			all := true
			for _, p := range ps {
				if !isAncestorOrSelf(top, p) {
					all = false
					break
				}
			}
			if all {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func isAncestorOrSelf(a, p *provider) bool {
	for x := p; x != nil; x = x.parent {
		if x == a {
			return true
		}
	}
	return false
}

func amountLess(a, b Amount) bool {
	if a.Provider != b.Provider {
		return a.Provider < b.Provider
	}
	return a.Class < b.Class
}

// requestKey renders a candidate canonically (mappings in suffix order),
// for de-duplication and for comparing candidate sets.
func requestKey(r AllocationRequest, withMappings bool) string {
	var b strings.Builder
	last := ""
	for i, a := range r.Resources {
		if i == 0 || a.Provider != last {
			if i > 0 {
				b.WriteByte('}')
			}
			b.WriteString(a.Provider)
			b.WriteByte('{')
			last = a.Provider
		}
		b.WriteString(a.Class)
		b.WriteByte(':')
		b.WriteString(strconv.FormatInt(a.Amount, 10))
		b.WriteByte(',')
	}
	if len(r.Resources) > 0 {
		b.WriteByte('}')
	}
	if withMappings {
		ms := append([]GroupMapping(nil), r.Mappings...)
		sort.Slice(ms, func(i, j int) bool { return ms[i].Suffix < ms[j].Suffix })
		for _, m := range ms {
			b.WriteString("|" + m.Suffix + "=" + strings.Join(m.Providers, ","))
		}
	}
	return b.String()
}

func (m *Model) summarize(s *search, ix *index) *Candidates {
	c := &Candidates{Requests: s.out, Summaries: make(map[string]ProviderSummary, len(s.out)), Truncated: s.truncated, Examined: s.examined}
	if c.Requests == nil {
		c.Requests = []AllocationRequest{}
	}
	wholeTrees := s.q.Version.AtLeast(29)
	doneRoots := map[string]bool{}
	// Before 1.27 a summary lists only the requested resource classes.
	var requested map[string]bool
	if !s.q.Version.AtLeast(27) {
		requested = map[string]bool{}
		for _, g := range s.q.Groups {
			for rc := range g.Resources {
				requested[rc] = true
			}
		}
	}
	summaryOf := func(p *provider) ProviderSummary { return summaryOf(p, requested) }
	for i := range c.Requests {
		for _, p := range c.Requests[i].used {
			if !wholeTrees {
				if _, ok := c.Summaries[p.name]; !ok {
					c.Summaries[p.name] = summaryOf(p)
				}
				continue
			}
			if doneRoots[p.root.name] {
				continue
			}
			doneRoots[p.root.name] = true
			for _, q := range ix.trees[p.root.name] {
				c.Summaries[q.name] = summaryOf(q)
			}
		}
	}
	return c
}

func summaryOf(p *provider, only map[string]bool) ProviderSummary {
	ps := ProviderSummary{Resources: make(map[string]ResourceSummary, len(p.inv)), Root: p.root.name}
	if len(p.traits) > 0 {
		ps.Traits = make([]string, 0, len(p.traits))
		for t := range p.traits {
			ps.Traits = append(ps.Traits, t)
		}
		slices.Sort(ps.Traits)
	}
	if p.parent != nil {
		ps.Parent = p.parent.name
	}
	for rc, inv := range p.inv {
		if only != nil && !only[rc] {
			continue
		}
		ps.Resources[rc] = ResourceSummary{Capacity: inv.Capacity(), Used: p.used[rc]}
	}
	return ps
}
