package sync

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/browsertest"
	"github.com/xosplan/xosplan/internal/testutil"
)

// runFree runs the harness's engine without the idle handshake, as a
// service runs it, until the test ends.
func (h *harness) runFree() {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.e.Run(ctx) }()
	h.t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			h.t.Errorf("Run: %v", err)
		}
	})
}

// pageNodes is a JavaScript expression: the graph's nodes as
// "address=status" lines.
const pageNodes = `[...document.querySelectorAll('#graph a.node')].map(a => a.getAttribute('data-key') + '=' + a.querySelector('.state').textContent).sort().join('\n')`

// TestBrowserConsoleShowsEveryResourceAndLiveStatus: in Chromium, the
// console of a running synchronizer draws every resource with its status
// (the graph and the table agree with the engine), every control has an
// accessible name, and a status change a health check finds appears
// without a reload.
func TestBrowserConsoleShowsEveryResourceAndLiveStatus(t *testing.T) {
	h := newHarness(t, []string{"app", "cache", "db", "web"}, map[string][]string{"app": {"db", "cache"}, "web": {"app"}},
		func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.drv.fail["cache"] = 1
	h.runFree()
	testutil.WaitFor(t, 30*time.Second, "the first reconcile", func() bool { return h.e.Status().Reconciles > 0 })
	srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret", WritesOnly: true, Encode: encodeType}))
	t.Cleanup(srv.Close)
	// Started after the server, the browser stops before it: its event
	// stream ends first.
	ctx := browsertest.Start(t, 2*time.Minute)

	browsertest.Navigate(t, ctx, srv.URL+"/")
	browsertest.Until(t, ctx, 20*time.Second, "the graph of 4 resources", `document.querySelectorAll('#graph a.node').length === 4 && document.querySelectorAll('#resources tbody tr').length === 4`, pageNodes)
	var want []string
	for _, rs := range h.e.Status().Resources {
		want = append(want, rs.Address+"="+ConsoleStatus(rs))
	}
	if got := browsertest.Eval[string](t, ctx, pageNodes); got != strings.Join(want, "\n") {
		t.Errorf("the graph shows\n%s\nwant\n%s", got, strings.Join(want, "\n"))
	}
	rows := browsertest.Eval[string](t, ctx, `[...document.querySelectorAll('#resources tbody tr')].map(r => r.cells[0].textContent + '=' + r.cells[2].textContent).join('\n')`)
	if rows != strings.Join(want, "\n") {
		t.Errorf("the table shows\n%s\nwant\n%s", rows, strings.Join(want, "\n"))
	}
	unnamed := browsertest.Eval[string](t, ctx, `[
		...[...document.querySelectorAll('input, select')].filter(i => !(i.labels && i.labels.length) && !i.getAttribute('aria-label')).map(i => i.id),
		...[...document.querySelectorAll('button')].filter(b => !b.textContent.trim()).map(b => b.id),
		...[...document.querySelectorAll('#graph a.node')].filter(a => !a.getAttribute('aria-label') || !a.getAttribute('href')).map(a => a.getAttribute('data-key')),
	].join(',')`)
	if unnamed != "" {
		t.Errorf("controls without an accessible name: %s", unnamed)
	}
	browsertest.Screenshot(t, ctx, "console.png")

	// A health check finds db converging; the page, not reloaded, shows it.
	browsertest.Eval[bool](t, ctx, `(window.notReloaded = true)`)
	h.drv.mu.Lock()
	h.drv.converging["db"] = true
	h.drv.mu.Unlock()
	if err := h.e.Check("db"); err != nil {
		t.Fatal(err)
	}
	browsertest.Until(t, ctx, 20*time.Second, "db shown converging",
		`document.querySelector('#graph a.node[data-key="db"]').classList.contains('st-converging') && document.querySelector('#graph a.node[data-key="db"] .state').textContent === 'converging'`, pageNodes)
	if !browsertest.Eval[bool](t, ctx, `window.notReloaded === true && document.body.getAttribute('data-live') === 'events'`) {
		t.Error("the page was reloaded, or did not follow the event stream")
	}
	// The keyboard reaches a node and opens its page.
	browsertest.Press(t, ctx, `#graph a.node[data-key="db"]`, "\r")
	browsertest.Until(t, ctx, 20*time.Second, "db's page", `document.getElementById('res-title').textContent === 'db' && document.activeElement.id === 'res-title' && document.getElementById('res-body').textContent.includes('converging')`,
		`document.getElementById('res-body').textContent`)
	browsertest.Screenshot(t, ctx, "resource.png")
}

// TestBrowserAdoptAndCheckNeedTheToken: in Chromium, Adopt on a factory's
// page and Check now on a resource's are refused until the token is
// given, which the page asks for once and keeps for the tab.
func TestBrowserAdoptAndCheckNeedTheToken(t *testing.T) {
	h := newHarness(t, []string{"factory", "net", "vm"}, map[string][]string{"vm": {"net"}}, func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.stack.schedules = map[string]string{"factory": "*/10 * * * * ?"}
	h.drv.needs["net"] = true
	h.runFree()
	testutil.WaitFor(t, 30*time.Second, "the first reconcile", func() bool { return h.e.Status().Reconciles > 0 })
	h.clock.set(clockStart.Add(10 * time.Second))
	testutil.WaitFor(t, 30*time.Second, "the factory's discovery", func() bool { return h.status("factory").Discovered != nil })
	srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret", WritesOnly: true, Encode: encodeType}))
	t.Cleanup(srv.Close)
	// Started after the server, the browser stops before it: its event
	// stream ends first.
	ctx := browsertest.Start(t, 2*time.Minute)
	live := `document.getElementById('live').textContent`

	browsertest.Navigate(t, ctx, srv.URL+"/#/resource/factory")
	browsertest.Until(t, ctx, 20*time.Second, "the discovered instance", `document.querySelector('button.adopt') !== null`, `document.getElementById('res-body').textContent`)
	browsertest.Type(t, ctx, "#adopt-as-0", "vm")
	browsertest.Click(t, ctx, "button.adopt")
	browsertest.Until(t, ctx, 20*time.Second, "the token dialog", `document.getElementById('token-dialog').open`, live)
	browsertest.Screenshot(t, ctx, "token.png")
	browsertest.Click(t, ctx, "#token-cancel")
	browsertest.Until(t, ctx, 20*time.Second, "the refusal", live+`.startsWith('Adopt: refused')`, live)
	if _, ok := h.e.Resource("vm"); ok && h.status("vm").Status != "not_created" {
		t.Fatal("vm was adopted without the token")
	}

	browsertest.Click(t, ctx, "button.adopt")
	browsertest.Until(t, ctx, 20*time.Second, "the token dialog", `document.getElementById('token-dialog').open`, live)
	browsertest.Type(t, ctx, "#token-input", "s3cret")
	browsertest.Click(t, ctx, "#token-ok")
	browsertest.Until(t, ctx, 30*time.Second, "the adoption", live+` === 'Adopted i-handmade as vm.'`, live)
	st, err := h.store.Read(context.Background())
	if r, ok := st.Lookup("vm"); err != nil || !ok || r.Feedback.InstanceID != "i-handmade" {
		t.Fatalf("vm is not recorded as i-handmade: %+v %v", r, err)
	}
	if got := browsertest.Eval[string](t, ctx, `sessionStorage.getItem('xosplan-sync-token')`); got != "s3cret" {
		t.Errorf("the tab keeps the token as %q", got)
	}

	// Check now: the kept token serves; forgotten, the check is refused.
	browsertest.Until(t, ctx, 20*time.Second, "vm's page", `document.getElementById('res-title').textContent === 'vm' && document.getElementById('check-now') !== null`, `location.hash`)
	before := len(h.drv.callsOf("vm", "health"))
	browsertest.Click(t, ctx, "#check-now")
	browsertest.Until(t, ctx, 20*time.Second, "the check requested", live+` === 'Health check of vm requested.'`, live)
	testutil.WaitFor(t, 30*time.Second, "vm's health check", func() bool { return len(h.drv.callsOf("vm", "health")) > before })
	browsertest.Click(t, ctx, "#forget-token")
	browsertest.Until(t, ctx, 20*time.Second, "Check now again", `document.getElementById('check-now') !== null && document.getElementById('forget-token').hidden`, live)
	browsertest.Click(t, ctx, "#check-now")
	browsertest.Until(t, ctx, 20*time.Second, "the token dialog", `document.getElementById('token-dialog').open`, live)
	browsertest.Click(t, ctx, "#token-cancel")
	browsertest.Until(t, ctx, 20*time.Second, "the refusal", live+`.startsWith('Check now: refused')`, live)
}

// TestBrowserConsoleShowsDiagnostics: in Chromium, the console of a
// synchronizer whose configuration does not compile shows its
// diagnostics.
func TestBrowserConsoleShowsDiagnostics(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.stack.errs = true
	h.runFree()
	testutil.WaitFor(t, 30*time.Second, "the first reconcile", func() bool { return h.e.Status().Reconciles > 0 })
	srv := httptest.NewServer(Handler(h.e, APIOptions{Encode: encodeType}))
	t.Cleanup(srv.Close)
	ctx := browsertest.Start(t, time.Minute)
	browsertest.Navigate(t, ctx, srv.URL+"/")
	browsertest.Until(t, ctx, 20*time.Second, "the diagnostics", `!document.getElementById('diagnostics').hidden && document.getElementById('diag-list').textContent.includes('error test.bad: broken')`,
		`document.getElementById('diagnostics').outerHTML`)
}

// TestBrowserConsoleAsksForTheTokenWhereReadsNeedIt: where every request
// needs the token (a listener beyond loopback), the console asks for it
// once, for all the reads refused together, then shows the graph and
// follows the event stream.
func TestBrowserConsoleAsksForTheTokenWhereReadsNeedIt(t *testing.T) {
	h := newHarness(t, []string{"app", "db"}, map[string][]string{"app": {"db"}}, func(o *Options) { o.HealthInterval = 100 * time.Hour })
	h.runFree()
	testutil.WaitFor(t, 30*time.Second, "the first reconcile", func() bool { return h.e.Status().Reconciles > 0 })
	srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret", Encode: encodeType}))
	t.Cleanup(srv.Close)
	ctx := browsertest.Start(t, time.Minute)
	browsertest.Navigate(t, ctx, srv.URL+"/")
	browsertest.Until(t, ctx, 20*time.Second, "the token dialog", `document.getElementById('token-dialog').open`, `document.body.outerHTML`)
	browsertest.Type(t, ctx, "#token-input", "s3cret")
	browsertest.Click(t, ctx, "#token-ok")
	browsertest.Until(t, ctx, 20*time.Second, "the graph and the event stream", `document.querySelectorAll('#graph a.node').length === 2 && document.body.getAttribute('data-live') === 'events' && !document.getElementById('token-dialog').open`,
		`document.body.getAttribute('data-live') + ' ' + document.getElementById('summary').textContent`)
	if s := browsertest.Eval[string](t, ctx, `document.getElementById('summary').textContent`); !strings.HasPrefix(s, "Ready") {
		t.Errorf("summary %q", s)
	}
}
