package tosca

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
)

// rootAt returns the configuration root folders dirs (Options.Root), for
// tests whose files import across folders above their own (the corpus,
// the fixtures), failing the test when one is not a folder: a mistyped
// root would make every import look outside it.
func rootAt(t testing.TB, dirs ...string) []string {
	t.Helper()
	for _, d := range dirs {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() {
			t.Fatalf("root %s is not a folder (%v)", d, err)
		}
	}
	return dirs
}

// secretMarker lives only in files outside the configuration root: no
// diagnostic may ever contain it.
const secretMarker = "MARKER_hunter2_outside"

// confineTree makes base/{root/, outside/secret.yaml} and returns root and
// the secret file. The secret is valid TOSCA, so that reading it would
// compile, and a syntax error would quote it.
func confineTree(t *testing.T) (root, secret string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret = filepath.Join(outside, "secret.yaml")
	writeFile(t, secret, "tosca_definitions_version: tosca_simple_yaml_1_3\ndescription: "+secretMarker+"\nnode_types:\n  Leaked"+secretMarker+": {derived_from: tosca.nodes.Root}\n  [unclosed\n")
	return root, secret
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// compileImporting compiles root/main.yaml whose one import is spec (on
// line 3, column 5) and returns its diagnostics, failing the test if the
// compile does not return within a bound (a FIFO or a device must not
// block it).
func compileImporting(t *testing.T, root, spec string, r []string) diag.Diagnostics {
	t.Helper()
	main := filepath.Join(root, "main.yaml")
	writeFile(t, main, fmt.Sprintf("tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - %q\n", spec))
	done := make(chan diag.Diagnostics, 1)
	go func() {
		_, diags := Compile(context.Background(), main, Options{Root: r})
		done <- diags
	}()
	select {
	case diags := <-done:
		return diags
	case <-time.After(20 * time.Second):
		t.Fatalf("compiling an import of %s blocked", spec)
		return nil
	}
}

// requireOneRefusal checks that diags are exactly one error of code, at
// the import entry of main.yaml, quoting nothing of the refused file.
func requireOneRefusal(t *testing.T, diags diag.Diagnostics, root, code string) {
	t.Helper()
	if len(diags) != 1 {
		t.Fatalf("want one %s diagnostic, got %d:\n%v", code, len(diags), diags)
	}
	d := diags[0]
	if d.Code != code || d.Severity != diag.Error {
		t.Fatalf("want an error %s, got %s", code, d.Error())
	}
	if d.Range.File != filepath.Join(root, "main.yaml") || d.Range.Start.Line != 3 || d.Range.Start.Column != 5 {
		t.Errorf("want it at main.yaml:3:5 (the import entry), got %s:%d:%d", d.Range.File, d.Range.Start.Line, d.Range.Start.Column)
	}
	if strings.Contains(d.Summary+d.Detail, secretMarker) {
		t.Errorf("the diagnostic quotes the refused file: %s", d.Error())
	}
}

func TestImportOutsideRootIsRefusedWithoutContent(t *testing.T) {
	root, secret := confineTree(t)
	if err := os.Symlink(secret, filepath.Join(root, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(secret), filepath.Join(root, "linked-folder")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"absolute path":           secret,
		"dot-dot out of the root": filepath.Join("..", "outside", "secret.yaml"),
		"deep dot-dot":            strings.Repeat("../", 12) + strings.TrimPrefix(filepath.ToSlash(secret), "/"),
		"file URL":                "file://" + filepath.ToSlash(secret),
		"link to a file out":      "link.yaml",
		"through a linked folder": "linked-folder/secret.yaml",
	}
	if runtime.GOOS == "linux" {
		cases["the process environment"] = "/proc/self/environ"
		cases["a system file"] = "/etc/passwd"
	}
	t.Setenv("XOSPLAN_TEST_SECRET", secretMarker)
	for name, spec := range cases {
		t.Run(name, func(t *testing.T) {
			requireOneRefusal(t, compileImporting(t, root, spec, rootAt(t, root)), root, CodeImportOutsideRoot)
		})
	}
}

func TestImportOfSpecialFileIsRefusedWithoutBlocking(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	root, _ := confineTree(t)
	fifo := filepath.Join(root, "types.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	requireOneRefusal(t, compileImporting(t, root, "types.yaml", rootAt(t, root)), root, CodeImportNotRegular)
	// /dev/zero inside a root that holds /dev: refused by its type, before
	// a byte is read.
	requireOneRefusal(t, compileImporting(t, root, "/dev/zero", rootAt(t, root, "/dev")), root, CodeImportNotRegular)
}

func TestImportTooLargeIsRefusedBeforeReading(t *testing.T) {
	root, _ := confineTree(t)
	big, err := os.Create(filepath.Join(root, "big.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: the size check must refuse it without reading a byte.
	if err := big.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	big.Close()
	requireOneRefusal(t, compileImporting(t, root, "big.yaml", rootAt(t, root)), root, CodeImportTooLarge)
}

// TestImportClimbingInsideTheRootIsRead: real projects import with ../
// inside their tree; with the project as root that works, and without a
// root (a library caller) the file's own folder is the root.
func TestImportClimbingInsideTheRootIsRead(t *testing.T) {
	project := t.TempDir()
	stack := filepath.Join(project, "stacks", "web")
	types := filepath.Join(project, "types")
	for _, d := range []string{stack, types} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(types, "app.yaml"), "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.App: {derived_from: tosca.nodes.Root}\n")
	main := filepath.Join(stack, "main.yaml")
	writeFile(t, main, "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - ../../types/app.yaml\ntopology_template:\n  node_templates:\n    a: {type: my.App}\n")
	_, diags := Compile(context.Background(), main, Options{Root: rootAt(t, project)})
	requireNoErrors(t, diags)
	_, diags = Compile(context.Background(), main, Options{})
	if !hasCode(diags, CodeImportOutsideRoot, diag.Error) {
		t.Errorf("without a root, an import above the file's folder was read: %v", diags)
	}
}

// TestImportFallbackStaysInsideTheRoot: the tosca-parser fallback that
// looks in folders above the importer never reaches out of the root.
func TestImportFallbackStaysInsideTheRoot(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(base, "types.yaml"), "tosca_definitions_version: tosca_simple_yaml_1_3\ndescription: "+secretMarker+"\n")
	diags := compileImporting(t, root, "types.yaml", rootAt(t, root))
	requireOneRefusal(t, diags, root, CodeImportNotFound)
}

func TestImplementationsAndArtifactsOutsideRootAreReported(t *testing.T) {
	root, secret := confineTree(t)
	if err := os.Symlink(filepath.Dir(secret), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	main := filepath.Join(root, "main.yaml")
	writeFile(t, main, `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  my.App:
    derived_from: tosca.nodes.SoftwareComponent
    interfaces:
      Standard:
        create: /opt/scripts/create.sh
topology_template:
  node_templates:
    host:
      type: tosca.nodes.Compute
    app:
      type: my.App
      requirements: [{host: host}]
      artifacts:
        inside: files/app.tar.gz
        key: /home/ubuntu/.ssh/id_rsa
        linked: {file: out/secret.yaml, type: tosca.artifacts.File}
        remote: https://example.com/app.tar.gz
      interfaces:
        Standard:
          configure: scripts/configure.sh
          start: ../../bin/start.sh
          stop:
            implementation:
              primary: scripts/stop.sh
              dependencies: [ out/helper.sh, scripts/lib.sh ]
    other:
      type: my.App
      requirements: [{host: host}]
`)
	_, diags := Compile(context.Background(), main, Options{Root: rootAt(t, root)})
	// Warnings: the executor refuses to run such an implementation
	// (pkg/executor), and templates of other orchestrators name files on
	// the target host that validate must accept.
	want := map[string]string{ // line:col → severity code
		"7:17":  "warning " + CodeImplOutsideRoot,
		"17:14": "warning " + CodeArtifactOutsideRoot,
		"18:24": "warning " + CodeArtifactOutsideRoot,
		"23:18": "warning " + CodeImplOutsideRoot,
		"27:31": "warning " + CodeImplOutsideRoot,
	}
	got := map[string]string{}
	for _, d := range diags {
		if d.Code == CodeDuplicateKey {
			continue
		}
		got[fmt.Sprintf("%d:%d", d.Range.Start.Line, d.Range.Start.Column)] = d.Severity.String() + " " + d.Code
		if strings.Contains(d.Summary+d.Detail, secretMarker) {
			t.Errorf("a diagnostic quotes a file outside the root: %s", d.Error())
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("errors at %v; want %v (each once, though two templates share the type's)\n%v", got, want, diags)
	}
}
