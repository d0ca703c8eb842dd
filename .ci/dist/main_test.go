package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestBuildHostArchive builds the release archive of this machine's
// platform, unpacks it, runs the binary it holds and checks that the
// version is the stamped one, that the documents and man pages are there,
// and that SHA256SUMS matches the archive.
func TestBuildHostArchive(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a release binary; skipped with -short")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out := t.TempDir()
	plat := runtime.GOOS + "/" + runtime.GOARCH
	archives, err := Build(ctx, Options{Root: filepath.Join("..", ".."), Out: out, Version: "v9.8.7-test", Platforms: []string{plat}})
	if err != nil {
		t.Fatal(err)
	}
	if len(archives) != 1 || filepath.Base(archives[0]) != "xosplan_9.8.7-test_"+runtime.GOOS+"_"+runtime.GOARCH+".tar.gz" {
		t.Fatalf("archives %v", archives)
	}
	data, err := os.ReadFile(archives[0])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	sums, err := os.ReadFile(filepath.Join(out, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	if want := hex.EncodeToString(sum[:]) + "  " + filepath.Base(archives[0]) + "\n"; string(sums) != want {
		t.Errorf("SHA256SUMS:\n%s\nwant\n%s", sums, want)
	}

	dir := t.TempDir()
	names := untarGz(t, data, dir)
	base := strings.TrimSuffix(filepath.Base(archives[0]), ".tar.gz")
	for _, want := range []string{"xosplan", "README.md", "SECURITY.md", "docs/tutorial.md", "docs/editors/xosplan.lua", "man/man1/xosplan.1", "man/man1/xosplan-plan.1"} {
		if !names[base+"/"+want] {
			t.Errorf("the archive lacks %s/%s (has %v)", base, want, names)
		}
	}
	// Every relative link of the archived README leads to a file of the
	// archive: what the README says to read is there.
	readme, err := os.ReadFile(filepath.Join(dir, base, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	links := regexp.MustCompile(`\]\(([^()#\s]+)[^()\s]*\)`).FindAllStringSubmatch(string(readme), -1)
	if len(links) == 0 {
		t.Fatal("the archived README has no relative links to check")
	}
	for _, m := range links {
		if !strings.Contains(m[1], "://") && !names[base+"/"+m[1]] {
			t.Errorf("the archived README links to %s, which the archive lacks", m[1])
		}
	}
	// man finds the pages with the archive's man folder on MANPATH.
	if manCmd, err := exec.LookPath("man"); err == nil {
		cmd := exec.CommandContext(ctx, manCmd, "-w", "xosplan-plan")
		cmd.Env = append(os.Environ(), "MANPATH="+filepath.Join(dir, base, "man"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("MANPATH=%s man -w xosplan-plan: %v\n%s", filepath.Join(dir, base, "man"), err, out)
		}
	}
	cmd := exec.CommandContext(ctx, filepath.Join(dir, base, "xosplan"), "version", "--json")
	got, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Version  string `json:"xosplan_version"`
		Platform string `json:"platform"`
	}
	if err := json.Unmarshal(got, &v); err != nil {
		t.Fatalf("%v: %s", err, got)
	}
	if v.Version != "v9.8.7-test" || v.Platform != runtime.GOOS+"_"+runtime.GOARCH {
		t.Errorf("version --json: %s", got)
	}
}

func untarGz(t *testing.T, data []byte, dir string) map[string]bool {
	t.Helper()
	gz, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(gz)
	names := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return names
		}
		if err != nil {
			t.Fatal(err)
		}
		names[h.Name] = true
		p := filepath.Join(dir, filepath.FromSlash(h.Name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, os.FileMode(h.Mode)); err != nil {
			t.Fatal(err)
		}
	}
}

// TestZipHoldsExecutable: the Windows archive is a zip whose entries sit
// in the archive's folder, with the binary's mode kept.
func TestZipHoldsExecutable(t *testing.T) {
	var buf bytes.Buffer
	if err := writeZip(&buf, "xosplan_1_windows_amd64", []file{{"xosplan.exe", 0o755, []byte("MZ")}, {"README.md", 0o644, []byte("r")}}); err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 2 || zr.File[0].Name != "xosplan_1_windows_amd64/xosplan.exe" || zr.File[0].Mode().Perm() != 0o755 {
		t.Errorf("zip entries: %v", zr.File)
	}
}

// TestBuildRefusesBadInput: a version or platform that cannot name an
// archive is refused before anything is built.
func TestBuildRefusesBadInput(t *testing.T) {
	ctx := context.Background()
	for _, o := range []Options{
		{Root: "../..", Out: t.TempDir(), Version: ""},
		{Root: "../..", Out: t.TempDir(), Version: "v1/../x"},
		{Root: "../..", Out: t.TempDir(), Version: "v1", Platforms: []string{"linux"}},
	} {
		if _, err := Build(ctx, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// TestDockerfile checks what the image promises without a container tool
// (CI has none running): every runtime stage runs as a
// user other than root, no stage names a registry host, the binary is
// built as make dist builds it (version stamped, no cgo), and the full
// stage adds what the drivers run. With XOSPLAN_TEST_IMAGE=1 the minimal
// image is built too.
func TestDockerfile(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	stages := map[string][]string{} // stage name → its instructions
	var cur string
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if f := strings.Fields(line); strings.EqualFold(f[0], "FROM") {
			if len(f) != 4 || !strings.EqualFold(f[2], "AS") {
				t.Fatalf("FROM without a stage name: %q", line)
			}
			if first, _, ok := strings.Cut(f[1], "/"); ok && strings.ContainsAny(first, ".:") {
				t.Errorf("stage %s names a registry host: %q", f[3], f[1])
			}
			cur = f[3]
		}
		stages[cur] = append(stages[cur], line)
	}
	for _, name := range []string{"build", "minimal", "full"} {
		if stages[name] == nil {
			t.Fatalf("no stage %q", name)
		}
	}
	for _, name := range []string{"minimal", "full"} {
		var user string
		for _, in := range stages[name] {
			if u, ok := strings.CutPrefix(in, "USER "); ok {
				user = u
			}
		}
		if user == "" || user == "0" || user == "root" {
			t.Errorf("stage %s ends as user %q: want an unprivileged user", name, user)
		}
	}
	build := strings.Join(stages["build"], "\n")
	for _, want := range []string{"CGO_ENABLED=0", "-trimpath", "-X main.stampedVersion=${VERSION}", "./cmd/xosplan"} {
		if !strings.Contains(build, want) {
			t.Errorf("the build stage lacks %q", want)
		}
	}
	full := strings.Join(stages["full"], "\n")
	for _, want := range []string{"python3", "ansible-core"} {
		if !strings.Contains(full, want) {
			t.Errorf("the full stage does not install %s", want)
		}
	}
	if os.Getenv("XOSPLAN_TEST_IMAGE") == "" {
		t.Log("the image itself is built only with XOSPLAN_TEST_IMAGE=1 (it needs a running docker or podman and its base images)")
		return
	}
	tool, err := exec.LookPath("docker")
	if err != nil {
		if tool, err = exec.LookPath("podman"); err != nil {
			t.Fatal("XOSPLAN_TEST_IMAGE is set but neither docker nor podman is installed")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, tool, "build", "--target", "minimal", "-t", "xosplan:test", "../..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s build: %v\n%s", tool, err, out)
	}
}
