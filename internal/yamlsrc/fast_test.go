package yamlsrc

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

// libraryParseAll is ParseAllContext on the library path only, as it was
// before the fast reader.
func libraryParseAll(data []byte, lim Limits) ([]*Node, diag.Diagnostics) {
	lim = lim.withDefaults(len(data))
	if d, _ := refuseUnreadable("f.yaml", data, lim); d != nil {
		return nil, diag.Diagnostics{*d}
	}
	return parseLibrary(context.Background(), "f.yaml", data, lim)
}

// fastParseAll is the fast reader alone; ok is false when it gave up.
func fastParseAll(data []byte, lim Limits) ([]*Node, diag.Diagnostics, bool) {
	lim = lim.withDefaults(len(data))
	if d, fast := refuseUnreadable("f.yaml", data, lim); d != nil || !fast {
		return nil, nil, false
	}
	return readFast(context.Background(), "f.yaml", data, lim)
}

// checkFastMatches fails the test when the fast reader accepts data and
// its documents or diagnostics differ from the library path's, or when
// the byte count of the library path (countNodes), which the fast path
// skips, could refuse the file at a limit the fast reader passes. It
// reports whether the fast reader accepted data.
func checkFastMatches(t *testing.T, data []byte, lim Limits) bool {
	t.Helper()
	lim = lim.withDefaults(len(data))
	if d, fast := refuseUnreadable("f.yaml", data, lim); d != nil || !fast {
		return false
	}
	r := newFastReader(context.Background(), "f.yaml", data, lim)
	docs, diags, ok := r.read()
	if r.fault != nil {
		t.Fatalf("%q: the fast reader failed: %v", data, r.fault)
	}
	if !ok {
		return false
	}
	want, wantDiags := libraryParseAll(data, lim)
	if len(diags) != 0 || len(wantDiags) != 0 {
		if !reflect.DeepEqual(diags, wantDiags) {
			t.Fatalf("%q: fast reader diagnostics %v, library %v", data, diags, wantDiags)
		}
	}
	if !reflect.DeepEqual(docs, want) {
		t.Fatalf("%q: fast reader and library differ:\n%s", data, treeDiff(docs, want))
	}
	n := 0
	for _, d := range docs {
		n += countTree(d)
	}
	if n != r.nodes {
		t.Fatalf("%q: the fast reader counted %d nodes, its tree has %d", data, r.nodes, n)
	}
	if got, _ := countNodes(data, math.MaxInt); got != n+r.extra {
		t.Fatalf("%q: countNodes says %d nodes, the tree has %d and the fast reader expected %d more", data, got, n, r.extra)
	}
	return true
}

// treeDiff describes the first difference of two lists of trees.
func treeDiff(got, want []*Node) string {
	if len(got) != len(want) {
		return fmt.Sprintf("%d documents, want %d", len(got), len(want))
	}
	for i := range got {
		if s := nodeDiff(got[i], want[i], "doc"+fmt.Sprint(i)); s != "" {
			return s
		}
	}
	return "(equal as walked; a nil and an empty Content differ)"
}

