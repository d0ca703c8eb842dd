package pgbackend

import (
	"errors"
	"strings"
	"testing"
)

func TestMaskHidesEveryFormOfPassword(t *testing.T) {
	cases := []struct{ in, want string }{
		{"postgres://alice:s3cret@db:5432/x?sslmode=require", "postgres://alice:xxxxx@db:5432/x?sslmode=require"},
		{"postgresql://alice:s3cret@db/x", "postgresql://alice:xxxxx@db/x"},
		{"postgres://alice@db/x?password=s3cret&sslmode=disable", "postgres://alice@db/x?password=xxxxx&sslmode=disable"},
		{"host=db user=alice password=s3cret dbname=x", "host=db user=alice password=xxxxx dbname=x"},
		{"host=db password = 's3 cr\\'et' dbname=x", "host=db password = xxxxx dbname=x"},
		{"postgres://alice@db/x", "postgres://alice@db/x"},
		{"failed to parse postgres://a:s3cret@h:x/db: invalid port", "failed to parse postgres://a:xxxxx@h:x/db: invalid port"},
	}
	for _, c := range cases {
		if got := Mask(c.in); got != c.want {
			t.Errorf("Mask(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMaskedErrorKeepsItsCauseAndHidesThePassword(t *testing.T) {
	cause := errors.New("server said: password authentication failed for s3cret-pw")
	err := mask(cause, "s3cret-pw")
	if strings.Contains(err.Error(), "s3cret-pw") || !errors.Is(err, cause) {
		t.Fatalf("mask: %q (Is cause: %v)", err, errors.Is(err, cause))
	}
	if mask(nil, "x") != nil {
		t.Error("mask(nil) is not nil")
	}
}

func TestIsConnString(t *testing.T) {
	for s, want := range map[string]bool{
		"postgres://h/db": true, "postgresql://h/db": true, "host=h dbname=x": true, " krbsrvname=x password=y": true,
		"xosplan.state.json": false, "states/prod.json": false, "/abs/path.json": false,
	} {
		if IsConnString(s) != want {
			t.Errorf("IsConnString(%q) = %v", s, !want)
		}
	}
}

// WithoutPassword drops the password of every form of connection string,
// keeping the rest usable, and leaves a file path alone.
func TestWithoutPasswordKeepsTheRest(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://ci:s3cret@db:5432/xosplan":                     "postgres://ci@db:5432/xosplan",
		"postgresql://ci:s3cret@db/xosplan?sslmode=require":        "postgresql://ci@db/xosplan?sslmode=require",
		"postgres://ci@db/xosplan?password=s3cret":                 "postgres://ci@db/xosplan",
		"postgres://ci@db/xosplan?password=s3cret&sslmode=disable": "postgres://ci@db/xosplan?sslmode=disable",
		"postgres://ci@db/xosplan?sslmode=disable&password=s3cret": "postgres://ci@db/xosplan?sslmode=disable",
		"host=db user=ci password=s3cret dbname=xosplan":           "host=db user=ci  dbname=xosplan",
		"host=db password='s3 cret' dbname=xosplan":                "host=db  dbname=xosplan",
		"postgres://ci@db/xosplan":                                 "postgres://ci@db/xosplan",
		"states/password=s3cret.json":                              "states/password=s3cret.json",
	} {
		got := WithoutPassword(in)
		if got != want {
			t.Errorf("WithoutPassword(%q) = %q, want %q", in, got, want)
		}
		if IsConnString(in) && strings.Contains(got, "s3") {
			t.Errorf("WithoutPassword(%q) = %q keeps the password", in, got)
		}
	}
}
