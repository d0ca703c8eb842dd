package state

import (
	"fmt"
	"time"

	"github.com/xosplan/xosplan/pkg/graph"
)

// genResource builds a realistic recorded resource: a spec of ten
// properties of mixed kinds (one of them an Unknown), a driver with three
// operations, and feedback with attributes, status and an allocation.
func genResource(i int) Resource {
	addr := fmt.Sprintf("app_%05d", i)
	t := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
	spec := map[string]graph.Value{
		"name":        addr,
		"port":        int64(8000 + i%1000),
		"replicas":    int64(1 + i%5),
		"enabled":     i%2 == 0,
		"ratio":       0.25 + float64(i%10)/10,
		"image":       "registry.example/app:" + fmt.Sprint(i%17),
		"tags":        []graph.Value{"web", "tier-" + fmt.Sprint(i%3), "prod"},
		"env":         map[string]graph.Value{"LOG_LEVEL": "info", "REGION": "eu-west-1", "SHARD": int64(i % 64)},
		"description": "Application server number " + fmt.Sprint(i) + " serving <static> & dynamic content",
		"db_host":     graph.Unknown{Func: "attribute", Args: []graph.Value{fmt.Sprintf("db_%05d", i/10), "private_address"}},
	}
	resolved := make(map[string]graph.Value, len(spec))
	for k, v := range spec {
		resolved[k] = v
	}
	resolved["db_host"] = fmt.Sprintf("10.0.%d.%d", i/256%256, i%256)
	return Resource{
		Address:      addr,
		Type:         "tosca.nodes.WebServer",
		TypeChain:    []string{"tosca.nodes.WebServer", "tosca.nodes.SoftwareComponent", "tosca.nodes.Root"},
		Management:   graph.Managed,
		Dependencies: []string{fmt.Sprintf("db_%05d", i/10), fmt.Sprintf("host_%05d", i/4)},
		Driver: graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{
			"Standard.create":    {Implementation: "scripts/create.sh", Inputs: map[string]graph.Value{"port": int64(8000 + i%1000)}},
			"Standard.configure": {Implementation: "scripts/configure.sh"},
			"Standard.delete":    {Implementation: "scripts/delete.sh", Timeout: 30 * time.Second},
		}},
		Spec: spec,
		Feedback: Feedback{
			Resolved:      resolved,
			Attributes:    map[string]graph.Value{"private_address": fmt.Sprintf("10.1.%d.%d", i/256%256, i%256), "pid": int64(1000 + i)},
			InstanceID:    fmt.Sprintf("i-%08x", i*7919),
			Status:        Status{Active: true, Message: "running"},
			BackendCode:   BackendOK,
			BackendStatus: "OK",
			Attempts:      1,
			Allocations:   []Allocation{{Provider: fmt.Sprintf("rp-%d", i%20), Resources: map[string]int64{"VCPU": 2, "MEMORY_MB": 2048}}},
			Created:       t,
			Enacted:       t.Add(time.Minute),
			LastAttempt:   t.Add(time.Minute),
		},
	}
}

// genState builds a state of n generated resources.
func genState(n int) *State {
	s := &State{Version: FormatVersion, Serial: 1, Lineage: "4f1c2a7e-0000-4000-8000-000000000001", Resources: make([]Resource, n)}
	for i := range n {
		s.Resources[i] = genResource(i)
	}
	return s
}
