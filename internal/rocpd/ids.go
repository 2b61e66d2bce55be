package rocpd

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash/fnv"
	"math"
	"strconv"
	"strings"
)

// guidOf is the database's GUID: a UUIDv7 (with hyphens) whose time field is the process's start in
// milliseconds and whose other bits come from a hash of the machine, pid, ppid and start time, as
// rocprofv3 seeds its own. The same process always gets the same GUID, so the same records give the
// same database; n > 0 gives another, for a process that a database holds beside one that has the
// same keys.
func guidOf(p Process, n int) string {
	key := p.machineID() + "\x00" + strconv.FormatInt(p.PID, 10) + "\x00" + strconv.FormatInt(p.PPID, 10) + "\x00" +
		strconv.FormatInt(p.Init, 10)
	if n > 0 {
		key += "\x00" + strconv.Itoa(n)
	}
	seed := sha256.Sum256([]byte(key))
	var u [16]byte
	copy(u[6:], seed[:10])
	ms := uint64(max(p.Init, 0)) / 1_000_000
	var t [8]byte
	binary.BigEndian.PutUint64(t[:], ms)
	copy(u[:6], t[2:])
	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // RFC 4122 variant
	h := hex.EncodeToString(u[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// uuidOf is the suffix of every table name: "_" and the GUID with '-' turned into '_', the form
// rocprofv3's readers check against the metadata.
func uuidOf(guid string) string { return "_" + strings.ReplaceAll(guid, "-", "_") }

// nodeHash and nodeID key the machine the way rocprofv3 does (a 64-bit hash of the machine id reduced
// below INT64_MAX, then below UINT32_MAX), with FNV-1a as the hash so the value is stable across
// builds.
func nodeHash(machineID string) int64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(machineID))
	return int64(h.Sum64() % math.MaxInt64)
}

func nodeID(hash int64) int64 { return hash % math.MaxUint32 }
