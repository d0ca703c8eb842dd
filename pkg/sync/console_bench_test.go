package sync

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/browsertest"
	"github.com/xosplan/xosplan/pkg/graph"
	"github.com/xosplan/xosplan/pkg/state"
)

// consoleEngine returns an engine (not running) whose configuration and
// state hold n resources: stacks of ten in a chain, every tenth stack
// also on r00000, every seventh resource failed and every eleventh not
// created: what the console of a large synchronizer shows.
func consoleEngine(n int) *Engine {
	g := graph.New()
	st := &state.State{}
	drv := graph.Driver{Name: "fake", Operations: map[string]graph.Operation{graph.OpLaunch: {Implementation: "/l"}, graph.OpHealthCheck: {Implementation: "/h"}}}
	for i := range n {
		addr := fmt.Sprintf("stack%04d.r%05d", i/10, i)
		_ = g.AddResource(&graph.Resource{Address: addr, Type: "Compute", Management: graph.Managed, Driver: drv,
			Spec: map[string]graph.Value{"size": int64(i)}})
		var deps []string
		switch {
		case i%10 != 0:
			deps = []string{fmt.Sprintf("stack%04d.r%05d", (i-1)/10, i-1)}
		case i > 0 && i%100 == 0:
			deps = []string{"stack0000.r00000"}
		}
		for _, d := range deps {
			_ = g.AddEdge(graph.Edge{Source: addr, Target: d, Kind: graph.DependsOn})
		}
		if i%11 == 5 {
			continue
		}
		r := state.Resource{Address: addr, Type: "Compute", Management: graph.Managed, Driver: drv, Dependencies: deps,
			Spec: map[string]graph.Value{"size": int64(i)}}
		r.Feedback.BackendCode, r.Feedback.Status.Active = state.BackendOK, true
		if i%7 == 3 {
			r.Feedback.BackendCode, r.Feedback.Status = state.BackendError, state.Status{Failed: true, Message: "the cloud said no"}
		}
		st.Resources = append(st.Resources, r)
	}
	e := New(Options{})
	e.goal = &Goal{Desired: g}
	e.recorded = st
	e.track(st, time.Now())
	return e
}

// firstPaint makes the requests the console's first paint makes: the
// page, its assets, the status summary, the first page of the graph and
// the history.
func firstPaint(tb testing.TB, h http.Handler) int {
	size := 0
	for _, path := range []string{"/", "/assets/console.js", "/assets/console.css", "/assets/graph.css", "/v1/status?resources=none", "/v1/graph?page=0", "/v1/history"} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if rec.Code != 200 {
			tb.Fatalf("GET %s: %d %s", path, rec.Code, rec.Body)
		}
		size += rec.Body.Len()
	}
	return size
}

// BenchmarkConsoleFirstPaint10000 is the server's side of the first paint
// of a 10,000-resource console: every answer the page asks for before it
// draws, the layout of the graph's first page included. Target: well
// under 2 s (the whole first paint, browser included, is measured once by
// TestBrowserConsoleFirstPaint10000).
func BenchmarkConsoleFirstPaint10000(b *testing.B) {
	e := consoleEngine(10_000)
	h := Handler(e, APIOptions{})
	b.ReportAllocs()
	var size int
	for b.Loop() {
		size = firstPaint(b, h)
	}
	b.ReportMetric(float64(size)/1024, "KiB")
}

// TestBrowserConsoleFirstPaint10000 opens the console of 10,000 resources
// in Chromium and logs how long the first paint took, from the request to
// the graph's first page and its table drawn (logged, not asserted:
// timings are benchmarks' business).
func TestBrowserConsoleFirstPaint10000(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the 10,000-resource console is not drawn")
	}
	e := consoleEngine(10_000)
	srv := httptest.NewServer(Handler(e, APIOptions{}))
	t.Cleanup(srv.Close)
	ctx := browsertest.Start(t, 2*time.Minute)
	// The browser's own start (its first tab) is not the console's.
	browsertest.Navigate(t, ctx, "about:blank")
	start := time.Now()
	browsertest.Navigate(t, ctx, srv.URL+"/")
	browsertest.Until(t, ctx, time.Minute, "the first page of the graph",
		`document.querySelectorAll('#graph a.node').length > 0 && document.querySelectorAll('#resources tbody tr').length === document.querySelectorAll('#graph a.node').length && !document.getElementById('pager').hidden`,
		`document.getElementById('graph-title').textContent`)
	t.Logf("first paint of a 10,000-resource console in Chromium: %s (%s)", time.Since(start).Round(time.Millisecond),
		browsertest.Eval[string](t, ctx, `document.getElementById('graph-title').textContent + '; ' + document.querySelectorAll('#page-select option').length + ' pages'`))
	if got := browsertest.Eval[string](t, ctx, `document.getElementById('outside').textContent`); !strings.HasSuffix(got, "dependencies link this page's resources to resources on other pages (not drawn).") {
		t.Errorf("the first page, cut from a part of 1,000 resources, says %q of the edges it does not draw", got)
	}
	browsertest.Screenshot(t, ctx, "console-10000.png")
}
