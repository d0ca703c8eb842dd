package sync

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	stdsync "sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/state"
	"github.com/xosplan/xosplan/pkg/workflow"
)

// serviceStack is a configuration with one resource that runs nothing.
const serviceStack = `tosca_definitions_version: tosca_simple_yaml_1_3
topology_template:
  node_templates:
    a:
      type: tosca.nodes.Root
`

// serviceFixture is a configuration folder (the working folder) with its
// state file, and the options of a service on them.
func serviceFixture(t *testing.T) (ServiceOptions, *state.File) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "stack.yaml"), []byte(serviceStack), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	store, err := state.OpenFile(filepath.Join(dir, "state.json"), state.FileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	return ServiceOptions{Spec: workflow.Spec{Paths: []string{"stack.yaml"}}, Store: store,
		LockInfo: state.LockInfo{Operation: "sync"}, Poll: -1, HealthInterval: time.Hour, Resync: time.Hour}, store
}

// events collects a service's events.
type events struct {
	mu  stdsync.Mutex
	all []Event
}

func (e *events) add(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.all = append(e.all, ev)
}

// has reports whether an event of type typ whose Message contains msg
// came.
func (e *events) has(typ, msg string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, ev := range e.all {
		if ev.Type == typ && strings.Contains(ev.Message, msg) {
			return true
		}
	}
	return false
}

// runService runs a service on opts until the test ends, and returns a
// function that stops it and returns Run's error.
func runService(t *testing.T, opts ServiceOptions) func() error {
	t.Helper()
	svc, err := NewService(opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	done := make(chan error, 1)
	go func() { done <- svc.Run(ctx) }()
	stop := stdsync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Error("the service did not stop within a minute of its context ending")
			return nil
		}
	})
	t.Cleanup(func() { _ = stop() })
	return stop
}

// TestServiceReconcilesHoldsTheLockAndStops: a service applies its goal,
// holds the state lock while it runs, reconciles again for each reason it
// is sent, and stops when its context ends, releasing the lock.
func TestServiceReconcilesHoldsTheLockAndStops(t *testing.T) {
	opts, store := serviceFixture(t)
	var evs events
	reasons := make(chan string)
	opts.Events, opts.Reconcile = evs.add, reasons
	stop := runService(t, opts)
	testutil.WaitFor(t, time.Minute, "the first reconcile", func() bool { return evs.has(EventReconcileEnd, "") })

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var locked *state.LockedError
	// Without a deadline the file backend tries the lock once.
	if held, err := store.Lock(context.Background(), state.LockInfo{Operation: "test"}); !errors.As(err, &locked) {
		if err == nil {
			held.Unlock()
		}
		t.Fatalf("the state lock was not held while the service runs: %v", err)
	}
	select {
	case reasons <- "asked":
	case <-ctx.Done():
		t.Fatal("the service took no reason")
	}
	testutil.WaitFor(t, time.Minute, "the reconcile asked for", func() bool { return evs.has(EventReconcileStart, "asked") })

	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	st, err := store.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Resources) != 1 || st.Resources[0].Address != "a" {
		t.Errorf("state records %+v, want resource a", st.Resources)
	}
	held, err := store.Lock(ctx, state.LockInfo{Operation: "test"})
	if err != nil {
		t.Fatalf("the lock was not released: %v", err)
	}
	held.Unlock()
}

// TestServiceMakesAPITokenAndRemovesIt: without a token the service makes
// one where TokenPath says, readable by its user alone, names the address
// in ListenFile once it is made, serves the API, and removes the token
// when it stops.
func TestServiceMakesAPITokenAndRemovesIt(t *testing.T) {
	opts, _ := serviceFixture(t)
	dir := t.TempDir()
	tokenPath, listenFile := filepath.Join(dir, "sync.token"), filepath.Join(dir, "listen")
	var port string
	opts.API = ServiceAPI{Listen: "127.0.0.1:0", ListenFile: listenFile,
		TokenPath: func(p string) (string, error) { port = p; return tokenPath, nil }}
	stop := runService(t, opts)
	var addr string
	testutil.WaitFor(t, time.Minute, "the listen file", func() bool {
		data, err := os.ReadFile(listenFile)
		addr = strings.TrimSpace(string(data))
		return err == nil && addr != ""
	})
	fi, err := os.Stat(tokenPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v, %v", fi, err)
	}
	if !strings.HasSuffix(addr, ":"+port) {
		t.Errorf("token made for port %s, listening on %s", port, addr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/healthz", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("GET /healthz: %s", resp.Status)
	}
	if err := stop(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if _, err := os.Stat(tokenPath); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("token file left: %v", err)
	}
}

// TestNewServiceRefusesIncompleteOptions, and finds the default root of
// the configuration when none is given.
func TestNewServiceRefusesIncompleteOptions(t *testing.T) {
	opts, _ := serviceFixture(t)
	svc, err := NewService(opts)
	if err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if root := svc.opts.Spec.Root; root == nil || !slices.Equal(root.ResolvedDirs(), []string{wd}) {
		t.Errorf("default root %v, want the working folder %s", root, wd)
	}
	for name, change := range map[string]func(o *ServiceOptions){
		"no state": func(o *ServiceOptions) { o.Store = nil },
		"no token": func(o *ServiceOptions) { o.API = ServiceAPI{Listen: "127.0.0.1:0"} },
	} {
		o := opts
		change(&o)
		if _, err := NewService(o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestIsLoopback: only addresses on a loopback interface are.
func TestIsLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8420": true, "[::1]:8420": true, "localhost:0": true,
		":8420": false, "0.0.0.0:8420": false, "10.0.0.1:8420": false, "example.com:80": false, "127.0.0.1": false,
	} {
		if got := IsLoopback(addr); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
