package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/placement"
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
// reading the file, building the model (from the inventory cache, which
// the first run, outside the timing, fills), the query, and Placement's
// JSON answer with every candidate (what a real Placement answers to GET
// /allocation_candidates without a limit). It reports the CPU time
// (cpu-ms/op) besides the time.
func BenchmarkPlacementCandidatesFlat10k(b *testing.B) {
	benchFlat10k(b)
}

// BenchmarkPlacementCandidatesFlat10kNoCache is the same with --no-cache:
// every run parses the YAML file, as the first run over a file does.
func BenchmarkPlacementCandidatesFlat10kNoCache(b *testing.B) {
	benchFlat10k(b, "--no-cache")
}

func benchFlat10k(b *testing.B, extra ...string) {
	const n = 10_000
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	path := filepath.Join(b.TempDir(), "providers.yaml")
	if err := os.WriteFile(path, flatInventory(n), 0o644); err != nil {
		b.Fatal(err)
	}
	args := append([]string{"placement", "candidates", "--providers", path, "--resources", "VCPU:2,MEMORY_MB:4096,DISK_GB:20", "--format", "json"}, extra...)
	if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
		b.Fatalf("exit %d", code)
	}
	benchCandidatesCommand(b, args, n)
}

// benchCandidatesCommand runs a `placement candidates` command that must
// answer want candidates, and reports its CPU time besides the time.
func benchCandidatesCommand(b *testing.B, args []string, want int) {
	var stdout, stderr bytes.Buffer
	var cpu time.Duration
	b.ReportAllocs()
	for b.Loop() {
		stdout.Reset()
		stderr.Reset()
		start := testutil.CPUTime()
		code := run(context.Background(), args, nil, &stdout, &stderr)
		cpu += testutil.CPUTime() - start
		if code != 0 || bytes.Count(stdout.Bytes(), []byte(`"allocations"`)) != want {
			b.Fatalf("exit %d, %d candidates: %.500s", code, bytes.Count(stdout.Bytes(), []byte(`"allocations"`)), stderr.String())
		}
	}
	b.ReportMetric(float64(cpu)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkPlacementVsReal times, side by side in one run, the whole
// `placement candidates` command from an inventory file of n flat
// providers and the real Placement's (Debian's python3-placement, sqlite)
// answer to the same GET /allocation_candidates over the same providers,
// seeded through its API (about four requests per provider, which is why
// the default sizes are 1,000 and 2,000; XOSPLAN_BENCH_PLACEMENT_SIZES,
// e.g. "1000,2000,10000", changes them). Both report wall ms/op; the
// command also reports cpu-ms/op. Skipped without python3-placement.
func BenchmarkPlacementVsReal(b *testing.B) {
	sizes := []int{1000, 2000}
	if s := os.Getenv("XOSPLAN_BENCH_PLACEMENT_SIZES"); s != "" {
		sizes = nil
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 {
				b.Fatalf("XOSPLAN_BENCH_PLACEMENT_SIZES: %q is not a size", f)
			}
			sizes = append(sizes, n)
		}
	}
	url := testutil.RealPlacement(b)
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	const resources = "VCPU:2,MEMORY_MB:4096,DISK_GB:20"
	var seeded *placement.Model
	for _, n := range sizes {
		inv := flatInventory(n)
		path := filepath.Join(b.TempDir(), "providers.yaml")
		if err := os.WriteFile(path, inv, 0o644); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("n=%d/xosplan", n), func(b *testing.B) {
			args := []string{"placement", "candidates", "--providers", path, "--resources", resources, "--format", "json"}
			if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
				b.Fatalf("exit %d", code)
			}
			benchCandidatesCommand(b, args, n)
		})
		b.Run(fmt.Sprintf("n=%d/placement", n), func(b *testing.B) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
			defer cancel()
			c, err := placement.NewClient(ctx, url, placement.ClientOptions{Token: "admin"})
			if err != nil {
				b.Fatal(err)
			}
			if seeded != nil {
				if err := c.Remove(ctx, seeded); err != nil {
					b.Fatal(err)
				}
			}
			m, diags := placement.LoadProviders("providers.yaml", inv)
			if diags.HasErrors() {
				b.Fatal(diags)
			}
			if err := c.Push(ctx, m); err != nil {
				b.Fatal(err)
			}
			seeded = m
			// One answer outside the timing: the service's first query
			// after a write pays for its caches.
			realCandidates(ctx, b, url+"/allocation_candidates?resources="+resources)
			b.ResetTimer()
			for b.Loop() {
				if got := realCandidates(ctx, b, url+"/allocation_candidates?resources="+resources); got != n {
					b.Fatalf("%d candidates from the real Placement, want %d", got, n)
				}
			}
			b.ReportMetric(float64(b.Elapsed())/float64(time.Millisecond)/float64(b.N), "ms/op")
		})
	}
}

// realCandidates asks the real Placement one allocation-candidates query at
// the latest microversion and counts the candidates in its answer.
func realCandidates(ctx context.Context, b *testing.B, url string) int {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("X-Auth-Token", "admin")
	req.Header.Set("OpenStack-API-Version", "placement "+placement.Latest().String())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		b.Fatalf("status %d: %v %.300s", resp.StatusCode, err, data)
	}
	return bytes.Count(data, []byte(`"allocations"`))
}
