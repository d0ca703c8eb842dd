package values

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// load parses a fixture file.
func load(t *testing.T, path string) (*yamlsrc.Node, []byte) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	doc, diags := yamlsrc.Parse(path, data, yamlsrc.Limits{})
	if diags.HasErrors() {
		t.Fatalf("%s: %v", path, diags.Err())
	}
	return doc, data
}

// coerceAny coerces a fixture value to a primitive type, or takes it as a
// plain value for another type.
func coerceAny(typ string, n *yamlsrc.Node) (graph.Value, error) {
	if IsPrimitive(typ) {
		return Coerce(typ, n)
	}
	return graph.Canonicalize(n.Interface())
}

func TestConstraintCheck(t *testing.T) {
	doc, _ := load(t, filepath.Join("testdata", "constraints", "check.yaml"))
	for _, c := range doc.Items() {
		typ, _ := c.Get("type").String()
		if c.Get("type").IsNull() {
			typ = "null"
		}
		clause := c.Get("constraint")
		name := fmt.Sprintf("%s/%s", typ, writtenYAML(clause))
		t.Run(name, func(t *testing.T) {
			con, diags := ParseConstraint(clause, typ)
			if diags.HasErrors() || con == nil {
				t.Fatalf("line %d: ParseConstraint: %v", clause.Range.Start.Line, diags.Err())
			}
			for _, want := range []bool{true, false} {
				list := c.Get("pass")
				if !want {
					list = c.Get("fail")
				}
				for _, vn := range list.Items() {
					v, err := coerceAny(typ, vn)
					if err != nil {
						t.Fatalf("line %d: fixture value: %v", vn.Range.Start.Line, err)
					}
					err = con.Check(v)
					if (err == nil) != want {
						t.Errorf("line %d: %q.Check(%s) = %v; want pass=%v", vn.Range.Start.Line, con, graph.Render(v), err, want)
					}
					if err != nil && !strings.Contains(err.Error(), con.String()) {
						t.Errorf("line %d: error %q does not quote the clause %q", vn.Range.Start.Line, err, con)
					}
				}
			}
		})
	}
}

// TestParseConstraintDiagnostics parses every clause of the fixture and
// compares the diagnostics with the "# ERROR:" and "# WARNING:" comments
// on the lines where they are expected.
func TestParseConstraintDiagnostics(t *testing.T) {
	path := filepath.Join("testdata", "constraints", "parse.yaml")
	doc, data := load(t, path)
	want := map[int][]string{}
	for _, m := range testutil.Markers(data) {
		want[m.Line] = append(want[m.Line], m.Severity+": "+m.Text)
	}
	got := map[int][]diag.Diagnostic{}
	for _, group := range doc.Items() {
		typ, _ := group.Get("type").String()
		for _, clause := range group.Get("constraints").Items() {
			c, diags := ParseConstraint(clause, typ)
			if diags.HasErrors() != (c == nil) {
				t.Errorf("line %d: constraint %v with diagnostics %v", clause.Range.Start.Line, c, diags)
			}
			for _, d := range diags {
				if d.Range.File != path || d.Range.Start.Line == 0 {
					t.Errorf("diagnostic without a position: %v", d)
				}
				if d.Code == "" || !strings.HasPrefix(d.Code, "values.") {
					t.Errorf("diagnostic without a values code: %#v", d)
				}
				got[d.Range.Start.Line] = append(got[d.Range.Start.Line], d)
			}
		}
	}
	lines := map[int]bool{}
	for l := range want {
		lines[l] = true
	}
	for l := range got {
		lines[l] = true
	}
	sorted := make([]int, 0, len(lines))
	for l := range lines {
		sorted = append(sorted, l)
	}
	slices.Sort(sorted)
	for _, l := range sorted {
		ws, gs := want[l], got[l]
		if len(ws) != len(gs) {
			t.Errorf("%s:%d: want %q, got %v", path, l, ws, gs)
			continue
		}
		for i := range ws {
			g := gs[i].Severity.String() + ": " + gs[i].Summary
			sev, text, _ := strings.Cut(ws[i], ": ")
			if !strings.HasPrefix(g, sev+": ") || !strings.Contains(g, text) {
				t.Errorf("%s:%d: want %q, got %q", path, l, ws[i], g)
			}
		}
	}
}

func TestConstraintString(t *testing.T) {
	tests := []struct{ typ, yaml, want string }{
		{"integer", "{in_range: [1, 65535]}", "in_range: [1, 65535]"},
		{"string", "{pattern: '[a-z]*'}", "pattern: '[a-z]*'"},
		{"string", "{valid_values: [a, 'b c']}", "valid_values: [a, 'b c']"},
		{"scalar-unit.size", "{greater_or_equal: 0 MB}", "greater_or_equal: 0 MB"},
		{"map", "{equal: {a: 1}}", "equal: {a: 1}"},
		{"string", "{equal: ''}", "equal: ''"},
		{"string", "{equal: \"it's\"}", "equal: 'it''s'"},
	}
	for _, tt := range tests {
		c, diags := ParseConstraint(node(t, tt.yaml), tt.typ)
		if c == nil {
			t.Errorf("%s: %v", tt.yaml, diags)
			continue
		}
		if c.String() != tt.want {
			t.Errorf("String() = %q; want %q", c.String(), tt.want)
		}
	}
}

func TestConstraintFields(t *testing.T) {
	c, _ := ParseConstraint(node(t, "{in_range: [1 GB, UNBOUNDED]}"), "tosca:scalar-unit.size")
	if c.Op != OpInRange || c.Type != ScalarSize || !graph.Equal(c.Args, []graph.Value{"1 GB", Unbounded}) || c.Range.Start.Line != 1 {
		t.Errorf("constraint = %+v", c)
	}
	c, _ = ParseConstraint(node(t, "{min_length: 2}"), "list")
	if c.Type != "" || !graph.Equal(c.Args, []graph.Value{int64(2)}) {
		t.Errorf("constraint = %+v", c)
	}
}

