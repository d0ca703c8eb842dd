package executor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/state"
)

// openState opens the file backend at path.
func openState(t testing.TB, path string) *state.File {
	t.Helper()
	f, err := state.OpenFile(path, state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// planFrom plans g against what st holds now.
func planFrom(t testing.TB, g *graph.Graph, st *state.File, opts planner.Options) (*planner.Plan, *state.State) {
	t.Helper()
	cur, err := st.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return planOf(t, g, cur, opts), cur
}

func diamond(t testing.TB) *graph.Graph {
	return buildGraph(t, res{addr: "net"}, res{addr: "db", deps: []string{"net"}}, res{addr: "web", deps: []string{"net"}},
		res{addr: "app", deps: []string{"db", "web"}}, res{addr: "lonely"})
}

func TestApplyWithFileState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "xosplan.state.json")
	st := openState(t, path)
	g := diamond(t)
	reg := Registry{fakeName: newFake()}
	p, _ := planFrom(t, g, st, planner.Options{})
	rep, err := Apply(context.Background(), p, st, reg, fastOpts())
	if err != nil || !rep.OK() || rep.Added != 5 {
		t.Fatalf("apply: %+v, %v", rep, err)
	}
	if _, err := os.Stat(path + state.JournalSuffix); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal was not compacted away: %v", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	saved, err := state.Decode(data)
	if err != nil {
		t.Fatalf("the saved state is not valid: %v", err)
	}
	if len(saved.Resources) != 5 || saved.Serial != 1 {
		t.Errorf("saved %d resources at serial %d", len(saved.Resources), saved.Serial)
	}
	p, _ = planFrom(t, g, st, planner.Options{})
	if p.HasChanges() {
		t.Errorf("re-plan has changes: %+v", p.Summary)
	}
	// Destroy empties it.
	p, _ = planFrom(t, g, st, planner.Options{Destroy: true})
	rep, err = Apply(context.Background(), p, st, reg, fastOpts())
	if err != nil || rep.Destroyed != 5 {
		t.Fatalf("destroy: %+v, %v", rep, err)
	}
	if cur, _ := st.Read(context.Background()); len(cur.Resources) != 0 {
		t.Errorf("%d resources left after destroy", len(cur.Resources))
	}
}

// crashJournal stops writing after limit records, as a killed process
// would: what was appended before is on disk, nothing after.
type crashJournal struct {
	j     *state.Journal
	limit int64
	n     atomic.Int64
}

var errCrashed = errors.New("crashed")

func (c *crashJournal) Append(ctx context.Context, rec state.Record) (uint64, error) {
	if c.n.Add(1) > c.limit {
		return 0, errCrashed
	}
	return c.j.Append(ctx, rec)
}

// TestCrashAtEveryRecord cuts an apply after every possible number of
// journal records (a kill -9 between two records) and checks that the
// state read back is valid, that the next plan still covers what was not
// done, and that applying it converges to no changes.
func TestCrashAtEveryRecord(t *testing.T) {
	g := diamond(t)
	changed := buildGraph(t, res{addr: "net"}, res{addr: "db", deps: []string{"net"}, spec: map[string]graph.Value{"size": int64(2)}},
		res{addr: "web", deps: []string{"net"}}, res{addr: "app", deps: []string{"db", "web"}})
	scenarios := []struct {
		name     string
		from, to *graph.Graph
	}{
		{"create", nil, g},
		{"replace and delete", g, changed},
	}
	for _, sc := range scenarios {
		for limit := int64(0); limit <= 20; limit++ {
			t.Run(fmt.Sprintf("%s/after %d records", sc.name, limit), func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "s.json")
				ctx := context.Background()
				reg := Registry{fakeName: newFake()}
				if sc.from != nil {
					st := openState(t, path)
					p, _ := planFrom(t, sc.from, st, planner.Options{})
					if _, err := Apply(ctx, p, st, reg, fastOpts()); err != nil {
						t.Fatal(err)
					}
				}
				st := openState(t, path)
				p, cur := planFrom(t, sc.to, st, planner.Options{})
				j, err := st.OpenJournal(ctx)
				if err != nil {
					t.Fatal(err)
				}
				opts := fastOpts()
				opts.Parallelism = 2
				_, walkErr := Walk(ctx, p, cur, &crashJournal{j: j, limit: limit}, reg, opts)
				if err := j.Close(); err != nil {
					t.Fatal(err)
				}
				crashed := walkErr != nil
				// A new process: open the state again, plan, apply.
				st2 := openState(t, path)
				p2, _ := planFrom(t, sc.to, st2, planner.Options{})
				if crashed && !p2.HasChanges() && limit < 2 {
					t.Errorf("after a crash at record %d the plan has no changes", limit)
				}
				rep, err := Apply(ctx, p2, st2, reg, fastOpts())
				if err != nil || !rep.OK() {
					t.Fatalf("recovery apply: %+v, %v", rep, err)
				}
				p3, _ := planFrom(t, sc.to, openState(t, path), planner.Options{})
				if p3.HasChanges() {
					t.Errorf("not converged after recovery: %+v", p3.Summary)
				}
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := state.Decode(data); err != nil {
					t.Errorf("state not valid: %v", err)
				}
			})
		}
	}
}
