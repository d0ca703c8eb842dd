package config

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/tosca"
)

// TestCompileDocumentReadsUnsavedBuffers proves that a document and the
// files it imports are read from the buffers when they hold them, and
// from disk otherwise, and that the index lists every file read.
func TestCompileDocumentReadsUnsavedBuffers(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	types := write("types.yaml", "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.App:\n    derived_from: tosca.nodes.Root\n")
	svc := write("svc.yaml", "tosca_definitions_version: tosca_simple_yaml_1_3\nimports: [types.yaml]\ntopology_template:\n  node_templates:\n    a: {type: my.App}\n")
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	doc := CompileDocument(ctx, svc, DocumentOptions{Root: root})
	if doc.Format != FormatTOSCA || doc.Diags.HasErrors() || !slices.Equal(doc.Index.Files, []string{svc, types}) {
		t.Fatalf("from disk: format %q, files %v, %v", doc.Format, doc.Index.Files, doc.Diags.Err())
	}
	// The unsaved type file renames the type: the template no longer
	// finds it.
	buffers := Buffers{types: []byte("tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.Other:\n    derived_from: tosca.nodes.Root\n")}
	doc = CompileDocument(ctx, svc, DocumentOptions{Root: root, Buffers: buffers})
	if !doc.Diags.HasErrors() || doc.Diags[0].Code != "tosca.unknown_type" {
		t.Errorf("with the buffer: %v", doc.Diags)
	}
	// A manifest never saved is compiled with its folder's manifests.
	unsaved := filepath.Join(dir, "new.yml")
	doc = CompileDocument(ctx, unsaved, DocumentOptions{Root: root, Buffers: Buffers{unsaved: []byte("application:\n  components:\n    w: {type: workflow.Instance}\n")}})
	if doc.Format != FormatManifest || doc.Diags.HasErrors() || !slices.Contains(doc.Index.Files, unsaved) {
		t.Errorf("unsaved manifest: format %q, files %v, %v", doc.Format, doc.Index.Files, doc.Diags.Err())
	}
	// Neither format: nothing to report but YAML syntax.
	other := filepath.Join(dir, "other.yaml")
	doc = CompileDocument(ctx, other, DocumentOptions{Root: root, Buffers: Buffers{other: []byte("a: [1\n")}})
	if doc.Format != "" || !doc.Diags.HasErrors() {
		t.Errorf("broken YAML of no format: %q, %v", doc.Format, doc.Diags)
	}
}

// TestCompileDocumentRefusesAnImportOutsideTheRootAsValidateDoes proves
// that with an editor's buffers an import outside the root is refused
// with the root's message, not the one of an archive.
func TestCompileDocumentRefusesAnImportOutsideTheRootAsValidateDoes(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "types.yaml"), []byte("tosca_definitions_version: tosca_simple_yaml_1_3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	svc := filepath.Join(dir, "svc.yaml")
	text := "tosca_definitions_version: tosca_simple_yaml_1_3\nimports: [" + filepath.Join(outside, "types.yaml") + "]\n"
	root, err := NewRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	doc := CompileDocument(context.Background(), svc, DocumentOptions{Root: root, Buffers: Buffers{svc: []byte(text)}})
	if len(doc.Diags) != 1 || doc.Diags[0].Code != "tosca.import_outside_root" {
		t.Fatalf("diagnostics %v", doc.Diags)
	}
	if msg := doc.Diags[0].Summary + doc.Diags[0].Detail; strings.Contains(msg, "archive") || strings.Contains(msg, "buffers") {
		t.Errorf("the refusal speaks of an archive: %q", msg)
	}
}

