// Command dist builds xosplan's release archives: for each platform a
// binary cross-built with the version stamped in (go build with CGO off,
// -trimpath and -ldflags -X main.stampedVersion=VERSION), packed with the
// README, SECURITY.md, docs/ and the man pages (man/man1) into xosplan_VERSION_OS_ARCH.tar.gz
// (a .zip for Windows), and a SHA256SUMS file over the archives in the
// format sha256sum -c reads. `make dist` runs
//
//	go run ./.ci/dist -version v1.2.0 -out dist [OS/ARCH...]
//
// with every release platform when none is named. Archives are
// reproducible: entries are in a fixed order, with fixed modes and a fixed
// time, so that the same tree and version give the same sums. It lives in
// .ci (which ./... leaves out) because it is a build tool, not part of
// xosplan; `make test` runs its tests by name.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Platforms are the release platforms `make dist` builds by default.
var Platforms = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

// Options says what to build.
type Options struct {
	// Root is the module root (the folder holding go.mod).
	Root string
	// Out is the folder the archives and SHA256SUMS are written to.
	Out string
	// Version is stamped into the binaries and names the archives.
	Version string
	// Platforms are GOOS/GOARCH pairs; empty means Platforms.
	Platforms []string
	// Go is the go command (default "go").
	Go string
	// Progress, when set, gets a line per step.
	Progress io.Writer
}

// entryTime is the modification time of every archive entry.
var entryTime = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Build builds every platform's archive and the sums file, and returns the
// archives' paths. It stops at the first failure and at ctx's end.
func Build(ctx context.Context, o Options) ([]string, error) {
	if o.Version == "" || strings.ContainsAny(o.Version, "/\\ \t\n") {
		return nil, fmt.Errorf("version %q: want a version such as v1.2.0 (no spaces or slashes)", o.Version)
	}
	if o.Go == "" {
		o.Go = "go"
	}
	plats := o.Platforms
	if len(plats) == 0 {
		plats = Platforms
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	extra, err := extraFiles(o.Root)
	if err != nil {
		return nil, err
	}
	var archives []string
	for _, p := range plats {
		goos, goarch, ok := strings.Cut(p, "/")
		if !ok || goos == "" || goarch == "" {
			return nil, fmt.Errorf("platform %q: want OS/ARCH such as linux/amd64", p)
		}
		if o.Progress != nil {
			fmt.Fprintf(o.Progress, "building %s/%s\n", goos, goarch)
		}
		bin, err := buildBinary(ctx, o, goos, goarch)
		if err != nil {
			return nil, err
		}
		a, err := writeArchive(o, goos, goarch, bin, extra)
		if err != nil {
			return nil, err
		}
		archives = append(archives, a)
	}
	if err := writeSums(o.Out, archives); err != nil {
		return nil, err
	}
	return archives, nil
}

// buildBinary cross-builds the binary and returns its bytes.
func buildBinary(ctx context.Context, o Options, goos, goarch string) ([]byte, error) {
	tmp, err := os.MkdirTemp("", "xosplan-dist-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	out := filepath.Join(tmp, "xosplan")
	cmd := exec.CommandContext(ctx, o.Go, "build", "-trimpath",
		"-ldflags", "-s -w -X main.stampedVersion="+o.Version, "-o", out, "./cmd/xosplan")
	cmd.Dir = o.Root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("go build for %s/%s: %w: %s", goos, goarch, err, strings.TrimSpace(stderr.String()))
	}
	return os.ReadFile(out)
}

// file is one archive entry.
type file struct {
	name string
	mode int64
	data []byte
}

// extraFiles are the documents every archive holds beside the binary:
// the README and SECURITY.md, the docs/ folder they link to (so that
// every link of the archived README leads to a page of the archive) and
// the man pages in man/man1, the layout MANPATH and man -M expect.
func extraFiles(root string) ([]file, error) {
	var files []file
	add := func(name, path string) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		files = append(files, file{name: name, mode: 0o644, data: b})
		return nil
	}
	for _, n := range []string{"README.md", "SECURITY.md"} {
		if err := add(n, filepath.Join(root, n)); err != nil {
			return nil, err
		}
	}
	var docs []string
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "man" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			docs = append(docs, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(docs)
	for _, path := range docs {
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil, err
		}
		if err := add(filepath.ToSlash(rel), path); err != nil {
			return nil, err
		}
	}
	man, err := filepath.Glob(filepath.Join(root, "docs", "man", "*.1"))
	if err != nil {
		return nil, err
	}
	if len(man) == 0 {
		return nil, errors.New("docs/man holds no man pages (make docs generates them)")
	}
	slices.Sort(man)
	for _, m := range man {
		if err := add("man/man1/"+filepath.Base(m), m); err != nil {
			return nil, err
		}
	}
	return files, nil
}

// writeArchive packs one platform's archive and returns its path.
func writeArchive(o Options, goos, goarch string, bin []byte, extra []file) (string, error) {
	base := fmt.Sprintf("xosplan_%s_%s_%s", strings.TrimPrefix(o.Version, "v"), goos, goarch)
	exe := "xosplan"
	if goos == "windows" {
		exe += ".exe"
	}
	files := append([]file{{name: exe, mode: 0o755, data: bin}}, extra...)
	var buf bytes.Buffer
	var name string
	var err error
	if goos == "windows" {
		name = base + ".zip"
		err = writeZip(&buf, base, files)
	} else {
		name = base + ".tar.gz"
		err = writeTarGz(&buf, base, files)
	}
	if err != nil {
		return "", err
	}
	path := filepath.Join(o.Out, name)
	return path, os.WriteFile(path, buf.Bytes(), 0o644)
}

func writeTarGz(w io.Writer, dir string, files []file) error {
	gz := gzip.NewWriter(w)
	tw := tar.NewWriter(gz)
	for _, f := range files {
		h := &tar.Header{Name: dir + "/" + f.name, Mode: f.mode, Size: int64(len(f.data)),
			ModTime: entryTime, Typeflag: tar.TypeReg, Uname: "root", Gname: "root", Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		if _, err := tw.Write(f.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, dir string, files []file) error {
	zw := zip.NewWriter(w)
	for _, f := range files {
		h := &zip.FileHeader{Name: dir + "/" + f.name, Method: zip.Deflate, Modified: entryTime}
		h.SetMode(os.FileMode(f.mode))
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := fw.Write(f.data); err != nil {
			return err
		}
	}
	return zw.Close()
}

// writeSums writes SHA256SUMS: "<hex>  <name>" per archive, sorted by name.
func writeSums(out string, archives []string) error {
	var lines []string
	for _, a := range archives {
		b, err := os.ReadFile(a)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.Base(a))
	}
	slices.SortFunc(lines, func(a, b string) int { return strings.Compare(a[66:], b[66:]) })
	return os.WriteFile(filepath.Join(out, "SHA256SUMS"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

func main() {
	version := flag.String("version", "", "the version to stamp and name the archives with (v1.2.0)")
	out := flag.String("out", "dist", "the folder for the archives and SHA256SUMS")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	archives, err := Build(ctx, Options{Root: ".", Out: *out, Version: *version,
		Platforms: flag.Args(), Progress: os.Stderr})
	if err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
	for _, a := range archives {
		fmt.Println(a)
	}
}
