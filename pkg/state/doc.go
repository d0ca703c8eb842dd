// Package state owns xosplan's recorded state: the model (declarative spec
// and feedback kept apart), the backends that store it (a local file by
// default), locking, and the apply journal. It knows no source format.
//
// The file backend (File) keeps, beside the state file:
//
//	xosplan.state.json            the snapshot: {version, serial, lineage, resources[…], outputs{…}, sync{…}}
//	xosplan.state.json.backup     the previous snapshot
//	xosplan.state.json.lock       the lock (flock(2); the kernel frees a crashed holder's)
//	xosplan.state.json.lock.info  who holds it: {ID, Operation, Who, Version, Created, Path}
//	xosplan.state.json.journal    the apply journal: intent and outcome records
//
// A state named through symbolic links is the file they resolve to: its
// lock, journal and backup live beside that file.
//
// Guarantees: the snapshot, its backup, the journal header and the lock
// info are each replaced atomically by one helper (temp file, fsync,
// rename, fsync of the folder), so a crash leaves the old or the new file,
// and every write or fsync failure is returned; the same content always
// encodes to the same bytes (Encode); serial grows by one exactly when
// content changes; lineage never changes once written; a file that does
// not decode is reported (ErrCorrupt, ErrVersion) and never overwritten.
// Journal records are on disk before Append returns, concurrent appends
// share fsyncs (group commit), a torn last line left by a crash is ignored
// while damage before intact lines is an error (JournalDamageError), and
// LoadWithJournal replays completed operations over the snapshot and lists
// the interrupted ones.
//
// Writers cannot lose or corrupt each other's work, even when a
// force-unlock hands the lock to a second process while the first still
// runs: every change of the snapshot or the journal is made under a
// flock(2) of the journal file, which a process writing its journal holds
// until it closes it (ErrJournalBusy for the others), and is a
// compare-and-swap on what the writer read (ConflictError) by a writer
// that still holds its lock (ErrLockLost). force-unlock refuses while the
// holder may still run unless forced (HolderRunningError).
//
// List, Show, Remove, Pull and Push are the `xosplan state` operations over
// any Backend, Migrate copies a state between two Stores; the writing ones
// expect the caller to hold the lock (WithLock).
//
// Store is what apply and the state commands work on: a Backend with the
// apply journal. A Journal group-commits its records to a JournalSink: the
// file backend's checksummed lines, or the rows of pgbackend, the
// PostgreSQL backend (a state for a team, with workspaces). Both pass the
// conformance suite in statetest.
//
// Outputs (State.Outputs) are what the last successful apply resolved the
// configuration's outputs to; a state without them is written with no
// "outputs" key, byte for byte as before they were recorded, so the format
// version stays 1 and older states read as states without outputs. The
// same holds for Sync (State.Sync), the time a running `xosplan sync` last
// checked every resource, so that a restart does not check them all at
// once, and for a resource's Versions (XOS's updated, enacted, policed,
// changed_by_step, changed_by_policy) and SetByPolicy: a record without
// them reads its versions from its feedback (Resource.CurrentVersions).
// Touch is `xosplan touch`, XOS's "save without change".
//
// Secrets: as Terraform's, the state holds sensitive values in clear —
// spec values at a resource's Sensitive paths, the operation inputs an
// operation lists as Sensitive, and sensitive outputs — because deletes
// and later applies run with them; the file backend writes every file with mode 0600. Anything
// that shows a resource to a person goes through Resource.Redacted, which
// masks both.
package state
