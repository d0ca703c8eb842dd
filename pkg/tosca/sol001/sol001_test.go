package sol001

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/normative"
	"github.com/xosplan/xosplan/pkg/tosca/typecmp"
)

func TestParseURL(t *testing.T) {
	const common = "etsi_nfv_sol001_common_types.yaml"
	tests := []struct {
		ref, version, file string
	}{
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml", "2.6.1", common},
		{"https://forge.etsi.org/rep/nfv/SOL001/-/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml", "2.6.1", common},
		{"http://forge.etsi.org/rep/nfv/SOL001/raw/v2.7.1/etsi_nfv_sol001_vnfd_types.yaml", "2.7.1", "etsi_nfv_sol001_vnfd_types.yaml"},
		{"https://forge.etsi.org/rep/nfv/SOL001/v4.4.1/etsi_nfv_sol001_nsd_types.yaml", "4.4.1", "etsi_nfv_sol001_nsd_types.yaml"},
		{"HTTPS://Forge.ETSI.org/rep/nfv/sol001/raw/4.4.1/etsi_nfv_sol001_pnfd_types.yaml", "4.4.1", "etsi_nfv_sol001_pnfd_types.yaml"},
		// Recognised though not embedded: the caller decides.
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v9.9.9/etsi_nfv_sol001_common_types.yaml", "9.9.9", common},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml?inline=false", "", ""},
		{"https://forge.etsi.org:8443/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml", "", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/../etsi_nfv_sol001_common_types.yaml", "", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/sub/etsi_nfv_sol001_common_types.yaml", "", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_vnfd_types.yml", "", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6/etsi_nfv_sol001_common_types.yaml", "", ""},
		{"https://forge.etsi.org/rep/nfv/SOL001/raw/master/etsi_nfv_sol001_common_types.yaml", "", ""},
		{"https://evil.example/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml", "", ""},
		{"https://forge.etsi.org.evil.example/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml", "", ""},
		{"ftp://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml", "", ""},
		{"etsi_nfv_sol001_common_types.yaml", "", ""},
		{"", "", ""},
	}
	for _, tt := range tests {
		v, f, ok := ParseURL(tt.ref)
		if v != tt.version || f != tt.file || ok != (tt.version != "") {
			t.Errorf("ParseURL(%q) = %q, %q, %v; want %q, %q", tt.ref, v, f, ok, tt.version, tt.file)
		}
	}
}

func TestLookup(t *testing.T) {
	const url = "https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_vnfd_types.yaml"
	name, data, ok := Lookup(url)
	if !ok || name != "<sol001>/v2.6.1/etsi_nfv_sol001_vnfd_types.yaml" || len(data) == 0 {
		t.Fatalf("Lookup(%q) = %q, %d bytes, %v", url, name, len(data), ok)
	}
	for _, spelling := range []string{
		"https://forge.etsi.org/rep/nfv/SOL001/-/raw/v2.6.1/etsi_nfv_sol001_vnfd_types.yaml",
		"http://forge.etsi.org/rep/nfv/SOL001/v2.6.1/etsi_nfv_sol001_vnfd_types.yaml",
	} {
		if n, d, ok := Lookup(spelling); !ok || n != name || !bytes.Equal(d, data) {
			t.Errorf("Lookup(%q) = %q, %v: want the same file as %s", spelling, n, ok, url)
		}
	}
	if n, d, ok := LookupFile("etsi_nfv_sol001_vnfd_types.yaml", "2.6.1"); !ok || n != name || !bytes.Equal(d, data) {
		t.Errorf("LookupFile gives %q, %v: want the file Lookup gives", n, ok)
	}
	data[0] = 'X'
	if _, again, _ := Lookup(url); again[0] == 'X' {
		t.Error("Lookup shares its bytes between calls")
	}
	for _, bad := range [][2]string{
		{"etsi_nfv_sol001_vnfd_types.yaml", "9.9.9"},
		{"etsi_nfv_sol001_vnfd_types.yaml", "4.5.1"},
		{"etsi_nfv_sol001_vnfd_types.yaml", "v2.6.1"},
		{"etsi_nfv_sol001_vnfd_types.yaml", ""},
		{"v2.6.1/etsi_nfv_sol001_vnfd_types.yaml", "2.6.1"},
		{"sol001.go", "2.6.1"},
	} {
		if _, _, ok := LookupFile(bad[0], bad[1]); ok || Embedded(bad[0], bad[1]) {
			t.Errorf("LookupFile(%q, %q) found, want not found", bad[0], bad[1])
		}
	}
	if _, _, ok := Lookup("https://forge.etsi.org/rep/nfv/SOL001/raw/v9.9.9/etsi_nfv_sol001_common_types.yaml"); ok {
		t.Error("Lookup found a version that is not embedded")
	}
}

