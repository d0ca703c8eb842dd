package testutil

import (
	"encoding/base64"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// SecretForms returns, by name, the forms of secret a script may print:
// the secret itself, its base64 and URL escapes, and its base64 inside a
// longer text (HTTP basic auth). A redaction test checks that none of them
// shows.
func SecretForms(secret string) map[string]string {
	b := []byte(secret)
	return map[string]string{
		"plain":         secret,
		"base64":        base64.StdEncoding.EncodeToString(b),
		"base64 raw":    base64.RawStdEncoding.EncodeToString(b),
		"base64url":     base64.URLEncoding.EncodeToString(b),
		"base64url raw": base64.RawURLEncoding.EncodeToString(b),
		"query escaped": url.QueryEscape(secret),
		"path escaped":  url.PathEscape(secret),
		"basic auth":    "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("admin:"+secret)),
		"basic auth, 1": base64.StdEncoding.EncodeToString([]byte("x" + secret + "tail")),
		"basic auth, 2": base64.StdEncoding.EncodeToString([]byte("xy" + secret + "tail")),
		"in a URL":      "https://admin:" + url.QueryEscape(secret) + "@db:5432/shop",
	}
}

// WriteScript writes an executable script under dir (name is
// slash-separated; its folders are created) and returns its path.
func WriteScript(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
