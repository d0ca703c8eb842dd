package config

import (
	"context"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/xosplan/xosplan/internal/testutil"
	"github.com/xosplan/xosplan/pkg/diag"
)

// fuzzLimits keep every fuzzed archive small, so that an iteration is
// bounded in time and memory whatever the bytes claim.
var fuzzLimits = ArchiveLimits{Size: 1 << 20, Entries: 64, Total: 4 << 20, Ratio: 100}

// checkPackageDiags fails on a diagnostic of a package that names no file
// of it or has no code.
func checkPackageDiags(t *testing.T, ds diag.Diagnostics, pkg string) {
	t.Helper()
	for _, d := range ds {
		if d.Code == "" || !strings.HasPrefix(d.Range.File, pkg) {
			t.Fatalf("diagnostic without code or outside the package: %+v", d)
		}
	}
}

// FuzzArchive reads arbitrary bytes as a CSAR archive, within small
// limits: opening it, finding and checking its entry definitions (its
// TOSCA.meta, its manifest and digests) and reading every member never
// panics, every member it keeps has a safe name, and every diagnostic
// names the archive.
func FuzzArchive(f *testing.F) {
	fixtures, _ := filepath.Glob(filepath.Join("testdata", "csar", "*.csar"))
	if dir := testutil.CorpusDirOrEmpty("csar"); dir != "" {
		corpus, _ := filepath.Glob(filepath.Join(dir, "*.zip"))
		fixtures = append(fixtures, corpus...)
	}
	for _, p := range fixtures {
		// Large seeds slow every mutation down: the small ones cover the
		// same code.
		if data, err := os.ReadFile(p); err == nil && len(data) <= 8<<10 {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "p.csar")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		a, problem := openArchive(ctx, p, nil, fuzzLimits)
		if problem != nil {
			checkPackageDiags(t, diag.Diagnostics{*problem}, p)
			return
		}
		defer a.close()
		for _, name := range a.allFiles() {
			if unsafeEntryName(name) != "" || path.Clean(name) != name || strings.HasPrefix(name, "../") {
				t.Fatalf("an unsafe member was kept: %q", name)
			}
			_, _ = a.readFile(ctx, name, MaxFileBytes)
		}
		entry, diags := csarEntry(ctx, a)
		checkPackageDiags(t, diags, p)
		if entry != "" && !a.isFile(entry) {
			t.Fatalf("the entry %q is no file of the archive", entry)
		}
	})
}

// FuzzMeta reads arbitrary text as the TOSCA.meta of an archive that holds
// a template, and as a SOL004 manifest: parsing, checking the versions,
// finding the entry and checking the manifest never panic, and every
// diagnostic names a file of the package.
func FuzzMeta(f *testing.F) {
	for _, s := range []string{
		fixtureMeta,
		"\ufeffTOSCA-Meta-File-Version: 1.0\r\nCSAR-Version: 1.1\r\nCreated-by: x\r\nEntry-Definitions: Defini\r\n tions/main.yaml\r\n\r\nName: a\r\n",
		"CSAR-Version: 2.0\nEntry-Definitions: ../../etc/passwd\nOther-Definitions: \"a b.yaml\" c.yaml \"unterminated\n",
		"TOSCA-Meta-File-Version, 1.0\n continued\n:\n: value\nkey:value\n",
		"Entry-Definitions: Definitions/main.yaml\nETSI-Entry-Manifest: Definitions/main.yaml\nETSI-Entry-Licenses: /\n",
		"metadata:\n  vnf_provider_id: x\nSource: Definitions/main.yaml\nAlgorithm: SHA-512\nHash: 00\n-----BEGIN CMS-----\n",
		"\xff\xfe", "", "\n\n\n", " ",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		entries := []zipEntry{
			{name: metaInFolder, body: text},
			{name: "Definitions/main.yaml", body: fixtureTop},
			{name: "Definitions/main.mf", body: text},
		}
		p := filepath.Join(t.TempDir(), "p.csar")
		if err := os.WriteFile(p, zipBytes(t, entries), 0o644); err != nil {
			t.Fatal(err)
		}
		a, problem := openArchive(context.Background(), p, nil, fuzzLimits)
		if problem != nil {
			t.Fatalf("the archive was refused: %v", problem)
		}
		defer a.close()
		_, diags := csarEntry(context.Background(), a)
		checkPackageDiags(t, diags, p)
		m, diags := parseManifest("m.mf", []byte(text))
		checkPackageDiags(t, diags, "m.mf")
		checkPackageDiags(t, checkManifest(context.Background(), a, "m.mf", m, nil), "m.mf")
	})
}
