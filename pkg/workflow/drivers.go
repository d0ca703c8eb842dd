package workflow

import (
	"github.com/xosplan/xosplan/driver/all"
	"github.com/xosplan/xosplan/pkg/executor"
)

// Drivers returns the registry of every driver (driver/all, the one
// registration point), configured by o: what apply, refresh, invoke,
// import and the synchronizer run their operations with.
func Drivers(o executor.DriverOptions) executor.Registry {
	return all.NewRegistry(o)
}
