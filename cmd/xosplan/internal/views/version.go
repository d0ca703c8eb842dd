package views

import (
	"fmt"
	"io"
)

// BuildInfo is what an xosplan binary knows of its build.
type BuildInfo struct {
	// Version is the module version, "dev" for a build from a work tree.
	Version string `json:"xosplan_version"`
	// Revision is the VCS revision built, "" when Go did not stamp one.
	Revision string `json:"revision"`
	// RevisionTime is the revision's commit time (RFC 3339), or "".
	RevisionTime string `json:"revision_time"`
	// Modified is set when the work tree had uncommitted changes.
	Modified bool `json:"modified"`
	// GoVersion is the Go version that built the binary.
	GoVersion string `json:"go_version"`
	// Platform is GOOS_GOARCH, as Terraform names it.
	Platform string `json:"platform"`
}

// String is the one-line version: the module version, the first 12
// digits of the revision ("+dirty" after them when modified), and the Go
// version.
func (b BuildInfo) String() string {
	v := b.Version
	if len(b.Revision) >= 12 {
		v += "+" + b.Revision[:12]
		if b.Modified {
			v += "-dirty"
		}
	}
	if b.GoVersion != "" {
		v += " (" + b.GoVersion + ")"
	}
	return v
}

// VersionText is the text of `xosplan version` and `xosplan --version`:
// "xosplan " and the one-line version, then the platform on a second line
// as Terraform prints it.
func (b BuildInfo) VersionText() string {
	return fmt.Sprintf("xosplan %s\non %s\n", b, b.Platform)
}

// Version is the view of `xosplan version`.
type Version interface {
	Version(b BuildInfo) error
}

// NewVersion returns the JSON view (json) or the human one.
func NewVersion(json bool, s *Streams) Version {
	if json {
		return versionJSON{s}
	}
	return versionText{s}
}

type versionText struct{ s *Streams }

func (v versionText) Version(b BuildInfo) error {
	_, err := io.WriteString(v.s.Stdout, b.VersionText())
	return err
}

type versionJSON struct{ s *Streams }

func (v versionJSON) Version(b BuildInfo) error { return writeIndentedJSON(v.s.Stdout, b) }

// Completion is the view of `xosplan completion`: the shell's script on
// stdout.
type Completion interface {
	// Script writes what gen generates.
	Script(gen func(w io.Writer) error) error
}

// NewCompletion returns the view of xosplan completion.
func NewCompletion(s *Streams) Completion { return completionView{s} }

type completionView struct{ s *Streams }

func (v completionView) Script(gen func(w io.Writer) error) error { return gen(v.s.Stdout) }
