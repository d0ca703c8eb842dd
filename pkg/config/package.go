package config

import (
	"bytes"
	"context"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes of finding a CSAR's entry definitions; the package
// documentation explains each.
const (
	CodeNoEntry       = "csar.no_entry"
	CodeNoMeta        = "csar.no_meta"
	CodeEntryNotFound = "csar.entry_not_found"
	CodeBadPath       = "csar.bad_path"
)

// Where a CSAR's TOSCA.meta is: TOSCA-Metadata/TOSCA.meta (TOSCA 1.3
// §6.1), or at the top (TOSCA 2.0 §17.1).
const (
	metaInFolder = "TOSCA-Metadata/TOSCA.meta"
	metaAtTop    = "TOSCA.meta"
)

// packageFiles is the file tree of a CSAR: the members of an archive, or
// the files below a folder laid out as one (an unpacked CSAR). Paths are
// clean, slash-separated and relative to the package's top. TOSCA.meta,
// the entry definitions and the manifest are found and checked through
// it, so that both forms follow one logic.
type packageFiles interface {
	// String names the package in messages.
	String() string
	// name returns what diagnostics, and the front end, call the file p.
	name(p string) string
	isFile(p string) bool
	isDir(p string) bool
	// topFiles lists the files at the package's top, sorted.
	topFiles() []string
	// allFiles lists every file, sorted.
	allFiles() []string
	// readFile returns the content of p, refusing more than max bytes.
	readFile(ctx context.Context, p string, max int64) ([]byte, error)
	// hashFile writes the content of p to h.
	hashFile(ctx context.Context, p string, h hash.Hash) error
}

// csarEntry finds the entry definitions of the CSAR files holds (TOSCA
// 1.3 §6, TOSCA 2.0 §17, ETSI NFV-SOL 004 §4.3) and checks its TOSCA.meta
// and manifest. It returns the entry's path, "" when none can be used, and
// every problem found.
func csarEntry(ctx context.Context, files packageFiles) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	metaPath := ""
	inFolder, atTop := files.isFile(metaInFolder), files.isFile(metaAtTop)
	switch {
	case inFolder && atTop:
		diags = diags.Errorf(diag.Range{File: files.name(metaAtTop)}, "", CodeMetaDuplicate,
			"the package holds both %s and %s; a CSAR holds one TOSCA.meta (TOSCA 2.0 §17.1), and %s is read", metaInFolder, metaAtTop, metaInFolder)
		metaPath = metaInFolder
	case inFolder:
		metaPath = metaInFolder
	case atTop:
		metaPath = metaAtTop
	default:
		entry, more := topEntry(ctx, files, true)
		return entry, diags.Extend(more)
	}
	metaName := files.name(metaPath)
	data, err := files.readFile(ctx, metaPath, MaxFileBytes)
	if err != nil {
		return "", diags.Append(*fileProblem(metaName, err))
	}
	meta, metaDiags := parseMeta(metaName, data)
	diags = diags.Extend(metaDiags)
	if metaDiags.HasErrors() {
		return "", diags
	}
	version, versionDiags := checkMetaVersions(meta, metaName)
	diags = diags.Extend(versionDiags)
	written, ok := meta.get(metaEntry)
	if !ok {
		if strings.HasPrefix(version, "2.") {
			// TOSCA 2.0 §17.1: TOSCA.meta may leave the entry to the
			// single YAML file at the top.
			entry, more := topEntry(ctx, files, false)
			return entry, diags.Extend(more)
		}
		return "", diags.Errorf(fileStart(metaName), "", CodeNoEntry,
			"TOSCA.meta names no %s, which a CSAR-Version %s package must (TOSCA 1.3 §6.2)", metaEntry, version)
	}
	entry, entryDiags := metaFile(files, written, "file")
	diags = diags.Extend(entryDiags)
	if other, ok := meta.get(metaOther); ok {
		for _, name := range otherDefinitions(other.value) {
			_, more := metaFile(files, metaValue{key: metaOther, value: name, at: other.at}, "file")
			diags = diags.Extend(more)
		}
	}
	manifest, manifestDiags := etsiEntries(files, meta, metaName, entry)
	diags = diags.Extend(manifestDiags)
	if manifest != "" {
		skip := []string{metaPath, manifest}
		if cert, ok := meta.get(metaETSICert); ok {
			skip = append(skip, path.Clean(cert.value))
		}
		diags = diags.Extend(readManifest(ctx, files, manifest, skip))
	}
	return entry, diags
}

