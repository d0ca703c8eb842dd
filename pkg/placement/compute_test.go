package placement

import (
	"context"
	"errors"
	"testing"
)

func TestArchTrait(t *testing.T) {
	for _, tc := range []struct{ arch, trait string }{
		{"x86_64", "HW_ARCH_X86_64"}, {"AMD64", "HW_ARCH_X86_64"}, {"aarch64", "HW_ARCH_AARCH64"},
		{"arm64", "HW_ARCH_AARCH64"}, {"ppc64le", "HW_ARCH_PPC64LE"}, {"s390x", "HW_ARCH_S390X"},
		{"i386", "HW_ARCH_I686"}, {"z80", ""},
	} {
		got, ok := ArchTrait(tc.arch)
		if got != tc.trait || ok != (tc.trait != "") {
			t.Errorf("ArchTrait(%q) = %q, %v; want %q", tc.arch, got, ok, tc.trait)
		}
	}
}

func TestComputeRequestQuery(t *testing.T) {
	q, err := ComputeRequest{VCPUs: 2, MemoryMB: 2048, Architecture: "x86_64", Forbidden: []string{"COMPUTE_STATUS_DISABLED"},
		MemberOf: [][]string{{"rack1", "rack2"}}}.Query()
	if err != nil {
		t.Fatal(err)
	}
	want := "resources=MEMORY_MB:2048,VCPU:2&required=HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED&member_of=in:rack1,rack2"
	if q.String() != want {
		t.Errorf("query %q, want %q", q.String(), want)
	}
	if _, err := (ComputeRequest{}).Query(); err == nil {
		t.Error("an empty request must be refused")
	}
	if _, err := (ComputeRequest{VCPUs: 1, Architecture: "z80"}).Query(); err == nil {
		t.Error("an unknown architecture must be refused")
	}
}

// conflictOnce is a Service whose first claim loses a race.
type conflictOnce struct {
	*Model
	t     *testing.T
	raced bool
}

func (c *conflictOnce) Claim(ctx context.Context, consumer string, a Allocations, g *int64) error {
	if !c.raced {
		c.raced = true
		// Someone else takes the whole first host meanwhile.
		must(c.t, c.Model.PutAllocations("intruder", Allocations{"compute-2": {"MEMORY_MB": 63488}}, WriteOptions{}))
	}
	return c.Model.Claim(ctx, consumer, a, g)
}

func TestPlaceReplacesAfterConflict(t *testing.T) {
	m, diags := LoadProviders("demo.yaml", DemoProviders())
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	q, err := ComputeRequest{VCPUs: 4, MemoryMB: 4096, Architecture: "x86_64", Forbidden: []string{"COMPUTE_STATUS_DISABLED"}}.Query()
	if err != nil {
		t.Fatal(err)
	}
	svc := &conflictOnce{Model: m, t: t}
	got, err := Place(context.Background(), svc, "web", q, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got.Allocations()["compute-2"]; ok {
		t.Errorf("placed on the host taken during the race: %v", got.Allocations())
	}
	q.Groups[0].Resources["VCPU"] = 10000
	if _, err := Place(context.Background(), m, "big", q, 0); !errors.Is(err, ErrNoCandidates) {
		t.Errorf("err %v, want ErrNoCandidates", err)
	}
}
