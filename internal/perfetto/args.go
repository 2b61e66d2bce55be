package perfetto

import (
	"google.golang.org/protobuf/proto"

	"github.com/gorocprof/gorocprof/internal/perfetto/pb"
)

// Arg is one argument of a slice (a debug annotation, which the UI lists with the slice and
// trace_processor keeps in its args table as debug.<name>): a named number or string, or a named
// dictionary or array of arguments.
type Arg struct {
	Name  string
	kind  argKind
	u     uint64
	i     int64
	f     float64
	s     string
	items []Arg
}

type argKind uint8

const (
	argUint argKind = iota
	argInt
	argDouble
	argString
	argDict
	argArray
)

// Uint is an unsigned argument.
func Uint(name string, v uint64) Arg { return Arg{Name: name, kind: argUint, u: v} }

// Int is a signed argument.
func Int(name string, v int64) Arg { return Arg{Name: name, kind: argInt, i: v} }

// Double is a floating-point argument.
func Double(name string, v float64) Arg { return Arg{Name: name, kind: argDouble, f: v} }

// String is a text argument.
func String(name, v string) Arg { return Arg{Name: name, kind: argString, s: v} }

// Dict is a dictionary of the named entries, in their order.
func Dict(name string, entries []Arg) Arg { return Arg{Name: name, kind: argDict, items: entries} }

// Array is an array of values; their names are not written.
func Array(name string, items []Arg) Arg { return Arg{Name: name, kind: argArray, items: items} }

// annotation encodes a named argument, interning its name (and its entries' names) on the
// sequence into interned when first used there.
func (s *sequence) annotation(a Arg, interned *pb.InternedData) *pb.DebugAnnotation {
	d := s.value(a, interned)
	name := a.Name
	d.NameField = &pb.DebugAnnotation_NameIid{NameIid: intern(s.argNames, name, func(iid uint64) {
		interned.DebugAnnotationNames = append(interned.DebugAnnotationNames,
			&pb.DebugAnnotationName{Iid: proto.Uint64(iid), Name: proto.String(name)})
	})}
	return d
}

// value encodes an argument's value, without its name.
func (s *sequence) value(a Arg, interned *pb.InternedData) *pb.DebugAnnotation {
	d := &pb.DebugAnnotation{}
	switch a.kind {
	case argUint:
		d.Value = &pb.DebugAnnotation_UintValue{UintValue: a.u}
	case argInt:
		d.Value = &pb.DebugAnnotation_IntValue{IntValue: a.i}
	case argDouble:
		d.Value = &pb.DebugAnnotation_DoubleValue{DoubleValue: a.f}
	case argString:
		d.Value = &pb.DebugAnnotation_StringValue{StringValue: a.s}
	case argDict:
		for _, e := range a.items {
			d.DictEntries = append(d.DictEntries, s.annotation(e, interned))
		}
	case argArray:
		for _, e := range a.items {
			d.ArrayValues = append(d.ArrayValues, s.value(e, interned))
		}
	}
	return d
}
