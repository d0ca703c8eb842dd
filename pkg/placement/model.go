package placement

import (
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
)

// MaxInt is the largest value Placement accepts for an inventory field or
// an allocation amount.
const MaxInt = 2147483647

// Inventory is what one provider offers of one resource class.
type Inventory struct {
	Total           int64   `json:"total"`
	Reserved        int64   `json:"reserved"`
	MinUnit         int64   `json:"min_unit"`
	MaxUnit         int64   `json:"max_unit"`
	StepSize        int64   `json:"step_size"`
	AllocationRatio float64 `json:"allocation_ratio"`
}

// DefaultInventory returns an inventory of total with the REST API's
// defaults: reserved 0, min_unit 1, max_unit 2147483647, step_size 1,
// allocation_ratio 1.0.
func DefaultInventory(total int64) Inventory {
	return Inventory{Total: total, MinUnit: 1, MaxUnit: MaxInt, StepSize: 1, AllocationRatio: 1}
}

// Capacity is int((total - reserved) * allocation_ratio), as Placement
// computes it.
func (i Inventory) Capacity() int64 {
	return int64(math.Floor(float64(i.Total-i.Reserved) * i.AllocationRatio))
}

// Accepts reports whether a single request of amount satisfies min_unit,
// max_unit and step_size (capacity is checked against usage elsewhere).
func (i Inventory) Accepts(amount int64) bool {
	return amount >= i.MinUnit && amount <= i.MaxUnit && i.StepSize > 0 && amount%i.StepSize == 0
}

// ProviderSpec describes a provider to add to a Model.
type ProviderSpec struct {
	// Name identifies the provider; the model uses it where Placement uses
	// a UUID.
	Name string
	// UUID is the provider's UUID in a real Placement service, if known.
	UUID string
	// Parent is the name of the parent provider ("" for a root). The parent
	// must have been added first.
	Parent      string
	Inventories map[string]Inventory
	Traits      []string
	Aggregates  []string
	// Usages is usage recorded outside the model (allocations it does not
	// know by consumer); it counts against capacity like any allocation.
	Usages map[string]int64
}

type provider struct {
	name, uuid string
	parent     *provider
	root       *provider
	generation int64
	inv        map[string]Inventory
	traits     map[string]bool
	aggs       map[string]bool
	external   map[string]int64 // usage recorded outside the model
	used       map[string]int64 // external + allocations
	children   int
}

// fits reports whether the provider can take amount of rc on top of
// extra already counted in the same candidate.
func (p *provider) fits(rc string, amount, extra int64) bool {
	inv, ok := p.inv[rc]
	if !ok || !inv.Accepts(amount) {
		return false
	}
	return p.used[rc]+extra+amount <= inv.Capacity()
}

type consumer struct {
	project, user string
	generation    int64
	allocs        map[string]map[string]int64 // provider -> class -> amount
}

// Model is the embedded Placement: providers, traits, resource classes,
// aggregates and allocations, guarded by one mutex so that a Model may be
// shared by goroutines. The zero value is not usable; call NewModel.
type Model struct {
	mu            sync.Mutex
	providers     map[string]*provider
	standard      map[string]bool
	customTraits  map[string]bool
	customClasses map[string]bool
	consumers     map[string]*consumer
	byUUID        map[string]*provider
	// structure counts changes that invalidate idx (providers, traits,
	// aggregates, inventories); usage changes do not.
	structure uint64
	idx       *index
	// MaxCombinations bounds the combinations one Candidates call examines;
	// see Candidates. Zero means DefaultMaxCombinations.
	maxCombinations int
}

// NewModel returns an empty model that knows the standard traits and
// resource classes.
func NewModel() *Model {
	return &Model{
		providers:     map[string]*provider{},
		standard:      standardTraitSet(),
		customTraits:  map[string]bool{},
		customClasses: map[string]bool{},
		consumers:     map[string]*consumer{},
		byUUID:        map[string]*provider{},
	}
}

// Lookup resolves a provider name or UUID to the provider's name.
func (m *Model) Lookup(id string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.providers[id]; ok {
		return id, true
	}
	if p, ok := m.byUUID[strings.ToLower(id)]; ok {
		return p.name, true
	}
	return "", false
}

