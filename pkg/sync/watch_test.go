package sync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestWatchReportsAnEdit: a write to a configuration file is reported.
func TestWatchReportsAnEdit(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "stack.yaml")
	if err := os.WriteFile(file, []byte("a: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan string, 10)
	done := make(chan error, 1)
	go func() {
		done <- Watch(ctx, []string{dir}, WatchOptions{Debounce: 50 * time.Millisecond, Poll: 100 * time.Millisecond,
			Ignore: func(p string) bool { return filepath.Base(p) == "xosplan.state.json" }}, func(r string) { changes <- r })
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	// A write before the watch is set up goes unseen (it is part of the
	// first fingerprint), so the test writes until one is reported.
	deadline := time.After(30 * time.Second)
	for n := 2; ; n++ {
		if err := os.WriteFile(file, []byte(strings.Repeat("a", n)), 0o644); err != nil {
			t.Fatal(err)
		}
		select {
		case <-changes:
			return
		case <-time.After(200 * time.Millisecond):
		case <-deadline:
			t.Fatal("no edit was reported")
		}
	}
}

// TestFingerprintSeesConfigurationFilesOnly: the poll's fingerprint
// changes with a configuration file, not with hidden files, the state,
// or other files beside a file path.
func TestFingerprintSeesConfigurationFilesOnly(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("stack.yaml", "a: 1\n")
	write("scripts/create.sh", "true\n")
	folder := &watcher{paths: []string{dir}, opts: WatchOptions{Ignore: func(p string) bool { return filepath.Base(p) == "xosplan.state.json" }}}
	single := &watcher{paths: []string{filepath.Join(dir, "stack.yaml")}, opts: WatchOptions{Ignore: func(string) bool { return false }}}
	f0, s0 := folder.fingerprint(), single.fingerprint()
	write(".registry/vm.json", "{}")
	write("xosplan.state.json", "{}")
	if folder.fingerprint() != f0 {
		t.Error("a hidden file or the state changed the folder's fingerprint")
	}
	write("scripts/create.sh", "echo changed\n")
	if folder.fingerprint() == f0 {
		t.Error("a script's change left the folder's fingerprint as it was")
	}
	if single.fingerprint() != s0 {
		t.Error("a file beside a file path changed its fingerprint")
	}
	if !single.skip(filepath.Join(dir, "scripts", "create.sh")) || single.skip(filepath.Join(dir, "stack.yaml")) {
		t.Error("a file path's watch does not keep to that file")
	}
}
