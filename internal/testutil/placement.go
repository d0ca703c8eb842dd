package testutil

import (
	"bufio"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// RealPlacement starts Debian's python3-placement on 127.0.0.1 (sqlite,
// noauth2) through pkg/placement/testdata/realplacement/serve.py and
// returns its base URL. The test is skipped in -short mode and when the
// package is not installed. The server exits when the test ends (its stdin
// is closed; it is killed if it has not gone 10 s later), so it never
// outlives the test.
func RealPlacement(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("the real Placement service is not started in -short mode")
	}
	python := "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import placement.wsgi").Run(); err != nil {
		t.Skip("python3-placement is not installed (apt-get install python3-placement)")
	}
	cmd := exec.Command(python, filepath.Join(ModuleRoot(t), "pkg", "placement", "testdata", "realplacement", "serve.py"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	portc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if p, ok := strings.CutPrefix(sc.Text(), "LISTENING "); ok {
				portc <- p
			}
		}
		close(portc)
	}()
	select {
	case p, ok := <-portc:
		if !ok {
			t.Fatal("placement server exited before listening")
		}
		return "http://127.0.0.1:" + p
	case <-time.After(90 * time.Second):
		t.Fatal("placement server did not start within 90 s")
	}
	return ""
}
