package tosca

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// TestParseCacheCompilesAsAWholeParse compiles a template and a series of
// edits of it — inside one node template, of a value to an invalid one,
// across entries, a syntax error — with a ParseCache and without, and
// finds the same diagnostics and graph each time; a file that did not
// change is not parsed again, and an edit inside one entry shares the
// entries before it with the last parse.
func TestParseCacheCompilesAsAWholeParse(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "t.yaml")
	var b strings.Builder
	b.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  inputs:\n    port: {type: integer, default: 80}\n  node_templates:\n")
	for i := range 20 {
		fmt.Fprintf(&b, "    app%d:\n      type: tosca.nodes.WebServer\n      properties: {component_version: \"1.%d\"}\n      requirements:\n        - host: host\n", i, i)
	}
	b.WriteString("    host:\n      type: tosca.nodes.Compute\n")
	src := b.String()
	edits := []string{
		src,
		strings.Replace(src, `"1.7"`, `"1.70"`, 1),
		strings.Replace(src, "default: 80}", "default: eighty}", 1),
		strings.Replace(src, "        - host: host\n    app8:", "        - host: nohost\n    app8:", 1),
		strings.Replace(src, "    app3:\n", "    app3:\n      description: a third\n", 1),
		strings.Replace(src, "    app3:\n      type", "    app3\n      type", 1),
		strings.Replace(src, "    app4:\n", "    app3:\n", 1),
		src,
	}
	pc := NewParseCache()
	for i, text := range edits {
		writeFile(t, path, text)
		opts := Options{}
		wantG, want := Compile(context.Background(), path, opts)
		if i == 0 && (len(want) > 0 || wantG.Len() != 21) {
			t.Fatalf("the template: %v", want)
		}
		if i == 2 && !want.HasErrors() {
			t.Fatal("the invalid version compiles")
		}
		opts.Parses = pc
		gotG, got := Compile(context.Background(), path, opts)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("edit %d: with the cache\n%v\nwithout\n%v", i, got, want)
		}
		if (gotG == nil) != (wantG == nil) || gotG != nil && gotG.Len() != wantG.Len() {
			t.Errorf("edit %d: the graphs differ", i)
		}
	}
	first, _ := pc.parse(context.Background(), path, []byte(src))
	again, _ := pc.parse(context.Background(), path, []byte(src))
	if first != again {
		t.Error("an unchanged file was parsed again")
	}
	edited, _ := pc.parse(context.Background(), path, []byte(edits[1]))
	if edited == first || edited.Content[0] != first.Content[0] {
		t.Error("an edit inside one entry did not share the entries before it")
	}
}

// TestParseCacheIsSafeForConcurrentCompiles compiles edits of a template
// at once through one cache, under the race detector.
func TestParseCacheIsSafeForConcurrentCompiles(t *testing.T) {
	src := "tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Compute\n    b:\n      type: tosca.nodes.Compute\n"
	pc := NewParseCache()
	var wg sync.WaitGroup
	for i := range 8 {
		// One name, several texts at once: a reparse of one while
		// another compile reads the tree it started from.
		files := memFiles{"t.yaml": strings.Replace(src, "    b:", fmt.Sprintf("    b%d:", i), 1)}
		wg.Go(func() {
			if _, diags := Compile(context.Background(), "pkg.csar!/t.yaml", Options{Files: files, Parses: pc}); len(diags) > 0 {
				t.Error(diags)
			}
		})
	}
	wg.Wait()
}

// TestParseCacheKeepsTheFilesReadLast proves the cache keeps
// maxCachedFiles files at most, dropping the one read longest ago.
func TestParseCacheKeepsTheFilesReadLast(t *testing.T) {
	pc := NewParseCache()
	data := []byte("a: 1\n")
	for i := range maxCachedFiles {
		pc.parse(context.Background(), fmt.Sprint(i), data)
	}
	pc.parse(context.Background(), "0", data) // read again: now the newest
	pc.parse(context.Background(), "new", data)
	if len(pc.files) != maxCachedFiles {
		t.Fatalf("%d files kept", len(pc.files))
	}
	if _, ok := pc.files["1"]; ok {
		t.Error("the file read longest ago is kept")
	}
	if _, ok := pc.files["0"]; !ok {
		t.Error("a file read again was dropped")
	}
}
