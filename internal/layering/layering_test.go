package layering

import (
	"bufio"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testOnlyOurs lists packages of ours that any _test.go file may import and
// no other file (outside themselves). Test fakes live beside what they fake,
// as net/http/httptest beside net/http: placementtest serves a
// placement.Model over Placement's REST API, planfixture holds the
// planner's case folders and benchmark inputs, pgtest runs throw-away
// PostgreSQL servers (the CI runner .ci/withpg, a hidden folder the go tool
// and this test leave out, uses it too), statetest is the conformance suite
// of state backends, typecmp compares the type files of the embedded type
// libraries, and drivertest holds what the drivers' tests share.
// internal/testutil holds the helpers every package's tests
// share (t.Fatal and t.Skip, golden files, markers); it imports nothing of
// ours, so it fakes nothing and has no package to sit beside, like the
// standard library's internal/testenv. TestTestFakesAreListed checks that
// no package named *test is missing here.
var testOnlyOurs = []string{
	"internal/testutil",
	"pkg/placement/placementtest",
	"pkg/planner/planfixture",
	"pkg/state/pgbackend/pgtest",
	"pkg/state/statetest",
	"pkg/tosca/typecmp",
	"driver/drivertest",
	"internal/browsertest",
}

// testOnlyInInternal lists the test-only packages internal/ may hold, with
// the reason: internal/ holds production libraries only
// (TestInternalHoldsProductionLibraries).
var testOnlyInInternal = map[string]string{
	"internal/testutil":    "the ground floor of every package's tests, importing nothing of ours",
	"internal/layering":    "this test",
	"internal/browsertest": "drives Chromium for the browser tests of pages served and written in two trees (pkg/sync's console, cmd/xosplan's HTML plan); it fakes nothing to sit beside",
}

// ours lists, for each package of ours (matched by the longest path
// prefix, relative to the module root), the packages of ours it may import.
// A package may always import itself and its own sub-packages.
var ours = []struct {
	pkg     string
	imports []string
}{
	{"pkg/diag", nil},
	{"internal/yamlsrc", []string{"pkg/diag"}},
	{"internal/textdiff", nil},
	{"internal/nearest", nil},
	{"internal/quartz", nil},
	{"internal/graphview", nil},
	{"internal/browsertest", nil},
	{"internal/userfile", nil},
	{"internal/canonjson", []string{"pkg/graph"}},
	{"internal/layering", nil},
	{"internal/testutil", nil},
	{"internal/funceval", []string{"pkg/graph"}},
	{"pkg/graph", []string{"pkg/diag"}},
	{"custom_definitions", []string{"pkg/diag", "internal/yamlsrc"}},
	{"pkg/tosca/sol001", []string{"internal/yamlsrc", "pkg/tosca/normative"}}, // yamlsrc and normative: for its tests
	{"pkg/symbols", []string{"pkg/diag"}},
	{"pkg/tosca/typecmp", []string{"internal/yamlsrc"}},
	// What both TOSCA grammar generations share: it knows neither, and
	// the front door (pkg/tosca) and each generation build on it.
	// The compilers of the two TOSCA grammar generations: each on the
	// core only, never on the other or on pkg/tosca (the front door),
	// which reads the root file and calls the one of its version.
	{"pkg/tosca/internal/tosca1", []string{"pkg/tosca/internal/core", "pkg/tosca/internal/values", "pkg/tosca/normative", "pkg/tosca/sol001", "custom_definitions", "internal/userfile", "internal/yamlsrc", "pkg/graph", "pkg/diag", "pkg/symbols"}},
	{"pkg/tosca/internal/tosca2", []string{"pkg/tosca/internal/core", "pkg/tosca/internal/values", "internal/funceval", "internal/userfile", "internal/yamlsrc", "pkg/graph", "pkg/diag", "pkg/symbols"}},
	{"pkg/tosca/internal/core", []string{"internal/userfile", "internal/nearest", "internal/yamlsrc", "pkg/tosca/internal/values", "pkg/graph", "pkg/diag"}},
	{"pkg/tosca", []string{"internal/userfile", "internal/nearest", "internal/funceval", "pkg/graph", "pkg/diag", "internal/yamlsrc", "custom_definitions", "pkg/symbols"}},
	{"pkg/manifest", []string{"internal/userfile", "internal/quartz", "pkg/graph", "pkg/diag", "internal/yamlsrc", "pkg/symbols"}},
	{"pkg/state", []string{"internal/userfile", "internal/canonjson", "pkg/graph", "pkg/diag"}},
	{"pkg/state/pgbackend/pgtest", nil},
	{"pkg/placement", []string{"internal/userfile", "pkg/diag", "internal/yamlsrc"}},
	{"pkg/placement/placementtest", []string{"pkg/placement"}},
	{"pkg/planner/planfixture", []string{"pkg/graph", "pkg/state"}}, // not pkg/planner: its in-package tests use it
	{"pkg/planner", []string{"internal/userfile", "internal/canonjson", "pkg/graph", "pkg/state", "pkg/placement", "pkg/diag", "internal/textdiff"}},
	{"pkg/redact", []string{"pkg/graph", "pkg/state"}},
	{"pkg/process", []string{"internal/userfile", "pkg/redact", "pkg/state"}},
	// driver is the contract the walk knows; each folder below it but all
	// and drivertest is a driver (see checkDrivers).
	{"driver", []string{"internal/userfile", "internal/canonjson", "internal/yamlsrc", "pkg/diag", "pkg/graph", "pkg/state", "pkg/redact", "pkg/process"}},
	{"driver/all", []string{"driver", "pkg/graph"}}, // the registration point: every driver
	{"driver/drivertest", []string{"driver", "pkg/graph", "pkg/state"}},
	// The placement driver reaches Placement through pkg/placement's client.
	{"driver/placement", []string{"driver", "pkg/graph", "pkg/state", "pkg/placement", "internal/testutil"}},
	{"pkg/executor", []string{"internal/userfile", "internal/canonjson", "internal/funceval", "pkg/planner", "pkg/state", "pkg/graph", "pkg/diag", "driver", "pkg/redact", "pkg/process"}}, // driver: the contract only (checkDrivers)
	{"pkg/policy", []string{"internal/userfile", "internal/canonjson", "pkg/process", "pkg/planner", "pkg/graph", "pkg/diag"}},                                                             // not pkg/executor: a policy is a program, not an apply
	{"pkg/config", []string{"pkg/symbols", "pkg/tosca", "pkg/manifest", "pkg/placement", "pkg/graph", "pkg/diag", "internal/yamlsrc", "internal/userfile"}},
	{"pkg/lsp", []string{"pkg/config", "pkg/symbols", "pkg/tosca", "pkg/manifest", "pkg/diag"}},
	// The operations layer: it drives the stages below it; cmd/xosplan and
	// pkg/sync drive it.
	{"pkg/workflow", []string{"pkg/config", "pkg/policy", "pkg/planner", "pkg/executor", "pkg/state", "pkg/placement", "pkg/graph", "pkg/diag", "driver/all", "driver"}},       // driver: the contract's optional parts (a driver's prerequisites, included files)
	{"pkg/sync", []string{"internal/canonjson", "internal/quartz", "internal/graphview", "pkg/workflow", "pkg/executor", "pkg/planner", "pkg/state", "pkg/graph", "pkg/diag"}}, // workflow: the goal
	{"cmd/xosplan", []string{""}}, // anything of ours, but see forbidden
}

// forbidden lists imports that the rule of a package in ours allows but
// that the package may not make (the package and the target are path
// prefixes), with the reason.
var forbidden = []struct{ pkg, target, why string }{
	// A command loads configuration through pkg/config, as any library
	// user does, so the CLI cannot hold a loader of its own.
	{"cmd", "pkg/tosca", "configuration is loaded through pkg/config (DESIGN.md §1)"},
	{"cmd", "pkg/manifest", "configuration is loaded through pkg/config (DESIGN.md §1)"},
	// A model policy is a program run by the process runner, not an apply.
	{"pkg/policy", "pkg/executor", "a policy runs through pkg/process; the executor is the apply walk (issue 22)"},
	// The walk calls drivers through the contract of package driver, never
	// the reverse, so a driver can be added or tested without the walk.
	{"driver", "pkg/executor", "a driver implements package driver's contract; the walk calls it, not the reverse"},
	// The synchronizer reconciles the format-neutral graph: what it needs
	// of a format (a discovery schedule) is a field of the graph.
	// The goal pipeline compiles through pkg/config, and runs the model
	// policies itself: the command holds no second pipeline.
	{"pkg/workflow", "pkg/tosca", "configuration is loaded through pkg/config (DESIGN.md §1)"},
	{"pkg/workflow", "pkg/manifest", "configuration is loaded through pkg/config (DESIGN.md §1)"},
	{"cmd", "pkg/policy", "model policies run in the goal pipeline of pkg/workflow (DESIGN.md §1)"},
	{"pkg/sync", "pkg/manifest", "pkg/sync never imports a format package: it reads the graph (DESIGN.md §1)"},
	{"pkg/sync", "pkg/tosca", "pkg/sync never imports a format package: it reads the graph (DESIGN.md §1)"},
	{"pkg/sync", "pkg/config", "pkg/sync never imports a format package: it reads the graph (DESIGN.md §1)"},
}

// thirdParty lists each third-party module and the packages of ours that
// may import it (path prefixes; "" = anywhere). testOnly modules may be
// imported by _test.go files anywhere and by nothing else.
var thirdParty = []struct {
	module   string
	allowed  []string
	testOnly bool
}{
	{module: "go.yaml.in/yaml", allowed: []string{"internal/yamlsrc"}},
	{module: "gopkg.in/yaml", allowed: []string{"internal/yamlsrc"}},
	{module: "github.com/dominikbraun/graph", allowed: []string{"pkg/graph"}},
	{module: "github.com/spf13/cobra", allowed: []string{"cmd/xosplan"}},
	{module: "github.com/spf13/pflag", allowed: []string{"cmd/xosplan"}},
	{module: "github.com/sergi/go-diff", allowed: []string{"internal/textdiff"}},
	{module: "github.com/jackc/pgx", allowed: []string{"pkg/state", "pkg/sync/pgcluster"}}, // pgcluster: River's driver takes a pgx pool
	{module: "github.com/riverqueue/river", allowed: []string{"pkg/sync/pgcluster"}},       // the synchronizers' job queue
	{module: "golang.org/x/crypto", allowed: []string{"pkg/planner"}},                      // argon2id of plan input values
	{module: "github.com/prometheus/client_golang", allowed: []string{"pkg/sync"}},         // the synchronizer's /metrics
	{module: "github.com/fsnotify/fsnotify", allowed: []string{"pkg/sync"}},                // the synchronizer's file watch
	{module: "github.com/chromedp", allowed: []string{"internal/browsertest"}},             // the browser tests' driver of Chromium
	{module: "github.com/santhosh-tekuri/jsonschema", testOnly: true},
	{module: "github.com/tliron/glsp", allowed: []string{"pkg/lsp"}},
	{module: "github.com/sourcegraph/jsonrpc2", allowed: []string{"pkg/lsp"}},
	{module: "github.com/rogpeppe/go-internal", testOnly: true},
}

// goFile is one Go source file of the module.
type goFile struct {
	rel  string // path relative to the module root, with forward slashes
	pkg  string // its folder, relative to the module root
	test bool
}

// moduleRoot returns the module root folder and module path.
func moduleRoot(t *testing.T) (string, string) {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if mod, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module "); ok {
			return root, strings.TrimSpace(mod)
		}
	}
	t.Fatal("go.mod has no module line")
	return "", ""
}

