package state

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// The tests re-execute their own binary to get a second process: a lock
// holder, or a writer that the parent kills with SIGKILL.
const childEnv = "XOSPLAN_STATE_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode, os.Getenv("XOSPLAN_STATE_TEST_PATH")))
	}
	os.Exit(m.Run())
}

// startChild runs the test binary in a child mode on the state at path;
// its stdout is returned for reading.
func startChild(t *testing.T, mode, path string) (*exec.Cmd, io.WriteCloser, *bufio.Reader) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = testutil.ChildEnv(append(os.Environ(), childEnv+"="+mode, "XOSPLAN_STATE_TEST_PATH="+path))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return cmd, stdin, bufio.NewReader(stdout)
}

func runChild(mode, path string) int {
	ctx := context.Background()
	f, err := OpenFile(path, FileOptions{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	switch mode {
	case "lock":
		// Hold the lock until stdin closes (or the parent kills us).
		held, err := f.Lock(ctx, LockInfo{Operation: "child-apply", Who: "child@test", Version: "test"})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Printf("locked %s\n", held.Info.ID)
		_, _ = io.Copy(io.Discard, os.Stdin)
		if err := held.Unlock(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		return 0
	case "journal":
		return childJournal(ctx, f)
	case "write":
		// Rewrite the snapshot as fast as possible, printing each serial
		// once Write returned.
		s, err := f.Read(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		for i := 0; ; i++ {
			s.Resources[i%len(s.Resources)].Spec["n"] = int64(i)
			if err := f.Write(ctx, s); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 2
			}
			fmt.Printf("%d\n", s.Serial)
		}
	}
	fmt.Fprintln(os.Stderr, "unknown child mode", mode)
	return 2
}

// childJournal appends intent/outcome pairs from four goroutines, as an
// executor would, and prints "seq" once each Append has returned.
func childJournal(ctx context.Context, f *File) int {
	j, err := f.OpenJournal(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var out sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				r := genResource(w*100000 + i)
				r.Spec["n"] = int64(i)
				for _, rec := range []Record{
					{Kind: RecordIntent, Address: r.Address, Action: "create", Attempt: 1},
					{Kind: RecordOutcome, Address: r.Address, Resource: &r},
				} {
					seq, err := j.Append(ctx, rec)
					if err != nil {
						fmt.Fprintln(os.Stderr, err)
						os.Exit(2)
					}
					out.Lock()
					os.Stdout.WriteString(strconv.FormatUint(seq, 10) + " " + string(rec.Kind) + " " + r.Address + "\n")
					out.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return 0
}

// waitLine reads one line from a child within a deadline.
func waitLine(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	type res struct {
		s   string
		err error
	}
	ch := make(chan res, 1)
	go func() {
		s, err := r.ReadString('\n')
		ch <- res{s, err}
	}()
	select {
	case got := <-ch:
		if got.err != nil {
			t.Fatalf("child: %v", got.err)
		}
		return got.s[:len(got.s)-1]
	case <-time.After(20 * time.Second):
		t.Fatal("child said nothing for 20 s")
	}
	return ""
}
