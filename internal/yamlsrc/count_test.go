package yamlsrc

import (
	"bytes"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	yaml "go.yaml.in/yaml/v3"
)

// treeSize is the number of nodes the YAML library builds for data (every
// document's, aliases counted once, document nodes left out), and false
// when it refuses data.
func treeSize(data []byte) (n int, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		if x.Kind != yaml.DocumentNode {
			n++
		}
		for _, c := range x.Content {
			walk(c)
		}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			return n, true
		}
		if err != nil {
			return 0, false
		}
		walk(&doc)
	}
}

// countSeeds are the shapes countNodes must bound: every indicator, both
// styles, block scalars in every position, documents, and the flow lists
// that made a 16 MiB file cost minutes.
var countSeeds = []string{
	"a: 1",
	"a: 1\nb:\n  c: 2\n  d: [x, y]\n",
	"- a\n- b: 1\n  c: 2\n- - x\n  - y\n-\n- ",
	"[[1,2,3],[4,5,6],[]]",
	"{a, b: , c: d, [x]: y}",
	// A quote that continues a plain scalar is text, not a quoted scalar
	// that would hide the nodes after it.
	"a: x\n  \"\nb: [1, 2, 3, 4, 5, 6]\nc: \"d\"\n",
	"[a\n \"b, 1, 2, 3, 4 \"]",
	"- x\n  'y\n- [1, 2, 3]\n- 'z'\n",
	"{?}",
	"[?0]",
	"! :",
	"[a: 1, b, {c}]",
	"k: {\"j\":1, 'q': [2,3]}",
	"a: &x {b: 1}\nc: *x\nd: [*x, *x]\n<<: *x\n",
	"a: |\n  text: not a key\n  - nor an entry\nb: >-\n   folded\n\nc: 3\n",
	"- |\n  body\n- - >\n    deep\n  - key: |2\n       x\n    other: 1\n",
	"--- |\n  a: b\n--- >\nc: d\n...\n---\n- x\n",
	"%YAML 1.2\n---\na: 1\n---\n---\nb: 2\n",
	"a: 'it''s # not a comment: [x'\nb: \"q \\\" # [y\"\nc: d#e # [z\n",
	"? complex\n: value\n? [a, b]\n: c\n",
	"a: !!str 1\nb: !tag &anchor\n  c: 2\nd: !!binary |\n  aGk=\n",
	"a: \"multi\n  line\"\nb: plain\n  continued\n",
	"a:\n- b\n- c\n",
	"x: [a,\n  b, {c: d,\n  e: f}]\n",
	"a: b: c",
	"  - indented\n  - list\n",
	"a:\r\n  b: 1\r\n",
	"a: - b",
	"key: value # trailing\n# full line\n  # indented\n",
	"[-1, -a, ?b, :c, a:b, 'x':y]",
	"- ? a\n  : b\n",
	"{? a: b}",
	"a: [\n]\nb: {\n}\n",
}

func TestCountNodesBoundsTheTree(t *testing.T) {
	for _, src := range countSeeds {
		want, ok := treeSize([]byte(src))
		if !ok {
			continue
		}
		got, _ := countNodes([]byte(src), math.MaxInt)
		if got < want {
			t.Errorf("%q: counted %d nodes, the tree has %d", src, got, want)
		}
		// Not far above either: a limit must not refuse real files.
		if got > 2*want+4 {
			t.Errorf("%q: counted %d nodes for a tree of %d", src, got, want)
		}
	}
}

func TestCountNodesStopsPastTheLimit(t *testing.T) {
	data := []byte("x: [" + strings.Repeat("1,", 1<<20) + "1]\n")
	if got, at := countNodes(data, 1000); got <= 1000 || got > 1010 || at > 2100 {
		t.Errorf("count = %d at offset %d; want it to stop just past 1000", got, at)
	}
}

// FuzzCountNodesBoundsTheTree: whatever the input, countNodes ends, and for
// what the YAML library accepts it is not below the library's tree.
func FuzzCountNodesBoundsTheTree(f *testing.F) {
	for _, s := range countSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _ := countNodes(data, math.MaxInt)
		if want, ok := treeSize(data); ok && got < want {
			t.Fatalf("%q: counted %d nodes, the tree has %d", data, got, want)
		}
	})
}

