package sync

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	stdsync "sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

func request(t *testing.T, srv *httptest.Server, method, path, token string) (int, string) {
	t.Helper()
	header := map[string]string{}
	if token != "" {
		header["Authorization"] = "Bearer " + token
	}
	code, _, body := send(t, srv, method, path, "", header)
	return code, body
}

// TestAPITokenGuardsWritesAndNonLoopbackListeners: on loopback (writes
// only) a GET needs no token and a POST does; otherwise everything but
// the probes needs it. Unknown resources are 404, and readiness waits for
// a successful reconcile.
func TestAPITokenGuardsWritesAndNonLoopbackListeners(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	tests := []struct {
		writesOnly   bool
		method, path string
		token        string
		want         int
	}{
		{true, "GET", "/v1/status", "", 200},
		{true, "GET", "/readyz", "", 503},
		{true, "POST", "/v1/sync", "", 401},
		{true, "POST", "/v1/sync", "wrong", 401},
		{true, "POST", "/v1/sync", "s3cret", 202},
		{true, "POST", "/v1/resources/nope/check", "s3cret", 404},
		{true, "GET", "/v1/resources/nope", "", 404},
		{false, "GET", "/v1/status", "", 401},
		{false, "GET", "/metrics", "", 401},
		{false, "GET", "/metrics", "s3cret", 200},
		{false, "GET", "/healthz", "", 200},
		{false, "GET", "/readyz", "", 503},
	}
	for _, tc := range tests {
		srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret", WritesOnly: tc.writesOnly, Metrics: NewMetrics()}))
		code, body := request(t, srv, tc.method, tc.path, tc.token)
		srv.Close()
		if code != tc.want {
			t.Errorf("writes only %v: %s %s (token %q) = %d, want %d: %s", tc.writesOnly, tc.method, tc.path, tc.token, code, tc.want, body)
		}
		if strings.Contains(body, "s3cret") {
			t.Errorf("%s %s answers with the token", tc.method, tc.path)
		}
	}
}

// TestAPIAnswersWithStatusResourceAndEvents: the status and a resource
// with its activity after a reconcile, and the event stream.
func TestAPIAnswersWithStatusResourceAndEvents(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	h.start()
	srv := httptest.NewServer(Handler(h.e, APIOptions{Encode: func(ev Event) ([]byte, bool) {
		return []byte(`{"type":"` + ev.Type + `"}`), true
	}}))
	defer srv.Close()
	if code, body := request(t, srv, "GET", "/v1/status", ""); code != 200 || !strings.Contains(body, `"address": "db"`) || !strings.Contains(body, `"ready": true`) {
		t.Errorf("status %d: %s", code, body)
	}
	if code, body := request(t, srv, "GET", "/v1/resources/db", ""); code != 200 || !strings.Contains(body, `"type": "apply_complete"`) {
		t.Errorf("resource %d: %s", code, body)
	}
	if code, _ := request(t, srv, "GET", "/readyz", ""); code != 200 {
		t.Errorf("readyz %d after a successful reconcile", code)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/events", nil)
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	r := bufio.NewReader(resp.Body)
	if line, _ := r.ReadString('\n'); !strings.HasPrefix(line, ": ") {
		t.Fatalf("first line %q", line)
	}
	if err := h.e.Check("db"); err != nil {
		t.Fatal(err)
	}
	h.e.ConfigurationChanged("test")
	h.wait()
	var got []string
	for len(got) < 2 {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("reading events: %v (got %v)", err, got)
		}
		if strings.HasPrefix(line, "data: ") {
			got = append(got, strings.TrimSpace(line))
		}
	}
	if got[0] != `data: {"type":"reconcile_start"}` || got[1] != `data: {"type":"reconcile_end"}` {
		t.Errorf("events %v", got)
	}
}

