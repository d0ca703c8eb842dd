package placement

import (
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Version is a Placement microversion such as 1.39.
type Version struct{ Major, Minor int }

// LatestMinor is the newest microversion (1.LatestMinor) whose semantics
// the model implements.
const LatestMinor = 39

// Latest returns the newest microversion the model implements.
func Latest() Version { return Version{1, LatestMinor} }

// ParseVersion reads "X.Y" (or "latest").
func ParseVersion(s string) (Version, error) {
	if s == "latest" {
		return Latest(), nil
	}
	a, b, ok := strings.Cut(strings.TrimSpace(s), ".")
	maj, err1 := strconv.Atoi(a)
	min, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || maj != 1 || min < 0 {
		return Version{}, badRequest("Invalid microversion %q: expected 1.N.", s)
	}
	return Version{maj, min}, nil
}

// AtLeast reports whether v >= 1.minor.
func (v Version) AtLeast(minor int) bool { return v.Major > 1 || (v.Major == 1 && v.Minor >= minor) }

// String renders "X.Y".
func (v Version) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// RequestGroup is one group of a query: the unsuffixed group (Suffix "",
// whose resources may come from several providers of one tree plus sharing
// providers) or a suffixed (granular) group, all of whose resources come
// from one provider.
type RequestGroup struct {
	Suffix    string
	Resources map[string]int64
	// RequiredAnyOf: every inner list must have at least one trait present
	// (A AND (B OR C) is [[A], [B, C]]).
	RequiredAnyOf [][]string
	Forbidden     []string
	// MemberOfAnyOf: every inner list must contain an aggregate of the
	// provider (or, in the unsuffixed group, of its root).
	MemberOfAnyOf [][]string
	ForbiddenAggs []string
	// InTree restricts the group to the tree of the named provider.
	InTree string
}

// Query is a parsed allocation-candidates request.
type Query struct {
	// Groups holds the unsuffixed group first (if any), then suffixed groups
	// in suffix order (numbers by value, then names).
	Groups []RequestGroup
	// GroupPolicy is "", "none" or "isolate".
	GroupPolicy   string
	Limit         int
	RootRequired  []string
	RootForbidden []string
	SameSubtree   [][]string
	// Version selects the microversion semantics; the zero Version means
	// Latest(), so a Query built in code gets today's semantics.
	Version Version
}

var (
	suffixRE = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)
	limitRE  = regexp.MustCompile(`^[1-9][0-9]*$`)
	rcNameRE = regexp.MustCompile(`^[A-Z0-9_]+$`)
)

// A queryParam reads one parameter of the whole query into q, from the
// microversion 1.since on; before it the parameter is unexpected.
type queryParam struct {
	since int
	read  func(q *Query, vals []string) error
}

// queryParams holds the parameters that are not of a request group.
var queryParams = map[string]queryParam{
	"group_policy":  {25, readGroupPolicy},
	"limit":         {16, readLimit},
	"root_required": {35, readRootRequired},
	"same_subtree":  {36, readSameSubtree},
}

// A groupParam reads one parameter of a request group (name, then an
// optional suffix naming the group), from the microversion 1.since on.
type groupParam struct {
	name  string
	since int
	read  func(g *RequestGroup, key string, vals []string, v Version) error
}

// groupParams holds the parameters of a request group, in the order their
// names are matched against a key.
var groupParams = []groupParam{
	{"resources", 10, readResources},
	{"required", 17, readRequired},
	{"member_of", 21, readMemberOf},
	{"in_tree", 31, readInTree},
}

// ParseQuery parses the query string of GET /allocation_candidates with
// the semantics of microversion v (1.10 to 1.39). Provider and aggregate
// identifiers are taken as written (names in the embedded model). Bad
// queries are *Error with status 400 and Placement's wording where it has
// one. Names of traits and resource classes are checked against a model by
// Model.Candidates, not here.
func ParseQuery(raw string, v Version) (Query, error) {
	q := Query{Version: v}
	if !v.AtLeast(10) {
		return q, notFound("The resource could not be found.")
	}
	values, err := url.ParseQuery(raw)
	if err != nil {
		return q, badRequest("Invalid query string: %v", err)
	}
	groups := map[string]*RequestGroup{}
	for _, key := range slices.Sorted(maps.Keys(values)) {
		if err := q.readParam(groups, key, values[key]); err != nil {
			return q, err
		}
	}
	if err := q.addGroups(groups); err != nil {
		return q, err
	}
	return q, q.check(groups)
}

