package testutil

import (
	"fmt"
	"strings"
)

// The service templates of the speed benchmarks (issue 25): pkg/tosca's
// compile and validate benchmarks and internal/yamlsrc's reading
// benchmarks measure the same files.

// BenchTemplate13 writes a service template of n node templates: a tenth are
// Compute hosts, the rest instances of a custom software type with a host
// requirement, a dependency on the previous software node, properties with
// constraints, and get_input.
func BenchTemplate13(n int) []byte {
	var b strings.Builder
	b.Grow(n * 260)
	b.WriteString(`tosca_definitions_version: tosca_simple_yaml_1_3
node_types:
  bench.App:
    derived_from: tosca.nodes.SoftwareComponent
    properties:
      port:
        type: integer
        constraints:
          - in_range: [ 1, 65535 ]
      mode:
        type: string
        constraints:
          - valid_values: [ fast, safe ]
      replicas:
        type: integer
        default: 1
        constraints:
          - greater_or_equal: 1
    requirements:
      - backend:
          capability: tosca.capabilities.Node
          relationship: tosca.relationships.DependsOn
          occurrences: [ 0, 1 ]
topology_template:
  inputs:
    mode:
      type: string
      default: fast
  node_templates:
`)
	writeNodeTemplates(&b, n, "tosca.nodes.Compute", "bench.App", "get_input")
	return []byte(b.String())
}

// BenchTemplate20 writes a TOSCA 2.0 service template of n node templates
// on the embedded simple profile: a tenth are Compute hosts, the rest
// instances of a custom type with a validated port, a scalar size, a
// host requirement, a dependency on the previous one and $get_input.
func BenchTemplate20(n int) []byte {
	var b strings.Builder
	b.Grow(n * 220)
	b.WriteString(`tosca_definitions_version: tosca_2_0
imports:
  - profile: org.oasis-open.simple:2.0
node_types:
  App:
    derived_from: SoftwareComponent
    properties:
      port:
        type: integer
        validation: { $and: [ { $greater_or_equal: [ $value, 1 ] }, { $less_or_equal: [ $value, 65535 ] } ] }
      mode:
        type: string
        validation: { $valid_values: [ $value, [ fast, safe ] ] }
      cache:
        type: Size
        default: 64 MiB
    requirements:
      - backend:
          capability: Node
          relationship: DependsOn
          count_range: [ 0, 1 ]
service_template:
  inputs:
    mode:
      type: string
      default: fast
  node_templates:
`)
	writeNodeTemplates(&b, n, "Compute", "App", "$get_input")
	return []byte(b.String())
}

// writeNodeTemplates writes the node templates of BenchTemplate13 and
// BenchTemplate20, which differ only in type names and get_input's
// spelling: a tenth (at least one) hosts of type compute, the rest of
// type app, each hosted on one of them and depending on the one before.
// Flow style keeps 100,000 nodes under the 16 MiB file limit.
func writeNodeTemplates(b *strings.Builder, n int, compute, app, getInput string) {
	hosts := max(n/10, 1)
	for i := range hosts {
		fmt.Fprintf(b, "    host%d: {type: %s, capabilities: {host: {properties: {num_cpus: 2, mem_size: 4 GB}}}}\n", i, compute)
	}
	for i := range n - hosts {
		fmt.Fprintf(b, "    app%d: {type: %s, properties: {port: %d, mode: {%s: mode}}, requirements: [{host: host%d}", i, app, 1+i%65000, getInput, i%hosts)
		if i > 0 {
			fmt.Fprintf(b, ", {backend: app%d}", i-1)
		}
		b.WriteString("]}\n")
	}
}
