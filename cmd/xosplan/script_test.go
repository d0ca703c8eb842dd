package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/xosplan/xosplan/internal/testutil"
)

// TestMain makes the test binary double as the xosplan command, so that
// the scripts run the real main path (flags, exit codes, streams) without
// a separate build step.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"xosplan": func() { os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
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
	})
}