// readParam reads one parameter, of the query or of the request group its
// key names (made in groups on first use).
func (q *Query) readParam(groups map[string]*RequestGroup, key string, vals []string) error {
	if p, ok := queryParams[key]; ok {
		if !q.Version.AtLeast(p.since) {
			return unexpected(key)
		}
		return p.read(q, vals)
	}
	p, suffix, ok := splitSuffix(key)
	if !ok {
		return unexpected(key)
	}
	v := q.Version
	if suffix != "" && (!v.AtLeast(25) || (!v.AtLeast(33) && !isDigits(suffix)) || !suffixRE.MatchString(suffix)) {
		return unexpected(key)
	}
	g := groups[suffix]
	if g == nil {
		g = &RequestGroup{Suffix: suffix}
		groups[suffix] = g
	}
	if !v.AtLeast(p.since) {
		return unexpected(key)
	}
	return p.read(g, key, vals, v)
}

func readGroupPolicy(q *Query, vals []string) error {
	switch vals[0] {
	case "none", "isolate":
		q.GroupPolicy = vals[0]
		return nil
	}
	return badRequest("Invalid query string parameters: '%s' is not one of ['none', 'isolate']", vals[0])
}

func readLimit(q *Query, vals []string) error {
	if !limitRE.MatchString(vals[0]) {
		return badRequest("Invalid query string parameters: '%s' does not match '^[1-9][0-9]*$'", vals[0])
	}
	n, err := strconv.Atoi(vals[0])
	if err != nil || n > MaxInt {
		return badRequest("Invalid query string parameters: limit %s is too large", vals[0])
	}
	q.Limit = n
	return nil
}

func readRootRequired(q *Query, vals []string) error {
	for _, val := range vals {
		for _, t := range strings.Split(val, ",") {
			switch {
			case strings.HasPrefix(t, "!") && len(t) > 1:
				q.RootForbidden = append(q.RootForbidden, t[1:])
			case t == "" || t == "!":
				return badRequest("Invalid query string parameters: Expected 'root_required' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got: %s", val)
			default:
				q.RootRequired = append(q.RootRequired, t)
			}
		}
	}
	return nil
}

func readSameSubtree(q *Query, vals []string) error {
	for _, val := range vals {
		var set []string
		for _, s := range strings.Split(val, ",") {
			if s == "" {
				return badRequest("Empty string (unsuffixed group) can not be specified in `same_subtree`.")
			}
			set = append(set, s)
		}
		q.SameSubtree = append(q.SameSubtree, set)
	}
	return nil
}

func readResources(g *RequestGroup, key string, vals []string, _ Version) error {
	if len(vals) > 1 {
		return badRequest("Invalid query string parameters: multiple values for %s", key)
	}
	res, err := parseResources(key, vals[0])
	if err != nil {
		return err
	}
	g.Resources = res
	return nil
}

func readRequired(g *RequestGroup, key string, vals []string, v Version) error {
	if len(vals) > 1 && !v.AtLeast(39) {
		return badRequest("Invalid query string parameters: multiple values for %s need microversion 1.39", key)
	}
	for _, val := range vals {
		if err := parseRequired(g, key, val, v); err != nil {
			return err
		}
	}
	return nil
}

func readMemberOf(g *RequestGroup, key string, vals []string, v Version) error {
	if len(vals) > 1 && !v.AtLeast(24) {
		return badRequest("Invalid query string parameters: multiple member_of need microversion 1.24")
	}
	for _, val := range vals {
		if err := parseMemberOf(g, key, val, v); err != nil {
			return err
		}
	}
	return nil
}

func readInTree(g *RequestGroup, key string, vals []string, _ Version) error {
	if vals[0] == "" {
		return badRequest("Invalid query string parameters: Expected '%s' parameter value to be a provider.", key)
	}
	g.InTree = vals[0]
	return nil
}