// SetMaxCombinations sets the combination cap of Candidates (n <= 0 restores
// DefaultMaxCombinations).
func (m *Model) SetMaxCombinations(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maxCombinations = n
}

func (m *Model) changed() { m.structure++; m.idx = nil }

// written records a write to p's inventories, traits or aggregates: p's
// generation grows (so that writers holding the old one get a conflict)
// and the model's structure changes. It returns the new generation.
func (m *Model) written(p *provider) int64 {
	p.generation++
	m.changed()
	return p.generation
}

func (m *Model) traitExists(t string) bool { return m.standard[t] || m.customTraits[t] }

func (m *Model) classExists(rc string) bool {
	return IsStandardResourceClass(rc) || m.customClasses[rc]
}

// EnsureCustomResourceClass registers a custom resource class (idempotent).
func (m *Model) EnsureCustomResourceClass(rc string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.ensureClass(rc)
}

func (m *Model) ensureClass(rc string) error {
	if m.classExists(rc) {
		return nil
	}
	if !IsValidCustomResourceClass(rc) {
		return badRequest("No such resource class %s.", rc)
	}
	m.customClasses[rc] = true
	return nil
}

// AddProvider adds a provider. Custom traits and CUSTOM_ resource classes it
// names are created on the way (an inventory file is trusted to define
// them); unknown standard-looking names are refused with 400.
func (m *Model) AddProvider(s ProviderSpec) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s.Name == "" || len(s.Name) > MaxNameLength {
		return badRequest("Provider name must be 1 to %d characters.", MaxNameLength)
	}
	if _, dup := m.providers[s.Name]; dup {
		return conflict("placement.duplicate_name", "Conflicting resource provider name: %s already exists.", s.Name)
	}
	if _, dup := m.byUUID[strings.ToLower(s.UUID)]; dup && s.UUID != "" {
		return conflict("placement.duplicate_uuid", "Conflicting resource provider uuid: %s already exists.", s.UUID)
	}
	p := &provider{name: s.Name, uuid: s.UUID, inv: map[string]Inventory{}, traits: map[string]bool{},
		aggs: map[string]bool{}, external: map[string]int64{}, used: map[string]int64{}}
	if s.Parent != "" {
		parent, ok := m.providers[s.Parent]
		if !ok {
			return badRequest("parent provider %s does not exist.", s.Parent)
		}
		p.parent, p.root = parent, parent.root
	} else {
		p.root = p
	}
	for _, t := range s.Traits {
		if !m.traitExists(t) {
			if !IsValidCustomTrait(t) {
				return badRequest("No such trait(s): %s.", t)
			}
			m.customTraits[t] = true
		}
		p.traits[t] = true
	}
	for rc, inv := range s.Inventories {
		if err := m.ensureClass(rc); err != nil {
			return err
		}
		if err := validateInventory(s.Name, rc, inv, true); err != nil {
			return err
		}
		p.inv[rc] = inv
	}
	for _, a := range s.Aggregates {
		p.aggs[a] = true
	}
	for rc, u := range s.Usages {
		if err := m.ensureClass(rc); err != nil {
			return err
		}
		p.external[rc] = u
		p.used[rc] = u
	}
	if p.parent != nil {
		p.parent.children++
	}
	m.providers[s.Name] = p
	if s.UUID != "" {
		m.byUUID[strings.ToLower(s.UUID)] = p
	}
	m.changed()
	return nil
}

// DeleteProvider removes a provider that has no children and no allocations.
func (m *Model) DeleteProvider(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return err
	}
	for _, u := range p.used {
		if u > 0 {
			return conflict("", "Unable to delete resource provider %s: Resource provider has allocations.", name)
		}
	}
	if p.children > 0 {
		return conflict("placement.resource_provider.cannot_delete_parent", "Unable to delete parent resource provider %s: It has child resource providers.", name)
	}
	if p.parent != nil {
		p.parent.children--
	}
	delete(m.providers, name)
	delete(m.byUUID, strings.ToLower(p.uuid))
	m.changed()
	return nil
}

