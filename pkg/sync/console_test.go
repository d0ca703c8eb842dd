package sync

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/executor"
	"github.com/xosplan/xosplan/pkg/graph"
)

func TestConsoleStatusNamesEachState(t *testing.T) {
	tests := []struct {
		rs   ResourceStatus
		want string
	}{
		{ResourceStatus{Status: "active", Flags: Flags{Active: true}}, ConsoleActive},
		{ResourceStatus{Status: "ok"}, ConsoleActive},
		{ResourceStatus{Status: "converging", Flags: Flags{Converging: true}}, ConsoleConverging},
		{ResourceStatus{Status: "error", Flags: Flags{Failed: true}}, ConsoleFailed},
		{ResourceStatus{Status: "not_created", LastError: "no"}, ConsoleFailed},
		{ResourceStatus{Status: "not_created", WaitingOn: "db"}, ConsoleWaiting},
		{ResourceStatus{Status: "not_created"}, ConsoleNotCreated},
		{ResourceStatus{Status: "pending"}, ConsolePending},
	}
	for _, tc := range tests {
		if got := ConsoleStatus(tc.rs); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.rs, got, tc.want)
		}
	}
}

// TestConsoleServesPageAssetsAndGraph: the page and its assets carry the
// Content-Security-Policy and need no token even where reads do; the
// graph draws every resource with its status and the history names the
// reconcile.
func TestConsoleServesPageAssetsAndGraph(t *testing.T) {
	h := newHarness(t, []string{"app", "cache", "db"}, map[string][]string{"app": {"db", "cache"}}, func(o *Options) { o.HealthInterval = time.Hour })
	h.drv.fail["cache"] = 1
	h.start()
	srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret"}))
	defer srv.Close()
	for _, path := range []string{"/", "/assets/console.js", "/assets/console.css", "/assets/graph.css"} {
		code, hdr, body := send(t, srv, "GET", path, "", nil)
		if code != 200 || hdr.Get("Content-Security-Policy") != ConsoleCSP || hdr.Get("X-Content-Type-Options") != "nosniff" || body == "" {
			t.Errorf("GET %s: %d %v", path, code, hdr)
		}
	}
	_, _, page := send(t, srv, "GET", "/", "", nil)
	for _, bad := range []string{"<script>", "onclick", "style=", "http://", "https://"} {
		if strings.Contains(page, bad) {
			t.Errorf("the console page holds %q", bad)
		}
	}
	if code, _, _ := send(t, srv, "GET", "/v1/graph", "", nil); code != 401 {
		t.Errorf("the graph without the token: %d, want 401", code)
	}
	code, _, body := send(t, srv, "GET", "/v1/graph", "", map[string]string{"Authorization": "Bearer s3cret"})
	var g GraphPage
	if err := json.Unmarshal([]byte(body), &g); code != 200 || err != nil {
		t.Fatalf("graph %d %v: %s", code, err, body)
	}
	want := map[string]string{"app": ConsoleWaiting, "cache": ConsoleFailed, "db": ConsoleActive}
	if g.Total != 3 || len(g.Nodes) != 3 || len(g.Pages) != 1 {
		t.Fatalf("graph: %+v", g)
	}
	for _, n := range g.Nodes {
		if want[n.Address] != n.Status || !strings.Contains(g.SVG, `aria-label="`+n.Address+`, T: `+n.Status+`"`) {
			t.Errorf("%s: %q, want %q in the SVG", n.Address, n.Status, want[n.Address])
		}
	}
	_, _, body = send(t, srv, "GET", "/v1/history", "", map[string]string{"Authorization": "Bearer s3cret"})
	var hist History
	if err := json.Unmarshal([]byte(body), &hist); err != nil || len(hist.Reconciles) != 1 || hist.Reconciles[0].Outcome != OutcomeFailed ||
		!strings.Contains(body, `"cache"`) {
		t.Errorf("history %v: %s", err, body)
	}
}

// TestGraphPagesAndFinds: more resources than a page holds are split;
// find returns the page that holds the address.
func TestGraphPagesAndFinds(t *testing.T) {
	var addrs []string
	deps := map[string][]string{}
	for i := 0; i < 1000; i++ {
		a := fmt.Sprintf("r%04d", i)
		addrs = append(addrs, a)
		if i%2 == 1 {
			deps[a] = []string{addrs[i-1]}
		}
	}
	h := newHarness(t, addrs, deps, func(o *Options) { o.HealthInterval = time.Hour })
	h.start()
	first := h.e.Graph(0, "")
	if len(first.Pages) < 3 || len(first.Nodes) > 400 || first.Total != 1000 {
		t.Fatalf("pages %d, nodes %d, total %d", len(first.Pages), len(first.Nodes), first.Total)
	}
	found := h.e.Graph(0, "r0999")
	if found.Page != len(first.Pages)-1 || !strings.Contains(found.SVG, `data-key="r0999"`) {
		t.Errorf("r0999 found on page %d of %d", found.Page, len(first.Pages))
	}
	if last := h.e.Graph(99, ""); last.Page != len(first.Pages)-1 {
		t.Errorf("page 99 clamped to %d", last.Page)
	}
}

// secretDriver fails the first create of db with an error that quotes the
// password, as a careless script would.
type secretDriver struct {
	*fakeDriver
	secret string
	failed bool
}

