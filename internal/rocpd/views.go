package rocpd

import (
	"slices"
	"strings"
)

// The data and summary views of rocprofv3's rocpd schema, with the columns (names and order) and the
// grouping that users' SQL and the rocpd tools read: the rocpd tools recreate them on every database
// they open, so ours must answer as theirs do. They read the plain-name base views and join on guid
// as well as on ids, so that the rows of different processes never mix. gorocprof's own views, over
// its own tables, give every replay pass of a dispatch (ownViews).

// str is the text of a string-table id held in expr, as a scalar subquery on the row's guid.
func str(id, guid string) string {
	return "(SELECT RS.string FROM `rocpd_string` RS WHERE RS.id = " + id + " AND RS.guid = " + guid + ")"
}

// join writes "INNER JOIN `view` alias ON alias.col = on AND alias.guid = guid".
func join(kind, view, alias, col, on, guid string) string {
	return kind + " JOIN `" + view + "` " + alias + " ON " + alias + "." + col + " = " + on + " AND " + alias + ".guid = " + guid
}

func view(name string, selects []string, from string, rest ...string) string {
	return "CREATE VIEW IF NOT EXISTS `" + name + "` AS\nSELECT\n  " + strings.Join(selects, ",\n  ") + "\nFROM " + from +
		"\n" + strings.Join(rest, "\n")
}

