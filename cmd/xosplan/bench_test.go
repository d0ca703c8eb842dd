package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
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
