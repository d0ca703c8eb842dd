package executor

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// placeLog is the shared event log of placeFake and placeDriver, so a test
// can check that a claim comes before the driver call.
type placeLog struct {
	mu     sync.Mutex
	events []string
}

func (l *placeLog) add(format string, args ...any) {
	l.mu.Lock()
	l.events = append(l.events, fmt.Sprintf(format, args...))
	l.mu.Unlock()
}

// placeFake is a Placer that logs its calls; moveTo makes a claim land
// elsewhere (a re-place), refuse makes it fail.
type placeFake struct {
	log    *placeLog
	moveTo map[string]string
	refuse map[string]bool
	mu     sync.Mutex
	held   map[string][]state.Allocation
}

func (p *placeFake) Claim(_ context.Context, addr string, d *planner.PlacementDecision, prior []state.Allocation) ([]state.Allocation, error) {
	p.log.add("claim %s prior=%d", addr, len(prior))
	if p.refuse[addr] {
		return nil, errors.New("no provider fits any more")
	}
	got := d.Allocations
	if to, ok := p.moveTo[addr]; ok {
		got = []state.Allocation{{Provider: to, Resources: d.Allocations[0].Resources}}
	}
	p.mu.Lock()
	p.held[addr] = got
	p.mu.Unlock()
	return got, nil
}

func (p *placeFake) Held(addr string) ([]state.Allocation, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, ok := p.held[addr]
	return h, ok
}

func (p *placeFake) Undo(_ context.Context, addr string, prior []state.Allocation) {
	p.log.add("undo %s prior=%d", addr, len(prior))
	p.mu.Lock()
	delete(p.held, addr)
	p.mu.Unlock()
}

func (p *placeFake) Release(_ context.Context, addr string) { p.log.add("release %s", addr) }

// placeDriver logs its calls and fails the addresses in fail.
type placeDriver struct {
	log  *placeLog
	fail map[string]bool
}

func (d placeDriver) Apply(_ context.Context, req Request) (Outcome, error) {
	d.log.add("%s %s", req.Action, req.Address)
	if d.fail[req.Address] && req.Action != ActionDelete {
		return Outcome{}, fmt.Errorf("%s broke", req.Address)
	}
	fb := state.Feedback{BackendCode: state.BackendOK, Status: state.Status{Active: true}}
	return Outcome{Gone: req.Action == ActionDelete, Feedback: fb}, nil
}

// placeJournal keeps the outcome records by address.
type placeJournal struct {
	mu   sync.Mutex
	last map[string]state.Record
}

func (j *placeJournal) Append(_ context.Context, rec state.Record) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if rec.Kind == state.RecordOutcome {
		j.last[rec.Address] = rec
	}
	return uint64(len(j.last)), nil
}

func (j *placeJournal) allocations(addr string) []state.Allocation {
	j.mu.Lock()
	defer j.mu.Unlock()
	if r := j.last[addr].Resource; r != nil {
		return r.Feedback.Allocations
	}
	return nil
}

func vcpu(provider string, n int64) []state.Allocation {
	return []state.Allocation{{Provider: provider, Resources: map[string]int64{"VCPU": n}}}
}

