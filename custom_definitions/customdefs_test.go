package customdefs

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/typecmp"
)

// commonFile holds the types every model file imports.
const commonFile = "xoscommon.yaml"

// recipeDirs are the corpus folders whose recipes import custom_types/*.yaml
// in the xproto-generated style that this package reproduces. The XOS 3.x
// legacy samples (corpus/tosca/xos/legacy-xos3) are left out on purpose:
// they import hand-written XOS 3 type files (custom_types/xos.yaml, cdn.yaml,
// exampleservice.yaml) that define other types under the same names
// (tosca.nodes.Site with other properties) and that sit on disk beside them.
var recipeDirs = []string{
	"xos-recipes/recipes",
	"tosca/xos/core",
	"tosca/xos/testservice",
}

// model is what the tests need of one embedded node type.
type model struct {
	file         string
	props        map[string]bool
	requirements map[string]string // name → capability type
	capabilities []string          // capability types offered
}

func TestLookupAndNames(t *testing.T) {
	names := Names()
	if !sort.StringsAreSorted(names) || len(names) == 0 {
		t.Fatalf("Names() = %v, want a sorted non-empty list", names)
	}
	for _, want := range []string{
		"site.yaml", "user.yaml", "slice.yaml", "network.yaml", "networktemplate.yaml",
		"networkslice.yaml", "image.yaml", "flavor.yaml", "service.yaml", "serviceinstance.yaml",
		"serviceinstancelink.yaml", "servicedependency.yaml", "principal.yaml", "trustdomain.yaml",
		"kubernetesservice.yaml", "kubernetesserviceinstance.yaml", commonFile,
	} {
		if data, ok := Lookup(want); !ok || len(data) == 0 {
			t.Errorf("Lookup(%q) not found", want)
		}
	}
	for _, bad := range []string{"", ".", "..", "/", "custom_types/slice.yaml", "../slice.yaml", "slice", "SLICE.YAML", "customdefs.go", "nope.yaml"} {
		if _, ok := Lookup(bad); ok {
			t.Errorf("Lookup(%q) found, want not found", bad)
		}
	}
	a, _ := Lookup("site.yaml")
	a[0] = 'X'
	if b, _ := Lookup("site.yaml"); b[0] == 'X' {
		t.Error("Lookup shares its bytes between calls")
	}
}

// TestFilesWellFormed parses every embedded file and checks the conventions
// README.md states: one node type per model file, derived from
// tosca.nodes.Root, a must-exist boolean defaulting to false, and every
// capability type it names defined in the common file.
func TestFilesWellFormed(t *testing.T) {
	models, capTypes := loadModels(t)
	for name, m := range models {
		for _, c := range m.capabilities {
			if !capTypes[c] {
				t.Errorf("%s: capability type %s is not defined in %s", m.file, c, commonFile)
			}
		}
		for r, c := range m.requirements {
			if !capTypes[c] {
				t.Errorf("%s: requirement %s targets undefined capability type %s", m.file, r, c)
			}
		}
		if !m.props["must-exist"] {
			t.Errorf("%s: %s has no must-exist property", m.file, name)
		}
	}
	if len(models) != len(Names())-1 {
		t.Errorf("%d model types for %d files", len(models), len(Names()))
	}
}

// TestRecipesResolve checks every corpus recipe against the embedded set:
// each custom_types/<file> import exists, and every property and
// requirement a node template of an XOS type sets is defined by that type,
// with a requirement's target offering a capability of the required type.
func TestRecipesResolve(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	models, _ := loadModels(t)
	capParents := loadCapabilityParents(t)
	embedded := map[string]bool{}
	for _, n := range Names() {
		embedded[n] = true
	}
	recipes := 0
	for _, dir := range recipeDirs {
		files, err := filepath.Glob(filepath.Join(corpus, dir, "*.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			recipes++
			checkRecipe(t, f, models, capParents, embedded)
		}
	}
	if recipes < 20 {
		t.Errorf("only %d recipes found in the corpus", recipes)
	}
	t.Logf("%d recipes checked against %d embedded models", recipes, len(models))
}

func checkRecipe(t *testing.T, file string, models map[string]*model, capParents map[string]string, embedded map[string]bool) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	root, diags := yamlsrc.Parse(file, data, yamlsrc.Limits{})
	if diags.HasErrors() {
		t.Fatalf("%s: %v", file, diags)
	}
	for _, imp := range root.Get("imports").Items() {
		path, ok := imp.String()
		if !ok {
			// The 1.0 "- name: file" form.
			for _, p := range imp.Pairs() {
				path, _ = p.Value.String()
			}
		}
		if dir, base := filepath.Split(path); filepath.Base(dir) == "custom_types" && !embedded[base] {
			t.Errorf("%s:%d: import %s has no embedded file", file, imp.Range.Start.Line, path)
		}
	}
	templates := root.Get("topology_template").Get("node_templates")
	typeOf := map[string]string{}
	for _, p := range templates.Pairs() {
		typeOf[p.Key.Value], _ = p.Value.Get("type").String()
	}
	for _, p := range templates.Pairs() {
		m := models[typeOf[p.Key.Value]]
		if m == nil {
			continue
		}
		for _, prop := range p.Value.Get("properties").Pairs() {
			if !m.props[prop.Key.Value] {
				t.Errorf("%s:%d: %s sets property %s that %s does not define", file, prop.Key.Range.Start.Line, p.Key.Value, prop.Key.Value, m.file)
			}
		}
		for _, item := range p.Value.Get("requirements").Items() {
			for _, req := range item.Pairs() {
				want, ok := m.requirements[req.Key.Value]
				if !ok {
					t.Errorf("%s:%d: %s uses requirement %s that %s does not define", file, req.Key.Range.Start.Line, p.Key.Value, req.Key.Value, m.file)
					continue
				}
				target, ok := req.Value.String()
				if !ok {
					target, _ = req.Value.Get("node").String()
				}
				tm := models[typeOf[target]]
				if tm == nil {
					t.Errorf("%s:%d: requirement %s targets %q, not a node of an XOS type", file, req.Key.Range.Start.Line, req.Key.Value, target)
					continue
				}
				if !offers(tm, want, capParents) {
					t.Errorf("%s:%d: requirement %s needs %s, which %s (%s) does not offer", file, req.Key.Range.Start.Line, req.Key.Value, want, target, typeOf[target])
				}
			}
		}
	}
}

