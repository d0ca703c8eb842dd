package manifest

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/xosplan/xosplan/pkg/graph"
)

// placementResourcesRE is Placement's resources syntax, "VCPU:2,MEMORY_MB:2048".
var placementResourcesRE = regexp.MustCompile(`^[A-Z0-9_]+:[1-9][0-9]{0,9}(,[A-Z0-9_]+:[1-9][0-9]{0,9})*$`)

// computeRequest derives the placement request of a compute.Instance from
// its configuration. A hardwareId written in Placement's resources syntax
// ("VCPU:2,MEMORY_MB:2048,DISK_GB:20") asks for those amounts, and a
// locationId then names the aggregate the host must be in (a location is
// where Placement would have an aggregate: a zone, a rack). Any other
// hardwareId — a cloud's flavor or instance type such as "m1.small", an
// expression, a bound value not known yet — names hardware only that cloud
// knows, so the component asks nothing of placement (nil).
func computeRequest(r *graph.Resource) *graph.PlacementRequest {
	if r.Type != KindCompute {
		return nil
	}
	hw, _ := r.Spec["configuration.hardwareId"].(string)
	hw = strings.ReplaceAll(hw, " ", "")
	if !placementResourcesRE.MatchString(hw) {
		return nil
	}
	req := &graph.PlacementRequest{Resources: map[string]int64{}}
	for _, part := range strings.Split(hw, ",") {
		rc, n, _ := strings.Cut(part, ":")
		v, err := strconv.ParseInt(n, 10, 64)
		if err != nil || v > 2147483647 {
			return nil
		}
		req.Resources[rc] += v
	}
	if loc, ok := r.Spec["configuration.locationId"].(string); ok && loc != "" {
		req.MemberOf = [][]string{{loc}}
	}
	return req
}
