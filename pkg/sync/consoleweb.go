package sync

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/xosplan/xosplan/internal/graphview"
	"github.com/xosplan/xosplan/pkg/executor"
)

//go:embed web/console.html web/console.css web/console.js
var consoleFiles embed.FS

// ConsoleCSP is the Content-Security-Policy of the console: its own
// scripts, style sheets and API only; no inline script, style or event
// handler, no other origin, no frames, no forms sent anywhere, no plugins.
const ConsoleCSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// isConsolePage reports whether path is the console's page or one of its
// assets, which every GET may read without the token: they hold no data.
func isConsolePage(path string) bool {
	switch path {
	case "/", "/assets/console.js", "/assets/console.css", "/assets/graph.css":
		return true
	}
	return false
}

// maxAdoptBody bounds the body of POST /v1/resources/{addr}/adopt.
const maxAdoptBody = 4 << 10

// consoleHeaders are sent with every page and asset of the console.
func consoleHeaders(w http.ResponseWriter, contentType string) {
	h := w.Header()
	h.Set("Content-Security-Policy", ConsoleCSP)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-cache")
	h.Set("Content-Type", contentType)
}

// serveConsole adds the console's page, its assets and the API it reads
// beyond the rest (Graph, History, ResourceDetail, Adopt) to mux.
func serveConsole(mux *http.ServeMux, e *Engine, adopt func(ctx context.Context, addr, id string) error) {
	file := func(name, contentType string) http.HandlerFunc {
		body, _ := consoleFiles.ReadFile(name) // embedded: never fails
		return func(w http.ResponseWriter, _ *http.Request) {
			consoleHeaders(w, contentType)
			_, _ = w.Write(body)
		}
	}
	mux.HandleFunc("GET /{$}", file("web/console.html", "text/html; charset=utf-8"))
	mux.HandleFunc("GET /assets/console.js", file("web/console.js", "text/javascript; charset=utf-8"))
	mux.HandleFunc("GET /assets/console.css", file("web/console.css", "text/css; charset=utf-8"))
	mux.HandleFunc("GET /assets/graph.css", func(w http.ResponseWriter, _ *http.Request) {
		consoleHeaders(w, "text/css; charset=utf-8")
		_, _ = io.WriteString(w, graphview.CSS)
	})
	mux.HandleFunc("GET /v1/graph", func(w http.ResponseWriter, r *http.Request) {
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		writeJSON(w, http.StatusOK, e.Graph(page, r.URL.Query().Get("find")))
	})
	mux.HandleFunc("GET /v1/history", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, e.History())
	})
	mux.HandleFunc("GET /v1/resources/{addr}/detail", func(w http.ResponseWriter, r *http.Request) {
		body, ok := e.ResourceDetail(r.PathValue("addr"))
		if !ok {
			writeError(w, http.StatusNotFound, "no such resource")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(append(body, '\n'))
	})
	mux.HandleFunc("POST /v1/resources/{addr}/adopt", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID string `json:"id"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxAdoptBody)).Decode(&req); err != nil || req.ID == "" {
			writeError(w, http.StatusBadRequest, `the body must be {"id": "the instance's id"}`)
			return
		}
		addr := r.PathValue("addr")
		if err := adopt(r.Context(), addr, req.ID); err != nil {
			writeError(w, adoptCode(err), err.Error())
			return
		}
		writeJSON(w, http.StatusOK, map[string]string{"status": "adopted", "address": addr, "id": req.ID})
	})
}

// adoptCode is the HTTP status of an adoption's error.
func adoptCode(err error) int {
	switch {
	case errors.Is(err, executor.ErrNotConfigured):
		return http.StatusNotFound
	case errors.Is(err, executor.ErrAlreadyRecorded):
		return http.StatusConflict
	case errors.Is(err, executor.ErrNotImportable), errors.Is(err, executor.ErrNotConfirmed):
		return http.StatusUnprocessableEntity
	case errors.Is(err, ErrBusy):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrNoGoal), errors.Is(err, ErrNotLeading):
		return http.StatusConflict
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
