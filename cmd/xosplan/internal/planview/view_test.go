package planview

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner"
	"github.com/xosplan/xosplan/pkg/planner/planfixture"
	"github.com/xosplan/xosplan/pkg/state"
)

// The inputs of every case are the planner's fixtures; this package keeps
// only the expected renderings, in testdata/<case>/.
var casesDir = filepath.Join("..", "..", "..", "..", "pkg", "planner", "testdata", "cases")

// loadCase reads a case folder (planfixture.LoadCase) with its options as
// planner Options.
func loadCase(t testing.TB, dir string) (*graph.Graph, *state.State, planner.Options) {
	t.Helper()
	g, st, o := planfixture.LoadCase(t, dir)
	return g, st, planner.Options{Destroy: o.Destroy, RefreshOnly: o.RefreshOnly, Targets: o.Targets,
		Excludes: o.Excludes, Replace: o.Replace, CreateBeforeDestroy: o.CreateBeforeDestroy}
}

var fixedNow = func() time.Time { return time.Date(2026, 11, 22, 1, 2, 3, 456789000, time.UTC) }

// TestGolden renders every planner case in every format.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(casesDir, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in %s: %v", casesDir, err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			g, st, opts := loadCase(t, dir)
			p, diags := planner.Diff(context.Background(), g, st, opts)
			out := filepath.Join("testdata", name)
			if p == nil {
				var ev bytes.Buffer
				if err := NewEvents(&ev, fixedNow).Diagnostics(diags); err != nil {
					t.Fatal(err)
				}
				testutil.Golden(t, filepath.Join(out, "events.jsonl"), ev.Bytes())
				return
			}
			var text, js, ev bytes.Buffer
			if err := Text(&text, p, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if err := JSON(&js, p); err != nil {
				t.Fatal(err)
			}
			e := NewEvents(&ev, fixedNow)
			if err := e.Version("test"); err != nil {
				t.Fatal(err)
			}
			if err := e.Diagnostics(diags); err != nil {
				t.Fatal(err)
			}
			if err := e.Plan(p); err != nil {
				t.Fatal(err)
			}
			md := Markdown(p, MarkdownOptions{})
			var page bytes.Buffer
			if err := HTML(&page, p, HTMLOptions{}); err != nil {
				t.Fatal(err)
			}
			checkHTML(t, p, page.String())
			testutil.Golden(t, filepath.Join(out, "plan.txt"), text.Bytes())
			testutil.Golden(t, filepath.Join(out, "plan.json"), js.Bytes())
			testutil.Golden(t, filepath.Join(out, "events.jsonl"), ev.Bytes())
			testutil.Golden(t, filepath.Join(out, "plan.md"), []byte(md))
			for _, b := range [][]byte{text.Bytes(), js.Bytes(), ev.Bytes(), []byte(md), page.Bytes()} {
				if bytes.Contains(b, []byte("s3cret")) {
					t.Error("a sensitive value was rendered")
				}
			}
			for _, l := range strings.Split(strings.TrimSpace(ev.String()), "\n") {
				var m map[string]any
				if err := json.Unmarshal([]byte(l), &m); err != nil {
					t.Errorf("event line is not JSON: %q", l)
				}
			}
			checkSummaryLine(t, p, text.String())

			// A plan read back from its file (sensitive values redacted)
			// renders the same text.
			var file bytes.Buffer
			if err := planner.Encode(&file, p); err != nil {
				t.Fatal(err)
			}
			back, err := planner.Decode(&file)
			if err != nil {
				t.Fatal(err)
			}
			var again bytes.Buffer
			if err := Text(&again, back, TextOptions{}); err != nil {
				t.Fatal(err)
			}
			if again.String() != text.String() {
				t.Errorf("text from the plan file differs:\n%s", again.String())
			}
		})
	}
}

// checkSummaryLine verifies the exact lines CI tools parse.
func checkSummaryLine(t *testing.T, p *planner.Plan, text string) {
	t.Helper()
	var want string
	switch {
	case !p.HasChanges() && p.Mode == planner.ModeNormal:
		want = "\nNo changes. Your infrastructure matches the configuration.\n"
	case !p.HasChanges():
		want = "\nNo changes."
	default:
		want = "\nPlan: "
	}
	if !strings.Contains(text, want) {
		t.Errorf("text lacks %q", want)
	}
}

