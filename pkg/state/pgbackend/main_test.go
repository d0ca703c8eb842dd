//go:build linux

package pgbackend

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// pgBin is where Debian and Ubuntu install PostgreSQL 15's server.
const pgBin = "/usr/lib/postgresql/15/bin"

// server is the PostgreSQL started for this test binary (or why not).
type server struct {
	dsn  string
	skip string
}

// TestMain starts a throwaway PostgreSQL 15 on 127.0.0.1 in a temporary
// folder, runs the tests against it, and stops it.
func TestMain(m *testing.M) {
	srv, stop := startServer()
	testServer = srv
	code := m.Run()
	stop()
	os.Exit(code)
}

var testServer server

func startServer() (server, func()) {
	initdb := filepath.Join(pgBin, "initdb")
	postgres := filepath.Join(pgBin, "postgres")
	for _, bin := range []string{initdb, postgres} {
		if _, err := os.Stat(bin); err != nil {
			return server{skip: fmt.Sprintf("PostgreSQL 15 is not installed (%s not found)", bin)}, func() {}
		}
	}
	dir, err := os.MkdirTemp("", "xosplan-pg-*")
	if err != nil {
		return server{skip: err.Error()}, func() {}
	}
	cleanup := func() { os.RemoveAll(dir) }
	// PostgreSQL refuses to run as root: run it as the postgres user then.
	var cred *syscall.Credential
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			cleanup()
			return server{skip: "running as root and there is no postgres user to run the server as"}, func() {}
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			cleanup()
			return server{skip: err.Error()}, func() {}
		}
	}
	command := func(name string, args ...string) *exec.Cmd {
		cmd := exec.Command(name, args...)
		// Pdeathsig stops the server should this test binary die
		// without running its cleanup (a hung test killed by -timeout).
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred, Pdeathsig: syscall.SIGKILL}
		cmd.Dir = dir
		return cmd
	}
	data := filepath.Join(dir, "data")
	if out, err := command(initdb, "-D", data, "-U", "xosplan", "--auth=trust", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		cleanup()
		return server{skip: fmt.Sprintf("initdb failed: %v\n%s", err, out)}, func() {}
	}
	port, err := freePort()
	if err != nil {
		cleanup()
		return server{skip: err.Error()}, func() {}
	}
	pg := command(postgres, "-D", data, "-h", "127.0.0.1", "-p", strconv.Itoa(port), "-k", dir,
		"-c", "fsync=off", "-c", "max_connections=40", "-c", "shared_buffers=16MB")
	logFile, _ := os.Create(filepath.Join(os.TempDir(), fmt.Sprintf("xosplan-pg-%d.log", port)))
	pg.Stdout, pg.Stderr = logFile, logFile
	if err := pg.Start(); err != nil {
		cleanup()
		return server{skip: fmt.Sprintf("starting postgres: %v", err)}, func() {}
	}
	stop := func() {
		// SIGINT is PostgreSQL's "fast shutdown".
		_ = pg.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = pg.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = pg.Process.Kill()
			<-done
		}
		logFile.Close()
		os.Remove(logFile.Name())
		cleanup()
	}
	dsn := fmt.Sprintf("postgres://xosplan@127.0.0.1:%d/postgres?sslmode=disable", port)
	deadline := time.Now().Add(30 * time.Second)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		conn, err := pgx.Connect(ctx, dsn)
		cancel()
		if err == nil {
			conn.Close(context.Background())
			return server{dsn: dsn}, stop
		}
		if time.Now().After(deadline) {
			stop()
			return server{skip: fmt.Sprintf("postgres did not accept connections: %v", err)}, func() {}
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("no TCP port")
	}
	return addr.Port, nil
}

// newDatabase creates a database of its own for the calling test on the
// test server, dropped when the test ends, and returns its DSN: tests
// (and the repetitions of one test under -count) never see each other's
// states or advisory locks.
func newDatabase(t *testing.T) string {
	t.Helper()
	if testServer.skip != "" {
		t.Skip(testServer.skip)
	}
	ctx := context.Background()
	var id [8]byte
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails on supported platforms
	name := fmt.Sprintf("xosplan_test_%x", id)
	admin, err := pgx.Connect(ctx, testServer.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn, err := pgx.Connect(ctx, testServer.dsn)
		if err != nil {
			t.Errorf("dropping %s: %v", name, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("dropping %s: %v", name, err)
		}
	})
	u, err := url.Parse(testServer.dsn)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/" + name
	return u.String()
}

// open returns a backend for the state called name in the database at
// dsn (from newDatabase).
func open(t *testing.T, dsn, name string, opts Options) *Backend {
	t.Helper()
	opts.DSN, opts.Name = dsn, name
	b, err := Open(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}
