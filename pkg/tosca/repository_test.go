package tosca

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
)

// repoVersion is what differs between a 1.x and a 2.0 template of the
// repository tests: the header, the import keyname and the type files.
type repoVersion struct {
	name, header, fileKey string
	// app and base are the files of the repository: app.yaml defines the
	// type App uses, derived from what base.yaml (its sibling) defines.
	app, base string
	// uses is the topology that needs App.
	uses string
}

func repoVersions() []repoVersion {
	return []repoVersion{
		{
			name: "1.3", header: "tosca_definitions_version: tosca_simple_yaml_1_3\n", fileKey: "file",
			app:  "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - base.yaml\nnode_types:\n  my.App:\n    derived_from: my.Base\n",
			base: "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.Base:\n    derived_from: tosca.nodes.Root\n",
			uses: "topology_template:\n  node_templates:\n    app:\n      type: my.App\n",
		},
		{
			name: "2.0", header: "tosca_definitions_version: tosca_2_0\n", fileKey: "url",
			app:  "tosca_definitions_version: tosca_2_0\nimports:\n  - base.yaml\nnode_types:\n  App:\n    derived_from: Base\n",
			base: "tosca_definitions_version: tosca_2_0\nnode_types:\n  Base: {}\n",
			uses: "service_template:\n  node_templates:\n    app:\n      type: App\n",
		},
	}
}

// repoTree makes base/{root/{svc/, shared/app.yaml, shared/base.yaml},
// outside/{secret.yaml, app.yaml}} and returns root and outside. The
// repository folder shared/ lies beside svc/, where the templates are
// written; outside/ is out of the configuration root, and its files are
// valid TOSCA that would define App if read, with the secret marker in a
// syntax error.
func repoTree(t *testing.T, v repoVersion) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root, outside = filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "svc"), filepath.Join(root, "shared"), filepath.Join(root, "lib", "deep"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(root, "shared", "app.yaml"), v.app)
	writeFile(t, filepath.Join(root, "shared", "base.yaml"), v.base)
	writeFile(t, filepath.Join(outside, "app.yaml"), v.header+"description: "+secretMarker+"\n  [unclosed\n")
	return root, outside
}

// compileRepo writes root/svc/main.yaml (header, then repositories and
// imports, then the topology that uses App) and compiles it within a
// bound.
func compileRepo(t *testing.T, v repoVersion, root, body string) diag.Diagnostics {
	t.Helper()
	main := filepath.Join(root, "svc", "main.yaml")
	writeFile(t, main, v.header+body+v.uses)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, diags := Compile(ctx, main, Options{Root: rootAt(t, root)})
	if ctx.Err() != nil {
		t.Fatalf("compiling %s did not finish: %v", main, ctx.Err())
	}
	return diags
}

// TestLocalRepositoryImportIsReadLikeALocalImport checks that a
// repository whose url is local — a path relative to the file that
// defines it, or a file: URL — serves its files as local imports: the
// file named from the repository's root is read, and its own relative
// imports from its folder, with no diagnostic. A 1.x import in an
// imported file may name the top-level file's repository, whose relative
// url is still taken from the top-level file's folder.
func TestLocalRepositoryImportIsReadLikeALocalImport(t *testing.T) {
	for _, v := range repoVersions() {
		t.Run(v.name, func(t *testing.T) {
			root, _ := repoTree(t, v)
			shared := filepath.ToSlash(filepath.Join(root, "shared"))
			imp := "imports:\n  - " + v.fileKey + ": app.yaml\n    repository: shared\n"
			cases := map[string]string{
				"a relative url":                    "repositories:\n  shared: ../shared\n" + imp,
				"a relative url in the long form":   "repositories:\n  shared:\n    url: ../shared/\n" + imp,
				"a leading slash from its root":     "repositories:\n  shared: ../shared\nimports:\n  - " + v.fileKey + ": /app.yaml\n    repository: shared\n",
				"a file URL":                        "repositories:\n  shared: file://" + shared + "\n" + imp,
				"a file URL of localhost":           "repositories:\n  shared: file://localhost" + shared + "/\n" + imp,
				"a file URL that lists a folder up": "repositories:\n  shared: file://" + filepath.ToSlash(filepath.Join(root, "svc")) + "/../shared\n" + imp,
			}
			if v.name == "1.3" {
				// The import is written in lib/deep/mid.yaml: "../shared"
				// from there would be lib/shared, which does not exist.
				writeFile(t, filepath.Join(root, "lib", "deep", "mid.yaml"), v.header+imp)
				cases["the top-level file's repository, imported deeper"] = "repositories:\n  shared: ../shared\nimports:\n  - ../lib/deep/mid.yaml\n"
			}
			for name, body := range cases {
				t.Run(name, func(t *testing.T) {
					if diags := compileRepo(t, v, root, body); len(diags) != 0 {
						t.Errorf("want no diagnostics, got:\n%v", diags)
					}
				})
			}
		})
	}
}

