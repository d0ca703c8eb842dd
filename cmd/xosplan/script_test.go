package main

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/process"
)

// TestMain makes the test binary double as the xosplan command, so that
// the scripts run the real main path (flags, exit codes, streams) without
// a separate build step. It doubles as the supervisor of the scripts the
// tests run, as main does (process.Supervise).
func TestMain(m *testing.M) {
	if code, ok := process.Supervise(); ok {
		os.Exit(code)
	}
	testscript.Main(privateRuntimeDir{m}, map[string]func(){
		// As main runs it: interrupts are handled (sync scripts send
		// SIGINT).
		"xosplan": func() { os.Exit(runProcess(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

// privateRuntimeDir runs the tests with XDG_RUNTIME_DIR in a folder of
// their own, removed after: a sync on a PostgreSQL state writes its API
// token there (apitoken.go), and a member a test kills leaves it behind,
// which must not land in the user's own runtime or cache folder. The
// processes the tests start inherit it (testRuntimeEnv says it is set).
type privateRuntimeDir struct{ m *testing.M }

const testRuntimeEnv = "XOSPLAN_TEST_RUNTIME_DIR"

func (p privateRuntimeDir) Run() int {
	if os.Getenv(testRuntimeEnv) != "" {
		return p.m.Run()
	}
	dir, err := os.MkdirTemp("", "xosplan-test-run-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "making a runtime folder for the tests:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	os.Setenv(testRuntimeEnv, dir)
	os.Setenv("XDG_RUNTIME_DIR", dir)
	return p.m.Run()
}

// TestScripts runs testdata/script/*.txtar. Each script may use $EXAMPLES,
// the repository's examples folder, and $ROOT, the repository. `go test
// -run TestScripts/NAME` runs one script; set TESTWORK=1 to keep its work
// folder, and XOSPLAN_UPDATE=1 to rewrite, in the scripts, the files that
// cmp finds different (testutil.Update).
func TestScripts(t *testing.T) {
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	examples := filepath.Join(root, "examples")
	testscript.Run(t, testscript.Params{
		Dir: filepath.Join("testdata", "script"),
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("ROOT", root)
			env.Setenv("GORACE", testutil.GORACE())
			return nil
		},
		TestWork:            os.Getenv("TESTWORK") != "",
		UpdateScripts:       testutil.Update(t),
		RequireExplicitExec: true,
		Cmds:                map[string]func(*testscript.TestScript, bool, []string){"zip": zipFolder},
	})
}

// zipFolder is the scripts' `zip ARCHIVE FOLDER`: it writes the files below
// FOLDER (sorted, names relative to it) into the zip archive ARCHIVE, so
// that a script holds a CSAR as text.
func zipFolder(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: zip ARCHIVE FOLDER")
	}
	dir := ts.MkAbs(args[1])
	var buf bytes.Buffer
	w := zip.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fw, err := w.Create(filepath.ToSlash(rel))
		if err != nil {
			return err
		}
		_, err = fw.Write(data)
		return err
	})
	ts.Check(err)
	ts.Check(w.Close())
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}
