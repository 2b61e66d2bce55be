// Package counters knows which hardware counters each agent offers and turns the user's --pmc
// groups into the replay passes of each agent.
//
// # Catalogs
//
// AMD catalogs come from AMD's public counter definitions (data/counter_defs.yaml, schema v1) and
// per-block register limits (data/block_limits.tsv), both embedded. An architecture the definitions
// do not name falls back to its family's generic entry (gfx90c -> gfx9). Block limits come from the
// family's table, with the MI300 rows and the UMC overrides (gfx90a 9, gfx940/941/942 11); gfx12's
// table only lists the blocks it renamed, so gfx12 starts from gfx11's table. Counters the data
// describe but this package cannot offer on an architecture (an expression that does not parse, an
// operand the architecture lacks, a block without registers, more events of one block than one
// pass can count) are left out and listed in Catalog.Unsupported with the reason, never silently.
//
// NVIDIA catalogs come from the CUDA query helper's metric list; each metric is a base counter
// without block, and whether a set fits one pass is asked of the helper (CUPTI's pass count).
//
// # Derived counters
//
// Expressions are parsed here, into an AST, rather than handed to a general expression engine:
// errors must name the counter and the position, literals must be decimals (rocprofv3 reads 0.5
// as 0), and reduce/select/accumulate work on instance vectors, which no scalar engine knows.
// Identifiers are counters of the catalog or, in lower case, agent constants (agent properties
// such as simd_count; CU_NUM, SE_NUM, SIMD_NUM and MAX_WAVE_SIZE are themselves derived counters
// over those). reduce takes sum, max, min and avr (also spelled avg) and optional dimensions;
// select takes [DIM=i, ...]; accumulate(x, HIGH_RES|LOW_RES|NONE) is the identity on values,
// because the accumulation happens in the hardware.
//
// The arithmetic between those vector operations is compiled once per subtree into an
// github.com/expr-lang/expr program over its operands (v0, v1, ...) and run once per instance,
// scalars broadcast over vectors. Division is the function div, which returns 0 for a zero divisor
// as rocprofv3 does: a kernel that never used a unit reports 0, not NaN or Inf.
//
// Extra counters (-E, extra.go) are derived counters in the same schema, read with every line
// number kept, and merged into a copy of an agent's catalog (Catalog.WithExtra): the shared catalogs
// never change. Where the built-in definitions leave a counter out with its reason, an extra one is
// an error naming the file and line, since the user asked for it.
//
// # Dimensions
//
// Values of a base counter are one per hardware instance. The dimension model (dims.go) is coarse
// and only feeds listings and dimension-wise reduce/select: every block per XCC; shader-engine
// blocks (SQ, SPI, GRBM_SE...) per shader engine; TA/TD/TCP per CU; TCC/TCA/GL2C per L2 channel
// (the channel count comes from the agent property tcc_channels when a backend reports it).
//
// # --pmc and the planner
//
// ParseGroups reads one group per --pmc occurrence (counters separated by spaces or commas,
// de-duplicated and sorted, NAME:device=N restricts a counter to one agent). A lone empty --pmc
// means no counter collection. NewPlan then plans each agent: a group keeps what the agent offers
// (note "partial"), is dropped when it offers none of it (note "dropped"), and is split into the
// fewest passes the agent's limits allow (note "split"; an exact search bounded by searchBudget,
// first-fit decreasing beyond it). A counter no agent offers is an error naming near names.
package counters