func (m *Model) provider(name string) (*provider, error) {
	p, ok := m.providers[name]
	if !ok {
		return nil, notFound("No resource provider with uuid %s found", name)
	}
	return p, nil
}

// providerAt returns the provider for a write that names the generation
// it read: 404 when there is no such provider, 409 when the generation is
// stale. The caller holds m.mu.
func (m *Model) providerAt(name string, generation int64) (*provider, error) {
	p, err := m.provider(name)
	if err != nil {
		return nil, err
	}
	if err := checkGeneration(p, generation); err != nil {
		return nil, err
	}
	return p, nil
}

func checkGeneration(p *provider, gen int64) error {
	if p.generation != gen {
		return conflict(CodeConcurrentUpdate, "resource provider generation conflict")
	}
	return nil
}

// validateInventory applies Placement's write-time capacity rule: from
// microversion 1.26 reserved may equal total (zero capacity); before, the
// capacity must be positive.
func validateInventory(rp, rc string, inv Inventory, zeroCapacityOK bool) error {
	switch {
	case inv.Total < 1 || inv.Total > MaxInt:
		return badRequest("Invalid inventory for '%s' on resource provider '%s'. total must be 1 to %d.", rc, rp, MaxInt)
	case inv.Reserved < 0 || inv.Reserved > MaxInt:
		return badRequest("Invalid inventory for '%s' on resource provider '%s'. reserved must be 0 to %d.", rc, rp, MaxInt)
	case inv.MinUnit < 1 || inv.MaxUnit < 1 || inv.StepSize < 1 || inv.MinUnit > MaxInt || inv.MaxUnit > MaxInt || inv.StepSize > MaxInt:
		return badRequest("Invalid inventory for '%s' on resource provider '%s'. min_unit, max_unit and step_size must be 1 to %d.", rc, rp, MaxInt)
	case !(inv.AllocationRatio > 0) || inv.AllocationRatio > 3.40282e+38:
		return badRequest("Invalid inventory for '%s' on resource provider '%s'. allocation_ratio must be positive.", rc, rp)
	case zeroCapacityOK && inv.Reserved > inv.Total:
		return badRequest("Invalid inventory for '%s' on resource provider '%s'. The reserved value is greater than total.", rc, rp)
	case !zeroCapacityOK && inv.Reserved >= inv.Total:
		return badRequest("Invalid inventory for '%s' on resource provider '%s'. The reserved value is greater than or equal to total.", rc, rp)
	}
	return nil
}

// ProviderGeneration returns the provider's current generation.
func (m *Model) ProviderGeneration(name string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return 0, err
	}
	return p.generation, nil
}

// Inventories returns a copy of the provider's inventories and its generation.
func (m *Model) Inventories(name string) (map[string]Inventory, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return nil, 0, err
	}
	out := make(map[string]Inventory, len(p.inv))
	for rc, inv := range p.inv {
		out[rc] = inv
	}
	return out, p.generation, nil
}

// Usages returns the provider's usage per resource class (every class it
// has inventory or usage for) and its generation.
func (m *Model) Usages(name string) (map[string]int64, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return nil, 0, err
	}
	out := map[string]int64{}
	for rc := range p.inv {
		out[rc] = p.used[rc]
	}
	for rc, u := range p.used {
		if u != 0 {
			out[rc] = u
		}
	}
	return out, p.generation, nil
}

// SetInventories replaces all inventories of a provider (PUT semantics),
// checking the generation. A class that has usage cannot be removed (409
// placement.inventory.inuse) but its total may drop below the usage: the
// provider is then over capacity and offers nothing more of that class, as
// Placement does. zeroCapacityOK selects the rule of microversion 1.26+.
// It returns the new generation; every successful write bumps it.
func (m *Model) SetInventories(name string, generation int64, invs map[string]Inventory, zeroCapacityOK bool) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.providerAt(name, generation)
	if err != nil {
		return 0, err
	}
	for _, rc := range slices.Sorted(maps.Keys(invs)) {
		if !m.classExists(rc) {
			return 0, badRequest("Unknown resource class in inventory for resource provider %s: No such resource class %s.", name, rc)
		}
		if err := validateInventory(name, rc, invs[rc], zeroCapacityOK); err != nil {
			return 0, badRequest("Unable to update inventory for resource provider %s: %s", name, err.(*Error).Detail)
		}
	}
	var inUse []string
	for rc := range p.inv {
		if _, kept := invs[rc]; !kept && p.used[rc] > 0 {
			inUse = append(inUse, rc)
		}
	}
	if len(inUse) > 0 {
		sort.Strings(inUse)
		return 0, conflict(CodeInventoryInUse, "update conflict: Inventory for '%s' on resource provider '%s' in use.", strings.Join(inUse, ", "), name)
	}
	p.inv = make(map[string]Inventory, len(invs))
	for rc, inv := range invs {
		p.inv[rc] = inv
	}
	return m.written(p), nil
}