// goFiles lists the module's Go files, leaving out testdata and hidden
// folders, which the go tool ignores too.
func goFiles(t *testing.T, root string) []goFile {
	t.Helper()
	var files []goFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(name, ".go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		files = append(files, goFile{rel: rel, pkg: pathDir(rel), test: strings.HasSuffix(name, "_test.go")})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func pathDir(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return ""
}

// under reports whether pkg is prefix or inside it.
func under(pkg, prefix string) bool {
	return prefix == "" || pkg == prefix || strings.HasPrefix(pkg, prefix+"/")
}

// ruleFor returns the rule of the longest matching package prefix.
func ruleFor(pkg string) (string, []string, bool) {
	best := -1
	for i, r := range ours {
		if under(pkg, r.pkg) && (best < 0 || len(r.pkg) > len(ours[best].pkg)) {
			best = i
		}
	}
	if best < 0 {
		return "", nil, false
	}
	return ours[best].pkg, ours[best].imports, true
}

func isStdlib(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func TestImportLayering(t *testing.T) {
	root, module := moduleRoot(t)
	fset := token.NewFileSet()
	for _, f := range goFiles(t, root) {
		file, err := parser.ParseFile(fset, filepath.Join(root, f.rel), nil, parser.ImportsOnly)
		if err != nil {
			t.Errorf("%s: %v", f.rel, err)
			continue
		}
		for _, spec := range file.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			where := fmt.Sprintf("%s:%d", f.rel, fset.Position(spec.Pos()).Line)
			switch {
			case isStdlib(path):
			case path == module || strings.HasPrefix(path, module+"/"):
				if msg := checkOurs(f, strings.TrimPrefix(strings.TrimPrefix(path, module), "/")); msg != "" {
					t.Errorf("%s: %s", where, msg)
				}
			default:
				if msg := checkThirdParty(f, path); msg != "" {
					t.Errorf("%s: %s", where, msg)
				}
			}
		}
	}
}

// checkOurs returns why f may not import target (a package of ours, relative
// to the module root), or "".
func checkOurs(f goFile, target string) string {
	if under(target, "cmd") && !under(f.pkg, "cmd") {
		return fmt.Sprintf("%s imports %s: nothing outside cmd/ may import cmd/", f.pkg, target)
	}
	// Before a package's own sub-packages are allowed: a fake beside what
	// it fakes (pkg/placement/placementtest) is still for tests only.
	for _, p := range testOnlyOurs {
		if !under(target, p) || under(f.pkg, p) {
			continue
		}
		if f.test {
			return ""
		}
		return fmt.Sprintf("%s imports %s outside a _test.go file; it is a test helper package", f.pkg, target)
	}
	if under(target, f.pkg) {
		return ""
	}
	if driverOf(target) != "" {
		return checkDrivers(f, target)
	}
	for _, fb := range forbidden {
		if under(f.pkg, fb.pkg) && under(target, fb.target) {
			return fmt.Sprintf("%s imports %s: %s", f.pkg, target, fb.why)
		}
	}
	rulePkg, allowed, ok := ruleFor(f.pkg)
	if !ok {
		return fmt.Sprintf("package %s has no layering rule; add it to the table in internal/layering/layering_test.go (DESIGN.md §1)", f.pkg)
	}
	if under(target, rulePkg) {
		return ""
	}
	for _, a := range allowed {
		if under(target, a) {
			return ""
		}
	}
	return fmt.Sprintf("%s imports %s, but the layering rule for %s allows only %s", f.pkg, target, rulePkg, describe(allowed))
}

// driverOf returns the driver package pkg is in ("driver/exec" for
// driver/exec and its sub-packages), or "" when pkg is no driver: the
// contract (driver), the registration point (driver/all) and the tests'
// helpers (driver/drivertest) are none.
func driverOf(pkg string) string {
	rest, ok := strings.CutPrefix(pkg, "driver/")
	if !ok {
		return ""
	}
	name, _, _ := strings.Cut(rest, "/")
	if name == "all" || name == "drivertest" {
		return ""
	}
	return "driver/" + name
}

// checkDrivers returns why f may not import the driver target, or "":
// drivers never import each other, not even in tests; outside tests only
// the registration point, driver/all, imports a driver, so the walk
// (pkg/executor) and the CLI name none. Tests may (the walk's run real
// drivers). A new driver is then a folder
// under driver/ and a line in driver/all, and this rule covers it as it is.
func checkDrivers(f goFile, target string) string {
	d, own := driverOf(target), driverOf(f.pkg)
	switch {
	case own == d:
		return ""
	case own != "":
		return fmt.Sprintf("%s imports %s: drivers never import each other; what they share belongs in package driver", f.pkg, target)
	case f.test || under(f.pkg, "driver/all"):
		return ""
	}
	return fmt.Sprintf("%s imports %s: only driver/all, the registration point, imports a driver (the walk names none)", f.pkg, target)
}

// checkThirdParty returns why f may not import the third-party package
// path, or "".
func checkThirdParty(f goFile, path string) string {
	for _, tp := range thirdParty {
		if path != tp.module && !strings.HasPrefix(path, tp.module+"/") {
			continue
		}
		if tp.testOnly {
			if !f.test {
				return fmt.Sprintf("%s imports %s outside a _test.go file; it is allowed in tests only", f.pkg, path)
			}
			return ""
		}
		for _, a := range tp.allowed {
			if under(f.pkg, a) {
				return ""
			}
		}
		return fmt.Sprintf("%s imports %s, which only its wrapper %s may import", f.pkg, path, describe(tp.allowed))
	}
	return fmt.Sprintf("%s imports %s, a third-party module with no rule; add it (and its one wrapper package) to internal/layering/layering_test.go", f.pkg, path)
}

func describe(pkgs []string) string {
	if len(pkgs) == 0 {
		return "nothing of ours"
	}
	return strings.Join(pkgs, ", ")
}

// TestNoThirdPartyInExportedSignatures checks that no exported declaration
// outside cmd/ mentions a third-party package (STYLE rule 4): each library
// stays behind its one wrapper.
func TestNoThirdPartyInExportedSignatures(t *testing.T) {
	root, module := moduleRoot(t)
	fset := token.NewFileSet()
	for _, f := range goFiles(t, root) {
		if f.test || under(f.pkg, "cmd") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f.rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", f.rel, err)
			continue
		}
		names := thirdPartyNames(file, module)
		if len(names) == 0 {
			continue
		}
		for _, decl := range file.Decls {
			for _, n := range exportedParts(decl) {
				ast.Inspect(n, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					if id, ok := sel.X.(*ast.Ident); ok && names[id.Name] != "" {
						t.Errorf("%s:%d: exported declaration uses %s.%s from %s; keep third-party types behind the wrapper",
							f.rel, fset.Position(sel.Pos()).Line, id.Name, sel.Sel.Name, names[id.Name])
					}
					return true
				})
			}
		}
	}
}

