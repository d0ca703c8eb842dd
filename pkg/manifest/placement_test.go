package manifest

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestComputePlacementRequest(t *testing.T) {
	cases := []struct {
		name, hardware, location string
		want                     *graph.PlacementRequest
	}{
		{"resources syntax", "VCPU:2,MEMORY_MB:2048,DISK_GB:20", "", &graph.PlacementRequest{Resources: map[string]int64{"VCPU": 2, "MEMORY_MB": 2048, "DISK_GB": 20}}},
		{"with a location", "VCPU:1, MEMORY_MB:512", "rack-a", &graph.PlacementRequest{Resources: map[string]int64{"VCPU": 1, "MEMORY_MB": 512}, MemberOf: [][]string{{"rack-a"}}}},
		{"a cloud's instance type", "m1.small", "us-east-1", nil},
		{"an expression", "{$.manager_hardware}", "", nil},
		{"a zero amount", "VCPU:0", "", nil},
		{"empty", "", "", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			doc := "application:\n  components:\n    vm:\n      type: compute.Instance\n      configuration:\n" +
				"        configuration.hardwareId: \"" + tc.hardware + "\"\n        configuration.imageId: img\n" +
				"        configuration.login: root\n        configuration.locationId: \"" + tc.location + "\"\n"
			if err := os.WriteFile(filepath.Join(dir, "app.yml"), []byte(doc), 0o644); err != nil {
				t.Fatal(err)
			}
			g, diags := CompileEnvironment(context.Background(), []string{dir}, Options{})
			if diags.HasErrors() {
				t.Fatal(diags)
			}
			var got *graph.PlacementRequest
			for _, r := range g.Resources() {
				if r.Type == KindCompute {
					got = r.Request
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("request %+v, want %+v", got, tc.want)
			}
		})
	}
}
