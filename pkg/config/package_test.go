package config

import (
	"context"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

// found is a diagnostic of a package, its file named relative to the
// package's top so that an archive and a folder compare.
type found struct {
	code string
	file string
	line int
}

func (f found) String() string { return fmt.Sprintf("%s@%s:%d", f.code, f.file, f.line) }

// packageForms loads files as a CSAR archive and as a folder laid out as
// one (unless archiveOnly: a folder is a package only with TOSCA.meta) and
// returns what each says. Each form's parent folder holds outside.yaml,
// which the package must not be able to read: the archive's root is its
// folder, yet nothing outside the archive is readable from inside it; the
// folder's root is the package folder itself.
func packageForms(t *testing.T, files map[string]string, archiveOnly bool, importMap map[string]string) map[string][]found {
	t.Helper()
	base := t.TempDir()
	var entries []zipEntry
	for _, name := range slices.Sorted(mapsKeys(files)) {
		entries = append(entries, zipEntry{name: name, body: files[name]})
	}
	outside := "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types:\n  secret.Type:\n    derived_from: tosca.nodes.Root\n"
	archiveDir := filepath.Join(base, "a")
	folderParent := filepath.Join(base, "f")
	for _, d := range []string{archiveDir, folderParent} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "outside.yaml"), []byte(outside), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	archive := filepath.Join(archiveDir, "p.csar")
	if err := os.WriteFile(archive, zipBytes(t, entries), 0o644); err != nil {
		t.Fatal(err)
	}
	out := map[string][]found{}
	res := Load(context.Background(), []string{archive}, Options{Root: rootOf(t, archiveDir), ImportMap: importMap})
	out["archive"] = founds(res.Diags, archive+"!/")
	if !archiveOnly {
		folder := filepath.Join(folderParent, "p")
		for name, content := range files {
			p := filepath.Join(folder, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res := Load(context.Background(), []string{folder}, Options{Root: rootOf(t, folder), ImportMap: importMap})
		out["folder"] = founds(res.Diags, folder+string(filepath.Separator))
	}
	return out
}

func mapsKeys(m map[string]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// founds names each diagnostic's file relative to the package's top
// (prefix); the package itself is ".".
func founds(ds diag.Diagnostics, prefix string) []found {
	out := []found{}
	for _, d := range ds {
		file := strings.TrimPrefix(filepath.ToSlash(d.Range.File), filepath.ToSlash(prefix))
		if d.Range.File+"!/" == prefix || d.Range.File+string(filepath.Separator) == prefix {
			file = "."
		}
		out = append(out, found{d.Code, file, d.Range.Start.Line})
	}
	return out
}

// sha is the hexadecimal SHA-256 of s.
func sha(s string) string { return fmt.Sprintf("%x", sha256.Sum256([]byte(s))) }

// TestPackagesAsArchivesAndFolders checks what reading a CSAR says, the
// same for an archive and for the folder it unpacks to: TOSCA.meta (TOSCA
// 1.3 §6, 2.0 §17), the entry definitions, the ETSI SOL004 entries and
// manifest, and the files a package's templates name.
func TestPackagesAsArchivesAndFolders(t *testing.T) {
	meta := func(extra string) string { return fixtureMeta + extra }
	base := map[string]string{
		"Definitions/main.yaml":  fixtureMain,
		"Definitions/types.yaml": fixtureTypes,
		"Scripts/create.sh":      fixtureScript,
	}
	with := func(more map[string]string) map[string]string {
		out := map[string]string{}
		for k, v := range base {
			out[k] = v
		}
		for k, v := range more {
			if v == "" {
				delete(out, k)
				continue
			}
			out[k] = v
		}
		return out
	}
	manifest := func(entries string) string {
		return "metadata:\n  vnf_provider_id: Example\n  vnf_product_name: App\n  vnf_release_date_time: 2024-01-02T03:04:05+00:00\n  vnf_package_version: '1.0'\n" + entries
	}
	listed := func(extra string) string {
		return fmt.Sprintf("\nSource: Definitions/main.yaml\nAlgorithm: SHA-256\nHash: %s\n\nSource: Definitions/types.yaml\n\nSource: Scripts/create.sh\nAlgorithm: sha-256\nHash: %s\n\nSource: ChangeLog.txt\n%s",
			sha(fixtureMain), sha(fixtureScript), extra)
	}
	etsiMeta := meta("ETSI-Entry-Manifest: App.mf\nETSI-Entry-Change-Log: ChangeLog.txt\n")
	cases := []struct {
		name        string
		files       map[string]string
		archiveOnly bool
		want        []found
	}{
		{name: "meta", files: with(map[string]string{metaInFolder: meta("")})},
		{name: "meta_continuation_crlf_bom_and_other_blocks", files: with(map[string]string{metaInFolder: "\ufeffTOSCA-Meta-File-Version: 1.0\r\nCSAR-Version: 1.1\r\nCreated-by: someone\r\nEntry-Definitions: Defini\r\n tions/main.yaml\r\n\r\n\r\nName: Scripts/create.sh\r\nContent-Type: text/x-sh\r\n"})},
		{name: "meta_at_top", files: with(map[string]string{metaAtTop: "CSAR-Version: 2.0\nCreated-By: x\nEntry-Definitions: Definitions/main.yaml\n"})},
		{name: "meta_twice", files: with(map[string]string{metaInFolder: meta(""), metaAtTop: meta("")}),
			want: []found{{CodeMetaDuplicate, metaAtTop, 0}}},
		{name: "meta_syntax", files: with(map[string]string{metaInFolder: "TOSCA-Meta-File-Version, 1.0\nCSAR-Version:1.1\n continued\n"}),
			want: []found{{CodeMetaSyntax, metaInFolder, 1}, {CodeMetaSyntax, metaInFolder, 2}, {CodeMetaSyntax, metaInFolder, 3}}},
		{name: "meta_key_twice", files: with(map[string]string{metaInFolder: meta("entry-definitions: Definitions/types.yaml\n")}),
			want: []found{{CodeMetaSyntax, metaInFolder, 5}}},
		{name: "meta_not_utf8", files: with(map[string]string{metaInFolder: "Entry-Definitions: \xff\xfe\n"}),
			want: []found{{CodeMetaSyntax, metaInFolder, 1}}},
		{name: "meta_without_entry", files: with(map[string]string{metaInFolder: "TOSCA-Meta-File-Version: 1.1\nCSAR-Version: 1.1\nCreated-By: x\n"}),
			want: []found{{CodeNoEntry, metaInFolder, 1}}},
		{name: "meta_2_0_without_entry_takes_the_top_file", files: with(map[string]string{metaInFolder: "CSAR-Version: 2.0\nCreated-By: x\n", "top.yaml": fixtureTop})},
		{name: "meta_missing_keys", files: with(map[string]string{metaInFolder: "Entry-Definitions: Definitions/main.yaml\n"}),
			want: []found{{CodeMetaMissingKey, metaInFolder, 1}, {CodeMetaMissingKey, metaInFolder, 1}, {CodeMetaMissingKey, metaInFolder, 1}}},
		{name: "meta_versions", files: with(map[string]string{metaInFolder: "TOSCA-Meta-File-Version: 9.9\nCSAR-Version: 1.7\nCreated-By: x\nEntry-Definitions: Definitions/main.yaml\n"}),
			want: []found{{CodeMetaVersion, metaInFolder, 1}, {CodeMetaVersion, metaInFolder, 2}}},
		{name: "entry_missing", files: with(map[string]string{metaInFolder: meta(""), "Definitions/main.yaml": ""}),
			want: []found{{CodeEntryNotFound, metaInFolder, 4}}},
		{name: "entry_climbs_out", files: with(map[string]string{metaInFolder: strings.Replace(fixtureMeta, "Definitions/main.yaml", "../outside.yaml", 1)}),
			want: []found{{CodeBadPath, metaInFolder, 4}}},
		{name: "entry_absolute", files: with(map[string]string{metaInFolder: strings.Replace(fixtureMeta, "Definitions/main.yaml", "/etc/passwd", 1)}),
			want: []found{{CodeBadPath, metaInFolder, 4}}},
		{name: "other_definitions", files: with(map[string]string{metaInFolder: meta("Other-Definitions: Definitions/types.yaml \"Definitions/no such.yaml\"\n")}),
			want: []found{{CodeEntryNotFound, metaInFolder, 5}}},
		{name: "etsi_entries", files: with(map[string]string{metaInFolder: meta("ETSI-Entry-Manifest: App.mf\nETSI-Entry-Licenses: Licenses\nETSI-Entry-Certificate: App.cert\n"),
			"Licenses/LICENSE": "free\n"}),
			want: []found{{CodeMetaMissingKey, metaInFolder, 1}, {CodeEntryNotFound, metaInFolder, 5}, {CodeEntryNotFound, metaInFolder, 7}}},
		{name: "sol004_manifest", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n", "App.mf": manifest(listed(""))})},
		{name: "sol004_manifest_signed", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n",
			"App.mf": manifest(listed("\n-----BEGIN CMS-----\nMIIB\nSource: not/an/entry\n-----END CMS-----\n"))})},
		{name: "sol004_hash_mismatch", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n",
			"App.mf": manifest(listed("")), "Scripts/create.sh": "#!/bin/sh\nrm -rf /\n"}),
			want: []found{{CodeManifestHash, "App.mf", 15}}},
		{name: "sol004_source_missing_and_bad", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n",
			"App.mf": manifest(listed("\nSource: Files/image.img\n\nSource: ../../etc/passwd\n\nSource: https://example.com/image.img\nAlgorithm: SHA-256\nHash: 00\n"))}),
			want: []found{{CodeManifestSource, "App.mf", 19}, {CodeBadPath, "App.mf", 21}}},
		{name: "sol004_algorithm", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n",
			"App.mf": manifest(strings.Replace(strings.Replace(listed(""), "Algorithm: sha-256", "Algorithm: MD5", 1), "Algorithm: SHA-256\n", "", 1))}),
			want: []found{{CodeManifestAlgorithm, "App.mf", 8}, {CodeManifestAlgorithm, "App.mf", 13}}},
		{name: "sol004_hash_not_hex", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n",
			"App.mf": manifest(strings.Replace(listed(""), "Hash: "+sha(fixtureMain), "Hash: zz", 1))}),
			want: []found{{CodeManifestHash, "App.mf", 9}}},
		{name: "sol004_manifest_syntax", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n",
			"App.mf": manifest("Hash: 00\nno colon here\n" + listed("Algorithm: SHA-256\nAlgorithm: SHA-256\n"))}),
			want: []found{{CodeManifestSyntax, "App.mf", 6}, {CodeManifestSyntax, "App.mf", 7}, {CodeManifestSyntax, "App.mf", 21}}},
		{name: "sol004_bookkeeping", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n",
			"App.mf": "metadata:\n  vnf_product_name: App\n\nSource: Definitions/main.yaml\n"}),
			want: []found{{CodeManifestMetadata, "App.mf", 1}, {CodeManifestUnlisted, "App.mf", 1}}},
		{name: "sol004_no_metadata", files: with(map[string]string{metaInFolder: etsiMeta, "ChangeLog.txt": "1.0\n", "App.mf": listed("")}),
			want: []found{{CodeManifestMetadata, "App.mf", 1}}},
		{name: "manifest_beside_the_entry", files: with(map[string]string{metaInFolder: meta(""), "Definitions/main.mf": "metadata:\n  nsd_designer: x\n\nSource: Definitions/main.yaml\nAlgorithm: SHA-512\nHash: 00\n"}),
			want: []found{{CodeManifestMetadata, "Definitions/main.mf", 1}, {CodeManifestHash, "Definitions/main.mf", 6}, {CodeManifestUnlisted, "Definitions/main.mf", 1}}},
		{name: "files_the_template_names", files: with(map[string]string{metaInFolder: meta(""),
			"Definitions/main.yaml": strings.Replace(fixtureMain, "create: ../Scripts/create.sh", `create: ../Scripts/missing.sh
          configure: configure-script
          start: /usr/local/bin/start
          stop: https://example.com/stop.sh
      artifacts:
        configure-script:
          type: tosca.artifacts.Implementation.Bash
          file: ../Scripts/create.sh
        image:
          type: tosca.artifacts.Deployment.Image.VM
          file: ../Files/missing.img`, 1)}),
			want: []found{{"tosca.implementation_outside_root", "Definitions/main.yaml", 12}, {"tosca.implementation_not_found", "Definitions/main.yaml", 10}, {"tosca.artifact_not_found", "Definitions/main.yaml", 20}}},
		{name: "imports_stay_inside", files: with(map[string]string{metaInFolder: meta(""),
			"Definitions/types.yaml": fixtureTypes + "imports:\n  - ../../outside.yaml\n  - /etc/hostname\n  - file:///etc/hostname\n"}),
			want: []found{{"tosca.import_outside_root", "Definitions/types.yaml", 6}, {"tosca.import_outside_root", "Definitions/types.yaml", 7}, {"tosca.import_outside_root", "Definitions/types.yaml", 8}}},
		{name: "top_file", archiveOnly: true, files: map[string]string{"main.yaml": fixtureTop, "Files/other.yaml": fixtureTypes}},
		{name: "top_file_with_manifest", archiveOnly: true, files: map[string]string{"main.yaml": fixtureTop,
			"main.mf": manifest("\nSource: main.yaml\nAlgorithm: SHA-256\nHash: " + sha(fixtureTop) + "\n")}},
		{name: "top_files_two", archiveOnly: true, files: map[string]string{"a.yaml": fixtureTop, "b.yml": fixtureTop},
			want: []found{{CodeNoEntry, ".", 0}}},
		{name: "top_files_none", archiveOnly: true, files: map[string]string{"Definitions/main.yaml": fixtureTop, "tosca-metadata/TOSCA.meta": fixtureMeta},
			want: []found{{CodeNoEntry, ".", 0}}},
		{name: "top_file_tosca_1_0_after_a_byte_order_mark", archiveOnly: true, files: map[string]string{"main.yaml": "\ufefftosca_definitions_version: tosca_simple_yaml_1_0\n"},
			want: []found{{CodeNoMeta, "main.yaml", 1}}},
		{name: "top_file_tosca_1_0", archiveOnly: true, files: map[string]string{"main.yaml": "# a comment\ntosca_definitions_version: 'tosca_simple_yaml_1_0' # the oldest\n"},
			want: []found{{CodeNoMeta, "main.yaml", 2}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want := c.want
			if want == nil {
				want = []found{}
			}
			for form, got := range packageForms(t, c.files, c.archiveOnly, nil) {
				slices.SortFunc(got, func(a, b found) int { return strings.Compare(a.String(), b.String()) })
				slices.SortFunc(want, func(a, b found) int { return strings.Compare(a.String(), b.String()) })
				if !slices.Equal(got, want) {
					t.Errorf("%s: diagnostics = %v, want %v", form, got, want)
				}
			}
		})
	}
}

