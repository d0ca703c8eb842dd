package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// buildXosplan builds the command into dir/xosplan, bounded by ctx.
func buildXosplan(ctx context.Context, t *testing.T, dir string) {
	t.Helper()
	build := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", filepath.Join(dir, "xosplan"), ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
}

// quickStart returns the lines of the first shell block under the
// README's "## Quick start" heading, their trailing comments cut.
func quickStart(t *testing.T, readme string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Quick start\n")
	if !ok {
		t.Fatal("README.md has no \"## Quick start\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("README.md's Quick start has no ```sh block")
	}
	block, _, ok = strings.Cut(block, "```")
	if !ok {
		t.Fatal("README.md's Quick start block does not end")
	}
	var lines []string
	for _, l := range strings.Split(block, "\n") {
		if i := strings.Index(l, "  #"); i >= 0 {
			l = l[:i]
		}
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestQuickStart runs the README's Quick start as a newcomer types it in a
// clone: `make build` (its recipe checked with make -n, the binary built
// by the test into bin/ of a folder holding a copy of examples/), then
// every command in order; `xosplan sync` runs until its first reconcile
// ends and is then interrupted, as a reader presses Ctrl-C, and must have
// found nothing to do after the apply before it. Its API is moved to a
// free port (the README's uses the default, 127.0.0.1:8420, which another
// test may hold) and the example's scripts work under the test's folder.
func TestQuickStart(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	root := testutil.ModuleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	lines := quickStart(t, string(readme))
	const build = "make build && export PATH=$PWD/bin:$PATH"
	if len(lines) < 2 || lines[0] != build {
		t.Fatalf("the Quick start does not begin with %q: %q", build, lines)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if _, err := exec.LookPath("make"); err == nil {
		out, err := exec.CommandContext(ctx, "make", "-n", "-C", root, "build").CombinedOutput()
		if err != nil || !strings.Contains(string(out), "build -o bin/xosplan ./cmd/xosplan") {
			t.Fatalf("make -n build does not build bin/xosplan (%v):\n%s", err, out)
		}
	}
	work := t.TempDir()
	if err := os.CopyFS(filepath.Join(work, "examples"), os.DirFS(filepath.Join(root, "examples"))); err != nil {
		t.Fatal(err)
	}
	buildXosplan(ctx, t, filepath.Join(work, "bin"))

	var script strings.Builder
	script.WriteString("set -e\nexport PATH=$PWD/bin:$PATH\n")
	synced := false
	for _, l := range lines[1:] {
		fmt.Fprintf(&script, "echo '$ %s'\n", strings.ReplaceAll(l, "'", `'\''`))
		rest, ok := strings.CutPrefix(l, "xosplan sync ")
		if !ok {
			script.WriteString(l + "\n")
			continue
		}
		synced = true
		fmt.Fprintf(&script, `xosplan sync --listen 127.0.0.1:0 %s 2> quickstart-sync.log &
pid=$!
i=0; until grep -q 'msg="reconcile ended"' quickstart-sync.log || [ $i -eq 600 ]; do i=$((i+1)); sleep 0.1; done
kill -INT $pid
wait $pid
`, rest)
	}
	if !synced {
		t.Fatalf("the Quick start does not run xosplan sync: %q", lines)
	}
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "XOSPLAN_STATE=", "NO_COLOR=1", "XOSPLAN_WORKDIR="+filepath.Join(work, "work"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	log, _ := os.ReadFile(filepath.Join(work, "quickstart-sync.log"))
	if ctx.Err() != nil {
		t.Fatalf("the Quick start did not finish in 4 minutes:\n%s\nsync's log:\n%s", out.String(), log)
	}
	if runErr != nil {
		t.Fatalf("the Quick start failed (%v):\n%s\nsync's log:\n%s", runErr, out.String(), log)
	}
	for _, want := range []string{"Success! The configuration is valid.", "Saved the plan to: plan.bin", "Apply complete! Resources: "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the Quick start's output lacks %q:\n%s", want, out.String())
		}
	}
	for _, want := range []string{`msg="reconcile ended" outcome=no_changes`, `msg="sync stopped"`} {
		if !bytes.Contains(log, []byte(want)) {
			t.Errorf("sync's log lacks %q:\n%s", want, log)
		}
	}
}

// TestSyncSaysWhenItsAddressIsTaken: a second sync on one machine takes
// the same default API address as the first; it fails at once, saying
// which address is taken and how to choose another, and leaves the state
// unlocked.
func TestSyncSaysWhenItsAddressIsTaken(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir := t.TempDir()
	stack := filepath.Join(dir, "stack.yaml")
	if err := os.WriteFile(stack, []byte("tosca_definitions_version: tosca_simple_yaml_1_3\ntopology_template:\n  node_templates:\n    a:\n      type: tosca.nodes.Root\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	st := filepath.Join(dir, "x.state.json")
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"sync", "--listen", ln.Addr().String(), "--state", st, stack}, nil, &out, &errOut)
	}()
	select {
	case code := <-done:
		if code != 1 {
			t.Fatalf("sync exited %d, want 1; stderr:\n%s", code, errOut.String())
		}
	case <-ctx.Done():
		t.Fatal("sync did not stop within a minute although its API address is taken")
	}
	want := fmt.Sprintf("address already in use: another program, such as another xosplan sync, listens on %s; give this sync another --listen ADDRESS", ln.Addr())
	if !strings.Contains(errOut.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
	}
	if code := run(ctx, []string{"apply", "--auto-approve", "--state", st, stack}, nil, &out, &errOut); code != 0 {
		t.Errorf("apply after the failed sync exited %d (is the state still locked?):\n%s", code, errOut.String())
	}
}
