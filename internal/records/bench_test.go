package records

import (
	"bytes"
	"testing"
)

// BenchmarkDecode measures streaming decode of dispatch lines, the bulk of a large record file.
func BenchmarkDecode(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(lines(hdr, agent, kern))
	line := disp(1, 0, 1) + "\n"
	for i := 0; i < 10000; i++ {
		buf.WriteString(line)
	}
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := 0
		if err := Decode(bytes.NewReader(data), func(Record) error { n++; return nil }); err != nil {
			b.Fatal(err)
		}
		if n != 10003 {
			b.Fatalf("decoded %d records", n)
		}
	}
}