// TestPackageImportMapReachesOutside maps a URL a package imports to a
// file outside it: the mapping is the user's permission, in both forms.
func TestPackageImportMapReachesOutside(t *testing.T) {
	local := filepath.Join(t.TempDir(), "types.yaml")
	if err := os.WriteFile(local, []byte(fixtureTypes), 0o644); err != nil {
		t.Fatal(err)
	}
	const url = "https://example.com/types.yaml"
	files := map[string]string{
		metaInFolder:            fixtureMeta,
		"Definitions/main.yaml": strings.Replace(fixtureMain, "- types.yaml", "- "+url, 1),
		"Scripts/create.sh":     fixtureScript,
	}
	for form, got := range packageForms(t, files, false, map[string]string{url: local}) {
		if len(got) != 0 {
			t.Errorf("%s: %v", form, got)
		}
	}
	for form, got := range packageForms(t, files, false, nil) {
		if len(got) != 1 || got[0].code != "tosca.network_import" {
			t.Errorf("%s without the map: %v, want one tosca.network_import", form, got)
		}
	}
}

// TestWalkTakesPackageFoldersWhole walks a folder holding a package
// folder beside a plain template: the package is one unit (its entry
// definitions), its other files are not compiled on their own, and an
// archive in the walk is left alone (only a named archive is read).
func TestWalkTakesPackageFoldersWhole(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{
		"plain.yaml":                    fixtureTop,
		"pkg/" + metaInFolder:           fixtureMeta,
		"pkg/Definitions/main.yaml":     fixtureMain,
		"pkg/Definitions/types.yaml":    fixtureTypes,
		"pkg/Scripts/create.sh":         fixtureScript,
		"pkg/Definitions/broken.yaml":   "tosca_definitions_version: tosca_simple_yaml_1_3\nnode_types: [\n",
		"pkg/nested/" + metaInFolder:    "not even a meta file",
		"archives/other.csar":           "not a zip",
		"archives/.hidden/" + metaAtTop: "x",
	})
	res := Load(context.Background(), []string{dir}, Options{Root: rootOf(t, dir)})
	if res.Diags.HasErrors() {
		t.Fatalf("diagnostics: %v", res.Diags)
	}
	var got []string
	for _, u := range res.Units {
		rel, _ := filepath.Rel(dir, u.Files[0])
		pkg := "."
		if u.Package != "" {
			pkg, _ = filepath.Rel(dir, u.Package)
		}
		got = append(got, filepath.ToSlash(rel)+" in "+pkg)
	}
	want := []string{"pkg/Definitions/main.yaml in pkg", "plain.yaml in ."}
	if !slices.Equal(got, want) {
		t.Errorf("units = %v, want %v", got, want)
	}
}

