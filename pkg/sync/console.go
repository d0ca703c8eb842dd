package sync

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/xosplan/xosplan/internal/graphview"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// The statuses the console colours a resource by (ConsoleStatus).
const (
	ConsoleActive     = "active"
	ConsoleConverging = "converging"
	ConsoleFailed     = "failed"
	ConsoleWaiting    = "waiting"
	ConsolePending    = "pending"
	ConsoleNotCreated = "not created"
)

// ConsoleStatus is the one word the console shows for a resource: failed
// (its actuator or the engine says so), waiting (on another resource, a
// retry or a change), converging, not created (configured, not
// recorded), active, or pending (recorded, not yet settled).
func ConsoleStatus(rs ResourceStatus) string {
	switch {
	case rs.Flags.Failed || rs.Status == "error" || rs.LastError != "":
		return ConsoleFailed
	case rs.WaitingOn != "" || rs.Waiting != "":
		return ConsoleWaiting
	case rs.Flags.Converging || rs.Status == "converging":
		return ConsoleConverging
	case rs.Status == "not_created":
		return ConsoleNotCreated
	case rs.Flags.Active || rs.Status == "active" || rs.Status == "ok":
		return ConsoleActive
	}
	return ConsolePending
}

// statusClass is the class the console's style sheet colours a status by.
func statusClass(s string) string { return "st-" + strings.ReplaceAll(s, " ", "-") }

// GraphNode is one resource of a GraphPage.
type GraphNode struct {
	Address   string     `json:"address"`
	Type      string     `json:"type,omitempty"`
	Status    string     `json:"status"`
	Waiting   string     `json:"waiting,omitempty"`
	NextCheck *time.Time `json:"next_check,omitempty"`
	NextRetry *time.Time `json:"next_retry,omitempty"`
}

// PageRef describes one page of the graph: its first and last address.
type PageRef struct {
	First string `json:"first"`
	Last  string `json:"last"`
	Count int    `json:"count"`
}

// GraphPage is one page of the console's graph: at most
// graphview.MaxPageNodes resources, drawn as SVG.
type GraphPage struct {
	// Page is this page's index (from 0) of Pages; Total counts every
	// resource, Counts them by ConsoleStatus.
	Page   int            `json:"page"`
	Pages  []PageRef      `json:"pages"`
	Total  int            `json:"total"`
	Counts map[string]int `json:"counts"`
	// SVG draws the page (graphview.SVG); Key identifies its drawing (the
	// same Key, the same nodes and edges: a page needs recolouring only).
	SVG   string      `json:"svg"`
	Key   string      `json:"key"`
	Nodes []GraphNode `json:"nodes"`
	// Outside counts the edges between this page's resources and
	// resources on other pages (either way), which are not drawn.
	Outside int `json:"outside_edges"`
}

