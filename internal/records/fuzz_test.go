package records

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzDecode checks that no input makes the decoder panic or loop, and that a successful decode
// always started with a header.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(lines(hdr, agent, kern, disp(1, 0, 2), disp(1, 1, 2), `{"t":"end","fini_time":9}`)))
	f.Add([]byte(lines(hdr, agent, kern) + disp(1, 0, 1)[:30]))
	f.Add([]byte(lines(hdr, `{"t":"decline","dispatch_id":9,"reason":"x"}`, `{"t":"fatal","message":"m"}`)))
	f.Add([]byte(lines(hdr, `{"t":"future","a":[1,{"b":null}]}`, `{"x":1,"t":"warning","message":"late t"}`)))
	f.Add([]byte(`{"t":"header","version":2}` + "\n"))
	f.Add([]byte("\n\n\r\n"))
	f.Add([]byte(lines(hdr, `{"t":"dispatch","counters":[{"name":"A","values":[null,1e308,-0]}]}`)))
	f.Add([]byte(lines(hdr, agent, cpuAgent, apiLine, mkLine, copyLine, `{"t":"marker","message":"a\"b","op":"roctxMarkA"}`)))
	f.Fuzz(func(t *testing.T, data []byte) {
		n := 0
		sawHeader := false
		err := Decode(bytes.NewReader(data), func(r Record) error {
			n++
			if n == 1 && r.Type != TypeTruncated {
				sawHeader = r.Header != nil
			}
			if n > len(data)+1 {
				return errors.New("more records than input bytes")
			}
			return nil
		})
		if err == nil && !sawHeader {
			t.Fatalf("decode succeeded without a header record first")
		}
	})
}