// TestNodeCountIsBoundedWithoutAliases: a file of flow lists holds
// millions of nodes in a few megabytes; with no alias in it, nothing used
// to count them, and 16 MiB took minutes and gigabytes. The default limit
// now refuses it from the bytes, before the YAML library builds a tree;
// several documents count together.
func TestNodeCountIsBoundedWithoutAliases(t *testing.T) {
	row := "[1,2,3,4,5,6,7,8],"
	rows := DefaultMaxNodes/9 + 1
	one := "tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata:\n  x: [" + strings.Repeat(row, rows) + "[]]\n"
	// Each document a third of the limit, in lists short enough for
	// MaxItems: only their sum is over.
	doc := "---\n[" + strings.Repeat(row, DefaultMaxNodes/27+1) + "[]]\n"
	for name, src := range map[string]string{
		"one document of flow lists": one,
		"three documents":            doc + doc + doc,
	} {
		t.Run(name, func(t *testing.T) {
			docs, diags := ParseAll("big.yaml", []byte(src), Limits{})
			if len(docs) != 0 || len(diags) != 1 || diags[0].Code != CodeTooMany {
				t.Fatalf("got %d documents and %v; want one %s", len(docs), diags, CodeTooMany)
			}
			if d := diags[0]; d.Range.Start.Line < 1 || d.Range.File != "big.yaml" {
				t.Errorf("the diagnostic has no position: %v", d)
			}
		})
	}
	// Just under the limit is fine.
	small := "[" + strings.Repeat("1,", 98) + "1]"
	if _, diags := ParseAll("small.yaml", []byte(small), Limits{MaxNodes: 100}); diags.HasErrors() {
		t.Errorf("100 nodes refused under a limit of 100: %v", diags)
	}
	if _, diags := ParseAll("small.yaml", []byte(small+"\n---\nx\n"), Limits{MaxNodes: 100}); !diags.HasErrors() {
		t.Error("101 nodes over two documents accepted under a limit of 100")
	}
}

// flowLists is a file of limit bytes of flow lists of one-digit scalars,
// the densest YAML there is: two bytes a node.
func flowLists(limit int) []byte {
	head := "tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata:\n  x: ["
	row := "[1,2,3,4,5,6,7,8],"
	var b strings.Builder
	b.Grow(limit)
	b.WriteString(head)
	for b.Len()+len(row)+4 < limit {
		b.WriteString(row)
	}
	b.WriteString("[]]\n")
	return []byte(b.String())
}

// BenchmarkParseFlowLists16MiB parses 16 MiB of flow lists (eight million
// nodes): refused by the node count from the bytes, before the YAML
// library builds a tree (it took minutes and gigabytes).
func BenchmarkParseFlowLists16MiB(b *testing.B) {
	data := flowLists(DefaultMaxFileBytes)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, diags := ParseAll("flow.yaml", data, Limits{}); len(diags) != 1 || diags[0].Code != CodeTooMany {
			b.Fatalf("diagnostics %v", diags)
		}
	}
}

// BenchmarkParseFlowListsAtTheNodeLimit parses the largest flow-list file
// the node limit lets through: the most the YAML library can be made to
// build.
func BenchmarkParseFlowListsAtTheNodeLimit(b *testing.B) {
	data := flowLists(DefaultMaxNodes / 9 * 18)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, diags := ParseAll("flow.yaml", data, Limits{}); diags.HasErrors() {
			b.Fatalf("diagnostics %v", diags)
		}
	}
}

// TestNodeLimitScalesWithFileSize: a single file of 80,000 node templates
// in flow style (about 1,550,000 nodes, 7 bytes each) was refused by the
// fixed limit of 1,000,000 nodes. The default limit now grows with the
// file, one node per BytesPerNode bytes past 1,000,000, so such a file
// passes the count, while the densest files stay refused and the largest
// file bounds the largest count.
func TestNodeLimitScalesWithFileSize(t *testing.T) {
	// 1,200,000 nodes of seven bytes ("123456,"), as templates are written.
	const nodes = 1_200_000
	var b strings.Builder
	b.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata:\n  x: [")
	for range nodes/8 - 1 {
		b.WriteString("[123456,123456,123456,123456,123456,123456,123456],")
	}
	b.WriteString("[]]\n")
	templates := []byte(b.String())
	lim := Limits{}.withDefaults(len(templates))
	if lim.MaxNodes < nodes || lim.MaxExpandedNodes < nodes {
		t.Errorf("a %d-byte file may hold %d nodes (%d expanded); want at least %d", len(templates), lim.MaxNodes, lim.MaxExpandedNodes, nodes)
	}
	if d := refuseTooMany("big.yaml", templates, lim); d != nil {
		t.Errorf("%d nodes in %d bytes refused: %v", nodes, len(templates), d)
	}
	// As many nodes, two bytes each: still over.
	dense := flowLists(len(templates) * 2 / 7)
	if d := refuseTooMany("dense.yaml", dense, Limits{}.withDefaults(len(dense))); d == nil || d.Code != CodeTooMany {
		t.Errorf("a %d-byte file of flow lists (about %d nodes): got %v, want %s", len(dense), len(dense)/2, d, CodeTooMany)
	}
	if got, want := NodeLimit(DefaultMaxFileBytes), DefaultMaxFileBytes/BytesPerNode; got != want || got > 3_000_000 {
		t.Errorf("NodeLimit of the largest file = %d, want %d (under 3,000,000)", got, want)
	}
	if got := NodeLimit(100); got != DefaultMaxNodes {
		t.Errorf("NodeLimit of a small file = %d, want %d", got, DefaultMaxNodes)
	}
}
