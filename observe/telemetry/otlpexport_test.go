package telemetry_test

import (
	"compress/gzip"
	"context"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	collectortrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"

	"github.com/keel-go/keel/observe/telemetry"
)

// answer is what a scripted collector says to one export.
type answer struct {
	status     int
	retryAfter string
	body       string
	hangUp     bool // close the connection without answering
}

// collector is an OTLP/HTTP collector that decodes each export with the
// official protobuf types and answers as scripted (then 200).
type collector struct {
	mu       sync.Mutex
	answers  []answer
	requests []*collectortrace.ExportTraceServiceRequest
	headers  []http.Header
	bad      []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.headers = append(c.headers, r.Header.Clone())
	var body io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		gz, err := gzip.NewReader(r.Body)
		if err != nil {
			c.bad = append(c.bad, err.Error())
			return
		}
		body = gz
	}
	b, err := io.ReadAll(body)
	req := &collectortrace.ExportTraceServiceRequest{}
	if err == nil {
		err = proto.Unmarshal(b, req)
	}
	if err != nil || r.URL.Path != "/v1/traces" || r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/x-protobuf" {
		c.bad = append(c.bad, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")+" "+errString(err))
		http.Error(w, "not an OTLP/HTTP trace export", http.StatusBadRequest)
		return
	}
	c.requests = append(c.requests, req)
	if len(c.answers) > 0 {
		a := c.answers[0]
		c.answers = c.answers[1:]
		if a.hangUp {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.body)
		return
	}
	w.Header().Set("Content-Type", "application/x-protobuf")
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (c *collector) tries() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.requests)
}

func startCollector(t *testing.T, answers ...answer) (*collector, string) {
	t.Helper()
	c := &collector{answers: answers}
	hs := httptest.NewServer(c)
	t.Cleanup(hs.Close)
	return c, hs.URL + "/v1/traces"
}

func newExporter(t *testing.T, cfg telemetry.ExporterConfig) *telemetry.Exporter {
	t.Helper()
	exp, err := telemetry.NewExporter(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = exp.Shutdown(context.Background()) })
	return exp
}

var (
	traceA  = trace.TraceID{0x4b, 0xf9, 0x2f, 0x35, 0x77, 0xb3, 0x4d, 0xa6, 0xa3, 0xce, 0x92, 0x9d, 0x0e, 0x0e, 0x47, 0x36}
	spanA   = trace.SpanID{0x00, 0xf0, 0x67, 0xaa, 0x0b, 0xa9, 0x02, 0xb7}
	spanB   = trace.SpanID{1, 2, 3, 4, 5, 6, 7, 8}
	state   = must(trace.ParseTraceState("vendor=opaque,other=1"))
	t0      = time.Date(2026, 12, 2, 14, 0, 0, 123456789, time.UTC)
	every   = []attribute.KeyValue{attribute.String("s", "gemini-2.5-flash"), attribute.String("empty", ""), attribute.Bool("t", true), attribute.Bool("f", false), attribute.Int64("i", -812), attribute.Int("zero", 0), attribute.Int64("big", math.MaxInt64), attribute.Float64("pi", 3.25), attribute.Float64("nan", math.NaN()), attribute.Float64("negzero", math.Copysign(0, -1)), attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, -2, 0}), attribute.Float64Slice("fs", []float64{0.5, -1e300}), attribute.StringSlice("ss", []string{"stop", "", "ünïcödé\x00"}), attribute.StringSlice("ss0", nil), attribute.ByteSlice("bytes", []byte{0, 0xff, 'a'}), attribute.Slice("mixed", attribute.StringValue("a"), attribute.IntValue(2), attribute.SliceValue(attribute.BoolValue(true))), attribute.Map("map", attribute.String("k", "v"), attribute.Map("inner", attribute.Float64("x", 1))), {Key: "none", Value: attribute.Value{}}, attribute.String("long", strings.Repeat("x", 300))}
	resKeel = resource.NewSchemaless(attribute.String("service.name", "keel"), attribute.Int("pid", 7))
	resTwo  = resource.NewWithAttributes("https://opentelemetry.io/schemas/1.26.0", attribute.String("service.name", "other"))
)

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func sc(tid trace.TraceID, sid trace.SpanID, remote bool) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: state, Remote: remote})
}

