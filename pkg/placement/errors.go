package placement

import (
	"errors"
	"fmt"
	"net/http"
)

// Error codes Placement puts in an error's "code" field.
const (
	CodeConcurrentUpdate = "placement.concurrent_update"
	CodeInventoryInUse   = "placement.inventory.inuse"
	CodeUndefined        = "placement.undefined_code"
)

// Error is a refusal by the model, carrying the HTTP status Placement would
// answer (400 bad request, 404 not found, 409 conflict) and Placement's
// error code where it has one. Detail is the human message; where Placement
// has a well-known wording it is reproduced so that users can search it.
type Error struct {
	Status int
	Code   string
	Detail string
}

// Error renders the detail (and the code when there is one).
func (e *Error) Error() string {
	if e.Code != "" && e.Code != CodeUndefined {
		return fmt.Sprintf("%s (%s)", e.Detail, e.Code)
	}
	return e.Detail
}

// Is matches the sentinel errors below by status and code, so callers write
// errors.Is(err, placement.ErrGenerationConflict).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok || t.Detail != "" {
		return false
	}
	return t.Status == e.Status && (t.Code == "" || t.Code == e.Code)
}

// Sentinels for errors.Is; they match any Error with the same status (and
// code, when the sentinel has one).
var (
	// ErrBadRequest matches every 400.
	ErrBadRequest = &Error{Status: http.StatusBadRequest}
	// ErrNotFound matches every 404.
	ErrNotFound = &Error{Status: http.StatusNotFound}
	// ErrConflict matches every 409 (generation conflicts, capacity, in use).
	ErrConflict = &Error{Status: http.StatusConflict}
	// ErrGenerationConflict matches a stale provider or consumer generation.
	ErrGenerationConflict = &Error{Status: http.StatusConflict, Code: CodeConcurrentUpdate}
)

func badRequest(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Code: CodeUndefined, Detail: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *Error {
	return &Error{Status: http.StatusNotFound, Code: CodeUndefined, Detail: fmt.Sprintf(format, args...)}
}

func conflict(code, format string, args ...any) *Error {
	if code == "" {
		code = CodeUndefined
	}
	return &Error{Status: http.StatusConflict, Code: code, Detail: fmt.Sprintf(format, args...)}
}

// StatusOf returns the HTTP status an error maps to: the Error's status,
// 200 for nil, 500 for anything else.
func StatusOf(err error) int {
	if err == nil {
		return http.StatusOK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Status
	}
	return http.StatusInternalServerError
}
