package planner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/planner/planfixture"
)

// BenchmarkDiff plans n resources against n recorded, 1% changed, and
// encodes the plan file.
func BenchmarkDiff(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		g, st := planfixture.BenchInputs(n, false)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, diags := Diff(context.Background(), g, st, Options{})
				if diags.HasErrors() || p.Summary.Change != n/100 {
					b.Fatalf("%v %+v", diags, p.Summary)
				}
				if err := Encode(io.Discard, p); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkInputValueDigest is the cost of one input value's digest: what
// plan and apply each pay per input, and an attacker per guess.
func BenchmarkInputValueDigest(b *testing.B) {
	values := map[string]graph.Value{"db_password": "summer2024"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Digests(nil, values, testSalt); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkApplyPlanFileCheck is the check apply runs on a plan file of
// 10,000 resources (1% changed): read it, make the plan again from the same
// graph and state with the options it records, and compare (Verify). The
// "edited" case is the refusal, which looks for the first difference.
func BenchmarkApplyPlanFileCheck(b *testing.B) {
	g, st := planfixture.BenchInputs(10_000, false)
	opts := Options{InputSalt: testSalt, Configuration: []string{"bench.yaml"}, InputDigests: map[string]string{"bench.yaml": Digest(nil)}}
	p, diags := Diff(context.Background(), g, st, opts)
	if diags.HasErrors() {
		b.Fatal(diags)
	}
	var file bytes.Buffer
	if err := Encode(&file, p); err != nil {
		b.Fatal(err)
	}
	edited := fileRoundTrip(b, p)
	edited.Changes[len(edited.Changes)-1].Type = "forged"
	for _, tc := range []struct {
		name string
		want error
	}{{"unedited", nil}, {"edited", ErrPlanMismatch}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				saved, err := Decode(bytes.NewReader(file.Bytes()))
				if err != nil {
					b.Fatal(err)
				}
				if tc.want != nil {
					saved = edited
				}
				again := saved.Options()
				again.InputDigests = saved.InputDigests
				p, _ := Diff(context.Background(), g, st, again)
				if err := Verify(saved, p); !errors.Is(err, tc.want) {
					b.Fatalf("Verify: %v", err)
				}
			}
		})
	}
}
