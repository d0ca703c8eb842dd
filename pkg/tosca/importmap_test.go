package tosca

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"

	"github.com/xosplan/xosplan/pkg/diag"
)

// importMapTree makes base/{root/main.yaml, mirror/types.yaml}: main.yaml
// imports what imports says and uses my.App, which types.yaml defines;
// mirror/ lies outside the configuration root.
func importMapTree(t *testing.T, imports string) (main, mirrored string) {
	t.Helper()
	base := t.TempDir()
	root, mirror := filepath.Join(base, "root"), filepath.Join(base, "mirror")
	for _, d := range []string{root, mirror} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	mirrored = filepath.Join(mirror, "types.yaml")
	writeFile(t, mirrored, "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.App:\n    derived_from: tosca.nodes.Root\n")
	main = filepath.Join(root, "main.yaml")
	writeFile(t, main, "tosca_definitions_version: tosca_simple_yaml_1_3\n"+imports+"topology_template:\n  node_templates:\n    app:\n      type: my.App\n")
	return main, mirrored
}

// TestImportMapReadsTheMappedFileInsteadOfTheNetwork checks
// Options.ImportMap: a URL import (written alone or as a repository's url
// joined with the file) found in the map reads the local file it maps to,
// even outside the configuration root, without any diagnostic; an
// unmapped URL stays one tosca.network_import error.
func TestImportMapReadsTheMappedFileInsteadOfTheNetwork(t *testing.T) {
	const url = "https://example.com/profiles/types.yaml"
	cases := []struct {
		name, imports string
	}{
		{"a URL", "imports:\n  - " + url + "\n"},
		{"a file of a repository", "repositories:\n  profiles: https://example.com/profiles/\nimports:\n  - file: types.yaml\n    repository: profiles\n"},
		{"a file of a repository in the long form", "repositories:\n  profiles:\n    url: https://example.com/profiles\nimports:\n  - file: types.yaml\n    repository: profiles\n"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			main, mirrored := importMapTree(t, tc.imports)
			opts := Options{Root: rootAt(t, filepath.Dir(main)), ImportMap: map[string]string{url: mirrored}}
			_, diags := Compile(context.Background(), main, opts)
			if len(diags) != 0 {
				t.Errorf("mapped: want no diagnostics, got %v", diags)
			}
			_, diags = Compile(context.Background(), main, Options{Root: rootAt(t, filepath.Dir(main))})
			if len(diags) != 1 || diags[0].Code != CodeNetworkImport || diags[0].Severity != diag.Error {
				t.Errorf("unmapped: want one %s error (what my.App lacks follows from it), got %v", CodeNetworkImport, diags)
			}
		})
	}
}

// TestImportMapTargetIsReadWithTheChecksOfAnImport checks that a mapped
// file is read as any import is: one that does not exist or is not a
// regular file is one error at the import entry, and the imports of a
// mapped file are confined to the configuration root, whose permission
// the mapping extends to that one file only.
func TestImportMapTargetIsReadWithTheChecksOfAnImport(t *testing.T) {
	const url = "https://example.com/types.yaml"
	imports := "imports:\n  - " + url + "\n"

	main, mirrored := importMapTree(t, imports)
	missing := filepath.Join(filepath.Dir(mirrored), "missing.yaml")
	_, diags := Compile(context.Background(), main, Options{Root: rootAt(t, filepath.Dir(main)), ImportMap: map[string]string{url: missing}})
	requireCodeAt(t, diags, CodeImportNotFound, main, 3)

	if runtime.GOOS != "windows" {
		fifo := filepath.Join(filepath.Dir(mirrored), "fifo.yaml")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Fatal(err)
		}
		_, diags = Compile(context.Background(), main, Options{Root: rootAt(t, filepath.Dir(main)), ImportMap: map[string]string{url: fifo}})
		requireCodeAt(t, diags, CodeImportNotRegular, main, 3)
	}

	// The mapped file imports its sibling, outside the root.
	writeFile(t, mirrored, "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - sibling.yaml\n")
	writeFile(t, filepath.Join(filepath.Dir(mirrored), "sibling.yaml"), "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.App:\n    derived_from: tosca.nodes.Root\n")
	_, diags = Compile(context.Background(), main, Options{Root: rootAt(t, filepath.Dir(main)), ImportMap: map[string]string{url: mirrored}})
	requireCodeAt(t, diags, CodeImportOutsideRoot, mirrored, 3)
}

// requireCodeAt checks that diags are exactly one error of code, in file
// at line.
func requireCodeAt(t *testing.T, diags diag.Diagnostics, code, file string, line int) {
	t.Helper()
	if len(diags) != 1 {
		t.Fatalf("want one %s error, got %v", code, diags)
	}
	d := diags[0]
	if d.Code != code || d.Severity != diag.Error || d.Range.File != file || d.Range.Start.Line != line {
		t.Errorf("want a %s error at %s:%d, got %s [%s]", code, file, line, d.Error(), d.Code)
	}
}
