package planner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// describe renders a plan as a reviewer checks it: one line per change,
// the steps in order, and the diagnostics.
func describe(p *Plan, diags diag.Diagnostics) string {
	var b strings.Builder
	if p != nil {
		fmt.Fprintf(&b, "mode %s lineage %q serial %d\n", p.Mode, p.Lineage, p.Serial)
		b.WriteString("changes:\n")
		for _, c := range p.Changes {
			fmt.Fprintf(&b, "  %s %s", c.Address, c.Action)
			if c.Reason != ReasonNone {
				fmt.Fprintf(&b, " because %s", c.Reason)
			}
			if len(c.ReasonPaths) > 0 {
				fmt.Fprintf(&b, " paths=%s", strings.Join(c.ReasonPaths, ","))
			}
			if len(c.ForcedBy) > 0 {
				fmt.Fprintf(&b, " forced_by=%s", strings.Join(c.ForcedBy, ","))
			}
			if len(c.OperationPaths) > 0 {
				fmt.Fprintf(&b, " operation_paths=%s", strings.Join(c.OperationPaths, ","))
			}
			b.WriteString("\n")
		}
		b.WriteString("steps:\n")
		for _, s := range p.Steps() {
			fmt.Fprintf(&b, "  %s %s\n", s.Op, s.Address)
		}
		fmt.Fprintf(&b, "summary: %+v\n", p.Summary)
		fmt.Fprintf(&b, "has changes: %v\n", p.HasChanges())
	} else {
		b.WriteString("no plan\n")
	}
	if len(diags) > 0 {
		b.WriteString("diagnostics:\n")
		for _, d := range diags.Sort() {
			fmt.Fprintf(&b, "  %s [%s]\n", d.Error(), d.Code)
		}
	}
	return b.String()
}

func caseDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("testdata", "cases", "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	return dirs
}

// TestCases plans every fixture folder and compares the result with its
// expected.txt, checks the plan invariants, and that the plan file form
// is deterministic and survives a round trip.
func TestCases(t *testing.T) {
	for _, dir := range caseDirs(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			g, st, opts := loadCase(t, dir)
			p, diags := Diff(context.Background(), g, st, opts)
			testutil.Golden(t, filepath.Join(dir, "expected.txt"), []byte(describe(p, diags)))
			if p == nil {
				return
			}
			checkInvariants(t, p)
			var first, again, round bytes.Buffer
			if err := Encode(&first, p); err != nil {
				t.Fatal(err)
			}
			g2, st2, opts2 := loadCase(t, dir)
			p2, _ := Diff(context.Background(), g2, st2, opts2)
			if err := Encode(&again, p2); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), again.Bytes()) {
				t.Error("plan file not byte-identical for the same input")
			}
			back, err := Decode(bytes.NewReader(first.Bytes()))
			if err != nil {
				t.Fatalf("decode: %v", err)
			}
			if err := Encode(&round, back); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(first.Bytes(), round.Bytes()) {
				t.Errorf("round trip changed the plan:\n%s\n%s", first.Bytes(), round.Bytes())
			}
			if bytes.Contains(first.Bytes(), []byte("s3cret")) {
				t.Error("a sensitive value reached the plan file")
			}
		})
	}
}

// checkInvariants verifies the ordering promises of Steps on any plan:
// creates and updates after their dependencies' creates, deletes before
// the deletes of what they depended on, every changed resource stepped.
func checkInvariants(t *testing.T, p *Plan) {
	t.Helper()
	steps := p.Steps()
	pos := map[string]int{}
	for i, s := range steps {
		pos[s.Op.String()+" "+s.Address] = i
	}
	for _, c := range p.Changes {
		if c.Action.IsChange() || c.Action == Read {
			found := false
			for _, s := range steps {
				found = found || s.Address == c.Address
			}
			if !found {
				t.Errorf("%s (%s) has no step", c.Address, c.Action)
			}
		}
		for _, op := range []string{"create ", "update ", "read "} {
			at, ok := pos[op+c.Address]
			if !ok {
				continue
			}
			for _, d := range c.Dependencies {
				for _, dop := range []string{"create ", "update ", "read "} {
					if dp, ok := pos[dop+d]; ok && dp > at {
						t.Errorf("%s%s before %s%s", op, c.Address, dop, d)
					}
				}
			}
		}
		if at, ok := pos["delete "+c.Address]; ok {
			for _, d := range c.PriorDependencies {
				if dp, ok := pos["delete "+d]; ok && dp < at {
					t.Errorf("delete %s after delete of its dependency %s", c.Address, d)
				}
			}
		}
	}
}

