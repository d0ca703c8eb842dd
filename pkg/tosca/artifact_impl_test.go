package tosca

import (
	"context"
	"slices"
	"testing"
)

// TestImplementationNamingAnArtifact: an operation implementation (the
// short form, primary, or a dependency) that names an artifact of the node
// template or of its type chain is that artifact's file (TOSCA 1.3
// §3.6.16), taken from the folder of the file that declares the artifact
// and written relative to the template's folder, where the executor runs
// it; a name that is no artifact stays a file name.
func TestImplementationNamingAnArtifact(t *testing.T) {
	const types = `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  my.Base:
    derived_from: tosca.nodes.Root
    artifacts:
      create_script: { file: scripts/create.sh, type: tosca.artifacts.Implementation.Bash }
      lib: scripts/lib.sh
  my.App:
    derived_from: my.Base
    interfaces:
      Standard:
        create: create_script
`
	tests := []struct {
		name      string
		template  string
		key       string
		impl      string
		deps      []string
		warnCodes []string
	}{
		{"an artifact of the type's parent, from the type's folder", `
      interfaces: {}`, "Standard.create", "types/scripts/create.sh", nil, nil},
		{"primary names an artifact of the template", `
      artifacts:
        conf: { file: scripts/conf.sh, type: tosca.artifacts.Implementation.Bash }
      interfaces:
        Standard:
          configure:
            implementation: { primary: conf, dependencies: [ lib, helpers/util.sh ] }`,
			"Standard.configure", "scripts/conf.sh", []string{"types/scripts/lib.sh", "helpers/util.sh"}, nil},
		{"the template's artifact refines the type's", `
      artifacts:
        create_script: { file: scripts/mine.sh }`, "Standard.create", "scripts/mine.sh", nil, nil},
		{"a refinement without a file keeps the type's file", `
      artifacts:
        create_script: { type: tosca.artifacts.Implementation.Bash, description: the type's }`,
			"Standard.create", "types/scripts/create.sh", nil, nil},
		{"a name that is no artifact is a file", `
      interfaces:
        Standard:
          configure: scripts/configure.sh`, "Standard.configure", "scripts/configure.sh", nil, nil},
		{"an artifact outside the root", `
      artifacts:
        away: ../../elsewhere.sh
      interfaces:
        Standard:
          configure: away`, "Standard.configure", "../../elsewhere.sh", nil, []string{CodeArtifactOutsideRoot}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, main := writeAppStack(t, types, `tosca_definitions_version: tosca_simple_yaml_1_3
imports: [ types/types.yaml ]
topology_template:
  node_templates:
    app:
      type: my.App`+tt.template+"\n")
			g, diags := Compile(context.Background(), main, Options{Root: rootAt(t, root)})
			op, _ := appOperation(t, g, diags, tt.warnCodes, tt.key)
			if op.Implementation != tt.impl || !slices.Equal(op.Dependencies, tt.deps) {
				t.Errorf("%s runs %q with %q, want %q with %q", tt.key, op.Implementation, op.Dependencies, tt.impl, tt.deps)
			}
		})
	}
}
