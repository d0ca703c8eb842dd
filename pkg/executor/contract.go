package executor

import (
	"github.com/xosplan/xosplan/driver"
	"github.com/xosplan/xosplan/pkg/graph"
)

// The walk drives resources through the driver contract of package
// driver; these are its names here, so that the walk's callers read
// executor.Request, executor.Registry and so on.
type (
	Driver        = driver.Driver
	Request       = driver.Request
	Outcome       = driver.Outcome
	Discovered    = driver.Discovered
	CommandResult = driver.CommandResult
	BatchDriver   = driver.BatchDriver
	BatchResult   = driver.BatchResult
	Invoker       = driver.Invoker
	Limiter       = driver.Limiter
	DriverOptions = driver.Options
	Registry      = driver.Registry
)

// Actions a Request can carry (driver.Action*).
const (
	ActionCreate   = driver.ActionCreate
	ActionUpdate   = driver.ActionUpdate
	ActionDelete   = driver.ActionDelete
	ActionRead     = driver.ActionRead
	ActionHealth   = driver.ActionHealth
	ActionDiscover = driver.ActionDiscover
)

// ErrNeedsChange is driver.ErrNeedsChange: a failure that no retry can
// mend, only a change of the configuration or of the files it names.
var ErrNeedsChange = driver.ErrNeedsChange

// truncate cuts s to n bytes as drivers cut what they report.
func truncate(s string, n int) string { return driver.Truncate(s, n) }

// Command invocations as drivers record them (driver.AttrCommands).
type Invocation = driver.Invocation

// AttrCommands is driver.AttrCommands; InvocationPending and
// InvocationCompleted the statuses of an Invocation.
const (
	AttrCommands        = driver.AttrCommands
	InvocationPending   = driver.InvocationPending
	InvocationCompleted = driver.InvocationCompleted
)

// Invocations reads the invocations recorded in attributes
// (driver.Invocations).
func Invocations(attrs map[string]graph.Value) []Invocation { return driver.Invocations(attrs) }
