package placement

import (
	"context"
	"errors"
	"testing"
)

// FuzzLoadProviders: any bytes give a model and diagnostics, never a panic;
// every error diagnostic has a position.
func FuzzLoadProviders(f *testing.F) {
	f.Add(DemoProviders())
	f.Add([]byte("providers:\n  - name: a\n    parent: a\n"))
	f.Add([]byte("providers:\n  - name: a\n    inventories: {VCPU: {total: 2147483648}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, diags := LoadProviders("fuzz.yaml", data)
		if m == nil {
			t.Fatal("nil model")
		}
		for _, d := range diags {
			if d.Range.File == "" {
				t.Fatalf("diagnostic without file: %v", d)
			}
		}
		q, err := ParseQuery("resources=VCPU:1,MEMORY_MB:128", Latest())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Candidates(context.Background(), q); err != nil && StatusOf(err) >= 500 {
			t.Fatal(err)
		}
	})
}

// FuzzParseQuery: any query string parses or is a 400, and a parsed query
// runs against a small tree without panicking.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100",
		"resources=VCPU:1&resources1=CUSTOM_DEV:1&resources2=CUSTOM_DEV:1&group_policy=isolate&limit=3",
		"resources=VCPU:1&member_of=in:a,b&member_of=!c&required=in:HW_NUMA_ROOT,CUSTOM_DEV&in_tree=host",
		"resources_A=CUSTOM_DEV:1&required_B=HW_NUMA_ROOT&same_subtree=_A,_B&group_policy=none&root_required=!HW_NUMA_ROOT",
	} {
		f.Add(s, 39)
	}
	m := deviceHost(f, 3)
	f.Fuzz(func(t *testing.T, raw string, minor int) {
		q, err := ParseQuery(raw, Version{1, minor & 63})
		if err != nil {
			if s := StatusOf(err); s != 400 && s != 404 {
				t.Fatalf("status %d: %v", s, err)
			}
			return
		}
		res, err := m.Candidates(context.Background(), q)
		if err != nil {
			if StatusOf(err) != 400 {
				t.Fatal(err)
			}
			return
		}
		if _, err := res.PlacementJSON(q.Version); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzUnmarshalCompact: any bytes give a model or ErrBadCompact, never a
// panic; a model that comes back encodes to the same bytes.
func FuzzUnmarshalCompact(f *testing.F) {
	f.Add([]byte(compactMagic + "\x00"))
	if m, diags := LoadProviders("demo.yaml", DemoProviders()); len(diags) == 0 {
		f.Add(m.MarshalCompact())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := UnmarshalCompact(data)
		if err != nil {
			if !errors.Is(err, ErrBadCompact) {
				t.Fatal(err)
			}
			return
		}
		if _, err := UnmarshalCompact(m.MarshalCompact()); err != nil {
			t.Fatal(err)
		}
	})
}
