package tosca

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// memFiles is a Files of in-memory files, named "pkg.csar!/path" as
// pkg/config names an archive's members.
type memFiles map[string]string

func (m memFiles) member(name string) (string, bool) {
	p, ok := strings.CutPrefix(filepath.ToSlash(name), "pkg.csar!/")
	return p, ok
}

func (m memFiles) Contains(name string) bool {
	_, ok := m.member(name)
	return ok
}

func (m memFiles) Exists(name string) bool {
	p, ok := m.member(name)
	_, found := m[p]
	return ok && found
}

func (m memFiles) ReadFile(_ context.Context, name string, max int64) ([]byte, error) {
	p, _ := m.member(name)
	data, ok := m[p]
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return []byte(data), nil
}

func (m memFiles) String() string { return "pkg.csar" }

// TestFilesConfineWhatATemplateReads compiles a template read from Files
// (an archive) whose imports try to leave it: a relative path climbing
// out, an absolute path and a file:// URL are refused unread, naming the
// archive as the root, even though the files exist; an import map's file
// is read, as the user allowed it.
func TestFilesConfineWhatATemplateReads(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(dir, "outside.yaml")
	writeFile(t, outside, "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.Secret:\n    derived_from: tosca.nodes.Root\n# "+secretMarker+"\n")
	mapped := filepath.Join(dir, "mapped.yaml")
	writeFile(t, mapped, "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.Mapped:\n    derived_from: tosca.nodes.Root\n")
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	climb, err := filepath.Rel(filepath.Join(wd, "pkg.csar!", "Definitions"), outside)
	if err != nil {
		t.Fatal(err)
	}
	files := memFiles{
		"Definitions/main.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\nimports:\n  - types.yaml\n  - " + filepath.ToSlash(climb) +
			"\n  - " + outside + "\n  - file://" + filepath.ToSlash(outside) + "\n  - https://example.com/mapped.yaml\n" +
			"topology_template:\n  node_templates:\n    app:\n      type: my.App\n    mapped:\n      type: my.Mapped\n",
		"Definitions/types.yaml": "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  my.App:\n    derived_from: tosca.nodes.Root\n",
	}
	_, diags := Compile(context.Background(), "pkg.csar!/Definitions/main.yaml", Options{Files: files, ImportMap: map[string]string{"https://example.com/mapped.yaml": mapped}})
	var refused int
	for _, d := range diags {
		if strings.Contains(d.Summary+d.Detail, secretMarker) {
			t.Fatalf("a diagnostic quotes the file outside the archive: %v", d)
		}
		if d.Code == CodeImportOutsideRoot && strings.Contains(d.Summary, "the configuration root is the archive pkg.csar") && d.Range.File == "pkg.csar!/Definitions/main.yaml" {
			refused++
			continue
		}
		t.Errorf("unexpected: %v", d)
	}
	if refused != 3 {
		t.Errorf("%d imports refused, want 3: %v", refused, diags)
	}
}

// TestSelfContainedPackageNamesOnlyItsFiles compiles the entry of a
// package (Options.SelfContained): a relative implementation that is
// neither an artifact of its node nor a file of the package, and a
// relative artifact file the package lacks, are errors where written; an
// implementation naming an artifact, a file the package holds (taken from
// the folder of the file it is written in, here a type file elsewhere), a
// URL and a path on the target host are not; outside a package none is
// judged.
func TestSelfContainedPackageNamesOnlyItsFiles(t *testing.T) {
	files := memFiles{
		"Definitions/main.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
imports:
  - ../Types/types.yaml
topology_template:
  node_templates:
    app:
      type: my.App
      interfaces:
        Standard:
          create: ../Scripts/missing.sh
          configure: setup
          start: https://example.com/start.sh
          stop: /usr/local/bin/stop
      artifacts:
        setup:
          type: tosca.artifacts.Implementation.Bash
          file: ../Scripts/setup.sh
        image:
          type: tosca.artifacts.Deployment.Image.VM
          file: ../Files/missing.img
`,
		"Types/types.yaml": `tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  my.App:
    derived_from: tosca.nodes.Root
    interfaces:
      Standard:
        type: tosca.interfaces.node.lifecycle.Standard
        delete: scripts/delete.sh
`,
		"Types/scripts/delete.sh": "#!/bin/sh\n",
		"Scripts/setup.sh":        "#!/bin/sh\n",
	}
	_, diags := Compile(context.Background(), "pkg.csar!/Definitions/main.yaml", Options{Files: files, SelfContained: true})
	var got []string
	for _, d := range diags {
		if d.Range.File != "pkg.csar!/Definitions/main.yaml" {
			t.Errorf("unexpected: %v", d)
		}
		got = append(got, fmt.Sprintf("%d %s", d.Range.Start.Line, d.Code))
	}
	// The path on the target host is outside the root: a warning of its
	// own, as outside a package.
	want := []string{"10 " + CodeImplNotFound, "13 " + CodeImplOutsideRoot, "20 " + CodeArtifactNotFound}
	if !slices.Equal(got, want) {
		t.Errorf("diagnostics = %v, want %v\n%v", got, want, diags)
	}
	_, diags = Compile(context.Background(), "pkg.csar!/Definitions/main.yaml", Options{Files: files})
	for _, d := range diags {
		if d.Code == CodeImplNotFound || d.Code == CodeArtifactNotFound {
			t.Errorf("outside a package: %v", d)
		}
	}
}