// stubs are spans of two resources and three scopes, interleaved, with
// every attribute type, events, links, statuses and dropped counts.
func stubs() tracetest.SpanStubs {
	keelScope := instrumentation.Scope{Name: "github.com/keel-go/keel", Version: "1.2.3", SchemaURL: "https://opentelemetry.io/schemas/1.26.0",
		Attributes: attribute.NewSet(attribute.String("scope.attr", "x"))}
	httpScope := instrumentation.Scope{Name: "net/http"}
	full := tracetest.SpanStub{
		Name: "chat gemini-2.5-flash", SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceA, SpanID: spanA, TraceFlags: trace.FlagsSampled, TraceState: state}),
		Parent: sc(traceA, spanB, true), SpanKind: trace.SpanKindClient, StartTime: t0, EndTime: t0.Add(1500 * time.Millisecond),
		Attributes: every,
		Events: []sdktrace.Event{{Name: "keel.recovery", Time: t0.Add(time.Millisecond), Attributes: every[:5], DroppedAttributeCount: 2},
			{Name: "bare", Time: t0.Add(2 * time.Millisecond)}},
		Links:  []sdktrace.Link{{SpanContext: sc(traceA, spanB, true), Attributes: every[2:4], DroppedAttributeCount: 1}, {SpanContext: sc(trace.TraceID{9}, trace.SpanID{9}, false)}},
		Status: sdktrace.Status{Code: codes.Error, Description: "unsupported mime type\r\n"}, DroppedAttributes: 3, DroppedEvents: 4, DroppedLinks: 5,
		Resource: resKeel, InstrumentationScope: keelScope,
	}
	minimal := func(name string, kind trace.SpanKind, res *resource.Resource, scope instrumentation.Scope, st codes.Code) tracetest.SpanStub {
		return tracetest.SpanStub{Name: name, SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: traceA, SpanID: trace.SpanID{byte(len(name))}}),
			SpanKind: kind, StartTime: t0, EndTime: t0, Status: sdktrace.Status{Code: st}, Resource: res, InstrumentationScope: scope}
	}
	return tracetest.SpanStubs{
		full,
		minimal("GET /", trace.SpanKindServer, resKeel, httpScope, codes.Ok),
		minimal("other service", trace.SpanKindProducer, resTwo, keelScope, codes.Unset),
		minimal("keel.step", trace.SpanKindInternal, resKeel, keelScope, codes.Unset),
		minimal("no scope", trace.SpanKindConsumer, resKeel, instrumentation.Scope{}, codes.Unset),
		minimal("unspecified", trace.SpanKindUnspecified, resKeel, httpScope, codes.Unset),
	}
}

// Every field of the SDK's spans arrives as OTLP says, decoded by the
// official protobuf types: grouped by resource, then by scope, in the
// order they came.
func TestExporterSendsEveryField(t *testing.T) {
	for _, gz := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "gzip"}[gz], func(t *testing.T) {
			c, url := startCollector(t)
			exp := newExporter(t, telemetry.ExporterConfig{URL: url, Gzip: gz, Header: http.Header{"Api-Key": {"s=cret"}}})
			spans := stubs().Snapshots()
			if err := exp.ExportSpans(context.Background(), spans); err != nil {
				t.Fatalf("Got(ExportSpans) error %v; want nil", err)
			}
			c.mu.Lock()
			defer c.mu.Unlock()
			if len(c.bad) > 0 || len(c.requests) != 1 {
				t.Fatalf("Got(exports) %d, unreadable %v; want 1 readable", len(c.requests), c.bad)
			}
			if h := c.headers[0]; h.Get("Api-Key") != "s=cret" || (h.Get("Content-Encoding") == "gzip") != gz {
				t.Errorf("Got(headers) %v; want Api-Key and gzip %v", h, gz)
			}
			type group struct {
				res   *resource.Resource
				scope instrumentation.Scope
				spans []int
			}
			want := [][]group{ // resources, then scopes, in order of first appearance
				{{resKeel, spans[0].InstrumentationScope(), []int{0, 3}}, {resKeel, spans[1].InstrumentationScope(), []int{1, 5}}, {resKeel, instrumentation.Scope{}, []int{4}}},
				{{resTwo, spans[2].InstrumentationScope(), []int{2}}},
			}
			rss := c.requests[0].GetResourceSpans()
			if len(rss) != len(want) {
				t.Fatalf("Got(%d resources); want %d", len(rss), len(want))
			}
			for i, rs := range rss {
				res := want[i][0].res
				if !proto.Equal(rs.GetResource(), &resourcepb.Resource{Attributes: wantKVs(res.Attributes())}) || rs.GetSchemaUrl() != res.SchemaURL() {
					t.Errorf("Got(resource %d) %v %q; want %v", i, rs.GetResource(), rs.GetSchemaUrl(), res)
				}
				if len(rs.GetScopeSpans()) != len(want[i]) {
					t.Fatalf("Got(resource %d: %d scopes); want %d", i, len(rs.GetScopeSpans()), len(want[i]))
				}
				for j, ss := range rs.GetScopeSpans() {
					g := want[i][j]
					if !proto.Equal(ss.GetScope(), wantScope(g.scope)) || ss.GetSchemaUrl() != g.scope.SchemaURL {
						t.Errorf("Got(scope %d.%d) %v %q; want %v", i, j, ss.GetScope(), ss.GetSchemaUrl(), g.scope)
					}
					if len(ss.GetSpans()) != len(g.spans) {
						t.Fatalf("Got(scope %d.%d: %d spans); want %d", i, j, len(ss.GetSpans()), len(g.spans))
					}
					for k, s := range ss.GetSpans() {
						if w := wantSpan(spans[g.spans[k]]); !proto.Equal(s, w) {
							t.Errorf("Got(span %q)\n%s\nwant\n%s", w.GetName(), prototext.Format(s), prototext.Format(w))
						}
					}
				}
			}
		})
	}
}

