package rocpd

import (
	"fmt"
	"strings"
)

// startProcess writes the node (once per machine) and process rows of p, which the rows that follow
// belong to, and prepares the per-pass inserts for it.
func (w *Writer) startProcess(p Process) error {
	w.pid, w.ppid = p.PID, p.PPID
	machine := p.machineID()
	hash := nodeHash(machine)
	w.nid = nodeID(hash)
	if !w.nodes[w.nid] {
		if err := w.exec("info_node", "INSERT INTO `"+w.table("info_node")+"` (id, hash, machine_id, hostname) VALUES (?, ?, ?, ?)",
			w.nid, hash, machine, p.Hostname); err != nil {
			return err
		}
		w.nodes[w.nid] = true
	}
	// Images of one process (an exec) share its pid, and so its row: the first image's.
	if !w.procs[p.PID] {
		var fini any
		if p.Fini != 0 {
			fini = p.Fini
		}
		if err := w.exec("info_process", "INSERT INTO `"+w.table("info_process")+
			"` (id, nid, ppid, pid, init, fini, start, end, command, extdata) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
			p.PID, w.nid, p.PPID, p.PID, p.Init, fini, p.Init, fini, strings.Join(p.Command, " "), jsonText(p.Extdata)); err != nil {
			return err
		}
		w.procs[p.PID] = true
	}
	if err := w.prepareBatches(); err != nil {
		return err
	}
	w.c.start()
	return nil
}

// Process starts another process in the same database (processes that share one output name).
// The ids its agents, counters, kernels, queues and streams are given by are its own: where they
// would collide with an earlier process's, the rows get ids of their own (the first process's rows
// keep the ids they are given, as rocprofv3's do), and the views show the agents' node ids and the
// queue and stream handles as before.
func (w *Writer) Process(p Process) error {
	err := w.flushBatches()
	if err == nil {
		err = w.c.wait()
	}
	if err == nil {
		err = w.closeBatches()
	}
	if err != nil {
		return fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	w.later = true
	clear(w.rows)
	if err := w.startProcess(p); err != nil {
		return fmt.Errorf("rocpd database %s: %w", w.path, err)
	}
	return nil
}

// rowKey is an id of the current process: its kind ("agent", "pmc", "kernel", "queue", "stream")
// and its value.
type rowKey struct {
	kind string
	id   uint64
}

// row is the row id of one of the current process's ids: the id itself in the first process, else
// the next unused id of its kind.
func (w *Writer) row(kind string, id uint64) int64 {
	k := rowKey{kind, id}
	if r, ok := w.rows[k]; ok {
		return r
	}
	r := int64(id)
	if w.later {
		r = w.maxRow[kind] + 1
	}
	w.rows[k] = r
	w.maxRow[kind] = max(w.maxRow[kind], r)
	return r
}
