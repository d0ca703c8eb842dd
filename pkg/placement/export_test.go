package placement

// What the external tests (package placement_test) use of this package's
// unexported code. They are external because they serve a Model through
// placementtest's REST handler, which imports this package.
var (
	AddProviders  = addProviders
	ReadInventory = readInventory
	RequestKey    = requestKey
	SummaryKey    = summaryKey
	DeviceHost    = deviceHost
	Must          = must
	JoinSorted    = joinSorted
)
