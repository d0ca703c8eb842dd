package placement_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/placement/placementtest"
)

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
		m := placement.DeviceHost(t, 2)
		h := placementtest.NewHandler(m)
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
		q, err := placement.ParseQuery("resources=VCPU:1", placement.Latest())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.Candidates(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	})
}