// Graph returns page of the console's graph (clamped to the pages there
// are), or, when find names a resource, the page that holds it. Resources
// are those of Status; edges those of the configuration (the recorded
// dependencies where it did not compile).
func (e *Engine) Graph(page int, find string) GraphPage {
	st := e.Status()
	deps := e.dependencies(st.Resources)
	pages := graphview.Pages(deps, graphview.MaxPageNodes)
	gp := GraphPage{Total: len(st.Resources), Counts: map[string]int{}, Pages: make([]PageRef, 0, len(pages)), Nodes: []GraphNode{}}
	statuses := make([]string, len(st.Resources))
	for i, rs := range st.Resources {
		statuses[i] = ConsoleStatus(rs)
		gp.Counts[statuses[i]]++
	}
	for p, nodes := range pages {
		gp.Pages = append(gp.Pages, PageRef{First: st.Resources[nodes[0]].Address, Last: st.Resources[nodes[len(nodes)-1]].Address, Count: len(nodes)})
		if find != "" {
			if _, ok := slices.BinarySearchFunc(nodes, find, func(i int, a string) int { return strings.Compare(st.Resources[i].Address, a) }); ok {
				page = p
			}
		}
	}
	if len(pages) == 0 {
		return gp
	}
	gp.Page = min(max(page, 0), len(pages)-1)
	nodes := pages[gp.Page]
	sub := graphview.Induced(deps, nodes)
	drawn := make([]graphview.Node, len(nodes))
	var key strings.Builder
	for k, i := range nodes {
		rs := st.Resources[i]
		drawn[k] = graphview.Node{Label: rs.Address, Sub: rs.Type, State: statuses[i], Class: statusClass(statuses[i]),
			Href: "#/resource/" + url.PathEscape(rs.Address), Key: rs.Address}
		gp.Nodes = append(gp.Nodes, GraphNode{Address: rs.Address, Type: rs.Type, Status: statuses[i], Waiting: rs.Waiting,
			NextCheck: rs.NextCheck, NextRetry: rs.NextRetry})
		key.WriteString(rs.Address + "\x00" + rs.Type + "\x00")
		for _, d := range sub[k] {
			key.WriteString(strconv.Itoa(d) + ",")
		}
		key.WriteString("\n")
	}
	onPage := make([]bool, len(deps))
	for _, i := range nodes {
		onPage[i] = true
	}
	for i, ds := range deps {
		for _, d := range ds {
			if onPage[i] != onPage[d] {
				gp.Outside++
			}
		}
	}
	var b strings.Builder
	graphview.SVG(&b, drawn, sub, graphview.Lay(sub), graphview.Options{
		Label: "Dependency graph, page " + strconv.Itoa(gp.Page+1) + " of " + strconv.Itoa(len(pages)) + ": " + strconv.Itoa(len(nodes)) + " resources"})
	gp.SVG = b.String()
	gp.Key = shortDigest(key.String())
	return gp
}

// dependencies returns, for each resource of list (sorted by address),
// the indices of those it depends on: the configuration's edges, or the
// recorded dependencies of a resource the configuration lacks.
func (e *Engine) dependencies(list []ResourceStatus) [][]int {
	ids := make(map[string]int, len(list))
	for i, rs := range list {
		ids[rs.Address] = i
	}
	deps := make([][]int, len(list))
	e.mu.Lock()
	defer e.mu.Unlock()
	configured := map[string]bool{}
	if e.goal != nil {
		x := e.goal.Desired.Index()
		for i, ds := range x.Deps {
			from, ok := ids[x.Addrs[i]]
			if !ok {
				continue
			}
			configured[x.Addrs[i]] = true
			for _, d := range ds {
				if to, ok := ids[x.Addrs[d]]; ok {
					deps[from] = append(deps[from], to)
				}
			}
		}
	}
	if e.recorded != nil {
		for i := range e.recorded.Resources {
			r := &e.recorded.Resources[i]
			from, ok := ids[r.Address]
			if !ok || configured[r.Address] {
				continue
			}
			for _, d := range r.Dependencies {
				if to, ok := ids[d]; ok && !slices.Contains(deps[from], to) {
					deps[from] = append(deps[from], to)
				}
			}
		}
	}
	return deps
}

// ResourceDetail is a resource as the console's resource page shows it:
// its status and activity (ResourceStatus), what it is configured as and
// what its actuator reported, with every sensitive value masked.
type ResourceDetail struct {
	ResourceStatus
	// ConsoleStatus is the word the console colours it by.
	ConsoleStatus string `json:"console_status"`
	Management    string `json:"management,omitempty"`
	InstanceID    string `json:"instance_id,omitempty"`
	// StatusMessage is the message of its last reported status.
	StatusMessage string `json:"status_message,omitempty"`
	// Spec is the recorded (enacted) spec, or the configured one of a
	// resource not created yet; Configured says which.
	Spec       map[string]graph.Value `json:"spec"`
	Configured bool                   `json:"configured_spec,omitempty"`
	Attributes map[string]graph.Value `json:"attributes,omitempty"`
	Signals    map[string]graph.Value `json:"signals,omitempty"`
	// Dependencies and Dependents are the configured edges.
	Dependencies []string `json:"dependencies"`
	Dependents   []string `json:"dependents"`
	// Instances are a factory's discovered, unmanaged instances, and
	// AdoptAs the configured, unrecorded components of the factory one
	// may be adopted as.
	Instances []executor.DiscoveredInstance `json:"instances,omitempty"`
	AdoptAs   []string                      `json:"adopt_as,omitempty"`
}

