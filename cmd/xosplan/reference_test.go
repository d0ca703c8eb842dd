package main

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
	"github.com/xosplan/xosplan/internal/testutil"
)

// referenceRoot is the command tree as a user's xosplan builds it, with no
// streams and no environment, so that what is generated from it does not
// depend on the machine.
func referenceRoot() *cobra.Command {
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard,
		getenv: func(string) string { return "" }, sources: newSourceCache()}
	root := newRootCommand(c)
	root.DisableAutoGenTag = true // no generation date: the pages change only when the help does
	return root
}

// manDate is the date the man pages carry. It is fixed rather than the day
// they were generated, so that generating them again changes nothing unless
// the help changed.
var manDate = time.Date(2026, time.November, 1, 0, 0, 0, 0, time.UTC)

// TestReferenceIsCurrent: docs/reference (a Markdown page per command) and
// docs/man (a man page per command) are generated from the commands' own
// help by cobra's doc generator. The test generates them again and fails,
// naming the page, when a checked-in copy differs, is missing or is left
// over from a command that is gone. XOSPLAN_UPDATE=1 (make docs) rewrites
// them.
func TestReferenceIsCurrent(t *testing.T) {
	gens := map[string]func(root *cobra.Command, dir string) error{
		"reference": func(root *cobra.Command, dir string) error {
			return doc.GenMarkdownTree(root, dir)
		},
		"man": func(root *cobra.Command, dir string) error {
			return doc.GenManTree(root, &doc.GenManHeader{
				Title: "XOSPLAN", Section: "1", Source: "xosplan", Manual: "xosplan manual", Date: &manDate,
			}, dir)
		},
	}
	for name, gen := range gens {
		t.Run(name, func(t *testing.T) {
			got := t.TempDir()
			if err := gen(referenceRoot(), got); err != nil {
				t.Fatal(err)
			}
			want := filepath.Join("..", "..", "docs", name)
			if testutil.Update(t) {
				if err := os.RemoveAll(want); err != nil {
					t.Fatal(err)
				}
			}
			gotNames, wantNames := dirNames(t, got), dirNames(t, want)
			for _, n := range gotNames {
				b, err := os.ReadFile(filepath.Join(got, n))
				if err != nil {
					t.Fatal(err)
				}
				testutil.Golden(t, filepath.Join(want, n), b)
			}
			if !testutil.Update(t) {
				for _, n := range wantNames {
					if !slices.Contains(gotNames, n) {
						t.Errorf("docs/%s/%s is left over: no command generates it (run make docs)", name, n)
					}
				}
			}
		})
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}