// TestFolderPackageFilesSkipHiddenAndLinks lists a package folder's files
// as a walk does.
func TestFolderPackageFilesSkipHiddenAndLinks(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{"a.yaml": "x", "b/c.yaml": "x", ".git/config": "x"})
	if err := os.Symlink(filepath.Join(dir, "b"), filepath.Join(dir, "loop")); err != nil {
		t.Skip(err)
	}
	got := (&folderPackage{dir: dir}).allFiles()
	if !slices.Equal(got, []string{"a.yaml", "b/c.yaml"}) {
		t.Errorf("allFiles = %v", got)
	}
}

// TestMetadataFolderIsNoPackage checks that the TOSCA-Metadata folder of a
// package, which holds TOSCA.meta at its top, is not taken for a package
// of its own, while a folder holding TOSCA.meta at its top is one.
func TestMetadataFolderIsNoPackage(t *testing.T) {
	dir := testutil.Tree(t, map[string]string{"pkg/" + metaInFolder: fixtureMeta, "top/" + metaAtTop: fixtureMeta})
	for p, want := range map[string]bool{"pkg": true, "pkg/TOSCA-Metadata": false, "top": true, ".": false} {
		if got := isPackageFolder(filepath.Join(dir, filepath.FromSlash(p))); got != want {
			t.Errorf("isPackageFolder(%s) = %v, want %v", p, got, want)
		}
	}
}