// addGroups appends the request groups to q.Groups in suffix order,
// leaving out an unsuffixed group with nothing in it, and refuses groups
// without resources that their microversion does not allow.
func (q *Query) addGroups(groups map[string]*RequestGroup) error {
	for _, s := range sortedSuffixes(groups) {
		g := groups[s]
		if len(g.Resources) == 0 {
			// Only suffixed groups of 1.36+ may be resourceless.
			if s == "" || !q.Version.AtLeast(36) {
				if len(g.RequiredAnyOf)+len(g.Forbidden)+len(g.MemberOfAnyOf)+len(g.ForbiddenAggs) > 0 || g.InTree != "" {
					return badRequest("All traits, member_of and in_tree parameters must be associated with resources. Found orphaned parameters for group '%s'.", s)
				}
				continue
			}
			if !inSameSubtree(q.SameSubtree, s) {
				return badRequest("Resourceless suffixed group request should be specified in `same_subtree` query param: bad group(s) - ['%s'].", s)
			}
		}
		q.Groups = append(q.Groups, *g)
	}
	if len(q.Groups) == 0 {
		return badRequest("At least one request group (`resources` or `resources{N}`) is required.")
	}
	return nil
}

// check refuses what contradicts itself across parameters: a trait both
// required and forbidden, several granular groups without a group policy,
// a same_subtree naming no group.
func (q *Query) check(groups map[string]*RequestGroup) error {
	granular := 0
	for _, g := range q.Groups {
		if g.Suffix != "" {
			granular++
		}
		if conflictTrait := overlap(flatten(g.RequiredAnyOf), g.Forbidden); conflictTrait != "" {
			return badRequest("Conflicting required and forbidden traits found in the following traits keys: required%s: (%s)", g.Suffix, conflictTrait)
		}
	}
	if granular > 1 && q.GroupPolicy == "" {
		return badRequest(`The "group_policy" parameter is required when specifying more than one "resources{N}" parameter.`)
	}
	for _, set := range q.SameSubtree {
		for _, s := range set {
			if groups[s] == nil {
				return badRequest("Real suffixes should be specified in `same_subtree`: %s not found in request groups.", s)
			}
		}
	}
	if t := overlap(q.RootRequired, q.RootForbidden); t != "" {
		return badRequest("Conflicting required and forbidden traits found in root_required: (%s)", t)
	}
	return nil
}

func unexpected(key string) error {
	return badRequest("Invalid query string parameters: Additional properties are not allowed ('%s' was unexpected)", key)
}

// splitSuffix splits a group parameter's key into the parameter and the
// suffix naming its group.
func splitSuffix(key string) (groupParam, string, bool) {
	for _, p := range groupParams {
		if suffix, ok := strings.CutPrefix(key, p.name); ok {
			return p, suffix, true
		}
	}
	return groupParam{}, "", false
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// sortedSuffixes orders "" first, numeric suffixes by value, then the rest.
func sortedSuffixes(groups map[string]*RequestGroup) []string {
	keys := slices.Sorted(maps.Keys(groups))
	sort.SliceStable(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		if (a == "") != (b == "") {
			return a == ""
		}
		da, db := isDigits(a), isDigits(b)
		if da && db {
			if len(a) != len(b) {
				return len(a) < len(b)
			}
			return a < b
		}
		if da != db {
			return da
		}
		return a < b
	})
	return keys
}

func parseResources(key, val string) (map[string]int64, error) {
	bad := badRequest("Badly formed %s parameter. Expected %s query string parameter in form: ?%s=VCPU:2,MEMORY_MB:1024. Got: %s.", key, key, key, val)
	res := map[string]int64{}
	for _, item := range strings.Split(val, ",") {
		rc, amt, ok := strings.Cut(item, ":")
		if !ok || rc == "" {
			return nil, bad
		}
		if !rcNameRE.MatchString(rc) || len(rc) > MaxNameLength {
			return nil, badRequest("Invalid resource class in %s parameter: No such resource class %s.", key, rc)
		}
		n, err := strconv.ParseInt(amt, 10, 64)
		if err != nil || n < 1 || n > MaxInt {
			return nil, badRequest("Requested resource %s expected positive integer amount. Got: %s.", rc, amt)
		}
		if _, dup := res[rc]; dup {
			return nil, badRequest("Badly formed %s parameter: resource class %s is repeated.", key, rc)
		}
		res[rc] = n
	}
	return res, nil
}