func TestColor(t *testing.T) {
	g, st, opts := loadCase(t, filepath.Join(casesDir, "replace_cascade"))
	p, _ := planner.Diff(context.Background(), g, st, opts)
	var plain, color bytes.Buffer
	if err := Text(&plain, p, TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Text(&color, p, TextOptions{Color: true}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plain.String(), "\x1b[") {
		t.Error("escape codes without colour")
	}
	if !strings.Contains(color.String(), "\x1b[") {
		t.Error("no escape codes with colour")
	}
	testutil.Golden(t, filepath.Join("testdata", "replace_cascade", "plan.color.txt"), color.Bytes())
}

func TestGraphViews(t *testing.T) {
	g, _, _ := loadCase(t, filepath.Join(casesDir, "unmanaged"))
	var dot, mm bytes.Buffer
	if err := DOT(&dot, g); err != nil {
		t.Fatal(err)
	}
	if err := Mermaid(&mm, g); err != nil {
		t.Fatal(err)
	}
	testutil.Golden(t, filepath.Join("testdata", "graph", "graph.dot"), dot.Bytes())
	testutil.Golden(t, filepath.Join("testdata", "graph", "graph.mmd"), mm.Bytes())
	odd := graph.New()
	_ = odd.AddResource(&graph.Resource{Address: `a"b\c`, Type: "x<y>|#"})
	dot.Reset()
	mm.Reset()
	_ = DOT(&dot, odd)
	_ = Mermaid(&mm, odd)
	if !strings.Contains(dot.String(), `"a\"b\\c"`) || strings.ContainsAny(strings.SplitN(mm.String(), "\n", 2)[1], "<>|") && !strings.Contains(mm.String(), "<br/>") {
		t.Errorf("escaping:\n%s\n%s", dot.String(), mm.String())
	}
}

func TestSegments(t *testing.T) {
	after := map[string]graph.Value{"ports": []graph.Value{int64(80), int64(443)}, "tags": map[string]graph.Value{"0": "x"}}
	for path, want := range map[string]string{
		"ports.1": `["ports",1]`, "tags.0": `["tags","0"]`, "gone.3": `["gone","3"]`, "ports.9": `["ports","9"]`,
	} {
		got, _ := json.Marshal(segments(path, after))
		if string(got) != want {
			t.Errorf("%s: %s want %s", path, got, want)
		}
	}
}

// The hand-written JSON plan must be exactly what encoding/json makes of
// the same structure.
func TestJSONMatchesEncodingJSON(t *testing.T) {
	for _, name := range []string{"update_in_place", "replace_cascade", "unmanaged", "destroy", "empty"} {
		g, st, opts := loadCase(t, filepath.Join(casesDir, name))
		p, _ := planner.Diff(context.Background(), g, st, opts)
		if len(p.Changes) > 0 {
			p.Changes[0].Placement = &planner.PlacementDecision{Allocations: []state.Allocation{{Provider: "cn1", Resources: map[string]int64{"VCPU": 2}}}}
		}
		p.Drift = []planner.ResourceDrift{{Address: "web", Type: "t", Paths: []string{"status.active"},
			Before: map[string]graph.Value{"status": map[string]graph.Value{"active": true}}, After: map[string]graph.Value{"status": map[string]graph.Value{"active": false}}}}
		out, err := buildJSON(p)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(out); err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		if err := JSON(&got, p); err != nil {
			t.Fatal(err)
		}
		if got.String() != want.String() {
			t.Errorf("%s:\n got %s\nwant %s", name, got.String(), want.String())
		}
	}
}

// The JSON plan writes backspace and form feed as plan files do (\u0008,
// \u000c) in what it writes itself, and as encoding/json does (\b, \f) in
// the parts it has always left to encoding/json: its bytes stay what they
// were.
func TestJSONPlanKeepsItsControlEscapes(t *testing.T) {
	p := &planner.Plan{PlanID: "id", InputDigests: map[string]string{"var.x\b": "d\f"}, Changes: []planner.ResourceChange{{
		Address: "a\b", Type: "t", Action: planner.DeleteThenCreate, Reason: planner.ReasonSpecChanged, ReasonPaths: []string{"k\b"},
		Before: map[string]graph.Value{"k\b": "u"}, After: map[string]graph.Value{"k\b": "v\f"},
	}}}
	var buf bytes.Buffer
	if err := JSON(&buf, p); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"input_digests":{"var.x\b":"d\f"}`, `"address":"a\u0008"`, `"after":{"k\u0008":"v\u000c"}`, `"replace_paths":[["k\b"]]`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("the JSON plan lacks %s:\n%s", want, buf.String())
		}
	}
}

func TestPlacementNote(t *testing.T) {
	pd := &planner.PlacementDecision{Allocations: []state.Allocation{
		{Provider: "cn1", Resources: map[string]int64{"VCPU": 2, "MEMORY_MB": 1024}},
		{Provider: "shared-disk", Resources: map[string]int64{"DISK_GB": 10}},
	}, Kept: true}
	want := "placed on cn1: MEMORY_MB=1024, VCPU=2; shared-disk: DISK_GB=10; kept from the last apply"
	if got := placementNote(pd); got != want {
		t.Errorf("%q", got)
	}
	if placementNote(nil) != "" || placementNote(&planner.PlacementDecision{}) != "" {
		t.Error("note without allocations")
	}
}

// TestEveryReasonLineIsWhole: no "(because …)" note of any planner case
// has a hole where a reason should be (a forgotten resource of a destroy
// once read "it is unmanaged and ; nothing is deleted").
func TestEveryReasonLineIsWhole(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(casesDir, "*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no cases in %s: %v", casesDir, err)
	}
	for _, dir := range dirs {
		g, st, opts := loadCase(t, dir)
		p, _ := planner.Diff(context.Background(), g, st, opts)
		if p == nil {
			continue
		}
		var text bytes.Buffer
		if err := Text(&text, p, TextOptions{}); err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(text.String(), "\n") {
			if strings.Contains(l, "(because") && (strings.Contains(l, " ;") || strings.Contains(l, "and ;") || strings.HasSuffix(l, "because )")) {
				t.Errorf("%s: %q", filepath.Base(dir), l)
			}
		}
	}
}
