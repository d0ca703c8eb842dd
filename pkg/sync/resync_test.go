package sync

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"slices"
	"testing"
	"time"
)

// TestResyncActuatesAgainWithoutAChange: XOS's "save without change". An
// applied resource, asked to resync (the API's POST
// /v1/resources/{addr}/resync), is touched (updated later than enacted)
// and created again over its record at once, though nothing in the
// configuration changed; its dependent is left alone, and afterwards the
// status shows enacted caught up with updated. An unknown address is a
// 404.
func TestResyncActuatesAgainWithoutAChange(t *testing.T) {
	h := newHarness(t, []string{"app", "db"}, map[string][]string{"app": {"db"}}, func(o *Options) { o.HealthInterval = time.Hour })
	h.start()
	first := h.status("db")
	if first.Updated == nil || first.Enacted == nil || first.NeedsSync || !first.Updated.Equal(*first.Enacted) {
		t.Fatalf("db after its create: %+v", first)
	}
	srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret"}))
	defer srv.Close()
	if code, _ := request(t, srv, "POST", "/v1/resources/db/resync", ""); code != 401 {
		t.Errorf("a resync without the token: %d, want 401", code)
	}
	if code, _ := request(t, srv, "POST", "/v1/resources/nope/resync", "s3cret"); code != 404 {
		t.Errorf("a resync of an unknown resource: %d, want 404", code)
	}
	h.clock.set(h.clock.Now().Add(time.Minute))
	code, body := request(t, srv, "POST", "/v1/resources/db/resync", "s3cret")
	if code != 202 {
		t.Fatalf("resync: %d %s", code, body)
	}
	h.wait()
	if got := h.drv.callsOf("db", "create"); !slices.Equal(got, []string{"create@0s", "create@1m0s"}) {
		t.Errorf("db creates %v, want one more after the resync", got)
	}
	if got := h.drv.callsOf("app", "create"); len(got) != 1 {
		t.Errorf("app was actuated again: %v", got)
	}
	after := h.status("db")
	if after.NeedsSync || after.Updated == nil || !after.Updated.After(*first.Updated) || !after.Enacted.Equal(*after.Updated) {
		t.Errorf("db after the resync: updated %v enacted %v needs_sync %v", after.Updated, after.Enacted, after.NeedsSync)
	}
	if !slices.ContainsFunc(after.Activity, func(a Activity) bool { return a.Type == EventResync }) {
		t.Errorf("the activity log does not show the resync: %+v", after.Activity)
	}
	_, rs := request(t, srv, "GET", "/v1/resources/db", "s3cret")
	var doc map[string]any
	if err := json.Unmarshal([]byte(rs), &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"updated", "enacted"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("GET /v1/resources/db has no %s: %s", k, rs)
		}
	}
	if err := h.e.Resync("nope"); !errors.Is(err, ErrUnknownResource) {
		t.Errorf("Resync(nope) = %v", err)
	}
}