func TestCheckMessages(t *testing.T) {
	tests := []struct {
		typ, clause string
		v           graph.Value
		want        string
	}{
		{"integer", "{in_range: [1, 65535]}", int64(0), `the value 0 does not satisfy "in_range: [1, 65535]"`},
		{"string", "{min_length: 3}", "ab", `the value "ab" (length 2) does not satisfy "min_length: 3"`},
		{"string", "{pattern: '[a-z]+'}", "A", `the value "A" does not satisfy "pattern: '[a-z]+'"`},
		// 1.x's pattern is a whole match (tosca-parser), unlike 2.0's $matches.
		{"string", "{pattern: '[a-z]+'}", "abc1", `the value "abc1" does not satisfy "pattern: '[a-z]+'"`},
		{"string", "{pattern: '[a-z]+'}", "1abc", `the value "1abc" does not satisfy "pattern: '[a-z]+'"`},
		{"integer", "{greater_than: 0}", "x", `the value "x" cannot be checked against "greater_than: 0": "x" is not an integer`},
		{"string", "{pattern: x}", int64(1), `cannot be checked against "pattern: x": pattern applies to strings`},
		{"list", "{length: 1}", int64(1), "length applies to strings, lists and maps"},
		{"scalar-unit.size", "{less_than: 1 GB}", "2 GB", `the value "2 GB" does not satisfy "less_than: 1 GB"`},
	}
	for _, tt := range tests {
		c, diags := ParseConstraint(node(t, tt.clause), tt.typ)
		if c == nil {
			t.Fatalf("%s: %v", tt.clause, diags)
		}
		err := c.Check(tt.v)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Check(%v) = %v; want %q", tt.v, err, tt.want)
		}
	}
}

func TestCheckSecretNamesTheClauseButNotTheValue(t *testing.T) {
	tests := []struct {
		typ, clause string
		v           graph.Value
		want        string
	}{
		{"string", "{min_length: 8}", "Sh0rt7", `the value does not satisfy "min_length: 8"`},
		{"string", "{pattern: '[a-z]+'}", "TOPSECRET9", `the value does not satisfy "pattern: '[a-z]+'"`},
		{"integer", "{greater_than: 0}", "s3cr3t-not-int", `the value cannot be checked against "greater_than: 0"`},
		{"range", "{in_range: [1, 10]}", "s3cr3t-range", `the value cannot be checked against "in_range: [1, 10]"`},
	}
	for _, tt := range tests {
		c, diags := ParseConstraint(node(t, tt.clause), tt.typ)
		if c == nil {
			t.Fatalf("%s: %v", tt.clause, diags)
		}
		err := c.CheckSecret(tt.v)
		if err == nil || err.Error() != tt.want {
			t.Errorf("CheckSecret(%v) = %v; want %q", tt.v, err, tt.want)
		}
		if err != nil && (strings.Contains(err.Error(), graph.Text(tt.v)) || strings.Contains(err.Error(), "length 6")) {
			t.Errorf("CheckSecret(%v) = %v: quotes or measures the value", tt.v, err)
		}
		if ok := c.CheckSecret(tt.v) == nil; ok != (c.Check(tt.v) == nil) {
			t.Errorf("CheckSecret and Check disagree on %v", tt.v)
		}
	}
}

func TestCheckUnknownPasses(t *testing.T) {
	c, _ := ParseConstraint(node(t, "{in_range: [1, 10]}"), "integer")
	u := graph.Unknown{Func: "attribute", Args: []graph.Value{"server", "port"}}
	for _, v := range []graph.Value{u, []graph.Value{int64(1), u}} {
		if err := c.Check(v); err != nil {
			t.Errorf("Check(%v) = %v; want nil until apply", v, err)
		}
	}
	l, _ := ParseConstraint(node(t, "{min_length: 3}"), "list")
	if err := l.Check([]graph.Value{u}); err != nil {
		t.Errorf("Check(list with unknown) = %v", err)
	}
}

func TestParseConstraintNil(t *testing.T) {
	c, diags := ParseConstraint(nil, "integer")
	if c != nil || !diags.HasErrors() || diags[0].Code != CodeBadConstraint {
		t.Errorf("ParseConstraint(nil) = %v, %v", c, diags)
	}
}

func TestConstraintNotParsed(t *testing.T) {
	var nilC *Constraint
	for _, c := range []*Constraint{nilC, {}, {Op: OpLength}, {Op: OpPattern, Args: []graph.Value{"x"}}, {Op: OpInRange, Type: Integer}} {
		if err := c.Check("x"); err == nil || !strings.Contains(err.Error(), "not made by ParseConstraint") {
			t.Errorf("%#v.Check = %v", c, err)
		}
		_ = c.String()
	}
}

// A constraint is shared by every template that uses its type: checks run
// concurrently (go test -race).
func TestCheckConcurrent(t *testing.T) {
	pat, _ := ParseConstraint(node(t, "{pattern: '[a-z]+[0-9]*'}"), "string")
	rng, _ := ParseConstraint(node(t, "{in_range: [1 GB, 4 GiB]}"), "scalar-unit.size")
	done := make(chan error, 8)
	for g := range 8 {
		go func() {
			var err error
			for i := range 200 {
				if e := pat.Check(fmt.Sprintf("web%d", i+g)); e != nil {
					err = e
				}
				if e := rng.Check(fmt.Sprintf("%d MB", 1000+i)); e != nil {
					err = e
				}
			}
			done <- err
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Error(err)
		}
	}
}
