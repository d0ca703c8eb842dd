package placement

import (
	"context"
	"testing"
)

// allocsPerProvider is the growth of Candidates' allocations per provider
// between flat clouds of 1,000 and 2,000 providers.
func allocsPerProvider(t *testing.T, query string) float64 {
	t.Helper()
	q, err := ParseQuery(query, Latest())
	if err != nil {
		t.Fatal(err)
	}
	count := func(n int) float64 {
		m := flatCloud(t, n)
		if _, err := m.Candidates(context.Background(), q); err != nil { // builds the index
			t.Fatal(err)
		}
		return testing.AllocsPerRun(5, func() {
			if _, err := m.Candidates(context.Background(), q); err != nil {
				t.Fatal(err)
			}
		})
	}
	return (count(2000) - count(1000)) / 1000
}

// TestCandidatesSearchAllocatesNothingPerProvider: a query every provider
// is examined for, and fails only at the required trait, allocates nothing
// per provider (before: one, the group candidate made before the traits
// were checked).
func TestCandidatesSearchAllocatesNothingPerProvider(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	if got := allocsPerProvider(t, "resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20&required=HW_CPU_X86_AVX512F"); got > 0.01 {
		t.Fatalf("%.2f allocations per provider examined, want 0", got)
	}
}

// TestCandidatesAllocationsPerCandidate: a query every provider answers
// allocates, per provider, only its provider summary, which is part of
// the answer: the map of its resources (two allocations) and the list of
// its traits when it has some (a quarter of the flat cloud has one); the
// search and the candidate itself take from shared blocks (before: 7.3
// per candidate).
func TestCandidatesAllocationsPerCandidate(t *testing.T) {
	if testing.CoverMode() != "" || raceEnabled {
		t.Skip("allocation counts are not meaningful under -cover or -race")
	}
	if got := allocsPerProvider(t, "resources=VCPU:2,MEMORY_MB:4096,DISK_GB:20"); got > 2.5 {
		t.Fatalf("%.2f allocations per candidate, want at most 2.25 (its summary) and some map growth", got)
	}
}
