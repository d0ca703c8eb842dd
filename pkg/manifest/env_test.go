package manifest

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
)

// TestEnvironmentInputs covers what CompileEnvironment is given rather
// than what the manifests say.
func TestEnvironmentInputs(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	good := filepath.Join(dir, "Good App.yml")
	if err := os.WriteFile(good, []byte("application:\n  components:\n    wf: {type: workflow.Instance}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The file name becomes every address's first part, so an escape
	// sequence in it is a bad name; the application still compiles.
	escaped := filepath.Join(t.TempDir(), "esc\x1b[2J.yml")
	if err := os.WriteFile(escaped, []byte("application:\n  components:\n    wf: {type: workflow.Instance}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name    string
		ctx     context.Context
		paths   []string
		code    string // wanted diagnostic code, "" for none
		address string // a resource that must be compiled
	}{
		{name: "missing", ctx: context.Background(), paths: []string{filepath.Join(dir, "nope.yml")}, code: CodeRead},
		{name: "empty folder", ctx: context.Background(), paths: []string{empty}, code: CodeRead},
		{name: "file named twice", ctx: context.Background(), paths: []string{good, dir + "/./Good App.yml"}, address: "Good App.wf"},
		{name: "folder and its file", ctx: context.Background(), paths: []string{dir, good}, address: "Good App.wf"},
		{name: "canceled", ctx: canceled, paths: []string{good}, code: CodeRead},
		{name: "escape in the file name", ctx: context.Background(), paths: []string{escaped}, code: CodeBadName, address: "esc\x1b[2J.wf"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g, diags := CompileEnvironment(tc.ctx, tc.paths, Options{})
			var codes []string
			for _, d := range diags {
				codes = append(codes, d.Code)
				if d.Range.File == "" {
					t.Errorf("diagnostic names no file: %s", d.Error())
				}
			}
			if tc.code == "" && len(diags) > 0 || tc.code != "" && !strings.Contains(strings.Join(codes, " "), tc.code) {
				t.Errorf("diagnostics %v, want code %q", codes, tc.code)
			}
			if tc.address != "" {
				if g == nil {
					t.Fatal("no graph")
				}
				if _, ok := g.Resource(tc.address); !ok || g.Len() != 1 {
					t.Errorf("resources %v, want only %s", g.Addresses(), tc.address)
				}
			}
		})
	}
}

// TestDeterministic compiles the corpus twice: diagnostics and graphs
// must be identical.
func TestDeterministic(t *testing.T) {
	dir := relCorpus(t)
	g1, d1 := CompileEnvironment(context.Background(), []string{dir}, Options{})
	g2, d2 := CompileEnvironment(context.Background(), []string{dir}, Options{})
	if render(d1) != render(d2) {
		t.Error("diagnostics differ between two runs")
	}
	if string(renderGraph(t, g1)) != string(renderGraph(t, g2)) {
		t.Error("graphs differ between two runs")
	}
}

func render(ds diag.Diagnostics) string {
	var b strings.Builder
	for _, d := range ds {
		b.WriteString(d.Error() + "\n")
	}
	return b.String()
}

// TestSecretConfigurationOfTheWrongTypeShowsNoLine checks that a value
// given to a configuration pin named like a secret that does not fit its
// type is described by its kind alone and marked Sensitive, so that no
// renderer shows its source line.
func TestSecretConfigurationOfTheWrongTypeShowsNoLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "app.yml")
	src := "application:\n  components:\n    factory:\n      type: scripted.ComponentFactory\n" +
		"      configuration:\n        configuration.dbPassword: [hunter2list]\n        configuration.port: [8080]\n" +
		"      interfaces:\n        configuration:\n          dbPassword: configuration(string)\n          port: configuration(int)\n"
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, diags := CompileEnvironment(context.Background(), []string{path}, Options{})
	sensitive := map[string]bool{}
	for _, d := range diags {
		if d.Code != CodeConfigType {
			continue
		}
		if strings.Contains(d.Summary, "hunter2list") {
			t.Errorf("diagnostic quotes the secret: %s", d.Summary)
		}
		key := strings.Split(d.Summary, `"`)[1]
		sensitive[key] = d.Sensitive
	}
	want := map[string]bool{"configuration.dbPassword": true, "configuration.port": false}
	if len(sensitive) != 2 || sensitive["configuration.dbPassword"] != want["configuration.dbPassword"] || sensitive["configuration.port"] {
		t.Errorf("sensitive per key = %v, want %v", sensitive, want)
	}
}

// TestManifestOutsideRootIsRefusedUnread: a manifest that links out of
// its root, a named pipe and a device are refused without being read (or
// blocking), and no diagnostic quotes them.
func TestManifestOutsideRootIsRefusedUnread(t *testing.T) {
	base := t.TempDir()
	env := filepath.Join(base, "env")
	if err := os.Mkdir(env, 0o755); err != nil {
		t.Fatal(err)
	}
	const marker = "MARKER_outside_the_root"
	secret := filepath.Join(base, "secret.yml")
	if err := os.WriteFile(secret, []byte("application:\n  "+marker+": [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(env, "leak.yml")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(env, "pipe.yml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no named pipes: %v", err)
	}
	paths := []string{filepath.Join(env, "leak.yml"), fifo, "/dev/zero"}
	done := make(chan diag.Diagnostics, 1)
	go func() {
		_, diags := CompileEnvironment(context.Background(), paths, Options{})
		done <- diags
	}()
	var diags diag.Diagnostics
	select {
	case diags = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("CompileEnvironment blocked on a named pipe or a device")
	}
	if len(diags) != len(paths) {
		t.Fatalf("want one diagnostic per path, got %v", diags)
	}
	for _, d := range diags {
		if d.Code != CodeRead || strings.Contains(d.Summary+d.Detail, marker) {
			t.Errorf("want a %s that quotes nothing, got %s", CodeRead, d.Error())
		}
	}
}