// thirdPartyNames maps the local names of a file's third-party imports to
// their paths. The default name is the last path element without a major
// version suffix, which holds for every module we allow.
func thirdPartyNames(file *ast.File, module string) map[string]string {
	names := map[string]string{}
	for _, spec := range file.Imports {
		path, _ := strconv.Unquote(spec.Path.Value)
		if isStdlib(path) || path == module || strings.HasPrefix(path, module+"/") {
			continue
		}
		name := ""
		if spec.Name != nil {
			name = spec.Name.Name
		} else {
			parts := strings.Split(path, "/")
			name = parts[len(parts)-1]
			if len(parts) > 1 && len(name) > 1 && name[0] == 'v' && strings.Trim(name[1:], "0123456789") == "" {
				name = parts[len(parts)-2]
			}
			name = strings.TrimPrefix(strings.TrimPrefix(name, "go-"), "go.")
		}
		if name != "_" && name != "." {
			names[name] = path
		}
	}
	return names
}

// exportedParts returns the parts of a declaration that other packages
// see: signatures of exported functions and of exported methods on
// exported types, exported types (with their exported fields), and the
// types of exported variables and constants.
func exportedParts(decl ast.Decl) []ast.Node {
	var out []ast.Node
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() {
			return nil
		}
		if d.Recv != nil && len(d.Recv.List) > 0 && !exportedReceiver(d.Recv.List[0].Type) {
			return nil
		}
		out = append(out, d.Type)
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() {
					out = append(out, exportedTypeParts(s.Type)...)
				}
			case *ast.ValueSpec:
				if s.Type != nil && slices.ContainsFunc(s.Names, func(n *ast.Ident) bool { return n.IsExported() }) {
					out = append(out, s.Type)
				}
			}
		}
	}
	return out
}

