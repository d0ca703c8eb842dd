package manifest

import (
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/diag"
)

func TestParsePinDecl(t *testing.T) {
	for _, tc := range []struct {
		in, want, err string
	}{
		{in: "configuration(string)", want: "configuration(string)"},
		{in: "publish-signal( map<string,map<string, list<int>>> )", want: "publish-signal(map<string, map<string, list<int>>>)"},
		{in: "consume-signal(unit)", want: "consume-signal(unit)"},
		{in: "receive-command()", want: "receive-command()"},
		{in: "send-command( => )", want: "send-command( => )"},
		{in: "send-command(string command, int timeout => string stdOut, string stdErr => string stdOut, string stdErr, int exitCode)",
			want: "send-command(string command, int timeout => string stdOut, string stdErr => string stdOut, string stdErr, int exitCode)"},
		{in: "send-command(map<string, object> creds, list<string> url)", want: "send-command(map<string, object> creds, list<string> url)"},
		{in: "configuration(bytes)", want: "configuration(bytes)"},
		{in: "publish-signal(bool)", want: "publish-signal(bool)"},
		{in: "send-command(bool dryRun => list<bool> done)", want: "send-command(bool dryRun => list<bool> done)"},
		{in: "configuration(float)", err: `unknown type "float"`},
		{in: "configuration(list<string>>)", err: `unexpected ">"`},
		{in: "configuration(map<string, int)", err: "missing '>'"},
		{in: "configuration(string<int>)", err: "takes no type arguments"},
		{in: "configure(string)", err: "unknown pin kind"},
		{in: "send-command(string)", err: `expected "TYPE name"`},
		{in: "send-command(string a b)", err: `unexpected "a"`},
		{in: "publish-signal", err: "expected KIND(SIGNATURE)"},
		{in: "configuration(" + strings.Repeat("list<", 40) + "int" + strings.Repeat(">", 40) + ")", err: "deeper than"},
	} {
		k, sig, err := parsePinDecl(tc.in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want one containing %q", tc.in, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case sig.String(k) != tc.want:
			t.Errorf("%s: renders as %s, want %s", tc.in, sig.String(k), tc.want)
		}
	}
}

func TestAssignable(t *testing.T) {
	for _, tc := range []struct {
		from, to string
		want     bool
	}{
		{"string", "string", true},
		{"string", "int", false},
		{"object", "map<string, int>", true},
		{"list<map<string, string>>", "list<object>", true},
		{"map<string, list<string>>", "map<string, list<int>>", false},
		{"map<int, string>", "map<string, string>", false},
		{"unit", "unit", true},
		{"bytes", "string", false},
	} {
		from, err1 := parseType(tc.from)
		to, err2 := parseType(tc.to)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if got := assignable(from, to); got != tc.want {
			t.Errorf("assignable(%s, %s) = %v, want %v", tc.from, tc.to, got, tc.want)
		}
	}
}

func TestRegistry(t *testing.T) {
	r := DefaultRegistry()
	if len(r.Names()) != 9 {
		t.Errorf("default registry has %v", r.Names())
	}
	if DefaultRegistry() == r {
		t.Error("DefaultRegistry must return a fresh registry")
	}
	if err := r.Register(Kind{Name: "acme.Bad", Driver: "noop", Interfaces: map[string]map[string]string{"i": {"p": "publish(string)"}}}); err == nil {
		t.Error("a malformed implicit pin was accepted")
	}
	if _, ok := r.Lookup("acme.Bad"); ok {
		t.Error("a failed Register changed the registry")
	}
	if err := r.Register(Kind{Name: "acme.Thing", Driver: "noop"}); err != nil {
		t.Fatal(err)
	}
	if k, ok := r.Lookup("acme.Thing"); !ok || k.Management != "managed" {
		t.Errorf("Lookup = %+v, %v", k, ok)
	}
}

func TestLooksLike(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want bool
	}{
		{"application:\n  components: {}\n", true},
		{"tosca_definitions_version: tosca_simple_yaml_1_3\n", false},
		{"- application\n", false},
		{"", false},
	} {
		root, _ := parseForTest(tc.src)
		if got := LooksLike(root); got != tc.want {
			t.Errorf("LooksLike(%q) = %v", tc.src, got)
		}
	}
}

func parseForTest(src string) (*yamlsrc.Node, diag.Diagnostics) {
	return yamlsrc.Parse("t.yml", []byte(src), yamlsrc.Limits{})
}
