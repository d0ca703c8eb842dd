package placement

import (
	"encoding/json"
	"testing"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
)

// FuzzParseObject reads arbitrary JSON properties as a placement object
// of every kind: never a panic, and an object read has a name.
func FuzzParseObject(f *testing.F) {
	for _, seed := range []string{
		`{"name":"CUSTOM_A"}`,
		`{"name":"rp","parent":"root","traits":["CUSTOM_A","HW_CPU_X86_AVX2"],"aggregates":["agg"],"inventories":{"VCPU":{"total":8,"allocation_ratio":4.5}}}`,
		`{"import_filter":{"name":"nfs"},"management_policy":"unmanaged"}`,
		`{"inventories":{"VCPU":"eight"},"traits":[1,null,{}],"name":7}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		var v any
		if json.Unmarshal([]byte(raw), &v) != nil {
			return
		}
		cv, err := graph.Canonicalize(v)
		if err != nil {
			return
		}
		props, ok := cv.(map[string]graph.Value)
		if !ok {
			return
		}
		for _, kind := range []string{graph.PlacementKindTrait, graph.PlacementKindResourceClass, graph.PlacementKindProvider} {
			o, err := parseObject(driver.Request{Address: "x", Resource: resource("x", kind, graph.Managed, props)})
			if err == nil && o.name == "" {
				t.Fatalf("%s from %s: no name and no error", kind, raw)
			}
		}
	})
}