func exportedTypeParts(typ ast.Expr) []ast.Node {
	st, ok := typ.(*ast.StructType)
	if !ok {
		return []ast.Node{typ}
	}
	var out []ast.Node
	for _, field := range st.Fields.List {
		embeddedOrExported := len(field.Names) == 0 || slices.ContainsFunc(field.Names, func(n *ast.Ident) bool { return n.IsExported() })
		if embeddedOrExported {
			out = append(out, field.Type)
		}
	}
	return out
}

func exportedReceiver(typ ast.Expr) bool {
	for {
		switch x := typ.(type) {
		case *ast.StarExpr:
			typ = x.X
		case *ast.IndexExpr:
			typ = x.X
		case *ast.IndexListExpr:
			typ = x.X
		case *ast.Ident:
			return x.IsExported()
		default:
			return false
		}
	}
}

// TestPkgNeverPrintsOrExits checks STYLE rule 1: library packages (the
// drivers too) return data, diagnostics and errors; only cmd/xosplan
// writes to the terminal or ends the process.
func TestPkgNeverPrintsOrExits(t *testing.T) {
	root, _ := moduleRoot(t)
	forbidden := map[string]map[string]bool{
		"os":  {"Exit": true, "Stdout": true, "Stderr": true},
		"fmt": {"Print": true, "Printf": true, "Println": true},
		"log": {"Print": true, "Printf": true, "Println": true, "Fatal": true, "Fatalf": true, "Fatalln": true, "Panic": true, "Panicf": true, "Panicln": true},
	}
	fset := token.NewFileSet()
	for _, f := range goFiles(t, root) {
		if f.test || !(under(f.pkg, "pkg") || under(f.pkg, "driver") || under(f.pkg, "internal") || under(f.pkg, "custom_definitions")) {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f.rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", f.rel, err)
			continue
		}
		local := map[string]string{} // local name → std package
		for _, spec := range file.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if _, ok := forbidden[path]; !ok {
				continue
			}
			name := path
			if spec.Name != nil {
				name = spec.Name.Name
			}
			local[name] = path
		}
		forEachQualified(file, local, func(pkg, name string, pos token.Pos) {
			if forbidden[pkg][name] {
				t.Errorf("%s:%d: %s uses %s.%s; library packages return results and never print or exit (STYLE rule 1)",
					f.rel, fset.Position(pos).Line, f.pkg, pkg, name)
			}
		})
	}
}