func nodeDiff(a, b *Node, path string) string {
	if a == nil || b == nil {
		if a != b {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		return ""
	}
	a1, b1 := *a, *b
	a1.Content, b1.Content = nil, nil
	if !reflect.DeepEqual(a1, b1) {
		return fmt.Sprintf("%s:\n fast    %+v\n library %+v", path, a1, b1)
	}
	if len(a.Content) != len(b.Content) || (a.Content == nil) != (b.Content == nil) {
		return fmt.Sprintf("%s: %d children (nil %v), want %d (nil %v)", path, len(a.Content), a.Content == nil, len(b.Content), b.Content == nil)
	}
	for i := range a.Content {
		if s := nodeDiff(a.Content[i], b.Content[i], fmt.Sprintf("%s/%d", path, i)); s != "" {
			return s
		}
	}
	return ""
}

// fastSeeds are inputs the fast reader reads or must give up on: every
// construct of its subset and the tricky cases around each.
var fastSeeds = []string{
	"a: 1\n", "a: 1", "a:\n", "a:", "- a\n- b\n", "-\n- \n-", "a: b\nc: d\n", "  a: 1\n  b: 2\n",
	"a:\n  b: 1\n  c: [1, 2]\n", "a:\n- 1\n- 2\nb: 3\n", "a:\n  - 1\n  -\n  - - x\n    - y\n",
	"- a: 1\n  b: 2\n- c: 3\n", "-   a: 1\n    b: 2\n", "- - - x\n", "a: {b: c, d: [e, f]}\n",
	"a: [\n  1,\n  2\n]\n", "a: {b: 1,\n    c: 2}\n", "a: [1, 2,]\n", "a: [1 , 2 ]\n", "a: [a\n , b]\n",
	"{a: 1}\n", "[1, 2]\n", "[]\n", "{}\n", "a: []\nb: {}\n", "a: ['x', \"y\"]\n", "a: {\"b\":1}\n",
	"a: {b:1}\n", "a: [b: 1]\n", "a: [b: 1, c : 2, 'd':3, e:4]\n", "[a: [b: c]]\n", "[a: b: c]\n", "[a: ]\n", "a: [b, {c: d}, [e]]\n", "a: {b: }\n", "a: {b}\n", "a: [,]\n",
	"'a': 1\n\"b\": 2\n", "a: 'it''s'\n", "a: \"x\\ny\"\n", "a: \"\\u00e9\\x41\\U0001F600\\t\\\\\\\"\"\n",
	"a: \"\\q\"\n", "a: \"\\uD800\"\n", "a: \"x\n  y\"\n", "a: 'x\n  y'\n", "a: \"\"\n", "a: ''\n",
	"a: |\n  line 1\n  line 2\nb: 1\n", "a: >\n  folded\n  text\n\n  para\nb: 1\n", "a: |-\n  x\n\n", "a: |+\n  x\n\n\n",
	"a: |2\n    x\n   y\n", "a: >-\n   a\n  b\n", "a: |\n\n  x\n", "a: |\n   \n  x\n", "a: |\nb: 1\n", "a: |", "a: | # c\n  x\n",
	"- |\n  x\n- >\n  y\n   z\n  w\n", "a: >\n  a\n   b\n  c\n", "a: |\n  x\n # c\nb: 1\n", "|\n x\n", "a: |x\n",
	"a: 1 # c\nb: 2#c\n# c\n  # c\nc: [1]#c\n", "# only\n", "", "\n\n", "---\na: 1\n", "--- \n- 1\n", "--- a\n",
	"a: 1\n---\nb: 2\n", "a: 1\n...\n", "%YAML 1.1\n---\na: 1\n", "a: &x 1\nb: *x\n", "a: !!str 1\n", "<<: {a: 1}\n",
	"? a\n: b\n", "a: b: c\n", "a: b\n  c: d\n", "a: b\n c\n", "- a\n  b\n", "a:\n  b\n  c\n", "a: - b\n",
	"a:\n b: 1\n  c: 2\n", "a:\n  b: 1\n c: 2\n", "\ta: 1\n", "a: 1\r\nb: 2\r\n", "\ufeffa: 1\n", "a: \u0085\n",
	"a: 0x1F\nb: 0o17\nc: 017\nd: 1_000\ne: 0b101\nf: -0b11\ng: +1\nh: .5\ni: 1e3\nj: 1.5e-3\nk: .inf\nl: -.Inf\nm: .nan\n",
	"a: true\nb: False\nc: yes\nd: ~\ne: null\nf: NULL\ng: 2001-12-14\nh: 2001-12-14T21:59:43Z\ni: 2001-12-14 21:59:43.10 -5\n",
	"a: 1e400\nb: 0x\nc: 1__0\nd: -\ne: +\nf: 12:30\ng: 1.2.3\nh: 0.\ni: -0o7\nj: 9223372036854775808\nk: 18446744073709551616\n",
	"ünï: ÿ\nb: [é, \"ü\"]\n", "a: x#y\nb: x #y\n", "a : 1\n", "a:  1  \n", "a: b c  d\n", "-a: 1\n", "a: -1\n", "a: @x\n",
	"a: `x`\n", "a: %x\n", "key with spaces: v\n", "a: http://x:80/y\n", "a:b: c\n", "a: [http://x]\n", "a: {b: c:d}\n",
	"[a, b]: c\n", "{a: b}: c\n", "- [a]\n- {b: c}\n", "a: [1,\n# c\n2]\n", "a: [1, # c\n 2]\n", "a: [1\n# c\n]\n",
	"a:\n\n  b: 1\n\n  c: 2\n\n", "a:\n  # c\n  b: 1\n", "a: 1\n  # c\nb: 2\n", "---\n# c\na: 1\n", "- a\n-b\n",
	"a: [[[[[[]]]]]]\n", "a:\n  b:\n    c:\n      d: 1\n", "- - - - - 1\n", "a: '''\n", "a: 'x'y\n", "a: \"x\"y\n",
	"x\n", "x\ny\n", "x\n\n  y\n", "a: b\n  c\n  # d\n  e\n", "a: b\n  c #d\n  e\n", "- a\n b\n", "a:\n  b\n c\n", "a:\n  b\n   c\n", "'x'\n", "\"x\"\n", "1\n", "~\n", "x: 1\ny\n", "a: [1, 2]\n  b: 1\n", "a: {x: 1}\nb:\n  - c\n",
}

// FuzzFastReaderMatchesLibrary: for any input and limits, when the fast
// reader accepts the input its documents (ranges included) and
// diagnostics are the library path's, and never does it panic.
func FuzzFastReaderMatchesLibrary(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add([]byte(s), uint8(0), uint8(0), uint8(0), uint16(0))
	}
	f.Add(testutil.BenchTemplate13(30), uint8(0), uint8(0), uint8(0), uint16(0))
	f.Add(testutil.BenchTemplate20(30), uint8(3), uint8(5), uint8(10), uint16(200))
	f.Add([]byte("a: [1, 2, 3]\nb: {c: d}\n"), uint8(2), uint8(2), uint8(1), uint16(5))
	f.Fuzz(func(t *testing.T, data []byte, depth, items, scalar uint8, nodes uint16) {
		lim := Limits{MaxDepth: int(depth % 16), MaxItems: int(items % 16), MaxScalarBytes: int(scalar % 64), MaxNodes: int(nodes % 1024)}
		checkFastMatches(t, data, lim)
		checkFastMatches(t, data, Limits{})
	})
}