// TestCompileDocumentSaysWhatLoadSays proves that an editor is told what
// validate says of a file: for each error fixture of pkg/tosca and each
// Tonomi manifest of the corpus (with its folder, as one environment),
// the diagnostics CompileDocument gives for the file are those Load gives,
// but for a file of neither format, which Load refuses when it is named
// and an editor leaves alone.
func TestCompileDocumentSaysWhatLoadSays(t *testing.T) {
	ctx := context.Background()
	fixtures, err := filepath.Glob(filepath.Join("..", "tosca", "testdata", "errors", "*.yaml"))
	if err != nil || len(fixtures) < 100 {
		t.Fatalf("%d fixtures: %v", len(fixtures), err)
	}
	tonomi := testutil.CorpusDir(t, "tonomi")
	manifests, _ := filepath.Glob(filepath.Join(tonomi, "*.yml"))
	root, err := FindRoot(".", append([]string{tonomi}, fixtures...))
	if err != nil {
		t.Fatal(err)
	}
	inFile := func(ds diag.Diagnostics, f string) []string {
		var out []string
		for _, d := range ds {
			if d.Range.File == f {
				out = append(out, d.Error()+" ["+d.Code+"]")
			}
		}
		return out
	}
	folder := Load(ctx, []string{tonomi}, Options{Root: root})
	for _, f := range append(fixtures, manifests...) {
		abs, err := filepath.Abs(f)
		if err != nil {
			t.Fatal(err)
		}
		want := folder.Diags
		if !slices.Contains(manifests, f) {
			want = Load(ctx, []string{abs}, Options{Root: root}).Diags
		}
		got := CompileDocument(ctx, abs, DocumentOptions{Root: root}).Diags
		w, g := inFile(want, abs), inFile(got, abs)
		if data, err := os.ReadFile(abs); err == nil && formatOf(abs, data) == "" {
			// A YAML file of another format says nothing in an
			// editor: it is not ours to lint. Named to validate, it is an
			// error (TOSCA's missing version, when it has TOSCA keynames).
			if len(w) == 0 || !slices.ContainsFunc(w, func(s string) bool {
				return strings.HasSuffix(s, "["+CodeUnknownFormat+"]") || strings.HasSuffix(s, "[tosca.version]")
			}) {
				t.Errorf("%s: validate of the file named: %q, want an error", f, w)
			}
			w = nil
		}
		if !slices.Equal(w, g) {
			t.Errorf("%s:\nvalidate: %q\neditor:   %q", f, w, g)
		}
	}
}

// TestCompileDocumentAlone: a document compiled Alone (outside an
// editor's workspace) reads nothing beside its own buffer: a sibling
// import is refused as outside the root, saying why, even when the
// sibling is open in another buffer, and a manifest is an environment of
// its own.
func TestCompileDocumentAlone(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"types.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  demo.A:\n    derived_from: tosca.nodes.Nope\n",
		"other.yml":  tonomiApp,
	})
	main := filepath.Join(dir, "main.yaml")
	text := []byte("tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - types.yaml\n")
	types := filepath.Join(dir, "types.yaml")
	for _, buffers := range []Buffers{{main: text}, {main: text, types: []byte("tosca_definitions_version: tosca_simple_yaml_1_3\n")}} {
		doc := CompileDocument(context.Background(), main, DocumentOptions{Alone: true, Buffers: buffers})
		if len(doc.Diags) != 1 || doc.Diags[0].Code != tosca.CodeImportOutsideRoot ||
			!strings.Contains(doc.Diags[0].Summary, "outside the editor's workspace folders") || doc.Diags[0].Range.Start.Line != 3 {
			t.Errorf("alone: %v", doc.Diags)
		}
	}
	manifest := filepath.Join(dir, "env.yml")
	doc := CompileDocument(context.Background(), manifest, DocumentOptions{Alone: true, Buffers: Buffers{manifest: []byte(tonomiApp)}})
	if doc.Format != FormatManifest || !slices.Equal(doc.Index.Files, []string{manifest}) {
		t.Errorf("alone manifest: format %q, files %v, diags %v", doc.Format, doc.Index.Files, doc.Diags)
	}
}