type fakeRefresher map[string]state.Feedback

func (f fakeRefresher) Refresh(_ context.Context, r *state.Resource) (state.Feedback, error) {
	fb, ok := f[r.Address]
	if !ok {
		return state.Feedback{}, errors.New("object not found")
	}
	return fb, nil
}

func TestRefreshOnlyDrift(t *testing.T) {
	g, st, _ := loadCase(t, filepath.Join("testdata", "cases", "no_changes"))
	rf := fakeRefresher{}
	for _, r := range st.Resources {
		rf[r.Address] = r.Feedback
	}
	web := rf["web"]
	web.Attributes = map[string]graph.Value{"ip": "10.9.9.9"}
	web.Status.Active = false
	rf["web"] = web
	delete(rf, "lb")
	p, diags := Diff(context.Background(), g, st, Options{RefreshOnly: true, Refresher: rf})
	if len(p.Changes) != 0 {
		t.Errorf("refresh-only plan has changes: %v", p.Changes)
	}
	if len(p.Drift) != 1 || p.Drift[0].Address != "web" || strings.Join(p.Drift[0].Paths, ",") != "attributes.ip,status.active" {
		t.Errorf("drift %+v", p.Drift)
	}
	if !p.HasChanges() {
		t.Error("drift not reported as a change to record")
	}
	if len(diags) != 1 || diags[0].Code != CodeRefresh || !strings.Contains(diags[0].Summary, "lb") {
		t.Errorf("diags %v", diags)
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, diags := Diff(ctx, graph.New(), nil, Options{})
	if p != nil || len(diags) != 1 || diags[0].Code != CodeCanceled {
		t.Errorf("got %v %v", p, diags)
	}
}

func TestCanUpdateInPlace(t *testing.T) {
	op := map[string]graph.Operation{"x": {}}
	for _, tc := range []struct {
		d    graph.Driver
		want bool
	}{
		{graph.Driver{Name: graph.DriverNoop}, true},
		{graph.Driver{Name: graph.DriverExec}, false},
		{graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{"Standard.configure": {}}}, true},
		{graph.Driver{Name: graph.DriverExec, Operations: op}, false},
		{graph.Driver{Name: graph.DriverScripted, Operations: map[string]graph.Operation{graph.OpReconfigure: {}}}, true},
		{graph.Driver{Name: graph.DriverScripted, Operations: op}, false},
		{graph.Driver{Name: "other", Operations: map[string]graph.Operation{"Standard.configure": {}}}, false},
	} {
		if got := canUpdateInPlace(tc.d); got != tc.want {
			t.Errorf("%+v: %v", tc.d, got)
		}
	}
}

