package main

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"github.com/xosplan/xosplan/pkg/config"
	"github.com/xosplan/xosplan/pkg/diag"
)

// importMapFlags are the flags that say where imports are read from:
// --import-map and --import-map-file, and --profile-path (with
// XOSPLAN_PROFILE_PATH) for TOSCA 2.0 profiles, shared by every command
// that compiles configuration (validate, plan, apply, destroy, graph).
type importMapFlags struct {
	entries  []string
	files    []string
	profiles []string
	// maxSpecString and maxSpecList bound every string and list of a
	// resource's spec (addLimits; config.SpecLimits).
	maxSpecString, maxSpecList int
}

// profilePathEnv names the environment variable that lists profile
// folders, colon-separated, searched after the --profile-path ones.
const profilePathEnv = "XOSPLAN_PROFILE_PATH"

func (f *importMapFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.entries, "import-map", nil, "read the local `URL=FILE` wherever a template imports URL (repeatable; wins over --import-map-file)")
	fs.StringArrayVar(&f.files, "import-map-file", nil, "read URL mappings from `FILE`, a YAML or JSON map of URL to local file (relative to FILE's folder; repeatable)")
	fs.StringArrayVar(&f.profiles, "profile-path", nil, "search `DIR` for the TOSCA 2.0 profiles templates import by name (files declaring profile: NAME; repeatable, searched in order, before "+profilePathEnv+")")
}

// addLimits declares the limits on what the configuration's resources
// hold (ORC's API contracts), for the commands that compile it with
// pkg/config: validate, plan, apply, destroy, graph, import, sync.
func (f *importMapFlags) addLimits(fs *pflag.FlagSet) {
	fs.IntVar(&f.maxSpecString, "max-spec-string", config.DefaultMaxSpecString, "refuse a string of more than `BYTES` in a resource's spec")
	fs.IntVar(&f.maxSpecList, "max-spec-list", config.DefaultMaxSpecList, "refuse a list of more than `N` items in a resource's spec")
}

// checkLimits refuses a limit below 1 (a usage error).
func (f *importMapFlags) checkLimits() error {
	if f.maxSpecString < 1 || f.maxSpecList < 1 {
		return fmt.Errorf("--max-spec-string and --max-spec-list must be at least 1")
	}
	return nil
}

// specLimits returns the limits the flags give (checkLimits); the
// defaults for a command without them (lsp).
func (f *importMapFlags) specLimits() config.SpecLimits {
	return config.SpecLimits{MaxString: f.maxSpecString, MaxList: f.maxSpecList}
}

// profilePath returns the profile search path: the --profile-path
// folders, then those of XOSPLAN_PROFILE_PATH. The folders are the
// person's own: the profiles in them may be read wherever they lie.
func (f *importMapFlags) profilePath(c *cli) []string {
	out := slices.Clone(f.profiles)
	for _, d := range filepath.SplitList(c.getenv(profilePathEnv)) {
		if d != "" {
			out = append(out, d)
		}
	}
	for _, d := range out {
		if abs, err := filepath.Abs(d); err == nil {
			c.sources.allowDir(abs)
		}
	}
	return out
}

// values returns the import map the flags give (nil when none is given):
// each --import-map-file in turn, then the --import-map entries, a later
// mapping of a URL winning. FILE of an entry is taken from the working
// folder. The files mapped, and the map files, are the person's own: their
// lines may be shown in diagnostics. Problems in a map file are
// diagnostics; an entry without URL= or FILE is an error (a usage
// problem).
func (f *importMapFlags) values(ctx context.Context, c *cli) (map[string]string, diag.Diagnostics, error) {
	if len(f.entries)+len(f.files) == 0 {
		return nil, nil, nil
	}
	var diags diag.Diagnostics
	out := map[string]string{}
	for _, file := range f.files {
		c.sources.allow(file)
		m, more := config.ReadImportMap(ctx, file)
		diags = diags.Extend(more)
		for u, local := range m {
			out[u] = local
		}
	}
	for _, e := range f.entries {
		// A URL may hold "=" in its query; a file name rarely does.
		i := strings.LastIndex(e, "=")
		if i <= 0 || i == len(e)-1 {
			return nil, diags, fmt.Errorf("--import-map wants URL=FILE, got %q", e)
		}
		out[e[:i]] = e[i+1:]
	}
	for _, local := range out {
		if abs, err := filepath.Abs(local); err == nil {
			c.sources.allow(abs)
		}
	}
	return out, diags, nil
}
