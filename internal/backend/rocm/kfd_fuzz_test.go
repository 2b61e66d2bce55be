package rocm

import (
	"testing"
)

// FuzzParseProperties: a KFD properties file of any content parses or is an error, never a panic;
// what parses keeps every value exactly, the hash keys only unsigned.
func FuzzParseProperties(f *testing.F) {
	for _, seed := range []string{
		"cpu_cores_count 0\nsimd_count 416\nsimd_per_cu 4\ngfx_target_version 90010\n",
		"unique_id 18446744073709551615\nhive_id 1\n",
		"simd_count 18446744073709551615\n",
		"simd_count -1\n",
		"\n\n  location_id   768  \n",
		"one two three\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		props, big, err := parseProperties("properties", data)
		if err != nil {
			return
		}
		for k, v := range props {
			if hashKeys[k] {
				t.Fatalf("hash key %s among the integer properties", k)
			}
			if v < 0 || uint64(v) != big[k] {
				t.Fatalf("%s = %d, but the file says %d", k, v, big[k])
			}
		}
		for k := range big {
			if _, ok := props[k]; !ok && !hashKeys[k] {
				t.Fatalf("%s = %d was dropped from the properties", k, big[k])
			}
		}
	})
}