func TestVersions(t *testing.T) {
	vs := Versions()
	if !sort.SliceIsSorted(vs, func(i, j int) bool { return versionLess(vs[i], vs[j]) }) || len(vs) == 0 {
		t.Fatalf("Versions() = %v, want a non-empty list oldest first", vs)
	}
	for _, tv := range []string{"tosca_simple_yaml_1_0", "tosca_simple_yaml_1_2", "tosca_simple_yaml_1_3", ""} {
		d := DefaultVersion(tv)
		if !Embedded("etsi_nfv_sol001_vnfd_types.yaml", d) || !Embedded("etsi_nfv_sol001_common_types.yaml", d) {
			t.Errorf("DefaultVersion(%q) = %q, which does not embed common and vnfd", tv, d)
		}
	}
}

func versionLess(a, b string) bool {
	var x, y [3]int
	fmt.Sscanf(a, "%d.%d.%d", &x[0], &x[1], &x[2])
	fmt.Sscanf(b, "%d.%d.%d", &y[0], &y[1], &y[2])
	for i := range x {
		if x[i] != y[i] {
			return x[i] < y[i]
		}
	}
	return false
}

// TestEveryFileServed checks that the embedded files are exactly the four
// files of every version.
func TestEveryFileServed(t *testing.T) {
	want := map[string]bool{}
	for _, v := range Versions() {
		for _, k := range kinds() {
			want["v"+v+"/"+fileName(k)] = true
		}
	}
	err := fs.WalkDir(files, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !want[p] {
			t.Errorf("%s is embedded but serves no version", p)
		}
		delete(want, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p := range want {
		t.Errorf("%s is not embedded", p)
	}
}

// TestFilesWellFormed parses every file each version serves and checks the
// header, that its imports are forge URLs of its own version embedded here,
// and that every type it names is defined in one of the version's files or
// in the normative types (an NSD file names VNFD and PNFD types without
// importing their files: templates import all three).
func TestFilesWellFormed(t *testing.T) {
	for _, v := range Versions() {
		for _, k := range kinds() {
			file := fileName(k)
			name, data, ok := LookupFile(file, v)
			if !ok {
				continue
			}
			root, diags := yamlsrc.Parse(name, data, yamlsrc.Limits{})
			if len(diags) != 0 {
				t.Fatalf("%s: %v", name, diags)
			}
			for _, d := range typecmp.RepeatedKeys(root) {
				t.Errorf("%s:%d: duplicate key %q", name, d.Key.Range.Start.Line, d.Key.Value)
			}
			md := root.Get("metadata")
			if tn, _ := md.Get("template_name").String(); tn+".yaml" != file {
				t.Errorf("%s: template_name %q", name, tn)
			}
			if tv, _ := md.Get("template_version").String(); tv != v {
				t.Errorf("%s: template_version %q, want %q", name, tv, v)
			}
			for _, it := range root.Get("imports").Items() {
				ref, _ := it.String()
				if iv, ifile, ok := ParseURL(ref); !ok || iv != v || !Embedded(ifile, v) {
					t.Errorf("%s imports %q, not a forge URL of a file of version %s", name, ref, v)
				}
			}
			known := typecmp.NewSet()
			for _, other := range kinds() {
				if oname, odata, ok := LookupFile(fileName(other), v); ok {
					if err := known.Add(oname, odata, typecmp.TypesOnly); err != nil {
						t.Fatal(err)
					}
				}
			}
			tv, _ := root.Get("tosca_definitions_version").String()
			nname, ndata, ok := normative.For(tv)
			if !ok {
				t.Fatalf("%s declares %q", name, tv)
			}
			if err := known.Add(nname, ndata, typecmp.TypesOnly); err != nil {
				t.Fatal(err)
			}
			checkReferences(t, name, root, known)
		}
	}
}

// checkReferences reports every type name a file uses that known does not
// define in the right section.
func checkReferences(t *testing.T, file string, root *yamlsrc.Node, known typecmp.Set) {
	t.Helper()
	primitive := map[string]bool{
		"string": true, "integer": true, "float": true, "boolean": true, "timestamp": true,
		"null": true, "list": true, "map": true, "version": true, "range": true,
		"scalar-unit.size": true, "scalar-unit.time": true, "scalar-unit.frequency": true,
		"scalar-unit.bitrate": true,
	}
	want := func(sec, name, where string) {
		if name == "" || (sec == "data_types" && primitive[name]) {
			return
		}
		if _, ok := known[sec][name]; !ok {
			t.Errorf("%s: %s names %s %q, which is not defined", file, where, strings.TrimSuffix(sec, "s"), name)
		}
	}
	props := func(n *yamlsrc.Node, where string) {
		for _, p := range n.Pairs() {
			ty, _ := p.Value.Get("type").String()
			want("data_types", ty, where+"."+p.Key.Value)
			for _, f := range []string{"entry_schema", "key_schema"} {
				es := p.Value.Get(f)
				s, ok := es.String()
				if !ok {
					s, _ = es.Get("type").String()
				}
				want("data_types", s, where+"."+p.Key.Value+"."+f)
			}
		}
	}
	for _, sec := range typecmp.Sections() {
		for _, td := range root.Get(sec).Pairs() {
			where := td.Key.Value
			d, _ := td.Value.Get("derived_from").String()
			want(sec, d, where+" derived_from")
			props(td.Value.Get("properties"), where)
			props(td.Value.Get("attributes"), where)
			for _, c := range td.Value.Get("capabilities").Pairs() {
				ty, ok := c.Value.String()
				if !ok {
					ty, _ = c.Value.Get("type").String()
				}
				want("capability_types", ty, where+" capability "+c.Key.Value)
				for _, s := range c.Value.Get("valid_source_types").Items() {
					want("node_types", s.Value, where+" capability "+c.Key.Value+" valid_source_types")
				}
			}
			for _, item := range td.Value.Get("requirements").Items() {
				for _, r := range item.Pairs() {
					cap, _ := r.Value.Get("capability").String()
					want("capability_types", cap, where+" requirement "+r.Key.Value)
					node, _ := r.Value.Get("node").String()
					want("node_types", node, where+" requirement "+r.Key.Value)
					rel, ok := r.Value.Get("relationship").String()
					if !ok {
						rel, _ = r.Value.Get("relationship").Get("type").String()
					}
					want("relationship_types", rel, where+" requirement "+r.Key.Value)
				}
			}
			for _, i := range td.Value.Get("interfaces").Pairs() {
				ty, _ := i.Value.Get("type").String()
				want("interface_types", ty, where+" interface "+i.Key.Value)
			}
			for _, a := range td.Value.Get("artifacts").Pairs() {
				ty, _ := a.Value.Get("type").String()
				want("artifact_types", ty, where+" artifact "+a.Key.Value)
			}
			for _, vt := range td.Value.Get("valid_target_types").Items() {
				want("capability_types", vt.Value, where+" valid_target_types")
			}
			for _, m := range td.Value.Get("members").Items() {
				want("node_types", m.Value, where+" members")
			}
		}
	}
}

// reference is one copy of a standard file found in the corpus.
type reference struct {
	version, kind string
	paths         []string // every corpus path with this content
	set           typecmp.Set
}

// exception is a known difference between ours and a reference copy. key
// is "<version>/<kind>|<typecmp key>"; it may occur in any copy of that
// version and kind.
type exception struct {
	key, reason string
}

var exceptions = []exception{
	{"2.6.1/vnfd|node_types|tosca.nodes.nfv.VNF|configurable_properties|missing",
		"Tacker's practical_vnf_package defines configurable_properties in VNF; the standard's file leaves it commented out (derived types introduce it), as Tacker's other copies do"},
}

// TestAgainstReferences compares every embedded file with every copy of
// the same version and kind in the corpus: the files named
// etsi_nfv_sol001_<kind>_types.yaml (Tacker's packages and samples; the
// version is the copy's metadata template_version) and Winery's ETSI NFV
// 4.4.1 types (one type per file; the kind is the template_name).
func TestAgainstReferences(t *testing.T) {
	corpus := testutil.CorpusDir(t, "realworld")
	refs := loadCopies(t, corpus)
	refs = append(refs, loadWinery(t, filepath.Join(corpus, "tcc", "tools", "winery-canvas", "tosca1.3_etsinfv4.4.1"))...)
	known := map[string]string{}
	for _, e := range exceptions {
		known[e.key] = e.reason
	}
	used := map[string]bool{}
	checked := map[string]bool{}
	for _, ref := range refs {
		file := fileName(ref.kind)
		name, data, ok := LookupFile(file, ref.version)
		if !ok {
			t.Errorf("%s is a copy of %s %s, which is not embedded", ref.paths[0], ref.version, file)
			continue
		}
		checked[ref.version+"/"+ref.kind] = true
		ours := typecmp.NewSet()
		if err := ours.Add(name, data, typecmp.Definitions); err != nil {
			t.Fatal(err)
		}
		total, listed := 0, 0
		for _, m := range typecmp.Compare(ours, ref.set) {
			total++
			key := ref.version + "/" + ref.kind + "|" + m.Key
			if _, ok := known[key]; ok {
				used[key] = true
				listed++
				continue
			}
			t.Errorf("%s (and %d other copies): unexpected difference %s: %s", ref.paths[0], len(ref.paths)-1, key, m.Text)
		}
		t.Logf("%s %s vs %s (%d copies): %d differences, %d listed as exceptions", ref.version, ref.kind, ref.paths[0], len(ref.paths), total, listed)
	}
	var names []string
	for k := range checked {
		names = append(names, k)
	}
	sort.Strings(names)
	t.Logf("checked against the corpus: %s", strings.Join(names, ", "))
	if t.Failed() {
		return
	}
	for _, e := range exceptions {
		if !used[e.key] {
			t.Errorf("exception %q no longer occurs: remove it", e.key)
		}
	}
}

// loadCopies reads every corpus file named like one of the standard's,
// once per distinct content.
func loadCopies(t *testing.T, corpus string) []reference {
	t.Helper()
	byHash := map[[32]byte]*reference{}
	var order [][32]byte
	err := filepath.WalkDir(corpus, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || kindOf(d.Name()) == "" {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(corpus, p)
		h := sha256.Sum256(data)
		if r := byHash[h]; r != nil {
			r.paths = append(r.paths, rel)
			return nil
		}
		root, _ := yamlsrc.Parse(p, data, yamlsrc.Limits{})
		v, _ := root.Get("metadata").Get("template_version").String()
		r := &reference{version: v, kind: kindOf(d.Name()), paths: []string{rel}, set: typecmp.NewSet()}
		if err := r.set.Add(p, data, typecmp.Definitions); err != nil {
			return err
		}
		byHash[h] = r
		order = append(order, h)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]reference, 0, len(order))
	for _, h := range order {
		out = append(out, *byHash[h])
	}
	return out
}

// loadWinery reads Winery's one-type-per-file layout of a version, one
// reference per kind.
func loadWinery(t *testing.T, dir string) []reference {
	t.Helper()
	byKind := map[string]*reference{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		root, _ := yamlsrc.Parse(p, data, yamlsrc.Limits{})
		md := root.Get("metadata")
		tn, _ := md.Get("template_name").String()
		kind := kindOf(tn + ".yaml")
		if kind == "" {
			return nil // Winery's copies of the TOSCA normative types
		}
		r := byKind[kind]
		if r == nil {
			v, _ := md.Get("template_version").String()
			rel, _ := filepath.Rel(filepath.Dir(filepath.Dir(filepath.Dir(dir))), dir)
			r = &reference{version: v, kind: kind, paths: []string{rel + " (" + kind + ")"}, set: typecmp.NewSet()}
			byKind[kind] = r
		}
		return r.set.Add(p, data, typecmp.Definitions)
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []reference
	for _, k := range kinds() {
		if r := byKind[k]; r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// FuzzParseURL: any reference parses or not without panicking; a parsed
// one names a known file and a version of the standard's form, and Lookup
// agrees with Embedded on it.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml",
		"https://forge.etsi.org/rep/nfv/SOL001/-/raw/v4.4.1/etsi_nfv_sol001_nsd_types.yaml",
		"http://FORGE.etsi.org/rep/nfv/sol001/9.9.9/etsi_nfv_sol001_pnfd_types.yaml",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, ref string) {
		v, file, ok := ParseURL(ref)
		_, _, found := Lookup(ref)
		if !ok {
			if found {
				t.Fatalf("Lookup(%q) found what ParseURL rejects", ref)
			}
			return
		}
		if !IsFileName(file) || !isVersion(v) {
			t.Fatalf("ParseURL(%q) = %q, %q", ref, v, file)
		}
		if found != Embedded(file, v) {
			t.Fatalf("Lookup(%q) = %v, Embedded = %v", ref, found, Embedded(file, v))
		}
	})
}
