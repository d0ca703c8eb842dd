package placement

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/graph"
	pl "github.com/xosplan/xosplan/pkg/placement"
	"github.com/xosplan/xosplan/pkg/state"
)

// resource returns a placement resource of kind with the given
// properties.
func resource(addr, kind string, mgmt graph.Management, props map[string]graph.Value) *graph.Resource {
	return &graph.Resource{Address: addr, Management: mgmt,
		Driver: graph.Driver{Name: graph.DriverPlacement, Options: map[string]graph.Value{graph.OptionPlacementKind: kind}},
		Spec:   map[string]graph.Value{"properties": props}}
}

func list(s ...string) []graph.Value {
	out := make([]graph.Value, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func TestNoEndpoint(t *testing.T) {
	d := New(driver.Options{})
	_, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "t",
		Resource: resource("t", graph.PlacementKindTrait, graph.Managed, map[string]graph.Value{"name": "CUSTOM_A"})})
	if !errors.Is(err, ErrNoEndpoint) || !errors.Is(err, driver.ErrNeedsChange) {
		t.Fatalf("err = %v, want ErrNoEndpoint marked needs-change", err)
	}
}

func TestParseObject(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		props      map[string]graph.Value
		want       string
	}{
		{"no name", graph.PlacementKindTrait, map[string]graph.Value{}, "needs a name"},
		{"bad trait", graph.PlacementKindTrait, map[string]graph.Value{"name": "CUSTOM_lower"}, "no custom name Placement accepts"},
		{"long", graph.PlacementKindResourceClass, map[string]graph.Value{"name": "CUSTOM_" + strings.Repeat("A", 249)}, "at most 255"},
		{"bad kind", "volume", map[string]graph.Value{"name": "x"}, "not a placement object"},
		{"filter", graph.PlacementKindProvider, map[string]graph.Value{"import_filter": map[string]graph.Value{"name": "nfs"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := parseObject(driver.Request{Address: "x", Resource: resource("x", tc.kind, graph.Managed, tc.props)})
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "":
				if o.name != "nfs" {
					t.Errorf("name %q, want the import filter's", o.name)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, driver.ErrNeedsChange):
				t.Errorf("err = %v, want %q (needs change)", err, tc.want)
			}
		})
	}
}

// conflictMaker is a transport that, on the first provider traits
// write, first bumps the provider's generation with a write of its own,
// so that the driver's write carries a stale generation: a 409
// placement.concurrent_update made on purpose.
type conflictMaker struct {
	base  http.RoundTripper
	url   string
	fired atomic.Bool
	// answer is what the service answered the stale write.
	answer atomic.Value
}

func (cm *conflictMaker) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method == http.MethodPut && strings.HasSuffix(req.URL.Path, "/traits") && strings.Contains(req.URL.Path, "/resource_providers/") &&
		cm.fired.CompareAndSwap(false, true) {
		rp := strings.TrimSuffix(req.URL.Path, "/traits")
		get, _ := http.NewRequestWithContext(req.Context(), http.MethodGet, cm.url+rp, nil)
		get.Header = req.Header.Clone()
		resp, err := cm.base.RoundTrip(get)
		if err != nil {
			return nil, err
		}
		var body struct {
			Generation int64 `json:"generation"`
		}
		_ = json.NewDecoder(resp.Body).Decode(&body)
		resp.Body.Close()
		bump, _ := json.Marshal(map[string]any{"resource_provider_generation": body.Generation, "aggregates": []string{}})
		put, _ := http.NewRequestWithContext(req.Context(), http.MethodPut, cm.url+rp+"/aggregates", bytes.NewReader(bump))
		put.Header = req.Header.Clone()
		if resp, err = cm.base.RoundTrip(put); err != nil {
			return nil, err
		}
		resp.Body.Close()
		resp, err = cm.base.RoundTrip(req)
		if err == nil {
			data, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			cm.answer.Store(fmt.Sprintf("%d %s", resp.StatusCode, data))
			resp.Body = io.NopCloser(bytes.NewReader(data))
		}
		return resp, err
	}
	return cm.base.RoundTrip(req)
}

