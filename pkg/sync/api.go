package sync

import (
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"strings"
	"time"
)

// APIOptions configure Handler.
type APIOptions struct {
	// Token, when set, is required (Authorization: Bearer TOKEN) on every
	// request but GET /healthz and GET /readyz, or, with WritesOnly, on
	// every request that is not a GET.
	Token      string
	WritesOnly bool
	// Encode renders an event as one JSON line for GET /v1/events; false
	// leaves it out. The caller passes the encoding `apply --json`
	// prints, so that both streams are the same.
	Encode func(Event) ([]byte, bool)
	// Metrics are served on GET /metrics when set.
	Metrics *Metrics
	// Heartbeat is how often GET /v1/events sends a comment to keep the
	// connection open (default 15 s).
	Heartbeat time.Duration
	// Reconcile and Check, when set, take POST /v1/sync and POST
	// /v1/resources/{addr}/check instead of the engine (a cluster member
	// that does not lead passes them on to the leader).
	Reconcile func(reason string)
	Check     func(addr string) error
}

// Handler serves the engine's API:
//
//	GET  /healthz                       200 while the process runs
//	GET  /readyz                        200 once a reconcile succeeded, 503 before
//	GET  /v1/status                     Status
//	GET  /v1/resources/{addr}           ResourceStatus with its activity log (404: unknown)
//	GET  /v1/events                     server-sent events, one JSON event per message
//	POST /v1/sync                       ask for a reconcile (202)
//	POST /v1/resources/{addr}/check     ask for the resource's health check (202; 404: not recorded)
//	GET  /metrics                       Prometheus metrics
//
// Errors are JSON objects {"error": "…"}.
func Handler(e *Engine, opts APIOptions) http.Handler {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	reconcile, check := opts.Reconcile, opts.Check
	if reconcile == nil {
		reconcile = e.ConfigurationChanged
	}
	if check == nil {
		check = e.Check
	}
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		st := e.Status()
		// A cluster member that does not lead is ready once a member
		// leads: its work comes from there.
		if !st.Ready && !(st.Cluster != nil && st.Cluster.Role == RoleFollower && st.Cluster.Leader != "") {
			writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not ready", "last_outcome": st.LastOutcome})
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
	})
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, e.Status())
	})
	mux.HandleFunc("GET /v1/resources/{addr}", func(w http.ResponseWriter, r *http.Request) {
		rs, ok := e.Resource(r.PathValue("addr"))
		if !ok {
			writeError(w, http.StatusNotFound, "no such resource")
			return
		}
		writeJSON(w, http.StatusOK, rs)
	})
	mux.HandleFunc("POST /v1/sync", func(w http.ResponseWriter, _ *http.Request) {
		reconcile("api")
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "reconcile requested"})
	})
	mux.HandleFunc("POST /v1/resources/{addr}/check", func(w http.ResponseWriter, r *http.Request) {
		if err := check(r.PathValue("addr")); err != nil {
			writeError(w, http.StatusNotFound, err.Error())
			return
		}
		writeJSON(w, http.StatusAccepted, map[string]string{"status": "check requested"})
	})
	mux.HandleFunc("GET /v1/events", func(w http.ResponseWriter, r *http.Request) {
		serveEvents(w, r, e, opts)
	})
	if opts.Metrics != nil {
		mux.Handle("GET /metrics", opts.Metrics.Handler())
	}
	return guard(mux, opts)
}

// guard checks the token where one is required.
func guard(next http.Handler, opts APIOptions) http.Handler {
	if opts.Token == "" {
		return next
	}
	want := []byte("Bearer " + opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		open := r.Method == http.MethodGet && (opts.WritesOnly || r.URL.Path == "/healthz" || r.URL.Path == "/readyz")
		if !open && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="xosplan sync"`)
			writeError(w, http.StatusUnauthorized, "a valid token is required (Authorization: Bearer TOKEN, the content of --api-token-file)")
			return
		}
		next.ServeHTTP(w, r)
	})
}

func serveEvents(w http.ResponseWriter, r *http.Request, e *Engine, opts APIOptions) {
	flusher, ok := w.(http.Flusher)
	if !ok || opts.Encode == nil {
		writeError(w, http.StatusNotImplemented, "streaming is not supported")
		return
	}
	events, stop := e.Subscribe()
	defer stop()
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(": xosplan sync events\n\n"))
	flusher.Flush()
	beat := time.NewTicker(opts.Heartbeat)
	defer beat.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-beat.C:
			if _, err := w.Write([]byte(": keep-alive\n\n")); err != nil {
				return
			}
		case ev := <-events:
			line, ok := opts.Encode(ev)
			if !ok {
				continue
			}
			msg := "event: " + ev.Type + "\ndata: " + strings.TrimRight(string(line), "\n") + "\n\n"
			if _, err := w.Write([]byte(msg)); err != nil {
				return
			}
		}
		flusher.Flush()
	}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, code int, msg string) {
	writeJSON(w, code, map[string]string{"error": msg})
}
