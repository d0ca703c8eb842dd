package placement_test

import (
	"context"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/placement/placementtest"
)

// TestClientAgainstHandler drives the Client against the embedded model
// served by placementtest.NewHandler on 127.0.0.1: the same cloud pushed through the REST
// API answers the same queries as the model it came from.
func TestClientAgainstHandler(t *testing.T) {
	backing := placement.NewModel()
	srv := httptest.NewServer(placementtest.NewHandler(backing))
	defer srv.Close()
	ctx := context.Background()
	c, err := placement.NewClient(ctx, srv.URL, placement.ClientOptions{Token: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Version() != placement.Latest() {
		t.Errorf("negotiated %s, want %s", c.Version(), placement.Latest())
	}
	demo, diags := placement.LoadProviders("demo.yaml", placement.DemoProviders())
	if diags.HasErrors() {
		t.Fatal(diags.Err())
	}
	placement.Must(t, c.Push(ctx, demo))
	for _, raw := range []string{
		"resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20&required=HW_ARCH_X86_64",
		"resources=VCPU:1&member_of=rack2&required=!HW_ARCH_AARCH64",
		"resources=VCPU:1&resources1=VGPU:1&resources2=VGPU:1&group_policy=isolate",
		"resources=DISK_GB:10&in_tree=gpu-1",
		"resources=VCPU:100",
	} {
		q, err := placement.ParseQuery(raw, placement.Latest())
		placement.Must(t, err)
		want, err := demo.Candidates(ctx, q)
		placement.Must(t, err)
		got, err := c.Candidates(ctx, q)
		placement.Must(t, err)
		if a, b := keysOf(got), keysOf(want); a != b {
			t.Errorf("%s:\nclient %s\nmodel  %s", raw, a, b)
		}
		if a, b := placement.SummaryKey(got.Summaries), placement.SummaryKey(want.Summaries); a != b {
			t.Errorf("%s: summaries\nclient %s\nmodel  %s", raw, a, b)
		}
	}
	// Claim, conflict, release through the API.
	alloc := placement.Allocations{"compute-2": {"VCPU": 2}}
	placement.Must(t, c.Claim(ctx, "vm1", alloc, nil))
	if err := c.Claim(ctx, "vm1", alloc, nil); !errors.Is(err, placement.ErrGenerationConflict) {
		t.Errorf("second claim without generation: %v", err)
	}
	one := int64(1)
	placement.Must(t, c.Claim(ctx, "vm1", placement.Allocations{"compute-2": {"VCPU": 3}}, &one))
	if err := c.Claim(ctx, "vm2", placement.Allocations{"compute-2": {"VCPU": 1000}}, nil); !errors.Is(err, placement.ErrConflict) {
		t.Errorf("claim beyond capacity: %v", err)
	}
	if err := c.Claim(ctx, "vm2", placement.Allocations{"nowhere": {"VCPU": 1}}, nil); !errors.Is(err, placement.ErrBadRequest) {
		t.Errorf("claim on an unknown provider: %v", err)
	}
	placement.Must(t, c.Release(ctx, "vm1"))
	placement.Must(t, c.Release(ctx, "vm1"))
	placement.Must(t, c.Remove(ctx, demo))
	if ps := backing.Providers(); len(ps) != 0 {
		t.Errorf("%d providers left after Remove", len(ps))
	}
}

func TestNameUUID(t *testing.T) {
	a, b := placement.NameUUID("aggregate", "rack1"), placement.NameUUID("aggregate", "rack1")
	if a != b || len(a) != 36 || a[14] != '5' {
		t.Errorf("NameUUID not stable or not a v5-style UUID: %s %s", a, b)
	}
	if placement.NameUUID("provider", "rack1") == a {
		t.Error("kinds must not collide")
	}
	const u = "5E9A2B5C-0000-4000-8000-000000000001"
	if placement.NameUUID("provider", u) != "5e9a2b5c-0000-4000-8000-000000000001" {
		t.Error("a UUID must map to itself")
	}
}

func keysOf(c *placement.Candidates) string {
	var out []string
	for _, r := range c.Requests {
		out = append(out, placement.RequestKey(r, true))
	}
	return placement.JoinSorted(out)
}
