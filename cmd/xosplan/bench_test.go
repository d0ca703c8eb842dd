package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// generateTemplate writes a TOSCA template of n node templates: a tenth of
// them Compute hosts, the rest software components of a custom type with
// a host requirement, a dependency on the previous component, and
// properties with constraints fed by get_input.
func generateTemplate(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  bench.nodes.App:
    derived_from: tosca.nodes.SoftwareComponent
    properties:
      port:
        type: integer
        constraints:
          - in_range: [ 1, 65535 ]
      label:
        type: string
        constraints:
          - max_length: 64
topology_template:
  inputs:
    base_port:
      type: integer
      default: 8000
  node_templates:
`)
	hosts := max(n/10, 1)
	// Flow style keeps 100,000 nodes under the 16 MiB file limit.
	for i := range hosts {
		fmt.Fprintf(&b, "    host%d: {type: tosca.nodes.Compute, capabilities: {host: {properties: {num_cpus: 2, mem_size: 4 GB}}}}\n", i)
	}
	for i := range n - hosts {
		fmt.Fprintf(&b, "    app%d: {type: bench.nodes.App, properties: {port: {get_input: base_port}, label: app-%d}, requirements: [{host: host%d}", i, i, i%hosts)
		if i > 0 {
			fmt.Fprintf(&b, ", {dependency: app%d}", i-1)
		}
		b.WriteString("]}\n")
	}
	return b.Bytes()
}

// BenchmarkValidate runs the whole validate command (format detection,
// compilation, rendering) on generated templates. The 100,000-node case is
// pkg/tosca's benchmark; repeating it here through the CLI would add
// minutes to `make bench` and measure the same compiler.
func BenchmarkValidate(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		b.Run(fmt.Sprintf("nodes=%d", n), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "bench.yaml")
			data := generateTemplate(n)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				b.Fatal(err)
			}
			var stderr bytes.Buffer
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if code := run(context.Background(), []string{"validate", path}, nil, io.Discard, &stderr); code != 0 {
					b.Fatalf("exit %d: %s", code, stderr.String())
				}
			}
		})
	}
}

// denseFile is a TOSCA file of flow lists of scalars of digits digits
// (digits+1 bytes a node; one digit is the densest YAML there is)
// holding about nodes nodes.
func denseFile(nodes, digits int) []byte {
	item := strings.Repeat("1", digits)
	row := "[" + strings.Repeat(item+",", 7) + item + "],"
	var b strings.Builder
	b.WriteString("tosca_definitions_version: tosca_simple_yaml_1_3\nmetadata:\n  x: [\n")
	for range nodes / 9 {
		b.WriteString(row)
	}
	b.WriteString("[]]\n")
	return []byte(b.String())
}

// BenchmarkValidateDenseFile runs the whole validate command, with the
// binary's garbage-collector settings, on the worst files of the input
// limits: 16 MiB of flow lists (eight million nodes, refused from the
// bytes), the densest file the node limit lets through, and the largest
// count it lets through: a file at the size limit holding one node per
// yamlsrc.BytesPerNode bytes. Besides the
// time, it reports the CPU time and the peak of the memory the Go
// runtime held during the run (peak-MB), the figures SECURITY.md states.
func BenchmarkValidateDenseFile(b *testing.B) {
	for _, c := range []struct {
		name   string
		data   []byte
		status int
	}{
		{"16MiB-refused", denseFile((yamlsrc.DefaultMaxFileBytes-100)/2, 1), 1},
		{"at-node-limit", denseFile(yamlsrc.DefaultMaxNodes-100, 1), 0},
		// Six digits: 58 bytes a row of nine nodes, over BytesPerNode a node.
		{"16MiB-at-scaled-limit", denseFile((yamlsrc.DefaultMaxFileBytes-100)/58*9, 6), 0},
	} {
		b.Run(c.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "dense.yaml")
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				b.Fatal(err)
			}
			defer debug.SetGCPercent(debug.SetGCPercent(gcPercent))
			defer debug.SetMemoryLimit(debug.SetMemoryLimit(memoryLimit))
			b.SetBytes(int64(len(c.data)))
			peak := startPeakSampler()
			startCPU := testutil.CPUTime()
			var stderr bytes.Buffer
			for b.Loop() {
				// Each run starts as a process does: with nothing held.
				b.StopTimer()
				runtime.GC()
				debug.FreeOSMemory()
				b.StartTimer()
				stderr.Reset()
				if code := run(context.Background(), []string{"validate", path}, nil, io.Discard, &stderr); code != c.status {
					b.Fatalf("exit %d, want %d: %.500s", code, c.status, stderr.String())
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(testutil.CPUTime()-startCPU)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(peak())/(1<<20), "peak-MB")
			runtime.GC()
			debug.FreeOSMemory()
		})
	}
}

// startPeakSampler samples, every 2 ms, the memory the Go runtime holds
// (mapped less what was given back to the system: what the process's
// resident size follows) until the function it returns is called, which
// returns the largest sample.
func startPeakSampler() (stop func() uint64) {
	var peak atomic.Uint64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		sample := []metrics.Sample{{Name: "/memory/classes/total:bytes"}, {Name: "/memory/classes/heap/released:bytes"}}
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64() - sample[1].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	return func() uint64 {
		close(done)
		<-sampled
		return peak.Load()
	}
}