// send makes one request with the given headers and body and returns its
// answer's status, headers and body.
func send(t *testing.T, srv *httptest.Server, method, path, body string, header map[string]string) (int, http.Header, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header, string(data)
}

// TestAPIRefusesBrowserPagesAndForms: whatever its token, a request from
// another origin is refused on every route, GETs included; a request to
// the loopback listener under another host name (DNS rebinding) too; a
// POST whose body is a form or text, not JSON, is refused. The API's own
// origin, on any loopback name, and a client that sends no Origin, pass.
func TestAPIRefusesBrowserPagesAndForms(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret", WritesOnly: true, Metrics: NewMetrics()}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	own := "http://127.0.0.1:" + strconv.Itoa(port)
	auth := "Bearer s3cret"
	tests := []struct {
		name         string
		method, path string
		body         string
		header       map[string]string
		want         int
	}{
		{"cross-site form", "POST", "/v1/sync", "x=1", map[string]string{"Origin": "http://evil", "Content-Type": "text/plain"}, 403},
		{"cross-site form with the token", "POST", "/v1/sync", "x=1", map[string]string{"Origin": "http://evil", "Content-Type": "text/plain", "Authorization": auth}, 403},
		{"cross-site check", "POST", "/v1/resources/db/check", "", map[string]string{"Origin": "http://evil", "Authorization": auth}, 403},
		{"cross-site read", "GET", "/v1/status", "", map[string]string{"Origin": "http://evil"}, 403},
		{"cross-site events", "GET", "/v1/events", "", map[string]string{"Origin": "http://evil"}, 403},
		{"cross-site probe", "GET", "/healthz", "", map[string]string{"Origin": "http://evil"}, 403},
		{"other local port", "GET", "/v1/status", "", map[string]string{"Origin": "http://127.0.0.1:1"}, 403},
		{"null origin", "GET", "/v1/status", "", map[string]string{"Origin": "null"}, 403},
		{"https origin", "GET", "/v1/status", "", map[string]string{"Origin": "https://127.0.0.1:" + strconv.Itoa(port)}, 403},
		{"rebound name", "GET", "/v1/status", "", map[string]string{"Host": "evil.example:" + strconv.Itoa(port)}, 403},
		{"rebound name with its origin", "POST", "/v1/sync", "", map[string]string{"Host": "evil.example:" + strconv.Itoa(port), "Origin": "http://evil.example:" + strconv.Itoa(port), "Authorization": auth}, 403},
		{"text body", "POST", "/v1/sync", "x", map[string]string{"Content-Type": "text/plain", "Authorization": auth}, 415},
		{"urlencoded body", "POST", "/v1/sync", "x=1", map[string]string{"Content-Type": "application/x-www-form-urlencoded", "Authorization": auth}, 415},
		{"multipart body", "POST", "/v1/sync", "--b--", map[string]string{"Content-Type": "multipart/form-data; boundary=b", "Authorization": auth}, 415},
		{"untyped body", "POST", "/v1/sync", "x", map[string]string{"Authorization": auth}, 415},
		{"own origin", "GET", "/v1/status", "", map[string]string{"Origin": own}, 200},
		{"own origin as localhost", "GET", "/v1/status", "", map[string]string{"Origin": "http://localhost:" + strconv.Itoa(port), "Host": "localhost:" + strconv.Itoa(port)}, 200},
		{"own origin posting JSON", "POST", "/v1/sync", "{}", map[string]string{"Origin": own, "Content-Type": "application/json; charset=utf-8", "Authorization": auth}, 202},
		{"no body, no origin", "POST", "/v1/sync", "", map[string]string{"Authorization": auth}, 202},
		{"no token", "POST", "/v1/sync", "", nil, 401},
		{"wrong token", "POST", "/v1/sync", "", map[string]string{"Authorization": "Bearer wrong"}, 401},
	}
	for _, tc := range tests {
		code, _, body := send(t, srv, tc.method, tc.path, tc.body, tc.header)
		if code != tc.want {
			t.Errorf("%s: %s %s = %d, want %d: %s", tc.name, tc.method, tc.path, code, tc.want, body)
		}
	}

	// Where every request needs the token (a listener beyond loopback),
	// the machine's own name for itself (web-1, often 127.0.1.1) is
	// fine, and the origin must be that name.
	all := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret"}))
	defer all.Close()
	host := "web-1:" + strconv.Itoa(all.Listener.Addr().(*net.TCPAddr).Port)
	for _, tc := range []struct {
		header map[string]string
		want   int
	}{
		{map[string]string{"Host": host, "Authorization": auth}, 200},
		{map[string]string{"Host": host, "Origin": "http://" + host, "Authorization": auth}, 200},
		{map[string]string{"Host": host, "Origin": "http://evil:" + strconv.Itoa(all.Listener.Addr().(*net.TCPAddr).Port), "Authorization": auth}, 403},
		{map[string]string{"Host": host}, 401},
	} {
		if code, _, body := send(t, all, "GET", "/v1/status", "", tc.header); code != tc.want {
			t.Errorf("token for all, %v: %d, want %d: %s", tc.header, code, tc.want, body)
		}
	}
}