var dataViews = []string{
	view("code_objects", []string{"CO.id", "CO.guid", "CO.nid", "P.pid", "A.absolute_index AS agent_abs_index", "CO.uri",
		"CO.load_base", "CO.load_size", "CO.load_delta", "CO.storage_type AS storage_type_str",
		"json_extract(CO.extdata, '$.size') AS code_object_size", "json_extract(CO.extdata, '$.storage_type') AS storage_type",
		"json_extract(CO.extdata, '$.memory_base') AS memory_base", "json_extract(CO.extdata, '$.memory_size') AS memory_size"},
		"`rocpd_info_code_object` CO",
		join("INNER", "rocpd_info_agent", "A", "id", "CO.agent_id", "CO.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "CO.pid", "CO.guid")),
	view("kernel_symbols", []string{"KS.id", "KS.guid", "KS.nid", "P.pid", "KS.code_object_id", "KS.kernel_name",
		"KS.display_name", "KS.kernel_object", "KS.kernarg_segment_size", "KS.kernarg_segment_alignment",
		"KS.group_segment_size", "KS.private_segment_size", "KS.sgpr_count", "KS.arch_vgpr_count", "KS.accum_vgpr_count",
		"json_extract(KS.extdata, '$.size') AS kernel_symbol_size", "json_extract(KS.extdata, '$.kernel_id') AS kernel_id",
		"json_extract(KS.extdata, '$.kernel_code_entry_byte_offset') AS kernel_code_entry_byte_offset",
		"json_extract(KS.extdata, '$.formatted_kernel_name') AS formatted_kernel_name",
		"json_extract(KS.extdata, '$.demangled_kernel_name') AS demangled_kernel_name",
		"json_extract(KS.extdata, '$.truncated_kernel_name') AS truncated_kernel_name",
		"json_extract(KS.extdata, '$.kernel_address.handle') AS kernel_address"},
		"`rocpd_info_kernel_symbol` KS",
		join("INNER", "rocpd_info_process", "P", "id", "KS.pid", "KS.guid")),
	view("processes", []string{"N.id AS nid", "N.machine_id", "N.system_name", "N.hostname", "N.release AS system_release",
		"N.version AS system_version", "P.guid", "P.ppid", "P.pid", "P.init", "P.start", "P.end", "P.fini", "P.command"},
		"`rocpd_info_process` P",
		join("INNER", "rocpd_info_node", "N", "id", "P.nid", "P.guid")),
	view("threads", []string{"N.id AS nid", "N.machine_id", "N.system_name", "N.hostname", "N.release AS system_release",
		"N.version AS system_version", "P.guid", "P.ppid", "P.pid", "T.tid", "T.start", "T.end", "T.name"},
		"`rocpd_info_thread` T",
		join("INNER", "rocpd_info_process", "P", "id", "T.pid", "T.guid"),
		join("INNER", "rocpd_info_node", "N", "id", "T.nid", "T.guid")),
	view("regions", append([]string{"R.id", "R.guid", str("E.category_id", "E.guid") + " AS category", "S.string AS name",
		"R.nid", "P.pid", "T.tid", "R.start", "R.end", "(R.end - R.start) AS duration", "R.event_id"}, eventTail...),
		"`rocpd_region` R",
		join("INNER", "rocpd_event", "E", "id", "R.event_id", "R.guid"),
		join("INNER", "rocpd_string", "S", "id", "R.name_id", "R.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "R.pid", "R.guid"),
		join("INNER", "rocpd_info_thread", "T", "id", "R.tid", "R.guid")),
	view("region_args", []string{"R.id", "R.guid", "R.nid", "P.pid", "A.type", "A.name", "A.value"},
		"`rocpd_region` R",
		join("INNER", "rocpd_event", "E", "id", "R.event_id", "R.guid"),
		join("INNER", "rocpd_arg", "A", "event_id", "E.id", "R.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "R.pid", "R.guid")),
	sampleView("samples", "R.timestamp"),
	// END is upstream's spelling of the column.
	sampleView("sample_regions", "R.timestamp AS start", "R.timestamp AS END", "0 AS duration"),
	"CREATE VIEW IF NOT EXISTS `regions_and_samples` AS SELECT * FROM `regions` UNION ALL SELECT * FROM `sample_regions`",
	view("kernels", []string{"K.id", "K.guid", "T.tid", str("E.category_id", "E.guid") + " AS category", "R.string AS region",
		"S.display_name AS name", "K.nid", "P.pid", "A.absolute_index AS agent_abs_index", "A.logical_index AS agent_log_index",
		"A.type_index AS agent_type_index", "A.type AS agent_type", "S.code_object_id", "K.kernel_id", "K.dispatch_id",
		"K.stream_id", "K.queue_id", "Q.name AS queue", "ST.name AS stream", "K.start", "K.end", "(K.end - K.start) AS duration",
		"K.grid_size_x AS grid_x", "K.grid_size_y AS grid_y", "K.grid_size_z AS grid_z",
		"K.workgroup_size_x AS workgroup_x", "K.workgroup_size_y AS workgroup_y", "K.workgroup_size_z AS workgroup_z",
		"K.group_segment_size AS lds_size", "K.private_segment_size AS scratch_size", "S.arch_vgpr_count AS vgpr_count",
		"S.accum_vgpr_count", "S.sgpr_count", "S.group_segment_size AS static_lds_size",
		"S.private_segment_size AS static_scratch_size", "E.stack_id", "E.parent_stack_id", "E.correlation_id AS corr_id"},
		"`rocpd_kernel_dispatch` K",
		join("INNER", "rocpd_info_agent", "A", "id", "K.agent_id", "K.guid"),
		join("INNER", "rocpd_event", "E", "id", "K.event_id", "K.guid"),
		join("INNER", "rocpd_string", "R", "id", "K.region_name_id", "K.guid"),
		join("INNER", "rocpd_info_kernel_symbol", "S", "id", "K.kernel_id", "K.guid"),
		join("LEFT", "rocpd_info_stream", "ST", "id", "K.stream_id", "K.guid"),
		join("LEFT", "rocpd_info_queue", "Q", "id", "K.queue_id", "K.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "Q.pid", "Q.guid"),
		join("INNER", "rocpd_info_thread", "T", "id", "K.tid", "K.guid")),
	view("pmc_info", []string{"PI.id", "PI.guid", "PI.nid", "P.pid", "A.absolute_index AS agent_abs_index", "PI.is_constant",
		"PI.is_derived", "PI.name", "PI.description", "PI.block", "PI.expression"},
		"`rocpd_info_pmc` PI",
		join("INNER", "rocpd_info_agent", "A", "id", "PI.agent_id", "PI.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "PI.pid", "PI.guid")),
	view("pmc_events", []string{"PE.id", "PE.guid", "PE.pmc_id", "E.id AS event_id", str("E.category_id", "E.guid") + " AS category",
		"(SELECT KS.display_name FROM `rocpd_info_kernel_symbol` KS WHERE KS.id = K.kernel_id AND KS.guid = K.guid) AS name",
		"K.nid", "P.pid", "K.dispatch_id", "K.start", "K.end", "(K.end - K.start) AS duration", "PI.name AS counter_name",
		"PE.value AS counter_value"},
		"`rocpd_pmc_event` PE",
		join("INNER", "rocpd_info_pmc", "PI", "id", "PE.pmc_id", "PE.guid"),
		join("INNER", "rocpd_event", "E", "id", "PE.event_id", "PE.guid"),
		join("INNER", "rocpd_kernel_dispatch", "K", "event_id", "PE.event_id", "PE.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "K.pid", "K.guid")),
	view("events_args", []string{"E.id AS event_id", str("E.category_id", "E.guid") + " AS category", "E.stack_id",
		"E.parent_stack_id", "E.correlation_id", "A.position AS arg_position", "A.type AS arg_type", "A.name AS arg_name",
		"A.value AS arg_value", "E.call_stack", "E.line_info", "A.extdata"},
		"`rocpd_event` E",
		join("INNER", "rocpd_arg", "A", "event_id", "E.id", "E.guid")),
	view("stream_args", []string{"A.id AS argument_id", "A.event_id", "A.position AS arg_position", "A.type AS arg_type",
		"A.value AS arg_value", "json_extract(A.extdata, '$.stream_id') AS stream_id", "S.nid", "P.pid", "S.name AS stream_name",
		"S.extdata"},
		"`rocpd_arg` A",
		join("INNER", "rocpd_info_stream", "S", "id", "json_extract(A.extdata, '$.stream_id')", "A.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "S.pid", "S.guid"),
		"WHERE A.name = 'stream'"),
	memoryCopiesView,
	memoryAllocationsView,
	scratchMemoryView,
	countersCollectionView,
}

// eventTail are the event columns that end the regions and samples views.
var eventTail = []string{"E.stack_id", "E.parent_stack_id", "E.correlation_id AS corr_id", "E.extdata", "E.call_stack", "E.line_info"}

func sampleView(name string, times ...string) string {
	cols := append([]string{"R.id", "R.guid", str("E.category_id", "E.guid") + " AS category",
		str("T.name_id", "T.guid") + " AS name", "T.nid", "P.pid", "TH.tid"}, times...)
	cols = append(append(cols, "R.event_id"), eventTail...)
	return view(name, cols, "`rocpd_sample` R",
		join("INNER", "rocpd_track", "T", "id", "R.track_id", "R.guid"),
		join("INNER", "rocpd_event", "E", "id", "R.event_id", "R.guid"),
		join("INNER", "rocpd_info_process", "P", "id", "T.pid", "T.guid"),
		join("INNER", "rocpd_info_thread", "TH", "id", "T.tid", "T.guid"))
}

// agentCols are an agent's index columns as the views name them, with a prefix.
func agentCols(alias, prefix string) []string {
	return []string{alias + ".absolute_index AS " + prefix + "agent_abs_index", alias + ".logical_index AS " + prefix + "agent_log_index",
		alias + ".type_index AS " + prefix + "agent_type_index", alias + ".type AS " + prefix + "agent_type"}
}

// queueStreamJoins and memoryEventJoins are the joins the memory views share, on their row M.
var (
	queueStreamJoins = join("LEFT", "rocpd_info_queue", "Q", "id", "M.queue_id", "M.guid") + "\n" +
		join("LEFT", "rocpd_info_stream", "ST", "id", "M.stream_id", "M.guid")
	memoryEventJoins = join("INNER", "rocpd_event", "E", "id", "M.event_id", "M.guid") + "\n" +
		join("INNER", "rocpd_info_process", "P", "id", "M.pid", "M.guid") + "\n" +
		join("INNER", "rocpd_info_thread", "T", "id", "M.tid", "M.guid")
)

var memoryCopiesView = view("memory_copies", slices.Concat(
	[]string{"M.id", "M.guid", str("E.category_id", "E.guid") + " AS category", "M.nid", "P.pid", "T.tid", "M.start", "M.end",
		"(M.end - M.start) AS duration", "S.string AS name", "R.string AS region_name", "M.stream_id", "M.queue_id",
		"ST.name AS stream_name", "Q.name AS queue_name", "M.size", "DA.name AS dst_device"},
	agentCols("DA", "dst_"), []string{"M.dst_address", "SA.name AS src_device"}, agentCols("SA", "src_"),
	[]string{"M.src_address", "E.stack_id", "E.parent_stack_id", "E.correlation_id AS corr_id"}),
	"`rocpd_memory_copy` M",
	join("INNER", "rocpd_string", "S", "id", "M.name_id", "M.guid"),
	join("LEFT", "rocpd_string", "R", "id", "M.region_name_id", "M.guid"),
	join("INNER", "rocpd_info_agent", "DA", "id", "M.dst_agent_id", "M.guid"),
	join("INNER", "rocpd_info_agent", "SA", "id", "M.src_agent_id", "M.guid"),
	queueStreamJoins, memoryEventJoins)

var memoryAllocationsView = view("memory_allocations", slices.Concat(
	[]string{"M.id", "M.guid", str("E.category_id", "E.guid") + " AS category", "M.nid", "P.pid", "T.tid", "M.start", "M.end",
		"(M.end - M.start) AS duration", "M.type", "M.level", "A.name AS agent_name"},
	agentCols("A", ""),
	[]string{"M.address", "M.size", "M.queue_id", "Q.name AS queue_name", "M.stream_id", "ST.name AS stream_name",
		"E.stack_id", "E.parent_stack_id", "E.correlation_id AS corr_id"}),
	"`rocpd_memory_allocate` M",
	join("LEFT", "rocpd_info_agent", "A", "id", "M.agent_id", "M.guid"),
	queueStreamJoins, memoryEventJoins)

var scratchMemoryView = view("scratch_memory", slices.Concat(
	[]string{"M.id", "M.guid", "M.nid", "P.pid", "M.type AS operation", "A.name AS agent_name"},
	agentCols("A", ""),
	[]string{"M.queue_id", "T.tid", "json_extract(M.extdata, '$.flags') AS alloc_flags", "M.start", "M.end",
		"(M.end - M.start) AS duration", "M.size", "M.address", "E.correlation_id", "E.stack_id", "E.parent_stack_id",
		"E.correlation_id AS corr_id", str("E.category_id", "E.guid") + " AS category", "E.extdata AS event_extdata"}),
	"`rocpd_memory_allocate` M",
	join("LEFT", "rocpd_info_agent", "A", "id", "M.agent_id", "M.guid"),
	join("LEFT", "rocpd_info_queue", "Q", "id", "M.queue_id", "M.guid"),
	memoryEventJoins,
	"WHERE M.level = 'SCRATCH'",
	"ORDER BY M.start ASC")

// countersCollectionView adds up the rows of one counter on one dispatch, which rocprofv3 writes one
// per hardware instance and gorocprof writes once (with the instances in its extdata).
var countersCollectionView = view("counters_collection", slices.Concat(
	[]string{"MIN(PE.id) AS id", "PE.guid", "K.dispatch_id", "K.kernel_id", "E.id AS event_id", "E.correlation_id",
		"E.stack_id", "E.parent_stack_id", "P.pid", "T.tid", "K.agent_id"},
	agentCols("A", ""),
	[]string{"K.queue_id", "K.grid_size_x", "K.grid_size_y", "K.grid_size_z",
		"(K.grid_size_x * K.grid_size_y * K.grid_size_z) AS grid_size", "S.display_name AS kernel_name",
		str("K.region_name_id", "K.guid") + " AS kernel_region", "K.workgroup_size_x", "K.workgroup_size_y",
		"K.workgroup_size_z", "(K.workgroup_size_x * K.workgroup_size_y * K.workgroup_size_z) AS workgroup_size",
		"K.group_segment_size AS lds_block_size", "K.private_segment_size AS scratch_size",
		"S.arch_vgpr_count AS vgpr_count", "S.accum_vgpr_count", "S.sgpr_count", "PI.name AS counter_name",
		"PI.symbol AS counter_symbol", "PI.component", "PI.description", "PI.block", "PI.expression", "PI.value_type",
		"PI.id AS counter_id", "SUM(PE.value) AS value", "K.start", "K.end", "PI.is_constant", "PI.is_derived",
		"(K.end - K.start) AS duration", str("E.category_id", "E.guid") + " AS category", "K.nid", "E.extdata",
		"S.code_object_id"}),
	"`rocpd_pmc_event` PE",
	join("INNER", "rocpd_info_pmc", "PI", "id", "PE.pmc_id", "PE.guid"),
	join("INNER", "rocpd_event", "E", "id", "PE.event_id", "PE.guid"),
	join("INNER", "rocpd_kernel_dispatch", "K", "event_id", "PE.event_id", "PE.guid"),
	join("INNER", "rocpd_info_agent", "A", "id", "K.agent_id", "K.guid"),
	join("INNER", "rocpd_info_kernel_symbol", "S", "id", "K.kernel_id", "K.guid"),
	join("INNER", "rocpd_info_process", "P", "id", "K.pid", "K.guid"),
	join("INNER", "rocpd_info_thread", "T", "id", "K.tid", "K.guid"),
	"GROUP BY PE.guid, K.dispatch_id, PI.name, K.agent_id")

// summaryViews: per kernel name, calls, total time in microseconds and its share (top_kernels); per
// agent of each process, its busy time and the wall time of the whole database (busy); top is
// top_kernels over kernels, copies and regions.
var summaryViews = []string{
	"CREATE VIEW IF NOT EXISTS `top_kernels` AS\n" +
		"SELECT S.display_name AS name, COUNT(K.kernel_id) AS total_calls,\n" +
		"  SUM(K.end - K.start) / 1000.0 AS total_duration, (SUM(K.end - K.start) / COUNT(K.kernel_id)) / 1000.0 AS average,\n" +
		"  SUM(K.end - K.start) * 100.0 / (SELECT SUM(A.end - A.start) FROM `rocpd_kernel_dispatch` A) AS percentage\n" +
		"FROM `rocpd_kernel_dispatch` K\n" +
		join("INNER", "rocpd_info_kernel_symbol", "S", "id", "K.kernel_id", "K.guid") + "\n" +
		"GROUP BY name ORDER BY total_duration DESC",
	"CREATE VIEW IF NOT EXISTS `busy` AS\n" +
		"SELECT A.agent_id, AG.type, GpuTime, WallTime, GpuTime * 1.0 / WallTime AS Busy\n" +
		"FROM (SELECT agent_id, guid, SUM(end - start) AS GpuTime FROM (" + busyRows + ") GROUP BY agent_id, guid) A\n" +
		"INNER JOIN (SELECT MAX(end) - MIN(start) AS WallTime FROM (" + busyRows + ")) W ON 1 = 1\n" +
		join("INNER", "rocpd_info_agent", "AG", "id", "A.agent_id", "A.guid"),
	"CREATE VIEW IF NOT EXISTS `top` AS\n" +
		"SELECT name, COUNT(*) AS total_calls, SUM(duration) / 1000.0 AS total_duration,\n" +
		"  (SUM(duration) / COUNT(*)) / 1000.0 AS average, SUM(duration) * 100.0 / total_time AS percentage\n" +
		"FROM (" + topRows + ")\n" +
		"CROSS JOIN (SELECT SUM(end - start) AS total_time FROM (SELECT end, start FROM `rocpd_kernel_dispatch` " +
		"UNION ALL SELECT end, start FROM `rocpd_memory_copy` UNION ALL SELECT end, start FROM `rocpd_region`))\n" +
		"GROUP BY name ORDER BY total_duration DESC",
}

// busyRows are the rows busy times: kernels on their agent, copies on their destination.
const busyRows = "SELECT agent_id, guid, end, start FROM `rocpd_kernel_dispatch` " +
	"UNION ALL SELECT dst_agent_id AS agent_id, guid, end, start FROM `rocpd_memory_copy`"

// topRows are the timed rows top summarises: kernels by display name, copies and regions by their
// name string.
const topRows = "SELECT S.display_name AS name, K.end - K.start AS duration FROM `rocpd_kernel_dispatch` K " +
	"INNER JOIN `rocpd_info_kernel_symbol` S ON S.id = K.kernel_id AND S.guid = K.guid " +
	"UNION ALL SELECT RS.string AS name, M.end - M.start AS duration FROM `rocpd_memory_copy` M " +
	"INNER JOIN `rocpd_string` RS ON RS.id = M.name_id AND RS.guid = M.guid " +
	"UNION ALL SELECT RS.string AS name, R.end - R.start AS duration FROM `rocpd_region` R " +
	"INNER JOIN `rocpd_string` RS ON RS.id = R.name_id AND RS.guid = R.guid"

// ownViews are gorocprof's views of the replay passes: gorocprof_passes has one row per pass of every
// dispatch (a dispatch that ran once is its own pass 0, or its pmc_group under rotation), and
// gorocprof_pass_counters one row per counter per pass, with that pass's value and timestamps.
var ownViews = []string{
	"CREATE VIEW IF NOT EXISTS `gorocprof_passes` AS\n" +
		"SELECT P.guid, P.nid, P.pid, P.dispatch_id, P.pass, NULL AS pmc_group, K.kernel_id, S.display_name AS kernel_name,\n" +
		"  A.absolute_index AS agent_abs_index, P.tid, P.queue_id, P.stream_id, P.stack_id, P.correlation_id,\n" +
		"  P.start, P.end, (P.end - P.start) AS duration\n" +
		"FROM `gorocprof_pass` P\n" + passJoins("P") + "\n" +
		"UNION ALL\n" +
		"SELECT K.guid, K.nid, K.pid, K.dispatch_id, 0, json_extract(K.extdata, '$.pmc_group'), K.kernel_id, S.display_name,\n" +
		"  A.absolute_index, K.tid, K.queue_id, K.stream_id, E.stack_id, E.correlation_id, K.start, K.end, (K.end - K.start)\n" +
		"FROM `rocpd_kernel_dispatch` K\n" +
		join("INNER", "rocpd_event", "E", "id", "K.event_id", "K.guid") + "\n" + kernelAgentJoins + "\n" +
		"WHERE json_extract(K.extdata, '$.replay_passes') IS NULL",
	"CREATE VIEW IF NOT EXISTS `gorocprof_pass_counters` AS\n" +
		"SELECT PE.guid, K.nid, K.pid, K.dispatch_id, COALESCE(json_extract(PE.extdata, '$.replay_pass'), 0) AS pass,\n" +
		"  K.kernel_id, S.display_name AS kernel_name, A.absolute_index AS agent_abs_index, PI.id AS counter_id,\n" +
		"  PI.name AS counter_name, PE.value, COALESCE(P.start, K.start) AS start, COALESCE(P.end, K.end) AS end\n" +
		"FROM `rocpd_pmc_event` PE\n" +
		join("INNER", "rocpd_kernel_dispatch", "K", "event_id", "PE.event_id", "PE.guid") + "\n" +
		join("INNER", "rocpd_info_pmc", "PI", "id", "PE.pmc_id", "PE.guid") + "\n" + kernelAgentJoins + "\n" +
		join("LEFT", "gorocprof_pass", "P", "dispatch_id", "K.id", "K.guid") + " AND P.pass = json_extract(PE.extdata, '$.replay_pass')\n" +
		"UNION ALL\n" +
		"SELECT PP.guid, P.nid, P.pid, P.dispatch_id, P.pass, K.kernel_id, S.display_name, A.absolute_index, PI.id, PI.name,\n" +
		"  PP.value, P.start, P.end\n" +
		"FROM `gorocprof_pass_pmc` PP\n" +
		join("INNER", "gorocprof_pass", "P", "id", "PP.pass_id", "PP.guid") + "\n" +
		join("INNER", "rocpd_info_pmc", "PI", "id", "PP.pmc_id", "PP.guid") + "\n" + passJoins("P"),
}

// kernelAgentJoins join a dispatch row K to its kernel symbol S and agent A.
var kernelAgentJoins = join("INNER", "rocpd_info_kernel_symbol", "S", "id", "K.kernel_id", "K.guid") + "\n" +
	join("INNER", "rocpd_info_agent", "A", "id", "K.agent_id", "K.guid")

// passJoins join a pass row to its dispatch row K, kernel symbol S and agent A.
func passJoins(pass string) string {
	return join("INNER", "rocpd_kernel_dispatch", "K", "id", pass+".dispatch_id", pass+".guid") + "\n" + kernelAgentJoins
}
