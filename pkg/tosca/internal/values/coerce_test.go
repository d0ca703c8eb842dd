package values

import (
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/graph"
)

// node parses the YAML text of one value.
func node(t testing.TB, text string) *yamlsrc.Node {
	t.Helper()
	doc, diags := yamlsrc.Parse("test.yaml", []byte("v: "+text+"\n"), yamlsrc.Limits{})
	if diags.HasErrors() {
		t.Fatalf("bad test YAML %q: %v", text, diags.Err())
	}
	return doc.Get("v")
}

func TestCoerce(t *testing.T) {
	tests := []struct {
		typ, yaml string
		want      graph.Value // compared with graph.Equal and exact Go type
		err       string      // substring of the error; "" = no error
	}{
		// string
		{"string", "hello", "hello", ""},
		{"string", "'123'", "123", ""},
		{"string", `""`, "", ""},
		{"string", "|-\n  a\n  b", "a\nb", ""},
		{"string", "!!str 12", "12", ""},
		{"tosca:string", "x", "x", ""},
		{"string", "123456789", nil, `"123456789" is not a string`},
		{"string", "true", nil, `"true" is not a string`},
		{"string", "1.5", nil, "is not a string"},
		{"string", "2015-01-02", "2015-01-02", ""},
		{"string", "2001-12-14t21:59:43.10-05:00", "2001-12-14t21:59:43.10-05:00", ""},
		{"string", "~", nil, "null is not a string"},
		{"string", "[a]", nil, `"[a]" is not a string`},
		{"string", "{a: 1}", nil, `"{a: 1}" is not a string`},
		// integer
		{"integer", "42", int64(42), ""},
		{"integer", "-7", int64(-7), ""},
		{"integer", "+12", int64(12), ""},
		{"integer", "0x1F", int64(31), ""},
		{"integer", "0o17", int64(15), ""},
		{"integer", "1_000", int64(1000), ""},
		{"integer", "9223372036854775807", int64(9223372036854775807), ""},
		{"integer", "-9223372036854775808", int64(-9223372036854775807 - 1), ""},
		{"integer", "9223372036854775808", nil, "out of the integer range"},
		{"integer", "99999999999999999999", nil, "out of the integer range"},
		{"integer", "two", nil, `"two" is not an integer`},
		{"integer", "'2'", nil, `"2" is not an integer`},
		{"integer", "2.0", nil, `"2.0" is not an integer`},
		{"integer", "1e3", nil, "is not an integer"},
		{"integer", "true", nil, "is not an integer"},
		{"integer", "yes", nil, "is not an integer"},
		{"integer", "", nil, "null is not an integer"},
		{"integer", "[1]", nil, "is not an integer"},
		// float
		{"float", "1.5", 1.5, ""},
		{"float", "-0.1", -0.1, ""},
		{"float", "2", float64(2), ""},
		{"float", "1e300", 1e300, ""},
		{"float", ".5", 0.5, ""},
		{"float", ".inf", nil, "not a finite float"},
		{"float", "-.Inf", nil, "not a finite float"},
		{"float", ".nan", nil, "not a finite float"},
		{"float", "1e400", nil, "out of the float range"},
		{"float", "'1.5'", nil, `"1.5" is not a float`},
		{"float", "abc", nil, "is not a float"},
		// boolean
		{"boolean", "true", true, ""},
		{"boolean", "False", false, ""},
		{"boolean", "TRUE", true, ""},
		{"boolean", "yes", true, ""},
		{"boolean", "Off", false, ""},
		{"boolean", "NO", false, ""},
		{"boolean", "'true'", nil, `"true" is not a boolean`},
		{"boolean", "tRUE", nil, "is not a boolean"},
		{"boolean", "y", nil, "is not a boolean"},
		{"boolean", "1", nil, "is not a boolean"},
		// null
		{"null", "~", nil, ""},
		{"null", "null", nil, ""},
		{"null", "", nil, ""},
		{"null", "x", nil, `"x" is not null`},
		{"null", "'null'", nil, "is not null"},
		// timestamp
		{"timestamp", "2001-12-14t21:59:43.10-05:00", "2001-12-14T21:59:43.1-05:00", ""},
		{"timestamp", "2001-12-14 21:59:43.10 -5", "2001-12-14T21:59:43.1-05:00", ""},
		{"timestamp", "2001-12-15T02:59:43.1Z", "2001-12-15T02:59:43.1Z", ""},
		{"timestamp", "2001-12-15 2:59:43.10", "2001-12-15T02:59:43.1Z", ""},
		{"timestamp", "2002-12-14", "2002-12-14T00:00:00Z", ""},
		{"timestamp", "2002-2-1", "2002-02-01T00:00:00Z", ""},
		{"timestamp", "'1975-09-15 12:34:56.7 +2'", "1975-09-15T12:34:56.7+02:00", ""},
		{"timestamp", "'2020-01-01T00:00:00+05:30'", "2020-01-01T00:00:00+05:30", ""},
		{"timestamp", "'2020-01-01T00:00:00.1234567891Z'", "2020-01-01T00:00:00.123456789Z", ""},
		{"timestamp", "2002-02-30", nil, "no such date"},
		{"timestamp", "'2002-13-01'", nil, "no such date"},
		{"timestamp", "'2002-01-01 24:00:00'", nil, "no such date"},
		{"timestamp", "'2002-01-01 10:00:00 +25'", nil, "zone offset is out of range"},
		{"timestamp", "yesterday", nil, `"yesterday" is not a valid timestamp`},
		{"timestamp", "2002", nil, "is not a valid timestamp"},
		{"timestamp", "'2002-01-01T10:00'", nil, "is not a valid timestamp"},
		// version
		{"version", "1.2.3.beta-4", "1.2.3.beta-4", ""},
		{"version", "6.5", "6.5", ""},
		{"version", "14.10", "14.10", ""},
		{"version", "1.0", "1.0", ""},
		{"version", "'7.0'", "7.0", ""},
		{"version", "2", "2.0", ""},
		{"version", "1.0.0", "1.0.0", ""},
		{"version", "' 1.2 '", "1.2", ""},
		{"version", "v1.23.4", nil, `"v1.23.4" is not a valid version`},
		{"version", "1.2.3-4", nil, "not a valid version"},
		{"version", "1..2", nil, "not a valid version"},
		{"version", "1.2.3.beta-x", nil, "not a valid version"},
		{"version", "true", nil, "is not a valid version"},
		{"version", "1e3", nil, "not a valid version"},
		// range
		{"range", "[1, 10]", []graph.Value{int64(1), int64(10)}, ""},
		{"range", "[-10, -1]", []graph.Value{int64(-10), int64(-1)}, ""},
		{"range", "[5, 5]", []graph.Value{int64(5), int64(5)}, ""},
		{"range", "[1, UNBOUNDED]", []graph.Value{int64(1), "UNBOUNDED"}, ""},
		{"range", "[10, 1]", nil, "lower bound is greater than the upper bound"},
		{"range", "[UNBOUNDED, 1]", nil, "lower bound \"UNBOUNDED\" is not an integer"},
		{"range", "[1, unbounded]", nil, "neither an integer nor UNBOUNDED"},
		{"range", "[1.5, 2]", nil, "is not an integer"},
		{"range", "[1]", nil, "expected [lower, upper]"},
		{"range", "[1, 2, 3]", nil, "expected [lower, upper]"},
		{"range", "1", nil, "expected [lower, upper]"},
		{"range", "", nil, "null is not a valid range"},
		// scalar-unit.size
		{"scalar-unit.size", "1 GB", "1 GB", ""},
		{"scalar-unit.size", "1GB", "1 GB", ""},
		{"scalar-unit.size", "1.23 gb", "1.23 GB", ""},
		{"scalar-unit.size", "'  512   MiB  '", "512 MiB", ""},
		{"scalar-unit.size", "010 kb", "10 kB", ""},
		{"scalar-unit.size", "1.50 KiB", "1.5 KiB", ""},
		{"scalar-unit.size", "0 MB", "0 MB", ""},
		{"scalar-unit.size", "1e3 B", "1000 B", ""},
		{"scalar-unit.size", "1.5e30 TB", "1.5e+30 TB", ""},
		{"scalar-unit.size", "12345678901234567890123 B", "12345678901234567890123 B", ""},
		{"tosca:scalar-unit.size", "2 tib", "2 TiB", ""},
		{"scalar-unit.size", "0", nil, "the unit is missing"},
		{"scalar-unit.size", "10", nil, "the unit is missing (valid units: B, kB, KB, KiB"},
		{"scalar-unit.size", "10.5", nil, "the unit is missing"},
		{"scalar-unit.size", "1 XB", nil, `the unit "XB" is not valid`},
		{"scalar-unit.size", "-1 GB", nil, "must not be negative"},
		{"scalar-unit.size", "GB", nil, "must start with a number"},
		{"scalar-unit.size", "1.2.3 GB", nil, `"1.2.3" is not a number`},
		{"scalar-unit.size", "1e999 B", nil, "out of range"},
		{"scalar-unit.size", "1e300 TB", nil, "magnitude is out of range"},
		{"scalar-unit.size", "1 G B", nil, "is not valid"},
		{"scalar-unit.size", "~", nil, "null is not a valid scalar-unit.size"},
		// scalar-unit.time
		{"scalar-unit.time", "1.23ms", "1.23 ms", ""},
		{"scalar-unit.time", ".5 d", "0.5 d", ""},
		{"scalar-unit.time", "10 M", "10 m", ""},
		{"scalar-unit.time", "3 US", "3 us", ""},
		{"scalar-unit.time", "5 min", nil, `the unit "min" is not valid`},
		// scalar-unit.frequency
		{"scalar-unit.frequency", "123e3 kHz", "123000 kHz", ""},
		{"scalar-unit.frequency", "120 hz", "120 Hz", ""},
		{"scalar-unit.frequency", "2.4 ghz", "2.4 GHz", ""},
		{"scalar-unit.frequency", "1 THz", nil, "is not valid"},
		// scalar-unit.bitrate
		{"scalar-unit.bitrate", "1.23 KiBps", "1.23 KiBps", ""},
		{"scalar-unit.bitrate", "10 kbps", "10 Kbps", ""},
		{"scalar-unit.bitrate", "10 KBPS", "10 KBps", ""},
		{"scalar-unit.bitrate", "10 mibps", "10 Mibps", ""},
		{"scalar-unit.bitrate", "10 bps", "10 bps", ""},
		{"scalar-unit.bitrate", "10 BPS", "10 Bps", ""},
		{"scalar-unit.bitrate", "10 kb", nil, "is not valid"},
		// unknown types
		{"list", "[1]", nil, `"list" is not a primitive type`},
		{"Foo", "1", nil, `"Foo" is not a primitive type`},
		{"tosca.datatypes.json", "'{}'", nil, "is not a primitive type"},
	}
	for _, tt := range tests {
		t.Run(tt.typ+"/"+tt.yaml, func(t *testing.T) {
			got, err := Coerce(tt.typ, node(t, tt.yaml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Coerce(%s, %s) = %#v, %v; want error containing %q", tt.typ, tt.yaml, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Coerce(%s, %s): %v", tt.typ, tt.yaml, err)
			}
			if !graph.Equal(got, tt.want) || graph.Render(got) != graph.Render(tt.want) {
				t.Fatalf("Coerce(%s, %s) = %#v; want %#v", tt.typ, tt.yaml, got, tt.want)
			}
		})
	}
}

func TestCoerceNilNode(t *testing.T) {
	if v, err := Coerce("null", nil); err != nil || v != nil {
		t.Errorf("Coerce(null, nil) = %v, %v", v, err)
	}
	if _, err := Coerce("integer", nil); err == nil || !strings.Contains(err.Error(), "null is not an integer") {
		t.Errorf("Coerce(integer, nil) error = %v", err)
	}
}

func TestCoerceLenient(t *testing.T) {
	tests := []struct {
		typ, yaml string
		want      graph.Value
		err       string
	}{
		{"string", "123456789", "123456789", ""},
		{"string", "1.50", "1.50", ""},
		{"string", "true", "true", ""},
		{"string", "~", nil, "null is not a string"},
		{"string", "[1]", nil, "is not a string"},
		{"integer", "'2'", nil, "is not an integer"},
	}
	for _, tt := range tests {
		got, err := CoerceLenient(tt.typ, node(t, tt.yaml))
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("CoerceLenient(%s, %s) = %v, %v; want error %q", tt.typ, tt.yaml, got, err, tt.err)
			}
			continue
		}
		if err != nil || !graph.Equal(got, tt.want) {
			t.Errorf("CoerceLenient(%s, %s) = %#v, %v; want %#v", tt.typ, tt.yaml, got, err, tt.want)
		}
	}
}