// TestEventsFollowTheRuleOfTheOtherReads: GET /v1/events is open where
// the other GETs are (loopback, writes only) and needs the token where
// they do.
func TestEventsFollowTheRuleOfTheOtherReads(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	for _, tc := range []struct {
		writesOnly bool
		token      string
		want       int
	}{{true, "", 200}, {false, "", 401}, {false, "wrong", 401}, {false, "s3cret", 200}} {
		srv := httptest.NewServer(Handler(h.e, APIOptions{Token: "s3cret", WritesOnly: tc.writesOnly, Encode: encodeType}))
		resp := openStream(t, srv, tc.token)
		if resp.StatusCode != tc.want {
			t.Errorf("writes only %v, token %q: events %d, want %d", tc.writesOnly, tc.token, resp.StatusCode, tc.want)
		}
		resp.Body.Close()
		srv.Close()
	}
}

func encodeType(ev Event) ([]byte, bool) { return []byte(`{"type":"` + ev.Type + `"}`), true }

// openStream asks for GET /v1/events and, when it is served, reads its
// first line, so that the stream is open when it returns. The caller
// closes the body.
func openStream(t testing.TB, srv *httptest.Server, token string) *http.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req, err := http.NewRequestWithContext(ctx, "GET", srv.URL+"/v1/events", nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		cancel()
		t.Fatalf("events: %v", err)
	}
	if resp.StatusCode == http.StatusOK {
		if line, err := bufio.NewReader(resp.Body).ReadString('\n'); err != nil || !strings.HasPrefix(line, ": ") {
			t.Fatalf("first line of the stream %q: %v", line, err)
		}
	}
	resp.Body = closeWith{resp.Body, cancel}
	return resp
}

type closeWith struct {
	io.ReadCloser
	cancel context.CancelFunc
}

func (c closeWith) Close() error {
	c.cancel()
	return c.ReadCloser.Close()
}

// subscribers is how many event subscriptions the engine serves.
func (e *Engine) subscribers() int {
	e.events.mu.Lock()
	defer e.events.mu.Unlock()
	return len(e.events.subs)
}

