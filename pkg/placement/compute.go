package placement

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// ComputeRequest is what a compute resource asks of placement, in the
// terms a template uses (TOSCA host and os capabilities, placement
// policies); Query turns it into an allocation-candidates query.
type ComputeRequest struct {
	VCPUs, MemoryMB, DiskGB int64
	// Architecture is the TOSCA os.architecture value (x86_64, aarch64, …).
	Architecture string
	Required     []string
	Forbidden    []string
	// MemberOf: each entry is a list of aggregates of which the host must
	// be in at least one; all entries must hold.
	MemberOf [][]string
	// NotMemberOf lists aggregates the host must not be in.
	NotMemberOf []string
}

// ArchTrait maps a TOSCA/libvirt architecture name to its standard
// HW_ARCH_* trait; ok is false for an architecture os-traits does not name.
func ArchTrait(arch string) (trait string, ok bool) {
	a := strings.ToLower(strings.TrimSpace(arch))
	switch a {
	case "x86-64", "amd64", "x64":
		a = "x86_64"
	case "x86", "x86_32", "i386", "i486", "i586":
		a = "i686"
	case "arm64", "armv8":
		a = "aarch64"
	case "arm":
		a = "armv7"
	}
	t := "HW_ARCH_" + strings.ToUpper(a)
	for _, s := range StandardTraits() {
		if s == t {
			return t, true
		}
	}
	return "", false
}

// Query builds the unsuffixed-group query for the request (zero amounts are
// left out). An unknown architecture is an error.
func (r ComputeRequest) Query() (Query, error) {
	g := RequestGroup{Resources: map[string]int64{}}
	for rc, n := range map[string]int64{"VCPU": r.VCPUs, "MEMORY_MB": r.MemoryMB, "DISK_GB": r.DiskGB} {
		if n < 0 {
			return Query{}, fmt.Errorf("negative %s amount %d", rc, n)
		}
		if n > 0 {
			g.Resources[rc] = n
		}
	}
	if len(g.Resources) == 0 {
		return Query{}, errors.New("a compute request needs at least one of VCPU, MEMORY_MB, DISK_GB")
	}
	if r.Architecture != "" {
		t, ok := ArchTrait(r.Architecture)
		if !ok {
			return Query{}, fmt.Errorf("architecture %q has no standard HW_ARCH_* trait", r.Architecture)
		}
		g.RequiredAnyOf = append(g.RequiredAnyOf, []string{t})
	}
	for _, t := range r.Required {
		g.RequiredAnyOf = append(g.RequiredAnyOf, []string{t})
	}
	g.Forbidden = append(g.Forbidden, r.Forbidden...)
	g.MemberOfAnyOf = append(g.MemberOfAnyOf, r.MemberOf...)
	g.ForbiddenAggs = append(g.ForbiddenAggs, r.NotMemberOf...)
	return Query{Groups: []RequestGroup{g}, Version: Latest()}, nil
}

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
