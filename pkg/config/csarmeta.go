package config

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/xosplan/xosplan/pkg/diag"
)

// Diagnostic codes of a CSAR's TOSCA.meta file; the package documentation
// explains each.
const (
	CodeMetaSyntax     = "csar.meta_syntax"
	CodeMetaVersion    = "csar.meta_version"
	CodeMetaMissingKey = "csar.meta_missing_key"
	CodeMetaDuplicate  = "csar.meta_duplicate"
)

// Keynames of block_0 of TOSCA.meta (TOSCA 1.3 §6.2, 2.0 §17.2.1) and of
// ETSI NFV-SOL 004 §4.3.2.
const (
	metaFileVersion  = "TOSCA-Meta-File-Version"
	metaCSARVersion  = "CSAR-Version"
	metaCreatedBy    = "Created-By"
	metaEntry        = "Entry-Definitions"
	metaOther        = "Other-Definitions"
	metaETSIManifest = "ETSI-Entry-Manifest"
	metaETSIChanges  = "ETSI-Entry-Change-Log"
	metaETSILicenses = "ETSI-Entry-Licenses"
	metaETSICert     = "ETSI-Entry-Certificate"
	metaETSITests    = "ETSI-Entry-Tests"
)

// metaValue is one keyname/value pair of a TOSCA.meta file, with the
// range of its line.
type metaValue struct {
	key, value string
	at         diag.Range
}

// toscaMeta is a parsed TOSCA.meta file: the pairs of its block_0 by
// keyname. The other blocks (custom metadata, per-file entries) are read
// for their syntax only.
type toscaMeta struct {
	block0 map[string]metaValue
}

// get returns the block_0 value of key, matched without regard to case:
// the format is that of a JAR manifest, whose attribute names are case
// insensitive, and real packages write Created-by.
func (m *toscaMeta) get(key string) (metaValue, bool) {
	v, ok := m.block0[strings.ToLower(key)]
	return v, ok
}

// parseMeta reads a TOSCA.meta file (name is what diagnostics call it):
// blocks of `keyname: value` lines separated by empty lines, a value
// continued on following lines that start with a space (TOSCA 2.0
// §17.2). A line of another form, a keyname given twice in block_0 or a
// file that is not UTF-8 text is a CodeMetaSyntax error; the pairs read
// before and after it are kept. Keynames are compared without regard to
// case.
func parseMeta(name string, data []byte) (*toscaMeta, diag.Diagnostics) {
	var diags diag.Diagnostics
	m := &toscaMeta{block0: map[string]metaValue{}}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if !utf8.Valid(data) {
		return m, diags.Errorf(fileStart(name), "", CodeMetaSyntax, "TOSCA.meta is not UTF-8 text")
	}
	block, inBlock := 0, false
	var last *metaValue
	offset := 0
	for i, line := range strings.Split(string(data), "\n") {
		at := lineRange(name, i+1, offset, line)
		offset += len(line) + 1
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.TrimSpace(line) == "":
			if inBlock {
				block++
			}
			inBlock, last = false, nil
			continue
		case line[0] == ' ' || line[0] == '\t':
			if last == nil {
				diags = diags.Errorf(at, "", CodeMetaSyntax, "a line starting with a space continues a value, but no keyname precedes it")
				continue
			}
			last.value += strings.TrimSpace(line)
			if block == 0 {
				m.block0[strings.ToLower(last.key)] = *last
			}
			continue
		}
		inBlock = true
		key, value, ok := strings.Cut(line, ":")
		switch {
		case !ok || key == "":
			diags = diags.Errorf(at, "", CodeMetaSyntax, "a TOSCA.meta line must be `keyname: value`, found %q", clip(line))
			last = nil
			continue
		case value != "" && value[0] != ' ' && value[0] != '\t':
			diags = diags.Errorf(at, "", CodeMetaSyntax, "the colon after %q must be followed by a space (`keyname: value`)", clip(key))
			last = nil
			continue
		}
		last = &metaValue{key: key, value: strings.TrimSpace(value), at: at}
		if block != 0 {
			continue
		}
		k := strings.ToLower(key)
		if prev, dup := m.block0[k]; dup {
			diags = diags.Errorf(at, "", CodeMetaSyntax, "%s is given twice in block_0 (first on line %d)", key, prev.at.Start.Line)
			last = nil
			continue
		}
		m.block0[k] = *last
	}
	return m, diags
}

// lineRange is the range of a whole line (1-based number n, starting at
// byte offset).
func lineRange(file string, n, offset int, line string) diag.Range {
	end := utf8.RuneCountInString(strings.TrimRight(line, "\r")) + 1
	return diag.Range{File: file, Start: diag.Pos{Line: n, Column: 1, Byte: offset},
		End: diag.Pos{Line: n, Column: end, Byte: offset + len(strings.TrimRight(line, "\r"))}}
}

// clip shortens a quoted piece of a line to what a message needs.
func clip(s string) string {
	const most = 80
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	return string([]rune(s)[:most]) + "…"
}

// otherDefinitions splits the value of Other-Definitions: file names
// separated by spaces, a name holding spaces written in double quotes
// (TOSCA 2.0 §17.2.1).
func otherDefinitions(value string) []string {
	var out []string
	for value = strings.TrimSpace(value); value != ""; value = strings.TrimSpace(value) {
		if rest, ok := strings.CutPrefix(value, `"`); ok {
			name, after, _ := strings.Cut(rest, `"`)
			out = append(out, name)
			value = after
			continue
		}
		name, after, _ := strings.Cut(value, " ")
		out = append(out, name)
		value = after
	}
	return out
}
