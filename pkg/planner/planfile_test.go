package planner

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// testSalt is a fixed input salt for tests that need repeatable digests.
const testSalt = "00112233445566778899aabbccddeeff"

// The same input value gives another digest in every plan (each plan has
// its own random salt), one that neither shows the value nor is the plain
// hash anyone could test guesses against; under the plan's salt the digest
// is the same again, so apply still notices a changed value.
func TestInputValueDigestsAreSaltedPerPlan(t *testing.T) {
	value := map[string]graph.Value{"db_password": "summer2024"}
	var digests []string
	for range 2 {
		salt, err := NewInputSalt()
		if err != nil {
			t.Fatal(err)
		}
		d, err := Digests(nil, value, salt)
		if err != nil {
			t.Fatal(err)
		}
		again, err := Digests(nil, value, salt)
		if err != nil {
			t.Fatal(err)
		}
		if d["var.db_password"] != again["var.db_password"] {
			t.Fatal("the same value under the same salt digests differently: apply could never match it")
		}
		changed, err := Digests(nil, map[string]graph.Value{"db_password": "summer2025"}, salt)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckStale(&Plan{InputDigests: d}, nil, changed)
		if !errors.Is(err, ErrStalePlan) || !strings.Contains(err.Error(), "input value db_password changed since the plan was made") {
			t.Errorf("a changed value is not noticed: %v", err)
		}
		digests = append(digests, d["var.db_password"])
	}
	if digests[0] == digests[1] {
		t.Errorf("two plans digest the same value alike: %s", digests[0])
	}
	for _, d := range digests {
		if !strings.HasPrefix(d, "argon2id:") || strings.Contains(d, "summer") || d == Digest([]byte(`"summer2024"`)) {
			t.Errorf("digest %q", d)
		}
	}
	for _, salt := range []string{"", "abcd", "not hex at all, but long enough"} {
		if _, err := Digests(nil, value, salt); err == nil {
			t.Errorf("salt %q was accepted", salt)
		}
	}
}

// A plan read back from its file that differs in anything from the plan
// made again is refused, naming the resource and the field that differs.
func TestVerifyNamesTheFirstDifference(t *testing.T) {
	g, st, opts := loadCase(t, filepath.Join("testdata", "cases", "update_in_place"))
	opts.InputSalt, opts.Configuration = testSalt, []string{"stack.yaml"}
	opts.InputDigests = map[string]string{"stack.yaml": Digest([]byte("a: 1\n"))}
	again, diags := Diff(context.Background(), g, st, opts)
	if again == nil || diags.HasErrors() {
		t.Fatalf("plan failed: %v", diags)
	}
	cases := []struct {
		name string
		edit func(p *Plan)
		want string // "" = accepted
	}{
		{"unedited", func(*Plan) {}, ""},
		{"implementation", func(p *Plan) {
			c, _ := p.Change("web")
			op := c.Driver.Operations["Standard.create"]
			op.Implementation = "/tmp/evil.sh"
			c.Driver.Operations["Standard.create"] = op
		}, `resource "web": driver.operations["Standard.create"].implementation differs`},
		{"value", func(p *Plan) {
			c, _ := p.Change("web")
			c.After = map[string]graph.Value{"port": int64(1)}
		}, `resource "web": after`},
		{"action", func(p *Plan) {
			c, _ := p.Change("db")
			c.Action = Delete
		}, `resource "db": action differs`},
		{"an added resource", func(p *Plan) {
			p.Changes = append(p.Changes, ResourceChange{Address: "evil", Type: "x", Action: Create})
		}, `resource "evil" is not in the plan its configuration gives`},
		{"a dropped resource", func(p *Plan) {
			p.Changes = p.Changes[1:]
		}, "is not in the plan file"},
		{"input digests emptied", func(p *Plan) { p.InputDigests = map[string]string{} }, `input_digests["stack.yaml"] differs`},
		{"salt", func(p *Plan) { p.InputSalt = "ffeeddccbbaa99887766554433221100" }, "input_salt differs"},
		{"placement", func(p *Plan) {
			c, _ := p.Change("host")
			c.Placement = &PlacementDecision{Query: "resources=VCPU:1"}
		}, `resource "host": placement differs`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			saved := fileRoundTrip(t, again)
			tc.edit(saved)
			id, err := ComputeID(saved)
			if err != nil {
				t.Fatal(err)
			}
			saved.PlanID = id // a forger recomputes the ID; it must not help
			err = Verify(saved, again)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("the unedited plan is refused: %v", err)
			case tc.want == "":
			case !errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), tc.want):
				t.Errorf("got %v, want a mismatch naming %q", err, tc.want)
			}
		})
	}
}

