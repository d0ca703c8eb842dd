package placement

import (
	"fmt"
	"sort"
	"strings"
	"testing"
)

// deviceHost is one compute host with n single-unit device children.
func deviceHost(tb testing.TB, n int) *Model {
	tb.Helper()
	m := NewModel()
	must(tb, m.AddProvider(ProviderSpec{Name: "host", Inventories: map[string]Inventory{
		"VCPU": {Total: 64, MinUnit: 1, MaxUnit: 64, StepSize: 1, AllocationRatio: 1}}}))
	for i := 0; i < n; i++ {
		must(tb, m.AddProvider(ProviderSpec{Name: fmt.Sprintf("dev%d", i), Parent: "host",
			Inventories: map[string]Inventory{"CUSTOM_DEV": {Total: 1, MinUnit: 1, MaxUnit: 1, StepSize: 1, AllocationRatio: 1}}}))
	}
	return m
}

// deviceQuery asks for k separate single devices.
func deviceQuery(k int, policy string) string {
	var parts []string
	for i := 1; i <= k; i++ {
		parts = append(parts, fmt.Sprintf("resources%d=CUSTOM_DEV:1", i))
	}
	return strings.Join(parts, "&") + "&group_policy=" + policy
}

func must(tb testing.TB, err error) {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
}

func joinSorted(l []string) string {
	out := append([]string(nil), l...)
	sort.Strings(out)
	return strings.Join(out, "\n")
}