// wantSpan is OTLP's span for s, written from the specification's
// field meanings, independently of the exporter's code.
func wantSpan(s sdktrace.ReadOnlySpan) *tracepb.Span {
	tid, sid := s.SpanContext().TraceID(), s.SpanContext().SpanID()
	w := &tracepb.Span{TraceId: tid[:], SpanId: sid[:], TraceState: s.SpanContext().TraceState().String(), Name: s.Name(),
		Kind: tracepb.Span_SpanKind(s.SpanKind()), StartTimeUnixNano: uint64(s.StartTime().UnixNano()), EndTimeUnixNano: uint64(s.EndTime().UnixNano()),
		Attributes: wantKVs(s.Attributes()), DroppedAttributesCount: uint32(s.DroppedAttributes()), DroppedEventsCount: uint32(s.DroppedEvents()),
		DroppedLinksCount: uint32(s.DroppedLinks()), Status: &tracepb.Status{Message: s.Status().Description},
		Flags: uint32(s.SpanContext().TraceFlags()) | uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_HAS_IS_REMOTE_MASK)}
	if s.Parent().IsRemote() {
		w.Flags |= uint32(tracepb.SpanFlags_SPAN_FLAGS_CONTEXT_IS_REMOTE_MASK)
	}
	if p := s.Parent().SpanID(); p.IsValid() {
		w.ParentSpanId = p[:]
	}
	switch s.Status().Code {
	case codes.Ok:
		w.Status.Code = tracepb.Status_STATUS_CODE_OK
	case codes.Error:
		w.Status.Code = tracepb.Status_STATUS_CODE_ERROR
	}
	for _, e := range s.Events() {
		w.Events = append(w.Events, &tracepb.Span_Event{TimeUnixNano: uint64(e.Time.UnixNano()), Name: e.Name, Attributes: wantKVs(e.Attributes),
			DroppedAttributesCount: uint32(e.DroppedAttributeCount)})
	}
	for _, l := range s.Links() {
		ltid, lsid := l.SpanContext.TraceID(), l.SpanContext.SpanID()
		f := uint32(l.SpanContext.TraceFlags()) | 0x100
		if l.SpanContext.IsRemote() {
			f |= 0x200
		}
		w.Links = append(w.Links, &tracepb.Span_Link{TraceId: ltid[:], SpanId: lsid[:], TraceState: l.SpanContext.TraceState().String(),
			Attributes: wantKVs(l.Attributes), DroppedAttributesCount: uint32(l.DroppedAttributeCount), Flags: f})
	}
	return w
}

func wantScope(s instrumentation.Scope) *commonpb.InstrumentationScope {
	if s == (instrumentation.Scope{}) {
		return nil
	}
	return &commonpb.InstrumentationScope{Name: s.Name, Version: s.Version, Attributes: wantKVs(s.Attributes.ToSlice())}
}