func TestWalkPlacement(t *testing.T) {
	type res struct {
		addr string
		deps []string
		// placed on this provider by the plan (with kept: the recorded one)
		on   string
		kept bool
	}
	cases := []struct {
		name    string
		res     []res
		prior   []string // recorded addresses (on "old-host")
		destroy bool
		moveTo  map[string]string
		refuse  map[string]bool
		fail    map[string]bool
		events  []string
		records map[string][]state.Allocation
		results map[string]string
	}{
		{
			name:    "claim before create, record the claim",
			res:     []res{{addr: "vm", on: "h1"}},
			events:  []string{"claim vm prior=0", "create vm"},
			records: map[string][]state.Allocation{"vm": vcpu("h1", 2)},
			results: map[string]string{"vm": ResultApplied},
		},
		{
			name:    "a re-placed claim is what the state records",
			res:     []res{{addr: "vm", on: "h1"}},
			moveTo:  map[string]string{"vm": "h2"},
			events:  []string{"claim vm prior=0", "create vm"},
			records: map[string][]state.Allocation{"vm": vcpu("h2", 2)},
			results: map[string]string{"vm": ResultApplied},
		},
		{
			name:    "a refused claim fails cleanly: no driver call, dependents skipped",
			res:     []res{{addr: "vm", on: "h1"}, {addr: "app", deps: []string{"vm"}}},
			refuse:  map[string]bool{"vm": true},
			events:  []string{"claim vm prior=0"},
			records: map[string][]state.Allocation{"vm": nil},
			results: map[string]string{"vm": ResultFailed, "app": ResultSkipped},
		},
		{
			name:    "a failed create gives its claim back",
			res:     []res{{addr: "vm", on: "h1"}},
			fail:    map[string]bool{"vm": true},
			events:  []string{"claim vm prior=0", "create vm", "undo vm prior=0"},
			records: map[string][]state.Allocation{"vm": nil},
			results: map[string]string{"vm": ResultFailed},
		},
		{
			name:    "an update keeping its placement claims nothing and keeps the record",
			res:     []res{{addr: "vm", on: "old-host", kept: true}},
			prior:   []string{"vm"},
			events:  []string{"update vm"},
			records: map[string][]state.Allocation{"vm": vcpu("old-host", 2)},
			results: map[string]string{"vm": ResultApplied},
		},
		{
			name:    "a resized update claims its new place in place of the old",
			res:     []res{{addr: "vm", on: "h1"}},
			prior:   []string{"vm"},
			events:  []string{"claim vm prior=1", "update vm"},
			records: map[string][]state.Allocation{"vm": vcpu("h1", 2)},
			results: map[string]string{"vm": ResultApplied},
		},
		{
			name:    "a failed update gives the new place back and keeps the old",
			res:     []res{{addr: "vm", on: "h1"}},
			prior:   []string{"vm"},
			fail:    map[string]bool{"vm": true},
			events:  []string{"claim vm prior=1", "update vm", "undo vm prior=1"},
			records: map[string][]state.Allocation{"vm": vcpu("old-host", 2)},
			results: map[string]string{"vm": ResultFailed},
		},
		{
			name:    "destroy releases after the delete",
			prior:   []string{"vm"},
			destroy: true,
			events:  []string{"delete vm", "release vm"},
			results: map[string]string{"vm": ResultApplied},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			g := graph.New()
			for _, r := range tc.res {
				if err := g.AddResource(&graph.Resource{Address: r.addr, Type: "test.T", Driver: graph.Driver{Name: graph.DriverNoop},
					Spec: map[string]graph.Value{"n": int64(1)}, Management: graph.Managed}); err != nil {
					t.Fatal(err)
				}
			}
			for _, r := range tc.res {
				for _, d := range r.deps {
					if err := g.AddEdge(graph.Edge{Source: r.addr, Target: d, Kind: graph.DependsOn}); err != nil {
						t.Fatal(err)
					}
				}
			}
			prior := &state.State{Version: 1, Serial: 1, Lineage: "L"}
			for _, a := range tc.prior {
				prior.Resources = append(prior.Resources, state.Resource{Address: a, Type: "test.T", Management: graph.Managed,
					Driver: graph.Driver{Name: graph.DriverNoop}, Spec: map[string]graph.Value{"n": int64(0)},
					Feedback: state.Feedback{BackendCode: state.BackendOK, Enacted: time.Unix(1e9, 0).UTC(), Allocations: vcpu("old-host", 2)}})
			}
			p, diags := planner.Diff(context.Background(), g, prior, planner.Options{Destroy: tc.destroy})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			for _, r := range tc.res {
				if r.on == "" {
					continue
				}
				c, _ := p.Change(r.addr)
				c.Placement = &planner.PlacementDecision{Allocations: vcpu(r.on, 2), Kept: r.kept}
			}
			log := &placeLog{}
			pl := &placeFake{log: log, moveTo: tc.moveTo, refuse: tc.refuse, held: map[string][]state.Allocation{}}
			j := &placeJournal{last: map[string]state.Record{}}
			rep, err := Walk(context.Background(), p, prior, j, Registry{graph.DriverNoop: placeDriver{log: log, fail: tc.fail}},
				Options{Placer: pl, Retries: -1, Parallelism: 1})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(log.events, tc.events) {
				t.Errorf("events %q, want %q", log.events, tc.events)
			}
			for addr, want := range tc.records {
				if got := j.allocations(addr); !reflect.DeepEqual(got, want) {
					t.Errorf("%s records %v, want %v", addr, got, want)
				}
			}
			got := map[string]string{}
			for _, s := range rep.Steps {
				got[s.Address] = s.Result
			}
			for addr, want := range tc.results {
				if got[addr] != want {
					t.Errorf("%s: %s, want %s (%+v)", addr, got[addr], want, rep.Steps)
				}
			}
		})
	}
}
