//go:build linux

// Package pgtest runs throw-away PostgreSQL 15 servers for tests: initdb in
// a temporary folder, the server listening on 127.0.0.1 only (its unix
// socket in that folder), run as the postgres user when the caller is
// root (initdb refuses root), stopped by its PID.
//
// `make test` starts one server for the whole run (.ci/withpg) and hands
// its address to every test through XOSPLAN_TEST_PG; DSN and NewDatabase
// read it and skip the test, saying how to run it, when it is not set. A
// test that must kill its server (kill -9 during an apply) starts one of its
// own with Start.
//
// It lives beside the backend it serves, as net/http/httptest beside
// net/http; only _test.go files and the CI runner .ci/withpg import it
// (internal/layering).
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// EnvDSN is the variable naming the shared test server's connection URL.
const EnvDSN = "XOSPLAN_TEST_PG"

// EnvBin overrides the folder holding initdb and postgres.
const EnvBin = "XOSPLAN_PG_BIN"

// DefaultBin is where Debian and Ubuntu install PostgreSQL 15's server.
const DefaultBin = "/usr/lib/postgresql/15/bin"

// Server is a running PostgreSQL with its data in a temporary folder.
type Server struct {
	// DSN connects to its postgres database as the superuser xosplan.
	DSN string
	// Port is the TCP port on 127.0.0.1.
	Port int

	dir  string
	bin  string
	cred *syscall.Credential
	cmd  *exec.Cmd
	done chan struct{}
	log  *os.File
}

// Start initialises a data folder under a new temporary folder and starts
// the server on a free port.
func Start(ctx context.Context) (*Server, error) {
	bin := os.Getenv(EnvBin)
	if bin == "" {
		bin = DefaultBin
	}
	for _, name := range []string{"initdb", "postgres"} {
		if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
			return nil, fmt.Errorf("PostgreSQL 15 is not installed (%s not found; apt-get install postgresql-15, or set %s)", filepath.Join(bin, name), EnvBin)
		}
	}
	dir, err := os.MkdirTemp("", "xosplan-pg-*")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: dir, bin: bin}
	if os.Geteuid() == 0 {
		// PostgreSQL refuses to run as root: run it as postgres, owner of
		// the folder.
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, errors.New("running as root and there is no postgres user to run PostgreSQL as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		s.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
	}
	initdb := s.command(ctx, "initdb", "-D", s.data(), "-U", "xosplan", "--auth=trust", "-E", "UTF8", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return nil, fmt.Errorf("initdb: %v\n%s", err, out)
	}
	if s.log, err = os.Create(filepath.Join(dir, "postgres.log")); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	// A port another process takes between freePort and the server's
	// bind fails the start: try again with another.
	for try := 0; ; try++ {
		if s.Port, err = freePort(); err == nil {
			err = s.start(ctx)
		}
		if err == nil || try == 4 {
			break
		}
	}
	if err != nil {
		s.log.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	s.DSN = fmt.Sprintf("postgres://xosplan@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
	return s, nil
}

func (s *Server) data() string { return filepath.Join(s.dir, "data") }

func (s *Server) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, filepath.Join(s.bin, name), args...)
	// Pdeathsig stops the server should its starter die without stopping
	// it (a test binary killed by -timeout).
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: s.cred, Pdeathsig: syscall.SIGKILL, Setpgid: true}
	cmd.Dir = s.dir
	return cmd
}

// start runs the server on s.Port and waits until it accepts connections.
func (s *Server) start(ctx context.Context) error {
	// Not CommandContext: the server outlives the start's context.
	cmd := s.command(context.WithoutCancel(ctx), "postgres", "-D", s.data(), "-h", "127.0.0.1", "-p", strconv.Itoa(s.Port), "-k", s.dir,
		"-c", "fsync=off", "-c", "max_connections=200", "-c", "shared_buffers=16MB", "-c", "log_min_messages=warning")
	cmd.Stdout, cmd.Stderr = s.log, s.log
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	s.cmd, s.done = cmd, done
	deadline := time.Now().Add(30 * time.Second)
	for {
		// The socket appears before the server accepts sessions (after a
		// crash it first recovers): wait for a query to answer.
		if _, err := os.Stat(filepath.Join(s.dir, ".s.PGSQL."+strconv.Itoa(s.Port))); err == nil && dialable(s.Port) && s.answers(ctx) {
			return nil
		}
		select {
		case <-done:
			log, _ := os.ReadFile(s.log.Name())
			return fmt.Errorf("postgres exited at start:\n%s", log)
		case <-ctx.Done():
			s.Kill()
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Kill()
			return errors.New("postgres did not listen within 30 s")
		}
	}
}

// answers reports whether the server runs a query.
func (s *Server) answers(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	dsn := fmt.Sprintf("postgres://xosplan@127.0.0.1:%d/postgres?sslmode=disable", s.Port)
	_, err := Query(ctx, dsn, `SELECT 'ok'`)
	return err == nil
}

func dialable(port int) bool {
	c, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), time.Second)
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// PID is the server's (the postmaster's) process ID.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Kill ends the server with SIGKILL, by its PID and those of its process
// group (the backends it forked), and waits for it.
func (s *Server) Kill() {
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.done
}

// Restart starts the server again on the same data and port, after Kill.
func (s *Server) Restart(ctx context.Context) error {
	// A killed server leaves its pid file; postgres removes a stale one.
	return s.start(ctx)
}

// Stop shuts the server down (fast shutdown, SIGKILL after 20 s) and
// removes its folder.
func (s *Server) Stop() {
	select {
	case <-s.done:
	default:
		_ = s.cmd.Process.Signal(os.Interrupt)
		select {
		case <-s.done:
		case <-time.After(20 * time.Second):
			s.Kill()
		}
	}
	s.log.Close()
	os.RemoveAll(s.dir)
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
