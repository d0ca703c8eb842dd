package tosca

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
)

// FuzzLoad2 compiles arbitrary bytes after a TOSCA 2.0 version line, with
// the suite's tests folder on the profile search path: whatever the
// input, Compile returns (no panic, no hang) and every diagnostic has a
// code. Seeds are the TC suite's small files and the 2.0 error fixtures.
func FuzzLoad2(f *testing.F) {
	var seeds []string
	if corpus := testutil.CorpusDirOrEmpty("tosca2", "tests"); corpus != "" {
		for _, pattern := range []string{"tosca_2_0/*/*.yaml", "tosca_2_0/*/*/*.yaml"} {
			m, _ := filepath.Glob(filepath.Join(corpus, pattern))
			seeds = append(seeds, m...)
		}
	}
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "errors", "v2_*.yaml"))
	seeds = append(seeds, fixtures...)
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err == nil && len(data) < 16<<10 {
			f.Add(data)
		}
	}
	f.Add([]byte("tosca_definitions_version: tosca_2_0\nimports: [{profile: org.oasis-open.simple:2.0}]\nservice_template:\n  node_templates:\n    a: {type: Compute, count: 2}\n"))
	dir := f.TempDir()
	var opts Options
	if tests := testutil.CorpusDirOrEmpty("tosca2", "tests"); tests != "" {
		idx, err := NewProfileIndex(context.Background(), []string{tests})
		if err != nil {
			f.Fatal(err)
		}
		opts.Profiles = idx
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Skip(err)
		}
		_, diags := Compile(context.Background(), path, opts)
		for _, d := range diags {
			if d.Code == "" {
				t.Fatalf("diagnostic without code: %s", d.Error())
			}
		}
	})
}

// FuzzFunction2 puts an arbitrary value, written in YAML flow style, in
// the places functions and TOSCA paths are evaluated: a property, an
// operation input, a validation clause, a requirement's node filter and an
// output of a template with a count, a requirement and a custom function.
// Whatever the value, Compile returns and every diagnostic has a code.
func FuzzFunction2(f *testing.F) {
	for _, s := range []string{
		`{ $get_property: [ SELF, port ] }`,
		`{ $get_attribute: [ SELF, RELATIONSHIP, db, TARGET, address ] }`,
		`{ $get_property: [ web, ALL, port ] }`,
		`{ $get_property: [ db, CAPABILITY, feature, name ] }`,
		`{ $concat: [ a, { $join: [ [ 1, 2 ], "-" ] }, $node_index ] }`,
		`{ $sum: [ 1, { $product: [ 2, 3.5 ] } ] }`,
		`{ $quotient: [ 1, 0 ] }`,
		`{ $token: [ "a.b.c", ".", 5 ] }`,
		`{ $matches: [ abc, "[" ] }`,
		`{ $length: [ { $union: [ [ 1 ], [ 1, 2 ] ] } ] }`,
		`{ $twice: [ 1, 2, 3 ] }`,
		`$$escaped`,
		`$`,
		`{ $value: [ a, 0, b ] }`,
		`{ $and: [ { $not: [ true ] }, { $xor: [ true, 1 ] } ] }`,
		`{ $has_all_keys: [ { a: 1 }, [ a, b ] ] }`,
	} {
		f.Add(s)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, value string) {
		src := "tosca_definitions_version: tosca_2_0\n" +
			"functions:\n  twice: { signatures: [ { arguments: [ { type: integer } ], result: { type: integer } } ] }\n" +
			"node_types:\n  Db:\n    properties: { name: { type: string, default: x } }\n    attributes: { address: { type: string } }\n" +
			"    capabilities: { feature: { type: Cap } }\n" +
			"  Web:\n    properties:\n      port: { type: integer, default: 1 }\n      p: { type: string, required: false, validation: " + value + " }\n" +
			"    requirements: [ { db: { capability: Cap, relationship: Rel } } ]\n" +
			"    interfaces: { Standard: { type: Standard } }\n" +
			"capability_types:\n  Cap: {}\nrelationship_types:\n  Rel: {}\n" +
			"interface_types:\n  Standard: { operations: { create: {} } }\n" +
			"service_template:\n  node_templates:\n    db: { type: Db }\n" +
			"    web:\n      type: Web\n      count: 2\n      properties: { p: " + value + " }\n" +
			"      requirements: [ { db: { node: db, node_filter: " + value + " } } ]\n" +
			"      interfaces: { Standard: { operations: { create: { implementation: run.sh, inputs: { x: " + value + " } } } } }\n" +
			"  outputs:\n    o: { value: " + value + " }\n"
		path := filepath.Join(dir, "fuzz.yaml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Skip(err)
		}
		_, diags := Compile(context.Background(), path, Options{})
		for _, d := range diags {
			if d.Code == "" {
				t.Fatalf("diagnostic without code: %s", d.Error())
			}
		}
	})
}