// forEachQualified calls visit for every qualified identifier pkg.Name in
// file whose package is one of local's (local name → package).
func forEachQualified(file *ast.File, local map[string]string, visit func(pkg, name string, pos token.Pos)) {
	ast.Inspect(file, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok && local[id.Name] != "" {
			visit(local[id.Name], sel.Sel.Name, sel.Pos())
		}
		return true
	})
}

// TestRules checks the rule tables themselves on known-good and known-bad
// imports, so that a too-lenient table cannot pass silently.
func TestRules(t *testing.T) {
	src := func(pkg string) goFile { return goFile{rel: pkg + "/x.go", pkg: pkg} }
	test := func(pkg string) goFile { return goFile{rel: pkg + "/x_test.go", pkg: pkg, test: true} }
	for _, tc := range []struct {
		file   goFile
		target string // ours: relative path; third party: full path
		third  bool
		want   string // substring of the complaint; "" = allowed
	}{
		{src("pkg/tosca"), "pkg/graph", false, ""},
		{src("pkg/tosca/internal/values"), "pkg/tosca/normative", false, ""},
		{src("pkg/tosca"), "custom_definitions", false, ""},
		{src("pkg/tosca"), "pkg/tosca/internal/core", false, ""},
		{src("pkg/tosca/internal/core"), "pkg/tosca", false, "the layering rule for pkg/tosca/internal/core allows only"},
		{src("pkg/tosca"), "pkg/tosca/internal/tosca2", false, ""},
		{src("pkg/tosca"), "pkg/tosca/internal/tosca1", false, ""},
		{src("pkg/tosca/internal/tosca1"), "pkg/tosca/internal/core", false, ""},
		{src("pkg/tosca/internal/tosca1"), "pkg/tosca/internal/tosca2", false, "the layering rule for pkg/tosca/internal/tosca1 allows only"},
		{src("pkg/tosca/internal/tosca2"), "pkg/tosca/internal/tosca1", false, "the layering rule for pkg/tosca/internal/tosca2 allows only"},
		{src("pkg/tosca/internal/tosca1"), "pkg/tosca", false, "the layering rule for pkg/tosca/internal/tosca1 allows only"},
		{src("pkg/tosca/internal/tosca2"), "pkg/tosca/internal/core", false, ""},
		{src("pkg/tosca/internal/tosca2"), "pkg/tosca", false, "the layering rule for pkg/tosca/internal/tosca2 allows only"},
		{src("pkg/tosca/internal/core"), "pkg/tosca/internal/tosca2", false, "the layering rule for pkg/tosca/internal/core allows only"},
		{src("pkg/tosca/internal/core"), "pkg/tosca/normative", false, "the layering rule for pkg/tosca/internal/core allows only"},
		{src("pkg/graph"), "pkg/tosca", false, "the layering rule for pkg/graph allows only pkg/diag"},
		{src("pkg/diag"), "internal/yamlsrc", false, "allows only nothing of ours"},
		{src("pkg/placement"), "pkg/graph", false, "rule for pkg/placement"},
		{src("pkg/planner"), "pkg/executor", false, "rule for pkg/planner"},
		{src("pkg/executor"), "cmd/xosplan/internal/diagview", false, "nothing outside cmd/ may import cmd/"},
		{src("cmd/xosplan"), "pkg/executor", false, ""},
		{src("cmd/xosplan"), "pkg/config", false, ""},
		{src("cmd/xosplan"), "pkg/tosca", false, "configuration is loaded through pkg/config"},
		{test("cmd/xosplan"), "pkg/manifest", false, "configuration is loaded through pkg/config"},
		{src("cmd/xosplan/internal/diagview"), "pkg/tosca/normative", false, "configuration is loaded through pkg/config"},
		{src("pkg/config"), "pkg/tosca", false, ""},
		{src("pkg/config"), "pkg/planner", false, "rule for pkg/config"},
		{src("pkg/tosca"), "pkg/config", false, "rule for pkg/tosca"},
		{src("tools/gen"), "pkg/diag", false, "has no layering rule"},
		{src("pkg/sync"), "pkg/manifest", false, "pkg/sync never imports a format package"},
		{src("pkg/sync/pgcluster"), "pkg/tosca/normative", false, "pkg/sync never imports a format package"},
		{test("pkg/sync"), "pkg/config", false, "pkg/sync never imports a format package"},
		{src("pkg/sync"), "internal/quartz", false, ""},
		{src("pkg/sync"), "pkg/workflow", false, ""},
		{src("pkg/workflow"), "pkg/config", false, ""},
		{src("pkg/workflow"), "pkg/policy", false, ""},
		{src("pkg/workflow"), "pkg/manifest", false, "configuration is loaded through pkg/config"},
		{src("pkg/workflow"), "pkg/sync", false, "rule for pkg/workflow"},
		{src("pkg/workflow"), "pkg/lsp", false, "rule for pkg/workflow"},
		{src("pkg/planner"), "pkg/workflow", false, "rule for pkg/planner"},
		{src("cmd/xosplan"), "pkg/workflow", false, ""},
		{src("cmd/xosplan"), "pkg/policy", false, "goal pipeline of pkg/workflow"},
		{src("pkg/manifest"), "internal/quartz", false, ""},
		{test("pkg/tosca"), "internal/testutil", false, ""},
		{test("pkg/diag"), "internal/testutil", false, ""},
		{src("pkg/tosca"), "internal/testutil", false, "outside a _test.go file"},
		{src("cmd/xosplan"), "internal/testutil", false, "outside a _test.go file"},
		{src("internal/testutil"), "pkg/diag", false, "allows only nothing of ours"},
		{test("pkg/placement"), "pkg/placement/placementtest", false, ""},
		{test("cmd/xosplan"), "pkg/placement/placementtest", false, ""},
		{src("pkg/placement"), "pkg/placement/placementtest", false, "outside a _test.go file"},
		{src("pkg/placement/placementtest"), "pkg/placement", false, ""},
		{src("pkg/placement/placementtest"), "pkg/graph", false, "rule for pkg/placement/placementtest"},
		{src("pkg/planner"), "pkg/planner/planfixture", false, "outside a _test.go file"},
		{test("pkg/planner"), "pkg/planner/planfixture", false, ""},
		{src("cmd/xosplan"), "pkg/planner/planfixture", false, "outside a _test.go file"},
		{src("pkg/state"), "pkg/state/statetest", false, "outside a _test.go file"},
		{src("pkg/state/pgbackend"), "pkg/state/pgbackend/pgtest", false, "outside a _test.go file"},
		{test("pkg/state/pgbackend"), "pkg/state/pgbackend/pgtest", false, ""},
		{src("pkg/tosca/normative"), "pkg/tosca/typecmp", false, "outside a _test.go file"},
		{test("custom_definitions"), "pkg/tosca/typecmp", false, ""},
		{src("internal/yamlsrc"), "go.yaml.in/yaml/v3", true, ""},
		{src("pkg/tosca"), "go.yaml.in/yaml/v3", true, "only its wrapper internal/yamlsrc"},
		{src("pkg/planner"), "github.com/dominikbraun/graph", true, "only its wrapper pkg/graph"},
		{src("cmd/xosplan"), "github.com/spf13/cobra", true, ""},
		{src("pkg/state/postgres"), "github.com/jackc/pgx/v5/pgxpool", true, ""},
		{test("cmd/xosplan/internal/diagview"), "github.com/santhosh-tekuri/jsonschema/v6", true, ""},
		{src("cmd/xosplan/internal/diagview"), "github.com/santhosh-tekuri/jsonschema/v6", true, "allowed in tests only"},
		{src("pkg/tosca"), "github.com/example/leftpad", true, "third-party module with no rule"},
	} {
		var got string
		if tc.third {
			got = checkThirdParty(tc.file, tc.target)
		} else {
			got = checkOurs(tc.file, tc.target)
		}
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s importing %s: got %q, want %q", tc.file.rel, tc.target, got, tc.want)
		}
	}
}

