package tosca

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

// TestConformance compiles every row of the TOSCA corpus's EXPECTED.tsv and
// compares the verdict: valid → no error diagnostics, invalid → at least
// one. Rows listed in testdata/conformance/exceptions.tsv are ones whose
// expected verdict is wrong by the specification; they are compared the
// other way round. Undisputed rows must all agree and at least
// conformanceTarget percent of all rows must.
// conformanceTarget is the share (percent) of the TOSCA corpus's rows that
// must agree: issue 12 keeps it at 96% or more.
const conformanceTarget = 96

func TestConformance(t *testing.T) {
	corpus := testutil.CorpusDir(t)
	base := filepath.Join(corpus, "tosca")
	rows := readTSV(t, filepath.Join(base, "EXPECTED.tsv"))
	exceptions := map[string]string{}
	for _, r := range readTSV(t, filepath.Join("testdata", "conformance", "exceptions.tsv")) {
		exceptions[r[0]] = r[1]
	}
	// The corpus's files import each other across its folders.
	opts := Options{Root: rootAt(t, corpus)}
	agree, total := 0, 0
	undisputedAgree, undisputed := 0, 0
	bySource := map[string][2]int{} // folder → {agree, total}
	for _, r := range rows {
		if len(r) < 3 {
			continue
		}
		path, expect, reason := r[0], r[1], r[2]
		total++
		_, diags := Compile(context.Background(), filepath.Join(base, path), opts)
		gotValid := !diags.HasErrors()
		wantValid := expect == "valid"
		if _, ok := exceptions[path]; ok {
			wantValid = !wantValid
		}
		disputed := strings.Contains(reason, "DISPUTED")
		src := strings.SplitN(path, "/", 2)[0]
		counts := bySource[src]
		counts[1]++
		if !disputed {
			undisputed++
		}
		if gotValid == wantValid {
			agree++
			counts[0]++
			bySource[src] = counts
			if !disputed {
				undisputedAgree++
			}
			continue
		}
		bySource[src] = counts
		msg := fmt.Sprintf("%s: expected %s, got valid=%v (disputed=%v)", path, expect, gotValid, disputed)
		shown := 0
		for _, d := range diags {
			if d.Severity == diag.Error && shown < 3 {
				msg += "\n    " + d.Error()
				shown++
			}
		}
		if disputed {
			t.Log(msg)
		} else {
			t.Error(msg)
		}
	}
	pct := 100 * float64(agree) / float64(total)
	for _, src := range slices.Sorted(maps.Keys(bySource)) {
		t.Logf("  %-22s %3d/%3d", src, bySource[src][0], bySource[src][1])
	}
	t.Logf("undisputed rows: %d/%d agree", undisputedAgree, undisputed)
	t.Logf("conformance: %d/%d rows agree (%.1f%%), %d exceptions", agree, total, pct, len(exceptions))
	fmt.Fprintf(os.Stderr, "tosca conformance: %d/%d rows agree (%.1f%%)\n", agree, total, pct)
	if pct < conformanceTarget {
		t.Errorf("conformance %.1f%% is below the %d%% target", pct, conformanceTarget)
	}
}

func readTSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out [][]string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	first := true
	for sc.Scan() {
		line := sc.Text()
		if first {
			first = false
			if strings.HasPrefix(line, "path\t") {
				continue
			}
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Split(line, "\t"))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
