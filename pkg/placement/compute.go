package placement

import (
	"context"
	"errors"
	"fmt"
)

// ErrNoCandidates is returned by Place when nothing fits.
var ErrNoCandidates = errors.New("no allocation candidates")

// Place finds candidates for q and claims the first for consumer (a new
// consumer). When the claim loses a race — the capacity was taken or a
// generation moved in between — it asks again, up to attempts times
// (default 3), so a concurrent writer makes it re-place rather than fail.
// It returns the claimed candidate, ErrNoCandidates when nothing fits, or
// the last conflict.
func Place(ctx context.Context, svc Service, consumer string, q Query, attempts int) (AllocationRequest, error) {
	if attempts <= 0 {
		attempts = 3
	}
	var last error
	for i := 0; i < attempts; i++ {
		res, err := svc.Candidates(ctx, q)
		if err != nil {
			return AllocationRequest{}, err
		}
		if len(res.Requests) == 0 {
			return AllocationRequest{}, ErrNoCandidates
		}
		chosen := res.Requests[0]
		err = svc.Claim(ctx, consumer, chosen.Allocations(), nil)
		if err == nil {
			return chosen, nil
		}
		if !errors.Is(err, ErrConflict) {
			return AllocationRequest{}, err
		}
		last = err
	}
	return AllocationRequest{}, fmt.Errorf("placing %s: gave up after %d conflicts: %w", consumer, attempts, last)
}
