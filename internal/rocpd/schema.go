package rocpd

import (
	"slices"
	"strconv"
	"strings"
)

// SchemaVersion is the rocpd schema whose tables the database carries, tagged as rocprofv3 tags it
// in rocpd_metadata.
const SchemaVersion = "3"

// column is one column of a rocpd table: its name and its declaration as rocprofv3's schema has it
// (type, constraints, default), and the table it references, if any.
type column struct {
	name string
	decl string
	ref  string // referenced table without the uuid suffix, e.g. "rocpd_info_node"
}

// table is one rocpd table without the id and guid columns every table but metadata starts with.
type table struct {
	name string // without the uuid suffix: the name of its base view
	cols []column
}

// Declarations shared by many tables.
const (
	intNN   = "INTEGER NOT NULL"
	bigNN   = "BIGINT NOT NULL"
	jsonObj = `JSONB DEFAULT "{}" NOT NULL`
)

func c(name, decl string) column       { return column{name: name, decl: decl} }
func fk(name, decl, ref string) column { return column{name: name, decl: decl, ref: ref} }
func nidPid() []column {
	return []column{fk("nid", intNN, "rocpd_info_node"), fk("pid", intNN, "rocpd_info_process")}
}

// tables are the 3.0.0 tables in the order rocprofv3 creates them.
var tables = []table{
	{"rocpd_metadata", []column{c("tag", "TEXT NOT NULL"), c("value", "TEXT NOT NULL")}},
	{"rocpd_string", []column{c("string", "TEXT NOT NULL UNIQUE ON CONFLICT ABORT")}},
	{"rocpd_info_node", []column{c("hash", "BIGINT NOT NULL UNIQUE"), c("machine_id", "TEXT NOT NULL UNIQUE"),
		c("system_name", "TEXT"), c("hostname", "TEXT"), c("release", "TEXT"), c("version", "TEXT"),
		c("hardware_name", "TEXT"), c("domain_name", "TEXT")}},
	{"rocpd_info_process", []column{fk("nid", intNN, "rocpd_info_node"), c("ppid", "INTEGER"), c("pid", intNN),
		c("init", "BIGINT"), c("fini", "BIGINT"), c("start", "BIGINT"), c("end", "BIGINT"), c("command", "TEXT"),
		c("environment", jsonObj), c("extdata", jsonObj)}},
	{"rocpd_info_thread", []column{fk("nid", intNN, "rocpd_info_node"), c("ppid", "INTEGER"), fk("pid", intNN, "rocpd_info_process"),
		c("tid", intNN), c("name", "TEXT"), c("start", "BIGINT"), c("end", "BIGINT"), c("extdata", jsonObj)}},
	{"rocpd_info_agent", slices.Concat(nidPid(), []column{c("type", `TEXT CHECK ("type" IN ('CPU', 'GPU'))`),
		c("absolute_index", "INTEGER"), c("logical_index", "INTEGER"), c("type_index", "INTEGER"), c("uuid", "INTEGER"),
		c("name", "TEXT"), c("model_name", "TEXT"), c("vendor_name", "TEXT"), c("product_name", "TEXT"),
		c("user_name", "TEXT"), c("extdata", jsonObj)})},
	{"rocpd_info_queue", slices.Concat(nidPid(), []column{c("name", "TEXT"), c("extdata", jsonObj)})},
	{"rocpd_info_stream", slices.Concat(nidPid(), []column{c("name", "TEXT"), c("extdata", jsonObj)})},
	{"rocpd_info_pmc", slices.Concat(nidPid(), []column{fk("agent_id", "INTEGER", "rocpd_info_agent"),
		c("target_arch", `TEXT CHECK ("target_arch" IN ('CPU', 'GPU'))`), c("event_code", "INT"), c("instance_id", "INTEGER"),
		c("name", "TEXT NOT NULL"), c("symbol", "TEXT NOT NULL"), c("description", "TEXT"),
		c("long_description", `TEXT DEFAULT ""`), c("component", "TEXT"), c("units", `TEXT DEFAULT ""`),
		c("value_type", `TEXT CHECK ("value_type" IN ('ABS', 'ACCUM', 'RELATIVE'))`), c("block", "TEXT"),
		c("expression", "TEXT"), c("is_constant", "INTEGER"), c("is_derived", "INTEGER"), c("extdata", jsonObj)})},
	{"rocpd_info_code_object", slices.Concat(nidPid(), []column{fk("agent_id", "INTEGER", "rocpd_info_agent"), c("uri", "TEXT"),
		c("load_base", "BIGINT"), c("load_size", "BIGINT"), c("load_delta", "BIGINT"),
		c("storage_type", `TEXT CHECK ("storage_type" IN ('FILE', 'MEMORY'))`), c("extdata", jsonObj)})},
	{"rocpd_info_kernel_symbol", slices.Concat(nidPid(), []column{c("code_object_id", intNN),
		c("kernel_name", "TEXT"), c("display_name", "TEXT"), c("kernel_object", "INTEGER"),
		c("kernarg_segment_size", "INTEGER"), c("kernarg_segment_alignment", "INTEGER"),
		c("group_segment_size", "INTEGER"), c("private_segment_size", "INTEGER"), c("sgpr_count", "INTEGER"),
		c("arch_vgpr_count", "INTEGER"), c("accum_vgpr_count", "INTEGER"), c("extdata", jsonObj)})},
	{"rocpd_track", []column{fk("nid", intNN, "rocpd_info_node"), fk("pid", "INTEGER", "rocpd_info_process"),
		fk("tid", "INTEGER", "rocpd_info_thread"), fk("name_id", "INTEGER", "rocpd_string"), c("extdata", jsonObj)}},
	{"rocpd_event", []column{fk("category_id", "INTEGER", "rocpd_string"), c("stack_id", "INTEGER"),
		c("parent_stack_id", "INTEGER"), c("correlation_id", "INTEGER"), c("call_stack", jsonObj),
		c("line_info", jsonObj), c("extdata", jsonObj)}},
	{"rocpd_arg", []column{fk("event_id", intNN, "rocpd_event"), c("position", intNN), c("type", "TEXT NOT NULL"),
		c("name", "TEXT NOT NULL"), c("value", "TEXT"), c("extdata", jsonObj)}},
	{"rocpd_pmc_event", []column{fk("event_id", "INTEGER", "rocpd_event"), fk("pmc_id", intNN, "rocpd_info_pmc"),
		c("value", "REAL DEFAULT 0.0"), c("extdata", `JSONB DEFAULT "{}"`)}},
	{"rocpd_region", slices.Concat(nidPid(), []column{fk("tid", intNN, "rocpd_info_thread"), c("start", bigNN), c("end", bigNN),
		fk("name_id", intNN, "rocpd_string"), fk("event_id", "INTEGER", "rocpd_event"), c("extdata", jsonObj)})},
	{"rocpd_sample", []column{fk("track_id", intNN, "rocpd_track"), c("timestamp", bigNN), fk("event_id", "INTEGER", "rocpd_event"),
		c("extdata", jsonObj)}},
	{"rocpd_kernel_dispatch", slices.Concat(nidPid(), []column{fk("tid", "INTEGER", "rocpd_info_thread"),
		fk("agent_id", intNN, "rocpd_info_agent"), fk("kernel_id", intNN, "rocpd_info_kernel_symbol"), c("dispatch_id", intNN),
		fk("queue_id", intNN, "rocpd_info_queue"), fk("stream_id", intNN, "rocpd_info_stream"), c("start", bigNN), c("end", bigNN),
		c("private_segment_size", "INTEGER"), c("group_segment_size", "INTEGER"),
		c("workgroup_size_x", intNN), c("workgroup_size_y", intNN), c("workgroup_size_z", intNN),
		c("grid_size_x", intNN), c("grid_size_y", intNN), c("grid_size_z", intNN),
		fk("region_name_id", "INTEGER", "rocpd_string"), fk("event_id", "INTEGER", "rocpd_event"), c("extdata", jsonObj)})},
	{"rocpd_memory_copy", slices.Concat(nidPid(), []column{fk("tid", "INTEGER", "rocpd_info_thread"), c("start", bigNN), c("end", bigNN),
		fk("name_id", intNN, "rocpd_string"), fk("dst_agent_id", "INTEGER", "rocpd_info_agent"), c("dst_address", "INTEGER"),
		fk("src_agent_id", "INTEGER", "rocpd_info_agent"), c("src_address", "INTEGER"), c("size", intNN),
		fk("queue_id", "INTEGER", "rocpd_info_queue"), fk("stream_id", "INTEGER", "rocpd_info_stream"),
		fk("region_name_id", "INTEGER", "rocpd_string"), fk("event_id", "INTEGER", "rocpd_event"), c("extdata", jsonObj)})},
	{"rocpd_memory_allocate", slices.Concat(nidPid(), []column{fk("tid", "INTEGER", "rocpd_info_thread"), fk("agent_id", "INTEGER", "rocpd_info_agent"),
		c("type", `TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM'))`),
		c("level", `TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH'))`), c("start", bigNN), c("end", bigNN),
		c("address", "INTEGER"), c("size", intNN), fk("queue_id", "INTEGER", "rocpd_info_queue"),
		fk("stream_id", "INTEGER", "rocpd_info_stream"), fk("event_id", "INTEGER", "rocpd_event"), c("extdata", jsonObj)})},
}

