package userfile

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree makes root/{ok.yaml, sub/inner.yaml, in-link -> ok.yaml,
// out-link -> ../outside/secret, loop -> loop} and outside/secret.
func tree(t *testing.T) (root, outside string) {
	t.Helper()
	base := t.TempDir()
	root = filepath.Join(base, "root")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{root, filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(t, filepath.Join(root, "ok.yaml"), "ok: 1\n")
	write(t, filepath.Join(root, "sub", "inner.yaml"), "inner: 1\n")
	write(t, filepath.Join(outside, "secret"), "SECRET=hunter2\n")
	links := map[string]string{
		"in-link":  "ok.yaml",
		"out-link": filepath.Join("..", "outside", "secret"),
		"abs-link": filepath.Join(outside, "secret"),
		"loop":     "loop",
		"dir-out":  outside,
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	return root, outside
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReadInsideRootOnly(t *testing.T) {
	root, outside := tree(t)
	r, err := NewRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cases := []struct {
		name string
		path string
		want error // nil: readable
	}{
		{"plain file", filepath.Join(root, "ok.yaml"), nil},
		{"file below", filepath.Join(root, "sub", "inner.yaml"), nil},
		{"dot-dot that stays inside", filepath.Join(root, "sub", "..", "ok.yaml"), nil},
		{"link to a file inside", filepath.Join(root, "in-link"), nil},
		{"dot-dot out of the root", filepath.Join(root, "..", "outside", "secret"), ErrOutsideRoot},
		{"relative link out", filepath.Join(root, "out-link"), ErrOutsideRoot},
		{"absolute link out", filepath.Join(root, "abs-link"), ErrOutsideRoot},
		{"through a linked folder", filepath.Join(root, "dir-out", "secret"), ErrOutsideRoot},
		{"absolute path out", filepath.Join(outside, "secret"), ErrOutsideRoot},
		{"system file", "/etc/passwd", ErrOutsideRoot},
		{"proc environ", "/proc/self/environ", ErrOutsideRoot},
		{"the root folder itself", root, ErrNotRegular},
		{"missing", filepath.Join(root, "nope.yaml"), fs.ErrNotExist},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			data, err := Read(ctx, c.path, Options{Root: r})
			if c.want == nil {
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("Read = %q, %v; want %v", data, err, c.want)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Fatalf("the error quotes the refused file: %v", err)
			}
		})
	}
	t.Run("link loop", func(t *testing.T) {
		if _, err := Read(ctx, filepath.Join(root, "loop"), Options{Root: r}); err == nil {
			t.Fatal("a link loop was read")
		}
	})
}

func TestAllowFileAddsOneFile(t *testing.T) {
	root, outside := tree(t)
	r, err := NewRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret")
	if err := r.AllowFile(secret); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(context.Background(), secret, Options{Root: r}); err != nil {
		t.Fatalf("an allowed file was refused: %v", err)
	}
	write(t, filepath.Join(outside, "other"), "x")
	if _, err := Read(context.Background(), filepath.Join(outside, "other"), Options{Root: r}); !errors.Is(err, ErrOutsideRoot) {
		t.Fatalf("the folder of an allowed file was opened: %v", err)
	}
}

func TestSpecialFilesAreRefusedWithoutBlocking(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no FIFOs or /dev/zero")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{fifo, "/dev/zero", "/dev/null", dir} {
		done := make(chan error, 1)
		go func() {
			_, err := Read(context.Background(), path, Options{})
			done <- err
		}()
		select {
		case err := <-done:
			if !errors.Is(err, ErrNotRegular) {
				t.Errorf("Read(%s) = %v; want ErrNotRegular", path, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("Read(%s) blocked", path)
		}
	}
}

func TestSizeIsCheckedBeforeReading(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big")
	write(t, big, strings.Repeat("x", 101))
	_, err := Read(context.Background(), big, Options{MaxBytes: 100})
	var ue *Error
	if !errors.As(err, &ue) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Read = %v; want ErrTooLarge", err)
	}
	if !strings.Contains(err.Error(), "101 bytes") {
		t.Errorf("message does not give the size: %v", err)
	}
	data, err := Read(context.Background(), big, Options{MaxBytes: 101})
	if err != nil || len(data) != 101 {
		t.Fatalf("Read at the limit = %d bytes, %v", len(data), err)
	}
}

func TestReadAllRefusesGrowthPastTheLimit(t *testing.T) {
	// A reader that keeps giving data stands for a file that grew after
	// the size check.
	_, err := ReadAll(context.Background(), endless{}, "grows", 10, 4096)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("ReadAll = %v; want ErrTooLarge", err)
	}
}

type endless struct{}

func (endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'z'
	}
	return len(p), nil
}

func TestReadAllStopsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ReadAll(ctx, bytes.NewReader([]byte("data")), "x", 4, 100); !errors.Is(err, context.Canceled) {
		t.Fatalf("ReadAll = %v; want context.Canceled", err)
	}
	if _, err := Read(ctx, "/etc/hostname", Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("Read = %v; want context.Canceled", err)
	}
}

func TestNoFollowRefusesALink(t *testing.T) {
	root, _ := tree(t)
	_, err := Read(context.Background(), filepath.Join(root, "abs-link"), Options{NoFollow: true})
	if !errors.Is(err, ErrSymlink) {
		t.Fatalf("Read = %v; want ErrSymlink", err)
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Fatalf("the error quotes the link's target: %v", err)
	}
	if _, err := Read(context.Background(), filepath.Join(root, "ok.yaml"), Options{NoFollow: true}); err != nil {
		t.Fatalf("a plain file was refused: %v", err)
	}
}

func TestConfineJudgesMissingNamesByWhatExists(t *testing.T) {
	root, outside := tree(t)
	r, err := NewRoot(root)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		path string
		ok   bool
	}{
		{"an existing file", filepath.Join(root, "ok.yaml"), true},
		{"a missing file inside", filepath.Join(root, "scripts", "create.sh"), true},
		{"a missing file climbing out", filepath.Join(root, "..", "..", "bin", "create.sh"), false},
		{"a missing absolute path", "/opt/scripts/create.sh", false},
		{"a missing file below a linked folder out", filepath.Join(root, "dir-out", "create.sh"), false},
		{"an existing file out", filepath.Join(outside, "secret"), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Confine(c.path)
			if c.ok && err != nil {
				t.Fatalf("Confine = %v", err)
			}
			if !c.ok && !errors.Is(err, ErrOutsideRoot) {
				t.Fatalf("Confine = %v; want ErrOutsideRoot", err)
			}
		})
	}
}
