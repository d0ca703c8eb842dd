package core

import (
	"maps"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
)

func TestParseImportFilter(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]graph.Value
		err  string
	}{
		{in: "name=mysite", want: map[string]graph.Value{"name": "mysite"}},
		{in: ` name=mysite, zone="eu west"  tier=`, want: map[string]graph.Value{"name": "mysite", "zone": "eu west", "tier": ""}},
		{in: `login_base=ms email=a@b.c`, want: map[string]graph.Value{"login_base": "ms", "email": "a@b.c"}},
		{in: "", err: "no key=value pair"},
		{in: " , ", err: "no key=value pair"},
		{in: "name", err: `"name" is not key=value`},
		{in: "=x", err: "is not key=value"},
		{in: "na me=x", err: "may hold only letters"},
		{in: "n$=x", err: "may hold only letters"},
		{in: "id=42", err: "the key id is an ID field"},
		{in: "name=a UUID=b", err: "the key UUID is an ID field"},
		{in: "instance_id=i-1", err: "ID field"},
		{in: "name=a name=b", err: "given twice"},
		{in: `name="a`, err: "unterminated"},
		{in: `name="a"b`, err: "after the closing quote"},
		{in: manyKeys(MaxImportFilterKeys + 1), err: "more than 32 keys"},
	} {
		got, err := ParseImportFilter(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || !maps.Equal(got, tc.want) {
			t.Errorf("%q = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
}

func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("k" + strings.Repeat("x", i) + "=v ")
	}
	return b.String()
}

// FuzzParseImportFilter: any text gives a filter within the bounds, with
// no ID field, or an error; never a panic.
func FuzzParseImportFilter(f *testing.F) {
	for _, s := range []string{"name=a", `a="b c",d=e`, `x="\u00e9"`, "id=1", `a="`, "a=b=c"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseImportFilter(s)
		if err != nil {
			return
		}
		if len(got) == 0 || len(got) > MaxImportFilterKeys {
			t.Fatalf("%d keys", len(got))
		}
		for k := range got {
			if graph.IsIDField(k) || k == "" {
				t.Fatalf("key %q", k)
			}
		}
	})
}