// TestEventStreamsAreCapped: past MaxEventStreams open streams, one more
// is refused with 429 and a Retry-After, without a subscription; once one
// closes, a new one is served.
func TestEventStreamsAreCapped(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	srv := httptest.NewServer(Handler(h.e, APIOptions{Encode: encodeType, MaxEventStreams: 3}))
	defer srv.Close()
	var open []*http.Response
	for range 3 {
		resp := openStream(t, srv, "")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d refused: %d", len(open)+1, resp.StatusCode)
		}
		open = append(open, resp)
	}
	code, header, body := send(t, srv, "GET", "/v1/events", "", nil)
	if code != http.StatusTooManyRequests || header.Get("Retry-After") == "" || !strings.Contains(body, "too many event streams") {
		t.Errorf("stream past the cap: %d, Retry-After %q: %s", code, header.Get("Retry-After"), body)
	}
	if n := h.e.subscribers(); n != 3 {
		t.Errorf("%d subscriptions with 3 streams open", n)
	}
	open[0].Body.Close()
	testutil.WaitFor(t, 30*time.Second, "a stream served after one closed", func() bool {
		resp := openStream(t, srv, "")
		defer resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	})
	for _, resp := range open[1:] {
		resp.Body.Close()
	}
}

// TestRefusedEventStreamsCostNothing: with the cap's streams open, 4,000
// more requests are all refused, leave the subscriptions at the cap and
// the heap where it was (figures in the log).
func TestRefusedEventStreamsCostNothing(t *testing.T) {
	h := newHarness(t, []string{"db"}, nil, func(o *Options) { o.HealthInterval = time.Hour })
	srv := httptest.NewServer(Handler(h.e, APIOptions{Encode: encodeType}))
	defer srv.Close()
	srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	var open []*http.Response
	for range DefaultMaxEventStreams {
		open = append(open, openStream(t, srv, ""))
	}
	defer func() {
		for _, resp := range open {
			resp.Body.Close()
		}
	}()
	before := heapInUse()
	refused := stormStreams(t, srv, 4000)
	after := heapInUse()
	t.Logf("4,000 stream requests past the cap of %d: %d refused; heap in use %.1f → %.1f MiB", DefaultMaxEventStreams, refused, mib(before), mib(after))
	if refused != 4000 {
		t.Errorf("%d of 4,000 requests past the cap were refused", refused)
	}
	if n := h.e.subscribers(); n != DefaultMaxEventStreams {
		t.Errorf("%d subscriptions after the storm, want %d", n, DefaultMaxEventStreams)
	}
	// A subscription and its stream cost a few KiB each; 4,000 of them
	// would be tens of MiB.
	if after > before+16<<20 {
		t.Errorf("heap grew from %.1f to %.1f MiB with refused streams", mib(before), mib(after))
	}
}

// stormStreams asks for n event streams, 64 at a time, and returns how
// many were refused with 429.
func stormStreams(t testing.TB, srv *httptest.Server, n int) int {
	var refused atomic.Int64
	var wg stdsync.WaitGroup
	work := make(chan struct{})
	for range 64 {
		wg.Go(func() {
			for range work {
				resp := openStream(t, srv, "")
				if resp.StatusCode == http.StatusTooManyRequests {
					refused.Add(1)
					// Read to the end, so that the connection is reused.
					_, _ = io.Copy(io.Discard, resp.Body)
				}
				resp.Body.Close()
			}
		})
	}
	for range n {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	return int(refused.Load())
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

func mib(n uint64) float64 { return float64(n) / (1 << 20) }

// BenchmarkRefusedEventStream: the cost of a stream request past the
// cap, with the cap's streams open.
func BenchmarkRefusedEventStream(b *testing.B) {
	srv := httptest.NewServer(Handler(New(Options{}), APIOptions{Encode: encodeType}))
	defer srv.Close()
	srv.Client().Transport.(*http.Transport).MaxIdleConnsPerHost = 64
	var open []*http.Response
	for range DefaultMaxEventStreams {
		open = append(open, openStream(b, srv, ""))
	}
	before := heapInUse()
	b.ResetTimer()
	refused := stormStreams(b, srv, b.N)
	b.StopTimer()
	b.ReportMetric(mib(heapInUse())-mib(before), "heap-MiB-growth")
	if refused != b.N {
		b.Errorf("%d of %d refused", refused, b.N)
	}
	for _, resp := range open {
		resp.Body.Close()
	}
}
