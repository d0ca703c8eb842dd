package tosca

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/normative"
)

// TestSimpleProfile2 checks the embedded org.oasis-open.simple:2.0: it is
// found under both of its names, compiles without a diagnostic, and has
// every type of TOSCA 1.3's normative types under its 2.0 name (the
// tosca.<kind>. prefix dropped), with the same properties. The TC's own
// copy of the 2.0 profile is not in the corpus (only its TOSCA.meta), so
// 1.3's normative types, which it was written from, are the reference.
func TestSimpleProfile2(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"org.oasis-open.simple:2.0", "org.oasis-open.tosca.simple:2.0"} {
		path := filepath.Join(dir, "p.yaml")
		src := "tosca_definitions_version: tosca_2_0\nimports: [ { profile: " + name + " } ]\n" +
			"service_template:\n  node_templates:\n    host: { type: Compute }\n" +
			"    db: { type: Database, properties: { name: shop }, requirements: [ { host: dbms } ] }\n" +
			"    dbms: { type: DBMS, requirements: [ { host: host } ] }\n"
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		g, diags := Compile(context.Background(), path, Options{})
		if len(diags) != 0 || g == nil || g.Len() != 3 {
			t.Fatalf("%s: %v", name, diags)
		}
	}
	// The file internal/tosca2 embeds.
	data, err := os.ReadFile(filepath.Join("internal", "tosca2", "profiles2", "org.oasis-open.simple-2.0.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ours, diags := yamlsrc.Parse("simple-2.0", data, yamlsrc.Limits{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	_, ref, _ := normative.For("tosca_simple_yaml_1_3")
	theirs, diags := yamlsrc.Parse("1.3", ref, yamlsrc.Limits{})
	if diags.HasErrors() {
		t.Fatal(diags)
	}
	// Types the 2.0 profile leaves out (the 1.3 scalar-unit types are
	// its Size, Time, Frequency and Bitrate; the network types drop their
	// network. prefix; the lifecycle interfaces are Standard and
	// Configure).
	dropped := map[string]bool{
		"tosca.datatypes.TimeInterval": true, "tosca.datatypes.json": true, "tosca.datatypes.xml": true,
		"tosca.nodes.Container.Runtime": true, "tosca.nodes.Container.Application": true,
		"tosca.artifacts.template": true, "tosca.capabilities.Container.Docker": true,
		"tosca.artifacts.Deployment.Image.VM.QCOW2": true, "tosca.artifacts.Deployment.Image.VM.ISO": true,
		"tosca.artifacts.Implementation.Ansible": true, "tosca.artifacts.Deployment.Image.Container.Docker": true,
	}
	for _, sec := range []string{"artifact_types", "data_types", "capability_types", "relationship_types", "node_types", "policy_types", "group_types"} {
		for _, p := range theirs.Get(sec).Pairs() {
			name := p.Key.Value
			if dropped[name] {
				continue
			}
			short := strings.TrimPrefix(name[strings.Index(name[len("tosca."):], ".")+len("tosca.")+1:], "network.")
			mine := ours.Get(sec).Get(short)
			if mine == nil {
				t.Errorf("%s %s: no %s in the 2.0 profile", sec, name, short)
				continue
			}
			for _, prop := range p.Value.Get("properties").Pairs() {
				if mine.Get("properties").Get(prop.Key.Value) == nil {
					t.Errorf("%s %s: property %s missing", sec, short, prop.Key.Value)
				}
			}
		}
	}
}