// fileRoundTrip returns p as a plan file reads back.
func fileRoundTrip(t testing.TB, p *Plan) *Plan {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, p); err != nil {
		t.Fatal(err)
	}
	back, err := Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return back
}

// A plan records the state it was made against and keeps it through its
// file; CheckState refuses it for any other state (another file, database,
// schema or workspace, even one with the same lineage), naming both; a plan
// file whose recorded state was edited is refused by Verify; and a plan
// bound to no state encodes without the field.
func TestPlanIsBoundToItsState(t *testing.T) {
	g, st, opts := loadCase(t, filepath.Join("testdata", "cases", "update_in_place"))
	opts.InputSalt, opts.Configuration = testSalt, []string{"stack.yaml"}
	unbound, diags := Diff(context.Background(), g, st, opts)
	if unbound == nil || diags.HasErrors() {
		t.Fatalf("plan failed: %v", diags)
	}
	var buf bytes.Buffer
	if err := Encode(&buf, unbound); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), `"state"`) {
		t.Errorf("a plan bound to no state records one:\n%s", buf.String())
	}
	if err := CheckState(unbound, state.Identity{Backend: state.BackendFile, Path: "x.json", Workspace: "default"}); err != nil {
		t.Errorf("a plan bound to no state is refused: %v", err)
	}

	staging := state.Identity{Backend: state.BackendPostgres, Database: "postgres://db:5432/xosplan", Schema: "public", Workspace: "staging"}
	opts.State = &staging
	bound, diags := Diff(context.Background(), g, st, opts)
	if bound == nil || diags.HasErrors() {
		t.Fatalf("plan failed: %v", diags)
	}
	saved := fileRoundTrip(t, bound)
	if saved.State == nil || *saved.State != staging {
		t.Fatalf("the plan file records state %+v, want %+v", saved.State, staging)
	}
	if got := saved.Options().State; got == nil || *got != staging {
		t.Errorf("Options() gives state %+v: a plan made again would not be bound alike", got)
	}
	if err := CheckState(saved, staging); err != nil {
		t.Errorf("the plan is refused for its own state: %v", err)
	}
	for _, other := range []state.Identity{
		{Backend: state.BackendPostgres, Database: "postgres://db:5432/xosplan", Schema: "public", Workspace: "default"},
		{Backend: state.BackendPostgres, Database: "postgres://db:5432/xosplan", Schema: "team2", Workspace: "staging"},
		{Backend: state.BackendPostgres, Database: "postgres://db:5432/other", Schema: "public", Workspace: "staging"},
		{Backend: state.BackendFile, Path: "xosplan.state.json", Workspace: "default"},
	} {
		err := CheckState(saved, other)
		if !errors.Is(err, ErrWrongState) || !strings.Contains(err.Error(), staging.String()) || !strings.Contains(err.Error(), other.String()) {
			t.Errorf("applied to %v: got %v, want ErrWrongState naming both states", other, err)
		}
	}
	edited := fileRoundTrip(t, bound)
	edited.State = &state.Identity{Backend: state.BackendPostgres, Database: staging.Database, Schema: "public", Workspace: "default"}
	if edited.PlanID, _ = ComputeID(edited); Verify(edited, bound) == nil {
		t.Error("a plan file whose recorded state was edited passes Verify")
	}
}
