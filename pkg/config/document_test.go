package config

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
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
