package values

import (
	"fmt"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// scalarNodes generates n written scalar-unit sizes in varied spellings.
func scalarNodes(n int) []*yamlsrc.Node {
	units := []string{"B", "kB", "MiB", "gb", "GiB", "TB"}
	out := make([]*yamlsrc.Node, n)
	for i := range out {
		out[i] = &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr,
			Value: fmt.Sprintf("%d.%d %s", i%4096, i%10, units[i%len(units)])}
	}
	return out
}

func BenchmarkCoerceScalarUnit(b *testing.B) {
	nodes := scalarNodes(1024)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := Coerce(ScalarSize, nodes[i%len(nodes)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckInRangeScalarUnit(b *testing.B) {
	c, diags := ParseConstraint(&yamlsrc.Node{Kind: yamlsrc.Mapping, Content: []*yamlsrc.Node{
		{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Value: "in_range"},
		{Kind: yamlsrc.Sequence, Content: []*yamlsrc.Node{
			{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Value: "0 B"},
			{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Value: "10000 TiB"},
		}},
	}}, ScalarSize)
	if c == nil {
		b.Fatal(diags)
	}
	vals := make([]graph.Value, 1024)
	for i, n := range scalarNodes(len(vals)) {
		vals[i], _ = Coerce(ScalarSize, n)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := c.Check(vals[i%len(vals)]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCheckPattern(b *testing.B) {
	c, diags := ParseConstraint(&yamlsrc.Node{Kind: yamlsrc.Mapping, Content: []*yamlsrc.Node{
		{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Value: "pattern"},
		{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Quoted: true, Value: `[a-z][a-z0-9-]{0,62}`},
	}}, String)
	if c == nil {
		b.Fatal(diags)
	}
	vals := make([]graph.Value, 1024)
	for i := range vals {
		vals[i] = fmt.Sprintf("host-%d-web", i)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := c.Check(vals[i%len(vals)]); err != nil {
			b.Fatal(err)
		}
	}
}
