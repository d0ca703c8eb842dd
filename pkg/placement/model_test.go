package placement

import (
	"context"
	"errors"
	"testing"
)

func TestPutAllocations(t *testing.T) {
	m := NewModel()
	must(t, m.AddProvider(ProviderSpec{Name: "cn", Inventories: map[string]Inventory{
		"VCPU":    {Total: 4, MinUnit: 1, MaxUnit: 4, StepSize: 1, AllocationRatio: 1},
		"DISK_GB": {Total: 100, MinUnit: 10, MaxUnit: 50, StepSize: 10, AllocationRatio: 1}}}))
	gen := func(g int64) *int64 { return &g }
	for _, tc := range []struct {
		name     string
		consumer string
		allocs   Allocations
		opts     WriteOptions
		want     error
	}{
		{"fits", "a", Allocations{"cn": {"VCPU": 2, "DISK_GB": 20}}, WriteOptions{CheckGeneration: true}, nil},
		{"new consumer with a generation", "b", Allocations{"cn": {"VCPU": 1}}, WriteOptions{CheckGeneration: true, Generation: gen(3)}, ErrGenerationConflict},
		{"existing consumer without generation", "a", Allocations{"cn": {"VCPU": 1}}, WriteOptions{CheckGeneration: true}, ErrGenerationConflict},
		{"over capacity", "b", Allocations{"cn": {"VCPU": 3}}, WriteOptions{}, ErrConflict},
		{"step size", "b", Allocations{"cn": {"DISK_GB": 15}}, WriteOptions{}, ErrConflict},
		{"max unit", "b", Allocations{"cn": {"DISK_GB": 60}}, WriteOptions{}, ErrConflict},
		{"no inventory", "b", Allocations{"cn": {"MEMORY_MB": 1}}, WriteOptions{}, ErrConflict},
		{"unknown provider", "b", Allocations{"nope": {"VCPU": 1}}, WriteOptions{}, ErrBadRequest},
		{"unknown class", "b", Allocations{"cn": {"COWS": 1}}, WriteOptions{}, ErrBadRequest},
		{"replace, matching generation", "a", Allocations{"cn": {"VCPU": 4}}, WriteOptions{CheckGeneration: true, Generation: gen(1)}, nil},
	} {
		err := m.PutAllocations(tc.consumer, tc.allocs, tc.opts)
		if (tc.want == nil) != (err == nil) || (tc.want != nil && !errors.Is(err, tc.want)) {
			t.Errorf("%s: err %v, want %v", tc.name, err, tc.want)
		}
	}
	u, _, _ := m.Usages("cn")
	if u["VCPU"] != 4 || u["DISK_GB"] != 0 {
		t.Errorf("usages %v after replace, want VCPU 4 DISK_GB 0 (a PUT replaces, failed writes change nothing)", u)
	}
	if err := m.DeleteProvider("cn"); !errors.Is(err, ErrConflict) {
		t.Errorf("deleting a provider with allocations: %v, want 409", err)
	}
	must(t, m.DeleteAllocations("a"))
	if err := m.DeleteAllocations("a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("second delete: %v, want 404", err)
	}
	must(t, m.DeleteProvider("cn"))
}

func TestInventoryInUse(t *testing.T) {
	m := NewModel()
	must(t, m.AddProvider(ProviderSpec{Name: "cn", Inventories: map[string]Inventory{"VCPU": DefaultInventory(8)}}))
	must(t, m.PutAllocations("c", Allocations{"cn": {"VCPU": 6}}, WriteOptions{}))
	g, _ := m.ProviderGeneration("cn")
	if _, err := m.SetInventories("cn", g, map[string]Inventory{}, true); !errors.Is(err, ErrConflict) {
		t.Errorf("removing a class in use: %v, want 409", err)
	}
	if _, err := m.SetInventories("cn", g+1, map[string]Inventory{"VCPU": DefaultInventory(4)}, true); !errors.Is(err, ErrGenerationConflict) {
		t.Errorf("stale generation: %v, want generation conflict", err)
	}
	// Shrinking below usage is allowed; the provider then offers nothing.
	if _, err := m.SetInventories("cn", g, map[string]Inventory{"VCPU": DefaultInventory(4)}, true); err != nil {
		t.Fatal(err)
	}
	if err := m.PutAllocations("c", Allocations{"cn": {"VCPU": 5}}, WriteOptions{}); err != nil {
		t.Errorf("reducing an over-capacity allocation: %v", err)
	}
	if err := m.PutAllocations("c", Allocations{"cn": {"VCPU": 6}}, WriteOptions{}); !errors.Is(err, ErrConflict) {
		t.Errorf("growing an over-capacity allocation: %v, want 409", err)
	}
}

func TestServiceClaimRelease(t *testing.T) {
	m := NewModel()
	must(t, m.AddProvider(ProviderSpec{Name: "cn", Inventories: map[string]Inventory{"VCPU": DefaultInventory(2)}}))
	var svc Service = m
	ctx := context.Background()
	must(t, svc.Claim(ctx, "vm1", Allocations{"cn": {"VCPU": 1}}, nil))
	if err := svc.Claim(ctx, "vm1", Allocations{"cn": {"VCPU": 2}}, nil); !errors.Is(err, ErrGenerationConflict) {
		t.Errorf("claim over an existing consumer without its generation: %v", err)
	}
	if err := svc.Claim(ctx, "vm2", Allocations{"cn": {"VCPU": 2}}, nil); !errors.Is(err, ErrConflict) {
		t.Errorf("claim beyond capacity: %v", err)
	}
	must(t, svc.Release(ctx, "vm1"))
	must(t, svc.Release(ctx, "vm1"))
	must(t, svc.Claim(ctx, "vm2", Allocations{"cn": {"VCPU": 2}}, nil))
}

func TestExplain(t *testing.T) {
	m, diags := LoadProviders("demo.yaml", DemoProviders())
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	q, err := ParseQuery("resources=VCPU:40,MEMORY_MB:1024&required=HW_ARCH_X86_64", Latest())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, e := range m.Explain(q) {
		got[e.Provider] = e.Reason
	}
	want := map[string]string{"arm-1": "trait", "gpu-1": "unit", "compute-3": "unit"}
	for p, r := range want {
		if got[p] != r {
			t.Errorf("%s excluded for %q, want %q (all: %v)", p, got[p], r, got)
		}
	}
}