// ownTables are gorocprof's own tables, beside rocpd's: the replay passes of the dispatches that ran
// more than one (rocpd_kernel_dispatch has one row per dispatch, as rocprofv3 writes it), and the
// values of the counters a later pass of a dispatch measured again (rocpd_pmc_event holds each
// counter of a dispatch once, so that counters_collection never adds passes up).
var ownTables = []table{
	{"gorocprof_pass", slices.Concat(nidPid(), []column{fk("dispatch_id", intNN, "rocpd_kernel_dispatch"),
		c("pass", intNN), c("stack_id", "INTEGER"), c("correlation_id", "INTEGER"), fk("tid", "INTEGER", "rocpd_info_thread"),
		fk("queue_id", "INTEGER", "rocpd_info_queue"), fk("stream_id", "INTEGER", "rocpd_info_stream"),
		c("start", bigNN), c("end", bigNN), c("extdata", jsonObj)})},
	{"gorocprof_pass_pmc", []column{fk("pass_id", intNN, "gorocprof_pass"), fk("pmc_id", intNN, "rocpd_info_pmc"),
		c("value", "REAL DEFAULT 0.0"), c("extdata", jsonObj)}},
}

// allTables are the tables every process of a database has.
var allTables = slices.Concat(tables, ownTables)

// physical is a table's name in the file: its base name and the uuid of its process.
func physical(name, uuid string) string { return name + uuid }