// checkMetaVersions checks the versions block_0 of a TOSCA.meta gives and
// returns its CSAR-Version (1.1 when it gives none). A version xosplan
// does not know is an error, a missing key a warning.
func checkMetaVersions(meta *toscaMeta, metaName string) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	missing := func(key, why string) {
		diags = diags.Warnf(fileStart(metaName), "", CodeMetaMissingKey, "TOSCA.meta has no %s; %s", key, why)
	}
	version := "1.1"
	if v, ok := meta.get(metaCSARVersion); ok {
		version = v.value
		if !slices.Contains([]string{"1.0", "1.1", "2.0"}, v.value) {
			diags = diags.Errorf(v.at, "", CodeMetaVersion, "CSAR-Version %q is not one xosplan reads (1.0 and 1.1, TOSCA 1.3 §6.2; 2.0, TOSCA 2.0 §17.2)", clip(v.value))
		}
	} else {
		missing(metaCSARVersion, "TOSCA 1.3 §6.2 asks for 1.1 (read as 1.1)")
	}
	if v, ok := meta.get(metaFileVersion); ok {
		if !slices.Contains([]string{"1.0", "1.1"}, v.value) {
			diags = diags.Errorf(v.at, "", CodeMetaVersion, "TOSCA-Meta-File-Version %q is not one xosplan reads (1.0 or 1.1, TOSCA 1.3 §6.2)", clip(v.value))
		}
	} else if strings.HasPrefix(version, "1.") {
		missing(metaFileVersion, "TOSCA 1.3 §6.2 asks for 1.1")
	}
	if _, ok := meta.get(metaCreatedBy); !ok {
		missing(metaCreatedBy, "TOSCA 1.3 §6.2 asks who created the package")
	}
	return version, diags
}

// etsiEntries checks the files the ETSI-Entry-* keynames of block_0 name
// (SOL004 §4.3.2) and returns the manifest to read: ETSI-Entry-Manifest,
// else a manifest beside the entry definitions with its name and the .mf
// extension, else "".
func etsiEntries(files packageFiles, meta *toscaMeta, metaName, entry string) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	manifest := ""
	etsi := false
	for _, k := range []struct {
		key  string
		kind string
	}{
		{metaETSIManifest, "file"}, {metaETSIChanges, "file"}, {metaETSICert, "file"},
		{metaETSILicenses, "file or folder"}, {metaETSITests, "file or folder"},
	} {
		v, ok := meta.get(k.key)
		if !ok {
			continue
		}
		etsi = true
		p, more := metaFile(files, v, k.kind)
		diags = diags.Extend(more)
		if k.key == metaETSIManifest {
			manifest = p
		}
	}
	if etsi {
		for _, key := range []string{metaETSIManifest, metaETSIChanges} {
			if _, ok := meta.get(key); !ok {
				diags = diags.Warnf(fileStart(metaName), "", CodeMetaMissingKey,
					"TOSCA.meta has ETSI-Entry keynames but no %s, which SOL004 §4.3.2 asks of a package", key)
			}
		}
	}
	if _, ok := meta.get(metaETSIManifest); !ok && entry != "" {
		manifest = besideManifest(files, entry)
	}
	return manifest, diags
}

// besideManifest returns the manifest beside the entry definitions (its
// name with the .mf extension) when the package has one, else "".
func besideManifest(files packageFiles, entry string) string {
	if mf := strings.TrimSuffix(entry, path.Ext(entry)) + ".mf"; files.isFile(mf) {
		return mf
	}
	return ""
}