// TestFastReaderSeeds runs the fuzz seeds under the default limits and
// checks that the fast reader reads the constructs it claims.
func TestFastReaderSeeds(t *testing.T) {
	accepted := 0
	for _, s := range fastSeeds {
		if checkFastMatches(t, []byte(s), Limits{}) {
			accepted++
		}
	}
	t.Logf("fast reader accepted %d of %d seeds", accepted, len(fastSeeds))
}

// TestFastReaderReadsItsSubset: each construct of the subset is read by
// the fast reader (and matches the library).
func TestFastReaderReadsItsSubset(t *testing.T) {
	for name, src := range map[string]string{
		"block map":                 "a: 1\nb: two\n",
		"nested map":                "a:\n  b: 1\n  c: 2\n",
		"block sequence":            "- a\n- b\n",
		"compact map in sequence":   "- a: 1\n  b: 2\n- c: 3\n",
		"compact sequences":         "- - a\n  - b\n- - c\n",
		"indentless sequence":       "a:\n- 1\n- 2\nb: 3\n",
		"null values":               "a:\nb:\n-\n",
		"flow":                      "a: {b: [1, 2], c: {d: e}}\n",
		"flow over lines":           "a: [1,\n  2, # c\n  3]\n",
		"single quoted":             "a: 'it''s'\n",
		"double quoted":             "a: \"x\\ty\\u00e9\"\n",
		"quoted keys":               "'a': 1\n\"b\": 2\n",
		"comments":                  "# c\na: 1 # c\n  # c\nb: 2\n",
		"document start":            "---\na: 1\n",
		"literal block scalar":      "a: |\n  x\n  y\nb: 1\n",
		"folded block scalar":       "a: >-\n  x\n  y\n\n  z\nb: 1\n",
		"keep chomping":             "a: |+\n  x\n\n",
		"indentation indicator":     "a: |2\n    x\n",
		"scalar on next line":       "a:\n  b\n",
		"multi-line plain scalars":  "a: b\n  c\n\n\n  d # e\nf:\n- g\n  h\n- i\n",
		"resolved scalars":          "a: [1, 0x1F, 1.5, .inf, true, ~, 2001-12-14, 1_000, text]\n",
		"root scalar":               "hello\n",
		"root flow":                 "[1, 2]\n",
		"unicode positions":         "é: [ü, \"ÿ\"]\n",
		"empty collections":         "a: []\nb: {}\n",
		"pairs in a flow list":      "a: [b: c, \"d\": [e], f: {g: h}]\n",
		"spaces before colon":       "a : 1\n",
		"value with colon and hash": "a: http://x:8080/#y\n",
	} {
		if !checkFastMatches(t, []byte(src), Limits{}) {
			t.Errorf("%s: the fast reader gave up on %q", name, src)
		}
	}
}

