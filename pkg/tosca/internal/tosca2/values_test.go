package tosca2

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
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

// TestQuickClauseAsEval: a validation clause evaluated in its compiled
// form has the value eval gives it, counts the same steps of value work
// and reports nothing; the clauses it cannot compile are eval's.
func TestQuickClauseAsEval(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "clauses.yaml")
	if err := os.WriteFile(path, []byte(clauseTemplate), 0o644); err != nil {
		t.Fatal(err)
	}
	s := core.NewSession(context.Background())
	root := s.ParseYAML(path, []byte(clauseTemplate))
	x := New(&s, Options{})
	x.Load(path, root)
	x.Graph()
	if s.Diags.HasErrors() {
		t.Fatalf("template: %v", s.Diags.Err())
	}
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
	dir := t.TempDir()
	path := filepath.Join(dir, "clauses.yaml")
	s := core.NewSession(context.Background())
	root := s.ParseYAML(path, []byte(clauseTemplate))
	x := New(&s, Options{})
	x.Load(path, root)
	x.Graph()
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
