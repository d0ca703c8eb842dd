package placement

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// FuzzLoadProviders: any bytes give a model and diagnostics, never a panic;
// every error diagnostic has a position.
func FuzzLoadProviders(f *testing.F) {
	f.Add(DemoProviders())
	f.Add([]byte("providers:\n  - name: a\n    parent: a\n"))
	f.Add([]byte("providers:\n  - name: a\n    inventories: {VCPU: {total: 2147483648}}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, diags := LoadProviders("fuzz.yaml", data)
		if m == nil {
			t.Fatal("nil model")
		}
		for _, d := range diags {
			if d.Range.File == "" {
				t.Fatalf("diagnostic without file: %v", d)
			}
		}
		q, err := ParseQuery("resources=VCPU:1,MEMORY_MB:128", Latest())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Candidates(context.Background(), q); err != nil && StatusOf(err) >= 500 {
			t.Fatal(err)
		}
	})
}

// FuzzParseQuery: any query string parses or is a 400, and a parsed query
// runs against a small tree without panicking.
func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{
		"resources=VCPU:1,MEMORY_MB:1024,DISK_GB:100",
		"resources=VCPU:1&resources1=CUSTOM_DEV:1&resources2=CUSTOM_DEV:1&group_policy=isolate&limit=3",
		"resources=VCPU:1&member_of=in:a,b&member_of=!c&required=in:HW_NUMA_ROOT,CUSTOM_DEV&in_tree=host",
		"resources_A=CUSTOM_DEV:1&required_B=HW_NUMA_ROOT&same_subtree=_A,_B&group_policy=none&root_required=!HW_NUMA_ROOT",
	} {
		f.Add(s, 39)
	}
	m := deviceHost(f, 3)
	f.Fuzz(func(t *testing.T, raw string, minor int) {
		q, err := ParseQuery(raw, Version{1, minor & 63})
		if err != nil {
			if s := StatusOf(err); s != 400 && s != 404 {
				t.Fatalf("status %d: %v", s, err)
			}
			return
		}
		res, err := m.Candidates(context.Background(), q)
		if err != nil {
			if StatusOf(err) != 400 {
				t.Fatal(err)
			}
			return
		}
		if _, err := res.PlacementJSON(q.Version); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzHandler: any request to the REST handler gets a 2xx or 4xx answer —
// never a panic or a 5xx — and leaves the model consistent enough to
// answer a query.
func FuzzHandler(f *testing.F) {
	f.Add("PUT", "/resource_providers/host/inventories", `{"resource_provider_generation":0,"inventories":{"VCPU":{"total":4}}}`, "1.39")
	f.Add("PUT", "/allocations/c1", `{"allocations":{"dev1":{"resources":{"CUSTOM_DEV":1}}},"project_id":"p","user_id":"u","consumer_generation":null}`, "1.28")
	f.Add("PUT", "/allocations/c1", `{"allocations":[{"resource_provider":{"uuid":"host"},"resources":{"VCPU":1}}]}`, "1.0")
	f.Add("PUT", "/resource_providers/host/traits", `{"traits":["CUSTOM_X","HW_CPU_X86_SSE"],"resource_provider_generation":0}`, "1.6")
	f.Add("GET", "/allocation_candidates?resources=CUSTOM_DEV:1&in_tree=host", "", "1.39")
	f.Add("POST", "/resource_providers", `{"name":"new","parent_provider_uuid":"host"}`, "1.14")
	f.Add("DELETE", "/resource_providers/dev0", "", "1.0")
	f.Fuzz(func(t *testing.T, method, path, body, mv string) {
		m := deviceHost(t, 2)
		h := NewHandler(m)
		r, err := http.NewRequest(method, "http://placement"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		r.Header.Set("OpenStack-API-Version", "placement "+mv)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body.String())
		}
		q, err := ParseQuery("resources=VCPU:1", Latest())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Candidates(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	})
}