func wantKVs(kvs []attribute.KeyValue) []*commonpb.KeyValue {
	var out []*commonpb.KeyValue
	for _, kv := range kvs {
		out = append(out, &commonpb.KeyValue{Key: string(kv.Key), Value: wantValue(kv.Value)})
	}
	return out
}

func wantValue(v attribute.Value) *commonpb.AnyValue {
	array := func(n int, at func(i int) *commonpb.AnyValue) *commonpb.AnyValue {
		a := &commonpb.ArrayValue{}
		for i := range n {
			a.Values = append(a.Values, at(i))
		}
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_ArrayValue{ArrayValue: a}}
	}
	switch v.Type() {
	case attribute.STRING:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_StringValue{StringValue: v.AsString()}}
	case attribute.BOOL:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BoolValue{BoolValue: v.AsBool()}}
	case attribute.INT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_IntValue{IntValue: v.AsInt64()}}
	case attribute.FLOAT64:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_DoubleValue{DoubleValue: v.AsFloat64()}}
	case attribute.BYTESLICE:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_BytesValue{BytesValue: v.AsByteSlice()}}
	case attribute.BOOLSLICE:
		s := v.AsBoolSlice()
		return array(len(s), func(i int) *commonpb.AnyValue { return wantValue(attribute.BoolValue(s[i])) })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return array(len(s), func(i int) *commonpb.AnyValue { return wantValue(attribute.Int64Value(s[i])) })
	case attribute.FLOAT64SLICE:
		s := v.AsFloat64Slice()
		return array(len(s), func(i int) *commonpb.AnyValue { return wantValue(attribute.Float64Value(s[i])) })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return array(len(s), func(i int) *commonpb.AnyValue { return wantValue(attribute.StringValue(s[i])) })
	case attribute.SLICE:
		s := v.AsSlice()
		return array(len(s), func(i int) *commonpb.AnyValue { return wantValue(s[i]) })
	case attribute.MAP:
		return &commonpb.AnyValue{Value: &commonpb.AnyValue_KvlistValue{KvlistValue: &commonpb.KeyValueList{Values: wantKVs(v.AsMap())}}}
	}
	return &commonpb.AnyValue{}
}

// Whatever strings and numbers a span's attributes and name hold, the
// collector decodes them as they were (invalid UTF-8 aside: protobuf's
// strings must be UTF-8, and the SDK makes them so when it records).
func FuzzExporterAttributes(f *testing.F) {
	f.Add("gen_ai.request.model", "gemini-2.5-flash", []byte{0, 1}, int64(-1), 0.5, strings.Repeat("n", 200))
	f.Add("", "", []byte(nil), int64(math.MinInt64), math.Inf(1), "")
	f.Add("k\r\n", "v\x00\xe2\x82\xac", []byte(strings.Repeat("b", 20000)), int64(127), -0.0, "chat x")
	c, url := &collector{}, ""
	hs := httptest.NewServer(c)
	defer hs.Close()
	url = hs.URL + "/v1/traces"
	exp, err := telemetry.NewExporter(telemetry.ExporterConfig{URL: url})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, key, val string, raw []byte, n int64, x float64, name string) {
		if !utf8.ValidString(key) || !utf8.ValidString(val) || !utf8.ValidString(name) {
			t.Skip("protobuf strings are UTF-8")
		}
		attrs := []attribute.KeyValue{attribute.String(key, val), attribute.ByteSlice(key, raw), attribute.Int64(key, n), attribute.Float64(key, x),
			attribute.StringSlice(key, []string{val, name}), attribute.Map(key, attribute.String(val, name))}
		s := tracetest.SpanStubs{{Name: name, Attributes: attrs, StartTime: t0, EndTime: t0,
			Events: []sdktrace.Event{{Name: val, Time: t0, Attributes: attrs}}}}.Snapshots()
		c.mu.Lock()
		c.requests = c.requests[:0]
		c.mu.Unlock()
		if err := exp.ExportSpans(context.Background(), s); err != nil {
			t.Fatal(err)
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if len(c.requests) != 1 || len(c.bad) > 0 {
			t.Fatalf("Got(%d exports, unreadable %v); want one readable", len(c.requests), c.bad)
		}
		got := c.requests[0].GetResourceSpans()[0].GetScopeSpans()[0].GetSpans()[0]
		if w := wantSpan(s[0]); !proto.Equal(got, w) {
			t.Errorf("Got(span)\n%s\nwant\n%s", prototext.Format(got), prototext.Format(w))
		}
	})
}