func parseRequired(g *RequestGroup, key, val string, v Version) error {
	if strings.HasPrefix(val, "in:") {
		if !v.AtLeast(39) {
			return badRequest("Invalid query string parameters: 'in:' in %s needs microversion 1.39. Got: %s", key, val)
		}
		var any []string
		for _, t := range strings.Split(val[3:], ",") {
			if t == "" || strings.HasPrefix(t, "!") {
				return badRequest("Invalid query string parameters: Expected '%s' parameter value of the form: in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: %s", key, val)
			}
			any = append(any, t)
		}
		g.RequiredAnyOf = append(g.RequiredAnyOf, any)
		return nil
	}
	for _, t := range strings.Split(val, ",") {
		switch {
		case t == "" || t == "!":
			return badRequest("Invalid query string parameters: Expected '%s' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got: %s", key, val)
		case strings.HasPrefix(t, "!"):
			if !v.AtLeast(22) {
				return badRequest("No such trait(s): %s.", t)
			}
			g.Forbidden = append(g.Forbidden, t[1:])
		default:
			g.RequiredAnyOf = append(g.RequiredAnyOf, []string{t})
		}
	}
	return nil
}

func parseMemberOf(g *RequestGroup, key, val string, v Version) error {
	forbidden := false
	body := val
	if strings.HasPrefix(body, "!") {
		if !v.AtLeast(32) {
			return badRequest("Forbidden member_of parameters are not supported in the specified microversion")
		}
		forbidden, body = true, body[1:]
	}
	inPrefix := strings.HasPrefix(body, "in:")
	if inPrefix {
		body = body[3:]
	}
	aggs := strings.Split(body, ",")
	if len(aggs) > 1 && !inPrefix {
		return badRequest("Multiple values for '%s' must be prefixed with the 'in:' or '!in:' keyword using the valid microversion. Got: %s", key, val)
	}
	for _, a := range aggs {
		if a == "" {
			return badRequest("Invalid query string parameters: Expected '%s' parameter value to be an aggregate. Got: %s", key, val)
		}
	}
	if forbidden {
		g.ForbiddenAggs = append(g.ForbiddenAggs, aggs...)
	} else {
		g.MemberOfAnyOf = append(g.MemberOfAnyOf, aggs)
	}
	return nil
}

func inSameSubtree(sets [][]string, s string) bool {
	for _, set := range sets {
		for _, x := range set {
			if x == s {
				return true
			}
		}
	}
	return false
}

func flatten(l [][]string) []string {
	var out []string
	for _, x := range l {
		if len(x) == 1 {
			out = append(out, x[0])
		}
	}
	return out
}

func overlap(a, b []string) string {
	for _, x := range a {
		for _, y := range b {
			if x == y {
				return x
			}
		}
	}
	return ""
}

// String renders the query in Placement's query-string syntax, groups in
// order, so that a Query built in code can be shown to a user or sent to a
// real service.
func (q Query) String() string {
	var parts []string
	for _, g := range q.Groups {
		s := g.Suffix
		if len(g.Resources) > 0 {
			var res []string
			for _, rc := range slices.Sorted(maps.Keys(g.Resources)) {
				res = append(res, fmt.Sprintf("%s:%d", rc, g.Resources[rc]))
			}
			parts = append(parts, "resources"+s+"="+strings.Join(res, ","))
		}
		var req []string
		for _, any := range g.RequiredAnyOf {
			if len(any) == 1 {
				req = append(req, any[0])
			} else {
				parts = append(parts, "required"+s+"=in:"+strings.Join(any, ","))
			}
		}
		for _, t := range g.Forbidden {
			req = append(req, "!"+t)
		}
		if len(req) > 0 {
			parts = append(parts, "required"+s+"="+strings.Join(req, ","))
		}
		for _, any := range g.MemberOfAnyOf {
			if len(any) == 1 {
				parts = append(parts, "member_of"+s+"="+any[0])
			} else {
				parts = append(parts, "member_of"+s+"=in:"+strings.Join(any, ","))
			}
		}
		if len(g.ForbiddenAggs) > 0 {
			parts = append(parts, "member_of"+s+"=!in:"+strings.Join(g.ForbiddenAggs, ","))
		}
		if g.InTree != "" {
			parts = append(parts, "in_tree"+s+"="+g.InTree)
		}
	}
	var root []string
	root = append(root, q.RootRequired...)
	for _, t := range q.RootForbidden {
		root = append(root, "!"+t)
	}
	if len(root) > 0 {
		parts = append(parts, "root_required="+strings.Join(root, ","))
	}
	for _, set := range q.SameSubtree {
		parts = append(parts, "same_subtree="+strings.Join(set, ","))
	}
	if q.GroupPolicy != "" {
		parts = append(parts, "group_policy="+q.GroupPolicy)
	}
	if q.Limit > 0 {
		parts = append(parts, "limit="+strconv.Itoa(q.Limit))
	}
	return strings.Join(parts, "&")
}
