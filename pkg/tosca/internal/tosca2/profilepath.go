package tosca2

// Profiles of TOSCA 2.0, found by name (§6.7, §6.8.2.1): the profile
// search path (Options.ProfilePath, the CLI's --profile-path and
// XOSPLAN_PROFILE_PATH), indexed once, and the profiles xosplan embeds.
//
// The index walks each search folder (hidden folders skipped, links to
// folders not followed) for files named *.yaml, *.yml or without an
// extension (the TC publishes io.kubernetes so) that are TOSCA 2.0 files
// declaring `profile: NAME`. The first folder that declares a name wins,
// and the search path wins over the embedded profiles, so that a user may
// put the TC's own copy of the simple profile first. The walk is bounded
// (maxProfileFiles files examined, none over maxProfileFileBytes), reads
// each file through internal/userfile under the context, and never
// reports a diagnostic: a file that is not a profile is not one.

import (
	"bytes"
	"context"
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
	"github.com/xosplan/xosplan/pkg/tosca/internal/core"
)

// Bounds of the profile index walk: far above any catalogue of profiles,
// they stop a search folder that is not one (a home folder) from taking
// the run.
const (
	maxProfileFiles     = 20_000
	maxProfileFileBytes = 4 << 20
)

// simpleProfileName is the name of the TOSCA simple profile (§6.7.2);
// simpleProfileAlias the spelling the specification's examples use
// (§6.8.3).
const (
	simpleProfileName  = "org.oasis-open.simple:2.0"
	simpleProfileAlias = "org.oasis-open.tosca.simple:2.0"
	// xosplanProfileName is xosplan's own profile: the interface type
	// Lookup (render.go).
	xosplanProfileName = "io.xosplan:1.0"
	// placementProfileName is xosplan's Placement types (the placement
	// driver's objects), as xosplan/placement.yaml is for 1.3.
	placementProfileName = "xosplan.placement:1.0"
)

// profile2Files holds the embedded TOSCA 2.0 profiles; read-only.
//
//go:embed profiles2/*.yaml
var profile2Files embed.FS

// embeddedProfile returns the entry file of an embedded profile by name.
func embeddedProfile(name string) (string, []byte, bool) {
	switch name {
	case simpleProfileName, simpleProfileAlias:
		data, ok := embeddedProfileFile("profiles2/org.oasis-open.simple-2.0.yaml")
		return "profiles2/org.oasis-open.simple-2.0.yaml", data, ok
	case xosplanProfileName:
		data, ok := embeddedProfileFile("profiles2/io.xosplan-1.0.yaml")
		return "profiles2/io.xosplan-1.0.yaml", data, ok
	case placementProfileName:
		data, ok := embeddedProfileFile("profiles2/xosplan.placement-1.0.yaml")
		return "profiles2/xosplan.placement-1.0.yaml", data, ok
	}
	return "", nil, false
}

// embeddedProfileFile reads one embedded profile file by its slash path.
func embeddedProfileFile(name string) ([]byte, bool) {
	data, err := profile2Files.ReadFile(path.Clean(name))
	return data, err == nil
}

// embeddedProfileNames lists the names of the embedded profiles.
func embeddedProfileNames() []string {
	return []string{simpleProfileName + " (also " + simpleProfileAlias + ")", xosplanProfileName, placementProfileName}
}

// ProfileIndex maps profile names to the files of a search path that
// declare them. Build one with NewProfileIndex; it is read-only
// afterwards, so one index may serve every compile of a run at once.
type ProfileIndex struct {
	dirs   []string
	byName map[string]profileEntry
}

// profileEntry is where a profile was found: its file, and the search
// folder (the root its "/" urls are read from).
type profileEntry struct {
	path, dir string
}

// NewProfileIndex indexes the profiles the folders declare (see the file
// comment for which files are read). A folder that cannot be read is an
// error; a file that cannot be read or is not a profile is skipped.
func NewProfileIndex(ctx context.Context, dirs []string) (*ProfileIndex, error) {
	x := &ProfileIndex{byName: map[string]profileEntry{}}
	examined := 0
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("profile folder %s: %w", dir, err)
		}
		info, err := os.Stat(abs)
		if err != nil {
			return nil, fmt.Errorf("profile folder %s: %w", dir, err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("profile folder %s is not a folder", dir)
		}
		x.dirs = append(x.dirs, abs)
		err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				// An unreadable subfolder holds no profile we can read.
				return nil
			}
			if ctxErr := ctx.Err(); ctxErr != nil {
				return ctxErr
			}
			if d.IsDir() {
				if p != abs && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() || !profileCandidate(d.Name()) {
				return nil
			}
			if examined++; examined > maxProfileFiles {
				return fs.SkipAll
			}
			if name, ok := declaredProfile(ctx, p); ok {
				if _, taken := x.byName[name]; !taken {
					x.byName[name] = profileEntry{path: p, dir: abs}
				}
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("profile folder %s: %w", dir, err)
		}
	}
	return x, nil
}

// profileCandidate reports whether a file name may hold a profile.
func profileCandidate(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml":
		return true
	case "":
		return !strings.HasPrefix(name, ".")
	}
	return false
}

// declaredProfile reads a candidate file and returns the profile it
// declares: a TOSCA 2.0 file with a top-level profile name.
func declaredProfile(ctx context.Context, p string) (string, bool) {
	data, err := userfile.Read(ctx, p, userfile.Options{MaxBytes: maxProfileFileBytes})
	if err != nil || !bytes.Contains(data, []byte("profile:")) || !bytes.Contains(data, []byte(Version)) {
		return "", false
	}
	root, ds := yamlsrc.Parse(p, data, yamlsrc.Limits{MaxFileBytes: maxProfileFileBytes})
	if ds.HasErrors() || root == nil || root.Kind != yamlsrc.Mapping || core.Text(root.Get("tosca_definitions_version")) != Version {
		return "", false
	}
	name := root.Get("profile")
	if !name.IsString() || name.Value == "" {
		return "", false
	}
	return name.Value, true
}

// lookup returns where the index found a profile.
func (x *ProfileIndex) lookup(name string) (profileEntry, bool) {
	if x == nil {
		return profileEntry{}, false
	}
	e, ok := x.byName[name]
	return e, ok
}

// Dirs returns the search folders, absolute, in search order.
func (x *ProfileIndex) Dirs() []string {
	if x == nil {
		return nil
	}
	return slices.Clone(x.dirs)
}
