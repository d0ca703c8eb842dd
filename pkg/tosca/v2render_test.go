package tosca

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// TestImplementations2: a TOSCA 2.0 operation implementation (§11.8) is
// run whatever its form: a file, the name of an artifact of the node
// template or its type, or an inline artifact definition (primary and
// dependencies, as the TC's suite writes them), with a timeout. An
// artifact's file is taken from the folder of the file that declares it
// and written relative to the template's folder, where operations run,
// so that it runs, is confined to the root and is digested.
func TestImplementations2(t *testing.T) {
	const types = `tosca_definitions_version: tosca_2_0
imports: [ { profile: org.oasis-open.simple:2.0 } ]
artifact_types:
  Bash: { derived_from: Implementation }
node_types:
  App:
    derived_from: Root
    artifacts:
      lib: { type: Bash, file: scripts/lib.sh }
    interfaces:
      Standard:
        operations:
          create:
            implementation:
              primary: { type: Bash, file: scripts/create.sh }
              dependencies: [ lib ]
`
	tests := []struct {
		name      string
		template  string
		key       string
		impl      string
		deps      []string
		timeout   time.Duration
		codes     []string
		errorCode string
	}{
		{"an inline artifact of the type, from the type's folder", `
      interfaces: {}`, "Standard.create", "types/scripts/create.sh", []string{"types/scripts/lib.sh"}, 0, nil, ""},
		{"inline primary and dependencies in the template, with a timeout", `
      interfaces:
        Standard:
          operations:
            configure:
              implementation:
                primary: { type: Bash, file: scripts/configure.sh }
                dependencies:
                  - { type: Bash, file: scripts/setup.sh }
                  - lib
                  - helpers/util.sh
                timeout: 90`,
			"Standard.configure", "scripts/configure.sh", []string{"scripts/setup.sh", "types/scripts/lib.sh", "helpers/util.sh"}, 90 * time.Second, nil, ""},
		{"primary names an artifact of the template", `
      artifacts:
        start: { type: Bash, file: bin/start.sh }
      interfaces:
        Standard:
          operations:
            start: { implementation: { primary: start } }`, "Standard.start", "bin/start.sh", nil, 0, nil, ""},
		{"the short form names an artifact", `
      artifacts:
        start: { type: Bash, file: bin/start.sh }
      interfaces:
        Standard:
          operations:
            start: start`, "Standard.start", "bin/start.sh", nil, 0, nil, ""},
		{"the template's artifact refines the type's", `
      artifacts:
        lib: { type: Bash, file: mine/lib.sh }`, "Standard.create", "types/scripts/create.sh", []string{"mine/lib.sh"}, 0, nil, ""},
		{"a name that is no artifact is a file", `
      interfaces:
        Standard:
          operations:
            stop: scripts/stop.sh`, "Standard.stop", "scripts/stop.sh", nil, 0, nil, ""},
		{"an inline artifact outside the root", `
      interfaces:
        Standard:
          operations:
            stop: { implementation: { primary: { type: Bash, file: ../../elsewhere.sh } } }`,
			"Standard.stop", "../../elsewhere.sh", nil, 0, []string{CodeImplOutsideRoot}, ""},
		{"an artifact of a repository is its URL", `
      interfaces:
        Standard:
          operations:
            stop: { implementation: { primary: { type: Bash, file: stop.sh, repository: scripts } } }`,
			"Standard.stop", "https://scripts.example/v1/stop.sh", nil, 0, nil, ""},
		{"a timeout that is not a number of seconds", `
      interfaces:
        Standard:
          operations:
            stop: { implementation: { primary: scripts/stop.sh, timeout: 1m } }`, "", "", nil, 0, nil, CodeValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, main := writeAppStack(t, types, `tosca_definitions_version: tosca_2_0
imports: [ { url: types/types.yaml } ]
repositories:
  scripts: { url: "https://scripts.example/v1" }
service_template:
  node_templates:
    app:
      type: App`+tt.template+"\n")
			g, diags := Compile(context.Background(), main, Options{Root: rootAt(t, root)})
			if tt.errorCode != "" {
				if !slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return d.Code == tt.errorCode && d.Severity == diag.Error }) {
					t.Errorf("diagnostics %v, want a %s error", diags, tt.errorCode)
				}
				return
			}
			op, ok := appOperation(t, g, diags, tt.codes, tt.key)
			if !ok || op.Implementation != tt.impl || !slices.Equal(op.Dependencies, tt.deps) || op.Timeout != tt.timeout {
				t.Errorf("%s runs %q with %q in %v (found: %v), want %q with %q in %v", tt.key, op.Implementation, op.Dependencies, op.Timeout, ok, tt.impl, tt.deps, tt.timeout)
			}
		})
	}
}

// appOperation returns the operation key of the resource app of g, and
// whether it has one, after checking that diags hold no error and
// warnings of the codes want, in order.
func appOperation(t *testing.T, g *graph.Graph, diags diag.Diagnostics, want []string, key string) (graph.Operation, bool) {
	t.Helper()
	var codes []string
	for _, d := range diags {
		if d.Severity == diag.Error {
			t.Fatalf("error: %v", d)
		}
		codes = append(codes, d.Code)
	}
	if !slices.Equal(codes, want) {
		t.Errorf("diagnostics %q, want %q\n%v", codes, want, diags)
	}
	r, ok := g.Resource("app")
	if !ok {
		t.Fatal("no resource app")
	}
	op, ok := r.Driver.Operations[key]
	return op, ok
}

// writeAppStack writes types into types/types.yaml and main into
// main.yaml of a new root folder, and returns the folder and main's path.
func writeAppStack(t *testing.T, types, main string) (root, path string) {
	t.Helper()
	root = t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "types"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(root, "types", "types.yaml"), types)
	path = filepath.Join(root, "main.yaml")
	writeFile(t, path, main)
	return root, path
}
