package placement

import (
	"context"
	"errors"
	"testing"
)

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
	q, err := ParseQuery("resources=VCPU:4,MEMORY_MB:4096&required=HW_ARCH_X86_64,!COMPUTE_STATUS_DISABLED", Latest())
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
