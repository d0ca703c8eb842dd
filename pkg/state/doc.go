// Package state owns xosplan's recorded state: the model (declarative spec
// and feedback kept apart), the backends that store it (a local file by
// default), locking, and the apply journal. It knows no source format.
package state
