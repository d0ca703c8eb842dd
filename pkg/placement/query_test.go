package placement

import (
	"context"
	"errors"
	"strings"
	"testing"
)

func TestParseQueryErrors(t *testing.T) {
	for _, tc := range []struct {
		query   string
		version Version
		want    string // substring of the 400 detail
	}{
		{"resources=VCPU:1&member_of=a,b", Version{1, 24}, "must be prefixed with the 'in:' or '!in:' keyword"},
		{"resources1=VCPU:1&resources2=VCPU:1", Version{1, 25}, `The "group_policy" parameter is required`},
		{"resources=VCPU", Version{1, 39}, "Badly formed resources parameter"},
		{"resources=VCPU:0", Version{1, 39}, "expected positive integer amount"},
		{"resources=vcpu:1", Version{1, 39}, "No such resource class vcpu"},
		{"resources=VCPU:1&limit=0", Version{1, 39}, "does not match '^[1-9][0-9]*$'"},
		{"resources=VCPU:1&limit=cow", Version{1, 39}, "does not match"},
		{"resources=VCPU:1&limit=2", Version{1, 15}, "'limit' was unexpected"},
		{"resources=VCPU:1&group_policy=maybe", Version{1, 39}, "is not one of"},
		{"resources=VCPU:1&required=in:A,B", Version{1, 38}, "needs microversion 1.39"},
		{"resources=VCPU:1&required=A,!A", Version{1, 39}, "Conflicting required and forbidden traits"},
		{"resources=VCPU:1&member_of=!a", Version{1, 31}, "Forbidden member_of"},
		{"resources=VCPU:1&in_tree=x", Version{1, 30}, "'in_tree' was unexpected"},
		{"resourcesX=VCPU:1", Version{1, 32}, "'resourcesX' was unexpected"},
		{"required=HW_CPU_X86_SSE", Version{1, 39}, "must be associated with resources"},
		{"", Version{1, 39}, "At least one request group"},
		{"resources=VCPU:1&same_subtree=_A", Version{1, 39}, "Real suffixes should be specified"},
		{"resources=VCPU:1&bogus=1", Version{1, 39}, "'bogus' was unexpected"},
		{"resources=VCPU:1&root_required=A,!A", Version{1, 39}, "Conflicting required and forbidden"},
		{"resources=%zz", Version{1, 39}, "Invalid query string"},
	} {
		_, err := ParseQuery(tc.query, tc.version)
		if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseQuery(%q, %s) = %v, want 400 containing %q", tc.query, tc.version, err, tc.want)
		}
	}
}

func TestParseQueryRoundTrip(t *testing.T) {
	for _, raw := range []string{
		"resources=MEMORY_MB:1024,VCPU:1",
		"resources=VCPU:1&required=HW_CPU_X86_AVX,!CUSTOM_FOO&required=in:A,B&member_of=in:agg1,agg2&member_of=!in:agg3&in_tree=cn1",
		"resources=VCPU:1&resources1=SRIOV_NET_VF:1&required1=CUSTOM_PHYSNET1&resources_NIC=NET_BW_EGR_KILOBIT_PER_SEC:10&root_required=COMPUTE_VOLUME_MULTI_ATTACH,!HW_NUMA_ROOT&same_subtree=1,_NIC&group_policy=isolate&limit=5",
	} {
		q, err := ParseQuery(raw, Latest())
		if err != nil {
			t.Fatalf("ParseQuery(%q): %v", raw, err)
		}
		again, err := ParseQuery(q.String(), Latest())
		if err != nil {
			t.Fatalf("re-parse of %q: %v", q.String(), err)
		}
		if q.String() != again.String() {
			t.Errorf("round trip changed %q into %q", q.String(), again.String())
		}
	}
}

func TestParseQueryGroupOrder(t *testing.T) {
	q, err := ParseQuery("resources10=VCPU:1&resources2=VCPU:1&resources=VCPU:1&resources_B=VCPU:1&group_policy=none", Latest())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, g := range q.Groups {
		got = append(got, "["+g.Suffix+"]")
	}
	if strings.Join(got, "") != "[][2][10][_B]" {
		t.Errorf("group order %v", got)
	}
}

// TestCandidatesUnknownNames: unknown traits and classes are 400s, an
// unknown in_tree provider matches nothing.
func TestCandidatesUnknownNames(t *testing.T) {
	m := NewModel()
	if err := m.AddProvider(ProviderSpec{Name: "cn", Inventories: map[string]Inventory{"VCPU": DefaultInventory(4)}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query  string
		status int
		count  int
	}{
		{"resources=VCPU:1", 200, 1},
		{"resources=VCPU:5", 200, 0},
		{"resources=VCPU:1&required=CUSTOM_NOPE", 400, 0},
		{"resources=CUSTOM_NOPE:1", 400, 0},
		{"resources=VCPU:1&in_tree=nowhere", 200, 0},
		{"resources=VCPU:1&member_of=nowhere", 200, 0},
		{"resources=VCPU:1&root_required=!HW_NUMA_ROOT", 200, 1},
	} {
		q, err := ParseQuery(tc.query, Latest())
		if err != nil {
			t.Fatal(err)
		}
		res, err := m.Candidates(context.Background(), q)
		if StatusOf(err) != tc.status {
			t.Errorf("%s: status %d (%v), want %d", tc.query, StatusOf(err), err, tc.status)
			continue
		}
		if err == nil && len(res.Requests) != tc.count {
			t.Errorf("%s: %d candidates, want %d", tc.query, len(res.Requests), tc.count)
		}
	}
}

// TestCombinationCap: the cap stops generation and says so; the result is
// a prefix of the uncapped order.
func TestCombinationCap(t *testing.T) {
	m := deviceHost(t, 8)
	q, err := ParseQuery(deviceQuery(4, "isolate"), Latest())
	if err != nil {
		t.Fatal(err)
	}
	full, err := m.Candidates(context.Background(), q)
	if err != nil || full.Truncated || len(full.Requests) != 8*7*6*5 {
		t.Fatalf("uncapped: %d candidates, truncated %v, err %v", len(full.Requests), full.Truncated, err)
	}
	m.SetMaxCombinations(100)
	capped, err := m.Candidates(context.Background(), q)
	if err != nil || !capped.Truncated || len(capped.Requests) == 0 || len(capped.Requests) > 100 {
		t.Fatalf("capped: %d candidates, truncated %v, err %v", len(capped.Requests), capped.Truncated, err)
	}
	for i, r := range capped.Requests {
		if requestKey(r, true) != requestKey(full.Requests[i], true) {
			t.Fatalf("capped result is not a prefix of the full order at %d", i)
		}
	}
}

func TestCandidatesContextCancelled(t *testing.T) {
	m := deviceHost(t, 8)
	q, err := ParseQuery(deviceQuery(6, "none"), Latest())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := m.Candidates(ctx, q); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

func TestCandidatesDeterministic(t *testing.T) {
	m := deviceHost(t, 5)
	q, err := ParseQuery(deviceQuery(3, "none")+"&resources=VCPU:1", Latest())
	if err != nil {
		t.Fatal(err)
	}
	var first string
	for i := 0; i < 5; i++ {
		res, err := m.Candidates(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		data, err := res.PlacementJSON(Latest())
		if err != nil {
			t.Fatal(err)
		}
		var keys []string
		for _, r := range res.Requests {
			keys = append(keys, requestKey(r, true))
		}
		got := string(data) + strings.Join(keys, "\n")
		if i == 0 {
			first = got
		} else if got != first {
			t.Fatal("two runs of the same query differ")
		}
	}
}
