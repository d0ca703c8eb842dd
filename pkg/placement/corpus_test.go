package placement_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/placement"
)

// exceptions reads testdata/exceptions.tsv: scenario id TAB reason.
func exceptions(t *testing.T) map[string]string {
	out := map[string]string{}
	f, err := os.Open(filepath.Join("testdata", "exceptions.tsv"))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, "\t")
		out[id] = reason
	}
	return out
}

var placeholderRE = regexp.MustCompile(`\{([A-Za-z0-9_\-]+)\}`)

// unbrace turns the corpus's {name} UUID placeholders into names, which is
// what the model uses as identifiers.
func unbrace(s string) string { return placeholderRE.ReplaceAllString(s, "$1") }

func TestCorpus(t *testing.T) {
	dir := testutil.CorpusDir(t, "placement")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios in %s", dir)
	}
	skip := exceptions(t)
	passed, excepted, total := 0, 0, 0
	for _, file := range files {
		id := strings.TrimSuffix(filepath.Base(file), ".yaml")
		total++
		ok := t.Run(id, func(t *testing.T) {
			if reason, ok := skip[id]; ok {
				excepted++
				t.Skipf("exception: %s", reason)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			root, diags := yamlsrc.Parse(file, data, yamlsrc.Limits{})
			if diags.HasErrors() {
				t.Fatal(diags.Err())
			}
			m := placement.NewModel()
			if root.Get("kind") != nil {
				runSequence(t, m, root)
				return
			}
			if d := placement.AddProviders(m, root.Get("providers"), "providers"); d.HasErrors() {
				t.Fatal(d.Err())
			}
			runCandidates(t, m, root)
		})
		if ok {
			passed++
		}
	}
	passed -= excepted
	t.Logf("placement corpus: %d/%d scenarios pass, %d listed as exceptions", passed, total, excepted)
	fmt.Printf("placement corpus: %d/%d scenarios pass, %d listed as exceptions\n", passed, total, excepted)
}

func runCandidates(t *testing.T, m *placement.Model, root *yamlsrc.Node) {
	mvText, _ := root.Get("microversion").String()
	v, err := placement.ParseVersion(mvText)
	if err != nil {
		t.Fatal(err)
	}
	query, _ := root.Get("request").Get("query").String()
	exp := root.Get("expect")
	status, _ := exp.Get("status").Int()
	q, err := placement.ParseQuery(unbrace(query), v)
	var res *placement.Candidates
	if err == nil {
		res, err = m.Candidates(context.Background(), q)
	}
	if got := placement.StatusOf(err); int64(got) != status {
		t.Fatalf("status %d, want %d (err %v)", got, status, err)
	}
	if err != nil {
		for _, want := range strs(exp.Get("error_contains")) {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error %q does not contain %q", err.Error(), want)
			}
		}
		return
	}
	count, _ := exp.Get("candidate_count").Int()
	if int64(len(res.Requests)) != count {
		t.Errorf("%d candidates, want %d", len(res.Requests), count)
	}
	withMappings := v.AtLeast(34)
	got := map[string]int{}
	for _, r := range res.Requests {
		got[placement.RequestKey(r, withMappings)]++
	}
	if unl := exp.Get("candidates_unlimited"); unl != nil {
		allowed := map[string]bool{}
		for _, c := range unl.Items() {
			allowed[expectedKey(c, withMappings)] = true
		}
		for k := range got {
			if !allowed[k] {
				t.Errorf("candidate %s is not in the unlimited set", k)
			}
		}
		checkSummaries(t, res, exp.Get("provider_summaries_of_returned_candidates"), false)
		return
	}
	want := map[string]int{}
	for _, c := range exp.Get("candidates").Items() {
		want[expectedKey(c, withMappings)]++
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("missing candidate %s (got %d, want %d)", k, got[k], n)
		}
	}
	for k, n := range got {
		if want[k] == 0 {
			t.Errorf("unexpected candidate %s (x%d)", k, n)
		}
	}
	checkSummaries(t, res, exp.Get("provider_summaries"), true)
}

func expectedKey(c *yamlsrc.Node, withMappings bool) string {
	allocs, mappings := placement.Allocations{}, map[string][]string{}
	for _, p := range c.Get("allocations").Pairs() {
		res := map[string]int64{}
		for _, rp := range p.Value.Pairs() {
			n, _ := rp.Value.Int()
			res[rp.Key.Value] = n
		}
		allocs[p.Key.Value] = res
	}
	for _, p := range c.Get("mappings").Pairs() {
		mappings[p.Key.Value] = strs(p.Value)
	}
	return placement.RequestKey(placement.NewAllocationRequest(allocs, mappings), withMappings)
}

// checkSummaries compares provider summaries; exact requires the same set
// of providers, otherwise (a limited answer) only the providers both sides
// have are compared and ours must cover the providers we returned.
func checkSummaries(t *testing.T, res *placement.Candidates, want *yamlsrc.Node, exact bool) {
	t.Helper()
	if want == nil {
		return
	}
	wantNames := map[string]bool{}
	for _, p := range want.Pairs() {
		wantNames[p.Key.Value] = true
		got, ok := res.Summaries[p.Key.Value]
		if !ok {
			if exact {
				t.Errorf("summary of %s missing", p.Key.Value)
			}
			continue
		}
		wr := p.Value.Get("resources")
		if len(wr.Pairs()) != len(got.Resources) {
			t.Errorf("summary %s: %d resources, want %d", p.Key.Value, len(got.Resources), len(wr.Pairs()))
		}
		for _, rp := range wr.Pairs() {
			c, _ := rp.Value.Get("capacity").Int()
			u, _ := rp.Value.Get("used").Int()
			if g := got.Resources[rp.Key.Value]; g.Capacity != c || g.Used != u {
				t.Errorf("summary %s %s = %+v, want capacity %d used %d", p.Key.Value, rp.Key.Value, g, c, u)
			}
		}
		if tr := p.Value.Get("traits"); tr != nil {
			w := strs(tr)
			sort.Strings(w)
			if strings.Join(w, ",") != strings.Join(got.Traits, ",") {
				t.Errorf("summary %s traits %v, want %v", p.Key.Value, got.Traits, w)
			}
		}
	}
	if exact {
		for name := range res.Summaries {
			if !wantNames[name] {
				t.Errorf("unexpected summary of %s", name)
			}
		}
	}
}

func strs(n *yamlsrc.Node) []string {
	var out []string
	for _, it := range n.Items() {
		s, _ := it.String()
		out = append(out, s)
	}
	return out
}