func TestLongValueIsShortenedInMessage(t *testing.T) {
	long := strings.Repeat("x", 10000)
	_, err := Coerce("integer", node(t, long))
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "…") {
		t.Fatalf("error for a long value: %.300v", err)
	}
}

func TestTypes(t *testing.T) {
	for _, typ := range []string{"string", "integer", "float", "boolean", "timestamp", "null", "version", "range",
		"scalar-unit.size", "scalar-unit.time", "scalar-unit.frequency", "scalar-unit.bitrate"} {
		if !IsPrimitive(typ) || !IsPrimitive("tosca:"+typ) {
			t.Errorf("IsPrimitive(%q) = false", typ)
		}
		if Canonical("tosca:"+typ) != typ || Canonical(typ) != typ {
			t.Errorf("Canonical(tosca:%s) = %q", typ, Canonical("tosca:"+typ))
		}
	}
	for _, typ := range []string{"", "list", "map", "tosca:list", "tosca.datatypes.json", "String", "int", "tosca:", "tosca.datatypes.Root", "scalar-unit"} {
		if IsPrimitive(typ) {
			t.Errorf("IsPrimitive(%q) = true", typ)
		}
		if Canonical(typ) != typ {
			t.Errorf("Canonical(%q) = %q", typ, Canonical(typ))
		}
	}
}
