package telemetry

import (
	"math"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkinstr "go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/protobuf/encoding/protowire"
)

// The OTLP field numbers this file writes, from opentelemetry-proto's
// collector/trace/v1/trace_service.proto, trace/v1/trace.proto,
// common/v1/common.proto and resource/v1/resource.proto.
const (
	fRequestResourceSpans = 1 // ExportTraceServiceRequest.resource_spans

	fResourceSpansResource   = 1
	fResourceSpansScopeSpans = 2
	fResourceSpansSchemaURL  = 3

	fScopeSpansScope     = 1
	fScopeSpansSpans     = 2
	fScopeSpansSchemaURL = 3

	fSpanTraceID         = 1
	fSpanSpanID          = 2
	fSpanTraceState      = 3
	fSpanParentSpanID    = 4
	fSpanName            = 5
	fSpanKind            = 6
	fSpanStart           = 7 // fixed64
	fSpanEnd             = 8 // fixed64
	fSpanAttributes      = 9
	fSpanDroppedAttrs    = 10
	fSpanEvents          = 11
	fSpanDroppedEvents   = 12
	fSpanLinks           = 13
	fSpanDroppedLinks    = 14
	fSpanStatus          = 15
	fSpanFlags           = 16 // fixed32
	fEventTime           = 1  // fixed64
	fEventName           = 2
	fEventAttributes     = 3
	fEventDroppedAttrs   = 4
	fLinkTraceID         = 1
	fLinkSpanID          = 2
	fLinkTraceState      = 3
	fLinkAttributes      = 4
	fLinkDroppedAttrs    = 5
	fLinkFlags           = 6 // fixed32
	fStatusMessage       = 2
	fStatusCode          = 3
	fScopeName           = 1
	fScopeVersion        = 2
	fScopeAttributes     = 3
	fResourceAttributes  = 1
	fKeyValueKey         = 1
	fKeyValueValue       = 2
	fAnyString           = 1
	fAnyBool             = 2
	fAnyInt              = 3
	fAnyDouble           = 4 // fixed64
	fAnyArray            = 5
	fAnyKvlist           = 6
	fAnyBytes            = 7
	fArrayValues         = 1 // ArrayValue.values, KeyValueList.values
	otlpStatusOK         = 1 // Status.StatusCode; codes.Code numbers them otherwise
	otlpStatusError      = 2
	flagHasIsRemote      = 0x100 // SpanFlags: the parent's remoteness is known
	flagIsRemote         = 0x200
	maxAttrNesting       = 16 // SLICE and MAP values deeper than this are sent as a string
	invalidAttrValue     = "INVALID"
	lenPlaceholderLength = 1
)

// beginMsg starts the length-delimited field num: its tag, and one byte
// for the length, which most of OTLP's small messages (a key-value, a
// status) fit. endMsg writes the length and moves the body when it
// needs more bytes. Writing first and moving after is cheaper than
// sizing every message before writing it, as proto.Marshal does.
func beginMsg(b []byte, num protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = append(b, 0)
	return b, len(b)
}

func endMsg(b []byte, start int) []byte {
	n := len(b) - start
	if n < 0x80 {
		b[start-lenPlaceholderLength] = byte(n)
		return b
	}
	k := protowire.SizeVarint(uint64(n))
	var pad [10]byte // a varint's most bytes
	b = append(b, pad[:k-lenPlaceholderLength]...)
	copy(b[start-lenPlaceholderLength+k:], b[start:start+n])
	protowire.AppendVarint(b[:start-lenPlaceholderLength], uint64(n))
	return b
}

func appendStringField(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, s)
}