// AddInventory creates the inventory of one class (POST semantics): 409 if
// the class already has an inventory. It returns the new generation.
func (m *Model) AddInventory(name, rc string, inv Inventory, zeroCapacityOK bool) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return 0, err
	}
	if !m.classExists(rc) {
		return 0, badRequest("Unable to create inventory for resource provider %s: No such resource class %s.", name, rc)
	}
	if err := validateInventory(name, rc, inv, zeroCapacityOK); err != nil {
		return 0, badRequest("Unable to create inventory for resource provider %s: %s", name, err.(*Error).Detail)
	}
	if _, dup := p.inv[rc]; dup {
		return 0, conflict("", "Update conflict: inventory of class %s already exists on resource provider %s.", rc, name)
	}
	p.inv[rc] = inv
	return m.written(p), nil
}

// UpdateInventory replaces the inventory of one existing class (PUT of one
// class). 400 if the class has no inventory yet.
func (m *Model) UpdateInventory(name string, generation int64, rc string, inv Inventory, zeroCapacityOK bool) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.providerAt(name, generation)
	if err != nil {
		return 0, err
	}
	if _, ok := p.inv[rc]; !ok {
		return 0, badRequest("No inventory record with resource class for resource provider %s: No inventory of class %s found.", name, rc)
	}
	if err := validateInventory(name, rc, inv, zeroCapacityOK); err != nil {
		return 0, badRequest("Unable to update inventory for resource provider %s: %s", name, err.(*Error).Detail)
	}
	p.inv[rc] = inv
	return m.written(p), nil
}

// DeleteInventories removes every inventory of a provider (409 in use if
// any class has usage). It bumps the generation even when there was nothing
// to delete, as Placement does.
func (m *Model) DeleteInventories(name string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return 0, err
	}
	var inUse []string
	for rc := range p.inv {
		if p.used[rc] > 0 {
			inUse = append(inUse, rc)
		}
	}
	if len(inUse) > 0 {
		sort.Strings(inUse)
		return 0, conflict(CodeInventoryInUse, "Inventory for '%s' on resource provider '%s' in use.", strings.Join(inUse, ", "), name)
	}
	p.inv = map[string]Inventory{}
	return m.written(p), nil
}

// ProviderTraits returns the provider's traits (sorted) and generation.
func (m *Model) ProviderTraits(name string) ([]string, int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return nil, 0, err
	}
	return slices.Sorted(maps.Keys(p.traits)), p.generation, nil
}

// SetProviderTraits replaces the provider's traits. Every trait must exist
// (standard or created custom) else 400; a stale generation is 409; an
// identical set leaves the generation alone, any change bumps it.
func (m *Model) SetProviderTraits(name string, generation int64, traits []string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.providerAt(name, generation)
	if err != nil {
		return 0, err
	}
	var unknown []string
	set := map[string]bool{}
	for _, t := range traits {
		if !m.traitExists(t) {
			unknown = append(unknown, t)
		}
		set[t] = true
	}
	if len(unknown) > 0 {
		sort.Sort(sort.Reverse(sort.StringSlice(unknown)))
		return 0, badRequest("No such trait %s", strings.Join(unknown, ", "))
	}
	if !maps.Equal(set, p.traits) {
		p.traits = set
		m.written(p)
	}
	return p.generation, nil
}

// DeleteProviderTraits removes every trait of the provider, bumping the
// generation.
func (m *Model) DeleteProviderTraits(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.provider(name)
	if err != nil {
		return err
	}
	p.traits = map[string]bool{}
	m.written(p)
	return nil
}