// TestLocalRepositoryImportIsConfinedToTheRoot checks that a file of a
// local repository outside the configuration root — the repository
// outside it, a file climbing out of it, a link out of it — is refused
// unread: one tosca.import_outside_root error at the import, quoting
// nothing of the file.
func TestLocalRepositoryImportIsConfinedToTheRoot(t *testing.T) {
	for _, v := range repoVersions() {
		t.Run(v.name, func(t *testing.T) {
			root, outside := repoTree(t, v)
			if err := os.Symlink(outside, filepath.Join(root, "linked")); err != nil {
				t.Fatal(err)
			}
			cases := map[string]struct{ repo, file string }{
				"a file URL out of the root":     {"file://" + filepath.ToSlash(outside), "app.yaml"},
				"a relative url out of the root": {"../../outside", "app.yaml"},
				"a file climbing out":            {"../shared", "../../outside/app.yaml"},
				"a link out of the root":         {"../linked", "app.yaml"},
			}
			for name, tc := range cases {
				t.Run(name, func(t *testing.T) {
					body := "repositories:\n  r: " + tc.repo + "\nimports:\n  - " + v.fileKey + ": " + tc.file + "\n    repository: r\n"
					diags := compileRepo(t, v, root, body)
					requireOneImportError(t, diags, CodeImportOutsideRoot, filepath.Join(root, "svc", "main.yaml"), 5)
				})
			}
		})
	}
}

// TestRepositoryImportOverTheNetworkStaysNetworkImport checks that a
// repository with a URL of another scheme or host is still the network:
// one tosca.network_import error; that a file a local repository lacks is
// tosca.import_not_found naming the repository; and that a repository
// declared twice in a file is read from its last definition, as the
// duplicate key's diagnostic says.
func TestRepositoryImportOverTheNetworkStaysNetworkImport(t *testing.T) {
	for _, v := range repoVersions() {
		t.Run(v.name, func(t *testing.T) {
			root, _ := repoTree(t, v)
			main := filepath.Join(root, "svc", "main.yaml")
			imp := "imports:\n  - " + v.fileKey + ": app.yaml\n    repository: r\n"
			for name, url := range map[string]string{
				"https":                    "https://example.com/types/",
				"http in the long form":    "{ url: 'http://example.com/types' }",
				"ftp":                      "ftp://example.com/types",
				"a file URL of a host":     "file://example.com/srv/types",
				"a network-path reference": "//example.com/types",
			} {
				t.Run(name, func(t *testing.T) {
					diags := compileRepo(t, v, root, "repositories:\n  r: "+url+"\n"+imp)
					requireOneImportError(t, diags, CodeNetworkImport, main, 5)
				})
			}
			t.Run("a file the repository lacks", func(t *testing.T) {
				diags := compileRepo(t, v, root, "repositories:\n  r: ../shared\nimports:\n  - "+v.fileKey+": missing.yaml\n    repository: r\n")
				requireOneImportError(t, diags, CodeImportNotFound, main, 5)
				if s := diags[0].Summary; !strings.Contains(s, `repository "r"`) {
					t.Errorf("the error does not name the repository: %s", s)
				}
			})
			t.Run("a repository declared twice", func(t *testing.T) {
				diags := compileRepo(t, v, root, "repositories:\n  r: https://example.com/types/\n  r: ../shared\n"+imp)
				if len(diags) != 1 || diags[0].Code != CodeDuplicateKey || diags[0].Range.Start.Line != 4 {
					t.Errorf("want only the duplicate key at line 4 (the import read from the last definition), got:\n%v", diags)
				}
			})
		})
	}
}

// requireOneImportError checks that diags hold exactly one diagnostic, an
// error of code at the import in file at line, quoting nothing of a file
// outside the root.
func requireOneImportError(t *testing.T, diags diag.Diagnostics, code, file string, line int) {
	t.Helper()
	if len(diags) != 1 {
		t.Fatalf("want one %s error, got %d:\n%v", code, len(diags), diags)
	}
	d := diags[0]
	if d.Code != code || d.Severity != diag.Error || d.Range.File != file || d.Range.Start.Line != line {
		t.Errorf("want a %s error at %s:%d, got %s [%s]", code, file, line, d.Error(), d.Code)
	}
	if strings.Contains(d.Summary+d.Detail, secretMarker) {
		t.Errorf("the diagnostic quotes a file outside the root: %s", d.Error())
	}
}
