package tosca2

import "testing"

// TestScalarCanonicalUnit: a scalar is stored in its type's canonical
// unit (§9.1.2.2), which must be a unit string of the type so that the
// canonical value reads back: with prefixes but no "" prefix the unit
// alone is not one, and the prefixed unit nearest multiplier 1 stands in.
func TestScalarCanonicalUnit(t *testing.T) {
	tests := []struct {
		name string
		def  scalarDef
		in   string
		want string
	}{
		{"units only", scalarDef{units: map[string]float64{"s": 1, "ms": 0.001}}, "1500 ms", "1.5 s"},
		{"prefix \"\"", scalarDef{units: map[string]float64{"g": 1}, prefixes: map[string]float64{"": 1, "k": 1000}}, "2 kg", "2000 g"},
		{"no prefix \"\"", scalarDef{units: map[string]float64{"m": 1}, prefixes: map[string]float64{"k": 1000, "c": 0.01}}, "1.5 km", "150000 cm"},
		{"a canonical unit", scalarDef{units: map[string]float64{"bps": 1, "bits/s": 1}, canonical: "bits/s"}, "8 bps", "8 bits/s"},
	}
	for _, tt := range tests {
		_, canon, _, msg := parseScalar(&tt.def, tt.in)
		if msg != "" {
			t.Errorf("%s: parseScalar2(%q): %s", tt.name, tt.in, msg)
			continue
		}
		got := formatScalar(&tt.def, canon)
		if got != tt.want {
			t.Errorf("%s: %q is stored as %q, want %q", tt.name, tt.in, got, tt.want)
		}
		if _, again, _, msg := parseScalar(&tt.def, got); msg != "" || again != canon {
			t.Errorf("%s: the canonical %q does not read back: %v %s", tt.name, got, again, msg)
		}
	}
}
