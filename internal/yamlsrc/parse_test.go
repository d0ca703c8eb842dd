package yamlsrc

import (
	"strings"
	"testing"
)

func TestPositionsAndValues(t *testing.T) {
	src := "a: 1\nb:\n  - \"x\"\n  - ünï: true\nc: 2.5\n"
	n, ds := Parse("f.yaml", []byte(src), Limits{})
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	b := n.Get("b")
	if b.Kind != Sequence || b.Range.Start.Line != 3 || b.Range.Start.Column != 3 {
		t.Fatalf("b at %+v", b.Range)
	}
	item := b.Items()[1].Pairs()[0]
	if item.Value.Range.Start.Column != 10 || item.Value.Range.Start.Byte != strings.Index(src, "true") {
		t.Errorf("value pos %+v, want col 10 byte %d", item.Value.Range.Start, strings.Index(src, "true"))
	}
	if v, ok := n.Get("a").Int(); !ok || v != 1 {
		t.Errorf("a = %v %v", v, ok)
	}
	if !b.Items()[0].IsString() {
		t.Error("quoted scalar not a string")
	}
	if f, ok := n.Get("c").Float(); !ok || f != 2.5 {
		t.Errorf("c = %v", f)
	}
}

// TestTagged: a node records whether its tag was written, so that a
// front end can refuse a YAML type that only an explicit tag gives
// (TOSCA 2.0 refuses !!timestamp) while it reads the same text untagged.
func TestTagged(t *testing.T) {
	src := "a: !!timestamp 2001-12-14T21:59:43Z\nb: 2001-12-14T21:59:43Z\nc: !!str 5\nd: \"x\"\ne: !!map {}\n"
	n, ds := Parse("f.yaml", []byte(src), Limits{})
	if len(ds) != 0 {
		t.Fatal(ds)
	}
	for key, want := range map[string]bool{"a": true, "b": false, "c": true, "d": false, "e": true} {
		if got := n.Get(key).Tagged; got != want {
			t.Errorf("%s: Tagged = %v, want %v", key, got, want)
		}
	}
	if a, b := n.Get("a"), n.Get("b"); a.Tag != TagTimestamp || b.Tag != TagTimestamp {
		t.Errorf("tags %s and %s, want %s for both", a.Tag, b.Tag, TagTimestamp)
	}
}

func TestBadInputs(t *testing.T) {
	deep := strings.Repeat("[", 300) + strings.Repeat("]", 300)
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	prev := "a"
	for _, name := range []string{"b", "c", "d", "e", "f", "g", "h", "i"} {
		bomb += name + ": &" + name + " [*" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + ", *" + prev + "]\n"
		prev = name
	}
	cases := []struct {
		name, src, code string
	}{
		{"syntax", "a: [1, 2\nb: 3\n", CodeSyntax},
		{"binary", "a: 1\n\x00\x01\x02", CodeBinary},
		{"invalid utf8", "a: \xff\xfe\n", CodeBinary},
		{"deep", deep, CodeTooDeep},
		{"bomb", bomb, CodeAliasBomb},
		{"two docs", "a: 1\n---\nb: 2\n", CodeMultipleDoc},
		{"bad merge", "a:\n  <<: 3\n", CodeBadMerge},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, ds := Parse("f.yaml", []byte(c.src), Limits{})
			if !ds.HasErrors() {
				t.Fatal("no error")
			}
			found := false
			for _, d := range ds {
				if d.Code == c.code && d.Range.File == "f.yaml" && d.Range.Start.Line > 0 {
					found = true
				}
			}
			if !found {
				t.Errorf("want %s, got %v", c.code, ds)
			}
		})
	}
	if _, ds := Parse("f", make([]byte, 20), Limits{MaxFileBytes: 10}); !ds.HasErrors() || ds[0].Code != CodeTooLarge {
		t.Errorf("size limit: %v", ds)
	}
}

func TestMergeAndDuplicates(t *testing.T) {
	src := "base: &b {x: 1, y: 2}\nm:\n  <<: *b\n  y: 3\n  z: 4\n  z: 5\n"
	n, ds := Parse("f", []byte(src), Limits{})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	m := n.Get("m")
	if v, _ := m.Get("y").Int(); v != 3 {
		t.Errorf("explicit key lost to merge: %d", v)
	}
	if v, _ := m.Get("x").Int(); v != 1 {
		t.Errorf("merged key missing")
	}
	if v, _ := m.Get("z").Int(); v != 5 {
		t.Errorf("last duplicate should win, got %d", v)
	}
	d := m.DuplicateKeys()
	if len(d) != 1 || d[0].Key.Range.Start.Line != 6 {
		t.Errorf("duplicates %v", d)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"a: 1", "- [a, {b: c}]", "x: &a [*a]", "<<: {a: 1}", "'unterminated", "a: |\n  text\n",
		// Syntax errors of several classes (TestSyntaxErrorPositions).
		"a:\n  b: 1\n c: 2\n", "a: b: c", "a: [b,\n  c", "a: \"x\\qy\"", "é: [a, \"b\" c]\r\n", "%YAML 1.1\n%YAML 1.1\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, ds := ParseAll("fuzz.yaml", data, Limits{MaxExpandedNodes: 10000})
		for _, d := range ds {
			if d.Range.Start.Line < 1 {
				t.Fatalf("diagnostic without position: %v", d)
			}
			// Every diagnostic is placed inside the file; a syntax error
			// at a byte offset that has its line and column.
			checkWithin(t, data, d)
		}
		for _, n := range docs {
			_ = n.Interface()
		}
	})
}

func TestPositionsOutOfOrder(t *testing.T) {
	src := "k: {a: 1, bb: [x, ÿz, w], c: 3}\nl: [é, f]\n"
	idx := newLineIndex([]byte(src))
	// Out-of-order queries must give the same answers as in-order ones.
	for _, q := range [][2]int{{1, 30}, {1, 5}, {2, 5}, {1, 20}, {1, 1}, {2, 2}} {
		got := idx.pos(q[0], q[1])
		fresh := newLineIndex([]byte(src)).pos(q[0], q[1])
		if got != fresh {
			t.Errorf("pos%v = %+v, fresh index says %+v", q, got, fresh)
		}
	}
}
