//go:build linux

package pgbackend

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/xosplan/xosplan/pkg/state"
)

func exec(t *testing.T, dsn string, sqls ...string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, sql := range sqls {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
}

func TestConcurrentFirstUsersMigrateOnce(t *testing.T) {
	db := newDatabase(t)
	const users = 8
	var wg sync.WaitGroup
	errs := make([]error, users)
	for i := range users {
		wg.Go(func() {
			b, err := Open(context.Background(), Options{DSN: db})
			if err == nil {
				_ = b.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent first users: %v", err)
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	rows, _ := conn.Query(ctx, `SELECT version FROM xosplan_schema_version ORDER BY version`)
	versions, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil || len(versions) != len(migrations) || int(versions[len(versions)-1]) != len(migrations) {
		t.Fatalf("schema versions %v (%v), want 1..%d once each", versions, err, len(migrations))
	}
}

func TestNewerSchemaIsRefusedByAnOlderBinary(t *testing.T) {
	db := newDatabase(t)
	b := open(t, db, DefaultWorkspace, Options{})
	_ = b.Close()
	exec(t, db, `INSERT INTO xosplan_schema_version (version) VALUES (99)`)
	_, err := Open(context.Background(), Options{DSN: db})
	var se *SchemaError
	if !errors.Is(err, ErrSchemaTooNew) || !errors.As(err, &se) || se.Found != 99 || !strings.Contains(err.Error(), "upgrade xosplan") {
		t.Fatalf("opening a schema of version 99: %v", err)
	}
}

func TestFirstVersionDatabaseIsAdopted(t *testing.T) {
	db := newDatabase(t)
	s := &state.State{Version: state.FormatVersion, Serial: 4, Lineage: "legacy-lineage", Resources: []state.Resource{res("a", 1)}}
	data, err := state.Encode(s)
	if err != nil {
		t.Fatal(err)
	}
	exec(t, db, migrations[0])
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, `INSERT INTO xosplan_state (name, lineage, serial, data) VALUES ('legacy', 'legacy-lineage', 4, $1)`, data); err != nil {
		t.Fatal(err)
	}
	conn.Close(ctx)
	b, err := Open(ctx, Options{DSN: db, Name: "legacy"})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.Read(ctx)
	if err != nil || got.Serial != 4 || got.Lineage != "legacy-lineage" || len(got.Resources) != 1 {
		t.Fatalf("the first version's state read as %+v (%v)", got, err)
	}
}

// TestLocksArePerWorkspaceAndPerSchema: workspaces of one schema, and the
// same workspace name in two schemas of one database, lock independently
// (OpenTofu's issue #2218 was one advisory lock for them all).
func TestLocksArePerWorkspaceAndPerSchema(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	exec(t, db, `CREATE SCHEMA team_a`, `CREATE SCHEMA team_b`)
	var held []*state.HeldLock
	for _, dsn := range []string{db + "&search_path=team_a", db + "&search_path=team_b"} {
		for _, ws := range []string{DefaultWorkspace, "staging", "prod"} {
			b := open(t, dsn, ws, Options{})
			h, err := b.Lock(ctx, state.LockInfo{Operation: "apply"})
			if err != nil {
				t.Fatalf("%s in %s: %v", ws, dsn, err)
			}
			held = append(held, h)
		}
	}
	// And the lock still excludes within one workspace of one schema.
	if _, err := open(t, db+"&search_path=team_b", "prod", Options{}).Lock(ctx, state.LockInfo{}); !errors.Is(err, state.ErrLocked) {
		t.Fatalf("a second lock of team_b's prod: %v", err)
	}
	for _, h := range held {
		if err := h.Unlock(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWorkspaceDeleteRefusesNonEmptyAndDefault(t *testing.T) {
	ctx := context.Background()
	db := newDatabase(t)
	def := open(t, db, DefaultWorkspace, Options{})
	if err := def.Delete(ctx, state.LockInfo{}, true); !errors.Is(err, ErrDefaultWorkspace) {
		t.Errorf("deleting the default workspace: %v", err)
	}
	if err := def.CreateWorkspace(ctx, "bad name"); !errors.Is(err, ErrBadWorkspaceName) {
		t.Errorf("a bad name: %v", err)
	}
	b := open(t, db, "staging", Options{})
	if err := def.CreateWorkspace(ctx, "staging"); !errors.Is(err, ErrWorkspaceExists) {
		t.Errorf("creating it twice: %v", err)
	}
	s, _ := b.Read(ctx)
	s.Resources = []state.Resource{res("a", 1)}
	if err := b.Write(ctx, s); err != nil {
		t.Fatal(err)
	}
	if err := b.Delete(ctx, state.LockInfo{}, false); !errors.Is(err, ErrWorkspaceNotEmpty) {
		t.Fatalf("deleting a workspace with resources: %v", err)
	}
	if err := b.Delete(ctx, state.LockInfo{}, true); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(ctx, Options{DSN: db, Name: "staging"}); !errors.Is(err, ErrNoWorkspace) {
		t.Fatalf("opening the deleted workspace: %v", err)
	}
	ws, err := def.Workspaces(ctx)
	if err != nil || len(ws) != 1 || ws[0].Name != DefaultWorkspace {
		t.Fatalf("workspaces after delete: %+v %v", ws, err)
	}
}
