package executor

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/pkg/planner"
)

// walkCase is one fixture of testdata/walk (see its README.md).
type walkCase struct {
	sections map[string][]string
}

func readWalkCase(t *testing.T, path string) walkCase {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := walkCase{sections: map[string][]string{}}
	cur := ""
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.TrimSpace(line) == "":
		case !strings.HasPrefix(line, " "):
			cur = strings.TrimSuffix(strings.TrimSpace(line), ":")
			c.sections[cur] = []string{}
		case cur == "":
			t.Fatalf("%s:%d: a line outside a section", path, i+1)
		default:
			c.sections[cur] = append(c.sections[cur], strings.TrimSpace(line))
		}
	}
	return c
}

// resources turns "ADDR: DEP... [cbd]" lines into test resources.
func (c walkCase) resources(section string) []res {
	var out []res
	for _, l := range c.sections[section] {
		addr, deps, _ := strings.Cut(l, ":")
		r := res{addr: strings.TrimSpace(addr)}
		for _, d := range strings.Fields(deps) {
			if d == "cbd" {
				r.cbd = true
				continue
			}
			r.deps = append(r.deps, d)
		}
		out = append(out, r)
	}
	return out
}

func TestWalkFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "walk", "*.txt"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			c := readWalkCase(t, path)
			g := buildGraph(t, c.resources("graph")...)
			opts := fastOpts()
			for _, l := range c.sections["options"] {
				f := strings.Fields(l)
				switch f[0] {
				case "parallelism":
					opts.Parallelism, _ = strconv.Atoi(f[1])
				case "retries":
					opts.Retries, _ = strconv.Atoi(f[1])
				case "fail-fast":
					opts.FailFast = true
				default:
					t.Fatalf("unknown option %q", l)
				}
			}
			f := newFake()
			for _, l := range c.sections["faults"] {
				fl := strings.Fields(l)
				n := 0
				if len(fl) > 2 {
					n, _ = strconv.Atoi(fl[2])
				}
				switch fl[1] {
				case "fail":
					f.failTimes[fl[0]] = n
				case "always":
					f.alwaysFail[fl[0]] = true
				case "converge":
					f.converging[fl[0]] = n
				default:
					t.Fatalf("unknown fault %q", l)
				}
			}
			var prior = (*memJournal)(nil)
			popts := planner.Options{}
			if _, ok := c.sections["prior"]; ok {
				pg := buildGraph(t, c.resources("prior")...)
				_, prior = walkFake(t, newFake(), planOf(t, pg, nil, planner.Options{}), nil, fastOpts())
				for _, l := range c.sections["plan"] {
					fl := strings.Fields(l)
					switch fl[0] {
					case "destroy":
						popts.Destroy = true
					case "replace":
						popts.Replace = append(popts.Replace, fl[1])
					case "same":
					default:
						t.Fatalf("unknown plan option %q", l)
					}
				}
			}
			st := prior.stateOrNil()
			rep, _ := walkFake(t, f, planOf(t, g, st, popts), st, opts)

			var got []string
			for _, s := range rep.Steps {
				line := s.Address + " " + s.Action + " " + s.Result
				if s.Cause != "" {
					line += " " + s.Cause
				}
				got = append(got, line)
			}
			want := slices.Clone(c.sections["want"])
			slices.Sort(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("report:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
			}
			calls := f.callList()
			for _, l := range c.sections["order"] {
				a, b, _ := strings.Cut(l, "<")
				calledBefore(t, calls, strings.TrimSpace(a), strings.TrimSpace(b))
			}
		})
	}
}
