package tosca2

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// clauseTemplate declares validation clauses of every form quickClause
// evaluates, and some it leaves to eval.
const clauseTemplate = `tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
functions:
  my_check:
    signatures:
      - arguments: [ { type: integer } ]
        result: { type: boolean }
data_types:
  Checked:
    derived_from: Root
    properties:
      a: { type: integer, validation: { $and: [ { $greater_or_equal: [ $value, 1 ] }, { $less_or_equal: [ $value, 65535 ] } ] } }
      b: { type: string, validation: { $valid_values: [ $value, [ fast, safe, $$x ] ] } }
      c: { type: string, validation: { $or: [ { $equal: [ { $length: [ $value ] }, 3 ] }, { $not: [ { $has_prefix: [ $value, "$$" ] } ] } ] } }
      d: { type: map, entry_schema: string, validation: { $equal: [ { $value: [ k ] }, { $concat: [ a, b ] } ] } }
      e: { type: Size, validation: { $and: [ { $greater_or_equal: [ $value, 1 MB ] }, { $less_or_equal: [ $value, 1 GB ] } ] } }
      f: { type: list, entry_schema: integer, validation: { $has_all_entries: [ { $union: [ $value, [ 1, 2 ] ] }, [ 1 ] ] } }
      g: { type: float, validation: { $less_than: [ { $sum: [ $value, 1.5 ] }, { $product: [ 2, 3 ] } ] } }
      h: { type: map, entry_schema: string, validation: { $has_key: [ { a: { $$b: [ 1, { c: 2 } ] } }, a ] } }
      i: { type: string, validation: { $matches: [ $value, "^a+$" ] } }
      j: { type: integer, validation: { $my_check: [ $value ] } }
      k: { type: integer, validation: { $greater_than: [ $value, { $get_input: lo } ] } }
service_template:
  inputs:
    lo: { type: integer, default: 0 }
  node_templates: {}
`

// compileText compiles the 2.0 template src, written to a file; errors
// fail the test.
func compileText(t *testing.T, src string) *Compile {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.yaml")
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(context.Background())
	root := s.ParseYAML(path, []byte(src))
	x := New(&s, Options{})
	x.Load(path, root)
	if g := x.Graph(); g == nil || s.Diags.HasErrors() {
		t.Fatalf("template: %v", s.Diags.Err())
	}
	return x
}

// TestQuickClauseAsEval: a validation clause evaluated in its compiled
// form has the value eval gives it, counts the same steps of value work
// and reports nothing; the clauses it cannot compile are eval's.
func TestQuickClauseAsEval(t *testing.T) {
	x := compileText(t, clauseTemplate)
	c, f := x.c, x.root
	dt := c.findType(f, core.KData, "Checked")
	size := c.findType(f, core.KData, "Size")
	values := []graph.Value{nil, int64(0), int64(7), int64(70000), 2.5, "fast", "$x", "abc", "$$q", "100 MB", "2 GB", true,
		[]graph.Value{int64(1), int64(3)}, []graph.Value{}, map[string]graph.Value{"k": "ab"}, map[string]graph.Value{"k": "x"},
		graph.Unknown{Func: "get_attribute"}, []graph.Value{graph.Unknown{Func: "get_attribute"}}}
	compiled := map[string]bool{}
	agreed := 0
	for _, name := range dt.propNames() {
		d := dt.props[name]
		for _, cl := range d.validation {
			compiled[name] = c.cclause(f, cl) != nil
			for _, typ := range []*typeDef{nil, d.typ, size} {
				for _, v := range values {
					steps, diags := c.steps, len(c.Diags)
					got, ok := c.quickClause(f, cl, typ, v)
					quick := c.steps - steps
					if !ok {
						if quick != 0 {
							t.Errorf("%s(%v): %d steps counted by a clause left to eval", name, v, quick)
						}
						continue
					}
					c.steps = steps
					ev := &eval{c: c, f: f, value: v, hasValue: true, typ: typ, path: "p"}
					want := ev.eval(cl, 0)
					agreed++
					if slow := c.steps - steps; slow != quick || !reflect.DeepEqual(got, want) {
						t.Errorf("%s(%#v) with type %v: quick %#v in %d steps, eval %#v in %d", name, v, typ != nil, got, quick, want, slow)
					}
					if len(c.Diags) != diags {
						t.Errorf("%s(%#v): eval reported %v where the compiled clause gave a value", name, v, c.Diags[diags:])
						c.Diags = c.Diags[:diags]
					}
				}
			}
		}
	}
	if agreed < 100 {
		t.Errorf("%d values checked by compiled clauses, want many", agreed)
	}
	want := map[string]bool{"a": true, "b": true, "c": true, "d": true, "e": true, "f": true, "g": true, "h": true,
		"i": false, "j": false, "k": false}
	if !reflect.DeepEqual(compiled, want) {
		t.Errorf("compiled clauses %v, want %v", compiled, want)
	}
}

