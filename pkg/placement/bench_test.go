package placement

import (
	"context"
	"fmt"
	"testing"
)

// flatCloud is n compute hosts with VCPU, MEMORY_MB and DISK_GB, in 10
// aggregates, a quarter of them with AVX2.
func flatCloud(tb testing.TB, n int) *Model {
	tb.Helper()
	m := NewModel()
	for i := 0; i < n; i++ {
		spec := ProviderSpec{Name: fmt.Sprintf("cn%05d", i), Aggregates: []string{fmt.Sprintf("agg%d", i%10)},
			Inventories: map[string]Inventory{
				"VCPU":      {Total: 32, MinUnit: 1, MaxUnit: 32, StepSize: 1, AllocationRatio: 4},
				"MEMORY_MB": {Total: 131072, Reserved: 2048, MinUnit: 1, MaxUnit: 131072, StepSize: 1, AllocationRatio: 1},
				"DISK_GB":   {Total: 2000, MinUnit: 1, MaxUnit: 2000, StepSize: 1, AllocationRatio: 1},
			}}
		if i%4 == 0 {
			spec.Traits = []string{"HW_CPU_X86_AVX2"}
		}
		must(tb, m.AddProvider(spec))
	}
	return m
}

// treeCloud is n trees of 7 providers: a root with disk, two NUMA nodes
// with VCPU and memory, two SR-IOV PFs under each NUMA node.
func treeCloud(tb testing.TB, n int) *Model {
	tb.Helper()
	m := NewModel()
	unit := func(total int64) Inventory {
		return Inventory{Total: total, MinUnit: 1, MaxUnit: total, StepSize: 1, AllocationRatio: 1}
	}
	for i := 0; i < n; i++ {
		root := fmt.Sprintf("cn%04d", i)
		must(tb, m.AddProvider(ProviderSpec{Name: root, Inventories: map[string]Inventory{"DISK_GB": unit(1000)}}))
		for j := 0; j < 2; j++ {
			numa := fmt.Sprintf("%s_numa%d", root, j)
			must(tb, m.AddProvider(ProviderSpec{Name: numa, Parent: root, Traits: []string{"HW_NUMA_ROOT"},
				Inventories: map[string]Inventory{"VCPU": unit(16), "MEMORY_MB": unit(65536)}}))
			for k := 0; k < 2; k++ {
				must(tb, m.AddProvider(ProviderSpec{Name: fmt.Sprintf("%s_pf%d", numa, k), Parent: numa,
					Inventories: map[string]Inventory{"SRIOV_NET_VF": unit(8)}}))
			}
		}
	}
	return m
}

func benchCandidates(b *testing.B, m *Model, query string, want int) {
	q, err := ParseQuery(query, Latest())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	// The index of trees and sharing anchors is built once per structure
	// change, not per query; build it outside the timing.
	if _, err := m.Candidates(ctx, q); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		res, err := m.Candidates(ctx, q)
		if err != nil {
			b.Fatal(err)
		}
		if len(res.Requests) != want {
			b.Fatalf("%d candidates, want %d", len(res.Requests), want)
		}
	}
}

// BenchmarkFlat10000All: every candidate over 10,000 flat providers.
func BenchmarkFlat10000All(b *testing.B) {
	benchCandidates(b, flatCloud(b, 10000), "resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20", 10000)
}

// BenchmarkFlat10000Limit1000: the first 1,000 of them.
func BenchmarkFlat10000Limit1000(b *testing.B) {
	benchCandidates(b, flatCloud(b, 10000), "resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20&limit=1000", 1000)
}

// BenchmarkFlat10000Filtered: traits and aggregates prune before combining.
func BenchmarkFlat10000Filtered(b *testing.B) {
	benchCandidates(b, flatCloud(b, 10000), "resources=VCPU:2,MEMORY_MB:4096&required=HW_CPU_X86_AVX2&member_of=in:agg0,agg2", 1000)
}

// BenchmarkTrees1000x7: 1,000 trees of 7 providers; each tree gives
// 2 (VCPU) x 2 (memory) x 4 (VF) candidates in the unsuffixed group.
func BenchmarkTrees1000x7(b *testing.B) {
	benchCandidates(b, treeCloud(b, 1000), "resources=VCPU:1,MEMORY_MB:1024,SRIOV_NET_VF:1,DISK_GB:10", 16000)
}

// BenchmarkTrees1000x7Granular: the same with a granular VF group that must
// sit under the NUMA node of the granular compute group.
func BenchmarkTrees1000x7Granular(b *testing.B) {
	benchCandidates(b, treeCloud(b, 1000),
		"resources_C=VCPU:1,MEMORY_MB:1024&resources_N=SRIOV_NET_VF:1&same_subtree=_C,_N&group_policy=none", 4000)
}

// BenchmarkDevices8x6: one host with 8 single-unit devices and 6 separate
// device requests: 8*7*6*5*4*3 = 20,160 combinations.
func BenchmarkDevices8x6(b *testing.B) {
	benchCandidates(b, deviceHost(b, 8), deviceQuery(6, "isolate"), 20160)
}

// BenchmarkDevices8x6PolicyNone: the same without isolate; merged capacity
// (each device has one unit) prunes to the same 20,160.
func BenchmarkDevices8x6PolicyNone(b *testing.B) {
	benchCandidates(b, deviceHost(b, 8), deviceQuery(6, "none"), 20160)
}

// BenchmarkPlace1000 places 1,000 compute requests one after another onto
// 10,000 providers, each claim consuming capacity for the next.
func BenchmarkPlace1000(b *testing.B) {
	q, err := ParseQuery("resources=VCPU:8,MEMORY_MB:32768,DISK_GB:100&limit=1", Latest())
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		m := flatCloud(b, 10000)
		b.StartTimer()
		for j := 0; j < 1000; j++ {
			res, err := m.Candidates(ctx, q)
			if err != nil || len(res.Requests) != 1 {
				b.Fatalf("request %d: %v", j, err)
			}
			if err := m.PutAllocations(fmt.Sprintf("vm%d", j), res.Requests[0].Allocations(), WriteOptions{}); err != nil {
				b.Fatal(err)
			}
		}
	}
}
