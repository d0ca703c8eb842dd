package policy

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/xosplan/xosplan/pkg/diag"
	"github.com/xosplan/xosplan/pkg/graph"
)

// perNetwork is a policy, in sh, that derives for every resource of type
// "net" in its input a resource "<address>-if" of type "iface" that
// depends on it. The input is canonical JSON, so a resource's address and
// type are next to each other in a fixed form. XOSPLAN_POLICY is the
// policy's name, the prefix of what it derives.
const perNetwork = `in=$(cat)
printf '{"resources":['
sep=''
for a in $(printf '%s' "$in" | grep -o '"address":"[^"]*","type":"net"' | sed 's/"address":"\([^"]*\)".*/\1/'); do
  printf '%s{"name":"%s-if","type":"iface","spec":{"network":"%s"}}' "$sep" "$a" "$a"
  sep=','
done
printf '],"edges":['
sep=''
for a in $(printf '%s' "$in" | grep -o '"address":"[^"]*","type":"net"' | sed 's/"address":"\([^"]*\)".*/\1/'); do
  printf '%s{"source":"%s.%s-if","target":"%s"}' "$sep" "$XOSPLAN_POLICY" "$a" "$a"
  sep=','
done
printf ']}\n'
`

// writePolicy writes an sh policy into dir and returns its path.
func writePolicy(t testing.TB, dir, name, body string) string {
	t.Helper()
	path := filepath.Join(dir, name+".sh")
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// networks returns a graph of nets n1..n<count> and one "other" resource.
func networks(t *testing.T, names ...string) *graph.Graph {
	t.Helper()
	g := graph.New()
	for _, n := range names {
		r := &graph.Resource{Address: n, Type: "net", TypeChain: []string{"net"}, Management: graph.Managed,
			Driver: graph.Driver{Name: graph.DriverNoop}, Spec: map[string]graph.Value{"properties": map[string]graph.Value{"cidr": "10.0.0.0/24"}}}
		if err := g.AddResource(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := g.AddResource(&graph.Resource{Address: "other", Type: "vm", Management: graph.Managed, Spec: map[string]graph.Value{}}); err != nil {
		t.Fatal(err)
	}
	return g
}

func addPolicy(t *testing.T, g *graph.Graph, p graph.Policy) {
	t.Helper()
	if p.Range.File == "" {
		p.Range = diag.Range{File: "service.yaml", Start: diag.Pos{Line: 3, Column: 5}}
	}
	if err := g.AddPolicy(p); err != nil {
		t.Fatal(err)
	}
}

func derivedAddrs(g *graph.Graph) []string {
	var out []string
	for _, r := range g.Resources() {
		if r.DerivedBy != "" {
			out = append(out, r.Address+"<"+r.DerivedBy)
		}
	}
	return out
}

func mustDerive(t *testing.T, g *graph.Graph, opts Options) *graph.Graph {
	t.Helper()
	out, diags := Derive(context.Background(), g, opts)
	if diags.HasErrors() {
		t.Fatalf("Derive: %v", diags)
	}
	return out
}

func TestDeriveAddsResourcesMarkedWithPolicy(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1", "n2")
	addPolicy(t, g, graph.Policy{Name: "ifaces", Implementation: writePolicy(t, dir, "ifaces", perNetwork), Targets: []string{"n1", "n2"}})
	out := mustDerive(t, g, Options{Root: []string{dir}})
	if got, want := derivedAddrs(out), []string{"ifaces.n1-if<ifaces", "ifaces.n2-if<ifaces"}; !slices.Equal(got, want) {
		t.Fatalf("derived %v, want %v", got, want)
	}
	r, _ := out.Resource("ifaces.n1-if")
	if r.Type != "iface" || r.Management != graph.Managed || r.Driver.Name != graph.DriverNoop || r.Spec["network"] != "n1" || r.Range.Start.Line != 3 {
		t.Errorf("derived resource %+v", r)
	}
	var edges []string
	for _, e := range out.Edges() {
		edges = append(edges, e.Source+"->"+e.Target+":"+string(e.Kind))
	}
	if want := []string{"ifaces.n1-if->n1:depends_on", "ifaces.n2-if->n2:depends_on"}; !slices.Equal(edges, want) {
		t.Errorf("edges %v, want %v", edges, want)
	}
	if _, ok := out.Policy("ifaces"); !ok {
		t.Error("the derived graph lost the policy")
	}
	// Deriving again from the result gives the same graph: same input,
	// same addresses.
	again := mustDerive(t, out, Options{Root: []string{dir}})
	if !slices.Equal(again.Addresses(), out.Addresses()) {
		t.Errorf("deriving again gave %v, want %v", again.Addresses(), out.Addresses())
	}
}

func TestResourceNoLongerDerivedLeavesTheGraph(t *testing.T) {
	dir := t.TempDir()
	exe := writePolicy(t, dir, "ifaces", perNetwork)
	before := networks(t, "n1", "n2")
	addPolicy(t, before, graph.Policy{Name: "ifaces", Implementation: exe, Targets: []string{"n1", "n2"}})
	after := networks(t, "n1")
	addPolicy(t, after, graph.Policy{Name: "ifaces", Implementation: exe, Targets: []string{"n1"}})
	if got := derivedAddrs(mustDerive(t, before, Options{Root: []string{dir}})); len(got) != 2 {
		t.Fatalf("before: derived %v", got)
	}
	if got, want := derivedAddrs(mustDerive(t, after, Options{Root: []string{dir}})), []string{"ifaces.n1-if<ifaces"}; !slices.Equal(got, want) {
		t.Fatalf("after: derived %v, want %v", got, want)
	}
}

// logged is a policy that appends its name to runs.log beside it, then
// runs body.
func logged(body string) string {
	return "echo \"$XOSPLAN_POLICY\" >> runs.log\n" + body
}

func runs(t *testing.T, dir string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "runs.log"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(data))
}

// perInterface derives a port for every iface it reads.
const perInterface = `in=$(cat)
printf '{"resources":['
sep=''
for a in $(printf '%s' "$in" | grep -o '"address":"[^"]*","type":"iface"' | sed 's/"address":"\([^"]*\)".*/\1/'); do
  printf '%s{"name":"%s-port","type":"port"}' "$sep" "$a"
  sep=','
done
printf ']}'
`

func TestPolicyReadingAnothersResourcesRunsAfterIt(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	// "a-ports" sorts first but reads what "b-ifaces" derives.
	addPolicy(t, g, graph.Policy{Name: "a-ports", Implementation: writePolicy(t, dir, "ports", logged(perInterface)),
		Properties: map[string]graph.Value{"types": []graph.Value{"iface"}}})
	addPolicy(t, g, graph.Policy{Name: "b-ifaces", Implementation: writePolicy(t, dir, "ifaces", logged(perNetwork)), Targets: []string{"n1"}})
	out := mustDerive(t, g, Options{Root: []string{dir}})
	want := []string{"a-ports.b-ifaces.n1-if-port<a-ports", "b-ifaces.n1-if<b-ifaces"}
	if got := derivedAddrs(out); !slices.Equal(got, want) {
		t.Fatalf("derived %v, want %v", got, want)
	}
	// Round 1 knows no outputs and goes by name; round 2 runs only the
	// policy whose input changed, after the one it reads.
	if got, want := runs(t, dir), []string{"a-ports", "b-ifaces", "a-ports"}; !slices.Equal(got, want) {
		t.Errorf("runs %v, want %v", got, want)
	}
	// A graph that already holds the outputs orders them at once.
	d := &deriver{policies: g.Policies(), outputs: map[string]output{"b-ifaces": {resources: []derived{{res: &graph.Resource{Address: "b-ifaces.x", Type: "iface"}}}}}}
	var order []string
	for _, p := range d.order() {
		order = append(order, p.Name)
	}
	if want := []string{"b-ifaces", "a-ports"}; !slices.Equal(order, want) {
		t.Errorf("order %v, want %v", order, want)
	}
}

func TestPolicyReadingItsOwnOutputReachesAFixedPoint(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	// It reads the ifaces it derives, which change its input once.
	addPolicy(t, g, graph.Policy{Name: "ifaces", Implementation: writePolicy(t, dir, "ifaces", logged(perNetwork)), Targets: []string{"n1"},
		Properties: map[string]graph.Value{"types": []graph.Value{"iface"}}})
	out := mustDerive(t, g, Options{Root: []string{dir}})
	if got := derivedAddrs(out); len(got) != 1 {
		t.Fatalf("derived %v", got)
	}
	if got := runs(t, dir); len(got) != 2 {
		t.Errorf("ran %d times, want 2 (the second sees its output and derives the same)", len(got))
	}
}

func TestPolicyThatKeepsChangingItsOutputIsAnErrorNamingIt(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	// For every net and every iface it reads, one more iface: it never
	// stops growing.
	grow := `in=$(cat)
printf '{"resources":['
sep=''
for a in $(printf '%s' "$in" | grep -o '"address":"[^"]*","type":"\(net\|iface\)"' | sed 's/"address":"\([^"]*\)".*/\1/'); do
  printf '%s{"name":"%s-x","type":"iface"}' "$sep" "$(printf '%s' "$a" | tr . _)"
  sep=','
done
printf ']}'
`
	addPolicy(t, g, graph.Policy{Name: "grower", Implementation: writePolicy(t, dir, "grow", logged(grow)), Targets: []string{"n1"},
		Properties: map[string]graph.Value{"types": []graph.Value{"iface"}}})
	out, diags := Derive(context.Background(), g, Options{Root: []string{dir}, MaxRounds: 4})
	assertCode(t, diags, CodeNoFixedPoint, "grower")
	if got := derivedAddrs(out); len(got) != 0 {
		t.Errorf("a failed derivation returned derived resources %v", got)
	}
	if got := runs(t, dir); len(got) != 4 {
		t.Errorf("ran %d times, want the 4 rounds of the bound", len(got))
	}
}

func assertCode(t *testing.T, diags diag.Diagnostics, code, name string) {
	t.Helper()
	for _, d := range diags {
		if d.Code == code && d.Severity == diag.Error {
			if !strings.Contains(d.Summary, name) {
				t.Errorf("%s does not name %s: %s", code, name, d.Summary)
			}
			if d.Range.File == "" {
				t.Errorf("%s has no position", code)
			}
			return
		}
	}
	t.Fatalf("want %s, got %v", code, diags)
}

func TestPolicyProblemsAreDiagnosticsNamingThePolicy(t *testing.T) {
	cases := []struct {
		name, body, code string
		opts             Options
	}{
		{"not json", `echo 'not json'`, CodeBadOutput, Options{}},
		{"empty", `true`, CodeBadOutput, Options{}},
		{"unknown key", `echo '{"resources":[],"extra":1}'`, CodeBadOutput, Options{}},
		{"unknown resource key", `echo '{"resources":[{"name":"a","type":"t","status":"active"}]}'`, CodeBadOutput, Options{}},
		{"no name", `echo '{"resources":[{"type":"t"}]}'`, CodeBadOutput, Options{}},
		{"no type", `echo '{"resources":[{"name":"a"}]}'`, CodeBadOutput, Options{}},
		{"name twice", `echo '{"resources":[{"name":"a","type":"t"},{"name":"a","type":"t"}]}'`, CodeBadOutput, Options{}},
		{"key twice", `echo '{"resources":[{"name":"a","name":"b","type":"t"}]}'`, CodeBadOutput, Options{}},
		{"control character", `printf '{"resources":[{"name":"a\\u0007","type":"t"}]}'`, CodeBadOutput, Options{}},
		{"unknown value", `echo '{"resources":[{"name":"a","type":"t","spec":{"x":{"$unknown":{"func":"attribute","args":["n1","id"]}}}}]}'`, CodeBadOutput, Options{}},
		{"spec not an object", `echo '{"resources":[{"name":"a","type":"t","spec":[1]}]}'`, CodeBadOutput, Options{}},
		{"edge from a declared resource", `echo '{"resources":[{"name":"a","type":"t"}],"edges":[{"source":"n1","target":"other"}]}'`, CodeBadOutput, Options{}},
		{"edge to what it cannot read", `echo '{"resources":[{"name":"a","type":"t"}],"edges":[{"source":"p.a","target":"other"}]}'`, CodeBadOutput, Options{}},
		{"edge kind", `echo '{"resources":[{"name":"a","type":"t"}],"edges":[{"source":"p.a","target":"n1","kind":"likes"}]}'`, CodeBadOutput, Options{}},
		{"driver from elsewhere", `echo '{"resources":[{"name":"a","driver_from":"other"}]}'`, CodeBadOutput, Options{}},
		{"text after", `echo '{} {}'`, CodeBadOutput, Options{}},
		{"too many", `echo '{"resources":[{"name":"a","type":"t"},{"name":"b","type":"t"}]}'`, CodeBadOutput, Options{MaxResources: 1}},
		{"too large", `head -c 5000 /dev/zero | tr '\0' ' '; echo '{}'`, CodeOutputTooLarge, Options{MaxOutput: 1000}},
		{"exit status", `echo oops >&2; exit 3`, CodeFailed, Options{}},
		{"timeout", `sleep 30`, CodeTimeout, Options{Timeout: 200 * time.Millisecond}},
		{"address conflict", `echo '{"resources":[{"name":"b","type":"t"}]}'`, CodeAddressConflict, Options{}},
		{"set on what it does not read", `echo '{"set":[{"address":"other","path":"properties.x","value":1}]}'`, CodeBadOutput, Options{}},
		{"set on what a policy derives", `echo '{"resources":[{"name":"a","type":"t"}],"set":[{"address":"p.a","path":"properties.x","value":1}]}'`, CodeBadOutput, Options{}},
		{"set without a value", `echo '{"set":[{"address":"n1","path":"properties.x"}]}'`, CodeBadOutput, Options{}},
		{"set null", `echo '{"set":[{"address":"n1","path":"properties.x","value":null}]}'`, CodeBadOutput, Options{}},
		{"set an unknown value", `echo '{"set":[{"address":"n1","path":"properties.x","value":{"$unknown":{"func":"attribute","args":["n1","id"]}}}]}'`, CodeBadOutput, Options{}},
		{"set an empty key", `echo '{"set":[{"address":"n1","path":"properties..x","value":1}]}'`, CodeBadOutput, Options{}},
		{"set twice", `echo '{"set":[{"address":"n1","path":"properties","value":{}},{"address":"n1","path":"properties.x","value":1}]}'`, CodeBadOutput, Options{}},
		{"set override not a boolean", `echo '{"set":[{"address":"n1","path":"properties.x","value":1,"override":"yes"}]}'`, CodeBadOutput, Options{}},
		{"set through a value", `echo '{"set":[{"address":"n1","path":"properties.cidr.bits","value":24}]}'`, CodeBadOutput, Options{}},
		{"set a secret", `echo '{"set":[{"address":"n1","path":"properties.password","value":"x"}]}'`, CodeBadOutput, Options{}},
		{"cycle", `echo '{"resources":[{"name":"a","type":"t"},{"name":"c","type":"t"}],"edges":[{"source":"p.a","target":"p.c"},{"source":"p.c","target":"p.a"}]}'`, CodeDependencyCycle, Options{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			g := networks(t, "n1", "p.b")
			n1, _ := g.Resource("n1")
			n1.Sensitive = []string{"properties.password"}
			addPolicy(t, g, graph.Policy{Name: "p", Implementation: writePolicy(t, dir, "p", tc.body), Targets: []string{"n1"}})
			tc.opts.Root = []string{dir}
			out, diags := Derive(context.Background(), g, tc.opts)
			assertCode(t, diags, tc.code, "policy p")
			if got := derivedAddrs(out); len(got) != 0 {
				t.Errorf("derived %v despite the error", got)
			}
		})
	}
}

func TestPolicyOutsideTheRootIsRefusedUnrun(t *testing.T) {
	root, elsewhere := t.TempDir(), t.TempDir()
	marker := filepath.Join(elsewhere, "ran")
	exe := writePolicy(t, elsewhere, "evil", "touch "+marker+"\necho '{}'")
	link := filepath.Join(root, "link.sh")
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{exe, link, filepath.Join(root, "..", filepath.Base(elsewhere), "evil.sh"), filepath.Join(root, "missing.sh"), root} {
		g := networks(t, "n1")
		addPolicy(t, g, graph.Policy{Name: "evil", Implementation: path, Targets: []string{"n1"}})
		_, diags := Derive(context.Background(), g, Options{Root: []string{root}})
		assertCode(t, diags, CodeOutsideRoot, "evil")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a policy outside the root ran")
	}
}

func TestCanceledDeriveRunsNothing(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	addPolicy(t, g, graph.Policy{Name: "ifaces", Implementation: writePolicy(t, dir, "ifaces", logged(perNetwork)), Targets: []string{"n1"}})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, diags := Derive(ctx, g, Options{Root: []string{dir}})
	assertCode(t, diags, CodeCanceled, "ifaces")
	if _, err := os.Stat(filepath.Join(dir, "runs.log")); err == nil {
		t.Error("a policy ran after cancellation")
	}
}

func TestPolicyReadsNoFeedbackStateNorSecrets(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	r, _ := g.Resource("n1")
	r.Spec["attributes"] = map[string]graph.Value{"instance_id": "i-123", "ip": "10.0.0.7"}
	r.Spec["properties"].(map[string]graph.Value)["gateway"] = graph.Unknown{Func: "attribute", Args: []graph.Value{"other", "ip"}}
	r.Spec["properties"].(map[string]graph.Value)["psk"] = "s3cr3t-psk"
	r.Sensitive = []string{"properties.psk"}
	if err := g.AddEdge(graph.Edge{Source: "n1", Target: "other", Kind: graph.HostedOn}); err != nil {
		t.Fatal(err)
	}
	addPolicy(t, g, graph.Policy{Name: "spy", Implementation: writePolicy(t, dir, "spy", "cat > stdin.json\necho '{}'"), Targets: []string{"n1", "other"},
		Properties: map[string]graph.Value{"zone": "a"}})
	mustDerive(t, g, Options{Root: []string{dir}})
	data, err := os.ReadFile(filepath.Join(dir, "stdin.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, banned := range []string{"attributes", "instance_id", "i-123", "10.0.0.7", "feedback", "status", "backend", "s3cr3t-psk"} {
		if strings.Contains(string(data), banned) {
			t.Errorf("the policy's input holds %q:\n%s", banned, data)
		}
	}
	var doc struct {
		FormatVersion string `json:"format_version"`
		Policy        struct {
			Name          string         `json:"name"`
			AddressPrefix string         `json:"address_prefix"`
			Properties    map[string]any `json:"properties"`
		} `json:"policy"`
		Resources []map[string]any `json:"resources"`
		Edges     []map[string]any `json:"edges"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatalf("the input is not JSON: %v\n%s", err, data)
	}
	if doc.FormatVersion != InputFormatVersion || doc.Policy.Name != "spy" || doc.Policy.AddressPrefix != "spy." || doc.Policy.Properties["zone"] != "a" {
		t.Errorf("input header %+v", doc)
	}
	if len(doc.Resources) != 2 || doc.Resources[0]["address"] != "n1" || len(doc.Edges) != 1 {
		t.Errorf("input resources %v edges %v", doc.Resources, doc.Edges)
	}
	if !strings.Contains(string(data), `"psk":null`) {
		t.Errorf("a sensitive value is not null:\n%s", data)
	}
	if !strings.Contains(string(data), `"gateway":{"$unknown":{"func":"attribute","args":["other","ip"]}}`) {
		t.Errorf("a value known at apply time is not an $unknown:\n%s", data)
	}
	rs, es := inputOf(g, graph.Policy{Name: "spy", Targets: []string{"n1", "other"}})
	again, err := encodeInput(graph.Policy{Name: "spy", Properties: map[string]graph.Value{"zone": "a"}}, rs, es, nil)
	if err != nil || string(again) != string(data) {
		t.Errorf("the input is not deterministic:\n%s\n%s", again, data)
	}
}

func TestDriverFromCopiesTheDriverOfAnInputResource(t *testing.T) {
	dir := t.TempDir()
	g := networks(t, "n1")
	tpl := &graph.Resource{Address: "tpl", Type: "iface", TypeChain: []string{"iface", "root"}, Management: graph.Managed,
		Driver: graph.Driver{Name: graph.DriverExec, Operations: map[string]graph.Operation{"Standard.create": {Implementation: "create.sh"}}}}
	if err := g.AddResource(tpl); err != nil {
		t.Fatal(err)
	}
	addPolicy(t, g, graph.Policy{Name: "p", Implementation: writePolicy(t, dir, "p", `echo '{"resources":[{"name":"a","driver_from":"tpl"}]}'`), Targets: []string{"tpl"}})
	out := mustDerive(t, g, Options{Root: []string{dir}})
	r, ok := out.Resource("p.a")
	if !ok || r.Driver.Name != graph.DriverExec || r.Type != "iface" || !slices.Equal(r.TypeChain, tpl.TypeChain) {
		t.Fatalf("derived %+v", r)
	}
}

func TestGraphWithoutPoliciesIsReturnedAsItIs(t *testing.T) {
	g := networks(t, "n1")
	out, diags := Derive(context.Background(), g, Options{})
	if out != g || len(diags) != 0 {
		t.Errorf("Derive changed a graph without policies: %v", diags)
	}
}

// TestAssembleReportsWhatTheGraphRefuses: what the graph refuses while a
// round's graph is assembled is an internal error at the position of what
// was added (no configuration causes it: Derive takes its policies and
// declared part from a graph that held them), while an edge to a resource
// another policy derived and derives no longer is left out quietly, since
// the policy that printed it runs again.
func TestAssembleReportsWhatTheGraphRefuses(t *testing.T) {
	at := diag.Range{File: "stack.yaml", Start: diag.Pos{Line: 9, Column: 3}}
	p := graph.Policy{Name: "ifaces", Range: at}
	derivedIf := &graph.Resource{Address: "ifaces.n1-if", DerivedBy: "ifaces", Range: at}
	for _, tc := range []struct {
		name     string
		policies []graph.Policy
		edges    []graph.Edge
		want     string // the summary of the one diagnostic; "" for none
	}{
		{name: "a policy twice", policies: []graph.Policy{p, p}, want: "model policy ifaces cannot be kept: duplicate policy name"},
		{name: "an edge from nothing derived", policies: []graph.Policy{p},
			edges: []graph.Edge{{Source: "ifaces.ghost", Target: "n1", Range: at}},
			want:  "the dependency of ifaces.ghost on n1 that policy ifaces derives cannot be kept"},
		{name: "an edge to what is derived no longer", policies: []graph.Policy{p},
			edges: []graph.Edge{{Source: "ifaces.n1-if", Target: "ports.gone", Range: at}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &deriver{g: networks(t, "n1"), policies: tc.policies}
			outputs := map[string]output{}
			if tc.edges != nil {
				outputs["ifaces"] = output{resources: []derived{{res: derivedIf}}, edges: tc.edges}
			}
			out, diags := d.assemble(outputs)
			if tc.want == "" {
				if len(diags) != 0 || len(out.Edges()) != 0 {
					t.Fatalf("diagnostics %v, edges %v: want neither", diags, out.Edges())
				}
				return
			}
			if len(diags) != 1 || diags[0].Code != CodeInternal || diags[0].Severity != diag.Error || diags[0].Range != at ||
				!strings.Contains(diags[0].Summary, tc.want) {
				t.Fatalf("diagnostics %v, want one %s at %v saying %q", diags, CodeInternal, at, tc.want)
			}
		})
	}
}
