package state

import "fmt"

// Backend kinds an Identity names.
const (
	// BackendFile is the state file backend (File).
	BackendFile = "file"
	// BackendPostgres is the PostgreSQL backend (package pgbackend).
	BackendPostgres = "postgres"
)

// DefaultWorkspace is the one workspace a state file holds, and the
// workspace of a database that commands use when none is named.
const DefaultWorkspace = "default"

// Identity names one state: which backend, where, and which workspace.
// It never holds a password or anything else secret, so that it may be
// recorded in a plan file (a plan is bound to the state it was made
// against) and shown in messages. Two Identities are the same state
// exactly when they are equal.
type Identity struct {
	// Backend is BackendFile or BackendPostgres.
	Backend string `json:"backend"`
	// Path is a state file's path (File: absolute, links resolved; a
	// caller recording it may make it relative to a folder it names).
	Path string `json:"path,omitempty"`
	// Database is a PostgreSQL state's server and database, without user
	// or password: "postgres://host:5432/db" (or "postgres:///db?host=/socket/dir").
	Database string `json:"database,omitempty"`
	// Schema is the PostgreSQL schema the state's tables live in.
	Schema string `json:"schema,omitempty"`
	// Workspace is the environment within the state: DefaultWorkspace for
	// a state file.
	Workspace string `json:"workspace"`
}

// String names the state for people: "the state file a.json" or "the
// PostgreSQL state postgres://host:5432/db (schema public, workspace
// staging)".
func (id Identity) String() string {
	switch id.Backend {
	case BackendFile:
		return "the state file " + id.Path
	case BackendPostgres:
		return fmt.Sprintf("the PostgreSQL state %s (schema %s, workspace %s)", id.Database, id.Schema, id.Workspace)
	}
	return fmt.Sprintf("a %q state", id.Backend)
}

// Identity names the state file (its workspace is DefaultWorkspace).
func (f *File) Identity() Identity {
	return Identity{Backend: BackendFile, Path: f.path, Workspace: DefaultWorkspace}
}
