package values

import (
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

var fuzzTypes = []string{String, Integer, Float, Boolean, Null, Timestamp, Version, Range,
	ScalarSize, ScalarTime, ScalarFrequency, ScalarBitrate}

// FuzzCoerce checks that Coerce never panics, and that what it accepts is
// canonical: coercing the canonical form again gives the same value, and
// an ordered value compares equal to itself.
func FuzzCoerce(f *testing.F) {
	for _, s := range []string{"1 GB", "1.23 gb", "2001-12-14 21:59:43.10 -5", "1.2.3.beta-4", "[1, UNBOUNDED]",
		"0x1F", ".inf", "yes", "~", "6.5", "123e3 kHz", "10 KiBps", "[-3, 2]", "'x'", "{a: 1}", "1e400"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		doc, diags := yamlsrc.Parse("fuzz.yaml", []byte(text), yamlsrc.Limits{MaxFileBytes: 1 << 16})
		if diags.HasErrors() {
			return
		}
		for _, typ := range fuzzTypes {
			v, err := Coerce(typ, doc)
			if err != nil {
				continue
			}
			if _, err := graph.Canonicalize(v); err != nil {
				t.Fatalf("Coerce(%s, %q) = %#v: not canonical: %v", typ, text, v, err)
			}
			if s, ok := v.(string); ok && typ != String {
				again, err := Coerce(typ, &yamlsrc.Node{Kind: yamlsrc.Scalar, Tag: yamlsrc.TagStr, Quoted: true, Value: s})
				if err != nil || !graph.Equal(again, v) {
					t.Fatalf("Coerce(%s, %q) = %q, but that gives %#v, %v", typ, text, s, again, err)
				}
			}
			if isOrdered(typ) {
				if c, err := Compare(typ, v, v); err != nil || c != 0 {
					t.Fatalf("Compare(%s, %#v, itself) = %d, %v", typ, v, c, err)
				}
			}
		}
		CoerceLenient(String, doc)
	})
}

// FuzzParseConstraint checks that ParseConstraint and Check never panic
// and that a parsed constraint renders and checks its own arguments.
func FuzzParseConstraint(f *testing.F) {
	for _, s := range []string{"{in_range: [1, 65535]}", "{pattern: '[a-z]*'}", "{valid_values: [1 GB, 2 GB]}",
		"{min_length: 2}", "{equal: 1.2.3.beta-4}", "{greater_than: 2020-01-01}", "{schema: x}", "{foo: 1}",
		"{in_range: [UNBOUNDED, 1m]}", "{pattern: '(?=x)'}", "[1]", "{less_than: 8640000}"} {
		for i := range fuzzTypes {
			f.Add(s, uint8(i))
		}
	}
	f.Fuzz(func(t *testing.T, text string, ti uint8) {
		typ := "list"
		if int(ti) < len(fuzzTypes) {
			typ = fuzzTypes[ti]
		}
		doc, diags := yamlsrc.Parse("fuzz.yaml", []byte(text), yamlsrc.Limits{MaxFileBytes: 1 << 16})
		if diags.HasErrors() {
			return
		}
		c, ds := ParseConstraint(doc, typ)
		if (c == nil) != ds.HasErrors() {
			t.Fatalf("ParseConstraint(%q, %s) = %v with %v", text, typ, c, ds)
		}
		if c == nil {
			return
		}
		_ = c.String()
		for _, a := range c.Args {
			c.Check(a)
		}
		for _, v := range []graph.Value{nil, int64(1), 1.5, "x", true, []graph.Value{int64(1)}, map[string]graph.Value{}} {
			c.Check(v)
		}
		if c.Op == OpValidValues {
			for i, a := range c.Args {
				if err := c.Check(a); err != nil {
					t.Fatalf("%s rejects its own value %d: %v", c, i, err)
				}
			}
		}
	})
}