// TestQuickClauseBudget: a clause whose steps would pass the budget of
// value work is left to eval, which stops the compile where it runs out.
func TestQuickClauseBudget(t *testing.T) {
	x := compileText(t, clauseTemplate)
	c, f := x.c, x.root
	cl := c.findType(f, core.KData, "Checked").props["a"].validation[0]
	c.steps = maxValueSteps - 3
	if _, ok := c.quickClause(f, cl, nil, int64(5)); ok {
		t.Fatal("a clause of 7 steps evaluated with 3 left")
	}
	if c.steps != maxValueSteps-3 || c.Halt.Done {
		t.Fatalf("steps %d, stopped %v: the compiled clause spent work", c.steps, c.Halt.Done)
	}
}

// defaultsTemplate has n node templates that leave every property of
// their type to its default.
func defaultsTemplate(n int) string {
	var b strings.Builder
	b.WriteString(`tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  App:
    derived_from: Root
    properties:
      size: { type: Size, default: 64 MiB, validation: { $greater_or_equal: [ $value, 1 MB ] } }
      mode: { type: string, default: fast, validation: { $valid_values: [ $value, [ fast, safe ] ] } }
      port: { type: integer, default: 8080, validation: { $and: [ { $greater_than: [ $value, 0 ] }, { $less_than: [ $value, 65536 ] } ] } }
      on: { type: boolean, default: true }
      ratio: { type: float, default: 0.5 }
      v: { type: version, default: 1.2.3 }
      fixed: { type: string, value: always }
service_template:
  node_templates:
`)
	for i := range n {
		fmt.Fprintf(&b, "    app%d: { type: App }\n", i)
	}
	b.WriteString("    host: { type: Compute }\n")
	return b.String()
}

// TestKnownDefaultSteps: a default checked once and then taken as known
// counts, for each template, the steps of value work its check counts, and
// gives each template the value its check gives.
func TestKnownDefaultSteps(t *testing.T) {
	steps := func(n int) (int, *compiler) {
		x := compileText(t, defaultsTemplate(n))
		return x.c.steps, x.c
	}
	s0, _ := steps(0)
	s1, _ := steps(1)
	s2, _ := steps(2)
	s5, c := steps(5)
	if first, later := s1-s0, s2-s1; first != later || s5-s2 != 3*later || first == 0 {
		t.Fatalf("steps per template: %d for the first (defaults checked), %d for the second (defaults known), %d for three more", first, later, s5-s2)
	}
	if len(c.state.defaults) < 7 {
		t.Errorf("%d defaults known, want at least the 7 of App", len(c.state.defaults))
	}
	want := map[string]graph.Value{"size": "67108864 B", "mode": "fast", "port": int64(8080), "on": true, "ratio": 0.5, "v": "1.2.3", "fixed": "always"}
	for _, nd := range c.state.topo.nodes[:5] {
		if !reflect.DeepEqual(nd.props, want) {
			t.Errorf("%s: %v, want %v", nd.name, nd.props, want)
		}
	}
}