// TestCheckDrivers checks the drivers' rules on imports the tree does not
// make (it must not), among them those of a driver added later.
func TestCheckDrivers(t *testing.T) {
	for _, tc := range []struct {
		pkg, target string
		test, ok    bool
	}{
		{"driver/exec", "driver/exec/internal/x", false, true},
		{"driver/exec", "driver/scripted", false, false},
		{"driver/ansible", "driver/exec", true, false},
		{"driver/all", "driver/ansible", false, true},
		{"pkg/executor", "driver/exec", false, false},
		{"pkg/executor", "driver/exec", true, true},
		{"cmd/xosplan", "driver/noop", false, false},
		{"pkg/sync", "driver/exec", true, true},
	} {
		got := checkDrivers(goFile{pkg: tc.pkg, test: tc.test}, tc.target)
		if (got == "") != tc.ok {
			t.Errorf("%s (test %v) imports %s: %q, want allowed %v", tc.pkg, tc.test, tc.target, got, tc.ok)
		}
	}
	for _, tc := range []struct{ pkg, target string }{
		{"pkg/policy", "pkg/executor"},
		{"driver/exec", "pkg/executor"},
	} {
		if checkOurs(goFile{pkg: tc.pkg}, tc.target) == "" {
			t.Errorf("%s may import %s", tc.pkg, tc.target)
		}
	}
	if checkOurs(goFile{pkg: "cmd/xosplan"}, "driver/all") != "" || checkOurs(goFile{pkg: "pkg/executor"}, "driver") != "" {
		t.Error("the registration point or the contract is refused")
	}
}

