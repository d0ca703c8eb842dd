package config

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes of an ETSI NFV-SOL 004 manifest; the package
// documentation explains each.
const (
	CodeManifestSyntax    = "csar.manifest_syntax"
	CodeManifestMetadata  = "csar.manifest_metadata"
	CodeManifestSource    = "csar.manifest_source"
	CodeManifestAlgorithm = "csar.manifest_algorithm"
	CodeManifestHash      = "csar.manifest_hash"
	CodeManifestUnlisted  = "csar.manifest_unlisted"
)

// manifestSource is one file entry of a manifest: `Source:`, and the
// optional `Algorithm:` and `Hash:` of its digest.
type manifestSource struct {
	source          metaValue
	algorithm, hash *metaValue
}

// sol004Manifest is a parsed manifest file (.mf) of an ETSI NFV-SOL 004
// package.
type sol004Manifest struct {
	// metadata holds the pairs of the metadata block; metadataAt is the
	// range of its `metadata:` line, zero when the manifest has none.
	metadata   map[string]metaValue
	metadataAt diag.Range
	sources    []manifestSource
}

// metadataSets are the keys of a manifest's metadata block for each kind
// of package: SOL004 §4.3.2 (VNF), SOL001/SOL004 (PNF) and SOL007 (NS).
func metadataSets() [][]string {
	return [][]string{
		{"vnf_provider_id", "vnf_product_name", "vnf_release_date_time", "vnf_package_version"},
		{"pnfd_provider", "pnfd_name", "pnfd_release_date_time", "pnfd_archive_version"},
		{"nsd_designer", "nsd_invariant_id", "nsd_name", "nsd_release_date_time", "nsd_file_structure_version"},
	}
}

// parseManifest reads a SOL004 manifest (name is what diagnostics call
// it): a `metadata:` block of indented `key: value` pairs, then groups of
// `Source:`, `Algorithm:` and `Hash:` lines, separated by empty lines.
// Other top-level blocks (non_mano_artifact_sets, per-artifact Signature
// and Certificate lines) and a CMS signature at the end are read for their
// syntax only: xosplan holds no trust anchor to check a signature with.
func parseManifest(name string, data []byte) (*sol004Manifest, diag.Diagnostics) {
	var diags diag.Diagnostics
	m := &sol004Manifest{metadata: map[string]metaValue{}}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return m, diags.Errorf(fileStart(name), "", CodeManifestSyntax, "the manifest is not UTF-8 text")
	}
	section := ""
	var cur *manifestSource
	inSignature := false
	offset := 0
	for i, line := range strings.Split(string(data), "\n") {
		at := lineRange(name, i+1, offset, line)
		offset += len(line) + 1
		line = strings.TrimSuffix(line, "\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case inSignature:
			inSignature = !strings.HasPrefix(trimmed, "-----END")
			continue
		case strings.HasPrefix(trimmed, "-----BEGIN"):
			inSignature, section, cur = true, "", nil
			continue
		case trimmed == "":
			cur = nil
			continue
		case line[0] == ' ' || line[0] == '\t':
			if section == "metadata" {
				diags = m.addMetadata(diags, trimmed, at)
			}
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			diags = diags.Errorf(at, "", CodeManifestSyntax, "a manifest line must be `keyname: value`, found %q", clip(line))
			continue
		}
		v := metaValue{key: key, value: strings.TrimSpace(value), at: at}
		section = ""
		switch strings.ToLower(key) {
		case "metadata":
			section, m.metadataAt = "metadata", at
		case "source":
			m.sources = append(m.sources, manifestSource{source: v})
			cur = &m.sources[len(m.sources)-1]
		case "algorithm", "hash":
			if cur == nil {
				diags = diags.Errorf(at, "", CodeManifestSyntax, "%s: belongs to a file entry, after its Source: line", key)
				continue
			}
			slot := &cur.algorithm
			if strings.EqualFold(key, "hash") {
				slot = &cur.hash
			}
			if *slot != nil {
				diags = diags.Errorf(at, "", CodeManifestSyntax, "%s: is given twice for %s", key, cur.source.value)
				continue
			}
			*slot = &v
		default:
			// Another block (non_mano_artifact_sets) or a keyname of a
			// later SOL004 version (Signature, Certificate).
			section = strings.ToLower(key)
		}
	}
	return m, diags
}

// addMetadata reads one indented line of the metadata block.
func (m *sol004Manifest) addMetadata(diags diag.Diagnostics, line string, at diag.Range) diag.Diagnostics {
	key, value, ok := strings.Cut(line, ":")
	if !ok || key == "" {
		return diags.Errorf(at, "", CodeManifestSyntax, "a metadata line must be `key: value`, found %q", clip(line))
	}
	if prev, dup := m.metadata[key]; dup {
		return diags.Errorf(at, "", CodeManifestSyntax, "metadata %s is given twice (first on line %d)", key, prev.at.Start.Line)
	}
	m.metadata[key] = metaValue{key: key, value: strings.TrimSpace(value), at: at}
	return diags
}

