package main

import (
	"os"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/state"
)

// TestForPlanKeepsTheUsersChoiceAndTakesThePlansElse: apply of a saved
// plan opens the state and workspace the user chose (flag, environment,
// selection), which CheckState then compares with the plan's; where the
// user chose nothing it takes the plan's own; a plan of a database needs
// its connection string from the user.
func TestForPlanKeepsTheUsersChoiceAndTakesThePlansElse(t *testing.T) {
	file := &state.Identity{Backend: state.BackendFile, Path: "states/a.json", Workspace: "default"}
	pg := &state.Identity{Backend: state.BackendPostgres, Database: "postgres://db:5432/x", Schema: "public", Workspace: "staging"}
	const dsn = "postgres://ci@db/x"
	for _, tc := range []struct {
		name          string
		flags         stateFlags
		env           map[string]string
		selected      string
		planned       *state.Identity
		wantPath      string
		wantWorkspace string
		wantErr       string
	}{
		{name: "a plan bound to no state", planned: nil, wantPath: state.DefaultPath},
		{name: "file, nothing chosen", planned: file, wantPath: "states/a.json"},
		{name: "file, --state chosen", flags: stateFlags{path: "b.json"}, planned: file, wantPath: "b.json"},
		{name: "file, XOSPLAN_STATE chosen", env: map[string]string{"XOSPLAN_STATE": "c.json"}, planned: file, wantPath: "c.json"},
		{name: "database, no connection string", planned: pg, wantErr: "give its connection string with --state or XOSPLAN_STATE"},
		{name: "database, nothing else chosen", flags: stateFlags{path: dsn}, planned: pg, wantPath: dsn, wantWorkspace: "staging"},
		{name: "database, --workspace chosen", flags: stateFlags{path: dsn, workspace: "prod"}, planned: pg, wantPath: dsn, wantWorkspace: "prod"},
		{name: "database, XOSPLAN_WORKSPACE chosen", env: map[string]string{"XOSPLAN_STATE": dsn, "XOSPLAN_WORKSPACE": "default"}, planned: pg, wantPath: dsn, wantWorkspace: "default"},
		{name: "database, a workspace selected", env: map[string]string{"XOSPLAN_STATE": dsn}, selected: "qa", planned: pg, wantPath: dsn, wantWorkspace: "qa"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if tc.selected != "" {
				if err := selectWorkspace(tc.selected); err != nil {
					t.Fatal(err)
				}
			}
			c := &cli{getenv: func(k string) string { return tc.env[k] }}
			got, err := tc.flags.forPlan(c, tc.planned)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want an error saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			path, workspace := got.where(c)
			if path != tc.wantPath || workspace != tc.wantWorkspace {
				t.Errorf("state %q workspace %q, want %q %q", path, workspace, tc.wantPath, tc.wantWorkspace)
			}
		})
	}
}

// TestSelectedWorkspaceFile: the selection is one valid workspace name;
// anything else in the file is an error naming it, and no file is none.
func TestSelectedWorkspaceFile(t *testing.T) {
	t.Chdir(t.TempDir())
	if name, err := selectedWorkspace(); name != "" || err != nil {
		t.Fatalf("no file: %q, %v", name, err)
	}
	if err := selectWorkspace("prod"); err != nil {
		t.Fatal(err)
	}
	if name, err := selectedWorkspace(); name != "prod" || err != nil {
		t.Fatalf("after select: %q, %v", name, err)
	}
	for _, bad := range []string{"", "a b", "../x", strings.Repeat("n", 91), strings.Repeat("n", 2000)} {
		if err := os.WriteFile(environmentFile, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if name, err := selectedWorkspace(); err == nil || !strings.Contains(err.Error(), environmentFile) {
			t.Errorf("%.20q: got %q, %v; want an error naming %s", bad, name, err, environmentFile)
		}
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plan.bin":                     "plan.bin",
		"postgres://ci@db:5432/x":      "postgres://ci@db:5432/x",
		"my plan":                      "'my plan'",
		"postgres://ci@db/x?sslmode=a": "'postgres://ci@db/x?sslmode=a'",
		"it's":                         `'it'\''s'`,
		"":                             "''",
	} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %s, want %s", in, got, want)
		}
	}
}
