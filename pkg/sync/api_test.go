package sync

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func request(t *testing.T, srv *httptest.Server, method, path, token string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
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