// createTable is the CREATE TABLE statement of t for one process's uuid and guid.
func (t table) createTable(uuid, guid string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS `" + physical(t.name, uuid) + "` (\n")
	b.WriteString(`  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT`)
	if t.name != "rocpd_metadata" {
		b.WriteString(",\n  \"guid\" TEXT DEFAULT \"" + guid + "\" NOT NULL")
	}
	for _, col := range t.cols {
		b.WriteString(",\n  \"" + col.name + "\" " + col.decl)
	}
	for _, col := range t.cols {
		if col.ref != "" {
			b.WriteString(",\n  FOREIGN KEY (" + col.name + ") REFERENCES `" + physical(col.ref, uuid) + "` (id) ON UPDATE CASCADE")
		}
	}
	b.WriteString("\n)")
	return b.String()
}

// unionTerms bounds the SELECTs one view joins with UNION ALL, below SQLite's limit of terms in a
// compound SELECT (500).
var unionTerms = 400

// baseViews are the views with the plain name over the tables of every process of the database (one
// table each, as rocprofv3's readers join databases), through which every other view reads. Past
// unionTerms processes the union is of part views (gorocprof_part<k>_<name>), each of unionTerms
// tables at most.
func (t table) baseViews(uuids []string) []string {
	var out []string
	terms := make([]string, len(uuids))
	for i, u := range uuids {
		terms[i] = physical(t.name, u)
	}
	for len(terms) > unionTerms {
		var parts []string
		for len(terms) > 0 {
			n := min(unionTerms, len(terms))
			name := "gorocprof_part" + strconv.Itoa(len(out)) + "_" + t.name
			out = append(out, unionView(name, terms[:n]))
			parts, terms = append(parts, name), terms[n:]
		}
		terms = parts
	}
	return append(out, unionView(t.name, terms))
}

func unionView(name string, from []string) string {
	selects := make([]string, len(from))
	for i, f := range from {
		selects[i] = "SELECT * FROM `" + f + "`"
	}
	return "CREATE VIEW `" + name + "` AS " + strings.Join(selects, " UNION ALL ")
}

// tableStatements create the tables of one process.
func tableStatements(uuid, guid string) []string {
	out := make([]string, 0, len(allTables))
	for _, t := range allTables {
		out = append(out, t.createTable(uuid, guid))
	}
	return out
}

// viewStatements create the views of a database whose processes have uuids: base views, data views,
// gorocprof's own views and summary views, in that order.
func viewStatements(uuids []string) []string {
	var out []string
	for _, t := range allTables {
		out = append(out, t.baseViews(uuids)...)
	}
	return slices.Concat(out, dataViews, ownViews, summaryViews)
}
