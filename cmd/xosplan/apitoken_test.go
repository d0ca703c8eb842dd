package main

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	stdsync "sync"
	"testing"
	"time"

	xsync "github.com/xosplan/xosplan/pkg/sync"
)

// TestStatusSendsTheTokenSyncMade: status finds the token a sync made
// beside the state it is given (through a link to the state too) and
// sends it; --api-token-file wins; without either it sends none.
func TestStatusSendsTheTokenSyncMade(t *testing.T) {
	var mu stdsync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("Authorization"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ready": true, "resources": []}`))
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	dir := t.TempDir()
	statePath := filepath.Join(dir, "xosplan.state.json")
	c := &cli{getenv: func(string) string { return "" }}
	path, err := apiTokenPath(c, &stateFlags{path: statePath}, "0")
	if err != nil {
		t.Fatal(err)
	}
	token, forget, err := xsync.MakeTokenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, %v", path, fi, err)
	}
	if err := os.Symlink(statePath, filepath.Join(dir, "link.json")); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other-token")
	if err := os.WriteFile(other, []byte("given\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--state", statePath}, "Bearer " + token},
		{[]string{"--state", filepath.Join(dir, "link.json")}, "Bearer " + token},
		{[]string{"--state", statePath, "--api-token-file", other}, "Bearer given"},
		{[]string{"--state", filepath.Join(dir, "elsewhere.json")}, ""},
	} {
		mu.Lock()
		got = nil
		mu.Unlock()
		var out, errOut bytes.Buffer
		if code := run(ctx, append([]string{"status", "--json", "--listen", addr}, tc.args...), nil, &out, &errOut); code != 0 {
			t.Fatalf("status %v: exit %d: %s", tc.args, code, errOut.String())
		}
		mu.Lock()
		if len(got) != 1 || got[0] != tc.want {
			t.Errorf("status %v sent Authorization %q, want %q", tc.args, got, tc.want)
		}
		mu.Unlock()
	}
	forget()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("the token file is still there after forget: %v", err)
	}
}

// TestAPITokenForAPostgreSQLStateIsTheUsers: for a PostgreSQL state the
// token lives in the user's runtime (else cache) folder, named by the
// port; without such a folder the error says to give --api-token-file.
func TestAPITokenForAPostgreSQLStateIsTheUsers(t *testing.T) {
	dsn := &stateFlags{path: "postgres://u@127.0.0.1/db"}
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"XDG_RUNTIME_DIR": "/run/user/7", "HOME": "/home/u"}, "/run/user/7/xosplan/sync-api-8420.token"},
		{map[string]string{"XDG_CACHE_HOME": "/c", "HOME": "/home/u"}, "/c/xosplan/sync-api-8420.token"},
		{map[string]string{"HOME": "/home/u"}, "/home/u/.cache/xosplan/sync-api-8420.token"},
	} {
		c := &cli{getenv: func(k string) string { return tc.env[k] }}
		if got, err := apiTokenPath(c, dsn, "8420"); err != nil || got != tc.want {
			t.Errorf("%v: %q, %v; want %q", tc.env, got, err, tc.want)
		}
	}
	c := &cli{getenv: func(string) string { return "" }}
	if _, err := apiTokenPath(c, dsn, "8420"); err == nil || !strings.Contains(err.Error(), "--api-token-file") {
		t.Errorf("no folder: %v", err)
	}
}