// TestRealPlacementDriver drives Debian's real Placement through the
// driver: a generation conflict made on purpose and survived, a trait in
// use deleted only once the provider holding it dropped it (a wait, not
// an error), an unmanaged provider imported by its name, a standard
// trait the service does not know refused before any write, and a
// health check that finds drift.
func TestRealPlacementDriver(t *testing.T) {
	url := testutil.RealPlacement(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cm := &conflictMaker{base: http.DefaultTransport, url: url}
	d := New(driver.Options{PollInterval: 50 * time.Millisecond, Timeout: time.Minute,
		Placement: driver.PlacementEndpoint{URL: url, Token: "admin", HTTPClient: &http.Client{Transport: cm, Timeout: 30 * time.Second}}})
	client, err := pl.NewClient(ctx, url, pl.ClientOptions{Token: "admin"})
	if err != nil {
		t.Fatal(err)
	}
	var out drivertest.Lines
	apply := func(action string, r *graph.Resource, prior *state.Resource) (driver.Outcome, error) {
		return d.Apply(ctx, driver.Request{Action: action, Address: r.Address, Resource: r, Prior: prior, Output: out.Add})
	}
	recorded := func(r *graph.Resource, o driver.Outcome) *state.Resource {
		return &state.Resource{Address: r.Address, Management: r.Management, Driver: r.Driver, Spec: r.Spec, Feedback: o.Feedback}
	}

	trait := resource("ssd", graph.PlacementKindTrait, graph.Managed, map[string]graph.Value{"name": "CUSTOM_SSD"})
	if _, err := apply(driver.ActionCreate, trait, nil); err != nil {
		t.Fatal(err)
	}
	rp := resource("pool", graph.PlacementKindProvider, graph.Managed, map[string]graph.Value{
		"name":        "pool-1",
		"traits":      list("CUSTOM_SSD", "MISC_SHARES_VIA_AGGREGATE"),
		"aggregates":  list("row1"),
		"inventories": map[string]graph.Value{"DISK_GB": map[string]graph.Value{"total": int64(1000), "reserved": int64(10)}},
	})
	o, err := apply(driver.ActionCreate, rp, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := o.Feedback.Attributes["generation_conflicts"].(int64); got != 1 || !strings.Contains(out.Text(), "1 generation conflict(s)") {
		t.Errorf("conflicts recorded %v, output %q: want the one made on purpose", o.Feedback.Attributes["generation_conflicts"], out.All())
	}
	answer, _ := cm.answer.Load().(string)
	t.Logf("the stale traits write was answered: %s", answer)
	if !strings.HasPrefix(answer, "409 ") || !strings.Contains(answer, pl.CodeConcurrentUpdate) {
		t.Errorf("the stale write was answered %q, want a 409 %s", answer, pl.CodeConcurrentUpdate)
	}
	uuid, _ := o.Feedback.Attributes["uuid"].(string)
	rec, err := client.ReadProvider(ctx, uuid)
	if err != nil || rec == nil || len(rec.Traits) != 2 || rec.Inventories["DISK_GB"].Reserved != 10 {
		t.Fatalf("provider after create: %+v, %v", rec, err)
	}
	prior := recorded(rp, o)

	// Health: drift found, then repaired by a create.
	if _, err := client.SetProviderTraits(ctx, uuid, []string{"MISC_SHARES_VIA_AGGREGATE"}); err != nil {
		t.Fatal(err)
	}
	h, err := apply(driver.ActionHealth, rp, prior)
	if err == nil || !strings.Contains(h.Feedback.Status.Message, "traits [CUSTOM_SSD] missing") {
		t.Errorf("health after drift: %v, %+v", err, h.Feedback.Status)
	}
	if _, err := apply(driver.ActionCreate, rp, prior); err != nil {
		t.Fatal(err)
	}
	if h, err := apply(driver.ActionHealth, rp, prior); err != nil || !h.Feedback.Status.Active {
		t.Errorf("health after repair: %v, %+v", err, h.Feedback.Status)
	}

	// A standard trait the service does not know is refused by name,
	// before anything is written.
	bad := resource("bad", graph.PlacementKindProvider, graph.Managed, map[string]graph.Value{"name": "bad-1", "traits": list("HW_CPU_X86_NO_SUCH_THING")})
	if _, err := apply(driver.ActionCreate, bad, nil); err == nil || !strings.Contains(err.Error(), "does not know the trait(s) HW_CPU_X86_NO_SUCH_THING") || !errors.Is(err, driver.ErrNeedsChange) {
		t.Errorf("unknown standard trait: %v", err)
	}
	if _, ok, _ := client.FindProvider(ctx, "bad-1"); ok {
		t.Error("the provider with an unknown trait was created")
	}

	// Import by filter: an existing provider read, never written.
	ext, err := client.CreateProvider(ctx, "outside-1", "", "")
	if err != nil {
		t.Fatal(err)
	}
	imp := resource("outside", graph.PlacementKindProvider, graph.Unmanaged, map[string]graph.Value{"import_filter": map[string]graph.Value{"name": "outside-1"}})
	if o, err := apply(driver.ActionRead, imp, nil); err != nil || o.Feedback.Attributes["uuid"] != ext {
		t.Errorf("import: %v, %v; want uuid %s", err, o.Feedback.Attributes, ext)
	}
	missing := resource("gone", graph.PlacementKindProvider, graph.Unmanaged, map[string]graph.Value{"import_filter": map[string]graph.Value{"name": "no-such"}})
	if _, err := apply(driver.ActionRead, missing, nil); err == nil || !strings.Contains(err.Error(), "import filter name=no-such") {
		t.Errorf("import of a missing provider: %v", err)
	}
	if o, err := apply(driver.ActionDelete, imp, recorded(imp, driver.Outcome{})); err != nil || !o.Gone {
		t.Errorf("forgetting an imported provider: %v", err)
	}
	if rec, _ := client.ReadProvider(ctx, ext); rec == nil {
		t.Error("the delete of an unmanaged provider deleted it")
	}

	// The trait in use: its delete waits until pool-1 drops it.
	done := make(chan error, 1)
	go func() {
		_, err := apply(driver.ActionDelete, trait, recorded(trait, driver.Outcome{}))
		done <- err
	}()
	testutil.WaitFor(t, 30*time.Second, "the delete of CUSTOM_SSD to wait for pool-1",
		func() bool {
			return strings.Contains(out.Text(), "waiting for provider(s) pool-1 to drop trait CUSTOM_SSD")
		})
	select {
	case err := <-done:
		t.Fatalf("the delete ended (%v) while pool-1 still has the trait", err)
	default:
	}
	if _, err := client.SetProviderTraits(ctx, uuid, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("delete after the trait was dropped: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the delete did not finish within 30 s of the trait being dropped")
	}
	if ok, _ := client.TraitExists(ctx, "CUSTOM_SSD"); ok {
		t.Error("CUSTOM_SSD still exists")
	}
	if o, err := apply(driver.ActionDelete, rp, prior); err != nil || !o.Gone {
		t.Fatalf("delete provider: %v", err)
	}
	if rec, _ := client.ReadProvider(ctx, uuid); rec != nil {
		t.Error("pool-1 still exists")
	}
}
