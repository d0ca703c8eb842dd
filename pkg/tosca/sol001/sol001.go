package sol001

import (
	"embed"
	"slices"
	"strings"
)

// files is read-only: embed.FS cannot be changed at run time.
//
//go:embed v*/*.yaml
var files embed.FS

// kinds are the type libraries of a version, in the order their files
// import each other (common first).
func kinds() []string {
	return []string{"common", "vnfd", "nsd", "pnfd"}
}

// fileName is the standard's name of a kind's file.
func fileName(kind string) string {
	return "etsi_nfv_sol001_" + kind + "_types.yaml"
}

// Versions lists the embedded versions of the standard ("2.6.1" …), oldest
// first; each has all four files in folder v<version>. It is a function
// and not a package variable so that no package-level state exists; the
// slice is new on each call.
func Versions() []string {
	return []string{"2.6.1", "2.7.1", "2.8.1", "3.3.1", "3.6.1", "4.2.1", "4.4.1"}
}

// DefaultVersion is the version a bare file name resolves to when nothing
// else in a template names one: 2.6.1 (the version Tacker ships and its
// samples are written for) for tosca_simple_yaml_1_2 and older, the newest
// embedded version for tosca_simple_yaml_1_3, the TOSCA version of 3.x
// and later.
func DefaultVersion(toscaDefinitionsVersion string) string {
	if toscaDefinitionsVersion == "tosca_simple_yaml_1_3" {
		return "4.4.1"
	}
	return "2.6.1"
}

// IsFileName reports whether name is the bare file name of one of the
// standard's type libraries ("etsi_nfv_sol001_common_types.yaml", …_vnfd_…,
// …_nsd_…, …_pnfd_…). The name is matched exactly.
func IsFileName(name string) bool {
	return kindOf(name) != ""
}

func kindOf(name string) string {
	for _, k := range kinds() {
		if name == fileName(k) {
			return k
		}
	}
	return ""
}

// ParseURL recognises a URL of one of the standard's type files on the
// ETSI forge, in the spellings real packages use:
//
//	https://forge.etsi.org/rep/nfv/SOL001/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml
//	https://forge.etsi.org/rep/nfv/SOL001/-/raw/v2.6.1/etsi_nfv_sol001_common_types.yaml
//	http://forge.etsi.org/rep/nfv/SOL001/v2.6.1/etsi_nfv_sol001_common_types.yaml
//
// The scheme, host and "SOL001" are matched without regard to case, the
// "-/" and "raw/" segments and the "v" before the version are optional.
// It returns the version ("2.6.1") and the bare file name, whether or not
// that version is embedded. Anything else, including a query, a fragment,
// a port or extra path segments, gives ok false.
func ParseURL(ref string) (version, file string, ok bool) {
	rest, found := cutPrefixFold(ref, "https://")
	if !found {
		if rest, found = cutPrefixFold(ref, "http://"); !found {
			return "", "", false
		}
	}
	if rest, found = cutPrefixFold(rest, "forge.etsi.org/rep/nfv/sol001/"); !found {
		return "", "", false
	}
	rest = strings.TrimPrefix(rest, "-/")
	rest = strings.TrimPrefix(rest, "raw/")
	version, file, found = strings.Cut(rest, "/")
	version = strings.TrimPrefix(version, "v")
	if !found || !isVersion(version) || kindOf(file) == "" {
		return "", "", false
	}
	return version, file, true
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) < len(prefix) || !strings.EqualFold(s[:len(prefix)], prefix) {
		return s, false
	}
	return s[len(prefix):], true
}

// isVersion accepts three dot-separated numbers of at most two digits
// ("2.6.1", "4.5.1"), the form of every release of the standard.
func isVersion(v string) bool {
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || len(p) > 2 || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}

// Lookup returns the embedded type file a forge URL names (see ParseURL).
// name is a pseudo file name for diagnostics
// ("<sol001>/v2.6.1/etsi_nfv_sol001_common_types.yaml"), the same for
// every spelling of the URL so that a compiler loads the file once; data
// is a fresh copy. ok is false for any other reference and for a version
// or file that is not embedded.
func Lookup(ref string) (name string, data []byte, ok bool) {
	version, file, ok := ParseURL(ref)
	if !ok {
		return "", nil, false
	}
	return LookupFile(file, version)
}

// LookupFile returns the embedded type file of a version by its bare file
// name ("etsi_nfv_sol001_vnfd_types.yaml"), as Lookup does. The version is
// written without "v" ("2.7.1").
func LookupFile(file, version string) (name string, data []byte, ok bool) {
	if !Embedded(file, version) {
		return "", nil, false
	}
	b, err := files.ReadFile("v" + version + "/" + file)
	if err != nil {
		// Every file of every version is embedded (TestEveryFileServed).
		return "", nil, false
	}
	return "<sol001>/v" + version + "/" + file, b, true
}

// Embedded reports whether a version has a file of this bare name embedded.
func Embedded(file, version string) bool {
	return kindOf(file) != "" && slices.Contains(Versions(), version)
}