// ResourceDetail returns the detail of addr, encoded as JSON, with every
// sensitive value masked: the paths the configuration marks sensitive
// read state.SensitiveMarker (state.Resource.Redacted), and every secret
// the state and the configuration know, in any of the forms a script may
// print it in, is replaced wherever it appears (activity, errors,
// attributes). false: neither the state nor the configuration has it.
func (e *Engine) ResourceDetail(addr string) ([]byte, bool) {
	rs, ok := e.Resource(addr)
	if !ok {
		return nil, false
	}
	d := ResourceDetail{ResourceStatus: rs, ConsoleStatus: ConsoleStatus(rs), Dependencies: []string{}, Dependents: []string{}}
	d.Discovered = nil // shown as Instances
	e.mu.Lock()
	recorded, goal := e.recorded, e.goal
	e.mu.Unlock()
	var rec *state.Resource
	if recorded != nil {
		rec, _ = recorded.Lookup(addr)
	}
	var conf *graph.Resource
	if goal != nil {
		conf, _ = goal.Desired.Resource(addr)
	}
	switch {
	case rec != nil:
		red := rec.Redacted()
		fb := red.Feedback
		d.Management, d.InstanceID, d.StatusMessage = string(red.Management), fb.InstanceID, fb.Status.Message
		d.Spec, d.Attributes, d.Signals = red.Spec, fb.Attributes, fb.Signals
		d.Instances = executor.FactoryDiscoveries(rec)
		if _, found := d.Attributes[executor.AttrDiscovered]; found {
			d.Attributes = maps.Clone(d.Attributes)
			delete(d.Attributes, executor.AttrDiscovered)
		}
		d.Dependencies = append(d.Dependencies, rec.Dependencies...)
	case conf != nil:
		masked := (&state.Resource{Spec: conf.Spec, Sensitive: conf.Sensitive}).Redacted()
		d.Management, d.Spec, d.Configured = string(conf.Management), masked.Spec, true
	}
	if goal != nil {
		for _, r := range goal.Desired.Resources() {
			if fa, _ := r.Driver.Options[executor.OptionFactoryAddress].(string); fa == addr && (recorded == nil || !has(recorded, r.Address)) {
				d.AdoptAs = append(d.AdoptAs, r.Address)
			}
		}
		x := goal.Desired.Index()
		if i, ok := x.IDs[addr]; ok {
			d.Dependencies = d.Dependencies[:0]
			for _, j := range x.Deps[i] {
				d.Dependencies = append(d.Dependencies, x.Addrs[j])
			}
			for _, j := range x.Dependents[i] {
				d.Dependents = append(d.Dependents, x.Addrs[j])
			}
		}
	}
	if d.Spec == nil {
		d.Spec = map[string]graph.Value{}
	}
	var g *graph.Graph
	if goal != nil {
		g = goal.Desired
	}
	out, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		out, _ = json.Marshal(map[string]string{"error": "the resource cannot be shown: " + err.Error()})
	}
	return []byte(executor.NewRedactorFor(recorded, g).String(string(out))), true
}

func has(st *state.State, addr string) bool {
	_, ok := st.Lookup(addr)
	return ok
}

// shortDigest is a short, stable hash of s (FNV-1a, 64 bits, hex).
func shortDigest(s string) string {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return strconv.FormatUint(h, 16)
}