func appendVarintField(b []byte, num protowire.Number, v uint64) []byte {
	if v == 0 {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendFixed64Field(b []byte, num protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, num, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, v)
}

func appendCount(b []byte, num protowire.Number, n int) []byte {
	return appendVarintField(b, num, uint64(min(max(n, 0), math.MaxUint32)))
}

func unixNanos(t time.Time) uint64 { return uint64(max(t.UnixNano(), 0)) }

// spanGroup is the spans of one resource and instrumentation scope, in
// the order they came.
type spanGroup struct {
	res   *resource.Resource
	rkey  attribute.Distinct
	scope sdkinstr.Scope
	spans []int
}

// appendRequest appends the ExportTraceServiceRequest of spans to b,
// grouped by resource, then by scope, each in order of first
// appearance. groups is reused storage, returned for the next call.
func appendRequest(b []byte, spans []sdktrace.ReadOnlySpan, groups []spanGroup) ([]byte, []spanGroup) {
	for i := range groups {
		groups[i].spans = groups[i].spans[:0]
	}
	n := 0 // groups in use
	for i, s := range spans {
		if s == nil {
			continue
		}
		res, scope := s.Resource(), s.InstrumentationScope()
		rkey := res.Equivalent()
		g := 0
		for g < n && (groups[g].rkey != rkey || groups[g].scope != scope) {
			g++
		}
		if g == n {
			if n == len(groups) {
				groups = append(groups, spanGroup{})
			}
			groups[n].res, groups[n].rkey, groups[n].scope = res, rkey, scope
			n++
		}
		groups[g].spans = append(groups[g].spans, i)
	}
	for g := range n {
		if resourceWritten(groups, g) {
			continue
		}
		var rs int
		b, rs = beginMsg(b, fRequestResourceSpans)
		if r := groups[g].res; r != nil {
			var m int
			b, m = beginMsg(b, fResourceSpansResource)
			for it := r.Iter(); it.Next(); {
				b = appendKeyValue(b, fResourceAttributes, it.Attribute(), 0)
			}
			b = endMsg(b, m)
		}
		for h := g; h < n; h++ {
			if groups[h].rkey != groups[g].rkey {
				continue
			}
			b = appendScopeSpans(b, &groups[h], spans)
		}
		if r := groups[g].res; r != nil {
			b = appendStringField(b, fResourceSpansSchemaURL, r.SchemaURL())
		}
		b = endMsg(b, rs)
	}
	return b, groups
}

// resourceWritten reports whether group g's resource was written with
// an earlier group's (a batch holds few groups: one per scope).
func resourceWritten(groups []spanGroup, g int) bool {
	for h := range g {
		if groups[h].rkey == groups[g].rkey {
			return true
		}
	}
	return false
}

func appendScopeSpans(b []byte, g *spanGroup, spans []sdktrace.ReadOnlySpan) []byte {
	var ss int
	b, ss = beginMsg(b, fResourceSpansScopeSpans)
	if g.scope != (sdkinstr.Scope{}) {
		var m int
		b, m = beginMsg(b, fScopeSpansScope)
		b = appendStringField(b, fScopeName, g.scope.Name)
		b = appendStringField(b, fScopeVersion, g.scope.Version)
		for it := g.scope.Attributes.Iter(); it.Next(); {
			b = appendKeyValue(b, fScopeAttributes, it.Attribute(), 0)
		}
		b = endMsg(b, m)
	}
	for _, i := range g.spans {
		b = appendSpan(b, spans[i])
	}
	b = appendStringField(b, fScopeSpansSchemaURL, g.scope.SchemaURL)
	return endMsg(b, ss)
}

func appendSpan(b []byte, s sdktrace.ReadOnlySpan) []byte {
	var m int
	b, m = beginMsg(b, fScopeSpansSpans)
	sc := s.SpanContext()
	tid, sid := sc.TraceID(), sc.SpanID()
	b = protowire.AppendTag(b, fSpanTraceID, protowire.BytesType)
	b = protowire.AppendBytes(b, tid[:])
	b = protowire.AppendTag(b, fSpanSpanID, protowire.BytesType)
	b = protowire.AppendBytes(b, sid[:])
	if sc.TraceState().Len() > 0 {
		b = appendStringField(b, fSpanTraceState, sc.TraceState().String())
	}
	parent := s.Parent()
	if psid := parent.SpanID(); psid.IsValid() {
		b = protowire.AppendTag(b, fSpanParentSpanID, protowire.BytesType)
		b = protowire.AppendBytes(b, psid[:])
	}
	b = appendStringField(b, fSpanName, s.Name())
	b = appendVarintField(b, fSpanKind, spanKindNumber(s.SpanKind()))
	b = appendFixed64Field(b, fSpanStart, unixNanos(s.StartTime()))
	b = appendFixed64Field(b, fSpanEnd, unixNanos(s.EndTime()))
	for _, kv := range s.Attributes() {
		b = appendKeyValue(b, fSpanAttributes, kv, 0)
	}
	b = appendCount(b, fSpanDroppedAttrs, s.DroppedAttributes())
	for _, e := range s.Events() {
		var em int
		b, em = beginMsg(b, fSpanEvents)
		b = appendFixed64Field(b, fEventTime, unixNanos(e.Time))
		b = appendStringField(b, fEventName, e.Name)
		for _, kv := range e.Attributes {
			b = appendKeyValue(b, fEventAttributes, kv, 0)
		}
		b = appendCount(b, fEventDroppedAttrs, e.DroppedAttributeCount)
		b = endMsg(b, em)
	}
	b = appendCount(b, fSpanDroppedEvents, s.DroppedEvents())
	for _, l := range s.Links() {
		var lm int
		b, lm = beginMsg(b, fSpanLinks)
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		b = protowire.AppendTag(b, fLinkTraceID, protowire.BytesType)
		b = protowire.AppendBytes(b, ltid[:])
		b = protowire.AppendTag(b, fLinkSpanID, protowire.BytesType)
		b = protowire.AppendBytes(b, lsid[:])
		if l.SpanContext.TraceState().Len() > 0 {
			b = appendStringField(b, fLinkTraceState, l.SpanContext.TraceState().String())
		}
		for _, kv := range l.Attributes {
			b = appendKeyValue(b, fLinkAttributes, kv, 0)
		}
		b = appendCount(b, fLinkDroppedAttrs, l.DroppedAttributeCount)
		b = protowire.AppendTag(b, fLinkFlags, protowire.Fixed32Type)
		b = protowire.AppendFixed32(b, spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		b = endMsg(b, lm)
	}
	b = appendCount(b, fSpanDroppedLinks, s.DroppedLinks())
	// The status is always sent, as otlptracehttp does, empty when unset.
	var st int
	b, st = beginMsg(b, fSpanStatus)
	status := s.Status()
	b = appendStringField(b, fStatusMessage, status.Description)
	switch status.Code {
	case codes.Ok:
		b = appendVarintField(b, fStatusCode, otlpStatusOK)
	case codes.Error:
		b = appendVarintField(b, fStatusCode, otlpStatusError)
	}
	b = endMsg(b, st)
	b = protowire.AppendTag(b, fSpanFlags, protowire.Fixed32Type)
	b = protowire.AppendFixed32(b, spanFlags(sc.TraceFlags(), parent))
	return endMsg(b, m)
}

// spanFlags are OTLP's span flags: the W3C trace flags in the low byte,
// and whether the parent (or a link's span) is remote.
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

// spanKindNumber is OTLP's SpanKind, which numbers the kinds as the API
// does; anything else is UNSPECIFIED (0).
func spanKindNumber(k trace.SpanKind) uint64 {
	if k >= trace.SpanKindInternal && k <= trace.SpanKindConsumer {
		return uint64(k)
	}
	return 0
}

// appendKeyValue appends kv as the KeyValue field num.
func appendKeyValue(b []byte, num protowire.Number, kv attribute.KeyValue, depth int) []byte {
	var m int
	b, m = beginMsg(b, num)
	b = appendStringField(b, fKeyValueKey, string(kv.Key))
	b = appendAnyValue(b, fKeyValueValue, kv.Value, depth)
	return endMsg(b, m)
}

// appendAnyValue appends v as the AnyValue field num. Its one-of value
// is written even when zero (an int 0, a false, an empty string): the
// field's presence is what says which it is.
func appendAnyValue(b []byte, num protowire.Number, v attribute.Value, depth int) []byte {
	var m int
	b, m = beginMsg(b, num)
	switch v.Type() {
	case attribute.EMPTY:
	case attribute.STRING:
		b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
		b = protowire.AppendString(b, v.AsString())
	case attribute.BOOL:
		b = appendBool(b, v.AsBool())
	case attribute.INT64:
		b = appendInt(b, v.AsInt64())
	case attribute.FLOAT64:
		b = appendDouble(b, v.AsFloat64())
	case attribute.BYTESLICE:
		b = protowire.AppendTag(b, fAnyBytes, protowire.BytesType)
		b = protowire.AppendBytes(b, v.AsByteSlice())
	case attribute.STRINGSLICE:
		b = appendArray(b, v.AsStringSlice(), func(b []byte, s string) []byte {
			b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
			return protowire.AppendString(b, s)
		})
	case attribute.INT64SLICE:
		b = appendArray(b, v.AsInt64Slice(), appendInt)
	case attribute.BOOLSLICE:
		b = appendArray(b, v.AsBoolSlice(), appendBool)
	case attribute.FLOAT64SLICE:
		b = appendArray(b, v.AsFloat64Slice(), appendDouble)
	case attribute.SLICE, attribute.MAP:
		if depth >= maxAttrNesting { // a value nested this deep is hostile or a mistake: keep the stack bounded
			b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
			b = protowire.AppendString(b, invalidAttrValue)
			break
		}
		if v.Type() == attribute.SLICE {
			var a int
			b, a = beginMsg(b, fAnyArray)
			for _, e := range v.AsSlice() {
				b = appendAnyValue(b, fArrayValues, e, depth+1)
			}
			b = endMsg(b, a)
			break
		}
		var a int
		b, a = beginMsg(b, fAnyKvlist)
		for _, kv := range v.AsMap() {
			b = appendKeyValue(b, fArrayValues, kv, depth+1)
		}
		b = endMsg(b, a)
	default: // a type newer than this code: said, not dropped, as otlptracehttp does
		b = protowire.AppendTag(b, fAnyString, protowire.BytesType)
		b = protowire.AppendString(b, invalidAttrValue)
	}
	return endMsg(b, m)
}

// appendArray appends vals as an AnyValue's ArrayValue, each value an
// AnyValue that elem writes the inside of.
func appendArray[T any](b []byte, vals []T, elem func([]byte, T) []byte) []byte {
	var a int
	b, a = beginMsg(b, fAnyArray)
	for _, v := range vals {
		var e int
		b, e = beginMsg(b, fArrayValues)
		b = elem(b, v)
		b = endMsg(b, e)
	}
	return endMsg(b, a)
}

func appendBool(b []byte, v bool) []byte {
	b = protowire.AppendTag(b, fAnyBool, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeBool(v))
}

func appendInt(b []byte, v int64) []byte {
	b = protowire.AppendTag(b, fAnyInt, protowire.VarintType)
	return protowire.AppendVarint(b, uint64(v))
}

func appendDouble(b []byte, v float64) []byte {
	b = protowire.AppendTag(b, fAnyDouble, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}
