package placement

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

// TestManageRealPlacementMicroversions writes providers through the
// management calls at the newest microversion and at 1.18 (aggregates
// then go as a plain list, without the provider generation), against
// Debian's real Placement, and reads them back; and checks the answers
// the Traits API seed describes: PUT /traits of a standard name is a
// 400, DELETE of a trait in use a 409, of a missing one fine.
func TestManageRealPlacementMicroversions(t *testing.T) {
	_, url := realPlacementURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, max := range []Version{{}, {1, 18}} {
		c, err := NewClient(ctx, url, ClientOptions{Token: "admin", MaxVersion: max})
		if err != nil {
			t.Fatal(err)
		}
		name := "mv-" + c.Version().String()
		if err := c.EnsureTrait(ctx, "CUSTOM_MV"); err != nil {
			t.Fatal(err)
		}
		root, err := c.CreateProvider(ctx, name, "", "")
		if err != nil {
			t.Fatal(err)
		}
		child, err := c.CreateProvider(ctx, name+"-child", "", root)
		if err != nil {
			t.Fatalf("%s: nested provider: %v", c.Version(), err)
		}
		if _, err := c.SetInventories(ctx, child, map[string]Inventory{"VCPU": DefaultInventory(4)}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetProviderTraits(ctx, child, []string{"CUSTOM_MV", "HW_CPU_X86_AVX2"}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.SetAggregates(ctx, child, AggregateUUIDs([]string{"agg-1"})); err != nil {
			t.Fatalf("%s: aggregates: %v", c.Version(), err)
		}
		rec, err := c.ReadProvider(ctx, child)
		if err != nil || rec == nil {
			t.Fatal(err)
		}
		if rec.Parent != root || rec.Root != root || !slices.Equal(rec.Traits, []string{"CUSTOM_MV", "HW_CPU_X86_AVX2"}) ||
			!slices.Equal(rec.Aggregates, AggregateUUIDs([]string{"agg-1"})) || rec.Inventories["VCPU"].Total != 4 {
			t.Errorf("%s: read back %+v", c.Version(), rec)
		}
		if holders, err := c.ProvidersWithTrait(ctx, "CUSTOM_MV"); err != nil || !slices.Contains(holders, name+"-child") {
			t.Errorf("%s: providers with CUSTOM_MV: %v, %v", c.Version(), holders, err)
		}
		if err := c.DeleteTrait(ctx, "CUSTOM_MV"); !errors.Is(err, ErrConflict) {
			t.Errorf("%s: deleting a trait in use: %v, want a 409", c.Version(), err)
		}
		for _, u := range []string{child, root} {
			if err := c.DeleteProvider(ctx, u); err != nil {
				t.Fatal(err)
			}
		}
		if err := c.DeleteTrait(ctx, "CUSTOM_MV"); err != nil {
			t.Errorf("%s: deleting a trait no longer used: %v", c.Version(), err)
		}
		if err := c.DeleteTrait(ctx, "CUSTOM_MV"); err != nil {
			t.Errorf("%s: deleting a trait already gone: %v", c.Version(), err)
		}
		if err := c.EnsureTrait(ctx, "HW_CPU_X86_AVX2"); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: PUT /traits of a standard name: %v, want a 400", c.Version(), err)
		}
	}
}