// checkManifest checks a parsed manifest against the package it describes
// (name is the manifest's own name, skip the files it need not list):
// every file it lists must be in the package and match its digest when it
// gives one; the metadata block and a list of every file are SOL004's
// bookkeeping, whose lack is a warning. A Source that is a URL is neither
// fetched nor checked.
func checkManifest(ctx context.Context, files packageFiles, name string, m *sol004Manifest, skip []string) diag.Diagnostics {
	var diags diag.Diagnostics
	diags = diags.Extend(m.checkMetadata(name))
	listed := map[string]bool{}
	for _, s := range m.sources {
		if ctx.Err() != nil {
			break
		}
		src := s.source
		if strings.Contains(src.value, "://") {
			continue
		}
		p, why := packagePath(src.value)
		if why != "" {
			diags = diags.Errorf(src.at, "", CodeBadPath, "Source %q %s", src.value, why)
			continue
		}
		listed[p] = true
		if !files.isFile(p) {
			diags = diags.Errorf(src.at, "", CodeManifestSource, "the manifest lists %s, which is not a file of the package", p)
			continue
		}
		diags = diags.Extend(checkDigest(ctx, files, p, s))
	}
	var unlisted []string
	for _, f := range files.allFiles() {
		if !listed[f] && !slices.Contains(skip, f) {
			unlisted = append(unlisted, f)
		}
	}
	if len(unlisted) > 0 {
		shown := unlisted[:min(len(unlisted), 5)]
		more := ""
		if len(unlisted) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(unlisted)-len(shown))
		}
		diags = diags.Warnf(fileStart(name), "", CodeManifestUnlisted, "the manifest does not list %s: %s%s; SOL004 asks it to list every file of the package",
			plural(len(unlisted), "file"), strings.Join(shown, ", "), more)
	}
	return diags
}

// checkMetadata warns of a metadata block that is missing or lacks keys of
// the kind of package it is closest to.
func (m *sol004Manifest) checkMetadata(name string) diag.Diagnostics {
	var diags diag.Diagnostics
	if m.metadataAt.File == "" {
		return diags.Warnf(fileStart(name), "", CodeManifestMetadata, "the manifest has no metadata block (SOL004 asks for one: vnf_provider_id, vnf_product_name, vnf_release_date_time, vnf_package_version for a VNF package)")
	}
	var best []string
	bestFound := -1
	for _, set := range metadataSets() {
		var missing []string
		for _, k := range set {
			if _, ok := m.metadata[k]; !ok {
				missing = append(missing, k)
			}
		}
		if found := len(set) - len(missing); found > bestFound {
			best, bestFound = missing, found
		}
	}
	if len(best) > 0 {
		diags = diags.Warnf(m.metadataAt, "", CodeManifestMetadata, "the manifest's metadata lacks %s (SOL004)", strings.Join(best, ", "))
	}
	return diags
}

// checkDigest checks the digest a manifest entry gives for the package's
// file p, if it gives one.
func checkDigest(ctx context.Context, files packageFiles, p string, s manifestSource) diag.Diagnostics {
	var diags diag.Diagnostics
	if s.hash == nil {
		return nil
	}
	if s.algorithm == nil {
		return diags.Errorf(s.hash.at, "", CodeManifestAlgorithm, "the Hash of %s has no Algorithm", p)
	}
	h := newDigest(s.algorithm.value)
	if h == nil {
		return diags.Errorf(s.algorithm.at, "", CodeManifestAlgorithm, "Algorithm %q is not one SOL004 names (SHA-256, SHA-384, SHA-512)", clip(s.algorithm.value))
	}
	want, err := hex.DecodeString(s.hash.value)
	if err != nil || len(want) != h.Size() {
		return diags.Errorf(s.hash.at, "", CodeManifestHash, "the Hash of %s is not a %s digest in hexadecimal", p, s.algorithm.value)
	}
	if err := files.hashFile(ctx, p, h); err != nil {
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil
		}
		return diags.Errorf(s.source.at, "", CodeUnreadableArchive, "cannot read %s to check its digest: %v", p, plainPathError(err))
	}
	if got := h.Sum(nil); !bytes.Equal(got, want) {
		diags = diags.Errorf(s.hash.at, "", CodeManifestHash, "%s does not match its %s digest in the manifest: the file's is %x", p, s.algorithm.value, got)
	}
	return diags
}

// newDigest returns the hash an Algorithm value names, or nil.
func newDigest(algorithm string) hash.Hash {
	switch strings.ReplaceAll(strings.ToUpper(strings.TrimSpace(algorithm)), "-", "") {
	case "SHA256":
		return sha256.New()
	case "SHA384":
		return sha512.New384()
	case "SHA512":
		return sha512.New()
	}
	return nil
}

// plainPathError strips the path of an *fs.PathError, which the message
// names already.
func plainPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// plural renders "1 file" / "2 files".
func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
