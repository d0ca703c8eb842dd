package placement

import (
	"bytes"
	"errors"
	"math/rand"
	"reflect"
	"testing"
)

// sameModel fails unless a and b hold the same providers and custom traits.
func sameModel(t *testing.T, a, b *Model) {
	t.Helper()
	if pa, pb := a.Providers(), b.Providers(); !reflect.DeepEqual(pa, pb) {
		t.Fatalf("providers differ:\n%+v\n%+v", pa, pb)
	}
	f := TraitFilter{Prefix: "CUSTOM_"}
	if ta, tb := a.ListTraits(f), b.ListTraits(f); !reflect.DeepEqual(ta, tb) {
		t.Fatalf("custom traits differ: %v, %v", ta, tb)
	}
}

// TestCompactRoundTrip: the compact form of the demo cloud, of random
// clouds with trees, sharing providers and usage, and of an inventory
// file with UUIDs, custom classes and short-form inventories reads back
// into an equal model, and encodes again to the same bytes.
func TestCompactRoundTrip(t *testing.T) {
	demo, diags := LoadProviders("demo.yaml", DemoProviders())
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	file, diags := LoadProviders("f.yaml", []byte(`providers:
  - name: root
    uuid: 5a8a1e0c-4f35-4d8a-9d0b-000000000001
    inventories: {VCPU: 8, CUSTOM_FPGA: {total: 4, reserved: 1, step_size: 2, allocation_ratio: 1.5}}
    traits: [CUSTOM_GOLD, HW_CPU_X86_AVX2]
    aggregates: [rack1, "ünï"]
    usages: {VCPU: 3}
  - name: child
    parent: root
    inventories: {MEMORY_MB: 1024}
`))
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	models := []*Model{NewModel(), demo, file}
	r := rand.New(rand.NewSource(7))
	for range 20 {
		models = append(models, randomCloud(t, r, "p-"))
	}
	for i, m := range models {
		data := m.MarshalCompact()
		back, err := UnmarshalCompact(data)
		if err != nil {
			t.Fatalf("model %d: %v", i, err)
		}
		sameModel(t, m, back)
		if again := back.MarshalCompact(); !bytes.Equal(again, data) {
			t.Fatalf("model %d: encodes differently after a round trip", i)
		}
	}
}

// TestCompactRejectsDamage: every truncation, every single changed byte
// and foreign data give ErrBadCompact or a valid model, never a panic.
func TestCompactRejectsDamage(t *testing.T) {
	data := flatCloud(t, 3).MarshalCompact()
	for n := range len(data) {
		if _, err := UnmarshalCompact(data[:n]); !errors.Is(err, ErrBadCompact) {
			t.Fatalf("truncated to %d bytes: %v", n, err)
		}
	}
	for i := range data {
		for _, x := range []byte{0x00, 0x01, 0x7f, 0x80, 0xff} {
			bad := bytes.Clone(data)
			bad[i] = x
			if m, err := UnmarshalCompact(bad); err == nil && m == nil {
				t.Fatalf("byte %d = %#x: no model and no error", i, x)
			} else if err != nil && !errors.Is(err, ErrBadCompact) {
				t.Fatalf("byte %d = %#x: %v", i, x, err)
			}
		}
	}
	for _, bad := range [][]byte{nil, []byte("providers: []"), append(bytes.Clone(data), 0)} {
		if _, err := UnmarshalCompact(bad); !errors.Is(err, ErrBadCompact) {
			t.Fatalf("%q: %v", bad, err)
		}
	}
	// Valid framing around an invalid provider: AddProvider's checks hold.
	m := NewModel()
	must(t, m.AddProvider(ProviderSpec{Name: "a", Inventories: map[string]Inventory{"VCPU": DefaultInventory(4)}}))
	enc := m.MarshalCompact()
	i := bytes.Index(enc, []byte("VCPU")) + 4
	enc[i] = 0 // total 0
	if _, err := UnmarshalCompact(enc); !errors.Is(err, ErrBadCompact) {
		t.Fatalf("total 0: %v", err)
	}
}
