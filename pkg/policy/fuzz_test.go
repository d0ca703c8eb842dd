package policy

import (
	"slices"
	"strings"
	"testing"
)

// FuzzParseOutput holds the parser of a policy's stdout to its promises
// on any bytes: no panic, and what it accepts has resources under the
// prefix, within the bound, with edges from them, and values set within
// the bound at paths without an empty key, none set twice.
func FuzzParseOutput(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"resources":[],"edges":[]}`,
		`{"format_version":"1.0","resources":[{"name":"a","type":"t","type_chain":["t","root"],"spec":{"x":[1,2.5,null,true,{"y":"z"}]}}],"edges":[{"source":"p.a","target":"n1","kind":"hosted_on","name":"host"}]}`,
		`{"resources":[{"name":"a","driver_from":"n1"}]}`,
		`{"resources":[{"name":"a","type":"t","spec":{"x":{"$unknown":{"func":"attribute","args":["n","id"]}}}}]}`,
		`{"resources":[{"name":"a","name":"b"}]}`,
		`{"resources":[{"name":"a","type":"t"},{"name":"a","type":"t"}]}`,
		`{"edges":[{"source":"x","target":"y"}]}`,
		`{"resources":[{"name":"\u0000","type":"t"}]} trailing`,
		`[[[[[[[[[[`,
		`{"set":[{"address":"n1","path":"properties.mtu","value":1500,"override":true},{"address":"n1","path":"tags.zone","value":{"a":[1]}}]}`,
		`{"set":[{"address":"n1","path":"a..b","value":1},{"address":"n1","path":"a","value":null}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := parseOutput(data, "p.", 5)
		if err != nil {
			return
		}
		if len(out.resources) > 5 {
			t.Fatalf("%d resources past the bound", len(out.resources))
		}
		from := map[string]bool{}
		for _, d := range out.resources {
			if !strings.HasPrefix(d.res.Address, "p.") || len(d.res.Address) == 2 {
				t.Fatalf("address %q", d.res.Address)
			}
			from[d.res.Address] = true
		}
		for _, e := range out.edges {
			if !from[e.Source] {
				t.Fatalf("edge from %q", e.Source)
			}
		}
		if len(out.sets) > 5 {
			t.Fatalf("%d values set past the bound", len(out.sets))
		}
		for i, s := range out.sets {
			if s.value == nil || slices.Contains(s.keys, "") || strings.Join(s.keys, ".") != s.path {
				t.Fatalf("set %+v", s)
			}
			if i > 0 && out.sets[i-1].address == s.address && pathsOverlap(out.sets[i-1].path, s.path) {
				t.Fatalf("%s set twice", s.path)
			}
		}
	})
}
