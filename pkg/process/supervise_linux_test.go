//go:build linux

package process

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
)

// TestSupervisedProgramIsReportedAsADirectOne: under its supervisor (this
// test binary, as TestMain makes it) a program gets its input, and its
// output, exit status, death by a signal and failure to start are
// reported as they were when xosplan started it directly.
func TestSupervisedProgramIsReportedAsADirectOne(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, tc := range []struct {
		name, body, stdin string
		wantOut, wantErr  string
		wantCode          int
	}{
		// The parent: not this process, but this binary.
		{"supervised", `[ $PPID != ` + strconv.Itoa(os.Getpid()) + ` ] && readlink /proc/$PPID/exe`, "", self + "\n", "", 0},
		{"input and output", `cat; echo err >&2`, "hello", "hello", "", 0},
		{"exit status", `echo out; echo failing >&2; exit 3`, "", "out\n", "exit status 3: failing", 3},
		{"signal", `kill -TERM $$`, "", "", "signal: terminated", -1},
		{"interpreter missing", "#!/nonexistent/interpreter\n", "", "", "starting /nonexistent/interpreter: fork/exec /nonexistent/interpreter: no such file or directory", -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.ReplaceAll(tc.name, " ", "_") + ".sh"
			if strings.HasPrefix(tc.body, "#!") {
				name = strings.TrimSuffix(name, ".sh")
			}
			path := testutil.WriteScript(t, dir, name, tc.body)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			res, err := RunProgram(ctx, Program{Path: path, Dir: dir, Env: []string{"PATH=" + os.Getenv("PATH")}, Stdin: []byte(tc.stdin),
				Timeout: 20 * time.Second, MaxStdout: 1 << 20})
			if got := errText(err); got != tc.wantErr {
				t.Errorf("error %q, want %q", got, tc.wantErr)
			}
			if string(res.Stdout) != tc.wantOut || res.ExitCode != tc.wantCode {
				t.Errorf("stdout %q, exit %d; want %q, %d", res.Stdout, res.ExitCode, tc.wantOut, tc.wantCode)
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