// offers reports whether a model offers a capability of type want or of a
// type derived from it.
func offers(m *model, want string, parents map[string]string) bool {
	for _, c := range m.capabilities {
		for seen := 0; c != "" && seen < 32; seen++ {
			if c == want {
				return true
			}
			c = parents[c]
		}
	}
	return false
}

// loadModels parses every embedded model file; it also returns the
// capability types defined in the common file.
func loadModels(t *testing.T) (map[string]*model, map[string]bool) {
	t.Helper()
	models := map[string]*model{}
	capTypes := map[string]bool{}
	for _, name := range Names() {
		data, _ := Lookup(name)
		root, diags := yamlsrc.Parse(name, data, yamlsrc.Limits{})
		if len(diags) != 0 {
			t.Fatalf("%s: %v", name, diags)
		}
		if v, _ := root.Get("tosca_definitions_version").String(); v != "tosca_simple_yaml_1_0" {
			t.Errorf("%s: tosca_definitions_version %q, want tosca_simple_yaml_1_0 as XOS uses", name, v)
		}
		for _, d := range typecmp.RepeatedKeys(root) {
			t.Errorf("%s:%d: duplicate key %q", name, d.Key.Range.Start.Line, d.Key.Value)
		}
		if name == commonFile {
			for _, p := range root.Get("capability_types").Pairs() {
				capTypes[p.Key.Value] = true
			}
			continue
		}
		imports := root.Get("imports").Items()
		if len(imports) != 1 || imports[0].Value != commonFile {
			t.Errorf("%s: imports must be exactly [%s]", name, commonFile)
		}
		nodeTypes := root.Get("node_types").Pairs()
		if len(nodeTypes) != 1 {
			t.Fatalf("%s: %d node types, want 1", name, len(nodeTypes))
		}
		nt := nodeTypes[0]
		if want := "tosca.nodes." + strings.TrimSuffix(name, ".yaml"); !strings.EqualFold(nt.Key.Value, want) {
			t.Errorf("%s defines %s, want %s", name, nt.Key.Value, want)
		}
		if d, _ := nt.Value.Get("derived_from").String(); d != "tosca.nodes.Root" {
			t.Errorf("%s: derived_from %q, want tosca.nodes.Root", name, d)
		}
		m := &model{file: name, props: map[string]bool{}, requirements: map[string]string{}}
		for _, p := range nt.Value.Get("properties").Pairs() {
			m.props[p.Key.Value] = true
			// Only TOSCA primitives: xproto types such as uint32 must be
			// mapped, or strict TOSCA processors reject the file.
			switch ty, _ := p.Value.Get("type").String(); ty {
			case "string", "integer", "float", "boolean":
			default:
				t.Errorf("%s:%d: property %s has type %q, not a TOSCA primitive", name, p.Key.Range.Start.Line, p.Key.Value, ty)
			}
		}
		me := nt.Value.Get("properties").Get("must-exist")
		if ty, _ := me.Get("type").String(); ty != "boolean" || me.Get("default").Value != "false" {
			t.Errorf("%s: must-exist must be a boolean defaulting to false", name)
		}
		for _, p := range nt.Value.Get("capabilities").Pairs() {
			c, _ := p.Value.Get("type").String()
			m.capabilities = append(m.capabilities, c)
		}
		for _, item := range nt.Value.Get("requirements").Items() {
			for _, p := range item.Pairs() {
				if _, dup := m.requirements[p.Key.Value]; dup {
					t.Errorf("%s: requirement %s defined twice", name, p.Key.Value)
				}
				c, _ := p.Value.Get("capability").String()
				m.requirements[p.Key.Value] = c
				if r, _ := p.Value.Get("relationship").String(); r != "tosca.relationships.BelongsToOne" {
					t.Errorf("%s: requirement %s uses relationship %q", name, p.Key.Value, r)
				}
			}
		}
		models[nt.Key.Value] = m
	}
	return models, capTypes
}

// loadCapabilityParents maps each capability type of the common file to the
// type it derives from.
func loadCapabilityParents(t *testing.T) map[string]string {
	t.Helper()
	data, _ := Lookup(commonFile)
	root, _ := yamlsrc.Parse(commonFile, data, yamlsrc.Limits{})
	parents := map[string]string{}
	for _, p := range root.Get("capability_types").Pairs() {
		parents[p.Key.Value], _ = p.Value.Get("derived_from").String()
	}
	for c, p := range parents {
		if _, ok := parents[p]; !ok && p != "tosca.capabilities.Root" {
			t.Errorf("%s derives from %q, neither an XOS capability type nor tosca.capabilities.Root", c, p)
		}
	}
	return parents
}
