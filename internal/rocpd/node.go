package rocpd

// NodeKey is the id and hash the database keys a machine by (rocpd_info_node), for the files that
// name the same node (results.json's metadata.node).
func NodeKey(machineID string) (id, hash int64) {
	hash = nodeHash(machineID)
	return nodeID(hash), hash
}
