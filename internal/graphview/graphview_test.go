package graphview

import (
	"encoding/xml"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestLayersFollowDependencyOrder(t *testing.T) {
	// 0 <- 1 <- 2, 0 <- 2, 3 alone, 4 <-> 5 a cycle.
	deps := [][]int{nil, {0}, {0, 1}, nil, {5}, {4}}
	got := Layers(deps)
	want := []int{0, 1, 2, 0, 3, 3}
	if !slices.Equal(got, want) {
		t.Fatalf("Layers = %v, want %v", got, want)
	}
}

func TestLayPlacesDependenciesLeftAndNeverOverlaps(t *testing.T) {
	deps := grid(40, 5)
	l := Lay(deps)
	seen := map[[2]int]bool{}
	for i, ds := range deps {
		for _, d := range ds {
			if l.X[d] >= l.X[i] {
				t.Errorf("node %d (x %d) is not right of its dependency %d (x %d)", i, l.X[i], d, l.X[d])
			}
		}
		p := [2]int{l.X[i], l.Y[i]}
		if seen[p] {
			t.Errorf("two nodes at %v", p)
		}
		seen[p] = true
		if l.X[i]+NodeWidth > l.Width || l.Y[i]+NodeHeight > l.Height {
			t.Errorf("node %d at %d,%d is outside %dx%d", i, l.X[i], l.Y[i], l.Width, l.Height)
		}
	}
	if again := Lay(deps); !slices.Equal(again.Y, l.Y) {
		t.Error("the same graph was laid out twice differently")
	}
}

func TestLayUncrossesASwappedPair(t *testing.T) {
	// Nodes 0,1 in layer 0; 2 depends on 1, 3 on 0: the sweeps put 3 above 2.
	l := Lay([][]int{nil, nil, {1}, {0}})
	if l.Row[3] > l.Row[2] == (l.Row[0] < l.Row[1]) {
		t.Errorf("rows %v cross the edges", l.Row)
	}
}

func TestPagesPackPartsAndCutTheLargeOnes(t *testing.T) {
	deps := grid(30, 4) // 30 chains of 4: parts of 4
	deps = append(deps, chain(25)...)
	pages := Pages(deps, 10)
	seen := make([]bool, len(deps))
	for _, p := range pages {
		if len(p) > 10 {
			t.Errorf("a page of %d nodes", len(p))
		}
		if !slices.IsSorted(p) {
			t.Errorf("page %v is not sorted", p)
		}
		for _, i := range p {
			if seen[i] {
				t.Errorf("node %d on two pages", i)
			}
			seen[i] = true
		}
	}
	if slices.Contains(seen, false) {
		t.Error("a node is on no page")
	}
	// A chain of 4 is never cut.
	for _, p := range pages {
		for _, i := range p {
			if i < 120 && i%4 == 0 && !slices.Contains(p, i+3) {
				t.Errorf("chain %d was cut across pages", i/4)
			}
		}
	}
	if got := Pages(deps, 0); len(got) != 1 || len(got[0]) != len(deps) {
		t.Errorf("size 0 made %d pages", len(got))
	}
}

func TestSVGIsWellFormedAndEscaped(t *testing.T) {
	deps := [][]int{nil, {0}}
	nodes := []Node{{Label: `a<b>&"c'`, Sub: "T", State: "active", Class: "st-active", Href: "#/r/a", Key: "a\x01"},
		{Label: strings.Repeat("long", 20), State: "pending", Class: "st-pending", Href: "#/r/b", Key: "b"}}
	var b strings.Builder
	SVG(&b, nodes, deps, Lay(deps), Options{Label: "graph <1>"})
	out := b.String()
	dec := xml.NewDecoder(strings.NewReader(out))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, out)
		}
	}
	for _, bad := range []string{"<script", " on", "style=", "\x01"} {
		if strings.Contains(out, bad) {
			t.Errorf("the SVG holds %q", bad)
		}
	}
	if !strings.Contains(out, `aria-label="a&lt;b&gt;&amp;&#34;c&#39;, T: active"`) {
		t.Errorf("accessible name missing or unescaped:\n%s", out)
	}
}

// grid returns n chains of k nodes each.
func grid(n, k int) [][]int {
	var deps [][]int
	for c := 0; c < n; c++ {
		deps = append(deps, nil)
		for j := 1; j < k; j++ {
			deps = append(deps, []int{len(deps) - 1})
		}
	}
	return deps
}

// chain returns one chain of n nodes numbered from offset 120 on.
func chain(n int) [][]int {
	out := [][]int{nil}
	for j := 1; j < n; j++ {
		out = append(out, []int{120 + j - 1})
	}
	return out
}

func BenchmarkLay10000(b *testing.B) {
	deps := grid(2500, 4)
	for i := range deps {
		if i >= 4 && i%4 == 1 {
			deps[i] = append(deps[i], i-4) // tie the stacks together
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		pages := Pages(deps, MaxPageNodes)
		Lay(Induced(deps, pages[0]))
	}
	b.ReportMetric(float64(len(deps)), "nodes")
}

// FuzzSVG: whatever the labels, the drawing is well-formed XML holding no
// markup of theirs.
func FuzzSVG(f *testing.F) {
	f.Add("db", "tosca.nodes.Database", "active")
	f.Add(`<script>alert(1)</script>`, "\x00\x1b[31m", `" onload="x`)
	f.Add("\xff\xfe", "\ufffe", "]]>")
	f.Fuzz(func(t *testing.T, label, sub, state string) {
		deps := [][]int{nil, {0}}
		nodes := []Node{{Label: label, Sub: sub, State: state, Class: state, Href: label, Key: label}, {Label: sub, State: label}}
		var b strings.Builder
		SVG(&b, nodes, deps, Lay(deps), Options{Label: label})
		dec := xml.NewDecoder(strings.NewReader(b.String()))
		depth := 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed: %v\n%s", err, b.String())
			}
			if se, ok := tok.(xml.StartElement); ok {
				depth++
				switch se.Name.Local {
				case "svg", "defs", "marker", "path", "g", "a", "title", "rect", "text", "tspan":
				default:
					t.Fatalf("element %q from the labels", se.Name.Local)
				}
				for _, a := range se.Attr {
					if strings.HasPrefix(a.Name.Local, "on") || a.Name.Local == "style" {
						t.Fatalf("attribute %q from the labels", a.Name.Local)
					}
				}
			}
		}
	})
}
