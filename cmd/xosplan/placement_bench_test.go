package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// flatInventory is a provider inventory of n compute hosts with VCPU,
// MEMORY_MB and DISK_GB, in 10 aggregates, a quarter of them with AVX2
// (pkg/placement's flatCloud, as a file).
func flatInventory(n int) []byte {
	var b bytes.Buffer
	b.WriteString("providers:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - name: cn%05d\n    aggregates: [agg%d]\n", i, i%10)
		b.WriteString("    inventories:\n")
		b.WriteString("      VCPU: {total: 32, min_unit: 1, max_unit: 32, step_size: 1, allocation_ratio: 4.0}\n")
		b.WriteString("      MEMORY_MB: {total: 131072, reserved: 2048, min_unit: 1, max_unit: 131072, step_size: 1, allocation_ratio: 1.0}\n")
		b.WriteString("      DISK_GB: {total: 2000, min_unit: 1, max_unit: 2000, step_size: 1, allocation_ratio: 1.0}\n")
		if i%4 == 0 {
			b.WriteString("    traits: [HW_CPU_X86_AVX2]\n")
		}
	}
	return b.Bytes()
}

// BenchmarkPlacementCandidatesFlat10k runs the whole `placement
// candidates` command over an inventory file of 10,000 flat providers:
// reading and checking the file, building the model, the query, and
// Placement's JSON answer with every candidate (what a real Placement
// answers to GET /allocation_candidates without a limit). It reports the
// CPU time (cpu-ms/op) besides the time.
func BenchmarkPlacementCandidatesFlat10k(b *testing.B) {
	const n = 10_000
	path := filepath.Join(b.TempDir(), "providers.yaml")
	if err := os.WriteFile(path, flatInventory(n), 0o644); err != nil {
		b.Fatal(err)
	}
	args := []string{"placement", "candidates", "--providers", path, "--resources", "VCPU:2,MEMORY_MB:4096,DISK_GB:20", "--format", "json"}
	var stdout, stderr bytes.Buffer
	var cpu time.Duration
	b.ReportAllocs()
	for b.Loop() {
		stdout.Reset()
		stderr.Reset()
		start := testutil.CPUTime()
		code := run(context.Background(), args, nil, &stdout, &stderr)
		cpu += testutil.CPUTime() - start
		if code != 0 || bytes.Count(stdout.Bytes(), []byte(`"allocations"`)) != n {
			b.Fatalf("exit %d, %d candidates: %.500s", code, bytes.Count(stdout.Bytes(), []byte(`"allocations"`)), stderr.String())
		}
	}
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