// readManifest reads and checks the SOL004 manifest p.
func readManifest(ctx context.Context, files packageFiles, p string, skip []string) diag.Diagnostics {
	var diags diag.Diagnostics
	name := files.name(p)
	data, err := files.readFile(ctx, p, MaxFileBytes)
	if err != nil {
		return diags.Append(*fileProblem(name, err))
	}
	m, parseDiags := parseManifest(name, data)
	return diags.Extend(parseDiags, checkManifest(ctx, files, name, m, skip))
}

// metaFile checks a path TOSCA.meta gives (v, at its line): relative to the
// package's top and naming one of its files (or folders, when kind says
// so). It returns the clean path, "" when it cannot be used.
func metaFile(files packageFiles, v metaValue, kind string) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	p, why := packagePath(v.value)
	switch {
	case why != "":
		return "", diags.Errorf(v.at, "", CodeBadPath, "%s %q %s", v.key, clip(v.value), why)
	case files.isFile(p), kind != "file" && files.isDir(p):
		return p, nil
	}
	return "", diags.Errorf(v.at, "", CodeEntryNotFound, "%s names %s, which is no %s of the package", v.key, p, kind)
}

// packagePath returns the clean form of a path a package's metadata
// gives, and why it cannot be used ("" when it can): paths in a CSAR are
// relative to its top and stay inside it.
func packagePath(p string) (string, string) {
	clean := path.Clean(p)
	switch {
	case strings.TrimSpace(p) == "":
		return "", "is empty"
	case strings.Contains(p, `\`):
		return "", "holds a backslash (paths in a CSAR separate folders with /)"
	case strings.HasPrefix(p, "/") || len(p) >= 2 && p[1] == ':':
		return "", "is an absolute path; paths in a CSAR are relative to its top"
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", "climbs out of the package"
	}
	return clean, ""
}

// tosca10 finds a TOSCA 1.0 version line, whose CSAR must hold TOSCA.meta.
var tosca10 = regexp.MustCompile(`(?m)^tosca_definitions_version[ \t]*:[ \t]*["']?tosca_simple_yaml_1_0["']?[ \t]*(#.*)?\r?$`)

// topEntry finds the entry definitions of a CSAR whose TOSCA.meta names
// none: the single YAML file at its top (TOSCA 1.3 §6.3, 2.0 §17.3). That
// form is TOSCA 1.1's: with noMeta (there is no TOSCA.meta at all), a
// TOSCA 1.0 file there is an error, as 1.0 requires the metadata.
func topEntry(ctx context.Context, files packageFiles, noMeta bool) (string, diag.Diagnostics) {
	var diags diag.Diagnostics
	var yamls []string
	for _, f := range files.topFiles() {
		if isYAMLName(f) {
			yamls = append(yamls, f)
		}
	}
	what := "TOSCA.meta names no Entry-Definitions"
	if noMeta {
		what = "the package has no " + metaInFolder
	}
	at := diag.Range{File: files.String()}
	if len(yamls) != 1 {
		d := diag.Diagnostic{Severity: diag.Error, Code: CodeNoEntry, Range: at, Detail: misplacedMeta(files)}
		if len(yamls) == 0 {
			d.Summary = what + " and no YAML file at its top: there are no entry definitions to read"
		} else {
			d.Summary = fmt.Sprintf("%s and %d YAML files at its top (%s): which is the entry definitions is ambiguous", what, len(yamls), strings.Join(yamls, ", "))
		}
		return "", diags.Append(d)
	}
	entry := yamls[0]
	if noMeta {
		data, err := files.readFile(ctx, entry, MaxFileBytes)
		if err != nil {
			return "", diags.Append(*fileProblem(files.name(entry), err))
		}
		// The pattern anchors on a line start, which a byte order mark
		// hides.
		text := bytes.TrimPrefix(data, []byte("\ufeff"))
		if loc := tosca10.FindIndex(text); loc != nil {
			shift := len(data) - len(text)
			loc[0], loc[1] = loc[0]+shift, loc[1]+shift
			line := 1 + strings.Count(string(data[:loc[0]]), "\n")
			r := lineRange(files.name(entry), line, loc[0], string(data[loc[0]:loc[1]]))
			return "", diags.Append(diag.Diagnostic{Severity: diag.Error, Code: CodeNoMeta, Range: r, Detail: misplacedMeta(files),
				Summary: "a TOSCA 1.0 CSAR must hold " + metaInFolder + " (TOSCA Simple Profile 1.0 §6.1); a single YAML file at the top without it is a form of TOSCA 1.1 and later"})
		}
	}
	if mf := besideManifest(files, entry); mf != "" {
		diags = diags.Extend(readManifest(ctx, files, mf, []string{mf}))
	}
	return entry, diags
}

// misplacedMeta names the files called TOSCA.meta that are not where a
// CSAR's metadata belongs, for the detail of a package without one.
func misplacedMeta(files packageFiles) string {
	var found []string
	for _, f := range files.allFiles() {
		if strings.EqualFold(path.Base(f), metaAtTop) && len(found) < 3 {
			found = append(found, f)
		}
	}
	if len(found) == 0 {
		return ""
	}
	return fmt.Sprintf("%s is not where a CSAR's metadata belongs: %s.", strings.Join(found, ", "), metaInFolder)
}

// isPackageFolder reports whether dir is laid out as an unpacked CSAR: it
// holds TOSCA-Metadata/TOSCA.meta, or TOSCA.meta and is not itself the
// TOSCA-Metadata folder of one (whatever the files are; the package's
// reading reports a link or a special file).
func isPackageFolder(dir string) bool {
	exists := func(m string) bool {
		_, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(m)))
		return err == nil
	}
	return exists(metaInFolder) || exists(metaAtTop) && filepath.Base(dir) != path.Dir(metaInFolder)
}

// folderPackage is a folder laid out as an unpacked CSAR. Its files are
// read through the configuration root like any configuration file.
type folderPackage struct {
	dir    string
	root   *Root
	limits ArchiveLimits
}

func (f *folderPackage) String() string { return f.dir }

func (f *folderPackage) name(p string) string { return filepath.Join(f.dir, filepath.FromSlash(p)) }

func (f *folderPackage) isFile(p string) bool {
	fi, err := os.Stat(f.name(p))
	return err == nil && fi.Mode().IsRegular()
}

func (f *folderPackage) isDir(p string) bool {
	fi, err := os.Stat(f.name(p))
	return err == nil && fi.IsDir()
}

func (f *folderPackage) topFiles() []string {
	entries, _ := os.ReadDir(f.dir)
	var out []string
	for _, e := range entries {
		if f.isFile(e.Name()) {
			out = append(out, e.Name())
		}
	}
	return out
}

// allFiles lists the folder's files as a walk of configuration does
// (hidden folders skipped, links to folders not followed), at most as
// many as an archive may hold.
func (f *folderPackage) allFiles() []string {
	var out []string
	_ = filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case len(out) >= f.limits.withDefaults().Entries:
			return fs.SkipAll
		case d.IsDir() && p != f.dir && strings.HasPrefix(d.Name(), "."):
			return fs.SkipDir
		case d.Type().IsRegular():
			if rel, err := filepath.Rel(f.dir, p); err == nil {
				out = append(out, filepath.ToSlash(rel))
			}
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func (f *folderPackage) opts(max int64) userfile.Options {
	opts := userfile.Options{MaxBytes: max}
	if f.root != nil {
		opts.Root = f.root.fs
	}
	return opts
}

func (f *folderPackage) readFile(ctx context.Context, p string, max int64) ([]byte, error) {
	return userfile.Read(ctx, f.name(p), f.opts(max))
}

func (f *folderPackage) hashFile(ctx context.Context, p string, h hash.Hash) error {
	fh, _, err := userfile.Open(ctx, f.name(p), f.opts(f.limits.withDefaults().Total))
	if err != nil {
		return err
	}
	defer fh.Close()
	return copyContext(ctx, h, fh)
}
