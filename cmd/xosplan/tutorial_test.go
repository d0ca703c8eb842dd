package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/state/pgbackend/pgtest"
)

// tutorialBlock is a fenced block of docs/tutorial.md: a shell block to
// run (info "sh", or "sh postgres" for one that needs a PostgreSQL
// database in $DATABASE_URL), or the text its output must show.
type tutorialBlock struct {
	info string
	body string
	line int
}

func tutorialBlocks(t *testing.T, doc string) []tutorialBlock {
	t.Helper()
	var blocks []tutorialBlock
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		info, ok := strings.CutPrefix(lines[i], "```")
		if !ok {
			continue
		}
		start := i + 1
		for i++; i < len(lines) && lines[i] != "```"; i++ {
		}
		if i == len(lines) {
			t.Fatalf("docs/tutorial.md:%d: the block does not end", start)
		}
		blocks = append(blocks, tutorialBlock{info: info, body: strings.Join(lines[start:i], "\n"), line: start})
	}
	return blocks
}

// TestTutorial runs docs/tutorial.md: every shell block, in order, in one
// bash (so cd and export carry on) in an empty folder, with xosplan on
// PATH; every text block after a shell block lists lines its output must
// hold. The PostgreSQL step runs against a database of its own when the
// test server is there (make test starts one) and is left out, with a
// message, when not; the rest still runs.
func TestTutorial(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	doc, err := os.ReadFile(filepath.Join(testutil.ModuleRoot(t), "docs", "tutorial.md"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	bin := t.TempDir()
	buildXosplan(ctx, t, bin)
	dbURL := ""
	if os.Getenv(pgtest.EnvDSN) != "" {
		dbURL = pgtest.NewDatabase(t)
	}

	var script strings.Builder
	script.WriteString("set -e\n")
	var ran []tutorialBlock // the shell blocks run, in order
	expect := map[int][]tutorialBlock{}
	skipped := false
	for _, b := range tutorialBlocks(t, string(doc)) {
		switch {
		case b.info == "sh" || b.info == "sh postgres":
			if b.info == "sh postgres" && dbURL == "" {
				t.Logf("docs/tutorial.md:%d: left out: no PostgreSQL test server (%s)", b.line, pgtest.EnvDSN)
				skipped = true
				continue
			}
			skipped = false
			fmt.Fprintf(&script, "echo '@@tutorial block %d@@'\n%s\n", len(ran), b.body)
			ran = append(ran, b)
		case b.info == "text" && !skipped && len(ran) > 0:
			expect[len(ran)-1] = append(expect[len(ran)-1], b)
		}
	}
	work := t.TempDir()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script.String())
	cmd.Dir = work
	cmd.Env = append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"DATABASE_URL="+dbURL, "XOSPLAN_STATE=", "NO_COLOR=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("the tutorial did not finish in 4 minutes:\n%s", out.String())
	}
	// The output of each block, by the markers between them.
	outputs := map[int]string{}
	parts := strings.Split(out.String(), "@@tutorial block ")
	for _, p := range parts[1:] {
		var n int
		if _, err := fmt.Sscanf(p, "%d@@", &n); err == nil {
			_, rest, _ := strings.Cut(p, "\n")
			outputs[n] = rest
		}
	}
	if runErr != nil {
		last := len(parts) - 2
		if last >= 0 && last < len(ran) {
			t.Fatalf("docs/tutorial.md:%d: the block failed (%v):\n%s", ran[last].line, runErr, outputs[last])
		}
		t.Fatalf("the tutorial failed (%v):\n%s", runErr, out.String())
	}
	for i, texts := range expect {
		got := map[string]bool{}
		for _, l := range strings.Split(outputs[i], "\n") {
			got[strings.TrimRight(l, " ")] = true
		}
		for _, tb := range texts {
			for _, want := range strings.Split(tb.body, "\n") {
				if want = strings.TrimRight(want, " "); want != "" && !got[want] {
					t.Errorf("docs/tutorial.md:%d: the output of the block at line %d lacks %q; it was:\n%s", tb.line, ran[i].line, want, outputs[i])
				}
			}
		}
	}
}
