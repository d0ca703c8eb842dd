package values

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// verdicts reads the expect column of tosca/EXPECTED.tsv: path → "valid"
// or "invalid".
func verdicts(t *testing.T, corpus string) map[string]string {
	t.Helper()
	f, err := os.Open(filepath.Join(corpus, "tosca", "EXPECTED.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		if len(cols) >= 2 && cols[0] != "path" {
			out[cols[0]] = cols[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestCorpusDefinitions reads every definition in the TOSCA corpus that
// names a primitive type: its constraints must parse and its default must
// coerce and satisfy them in every file the corpus expects to be valid.
// Files expected invalid are read too, to show that nothing panics.
func TestCorpusDefinitions(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	expect := verdicts(t, corpus)
	root := filepath.Join(corpus, "tosca")
	var defs, constraints, defaults int
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		doc, diags := yamlsrc.Parse(rel, data, yamlsrc.Limits{})
		if diags.HasErrors() {
			return nil
		}
		valid := expect[filepath.ToSlash(rel)] == "valid"
		walk(doc, 0, func(def *yamlsrc.Node) {
			typ, _ := def.Get("type").String()
			if !IsPrimitive(typ) {
				return
			}
			defs++
			var cons []*Constraint
			for _, cn := range def.Get("constraints").Items() {
				constraints++
				c, ds := ParseConstraint(cn, typ)
				if ds.HasErrors() && valid {
					t.Errorf("%s: constraint of type %s: %v", rel, typ, ds.Err())
				}
				if c != nil {
					cons = append(cons, c)
				}
			}
			dn := def.Get("default")
			if dn == nil || dn.IsNull() || dn.Kind == yamlsrc.Mapping && len(dn.Content) == 2 && strings.HasPrefix(dn.Content[0].Value, "get_") {
				return
			}
			defaults++
			v, err := Coerce(typ, dn)
			if err != nil {
				if valid {
					t.Errorf("%s:%d: default: %v", rel, dn.Range.Start.Line, err)
				}
				return
			}
			for _, c := range cons {
				if err := c.Check(v); err != nil && valid {
					t.Errorf("%s:%d: default: %v", rel, dn.Range.Start.Line, err)
				}
			}
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("corpus: %d definitions of primitive type, %d constraints, %d defaults checked", defs, constraints, defaults)
}

// walk calls visit for every mapping that has a scalar "type" key.
func walk(n *yamlsrc.Node, depth int, visit func(*yamlsrc.Node)) {
	if n == nil || depth > 64 {
		return
	}
	if n.Kind == yamlsrc.Mapping {
		if tn := n.Get("type"); tn != nil && tn.Kind == yamlsrc.Scalar {
			visit(n)
		}
	}
	for _, c := range n.Content {
		walk(c, depth+1, visit)
	}
}
