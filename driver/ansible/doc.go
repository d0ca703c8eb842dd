// Package ansible is the driver of TOSCA operations whose implementations
// are Ansible playbooks (graph.DriverAnsible): each operation is one
// ansible-playbook run against the host the node is hosted on, as xOpera
// runs it.
//
// The parts of a run are pure functions with tests of their own: the host
// (HostOf, from the graph.InputAnsibleHost input pkg/tosca writes) and its
// inventory (Inventory), the extra variables (Vars, written to a 0600
// file), the outputs set_stats reported (ParseStats, from the callback
// plugin of ours the run enables), the files a playbook includes
// (Includes, which the plan digests) and whether it forces a real run in
// check mode (ForcesRealRun). Driver puts them together: the run folder
// laid out as xOpera's, the process (pkg/process: group, timeout,
// SIGTERM then SIGKILL, bounded and redacted output), the outputs mapped
// to attributes, readiness (driver.ReadinessOutput), health checks, and
// check-mode predictions (driver.Predictor). docs/drivers.md is the
// user's description.
//
// The package returns data and errors; it never prints.
package ansible