// SetProviderAggregates replaces the provider's aggregates (generation
// checked and bumped when the set changes).
func (m *Model) SetProviderAggregates(name string, generation int64, aggs []string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	p, err := m.providerAt(name, generation)
	if err != nil {
		return 0, err
	}
	set := map[string]bool{}
	for _, a := range aggs {
		set[a] = true
	}
	if !maps.Equal(set, p.aggs) {
		p.aggs = set
		m.written(p)
	}
	return p.generation, nil
}

// CreateTrait creates a custom trait. It reports whether the trait was new
// (201) or already existed (204). Names that are not valid custom traits
// are refused with 400 — standard traits cannot be created.
func (m *Model) CreateTrait(name string) (created bool, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !IsValidCustomTrait(name) {
		return false, badRequest(`The trait is invalid. A valid trait must be no longer than 255 characters, start with the prefix "CUSTOM_" and use following characters: "A"-"Z", "0"-"9" and "_"`)
	}
	if m.customTraits[name] {
		return false, nil
	}
	m.customTraits[name] = true
	return true, nil
}

// TraitExists reports whether name is a standard or created custom trait.
func (m *Model) TraitExists(name string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.traitExists(name)
}

// DeleteTrait deletes a custom trait: 400 for a standard trait, 404 for an
// unknown one, 409 while a provider has it.
func (m *Model) DeleteTrait(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.standard[name] {
		return badRequest("Cannot delete standard trait %s.", name)
	}
	if !m.customTraits[name] {
		return notFound("No such trait(s): %s.", name)
	}
	for _, p := range m.providers {
		if p.traits[name] {
			return conflict("", "The trait %s is in use by a resource provider.", name)
		}
	}
	delete(m.customTraits, name)
	return nil
}

// TraitFilter selects traits in ListTraits.
type TraitFilter struct {
	// Prefix keeps names starting with it; Names keeps only those names.
	Prefix string
	Names  []string
	// Associated: nil = all; true = only traits some provider has; false =
	// only traits no provider has.
	Associated *bool
}

// ListTraits returns the traits (standard and custom) selected by f, sorted.
func (m *Model) ListTraits(f TraitFilter) []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	used := map[string]bool{}
	if f.Associated != nil {
		for _, p := range m.providers {
			for t := range p.traits {
				used[t] = true
			}
		}
	}
	var out []string
	consider := func(t string) {
		if f.Prefix != "" && !strings.HasPrefix(t, f.Prefix) {
			return
		}
		if f.Names != nil && !slices.Contains(f.Names, t) {
			return
		}
		if f.Associated != nil && used[t] != *f.Associated {
			return
		}
		out = append(out, t)
	}
	for t := range m.standard {
		consider(t)
	}
	for t := range m.customTraits {
		consider(t)
	}
	sort.Strings(out)
	return out
}

// ProviderInfo is a read-only view of one provider.
type ProviderInfo struct {
	Name, UUID, Parent, Root string
	Generation               int64
	Inventories              map[string]Inventory
	Usages                   map[string]int64
	Traits, Aggregates       []string
}

// Providers returns every provider, parents before children and otherwise
// sorted by name.
func (m *Model) Providers() []ProviderInfo {
	m.mu.Lock()
	defer m.mu.Unlock()
	ix := m.index()
	out := make([]ProviderInfo, 0, len(ix.all))
	for _, root := range ix.roots {
		for _, p := range ix.trees[root] {
			out = append(out, infoOf(p))
		}
	}
	return out
}

func infoOf(p *provider) ProviderInfo {
	pi := ProviderInfo{Name: p.name, UUID: p.uuid, Root: p.root.name, Generation: p.generation,
		Inventories: map[string]Inventory{}, Usages: map[string]int64{},
		Traits: slices.Sorted(maps.Keys(p.traits)), Aggregates: slices.Sorted(maps.Keys(p.aggs))}
	if p.parent != nil {
		pi.Parent = p.parent.name
	}
	for rc, inv := range p.inv {
		pi.Inventories[rc] = inv
	}
	for rc, u := range p.used {
		pi.Usages[rc] = u
	}
	return pi
}
