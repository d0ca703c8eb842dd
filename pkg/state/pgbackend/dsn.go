package pgbackend

import (
	"errors"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
)

// keywordRE matches the start of a libpq key=value connection string.
var keywordRE = regexp.MustCompile(`^\s*[A-Za-z_]+\s*=`)

// IsConnString reports whether s names a PostgreSQL state rather than a
// file: a postgres:// or postgresql:// URL, or a libpq key=value string
// ("host=db dbname=xosplan"). Any KEY= start counts, so that a string
// with a password and a keyword this code does not know is still treated
// (and masked) as a connection string, never named as a missing file.
func IsConnString(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://") || keywordRE.MatchString(s)
}

// passwordRE finds the password of a connection string: in a URL's user
// information, as a URL query parameter, or as a key=value pair (quoted
// or not).
var passwordRE = regexp.MustCompile(`(://[^:@/?#\s]*:)([^@/?#\s]*)(@)|([?&]password=)([^&#\s]*)|(\bpassword\s*=\s*)('(?:[^'\\]|\\.)*'|[^\s']*)`)

// Mask returns the connection string s with its password replaced by
// "xxxxx", for anything shown to a person.
func Mask(s string) string {
	return passwordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordRE.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			return sub[1] + "xxxxx" + sub[3]
		case sub[4] != "":
			return sub[4] + "xxxxx"
		default:
			return sub[6] + "xxxxx"
		}
	})
}

// WithoutPassword returns the connection string s without its password
// (in a URL's user information, as a URL query parameter, or as a
// key=value pair), for a command line shown to a person, which then takes
// the password from PGPASSWORD or ~/.pgpass. Anything that is not a
// connection string (a state file's path) is returned as it is.
func WithoutPassword(s string) string {
	if !IsConnString(s) {
		return s
	}
	out := passwordRE.ReplaceAllStringFunc(s, func(m string) string {
		sub := passwordRE.FindStringSubmatch(m)
		switch {
		case sub[1] != "":
			return strings.TrimSuffix(sub[1], ":") + sub[3]
		case sub[4] != "":
			return sub[4][:1]
		default:
			return ""
		}
	})
	for _, tidy := range [][2]string{{"?&", "?"}, {"&&", "&"}} {
		out = strings.ReplaceAll(out, tidy[0], tidy[1])
	}
	return strings.TrimSpace(strings.TrimRight(out, "?&"))
}

// maskedError is err with every occurrence of a secret replaced in its
// message; errors.Is and errors.As still see err.
type maskedError struct {
	err error
	msg string
}

func (e *maskedError) Error() string { return e.msg }
func (e *maskedError) Unwrap() error { return e.err }

// MaskError returns err with password, and the password of any
// connection string its message holds, replaced by "xxxxx"; errors.Is and
// errors.As still see err. Packages that open connections of their own to
// the state database wrap their errors with it.
func MaskError(err error, password string) error { return mask(err, password) }

// mask returns err with password (and any connection string's password)
// masked in its message.
func mask(err error, password string) error {
	if err == nil {
		return nil
	}
	msg := Mask(err.Error())
	if password != "" {
		msg = strings.ReplaceAll(msg, password, "xxxxx")
	}
	if msg == err.Error() {
		return err
	}
	return &maskedError{err: err, msg: msg}
}

// location names a database without its password: postgres://user@host:port/db.
func location(user, host string, port uint16, database string) string {
	if user != "" {
		user += "@"
	}
	if strings.HasPrefix(host, "/") {
		return fmt.Sprintf("postgres://%s/%s?host=%s", user, database, host)
	}
	return fmt.Sprintf("postgres://%s%s/%s", user, net.JoinHostPort(host, strconv.Itoa(int(port))), database)
}

// ErrBadWorkspaceName: a workspace name that is not 1 to 90 letters,
// digits, '-', '_' or '.'.
var ErrBadWorkspaceName = errors.New("a workspace name is 1 to 90 letters, digits, '-', '_' or '.'")

var workspaceRE = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,90}$`)

// CheckWorkspaceName returns ErrBadWorkspaceName (naming name) unless
// name is a valid workspace name.
func CheckWorkspaceName(name string) error {
	if !workspaceRE.MatchString(name) {
		return fmt.Errorf("%w: %q", ErrBadWorkspaceName, name)
	}
	return nil
}
