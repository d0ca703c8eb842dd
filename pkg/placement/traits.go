package placement

import (
	_ "embed"
	"regexp"
	"sort"
	"strings"
)

//go:embed standard_traits.txt
var standardTraitsText string

// customTraitRE is Placement's CUSTOM_TRAIT_PATTERN; the length limit is
// checked separately because Placement reports both with one message.
var customTraitRE = regexp.MustCompile(`^CUSTOM_[A-Z0-9_]+$`)

// MaxNameLength is the longest trait, resource class or aggregate name
// Placement accepts.
const MaxNameLength = 255

// SharesViaAggregate is the trait that makes a provider share its
// inventory with every tree it shares an aggregate with.
const SharesViaAggregate = "MISC_SHARES_VIA_AGGREGATE"

// StandardTraits returns the 377 standard traits of os-traits 3.9.0, sorted.
// The slice is a fresh copy on every call.
func StandardTraits() []string {
	var out []string
	for _, line := range strings.Split(standardTraitsText, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	sort.Strings(out)
	return out
}

// standardTraitSet is built per Model (not package state) from the embedded list.
func standardTraitSet() map[string]bool {
	set := make(map[string]bool, 400)
	for _, t := range StandardTraits() {
		set[t] = true
	}
	return set
}

// IsValidCustomTrait reports whether name may be created as a custom trait:
// it matches ^CUSTOM_[A-Z0-9_]+$ and has at most 255 characters.
func IsValidCustomTrait(name string) bool {
	return len(name) <= MaxNameLength && customTraitRE.MatchString(name)
}

// standardResourceClasses are the classes of os-resource-classes 1.1.0;
// any other class must be a CUSTOM_ class known to the model.
var standardResourceClasses = []string{
	"DISK_GB", "FPGA", "IPV4_ADDRESS", "MEM_ENCRYPTION_CONTEXT", "MEMORY_MB",
	"NET_BW_EGR_KILOBIT_PER_SEC", "NET_BW_IGR_KILOBIT_PER_SEC",
	"NET_PACKET_RATE_EGR_KILOPACKET_PER_SEC", "NET_PACKET_RATE_IGR_KILOPACKET_PER_SEC",
	"NET_PACKET_RATE_KILOPACKET_PER_SEC", "NUMA_CORE", "NUMA_MEMORY_MB", "NUMA_SOCKET",
	"NUMA_THREAD", "PCI_DEVICE", "PCPU", "PGPU", "SRIOV_NET_VF", "VCPU", "VGPU",
	"VGPU_DISPLAY_HEAD",
}

// IsStandardResourceClass reports whether rc is a standard resource class
// of os-resource-classes 1.1.0.
func IsStandardResourceClass(rc string) bool {
	for _, s := range standardResourceClasses {
		if s == rc {
			return true
		}
	}
	return false
}

// IsValidCustomResourceClass reports whether rc is a well-formed custom
// resource class name (same pattern and length rule as custom traits).
func IsValidCustomResourceClass(rc string) bool {
	return IsValidCustomTrait(rc)
}
