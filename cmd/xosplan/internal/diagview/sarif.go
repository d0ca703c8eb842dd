package diagview

import (
	"encoding/json"
	"io"
	"net/url"
	"path/filepath"
	"slices"
	"strings"

	"github.com/xosplan/xosplan/pkg/diag"
)

const (
	sarifSchema  = "https://json.schemastore.org/sarif-2.1.0.json"
	sarifVersion = "2.1.0"
	toolName     = "xosplan"
	toolURI      = "https://github.com/xosplan/xosplan"
	// srcRoot is the uriBaseId of relative artifact locations; code-scanning
	// services resolve it to the repository checkout.
	srcRoot = "%SRCROOT%"
)

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Version        string      `json:"version,omitempty"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID                   string       `json:"id"`
	ShortDescription     sarifMessage `json:"shortDescription"`
	DefaultConfiguration struct {
		Level string `json:"level"`
	} `json:"defaultConfiguration"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID     string          `json:"ruleId"`
	RuleIndex  int             `json:"ruleIndex"`
	Level      string          `json:"level"`
	Message    sarifMessage    `json:"message"`
	Locations  []sarifLocation `json:"locations,omitempty"`
	Properties *sarifMember    `json:"properties,omitempty"`
}

// sarifMember is the property bag of a result about a member of a CSAR
// archive: code-scanning services place results on the files of the
// repository, so the location is the archive, and the member and its
// region (which the message starts with too) are properties.
type sarifMember struct {
	Member string       `json:"archiveMember"`
	Region *sarifRegion `json:"memberRegion,omitempty"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           *sarifRegion  `json:"region,omitempty"`
}

type sarifArtifact struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn,omitempty"`
	EndLine     int `json:"endLine,omitempty"`
	EndColumn   int `json:"endColumn,omitempty"`
}

// unnamedRule is the rule id of a diagnostic without a code, so that every
// result still names a rule.
const unnamedRule = "xosplan.diagnostic"

// renderSARIF writes one run with one rule per diagnostic code (sorted) and
// one result per diagnostic. Columns are 1-based code points and endColumn
// is exclusive, which is what diag.Range holds.
func renderSARIF(w io.Writer, ds diag.Diagnostics, opt Options) error {
	ruleOf := func(d diag.Diagnostic) string {
		if d.Code == "" {
			return unnamedRule
		}
		return d.Code
	}
	// A rule's level is the most severe level any of its results has.
	levels := map[string]diag.Severity{}
	for _, d := range ds {
		id := ruleOf(d)
		if s, ok := levels[id]; !ok || d.Severity < s {
			levels[id] = d.Severity
		}
	}
	ids := make([]string, 0, len(levels))
	for id := range levels {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	rules := make([]sarifRule, len(ids))
	for i, id := range ids {
		rules[i].ID = id
		rules[i].ShortDescription.Text = id
		rules[i].DefaultConfiguration.Level = sarifLevel(levels[id])
	}
	results := make([]sarifResult, 0, len(ds))
	for _, d := range ds {
		id := ruleOf(d)
		idx, _ := slices.BinarySearch(ids, id)
		text := d.Summary
		if d.Detail != "" {
			text += "\n\n" + d.Detail
		}
		res := sarifResult{RuleID: id, RuleIndex: idx, Level: sarifLevel(d.Severity), Message: sarifMessage{Text: text}}
		if file := d.Range.File; file != "" {
			reg := regionOf(d.Range)
			if archive, member, ok := diag.SplitMember(file); ok {
				res.Properties = &sarifMember{Member: member, Region: reg}
				res.Message.Text = d.Range.String() + ": " + text
				file, reg = archive, nil
			}
			loc := sarifLocation{PhysicalLocation: sarifPhysical{ArtifactLocation: artifactOf(file, opt.BaseDir), Region: reg}}
			res.Locations = []sarifLocation{loc}
		}
		results = append(results, res)
	}
	log := sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{{
		Tool:    sarifTool{Driver: sarifDriver{Name: toolName, InformationURI: toolURI, Version: opt.ToolVersion, Rules: rules}},
		Results: results,
	}}}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

// regionOf is the SARIF region of a range, nil when it has no position.
func regionOf(r diag.Range) *sarifRegion {
	s := r.Start
	if s.Line <= 0 {
		return nil
	}
	reg := &sarifRegion{StartLine: s.Line, StartColumn: max(s.Column, 1)}
	if e := r.End; e.Line >= s.Line && (e.Line > s.Line || e.Column > s.Column) {
		reg.EndLine, reg.EndColumn = e.Line, max(e.Column, 1)
	}
	return reg
}

func sarifLevel(s diag.Severity) string {
	if s == diag.Error {
		return "error"
	}
	return "warning"
}

// artifactOf makes a file name a SARIF artifact location: relative to base
// with forward slashes when it lies under base (or is already relative), a
// file URI otherwise. Relative URIs are percent-encoded path by path.
func artifactOf(file, base string) sarifArtifact {
	if filepath.IsAbs(file) && base != "" {
		if rel, err := filepath.Rel(base, file); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			file = rel
		}
	}
	if filepath.IsAbs(file) {
		u := url.URL{Scheme: "file", Path: filepath.ToSlash(file)}
		return sarifArtifact{URI: u.String()}
	}
	u := url.URL{Path: filepath.ToSlash(file)}
	return sarifArtifact{URI: u.String(), URIBaseID: srcRoot}
}