// TestFastReaderGivesUp: for each construct outside the subset, and each
// limit reached, the fast reader gives up, and Parse gives the library
// path's answer.
func TestFastReaderGivesUp(t *testing.T) {
	for _, c := range []struct {
		name, src string
		lim       Limits
	}{
		{"anchor and alias", "a: &x 1\nb: *x\n", Limits{}},
		{"tag", "a: !!str 1\n", Limits{}},
		{"merge key", "a: {x: 1}\nb:\n  <<: {y: 2}\n", Limits{}},
		{"explicit key", "? a\n: b\n", Limits{}},
		{"directive", "%YAML 1.1\n---\na: 1\n", Limits{}},
		{"several documents", "a: 1\n---\nb: 2\n", Limits{}},
		{"document end", "a: 1\n...\n", Limits{}},
		{"tab", "a:\t1\n", Limits{}},
		{"carriage return", "a: 1\r\n", Limits{}},
		{"byte order mark", "\ufeffa: 1\n", Limits{}},
		{"line separator", "a: x\u2028y\n", Limits{}},
		{"key after a multi-line plain scalar", "a: b\n  c: d\n", Limits{}},
		{"multi-line plain scalar in flow", "a: [b\n  c]\n", Limits{}},
		{"continuation the byte count reads otherwise", "a:\n   b\n  c\n", Limits{}},
		{"multi-line quoted scalar", "a: \"b\n  c\"\n", Limits{}},
		{"escaped line break", "a: \"b\\\n  c\"\n", Limits{}},
		{"unknown escape", "a: \"\\q\"\n", Limits{}},
		{"empty value of a pair in a flow list", "a: [b: ]\n", Limits{}},
		{"empty flow value", "a: {b: }\n", Limits{}},
		{"trailing comma", "a: [1, 2,]\n", Limits{}},
		{"flow key", "[a]: b\n", Limits{}},
		{"empty document", "# nothing\n", Limits{}},
		{"syntax error", "a: b: c\n", Limits{}},
		{"bad indentation", "a:\n  b: 1\n c: 2\n", Limits{}},
		{"unclosed flow", "a: [1, 2\n", Limits{}},
		{"too deep", "a: [[[1]]]\n", Limits{MaxDepth: 2}},
		{"too many items", "a: [1, 2, 3]\n", Limits{MaxItems: 2}},
		{"scalar too long", "a: abcdef\n", Limits{MaxScalarBytes: 3}},
		{"too many nodes", "a: [1, 2, 3]\n", Limits{MaxNodes: 4}},
		{"long key", strings.Repeat("k", 1100) + ": v\n", Limits{}},
	} {
		if _, _, ok := fastParseAll([]byte(c.src), c.lim); ok {
			t.Errorf("%s: the fast reader read %q", c.name, c.src)
		}
		docs, diags := ParseAll("f.yaml", []byte(c.src), c.lim)
		want, wantDiags := libraryParseAll([]byte(c.src), c.lim)
		if !reflect.DeepEqual(docs, want) || fmt.Sprint(diags) != fmt.Sprint(wantDiags) {
			t.Errorf("%s: Parse differs from the library path: %v / %v", c.name, diags, wantDiags)
		}
	}
}