// TestTestFakesAreListed checks that every package of ours named *test (a
// fake, as net/http/httptest) is in testOnlyOurs, so that only _test.go
// files may import it.
func TestTestFakesAreListed(t *testing.T) {
	root, _ := moduleRoot(t)
	for _, pkg := range packages(t, root) {
		name := pkg[strings.LastIndexByte(pkg, '/')+1:]
		if strings.HasSuffix(name, "test") && !slices.Contains(testOnlyOurs, pkg) {
			t.Errorf("%s is named as a test fake but is not in testOnlyOurs (internal/layering/layering_test.go); only _test.go files may import a fake", pkg)
		}
	}
}

// TestInternalHoldsProductionLibraries checks that every package under
// internal/ is imported by a non-test file of another package: test-only
// packages live beside what they fake (pkg/placement/placementtest), not on
// the ground floor beside the production libraries, save the ones
// testOnlyInInternal names.
func TestInternalHoldsProductionLibraries(t *testing.T) {
	root, module := moduleRoot(t)
	usedBy := map[string]bool{} // package of ours → imported by a non-test file of another package
	fset := token.NewFileSet()
	for _, f := range goFiles(t, root) {
		if f.test {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f.rel), nil, parser.ImportsOnly)
		if err != nil {
			t.Fatalf("%s: %v", f.rel, err)
		}
		for _, spec := range file.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			if target, ok := strings.CutPrefix(path, module+"/"); ok && target != f.pkg {
				usedBy[target] = true
			}
		}
	}
	for _, pkg := range packages(t, root) {
		if !under(pkg, "internal") || usedBy[pkg] {
			continue
		}
		if why, ok := testOnlyInInternal[pkg]; ok {
			t.Logf("%s is test-only: %s", pkg, why)
			continue
		}
		t.Errorf("%s is imported by no non-test file: internal/ holds production libraries only; move a test helper beside the package it fakes (as net/http/httptest), or into the _test.go files that use it", pkg)
	}
	for _, p := range testOnlyOurs {
		if _, ok := testOnlyInInternal[p]; under(p, "internal") && !ok {
			t.Errorf("testOnlyOurs lists %s: internal/ holds production libraries only", p)
		}
	}
}

