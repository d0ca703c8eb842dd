package sync

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxEventStreams is how many GET /v1/events streams are served at
// once unless APIOptions.MaxEventStreams says otherwise.
const DefaultMaxEventStreams = 64

// eventStreamRetryAfter is the Retry-After, in seconds, of a stream
// refused because MaxEventStreams are open.
const eventStreamRetryAfter = 5

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
	// Resync, when set, takes POST /v1/resources/{addr}/resync instead of
	// the engine (a cluster member that does not lead refuses it).
	Resync func(addr string) error
	// Adopt, when set, takes POST /v1/resources/{addr}/adopt instead of
	// the engine's Adopt (a member that does not lead refuses it).
	Adopt func(ctx context.Context, addr, id string) error
	// MaxEventStreams bounds the GET /v1/events streams open at once
	// (default DefaultMaxEventStreams); one more is refused with 429 and
	// a Retry-After before it costs a subscription.
	MaxEventStreams int
}

// Handler serves the engine's API:
//
//	GET  /healthz                       200 while the process runs
//	GET  /readyz                        200 once a reconcile succeeded, 503 before
//	GET  /v1/status                     Status (?resources=none: without its resources)
//	GET  /v1/resources/{addr}           ResourceStatus with its activity log (404: unknown)
//	GET  /v1/events                     server-sent events, one JSON event per message
//	POST /v1/sync                       ask for a reconcile (202)
//	POST /v1/resources/{addr}/check     ask for the resource's health check (202; 404: not recorded)
//	POST /v1/resources/{addr}/resync    save it without change (XOS), so that it is actuated again (202; 404: not recorded)
//	POST /v1/resources/{addr}/feedback  record an observation as its feedback (202; see serveFeedback)
//	GET  /metrics                       Prometheus metrics
//
// and the web console (consoleweb.go), whose page and assets need no
// token (they hold no data; what they read does):
//
//	GET  /                              the console (console.html, with assets/console.js and .css)
//	GET  /v1/graph?page=N&find=ADDR     one page of the dependency graph as SVG, with its resources (GraphPage)
//	GET  /v1/history                    the last reconciles and the drift found (History)
//	GET  /v1/resources/{addr}/detail    the resource's spec, feedback, waits, schedule and activity, secrets masked
//	POST /v1/resources/{addr}/adopt     {"id": ID}: adopt a discovered instance as addr (200; Adopt's errors 404, 409, 422)
//
// Errors are JSON objects {"error": "…"}.
//
// Before the token, every request passes the browser checks (see
// sameOrigin): a request with a foreign Origin, one addressed to a
// loopback listener under another name (DNS rebinding), and a POST whose
// body is not JSON (a cross-site form can send only text/plain,
// urlencoded and multipart bodies) are refused with 403 or 415.
func Handler(e *Engine, opts APIOptions) http.Handler {
	if opts.Heartbeat <= 0 {
		opts.Heartbeat = 15 * time.Second
	}
	if opts.MaxEventStreams <= 0 {
		opts.MaxEventStreams = DefaultMaxEventStreams
	}
	streams := make(chan struct{}, opts.MaxEventStreams)
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
	resync := opts.Resync
	if resync == nil {
		resync = e.Resync
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
	mux.HandleFunc("GET /v1/status", func(w http.ResponseWriter, r *http.Request) {
		// resources=none: the console's summary; the resources come a
		// page at a time from /v1/graph.
		writeJSON(w, http.StatusOK, e.status(r.URL.Query().Get("resources") != "none"))
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
	mux.HandleFunc("POST /v1/resources/{addr}/resync", func(w http.ResponseWriter, r *http.Request) {
		switch err := resync(r.PathValue("addr")); {
		case errors.Is(err, ErrNotLeading):
			writeError(w, http.StatusConflict, err.Error())
		case err != nil:
			writeError(w, http.StatusNotFound, err.Error())
		default:
			writeJSON(w, http.StatusAccepted, map[string]string{"status": "resync requested"})
		}
	})
	mux.HandleFunc("POST /v1/resources/{addr}/feedback", serveFeedback(e, opts))
	mux.HandleFunc("GET /v1/events", func(w http.ResponseWriter, r *http.Request) {
		select {
		case streams <- struct{}{}:
			defer func() { <-streams }()
		default:
			w.Header().Set("Retry-After", strconv.Itoa(eventStreamRetryAfter))
			writeError(w, http.StatusTooManyRequests, "too many event streams are open ("+strconv.Itoa(opts.MaxEventStreams)+")")
			return
		}
		serveEvents(w, r, e, opts)
	})
	if opts.Metrics != nil {
		mux.Handle("GET /metrics", opts.Metrics.Handler())
	}
	adopt := opts.Adopt
	if adopt == nil {
		adopt = e.Adopt
	}
	serveConsole(mux, e, adopt)
	// Where reads need no token, they must come by a loopback name.
	return browserGuard(guard(mux, opts), opts.Token == "" || opts.WritesOnly)
}

// browserGuard refuses what a web page could make a browser send: a
// request from another origin, a request to a loopback listener by a name
// that is not a loopback one (a page whose name was rebound to 127.0.0.1
// is same-origin to the browser and sends no Origin on a GET), and a POST
// with a body that is not JSON.
func browserGuard(next http.Handler, openReads bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !sameOrigin(r, openReads) {
			writeError(w, http.StatusForbidden, "requests from another origin or host name are refused")
			return
		}
		if r.Method == http.MethodPost && !jsonBody(r) {
			writeError(w, http.StatusUnsupportedMediaType, "a request body must be application/json")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// sameOrigin reports whether r comes from no browser page or from the
// API's own origin, and, when it came in on a loopback address to an API
// whose reads are open (openReads), is addressed by a loopback name. The
// own origin is http:// with the listener's port and then a loopback host
// (localhost, 127.0.0.0/8, [::1]), else the request's own host name
// (where every request needs the token, a rebound name gains nothing).
func sameOrigin(r *http.Request, openReads bool) bool {
	la, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	tcp, _ := la.(*net.TCPAddr)
	if tcp == nil {
		// Not served from a TCP listener (a test calling the handler):
		// there is no origin to compare with.
		return r.Header.Get("Origin") == ""
	}
	loopback := openReads && tcp.IP.IsLoopback()
	host := hostName(r.Host)
	if loopback && !isLoopbackName(host) {
		return false
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.User != nil || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return false
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if port != strconv.Itoa(tcp.Port) {
		return false
	}
	if loopback {
		return isLoopbackName(u.Hostname())
	}
	return strings.EqualFold(u.Hostname(), host)
}

// hostName is the host of a Host header, without its port and brackets.
func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]")
}

// isLoopbackName reports whether host names this machine's loopback
// interface: localhost or a loopback address.
func isLoopbackName(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// jsonBody reports whether a POST's body is JSON or absent: no
// Content-Type with an empty body, or application/json.
func jsonBody(r *http.Request) bool {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return r.ContentLength == 0
	}
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// guard checks the token where one is required.
func guard(next http.Handler, opts APIOptions) http.Handler {
	if opts.Token == "" {
		return next
	}
	want := []byte("Bearer " + opts.Token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		open := r.Method == http.MethodGet && (opts.WritesOnly || r.URL.Path == "/healthz" || r.URL.Path == "/readyz" || isConsolePage(r.URL.Path))
		if !open && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="xosplan sync"`)
			writeError(w, http.StatusUnauthorized, "a valid token is required (Authorization: Bearer TOKEN: the content of --api-token-file, or of the token file sync made)")
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