func TestChangedPaths(t *testing.T) {
	u := graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "ip"}}
	for _, tc := range []struct {
		a, b map[string]graph.Value
		want string
	}{
		{map[string]graph.Value{"a": int64(1)}, map[string]graph.Value{"a": 1.0}, ""},
		{map[string]graph.Value{"a": int64(1), "b": "x"}, map[string]graph.Value{"a": int64(2), "c": "x"}, "a,b,c"},
		{map[string]graph.Value{"m": map[string]graph.Value{"k": "v", "z": true}}, map[string]graph.Value{"m": map[string]graph.Value{"k": "w", "z": true}}, "m.k"},
		{map[string]graph.Value{"l": []graph.Value{"a", "b"}}, map[string]graph.Value{"l": []graph.Value{"a", "c"}}, "l.1"},
		{map[string]graph.Value{"l": []graph.Value{"a"}}, map[string]graph.Value{"l": []graph.Value{"a", "c"}}, "l"},
		{map[string]graph.Value{"u": u}, map[string]graph.Value{"u": u}, ""},
		{map[string]graph.Value{"u": u}, map[string]graph.Value{"u": graph.Unknown{Func: "attribute", Args: []graph.Value{"db", "port"}}}, "u"},
		{map[string]graph.Value{"u": u}, map[string]graph.Value{"u": "10.0.0.1"}, "u"},
	} {
		if got := strings.Join(ChangedPaths(tc.a, tc.b), ","); got != tc.want {
			t.Errorf("%v vs %v: %q want %q", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestStale(t *testing.T) {
	g, st, opts := loadCase(t, filepath.Join("testdata", "cases", "update_in_place"))
	dir := t.TempDir()
	src := filepath.Join(dir, "stack.yaml")
	if err := os.WriteFile(src, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	digests, err := Digests([]string{src}, map[string]graph.Value{"region": "eu"}, testSalt)
	if err != nil {
		t.Fatal(err)
	}
	opts.InputDigests = digests
	p, _ := Diff(context.Background(), g, st, opts)
	file := filepath.Join(dir, "plan.xosplan")
	if err := WritePlanFile(file, p); err != nil {
		t.Fatal(err)
	}
	back, err := ReadPlanFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckStale(back, st, digests); err != nil {
		t.Errorf("fresh plan stale: %v", err)
	}
	bumped := *st
	bumped.Serial++
	other := *st
	other.Lineage = "other"
	if d := digests["var.region"]; !strings.HasPrefix(d, "argon2id:") || strings.Contains(d, "eu") {
		t.Errorf("value digest %q", d)
	}
	other2, _ := Digests(nil, map[string]graph.Value{"region": "us"}, testSalt)
	if other2["var.region"] == digests["var.region"] {
		t.Error("different values, same digest")
	}
	changed := map[string]string{src: Digest([]byte("a: 2\n")), "var.zone": Digest([]byte(`"x"`))}
	for _, tc := range []struct {
		name    string
		st      *state.State
		digests map[string]string
		want    []string
	}{
		{"serial", &bumped, digests, []string{"serial 8, the plan was made at serial 7"}},
		{"lineage", &other, digests, []string{`state has lineage "other"`}},
		{"no state", nil, digests, []string{`state has lineage ""`}},
		{"inputs", st, changed, []string{"input file " + src + " changed", "input value region was used by the plan but is not given now", "input value zone is new"}},
	} {
		err := CheckStale(back, tc.st, tc.digests)
		if !errors.Is(err, ErrStalePlan) {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", tc.name, err, w)
			}
		}
	}
}

func TestDecodeRejects(t *testing.T) {
	g, st, opts := loadCase(t, filepath.Join("testdata", "cases", "update_in_place"))
	p, _ := Diff(context.Background(), g, st, opts)
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for name, data := range map[string]string{
		"tampered": strings.Replace(good, `"port":8080`, `"port":8081`, 1),
		"version":  strings.Replace(good, `"format_version":"2.0"`, `"format_version":"1.0"`, 1),
		"garbage":  "\x00\x01not json",
		"empty":    "",
		"action":   strings.Replace(good, `"action":"update"`, `"action":"explode"`, 1),
	} {
		if _, err := Decode(strings.NewReader(data)); !errors.Is(err, ErrBadPlanFile) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, dir := range []string{"update_in_place", "replace_cascade", "unmanaged"} {
		g, st, opts := loadCase(f, filepath.Join("testdata", "cases", dir))
		p, _ := Diff(context.Background(), g, st, opts)
		var buf bytes.Buffer
		if err := Encode(&buf, p); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte(`{"format_version":"1.0","resource_changes":[{"before":{"$unknown":{"func":1}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := Encode(&buf, p); err != nil {
			t.Fatalf("decoded plan does not encode: %v", err)
		}
		_ = p.Steps()
	})
}

func TestChangesNameThePolicyThatDerivesTheResource(t *testing.T) {
	g := graph.New()
	for _, r := range []*graph.Resource{
		{Address: "net", Type: "net", Management: graph.Managed, Spec: map[string]graph.Value{}},
		{Address: "p.net-if", Type: "iface", Management: graph.Managed, Spec: map[string]graph.Value{}, DerivedBy: "p"},
	} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	prior := &state.State{Lineage: "l", Resources: []state.Resource{
		{Address: "p.gone-if", Type: "iface", Management: graph.Managed, Spec: map[string]graph.Value{}, DerivedBy: "p",
			Feedback: state.Feedback{BackendCode: state.BackendOK}},
	}}
	p, diags := Diff(context.Background(), g, prior, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := map[string]string{}
	for _, c := range p.Changes {
		got[c.Address] = c.Action.String() + " " + c.DerivedBy
	}
	want := map[string]string{"net": "create ", "p.net-if": "create p", "p.gone-if": "delete p"}
	if !maps.Equal(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
	// The plan file keeps it, and a plan read back is the same plan.
	back := readBack(t, p)
	for _, c := range back.Changes {
		if c.Address == "p.net-if" && c.DerivedBy != "p" {
			t.Errorf("the plan file lost derived_by: %+v", c)
		}
	}
}

// XOS's rule: a resource saved without change since the version enacted
// (updated > enacted; `xosplan touch`) is actuated again, the create run
// over the recorded object; an unmanaged one is read again. Its
// dependents are left alone, and a spec change keeps its own reason.
func TestTouchedResourceRunsAgain(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	touched := state.Versions{Updated: t0.Add(time.Second), Enacted: t0}
	g := graph.New()
	for _, r := range []*graph.Resource{
		{Address: "db", Type: "db", Management: graph.Managed, Spec: map[string]graph.Value{"n": int64(1)}},
		{Address: "web", Type: "web", Management: graph.Managed, Spec: map[string]graph.Value{}},
		{Address: "site", Type: "site", Management: graph.Unmanaged, Spec: map[string]graph.Value{}},
		{Address: "changed", Type: "c", Management: graph.Managed, Spec: map[string]graph.Value{"n": int64(2)}},
	} {
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddEdge(graph.Edge{Source: "web", Target: "db", Kind: graph.DependsOn}); err != nil {
		t.Fatal(err)
	}
	ok := state.Feedback{BackendCode: state.BackendOK, Enacted: t0}
	prior := &state.State{Lineage: "l", Resources: []state.Resource{
		{Address: "changed", Type: "c", Management: graph.Managed, Spec: map[string]graph.Value{"n": int64(1)}, Versions: touched, Feedback: ok},
		{Address: "db", Type: "db", Management: graph.Managed, Spec: map[string]graph.Value{"n": int64(1)}, Versions: touched, Feedback: ok},
		{Address: "site", Type: "site", Management: graph.Unmanaged, Spec: map[string]graph.Value{}, Versions: touched, Feedback: ok},
		{Address: "web", Type: "web", Management: graph.Managed, Spec: map[string]graph.Value{}, Versions: state.Versions{Updated: t0, Enacted: t0}, Feedback: ok},
	}}
	p, diags := Diff(context.Background(), g, prior, Options{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	got := map[string]string{}
	for _, c := range p.Changes {
		got[c.Address] = c.Action.String() + " " + c.Reason.String()
		if c.Address == "db" && !c.Reruns() {
			t.Errorf("the touched db is not run again over its record: %+v", c)
		}
	}
	want := map[string]string{"db": "create touched", "web": "no-op ", "site": "read touched", "changed": "delete-then-create replace_because_cannot_update"}
	if !maps.Equal(got, want) {
		t.Errorf("changes %v, want %v", got, want)
	}
}

// readBack writes p as a plan file, reads it back and checks the two
// are the same plan.
func readBack(t *testing.T, p *Plan) *Plan {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if err := Verify(p, back); err != nil {
		t.Errorf("read back: %v", err)
	}
	return back
}
