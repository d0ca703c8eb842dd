package core

// File reading and confinement: every file a template names is read
// from the compile's Files when they contain its name, else from disk
// inside the configuration root (FSRoot) once its links are resolved, a
// regular file within the YAML size limit, under the compile's context.
// A file named for the executor (an artifact, an operation
// implementation) is not read but checked against the root
// (ConfineNamed).

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/xosplan/xosplan/internal/userfile"
	"github.com/xosplan/xosplan/internal/yamlsrc"
)

// Files is a tree of files that a compile reads in place of the file
// system, such as the members of a CSAR archive (tosca.Options.Files,
// which documents it).
type Files interface {
	Contains(name string) bool
	Exists(name string) bool
	ReadFile(ctx context.Context, name string, max int64) ([]byte, error)
	String() string
}

// InFiles reports whether name is one of Files's names.
func (c *Session) InFiles(name string) bool {
	return c.Files != nil && c.Files.Contains(name)
}

// Exists reports whether a file (not a folder) has the name p: in Files
// when they contain p, else on disk.
func (c *Session) Exists(p string) bool {
	if c.InFiles(p) {
		return c.Files.Exists(p)
	}
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}

// ReadFile reads a file a template names: from Files when they contain
// the name, else with the checks of FSRoot (inside the root after its
// links are resolved, a regular file); at most the YAML file limit, read
// under the compile's context.
func (c *Session) ReadFile(name string) ([]byte, error) {
	if c.InFiles(name) {
		return c.Files.ReadFile(c.Ctx, name, yamlsrc.DefaultMaxFileBytes)
	}
	data, err := userfile.Read(c.Ctx, name, userfile.Options{Root: c.FSRoot, MaxBytes: yamlsrc.DefaultMaxFileBytes})
	return data, c.outsideFiles(err)
}

// outsideFiles says, in a refusal of a name outside the root when the
// compile reads an archive, that the archive is what confines it; beside
// a root the refusal is the root's.
func (c *Session) outsideFiles(err error) error {
	var ue *userfile.Error
	if c.Archive && errors.Is(err, userfile.ErrOutsideRoot) && errors.As(err, &ue) {
		detail := "the configuration root is the archive " + c.Files.String()
		if d, ok := c.Files.(interface{ DescribeRoot() string }); ok {
			// Files that are no archive (an editor's document read
			// alone) say what confines them.
			detail = d.DescribeRoot()
		}
		return &userfile.Error{Path: ue.Path, Reason: ue.Reason, Detail: detail}
	}
	return err
}

// InRoot reports whether an existing file resolves inside the root (or is
// one of Files).
func (c *Session) InRoot(p string) bool {
	if c.InFiles(p) {
		return true
	}
	_, err := c.FSRoot.Resolve(p)
	return err == nil
}

// LocalURL returns the path a file:// URL names, and false for any other
// URL (a host other than localhost is the network too).
func LocalURL(s string) (string, bool) {
	u, err := url.Parse(s)
	if err != nil || !strings.EqualFold(u.Scheme, "file") || (u.Host != "" && !strings.EqualFold(u.Host, "localhost")) {
		return "", false
	}
	if u.Opaque != "" {
		return u.Opaque, true
	}
	return filepath.FromSlash(u.Path), u.Path != ""
}

// ConfineNamed warns (with code) of a file a template names for the
// executor (an artifact, an operation implementation: what) that
// resolves outside the root. A warning, not an error: the executor is
// what refuses to run an implementation outside the root (as it refuses
// a scripted component's script outside its script root), xosplan never
// reads an artifact (it only hands the name to scripts through
// get_artifact), and templates written for other orchestrators name
// files on the target host (/opt/xos/…, /opt/scripts/…) that validate
// must still accept. A relative name is taken from base, the folder the
// executor runs the resource's operations in; URLs are left alone (they
// are not fetched). A name that does not exist is judged by the part of
// it that does, since the file may be created before apply; each written
// name is checked once however many templates share it.
func (c *Session) ConfineNamed(n *yamlsrc.Node, name, base, path, code, what string) {
	if name == "" || n == nil {
		return
	}
	if strings.Contains(name, "://") {
		local, ok := LocalURL(name)
		if !ok {
			return
		}
		name = local
	}
	if !filepath.IsAbs(name) {
		name = filepath.Join(base, filepath.FromSlash(name))
	}
	k := confinedKey{n, name}
	if c.confined[k] {
		return
	}
	c.markConfined(k)
	if c.InFiles(name) {
		return
	}
	var ue *userfile.Error
	if _, err := c.FSRoot.Confine(name); errors.As(c.outsideFiles(err), &ue) && errors.Is(err, userfile.ErrOutsideRoot) {
		c.Warnf(n.Range, path, code, "%s %q is outside the configuration root (%s); apply runs and reads only files inside it", what, n.Value, ue.Detail)
	}
}

// confinedKey is one written name (its node) resolved from one folder,
// or with a name that cannot be a path (PackagedOnce's), the node alone.
type confinedKey struct {
	n    *yamlsrc.Node
	name string
}

func (c *Session) markConfined(k confinedKey) {
	if c.confined == nil {
		c.confined = map[confinedKey]bool{}
	}
	c.confined[k] = true
}

// PackagedChecked reports whether n's name was judged already as a file
// of a self-contained package; MarkPackaged records that it was.
func (c *Session) PackagedChecked(n *yamlsrc.Node) bool {
	return c.confined[confinedKey{n, "\x00packaged"}]
}

// MarkPackaged records that n's name was judged as a file of a
// self-contained package (PackagedChecked).
func (c *Session) MarkPackaged(n *yamlsrc.Node) { c.markConfined(confinedKey{n, "\x00packaged"}) }
