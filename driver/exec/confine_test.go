//go:build unix

package exec

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/driver/drivertest"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/graph"
)

// applyBounded runs one create of a single-operation exec resource and
// fails the test if it does not return within a bound.
func applyBounded(t *testing.T, d *Driver, dir, impl string) (driver.Outcome, error) {
	t.Helper()
	r := execResource("n", map[string]graph.Operation{"Standard.create": {Implementation: impl}})
	type result struct {
		o   driver.Outcome
		err error
	}
	done := make(chan result, 1)
	go func() {
		o, err := d.Apply(context.Background(), driver.Request{Action: driver.ActionCreate, Address: "n", Resource: r, WorkDir: dir})
		done <- result{o, err}
	}()
	select {
	case res := <-done:
		return res.o, res.err
	case <-time.After(20 * time.Second):
		t.Fatalf("apply of %s did not return", impl)
		return driver.Outcome{}, nil
	}
}

func TestExecImplementationOutsideRootIsNotRun(t *testing.T) {
	base := t.TempDir()
	project := filepath.Join(base, "project")
	stack := filepath.Join(project, "stack")
	ran := filepath.Join(base, "ran")
	outside := testutil.WriteScript(t, base, "outside/create.sh", "touch "+ran+"\n")
	shared := testutil.WriteScript(t, project, "scripts/create.sh", "touch "+ran+"\n")
	if err := os.MkdirAll(stack, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(stack, "link.sh")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"dot-dot out":          "../../outside/create.sh",
		"absolute path":        outside,
		"link out":             "link.sh",
		"missing, climbing":    "../../../nowhere/create.sh",
		"above the stack only": "../scripts/create.sh", // outside the default root, the stack's own folder
	}
	d := New(drivertest.Options(""))
	for name, impl := range cases {
		t.Run(name, func(t *testing.T) {
			o, err := applyBounded(t, d, stack, impl)
			if !errors.Is(err, ErrImplementationPath) || !o.Feedback.Status.Failed {
				t.Fatalf("error %v, feedback %+v; want ErrImplementationPath and a failure", err, o.Feedback.Status)
			}
			if _, err := os.Stat(ran); err == nil {
				t.Fatal("the implementation outside the root ran")
			}
		})
	}
	// With the project as root, a script above the stack's folder but in
	// the project runs, as real projects lay them out.
	opts := drivertest.Options("")
	opts.Root = []string{project}
	if _, err := applyBounded(t, New(opts), stack, "../scripts/create.sh"); err != nil {
		t.Fatalf("a script inside the project root was refused: %v", err)
	}
	if _, err := os.Stat(ran); err != nil {
		t.Fatalf("%s did not run", shared)
	}
}

// TestExecOutputsFileReplacedByScriptIsRefused: a script may replace its
// $XOSPLAN_OUTPUTS. A named pipe there must not block the read (nothing
// would ever write it: apply would hang past every timeout and the first
// interrupt), and a link must not make xosplan read, and quote, the file
// it points to.
func TestExecOutputsFileReplacedByScriptIsRefused(t *testing.T) {
	base := t.TempDir()
	secret := filepath.Join(base, "secret")
	if err := os.WriteFile(secret, []byte("MARKER_secret_line_without_equals\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, body string
		want       error
	}{
		{"named pipe", `rm -f "$XOSPLAN_OUTPUTS" && mkfifo "$XOSPLAN_OUTPUTS"`, userfile.ErrNotRegular},
		{"link to another file", `rm -f "$XOSPLAN_OUTPUTS" && ln -s ` + secret + ` "$XOSPLAN_OUTPUTS"`, userfile.ErrSymlink},
		{"a folder", `rm -f "$XOSPLAN_OUTPUTS" && mkdir "$XOSPLAN_OUTPUTS"`, userfile.ErrNotRegular},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			testutil.WriteScript(t, dir, "create.sh", tc.body+"\n")
			o, err := applyBounded(t, New(drivertest.Options("")), dir, "create.sh")
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v; want %v", err, tc.want)
			}
			if strings.Contains(err.Error()+o.Feedback.Output+o.Feedback.BackendStatus, "MARKER") {
				t.Fatalf("the linked file was read: %v", err)
			}
		})
	}
}
