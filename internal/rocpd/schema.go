package rocpd

import (
	"slices"
	"strings"
)

// SchemaVersion is the rocpd schema whose tables the database carries: the 3.0.0 layout rocprofv3
// writes (its writer tags it "3"; readers from 2026 on want the full x.y.z and its parts, which are
// written too). The replay pass of a dispatch row, a column only in later unreleased layouts, goes
// into its extdata so that the tables keep 3.0.0's exact shape.
const (
	SchemaVersion      = "3.0.0"
	schemaVersionMajor = "3"
	schemaVersionMinor = "0"
	schemaVersionPatch = "0"
)

// column is one column of a rocpd table: its name and its declaration as rocprofv3's schema has it
// (type, constraints, default), and the table it references, if any.
type column struct {
	name string
	decl string
	ref  string // referenced table without prefix and suffix, e.g. "info_node"
}

// table is one rocpd table without the id and guid columns every table but metadata starts with.
type table struct {
	name string // without the "rocpd_" prefix and the uuid suffix
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
	return []column{fk("nid", intNN, "info_node"), fk("pid", intNN, "info_process")}
}

// tables are the 3.0.0 tables in the order rocprofv3 creates them.
var tables = []table{
	{"metadata", []column{c("tag", "TEXT NOT NULL"), c("value", "TEXT NOT NULL")}},
	{"string", []column{c("string", "TEXT NOT NULL UNIQUE ON CONFLICT ABORT")}},
	{"info_node", []column{c("hash", "BIGINT NOT NULL UNIQUE"), c("machine_id", "TEXT NOT NULL UNIQUE"),
		c("system_name", "TEXT"), c("hostname", "TEXT"), c("release", "TEXT"), c("version", "TEXT"),
		c("hardware_name", "TEXT"), c("domain_name", "TEXT")}},
	{"info_process", []column{fk("nid", intNN, "info_node"), c("ppid", "INTEGER"), c("pid", intNN),
		c("init", "BIGINT"), c("fini", "BIGINT"), c("start", "BIGINT"), c("end", "BIGINT"), c("command", "TEXT"),
		c("environment", jsonObj), c("extdata", jsonObj)}},
	{"info_thread", []column{fk("nid", intNN, "info_node"), c("ppid", "INTEGER"), fk("pid", intNN, "info_process"),
		c("tid", intNN), c("name", "TEXT"), c("start", "BIGINT"), c("end", "BIGINT"), c("extdata", jsonObj)}},
	{"info_agent", slices.Concat(nidPid(), []column{c("type", `TEXT CHECK ("type" IN ('CPU', 'GPU'))`),
		c("absolute_index", "INTEGER"), c("logical_index", "INTEGER"), c("type_index", "INTEGER"), c("uuid", "INTEGER"),
		c("name", "TEXT"), c("model_name", "TEXT"), c("vendor_name", "TEXT"), c("product_name", "TEXT"),
		c("user_name", "TEXT"), c("extdata", jsonObj)})},
	{"info_queue", slices.Concat(nidPid(), []column{c("name", "TEXT"), c("extdata", jsonObj)})},
	{"info_stream", slices.Concat(nidPid(), []column{c("name", "TEXT"), c("extdata", jsonObj)})},
	{"info_pmc", slices.Concat(nidPid(), []column{fk("agent_id", "INTEGER", "info_agent"),
		c("target_arch", `TEXT CHECK ("target_arch" IN ('CPU', 'GPU'))`), c("event_code", "INT"), c("instance_id", "INTEGER"),
		c("name", "TEXT NOT NULL"), c("symbol", "TEXT NOT NULL"), c("description", "TEXT"),
		c("long_description", `TEXT DEFAULT ""`), c("component", "TEXT"), c("units", `TEXT DEFAULT ""`),
		c("value_type", `TEXT CHECK ("value_type" IN ('ABS', 'ACCUM', 'RELATIVE'))`), c("block", "TEXT"),
		c("expression", "TEXT"), c("is_constant", "INTEGER"), c("is_derived", "INTEGER"), c("extdata", jsonObj)})},
	{"info_code_object", slices.Concat(nidPid(), []column{fk("agent_id", "INTEGER", "info_agent"), c("uri", "TEXT"),
		c("load_base", "BIGINT"), c("load_size", "BIGINT"), c("load_delta", "BIGINT"),
		c("storage_type", `TEXT CHECK ("storage_type" IN ('FILE', 'MEMORY'))`), c("extdata", jsonObj)})},
	{"info_kernel_symbol", slices.Concat(nidPid(), []column{fk("code_object_id", intNN, "info_code_object"),
		c("kernel_name", "TEXT"), c("display_name", "TEXT"), c("kernel_object", "INTEGER"),
		c("kernarg_segment_size", "INTEGER"), c("kernarg_segment_alignment", "INTEGER"),
		c("group_segment_size", "INTEGER"), c("private_segment_size", "INTEGER"), c("sgpr_count", "INTEGER"),
		c("arch_vgpr_count", "INTEGER"), c("accum_vgpr_count", "INTEGER"), c("extdata", jsonObj)})},
	{"track", []column{fk("nid", intNN, "info_node"), fk("pid", "INTEGER", "info_process"),
		fk("tid", "INTEGER", "info_thread"), fk("name_id", "INTEGER", "string"), c("extdata", jsonObj)}},
	{"event", []column{fk("category_id", "INTEGER", "string"), c("stack_id", "INTEGER"),
		c("parent_stack_id", "INTEGER"), c("correlation_id", "INTEGER"), c("call_stack", jsonObj),
		c("line_info", jsonObj), c("extdata", jsonObj)}},
	{"arg", []column{fk("event_id", intNN, "event"), c("position", intNN), c("type", "TEXT NOT NULL"),
		c("name", "TEXT NOT NULL"), c("value", "TEXT"), c("extdata", jsonObj)}},
	{"pmc_event", []column{fk("event_id", "INTEGER", "event"), fk("pmc_id", intNN, "info_pmc"),
		c("value", "REAL DEFAULT 0.0"), c("extdata", `JSONB DEFAULT "{}"`)}},
	{"region", slices.Concat(nidPid(), []column{fk("tid", intNN, "info_thread"), c("start", bigNN), c("end", bigNN),
		fk("name_id", intNN, "string"), fk("event_id", "INTEGER", "event"), c("extdata", jsonObj)})},
	{"sample", []column{fk("track_id", intNN, "track"), c("timestamp", bigNN), fk("event_id", "INTEGER", "event"),
		c("extdata", jsonObj)}},
	{"kernel_dispatch", slices.Concat(nidPid(), []column{fk("tid", "INTEGER", "info_thread"),
		fk("agent_id", intNN, "info_agent"), fk("kernel_id", intNN, "info_kernel_symbol"), c("dispatch_id", intNN),
		fk("queue_id", intNN, "info_queue"), fk("stream_id", intNN, "info_stream"), c("start", bigNN), c("end", bigNN),
		c("private_segment_size", "INTEGER"), c("group_segment_size", "INTEGER"),
		c("workgroup_size_x", intNN), c("workgroup_size_y", intNN), c("workgroup_size_z", intNN),
		c("grid_size_x", intNN), c("grid_size_y", intNN), c("grid_size_z", intNN),
		fk("region_name_id", "INTEGER", "string"), fk("event_id", "INTEGER", "event"), c("extdata", jsonObj)})},
	{"memory_copy", slices.Concat(nidPid(), []column{fk("tid", "INTEGER", "info_thread"), c("start", bigNN), c("end", bigNN),
		fk("name_id", intNN, "string"), fk("dst_agent_id", "INTEGER", "info_agent"), c("dst_address", "INTEGER"),
		fk("src_agent_id", "INTEGER", "info_agent"), c("src_address", "INTEGER"), c("size", intNN),
		fk("queue_id", "INTEGER", "info_queue"), fk("stream_id", "INTEGER", "info_stream"),
		fk("region_name_id", "INTEGER", "string"), fk("event_id", "INTEGER", "event"), c("extdata", jsonObj)})},
	{"memory_allocate", slices.Concat(nidPid(), []column{fk("tid", "INTEGER", "info_thread"), fk("agent_id", "INTEGER", "info_agent"),
		c("type", `TEXT CHECK ("type" IN ('ALLOC', 'FREE', 'REALLOC', 'RECLAIM'))`),
		c("level", `TEXT CHECK ("level" IN ('REAL', 'VIRTUAL', 'SCRATCH'))`), c("start", bigNN), c("end", bigNN),
		c("address", "INTEGER"), c("size", intNN), fk("queue_id", "INTEGER", "info_queue"),
		fk("stream_id", "INTEGER", "info_stream"), fk("event_id", "INTEGER", "event"), c("extdata", jsonObj)})},
}

// physical is a table's name in the file: rocpd_<name><uuid>.
func physical(name, uuid string) string { return "rocpd_" + name + uuid }

// createTable is the CREATE TABLE statement of t for one database's uuid and guid.
func (t table) createTable(uuid, guid string) string {
	var b strings.Builder
	b.WriteString("CREATE TABLE IF NOT EXISTS `" + physical(t.name, uuid) + "` (\n")
	b.WriteString(`  "id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT`)
	if t.name != "metadata" {
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

// baseView is the view with the plain name over the table of this database, through which every
// other view reads.
func (t table) baseView(uuid string) string {
	return "CREATE VIEW IF NOT EXISTS `rocpd_" + t.name + "` AS SELECT * FROM `" + physical(t.name, uuid) + "`"
}

// schemaStatements are the statements that create an empty database: tables, base views, data views
// and summary views, in that order.
func schemaStatements(uuid, guid string) []string {
	var out []string
	for _, t := range tables {
		out = append(out, t.createTable(uuid, guid))
	}
	for _, t := range tables {
		out = append(out, t.baseView(uuid))
	}
	out = append(out, dataViews...)
	return append(out, summaryViews...)
}
