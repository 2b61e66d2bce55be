package counters

import (
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
)

// AMD's public counter definitions (rocprofiler-sdk schema v1) and the per-block register limits
// read from aqlprofile's block tables.
var (
	//go:embed data/counter_defs.yaml
	counterDefsYAML []byte
	//go:embed data/block_limits.tsv
	blockLimitsTSV []byte
)

type defsFile struct {
	SDK struct {
		SchemaVersion int          `yaml:"counters-schema-version"`
		Counters      []counterDef `yaml:"counters"`
	} `yaml:"rocprofiler-sdk"`
}

type counterDef struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Definitions []struct {
		Architectures []string `yaml:"architectures"`
		Block         string   `yaml:"block"`
		Event         *int     `yaml:"event"`
		Expression    string   `yaml:"expression"`
	} `yaml:"definitions"`
}

type amdData struct {
	defs   []counterDef
	archs  []string
	limits blockLimits
}

var (
	amdOnce    sync.Once
	amdLoaded  *amdData
	amdErr     error
	catalogMu  sync.Mutex
	catalogsBy = map[string]*Catalog{}
)

func loadAMDData() (*amdData, error) {
	amdOnce.Do(func() {
		var f defsFile
		if err := yaml.Unmarshal(counterDefsYAML, &f); err != nil {
			amdErr = fmt.Errorf("reading embedded counter_defs.yaml: %w", err)
			return
		}
		if v := f.SDK.SchemaVersion; v != 1 {
			amdErr = fmt.Errorf("reading embedded counter_defs.yaml: counters-schema-version %d, want 1", v)
			return
		}
		limits, err := parseBlockLimits(string(blockLimitsTSV))
		if err != nil {
			amdErr = fmt.Errorf("reading embedded block_limits.tsv: %w", err)
			return
		}
		seen := map[string]bool{}
		for _, c := range f.SDK.Counters {
			for _, d := range c.Definitions {
				for _, a := range d.Architectures {
					seen[a] = true
				}
			}
		}
		amdLoaded = &amdData{defs: f.SDK.Counters, archs: slices.Sorted(maps.Keys(seen)), limits: limits}
	})
	return amdLoaded, amdErr
}

// KnownAMD returns the architectures the embedded definitions describe, sorted, family entries
// (gfx9, gfx10, gfx11, gfx12) included.
func KnownAMD() []string {
	d, err := loadAMDData()
	if err != nil {
		return nil
	}
	return append([]string(nil), d.archs...)
}

// family maps an architecture to its GFX IP family: gfx90a -> gfx9, gfx1030 -> gfx10.
func family(arch string) string {
	s := strings.TrimPrefix(strings.ToLower(arch), "gfx")
	if s == "" || !isDigit(s[0]) {
		return ""
	}
	if s[0] == '1' && len(s) >= 2 && isDigit(s[1]) {
		return "gfx" + s[:2]
	}
	return "gfx" + s[:1]
}

// LoadAMD returns the catalog of an AMD architecture. An architecture the definitions do not name
// falls back to its family's generic definitions (gfx90c -> gfx9), as rocprofv3 does; Source says
// which one was used.
func LoadAMD(arch string) (*Catalog, error) {
	d, err := loadAMDData()
	if err != nil {
		return nil, err
	}
	catalogMu.Lock()
	defer catalogMu.Unlock()
	if c, ok := catalogsBy[arch]; ok {
		return c, nil
	}
	source := ""
	for _, a := range d.archs {
		if a == arch {
			source = a
		}
	}
	if source == "" {
		fam := family(arch)
		for _, a := range d.archs {
			if a == fam {
				source = a
			}
		}
	}
	if source == "" {
		return nil, fmt.Errorf("no AMD counter definitions for architecture %q (known: %s)", arch, strings.Join(d.archs, ", "))
	}
	c, err := buildAMD(d, arch, source)
	if err != nil {
		return nil, err
	}
	catalogsBy[arch] = c
	return c, nil
}

func buildAMD(d *amdData, arch, source string) (*Catalog, error) {
	c := newCatalog(arch, source, VendorAMD)
	c.limits = d.limits.forArch(source)
	for _, def := range d.defs {
		var picked []string
		for _, df := range def.Definitions {
			for _, a := range df.Architectures {
				if a != source {
					continue
				}
				picked = append(picked, a)
				if len(picked) > 1 {
					return nil, fmt.Errorf("counter_defs.yaml: counter %s has two definitions for %s", def.Name, source)
				}
				k := &counter{name: def.Name, description: strings.TrimSpace(def.Description)}
				switch {
				case df.Expression != "" && (df.Block != "" || df.Event != nil):
					return nil, fmt.Errorf("counter_defs.yaml: counter %s on %s has both an expression and a block", def.Name, source)
				case df.Expression != "":
					k.expression = df.Expression
					ast, err := ParseExpression(df.Expression)
					if err != nil {
						c.Unsupported = append(c.Unsupported, Unsupported{Name: def.Name, Reason: err.Error()})
						continue
					}
					k.ast = ast
				case df.Block != "" && df.Event != nil:
					k.base = &Base{Name: def.Name, Block: df.Block, Event: *df.Event}
					limit, known := c.limits[df.Block]
					if !known {
						c.Unsupported = append(c.Unsupported, Unsupported{Name: def.Name,
							Reason: fmt.Sprintf("no register limit is known for block %s on %s", df.Block, source)})
						continue
					}
					if limit == 0 {
						c.Unsupported = append(c.Unsupported, Unsupported{Name: def.Name,
							Reason: fmt.Sprintf("block %s has no counter registers on %s", df.Block, source)})
						continue
					}
				default:
					return nil, fmt.Errorf("counter_defs.yaml: counter %s on %s has neither an expression nor a block and event", def.Name, source)
				}
				c.add(k)
			}
		}
	}
	c.resolve()
	c.dropOverLimit()
	c.finish()
	return c, nil
}

// dropOverLimit leaves out derived counters that need more events of one block than one pass can
// count: no plan could ever collect them, and rocprofv3 would abort the app at its first dispatch.
func (c *Catalog) dropOverLimit() {
	memo := map[string][]Base{}
	for _, name := range slices.Sorted(maps.Keys(c.counters)) {
		if c.counters[name].base != nil {
			continue
		}
		for _, o := range c.overLimit(c.baseEvents(name, memo)) {
			c.drop(name, fmt.Sprintf("needs %d %s events, one pass counts at most %d", o.need, o.block, o.limit))
			break
		}
	}
}

type excess struct {
	block       string
	need, limit int
}

// overLimit returns the blocks whose distinct events in bases exceed their limit, sorted by block.
func (c *Catalog) overLimit(bases []Base) []excess {
	per := map[string]map[int]bool{}
	for _, b := range bases {
		if per[b.Block] == nil {
			per[b.Block] = map[int]bool{}
		}
		per[b.Block][b.Event] = true
	}
	var out []excess
	for _, block := range slices.Sorted(maps.Keys(per)) {
		if limit := c.limits[block]; len(per[block]) > limit {
			out = append(out, excess{block, len(per[block]), limit})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].block < out[j].block })
	return out
}