func (d *secretDriver) Apply(ctx context.Context, req executor.Request) (executor.Outcome, error) {
	if req.Address == "db" && req.Action == executor.ActionCreate && !d.failed {
		d.failed = true
		return executor.Outcome{}, errors.New("login with " + d.secret + " refused")
	}
	return d.fakeDriver.Apply(ctx, req)
}

// TestConsoleNeverShowsSecrets: a sensitive spec value, and an error that
// quotes it, reach no answer the console reads.
func TestConsoleNeverShowsSecrets(t *testing.T) {
	const secret = "hunter2-very-secret"
	h := newHarness(t, []string{"app", "db"}, map[string][]string{"app": {"db"}}, func(o *Options) { o.HealthInterval = time.Hour })
	drv := &secretDriver{fakeDriver: h.drv, secret: secret}
	h.stack.drv = executor.Registry{"fake": drv}
	h.stack.specs = map[string]string{"db": secret}
	inner := h.stack.goal
	h.e.opts.Goal = func(ctx context.Context) (*Goal, diag.Diagnostics, error) {
		g, d, err := inner(ctx)
		if g != nil {
			r, _ := g.Desired.Resource("db")
			r.Sensitive = []string{"v"}
			r.Spec["attributes"] = map[string]graph.Value{}
		}
		return g, d, err
	}
	h.start()
	srv := httptest.NewServer(Handler(h.e, APIOptions{}))
	defer srv.Close()
	read := func() string {
		var all strings.Builder
		for _, path := range []string{"/", "/v1/status", "/v1/graph", "/v1/history", "/v1/resources/db/detail", "/v1/resources/app/detail", "/v1/resources/db"} {
			code, _, body := send(t, srv, "GET", path, "", nil)
			if code != 200 {
				t.Errorf("GET %s: %d %s", path, code, body)
			}
			all.WriteString(body)
		}
		return all.String()
	}
	if got := read(); strings.Contains(got, secret) {
		t.Errorf("the console shows the secret after the failure:\n%s", got)
	}
	if h.status("db").LastError == "" {
		t.Fatal("db did not fail: the test tests nothing")
	}
	h.advanceTo(h.status("db").NextRetry.Add(time.Second))
	got := read()
	if strings.Contains(got, secret) {
		t.Errorf("the console shows the secret once db is applied:\n%s", got)
	}
	_, _, detail := send(t, srv, "GET", "/v1/resources/db/detail", "", nil)
	if !strings.Contains(detail, `"v": "(sensitive value)"`) {
		t.Errorf("db's spec is not shown masked:\n%s", detail)
	}
}

// TestAdoptRecordsADiscoveredInstance: a factory's discovered instance is
// adopted through the API as a configured resource the state does not
// record; the token is required, a second adoption is refused, and the
// instance leaves the factory's list.
func TestAdoptRecordsADiscoveredInstance(t *testing.T) {
	// vm waits on net, which cannot be created: vm is not recorded.
	h := newHarness(t, []string{"factory", "net", "vm"}, map[string][]string{"vm": {"net"}}, func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.stack.schedules = map[string]string{"factory": "*/10 * * * * ?"}
	h.drv.needs["net"] = true
	next := h.start()
	h.advanceTo(next)
	if rs := h.status("vm"); rs.Status != "not_created" {
		t.Fatalf("vm: %+v, want not created", rs)
	}
	srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret", WritesOnly: true}))
	defer srv.Close()
	_, _, detail := send(t, srv, "GET", "/v1/resources/factory/detail", "", nil)
	if !strings.Contains(detail, `"id": "i-handmade"`) {
		t.Fatalf("factory detail lists no instance:\n%s", detail)
	}
	json := map[string]string{"Content-Type": "application/json"}
	if code, _, body := send(t, srv, "POST", "/v1/resources/vm/adopt", `{"id":"i-handmade"}`, json); code != 401 {
		t.Errorf("adopt without the token: %d %s", code, body)
	}
	json["Authorization"] = "Bearer s3cret"
	type answer struct {
		code int
		body string
	}
	done := make(chan answer, 1)
	go func() {
		code, _, body := send(t, srv, "POST", "/v1/resources/vm/adopt", `{"id":"i-handmade"}`, json)
		done <- answer{code, body}
	}()
	h.wait()
	select {
	case a := <-done:
		if a.code != 200 {
			t.Fatalf("adopt: %d %s", a.code, a.body)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the adoption did not answer")
	}
	if rs := h.status("vm"); rs.Status == "not_created" {
		t.Errorf("vm after its adoption: %+v", rs)
	}
	st, _ := h.store.Read(context.Background())
	if r, ok := st.Lookup("vm"); !ok || r.Feedback.InstanceID != "i-handmade" {
		t.Errorf("vm recorded as %+v", r)
	}
	go func() {
		code, _, body := send(t, srv, "POST", "/v1/resources/vm/adopt", `{"id":"i-handmade"}`, json)
		done <- answer{code, body}
	}()
	h.wait()
	if a := <-done; a.code != http.StatusConflict {
		t.Errorf("a second adoption: %d %s, want 409", a.code, a.body)
	}
	if code, _, _ := send(t, srv, "POST", "/v1/resources/vm/adopt", `{}`, json); code != 400 {
		t.Errorf("adopt without an id: %d, want 400", code)
	}
}