// packages lists the folders of the module that hold a non-test Go file.
func packages(t *testing.T, root string) []string {
	t.Helper()
	var pkgs []string
	for _, f := range goFiles(t, root) {
		if !f.test && !slices.Contains(pkgs, f.pkg) {
			pkgs = append(pkgs, f.pkg)
		}
	}
	return pkgs
}

// cmdForbiddenCalls lists, by package of ours, the functions that only
// the operations layer calls: steps of the goal pipeline, of applying a
// saved plan, of placement at apply time, and the parts a sync.Service
// assembles (the engine, its API, the watch, the cluster membership). cmd/ holds flags, views, exit
// codes and signals (DESIGN.md §1), and calls pkg/workflow for these, so
// that a library user gets the same operations the command runs.
var cmdForbiddenCalls = map[string][]string{
	"pkg/planner":  {"Diff", "Verify", "CheckStale", "CheckState", "NewClaimer", "SeedAllocations", "Digests", "Digest", "NewInputSalt"},
	"pkg/executor": {"Apply", "NewRedactorFor", "OperationFiles"},
	// The synchronizer's parts: the command starts a sync.Service, which
	// assembles them.
	"pkg/sync":           {"New", "Handler", "Watch", "NewMetrics"},
	"pkg/sync/pgcluster": {"Open", "LockState"},
}

// checkCmdCall returns why a non-test file of cmd/ may not call fn of the
// package of ours pkg (relative to the module root), or "".
func checkCmdCall(pkg, fn string) string {
	if slices.Contains(cmdForbiddenCalls[pkg], fn) {
		return fmt.Sprintf("cmd calls %s.%s, a step of an operation: call pkg/workflow (or start a sync.Service), which holds the operations a library user needs too", pkg, fn)
	}
	return ""
}

// TestCmdHoldsNoOperations checks that the command calls no step of an
// operation itself (cmdForbiddenCalls).
func TestCmdHoldsNoOperations(t *testing.T) {
	root, module := moduleRoot(t)
	fset := token.NewFileSet()
	for _, f := range goFiles(t, root) {
		if f.test || !under(f.pkg, "cmd") {
			continue
		}
		file, err := parser.ParseFile(fset, filepath.Join(root, f.rel), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Errorf("%s: %v", f.rel, err)
			continue
		}
		local := map[string]string{} // local name → package of ours
		for _, spec := range file.Imports {
			path, _ := strconv.Unquote(spec.Path.Value)
			rel, ok := strings.CutPrefix(path, module+"/")
			if !ok {
				continue
			}
			name := rel[strings.LastIndexByte(rel, '/')+1:]
			if spec.Name != nil {
				name = spec.Name.Name
			}
			local[name] = rel
		}
		forEachQualified(file, local, func(pkg, name string, pos token.Pos) {
			if msg := checkCmdCall(pkg, name); msg != "" {
				t.Errorf("%s:%d: %s", f.rel, fset.Position(pos).Line, msg)
			}
		})
	}
}

// TestCmdCallRules checks the table of TestCmdHoldsNoOperations on known
// calls, so that an emptied table cannot pass silently.
func TestCmdCallRules(t *testing.T) {
	for _, tc := range []struct {
		pkg, fn string
		want    string // substring of the complaint; "" = allowed
	}{
		{"pkg/planner", "Diff", "call pkg/workflow"},
		{"pkg/planner", "Verify", "call pkg/workflow"},
		{"pkg/planner", "NewClaimer", "call pkg/workflow"},
		{"pkg/executor", "OperationFiles", "call pkg/workflow"},
		{"pkg/planner", "WritePlanFile", ""},
		{"pkg/executor", "Apply", "call pkg/workflow"},
		{"pkg/executor", "RecordOutputs", ""},
		{"pkg/workflow", "MakePlan", ""},
		{"pkg/planner", "NewInputSalt", "call pkg/workflow"},
		{"pkg/sync", "New", "call pkg/workflow"},
		{"pkg/sync", "NewService", ""},
		{"pkg/sync/pgcluster", "Open", "call pkg/workflow"},
		{"pkg/sync/pgcluster", "Joiner", ""},
	} {
		got := checkCmdCall(tc.pkg, tc.fn)
		if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
			t.Errorf("%s.%s: got %q, want %q", tc.pkg, tc.fn, got, tc.want)
		}
	}
}
