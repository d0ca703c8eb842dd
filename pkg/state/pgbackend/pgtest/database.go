package pgtest

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// DSN returns the shared test server's URL (XOSPLAN_TEST_PG), or skips t
// saying how to get one.
func DSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(EnvDSN)
	if dsn == "" {
		t.Skipf("%s is not set: this test needs a PostgreSQL server; `make test` starts one, "+
			"or run go run ./.ci/withpg go test ./...", EnvDSN)
	}
	return dsn
}

// NewDatabase creates a database of its own for t on the shared test
// server, dropped when t ends, and returns its URL: tests, and the
// repetitions of one test under -count, never see each other's states or
// locks.
func NewDatabase(t testing.TB) string {
	t.Helper()
	return CreateDatabase(t, DSN(t))
}

// CreateDatabase is NewDatabase on the server at dsn.
func CreateDatabase(t testing.TB, dsn string) string {
	t.Helper()
	ctx := context.Background()
	var id [8]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails on supported platforms
	name := fmt.Sprintf("xosplan_test_%x", id)
	admin, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// Query runs sql on the database at dsn and returns the first column of
// its rows as text.
func Query(ctx context.Context, dsn, sql string) ([]string, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
