// Package browsertest runs Debian's Chromium headless for the tests of
// the pages xosplan serves and writes (the synchronizer's console, the
// HTML plan), driven through the DevTools protocol by chromedp, the Go
// ecosystem's standard driver. It is for tests only
// (internal/layering). A test that needs a browser skips, saying why,
// where none is installed (`make test-deps` installs Debian's chromium).
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Width and Height are the browser window's size: what screenshots show.
const (
	Width  = 1100
	Height = 760
)

// Path returns the Chromium to run: $XOSPLAN_CHROMIUM, or the first of
// chromium, chromium-browser and google-chrome on PATH; "" when none is.
func Path() string {
	if p := os.Getenv("XOSPLAN_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// Start starts a headless Chromium (skipping t when there is none) and
// returns a tab's context, which ends after limit: every action of the
// test is bounded by it. The browser is stopped when the test ends.
func Start(t testing.TB, limit time.Duration) context.Context {
	t.Helper()
	path := Path()
	if path == "" {
		t.Skip("no Chromium: install Debian's chromium (make test-deps) or set XOSPLAN_CHROMIUM to run the browser tests")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(Width, Height),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("headless", "new"),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.Flag("no-first-run", true),
	)
	if os.Geteuid() == 0 {
		// Chromium refuses to run as root inside its sandbox.
		opts = append(opts, chromedp.NoSandbox)
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(alloc)
	ctx, cancelTime := context.WithTimeout(ctx, limit)
	t.Cleanup(func() {
		cancelTime()
		cancelTab()
		cancelAlloc()
	})
	// Start the browser now, so that a failure to start is reported as such.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", path, err)
	}
	return ctx
}

// run runs actions in the tab ctx, failing t with what was being done.
func run(t testing.TB, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Navigate opens url in the tab ctx.
func Navigate(t testing.TB, ctx context.Context, url string) {
	t.Helper()
	run(t, ctx, "opening "+url, chromedp.Navigate(url))
}

// Click clicks the first element css selects, once it is visible. A
// page that renders again on its own (the console refreshes) may replace
// the element between the query and the click; the click never reached
// the page then (the node is looked up before any mouse event), so it is
// tried again, at most clickTries times.
func Click(t testing.TB, ctx context.Context, css string) {
	t.Helper()
	var err error
	for range clickTries {
		if err = chromedp.Do(ctx, chromedp.Click(chromedp.CSS(css))); err == nil || !replaced(err) {
			break
		}
	}
	if err != nil {
		t.Fatalf("clicking %s: %v", css, err)
	}
}

// clickTries bounds Click's attempts at an element the page keeps
// replacing.
const clickTries = 5

// replaced reports whether err says the node a query found is gone from
// the page (Chrome's "Could not find node with given id", "No node with
// given id found", "Node is detached from document").
func replaced(err error) bool {
	msg := err.Error()
	return strings.Contains(msg, "node with given id") || strings.Contains(msg, "Node is detached")
}

// Type types text into the first element css selects.
func Type(t testing.TB, ctx context.Context, css, text string) {
	t.Helper()
	run(t, ctx, "typing into "+css, chromedp.SendKeys(chromedp.CSS(css), text))
}

// Press focuses the first element css selects and presses key ("\r":
// Enter) on it, as a keyboard user does.
func Press(t testing.TB, ctx context.Context, css, key string) {
	t.Helper()
	run(t, ctx, "pressing a key on "+css, chromedp.Focus(chromedp.CSS(css)), chromedp.KeyEvent(key))
}

// Screenshot writes a PNG of the page to path when $XOSPLAN_SCREENSHOTS
// names a folder (path is then relative to it): the screenshots kept in
// docs/img are made so.
func Screenshot(t testing.TB, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv("XOSPLAN_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("taking a screenshot: %v", err)
	}
	if err := os.WriteFile(dir+"/"+name, png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// Eval evaluates a JavaScript expression in the page and returns its
// value, failing t when it throws.
func Eval[T any](t testing.TB, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// Until waits, at most limit, for a JavaScript expression to be true in
// the page, evaluating it every 50 ms through the DevTools protocol (not
// in the page, whose Content-Security-Policy forbids evaluating text),
// and fails t with what was awaited and the value of diag (a JavaScript
// expression describing the page) when it is not.
func Until(t testing.TB, ctx context.Context, limit time.Duration, what, expr, diag string) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("!!("+expr+")"))
		if err == nil && ok {
			return
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			seen := ""
			if diag != "" {
				seen, _ = chromedp.Run(ctx, chromedp.Evaluate[string](diag))
			}
			t.Fatalf("waiting %s for %s (last error %v; page: %s)", limit, what, err, seen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