// TestFastReaderCanceled: a context that has ended gives the library
// path's CodeCanceled answer, also from the fast reader.
func TestFastReaderCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	data := testutil.BenchTemplate13(100)
	lim := Limits{}.withDefaults(len(data))
	docs, diags, ok := readFast(ctx, "f.yaml", data, lim)
	if !ok || docs != nil || len(diags) != 1 || diags[0].Code != CodeCanceled {
		t.Errorf("canceled fast read: ok %v, docs %d, diagnostics %v", ok, len(docs), diags)
	}
	_, want := parseLibrary(ctx, "f.yaml", data, lim)
	if fmt.Sprint(diags) != fmt.Sprint(want) {
		t.Errorf("canceled: fast %v, library %v", diags, want)
	}
}

// TestFastReaderMatchesOnRealFiles: every YAML file of the shared corpus
// and of the repository (testdata, examples, embedded types) reads the same on
// both paths, and the fast reader reads at least minFastShare of them:
// the test fails if it silently stops reading real files.
func TestFastReaderMatchesOnRealFiles(t *testing.T) {
	const minFastShare = 0.90
	// The whole repository (testdata, examples, embedded profiles and
	// types) and the shared corpus.
	root := testutil.ModuleRoot(t)
	dirs := []string{root}
	if c := testutil.CorpusDirOrEmpty(); c != "" {
		dirs = append(dirs, c)
	}
	files, fast := 0, 0
	for _, dir := range dirs {
		_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if err != nil || d.IsDir() {
				return nil
			}
			if ext := filepath.Ext(p); ext != ".yaml" && ext != ".yml" {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			files++
			t.Run(strings.TrimPrefix(p, root), func(t *testing.T) {
				if checkFastMatches(t, data, Limits{}) {
					fast++
				}
			})
			return nil
		})
	}
	share := float64(fast) / float64(max(files, 1))
	t.Logf("the fast reader read %d of %d files (%.1f%%)", fast, files, 100*share)
	if share < minFastShare {
		t.Errorf("the fast reader read %.1f%% of the files, want at least %.0f%%", 100*share, 100*minFastShare)
	}
}

// TestFastReaderAllocations: the fast reader's allocations grow with the
// file only by its slabs (a few per thousand nodes), where the library
// path allocates several times per node.
func TestFastReaderAllocations(t *testing.T) {
	data := testutil.BenchTemplate13(1000)
	docs, _, ok := fastParseAll(data, Limits{})
	if !ok {
		t.Fatal("the fast reader gave up on the generated template")
	}
	nodes := countTree(docs[0])
	allocs := testing.AllocsPerRun(5, func() { ParseAll("f.yaml", data, Limits{}) })
	if perNode := allocs / float64(nodes); perNode > 0.02 {
		t.Errorf("Parse made %.0f allocations for %d nodes (%.3f a node); want at most 0.02 a node", allocs, nodes, perNode)
	}
}

// TestFastReaderLeavesDenseFilesEarly: a file that holds far more nodes
// than the limit goes to the library path's count from the bytes, which
// refuses it, as soon as the fast reader sees how dense it is, not once
// it has read up to the limit (it read 100,000 nodes here, and 2.8
// million, 527 MB, in a refused 16 MiB file).
func TestFastReaderLeavesDenseFilesEarly(t *testing.T) {
	data := flowLists(1 << 20) // about 500,000 nodes
	lim := Limits{MaxNodes: 100_000}.withDefaults(len(data))
	r := newFastReader(context.Background(), "dense.yaml", data, lim)
	if _, _, ok := r.read(); ok {
		t.Fatal("the fast reader accepted a file over the node limit")
	}
	if r.nodes > 10_000 {
		t.Errorf("the fast reader read %d nodes before leaving a file of about 500,000 under a limit of 100,000; want at most 10,000", r.nodes)
	}
	if _, diags := ParseAll("dense.yaml", data, Limits{MaxNodes: 100_000}); len(diags) != 1 || diags[0].Code != CodeTooMany {
		t.Errorf("ParseAll: %v, want one %s", diags, CodeTooMany)
	}
	// A file under the limit at the same density is still read.
	small := flowLists(64 << 10)
	if _, _, ok := newFastReader(context.Background(), "small.yaml", small, Limits{}.withDefaults(len(small))).read(); !ok {
		t.Error("the fast reader left a dense file under the limit")
	}
}
